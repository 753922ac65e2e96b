/**
 * `fe_doctor`: the root cause of a problem `fe_verify` found (or that the
 * agent pastes) and a concrete fix, read from the source around it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { diagnose, problemsInText } from "./diagnosis/diagnose.ts"
import { Diagnosis } from "./diagnosis/model.ts"
import { ProblemInput } from "./problem.ts"
import { FeState } from "./state.ts"

/**
 * The `fe_doctor` result's Schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DoctorResult = Schema.Struct({
  diagnoses: Schema.Array(Diagnosis),
  total: Schema.Int.annotate({ description: "How many problems there were to diagnose (before limit)." }),
  summary: Schema.String,
  next: Schema.String
})

/**
 * The `doctor` tool, published as `fe_doctor`: diagnoses the problem it is
 * given (`problem`, as `fe_verify` returns it, or `text` pasted from `tsc`
 * or ESLint), or else the problems of the last `fe_verify` (errors first, at
 * most `limit`). Each diagnosis has a title, the root cause naming the
 * identifiers and files involved, fix steps (operation, file, line, and the
 * exact `before`/`after` text or the command when the rule can compute
 * them), the numbered source around the location, a confidence, and what to
 * call next. At least the common TypeScript codes, ESLint/Biome rules and
 * failing test assertions have rules; any other code gets a generic answer
 * that says so (`known: false`).
 *
 * **Example**
 *
 * ```ts
 * import { doctor } from "./capabilities/fe/doctor.ts"
 *
 * doctor.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const doctor = Tool.make("doctor", {
  title: "Diagnose a type, lint or test problem",
  description:
    "Explains a problem found by fe_verify and says how to fix it: the root cause (naming the identifiers, types and " +
    "files involved, read from the source around the location) and concrete fix steps with file, line and, when it " +
    "can compute them, the exact before/after text to pass to workspace_edit (or a command for exec_run). Call it " +
    "with no arguments to diagnose the problems of the last fe_verify (errors first), with problem set to one of " +
    "fe_verify's problems, or with text pasted from tsc or ESLint output. Covers the common TypeScript codes " +
    "(TS2304, TS2307, TS2322, TS2339, TS2345, TS18048…), ESLint and Biome rules (react-hooks/exhaustive-deps, " +
    "no-unused-vars, no-explicit-any, prefer-const…) and failing test assertions; other codes get a generic answer " +
    "marked known: false.",
  input: Schema.Struct({
    problem: Schema.optionalKey(
      ProblemInput.annotate({
        description: "One problem as fe_verify returns it (its suggestion field may be left out)."
      })
    ),
    text: Schema.optionalKey(
      Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200_000)).annotate({
        description: "Output pasted from tsc (plain or --pretty) or ESLint's default formatter."
      })
    ),
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })).annotate({
        description: "How many problems to diagnose (default 10)."
      })
    )
  }),
  output: DoctorResult,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ limit = 10, problem, text }) {
      const state = yield* FeState
      const workspace = yield* Workspace
      if (problem !== undefined && text !== undefined) {
        return yield* new Tool.ToolError({
          message: "Give either problem or text, not both.",
          code: "invalid_arguments",
          suggestion: "Call fe_doctor with one problem from fe_verify, or with pasted output, or with no arguments."
        })
      }
      let problems: ReadonlyArray<ProblemInput>
      if (problem !== undefined) {
        problems = [problem]
      } else if (text !== undefined) {
        problems = problemsInText(text, workspace.root)
        if (problems.length === 0) {
          return yield* new Tool.ToolError({
            message:
              "No problem could be read from text: it takes tsc output (file(line,col): error TSxxxx: message, or file:line:col - error TSxxxx: message) and ESLint's default output.",
            code: "no_problem_in_text",
            suggestion: "Call fe_verify, which returns structured problems, then fe_doctor with no arguments."
          })
        }
      } else {
        const last = yield* state.lastVerify
        if (last === undefined) {
          return yield* new Tool.ToolError({
            message: "There is nothing to diagnose: fe_verify has not run in this session, and no problem was given.",
            code: "nothing_to_diagnose",
            suggestion: "Call fe_verify first; then call fe_doctor with no arguments to diagnose what it found."
          })
        }
        problems = last
      }
      // The project helps some rules (the package manager's install command, the test runner); without it they still work.
      const project = yield* state.project.pipe(Effect.option)
      const chosen = problems.slice(0, limit)
      const diagnoses = yield* Effect.forEach(chosen, (p) =>
        diagnose(p, project._tag === "Some" ? project.value : undefined)
      )
      const known = diagnoses.filter((d) => d.known).length
      const summary =
        problems.length === 0
          ? "The last fe_verify found no problems: nothing to diagnose."
          : `${diagnoses.length} of ${problems.length} problem${problems.length === 1 ? "" : "s"} diagnosed` +
            (known < diagnoses.length ? ` (${diagnoses.length - known} without a specific rule)` : "") +
            (problems.length > diagnoses.length ? `; call again with a larger limit for the rest.` : ".")
      return {
        diagnoses,
        total: problems.length,
        summary,
        next:
          problems.length === 0
            ? "Nothing to fix. Call fe_verify after the next change."
            : diagnoses.some((d) => d.surgeon !== undefined)
              ? 'Apply the computed fixes in one call: fe_batch with operations [{ op: "apply_diagnosis", id }] for each diagnosis that has a surgeon operation (it runs fe_verify and rolls back if things get worse); apply the others with workspace_edit (before/after are exact text), then call fe_verify.'
              : "Apply the fixes with workspace_edit (each step's before/after is exact text of the file), then call fe_verify to check them."
      }
    })
  )
)
