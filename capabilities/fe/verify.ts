/**
 * `fe_verify`: runs the project's typecheck, linter and tests with the
 * project's own tools and returns every problem in one structured shape.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import * as NodeFsPromises from "node:fs/promises"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CommandRunner, type Result as RunResult, type RunError } from "../../src/CommandRunner.ts"
import { Progress } from "../../src/Progress.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { parseJsonc } from "./jsonc.ts"
import { Problem, type ProblemInput } from "./problem.ts"
import { installCommand, type ProjectInfo } from "./project.ts"
import type { FeSettingsShape } from "./settings.ts"
import { FeState } from "./state.ts"
import { type Binary, findBinary } from "./verify/binaries.ts"
import { buildLogId, buildLogUri, type CommandLog, FeBuildLogs, maxRuns, renderStepLog } from "./verify/logs.ts"
import { parseBiomeJson, parseEslintJson, parseTestJson, parseTsc, type TestCounts } from "./verify/parse.ts"

/**
 * The steps `fe_verify` can run, in the order it runs them.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Step = Schema.Literals(["typecheck", "lint", "test"])

/**
 * @category models
 * @since 0.1.0
 */
export type Step = typeof Step.Type

/**
 * One step's outcome.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StepResult = Schema.Struct({
  step: Step,
  tool: Schema.String.annotate({ description: 'The tool and its version, e.g. "tsc 5.9.3", or "none".' }),
  status: Schema.Literals(["passed", "failed", "skipped", "error", "timed_out"]).annotate({
    description:
      "passed: no errors (warnings may remain); failed: errors found; skipped: nothing to run (see detail); error: the tool could not run or its report could not be read (see detail); timed_out: killed after the step's timeout."
  }),
  command: Schema.String.annotate({ description: "The command line run (empty when skipped)." }),
  durationMs: Schema.Finite,
  errors: Schema.Int,
  warnings: Schema.Int,
  tests: Schema.optionalKey(
    Schema.Struct({ total: Schema.Int, passed: Schema.Int, failed: Schema.Int, skipped: Schema.Int })
  ),
  detail: Schema.String.annotate({ description: "The outcome in words; for skipped and error, why and what to do." }),
  runIds: Schema.Array(Schema.String).annotate({
    description: "The command runs of this step (with the exec capability enabled: logs://run/<runId>)."
  }),
  log: Schema.optionalKey(
    Schema.String.annotate({
      description: `The URI of the step's whole output (fe://build/<id>; read it with resources/read), for the steps that ran a command; the last ${maxRuns} runs' logs are kept.`
    })
  )
})

/**
 * @category models
 * @since 0.1.0
 */
export type StepResult = typeof StepResult.Type

/**
 * The `fe_verify` result's Schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const VerifyResult = Schema.Struct({
  ok: Schema.Boolean.annotate({ description: "True when every step that ran passed (no errors)." }),
  project: Schema.Struct({
    framework: Schema.String,
    packageManager: Schema.String,
    tsconfig: Schema.NullOr(Schema.String),
    linter: Schema.String,
    testRunner: Schema.String
  }),
  steps: Schema.Array(StepResult),
  problems: Schema.Array(Problem).annotate({
    description: "Errors first, then warnings, at most maxProblems of them; each names fe_doctor for a diagnosis."
  }),
  problemsTotal: Schema.Int.annotate({ description: "How many problems the steps found in all." }),
  summary: Schema.String,
  next: Schema.String.annotate({ description: "What to call next." })
})

/**
 * @category models
 * @since 0.1.0
 */
export type VerifyResult = typeof VerifyResult.Type

const env = { NO_COLOR: "1", FORCE_COLOR: "0", CI: "true" }

const formatDuration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

const suggestionFor = (problem: ProblemInput): string =>
  problem.kind === "test"
    ? `Call fe_doctor with this problem for why "${problem.test?.name ?? "the test"}" fails and what to change (or fe_doctor with no arguments for every problem of this run).`
    : `Call fe_doctor with this problem for the cause of ${problem.code}${
        problem.file === "" ? "" : ` at ${problem.file}:${problem.line}`
      } and a concrete fix (or fe_doctor with no arguments for every problem of this run).`

