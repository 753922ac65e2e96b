/**
 * The warm daemon's wire protocol and its place on disk.
 *
 * The daemon listens on a Unix socket in a per-user directory. Every
 * connection opens with one control line (newline-delimited JSON): a
 * `session` (then the connection carries one MCP session, exactly as stdio
 * does), a `status` or a `stop`. The daemon answers one line, `{"ok":true,…}`
 * or `{"ok":false,"reason":…,"message":…}`.
 *
 * @since 0.4.0
 */
import * as NodeCrypto from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The protocol's version, the value of `mcpRuntimeDaemon` in every control
 * message.
 *
 * **Example**
 *
 * ```ts
 * import { protocolVersion } from "./src/internal/daemonProtocol.ts"
 *
 * protocolVersion // => 1
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const protocolVersion = 1

/**
 * The longest control line either side accepts: 1 MiB.
 *
 * **Example**
 *
 * ```ts
 * import { maxControlLineBytes } from "./src/internal/daemonProtocol.ts"
 *
 * maxControlLineBytes // => 1048576
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const maxControlLineBytes = 1024 * 1024

/**
 * The longest Unix socket path the platform binds (`sun_path` less its
 * terminating NUL): 103 bytes on macOS and the BSDs, 107 elsewhere.
 *
 * **Example**
 *
 * ```ts
 * import { maxSocketPathBytes } from "./src/internal/daemonProtocol.ts"
 *
 * maxSocketPathBytes // => 107 (on Linux)
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const maxSocketPathBytes = process.platform === "linux" ? 107 : 103

/**
 * The daemon's files: its directory, the socket, the pid file and the log.
 *
 * **Example**
 *
 * ```ts
 * import type { Paths } from "./src/internal/daemonProtocol.ts"
 *
 * const paths: Paths = {
 *   dir: "/run/user/1000/mcp",
 *   socket: "/run/user/1000/mcp/daemon.sock",
 *   pid: "/run/user/1000/mcp/daemon.pid",
 *   log: "/run/user/1000/mcp/daemon.log"
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Paths {
  readonly dir: string
  readonly socket: string
  readonly pid: string
  readonly log: string
}

/**
 * The daemon's files in `dir`.
 *
 * **Example**
 *
 * ```ts
 * import { pathsIn } from "./src/internal/daemonProtocol.ts"
 *
 * pathsIn("/tmp/d").socket // => "/tmp/d/daemon.sock"
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const pathsIn = (dir: string): Paths => ({
  dir,
  socket: NodePath.join(dir, "daemon.sock"),
  pid: NodePath.join(dir, "daemon.pid"),
  log: NodePath.join(dir, "daemon.log")
})

/**
 * Why the socket path cannot be bound (too long for the platform), naming
 * the variable that moves the directory; undefined when it can.
 *
 * **Example**
 *
 * ```ts
 * import { pathsIn, socketPathProblem } from "./src/internal/daemonProtocol.ts"
 *
 * socketPathProblem(pathsIn("/tmp/d"), "MCP_RUNTIME_DAEMON_DIR") // => undefined
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const socketPathProblem = (paths: Paths, variable: string): string | undefined => {
  const bytes = Buffer.byteLength(paths.socket)
  return bytes <= maxSocketPathBytes
    ? undefined
    : `the daemon's socket path ${paths.socket} is ${bytes} bytes long, and Unix socket paths are limited to ` +
        `${maxSocketPathBytes} bytes here: set ${variable} to a shorter directory of your own, e.g. ` +
        `${variable}=$XDG_RUNTIME_DIR/mcp-runtime or ${variable}=$HOME/.mcpd (not a shared directory such as /tmp)`
}

let cachedBuild: string | undefined

/**
 * Identifies the running code: the first 16 hex digits of the SHA-256 of the
 * running script (`process.argv[1]`, symbolic links resolved), computed once.
 * A daemon serves only the sessions of the very same build.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { buildId } from "./src/internal/daemonProtocol.ts"
 *
 * const build = Effect.runSync(buildId) // e.g. "3f2a9c0d41e7b6a5"
 * ```
 *
 * @category getters
 * @since 0.4.0
 */
