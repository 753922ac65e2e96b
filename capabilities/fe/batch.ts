/**
 * `fe_batch`: a list of `fe_surgeon` operations and plain file edits applied
 * as one transaction, checked with `fe_verify` before and after; when the
 * project got worse, every file is put back to its exact previous bytes and
 * the result says why.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { CommandRunner } from "../../src/CommandRunner.ts"
import { Progress } from "../../src/Progress.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"
import type { Workspace } from "../../src/Workspace.ts"
import { plan, SurgeonOperation } from "./edit/plan.ts"
import { FeGraph } from "./graph/cache.ts"
import { isTestFile } from "./impact.ts"
import { type Problem, ProblemInput } from "./problem.ts"
import type { FeSettingsShape } from "./settings.ts"
import { FeState } from "./state.ts"
import * as Transaction from "./transaction.ts"
import { makeVerifyRun, Step, type VerifyResult } from "./verify.ts"
import type { FeBuildLogs } from "./verify/logs.ts"

/**
 * The most operations one batch takes.
 *
 * @category constants
 * @since 0.4.0
 */
export const maxBatchOperations = 500

/** The most files the lint and test steps are given: the changed ones first, then their importers, nearest first. */
const maxVerifiedFiles = 1000

/** The most new problems the result lists. */
const maxListedProblems = 20

const StepSummary = Schema.Struct({
  step: Step,
  status: Schema.Literals(["passed", "failed", "skipped", "error", "timed_out"]),
  errors: Schema.Int,
  warnings: Schema.Int,
  log: Schema.optionalKey(
    Schema.String.annotate({ description: "The URI of the step's whole output (fe://build/<id>, resources/read)." })
  )
})

const VerifySummary = Schema.Struct({
  errors: Schema.Int,
  warnings: Schema.Int,
  steps: Schema.Array(StepSummary)
})

/**
 * The `fe_batch` result's Schema.
 *
 * @category schemas
 * @since 0.4.0
 */
export const BatchResult = Schema.Struct({
  applied: Schema.Boolean.annotate({
    description: "The files hold the batch's changes now (false after a dry run, a refusal or a rollback)."
  }),
  rolledBack: Schema.Boolean.annotate({
    description: "The changes were written, verify found the project worse, and every file was restored."
  }),
  reason: Schema.optionalKey(Schema.String.annotate({ description: "Why the batch was rolled back." })),
  operations: Schema.Array(
    Schema.Struct({ index: Schema.Int, op: Schema.String, summary: Schema.String, files: Schema.Array(Schema.String) })
  ),
  files: Schema.Array(
    Schema.Struct({
      path: Schema.String,
      status: Schema.Literals(["modified", "created", "deleted"]),
      diff: Schema.String.annotate({ description: "The unified diff of the change (applied or not)." }),
      diffOmitted: Schema.optionalKey(
        Schema.Literal(true).annotate({
          description: "The diff did not fit in the answer (the file is changed all the same)."
        })
      )
    })
  ),
  diffsOmitted: Schema.optionalKey(
    Schema.Int.annotate({ description: "How many files' diffs were left out of the answer for size." })
  ),
  verify: Schema.optionalKey(
    Schema.Struct({
      files: Schema.Array(Schema.String).annotate({
        description: `The files the lint (and test) steps checked: the changed ones, then every file importing them, nearest first (at most ${maxVerifiedFiles}).`
      }),
      typecheck: Schema.Literals(["project", "none"]).annotate({
        description: "project: the typecheck covered the whole project (a change breaks importers at any distance)."
      }),
      before: VerifySummary,
      after: VerifySummary,
      newProblems: Schema.Array(ProblemInput).annotate({
        description: `Errors after the change that were not there before (at most ${maxListedProblems}); fe_doctor takes each as its problem.`
      }),
      fixed: Schema.Int.annotate({ description: "Problems there before and gone after." })
    })
  ),
  summary: Schema.String,
  next: Schema.String
})

/**
 * @category models
 * @since 0.4.0
 */
export type BatchResult = typeof BatchResult.Type

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

// A problem, where line numbers may move with the change: the same file, code and message.
const signature = (problem: Problem): string => `${problem.file}\u0000${problem.code}\u0000${problem.message}`

const summarize = (result: VerifyResult): typeof VerifySummary.Type => ({
  errors: result.problems.filter((p) => p.severity === "error").length,
  warnings: result.problems.filter((p) => p.severity === "warning").length,
  steps: result.steps.map((s) => ({
    step: s.step,
    status: s.status,
    errors: s.errors,
    warnings: s.warnings,
    ...(s.log === undefined ? {} : { log: s.log })
  }))
})

