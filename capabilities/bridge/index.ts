/**
 * The `bridge` capability: applications that run next to the runtime (a dev
 * server, a test harness) connect to its bridge socket and register tools,
 * resources and prompts at run time; the runtime publishes them under
 * `app_` (never shadowing a static name; `list_changed` is sent), forwards
 * calls to the application (with cancellation, under the execution policy)
 * and removes them when it disconnects. The capability contributes three
 * tools: `bridge_list_client_tools_and_resources`, `bridge_client_tool` and
 * `bridge_client_resource`.
 *
 * It needs a `BridgeListener`: on Node, `layers/BridgeServer.ts` (a Unix
 * socket under the state directory, or TCP on loopback with a token). See
 * `docs/bridge.md`.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Capability from "../../src/Capability.ts"
import { clientResource } from "./clientResource.ts"
import { clientTool } from "./clientTool.ts"
import { BridgeApps, layer as hostLayer } from "./host.ts"
import { listClientToolsAndResources } from "./list.ts"

/**
 * The capability layer: the three tools, and the host that serves the
 * applications of the `BridgeListener` it is given.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import { BridgeCapability } from "effect-mcp-runtime/capabilities/bridge"
 * import * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * const Bridge = BridgeCapability.pipe(Layer.provide(BridgeServer.layer({ path: "/tmp/app-bridge.sock" })))
 * const program = McpServer.serve().pipe(Effect.provide(Bridge.pipe(Layer.provideMerge(Kernel.layer()))))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const BridgeCapability = Capability.make(
  {
    id: "bridge",
    description: "Tools and resources that running applications register at run time (app_…)",
    version: "0.5.0"
  },
  Effect.succeed({ tools: [listClientToolsAndResources, clientTool, clientResource] })
).pipe(Layer.provideMerge(hostLayer))

export {
  /**
   * The connected applications (the service the tools read).
   *
   * @since 0.5.0
   */
  BridgeApps,
  /**
   * `bridge_client_resource`.
   *
   * @since 0.5.0
   */
  clientResource,
  /**
   * `bridge_client_tool`.
   *
   * @since 0.5.0
   */
  clientTool,
  /**
   * `bridge_list_client_tools_and_resources`.
   *
   * @since 0.5.0
   */
  listClientToolsAndResources
}
