/**
 * `test_streaming_elicitation` (2026-07-28): a tool that reports progress,
 * then needs the user's input.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Progress from "../../src/Progress.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Reports progress (when the client asked for it), then asks the user to
 * confirm. Under 2026-07-28 the question travels in an input-required result,
 * never as a request of the server's on the response stream.
 *
 * **Example**
 *
 * ```ts
 * import { streamingElicitation } from "effect-mcp-runtime/capabilities/conformance/streamingElicitation"
 *
 * streamingElicitation.tool.name // => "streaming_elicitation"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const streamingElicitation = Tool.make("streaming_elicitation", {
  description: "Reports progress, then asks the user to confirm (an input-required result under 2026-07-28)",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      yield* Progress.report({ progress: 1, total: 2, message: "prepared" })
      const answer = yield* Elicitation.form(
        "Continue?",
        Schema.Struct({ ok: Schema.Boolean.annotate({ title: "Continue" }) })
      )
      return answer.action === "accept" && answer.content.ok ? "Continued" : "Stopped"
    })
  )
)
