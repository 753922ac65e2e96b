/**
 * `test_input_required_result_sampling` (2026-07-28): asks the client's model.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Client from "../../src/Client.ts"
import * as Sampling from "../../src/Sampling.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the client's model "What is the capital of France?" (input key
 * `capital_question`) and answers with its reply.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredSampling } from "effect-mcp-runtime/capabilities/conformance/inputRequiredSampling"
 *
 * inputRequiredSampling.tool.name // => "input_required_result_sampling"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredSampling = Tool.make("input_required_result_sampling", {
  description: "Asks the client's model a question (an input-required round under 2026-07-28)",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Sampling.createMessage({
      messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
      maxTokens: 100
    }).pipe(
      Client.inputKey("capital_question"),
      Effect.map(
        (reply) => `The model answered: ${reply.content.type === "text" ? reply.content.text : reply.content.type}`
      )
    )
  )
)
