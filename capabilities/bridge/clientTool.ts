/**
 * `bridge_client_tool`: calls a tool of a connected application by the
 * application's name and the tool's name — for clients that cannot refresh
 * their tool list after `list_changed`, and for a tool the runtime could not
 * publish (its name was taken).
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NestedCall from "../../src/NestedCall.ts"
import * as Tool from "../../src/Tool.ts"
import { findApp, nearest } from "./shared.ts"

let sequence = 0

/**
 * The `client_tool` tool, published as `bridge_client_tool`. A published
 * tool is called through the whole `tools/call` pipeline (confirmation, the
 * execution policy, the audit log), as a nested call; a tool that is not
 * published is forwarded to the application as it is.
 *
 * **Example**
 *
 * ```ts
 * import { clientTool } from "./capabilities/bridge/clientTool.ts"
 *
 * clientTool.tool.name // => "client_tool"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const clientTool = Tool.make("client_tool", {
  title: "Call a bridge application's tool",
  description:
    "Calls a tool that a connected application (see bridge_list_client_tools_and_resources) registered, by the " +
    "application's name and the tool's name. Prefer calling its app_… name directly when your tool list has it.",
  input: Schema.Struct({
    application: Schema.String.annotate({ description: "The application's name, as listed." }),
    name: Schema.String.annotate({ description: "The tool's name (the application's own, or its app_… name)." }),
    arguments: Schema.optionalKey(
      Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "The tool's arguments (its inputSchema)." })
    )
  })
}).pipe(
  Tool.handle(({ application, arguments: args, name }) =>
    Effect.gen(function* () {
      const app = yield* findApp(application)
      const tools = app.entries.filter((entry) => entry.kind === "tool")
      const entry = tools.find((candidate) => candidate.name === name || candidate.publicName === name)
      if (entry === undefined) {
        const close = nearest(
          name,
          tools.map((candidate) => candidate.name)
        )
        return yield* new Tool.ToolError({
          message:
            `The application ${app.name} has no tool named ${JSON.stringify(name)}` +
            (close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`),
          suggestion:
            tools.length === 0
              ? `It registered no tools. Call bridge_list_client_tools_and_resources to see what it has.`
              : `Its tools: ${tools.map((candidate) => candidate.name).join(", ")}.`,
          code: "unknown_tool"
        })
      }
      if (entry.publicName !== undefined) {
        const outcome = yield* NestedCall.call(entry.publicName, args ?? {}, ++sequence)
        return outcome.result
      }
      return yield* app.callTool(entry.name, args ?? {})
    })
  )
)
