/**
 * `json_schema_2020_12_tool` (capability `json`): an input schema with
 * 2020-12 features.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"

const Address = Schema.Struct({
  street: Schema.optionalKey(Schema.String),
  city: Schema.optionalKey(Schema.String)
})

// The contact rules of the JSON Schema below, for the decoder: a phone or an
// email, and the one `contactMethod` names.
const Input = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  address: Schema.optionalKey(Address),
  contactMethod: Schema.optionalKey(Schema.Literals(["phone", "email"])),
  phone: Schema.optionalKey(Schema.String),
  email: Schema.optionalKey(Schema.String)
}).check(
  Schema.makeFilter(
    (input) =>
      input.contactMethod === "phone"
        ? input.phone !== undefined || "contactMethod is phone: give a phone"
        : input.email !== undefined || "give an email (or contactMethod phone and a phone)",
    { expected: "a phone or an email, as contactMethod says" }
  )
)

/**
 * A tool whose input schema uses JSON Schema 2020-12 features Effect Schema
 * does not generate — `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`
 * across properties, `if`/`then`/`else`, `additionalProperties: false` —
 * published as given (`Tool.make`'s `inputJsonSchema`), its rules checked
 * again by the input Schema. Answers with the arguments it got.
 *
 * **Example**
 *
 * ```ts
 * import { jsonSchema202012Tool } from "effect-mcp-runtime/capabilities/conformance/jsonSchema202012Tool"
 *
 * jsonSchema202012Tool.tool.name // => "schema_2020_12_tool"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const jsonSchema202012Tool = Tool.make("schema_2020_12_tool", {
  description: "Tool with JSON Schema 2020-12 features",
  input: Input,
  inputJsonSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: {
        $anchor: "addressDef",
        type: "object",
        properties: { street: { type: "string" }, city: { type: "string" } }
      }
    },
    properties: {
      name: { type: "string" },
      address: { $ref: "#/$defs/address" },
      contactMethod: { type: "string", enum: ["phone", "email"] },
      phone: { type: "string" },
      email: { type: "string" }
    },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    then: { required: ["phone"] },
    else: { required: ["email"] },
    additionalProperties: false
  },
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle((args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)))
