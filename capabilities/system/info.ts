/**
 * `system_info`: what this server is and what it serves.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Kernel } from "../../src/Kernel.ts"
import { RequestContext } from "../../src/RequestContext.ts"
import { ServerConfig } from "../../src/ServerConfig.ts"
import * as Tool from "../../src/Tool.ts"
import { WorkspaceRoot } from "../../src/WorkspaceRoot.ts"

const CapabilitySummary = Schema.Struct({
  id: Schema.String,
  version: Schema.String,
  description: Schema.String,
  tools: Schema.Array(Schema.String)
})

/**
 * The `info` tool, published as `system_info`: the server's identity, the
 * negotiated protocol version, its root, its runtime and every capability.
 *
 * It is not re-exported by the package; it is reached through `SystemCapability`.
 *
 * **Example**
 *
 * ```ts
 * import { info } from "./capabilities/system/info.ts"
 *
 * info.tool.title // => "Server information"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const info = Tool.make("info", {
  title: "Server information",
  description:
    "Describes this MCP server: its name and version, the negotiated protocol version, the root " +
    "directory it works in, the Node.js runtime, and every capability with the tools it provides. Call it first " +
    "when unsure what this server can do.",
  output: Schema.Struct({
    server: Schema.Struct({ name: Schema.String, version: Schema.String }),
    protocolVersion: Schema.String,
    root: Schema.String,
    runtime: Schema.Struct({ node: Schema.String, platform: Schema.String, arch: Schema.String }),
    capabilities: Schema.Array(CapabilitySummary)
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* () {
      const kernel = yield* Kernel
      const config = yield* ServerConfig
      const request = yield* RequestContext
      const root = yield* WorkspaceRoot
      return {
        server: { name: config.name, version: config.version },
        protocolVersion: request.protocolVersion,
        root,
        runtime: { node: process.version, platform: process.platform, arch: process.arch },
        capabilities: kernel
          .capabilities()
          .map(({ description, id, tools, version }) => ({ id, version, description, tools }))
      }
    })
  )
)
