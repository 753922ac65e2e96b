/**
 * What every `mcp-runtime` command shares: finding the root, loading the
 * configuration, resolving the settings, and composing the server (kernel,
 * bundled capabilities, policy, gate, audit log, confirmation) from them —
 * over stdio or HTTP for `serve`, in memory for `surface`, `call` and
 * `doctor`, through the same codec.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as NodeFs from "node:fs"
import * as CodeStore from "../../capabilities/code/store.ts"
import * as Bundled from "../../capabilities/index.ts"
import { type UpstreamStatus, Upstreams } from "../../capabilities/upstream/index.ts"
import * as FileAuditLog from "../../layers/FileAuditLog.ts"
import * as NodeCommandRunner from "../../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../../layers/NodeWorkspace.ts"
import * as QuickJsSandbox from "../../layers/QuickJsSandbox.ts"
import { Confirmation } from "../Confirmation.ts"
import * as Gate from "../Gate.ts"
import * as BridgeServer from "../../layers/BridgeServer.ts"
import * as Inspector from "../Inspector.ts"
import * as Kernel from "../Kernel.ts"
import * as McpServer from "../McpServer.ts"
import * as Policy from "../Policy.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import * as RequestState from "../RequestState.ts"
import * as ServerConfig from "../ServerConfig.ts"
import { DurableTasks, onDemand } from "../internal/durable.ts"
import * as MemoryClient from "../internal/memoryClient.ts"
import { nodeSqlite } from "../internal/sqlite.ts"
import type { RpcError } from "../internal/memoryClient.ts"
import { TaskStore } from "../TaskStore.ts"
import { makeMemory, Transport } from "../Transport.ts"
import { WorkspaceRoot } from "../WorkspaceRoot.ts"
import * as ConfigFile from "./ConfigFile.ts"
import * as Settings from "./settings.ts"
import { UsageError } from "./settings.ts"

/**
 * The flags every command takes to find its server: `--root`, `--config`,
 * `--capabilities`.
 *
 * **Example**
 *
 * ```ts
 * import * as Command from "effect/cli/Command"
 * import { commonFlags } from "./src/cli/compose.ts"
 *
 * const list = Command.make("list", { ...commonFlags })
 * ```
 *
 * @category flags
 * @since 0.1.0
 */
export const commonFlags = {
  root: Flag.String("root").pipe(
    Flag.withDescription("Root directory the server works in (default: the current directory)"),
    Flag.optional
  ),
  config: Flag.String("config").pipe(
    Flag.withDescription(
      `Configuration file (default: $MCP_RUNTIME_CONFIG, else ${ConfigFile.defaultFileName} in the root when there is one)`
    ),
    Flag.optional
  ),
  capabilities: Flag.String("capabilities").pipe(
    Flag.withDescription(
      `Comma-separated capability ids to enable (default: ${Bundled.defaults.join(",")}; bundled: ${Object.keys(Bundled.bundled).join(",")})`
    ),
    Flag.optional
  )
}

/**
 * `--audit-log FILE|off`: where the tool calls are audited (JSONL), or `off`.
 * Taken by the commands that run tools or check the audit log (`serve`,
 * `call`, `doctor`).
 *
 * **Example**
 *
 * ```ts
 * import * as Command from "effect/cli/Command"
 * import { auditLogFlag, commonFlags } from "./src/cli/compose.ts"
 *
 * const run = Command.make("run", { ...commonFlags, auditLog: auditLogFlag })
 * ```
 *
 * @category flags
 * @since 0.1.0
 */
export const auditLogFlag = Flag.String("audit-log").pipe(
  Flag.withDescription(
    "Audit log file (JSONL), or off (default: a file per root under $XDG_STATE_HOME/mcp-runtime/audit, else ~/.local/state/...)"
  ),
  Flag.optional
)

/**
 * Serve's flags with nothing set: what the commands other than `serve` pass
 * to `Settings.resolve` besides their own `--capabilities`.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { noServeFlags } from "./src/cli/compose.ts"
 *
 * const flags = { ...noServeFlags, capabilities: Option.some("system") }
 * ```
 *
 * @category flags
 * @since 0.1.0
 */