interface StepOutcome {
  readonly result: StepResult
  readonly problems: ReadonlyArray<ProblemInput>
}

interface StepContext {
  readonly project: ProjectInfo
  readonly files: ReadonlyArray<string>
  readonly timeoutMs: number
  readonly roots: ReadonlyArray<string>
  /** The commands each step ran, for its log (see `verify/logs.ts`). */
  readonly commands: Map<Step, Array<CommandLog>>
  /** The URI of a step's log in this run. */
  readonly logUri: (step: Step) => string
}

const skipped = (step: Step, detail: string): StepOutcome => ({
  result: {
    step,
    tool: "none",
    status: "skipped",
    command: "",
    durationMs: 0,
    errors: 0,
    warnings: 0,
    detail,
    runIds: []
  },
  problems: []
})

const installHint = (project: ProjectInfo): string =>
  project.packageManager === "npm" ? "npm install" : `${project.packageManager} install`

const notInstalled = (step: Step, project: ProjectInfo, packageName: string): StepOutcome => ({
  result: {
    step,
    tool: packageName,
    status: "error",
    command: "",
    durationMs: 0,
    errors: 0,
    warnings: 0,
    detail:
      `${packageName} is not installed in the workspace's node_modules, and fe_verify runs only the project's own ` +
      `tools from there. Install the dependencies (exec_run with "${installHint(project)}"), or add it ` +
      `(${installCommand(project.packageManager, packageName, true)}), then call fe_verify again. (A tool hoisted to ` +
      `a node_modules above the workspace root, or installed by Yarn Plug'n'Play, is not used: fe_verify reads nothing ` +
      `outside the root; serve the repository's root instead.)`,
    runIds: []
  },
  problems: []
})

const counted = (problems: ReadonlyArray<ProblemInput>) => ({
  errors: problems.filter((p) => p.severity === "error").length,
  warnings: problems.filter((p) => p.severity === "warning").length
})

// A file passed to a tool as "./path", so a file named like an option ("--config=x") stays a file.
const asArgument = (file: string): string => `./${file}`

// The report file of a Vitest run (outside the root, named by the server): its text, or undefined when the run
// wrote none (it crashed before reporting).
const readReport = (file: string): Effect.Effect<string | undefined> =>
  Effect.tryPromise(() => NodeFsPromises.readFile(file, "utf8")).pipe(Effect.orElseSucceed(() => undefined))

const removeReport = (file: string): Effect.Effect<void> =>
  Effect.tryPromise(() => NodeFsPromises.rm(file, { force: true })).pipe(Effect.ignore)

const tail = (text: string, max = 1500): string => {
  const trimmed = text.trim()
  return trimmed.length <= max ? trimmed : `…${trimmed.slice(trimmed.length - max)}`
}

/** The tsconfig files to check: the tsconfig itself, or its references when it is a solution file (`files: []`). */
const typecheckProjects = (tsconfig: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const read = yield* workspace.read(tsconfig).pipe(Effect.option)
    if (read._tag === "None") return [tsconfig]
    const parsed = parseJsonc(read.value.content)
    if (typeof parsed !== "object" || parsed === null) return [tsconfig]
    const config = parsed as { files?: unknown; include?: unknown; references?: unknown }
    const solution = Array.isArray(config.files) && config.files.length === 0 && config.include === undefined
    if (!solution || !Array.isArray(config.references)) return [tsconfig]
    const dir = tsconfig.includes("/") ? tsconfig.slice(0, tsconfig.lastIndexOf("/") + 1) : ""
    const projects: Array<string> = []
    for (const reference of config.references) {
      const path = (reference as { path?: unknown } | null)?.path
      if (typeof path !== "string") continue
      const joined = `${dir}${path.replace(/^\.\//, "")}`
      const stat = yield* workspace.stat(joined).pipe(Effect.option)
      if (stat._tag === "None") continue
      projects.push(stat.value.type === "directory" ? `${joined.replace(/\/$/, "")}/tsconfig.json` : joined)
    }
    return projects.length === 0 ? [tsconfig] : projects
  })

