/**
 * `mcp-runtime daemon`: the warm daemon, and `serve --daemon auto`'s side of
 * it.
 *
 * The daemon keeps built servers warm — one per root and resolved settings:
 * the kernel, the capabilities with their caches (the fe project detection
 * and skeleton caches among them), upstream connections, the audit log — and
 * serves each `serve --daemon auto` session on one of them over a Unix
 * socket in a per-user directory. `serve` resolves its settings, sends its
 * flags, working directory and the environment settings resolution reads,
 * and the daemon resolves them again itself, so a session gets exactly the
 * settings it would have had in process. Anything that goes wrong sends the
 * session back into `serve`'s own process (see docs/daemon.md).
 *
 * - `daemon start [--idle-ms N]`: starts a daemon (detached) unless one
 *   answers, and waits until it does;
 * - `daemon run [--idle-ms N]`: the daemon in the foreground (what `start`
 *   starts; for a service manager);
 * - `daemon stop`: stops it, waiting until its process is gone;
 * - `daemon status [--json]`: what it serves; exit code 1 when none runs.
 *
 * @since 0.4.0
 */
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Cause from "effect/Cause"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Path from "effect/Path"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { makeLineWriter } from "../../layers/StdioTransport.ts"
import * as Tracing from "../../layers/Tracing.ts"
import * as UnixSocketTransport from "../../layers/UnixSocketTransport.ts"
import * as DaemonClient from "../internal/daemonClient.ts"
import * as DaemonProxy from "../internal/daemonProxy.ts"
import * as Protocol from "../internal/daemonProtocol.ts"
import * as Registry from "../internal/daemonRegistry.ts"
import { type Connection, listen } from "../internal/daemonSocket.ts"
import * as McpServer from "../McpServer.ts"
import * as RequestFront from "../RequestFront.ts"
import * as ServerConfig from "../ServerConfig.ts"
import { defaultMaxMessageBytes, frameLines, Transport } from "../Transport.ts"
import { AlreadyReported, provideSurroundings, resolveRoot, serverLayers } from "./compose.ts"
import * as ConfigFile from "./ConfigFile.ts"
import * as Settings from "./settings.ts"
import { UsageError } from "./settings.ts"

/**
 * The daemon's files: in `MCP_RUNTIME_DAEMON_DIR` when it is set, else in
 * `<state>/mcp-runtime/daemon` (`<state>`: `$XDG_STATE_HOME`, else
 * `~/.local/state`).
 *
 * **Example**
 *
 * ```ts
 * import { daemonPaths } from "./src/cli/daemon.ts"
 *
 * daemonPaths({ XDG_STATE_HOME: "/var/state" }).socket // => "/var/state/mcp-runtime/daemon/daemon.sock"
 * ```
 *
 * @category settings
 * @since 0.4.0
 */
export const daemonPaths = (env: Readonly<Record<string, string | undefined>>): Protocol.Paths => {
  const given = env[Settings.daemonDirVariable]?.trim()
  return Protocol.pathsIn(
    given !== undefined && given !== ""
      ? NodePath.resolve(given)
      : NodePath.join(Settings.stateDirectory(env), "mcp-runtime", "daemon")
  )
}

/**
 * `serve`'s flags, as the command parses them: the settings flags, and where
 * to find the root and the configuration file.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { noServeFlags } from "./src/cli/compose.ts"
 * import type { ServeFlags } from "./src/cli/daemon.ts"
 *
 * const flags: ServeFlags = { ...noServeFlags, root: Option.some("."), config: Option.none() }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type ServeFlags = Settings.Flags & {
  readonly root: Option.Option<string>
  readonly config: Option.Option<string>
}

/**
 * `serve`'s flags as a session sends them: each value, or null when not
 * given.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { noServeFlags } from "./src/cli/compose.ts"
 * import { wireFlags } from "./src/cli/daemon.ts"
 *
 * wireFlags({ ...noServeFlags, root: Option.some("."), config: Option.none() }).root // => "."
 * ```
 *
 * @category encoding
 * @since 0.4.0
 */
export const wireFlags = (flags: ServeFlags): Protocol.WireFlags =>
  Object.fromEntries(
    Object.entries(flags).map(([key, value]) => [key, Option.getOrNull(value as Option.Option<string | number>)])
  )

const Nullable = <S extends Schema.Top>(schema: S) => Schema.NullOr(schema)

