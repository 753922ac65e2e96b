/**
 * Where tasks are kept (the tasks extension, `io.modelcontextprotocol/tasks`,
 * protocol 2026-07-28): each task's status, its input requests while it
 * waits for the client, its result or error once it ended. The server writes
 * a task here before it answers the call that created it, so a `tasks/get`
 * sent right after finds it.
 *
 * {@link layerMemory} keeps them in the process (what a library server
 * uses unless told otherwise): a task lives as long as the server, and only
 * the instance that created it knows it. The durable stores of
 * `layers/ClusterTasks.ts` (SQLite, PostgreSQL) implement the same
 * interface on SQL — the projection of tasks that run as durable workflows,
 * shared by every instance on one PostgreSQL database (see
 * `docs/scale-out.md`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * const statusOf = (taskId: string) =>
 *   Effect.map(Effect.flatMap(Effect.service(TaskStore.TaskStore), (store) => store.get(taskId)), (task) => task?.status)
 * ```
 *
 * @since 0.2.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * Where a task is: `working`; `input_required` (it waits for the client's
 * answers to its `inputRequests`, given with `tasks/update`); and the
 * terminal `completed` (with the tool's result, an error result included),
 * `failed` (a protocol error: `error`) and `cancelled`.
 *
 * **Example**
 *
 * ```ts
 * import type * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * const done = (status: TaskStore.TaskStatus) => status === "completed" || status === "failed" || status === "cancelled"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * One task, as `tasks/get` shows it.
 *
 * **Example**
 *
 * ```ts
 * import type * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * const task: TaskStore.Task = {
 *   taskId: "7f0c2a4e-…",
 *   status: "working",
 *   createdAt: "2026-07-28T10:00:00.000Z",
 *   lastUpdatedAt: "2026-07-28T10:00:00.000Z",
 *   ttlMs: 3600000,
 *   pollIntervalMs: 500
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Task {
  readonly taskId: string
  readonly status: TaskStatus
  /** What is going on, for people (the error of a failed task, who cancelled it). */
  readonly statusMessage?: string | undefined
  /** ISO 8601. */
  readonly createdAt: string
  /** ISO 8601, changed at every change of status, input requests or result. */
  readonly lastUpdatedAt: string
  /** How long after its creation the task is kept once it ended (ms); null: for as long as the store lives. */
  readonly ttlMs: number | null
  /** How often a client may usefully poll it (ms). */
  readonly pollIntervalMs?: number | undefined
  /** While `input_required`: the requests waiting for the client's answers, by key. */
  readonly inputRequests?:
    | { readonly [key: string]: { readonly method: string; readonly params: Record<string, unknown> } }
    | undefined
  /** Once `completed`: the tool's result, as `tools/call` would have answered it. */
  readonly result?: Record<string, unknown> | undefined
  /** Once `failed`: the JSON-RPC error the call would have been answered with. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown } | undefined
}

/**
 * Whether a status is final: a task that reached it never changes again.
 *
 * **Example**
 *
 * ```ts
 * import * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * TaskStore.isTerminal("cancelled") // => true
 * TaskStore.isTerminal("input_required") // => false
 * ```
 *
 * @category guards
 * @since 0.2.0
 */
export const isTerminal = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * The task store.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { TaskStore } from "effect-mcp-runtime/TaskStore"
 *
 * const exists = (taskId: string) => Effect.flatMap(Effect.service(TaskStore), (store) => Effect.map(store.get(taskId), (task) => task !== undefined))
 * ```
 *
 * @category services
 * @since 0.2.0
 */
export class TaskStore extends Context.Service<
  TaskStore,
  {
    /** Keeps a new task; when this completes, `get` finds it. */
    readonly create: (task: Task) => Effect.Effect<void>
    /** The task, or undefined when there is none (never was, or expired). */
    readonly get: (taskId: string) => Effect.Effect<Task | undefined>
    /**
     * Changes a task atomically: `f` gets the current task and returns the
     * new one, or undefined to leave it as it is. A terminal task is never
     * changed (`f` is not called). Returns the task after the change, or
     * undefined when there is none.
     */
    readonly update: (taskId: string, f: (task: Task) => Task | undefined) => Effect.Effect<Task | undefined>
    /** Every change of every task, as it happens (for `notifications/tasks`). */
    readonly changes: Stream.Stream<Task>
  }
>()("effect-mcp-runtime/TaskStore") {}

/**
 * The most tasks the in-memory store keeps; past it, the oldest ended tasks
 * are dropped first.
 *
 * **Example**
 *
 * ```ts
 * import * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * TaskStore.maxTasks // => 10000
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const maxTasks = 10_000

/**
 * Builds an in-memory store. An ended task is dropped `ttlMs` after it was
 * created (checked when the store is read), and beyond {@link maxTasks} the
 * oldest ended tasks go first; a task that is still working is never
 * dropped (its tool's timeout bounds it).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * const program = Effect.scoped(Effect.flatMap(TaskStore.makeMemory, (store) => store.get("none")))
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeMemory: Effect.Effect<TaskStore["Service"], never, Scope.Scope> = Effect.gen(function* () {
  const tasks = new Map<string, Task>()
  const clock = yield* Clock.Clock
  const changes = yield* Effect.acquireRelease(PubSub.unbounded<Task>(), PubSub.shutdown)
  const expired = (task: Task, now: number): boolean =>
    isTerminal(task.status) && task.ttlMs !== null && now > Date.parse(task.createdAt) + task.ttlMs
  // Called before a task is added: drops the expired tasks (a walk at most once a minute, or when the store is
  // full; `get` drops an expired task it meets), then, if still full, the oldest ended ones to make room.
  let lastSweep = Number.NEGATIVE_INFINITY
  const sweep = () => {
    const now = clock.currentTimeMillisUnsafe()
    if (tasks.size >= maxTasks || now - lastSweep >= 60_000) {
      lastSweep = now
      for (const [id, task] of tasks) if (expired(task, now)) tasks.delete(id)
    }
    if (tasks.size < maxTasks) return
    for (const [id, task] of tasks) {
      if (tasks.size < maxTasks) break
      if (isTerminal(task.status)) tasks.delete(id)
    }
  }
  const publish = (task: Task) => PubSub.publish(changes, task)
  return TaskStore.of({
    create: (task) =>
      Effect.suspend(() => {
        sweep()
        tasks.set(task.taskId, task)
        return Effect.asVoid(publish(task))
      }),
    get: (taskId) =>
      Effect.sync(() => {
        const task = tasks.get(taskId)
        if (task !== undefined && expired(task, clock.currentTimeMillisUnsafe())) {
          tasks.delete(taskId)
          return undefined
        }
        return task
      }),
    update: (taskId, f) =>
      Effect.suspend(() => {
        const task = tasks.get(taskId)
        if (task === undefined || isTerminal(task.status)) return Effect.succeed(task)
        const next = f(task)
        if (next === undefined) return Effect.succeed(task)
        tasks.set(taskId, next)
        return Effect.as(publish(next), next)
      }),
    changes: Stream.fromPubSub(changes)
  })
})

/**
 * The in-memory store as a layer.
 *
 * **Example**
 *
 * ```ts
 * import * as TaskStore from "effect-mcp-runtime/TaskStore"
 *
 * const Tasks = TaskStore.layerMemory
 * ```
 *
 * @category layers
 * @since 0.2.0
 */
export const layerMemory: Layer.Layer<TaskStore> = Layer.effect(TaskStore, makeMemory)
