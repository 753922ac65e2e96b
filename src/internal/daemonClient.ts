/**
 * Talking to the warm daemon from another process: making and checking its
 * directory, starting it (detached, its log in its directory), waiting until
 * it answers, asking its status, stopping it, and opening a session (the
 * handshake), with every way that can fail turned into a reason and a
 * message that says what to do.
 *
 * Nothing is sent to the socket before the directory and the socket have
 * been checked (`lstat`, links not followed): the directory must be a real
 * directory of this user's that nobody else can enter (mode 0700 or
 * stricter), under directories that only this user or root can change, and
 * the socket a socket of this user's. Whatever else is found is refused,
 * never repaired or used.
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

/** The variable named in messages when the caller names none. */
const defaultDirVariable = "MCP_RUNTIME_DAEMON_DIR"

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

/**
 * The daemon's log is rotated (to `daemon.log.1`, replacing it) when it is
 * larger than this: 10 MiB.
 *
 * **Example**
 *
 * ```ts
 * import { maxLogBytes } from "./src/internal/daemonClient.ts"
 *
 * maxLogBytes // => 10485760
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const maxLogBytes = 10 * 1024 * 1024

/** The refusals that say the directory or the socket is not safe to use: never retried, never worked around. */
const unsafeReasons: ReadonlySet<string> = new Set(["directory", "socket", "unsupported"])

/**
 * Whether a `DaemonError` says the daemon's directory or socket is not safe
 * to use (or the platform has no Unix sockets): such an error is reported,
 * never retried or worked around.
 *
 * **Example**
 *
 * ```ts
 * import { DaemonError, isUnsafe } from "./src/internal/daemonClient.ts"
 *
 * isUnsafe(new DaemonError({ reason: "directory", message: "…" })) // => true
 * isUnsafe(new DaemonError({ reason: "not_running", message: "daemon not running" })) // => false
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const isUnsafe = (error: DaemonError): boolean => unsafeReasons.has(error.reason)

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

const fsError = (reason: string, what: string) => (error: unknown) =>
  new DaemonError({ reason, message: `${what}: ${messageOf(error)}` })

const mode = (value: number): string => `0${(value & 0o7777).toString(8)}`

/** What to do instead: a directory of one's own, under $HOME or $XDG_RUNTIME_DIR. */
const elsewhere = (variable: string): string =>
  `or set ${variable} to a directory of your own under your home or $XDG_RUNTIME_DIR ` +
  `(e.g. ${variable}=$XDG_RUNTIME_DIR/mcp-runtime), which mcp-runtime creates with mode 0700`

const currentUid = (): number | undefined => process.getuid?.()

// A directory only this user (or root) can change the entries of: owned by either, and not writable by the group
// or others unless sticky (like /tmp: others cannot rename or remove what is not theirs).
const ancestorProblem = (path: string, uid: number): string | undefined => {
  const stat = Result.try(() => NodeFs.statSync(path))
  if (Result.isFailure(stat)) return `cannot read ${path}: ${messageOf(stat.failure)}`
  const { mode: bits, uid: owner } = stat.success
  if (!stat.success.isDirectory()) return `${path} is not a directory`
  if (owner !== 0 && owner !== uid) return `${path} belongs to another user (uid ${owner})`
  if ((bits & 0o022) !== 0 && (bits & 0o1000) === 0) {
    return `${path} can be written by other users (mode ${mode(bits)}, not sticky)`
  }
  return undefined
}

const prefixes = (path: string): ReadonlyArray<string> => {
  const parts = path.split(NodePath.sep).filter((part) => part !== "")
  const out: Array<string> = [NodePath.sep]
  for (let i = 1; i <= parts.length; i++) out.push(NodePath.sep + parts.slice(0, i).join(NodePath.sep))
  return out
}

