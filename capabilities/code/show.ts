/**
 * `code_show`: one learned capability, its code included.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { learnedTool } from "./engine.ts"
import type { Code } from "./learned.ts"

/**
 * `code_show`.
 *
 * **Example**
 *
 * ```ts
 * // code_show { "name": "notes:count" } → its description, input schema, code and the tools it calls
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const showTool = (code: Code) =>
  Tool.make("show", {
    title: "Show a learned capability",
    description: "Shows a learned capability: description, input JSON Schema, code, and the tools its code calls.",
    input: Schema.Struct({ name: Schema.String.annotate({ description: "namespace:action" }) }),
    output: Schema.Struct({
      name: Schema.String,
      description: Schema.String,
      tool: Schema.String,
      inputSchema: Schema.Record(Schema.String, Schema.Unknown),
      code: Schema.String,
      language: Schema.String,
      references: Schema.Array(Schema.String),
      savedAt: Schema.String
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // Code and schemas are read exactly: the request front never compacts them.
    presentation: "verbose"
  }).pipe(
    Tool.handle(({ name }) => {
      const learned = code.registry.learned().get(name)
      if (learned === undefined) {
        return Effect.fail(
          new Tool.ToolError({
            message: `No learned capability is named ${name}.`,
            code: "not_found",
            suggestion: "Call code_list for the learned capabilities."
          })
        )
      }
      return Effect.succeed({ ...learned, tool: learnedTool(learned.name) })
    })
  )
