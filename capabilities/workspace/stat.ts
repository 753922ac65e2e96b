/**
 * `workspace_stat`: what a path is, its size and when it was last modified.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"

/**
 * The `stat` tool, published as `workspace_stat`: the kind (file or
 * directory), the size in bytes and the last modification time of a path.
 *
 * **Example**
 *
 * ```ts
 * import { stat } from "./capabilities/workspace/stat.ts"
 *
 * stat.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const stat = Tool.make("stat", {
  title: "File information",
  description:
    "Tells whether a workspace path is a file or a directory, its size in bytes and when it was last modified, " +
    "without reading it. Use it to check that a path exists or to see how large a file is before workspace_read; " +
    "call workspace_list for a directory's contents.",
  input: Schema.Struct({
    path: Schema.String.annotate({ description: "The file or directory, relative to the workspace root." })
  }),
  output: Schema.Struct({
    path: Schema.String.annotate({ description: "The path, relative to the workspace root." }),
    kind: Schema.Literals(["file", "directory"]),
    size: Schema.Int.annotate({ description: "Size in bytes." }),
    modified: Schema.String.annotate({ description: "Last modification, ISO 8601 in UTC." }),
    modifiedMs: Schema.Number.annotate({ description: "Last modification, milliseconds since the epoch." })
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ path }) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.stat(path))
      return {
        path: result.path,
        kind: result.type,
        size: result.size,
        modified: new Date(result.modifiedMs).toISOString(),
        modifiedMs: result.modifiedMs
      }
    })
  )
)
