/**
 * `test_tool_with_task` (tasks scenarios): input first, synchronously, then a
 * task.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Task from "../../src/Task.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the user's name first — an input-required round, answered before any
 * task exists (as the tasks extension recommends) — then greets them from a
 * task: the retry carrying the name is answered with the created task.
 *
 * **Example**
 *
 * ```ts
 * import { toolWithTask } from "effect-mcp-runtime/capabilities/conformance/toolWithTask"
 *
 * toolWithTask.tool.name // => "tool_with_task"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const toolWithTask = Tool.make("tool_with_task", {
  description: "Asks a name (an input-required round), then greets from a task",
  annotations: { readOnlyHint: true, openWorldHint: true },
  task: "required"
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      const answer = yield* Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
        Client.inputKey("user_name")
      )
      const name = answer.action === "accept" ? answer.content.name : "stranger"
      return yield* Task.background(Effect.as(Effect.sleep("200 millis"), `Hello, ${name}!`))
    })
  )
)
