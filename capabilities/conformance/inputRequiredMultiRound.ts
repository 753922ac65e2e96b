/**
 * `test_input_required_result_multi_round` (2026-07-28): two questions, one
 * after the other.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the user's name (`step1`), then, knowing it, their favourite colour
 * (`step2`): two input-required rounds, each with a new `requestState`
 * holding the answers so far.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredMultiRound } from "effect-mcp-runtime/capabilities/conformance/inputRequiredMultiRound"
 *
 * inputRequiredMultiRound.tool.name // => "input_required_result_multi_round"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredMultiRound = Tool.make("input_required_result_multi_round", {
  description: "Asks two questions one after the other (two input-required rounds)",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      const first = yield* Elicitation.form("Step 1: What is your name?", Schema.Struct({ name: Schema.String })).pipe(
        Client.inputKey("step1")
      )
      if (first.action !== "accept") return `Stopped at step 1 (${first.action})`
      const second = yield* Elicitation.form(
        "Step 2: What is your favorite color?",
        Schema.Struct({ color: Schema.String })
      ).pipe(Client.inputKey("step2"))
      if (second.action !== "accept") return `Stopped at step 2 (${second.action})`
      return `${first.content.name} likes ${second.content.color}`
    })
  )
)
