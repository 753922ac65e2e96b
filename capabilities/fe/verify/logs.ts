/**
 * The whole output of `fe_verify`'s steps, kept per server so the agent can
 * read it as the resource `fe://build/<id>` (see `buildLog.ts`) whether or
 * not the `exec` capability is enabled: each step that ran a command gets a
 * log — a header (the step, the verify run, the tool, the outcome), then
 * per command its line, how it ended, its stdout and stderr (and Vitest's
 * JSON report, which it writes to a file).
 *
 * Retention is bounded: the logs of the last {@link maxRuns} verify runs, at
 * most {@link maxStoreChars} characters in all (the oldest runs go first),
 * each log cut to {@link maxLogChars} characters (its beginning and its
 * end kept).
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * How many verify runs' logs are kept (each run has up to three, one per
 * step).
 *
 * @category constants
 * @since 0.5.0
 */
export const maxRuns = 20

/**
 * The longest log kept, in characters (2^20, 1 MiB of ASCII text): a longer
 * one keeps its first quarter and its last three quarters, with a line
 * saying how much was left out between them.
 *
 * @category constants
 * @since 0.5.0
 */
export const maxLogChars = 1024 * 1024

/**
 * The most characters of logs kept in all (8 × 2^20): past it, the oldest
 * runs' logs are dropped first.
 *
 * @category constants
 * @since 0.5.0
 */
export const maxStoreChars = 8 * 1024 * 1024

/**
 * The URI of a step's log.
 *
 * **Example**
 *
 * ```ts
 * import { buildLogUri } from "./capabilities/fe/verify/logs.ts"
 *
 * buildLogUri("3f2a9c1d-typecheck") // => "fe://build/3f2a9c1d-typecheck"
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const buildLogUri = (id: string): string => `fe://build/${encodeURIComponent(id)}`

/**
 * The id of a step's log: the verify run's id and the step.
 *
 * **Example**
 *
 * ```ts
 * import { buildLogId } from "./capabilities/fe/verify/logs.ts"
 *
 * buildLogId("3f2a9c1d", "lint") // => "3f2a9c1d-lint"
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const buildLogId = (run: string, step: string): string => `${run}-${step}`

/**
 * One command a step ran, as its log shows it.
 *
 * @category models
 * @since 0.5.0
 */
export interface CommandLog {
  /** The command line as run. */
  readonly command: string
  /** How it ended, in words: "exited with code 2", "timed out …", "could not run: …". */
  readonly outcome: string
  readonly durationMs: number
  readonly stdout: string
  readonly stderr: string
  readonly stdoutTruncated: boolean
  readonly stderrTruncated: boolean
  /** A report the tool wrote to a file (Vitest's JSON), when there is one. */
  readonly report?: string | undefined
}

/**
 * One step's log, as stored.
 *
 * @category models
 * @since 0.5.0
 */
export interface BuildLog {
  /** `<run>-<step>` (see {@link buildLogId}). */
  readonly id: string
  /** The verify run's id, shared by its steps' logs. */
  readonly run: string
  readonly step: string
  /** When the verify run started (ms since the epoch, by the server's clock). */
  readonly startedAt: number
  /** One line: the step, its status and its tool. */
  readonly title: string
  /** The step's outcome in words (its `detail`). */
  readonly description: string
  /** The log's text (at most {@link maxLogChars} characters). */
  readonly text: string
}

const section = (name: string, text: string, truncated: boolean): string =>
  `--- ${name}${truncated ? " (cut at fe.maxOutputBytes; the end is missing)" : ""} ---\n${
    text === "" || text.endsWith("\n") ? text : `${text}\n`
  }`

/** A text of at most {@link maxLogChars} characters: its first quarter and its last three quarters. */
const bounded = (text: string, max: number): string => {
  if (text.length <= max) return text
  const head = Math.floor(max / 4)
  const tail = max - head - 100
  return (
    `${text.slice(0, head)}\n[… ${text.length - head - tail} characters left out: the log keeps ${max} …]\n` +
    text.slice(text.length - tail)
  )
}

/**
 * A step's log as text: a header (step, verify run, start time, tool,
 * status, the step's outcome), then each command: its line, how it ended,
 * its duration, stdout and stderr, and the report it wrote; at most
 * {@link maxLogChars} characters (or `options.max`).
 *
 * **Example**
 *
 * ```ts
 * import { renderStepLog } from "./capabilities/fe/verify/logs.ts"
 *
 * renderStepLog({
 *   run: "3f2a9c1d",
 *   step: "typecheck",
 *   startedAt: 0,
 *   tool: "tsc 5.9.3",
 *   status: "failed",
 *   detail: "1 error, 0 warnings (1.2 s).",
 *   commands: [{
 *     command: "node_modules/typescript/bin/tsc --noEmit --pretty false -p tsconfig.json",
 *     outcome: "exited with code 2", durationMs: 1200,
 *     stdout: "src/a.ts(1,7): error TS2322: Type 'number' is not assignable to type 'string'.\n", stderr: "",
 *     stdoutTruncated: false, stderrTruncated: false
 *   }]
 * }).startsWith("fe_verify typecheck (run 3f2a9c1d") // => true
 * ```
 *
 * @category rendering
 * @since 0.5.0
 */
