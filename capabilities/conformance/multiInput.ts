/**
 * `multi_input` (tasks scenarios; published through the kernel's alias for
 * `tasks_multi_input`): a task with two questions at once.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

const Answer = Schema.Struct({ name: Schema.String, confirm: Schema.Boolean })

/**
 * Runs only as a task, which asks two questions concurrently (`input-1`,
 * `input-2`): both are outstanding together; answering one leaves the other,
 * and the task completes once both are answered.
 *
 * **Example**
 *
 * ```ts
 * import { multiInput } from "effect-mcp-runtime/capabilities/conformance/multiInput"
 *
 * multiInput.tool.task // => "required"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const multiInput = Tool.make("multi_input", {
  description: "A task that asks two questions at once and completes once both are answered",
  annotations: { readOnlyHint: true, openWorldHint: true },
  task: "required"
}).pipe(
  Tool.handle(() =>
    Task.background(
      Effect.all(
        [
          Elicitation.form("First: a name and a confirmation", Answer).pipe(Client.inputKey("input-1")),
          Elicitation.form("Second: a name and a confirmation", Answer).pipe(Client.inputKey("input-2"))
        ],
        { concurrency: "unbounded" }
      ).pipe(
        Effect.map((answers) =>
          answers.map((answer) => (answer.action === "accept" ? answer.content.name : answer.action)).join(", ")
        )
      )
    )
  )
)
