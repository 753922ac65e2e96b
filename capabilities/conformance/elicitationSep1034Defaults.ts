/**
 * `test_elicitation_sep1034_defaults`: a form whose fields all have defaults.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * The form the tool asks for.
 *
 * **Example**
 *
 * ```ts
 * import { Sep1034Form } from "effect-mcp-runtime/capabilities/conformance/elicitationSep1034Defaults"
 *
 * Object.keys(Sep1034Form.fields).length // => 5
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Sep1034Form = Schema.Struct({
  name: Schema.optionalKey(Schema.String.annotate({ description: "User name", default: "John Doe" })),
  age: Schema.optionalKey(Schema.Int.annotate({ description: "User age", default: 30 })),
  score: Schema.optionalKey(Schema.Number.annotate({ description: "User score", default: 95.5 })),
  status: Schema.optionalKey(
    Schema.Literals(["active", "inactive", "pending"]).annotate({ description: "User status", default: "active" })
  ),
  verified: Schema.optionalKey(Schema.Boolean.annotate({ description: "Verification status", default: true }))
})

/**
 * Asks for a form with a default on every field — string, integer, number,
 * enum and boolean (SEP-1034) — and answers with the user's action and
 * content.
 *
 * **Example**
 *
 * ```ts
 * import { elicitationSep1034Defaults } from "effect-mcp-runtime/capabilities/conformance/elicitationSep1034Defaults"
 *
 * elicitationSep1034Defaults.tool.name // => "elicitation_sep1034_defaults"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const elicitationSep1034Defaults = Tool.make("elicitation_sep1034_defaults", {
  description: "Tests elicitation with default values per SEP-1034",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Elicitation.form("Please review and update the form fields with defaults", Sep1034Form).pipe(
      Effect.map(
        (answer) =>
          `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === "accept" ? answer.content : {})}`
      ),
      Effect.mapError((error) => new Tool.ToolError({ message: `Elicitation failed: ${error.message}` }))
    )
  )
)
