/**
 * `test_sampling`: asks the client's model for a completion.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Sampling from "../../src/Sampling.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Sends `sampling/createMessage` with the prompt and answers with the model's
 * text. A client without sampling gets a tool error saying so.
 *
 * **Example**
 *
 * ```ts
 * import { sampling } from "effect-mcp-runtime/capabilities/conformance/sampling"
 *
 * sampling.tool.name // => "sampling"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const sampling = Tool.make("sampling", {
  description: "Tests server-initiated sampling (LLM completion request)",
  input: Schema.Struct({ prompt: Schema.String.annotate({ description: "The prompt to send to the LLM" }) }),
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(({ prompt }) =>
    Sampling.createMessage({
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100
    }).pipe(
      Effect.map((reply) => `LLM response: ${reply.content.type === "text" ? reply.content.text : reply.content.type}`),
      Effect.mapError((error) => new Tool.ToolError({ message: `Sampling failed: ${error.message}` }))
    )
  )
)
