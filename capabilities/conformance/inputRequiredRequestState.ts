/**
 * `test_input_required_result_request_state` (2026-07-28): a confirmation
 * whose answer comes back with the state the server sealed.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks "Please confirm" (input key `confirm`). Every input-required result of
 * the runtime carries a sealed `requestState`; the retry is served only once
 * the state checked out (else −32602), so the answer says `state-ok`.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredRequestState } from "effect-mcp-runtime/capabilities/conformance/inputRequiredRequestState"
 *
 * inputRequiredRequestState.tool.name // => "input_required_result_request_state"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredRequestState = Tool.make("input_required_result_request_state", {
  description: "Asks for a confirmation; the retry is served only with the requestState the server sealed",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Elicitation.form("Please confirm", Schema.Struct({ ok: Schema.Boolean })).pipe(
      Client.inputKey("confirm"),
      Effect.map((answer) =>
        answer.action === "accept" ? `state-ok: confirmed=${answer.content.ok}` : `state-ok: ${answer.action}`
      )
    )
  )
)
