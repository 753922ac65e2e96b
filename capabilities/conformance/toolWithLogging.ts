/**
 * `test_tool_with_logging`: client log messages while it runs.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ClientLog from "../../src/ClientLog.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Sends three `info` log messages to the client, 50 ms apart, then answers.
 *
 * **Example**
 *
 * ```ts
 * import { toolWithLogging } from "effect-mcp-runtime/capabilities/conformance/toolWithLogging"
 *
 * toolWithLogging.tool.name // => "tool_with_logging"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const toolWithLogging = Tool.make("tool_with_logging", {
  description: "Tests tool that emits log messages during execution",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      yield* ClientLog.info("Tool execution started")
      yield* Effect.sleep("50 millis")
      yield* ClientLog.info("Tool processing data")
      yield* Effect.sleep("50 millis")
      yield* ClientLog.info("Tool execution completed")
      return "Tool with logging executed successfully"
    })
  )
)
