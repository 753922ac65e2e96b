/**
 * `test_tool_with_progress`: progress notifications while it runs.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Progress from "../../src/Progress.ts"
import { RequestContext } from "../../src/RequestContext.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Reports progress 0, 50 and 100 of 100, then answers with the progress
 * token it was given. The steps are spaced wider than the default progress
 * interval (100 ms), so each report becomes its own notification rather than
 * being coalesced, and the answer comes a little after the last one.
 *
 * **Example**
 *
 * ```ts
 * import { toolWithProgress } from "effect-mcp-runtime/capabilities/conformance/toolWithProgress"
 *
 * toolWithProgress.tool.name // => "tool_with_progress"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const toolWithProgress = Tool.make("tool_with_progress", {
  description: "Tests tool that reports progress notifications",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      const request = yield* RequestContext
      for (const progress of [0, 50, 100]) {
        yield* Progress.report({ progress, total: 100, message: `Completed step ${progress} of 100` })
        yield* Effect.sleep("150 millis")
      }
      return String(request.progressToken ?? 0)
    })
  )
)
