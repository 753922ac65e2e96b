/**
 * Durable tasks on Effect's workflow engine and cluster (`effect/workflow`,
 * `effect/cluster`) with SQL storage: a task created by `Task.background`
 * becomes a workflow whose one activity runs the tool's work; its status and
 * result are a projection in SQL that every instance reads. A task survives
 * a restart of its instance (`tasks/get` returns the stored result), and a
 * task whose instance died is taken over — run again, or ended `failed`
 * with the reason, as the tool declares (`Tool.make`'s `durable`).
 *
 * - {@link layerSqlite}: the embedded default, one instance, an SQLite file
 *   (locked: a second process on the same file refuses to start).
 * - {@link layerPostgres}: any number of instances on one PostgreSQL
 *   database; each is a runner of the cluster (a runner port of its own, for
 *   the other runners), a task runs on the runner that owns its shard, and a
 *   runner that dies has its shards taken over within
 *   `shardLockExpiration` + `entityMessagePollInterval`.
 *
 * See `docs/scale-out.md` and ADR 0008.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const program = HttpTransport.serve(McpServer.make()).pipe(
 *   Effect.provide([
 *     HttpTransport.layerServer({ port: 3000 }),
 *     Kernel.layer(),
 *     ClusterTasks.layerSqlite({ filename: "/var/lib/mcp/tasks.db" })
 *   ])
 * )
 * ```
 *
 * @since 0.5.0
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import type * as Sharding from "effect/cluster/Sharding"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import * as Activity from "effect/workflow/Activity"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import * as Crypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import * as RequestState from "../src/RequestState.ts"
import { TaskStore } from "../src/TaskStore.ts"
import { processState } from "../src/internal/daemonClient.ts"
import * as Durable from "../src/internal/durable.ts"
import * as NodeSqliteClient from "./NodeSqliteClient.ts"

/**
 * The cluster's timings, as this runtime sets them (Effect's defaults are
 * tuned for throughput: a 10 s message poll, a 35 s shard lock). A task
 * whose instance died is taken over within `shardLockExpiration` +
 * `entityMessagePollInterval` (about 11 s with these).
 *
 * **Example**
 *
 * ```ts
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * ClusterTasks.timings.shardLockExpiration // => "10 seconds"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const timings = {
  shardLockExpiration: "10 seconds",
  shardLockRefreshInterval: "3 seconds",
  entityMessagePollInterval: "1 second",
  entityReplyPollInterval: "200 millis",
  refreshAssignmentsInterval: "1 second",
  runnerHealthCheckInterval: "2 seconds",
  sendRetryInterval: "100 millis",
  entityTerminationTimeout: "1 second"
} as const

/**
 * Settings shared by both stores.
 *
 * **Example**
 *
 * ```ts
 * import type * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * const options: ClusterTasks.Options = { shardLockExpiration: "20 seconds" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  /** How long a dead runner's shards stay locked before another runner takes them (default 10 s). */
  readonly shardLockExpiration?: Duration.Input | undefined
  /** How often unprocessed work (a taken-over task) is looked for (default 1 s). */
  readonly entityMessagePollInterval?: Duration.Input | undefined
}

/**
 * The embedded store's settings.
 *
 * **Example**
 *
 * ```ts
 * import type * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * const options: ClusterTasks.SqliteOptions = { filename: "/var/lib/mcp/tasks.db" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface SqliteOptions extends Options {
  /** The database file (created, with its directories, when missing). */
  readonly filename: string
}

/**
 * The distributed store's settings.
 *
 * **Example**
 *
 * ```ts
 * import type * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * const options: ClusterTasks.PostgresOptions = {
 *   url: "postgres://mcp:secret@db.internal:5432/mcp",
 *   runnerHost: "10.0.0.12",
 *   runnerPort: 34431
 * }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface PostgresOptions extends Options {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string
  /** The address other runners reach this one at (default 127.0.0.1: one machine). */
  readonly runnerHost?: string | undefined
  /** The runner port (default: a free port, found at start). */
  readonly runnerPort?: number | undefined
  /** The most connections to PostgreSQL this instance opens (default 10). */
  readonly maxConnections?: number | undefined
  /** How long connecting may take before the store counts as unreachable (default 5 s). */
  readonly connectTimeout?: Duration.Input | undefined
  /**
   * Seal input-required states (`RequestState`) with a secret kept in the
   * database, the same for every instance, so that a retry verifies on any
   * of them (default true). Pass false when the keys are configured
   * (`RequestState.layer`, `MCP_RUNTIME_STATE_KEY`).
   */
  readonly sharedRequestState?: boolean | undefined
}

