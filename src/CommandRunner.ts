/**
 * Runs external commands for tools: argv only (never a shell string), in a
 * working directory confined to the workspace root, with an environment
 * allowlist, optional stdin, a per-run timeout, a cap on captured output and
 * output lines streamed to the caller while the command runs.
 *
 * Interrupting a run (cancellation, timeout, shutdown) kills the command's
 * whole process tree: SIGTERM to its process group, SIGKILL after a grace
 * period. Each run's output is kept in a bounded in-memory store, readable by
 * run id with `output(runId)` and listed with `runs` (the `exec` capability
 * serves it as the resource `logs://run/<id>`).
 *
 * The service is an interface; `layers/NodeCommandRunner.ts` implements it
 * for Node. See `docs/command-runner.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { CommandRunner } from "effect-mcp-runtime/CommandRunner"
 *
 * const test = Effect.flatMap(Effect.service(CommandRunner), (runner) =>
 *   runner.run({ command: "npm", args: ["test"], cwd: "packages/core", timeout: "5 minutes" })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The environment variables a command receives from the server's own
 * environment when the request names no others: what programs need to find
 * executables, locate the home directory, pick a locale, a terminal type and a
 * temporary directory. Nothing else of the server's environment (tokens, keys,
 * cloud credentials) reaches the command unless the request passes it.
 *
 * **Example**
 *
 * ```ts
 * import { defaultEnvAllowlist } from "effect-mcp-runtime/CommandRunner"
 *
 * defaultEnvAllowlist.includes("PATH") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultEnvAllowlist: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "NODE_ENV",
  "CI"
]

/**
 * The default cap on captured output: 1 MiB per stream (stdout and stderr
 * each).
 *
 * **Example**
 *
 * ```ts
 * import { defaultMaxOutputBytes } from "effect-mcp-runtime/CommandRunner"
 *
 * defaultMaxOutputBytes // => 1048576
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxOutputBytes = 1024 * 1024

/**
 * The default time between SIGTERM and SIGKILL when a run is interrupted: 2
 * seconds.
 *
 * **Example**
 *
 * ```ts
 * import { defaultKillGraceMs } from "effect-mcp-runtime/CommandRunner"
 *
 * defaultKillGraceMs // => 2000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultKillGraceMs = 2000

/**
 * Which output stream a line came from.
 *
 * **Example**
 *
 * ```ts
 * import type { OutputStream } from "effect-mcp-runtime/CommandRunner"
 *
 * const stream: OutputStream = "stderr"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type OutputStream = "stdout" | "stderr"

/**
 * One command to run.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Request } from "effect-mcp-runtime/CommandRunner"
 *
 * const request: Request = {
 *   command: "git",
 *   args: ["log", "--oneline", "-n", "20"],
 *   cwd: ".",
 *   env: { GIT_PAGER: "cat" },
 *   timeout: "30 seconds",
 *   onLine: (stream, line) => Effect.logDebug(`${stream}: ${line}`)
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  /** The program: a name looked up on the child's `PATH`, or a path. Never a shell string. */
  readonly command: string
  /** The arguments, passed as they are (no shell, no globbing, no quoting). */
  readonly args?: ReadonlyArray<string> | undefined
  /** The working directory, relative to the workspace root (default: the root). It must stay under the root. */
  readonly cwd?: string | undefined
  /** Variables to set in the child, on top of the allowlisted ones. Passed even when not on the allowlist. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Names of further variables to copy from the server's environment (when set there). */
  readonly inheritEnv?: ReadonlyArray<string> | undefined
  /** Text written to the child's stdin, which is then closed. Without it stdin is empty (`/dev/null`). */
  readonly stdin?: string | undefined
  /** How long the command may run; past it the process tree is killed and the run fails with `TimedOut`. */
  readonly timeout?: Duration.Input | undefined
  /** The most bytes captured per stream (default {@link defaultMaxOutputBytes}); the rest is dropped and flagged. */
  readonly maxOutputBytes?: number | undefined
  /** Time between SIGTERM and SIGKILL when the run is interrupted (default {@link defaultKillGraceMs}). */
  readonly killGrace?: Duration.Input | undefined
  /** Called for each line of output as it arrives, in order within each stream. */
  readonly onLine?: ((stream: OutputStream, line: string) => Effect.Effect<void>) | undefined
}

