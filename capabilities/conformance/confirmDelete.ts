/**
 * `confirm_delete` (tasks scenarios; published through the kernel's alias for
 * `tasks_confirm_delete`): a task that waits for the user.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Runs only as a task, which asks the user to confirm deleting the file (its
 * status becomes `input_required`, with the question in `inputRequests`);
 * once `tasks/update` brings the answer it completes: deleted, or not. It
 * deletes nothing: a fixture.
 *
 * **Example**
 *
 * ```ts
 * import { confirmDelete } from "effect-mcp-runtime/capabilities/conformance/confirmDelete"
 *
 * confirmDelete.tool.task // => "required"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const confirmDelete = Tool.make("confirm_delete", {
  description: "A task that asks the user to confirm deleting a file (it deletes nothing)",
  input: Schema.Struct({ filename: Schema.String.annotate({ description: "The file to delete" }) }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  task: "required"
}).pipe(
  Tool.handle(({ filename }) =>
    Task.background(
      Elicitation.form(
        `Delete ${filename}?`,
        Schema.Struct({ confirm: Schema.Boolean.annotate({ title: "Delete it" }) })
      ).pipe(
        Effect.map((answer) =>
          answer.action === "accept" && answer.content.confirm ? `Deleted ${filename}` : `Not deleted: ${filename}`
        )
      )
    )
  )
)
