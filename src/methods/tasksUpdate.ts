/**
 * `tasks/update` (tasks extension, 2026-07-28): the client's answers to a
 * task's input requests.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Method from "../Method.ts"
import * as Tasks from "../internal/tasks.ts"

/**
 * The params of `tasks/update`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { TaskUpdateParams } from "effect-mcp-runtime/methods/tasksUpdate"
 *
 * Schema.decodeUnknownSync(TaskUpdateParams)({ taskId: "7f0c", inputResponses: { "confirm-1": { action: "accept" } } })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const TaskUpdateParams = Schema.Struct({
  taskId: Schema.String,
  inputResponses: Schema.Record(Schema.String, Schema.Unknown)
})

/**
 * Gives the answers to the task's outstanding input requests (the others —
 * never asked, already answered — are ignored) before it answers, so a
 * `tasks/get` right after shows what is still outstanding. Answers an empty
 * result. An unknown task is −32602, and so is an answer that is not a
 * result of its request's method (nothing is applied then).
 *
 * **Example**
 *
 * ```ts
 * import { tasksUpdate } from "effect-mcp-runtime/methods/tasksUpdate"
 *
 * tasksUpdate.decode({ taskId: "7f0c", inputResponses: {} })._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const tasksUpdate = Method.request("tasks/update", {
  params: TaskUpdateParams,
  revisions: "modern",
  routingName: (params) => (typeof params.taskId === "string" ? params.taskId : undefined),
  handler: (params) =>
    Effect.flatMap(Tasks.runnerFor("tasks/update"), (tasks) =>
      Effect.as(tasks.answer(params.taskId, params.inputResponses), {})
    )
})
