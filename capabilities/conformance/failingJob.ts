/**
 * `failing_job` (tasks scenarios; published through the kernel's alias for
 * `tasks_failing_job`): a task whose tool fails.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Runs only as a task (a client without the tasks extension gets −32021),
 * works a second, then fails as tools fail: the task ends `completed` with
 * an `isError` result, not `failed`.
 *
 * **Example**
 *
 * ```ts
 * import { failingJob } from "effect-mcp-runtime/capabilities/conformance/failingJob"
 *
 * failingJob.tool.task // => "required"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const failingJob = Tool.make("failing_job", {
  description: "A task that ends with a tool error after a second",
  annotations: { readOnlyHint: true, openWorldHint: false },
  task: "required"
}).pipe(
  Tool.handle(() =>
    Task.background(
      Effect.andThen(
        Effect.sleep("1 second"),
        Effect.fail(new Tool.ToolError({ message: "The job failed, as it always does." }))
      )
    )
  )
)
