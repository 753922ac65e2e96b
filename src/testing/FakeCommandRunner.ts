/**
 * A scripted `CommandRunner` for tests: each request is answered by the
 * first script that matches it, every request is recorded, and the runs are
 * kept in an output store like the Node runner's (so `logs://run/<id>` reads
 * them). Output lines are streamed through the request's `onLine`, and a
 * script can take time on the `Clock` (so `TestClock` drives it, timeouts
 * included).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CommandRunner from "../CommandRunner.ts"

/**
 * One scripted answer.
 *
 * **Example**
 *
 * ```ts
 * import type { FakeCommandRunner } from "effect-mcp-runtime/testing"
 *
 * const npmTest: FakeCommandRunner.Script = {
 *   command: "npm",
 *   args: ["test"],
 *   lines: [["stdout", "1 passing"]],
 *   exitCode: 0,
 *   durationMs: 1500
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Script {
  /** The command's name, or a predicate on the whole request. */
  readonly command: string | ((request: CommandRunner.Request) => boolean)
  /** When given, the request's arguments must start with these. */
  readonly args?: ReadonlyArray<string> | undefined
  /** Lines emitted through `onLine`, in order (and captured as the run's output). */
  readonly lines?: ReadonlyArray<readonly [CommandRunner.OutputStream, string]> | undefined
  /** Shorthand: this text's lines are emitted on stdout after `lines` (a last line without a newline too). */
  readonly stdout?: string | undefined
  /** Shorthand: this text's lines are emitted on stderr after `lines` and `stdout`. */
  readonly stderr?: string | undefined
  /** The exit code (default 0); `null` with a `signal` for a run ended by a signal. */
  readonly exitCode?: number | null | undefined
  readonly signal?: string | null | undefined
  /** How long the run takes, on the `Clock` (default 0): the lines are spread over it. */
  readonly durationMs?: number | undefined
  /** Fails the run with this error instead (the request's cwd is not checked then). */
  readonly fail?: CommandRunner.RunError | undefined
}