const WireServeFlags = Schema.Struct({
  root: Nullable(Schema.String),
  config: Nullable(Schema.String),
  capabilities: Nullable(Schema.String),
  auditLog: Nullable(Schema.String),
  maxMessageBytes: Nullable(Schema.Int),
  shutdownGraceMs: Nullable(Schema.Int),
  timeoutMs: Nullable(Schema.Int),
  maxConcurrent: Nullable(Schema.Int),
  maxQueued: Nullable(Schema.Int),
  queueTimeoutMs: Nullable(Schema.Int),
  onOverload: Nullable(Schema.Literals(["queue", "reject"])),
  maxResultBytes: Nullable(Schema.Int),
  transport: Nullable(Schema.Literals(["stdio", "http"])),
  port: Nullable(Schema.Int),
  host: Nullable(Schema.String),
  allowedHosts: Nullable(Schema.String),
  allowedOrigins: Nullable(Schema.String),
  sessionIdleMs: Nullable(Schema.Int),
  resumeGraceMs: Nullable(Schema.Int),
  front: Nullable(Schema.Literals(["tools", "request"])),
  daemon: Nullable(Schema.Literals(["auto", "off"])),
  // Since 0.5.0 (optional: a session of an older binary does not send them).
  maxSessions: Schema.optionalKey(Nullable(Schema.Int)),
  authIssuer: Schema.optionalKey(Nullable(Schema.String)),
  authAudience: Schema.optionalKey(Nullable(Schema.String)),
  store: Schema.optionalKey(Nullable(Schema.String)),
  runnerHost: Schema.optionalKey(Nullable(Schema.String)),
  runnerPort: Schema.optionalKey(Nullable(Schema.Int)),
  experimental: Schema.optionalKey(Nullable(Schema.Boolean)),
  // A session with --inspect or --bridge is served in its own process; the daemon only ever sees them absent.
  inspect: Schema.optionalKey(Nullable(Schema.Int)),
  bridge: Schema.optionalKey(Nullable(Schema.String))
})

/**
 * Resolves a session's settings in the daemon exactly as its own process
 * resolved them: the root from its working directory and `--root`, the
 * configuration file from `--config` or its `MCP_RUNTIME_CONFIG` (relative
 * paths against its working directory, as are `--audit-log` and
 * `MCP_RUNTIME_AUDIT_LOG`), then `Settings.resolve` with its flags and
 * environment.
 *
 * **Example**
 *
 * ```ts
 * import { resolveSession } from "./src/cli/daemon.ts"
 *
 * declare const hello: import("./src/internal/daemonProtocol.ts").SessionHello
 * const settings = resolveSession(hello)
 * ```
 *
 * @category settings
 * @since 0.4.0
 */
export const resolveSession = Effect.fnUntraced(function* (
  hello: Protocol.SessionHello
): Effect.fn.Return<Settings.Settings, UsageError | ConfigFile.ConfigError, FileSystem.FileSystem | Path.Path> {
  const wire = yield* Schema.decodeUnknownEffect(WireServeFlags)(hello.flags, { onExcessProperty: "error" }).pipe(
    Effect.mapError((error) => new UsageError({ message: `the session's flags: ${error.message}` }))
  )
  const absolute = (path: string) => NodePath.resolve(hello.cwd, path)
  const env: Record<string, string> = { ...hello.env }
  const config = env.MCP_RUNTIME_CONFIG?.trim()
  if (config !== undefined && config !== "") env.MCP_RUNTIME_CONFIG = absolute(config)
  const audit = env[Settings.environmentVariables.auditLog]?.trim()
  if (audit !== undefined && audit !== "" && audit !== "off") {
    env[Settings.environmentVariables.auditLog] = absolute(audit)
  }
  const { config: configFlag, root: rootFlag, ...rest } = wire
  const flags = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, Option.fromNullishOr(value)])
  ) as unknown as Settings.Flags
  const root = yield* resolveRoot(Option.some(absolute(rootFlag ?? ".")))
  const loaded = yield* ConfigFile.load({ root, file: configFlag === null ? undefined : absolute(configFlag), env })
  return yield* Settings.resolve({
    root,
    configFile: loaded.file,
    config: loaded.config,
    configFromRoot: loaded.fromRoot,
    flags: {
      ...flags,
      auditLog:
        wire.auditLog === null || wire.auditLog === "off" ? flags.auditLog : Option.some(absolute(wire.auditLog))
    },
    env
  })
})

