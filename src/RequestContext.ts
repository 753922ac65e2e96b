/**
 * The request-scoped context: everything a handler may need to know about the
 * request it is serving — its id, method, correlation id, the protocol version
 * and the client's capabilities.
 *
 * It is provided per request, never kept in module state. Today the version
 * and capabilities come from the session's `initialize`; under the stateless
 * 2026 revision they arrive with each request, and only the code that builds
 * this context changes.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { ClientCapabilities, Implementation, RequestId } from "./McpSchema.ts"
import type { ProtocolVersion } from "./ProtocolVersion.ts"

/**
 * The request-scoped service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { RequestContext } from "effect-mcp-runtime/RequestContext"
 *
 * const whoAsked = Effect.gen(function*() {
 *   const request = yield* RequestContext
 *   return `${request.method} #${String(request.requestId)} (${request.correlationId})`
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class RequestContext extends Context.Service<
  RequestContext,
  {
    /** The JSON-RPC id of the request. */
    readonly requestId: RequestId
    /** The MCP method, e.g. `tools/call`. */
    readonly method: string
    /** An id unique to this request within the process, used in logs and in error results. */
    readonly correlationId: string
    /** The protocol revision in force for this request. */
    readonly protocolVersion: ProtocolVersion
    /** What the client declared it supports. */
    readonly clientCapabilities: ClientCapabilities
    /** The client's self-reported name and version, when it sent them. */
    readonly clientInfo: Implementation | undefined
    /** The `_meta.progressToken` of the request, if any. */
    readonly progressToken: string | number | undefined
  }
>()("effect-mcp-runtime/RequestContext") {}
