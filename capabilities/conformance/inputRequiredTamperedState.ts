/**
 * `test_input_required_result_tampered_state` (2026-07-28): a question whose
 * sealed state a client might alter.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks for a confirmation. Its input-required result carries a sealed
 * `requestState`: a retry whose state was altered is refused with −32602
 * (`data.reason: "request_state_tampered"`) before the tool runs again.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredTamperedState } from "effect-mcp-runtime/capabilities/conformance/inputRequiredTamperedState"
 *
 * inputRequiredTamperedState.tool.name // => "input_required_result_tampered_state"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredTamperedState = Tool.make("input_required_result_tampered_state", {
  description: "Asks for a confirmation; a retry with an altered requestState is refused",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Elicitation.form("Confirm the operation", Schema.Struct({ ok: Schema.Boolean })).pipe(
      Effect.map((answer) => (answer.action === "accept" ? `confirmed=${answer.content.ok}` : answer.action))
    )
  )
)