/**
 * What a finished run produced.
 *
 * **Example**
 *
 * ```ts
 * import type { Result } from "effect-mcp-runtime/CommandRunner"
 *
 * const result: Result = {
 *   runId: "run-1-4f3a",
 *   command: "echo",
 *   args: ["hi"],
 *   cwd: "/srv/project",
 *   exitCode: 0,
 *   signal: null,
 *   durationMs: 3,
 *   stdout: "hi\n",
 *   stderr: "",
 *   stdoutTruncated: false,
 *   stderrTruncated: false
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  /** The run's id, the key of its output in the store (`output(runId)`). */
  readonly runId: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** The absolute working directory. */
  readonly cwd: string
  /** The exit code, or `null` when a signal ended the process. */
  readonly exitCode: number | null
  /** The signal that ended the process, or `null` when it exited. */
  readonly signal: string | null
  readonly durationMs: number
  /** Captured stdout (UTF-8), at most `maxOutputBytes` bytes of it. */
  readonly stdout: string
  /** Captured stderr (UTF-8), at most `maxOutputBytes` bytes of it. */
  readonly stderr: string
  /** Whether stdout went past the cap and was cut. */
  readonly stdoutTruncated: boolean
  /** Whether stderr went past the cap and was cut. */
  readonly stderrTruncated: boolean
}

/**
 * A run's output as the store keeps it: the result, and whether the run ended
 * normally, timed out or was interrupted.
 *
 * **Example**
 *
 * ```ts
 * import type { StoredOutput } from "effect-mcp-runtime/CommandRunner"
 *
 * const describe = (stored: StoredOutput) =>
 *   `${stored.runId} ${stored.outcome} at ${new Date(stored.startedAt).toISOString()}: ${stored.stdout.length} chars`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface StoredOutput extends Result {
  readonly outcome: "exited" | "timedOut" | "interrupted"
  /** When the run started, in milliseconds since the epoch (from the `Clock`). */
  readonly startedAt: number
}

