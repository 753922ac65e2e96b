/**
 * `tasks/cancel` (tasks extension, 2026-07-28): stops a task.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Method from "../Method.ts"
import * as Tasks from "../internal/tasks.ts"
import { TaskParams } from "./tasksGet.ts"

/**
 * Cancels the task: its status becomes `cancelled` and its work is
 * interrupted, with everything it started (child processes too). A task
 * that already ended stays as it is; the answer is the same empty result.
 * An unknown task is −32602.
 *
 * **Example**
 *
 * ```ts
 * import { tasksCancel } from "effect-mcp-runtime/methods/tasksCancel"
 *
 * tasksCancel.decode({ taskId: "7f0c" })._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const tasksCancel = Method.request("tasks/cancel", {
  params: TaskParams,
  revisions: "modern",
  routingName: (params) => (typeof params.taskId === "string" ? params.taskId : undefined),
  handler: (params) =>
    Effect.flatMap(Tasks.runnerFor("tasks/cancel"), (tasks) => Effect.as(tasks.cancel(params.taskId), {}))
})
