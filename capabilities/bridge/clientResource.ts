/**
 * `bridge_client_resource`: reads a resource of a connected application by
 * URI.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ContentBlock } from "../../src/McpSchema.ts"
import * as Tool from "../../src/Tool.ts"
import { BridgeApps } from "./host.ts"
import { findApp, nearest, noApplication } from "./shared.ts"

// Whether `uri` is the resource `registered` names: the same URI, or a URI that starts with a template's literal
// prefix (the application checks the rest).
const names = (registered: string, uri: string): boolean => {
  const brace = registered.indexOf("{")
  return brace === -1 ? registered === uri : uri.startsWith(registered.slice(0, brace))
}

/**
 * The `client_resource` tool, published as `bridge_client_resource`: the
 * contents of the resource (text, or base64 for binary contents).
 *
 * **Example**
 *
 * ```ts
 * import { clientResource } from "./capabilities/bridge/clientResource.ts"
 *
 * clientResource.tool.name // => "client_resource"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const clientResource = Tool.make("client_resource", {
  title: "Read a bridge application's resource",
  description:
    "Reads a resource that a connected application (see bridge_list_client_tools_and_resources) registered, by " +
    "URI (a concrete URI for a template). For clients without resources/read or whose resource list is stale.",
  input: Schema.Struct({
    uri: Schema.String.annotate({ description: "The resource's URI." }),
    application: Schema.optionalKey(
      Schema.String.annotate({ description: "The application's name; by default the one that registered the URI." })
    )
  }),
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(({ application, uri }) =>
    Effect.gen(function* () {
      const bridge = yield* BridgeApps
      const apps = bridge.apps()
      // No application connected: the error says how to connect one.
      if (apps.length === 0) return yield* noApplication(bridge.endpoint, bridge.tokenFile)
      const owner =
        application ??
        apps.find((app) =>
          app.entries.some((entry) => entry.kind === "resource" && entry.uri !== undefined && names(entry.uri, uri))
        )?.name
      if (owner === undefined) {
        const uris = apps.flatMap((app) => app.entries.flatMap((entry) => (entry.uri === undefined ? [] : [entry.uri])))
        const close = nearest(uri, uris)
        return yield* new Tool.ToolError({
          message:
            `No connected application registered the resource ${uri}` +
            (close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`),
          suggestion: `Call bridge_list_client_tools_and_resources to see the applications' resources, or name the application.`,
          code: "unknown_resource"
        })
      }
      const app = yield* findApp(owner)
      const items = yield* app.readResource(uri).pipe(
        Effect.mapError(
          (error) =>
            new Tool.ToolError({
              message: error.message,
              suggestion: `Check the URI against bridge_list_client_tools_and_resources.`,
              code: error._tag === "NotFound" ? "resource_not_found" : "bridge_error"
            })
        )
      )
      const contents: Array<ContentBlock> = items.map((item) => {
        const common = { uri: item.uri ?? uri, ...(item.mimeType === undefined ? {} : { mimeType: item.mimeType }) }
        return Tool.resource(
          "text" in item
            ? { ...common, text: item.text }
            : { ...common, blob: typeof item.blob === "string" ? item.blob : Buffer.from(item.blob).toString("base64") }
        )
      })
      return contents
    })
  )
)