/**
 * One run of the store, without its output: what a listing of recent runs
 * shows. `stdoutBytes` and `stderrBytes` are the sizes of the output kept.
 *
 * **Example**
 *
 * ```ts
 * import type { RunSummary } from "effect-mcp-runtime/CommandRunner"
 *
 * const line = (run: RunSummary) => `${run.runId} ${run.command} ${run.args.join(" ")} → ${run.exitCode ?? run.signal}`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RunSummary extends Omit<StoredOutput, "stdout" | "stderr"> {
  readonly stdoutBytes: number
  readonly stderrBytes: number
}

/**
 * The working directory is outside the workspace root (a `..` escape, an
 * absolute path elsewhere, or a symlink that leads out).
 *
 * **Example**
 *
 * ```ts
 * import { CwdOutsideRoot } from "effect-mcp-runtime/CommandRunner"
 *
 * new CwdOutsideRoot({ cwd: "../x", root: "/srv/p", message: "..." })._tag // => "CwdOutsideRoot"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class CwdOutsideRoot extends Schema.TaggedError<CwdOutsideRoot>()("CwdOutsideRoot", {
  cwd: Schema.String,
  root: Schema.String,
  message: Schema.String
}) {}

/**
 * The working directory does not exist or is not a directory.
 *
 * **Example**
 *
 * ```ts
 * import { CwdNotFound } from "effect-mcp-runtime/CommandRunner"
 *
 * new CwdNotFound({ cwd: "build", message: "..." })._tag // => "CwdNotFound"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class CwdNotFound extends Schema.TaggedError<CwdNotFound>()("CwdNotFound", {
  cwd: Schema.String,
  message: Schema.String
}) {}

/**
 * The program was not found on the child's `PATH` (or at the path given).
 *
 * **Example**
 *
 * ```ts
 * import { CommandNotFound } from "effect-mcp-runtime/CommandRunner"
 *
 * new CommandNotFound({ command: "nope", message: "..." })._tag // => "CommandNotFound"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class CommandNotFound extends Schema.TaggedError<CommandNotFound>()("CommandNotFound", {
  command: Schema.String,
  message: Schema.String
}) {}

/**
 * The operating system refused to start the program (permission denied, not
 * executable, invalid argument such as a NUL byte, …).
 *
 * **Example**
 *
 * ```ts
 * import { SpawnFailed } from "effect-mcp-runtime/CommandRunner"
 *
 * new SpawnFailed({ command: "./build.sh", reason: "PermissionDenied", message: "..." })._tag // => "SpawnFailed"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  command: Schema.String,
  reason: Schema.String,
  message: Schema.String
}) {}

/**
 * The run took longer than its timeout; its process tree was killed. The
 * output captured until then is in the store under `runId`.
 *
 * **Example**
 *
 * ```ts
 * import { TimedOut } from "effect-mcp-runtime/CommandRunner"
 *
 * new TimedOut({ command: "sleep", runId: "run-1", timeoutMs: 1000, message: "..." })._tag // => "TimedOut"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class TimedOut extends Schema.TaggedError<TimedOut>()("TimedOut", {
  command: Schema.String,
  runId: Schema.String,
  timeoutMs: Schema.Number,
  message: Schema.String
}) {}

/**
 * Every way `run` can fail.
 *
 * **Example**
 *
 * ```ts
 * import type { RunError } from "effect-mcp-runtime/CommandRunner"
 *
 * const explain = (error: RunError): string => `${error._tag}: ${error.message}`
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export type RunError = CwdOutsideRoot | CwdNotFound | CommandNotFound | SpawnFailed | TimedOut

/**
 * The command runner service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { CommandRunner } from "effect-mcp-runtime/CommandRunner"
 *
 * const program = Effect.gen(function* () {
 *   const runner = yield* CommandRunner
 *   const result = yield* runner.run({ command: "node", args: ["--version"] })
 *   const again = yield* runner.output(result.runId) // the same output, from the store
 *   const recent = yield* runner.runs // newest first, without the output
 *   return [again?.stdout, recent.length]
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class CommandRunner extends Context.Service<
  CommandRunner,
  {
    /** Runs one command to completion; interrupting the effect kills the command's process tree. */
    readonly run: (request: Request) => Effect.Effect<Result, RunError>
    /** The stored output of a recent run, or `undefined` once it has been evicted (or never existed). */
    readonly output: (runId: string) => Effect.Effect<StoredOutput | undefined>
    /** The runs in the store, newest first, without their output (a run is stored once it has ended). */
    readonly runs: Effect.Effect<ReadonlyArray<RunSummary>>
  }
>()("effect-mcp-runtime/CommandRunner") {}

/**
 * Builds a child's environment: the allowlisted variables that are set in
 * `parent`, then those named in `request.inheritEnv`, then `request.env`
 * (which wins).
 *
 * **Example**
 *
 * ```ts
 * import { buildEnv } from "effect-mcp-runtime/CommandRunner"
 *
 * buildEnv({ PATH: "/bin", API_TOKEN: "s3cret" }, ["PATH"], { env: { DEBUG: "1" } })
 * // => { PATH: "/bin", DEBUG: "1" }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const buildEnv = (
  parent: Readonly<Record<string, string | undefined>>,
  allowlist: ReadonlyArray<string>,
  request: Pick<Request, "env" | "inheritEnv">
): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of [...allowlist, ...(request.inheritEnv ?? [])]) {
    const value = parent[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...request.env }
}
