/**
 * `slow_compute` (tasks scenarios; published through the kernel's alias for
 * `tasks_slow_compute`): work that takes a while, as a task.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Waits `seconds`, then answers with its label. For a client with the tasks
 * extension the wait runs as a task (created at once, even for 0 seconds);
 * otherwise the call waits and answers. Cancelling the task stops the wait:
 * it ends `cancelled`.
 *
 * **Example**
 *
 * ```ts
 * import { slowCompute } from "effect-mcp-runtime/capabilities/conformance/slowCompute"
 *
 * slowCompute.tool.task // => "optional"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const slowCompute = Tool.make("slow_compute", {
  description: "Waits the given number of seconds, then answers (a task for clients with the tasks extension)",
  input: Schema.Struct({
    seconds: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 3600 })).annotate({
      description: "How long to work, in seconds"
    }),
    label: Schema.optionalKey(Schema.String.annotate({ description: "A label repeated in the result" }))
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  timeout: "2 hours",
  task: "optional"
}).pipe(
  Tool.handle(({ label, seconds }) =>
    Task.background(
      Effect.as(Effect.sleep(`${seconds} seconds`), `${label ?? "slow_compute"}: done after ${seconds} s`)
    )
  )
)
