/**
 * `protocol_error_job` (tasks scenarios; published through the kernel's alias
 * for `tasks_protocol_error_job`): a task that ends in a protocol error.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Runs only as a task, and dies (a defect, not a tool error): the task ends
 * `failed`, with the JSON-RPC error the call would have got (−32603 and a
 * correlation id; the server log has the defect).
 *
 * **Example**
 *
 * ```ts
 * import { protocolErrorJob } from "effect-mcp-runtime/capabilities/conformance/protocolErrorJob"
 *
 * protocolErrorJob.tool.task // => "required"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const protocolErrorJob = Tool.make("protocol_error_job", {
  description: "A task that ends in a protocol error (failed)",
  annotations: { readOnlyHint: true, openWorldHint: false },
  task: "required"
}).pipe(
  Tool.handle(() =>
    Task.background(
      Effect.andThen(Effect.sleep("100 millis"), Effect.die(new Error("protocol_error_job fails on purpose")))
    )
  )
)
