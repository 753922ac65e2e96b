/**
 * The conformance prompts: `test_simple_prompt`, `test_prompt_with_arguments`
 * (with a completer for `arg1`), `test_prompt_with_embedded_resource` and
 * `test_prompt_with_image`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Prompt from "../../src/Prompt.ts"
import * as Tool from "../../src/Tool.ts"
import { png } from "./media.ts"

/**
 * A prompt without arguments: one user text message.
 *
 * **Example**
 *
 * ```ts
 * import { simplePrompt } from "effect-mcp-runtime/capabilities/conformance/prompts"
 *
 * simplePrompt.prompt.name // => "simple_prompt"
 * ```
 *
 * @category prompts
 * @since 0.1.0
 */
export const simplePrompt = Prompt.make("simple_prompt", {
  title: "Simple Test Prompt",
  description: "A simple prompt without arguments"
}).pipe(Prompt.handle(() => Effect.succeed("This is a simple prompt for testing.")))

/**
 * A prompt with two required arguments, echoed in its message; `arg1` has
 * completions.
 *
 * **Example**
 *
 * ```ts
 * import { promptWithArguments } from "effect-mcp-runtime/capabilities/conformance/prompts"
 *
 * promptWithArguments.prompt.name // => "prompt_with_arguments"
 * ```
 *
 * @category prompts
 * @since 0.1.0
 */
export const promptWithArguments = Prompt.make("prompt_with_arguments", {
  title: "Prompt With Arguments",
  description: "A prompt with required arguments",
  arguments: Schema.Struct({
    arg1: Schema.String.annotate({ description: "First test argument" }),
    arg2: Schema.String.annotate({ description: "Second test argument" })
  })
}).pipe(
  Prompt.handle(({ arg1, arg2 }) => Effect.succeed(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)),
  Prompt.completions({
    arg1: (value) =>
      Effect.succeed(["test", "testing", "tested", "value"].filter((candidate) => candidate.startsWith(value)))
  })
)

/**
 * A prompt embedding the resource whose URI it is given.
 *
 * **Example**
 *
 * ```ts
 * import { promptWithEmbeddedResource } from "effect-mcp-runtime/capabilities/conformance/prompts"
 *
 * promptWithEmbeddedResource.prompt.name // => "prompt_with_embedded_resource"
 * ```
 *
 * @category prompts
 * @since 0.1.0
 */
export const promptWithEmbeddedResource = Prompt.make("prompt_with_embedded_resource", {
  title: "Prompt With Embedded Resource",
  description: "A prompt that includes an embedded resource",
  arguments: Schema.Struct({
    resourceUri: Schema.String.annotate({ description: "URI of the resource to embed" })
  })
}).pipe(
  Prompt.handle(({ resourceUri }) =>
    Effect.succeed([
      Prompt.user(
        Tool.resource({ uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." })
      ),
      Prompt.user("Please process the embedded resource above.")
    ])
  )
)

/**
 * A prompt with an image message.
 *
 * **Example**
 *
 * ```ts
 * import { promptWithImage } from "effect-mcp-runtime/capabilities/conformance/prompts"
 *
 * promptWithImage.prompt.name // => "prompt_with_image"
 * ```
 *
 * @category prompts
 * @since 0.1.0
 */
export const promptWithImage = Prompt.make("prompt_with_image", {
  title: "Prompt With Image",
  description: "A prompt that includes image content"
}).pipe(
  Prompt.handle(() =>
    Effect.succeed([Prompt.user(Tool.image(png, "image/png")), Prompt.user("Please analyze the image above.")])
  )
)

/**
 * A prompt that needs the user's input (2026-07-28: an input-required round
 * on `prompts/get`): asks what context to use (input key `user_context`),
 * then returns a message with it.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredPrompt } from "effect-mcp-runtime/capabilities/conformance/prompts"
 *
 * inputRequiredPrompt.prompt.name // => "input_required_result_prompt"
 * ```
 *
 * @category prompts
 * @since 0.2.0
 */
export const inputRequiredPrompt = Prompt.make("input_required_result_prompt", {
  title: "Prompt Needing Input",
  description: "Asks the user what context to use (an input-required round under 2026-07-28)"
}).pipe(
  Prompt.handle(() =>
    Elicitation.form(
      "What context should the prompt use?",
      Schema.Struct({ context: Schema.String.annotate({ description: "The context of the prompt" }) })
    ).pipe(
      Client.inputKey("user_context"),
      Effect.map((answer) =>
        answer.action === "accept"
          ? `Work in this context: ${answer.content.context}`
          : `The user gave no context (${answer.action}); ask them for it.`
      )
    )
  )
)
