/**
 * Durable tasks, as the server sees them: what a durable task store
 * (`layers/ClusterTasks.ts`: Effect's workflow engine on its cluster, with
 * SQL storage) gives the task runner (`tasks.ts`) — the projection of every
 * task (`TaskStore` on SQL, read by any instance), starting a task's
 * workflow, interrupting it wherever it runs, claiming an attempt, and the
 * answers given to a task through another instance.
 *
 * The projection is kept here, on any `SqlClient` (SQLite or PostgreSQL):
 * `mcp_tasks` holds each task's MCP view as JSON, its attempt count (how
 * many times its work started) and its expiry; `mcp_task_answers` the
 * answers to input requests waiting for the instance that runs the task.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import { RequestFailed } from "../McpError.ts"
import type * as TaskStore from "../TaskStore.ts"
import { isTerminal, type Task } from "../TaskStore.ts"

/** What a task's workflow carries: enough for any instance to run the task's tool again. */
export interface Payload {
  readonly taskId: string
  /** The tool's public name. */
  readonly tool: string
  /** The `tools/call` request's params (with its `_meta`: protocol version, client capabilities), as JSON. */
  readonly params: string
  /** Who called (the authenticated principal), when the transport identified the caller. */
  readonly principal?: string | undefined
}

/** The projection as a `TaskStore`, with forms that fail clearly when the store is unreachable. */
export type Projection = TaskStore.TaskStore["Service"] & {
  readonly createOrFail: (task: Task) => Effect.Effect<void, RequestFailed>
  readonly getOrFail: (taskId: string) => Effect.Effect<Task | undefined, RequestFailed>
  readonly updateOrFail: (
    taskId: string,
    f: (task: Task) => Task | undefined
  ) => Effect.Effect<Task | undefined, RequestFailed>
}

/** What instances tell each other about: resource updates, and changes of the tool, prompt and resource lists. */
export type Topic = "resource_updates" | "list_changes"

/** A durable task store, as the runner uses it. */
export interface Durable {
  /** The projection: every instance reads and writes it. */
  readonly store: Projection
  /** This instance's name among the runners (its runner address, or `single`). */
  readonly runnerId: string
  /** Whether this instance is the only runner (SQLite): a task's work always runs where it was created. */
  readonly single: boolean
  /** Starts a task's workflow (durably: it runs, here or on another instance, even after a crash). */
  readonly execute: (payload: Payload) => Effect.Effect<void, RequestFailed>
  /** Interrupts a task's work where it runs (this instance or another). */
  readonly interrupt: (taskId: string) => Effect.Effect<void>
  /**
   * Counts a new attempt at a task's work, on this instance: the attempt's
   * number, or undefined when the task ended (or is unknown) and must not run.
   */
  readonly claim: (taskId: string) => Effect.Effect<number | undefined, RequestFailed>
  /** Hands the answers to a task's input requests to the instance that runs it (stored, then announced). */
  readonly sendAnswers: (taskId: string, responses: Record<string, unknown>) => Effect.Effect<void, RequestFailed>
  /** The tasks that were given answers, through any instance (this one included). */
  readonly answered: Stream.Stream<string>
  /** Takes (reads and deletes) a task's stored answers: the instance running the task does, when announced. */
  readonly takeAnswers: (taskId: string) => Effect.Effect<Record<string, unknown>, RequestFailed>
  /** Sets what runs a task's work when its workflow's activity starts on this instance (the server's, once). */
  readonly setActivity: (run: (payload: Payload) => Effect.Effect<void>) => Effect.Effect<void>
  /**
   * Tells every other instance of an event of this one: a resource update
   * (`notifications/resources/updated`, the URI) or a change of a list
   * (`list_changed`: `tools`, `prompts`, `resources`).
   */
  readonly broadcast: (topic: Topic, value: string) => Effect.Effect<void>
  /** The events other instances broadcast on a topic. */
  readonly broadcasts: (topic: Topic) => Stream.Stream<string>
}