// Sorted keys, and the numbers JSON cannot say (a limit of Infinity) said.
const canonical = (value: unknown): unknown => {
  if (typeof value === "number" && !Number.isFinite(value)) return String(value)
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])])
  )
}

/**
 * The key of a warm server: 16 hex digits of the SHA-256 of the resolved
 * settings that shape the server (the log level, the start-up warnings and
 * the daemon's own settings left out).
 *
 * **Example**
 *
 * ```ts
 * import { fingerprint } from "./src/cli/daemon.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * fingerprint(settings).length // => 16
 * ```
 *
 * @category settings
 * @since 0.4.0
 */
export const fingerprint = (settings: Settings.Settings): string => {
  const { daemon: _daemon, logLevel: _logLevel, warnings: _warnings, ...shaping } = settings
  return NodeCrypto.createHash("sha256")
    .update(JSON.stringify(canonical(shaping)))
    .digest("hex")
    .slice(0, 16)
}

/**
 * Builds the server `serve` would build for `settings` — kernel,
 * capabilities, policy, gate, audit log, the request front when `front` is
 * `request` — in the current scope, with a memo map of its own (no layer is
 * shared with another warm server).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { buildServer } from "./src/cli/daemon.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const server = Effect.scoped(buildServer(settings))
 * ```
 *
 * @category composition
 * @since 0.4.0
 */
export const buildServer = (settings: Settings.Settings): Effect.Effect<McpServer.Server, unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const layers = serverLayers(settings)
    const scope = yield* Effect.scope
    const context = yield* Layer.buildWithMemoMap(
      layers.capabilities.pipe(Layer.provideMerge(layers.kernel), Layer.provideMerge(layers.configuration)),
      Layer.makeMemoMapUnsafe(),
      scope
    ).pipe(provideSurroundings(settings))
    const server = yield* (
      settings.front === "request" ? McpServer.make({ methods: RequestFront.methods }) : McpServer.make()
    ).pipe(
      Effect.provide(context),
      provideSurroundings(settings),
      Effect.provideService(RequestFront.Settings, settings.request)
    )
    yield* Effect.addFinalizer(() => server.close)
    return server
  })

// -- the daemon ---------------------------------------------------------------------------------------------------

/** Sessions served at once, at most; one more is refused as busy. */
const maxSessions = 256

/** How often the daemon checks the size of its log (when its stderr is the log), in ms. */
const logCheckMs = 60_000

const answer = (connection: Connection, reply: Protocol.Answer) => connection.write(Protocol.line(reply))

const messageOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return typeof error === "object" && error !== null && "message" in error && String(error.message) !== ""
    ? String(error.message)
    : Cause.pretty(cause)
}

const runError = (error: DaemonClient.DaemonError) => new DaemonRunError({ message: error.message })

// The pid file says which process is the daemon; created exclusively (a link is never followed), so two starting
// daemons cannot both run.
const acquirePidFile = (paths: Protocol.Paths) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      for (let attempt = 0; attempt < 3; attempt++) {
        const created = yield* Effect.result(DaemonClient.createPidFile(paths, process.pid))
        if (Result.isSuccess(created)) return
        if (created.failure.reason !== "exists") return yield* runError(created.failure)
        const other = yield* DaemonClient.readPidFile(paths).pipe(Effect.mapError(runError))
        if (
          other !== undefined &&
          other !== process.pid &&
          DaemonClient.processState(other) === "alive" &&
          DaemonClient.identifyProcess(other) !== "other"
        ) {
          // A daemon that runs (or is starting) answers within moments; one that does not is stopping, or stuck.
          const answering = yield* Effect.result(DaemonClient.waitUntilAnswering(paths, 3000))
          if (Result.isSuccess(answering)) {
            return yield* new DaemonRunError({
              message: `a daemon is already running (pid ${answering.success.pid}, socket ${paths.socket})`
            })
          }
          if (DaemonClient.isUnsafe(answering.failure)) return yield* runError(answering.failure)
        }
        Result.try(() => NodeFs.unlinkSync(paths.pid))
      }
      return yield* new DaemonRunError({ message: `cannot take ${paths.pid}: another daemon keeps starting` })
    }),
    () =>
      Effect.gen(function* () {
        const pid = yield* Effect.result(DaemonClient.readPidFile(paths))
        if (Result.isSuccess(pid) && pid.success === process.pid) Result.try(() => NodeFs.unlinkSync(paths.pid))
      })
  )

