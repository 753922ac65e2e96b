/**
 * `prompts/get`: one prompt's messages for the given arguments.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { CompiledPrompt } from "../internal/compilePrompt.ts"
import { guard } from "../internal/guard.ts"
import { Kernel } from "../Kernel.ts"
import { InvalidParams, MethodNotFound } from "../McpError.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * The params of `prompts/get`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { GetPromptParams } from "effect-mcp-runtime/methods/promptsGet"
 *
 * Schema.decodeUnknownSync(GetPromptParams)({ name: "notes_summary", arguments: { topic: "effect" } })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const GetPromptParams = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})

/**
 * The prompt a request names, with the request's record pointing at it; −32601
 * on a server without prompts, −32602 for an unknown name. Shared by
 * `prompts/get` and `completion/complete`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { promptNamed } from "effect-mcp-runtime/methods/promptsGet"
 *
 * const capabilityOf = (name: string) => Effect.map(promptNamed(name, "prompts/get"), (prompt) => prompt.capability)
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const promptNamed = (
  name: string,
  method: string
): Effect.Effect<CompiledPrompt, MethodNotFound | InvalidParams, Kernel | RequestContext> =>
  Effect.flatMap(
    Effect.context<Kernel | RequestContext>(),
    (context): Effect.Effect<CompiledPrompt, MethodNotFound | InvalidParams> => {
      const kernel = Context.get(context, Kernel)
      // Only a server with prompts offers them.
      if (kernel.promptCount() === 0) return Effect.fail(new MethodNotFound({ method }))
      const prompt = kernel.prompt(name)
      if (prompt === undefined) {
        return Effect.fail(
          new InvalidParams({
            message: `Unknown prompt: ${name}. Call prompts/list to see the available prompts.`,
            data: { prompt: name }
          })
        )
      }
      const record = Context.get(context, RequestContext).record
      record.tool = prompt.name
      record.capability = prompt.capability
      return Effect.succeed(prompt)
    }
  )

/**
 * Decodes the arguments with the prompt's Schema and runs its handler. An
 * unknown prompt, a missing or invalid argument, and a typed failure of the
 * handler are −32602; a defect is −32603 with a correlation id.
 *
 * **Example**
 *
 * ```ts
 * import { promptsGet } from "effect-mcp-runtime/methods/promptsGet"
 *
 * promptsGet.decode({ name: "notes_summary" })._tag // => "Success"
 * promptsGet.decode({ name: "notes_summary", arguments: { n: 3 } })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const promptsGet = Method.request("prompts/get", {
  params: GetPromptParams,
  inputRequests: true,
  routingName: (params) => (typeof params.name === "string" ? params.name : undefined),
  handler: (params) =>
    Effect.flatMap(promptNamed(params.name, "prompts/get"), (prompt) =>
      Effect.flatMap(Effect.service(RequestContext), (request) =>
        guard(
          prompt,
          "prompts/get",
          `prompts/get of ${prompt.name}`,
          prompt.get(params.arguments, request.protocolVersion)
        )
      )
    )
})
