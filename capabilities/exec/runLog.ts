/**
 * The resource template `logs://run/{id}`: the stored output of one run of
 * `exec_run`, from the command runner's bounded store.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CommandRunner, type RunSummary, type StoredOutput } from "../../src/CommandRunner.ts"
import * as Resource from "../../src/Resource.ts"

/**
 * The URI of a run's log.
 *
 * **Example**
 *
 * ```ts
 * import { logUri } from "./capabilities/exec/runLog.ts"
 *
 * logUri("run-1") // => "logs://run/run-1"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const logUri = (runId: string): string => `logs://run/${encodeURIComponent(runId)}`

/** An argument as a reader would type it: quoted when it has spaces, quotes or nothing at all. */
const quote = (arg: string): string => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg))

/**
 * The command line of a run, its arguments quoted where needed.
 *
 * **Example**
 *
 * ```ts
 * import { commandLine } from "./capabilities/exec/runLog.ts"
 *
 * commandLine("git", ["commit", "-m", "a message"]) // => 'git commit -m "a message"'
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const commandLine = (command: string, args: ReadonlyArray<string>): string =>
  [command, ...args].map(quote).join(" ")

/**
 * How a stored run ended, in words.
 *
 * **Example**
 *
 * ```ts
 * import { describeOutcome } from "./capabilities/exec/runLog.ts"
 *
 * describeOutcome({ outcome: "exited", exitCode: 1, signal: null }) // => "exited with code 1"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const describeOutcome = (run: Pick<StoredOutput, "outcome" | "exitCode" | "signal">): string => {
  switch (run.outcome) {
    case "timedOut":
      return "timed out (killed with every process it started)"
    case "interrupted":
      return "interrupted (cancelled or the server stopped; killed with every process it started)"
    case "exited":
      return run.exitCode === null ? `ended by signal ${run.signal ?? "(unknown)"}` : `exited with code ${run.exitCode}`
  }
}

const byteLength = (text: string): number => new TextEncoder().encode(text).length

const section = (name: string, text: string, truncated: boolean): string =>
  `--- ${name}${truncated ? " (cut at the server's cap; the end is missing)" : ""} ---\n${
    text === "" || text.endsWith("\n") ? text : `${text}\n`
  }`

/**
 * A stored run as text: a header (run id, command line, working directory,
 * start time, duration, outcome, sizes), then stdout and stderr.
 *
 * **Example**
 *
 * ```ts
 * import { render } from "./capabilities/exec/runLog.ts"
 *
 * render({
 *   runId: "run-1", command: "echo", args: ["hi"], cwd: "/srv/p", exitCode: 0, signal: null, durationMs: 3,
 *   stdout: "hi\n", stderr: "", stdoutTruncated: false, stderrTruncated: false, outcome: "exited", startedAt: 0
 * }).startsWith("run: run-1\n$ echo hi\n") // => true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const render = (run: StoredOutput): string =>
  [
    `run: ${run.runId}`,
    `$ ${commandLine(run.command, run.args)}`,
    `cwd: ${run.cwd}`,
    `started: ${DateTime.formatIso(DateTime.makeUnsafe(run.startedAt))}`,
    `duration: ${Math.round(run.durationMs)} ms`,
    `outcome: ${describeOutcome(run)}`,
    `stdout: ${byteLength(run.stdout)} bytes${run.stdoutTruncated ? " (truncated)" : ""}, stderr: ${byteLength(
      run.stderr
    )} bytes${run.stderrTruncated ? " (truncated)" : ""}`,
    "",
    section("stdout", run.stdout, run.stdoutTruncated) + section("stderr", run.stderr, run.stderrTruncated)
  ].join("\n")

const pageSize = 50

/**
 * One page of the runs in the store (newest first) as `resources/list`
 * entries: 50 per page, the cursor being the id of the last run of the
 * previous page. The store evicts its oldest runs first, so when that run is
 * gone, so is every run after it: the page is empty.
 *
 * **Example**
 *
 * ```ts
 * import { listPage } from "./capabilities/exec/runLog.ts"
 *
 * listPage([], undefined) // => { resources: [] }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const listPage = (runs: ReadonlyArray<RunSummary>, cursor: string | undefined): Resource.Listing => {
  const start = cursor === undefined ? 0 : runs.findIndex((run) => run.runId === cursor) + 1
  if (cursor !== undefined && start === 0) return { resources: [] }
  const page = runs.slice(start, start + pageSize)
  const resources = page.map((run): Resource.Listed => ({
    uri: logUri(run.runId),
    name: run.runId,
    title: `$ ${commandLine(run.command, run.args)}`,
    description: `${describeOutcome(run)} after ${Math.round(run.durationMs)} ms; started ${DateTime.formatIso(
      DateTime.makeUnsafe(run.startedAt)
    )}`,
    mimeType: "text/plain"
  }))
  return start + pageSize < runs.length ? { resources, nextCursor: page[page.length - 1]!.runId } : { resources }
}

/**
 * The `run_log` resource template, published as `exec_run_log`:
 * `logs://run/{id}` reads the stored output of the run `id` (the `runId` of
 * an `exec_run` result) as `text/plain`. The store keeps the most recent
 * runs only; an unknown or evicted id is "resource not found" (−32002).
 * `resources/list` lists the runs in the store, newest first (see
 * {@link listPage}), and run ids complete from them.
 *
 * **Example**
 *
 * ```ts
 * import { runLog } from "./capabilities/exec/runLog.ts"
 *
 * runLog.resource.name // => "run_log"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const runLog = Resource.template("run_log", {
  uriTemplate: "logs://run/{id}",
  title: "Command run log",
  description:
    "The whole output of one exec_run call (the log field of its result): a header with the command line, working " +
    "directory, start time, duration and how it ended, then its stdout and stderr. Only recent runs are kept.",
  mimeType: "text/plain",
  params: Schema.Struct({ id: Schema.String.annotate({ description: "The runId of an exec_run result" }) })
}).pipe(
  Resource.handle(({ id }) =>
    Effect.flatMap(Effect.service(CommandRunner), (runner) =>
      Effect.flatMap(runner.output(id), (stored) =>
        stored === undefined
          ? Effect.fail(
              new Resource.NotFound({
                message:
                  `No run "${id}" in the store of recent runs: the id is wrong, or the run was evicted to make room ` +
                  "for newer ones (or the server restarted). Call exec_run again to get a fresh log."
              })
            )
          : Effect.succeed(render(stored))
      )
    )
  ),
  Resource.list((cursor) =>
    Effect.flatMap(Effect.service(CommandRunner), (runner) => Effect.map(runner.runs, (runs) => listPage(runs, cursor)))
  ),
  Resource.completions({
    id: (value) =>
      Effect.flatMap(Effect.service(CommandRunner), (runner) =>
        Effect.map(runner.runs, (runs) => runs.map((run) => run.runId).filter((id) => id.startsWith(value)))
      )
  })
)
