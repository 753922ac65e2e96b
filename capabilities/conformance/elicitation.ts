/**
 * `test_elicitation`: asks the user for input through the client.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

const UserInfo = Schema.Struct({
  username: Schema.String.annotate({ description: "User's response" }),
  email: Schema.String.annotate({ description: "User's email address" })
})

/**
 * Sends `elicitation/create` (form mode) with the given message and answers
 * with the user's action and content. A client without elicitation gets a
 * tool error saying so.
 *
 * **Example**
 *
 * ```ts
 * import { elicitation } from "effect-mcp-runtime/capabilities/conformance/elicitation"
 *
 * elicitation.tool.name // => "elicitation"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const elicitation = Tool.make("elicitation", {
  description: "Tests server-initiated elicitation (user input request)",
  input: Schema.Struct({ message: Schema.String.annotate({ description: "The message to show the user" }) }),
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(({ message }) =>
    Elicitation.form(message, UserInfo).pipe(
      Effect.map(
        (answer) =>
          `User response: action=${answer.action}, content=${JSON.stringify(answer.action === "accept" ? answer.content : {})}`
      ),
      Effect.mapError((error) => new Tool.ToolError({ message: `Elicitation failed: ${error.message}` }))
    )
  )
)