/** The durable task store of the server, when it has one. */
export class DurableTasks extends Context.Service<DurableTasks, Durable>()(
  "effect-mcp-runtime/internal/DurableTasks"
) {}

/** The error of a call that needs the store while it is unreachable. */
export const unavailable = (what: string, error: unknown): RequestFailed =>
  new RequestFailed({
    data: { reason: "task_store_unavailable" },
    message:
      `The task store is unreachable (${what}): ${describe(error)}. Tasks cannot be created, read or changed ` +
      `until it is back; calls that do not run as tasks are served as usual. Retry in a few seconds.`
  })

/** An error's message, for people. */
export const describe = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const reason = (error as { readonly reason?: { readonly message?: unknown; readonly cause?: unknown } }).reason
    const cause = reason?.cause ?? (error as { readonly cause?: unknown }).cause
    if (cause instanceof Error && cause.message !== "") return cause.message
    if (typeof reason?.message === "string" && reason.message !== "") return reason.message
    if (error instanceof Error && error.message !== "") return error.message
  }
  return String(error)
}

/** What a change notification carries: the task, or its id when the task is too long for a notification. */
const announcement = (task: Task): string => {
  const json = JSON.stringify(task)
  // PostgreSQL refuses payloads of 8000 bytes or more.
  return Buffer.byteLength(json) < 7900 ? json : task.taskId
}

/** How often expired ended tasks are deleted. */
const sweepIntervalMs = 60_000

/** The projection's tables. Plain DDL that SQLite and PostgreSQL both accept. */
export const migrate = (sql: SqlClient.SqlClient): Effect.Effect<void, SqlError.SqlError> =>
  // PostgreSQL: one instance at a time (instances started together would race on CREATE TABLE IF NOT EXISTS).
  sql.withTransaction(
    Effect.gen(function* () {
      yield* sql.onDialectOrElse({
        pg: () => sql`SELECT pg_advisory_xact_lock(7218462305)`,
        orElse: () => Effect.void
      })
      yield* sql`CREATE TABLE IF NOT EXISTS mcp_tasks (
      task_id TEXT PRIMARY KEY,
      status TEXT NOT NULL,
      task TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      runner TEXT,
      expires_at BIGINT
    )`
      yield* sql`CREATE TABLE IF NOT EXISTS mcp_task_answers (
      task_id TEXT NOT NULL,
      answer_key TEXT NOT NULL,
      answer TEXT NOT NULL,
      PRIMARY KEY (task_id, answer_key)
    )`
      yield* sql`CREATE TABLE IF NOT EXISTS mcp_runtime_keys (
      name TEXT PRIMARY KEY,
      value TEXT NOT NULL
    )`
    })
  )

/**
 * A value kept once for every instance (the request-state key): the stored
 * one, or `make()` stored first by whichever instance gets there first.
 */
export const sharedValue = (
  sql: SqlClient.SqlClient,
  name: string,
  make: () => string
): Effect.Effect<string, SqlError.SqlError> =>
  Effect.gen(function* () {
    yield* sql`INSERT INTO mcp_runtime_keys (name, value) VALUES (${name}, ${make()}) ON CONFLICT (name) DO NOTHING`
    const rows = yield* sql<{ readonly value: string }>`SELECT value FROM mcp_runtime_keys WHERE name = ${name}`
    return rows[0]!.value
  })

interface Row {
  readonly task: string
  readonly expires_at: number | string | bigint | null
}

const expiryOf = (task: Task): number | null =>
  isTerminal(task.status) && task.ttlMs !== null ? Date.parse(task.createdAt) + task.ttlMs : null

/**
 * The projection as a `TaskStore`, on `sql`. `notify` tells the other
 * instances a task changed (PostgreSQL's `NOTIFY`, sent when the change
 * commits): the task itself as JSON when it fits a notification, else its
 * id (read back by whoever hears it); `remoteChanges` are those payloads.
 * Without them (SQLite: one instance), changes are published in this
 * process only.
 */
