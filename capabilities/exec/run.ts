/**
 * `exec_run`: runs one command from the allowlist and returns its exit
 * status and the end of its output, streaming each output line as progress
 * while it runs.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CommandRunner, type OutputStream } from "../../src/CommandRunner.ts"
import { Progress } from "../../src/Progress.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"
import { allowedCommands, authorize } from "./allowlist.ts"
import { toToolError } from "./errors.ts"
import { commandLine, logUri } from "./runLog.ts"
import type { ExecSettingsShape } from "./settings.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The last `maxBytes` bytes of `text` (cut at a character boundary). */
const tailOf = (text: string, maxBytes: number): string => {
  if (text.length * 3 <= maxBytes) return text
  const bytes = encoder.encode(text)
  if (bytes.length <= maxBytes) return text
  let start = bytes.length - maxBytes
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return decoder.decode(bytes.subarray(start))
}

/**
 * The last lines of a stream, at least `maxBytes` of them: what the result
 * shows when the runner's capture was cut at its cap (it keeps the head).
 */
class LineTail {
  private lines: Array<string> = []
  private head = 0
  private chars = 0
  private readonly maxBytes: number

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  push(line: string): void {
    this.lines.push(line)
    this.chars += line.length + 1
    // A UTF-16 unit is at least one UTF-8 byte: keeping `maxBytes` units keeps at least `maxBytes` bytes.
    while (this.head < this.lines.length - 1 && this.chars - this.lines[this.head]!.length - 1 >= this.maxBytes) {
      this.chars -= this.lines[this.head]!.length + 1
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > this.lines.length) {
      this.lines = this.lines.slice(this.head)
      this.head = 0
    }
  }

  text(): string {
    return this.lines.slice(this.head).join("\n") + "\n"
  }
}

// The working directory as the result reports it: relative to the root, normalized ("sub/../sub" is "sub"). The
// runner has already checked that it stays under the root.
const normalizeCwd = (cwd: string | undefined): string => {
  const parts: Array<string> = []
  for (const part of (cwd ?? "").split("/")) {
    if (part === "" || part === ".") continue
    if (part === "..") parts.pop()
    else parts.push(part)
  }
  return parts.length === 0 ? "." : parts.join("/")
}

const maxProgressMessage = 500
const clip = (text: string): string =>
  text.length <= maxProgressMessage ? text : `${text.slice(0, maxProgressMessage)}… (${text.length} characters)`

const formatDuration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

const formatBytes = (bytes: number): string =>
  bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`

/**
 * The `exec_run` result's Schema.
 *
 * **Example**
 *
 * ```ts
 * import { RunResult } from "./capabilities/exec/run.ts"
 *
 * Object.keys(RunResult.fields).includes("log") // => true
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const RunResult = Schema.Struct({
  runId: Schema.String.annotate({ description: "The run's id; its whole output is the resource in log." }),
  command: Schema.String,
  args: Schema.Array(Schema.String),
  cwd: Schema.String.annotate({ description: "The working directory, relative to the workspace root." }),
  exitCode: Schema.NullOr(Schema.Int).annotate({
    description: "The exit code (0: success), or null when a signal ended the command."
  }),
  signal: Schema.NullOr(Schema.String).annotate({
    description: "The signal that ended the command (e.g. SIGKILL), or null when it exited."
  }),
  durationMs: Schema.Finite,
  summary: Schema.String.annotate({ description: "The outcome in words: how it ended and where the full output is." }),
  stdout: Schema.String.annotate({ description: "Standard output: all of it, or its end when stdoutTruncated." }),
  stderr: Schema.String.annotate({ description: "Standard error: all of it, or its end when stderrTruncated." }),
  stdoutTruncated: Schema.Boolean.annotate({
    description: "True when stdout shows only the end of the output; read log for the rest."
  }),
  stderrTruncated: Schema.Boolean.annotate({
    description: "True when stderr shows only the end of the output; read log for the rest."
  }),
  logTruncated: Schema.Boolean.annotate({
    description: "True when the output went past the server's cap per stream, so log lacks the end of it."
  }),
  log: Schema.String.annotate({
    description: "The URI of the run's whole output (logs://run/<runId>), readable with resources/read."
  })
})