/**
 * Checks the daemon's directory without following links and without
 * changing anything: `"missing"` when it does not exist, `"ok"` when it is
 * a directory (not a symbolic link) of this user's with no permission bit
 * for the group or others, under directories that only this user or root
 * can change (owned by either, not writable by others unless sticky, as
 * `/tmp` is); anything else fails with reason `directory`, saying why and
 * what to do.
 *
 * **Example**
 *
 * ```ts
 * import { checkDirectory } from "./src/internal/daemonClient.ts"
 *
 * const state = checkDirectory("/run/user/1000/mcp-runtime", "MCP_RUNTIME_DAEMON_DIR") // "ok" or "missing"
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const checkDirectory = (
  dir: string,
  variable: string = defaultDirVariable
): Effect.Effect<"missing" | "ok", DaemonError> =>
  Effect.gen(function* () {
    if (process.platform === "win32") {
      return yield* new DaemonError({
        reason: "unsupported",
        message: "the daemon needs Unix sockets (not on Windows)"
      })
    }
    const refuse = (why: string) =>
      new DaemonError({
        reason: "directory",
        message: `the daemon's directory ${dir} is not safe to use: ${why}`
      })
    const stat = Result.try(() => NodeFs.lstatSync(dir))
    if (Result.isFailure(stat)) {
      if (codeOf(stat.failure) === "ENOENT") return "missing" as const
      return yield* refuse(`it cannot be read (${messageOf(stat.failure)}); ${elsewhere(variable)}`)
    }
    if (stat.success.isSymbolicLink()) {
      return yield* refuse(
        `it is a symbolic link, which another user may have planted or may point elsewhere. Remove the link ` +
          `(\`rm ${dir}\`) so that mcp-runtime creates a private directory there, ${elsewhere(variable)}`
      )
    }
    if (!stat.success.isDirectory()) {
      return yield* refuse(`it is not a directory. Remove it, ${elsewhere(variable)}`)
    }
    const uid = currentUid()
    if (uid === undefined) return "ok" as const
    if (stat.success.uid !== uid) {
      return yield* refuse(
        `it belongs to another user (uid ${stat.success.uid}; you are uid ${uid}), who could be listening on its ` +
          `socket and read what sessions send (their MCP_RUNTIME_* variables and upstream tokens). Do not use it: ` +
          elsewhere(variable).replace(/^or /, "")
      )
    }
    if ((stat.success.mode & 0o077) !== 0) {
      return yield* refuse(
        `other users have access to it (mode ${mode(stat.success.mode)}; it must be 0700), so they may have put ` +
          `files in it (its socket, pid file or log). It is not used as it is: if it is yours and you know ` +
          `everything in it, \`chmod 700 ${dir}\`; else remove it, ${elsewhere(variable)}`
      )
    }
    const parent = NodePath.dirname(NodePath.resolve(dir))
    const real = Result.try(() => NodeFs.realpathSync(parent))
    if (Result.isFailure(real)) {
      return yield* refuse(`its parent cannot be resolved (${messageOf(real.failure)}); ${elsewhere(variable)}`)
    }
    for (const ancestor of new Set([...prefixes(parent), ...prefixes(real.success)])) {
      const problem = ancestorProblem(ancestor, uid)
      if (problem !== undefined) {
        return yield* refuse(`${problem}, so another user could replace the daemon's directory. ${elsewhere(variable)}`)
      }
    }
    return "ok" as const
  })

/**
 * Makes the daemon's directory when it does not exist (`mkdir` with mode
 * 0700; the parents it creates are not relied on), then checks it as
 * {@link checkDirectory} does. An existing directory is never changed: one
 * that fails the check is refused (reason `directory`).
 *
 * **Example**
 *
 * ```ts
 * import { ensureDirectory } from "./src/internal/daemonClient.ts"
 *
 * const ready = ensureDirectory("/run/user/1000/mcp-runtime", "MCP_RUNTIME_DAEMON_DIR")
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const ensureDirectory = (dir: string, variable: string = defaultDirVariable): Effect.Effect<void, DaemonError> =>
  Effect.gen(function* () {
    if ((yield* checkDirectory(dir, variable)) === "ok") return
    yield* Effect.try({
      try: () => NodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 }),
      catch: fsError("directory", `cannot create the daemon's directory ${dir}`)
    })
    if ((yield* checkDirectory(dir, variable)) === "missing") {
      return yield* new DaemonError({ reason: "directory", message: `the daemon's directory ${dir} vanished` })
    }
  })

/**
 * Checks the socket file without following links: `"missing"` when there is
 * none, `"ok"` when it is a socket of this user's; anything else fails with
 * reason `socket`.
 *
 * **Example**
 *
 * ```ts
 * import { checkSocket } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const state = checkSocket(pathsIn("/run/user/1000/mcp-runtime"))
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const checkSocket = (
  paths: Protocol.Paths,
  variable: string = defaultDirVariable
): Effect.Effect<"missing" | "ok", DaemonError> =>
  Effect.gen(function* () {
    const stat = Result.try(() => NodeFs.lstatSync(paths.socket))
    if (Result.isFailure(stat)) {
      if (codeOf(stat.failure) === "ENOENT") return "missing" as const
      return yield* fsError("socket", `cannot read ${paths.socket}`)(stat.failure)
    }
    if (!stat.success.isSocket()) {
      return yield* new DaemonError({
        reason: "socket",
        message: `${paths.socket} exists and is not a socket: remove it (it is not used), ${elsewhere(variable)}`
      })
    }
    const uid = currentUid()
    if (uid !== undefined && stat.success.uid !== uid) {
      return yield* new DaemonError({
        reason: "socket",
        message:
          `${paths.socket} belongs to another user (uid ${stat.success.uid}; you are uid ${uid}): nothing is sent to ` +
          `it. Remove it if it is stale, ${elsewhere(variable)}`
      })
    }
    return "ok" as const
  })

/**
 * Sends one control message on a new connection and reads the answer, once
 * the directory and the socket have passed their checks. Fails with
 * `not_running` when there is no directory or no socket, or nobody listens
 * on it; with `directory` or `socket` when they are not safe to use.
 *
 * **Example**
 *
 * ```ts
 * import { request } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const status = request(pathsIn("/run/user/1000/mcp-runtime"), { mcpRuntimeDaemon: 1, type: "status" })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const request = (
  paths: Protocol.Paths,
  hello: Protocol.Hello,
  timeoutMs = 5000,
  variable: string = defaultDirVariable
): Effect.Effect<Protocol.Answer, DaemonError> =>
  Effect.acquireUseRelease(
    connectTo(paths, variable),
    (connection) => exchange(connection, hello, timeoutMs),
    (connection) => connection.destroy
  )

const notRunning = (error: SocketError) => error.code === "ENOENT" || error.code === "ECONNREFUSED"

const notRunningError = () => new DaemonError({ reason: "not_running", message: "daemon not running" })

// Every connection to the daemon goes through here: the directory and the socket are checked first.
const connectTo = (paths: Protocol.Paths, variable: string): Effect.Effect<Connection, DaemonError> =>
  Effect.gen(function* () {
    if ((yield* checkDirectory(paths.dir, variable)) === "missing") return yield* notRunningError()
    if ((yield* checkSocket(paths, variable)) === "missing") return yield* notRunningError()
    return yield* connect(paths.socket, connectTimeoutMs).pipe(
      Effect.mapError((error) =>
        notRunning(error)
          ? notRunningError()
          : new DaemonError({ reason: "connect", message: `cannot connect to ${paths.socket}: ${error.message}` })
      )
    )
  })

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
 * const current = status(pathsIn("/run/user/1000/mcp-runtime"))
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const status = (
  paths: Protocol.Paths,
  timeoutMs = 5000,
  variable: string = defaultDirVariable
): Effect.Effect<Protocol.DaemonStatus | undefined, DaemonError> =>
  request(paths, { mcpRuntimeDaemon: Protocol.protocolVersion, type: "status" }, timeoutMs, variable).pipe(
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

// -- private files ---------------------------------------------------------------------------------------------------

const { O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = NodeFs.constants

// An open file must be a regular file of this user's; closed and refused otherwise.
const checkOpened = (fd: number, path: string, reason: string): Effect.Effect<number, DaemonError> => {
  const stat = Result.try(() => NodeFs.fstatSync(fd))
  const uid = currentUid()
  const problem = Result.isFailure(stat)
    ? `cannot read it: ${messageOf(stat.failure)}`
    : !stat.success.isFile()
      ? "it is not a regular file"
      : uid !== undefined && stat.success.uid !== uid
        ? `it belongs to another user (uid ${stat.success.uid})`
        : undefined
  if (problem === undefined) return Effect.succeed(fd)
  Result.try(() => NodeFs.closeSync(fd))
  return Effect.fail(new DaemonError({ reason, message: `${path} is not used: ${problem}; remove it` }))
}

// Opens without following a link: a link is refused (ELOOP), with what to do.
const openPrivate = (
  path: string,
  flags: number,
  reason: string,
  createMode?: number
): Effect.Effect<number | undefined, DaemonError> => {
  const opened = Result.try(() => NodeFs.openSync(path, flags | O_NOFOLLOW, createMode))
  if (Result.isSuccess(opened)) return checkOpened(opened.success, path, reason)
  const code = codeOf(opened.failure)
  if (code === "ENOENT") return Effect.succeed(undefined)
  return Effect.fail(
    new DaemonError({
      reason,
      message:
        code === "ELOOP"
          ? `${path} is a symbolic link, which is never followed: remove it`
          : code === "EEXIST"
            ? `${path} exists already`
            : `cannot open ${path}: ${messageOf(opened.failure)}`
    })
  )
}

/**
 * Reads the pid the daemon's pid file names, without following a link: the
 * file must be a regular file of this user's (a link or anything else fails
 * with reason `pid_file`); undefined when there is none or it names no pid.
 *
 * **Example**
 *
 * ```ts
 * import { readPidFile } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const pid = readPidFile(pathsIn("/run/user/1000/mcp-runtime"))
 * ```
 *
 * @category getters
 * @since 0.4.0
 */
