/**
 * Tasks (the tasks extension, `io.modelcontextprotocol/tasks`, protocol
 * 2026-07-28): a tool call whose work outlives the request. The server
 * answers the call at once with a task (`resultType: "task"`); the client
 * follows it with `tasks/get`, answers its questions with `tasks/update`
 * and stops it with `tasks/cancel`.
 *
 * A tool declares that it may run as a task (`Tool.make(…, { task:
 * "optional" | "required" })`) and marks, with {@link background}, the work
 * that runs as one: what comes before — checking the arguments, asking the
 * user (an input-required round) — is answered synchronously, as the
 * extension recommends. Whether a task is created is the server's decision,
 * per call: the tool supports tasks and the call's client declared the
 * extension. Otherwise the same code runs inline and the call is answered
 * with its result, as under earlier revisions.
 *
 * Inside a task, requests to the client (`Elicitation`, `Sampling`, `Roots`)
 * become the task's input requests (status `input_required`); cancelling
 * the task interrupts its work and everything it started (child processes
 * too). The work runs under the tool's execution policy (its concurrency
 * slot, timeout and result size limit); what comes before it takes no slot
 * (so the call is answered with its task even when every slot is held) and
 * should stay short. See `docs/tasks.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Task from "effect-mcp-runtime/Task"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const rebuild = Tool.make("rebuild", {
 *   description: "Rebuilds the index (minutes).",
 *   input: Schema.Struct({ full: Schema.Boolean }),
 *   task: "optional"
 * }).pipe(
 *   Tool.handle(({ full }) => Task.background(Effect.as(Effect.sleep(full ? "3 minutes" : "20 seconds"), "rebuilt")))
 * )
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { CurrentTaskCall, extensionId as id } from "./internal/tasks.ts"

/**
 * The tasks extension's identifier, as clients declare it in
 * `capabilities.extensions`.
 *
 * **Example**
 *
 * ```ts
 * import * as Task from "effect-mcp-runtime/Task"
 *
 * Task.extensionId // => "io.modelcontextprotocol/tasks"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const extensionId: string = id

/**
 * Runs `work` as the call's task: when the tool supports tasks and the
 * call's client declared the extension, the call is answered at once with
 * the created task and `work` goes on in the background (its value becomes
 * the task's result, as the tool's result would have been); otherwise `work`
 * runs inline and its value is the call's result. Use it as the handler's
 * last step: `return yield* Task.background(work)`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Task from "effect-mcp-runtime/Task"
 *
 * const longJob = Task.background(Effect.as(Effect.sleep("2 minutes"), "done"))
 * ```
 *
 * @category combinators
 * @since 0.2.0
 */
export const background = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.service(CurrentTaskCall), (call) => (call === undefined ? work : call.start(work)))