/**
 * The store could not be opened: unreachable, refused, locked by another
 * process. `location` is where it was looked for (a URL's password
 * redacted).
 *
 * **Example**
 *
 * ```ts
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * new ClusterTasks.StoreError({ location: "postgres://mcp:***@db:5432/mcp", reason: "connection refused" }).message
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  location: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The task store ${this.location} cannot be used: ${this.reason}`
  }
}

/**
 * A URL with its password replaced by `***`, for messages and logs.
 *
 * **Example**
 *
 * ```ts
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * ClusterTasks.redact("postgres://mcp:s3cret@db:5432/mcp") // => "postgres://mcp:***@db:5432/mcp"
 * ```
 *
 * @category utils
 * @since 0.5.0
 */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return url.replace(/\/\/([^:/@]*):.*@/, "//$1:***@")
  }
}

// The workflow of a task: its payload names the tool and the call; its one activity runs the work (through the
// server, set with `setActivity`). The task's MCP view is the projection, not the workflow's result.
const McpTask = Workflow.make("McpTask", {
  payload: {
    taskId: Schema.String,
    tool: Schema.String,
    params: Schema.String,
    principal: Schema.optional(Schema.String)
  },
  success: Schema.Void,
  idempotencyKey: (payload) => payload.taskId
})

const taskLayer = (activity: Deferred.Deferred<(payload: Durable.Payload) => Effect.Effect<void>>) =>
  McpTask.toLayer((payload) =>
    Activity.make({
      name: "run",
      execute: Effect.flatMap(Deferred.await(activity), (run) => run(payload))
    })
  )

