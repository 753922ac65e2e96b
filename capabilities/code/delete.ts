/**
 * `code_delete`: removes a learned capability and withdraws its tool.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import type { Code } from "./learned.ts"

/**
 * `code_delete`.
 *
 * **Example**
 *
 * ```ts
 * // code_delete { "name": "notes:count" } → { deleted: "notes:count" }
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const deleteTool = (code: Code) =>
  Tool.make("delete", {
    title: "Delete a learned capability",
    description: "Deletes a learned capability: its tool is withdrawn and code can no longer call it.",
    input: Schema.Struct({ name: Schema.String.annotate({ description: "namespace:action" }) }),
    output: Schema.Struct({ deleted: Schema.String }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
  }).pipe(
    Tool.handle(({ name }) =>
      Effect.gen(function* () {
        if (!code.registry.learned().has(name)) {
          return yield* new Tool.ToolError({
            message: `No learned capability is named ${name}.`,
            code: "not_found",
            suggestion: "Call code_list for the learned capabilities."
          })
        }
        yield* code.store.remove(name).pipe(
          Effect.mapError(
            (error) =>
              new Tool.ToolError({
                message: error.message,
                code: "store_failed",
                suggestion: "Ask the operator to check the code store's directory (code.storePath)."
              })
          )
        )
        yield* code.withdraw(name)
        return { deleted: name }
      })
    )
  )
