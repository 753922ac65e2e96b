/**
 * `workspace_write`: creates or replaces a file.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"
import { fileKey } from "./writeKey.ts"

/**
 * The `write` tool, published as `workspace_write`: writes `content` to a
 * file, creating it and its missing parent directories, or replacing it.
 * Destructive, so the runtime asks for confirmation before it runs.
 *
 * **Example**
 *
 * ```ts
 * import { write } from "./capabilities/workspace/write.ts"
 *
 * write.tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const write = Tool.make("write", {
  title: "Write a file",
  description:
    "Creates a file in the workspace, or replaces its whole content, with the given UTF-8 text; missing parent " +
    "directories are created. It overwrites without merging: to change part of an existing file, prefer " +
    "workspace_edit. The user must confirm the call. Afterwards, workspace_read shows the result.",
  input: Schema.Struct({
    path: Schema.String.annotate({ description: "The file, relative to the workspace root, e.g. notes/todo.md." }),
    content: Schema.String.annotate({ description: "The complete new content of the file." })
  }),
  output: Schema.Struct({
    path: Schema.String.annotate({ description: "The file written, relative to the workspace root." }),
    bytesWritten: Schema.Int,
    created: Schema.Boolean.annotate({ description: "True when the file did not exist before." })
  }),
  annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
  writeKey: ({ path }) => fileKey(path)
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ content, path }) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.write(path, content))
      return { path: result.path, bytesWritten: result.bytesWritten, created: result.created }
    })
  )
)