export const readPidFile = (paths: Protocol.Paths): Effect.Effect<number | undefined, DaemonError> =>
  Effect.gen(function* () {
    const fd = yield* openPrivate(paths.pid, O_RDONLY | O_NONBLOCK, "pid_file")
    if (fd === undefined) return undefined
    const buffer = Buffer.alloc(32)
    const read = Result.try(() => NodeFs.readSync(fd, buffer, 0, buffer.length, 0))
    Result.try(() => NodeFs.closeSync(fd))
    if (Result.isFailure(read)) return yield* fsError("pid_file", `cannot read ${paths.pid}`)(read.failure)
    const pid = Number.parseInt(buffer.toString("utf8", 0, read.success), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  })

/**
 * Creates the pid file exclusively (it must not exist; a link there is
 * never followed), mode 0600, holding `pid`. Fails with reason `exists`
 * when there is one already.
 *
 * **Example**
 *
 * ```ts
 * import { createPidFile } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const created = createPidFile(pathsIn("/run/user/1000/mcp-runtime"), process.pid)
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const createPidFile = (paths: Protocol.Paths, pid: number): Effect.Effect<void, DaemonError> =>
  Effect.gen(function* () {
    const opened = Result.try(() => NodeFs.openSync(paths.pid, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600))
    if (Result.isFailure(opened)) {
      return yield* new DaemonError({
        reason: codeOf(opened.failure) === "EEXIST" ? "exists" : "pid_file",
        message: `cannot create ${paths.pid}: ${messageOf(opened.failure)}`
      })
    }
    const written = Result.try(() => NodeFs.writeSync(opened.success, `${pid}\n`))
    Result.try(() => NodeFs.closeSync(opened.success))
    if (Result.isFailure(written)) return yield* fsError("pid_file", `cannot write ${paths.pid}`)(written.failure)
  })

/**
 * Opens the daemon's log for appending (`O_APPEND | O_CREAT | O_NOFOLLOW`,
 * mode 0600), rotating it to `daemon.log.1` first when it is larger than
 * `maxBytes`. A log that is a symbolic link, not a regular file, or another
 * user's is refused (reason `log`). Returns the file descriptor.
 *
 * **Example**
 *
 * ```ts
 * import { openLog } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const fd = openLog(pathsIn("/run/user/1000/mcp-runtime"))
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const openLog = (paths: Protocol.Paths, maxBytes: number = maxLogBytes): Effect.Effect<number, DaemonError> =>
  Effect.gen(function* () {
    const stat = Result.try(() => NodeFs.lstatSync(paths.log))
    if (Result.isSuccess(stat)) {
      if (stat.success.isSymbolicLink()) {
        return yield* new DaemonError({
          reason: "log",
          message: `${paths.log} is a symbolic link, which is never followed: remove it`
        })
      }
      if (stat.success.isFile() && stat.success.size > maxBytes) {
        yield* Effect.try({
          try: () => NodeFs.renameSync(paths.log, `${paths.log}.1`),
          catch: fsError("log", `cannot rotate ${paths.log}`)
        })
      }
    }
    const fd = yield* openPrivate(paths.log, O_WRONLY | O_APPEND | O_CREAT, "log", 0o600)
    if (fd === undefined) return yield* new DaemonError({ reason: "log", message: `cannot create ${paths.log}` })
    return fd
  })

/**
 * Rotates the daemon's log while the daemon writes to it through `fd`
 * (opened with `O_APPEND`, as its stderr): when the file `fd` writes to is
 * the log (the same file, not a link) and is larger than `maxBytes`, it is
 * copied to `daemon.log.1` (replacing it) and truncated, so writes go on at
 * its start. True when it rotated; false when there was nothing to do or
 * `fd` is not the log (a daemon run by a service manager logs elsewhere).
 * Synchronous, so no line of this process is lost between the copy and the
 * truncation.
 *
 * **Example**
 *
 * ```ts
 * import { rotateLog } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * rotateLog(pathsIn("/run/user/1000/mcp-runtime"), 2) // => false, while the log is small
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const rotateLog = (paths: Protocol.Paths, fd: number, maxBytes: number = maxLogBytes): boolean => {
  const open = Result.try(() => NodeFs.fstatSync(fd))
  if (Result.isFailure(open) || !open.success.isFile() || open.success.size <= maxBytes) return false
  const named = Result.try(() => NodeFs.lstatSync(paths.log))
  if (
    Result.isFailure(named) ||
    !named.success.isFile() ||
    named.success.dev !== open.success.dev ||
    named.success.ino !== open.success.ino
  ) {
    return false
  }
  const rotated = `${paths.log}.1`
  const removed = Result.try(() => NodeFs.unlinkSync(rotated))
  if (Result.isFailure(removed) && codeOf(removed.failure) !== "ENOENT") return false
  // Exclusive: a link put at daemon.log.1 meanwhile is not followed.
  const copied = Result.try(() => NodeFs.copyFileSync(paths.log, rotated, NodeFs.constants.COPYFILE_EXCL))
  if (Result.isFailure(copied)) return false
  return Result.isSuccess(Result.try(() => NodeFs.ftruncateSync(fd, 0)))
}

// -- processes -------------------------------------------------------------------------------------------------------

/**
 * Whether a process runs: `"alive"` (this user may signal it), `"foreign"`
 * (it runs but belongs to another user: `EPERM`, never signalled), or
 * `"dead"`.
 *
 * **Example**
 *
 * ```ts
 * import { processState } from "./src/internal/daemonClient.ts"
 *
 * processState(process.pid) // => "alive"
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const processState = (pid: number): "alive" | "foreign" | "dead" => {
  const sent = Result.try(() => process.kill(pid, 0))
  if (Result.isSuccess(sent)) return "alive"
  return codeOf(sent.failure) === "EPERM" ? "foreign" : "dead"
}

const realOrResolved = (path: string): string => {
  const real = Result.try(() => NodeFs.realpathSync(path))
  return Result.isSuccess(real) ? real.success : NodePath.resolve(path)
}

/**
 * What a process is, from its command line (`/proc/<pid>/cmdline`, Linux
 * only): `"daemon"` when it runs `script` (this mcp-runtime's, by default)
 * with `daemon run`; `"other_daemon"` when it runs `daemon run` of another
 * script; `"other"` when it runs something else (or is gone); `"unknown"`
 * when that cannot be known (not Linux, or its command line cannot be
 * read).
 *
 * **Example**
 *
 * ```ts
 * import { identifyProcess } from "./src/internal/daemonClient.ts"
 *
 * identifyProcess(process.pid) // => "other" (on Linux, unless this is the daemon)
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const identifyProcess = (
  pid: number,
  script: string = process.argv[1] ?? ""
): "daemon" | "other_daemon" | "other" | "unknown" => {
  if (process.platform !== "linux") return "unknown"
  const cmdline = Result.try(() => NodeFs.readFileSync(`/proc/${pid}/cmdline`, "utf8"))
  if (Result.isFailure(cmdline)) return codeOf(cmdline.failure) === "ENOENT" ? "other" : "unknown"
  const args = cmdline.success.split("\0")
  let run = -1
  for (let i = 1; i + 1 < args.length; i++) {
    if (args[i] === "daemon" && args[i + 1] === "run") {
      run = i
      break
    }
  }
  if (run === -1) return "other"
  const cwd = Result.try(() => NodeFs.readlinkSync(`/proc/${pid}/cwd`))
  const base = Result.isSuccess(cwd) ? cwd.success : NodePath.sep
  const wanted = realOrResolved(script)
  const runsScript = args
    .slice(1, run)
    .some((arg) => arg !== "" && (arg === script || realOrResolved(NodePath.resolve(base, arg)) === wanted))
  return runsScript ? "daemon" : "other_daemon"
}

/**
 * Removes the socket file when nobody listens on it (a daemon that was
 * killed leaves it behind) and the pid file names no live daemon (one that
 * is starting or stopping may be between its steps); refuses to touch what
 * is not a socket of this user's in a directory that passes the checks.
 * True when a stale socket was removed.
 *
 * **Example**
 *
 * ```ts
 * import { removeStaleSocket } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const removed = removeStaleSocket(pathsIn("/run/user/1000/mcp-runtime"))
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const removeStaleSocket = (
  paths: Protocol.Paths,
  options: { readonly dirVariable?: string | undefined; readonly script?: string | undefined } = {}
): Effect.Effect<boolean, DaemonError> =>
  Effect.gen(function* () {
    const variable = options.dirVariable ?? defaultDirVariable
    if ((yield* checkDirectory(paths.dir, variable)) === "missing") return false
    if ((yield* checkSocket(paths, variable)) === "missing") return false
    const probe = yield* Effect.result(connect(paths.socket, connectTimeoutMs))
    if (Result.isSuccess(probe)) {
      yield* probe.success.destroy
      return false
    }
    if (probe.failure.code !== "ECONNREFUSED") return false
    const pid = yield* readPidFile(paths)
    if (pid !== undefined && pid !== process.pid && processState(pid) === "alive") {
      // A live daemon, or one that cannot be told from another process here: its socket is left alone.
      if (identifyProcess(pid, options.script) !== "other") return false
    }
    const removed = Result.try(() => NodeFs.unlinkSync(paths.socket))
    // Gone already (another starter removed it) is as good as removed.
    if (Result.isFailure(removed) && NodeFs.existsSync(paths.socket)) {
      return yield* fsError("socket", `cannot remove the stale socket ${paths.socket}`)(removed.failure)
    }
    return true
  })

/**
 * Starts `mcp-runtime daemon run` detached (this node, this script), with
 * its stderr appended to the daemon's log (opened by {@link openLog}), and
 * returns its process. It keeps the starter's environment, with
 * `MCP_RUNTIME_DAEMON_DIR` set to the directory, and runs in the directory.
 *
 * **Example**
 *
 * ```ts
 * import { spawnDaemon } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const child = spawnDaemon(pathsIn("/run/user/1000/mcp-runtime"), { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
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
    const fd = yield* openLog(paths)
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

// The last lines of the log (a link is not followed).
const logTail = (paths: Protocol.Paths): string => {
  const opened = Result.try(() => NodeFs.openSync(paths.log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK))
  if (Result.isFailure(opened)) return ""
  const fd = opened.success
  const text = Result.try(() => {
    const stat = NodeFs.fstatSync(fd)
    if (!stat.isFile()) return ""
    const length = Math.min(stat.size, 64 * 1024)
    const buffer = Buffer.alloc(length)
    const read = NodeFs.readSync(fd, buffer, 0, length, stat.size - length)
    return buffer.toString("utf8", 0, read)
  })
  Result.try(() => NodeFs.closeSync(fd))
  if (Result.isFailure(text)) return ""
  const lines = text.success.trimEnd().split("\n").slice(-5)
  return lines.length === 0 || lines[0] === "" ? "" : `; the end of ${paths.log}:\n${lines.join("\n")}`
}

/**
 * Waits until a daemon answers `status` (up to `timeoutMs`), polling the
 * socket; fails naming the log when none does (with its last lines), at
 * once when the daemon process `child` exited or the directory or socket is
 * not safe to use.
 *
 * **Example**
 *
 * ```ts
 * import { waitUntilAnswering } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const status = waitUntilAnswering(pathsIn("/run/user/1000/mcp-runtime"), 10_000)
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const waitUntilAnswering = (
  paths: Protocol.Paths,
  timeoutMs: number,
  /** The daemon process just started: when it exits and nobody answers, waiting stops at once. */
  child?: ChildProcess.ChildProcess | undefined,
  variable: string = defaultDirVariable
): Effect.Effect<Protocol.DaemonStatus, DaemonError> =>
  status(paths, 1000, variable).pipe(
    Effect.catchIf(
      (error) => !isUnsafe(error),
      () => Effect.succeed(undefined)
    ),
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
 * const running = start(pathsIn("/run/user/1000/mcp-runtime"), { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
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
    const running = yield* status(paths, 5000, options.dirVariable)
    if (running !== undefined) return { status: running, started: false }
    yield* removeStaleSocket(paths, { dirVariable: options.dirVariable })
    const child = yield* spawnDaemon(paths, options)
    return { status: yield* waitUntilAnswering(paths, startTimeoutMs, child, options.dirVariable), started: true }
  })

/**
 * Asks the daemon to stop and waits (up to `timeoutMs`) until its process
 * is gone. When the daemon does not answer, the pid file decides: no pid,
 * or a pid that is gone or that runs something else (Linux:
 * `/proc/<pid>/cmdline`), means no daemon runs; a pid that runs this
 * mcp-runtime's `daemon run` (verified on Linux only) is sent SIGTERM.
 * Anything else is reported (reason `stop_failed`), never signalled: a
 * process of another user, another installation's daemon, or a process
 * that cannot be verified on this platform. Succeeds with the pid, or
 * undefined when none was running.
 *
 * **Example**
 *
 * ```ts
 * import { stop } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * const stopped = stop(pathsIn("/run/user/1000/mcp-runtime"), 15_000)
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const stop = (
  paths: Protocol.Paths,
  timeoutMs: number,
  options: { readonly dirVariable?: string | undefined; readonly script?: string | undefined } = {}
): Effect.Effect<{ readonly pid: number; readonly signalled: boolean } | undefined, DaemonError> =>
  Effect.gen(function* () {
    const variable = options.dirVariable ?? defaultDirVariable
    const answer = yield* Effect.result(
      request(paths, { mcpRuntimeDaemon: Protocol.protocolVersion, type: "stop" }, 2000, variable)
    )
    let pid: number
    let signalled = false
    if (Result.isSuccess(answer) && answer.success.ok) {
      pid = answer.success.pid
    } else {
      if (Result.isFailure(answer) && isUnsafe(answer.failure)) return yield* answer.failure
      const why = Result.isFailure(answer)
        ? answer.failure.message
        : `it refused: ${answer.success.ok ? "" : answer.success.message}`
      // Not answering (or not there): the pid file says whether a daemon process is still alive.
      const recorded = yield* readPidFile(paths)
      const state = recorded === undefined ? "dead" : processState(recorded)
      const identity = recorded === undefined || state !== "alive" ? "other" : identifyProcess(recorded, options.script)
      if (recorded !== undefined && state === "foreign") {
        return yield* new DaemonError({
          reason: "stop_failed",
          message:
            `no daemon answers on ${paths.socket} (${why}), and ${paths.pid} names pid ${recorded}, a process of ` +
            `another user: it is not your daemon and was not signalled. If no daemon of yours runs, remove ${paths.pid}`
        })
      }
      if (recorded === undefined || identity === "other") {
        if (Result.isFailure(answer) && answer.failure.reason !== "not_running") return yield* answer.failure
        // A pid file naming a process that is gone, or one that is not a daemon (its pid was reused), is stale.
        if (recorded !== undefined) Result.try(() => NodeFs.unlinkSync(paths.pid))
        yield* removeStaleSocket(paths, options).pipe(Effect.ignore)
        return undefined
      }
      if (identity !== "daemon") {
        return yield* new DaemonError({
          reason: "stop_failed",
          message:
            identity === "other_daemon"
              ? `no daemon answers on ${paths.socket} (${why}); ${paths.pid} names pid ${recorded}, the daemon of ` +
                `another mcp-runtime installation, which was not signalled: stop it with \`kill ${recorded}\``
              : `no daemon answers on ${paths.socket} (${why}); ${paths.pid} names pid ${recorded}, which cannot be ` +
                `verified to be the daemon on this platform, so it was not signalled. If \`ps -p ${recorded} -o ` +
                `command=\` shows mcp-runtime's \`daemon run\`, stop it with \`kill ${recorded}\`; if not, remove ` +
                paths.pid
        })
      }
      pid = recorded
      const sent = Result.try(() => process.kill(recorded, "SIGTERM"))
      if (Result.isFailure(sent) && codeOf(sent.failure) === "EPERM") {
        return yield* new DaemonError({
          reason: "stop_failed",
          message: `the daemon (pid ${recorded}) cannot be signalled (EPERM): it was not stopped`
        })
      }
      signalled = Result.isSuccess(sent)
    }
    yield* Effect.suspend(() =>
      processState(pid) === "alive" ? Effect.fail(new DaemonError({ reason: "waiting", message: "" })) : Effect.void
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
 * Opens a session: checks the directory and the socket, connects to the
 * daemon, starting it when nobody listens (and waiting until it answers),
 * sends the `session` control message and reads the answer. A daemon that
 * is stopping is waited for once and started again. Never fails: whatever
 * goes wrong is an `Unavailable`; nothing is sent when the directory or the
 * socket is not safe to use.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { openSession } from "./src/internal/daemonClient.ts"
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * declare const hello: import("./src/internal/daemonProtocol.ts").SessionHello
 * const outcome = openSession(pathsIn("/run/user/1000/mcp-runtime"), hello, { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" })
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
  const variable = options.dirVariable
  const attempt = (retry: boolean): Effect.Effect<SessionOutcome, DaemonError> =>
    Effect.gen(function* () {
      const problem = Protocol.socketPathProblem(paths, variable)
      if (problem !== undefined) return yield* new DaemonError({ reason: "socket_path", message: problem })
      let started = false
      const first = yield* Effect.result(connectTo(paths, variable))
      let connection: Connection
      if (Result.isSuccess(first)) connection = first.success
      else if (first.failure.reason === "not_running") {
        yield* ensureDirectory(paths.dir, variable)
        yield* removeStaleSocket(paths, { dirVariable: variable })
        const child = yield* spawnDaemon(paths, options)
        yield* waitUntilAnswering(paths, startTimeoutMs, child, variable)
        started = true
        connection = yield* connectTo(paths, variable)
      } else return yield* first.failure
      const answer = yield* Effect.result(exchange(connection, hello, handshakeTimeoutMs))
      if (Result.isFailure(answer) || !answer.success.ok) yield* connection.destroy
      if (Result.isFailure(answer)) return yield* answer.failure
      const reply = answer.success
      if (reply.ok)
        return { _tag: "Connected", connection, pid: reply.pid, warm: reply.warm === true, started } as const
      if (reply.reason === "stopping" && retry) {
        // Wait for that daemon to go (its socket refuses or is gone), then start over once.
        yield* connectTo(paths, variable).pipe(
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
