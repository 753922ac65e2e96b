/**
 * The building blocks the diagnosis rules share: a fix step at the
 * problem's location, a fix that rewrites the problem's line, and the
 * `file:line` a message names.
 *
 * @since 0.1.0
 */
import type { FixStep, RuleInput } from "./model.ts"

/**
 * A fix step at the problem's file and line, unless `fields` names others.
 *
 * **Example**
 *
 * ```ts
 * import { step } from "./capabilities/fe/diagnosis/fix.ts"
 *
 * declare const input: Parameters<typeof step>[0]
 * step(input, { operation: "investigate", description: "Read the function's signature." })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const step = (
  input: RuleInput,
  fields: Omit<FixStep, "file" | "line"> & { readonly line?: number; readonly file?: string }
): FixStep => ({
  file: fields.file ?? input.problem.file,
  line: fields.line ?? input.problem.line,
  ...fields
})

/**
 * A fix that rewrites the problem's line to `after`; without before/after
 * when the line is unknown or `after` is missing or unchanged.
 *
 * **Example**
 *
 * ```ts
 * import { lineEdit } from "./capabilities/fe/diagnosis/fix.ts"
 *
 * declare const input: Parameters<typeof lineEdit>[0]
 * lineEdit(input, "replace", "Declare url with const.", "  const url = '/api'")
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const lineEdit = (
  input: RuleInput,
  operation: FixStep["operation"],
  description: string,
  after: string | undefined
): ReadonlyArray<FixStep> =>
  input.line === "" || after === undefined || after === input.line
    ? [step(input, { operation, description })]
    : [step(input, { operation, description, before: input.line, after })]

/**
 * The problem's location as messages name it: `file:line`.
 *
 * **Example**
 *
 * ```ts
 * import { at } from "./capabilities/fe/diagnosis/fix.ts"
 *
 * declare const input: Parameters<typeof at>[0]
 * at(input) // e.g. "src/App.tsx:12"
 * ```
 *
 * @category formatting
 * @since 0.1.0
 */
export const at = (input: RuleInput): string => `${input.problem.file}:${input.problem.line}`