export const noServeFlags: Settings.Flags = {
  capabilities: Option.none(),
  maxMessageBytes: Option.none(),
  shutdownGraceMs: Option.none(),
  timeoutMs: Option.none(),
  maxConcurrent: Option.none(),
  maxQueued: Option.none(),
  queueTimeoutMs: Option.none(),
  onOverload: Option.none(),
  maxResultBytes: Option.none(),
  transport: Option.none(),
  port: Option.none(),
  host: Option.none(),
  allowedHosts: Option.none(),
  allowedOrigins: Option.none(),
  sessionIdleMs: Option.none(),
  resumeGraceMs: Option.none(),
  auditLog: Option.none(),
  front: Option.none(),
  daemon: Option.none()
}

/**
 * The root directory: `--root` resolved, which must be a directory.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { resolveRoot } from "./src/cli/compose.ts"
 *
 * const root = resolveRoot(Option.some("."))
 * ```
 *
 * @category settings
 * @since 0.1.0
 */
export const resolveRoot = Effect.fnUntraced(function* (
  given: Option.Option<string>
): Effect.fn.Return<string, UsageError, FileSystem.FileSystem | Path.Path> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = path.resolve(Option.getOrElse(given, () => "."))
  const stat = yield* Effect.result(fs.stat(root))
  if (stat._tag === "Failure" || stat.success.type !== "Directory") {
    return yield* new UsageError({ message: `--root ${root}: not a directory` })
  }
  return root
})

/**
 * Root, configuration file and settings, from a command's flags, with the
 * decoded configuration they were resolved from.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { loadConfigured, noServeFlags } from "./src/cli/compose.ts"
 *
 * const loaded = loadConfigured({ root: Option.none(), config: Option.none(), flags: noServeFlags })
 * ```
 *
 * @category settings
 * @since 0.4.0
 */
export const loadConfigured = Effect.fnUntraced(function* (options: {
  readonly root: Option.Option<string>
  readonly config: Option.Option<string>
  readonly flags: Settings.Flags
}): Effect.fn.Return<
  { readonly settings: Settings.Settings; readonly config: ConfigFile.Config },
  UsageError | ConfigFile.ConfigError,
  FileSystem.FileSystem | Path.Path
> {
  const root = yield* resolveRoot(options.root)
  const loaded = yield* ConfigFile.load({ root, file: Option.getOrUndefined(options.config) })
  const settings = yield* Settings.resolve({
    root,
    configFile: loaded.file,
    config: loaded.config,
    configFromRoot: loaded.fromRoot,
    flags: options.flags,
    env: process.env
  })
  return { settings, config: loaded.config }
})

/**
 * Root, configuration file and settings, from a command's flags.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { loadSettings, noServeFlags } from "./src/cli/compose.ts"
 *
 * const settings = loadSettings({ root: Option.none(), config: Option.none(), flags: noServeFlags })
 * ```
 *
 * @category settings
 * @since 0.1.0
 */
export const loadSettings = (options: {
  readonly root: Option.Option<string>
  readonly config: Option.Option<string>
  readonly flags: Settings.Flags
}): Effect.Effect<Settings.Settings, UsageError | ConfigFile.ConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.map(loadConfigured(options), (loaded) => loaded.settings)

/**
 * The server's layers, from the settings: the kernel with the bundled
 * capabilities and the safety services (a gate when rules are configured,
 * the audit log unless switched off) merged in, and the configuration layers
 * (server configuration, policy).
 *
 * **Example**
 *
 * ```ts
 * import { serverLayers } from "./src/cli/compose.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const { capabilities, configuration } = serverLayers(settings)
 * ```
 *
 * @category composition
 * @since 0.1.0
 */
