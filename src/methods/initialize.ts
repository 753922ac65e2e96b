/**
 * `initialize`: version negotiation and capability advertisement.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { InvalidRequest } from "../McpError.ts"
import { type InitializeResult, InitializeParams } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { ServerConfig } from "../ServerConfig.ts"
import { Session } from "../Session.ts"
import { capabilities as serverCapabilities } from "./serverDiscover.ts"

/**
 * Answers with the requested protocol version when supported (the latest
 * otherwise), the server's identity and instructions, and the capabilities of
 * what is actually registered.
 *
 * **Example**
 *
 * ```ts
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import { initialize } from "effect-mcp-runtime/methods/initialize"
 * import { ping } from "effect-mcp-runtime/methods/ping"
 *
 * // a server that answers only the handshake and ping
 * const minimal = McpServer.serve({ methods: [initialize, ping] })
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const initialize = Method.request("initialize", {
  params: InitializeParams,
  beforeInitialize: true,
  sequential: true,
  revisions: "legacy",
  handler: Effect.fnUntraced(function* (params) {
    const session = yield* Session
    if (session.state.phase !== "new") {
      return yield* new InvalidRequest({ message: "The session is already initialized; send initialize only once" })
    }
    const kernel = yield* Kernel
    const config = yield* ServerConfig
    const protocolVersion = ProtocolVersion.negotiate(params.protocolVersion)
    const capabilities = serverCapabilities(kernel, protocolVersion)
    session.state.protocolVersion = protocolVersion
    session.state.clientCapabilities = params.capabilities
    session.state.clientInfo = params.clientInfo
    session.state.serverCapabilities = capabilities
    session.state.phase = "ready"
    const result: InitializeResult = {
      protocolVersion,
      capabilities,
      serverInfo:
        // `title` arrived in 2025-06-18.
        config.title === undefined || !ProtocolVersion.hasStructuredContent(protocolVersion)
          ? { name: config.name, version: config.version }
          : { name: config.name, version: config.version, title: config.title },
      ...(config.instructions === undefined ? {} : { instructions: config.instructions })
    }
    return result
  })
})
