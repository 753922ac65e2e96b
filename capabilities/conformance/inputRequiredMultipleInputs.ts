/**
 * `test_input_required_result_multiple_inputs` (2026-07-28): three questions
 * at once.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Roots from "../../src/Roots.ts"
import * as Sampling from "../../src/Sampling.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the user's name (`user_name`), the client's model for a greeting
 * (`greeting`) and the client's roots (`client_roots`) concurrently: under
 * 2026-07-28 the three travel in one input-required result.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredMultipleInputs } from "effect-mcp-runtime/capabilities/conformance/inputRequiredMultipleInputs"
 *
 * inputRequiredMultipleInputs.tool.name // => "input_required_result_multiple_inputs"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredMultipleInputs = Tool.make("input_required_result_multiple_inputs", {
  description: "Asks for a name, a model's greeting and the roots at once (one input-required round)",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Effect.all(
      [
        Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
          Client.inputKey("user_name")
        ),
        Sampling.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
          maxTokens: 50
        }).pipe(Client.inputKey("greeting")),
        Roots.list.pipe(Client.inputKey("client_roots"))
      ],
      { concurrency: "unbounded" }
    ).pipe(
      Effect.map(([name, greeting, roots]) =>
        [
          `name: ${name.action === "accept" ? name.content.name : name.action}`,
          `greeting: ${greeting.content.type === "text" ? greeting.content.text : greeting.content.type}`,
          `roots: ${roots.map((root) => root.uri).join(", ") || "(none)"}`
        ].join("\n")
      )
    )
  )
)
