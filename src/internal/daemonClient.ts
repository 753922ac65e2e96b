/**
 * Talking to the warm daemon from another process: making its directory,
 * starting it (detached, its log in its directory), waiting until it
 * answers, asking its status, stopping it, and opening a session (the
 * handshake), with every way that can fail turned into a reason and a
 * message that says what to do.
 *
 * @since 0.4.0
 */
import * as ChildProcess from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Protocol from "./daemonProtocol.ts"
import { type Connection, connect, type SocketError } from "./daemonSocket.ts"

/**
 * The daemon cannot be reached, started or stopped, with why and what to do.
 *
 * **Example**
 *
 * ```ts
 * import { DaemonError } from "./src/internal/daemonClient.ts"
 *
 * new DaemonError({ reason: "start_failed", message: "the daemon did not answer within 10000 ms" })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class DaemonError extends Schema.TaggedError<DaemonError>()("DaemonError", {
  reason: Schema.String,
  message: Schema.String
}) {}

/** How long one connection attempt may take. */
const connectTimeoutMs = 1000

/**
 * How long `start` (and `serve --daemon auto`) waits for a daemon it started
 * to answer: 10 s.
 *
 * **Example**
 *
 * ```ts
 * import { startTimeoutMs } from "./src/internal/daemonClient.ts"
 *
 * startTimeoutMs // => 10000
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const startTimeoutMs = 10_000

/**
 * How long a session's handshake may take before `serve` gives up on the
 * daemon: 5 s (the daemon builds the session's server first when none is
 * warm; a slow start falls back rather than keeping the client waiting).
 *
 * **Example**
 *
 * ```ts
 * import { handshakeTimeoutMs } from "./src/internal/daemonClient.ts"
 *
 * handshakeTimeoutMs // => 5000
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const handshakeTimeoutMs = 5000

/** The daemon's log is rotated (to `daemon.log.1`) when it is larger than this at a start. */
const maxLogBytes = 10 * 1024 * 1024

const fsError = (reason: string, what: string) => (error: unknown) =>
  new DaemonError({ reason, message: `${what}: ${error instanceof Error ? error.message : String(error)}` })

