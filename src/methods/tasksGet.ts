/**
 * `tasks/get` (tasks extension, 2026-07-28): where a task is, with its input
 * requests, result or error.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tasks from "../internal/tasks.ts"
import * as Method from "../Method.ts"

/**
 * The params of `tasks/get` and `tasks/cancel`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { TaskParams } from "effect-mcp-runtime/methods/tasksGet"
 *
 * Schema.decodeUnknownSync(TaskParams)({ taskId: "7f0c2a4e" })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const TaskParams = Schema.Struct({ taskId: Schema.String })

/**
 * Answers a task as it is now: `taskId`, `status` and `statusMessage`, its
 * timestamps, `ttlMs`, `pollIntervalMs`, and, by status, its
 * `inputRequests`, its `result` (as `tools/call` would have answered it, an
 * error result included) or its `error`. An unknown task is −32602.
 *
 * **Example**
 *
 * ```ts
 * import { tasksGet } from "effect-mcp-runtime/methods/tasksGet"
 *
 * tasksGet.decode({ taskId: "7f0c2a4e" })._tag // => "Success"
 * tasksGet.decode({})._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const tasksGet = Method.request("tasks/get", {
  params: TaskParams,
  revisions: "modern",
  routingName: (params) => (typeof params.taskId === "string" ? params.taskId : undefined),
  handler: (params) => Effect.flatMap(Tasks.runnerFor("tasks/get"), (tasks) => tasks.get(params.taskId))
})
