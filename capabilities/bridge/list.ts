/**
 * `bridge_list_client_tools_and_resources`: the applications connected to
 * the bridge, with their tools, resources and prompts and the public `app_…`
 * names they are published under.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { formatEndpoint } from "../../src/internal/bridgeProtocol.ts"
import * as Tool from "../../src/Tool.ts"
import { BridgeApps } from "./host.ts"
import { howToConnect } from "./shared.ts"

const Entry = Schema.Struct({
  name: Schema.String.annotate({ description: "The application's own name of it." }),
  publicName: Schema.optionalKey(
    Schema.String.annotate({ description: "The name it is published under (call it with tools/call)." })
  ),
  description: Schema.optionalKey(Schema.String),
  uri: Schema.optionalKey(Schema.String.annotate({ description: "A resource's URI, or a template's URI template." })),
  refused: Schema.optionalKey(
    Schema.String.annotate({ description: "Why it is not published (call it with bridge_client_tool instead)." })
  )
})

/**
 * The `list_client_tools_and_resources` tool, published as
 * `bridge_list_client_tools_and_resources`.
 *
 * **Example**
 *
 * ```ts
 * import { listClientToolsAndResources } from "./capabilities/bridge/list.ts"
 *
 * listClientToolsAndResources.tool.name // => "list_client_tools_and_resources"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const listClientToolsAndResources = Tool.make("list_client_tools_and_resources", {
  title: "List bridge applications",
  description:
    "Lists the applications connected to the runtime's bridge (a dev server, a test harness) with the tools, " +
    "resources and prompts each registered at run time, and the app_… names they are published under. " +
    "Use it when an app_ tool is missing or after an application restarted.",
  input: Schema.Struct({}),
  output: Schema.Struct({
    endpoint: Schema.String.annotate({
      description: "Where applications connect (a socket path, or tcp://host:port)."
    }),
    howToConnect: Schema.String,
    applications: Schema.Array(
      Schema.Struct({
        name: Schema.String,
        pid: Schema.optionalKey(Schema.Number),
        since: Schema.String.annotate({ description: "When it connected (ISO 8601)." }),
        tools: Schema.Array(Entry),
        resources: Schema.Array(Entry),
        prompts: Schema.Array(Entry)
      })
    )
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.map(Effect.service(BridgeApps), (bridge) => ({
      endpoint: formatEndpoint(bridge.endpoint),
      howToConnect: howToConnect(bridge.endpoint, bridge.tokenFile),
      applications: bridge.apps().map((app) => {
        const of = (kind: "tool" | "resource" | "prompt") =>
          app.entries
            .filter((entry) => entry.kind === kind)
            .map((entry) => ({
              name: entry.name,
              ...(entry.publicName === undefined ? {} : { publicName: entry.publicName }),
              ...(entry.description === undefined || entry.description === ""
                ? {}
                : { description: entry.description }),
              ...(entry.uri === undefined ? {} : { uri: entry.uri }),
              ...(entry.refused === undefined ? {} : { refused: entry.refused })
            }))
        return {
          name: app.name,
          ...(app.pid === undefined ? {} : { pid: app.pid }),
          since: app.since,
          tools: of("tool"),
          resources: of("resource"),
          prompts: of("prompt")
        }
      })
    }))
  )
)