export const buildId: Effect.Effect<string> = Effect.suspend(() => {
  if (cachedBuild !== undefined) return Effect.succeed(cachedBuild)
  const script = process.argv[1] ?? ""
  const digest = (data: string | Uint8Array) => NodeCrypto.createHash("sha256").update(data).digest("hex").slice(0, 16)
  return Effect.try(() => NodeFs.readFileSync(NodeFs.realpathSync(NodePath.resolve(script)))).pipe(
    Effect.map(digest),
    // Without a readable script, the build is what can be known of it: the same path and node on both sides.
    Effect.catch(() => Effect.succeed(digest(`unreadable:${script}:${process.execPath}`))),
    Effect.tap((build) =>
      Effect.sync(() => {
        cachedBuild = build
      })
    )
  )
})

/**
 * The serve flags as the session sends them: each flag's value, or null when
 * it was not given.
 *
 * **Example**
 *
 * ```ts
 * import type { WireFlags } from "./src/internal/daemonProtocol.ts"
 *
 * const flags: WireFlags = { root: null, capabilities: "system", timeoutMs: 60000 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type WireFlags = { readonly [key: string]: string | number | null }

const WireFlags = Schema.Record(Schema.String, Schema.Union([Schema.String, Schema.Finite, Schema.Null]))

/**
 * The `session` control message: the serve process's version and build, its
 * working directory and the root it resolved, its serve flags and the
 * environment variables settings resolution reads.
 *
 * **Example**
 *
 * ```ts
 * import type { SessionHello } from "./src/internal/daemonProtocol.ts"
 *
 * const hello: SessionHello = {
 *   mcpRuntimeDaemon: 1,
 *   type: "session",
 *   version: "0.4.0",
 *   build: "3f2a9c0d41e7b6a5",
 *   cwd: "/srv/project",
 *   root: "/srv/project",
 *   flags: { capabilities: "system" },
 *   env: { HOME: "/home/ada" }
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const SessionHello = Schema.Struct({
  mcpRuntimeDaemon: Schema.Literal(protocolVersion),
  type: Schema.Literal("session"),
  version: Schema.String,
  build: Schema.String,
  cwd: Schema.String,
  root: Schema.String,
  flags: WireFlags,
  env: Schema.Record(Schema.String, Schema.String)
})

/**
 * The decoded `session` control message.
 *
 * **Example**
 *
 * ```ts
 * import type { SessionHello } from "./src/internal/daemonProtocol.ts"
 *
 * const rootOf = (hello: SessionHello): string => hello.root
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type SessionHello = typeof SessionHello.Type

/**
 * The control messages a connection may open with.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Hello } from "./src/internal/daemonProtocol.ts"
 *
 * Schema.decodeUnknownSync(Hello)({ mcpRuntimeDaemon: 1, type: "status" })
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const Hello = Schema.Union([
  SessionHello,
  Schema.Struct({ mcpRuntimeDaemon: Schema.Literal(protocolVersion), type: Schema.Literal("status") }),
  Schema.Struct({ mcpRuntimeDaemon: Schema.Literal(protocolVersion), type: Schema.Literal("stop") })
])

/**
 * A decoded control message.
 *
 * **Example**
 *
 * ```ts
 * import type { Hello } from "./src/internal/daemonProtocol.ts"
 *
 * const isSession = (hello: Hello): boolean => hello.type === "session"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Hello = typeof Hello.Type

/**
 * Why a daemon refused a connection.
 *
 * - `version_mismatch`: another version or build of mcp-runtime;
 * - `root_mismatch`: the daemon resolved another root from the session's
 *   working directory and flags;
 * - `bad_settings`: the session's settings do not resolve in the daemon;
 * - `server_failed`: the server for those settings did not start;
 * - `busy`: too many sessions at once;
 * - `stopping`: the daemon is shutting down;
 * - `bad_request`: the control line is not one the daemon knows.
 *
 * **Example**
 *
 * ```ts
 * import type { RefusalReason } from "./src/internal/daemonProtocol.ts"
 *
 * const reason: RefusalReason = "version_mismatch"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const RefusalReason = Schema.Literals([
  "version_mismatch",
  "root_mismatch",
  "bad_settings",
  "server_failed",
  "busy",
  "stopping",
  "bad_request"
])

/**
 * A refusal reason.
 *
 * **Example**
 *
 * ```ts
 * import type { RefusalReason } from "./src/internal/daemonProtocol.ts"
 *
 * const retryable = (reason: RefusalReason): boolean => reason === "stopping"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type RefusalReason = typeof RefusalReason.Type

/**
 * One warm server of a daemon: its root, what it serves, its sessions, when
 * it was built and last used (epoch ms).
 *
 * **Example**
 *
 * ```ts
 * import type { WarmStatus } from "./src/internal/daemonProtocol.ts"
 *
 * const warm: WarmStatus = {
 *   root: "/srv/project",
 *   key: "9c0d41e7b6a5",
 *   capabilities: ["system"],
 *   front: "tools",
 *   state: "ready",
 *   sessions: 1,
 *   totalSessions: 3,
 *   createdAt: 1767225600000,
 *   lastUsedAt: 1767225660000
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const WarmStatus = Schema.Struct({
  root: Schema.String,
  key: Schema.String,
  capabilities: Schema.Array(Schema.String),
  front: Schema.String,
  state: Schema.Literals(["building", "ready"]),
  sessions: Schema.Int,
  totalSessions: Schema.Int,
  createdAt: Schema.Finite,
  lastUsedAt: Schema.Finite
})

/**
 * A warm server's status.
 *
 * **Example**
 *
 * ```ts
 * import type { WarmStatus } from "./src/internal/daemonProtocol.ts"
 *
 * const inUse = (warm: WarmStatus): boolean => warm.sessions > 0
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type WarmStatus = typeof WarmStatus.Type

/**
 * What `status` answers: the daemon's identity, its files, its idle timeout
 * (`idleSince`: since when it has had no session, epoch ms, or null), its
 * sessions and its warm servers.
 *
 * **Example**
 *
 * ```ts
 * import type { DaemonStatus } from "./src/internal/daemonProtocol.ts"
 *
 * const status: DaemonStatus = {
 *   pid: 4242,
 *   version: "0.4.0",
 *   build: "3f2a9c0d41e7b6a5",
 *   socket: "/tmp/d/daemon.sock",
 *   log: "/tmp/d/daemon.log",
 *   startedAt: 1767225600000,
 *   idleMs: 1800000,
 *   idleSince: null,
 *   sessions: 1,
 *   totalSessions: 1,
 *   warm: []
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const DaemonStatus = Schema.Struct({
  pid: Schema.Int,
  version: Schema.String,
  build: Schema.String,
  socket: Schema.String,
  log: Schema.String,
  startedAt: Schema.Finite,
  idleMs: Schema.Finite,
  idleSince: Schema.NullOr(Schema.Finite),
  sessions: Schema.Int,
  totalSessions: Schema.Int,
  warm: Schema.Array(WarmStatus)
})

/**
 * A daemon's status.
 *
 * **Example**
 *
 * ```ts
 * import type { DaemonStatus } from "./src/internal/daemonProtocol.ts"
 *
 * const roots = (status: DaemonStatus) => status.warm.map((warm) => warm.root)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type DaemonStatus = typeof DaemonStatus.Type

/**
 * The daemon's answer line: `ok` with what the request asked for (the pid,
 * the status, whether a session's server was warm already), or a refusal.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Answer } from "./src/internal/daemonProtocol.ts"
 *
 * Schema.decodeUnknownSync(Answer)({ ok: false, reason: "busy", message: "256 sessions are open" })
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const Answer = Schema.Union([
  Schema.Struct({
    ok: Schema.Literal(true),
    pid: Schema.Int,
    warm: Schema.optionalKey(Schema.Boolean),
    status: Schema.optionalKey(DaemonStatus)
  }),
  Schema.Struct({ ok: Schema.Literal(false), reason: Schema.String, message: Schema.String })
])

/**
 * A decoded answer.
 *
 * **Example**
 *
 * ```ts
 * import type { Answer } from "./src/internal/daemonProtocol.ts"
 *
 * const why = (answer: Answer): string => (answer.ok ? "ok" : `${answer.reason}: ${answer.message}`)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Answer = typeof Answer.Type

/**
 * Decodes a control line (the first line of a connection).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { decodeHello } from "./src/internal/daemonProtocol.ts"
 *
 * const hello = decodeHello('{"mcpRuntimeDaemon":1,"type":"status"}') // succeeds with { mcpRuntimeDaemon: 1, type: "status" }
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const decodeHello: (line: string) => Effect.Effect<Hello, Schema.SchemaError> = Schema.decodeUnknownEffect(
  Schema.fromJsonString(Hello)
)

/**
 * Decodes an answer line.
 *
 * **Example**
 *
 * ```ts
 * import { decodeAnswer } from "./src/internal/daemonProtocol.ts"
 *
 * const answer = decodeAnswer('{"ok":true,"pid":4242}') // succeeds with { ok: true, pid: 4242 }
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const decodeAnswer: (line: string) => Effect.Effect<Answer, Schema.SchemaError> = Schema.decodeUnknownEffect(
  Schema.fromJsonString(Answer)
)

/**
 * A control message or an answer as one line (with its newline).
 *
 * **Example**
 *
 * ```ts
 * import { line } from "./src/internal/daemonProtocol.ts"
 *
 * line({ mcpRuntimeDaemon: 1, type: "stop" }) // => '{"mcpRuntimeDaemon":1,"type":"stop"}\n'
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const line = (message: Hello | Answer): string => `${JSON.stringify(message)}\n`

/**
 * A refusal answer.
 *
 * **Example**
 *
 * ```ts
 * import { refusal } from "./src/internal/daemonProtocol.ts"
 *
 * refusal("busy", "256 sessions are open") // => { ok: false, reason: "busy", message: "256 sessions are open" }
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const refusal = (reason: RefusalReason, message: string): Answer => ({ ok: false, reason, message })

/**
 * The control line the daemon writes on a session's connection when it
 * stops reading it (it is shutting down): `linesRead` is how many lines of
 * the client's it has read on the connection (every newline counts, from
 * the first byte after the `session` line). The daemon still answers those;
 * `serve` never forwards this line to its client and sends the client's
 * lines after the first `linesRead` to its own, in-process, server.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Draining } from "./src/internal/daemonProtocol.ts"
 *
 * Schema.decodeUnknownSync(Draining)({ mcpRuntimeDaemon: 1, type: "draining", linesRead: 3 })
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const Draining = Schema.Struct({
  mcpRuntimeDaemon: Schema.Literal(protocolVersion),
  type: Schema.Literal("draining"),
  linesRead: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/**
 * The decoded `draining` control line.
 *
 * **Example**
 *
 * ```ts
 * import type { Draining } from "./src/internal/daemonProtocol.ts"
 *
 * const unread = (draining: Draining, sent: number): number => sent - draining.linesRead
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Draining = typeof Draining.Type

/**
 * The `draining` control line (without its newline).
 *
 * **Example**
 *
 * ```ts
 * import { drainingLine } from "./src/internal/daemonProtocol.ts"
 *
 * drainingLine(3) // => '{"mcpRuntimeDaemon":1,"type":"draining","linesRead":3}'
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const drainingLine = (linesRead: number): string =>
  JSON.stringify({ mcpRuntimeDaemon: protocolVersion, type: "draining", linesRead } satisfies Draining)

const decodeDraining = Schema.decodeUnknownOption(Schema.fromJsonString(Draining))

/**
 * The `linesRead` of a line the daemon wrote on a session's connection when
 * it is the `draining` control line, else undefined (an MCP message: those
 * start with `{"jsonrpc"`, never with `{"mcpRuntimeDaemon"`).
 *
 * **Example**
 *
 * ```ts
 * import { parseDraining } from "./src/internal/daemonProtocol.ts"
 *
 * parseDraining('{"mcpRuntimeDaemon":1,"type":"draining","linesRead":3}') // => 3
 * parseDraining('{"jsonrpc":"2.0","id":1,"result":{}}') // => undefined
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const parseDraining = (line: string): number | undefined => {
  if (!line.startsWith('{"mcpRuntimeDaemon":')) return undefined
  const decoded = decodeDraining(line)
  return decoded._tag === "Some" ? decoded.value.linesRead : undefined
}
