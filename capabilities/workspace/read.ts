/**
 * `workspace_read`: reads a text file, or one slice of it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"

/**
 * The `read` tool, published as `workspace_read`: the UTF-8 text of a file
 * from `offset` (default 0), at most `length` bytes (default and ceiling: the
 * workspace's read limit, 1 MiB unless configured). When the file goes on,
 * `truncated` is true, `nextOffset` says where to continue and `note` says so
 * in words.
 *
 * **Example**
 *
 * ```ts
 * import { read } from "./capabilities/workspace/read.ts"
 *
 * read.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const read = Tool.make("read", {
  title: "Read a file",
  description:
    "Reads a text file in the workspace and returns its content (UTF-8). Paths are relative to the workspace root, " +
    "with / separators. Large files come in slices: when the result says truncated, call workspace_read again with " +
    "offset set to nextOffset to read on. Call workspace_list first if you do not know the path, and workspace_stat " +
    "to learn a file's size without reading it.",
  input: Schema.Struct({
    path: Schema.String.annotate({ description: "The file, relative to the workspace root, e.g. src/main.ts." }),
    offset: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
        description: "The byte to start at (default 0); pass the nextOffset of the previous read to continue."
      })
    ),
    length: Schema.optionalKey(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
        description: "At most this many bytes (default and maximum: the server's read limit, usually 1 MiB)."
      })
    )
  }),
  output: Schema.Struct({
    path: Schema.String.annotate({ description: "The path read, relative to the workspace root." }),
    content: Schema.String.annotate({ description: "The text of the bytes read." }),
    offset: Schema.Int.annotate({ description: "The byte the content starts at." }),
    bytesRead: Schema.Int,
    size: Schema.Int.annotate({ description: "The file's size in bytes." }),
    truncated: Schema.Boolean.annotate({ description: "True when the file goes on past the content." }),
    nextOffset: Schema.optionalKey(Schema.Int.annotate({ description: "Where to continue reading, when truncated." })),
    binary: Schema.Boolean.annotate({ description: "True when the bytes contain a NUL byte (probably not text)." }),
    note: Schema.optionalKey(Schema.String.annotate({ description: "How to read on, when truncated." }))
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ length, offset, path }) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.read(path, { offset, length }))
      const base = {
        path: result.path,
        content: result.content,
        offset: result.offset,
        bytesRead: result.bytesRead,
        size: result.size,
        truncated: result.truncated,
        binary: result.binary
      }
      if (!result.truncated || result.nextOffset === undefined) return base
      return {
        ...base,
        nextOffset: result.nextOffset,
        note:
          `Truncated: read bytes ${result.offset}-${result.nextOffset} of ${result.size}. ` +
          `Call workspace_read with path ${JSON.stringify(result.path)} and offset ${result.nextOffset} to read on.`
      }
    })
  )
)