export const makeStore = (
  sql: SqlClient.SqlClient,
  options: {
    readonly notify?: ((taskId: string) => Effect.Effect<void, SqlError.SqlError>) | undefined
    readonly remoteChanges?: Stream.Stream<string> | undefined
    /** Turns a store failure into the error a caller sees (and notes the store down). */
    readonly failed: (what: string, error: SqlError.SqlError) => RequestFailed
  }
): Effect.Effect<Projection, never, Scope.Scope> =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    const changes = yield* Effect.acquireRelease(PubSub.unbounded<Task>(), PubSub.shutdown)
    const fail =
      (what: string) =>
      <A>(effect: Effect.Effect<A, SqlError.SqlError>): Effect.Effect<A, RequestFailed> =>
        Effect.mapError(effect, (error) => options.failed(what, error))

    const read = (taskId: string, forUpdate: boolean) =>
      Effect.map(
        forUpdate
          ? sql.onDialectOrElse({
              pg: () => sql<Row>`SELECT task, expires_at FROM mcp_tasks WHERE task_id = ${taskId} FOR UPDATE`,
              orElse: () => sql<Row>`SELECT task, expires_at FROM mcp_tasks WHERE task_id = ${taskId}`
            })
          : sql<Row>`SELECT task, expires_at FROM mcp_tasks WHERE task_id = ${taskId}`,
        (rows) => {
          const row = rows[0]
          if (row === undefined) return undefined
          if (row.expires_at !== null && Number(row.expires_at) < clock.currentTimeMillisUnsafe()) return undefined
          return JSON.parse(row.task) as Task
        }
      )

    const createOrFail = (task: Task) =>
      sql
        .withTransaction(
          Effect.andThen(
            sql`INSERT INTO mcp_tasks (task_id, status, task, attempts, expires_at)
              VALUES (${task.taskId}, ${task.status}, ${JSON.stringify(task)}, 0, ${expiryOf(task)})`,
            options.notify === undefined ? Effect.void : options.notify(announcement(task))
          )
        )
        .pipe(
          fail("creating a task"),
          Effect.tap(() => (options.notify === undefined ? PubSub.publish(changes, task) : Effect.void))
        )

    const getOrFail = (taskId: string) => fail("reading a task")(read(taskId, false))

    const updateOrFail = (taskId: string, f: (task: Task) => Task | undefined) =>
      sql
        .withTransaction(
          Effect.flatMap(read(taskId, true), (task) => {
            if (task === undefined || isTerminal(task.status))
              return Effect.succeed({ task, changed: false as boolean })
            const next = f(task)
            if (next === undefined) return Effect.succeed({ task, changed: false as boolean })
            return sql`UPDATE mcp_tasks SET status = ${next.status}, task = ${JSON.stringify(next)},
                expires_at = ${expiryOf(next)} WHERE task_id = ${taskId}`.pipe(
              Effect.andThen(options.notify === undefined ? Effect.void : options.notify(announcement(next))),
              Effect.as({ task: next, changed: true })
            )
          })
        )
        .pipe(
          fail("changing a task"),
          Effect.tap(({ changed, task }) =>
            changed && options.notify === undefined && task !== undefined ? PubSub.publish(changes, task) : Effect.void
          ),
          Effect.map(({ task }) => task)
        )

    // Other instances' changes, read back and published here (ours included: NOTIFY reaches its sender too).
    if (options.remoteChanges !== undefined) {
      yield* Effect.forkScoped(
        Stream.runForEach(options.remoteChanges, (payload) =>
          payload.startsWith("{")
            ? Effect.asVoid(PubSub.publish(changes, JSON.parse(payload) as Task))
            : Effect.flatMap(
                Effect.orElseSucceed(read(payload, false), () => undefined),
                (task) => (task === undefined ? Effect.void : Effect.asVoid(PubSub.publish(changes, task)))
              )
        )
      )
    }

    // Ended tasks past their time are deleted, here and there (every instance sweeps; the deletes are idempotent).
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.andThen(
          Effect.sleep(sweepIntervalMs),
          // Read at each sweep (a statement built once would keep the first time for ever). Answers no running
          // task will take (its task ended, or is gone) go too.
          Effect.ignore(
            Effect.suspend(() =>
              Effect.andThen(
                sql`DELETE FROM mcp_tasks WHERE expires_at IS NOT NULL AND expires_at < ${clock.currentTimeMillisUnsafe()}`,
                sql`DELETE FROM mcp_task_answers WHERE task_id NOT IN
                  (SELECT task_id FROM mcp_tasks WHERE status IN ('working', 'input_required'))`
              )
            )
          )
        )
      )
    )

    // The TaskStore interface has no error channel: a store failure there is a defect the caller's request turns
    // into an internal error. The runner uses the `…OrFail` forms and answers with a clear error instead.
    return {
      create: (task) => Effect.orDie(createOrFail(task)),
      get: (taskId) => Effect.orDie(getOrFail(taskId)),
      update: (taskId, f) => Effect.orDie(updateOrFail(taskId, f)),
      changes: Stream.fromPubSub(changes),
      createOrFail,
      getOrFail,
      updateOrFail
    }
  })