export const renderStepLog = (
  log: {
    readonly run: string
    readonly step: string
    readonly startedAt: number
    readonly tool: string
    readonly status: string
    readonly detail: string
    readonly commands: ReadonlyArray<CommandLog>
  },
  options?: { readonly max?: number | undefined }
): string => {
  const header = [
    `fe_verify ${log.step} (run ${log.run}, started ${DateTime.formatIso(DateTime.makeUnsafe(log.startedAt))})`,
    `tool: ${log.tool}`,
    `status: ${log.status} — ${log.detail}`
  ].join("\n")
  const commands = log.commands.map((command) =>
    [
      `$ ${command.command}`,
      `${command.outcome} after ${Math.round(command.durationMs)} ms`,
      section("stdout", command.stdout, command.stdoutTruncated) +
        section("stderr", command.stderr, command.stderrTruncated) +
        (command.report === undefined
          ? ""
          : section("report (the JSON the tool wrote to a file)", command.report, false))
    ].join("\n")
  )
  return bounded([header, ...commands].join("\n\n"), options?.max ?? maxLogChars)
}

/**
 * The store's operations (synchronous; callers wrap them in `Effect.sync`).
 *
 * @category models
 * @since 0.5.0
 */
export interface BuildLogStore {
  /** Keeps one verify run's logs (then drops the oldest runs past the bounds). */
  readonly add: (logs: ReadonlyArray<BuildLog>) => void
  /** A kept log by id, or `undefined` for an unknown or dropped one. */
  readonly get: (id: string) => BuildLog | undefined
  /** The kept logs, newest run first (a run's steps in their order). */
  readonly list: () => ReadonlyArray<BuildLog>
}

/**
 * A new, empty store bounded to `maxRuns` runs and `maxChars` characters.
 *
 * **Example**
 *
 * ```ts
 * import { make } from "./capabilities/fe/verify/logs.ts"
 *
 * const store = make({ maxRuns: 2 })
 * const log = (run: string) => ({ id: `${run}-lint`, run, step: "lint", startedAt: 0, title: "lint", description: "", text: "…" })
 * store.add([log("a")])
 * store.add([log("b")])
 * store.add([log("c")])
 * store.get("a-lint") // => undefined (the oldest run was dropped)
 * store.list().map((l) => l.run) // => ["c", "b"]
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (options?: {
  readonly maxRuns?: number | undefined
  readonly maxChars?: number | undefined
}): BuildLogStore => {
  const runLimit = options?.maxRuns ?? maxRuns
  const charLimit = options?.maxChars ?? maxStoreChars
  // Runs oldest first (a Map keeps insertion order), each with its logs.
  const runs = new Map<string, ReadonlyArray<BuildLog>>()
  const byId = new Map<string, BuildLog>()
  let chars = 0

  /** Drops the oldest runs while more than one is kept and the bounds are passed. */
  const evict = () => {
    for (const [run, logs] of runs) {
      if (runs.size <= 1 || (runs.size <= runLimit && chars <= charLimit)) return
      runs.delete(run)
      for (const log of logs) {
        byId.delete(log.id)
        chars -= log.text.length
      }
    }
  }

  return {
    add: (logs) => {
      if (logs.length === 0) return
      const run = logs[0]!.run
      runs.set(run, logs)
      for (const log of logs) {
        byId.set(log.id, log)
        chars += log.text.length
      }
      // The run just added stays, even alone over the bound (each of its logs is at most maxLogChars).
      evict()
    },
    get: (id) => byId.get(id),
    list: () => [...runs.values()].reverse().flat()
  }
}

/**
 * The store of one server: `FeBuildLogs.layer` gives each build of the fe
 * capability its own (`fe_verify` and `fe_batch` write to it, the
 * `fe://build/{id}` template reads it).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FeBuildLogs } from "./capabilities/fe/verify/logs.ts"
 *
 * const kept = Effect.map(Effect.service(FeBuildLogs), (logs) => logs.list().length)
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export class FeBuildLogs extends Context.Service<FeBuildLogs, BuildLogStore>()(
  "effect-mcp-runtime/capabilities/fe/FeBuildLogs"
) {
  /**
   * An empty store with the default bounds.
   *
   * @since 0.5.0
   */
  static readonly layer: Layer.Layer<FeBuildLogs> = Layer.effect(
    FeBuildLogs,
    Effect.sync(() => make())
  )
}
