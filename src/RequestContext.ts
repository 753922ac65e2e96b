/**
 * The request-scoped context: everything a handler may need to know about the
 * request it is serving — its id, method, correlation id, the protocol version,
 * the client's capabilities and, when the transport authenticated it, the
 * caller (its principal).
 *
 * It is provided per request, never kept in module state. Today the version
 * and capabilities come from the session's `initialize`; under the stateless
 * 2026 revision they arrive with each request, and only the code that builds
 * this context changes.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type { Principal } from "./Authorization.ts"
import type { ClientCapabilities, Implementation, RequestId } from "./McpSchema.ts"
import type { ProtocolVersion } from "./ProtocolVersion.ts"

/**
 * What the runtime records about a request while serving it: the tool and
 * capability (for `tools/call`), how long it queued for a slot, and how it
 * ended. The per-request log line and the request's span carry these fields.
 *
 * **Example**
 *
 * ```ts
 * import type { RequestRecord } from "effect-mcp-runtime/RequestContext"
 *
 * const record: RequestRecord = { tool: "system_echo", capability: "system", queueMs: 0, outcome: "ok", ended: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestRecord {
  tool: string | undefined
  capability: string | undefined
  /** Milliseconds spent waiting for a concurrency slot. */
  queueMs: number
  /**
   * How the request ended: `ok`, `error` (a JSON-RPC error), `cancelled`, or
   * for a tool call the error code of an `isError` result (`timeout`,
   * `overloaded`, `invalid_arguments`, `result_too_large`, …).
   */
  outcome: string | undefined
  /**
   * What went wrong, for a request that did not end `ok`: the message of
   * its JSON-RPC error, or the text of a tool's `isError` result (without
   * its suggestion). The per-request log line carries it as `error`. Since
   * 0.5.0.
   */
  error?: string | undefined
  /**
   * Set when the request was cancelled or has ended: from then on nothing
   * more is sent for it (progress, client log messages).
   */
  ended: boolean
  /**
   * The answers a 2026-07-28 request carried for its input-required rounds
   * (`inputResponses`, `requestState`): a durable task keeps them, so that
   * the call can run again on another instance with the same answers. Since
   * 0.5.0.
   */
  inputs?: { readonly inputResponses?: unknown; readonly requestState?: unknown } | undefined
  /**
   * Present on a request the server's dispatch serves from the wire: what
   * runs, synchronously and in order, when the request ends, before its
   * answer is handed to the transport (the audit record of a call on a
   * transport that flushes records before it writes is queued there, with
   * no effect run for it). Absent on nested calls. Since 0.5.0.
   */
  atEnd?: Array<() => void> | undefined
}

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
    /**
     * What the runtime learns while serving the request, written as it goes
     * and read by the request's log line and span when it ends.
     */
    readonly record: RequestRecord
    /**
     * The user already agreed to this call: the request front asked once for
     * every destructive op of a request, so the call's own confirmation is
     * skipped. Only a nested call sets it (see `NestedCall`). Since 0.4.0.
     */
    readonly confirmed?: boolean | undefined
    /**
     * Who sent the request, when the transport authenticated the caller
     * (Streamable HTTP with authorization: the access token's principal).
     * The gate's `principals` rules and the audit record see its `subject`.
     * Since 0.5.0.
     */
    readonly principal?: Principal | undefined
  }
>()("effect-mcp-runtime/RequestContext") {}