export const serverLayers = (
  settings: Settings.Settings,
  options: {
    /** The `--inspect` page's inspector: the command runner and the audit log report to it. Since 0.5.0. */
    readonly inspector?: Inspector.Inspector["Service"] | undefined
    /** The bridge's socket (`--bridge`), for the `bridge` capability. Since 0.5.0. */
    readonly bridge?: BridgeServer.Options | undefined
  } = {}
) => ({
  // The alias check runs once every capability has registered.
  capabilities: aliasesChecked.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        // The host services the binary chooses for the bundled capabilities: Node's.
        Bundled.layer(
          settings.capabilities,
          { exec: settings.exec, fe: settings.fe, skills: settings.skills, code: settings.code.settings },
          {
            commandRunner:
              options.inspector === undefined
                ? NodeCommandRunner.layer()
                : Inspector.layerCommandRunner(options.inspector, NodeCommandRunner.layer()),
            workspace: NodeWorkspace.layer(settings.workspace),
            openWorkspace: (root) => NodeWorkspace.make({ ...settings.workspace, root }),
            sandbox: QuickJsSandbox.layer,
            learnedStore: CodeStore.directory(settings.code.storePath).pipe(Layer.provide(NodeServices.layer)),
            // A server built only to be looked at (capabilities list, doctor, surface, call) never takes the socket.
            bridge: options.bridge === undefined ? BridgeServer.idle : BridgeServer.layer(options.bridge)
          }
        ),
        // Other MCP servers, mounted under their ids (the configuration's `upstreams`).
        Object.keys(settings.upstreams).length === 0
          ? Layer.empty
          : Bundled.upstreams(settings.upstreams, {
              [Settings.upstreamDepthVariable]: String(settings.upstreamDepth + 1)
            }),
        settings.gate === undefined ? Layer.empty : Layer.succeed(Gate.Gate, Gate.fromRules(settings.gate)),
        settings.audit === undefined
          ? Layer.empty
          : options.inspector === undefined
            ? FileAuditLog.layer(settings.audit)
            : Inspector.layerAuditLog(options.inspector, FileAuditLog.layer(settings.audit))
      )
    )
  ),
  kernel: Kernel.layer({ aliases: Bundled.aliasesFor(settings.capabilities), experimental: settings.experimental }),
  configuration: Layer.mergeAll(
    ServerConfig.layer({
      name: "mcp-runtime",
      instructions: "Tools are named <capability>_<tool>. Call system_info to see what this server provides.",
      maxMessageBytes: settings.server.maxMessageBytes,
      shutdownGraceMs: settings.server.shutdownGraceMs,
      listTtlMs: settings.server.listTtlMs
    }),
    Policy.layer(settings.policy),
    settings.requestState === undefined ? Layer.empty : RequestState.layer(settings.requestState)
  )
})

/**
 * Where the settings keep tasks, for the start-up log line and `doctor`:
 * `memory`, the SQLite file, or the PostgreSQL URL with its password
 * redacted.
 *
 * **Example**
 *
 * ```ts
 * import { storeLocation } from "./src/cli/compose.ts"
 *
 * storeLocation({ kind: "postgres", url: "postgres://mcp:pw@db/mcp", runnerHost: undefined, runnerPort: undefined })
 * // => "postgres://mcp:***@db/mcp"
 * ```
 *
 * @category composition
 * @since 0.5.0
 */
export const storeLocation = (store: Settings.StoreSettings): string =>
  store.kind === "memory" ? "memory" : store.kind === "sqlite" ? store.filename : Settings.redactUrl(store.url)

/**
 * The durable task store of the settings, as a layer for the server: none
 * (tasks in memory), an SQLite file, or PostgreSQL. An explicit store that
 * cannot be opened stops the start (`StoreError`, the URL's password
 * redacted); the default SQLite file, when another server holds it, leaves
 * this one with tasks in memory and a warning. Loaded on demand: the
 * cluster, workflow and SQL code is not evaluated for `--store memory`.
 *
 * **Example**
 *
 * ```ts
 * import { storeLayer } from "./src/cli/compose.ts"
 *
 * const Tasks = storeLayer({ kind: "sqlite", filename: "/tmp/tasks.db", explicit: true })
 * ```
 *
 * @category composition
 * @since 0.5.0
 */
