/**
 * `test_error_handling`: a tool error result.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"

/**
 * Always fails with a `ToolError`, which the client receives as an
 * `isError: true` result (not a JSON-RPC error).
 *
 * **Example**
 *
 * ```ts
 * import { errorHandling } from "effect-mcp-runtime/capabilities/conformance/errorHandling"
 *
 * errorHandling.tool.name // => "error_handling"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const errorHandling = Tool.make("error_handling", {
  description: "Tests error response handling",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.fail(new Tool.ToolError({ message: "This tool intentionally returns an error for testing" }))
  )
)
