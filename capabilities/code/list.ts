/**
 * `code_list`: the learned capabilities.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { learnedTool } from "./engine.ts"
import type { Code } from "./learned.ts"

/**
 * `code_list`.
 *
 * **Example**
 *
 * ```ts
 * // code_list {} → { learned: [{ name: "notes:count", tool: "app_notes_count", … }] }
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const listTool = (code: Code) =>
  Tool.make("list", {
    title: "List learned capabilities",
    description:
      "Lists the learned capabilities (saved with code_save): name, description, the tool each is published as, " +
      "and how code calls it. Call code_show for one's code and input schema.",
    output: Schema.Struct({
      learned: Schema.Array(
        Schema.Struct({
          name: Schema.String,
          description: Schema.String,
          tool: Schema.String,
          call: Schema.String,
          savedAt: Schema.String
        })
      ),
      store: Schema.String.annotate({ description: "Where they are kept." })
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
  }).pipe(
    Tool.handle(() =>
      Effect.sync(() => ({
        learned: [...code.registry.learned().values()]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((learned) => ({
            name: learned.name,
            description: learned.description,
            tool: learnedTool(learned.name),
            call: `mcp.${learned.name.replace(":", ".")}(args)`,
            savedAt: learned.savedAt
          })),
        store: code.store.location
      }))
    )
  )