export const storeLayer = (
  store: Settings.StoreSettings,
  options: { readonly sharedRequestState?: boolean | undefined } = {}
): Layer.Layer<never, unknown> => {
  if (store.kind === "memory") return Layer.empty
  const load = Effect.promise(() => import("../../layers/ClusterTasks.ts"))
  if (store.kind === "postgres") {
    return Layer.unwrap(
      Effect.map(load, (ClusterTasks) =>
        ClusterTasks.layerPostgres({
          url: store.url,
          runnerHost: store.runnerHost,
          runnerPort: store.runnerPort,
          sharedRequestState: options.sharedRequestState
        })
      )
    ) as Layer.Layer<never, unknown>
  }
  if (store.explicit) {
    return Layer.unwrap(
      Effect.map(load, (ClusterTasks) => ClusterTasks.layerSqlite({ filename: store.filename }))
    ) as Layer.Layer<never, unknown>
  }
  // An older Node without node:sqlite keeps tasks in memory (an explicit SQLite store says why it cannot start).
  if (nodeSqlite() === undefined) return Layer.empty
  // The default file: opened when a task first needs it (or at once, when it holds unfinished tasks to take
  // over), so that a server that never runs a task pays nothing for it; held by another server, this one keeps
  // its tasks in an in-memory database.
  return Layer.effectContext(
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const open = (filename: string) =>
        Effect.flatMap(load, (ClusterTasks) =>
          Effect.map(Layer.buildWithScope(ClusterTasks.layerSqlite({ filename }), scope), (context) =>
            Context.get(context, DurableTasks)
          )
        )
      const { durable, start } = yield* onDemand(
        open(store.filename).pipe(
          Effect.catch((error) =>
            Effect.andThen(
              Effect.logWarning(
                `tasks are kept in memory (they end with this process): ${(error as { readonly message?: string }).message}`
              ),
              open(":memory:")
            )
          )
        ),
        { runnerId: "single", single: true }
      )
      if (unfinishedTasks(store.filename)) yield* start
      return Context.make(DurableTasks, durable).pipe(Context.add(TaskStore, durable.store))
    })
  ) as Layer.Layer<never, unknown>
}

// Whether an SQLite store holds tasks that had not ended (read directly: cheap, and without the cluster).
const unfinishedTasks = (filename: string): boolean => {
  const sqlite = nodeSqlite()
  if (sqlite === undefined || !NodeFs.existsSync(filename)) return false
  try {
    const database = new sqlite.DatabaseSync(filename, { readOnly: true })
    try {
      const row = database
        .prepare("SELECT count(*) AS n FROM mcp_tasks WHERE status IN ('working', 'input_required')")
        .get() as { readonly n: number } | undefined
      return (row?.n ?? 0) > 0
    } finally {
      database.close()
    }
  } catch {
    // No table yet, or unreadable: the store is opened on demand, and says what is wrong then.
    return false
  }
}

// Once every capability registered: an alias whose target none registered stops the start.
const aliasesChecked = Layer.effectDiscard(
  Effect.flatMap(Effect.service(Kernel.Kernel), (kernel) => {
    const [unused] = kernel.unusedAliases()
    return unused === undefined ? Effect.void : Effect.fail(unused)
  })
)

/**
 * Provides what the server reads from its surroundings: the root and the
 * confirmation pre-approvals.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { provideSurroundings } from "./src/cli/compose.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const program = Effect.void.pipe(provideSurroundings(settings))
 * ```
 *
 * @category composition
 * @since 0.1.0
 */
export const provideSurroundings =
  (settings: Settings.Settings) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideService(WorkspaceRoot, settings.root),
      Effect.provideService(Confirmation, { preApproved: settings.preApproved })
    )

/**
 * A failure whose explanation was already printed (a tool's error, a
 * surface diff, a doctor report): the binary exits with `exitCode` and adds
 * nothing.
 *
 * **Example**
 *
 * ```ts
 * import { AlreadyReported } from "./src/cli/compose.ts"
 *
 * new AlreadyReported({ exitCode: 1, message: "system_echo failed" }).exitCode // => 1
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class AlreadyReported extends Schema.TaggedError<AlreadyReported>()("AlreadyReported", {
  exitCode: Schema.Number,
  message: Schema.String
}) {}

/**
 * Keeps the in-process server's log lines to warnings and errors (a
 * command's output is not a log), unless `--log-level` says otherwise.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { quietLogs } from "./src/cli/compose.ts"
 *
 * const program = quietLogs(Effect.log("not shown"))
 * ```
 *
 * @category composition
 * @since 0.1.0
 */