// The durable service on a cluster and its SQL client: the projection, the workflow's start and interrupt.
const makeDurable = (options: {
  readonly runnerId: string
  readonly single: boolean
  readonly activity: Deferred.Deferred<(payload: Durable.Payload) => Effect.Effect<void>>
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const engine = yield* WorkflowEngine.WorkflowEngine
    const failed = (what: string, error: unknown) => Durable.unavailable(what, error)
    // PostgreSQL (several instances) has LISTEN/NOTIFY; SQLite (one) keeps everything in the process.
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    const listen =
      pg._tag === "None"
        ? undefined
        : (name: string): Stream.Stream<string, SqlError.SqlError> =>
            Stream.unwrap(Effect.map(pg.value.listen(name), (queue) => Stream.fromQueue(queue))).pipe(
              Stream.map((notification) => notification.payload)
            )
    // PostgreSQL: NOTIFY carries ids between instances; the listeners reconnect with backoff when the store is lost.
    // The first LISTEN is confirmed before the store is ready (nothing another instance sends after that is
    // missed); a connection lost later is listened on again, every second until the store is back.
    const channel = (name: string): Effect.Effect<Stream.Stream<string> | undefined, SqlError.SqlError, Scope.Scope> =>
      pg._tag === "None"
        ? Effect.succeed(undefined)
        : Effect.map(pg.value.listen(name), (queue) =>
            Stream.fromQueue(queue).pipe(
              Stream.map((notification) => notification.payload),
              Stream.catchCause(() => listen!(name).pipe(Stream.retry(Schedule.spaced("1 second")))),
              Stream.orDie
            )
          )
    const notifyOn = (name: string) =>
      listen === undefined ? undefined : (payload: string) => Effect.asVoid(sql`SELECT pg_notify(${name}, ${payload})`)

    // PostgreSQL's tables are made before (`reachable`, which every layer of the store waits for).
    if (pg._tag === "None") yield* Durable.migrate(sql)
    const store = yield* Durable.makeStore(sql, {
      notify: notifyOn("mcp_task_changes"),
      remoteChanges: yield* channel("mcp_task_changes"),
      failed
    })

    const answered = yield* PubSub.unbounded<string>()
    const remoteAnswers = yield* channel("mcp_task_answers")
    if (remoteAnswers !== undefined) {
      yield* Effect.forkScoped(Stream.runForEach(remoteAnswers, (taskId) => PubSub.publish(answered, taskId)))
    }
    // Events of other instances, by topic (an instance does not hear its own: it delivered them already).
    const topics = ["resource_updates", "list_changes"] as const
    const received = new Map<Durable.Topic, PubSub.PubSub<string>>()
    for (const topic of topics) {
      const hub = yield* PubSub.unbounded<string>()
      received.set(topic, hub)
      const remote = yield* channel(`mcp_${topic}`)
      if (remote === undefined) continue
      yield* Effect.forkScoped(
        Stream.runForEach(remote, (payload) => {
          const space = payload.indexOf(" ")
          return payload.slice(0, space) === options.runnerId
            ? Effect.void
            : Effect.asVoid(PubSub.publish(hub, payload.slice(space + 1)))
        })
      )
    }

    const durable: Durable.Durable = {
      store,
      runnerId: options.runnerId,
      single: options.single,
      execute: (payload) =>
        McpTask.execute(payload, { discard: true }).pipe(
          Effect.provideService(WorkflowEngine.WorkflowEngine, engine),
          Effect.mapError((error) => failed("starting a task", error)),
          Effect.catchDefect((defect) => Effect.fail(failed("starting a task", defect))),
          Effect.asVoid
        ),
      interrupt: (taskId) =>
        Effect.flatMap(
          McpTask.executionId({ taskId, tool: "", params: "" }).pipe(
            Effect.provideService(WorkflowEngine.WorkflowEngine, engine)
          ),
          // The task is cancelled already: a work that cannot be reached now stops when it is taken over.
          (executionId) =>
            Effect.catchCause(engine.interruptUnsafe(McpTask, executionId), (cause) =>
              Effect.logWarning("task cancelled, its work not interrupted yet", {
                task: taskId,
                cause: Durable.describe(Cause.squash(cause))
              })
            )
        ),
      claim: (taskId) =>
        Durable.claim(sql, taskId, options.runnerId).pipe(
          Effect.mapError((error) => failed("starting a task's work", error))
        ),
      sendAnswers: (taskId, responses) =>
        Durable.storeAnswers(sql, taskId, responses).pipe(
          Effect.andThen(
            listen === undefined
              ? Effect.asVoid(PubSub.publish(answered, taskId))
              : Effect.asVoid(sql`SELECT pg_notify('mcp_task_answers', ${taskId})`)
          ),
          Effect.mapError((error) => failed("answering a task", error)),
          Effect.asVoid
        ),
      answered: Stream.fromPubSub(answered),
      takeAnswers: (taskId) =>
        Durable.takeAnswers(sql, taskId).pipe(Effect.mapError((error) => failed("reading a task's answers", error))),
      setActivity: (run) => Effect.asVoid(Deferred.succeed(options.activity, run)),
      broadcast: (topic, value) => {
        if (listen === undefined) return Effect.void
        const payload = `${options.runnerId} ${value}`
        // PostgreSQL refuses a NOTIFY payload of 8000 bytes or more.
        if (Buffer.byteLength(payload) >= 8000) {
          return Effect.logWarning("event not relayed to the other instances: too long", {
            topic,
            bytes: payload.length
          })
        }
        return Effect.catchCause(Effect.asVoid(sql`SELECT pg_notify(${`mcp_${topic}`}, ${payload})`), (cause) =>
          Effect.logWarning("event not relayed to the other instances", {
            topic,
            cause: Durable.describe(Cause.squash(cause))
          })
        )
      },
      broadcasts: (topic) => Stream.fromPubSub(received.get(topic)!)
    }
    return durable
  })

