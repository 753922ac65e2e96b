/**
 * The connection-scoped state of one MCP session: where it is in the
 * lifecycle, what was negotiated in `initialize`, and a way to send
 * notifications to the client.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from "./McpSchema.ts"
import type { ProtocolVersion } from "./ProtocolVersion.ts"

/**
 * Where a session is in the MCP lifecycle. `ready` is reached when the server
 * has answered `initialize`; `notifications/initialized` then sets
 * `initializedNotified`.
 *
 * **Example**
 *
 * ```ts
 * import type * as Session from "effect-mcp-runtime/Session"
 *
 * const acceptsRequests = (phase: Session.Phase): boolean => phase === "ready"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Phase = "new" | "ready" | "closing"

/**
 * The mutable state of a session. Only the server core writes it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Session } from "effect-mcp-runtime/Session"
 *
 * const negotiatedVersion = Effect.map(Effect.service(Session), (session) => session.state.protocolVersion)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionState {
  phase: Phase
  protocolVersion: ProtocolVersion
  clientCapabilities: ClientCapabilities
  clientInfo: Implementation | undefined
  initializedNotified: boolean
  /** What the server advertised in its `initialize` result. */
  serverCapabilities: ServerCapabilities
  /** The level the client chose with `logging/setLevel`, if it did. */
  logLevel: LoggingLevel | undefined
  /** The URIs the client subscribed to (`resources/subscribe`). */
  readonly subscriptions: Set<string>
}

/**
 * The session service, provided by the server core for each connection.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Session } from "effect-mcp-runtime/Session"
 *
 * const announce = Effect.gen(function*() {
 *   const session = yield* Session
 *   yield* session.notify("notifications/tools/list_changed")
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Session extends Context.Service<
  Session,
  {
    /** An id for this connection, the prefix of every correlation id it issues. */
    readonly id: string
    readonly state: SessionState
    /** Sends a notification to the client. */
    readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
    /** Interrupts an in-flight request; unknown ids and `initialize` are ignored. */
    readonly cancel: (requestId: string | number) => Effect.Effect<void>
    /**
     * Closes the connection that carries a request's messages without ending
     * the request (SSE polling, protocol 2025-11-25): the client reconnects and
     * resumes the stream where it stopped. Whatever the request sends in the
     * meantime waits for it. A transport with one stream (stdio) ignores it.
     */
    readonly detach: (requestId: string | number) => Effect.Effect<void>
  }
>()("effect-mcp-runtime/Session") {}