/**
 * The daemon could not run: its directory, its pid file (another daemon
 * runs), its socket.
 *
 * **Example**
 *
 * ```ts
 * import { DaemonRunError } from "./src/cli/daemon.ts"
 *
 * new DaemonRunError({ message: "a daemon is already running (pid 4242, socket /run/user/1000/mcp-runtime/daemon.sock)" })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class DaemonRunError extends Schema.TaggedError<DaemonRunError>()("DaemonRunError", {
  message: Schema.String
}) {}

/**
 * The daemon itself (`daemon run`): checks its directory (creating it,
 * mode 0700, when missing), takes the pid file, listens on the socket (mode
 * 0600), and serves connections until it has had no session for `idleMs`
 * (and no connection is open), is asked to stop, or is interrupted
 * (SIGTERM). From that moment it refuses new sessions (`stopping`); then it
 * stops accepting (the connections still waiting are answered `stopping`),
 * lets the open sessions drain (each is told how many of its lines were
 * read, and `serve` carries the rest on in its own process), closes its
 * warm servers, and removes its socket and pid file. A warm server's build
 * may take `buildTimeoutMs` (default 60 s). While its stderr is its log
 * (when `start` or `serve` started it), the log is rotated once it is over
 * 10 MiB (checked every minute).
 *
 * **Example**
 *
 * ```ts
 * import { runDaemon } from "./src/cli/daemon.ts"
 *
 * const daemon = runDaemon({ idleMs: 30 * 60 * 1000 })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const runDaemon = (options: {
  readonly idleMs: number
  readonly buildTimeoutMs?: number | undefined
}): Effect.Effect<void, DaemonRunError | DaemonClient.DaemonError, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function* () {
      const paths = daemonPaths(process.env)
      const problem = Protocol.socketPathProblem(paths, Settings.daemonDirVariable)
      if (problem !== undefined) return yield* new DaemonRunError({ message: problem })
      yield* DaemonClient.ensureDirectory(paths.dir, Settings.daemonDirVariable)
      yield* acquirePidFile(paths)
      // A socket that answers is another daemon's (its pid file lost); a stale one is replaced when listening.
      const other = yield* Effect.result(DaemonClient.status(paths, 1000, Settings.daemonDirVariable))
      if (Result.isSuccess(other) && other.success !== undefined) {
        return yield* new DaemonRunError({
          message: `a daemon is already running (pid ${other.success.pid}, socket ${paths.socket})`
        })
      }
      if (Result.isFailure(other) && DaemonClient.isUnsafe(other.failure)) return yield* other.failure
      const listener = yield* listen(paths.socket, {
        farewell: Protocol.line(Protocol.refusal("stopping", "the daemon is shutting down"))
      }).pipe(
        Effect.mapError(
          (error) => new DaemonRunError({ message: `cannot listen on ${paths.socket}: ${error.message}` })
        )
      )
      const services = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
      const build = yield* Protocol.buildId
      const startedAt = yield* Clock.currentTimeMillis
      const registry = yield* Registry.make<McpServer.Server, unknown>({
        idleMs: options.idleMs,
        buildTimeoutMs: options.buildTimeoutMs
      })
      const stopRequested = yield* Deferred.make<void>()
      const draining = yield* Deferred.make<void>()
      const sessions = yield* FiberSet.make()
      let longestGrace = 5000

      const status = Effect.map(registry.snapshot, (snapshot): Protocol.DaemonStatus => ({
        pid: process.pid,
        version: ServerConfig.packageVersion,
        build,
        socket: paths.socket,
        log: paths.log,
        startedAt,
        idleMs: options.idleMs,
        ...snapshot
      }))

      const session = (connection: Connection, hello: Protocol.SessionHello) =>
        Effect.gen(function* () {
          const refuse = (reason: Protocol.RefusalReason, message: string) =>
            Effect.andThen(
              answer(connection, Protocol.refusal(reason, message)),
              Effect.logInfo(`session refused (${reason}): ${message}`, { reason, cwd: hello.cwd })
            )
          const stoppingMessage = "the daemon is shutting down"
          if (hello.version !== ServerConfig.packageVersion || hello.build !== build) {
            return yield* refuse(
              "version_mismatch",
              `the daemon runs mcp-runtime ${ServerConfig.packageVersion} (build ${build}), the session ` +
                `${hello.version} (build ${hello.build})`
            )
          }
          // The slot is taken at once (no other fiber runs between the check and the count).
          const slot = yield* registry.reserve(maxSessions)
          if (slot === "stopping") return yield* refuse("stopping", stoppingMessage)
          if (slot === "busy") return yield* refuse("busy", `${maxSessions} sessions are open`)
          const resolved = yield* Effect.result(Effect.provideContext(resolveSession(hello), services))
          if (Result.isFailure(resolved)) return yield* refuse("bad_settings", resolved.failure.message)
          const settings = resolved.success
          if (settings.root !== hello.root) {
            return yield* refuse(
              "root_mismatch",
              `the daemon resolved the root ${settings.root}, the session ${hello.root}`
            )
          }
          const key = fingerprint(settings)
          const info = { root: settings.root, capabilities: settings.capabilities, front: settings.front }
          longestGrace = Math.max(longestGrace, settings.server.shutdownGraceMs ?? 5000)
          const began = yield* Clock.currentTimeMillis
          const opened = yield* Effect.exit(registry.session(key, info, buildServer(settings)))
          if (opened._tag === "Failure") return yield* refuse("server_failed", messageOf(opened.cause))
          // The daemon may have begun to stop while the server was being built: the session is not taken then.
          if (registry.isStopping()) return yield* refuse("stopping", stoppingMessage)
          const { reused, server } = opened.value
          if (!(yield* answer(connection, { ok: true, pid: process.pid, warm: reused }))) return
          yield* Effect.logInfo(`session opened on ${settings.root}`, {
            root: settings.root,
            key,
            warm: reused,
            readyMs: (yield* Clock.currentTimeMillis) - began
          })
          const transport = yield* UnixSocketTransport.make(connection, {
            maxMessageBytes: settings.server.maxMessageBytes ?? defaultMaxMessageBytes,
            stop: Deferred.await(draining)
          })
          // A connection that closes (the serve process is gone) interrupts the session at once.
          yield* Effect.raceFirst(Effect.provideService(server.connection, Transport, transport), connection.closed)
          yield* Effect.logInfo(`session closed on ${settings.root}`, { root: settings.root, key })
        }).pipe(Effect.scoped)

      const handle = (connection: Connection) =>
        Effect.gen(function* () {
          const text = yield* connection.readLine({ maxBytes: Protocol.maxControlLineBytes, timeoutMs: 5000 })
          const hello = yield* Effect.result(Protocol.decodeHello(text))
          if (Result.isFailure(hello)) {
            yield* answer(
              connection,
              Protocol.refusal("bad_request", `not a control message of mcp-runtime ${ServerConfig.packageVersion}`)
            )
            return
          }
          switch (hello.success.type) {
            case "status":
              yield* answer(connection, { ok: true, pid: process.pid, status: yield* status })
              return
            case "stop":
              // Stopping from this moment: a session still in its handshake is refused.
              yield* registry.stop
              yield* answer(connection, { ok: true, pid: process.pid })
              yield* Deferred.succeed(stopRequested, undefined)
              return
            case "session":
              return yield* session(connection, hello.success)
          }
        }).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.void
              : Effect.logDebug("a connection ended early", { cause: messageOf(cause) })
          ),
          Effect.ensuring(connection.end)
        )

      // In this order, whatever ends the daemon (idle, stop, SIGTERM): no new session, no new connection (those
      // waiting are answered `stopping`), the sessions drain (each told how many of its lines were read; their serve
      // processes carry the rest on alone), then the warm servers close and the pid file goes.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          yield* registry.stop
          yield* listener.close
          yield* Deferred.succeed(draining, undefined)
          yield* FiberSet.awaitEmpty(sessions).pipe(
            Effect.timeoutOption(longestGrace + McpServer.interruptWaitMs + 1000)
          )
          yield* Effect.logInfo("mcp-runtime daemon stopped", { pid: process.pid })
        })
      )
      // A connection counts from the moment it is taken from the listener: the daemon does not go idle under it.
      yield* listener.accepted.pipe(
        Stream.runForEach((connection) =>
          Effect.gen(function* () {
            const scope = yield* Scope.make()
            yield* Scope.provide(scope)(registry.connection)
            yield* FiberSet.run(sessions, Effect.ensuring(handle(connection), Scope.close(scope, Exit.void)))
          })
        ),
        Effect.forkScoped
      )
      // Rotated while it runs, when stderr is the log (started by `start` or `serve`; not under a service manager).
      yield* Effect.sync(() => DaemonClient.rotateLog(paths, 2)).pipe(
        Effect.tap((rotated) => (rotated ? Effect.logInfo(`rotated ${paths.log} to ${paths.log}.1`) : Effect.void)),
        Effect.delay(logCheckMs),
        Effect.forever,
        Effect.forkScoped
      )
      yield* Effect.logInfo(`mcp-runtime daemon listening on ${paths.socket}`, {
        pid: process.pid,
        version: ServerConfig.packageVersion,
        build,
        socket: paths.socket,
        idleMs: options.idleMs
      })
      const why = yield* Effect.raceFirst(
        Effect.as(registry.idle, "idle" as const),
        Effect.as(Deferred.await(stopRequested), "stop" as const)
      ).pipe(Effect.onInterrupt(() => Effect.logInfo("interrupted (SIGTERM or SIGINT): the daemon stops")))
      yield* Effect.logInfo(
        why === "idle"
          ? `no session for ${options.idleMs} ms: the daemon stops`
          : "asked to stop (mcp-runtime daemon stop): the daemon stops"
      )
    })
  )

// -- serve --daemon auto ------------------------------------------------------------------------------------------

const writeStdout = Effect.acquireRelease(
  Effect.sync(() => {
    // A client that goes away closes the pipe: output is dropped from then on (as the stdio transport does).
    let closed = false
    const onError = () => {
      closed = true
    }
    process.stdout.on("error", onError)
    return {
      onError,
      write: (text: string) => {
        if (!closed) process.stdout.write(text)
      }
    }
  }),
  ({ onError }) => Effect.sync(() => process.stdout.off("error", onError))
)

/**
 * Serves one stdio session through the daemon (`serve --daemon auto`):
 * opens a session (starting the daemon when none listens) and proxies stdin
 * and stdout to it; when the daemon is unavailable, says why in a warning and
 * serves in process with `serveStdio`, exactly as without `--daemon`; when the
 * daemon stops reading the session (it is shutting down) or is lost
 * mid-session, moves the session into this process (see
 * `src/internal/daemonProxy.ts`). After the end of input (or SIGTERM) the
 * daemon has the shutdown grace period (`--shutdown-grace-ms`, default 5 s)
 * to answer what is in flight; what is still unanswered then gets an error.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { serveThroughDaemon } from "./src/cli/daemon.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * declare const flags: import("./src/cli/daemon.ts").ServeFlags
 * declare const serveOver: (transport: import("./src/Transport.ts").Transport["Service"]) => Effect.Effect<void>
 * const program = serveThroughDaemon({
 *   settings,
 *   flags,
 *   config: {},
 *   startup: {},
 *   serveOver,
 *   serveStdio: Effect.void
 * })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const serveThroughDaemon = <E1, R1, E2, R2>(options: {
  readonly settings: Settings.Settings
  readonly flags: ServeFlags
  readonly config: ConfigFile.Config
  /** The start-up log line's fields. */
  readonly startup: Record<string, unknown>
  /** Serves the session in process over the given transport (the fallback after the daemon was lost). */
  readonly serveOver: (transport: Transport["Service"]) => Effect.Effect<void, E1, R1>
  /** Serves the session in process over stdio, as without --daemon. */
  readonly serveStdio: Effect.Effect<void, E2, R2>
}): Effect.Effect<void, E1 | E2 | unknown, R1 | R2 | Stdio.Stdio> =>
  Effect.gen(function* () {
    const { settings } = options
    const paths = daemonPaths(process.env)
    const hello: Protocol.SessionHello = {
      mcpRuntimeDaemon: Protocol.protocolVersion,
      type: "session",
      version: ServerConfig.packageVersion,
      build: yield* Protocol.buildId,
      cwd: process.cwd(),
      root: settings.root,
      flags: wireFlags(options.flags),
      env: Settings.variablesRead(process.env, options.config)
    }
    const outcome = yield* DaemonClient.openSession(paths, hello, {
      idleMs: settings.daemon.idleMs,
      dirVariable: Settings.daemonDirVariable
    })
    if (outcome._tag === "Unavailable") {
      yield* Effect.logWarning(
        `the daemon cannot serve this session (${outcome.reason}): ${outcome.message}. ` +
          `Serving it in this process instead.`,
        { reason: outcome.reason, socket: paths.socket }
      )
      return yield* options.serveStdio
    }
    yield* Effect.logInfo(`forwarding the session to the daemon (pid ${outcome.pid})`, {
      ...options.startup,
      daemon: { pid: outcome.pid, socket: paths.socket, warm: outcome.warm, started: outcome.started }
    })
    const stdio = yield* Stdio.Stdio
    const { write } = yield* writeStdout
    const writer = makeLineWriter(write)
    const maxMessageBytes = settings.server.maxMessageBytes ?? defaultMaxMessageBytes
    const context = yield* Effect.context<R1>()
    return yield* DaemonProxy.run({
      upstream: outcome.connection,
      input: stdio.stdin.pipe(Stream.catchCause(() => Stream.empty)),
      output: writer,
      maxMessageBytes,
      graceMs: settings.server.shutdownGraceMs ?? 5000,
      onLost: Effect.logWarning(
        `lost the connection to the daemon (pid ${outcome.pid}); the session goes on in this process ` +
          `(requests in flight at the daemon are answered with an error and may be retried). See ${paths.log}.`,
        { pid: outcome.pid }
      ),
      onDraining: (linesRead) =>
        Effect.logInfo(
          `the daemon (pid ${outcome.pid}) is shutting down: it answers the requests it has read, and the session ` +
            "goes on in this process",
          { pid: outcome.pid, linesRead }
        ),
      fallback: (input, send) =>
        options
          .serveOver(
            Transport.of({
              frames: frameLines(input, maxMessageBytes),
              send: (message) => Effect.sync(() => send(message))
            })
          )
          .pipe(Effect.provideContext(context))
    })
  }).pipe(Effect.scoped)