// The durable service and the task workflow on a cluster (which needs the SQL client, as the projection does).
const assemble = <E, R>(
  cluster: Layer.Layer<Sharding.Sharding | MessageStorage.MessageStorage, E, R>,
  options: Omit<Parameters<typeof makeDurable>[0], "activity">
): Layer.Layer<Durable.DurableTasks | TaskStore, E | SqlError.SqlError, R | SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.map(Deferred.make<(payload: Durable.Payload) => Effect.Effect<void>>(), (activity) =>
      Layer.mergeAll(
        Layer.effectContext(
          Effect.map(makeDurable({ ...options, activity }), (durable) =>
            Context.make(Durable.DurableTasks, durable).pipe(Context.add(TaskStore, durable.store))
          )
        ),
        taskLayer(activity)
      ).pipe(Layer.provide(ClusterWorkflowEngine.layer), Layer.provide(cluster))
    )
  )

// The cluster's configuration: every value given (none read from the environment: `HOST`, `PORT`… would
// otherwise override them).
const shardingConfig = (
  options: Options,
  runnerAddress: Option.Option<RunnerAddress.RunnerAddress>
): ShardingConfig.ShardingConfig["Service"] => ({
  ...ShardingConfig.defaults,
  ...timings,
  ...(options.shardLockExpiration === undefined ? {} : { shardLockExpiration: options.shardLockExpiration }),
  ...(options.entityMessagePollInterval === undefined
    ? {}
    : { entityMessagePollInterval: options.entityMessagePollInterval }),
  // One runner (SQLite) keeps the default address: it is never dialled, but a runner without one owns no shards.
  ...(Option.isSome(runnerAddress) ? { runnerAddress } : {}),
  runnerListenAddress: Option.none()
})

// Any failure to open the store, as a StoreError naming it.
const opened = <A, E, R>(location: string, layer: Layer.Layer<A, E, R>): Layer.Layer<A, StoreError, R> =>
  Layer.catchCause(layer, (cause) =>
    Layer.unwrap(
      Effect.fail(
        new StoreError({
          location,
          reason: Durable.describe(Cause.squash(cause))
        })
      )
    )
  )

// The embedded store's file, held by this process alone: two processes on one file would both run every task.
const lockFile = (filename: string): Effect.Effect<void, StoreError, Scope.Scope> => {
  const path = `${filename}.lock`
  const refuse = (reason: string) => Effect.fail(new StoreError({ location: filename, reason }))
  return Effect.acquireRelease(
    Effect.suspend(() => {
      NodeFs.mkdirSync(NodePath.dirname(path), { recursive: true, mode: 0o700 })
      // The lock appears with its pid in it at once (a file written aside, then linked into place): a process
      // that finds it never reads it empty.
      const aside = `${path}.${process.pid}.${Crypto.randomBytes(6).toString("hex")}`
      NodeFs.writeFileSync(aside, String(process.pid), { mode: 0o600 })
      try {
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            NodeFs.linkSync(aside, path)
            heldHere.add(path)
            return Effect.void
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EEXIST") return refuse(Durable.describe(error))
            let content = ""
            try {
              content = NodeFs.readFileSync(path, "utf8").trim()
            } catch {
              continue // Removed meanwhile: try again.
            }
            const holder = Number(content)
            const held =
              heldHere.has(path) ||
              (holder !== process.pid && Number.isInteger(holder) && holder > 0 && processState(holder) !== "dead")
            if (held) {
              return refuse(
                `another server (pid ${holder}) serves from it (${path}); give this one a store of its own ` +
                  `(--store), or share tasks between instances with PostgreSQL (--store postgres://…)`
              )
            }
            // Left by a process that is gone: taken over (only if it is still that one: another process may have
            // taken it over first, and then the link above fails again).
            try {
              if (NodeFs.readFileSync(path, "utf8").trim() === content) NodeFs.rmSync(path, { force: true })
            } catch {
              // Gone already.
            }
          }
        }
      } finally {
        NodeFs.rmSync(aside, { force: true })
      }
      return refuse(`its lock file ${path} could not be taken`)
    }),
    () =>
      Effect.sync(() => {
        heldHere.delete(path)
        try {
          if (NodeFs.readFileSync(path, "utf8").trim() === String(process.pid)) NodeFs.rmSync(path, { force: true })
        } catch {
          // Already gone.
        }
      })
  )
}