/**
 * Makes the daemon's directory (mode 0700) when it does not exist, and
 * checks the one that does: a directory of this user's, that nobody else can
 * enter (a looser mode is tightened to 0700).
 *
 * **Example**
 *
 * ```ts
 * import { ensureDirectory } from "./src/internal/daemonClient.ts"
 *
 * const ready = ensureDirectory("/tmp/mcp-runtime-ada", "MCP_RUNTIME_DAEMON_DIR")
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const ensureDirectory = (dir: string, variable: string): Effect.Effect<void, DaemonError> =>
  Effect.gen(function* () {
    if (process.platform === "win32") {
      return yield* new DaemonError({
        reason: "unsupported",
        message: "the daemon needs Unix sockets (not on Windows)"
      })
    }
    yield* Effect.try({
      try: () => NodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 }),
      catch: fsError("directory", `cannot create the daemon's directory ${dir}`)
    })
    const stat = yield* Effect.try({
      try: () => NodeFs.statSync(dir),
      catch: fsError("directory", `cannot read the daemon's directory ${dir}`)
    })
    if (!stat.isDirectory()) {
      return yield* new DaemonError({
        reason: "directory",
        message: `${dir} is not a directory: remove it, or set ${variable} to another directory`
      })
    }
    const uid = process.getuid?.()
    if (uid !== undefined && stat.uid !== uid) {
      return yield* new DaemonError({
        reason: "directory",
        message:
          `the daemon's directory ${dir} belongs to another user (uid ${stat.uid}, you are ${uid}): ` +
          `set ${variable} to a directory of your own`
      })
    }
    if ((stat.mode & 0o077) !== 0) {
      yield* Effect.try({
        try: () => NodeFs.chmodSync(dir, 0o700),
        catch: fsError("directory", `cannot make ${dir} private (mode 0700)`)
      })
    }
  })

/**
 * Sends one control message on a new connection and reads the answer.
 * Fails with `not_running` when nobody listens on the socket (no socket
 * file, or a stale one).
 *
 * **Example**
 *
 * ```ts
 * import { request } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const status = request(pathsIn("/tmp/d"), { mcpRuntimeDaemon: 1, type: "status" })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const request = (
  paths: Protocol.Paths,
  hello: Protocol.Hello,
  timeoutMs = 5000
): Effect.Effect<Protocol.Answer, DaemonError> =>
  Effect.acquireUseRelease(
    connectTo(paths),
    (connection) => exchange(connection, hello, timeoutMs),
    (connection) => connection.destroy
  )

const notRunning = (error: SocketError) => error.code === "ENOENT" || error.code === "ECONNREFUSED"

const connectTo = (paths: Protocol.Paths): Effect.Effect<Connection, DaemonError> =>
  connect(paths.socket, connectTimeoutMs).pipe(
    Effect.mapError((error) =>
      notRunning(error)
        ? new DaemonError({ reason: "not_running", message: "daemon not running" })
        : new DaemonError({ reason: "connect", message: `cannot connect to ${paths.socket}: ${error.message}` })
    )
  )

const exchange = (connection: Connection, hello: Protocol.Hello, timeoutMs: number) =>
  Effect.gen(function* () {
    yield* connection.write(Protocol.line(hello))
    const text = yield* connection.readLine({ maxBytes: Protocol.maxControlLineBytes, timeoutMs }).pipe(
      Effect.mapError(
        (error) =>
          new DaemonError({
            reason: error.code === "TIMEOUT" ? "timeout" : "protocol",
            message:
              error.code === "TIMEOUT"
                ? `the daemon did not answer within ${timeoutMs} ms`
                : `the daemon's answer could not be read (${error.message})`
          })
      )
    )
    return yield* Protocol.decodeAnswer(text).pipe(
      Effect.mapError(
        () =>
          new DaemonError({
            reason: "protocol",
            message: `the daemon answered something this mcp-runtime does not understand: ${text.slice(0, 200)}`
          })
      )
    )
  })

/**
 * The daemon's status, or `undefined` when none is running.
 *
 * **Example**
 *
 * ```ts
 * import { status } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const current = status(pathsIn("/tmp/d"))
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const status = (
  paths: Protocol.Paths,
  timeoutMs = 5000
): Effect.Effect<Protocol.DaemonStatus | undefined, DaemonError> =>
  request(paths, { mcpRuntimeDaemon: Protocol.protocolVersion, type: "status" }, timeoutMs).pipe(
    Effect.flatMap((answer) =>
      answer.ok && answer.status !== undefined
        ? Effect.succeed(answer.status)
        : Effect.fail(
            new DaemonError({
              reason: "protocol",
              message: answer.ok ? "the daemon sent no status" : `the daemon refused: ${answer.message}`
            })
          )
    ),
    Effect.catchIf(
      (error) => error.reason === "not_running",
      () => Effect.succeed(undefined)
    )
  )

/**
 * Removes the socket file when nobody listens on it (a daemon that was
 * killed leaves it behind); refuses to remove what is not a socket. True when
 * a stale socket was removed.
 *
 * **Example**
 *
 * ```ts
 * import { removeStaleSocket } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const removed = removeStaleSocket(pathsIn("/tmp/d"))
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const removeStaleSocket = (paths: Protocol.Paths): Effect.Effect<boolean, DaemonError> =>
  Effect.gen(function* () {
    const stat = Result.try(() => NodeFs.lstatSync(paths.socket))
    if (Result.isFailure(stat)) return false
    if (!stat.success.isSocket()) {
      return yield* new DaemonError({
        reason: "socket",
        message: `${paths.socket} exists and is not a socket: remove it`
      })
    }
    const probe = yield* Effect.result(connect(paths.socket, connectTimeoutMs))
    if (Result.isSuccess(probe)) {
      yield* probe.success.destroy
      return false
    }
    if (probe.failure.code !== "ECONNREFUSED") return false
    const removed = Result.try(() => NodeFs.unlinkSync(paths.socket))
    // Gone already (another starter removed it) is as good as removed.
    if (Result.isFailure(removed) && NodeFs.existsSync(paths.socket)) {
      return yield* fsError("socket", `cannot remove the stale socket ${paths.socket}`)(removed.failure)
    }
    return true
  })

/**
 * Whether a process is alive (signal 0; a process of another user counts).
 *
 * **Example**
 *
 * ```ts
 * import { isAlive } from "./src/internal/daemonClient.ts"
 *
 * isAlive(process.pid) // => true
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const isAlive = (pid: number): boolean => {
  const sent = Result.try(() => process.kill(pid, 0))
  return Result.isSuccess(sent) || (sent.failure as { code?: unknown }).code === "EPERM"
}

/**
 * Starts `mcp-runtime daemon run` detached (this node, this script), with
 * its stderr appended to the daemon's log, and returns its process. It keeps
 * the starter's environment, with `MCP_RUNTIME_DAEMON_DIR` set to the
 * directory, and runs in the directory.
 *
 * **Example**
 *
 * ```ts
 * import { spawnDaemon } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const pid = spawnDaemon(pathsIn("/tmp/d"), { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const spawnDaemon = (
  paths: Protocol.Paths,
  options: { readonly idleMs: number; readonly dirVariable: string }
): Effect.Effect<ChildProcess.ChildProcess, DaemonError> =>
  Effect.gen(function* () {
    yield* ensureDirectory(paths.dir, options.dirVariable)
    const size = Result.try(() => NodeFs.statSync(paths.log).size)
    if (Result.isSuccess(size) && size.success > maxLogBytes) {
      yield* Effect.try({
        try: () => NodeFs.renameSync(paths.log, `${paths.log}.1`),
        catch: fsError("start_failed", `cannot rotate ${paths.log}`)
      })
    }
    const fd = yield* Effect.try({
      try: () => NodeFs.openSync(paths.log, "a", 0o600),
      catch: fsError("start_failed", `cannot open the daemon's log ${paths.log}`)
    })
    const script = NodePath.resolve(process.argv[1] ?? "")
    return yield* Effect.try({
      try: () => {
        const child = ChildProcess.spawn(
          process.execPath,
          [...process.execArgv, script, "daemon", "run", "--idle-ms", String(options.idleMs)],
          {
            detached: true,
            stdio: ["ignore", "ignore", fd],
            cwd: paths.dir,
            env: { ...process.env, [options.dirVariable]: paths.dir }
          }
        )
        child.on("error", () => {})
        child.unref()
        return child
      },
      catch: fsError("start_failed", "cannot start the daemon")
    }).pipe(Effect.ensuring(Effect.sync(() => NodeFs.closeSync(fd))))
  })

const logTail = (paths: Protocol.Paths): string => {
  const text = Result.try(() => NodeFs.readFileSync(paths.log, "utf8"))
  if (Result.isFailure(text)) return ""
  const lines = text.success.trimEnd().split("\n").slice(-5)
  return lines.length === 0 || lines[0] === "" ? "" : `; the end of ${paths.log}:\n${lines.join("\n")}`
}

/**
 * Waits until a daemon answers `status` (up to `timeoutMs`), polling the
 * socket; fails naming the log when none does (with its last lines), at
 * once when the daemon process `child` exited.
 *
 * **Example**
 *
 * ```ts
 * import { waitUntilAnswering } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const status = waitUntilAnswering(pathsIn("/tmp/d"), 10_000)
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const waitUntilAnswering = (
  paths: Protocol.Paths,
  timeoutMs: number,
  /** The daemon process just started: when it exits and nobody answers, waiting stops at once. */
  child?: ChildProcess.ChildProcess | undefined
): Effect.Effect<Protocol.DaemonStatus, DaemonError> =>
  status(paths, 1000).pipe(
    Effect.catch(() => Effect.succeed(undefined)),
    Effect.flatMap((found) =>
      found !== undefined
        ? Effect.succeed(found)
        : child !== undefined && child.exitCode !== null
          ? Effect.fail(
              new DaemonError({
                reason: "start_failed",
                message: `the daemon exited at once (exit code ${child.exitCode})${logTail(paths)}`
              })
            )
          : Effect.fail(new DaemonError({ reason: "waiting", message: "" }))
    ),
    Effect.retry({ schedule: Schedule.spaced(50), while: (error) => error.reason === "waiting" }),
    Effect.timeoutOrElse({
      duration: timeoutMs,
      orElse: () =>
        Effect.fail(
          new DaemonError({
            reason: "start_failed",
            message: `the daemon did not answer on ${paths.socket} within ${timeoutMs} ms${logTail(paths)}`
          })
        )
    })
  )

