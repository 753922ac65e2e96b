/**
 * What `fe_verify` finds and `fe_doctor` diagnoses: one problem reported by
 * the typecheck, the linter or the test runner, with its location, code and
 * message, in one shape whatever tool reported it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The tool that reported a problem.
 *
 * **Example**
 *
 * ```ts
 * import { ProblemSource } from "./capabilities/fe/problem.ts"
 *
 * ProblemSource.literals // => ["typescript", "eslint", "biome", "vitest", "jest"]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProblemSource = Schema.Literals(["typescript", "eslint", "biome", "vitest", "jest"])

/**
 * @category models
 * @since 0.1.0
 */
export type ProblemSource = typeof ProblemSource.Type

/**
 * The kind of a problem: a type error, a lint finding or a failing test.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProblemKind = Schema.Literals(["type", "lint", "test"])

/**
 * @category models
 * @since 0.1.0
 */
export type ProblemKind = typeof ProblemKind.Type

/**
 * What a failing test's assertion compared, when the runner said.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TestFailure = Schema.Struct({
  name: Schema.String.annotate({
    description: 'The test\'s full name, its describe blocks and its own name joined by " > ".'
  }),
  expected: Schema.optionalKey(
    Schema.String.annotate({ description: "The expected value, as the runner printed it." })
  ),
  actual: Schema.optionalKey(Schema.String.annotate({ description: "The value received, as the runner printed it." }))
})

/**
 * @category models
 * @since 0.1.0
 */
export type TestFailure = typeof TestFailure.Type

/**
 * One problem, as `fe_doctor` takes it: where (file relative to the
 * workspace root, 1-based line and column), what (the reporting tool's code:
 * `TS2322`, `react-hooks/exhaustive-deps`, `lint/suspicious/noExplicitAny`,
 * or `test-failure`), the tool's message and its severity.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ProblemInput } from "./capabilities/fe/problem.ts"
 *
 * Schema.decodeUnknownSync(ProblemInput)({
 *   source: "typescript",
 *   kind: "type",
 *   file: "src/App.tsx",
 *   line: 12,
 *   column: 7,
 *   code: "TS2322",
 *   message: "Type 'number' is not assignable to type 'string'.",
 *   severity: "error"
 * })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProblemInput = Schema.Struct({
  source: ProblemSource,
  kind: ProblemKind,
  file: Schema.String.annotate({ description: "The file, relative to the workspace root, /-separated." }),
  line: Schema.Int.annotate({ description: "1-based line (0 when the tool gave no location)." }),
  column: Schema.Int.annotate({ description: "1-based column (0 when the tool gave no location)." }),
  endLine: Schema.optionalKey(Schema.Int),
  endColumn: Schema.optionalKey(Schema.Int),
  code: Schema.String.annotate({
    description: 'The tool\'s code: "TS2322", an ESLint or Biome rule, or "test-failure" for a failing test.'
  }),
  message: Schema.String.annotate({ description: "The tool's message, whole." }),
  severity: Schema.Literals(["error", "warning"]),
  test: Schema.optionalKey(TestFailure)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ProblemInput = typeof ProblemInput.Type

/**
 * One problem as `fe_verify` returns it: a `ProblemInput` plus a
 * `suggestion` saying how to get it diagnosed (`fe_doctor`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Problem = Schema.Struct({
  ...ProblemInput.fields,
  suggestion: Schema.String.annotate({ description: "What to call next: fe_doctor with this problem." })
})

/**
 * @category models
 * @since 0.1.0
 */
export type Problem = typeof Problem.Type