// -- the commands --------------------------------------------------------------------------------------------------

const idleMsFlag = Flag.Int("idle-ms").pipe(
  Flag.withDescription(
    `Exit after this long without a session, in ms (default: $${Settings.daemonIdleVariable}, else daemon.idleMs ` +
      `in the configuration file, else ${Settings.defaultDaemonIdleMs})`
  ),
  Flag.optional
)

const configFlag = Flag.String("config").pipe(
  Flag.withDescription(
    `Configuration file for daemon.idleMs (default: $MCP_RUNTIME_CONFIG, else ${ConfigFile.defaultFileName} in the current directory)`
  ),
  Flag.optional
)

// The configuration file is read only when it may decide (no --idle-ms): `serve` starts `daemon run --idle-ms N`
// in the daemon's directory, where a relative MCP_RUNTIME_CONFIG of the session's would not be found.
const idleMsOf = (flags: { readonly idleMs: Option.Option<number>; readonly config: Option.Option<string> }) =>
  Effect.gen(function* () {
    if (Option.isSome(flags.idleMs)) return yield* Settings.daemonIdleMsOf(flags.idleMs, process.env, {})
    const loaded = yield* ConfigFile.load({ root: process.cwd(), file: Option.getOrUndefined(flags.config) })
    return yield* Settings.daemonIdleMsOf(flags.idleMs, process.env, loaded.config)
  })