const splitLines = (text: string | undefined): ReadonlyArray<string> => {
  if (text === undefined || text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** One stream's captured output: its head, up to the request's `maxOutputBytes` (as the Node runner keeps it). */
class Capture {
  private bytes: Uint8Array = new Uint8Array(0)
  truncated = false
  private readonly maxBytes: number
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }
  push(text: string): void {
    const chunk = encoder.encode(text)
    const room = this.maxBytes - this.bytes.length
    if (chunk.length > room) this.truncated = true
    const kept = chunk.subarray(0, Math.max(0, Math.min(room, chunk.length)))
    const next = new Uint8Array(this.bytes.length + kept.length)
    next.set(this.bytes)
    next.set(kept, this.bytes.length)
    this.bytes = next
  }
  text(): string {
    return decoder.decode(this.bytes)
  }
}

const matches = (script: Script, request: CommandRunner.Request): boolean => {
  const commandMatches =
    typeof script.command === "string" ? script.command === request.command : script.command(request)
  if (!commandMatches) return false
  const args = request.args ?? []
  return script.args === undefined || script.args.every((arg, i) => args[i] === arg)
}

/**
 * A fake runner: the `CommandRunner` service, a layer of it, and the
 * requests it got.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FakeCommandRunner } from "effect-mcp-runtime/testing"
 *
 * const fake: FakeCommandRunner.FakeCommandRunner = FakeCommandRunner.make([{ command: "git" }])
 * const commands = Effect.map(fake.calls, (calls) => calls.map((call) => call.command))
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FakeCommandRunner {
  readonly runner: CommandRunner.CommandRunner["Service"]
  readonly layer: Layer.Layer<CommandRunner.CommandRunner>
  /** Every request, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<CommandRunner.Request>>
}

/**
 * Builds a fake runner answering with the first matching script; a request
 * no script matches fails with `CommandNotFound`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { FakeCommandRunner, TestClient } from "effect-mcp-runtime/testing"
 * import { ExecCapability } from "effect-mcp-runtime/capabilities/exec"
 *
 * const fake = FakeCommandRunner.make([{ command: "git", args: ["status"], lines: [["stdout", "clean"]] }])
 * const test = Effect.gen(function* () {
 *   const client = yield* TestClient.make(ExecCapability.pipe(Layer.provide(fake.layer)))
 *   // … call exec_run …
 *   const calls = yield* fake.calls
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (scripts: ReadonlyArray<Script>): FakeCommandRunner => {
  const calls: Array<CommandRunner.Request> = []
  const store: Array<CommandRunner.StoredOutput> = []
  let counter = 0
  const run = (request: CommandRunner.Request): Effect.Effect<CommandRunner.Result, CommandRunner.RunError> =>
    Effect.gen(function* () {
      calls.push(request)
      const script = scripts.find((candidate) => matches(candidate, request))
      if (script === undefined) {
        return yield* new CommandRunner.CommandNotFound({
          command: request.command,
          message: `The command "${request.command}" was not found on the PATH (no script of the fake runner matches it)`
        })
      }
      if (script.fail !== undefined) return yield* Effect.fail(script.fail)
      const runId = `run-fake-${++counter}`
      const startedAt = yield* Clock.currentTimeMillis
      const duration = script.durationMs ?? 0
      const lines = [
        ...(script.lines ?? []),
        ...splitLines(script.stdout).map((line) => ["stdout", line] as const),
        ...splitLines(script.stderr).map((line) => ["stderr", line] as const)
      ]
      const maxBytes = request.maxOutputBytes ?? CommandRunner.defaultMaxOutputBytes
      const timeoutMs =
        request.timeout === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(request.timeout))
      const output = { stdout: new Capture(maxBytes), stderr: new Capture(maxBytes) }
      const snapshot = (
        exitCode: number | null,
        signal: string | null,
        outcome: CommandRunner.StoredOutput["outcome"],
        durationMs: number
      ): CommandRunner.StoredOutput => ({
        runId,
        command: request.command,
        args: request.args ?? [],
        cwd: request.cwd ?? ".",
        exitCode,
        signal,
        durationMs,
        stdout: output.stdout.text(),
        stderr: output.stderr.text(),
        stdoutTruncated: output.stdout.truncated,
        stderrTruncated: output.stderr.truncated,
        outcome,
        startedAt
      })
      // The lines, spread evenly over the run's duration.
      const emit = Effect.gen(function* () {
        for (let i = 0; i < lines.length; i++) {
          if (duration > 0) yield* Effect.sleep(Duration.millis(duration / (lines.length + 1)))
          const [stream, line] = lines[i]!
          output[stream].push(`${line}\n`)
          if (request.onLine !== undefined) yield* request.onLine(stream, line)
        }
        const rest = duration - (duration / (lines.length + 1)) * lines.length
        if (rest > 0) yield* Effect.sleep(Duration.millis(rest))
      })
      const ended = yield* (timeoutMs === undefined ? Effect.asSome(emit) : Effect.timeoutOption(emit, timeoutMs)).pipe(
        Effect.onInterrupt(() => Effect.sync(() => store.unshift(snapshot(null, "SIGTERM", "interrupted", duration))))
      )
      if (Option.isNone(ended)) {
        store.unshift(snapshot(null, "SIGTERM", "timedOut", timeoutMs!))
        return yield* new CommandRunner.TimedOut({
          command: request.command,
          runId,
          timeoutMs: timeoutMs!,
          message: `The command "${request.command}" did not finish within ${timeoutMs} ms and was killed with its process tree`
        })
      }
      const result = snapshot(
        script.exitCode === undefined ? 0 : script.exitCode,
        script.signal ?? null,
        "exited",
        duration
      )
      store.unshift(result)
      const { outcome: _outcome, startedAt: _startedAt, ...plain } = result
      return plain
    })
  const runner = CommandRunner.CommandRunner.of({
    run,
    output: (runId) => Effect.sync(() => store.find((stored) => stored.runId === runId)),
    runs: Effect.sync(() =>
      store.map(({ stderr, stdout, ...summary }) => ({
        ...summary,
        stdoutBytes: encoder.encode(stdout).length,
        stderrBytes: encoder.encode(stderr).length
      }))
    )
  })
  return { runner, layer: Layer.succeed(CommandRunner.CommandRunner, runner), calls: Effect.sync(() => [...calls]) }
}
