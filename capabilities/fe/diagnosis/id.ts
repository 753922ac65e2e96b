/**
 * The stable id of a diagnosis: a short hash of its problem's source, file,
 * position, code and message. `fe_doctor` returns it with each diagnosis,
 * and `fe_surgeon`'s `apply_diagnosis` operation names a diagnosis by it
 * (looked up among the problems of the session's last `fe_verify`).
 *
 * @since 0.4.0
 */
import * as NodeCrypto from "node:crypto"
import type { ProblemInput } from "../problem.ts"
import type { FixStep } from "./model.ts"

/**
 * The id of the diagnosis of a problem: `d` and 10 hex digits of the SHA-256
 * of its source, file, line, column, code and message. The same problem
 * (same place, same message) gets the same id in every run.
 *
 * **Example**
 *
 * ```ts
 * import { diagnosisId } from "./capabilities/fe/diagnosis/id.ts"
 *
 * diagnosisId({
 *   source: "typescript",
 *   file: "src/a.ts",
 *   line: 3,
 *   column: 5,
 *   code: "TS2304",
 *   message: "Cannot find name 'useState'."
 * }) // => "d" followed by 10 hex digits
 * ```
 *
 * @category identifiers
 * @since 0.4.0
 */
export const diagnosisId = (
  problem: Pick<ProblemInput, "source" | "file" | "line" | "column" | "code" | "message">
): string =>
  "d" +
  NodeCrypto.createHash("sha256")
    .update(JSON.stringify([problem.source, problem.file, problem.line, problem.column, problem.code, problem.message]))
    .digest("hex")
    .slice(0, 10)

/**
 * Whether a string has the shape of a diagnosis id.
 *
 * **Example**
 *
 * ```ts
 * import { isDiagnosisId } from "./capabilities/fe/diagnosis/id.ts"
 *
 * isDiagnosisId("d0123456789") // => true
 * isDiagnosisId("TS2304") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isDiagnosisId = (text: string): boolean => /^d[0-9a-f]{10}$/.test(text)

/**
 * The steps of a fix that `apply_diagnosis` applies, or `undefined` when the
 * fix is not computed: the steps before the first alternative (a step whose
 * description starts with "Or"), advice to read something (`investigate`)
 * left out, each a whole-line replacement (`before` and
 * `after`), an insertion (`after` alone, before `line`), or a deletion
 * (`delete` with `before`).
 *
 * **Example**
 *
 * ```ts
 * import { computedSteps } from "./capabilities/fe/diagnosis/id.ts"
 *
 * computedSteps([
 *   { operation: "replace", file: "a.ts", line: 2, description: "Use const.", before: "let a = 1", after: "const a = 1" },
 *   { operation: "replace", file: "a.ts", line: 2, description: "Or, rename it." }
 * ])?.length // => 1
 * computedSteps([{ operation: "investigate", file: "a.ts", line: 2, description: "Read the code." }]) // => undefined
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const computedSteps = (fix: ReadonlyArray<FixStep>): ReadonlyArray<FixStep> | undefined => {
  const alternative = fix.findIndex((step) => /^Or\b/.test(step.description))
  const chosen = alternative === -1 ? fix : fix.slice(0, alternative)
  // Advice to read something ("investigate") is not an edit: the edits are the rest.
  const edits = chosen.filter((step) => step.operation !== "investigate")
  if (edits.length === 0) return undefined
  const computed = edits.every(
    (step) =>
      step.command === undefined &&
      step.operation !== "add_null_check" &&
      step.line > 0 &&
      (step.after !== undefined || (step.operation === "delete" && step.before !== undefined))
  )
  return computed ? edits : undefined
}