const ago = (now: number, then: number): string => {
  const ms = Math.max(0, now - then)
  return ms < 1000 ? "just now" : `${Duration.format(Duration.millis(Math.floor(ms / 1000) * 1000))} ago`
}
const iso = (ms: number): string => DateTime.formatIso(DateTime.makeUnsafe(ms))
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * The status report `daemon status` (and `daemon start`, when one runs)
 * prints; given this process's `build`, it says when the daemon is of
 * another version or build (sessions will not use it).
 *
 * **Example**
 *
 * ```ts
 * import { formatStatus } from "./src/cli/daemon.ts"
 *
 * declare const status: import("./src/internal/daemonProtocol.ts").DaemonStatus
 * const text = formatStatus(status, 1767225600000, "3f2a9c0d41e7b6a5")
 * ```
 *
 * @category formatting
 * @since 0.4.0
 */
export const formatStatus = (status: Protocol.DaemonStatus, now: number, build?: string): string => {
  const idle = Duration.format(Duration.millis(status.idleMs))
  const foreign = build !== undefined && (status.version !== ServerConfig.packageVersion || status.build !== build)
  const lines = [
    `mcp-runtime daemon running (pid ${status.pid})`,
    `  version:  ${status.version} (build ${status.build})` +
      (foreign
        ? `; this mcp-runtime is ${ServerConfig.packageVersion} (build ${build}), so its sessions will not use ` +
          "this daemon: run `mcp-runtime daemon stop`"
        : ""),
    `  socket:   ${status.socket}`,
    `  log:      ${status.log}`,
    `  started:  ${iso(status.startedAt)} (${ago(now, status.startedAt)})`,
    status.idleSince === null
      ? `  idle:     exits after ${idle} without a session`
      : `  idle:     exits after ${idle} without a session; none since ${iso(status.idleSince)} (${ago(now, status.idleSince)})`,
    `  sessions: ${status.sessions} open, ${status.totalSessions} since it started`,
    `  warm servers: ${status.warm.length === 0 ? "none" : status.warm.length}`
  ]
  for (const warm of status.warm) {
    lines.push(
      `    ${warm.root}`,
      `      capabilities ${warm.capabilities.join(",")}; front ${warm.front}; settings ${warm.key}` +
        (warm.state === "building" ? "; starting" : ""),
      `      ${plural(warm.sessions, "session")} open, ${warm.totalSessions} in all; last used ${iso(warm.lastUsedAt)} ` +
        `(${ago(now, warm.lastUsedAt)})`
    )
  }
  return `${lines.join("\n")}\n`
}

