/**
 * `workspace_list`: lists a directory, one page at a time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { listLimits, Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"

/**
 * The `list` tool, published as `workspace_list`: the entries of a directory
 * (default: the workspace root), ordered by name, `limit` a page (default
 * 100, at most 1000), with `nextCursor` when more follow. Symlinks are shown
 * as such; secrets on the deny list are left out.
 *
 * **Example**
 *
 * ```ts
 * import { list } from "./capabilities/workspace/list.ts"
 *
 * list.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const list = Tool.make("list", {
  title: "List a directory",
  description:
    "Lists the files and directories in a workspace directory (default: the workspace root), ordered by name, with " +
    "each entry's kind (file, directory, symlink, other) and size in bytes. Use it to discover paths before calling " +
    "workspace_read, workspace_stat, workspace_write or workspace_edit; list a subdirectory by passing its path. " +
    "When nextCursor is present, call workspace_list again with the same path and that cursor for the next page.",
  input: Schema.Struct({
    path: Schema.optionalKey(
      Schema.String.annotate({ description: 'The directory, relative to the workspace root (default ".").' })
    ),
    cursor: Schema.optionalKey(
      Schema.String.annotate({ description: "The nextCursor of the previous page of the same directory." })
    ),
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: listLimits.max })).annotate({
        description: `At most this many entries (1-${listLimits.max}, default ${listLimits.default}).`
      })
    )
  }),
  output: Schema.Struct({
    path: Schema.String.annotate({ description: 'The directory listed, relative to the root ("" is the root).' }),
    entries: Schema.Array(
      Schema.Struct({
        name: Schema.String,
        path: Schema.String.annotate({ description: "The entry's path relative to the root; pass it to other tools." }),
        kind: Schema.Literals(["file", "directory", "symlink", "other"]),
        size: Schema.Int.annotate({ description: "Size in bytes." })
      })
    ),
    nextCursor: Schema.optionalKey(
      Schema.String.annotate({ description: "Present when more entries follow: pass it as cursor." })
    )
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ cursor, limit, path = "." }) {
      const workspace = yield* Workspace
      const page = yield* mapWorkspaceError(workspace.list(path, { cursor, limit }))
      const entries = page.entries.map((entry) => ({
        name: entry.name,
        path: entry.path,
        kind: entry.type,
        size: entry.size
      }))
      return page.nextCursor === undefined
        ? { path: page.path, entries }
        : { path: page.path, entries, nextCursor: page.nextCursor }
    })
  )
)
