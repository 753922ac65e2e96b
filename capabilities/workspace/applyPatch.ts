/**
 * `workspace_apply_patch`: applies a unified diff to the workspace's files,
 * all or nothing.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"
import { patchKeys } from "./writeKey.ts"

/**
 * The `apply_patch` tool, published as `workspace_apply_patch`: applies a
 * unified diff (as `git diff` or `diff -u` print it) that may change,
 * create, delete and rename several files. Every hunk of every file is
 * checked against the current text before anything is written; one that does
 * not match fails the whole call, naming the file and the hunk. Destructive,
 * so the runtime asks for confirmation before it runs.
 *
 * **Example**
 *
 * ```ts
 * import { applyPatch } from "./capabilities/workspace/applyPatch.ts"
 *
 * applyPatch.tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const applyPatch = Tool.make("apply_patch", {
  title: "Apply a patch",
  description:
    "Changes one or more workspace files by applying a unified diff, the format git diff and diff -u print. For " +
    "each file: a line '--- a/<path>' and a line '+++ b/<path>' (use '--- /dev/null' to create a file and " +
    "'+++ /dev/null' to delete one), then hunks: a header '@@ -<old start>,<old count> +<new start>,<new count> @@' " +
    "and lines starting with ' ' (unchanged context), '-' (removed) or '+' (added). Include about 3 context lines " +
    "around each change, copied exactly from the file. The whole patch is checked first and applied all or " +
    "nothing: a hunk whose context or removed lines do not match the file exactly fails the call, naming the file " +
    "and hunk, and nothing is changed (a hunk that only moved a few lines is still found). Call workspace_read " +
    "first to copy the exact current text. For one small change workspace_edit is simpler; to replace a whole file " +
    "use workspace_write. The user must confirm the call.",
  input: Schema.Struct({
    patch: Schema.String.annotate({
      description: "The unified diff text, for one or several files."
    }),
    strip: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description:
          "How many leading directories to remove from the file names (like patch -p). Default: 1 when the names " +
          "start with a/ and b/ (git style), else 0."
      })
    )
  }),
  output: Schema.Struct({
    files: Schema.Array(
      Schema.Struct({
        path: Schema.String.annotate({ description: "The file, relative to the workspace root." }),
        status: Schema.Literals(["modified", "created", "deleted", "renamed"]),
        from: Schema.optionalKey(Schema.String.annotate({ description: "For a rename, the old path." })),
        hunks: Schema.Int,
        linesAdded: Schema.Int,
        linesRemoved: Schema.Int
      })
    )
  }),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writeKey: ({ patch, strip }) => patchKeys(patch, strip)
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ patch, strip }) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.applyPatch(patch, { strip }))
      return {
        files: result.files.map((file) => ({
          path: file.path,
          status: file.status,
          ...(file.from !== undefined ? { from: file.from } : {}),
          hunks: file.hunks,
          linesAdded: file.linesAdded,
          linesRemoved: file.linesRemoved
        }))
      }
    })
  )
)