/** One verification from several runs of fe_verify's steps (the typecheck on the project, the others on files). */
const mergeResults = (results: ReadonlyArray<VerifyResult>): VerifyResult => {
  const first = results[0]!
  const problems = results.flatMap((result) => result.problems)
  return {
    ...first,
    ok: results.every((result) => result.ok),
    steps: results.flatMap((result) => result.steps),
    problems,
    problemsTotal: results.reduce((sum, result) => sum + result.problemsTotal, 0),
    summary: results.map((result) => result.summary).join(" "),
    next: first.next
  }
}

/**
 * How the project changed between two verifications of the same files:
 * the errors that are new (matched by file, code and message, since lines
 * move), how many problems went away, and — when it got worse — why: a new
 * error, or a step that passed and now fails or no longer runs.
 *
 * **Example**
 *
 * ```ts
 * import { compareVerify } from "./capabilities/fe/batch.ts"
 *
 * declare const before: Parameters<typeof compareVerify>[0]
 * declare const after: Parameters<typeof compareVerify>[1]
 * compareVerify(before, after).worse // => a reason, or undefined
 * ```
 *
 * @category comparison
 * @since 0.4.0
 */
export const compareVerify = (
  before: VerifyResult,
  after: VerifyResult
): {
  readonly worse: string | undefined
  readonly newProblems: ReadonlyArray<Problem>
  readonly fixed: number
} => {
  const remaining = new Map<string, number>()
  for (const problem of before.problems) {
    remaining.set(signature(problem), (remaining.get(signature(problem)) ?? 0) + 1)
  }
  const newProblems: Array<Problem> = []
  let kept = 0
  for (const problem of after.problems) {
    const key = signature(problem)
    const left = remaining.get(key) ?? 0
    if (left > 0) {
      remaining.set(key, left - 1)
      kept++
    } else if (problem.severity === "error") {
      newProblems.push(problem)
    }
  }
  const fixed = before.problems.length - kept
  const degraded = after.steps.filter((step) => {
    const was = before.steps.find((s) => s.step === step.step)
    return was?.status === "passed" && step.status !== "passed" && step.status !== "skipped"
  })
  const reasons: Array<string> = []
  if (newProblems.length > 0) {
    reasons.push(
      `${plural(newProblems.length, "new error")} (${newProblems
        .slice(0, 3)
        .map((p) => `${p.file}:${p.line} ${p.code}`)
        .join(", ")}${newProblems.length > 3 ? ", …" : ""})`
    )
  }
  // The lists stop at maxProblems; a step's counts are complete: more errors in a step is worse even unlisted.
  if (newProblems.length === 0) {
    for (const step of after.steps) {
      const was = before.steps.find((s) => s.step === step.step)
      if (was !== undefined && step.errors > was.errors) {
        reasons.push(`the ${step.step} step has more errors (${was.errors} → ${step.errors})`)
      }
    }
  }
  for (const step of degraded) {
    if (step.status === "failed" && (newProblems.length > 0 || reasons.length > 0)) continue
    reasons.push(`the ${step.step} step passed before and is now ${step.status.replace("_", " ")}: ${step.detail}`)
  }
  return { worse: reasons.length === 0 ? undefined : reasons.join("; "), newProblems, fixed }
}