const print = (text: string) => Effect.sync(() => process.stdout.write(text))

const start = Command.make(
  "start",
  { idleMs: idleMsFlag, config: configFlag },
  Effect.fnUntraced(function* (flags) {
    const idleMs = yield* idleMsOf(flags)
    const paths = daemonPaths(process.env)
    const { started, status } = yield* DaemonClient.start(paths, { idleMs, dirVariable: Settings.daemonDirVariable })
    if (!started) {
      yield* print(formatStatus(status, yield* Clock.currentTimeMillis, yield* Protocol.buildId))
      return
    }
    yield* print(`daemon started (pid ${status.pid}, socket ${status.socket})\n`)
  })
).pipe(Command.withDescription("Start the warm daemon in the background, unless one runs"))

const run = Command.make(
  "run",
  { idleMs: idleMsFlag, config: configFlag },
  Effect.fnUntraced(function* (flags) {
    const idleMs = yield* idleMsOf(flags)
    const cliLogLevel = yield* GlobalFlag.LogLevel
    const level = yield* Settings.logLevelOf(process.env, {})
    return yield* runDaemon({ idleMs }).pipe(
      Effect.provide(Tracing.layerOtlpFromEnv()),
      Option.isNone(cliLogLevel) ? Effect.provideService(References.MinimumLogLevel, level) : (effect) => effect
    )
  })
).pipe(
  Command.withDescription(
    "Run the warm daemon in the foreground (what start starts; JSON logs on stderr; for a service manager)"
  )
)