/**
 * Starts a daemon unless one answers already, and waits until it answers.
 * `started` is false when one was running.
 *
 * **Example**
 *
 * ```ts
 * import { start } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const running = start(pathsIn("/tmp/d"), { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const start = (
  paths: Protocol.Paths,
  options: { readonly idleMs: number; readonly dirVariable: string }
): Effect.Effect<{ readonly status: Protocol.DaemonStatus; readonly started: boolean }, DaemonError> =>
  Effect.gen(function* () {
    const problem = Protocol.socketPathProblem(paths, options.dirVariable)
    if (problem !== undefined) return yield* new DaemonError({ reason: "socket_path", message: problem })
    yield* ensureDirectory(paths.dir, options.dirVariable)
    const running = yield* status(paths)
    if (running !== undefined) return { status: running, started: false }
    yield* removeStaleSocket(paths)
    const child = yield* spawnDaemon(paths, options)
    return { status: yield* waitUntilAnswering(paths, startTimeoutMs, child), started: true }
  })

/**
 * Asks the daemon to stop and waits (up to `timeoutMs`) until its process
 * is gone. A daemon that does not answer but whose pid file names a live
 * process is sent SIGTERM. Succeeds with the pid, or undefined when none was
 * running.
 *
 * **Example**
 *
 * ```ts
 * import { stop } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const stopped = stop(pathsIn("/tmp/d"), 15_000)
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const stop = (
  paths: Protocol.Paths,
  timeoutMs: number
): Effect.Effect<{ readonly pid: number; readonly signalled: boolean } | undefined, DaemonError> =>
  Effect.gen(function* () {
    const answer = yield* Effect.result(
      request(paths, { mcpRuntimeDaemon: Protocol.protocolVersion, type: "stop" }, 2000)
    )
    let pid: number
    let signalled = false
    if (Result.isSuccess(answer) && answer.success.ok) {
      pid = answer.success.pid
    } else {
      // Not answering (or not there): the pid file says whether a daemon process is still alive.
      const recorded = Result.try(() => Number.parseInt(NodeFs.readFileSync(paths.pid, "utf8"), 10))
      if (Result.isFailure(recorded) || !Number.isInteger(recorded.success) || !isAlive(recorded.success)) {
        if (Result.isFailure(answer) && answer.failure.reason !== "not_running") return yield* answer.failure
        yield* removeStaleSocket(paths).pipe(Effect.ignore)
        return undefined
      }
      pid = recorded.success
      signalled = true
      yield* Effect.sync(() => Result.try(() => process.kill(pid, "SIGTERM")))
    }
    yield* Effect.suspend(() =>
      isAlive(pid) ? Effect.fail(new DaemonError({ reason: "waiting", message: "" })) : Effect.void
    ).pipe(
      Effect.retry({ schedule: Schedule.spaced(50), while: (error) => error.reason === "waiting" }),
      Effect.timeoutOrElse({
        duration: timeoutMs,
        orElse: () =>
          Effect.fail(
            new DaemonError({
              reason: "stop_failed",
              message: `the daemon (pid ${pid}) did not exit within ${timeoutMs} ms; kill it with: kill ${pid}`
            })
          )
      })
    )
    return { pid, signalled }
  })

/**
 * How a session's handshake went: connected (the connection now carries the
 * MCP session), or unavailable with the reason and a message saying why and
 * what to do.
 *
 * **Example**
 *
 * ```ts
 * import type { SessionOutcome } from "./src/internal/daemonClient.ts"
 *
 * const describe = (outcome: SessionOutcome) =>
 *   outcome._tag === "Connected" ? `daemon pid ${outcome.pid}` : `${outcome.reason}: ${outcome.message}`
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type SessionOutcome =
  | {
      readonly _tag: "Connected"
      readonly connection: Connection
      readonly pid: number
      /** The daemon had a warm server for the session's settings. */
      readonly warm: boolean
      /** This process started the daemon. */
      readonly started: boolean
    }
  | { readonly _tag: "Unavailable"; readonly reason: string; readonly message: string }

