/**
 * An application that registers tools and a resource with a running
 * mcp-runtime through its bridge (see docs/bridge.md): a stand-in for a dev
 * server that lets the agent look at its in-memory state.
 *
 *   mcp-runtime serve --bridge            # the agent's server (started by the MCP client)
 *   node examples/bridge-app.ts           # this application; Ctrl-C disconnects it
 *
 * The agent then sees `app_shop_orders`, `app_shop_add_order` and the resource
 * `shop://orders` (after a `list_changed` notification); they vanish when this
 * process exits. The endpoint is `$MCP_RUNTIME_BRIDGE`, else the runtime's
 * default socket.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as BridgeClient from "effect-mcp-runtime/BridgeClient"
import * as Resource from "effect-mcp-runtime/Resource"
import * as Tool from "effect-mcp-runtime/Tool"

const orders: Array<{ readonly id: number; readonly item: string }> = [{ id: 1, item: "coffee" }]

const list = Tool.make("orders", {
  description: "Lists the orders the dev server holds in memory.",
  annotations: { readOnlyHint: true }
}).pipe(Tool.handle(() => Effect.succeed(JSON.stringify(orders))))

const add = Tool.make("add_order", {
  description: "Adds an order to the dev server's memory.",
  input: Schema.Struct({ item: Schema.String }),
  // Not destructive: the runtime does not ask for confirmation (an unannotated tool would be confirmed).
  annotations: { destructiveHint: false }
}).pipe(
  Tool.handle(({ item }) =>
    Effect.sync(() => {
      orders.push({ id: orders.length + 1, item })
      return `order ${orders.length} added`
    })
  )
)

const snapshot = Resource.make("orders", {
  uri: "shop://orders",
  description: "The orders, as JSON.",
  mimeType: "application/json"
}).pipe(Resource.handle(() => Effect.sync(() => JSON.stringify(orders))))

const program = Effect.gen(function* () {
  const bridge = yield* BridgeClient.connect({ name: "shop", tools: [list, add], resources: [snapshot] })
  const report = yield* bridge.report
  yield* Effect.log(`connected to ${bridge.endpoint}: ${report.published.map((entry) => entry.publicName).join(", ")}`)
  // Serves until the runtime goes away (or Ctrl-C closes the scope).
  yield* bridge.closed
})

NodeRuntime.runMain(Effect.scoped(program))
