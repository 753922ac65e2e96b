/**
 * `test_elicitation_sep1330_enums`: a form with every kind of choice field.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Tool from "../../src/Tool.ts"

const titled = (choices: ReadonlyArray<readonly [string, string]>) =>
  Schema.Union(choices.map(([value, title]) => Schema.Literal(value).annotate({ title })))

/**
 * The form the tool asks for.
 *
 * **Example**
 *
 * ```ts
 * import { Sep1330Form } from "effect-mcp-runtime/capabilities/conformance/elicitationSep1330Enums"
 *
 * Object.keys(Sep1330Form.fields).length // => 5
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const Sep1330Form = Schema.Struct({
  untitledSingle: Schema.Literals(["option1", "option2", "option3"]).annotate({ description: "Select one option" }),
  titledSingle: titled([
    ["value1", "First Option"],
    ["value2", "Second Option"],
    ["value3", "Third Option"]
  ]).annotate({ description: "Select one option with titles" }),
  legacyEnum: Elicitation.enumNames(["opt1", "opt2", "opt3"], ["Option One", "Option Two", "Option Three"]).annotate({
    description: "Select one option (legacy)"
  }),
  untitledMulti: Schema.Array(Schema.Literals(["option1", "option2", "option3"]))
    .check(Schema.isMinLength(1), Schema.isMaxLength(3))
    .annotate({ description: "Select multiple options" }),
  titledMulti: Schema.Array(
    titled([
      ["value1", "First Choice"],
      ["value2", "Second Choice"],
      ["value3", "Third Choice"]
    ])
  )
    .check(Schema.isMinLength(1), Schema.isMaxLength(3))
    .annotate({ description: "Select multiple options with titles" })
})

/**
 * Asks for a form with untitled, titled and legacy (`enumNames`) single
 * choices and untitled and titled multi-selects (SEP-1330), and answers with
 * the user's action and content.
 *
 * **Example**
 *
 * ```ts
 * import { elicitationSep1330Enums } from "effect-mcp-runtime/capabilities/conformance/elicitationSep1330Enums"
 *
 * elicitationSep1330Enums.tool.name // => "elicitation_sep1330_enums"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const elicitationSep1330Enums = Tool.make("elicitation_sep1330_enums", {
  description: "Tests elicitation with enum schema improvements per SEP-1330",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Elicitation.form("Please select options from the enum fields", Sep1330Form).pipe(
      Effect.map(
        (answer) =>
          `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.action === "accept" ? answer.content : {})}`
      ),
      Effect.mapError((error) => new Tool.ToolError({ message: `Elicitation failed: ${error.message}` }))
    )
  )
)
