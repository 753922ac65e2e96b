/**
 * `fe_surgeon`: mechanical edits computed from the syntax tree — rename a
 * symbol across the project, add or remove an import, add a hook
 * dependency, change a parameter or a prop, move an export to another file,
 * apply a doctor diagnosis by id, or a plain text replacement — planned in
 * memory (`edit/plan.ts`), checked and applied through the file transaction
 * (`transaction.ts`), each file's change returned as a unified diff.
 * Destructive: the runtime asks the user to confirm each call.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { plan, SurgeonOperation } from "./edit/plan.ts"
import { boundedDiffs, commit, maxDiffChars, prepare, toToolError } from "./transaction.ts"

/**
 * The most operations one call takes.
 *
 * **Example**
 *
 * ```ts
 * import { maxSurgeonOperations } from "./capabilities/fe/surgeon.ts"
 *
 * maxSurgeonOperations // => 100
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const maxSurgeonOperations = 100

/**
 * The most files one call changes (each file's change counts one operation
 * of the transaction).
 *
 * **Example**
 *
 * ```ts
 * import { maxSurgeonFiles } from "./capabilities/fe/surgeon.ts"
 *
 * maxSurgeonFiles // => 2000
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const maxSurgeonFiles = 2000

/**
 * The `fe_surgeon` result's Schema.
 *
 * @category schemas
 * @since 0.4.0
 */
export const SurgeonResult = Schema.Struct({
  applied: Schema.Boolean.annotate({ description: "True when the files were written (false on dryRun)." }),
  operations: Schema.Array(
    Schema.Struct({
      index: Schema.Int,
      op: Schema.String,
      summary: Schema.String,
      files: Schema.Array(Schema.String)
    })
  ),
  files: Schema.Array(
    Schema.Struct({
      path: Schema.String,
      status: Schema.Literals(["modified", "created", "deleted"]),
      diff: Schema.String.annotate({
        description: "The unified diff of the file's change (empty when diffOmitted)."
      }),
      diffOmitted: Schema.optionalKey(
        Schema.Boolean.annotate({
          description: "True when the diff was left out to keep the answer small (the file is changed all the same)."
        })
      )
    })
  ),
  diffsOmitted: Schema.optionalKey(
    Schema.Int.annotate({
      description: "How many files' diffs were left out (the answer holds at most 60,000 characters of diffs)."
    })
  ),
  summary: Schema.String,
  next: Schema.String
})

/**
 * The `surgeon` tool, published as `fe_surgeon`.
 *
 * **Example**
 *
 * ```ts
 * import { surgeon } from "./capabilities/fe/surgeon.ts"
 *
 * surgeon.tool.name // => "surgeon"
 * ```
 *
 * @category tools
 * @since 0.4.0
 */
export const surgeon = Tool.make("surgeon", {
  // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
  experimental: true,
  title: "Edit code from its syntax tree",
  description:
    "Mechanical edits computed from the syntax tree (never text search): rename a symbol across the project " +
    "(declaration, references, imports, re-exports, barrels; shadowed names and property keys left alone), " +
    "add_import/remove_import, add_hook_dependency, change_parameter, change_prop, move_export (with its imports, " +
    "importers rewritten), apply_diagnosis (fe_doctor's fix by id), replace_text. Operations apply in order, each " +
    "seeing the previous ones' result; all files are checked before any is written, and each change is returned as " +
    "a unified diff (at most 60,000 characters of diffs; the rest flagged diffOmitted). dryRun returns the diffs " +
    "without writing. At most 100 operations per call: for more (up to 500), use fe_batch. After a change, call fe_verify.",
  input: Schema.Struct({
    operations: Schema.Array(SurgeonOperation)
      .check(Schema.isBetweenLength(1, maxSurgeonOperations))
      .annotate({ description: `The operations, applied in order (1 to ${maxSurgeonOperations}).` }),
    dryRun: Schema.optionalKey(Schema.Boolean.annotate({ description: "Return the diffs and write nothing." }))
  }),
  output: SurgeonResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // A dry run writes nothing: only a call that writes is confirmed.
  confirmWhen: (input) => input.dryRun !== true
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ dryRun = false, operations }) {
      const planned = yield* plan(operations)
      const prepared = yield* prepare(planned.changes, { maxOperations: maxSurgeonFiles }).pipe(
        Effect.mapError((error) => toToolError(error, "fe_surgeon"))
      )
      if (!dryRun && prepared.files.length > 0) {
        yield* commit(prepared).pipe(Effect.mapError((error) => toToolError(error, "fe_surgeon")))
      }
      const bounded = boundedDiffs(prepared.files, maxDiffChars)
      const files = bounded.files
      const paths = files.map((f) => f.path)
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`
      const omittedNote =
        bounded.omitted === 0
          ? ""
          : dryRun
            ? ` ${count(bounded.omitted, "diff")} left out to keep the answer small (nothing was written); narrow the operations (fewer or smaller files per call) to see every diff.`
            : ` ${count(bounded.omitted, "diff")} left out to keep the answer small: those files WERE changed all the same (workspace_read or git diff shows them).`
      const summary =
        files.length === 0
          ? "Nothing to change: every operation found its result already there."
          : `${dryRun ? "Would change" : "Changed"} ${count(files.length, "file")} with ${count(operations.length, "operation")}.${omittedNote}`
      const next =
        files.length === 0
          ? "Nothing was written."
          : dryRun
            ? bounded.omitted > 0
              ? "Narrow the operations to review the omitted diffs, or call fe_surgeon again with the same operations without dryRun to apply them."
              : "Review the diffs, then call fe_surgeon again with the same operations without dryRun to apply them."
            : `Call fe_verify with files ${JSON.stringify(paths.slice(0, 50))} to check the change.`
      return {
        applied: !dryRun && files.length > 0,
        operations: planned.operations,
        files,
        ...(bounded.omitted > 0 ? { diffsOmitted: bounded.omitted } : {}),
        summary,
        next
      }
    })
  )
)