/** Counts a new attempt at a task: its number, or undefined when the task ended or is unknown. */
export const claim = (
  sql: SqlClient.SqlClient,
  taskId: string,
  runnerId: string
): Effect.Effect<number | undefined, SqlError.SqlError> =>
  Effect.map(
    sql<{ readonly attempts: number | string }>`UPDATE mcp_tasks SET attempts = attempts + 1, runner = ${runnerId}
      WHERE task_id = ${taskId} AND status IN ('working', 'input_required') RETURNING attempts`,
    (rows) => (rows[0] === undefined ? undefined : Number(rows[0].attempts))
  )

/** Stores answers for the instance that runs the task (it takes them with {@link takeAnswers}). */
export const storeAnswers = (
  sql: SqlClient.SqlClient,
  taskId: string,
  responses: Record<string, unknown>
): Effect.Effect<void, SqlError.SqlError> =>
  Effect.forEach(
    Object.entries(responses),
    ([key, value]) =>
      sql`INSERT INTO mcp_task_answers (task_id, answer_key, answer) VALUES (${taskId}, ${key}, ${JSON.stringify(value)})
        ON CONFLICT (task_id, answer_key) DO UPDATE SET answer = excluded.answer`,
    { discard: true }
  )

/** Takes (reads and deletes) the stored answers of a task. */
export const takeAnswers = (
  sql: SqlClient.SqlClient,
  taskId: string
): Effect.Effect<Record<string, unknown>, SqlError.SqlError> =>
  sql.withTransaction(
    Effect.gen(function* () {
      const rows = yield* sql<{ readonly answer_key: string; readonly answer: string }>`
        SELECT answer_key, answer FROM mcp_task_answers WHERE task_id = ${taskId}`
      if (rows.length > 0) yield* sql`DELETE FROM mcp_task_answers WHERE task_id = ${taskId}`
      return Object.fromEntries(rows.map((row) => [row.answer_key, JSON.parse(row.answer) as unknown]))
    })
  )

/**
 * A durable store opened on demand: `open` runs the first time an operation
 * needs the store (a task created, read, answered or cancelled) or when
 * `start` is called (a restart that finds unfinished tasks opens it at once,
 * to take them over). Until then the server pays nothing for it. Streams and
 * the activity wait for the store without opening it. A store that failed
 * to open fails the operations that need it with a clear error.
 */