const advice: Record<string, string> = {
  version_mismatch:
    "run `mcp-runtime daemon stop` (the sessions it serves go on in their own processes); the next " +
    "`serve --daemon auto` starts a daemon of this build",
  root_mismatch: "check --root and the working directory; `mcp-runtime daemon status` shows what the daemon serves",
  bad_settings: "the daemon resolved this session's settings differently; `mcp-runtime daemon stop` starts over",
  server_failed: "the server for these settings did not start in the daemon; this process tries on its own",
  busy: "too many sessions at once in the daemon",
  stopping: "the daemon is shutting down; the next session starts a new one",
  bad_request: "the daemon does not understand this mcp-runtime: run `mcp-runtime daemon stop`"
}

/**
 * Opens a session: connects to the daemon, starting it when nobody listens
 * (and waiting until it answers), sends the `session` control message and
 * reads the answer. A daemon that is stopping is waited for once and
 * started again. Never fails: whatever goes wrong is an `Unavailable`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { openSession } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * declare const hello: import("./src/internal/daemonProtocol.ts").SessionHello
 * const outcome = openSession(pathsIn("/tmp/d"), hello, { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const openSession = (
  paths: Protocol.Paths,
  hello: Protocol.SessionHello,
  options: { readonly idleMs: number; readonly dirVariable: string }
): Effect.Effect<SessionOutcome> => {
  const attempt = (retry: boolean): Effect.Effect<SessionOutcome, DaemonError> =>
    Effect.gen(function* () {
      const problem = Protocol.socketPathProblem(paths, options.dirVariable)
      if (problem !== undefined) return yield* new DaemonError({ reason: "socket_path", message: problem })
      let started = false
      const first = yield* Effect.result(connectTo(paths))
      let connection: Connection
      if (Result.isSuccess(first)) connection = first.success
      else if (first.failure.reason === "not_running") {
        yield* ensureDirectory(paths.dir, options.dirVariable)
        yield* removeStaleSocket(paths)
        const child = yield* spawnDaemon(paths, options)
        yield* waitUntilAnswering(paths, startTimeoutMs, child)
        started = true
        connection = yield* connectTo(paths)
      } else return yield* first.failure
      const answer = yield* Effect.result(exchange(connection, hello, handshakeTimeoutMs))
      if (Result.isFailure(answer) || !answer.success.ok) yield* connection.destroy
      if (Result.isFailure(answer)) return yield* answer.failure
      const reply = answer.success
      if (reply.ok)
        return { _tag: "Connected", connection, pid: reply.pid, warm: reply.warm === true, started } as const
      if (reply.reason === "stopping" && retry) {
        // Wait for that daemon to go (its socket refuses), then start over once.
        yield* connectTo(paths).pipe(
          Effect.flatMap((probe) =>
            Effect.andThen(probe.destroy, Effect.fail(new DaemonError({ reason: "waiting", message: "" })))
          ),
          Effect.retry({ schedule: Schedule.spaced(50), while: (error) => error.reason === "waiting" }),
          Effect.timeoutOption(startTimeoutMs),
          Effect.ignore
        )
        return yield* attempt(false)
      }
      return {
        _tag: "Unavailable",
        reason: reply.reason,
        message: `${reply.message}; ${advice[reply.reason] ?? "see `mcp-runtime daemon status`"}`
      } as const
    })
  return attempt(true).pipe(
    Effect.catch((error) =>
      Effect.succeed({
        _tag: "Unavailable",
        reason: error.reason,
        message:
          error.reason === "timeout"
            ? `${error.message} (it may be busy building the session's server; see ${paths.log})`
            : error.message
      } as const)
    )
  )
}
