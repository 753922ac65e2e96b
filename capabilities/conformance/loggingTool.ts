/**
 * `test_logging_tool` (2026-07-28): logs to the client, which receives the
 * messages only when its request asked for a level.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as ClientLog from "../../src/ClientLog.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Logs three `info` messages and answers. Under 2026-07-28 they reach the
 * client only when the request carried `_meta["io.modelcontextprotocol/logLevel"]`
 * at `info` or below; otherwise nothing is sent.
 *
 * **Example**
 *
 * ```ts
 * import { loggingTool } from "effect-mcp-runtime/capabilities/conformance/loggingTool"
 *
 * loggingTool.tool.name // => "logging_tool"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const loggingTool = Tool.make("logging_tool", {
  description: "Logs three info messages, sent only to a request that asked for a log level",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      yield* ClientLog.info("logging_tool started")
      yield* ClientLog.info("logging_tool working")
      yield* ClientLog.info("logging_tool done")
      return "Logged three messages (sent only when the request asked for a log level)"
    })
  )
)
