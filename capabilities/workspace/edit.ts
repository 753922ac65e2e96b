/**
 * `workspace_edit`: replaces one exact piece of text in a file.
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
 * The `edit` tool, published as `workspace_edit`: replaces the single
 * occurrence of `oldText` in a file with `newText`; fails when `oldText`
 * occurs zero times or more than once. Destructive, so the runtime asks for
 * confirmation before it runs.
 *
 * **Example**
 *
 * ```ts
 * import { edit } from "./capabilities/workspace/edit.ts"
 *
 * edit.tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const edit = Tool.make("edit", {
  title: "Edit a file",
  description:
    "Changes part of an existing workspace file: replaces exactly one occurrence of oldText with newText. " +
    "oldText must match the file's text exactly (whitespace and line breaks included) and occur exactly once; " +
    "include surrounding lines to make it unique. Call workspace_read first to copy the exact text. The user must " +
    "confirm the call. To create a file or replace all of it, use workspace_write.",
  input: Schema.Struct({
    path: Schema.String.annotate({ description: "The file, relative to the workspace root." }),
    oldText: Schema.String.annotate({ description: "The exact text to replace; must occur exactly once." }),
    newText: Schema.String.annotate({ description: "The text to put in its place." })
  }),
  output: Schema.Struct({
    path: Schema.String.annotate({ description: "The file edited, relative to the workspace root." }),
    bytesWritten: Schema.Int.annotate({ description: "The file's new size in bytes." })
  }),
  annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
  writeKey: ({ path }) => fileKey(path)
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ newText, oldText, path }) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.edit(path, { oldText, newText }))
      return { path: result.path, bytesWritten: result.bytesWritten }
    })
  )
)
