/**
 * `test_input_required_result_elicitation` (2026-07-28): asks the user's name.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks "What is your name?" (input key `user_name`) and answers
 * `Hello, <name>!`. Under 2026-07-28 the first call is answered with an
 * input-required result; the retry carrying the answer completes. Under
 * earlier revisions the same code sends `elicitation/create` to the client.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredElicitation } from "effect-mcp-runtime/capabilities/conformance/inputRequiredElicitation"
 *
 * inputRequiredElicitation.tool.name // => "input_required_result_elicitation"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredElicitation = Tool.make("input_required_result_elicitation", {
  description: "Asks the user's name (an input-required round under 2026-07-28), then greets them",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
      Client.inputKey("user_name"),
      Effect.map((answer) =>
        answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`
      )
    )
  )
)
