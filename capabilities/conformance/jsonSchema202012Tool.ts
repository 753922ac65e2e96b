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
}).annotate({ identifier: "address" })

/**
 * A tool whose input schema uses `$defs` (the address, a Schema with an
 * identifier), `$ref` and `additionalProperties: false`, published with
 * `$schema` naming the 2020-12 dialect. Answers with the arguments it got.
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
  description: "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
  input: Schema.Struct({ name: Schema.optionalKey(Schema.String), address: Schema.optionalKey(Address) }),
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle((args) => Effect.succeed(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)))