/**
 * What a verification is asked: the `fe_verify` tool's arguments.
 *
 * @category models
 * @since 0.4.0
 */
export interface VerifyInput {
  readonly steps?: ReadonlyArray<Step> | undefined
  readonly files?: ReadonlyArray<string> | undefined
  readonly timeoutMs?: number | undefined
  readonly maxProblems?: number | undefined
}

/**
 * Runs a verification as `fe_verify` does, for other fe tools (`fe_batch`
 * checks a change with it, in process): the arguments are checked first
 * (`ToolError` for a file that does not exist), then the steps run one after
 * the other and the session's last problems are set (what `fe_doctor`
 * diagnoses; with `record: false` they are only remembered by diagnosis id).
 * With `task: true` the steps run as the call's task when the client asked
 * for one (2026-07-28).
 *
 * **Example**
 *
 * ```ts
 * import { makeVerifyRun } from "./capabilities/fe/verify.ts"
 * import { defaultFeSettings } from "./capabilities/fe/settings.ts"
 *
 * const verify = makeVerifyRun(defaultFeSettings)
 * const typecheck = verify({ steps: ["typecheck"], files: ["src/a.ts"] })
 * // Effect<VerifyResult, ToolError, CommandRunner | Progress | Workspace | FeState | FeBuildLogs>
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const makeVerifyRun = (
  settings: FeSettingsShape
): ((
  input: VerifyInput,
  options?: { readonly task?: boolean; readonly record?: boolean }
) => Effect.Effect<VerifyResult, Tool.ToolError, CommandRunner | Progress | Workspace | FeState | FeBuildLogs>) => {
  const defaultTimeoutMs = Math.min(settings.defaultStepTimeoutMs, settings.maxStepTimeoutMs)

  const run = (
    step: Step,
    binary: Binary,
    args: ReadonlyArray<string>,
    ctx: StepContext
  ): Effect.Effect<
    { readonly run: RunResult | undefined; readonly error: RunError | undefined; readonly command: string },
    never,
    CommandRunner
  > =>
    Effect.gen(function* () {
      const runner = yield* CommandRunner
      const bin = binary.entry.slice(binary.entry.lastIndexOf("node_modules/"))
      const command = [bin, ...args].join(" ")
      const logged = ctx.commands.get(step) ?? []
      ctx.commands.set(step, logged)
      return yield* runner
        .run({
          command: settings.node,
          args: [binary.entry, ...args],
          env,
          timeout: ctx.timeoutMs,
          maxOutputBytes: settings.maxOutputBytes
        })
        .pipe(
          Effect.map((result) => {
            logged.push({
              command,
              outcome:
                result.exitCode === null ? `ended by signal ${result.signal}` : `exited with code ${result.exitCode}`,
              durationMs: result.durationMs,
              stdout: result.stdout,
              stderr: result.stderr,
              stdoutTruncated: result.stdoutTruncated,
              stderrTruncated: result.stderrTruncated
            })
            return { run: result, error: undefined, command }
          }),
          Effect.catch((error) =>
            Effect.gen(function* () {
              // A step killed at its timeout: what it printed until then is in the runner's store.
              const partial = error._tag === "TimedOut" ? yield* runner.output(error.runId) : undefined
              logged.push({
                command,
                outcome:
                  error._tag === "TimedOut"
                    ? `timed out after ${ctx.timeoutMs} ms (killed with every process it started)`
                    : `could not run: ${error.message}`,
                durationMs: partial?.durationMs ?? 0,
                stdout: partial?.stdout ?? "",
                stderr: partial?.stderr ?? "",
                stdoutTruncated: partial?.stdoutTruncated ?? false,
                stderrTruncated: partial?.stderrTruncated ?? false
              })
              return { run: undefined, error, command }
            })
          ),
          Effect.withSpan(`fe.verify.${step}`)
        )
    })

  const failedToRun = (
    step: Step,
    tool: string,
    command: string,
    error: RunError,
    runIds: ReadonlyArray<string>,
    timeoutMs: number
  ): StepOutcome => ({
    result: {
      step,
      tool,
      status: error._tag === "TimedOut" ? "timed_out" : "error",
      command,
      durationMs: error._tag === "TimedOut" ? timeoutMs : 0,
      errors: 0,
      warnings: 0,
      detail:
        error._tag === "TimedOut"
          ? `The ${step} did not finish within ${formatDuration(timeoutMs)} and was killed with every process it started. Call fe_verify again with a larger timeoutMs (at most ${settings.maxStepTimeoutMs}), or with files to check fewer.`
          : `The ${step} could not run: ${error.message}`,
      runIds
    },
    problems: []
  })

  const unreadable = (
    ctx: StepContext,
    step: Step,
    tool: string,
    command: string,
    result: RunResult,
    what: string
  ): StepOutcome => ({
    result: {
      step,
      tool,
      status: "error",
      command,
      durationMs: Math.round(result.durationMs),
      errors: 0,
      warnings: 0,
      detail:
        `${tool} exited with code ${result.exitCode ?? result.signal} without ${what}` +
        (result.stdoutTruncated ? " (its output was larger than the server keeps)" : "") +
        `. What it printed: ${tail(result.stderr || result.stdout) || "(nothing)"}` +
        ` — fix the cause (often the tool's configuration); read ${ctx.logUri(step)} (resources/read) for the whole output.`,
      runIds: [result.runId]
    },
    problems: []
  })

  const finished = (
    step: Step,
    tool: string,
    command: string,
    durationMs: number,
    problems: ReadonlyArray<ProblemInput>,
    runIds: ReadonlyArray<string>,
    tests?: TestCounts
  ): StepOutcome => {
    const { errors, warnings } = counted(problems)
    const failed = errors > 0 || (tests !== undefined && tests.failed > 0)
    const detail =
      tests !== undefined
        ? `${plural(tests.total, "test")}: ${tests.passed} passed, ${tests.failed} failed, ${tests.skipped} skipped` +
          (errors > tests.failed ? `; ${plural(errors - tests.failed, "test file")} failed to run` : "") +
          ` (${formatDuration(durationMs)}).`
        : `${plural(errors, "error")}, ${plural(warnings, "warning")} (${formatDuration(durationMs)}).`
    return {
      result: {
        step,
        tool,
        status: failed ? "failed" : "passed",
        command,
        durationMs,
        errors,
        warnings,
        ...(tests !== undefined ? { tests } : {}),
        detail,
        runIds
      },
      problems
    }
  }

  const typecheck = (ctx: StepContext) =>
    Effect.gen(function* () {
      if (ctx.project.tsconfig === null) {
        return skipped("typecheck", "No tsconfig.json (or jsconfig.json) at the root, so there is no typecheck to run.")
      }
      if (ctx.project.tsconfig === "jsconfig.json" && !ctx.project.dependencies.includes("typescript")) {
        return skipped(
          "typecheck",
          "The project is JavaScript (a jsconfig.json for the editor, no typescript dependency): nothing to typecheck."
        )
      }
      const binary = yield* findBinary("typescript", "tsc")
      if (binary === undefined) return notInstalled("typecheck", ctx.project, "typescript")
      const tool = `tsc ${binary.version}`
      const projects = yield* typecheckProjects(ctx.project.tsconfig)
      const problems: Array<ProblemInput> = []
      const commands: Array<string> = []
      const runIds: Array<string> = []
      let durationMs = 0
      let cut = false
      for (const project of projects) {
        const {
          command,
          error,
          run: result
        } = yield* run("typecheck", binary, ["--noEmit", "--pretty", "false", "-p", project], ctx)
        commands.push(command)
        if (result === undefined)
          return failedToRun("typecheck", tool, commands.join(" && "), error!, runIds, ctx.timeoutMs)
        runIds.push(result.runId)
        durationMs += Math.round(result.durationMs)
        const found = parseTsc(result.stdout, ctx.roots)
        if (result.exitCode !== 0 && found.length === 0) {
          return unreadable(ctx, "typecheck", tool, commands.join(" && "), result, "reporting any diagnostic")
        }
        problems.push(...found)
        if (result.stdoutTruncated) cut = true
      }
      // Errors about the configuration (no file) always show; a directory in files matches what is under it.
      const shown =
        ctx.files.length === 0
          ? problems
          : problems.filter((p) => p.file === "" || ctx.files.some((f) => p.file === f || p.file.startsWith(`${f}/`)))
      const outcome = finished("typecheck", tool, commands.join(" && "), durationMs, shown, runIds)
      return cut
        ? {
            ...outcome,
            result: {
              ...outcome.result,
              detail: `${outcome.result.detail} tsc printed more than the server keeps (fe.maxOutputBytes): there are more errors than these.`
            }
          }
        : outcome
    })

  const lint = (ctx: StepContext) =>
    Effect.gen(function* () {
      const targets = ctx.files.length === 0 ? ["."] : ctx.files.map(asArgument)
      if (ctx.project.linter === "none") {
        return skipped("lint", "No linter configured (no ESLint or Biome configuration or dependency).")
      }
      if (ctx.project.linter === "eslint") {
        const binary = yield* findBinary("eslint", "eslint")
        if (binary === undefined) return notInstalled("lint", ctx.project, "eslint")
        const tool = `eslint ${binary.version}`
        const { command, error, run: result } = yield* run("lint", binary, ["--format", "json", ...targets], ctx)
        if (result === undefined) return failedToRun("lint", tool, command, error!, [], ctx.timeoutMs)
        const problems = parseEslintJson(result.stdout, ctx.roots)
        if (problems === undefined || (result.exitCode !== 0 && result.exitCode !== 1)) {
          return unreadable(ctx, "lint", tool, command, result, "a JSON report")
        }
        return finished("lint", tool, command, Math.round(result.durationMs), problems, [result.runId])
      }
      const binary = yield* findBinary("@biomejs/biome", "biome")
      if (binary === undefined) return notInstalled("lint", ctx.project, "@biomejs/biome")
      const tool = `biome ${binary.version}`
      const {
        command,
        error,
        run: result
      } = yield* run("lint", binary, ["lint", "--reporter=json", "--colors=off", ...targets], ctx)
      if (result === undefined) return failedToRun("lint", tool, command, error!, [], ctx.timeoutMs)
      const workspace = yield* Workspace
      const sources = new Map<string, string | undefined>()
      const report = parseBiomeJson(result.stdout, ctx.roots, (file) => sources.get(file))
      if (report === undefined) return unreadable(ctx, "lint", tool, command, result, "a JSON report")
      // Biome 1 gives byte spans: read each such file once to turn them into lines and columns (Biome 2 gives lines).
      for (const file of new Set(report.filter((p) => p.line === 0 && p.file !== "").map((p) => p.file))) {
        const read = yield* workspace.read(file).pipe(Effect.option)
        sources.set(file, read._tag === "Some" ? read.value.content : undefined)
      }
      const problems = parseBiomeJson(result.stdout, ctx.roots, (file) => sources.get(file)) ?? report
      return finished("lint", tool, command, Math.round(result.durationMs), problems, [result.runId])
    })

  const test = (ctx: StepContext) =>
    Effect.gen(function* () {
      const runner = ctx.project.testRunner
      if (runner === "none") return skipped("test", "No test runner configured (no Vitest or Jest dependency).")
      if (runner === "playwright") {
        return skipped(
          "test",
          "The project's tests are Playwright tests, which need browsers; fe_verify runs Vitest and Jest. Run them with exec_run (npx playwright test --reporter=line)."
        )
      }
      const binary = yield* findBinary(runner, runner)
      if (binary === undefined) return notInstalled("test", ctx.project, runner)
      const tool = `${runner} ${binary.version}`
      const files = ctx.files.map(asArgument)
      if (runner === "jest") {
        const args = [
          "--json",
          "--ci",
          "--passWithNoTests",
          ...(files.length === 0 ? [] : ["--runTestsByPath", ...files])
        ]
        const { command, error, run: result } = yield* run("test", binary, args, ctx)
        if (result === undefined) return failedToRun("test", tool, command, error!, [], ctx.timeoutMs)
        return testOutcome(tool, command, result, result.stdout, "jest", ctx)
      }
      // Vitest 5 writes its JSON report to a file (by default inside the project): name one outside the root, read
      // it, remove it. Older Vitest versions honour the same option.
      const reportFile = NodePath.join(NodeOs.tmpdir(), `mcp-runtime-vitest-${randomUUID()}.json`)
      const shown = ["run", "--reporter=json", "--passWithNoTests", ...files]
      const args = ["run", "--reporter=json", `--outputFile.json=${reportFile}`, "--passWithNoTests", ...files]
      return yield* Effect.gen(function* () {
        const { error, run: result } = yield* run("test", binary, args, ctx)
        const command = [binary.entry.slice(binary.entry.lastIndexOf("node_modules/")), ...shown].join(" ")
        if (result === undefined) return failedToRun("test", tool, command, error!, [], ctx.timeoutMs)
        const report = yield* readReport(reportFile)
        // The report is part of the step's output: its log shows it after the command's streams.
        const logged = ctx.commands.get("test")
        if (report !== undefined && logged !== undefined && logged.length > 0) {
          logged[logged.length - 1] = { ...logged[logged.length - 1]!, report }
        }
        return testOutcome(tool, command, result, report ?? result.stdout, "vitest", ctx)
      }).pipe(Effect.ensuring(removeReport(reportFile)))
    })

  const testOutcome = (
    tool: string,
    command: string,
    result: RunResult,
    reportText: string,
    runner: "vitest" | "jest",
    ctx: StepContext
  ): StepOutcome => {
    const report = parseTestJson(reportText, ctx.roots, runner)
    if (report === undefined) return unreadable(ctx, "test", tool, command, result, "a JSON test report")
    if (result.exitCode !== 0 && report.problems.length === 0) {
      return unreadable(ctx, "test", tool, command, result, "reporting which test failed")
    }
    if (ctx.files.length > 0 && report.counts.total === 0 && report.problems.length === 0) {
      return {
        result: {
          ...skipped("test", "").result,
          tool,
          command,
          durationMs: Math.round(result.durationMs),
          detail: `No test file matched ${ctx.files.join(", ")}: no test ran. Pass test files (or none, for every test).`,
          runIds: [result.runId]
        },
        problems: []
      }
    }
    return finished(
      "test",
      tool,
      command,
      Math.round(result.durationMs),
      report.problems,
      [result.runId],
      report.counts
    )
  }
  const steps: Record<Step, (ctx: StepContext) => Effect.Effect<StepOutcome, never, CommandRunner | Workspace>> = {
    typecheck,
    lint,
    test
  }

  return Effect.fnUntraced(function* (
    { files = [], maxProblems = 50, steps: chosen, timeoutMs }: VerifyInput,
    options: { readonly task?: boolean; readonly record?: boolean } = {}
  ) {
    const state = yield* FeState
    const workspace = yield* Workspace
    const buildLogs = yield* FeBuildLogs
    const project = yield* state.project
    const normalized: Array<string> = []
    for (const file of files) {
      const resolved = yield* workspace.resolve(file).pipe(
        Effect.mapError(
          (error) =>
            new Tool.ToolError({
              message: `files: ${error.message}`,
              code: "invalid_file",
              suggestion: "Pass files relative to the workspace root; workspace_list shows them."
            })
        )
      )
      if (!resolved.exists) {
        return yield* new Tool.ToolError({
          message: `files: ${file} does not exist.`,
          code: "invalid_file",
          suggestion: "Pass files relative to the workspace root; workspace_list or fe_skeleton shows them."
        })
      }
      normalized.push(resolved.relative)
    }
    const order: ReadonlyArray<Step> = ["typecheck", "lint", "test"]
    const selected = order.filter((step) => chosen === undefined || chosen.includes(step))
    // The run's id names its steps' logs (fe://build/<run>-<step>): random, so a log read after a restart of the
    // server is not another run's.
    const runId = randomUUID().slice(0, 8)
    const ctx: StepContext = {
      project,
      files: normalized,
      timeoutMs: Math.min(timeoutMs ?? defaultTimeoutMs, settings.maxStepTimeoutMs),
      roots: [workspace.root],
      commands: new Map(),
      logUri: (step) => buildLogUri(buildLogId(runId, step))
    }
    // Under 2026-07-28, with a client that declared tasks, the steps run as a task: the call is answered at
    // once and tasks/get follows it (tasks/cancel stops the running tool and every process it started).
    const work = Effect.gen(function* () {
      // Read inside the task's work: a task's Progress is disabled (a task sends no notifications), the
      // request's would report on the call that created the task.
      const progress = yield* Progress
      const startedAt = yield* Clock.currentTimeMillis
      const outcomes: Array<StepOutcome> = []
      for (const [index, step] of selected.entries()) {
        yield* progress.report({ progress: index * 2, total: selected.length * 2, message: `${step}: running` })
        const outcome = yield* steps[step](ctx)
        outcomes.push(outcome)
        yield* progress.report({
          progress: index * 2 + 1,
          total: selected.length * 2,
          message: `${step}: ${outcome.result.status} — ${outcome.result.detail}`
        })
      }
      const all = outcomes.flatMap((outcome) => outcome.problems)
      const sorted = [...all.filter((p) => p.severity === "error"), ...all.filter((p) => p.severity === "warning")].map(
        (p) => ({ ...p, suggestion: suggestionFor(p) })
      )
      // A check another tool runs (fe_batch's) only remembers its problems' ids; fe_verify's are the last run.
      yield* options.record === false ? state.remember(sorted) : state.setLastVerify(sorted)
      // Each step that ran a command keeps its whole output as a resource, named by its result's log.
      const logged = outcomes.filter((outcome) => (ctx.commands.get(outcome.result.step) ?? []).length > 0)
      yield* Effect.sync(() =>
        buildLogs.add(
          logged.map(({ result }) => ({
            id: buildLogId(runId, result.step),
            run: runId,
            step: result.step,
            startedAt,
            title: `fe_verify ${result.step}: ${result.status} (${result.tool})`,
            description: result.detail,
            text: renderStepLog({
              run: runId,
              step: result.step,
              startedAt,
              tool: result.tool,
              status: result.status,
              detail: result.detail,
              commands: ctx.commands.get(result.step)!
            })
          }))
        )
      )
      const results = outcomes.map((outcome) =>
        (ctx.commands.get(outcome.result.step) ?? []).length > 0
          ? { ...outcome.result, log: ctx.logUri(outcome.result.step) }
          : outcome.result
      )
      const ok = results.every((r) => r.status === "passed" || r.status === "skipped")
      const errors = sorted.filter((p) => p.severity === "error").length
      const warnings = sorted.length - errors
      const stepsText = results.map((r) => `${r.step} ${r.status}`).join(", ")
      const broken = results.filter((r) => r.status === "error" || r.status === "timed_out")
      const summary = ok
        ? `All checks passed (${stepsText})${warnings > 0 ? `, with ${plural(warnings, "warning")}` : ""}.`
        : `${stepsText}: ${plural(errors, "error")}${warnings > 0 ? ` and ${plural(warnings, "warning")}` : ""}` +
          (broken.length > 0 ? `; ${broken.map((r) => `${r.step}: ${r.detail}`).join(" ")}` : ".")
      const next =
        errors > 0
          ? "Call fe_doctor with no arguments for the cause and fix of each problem, apply the fixes with workspace_edit, then call fe_verify again." +
            (broken.length > 0
              ? ` The ${broken.map((r) => r.step).join(" and ")} did not run: fix what stopped ${broken.length === 1 ? "it" : "them"} (see the step's detail, and read its log with resources/read for the whole output).`
              : "")
          : broken.length > 0
            ? "Fix what stopped the steps that did not run (see each step's detail, and read its log with resources/read for the whole output), then call fe_verify again."
            : warnings > 0
              ? "Only warnings remain: fe_doctor explains them; call fe_verify again after changing code."
              : "Nothing to fix. Call fe_verify again after the next change; fe_skeleton maps the code."
      return {
        ok,
        project: {
          framework: project.framework,
          packageManager: project.packageManager,
          tsconfig: project.tsconfig,
          linter: project.linter,
          testRunner: project.testRunner
        },
        steps: results,
        problems: sorted.slice(0, maxProblems),
        problemsTotal: sorted.length,
        summary,
        next
      }
    })
    return yield* options.task === true ? Task.background(work) : work
  })
}

/**
 * Builds the `verify` tool, published as `fe_verify`, for the given
 * settings: the typecheck (`tsc --noEmit` for the tsconfig, or for each
 * project a solution-style tsconfig references), the linter (ESLint's JSON
 * formatter or Biome's JSON reporter) and the tests (Vitest's or Jest's JSON
 * report), each run with the project's own package from `node_modules`
 * through the CommandRunner, one after the other. The result is a status
 * per step and every problem with its file, line, column, code, message and
 * severity (failing tests with their names and assertion messages), each
 * carrying a suggestion to call `fe_doctor`. Progress is reported at the
 * start and end of each step. Cancelling the call kills the running tool
 * and every process it started.
 *
 * **Example**
 *
 * ```ts
 * import { makeVerify } from "./capabilities/fe/verify.ts"
 * import { defaultFeSettings } from "./capabilities/fe/settings.ts"
 *
 * makeVerify(defaultFeSettings).tool.annotations?.readOnlyHint // => false
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeVerify = (
  settings: FeSettingsShape
): Tool.Handled<CommandRunner | Progress | Workspace | FeState | FeBuildLogs> => {
  const defaultTimeoutMs = Math.min(settings.defaultStepTimeoutMs, settings.maxStepTimeoutMs)
  const run = makeVerifyRun(settings)
  return Tool.make("verify", {
    title: "Verify the project (typecheck, lint, test)",
    description:
      "Runs the project's typecheck (tsc --noEmit), linter (ESLint or Biome) and tests (Vitest or Jest) with the " +
      "project's own installed tools, and returns a status per step and every problem found: file, line, column, " +
      "code, message and severity for type and lint errors; name and assertion message for failing tests. Call it " +
      "after changing code. steps chooses the steps (default: all the project has); files limits the lint and the " +
      "tests to those files and the typecheck's report to them (the whole project is still checked, as types cross " +
      "files). Then call fe_doctor (no arguments: the problems of this run) for the cause and fix of each problem. " +
      "Each step that ran a command names its whole output in log (a fe://build/<id> resource: read it with " +
      "resources/read when a step errored or its detail is not enough). " +
      "Progress is reported per step; cancelling stops the running tool and every process it started.",
    input: Schema.Struct({
      steps: Schema.optionalKey(
        Schema.Array(Step).annotate({ description: 'Which steps to run (default all: ["typecheck", "lint", "test"]).' })
      ),
      files: Schema.optionalKey(
        Schema.Array(Schema.String.check(Schema.isMinLength(1))).annotate({
          description: "Files relative to the workspace root to lint and test, and whose type errors to report."
        })
      ),
      timeoutMs: Schema.optionalKey(
        Schema.Int.check(Schema.isGreaterThanOrEqualTo(1000)).annotate({
          description: `Each step's timeout in ms (default ${defaultTimeoutMs}, at most ${settings.maxStepTimeoutMs}).`
        })
      ),
      maxProblems: Schema.optionalKey(
        Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
          description: "How many problems to return (default 50); problemsTotal counts them all."
        })
      )
    }),
    output: VerifyResult,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    timeout: settings.maxStepTimeoutMs * 4 + 30_000,
    task: "optional",
    // Checks only read the project: a task taken over after its instance stopped runs them again.
    durable: "rerun"
  }).pipe(Tool.handle((input) => run(input, { task: true })))
}