/**
 * Builds the `batch` tool, published as `fe_batch`, for the given settings.
 * It takes up to 500 operations — `fe_surgeon`'s (`rename`, `add_import`,
 * `remove_import`, `add_hook_dependency`, `change_parameter`, `change_prop`,
 * `move_export`, `apply_diagnosis`) and plain `replace_text` edits — and
 * applies them in order in memory (each sees the ones before it); if any
 * fails, nothing is written. Then it runs `fe_verify` (the steps asked,
 * default typecheck and lint) on the changed files and their importers,
 * writes every file as one transaction, and runs the same verification
 * again. If there is a new error, or a step that passed no longer does,
 * every file gets its exact previous bytes back and the result says why
 * (`keepIfWorse: true` keeps the change and reports). Cancelling the call
 * after the files were written also restores them. `dryRun: true` returns
 * the diffs without writing or verifying.
 *
 * **Example**
 *
 * ```ts
 * import { makeBatch } from "./capabilities/fe/batch.ts"
 * import { defaultFeSettings } from "./capabilities/fe/settings.ts"
 *
 * makeBatch(defaultFeSettings).tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const makeBatch = (
  settings: FeSettingsShape
): Tool.Handled<CommandRunner | Progress | Workspace | FeState | FeGraph | FeBuildLogs> => {
  const verify = makeVerifyRun(settings)
  return Tool.make("batch", {
    // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
    experimental: true,
    title: "Apply several edits as one change, checked by verify",
    description:
      "Applies a list of fe_surgeon operations (rename, add_import, remove_import, add_hook_dependency, " +
      "change_parameter, change_prop, move_export, apply_diagnosis) and plain replace_text edits as ONE change: all " +
      "are computed in memory first (each sees the ones before it; if one fails nothing is written), fe_verify runs on " +
      "the changed files and their importers before and after the files are written, and if the project got worse (a " +
      "new error, or a step that passed now fails) every file is restored to its exact previous bytes and the result " +
      "says why. Use it for multi-file changes and for applying several fe_doctor diagnoses at once " +
      '({ "op": "apply_diagnosis", "id": … }). dryRun returns the unified diffs without writing anything.',
    input: Schema.Struct({
      operations: Schema.Array(SurgeonOperation)
        .check(Schema.isMinLength(1), Schema.isMaxLength(maxBatchOperations))
        .annotate({
          description: `The operations, applied in order (1 to ${maxBatchOperations}); fe_surgeon's description lists them.`
        }),
      steps: Schema.optionalKey(
        Schema.Array(Step).annotate({
          description:
            'The fe_verify steps to compare before and after (default ["typecheck", "lint"]; add "test" to run the tests of the changed files too).'
        })
      ),
      dryRun: Schema.optionalKey(
        Schema.Boolean.annotate({ description: "Return the diffs only: nothing is written, verify does not run." })
      ),
      keepIfWorse: Schema.optionalKey(
        Schema.Boolean.annotate({
          description: "Keep the change even if verify got worse (default false: roll back)."
        })
      ),
      timeoutMs: Schema.optionalKey(
        Schema.Int.check(Schema.isGreaterThanOrEqualTo(1000)).annotate({
          description: "Each verify step's timeout in ms (as fe_verify's timeoutMs)."
        })
      )
    }),
    output: BatchResult,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    // A dry run writes nothing: only a call that writes is confirmed.
    confirmWhen: (input) => input.dryRun !== true,
    timeout: settings.maxStepTimeoutMs * 8 + 60_000,
    task: "optional"
  }).pipe(
    Tool.handle(
      Effect.fnUntraced(function* ({ dryRun = false, keepIfWorse = false, operations, steps, timeoutMs }) {
        const planned = yield* plan(operations)
        const prepared = yield* Transaction.prepare(planned.changes, {
          maxOperations: Math.max(Transaction.defaultMaxOperations, planned.changes.length)
        }).pipe(Effect.mapError((error) => Transaction.toToolError(error, "fe_batch")))
        // Bounded: a change of hundreds of files still gets an answer (the diffs that fit, the others counted).
        const shown = Transaction.boundedDiffs(prepared.files)
        const files = shown.files
        const diffsNote =
          shown.omitted === 0 ? "" : ` (${plural(shown.omitted, "diff")} left out of this answer for size)`
        const base = {
          operations: planned.operations,
          files,
          ...(shown.omitted === 0 ? {} : { diffsOmitted: shown.omitted })
        }
        if (prepared.files.length === 0) {
          return {
            ...base,
            applied: false,
            rolledBack: false,
            summary: "The operations change nothing: every file already holds what they would write.",
            next: "Nothing to verify. Call fe_skeleton or fe_impact to find what to change."
          }
        }
        if (dryRun) {
          return {
            ...base,
            applied: false,
            rolledBack: false,
            summary: `Dry run: ${plural(planned.operations.length, "operation")} would change ${plural(files.length, "file")}${diffsNote}; nothing was written.`,
            next: "Read the diffs; call fe_batch again without dryRun to apply them (checked by verify, rolled back if worse)."
          }
        }
        // The typecheck runs on the whole project, before and after: a change breaks files that import it through
        // barrels and re-exports, at any distance. The linter (and the tests) get the changed files and every file
        // importing them, nearest first; with the test step, the tests importing a changed file at any depth.
        const chosen: ReadonlyArray<Step> = steps ?? ["typecheck", "lint"]
        const graph = (yield* (yield* FeGraph).current).graph
        const changed = prepared.files.filter((file) => file.status !== "deleted").map((file) => file.path)
        const importers = prepared.files
          .flatMap((file) => graph.transitiveImporters(file.path))
          .sort((a, b) => a.depth - b.depth)
          .map((entry) => entry.path)
        const related = [...new Set([...changed, ...importers])]
        const verified = (chosen.includes("test") ? related : related.filter((path) => !isTestFile(path))).slice(
          0,
          maxVerifiedFiles
        )
        const others = chosen.filter((step) => step !== "typecheck")
        const check = Effect.gen(function* () {
          const results: Array<VerifyResult> = []
          if (chosen.includes("typecheck")) {
            results.push(
              yield* verify(
                { steps: ["typecheck"], maxProblems: 1000, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
                { record: false }
              )
            )
          }
          if (others.length > 0) {
            results.push(
              yield* verify(
                {
                  steps: others,
                  files: verified,
                  maxProblems: 1000,
                  ...(timeoutMs === undefined ? {} : { timeoutMs })
                },
                { record: false }
              )
            )
          }
          return mergeResults(results)
        })
        return yield* Task.background(
          Effect.gen(function* () {
            const progress = yield* Progress
            yield* progress.report({ progress: 0, total: 3, message: "verify before the change" })
            const before = yield* check
            yield* progress.report({ progress: 1, total: 3, message: `writing ${plural(files.length, "file")}` })
            const committed = yield* Transaction.commit(prepared).pipe(
              Effect.mapError((error) => Transaction.toToolError(error, "fe_batch"))
            )
            yield* progress.report({ progress: 2, total: 3, message: "verify after the change" })
            // Cancelled while checking: the files go back to what they were, so a cancelled batch changed nothing.
            const after = yield* check.pipe(Effect.onInterrupt(() => Effect.ignore(committed.rollback)))
            const comparison = compareVerify(before, after)
            const verifyReport = {
              files: verified,
              typecheck: chosen.includes("typecheck") ? ("project" as const) : ("none" as const),
              before: summarize(before),
              after: summarize(after),
              // Without fe_verify's suggestion (the next step says to call fe_doctor): shorter answers.
              newProblems: comparison.newProblems.slice(0, maxListedProblems).map((problem) => {
                const { suggestion: _, ...rest } = problem
                return rest
              }),
              fixed: comparison.fixed
            }
            const counts = `errors ${verifyReport.before.errors} → ${verifyReport.after.errors}`
            if (comparison.worse !== undefined && !keepIfWorse) {
              const restored = yield* committed.rollback.pipe(
                Effect.as(true),
                Effect.catch((error) => Effect.succeed(error.message))
              )
              if (restored !== true) {
                return yield* new Tool.ToolError({
                  message: `The batch made the project worse (${comparison.worse}) and the rollback failed: ${restored}`,
                  code: "rollback_failed",
                  suggestion: "Restore the files named by hand (git checkout, or the diffs in fe_batch's dryRun)."
                })
              }
              return {
                ...base,
                applied: false,
                rolledBack: true,
                reason: comparison.worse,
                verify: verifyReport,
                summary:
                  `Rolled back: after the change verify found ${comparison.worse} (${counts}). Every file has its ` +
                  `previous bytes again.`,
                next:
                  "Call fe_doctor with the new problems (in verify.newProblems) to see why, change the operations, and " +
                  "call fe_batch again (dryRun shows the diffs); keepIfWorse keeps a change that is meant to break callers."
              }
            }
            // Kept: the check after the change is the session's last verify (what fe_doctor diagnoses next).
            yield* (yield* FeState).setLastVerify(after.problems)
            return {
              ...base,
              applied: true,
              rolledBack: false,
              ...(comparison.worse === undefined ? {} : { reason: `kept although worse: ${comparison.worse}` }),
              verify: verifyReport,
              summary:
                `Applied ${plural(planned.operations.length, "operation")} to ${plural(files.length, "file")}${diffsNote}; ` +
                `${counts}${comparison.fixed > 0 ? `, ${plural(comparison.fixed, "problem")} fixed` : ""}.`,
              next:
                verifyReport.after.errors > 0
                  ? "Call fe_doctor with no arguments for the problems that remain (the last verify's), then fe_batch or fe_surgeon to fix them."
                  : 'Done. Run fe_verify with steps ["test"] to run the tests too, if they were not compared here.'
            }
          })
        )
      })
    )
  )
}