/**
 * Builds the `run` tool, published as `exec_run`, for the given settings:
 * runs an allowed command (argv, no shell) in a directory under the
 * workspace root with a timeout (the settings' default, capped at their
 * maximum), and returns a structured result. A non-zero exit is a normal
 * result (not `isError`): the command ran, and its exit code and output are
 * what the agent needs to act on. A refused command, a missing program or
 * directory, or a timeout is an `isError` result with a suggestion. Each
 * output line is reported as progress (paced by the server) while the
 * command runs. The tool is annotated destructive and open-world, so every
 * call is confirmed by the user.
 *
 * **Example**
 *
 * ```ts
 * import { makeRun } from "./capabilities/exec/run.ts"
 * import { defaultExecSettings } from "./capabilities/exec/settings.ts"
 *
 * makeRun(defaultExecSettings).tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeRun = (settings: ExecSettingsShape): Tool.Handled<CommandRunner | Progress> => {
  const allowed = allowedCommands(settings)
  const maxTimeoutMs = settings.maxTimeoutMs
  const defaultTimeoutMs = Math.min(settings.defaultTimeoutMs, maxTimeoutMs)
  const tailBytes = settings.resultTailBytes
  // The run itself: what becomes the task when the call is one.
  const runCommand = ({
    args,
    command,
    cwd,
    stdin,
    timeoutMs
  }: {
    readonly args: ReadonlyArray<string>
    readonly command: string
    readonly cwd: string | undefined
    readonly stdin: string | undefined
    readonly timeoutMs: number | undefined
  }) =>
    Effect.gen(function* () {
      const runner = yield* CommandRunner
      const progress = yield* Progress
      const timeout = Math.min(timeoutMs ?? defaultTimeoutMs, maxTimeoutMs)
      const tails: Record<OutputStream, LineTail> = {
        stdout: new LineTail(tailBytes),
        stderr: new LineTail(tailBytes)
      }
      let lines = 0
      yield* progress.report({ progress: 0, message: clip(`$ ${commandLine(command, args)}`) })
      const result = yield* runner
        .run({
          command,
          args,
          cwd,
          stdin,
          timeout,
          maxOutputBytes: settings.maxOutputBytes,
          env: settings.env,
          inheritEnv: settings.inheritEnv,
          onLine: (stream, line) =>
            Effect.suspend(() => {
              tails[stream].push(line)
              lines++
              return progress.report({
                progress: lines,
                message: clip(stream === "stderr" ? `stderr: ${line}` : line)
              })
            })
        })
        .pipe(Effect.mapError((error) => toToolError(error, { maxTimeoutMs })))

      const show = (stream: OutputStream) => {
        const captured = result[stream]
        const cut = result[`${stream}Truncated`]
        const text = tailOf(cut ? tails[stream].text() : captured, tailBytes)
        return { text, truncated: cut || text.length < captured.length }
      }
      const stdout = show("stdout")
      const stderr = show("stderr")
      const log = logUri(result.runId)
      const logTruncated = result.stdoutTruncated || result.stderrTruncated
      const ended =
        result.exitCode === null
          ? `was ended by signal ${result.signal ?? "(unknown)"} after ${formatDuration(result.durationMs)}`
          : `exited with code ${result.exitCode} after ${formatDuration(result.durationMs)}` +
            (result.exitCode === 0 ? "" : " (a failure: stderr and stdout say why)")
      const shown =
        stdout.truncated || stderr.truncated
          ? ` Only the last ${formatBytes(tailBytes)} of ${
              stdout.truncated && stderr.truncated ? "stdout and stderr" : stdout.truncated ? "stdout" : "stderr"
            } is shown; read ${log} for the whole output${
              logTruncated ? ` (kept up to ${formatBytes(settings.maxOutputBytes)} per stream)` : ""
            }.`
          : ""
      return {
        runId: result.runId,
        command,
        args,
        cwd: normalizeCwd(cwd),
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: result.durationMs,
        summary: `${commandLine(command, args)} ${ended}.${shown}`,
        stdout: stdout.text,
        stderr: stderr.text,
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        logTruncated,
        log
      }
    })

  return Tool.make("run", {
    title: "Run a command",
    description:
      "Runs one command from the server's allowlist (call exec_commands to see it) in the workspace and returns its " +
      "exit code, signal, duration, and the end of its stdout and stderr. The command is a program name and args a " +
      "list of arguments passed as they are: there is no shell, so no pipes, redirections, globbing, variables or " +
      '&&; run "npm test" as command "npm" with args ["test"]. cwd is a directory relative to the workspace root ' +
      `(default: the root). The run is killed, with every process it started, after timeoutMs (default ` +
      `${defaultTimeoutMs}, at most ${maxTimeoutMs}). A non-zero exit code is reported as a normal result: read ` +
      "stderr and stdout to see why. The result shows at most the last " +
      `${formatBytes(tailBytes)} of each stream; the whole output is the resource named in log (logs://run/<runId>), ` +
      "readable with resources/read. Output lines are sent as progress notifications while it runs.",
    input: Schema.Struct({
      command: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: 'The program, by its name as listed by exec_commands (e.g. "npm", "git"); not a shell string.'
      }),
      args: Schema.optionalKey(
        Schema.Array(Schema.String).annotate({
          description: 'The arguments, one string each (e.g. ["run", "build", "--", "--watch=false"]).'
        })
      ),
      cwd: Schema.optionalKey(
        Schema.String.annotate({ description: 'The working directory, relative to the workspace root (default ".").' })
      ),
      stdin: Schema.optionalKey(
        Schema.String.annotate({ description: "Text written to the command's standard input (default: empty)." })
      ),
      timeoutMs: Schema.optionalKey(
        Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
          description: `How long the command may run, in ms (default ${defaultTimeoutMs}; larger values are lowered to ${maxTimeoutMs}).`
        })
      )
    }),
    output: RunResult,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    // The run's own timeout (at most maxTimeoutMs) must fire before the server's per-call timeout, so the
    // agent gets the timed_out result naming the log; the margin covers the kill grace period.
    timeout: maxTimeoutMs + 30_000,
    task: "optional"
  }).pipe(
    Tool.handle(
      Effect.fnUntraced(function* ({ args = [], command, cwd, stdin, timeoutMs }) {
        yield* authorize(allowed, command, args)
        // Under 2026-07-28, with a client that declared tasks, the run is a task: the call is answered at once
        // and tasks/get follows it (tasks/cancel kills the command and every process it started).
        return yield* Task.background(runCommand({ args, command, cwd, stdin, timeoutMs }))
      })
    )
  )
}