const stop = Command.make(
  "stop",
  {},
  Effect.fnUntraced(function* () {
    const stopped = yield* DaemonClient.stop(daemonPaths(process.env), 15_000, {
      dirVariable: Settings.daemonDirVariable
    })
    yield* print(
      stopped === undefined
        ? "daemon not running\n"
        : stopped.signalled
          ? `daemon stopped (pid ${stopped.pid}, this mcp-runtime's daemon, did not answer; it was sent SIGTERM)\n`
          : "daemon stopped\n"
    )
  })
).pipe(Command.withDescription("Stop the warm daemon (its sessions carry on in their own processes)"))

const statusCommand = Command.make(
  "status",
  { json: Flag.Boolean("json").pipe(Flag.withDescription("Print the status as JSON"), Flag.withDefault(false)) },
  Effect.fnUntraced(function* (flags) {
    const status = yield* DaemonClient.status(daemonPaths(process.env), 5000, Settings.daemonDirVariable)
    if (status === undefined) {
      yield* print(flags.json ? `${JSON.stringify({ running: false })}\n` : "daemon not running\n")
      return yield* new AlreadyReported({ exitCode: 1, message: "daemon not running" })
    }
    const build = yield* Protocol.buildId
    // compatible: the daemon is of this version and build, so this mcp-runtime's sessions can use it.
    const compatible = status.version === ServerConfig.packageVersion && status.build === build
    yield* print(
      flags.json
        ? `${JSON.stringify({ running: true, compatible, ...status }, null, 2)}\n`
        : formatStatus(status, yield* Clock.currentTimeMillis, build)
    )
  })
).pipe(Command.withDescription("Show the warm daemon's status; exit code 1 when none runs"))

/**
 * The `daemon` command group: `start`, `run`, `stop`, `status`.
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime daemon start --idle-ms 600000
 * mcp-runtime daemon status --json
 * ```
 *
 * @category commands
 * @since 0.4.0
 */
export const daemon = Command.make("daemon").pipe(
  Command.withDescription("The warm daemon that serve --daemon auto forwards its sessions to (see docs/daemon.md)"),
  Command.withSubcommands([start, run, stop, statusCommand])
)
