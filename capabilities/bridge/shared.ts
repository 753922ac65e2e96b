/**
 * What the `bridge` tools share: how an agent is told to connect an
 * application, and the nearest names to a mistyped one.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import { endpointVariable, formatEndpoint, tokenVariable } from "../../src/internal/bridgeProtocol.ts"
import { editDistance } from "../../src/internal/editDistance.ts"
import { ToolError } from "../../src/Tool.ts"
import { type App, BridgeApps } from "./host.ts"

/**
 * How an application connects to this bridge, in one sentence.
 *
 * **Example**
 *
 * ```ts
 * import { howToConnect } from "./capabilities/bridge/shared.ts"
 *
 * howToConnect({ _tag: "Unix", path: "/tmp/b.sock" }, undefined).includes("/tmp/b.sock") // => true
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const howToConnect = (endpoint: BridgeApps["Service"]["endpoint"], tokenFile: string | undefined): string =>
  `An application connects with BridgeClient.connect from "effect-mcp-runtime/BridgeClient" ` +
  `(or any MCP server speaking newline-delimited JSON-RPC after the bridge's hello line) to ` +
  `${formatEndpoint(endpoint)}` +
  (endpoint._tag === "Tcp"
    ? ` with the token ${tokenFile === undefined ? "the runtime was given" : `in ${tokenFile}`} (${tokenVariable})`
    : "") +
  `; start it with ${endpointVariable}=${formatEndpoint(endpoint)} in its environment. See docs/bridge.md.`

/**
 * The names of `candidates` nearest to `name` (at most three), for an error
 * message.
 *
 * **Example**
 *
 * ```ts
 * import { nearest } from "./capabilities/bridge/shared.ts"
 *
 * nearest("ordres", ["orders", "users"]) // => ["orders"]
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const nearest = (name: string, candidates: ReadonlyArray<string>): ReadonlyArray<string> =>
  candidates
    .map((candidate) => ({ candidate, distance: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(candidate.length / 3)))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 3)
    .map(({ candidate }) => candidate)

/**
 * The error of a bridge tool called while no application is connected: it
 * says how to connect one.
 *
 * **Example**
 *
 * ```ts
 * import { noApplication } from "./capabilities/bridge/shared.ts"
 *
 * noApplication({ _tag: "Unix", path: "/tmp/b.sock" }, undefined).code // => "no_application"
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export const noApplication = (endpoint: BridgeApps["Service"]["endpoint"], tokenFile: string | undefined): ToolError =>
  new ToolError({
    message: `No application is connected to the bridge.`,
    suggestion: howToConnect(endpoint, tokenFile),
    code: "no_application"
  })

/**
 * The connected application named `name`, or a `ToolError` that says how to
 * connect one (none connected) or names the connected ones.
 *
 * **Example**
 *
 * ```ts
 * import { findApp } from "./capabilities/bridge/shared.ts"
 *
 * const shop = findApp("shop")
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const findApp = (name: string): Effect.Effect<App, ToolError, BridgeApps> =>
  Effect.flatMap(Effect.service(BridgeApps), (bridge) => {
    const apps = bridge.apps()
    const app = apps.find((candidate) => candidate.name === name)
    if (app !== undefined) return Effect.succeed(app)
    if (apps.length === 0) {
      return Effect.fail(noApplication(bridge.endpoint, bridge.tokenFile))
    }
    const names = apps.map((candidate) => candidate.name)
    const close = nearest(name, names)
    return Effect.fail(
      new ToolError({
        message:
          `No application named ${JSON.stringify(name)} is connected` +
          (close.length === 0 ? "" : `; did you mean ${close.join(" or ")}?`),
        suggestion: `The connected applications: ${names.join(", ")}. Call bridge_list_client_tools_and_resources to see their tools.`,
        code: "unknown_application"
      })
    )
  })