export const quietLogs = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(GlobalFlag.LogLevel), (level) =>
    Option.isSome(level) && Option.isSome(level.value)
      ? effect
      : Effect.provideService(effect, References.MinimumLogLevel, "Warn")
  )

export {
  /**
   * A JSON-RPC error answered to an in-process request (or, from an
   * `onRequest` handler, sent back to the server).
   *
   * **Example**
   *
   * ```ts
   * import { RpcError } from "./src/cli/compose.ts"
   *
   * new RpcError({ code: -32601, message: "sampling/createMessage is not supported", data: undefined }).code // => -32601
   * ```
   *
   * @category errors
   * @since 0.1.0
   */
  RpcError
} from "../internal/memoryClient.ts"

/**
 * A client of an in-process server, talking to it through the real framing
 * and codec (newline-delimited JSON over a memory transport).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { InProcessClient } from "./src/cli/compose.ts"
 *
 * const echo = (client: InProcessClient) =>
 *   client.request("tools/call", { name: "system_echo", arguments: { text: "hi" } })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface InProcessClient {
  /** The server's `initialize` result. */
  readonly initialized: any
  /** The kernel of the server, for what the protocol does not say (capability versions). */
  readonly kernel: Kernel.Kernel["Service"]
  /** Sends a request and waits for its response; a JSON-RPC error fails with `RpcError`. */
  readonly request: (method: string, params?: Record<string, unknown>) => Effect.Effect<any, RpcError>
  /** Sends a notification. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Every page of a paginated list, concatenated. */
  readonly listAll: (method: string, key: string) => Effect.Effect<ReadonlyArray<any>, RpcError>
  /** How each configured upstream server is doing (none without `upstreams`). Since 0.3.0. */
  readonly upstreams: () => ReadonlyArray<UpstreamStatus>
}

/**
 * Starts the server composed from `settings` in this process, behind a
 * memory transport, initializes it as a client with the given capabilities,
 * (protocol `ProtocolVersion.latestLegacy`, the newest that has sessions) and returns the client. Server-to-client requests go to `onRequest`
 * (unanswered ones get −32601), notifications to `onNotification`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { connectInProcess } from "./src/cli/compose.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const tools = Effect.scoped(
 *   Effect.flatMap(connectInProcess(settings), (client) => client.listAll("tools/list", "tools"))
 * )
 * ```
 *
 * @category composition
 * @since 0.1.0
 */
export const connectInProcess = Effect.fnUntraced(function* (
  settings: Settings.Settings,
  options: {
    readonly clientCapabilities?: Record<string, unknown> | undefined
    readonly onRequest?: ((method: string, params: any) => Effect.Effect<unknown, RpcError>) | undefined
    readonly onNotification?: ((method: string, params: any) => Effect.Effect<void>) | undefined
  } = {}
): Effect.fn.Return<InProcessClient, unknown, Scope.Scope> {
  const layers = serverLayers(settings)
  const context = yield* Layer.build(
    layers.capabilities.pipe(Layer.provideMerge(layers.kernel), Layer.provideMerge(layers.configuration))
  ).pipe(provideSurroundings(settings))
  const kernel = yield* Effect.provide(Effect.service(Kernel.Kernel), context)
  const upstreams = Context.getOption(context as Context.Context<unknown>, Upstreams)
  const { client, closeOutput, transport } = yield* makeMemory({ maxMessageBytes: settings.server.maxMessageBytes })
  yield* McpServer.serve().pipe(
    Effect.provideService(Transport, transport),
    Effect.provide(context),
    provideSurroundings(settings),
    Effect.ensuring(closeOutput),
    Effect.forkScoped
  )
  yield* Effect.addFinalizer(() => client.close)

  const { listAll, notify, request } = yield* MemoryClient.connect(client, options)
  const initialized = yield* request("initialize", {
    protocolVersion: ProtocolVersion.latestLegacy,
    capabilities: options.clientCapabilities ?? {},
    clientInfo: { name: "mcp-runtime-cli", version: ServerConfig.packageVersion }
  })
  yield* notify("notifications/initialized")
  return {
    request,
    notify,
    listAll,
    kernel,
    initialized,
    upstreams: () => (Option.isSome(upstreams) ? upstreams.value.status() : [])
  }
})
