/**
 * What `fe_doctor` returns, and what its rules see: the diagnosis of one
 * problem (cause, concrete fix operations, the source around it) and the
 * input a rule gets (the problem, the source lines, the project).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { ProblemInput } from "../problem.ts"
import type { ProjectInfo } from "../project.ts"

/**
 * The kinds of fix operation a diagnosis names.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Operation = Schema.Literals([
  "replace",
  "insert",
  "delete",
  "add_import",
  "install_package",
  "add_type_annotation",
  "add_null_check",
  "add_property",
  "rename",
  "update_test_or_code",
  "edit_config",
  "investigate"
])

/**
 * @category models
 * @since 0.1.0
 */
export type Operation = typeof Operation.Type

/**
 * One concrete step of a fix: what to do, where (file and line), and when
 * the rule could compute it, the text before and after (a whole line, ready
 * for `workspace_edit`'s `oldText` and `newText`) or the command to run.
 *
 * @category schemas
 * @since 0.1.0
 */
export const FixStep = Schema.Struct({
  operation: Operation,
  file: Schema.String,
  line: Schema.Int.annotate({ description: "1-based line the step applies to (0: the file as a whole)." }),
  description: Schema.String,
  before: Schema.optionalKey(Schema.String.annotate({ description: "The text to replace, as it is in the file." })),
  after: Schema.optionalKey(Schema.String.annotate({ description: "The text to put instead (or to insert)." })),
  command: Schema.optionalKey(Schema.String.annotate({ description: "A command to run (with exec_run)." }))
})

/**
 * @category models
 * @since 0.1.0
 */
export type FixStep = typeof FixStep.Type

/**
 * The diagnosis of one problem.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Diagnosis = Schema.Struct({
  id: Schema.String.annotate({
    description:
      "The diagnosis's id (stable for the same problem at the same place): fe_surgeon's apply_diagnosis takes it."
  }),
  problem: Schema.Struct({
    source: Schema.String,
    file: Schema.String,
    line: Schema.Int,
    column: Schema.Int,
    code: Schema.String,
    message: Schema.String
  }),
  title: Schema.String.annotate({ description: "The kind of problem, in a few words." }),
  rootCause: Schema.String.annotate({
    description: "Why it happens, naming the identifiers, types and files involved."
  }),
  fix: Schema.Array(FixStep).annotate({ description: "What to change, in order; alternatives say so." }),
  context: Schema.String.annotate({
    description: "The source around the location, numbered, the problem's line marked with >; empty when unreadable."
  }),
  confidence: Schema.Literals(["high", "medium", "low"]).annotate({
    description: "high: the fix is computed from the message and the source; medium: the likely fix; low: guidance."
  }),
  known: Schema.Boolean.annotate({ description: "False when no rule covers this code: the answer is generic." }),
  surgeon: Schema.optionalKey(
    Schema.Struct({ op: Schema.Literal("apply_diagnosis"), id: Schema.String }).annotate({
      description:
        "The fe_surgeon operation that applies the computed fix (present when every step's edit is computed): " +
        "call fe_surgeon (or fe_batch) with operations: [this]."
    })
  ),
  next: Schema.String.annotate({ description: "What to call next." })
})

/**
 * @category models
 * @since 0.1.0
 */
export type Diagnosis = typeof Diagnosis.Type

/**
 * What a rule sees: the problem, the source lines of its file (undefined
 * when the file could not be read), the line itself, the names the message
 * quotes (`'x'`), the project, and the text of other files it asked for.
 *
 * @category models
 * @since 0.1.0
 */
export interface RuleInput {
  readonly problem: ProblemInput
  readonly lines: ReadonlyArray<string> | undefined
  /** The problem's line ("" when unknown). */
  readonly line: string
  /** The names the message quotes, in order ('x', "y" and `z`). */
  readonly quoted: ReadonlyArray<string>
  readonly project: ProjectInfo
  /**
   * Other files the rule may look into, by path: for a failing test, the
   * modules its file imports; for an import problem, the module imported.
   */
  readonly related: ReadonlyMap<string, ReadonlyArray<string>>
  /**
   * For a relative import that does not resolve: the directory it points
   * into and the names in it (undefined when the directory cannot be listed).
   */
  readonly neighbours: Neighbours | undefined
}

/**
 * The directory a relative import points into, and what is in it.
 *
 * **Example**
 *
 * ```ts
 * import type { Neighbours } from "./capabilities/fe/diagnosis/model.ts"
 *
 * const neighbours: Neighbours = { directory: "src/utils", names: ["format.ts", "math.ts"] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Neighbours {
  /** Relative to the workspace root ("" for the root). */
  readonly directory: string
  /** The entries' names (directories too); undefined when the directory does not exist or cannot be listed. */
  readonly names: ReadonlyArray<string> | undefined
}

/**
 * What a rule answers.
 *
 * @category models
 * @since 0.1.0
 */
export interface RuleAnswer {
  readonly rootCause: string
  readonly fix: ReadonlyArray<FixStep>
  readonly confidence: "high" | "medium" | "low"
  /** Overrides the rule's title (e.g. a more precise one for this message). */
  readonly title?: string
}

/**
 * A rule: a title and the function from the input to the answer.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rule {
  readonly title: string
  readonly diagnose: (input: RuleInput) => RuleAnswer
}