export const onDemand = (
  open: Effect.Effect<Durable, unknown>,
  known: { readonly runnerId: string; readonly single: boolean }
): Effect.Effect<{ readonly durable: Durable; readonly start: Effect.Effect<void> }, never, Scope.Scope> =>
  Effect.gen(function* () {
    // The open runs in the scope (and with the context) of whoever built this, not of the request that needed it.
    const scope = yield* Effect.scope
    const context = yield* Effect.context<never>()
    let activity: ((payload: Payload) => Effect.Effect<void>) | undefined
    const opened = yield* Deferred.make<Durable, unknown>()
    let current: Durable | undefined
    let started = false
    const start = Effect.suspend(() => {
      if (started) return Effect.void
      started = true
      return Effect.asVoid(
        Effect.forkIn(
          Effect.provideContext(
            Effect.flatMap(Effect.exit(open), (exit) => {
              if (exit._tag === "Success") current = exit.value
              const apply =
                exit._tag === "Success" && activity !== undefined ? exit.value.setActivity(activity) : Effect.void
              return Effect.andThen(apply, Deferred.done(opened, exit))
            }),
            context
          ),
          scope
        )
      )
    })
    const get: Effect.Effect<Durable, RequestFailed> = Effect.suspend(() =>
      current !== undefined
        ? Effect.succeed(current)
        : Effect.andThen(
            start,
            Effect.mapError(Deferred.await(opened), (error) => unavailable("opening it", error))
          )
    )
    // Waits for the store without opening it; never, when it failed to open.
    const whenOpen = <A>(f: (durable: Durable) => Effect.Effect<A>): Effect.Effect<A> =>
      Effect.flatMap(
        Effect.catchCause(Deferred.await(opened), () => Effect.never),
        f
      )
    const passiveStream = <A>(f: (durable: Durable) => Stream.Stream<A>): Stream.Stream<A> =>
      Stream.unwrap(whenOpen((durable) => Effect.succeed(f(durable))))
    const orDie = <A>(f: (durable: Durable) => Effect.Effect<A, RequestFailed>) => Effect.orDie(Effect.flatMap(get, f))
    const store: Projection = {
      create: (task) => orDie((durable) => durable.store.createOrFail(task)),
      get: (taskId) => orDie((durable) => durable.store.getOrFail(taskId)),
      update: (taskId, f) => orDie((durable) => durable.store.updateOrFail(taskId, f)),
      changes: passiveStream((durable) => durable.store.changes),
      createOrFail: (task) => Effect.flatMap(get, (durable) => durable.store.createOrFail(task)),
      getOrFail: (taskId) => Effect.flatMap(get, (durable) => durable.store.getOrFail(taskId)),
      updateOrFail: (taskId, f) => Effect.flatMap(get, (durable) => durable.store.updateOrFail(taskId, f))
    }
    const durable: Durable = {
      store,
      runnerId: known.runnerId,
      single: known.single,
      execute: (payload) => Effect.flatMap(get, (durable) => durable.execute(payload)),
      interrupt: (taskId) => (current === undefined ? Effect.void : current.interrupt(taskId)),
      claim: (taskId) => Effect.flatMap(get, (durable) => durable.claim(taskId)),
      sendAnswers: (taskId, responses) => Effect.flatMap(get, (durable) => durable.sendAnswers(taskId, responses)),
      answered: passiveStream((durable) => durable.answered),
      takeAnswers: (taskId) => Effect.flatMap(get, (durable) => durable.takeAnswers(taskId)),
      // Set on the store once it is open (the server starts before it).
      setActivity: (run) =>
        Effect.suspend(() => {
          activity = run
          return current === undefined ? Effect.void : current.setActivity(run)
        }),
      broadcast: (topic, value) => (current === undefined ? Effect.void : current.broadcast(topic, value)),
      broadcasts: (topic) => passiveStream((durable) => durable.broadcasts(topic))
    }
    return { durable, start }
  })