// The lock files this process holds (a lock file naming this process's pid and not held here was left by an
// earlier process that had the same pid: a container's pid 1, restarted).
const heldHere = new Set<string>()

/**
 * The embedded durable store: an SQLite file, one instance. Tasks survive a
 * restart; a task that was running when the process stopped is taken over
 * when it starts again (run again, or ended `failed`, per the tool's
 * `durable`). The file is locked: a second process on it fails to start
 * with a {@link StoreError}.
 *
 * **Example**
 *
 * ```ts
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * const Tasks = ClusterTasks.layerSqlite({ filename: "/home/me/.local/state/mcp-runtime/tasks.db" })
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerSqlite = (options: SqliteOptions): Layer.Layer<Durable.DurableTasks | TaskStore, StoreError> => {
  const memory = options.filename === ":memory:"
  const sql = Layer.effect(
    SqlClient.SqlClient,
    Effect.andThen(
      memory ? Effect.void : lockFile(options.filename),
      NodeSqliteClient.make({ filename: options.filename })
    )
  )
  const cluster = SingleRunner.layer({
    runnerStorage: "sql",
    shardingConfig: shardingConfig(options, Option.none())
  }).pipe(Layer.provide(NodeCrypto.layerDigest))
  return opened(options.filename, assemble(cluster, { runnerId: "single", single: true }).pipe(Layer.provide(sql)))
}

/**
 * The distributed durable store: PostgreSQL, any number of instances. Each
 * instance is a runner of the cluster, reachable by the others at
 * `runnerHost:runnerPort`; a task runs on the runner that owns its shard,
 * wherever it was created, and is polled, answered and cancelled through
 * any instance. Fails with a {@link StoreError} (the URL's password
 * redacted) when the database cannot be reached at start.
 *
 * **Example**
 *
 * ```ts
 * import * as ClusterTasks from "effect-mcp-runtime/layers/ClusterTasks"
 *
 * const Tasks = ClusterTasks.layerPostgres({ url: "postgres://mcp@127.0.0.1:5432/mcp", runnerPort: 34431 })
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerPostgres = (options: PostgresOptions): Layer.Layer<Durable.DurableTasks | TaskStore, StoreError> => {
  const location = redact(options.url)
  return opened(
    location,
    Layer.unwrap(
      Effect.gen(function* () {
        const host = options.runnerHost ?? "127.0.0.1"
        const port = options.runnerPort ?? (yield* freePort(host))
        const pg = PgClient.layer({
          url: Redacted.make(options.url),
          maxConnections: options.maxConnections ?? 10,
          connectTimeout: options.connectTimeout ?? "5 seconds"
        })
        // Checked first: an unreachable database fails the start at once, not after the cluster's retries.
        const reachable = Layer.effectDiscard(
          Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
            Effect.andThen(sql`SELECT 1`, Durable.migrate(sql))
          )
        )
        const cluster = NodeClusterSocket.layer({
          storage: "sql",
          shardingConfig: shardingConfig(options, Option.some(RunnerAddress.make(host, port)))
        })
        // One secret for every instance: the first to start stores it.
        const requestState =
          options.sharedRequestState === false
            ? Layer.empty
            : Layer.effect(
                RequestState.RequestStateKeys,
                Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
                  Effect.map(
                    Durable.sharedValue(sql, "request-state", () => Crypto.randomBytes(32).toString("base64")),
                    (secret) => ({ keys: [secret], maxAgeMs: RequestState.defaultMaxAgeMs })
                  )
                )
              )
        return Layer.merge(assemble(cluster, { runnerId: `${host}:${port}`, single: false }), requestState).pipe(
          Layer.provide(reachable),
          Layer.provide(pg)
        )
      })
    )
  )
}

// A port nobody listens on now (the runner's socket server listens on it right after).
const freePort = (host: string): Effect.Effect<number, StoreError> =>
  Effect.callback<number, StoreError>((resume) => {
    const server = NodeNet.createServer()
    server.once("error", (error) => resume(Effect.fail(new StoreError({ location: host, reason: error.message }))))
    server.listen(0, host, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resume(Effect.succeed(port)))
    })
  })
