/**
 * The client, as handlers see it: what it declared it supports, and requests
 * to it (`elicitation/create`, `sampling/createMessage`, `roots/list`) that a
 * handler waits on like any other effect.
 *
 * A request to the client is interruptible: when the handler's request is
 * cancelled or times out, the wait ends at once, the pending entry is
 * dropped, and the client is sent `notifications/cancelled` for it; an answer
 * that arrives later is ignored. When the connection closes, every pending
 * request fails with {@link ClientGone}. Nothing waits forever on a client
 * that never answers, as long as a timeout applies (tool calls have one by
 * default).
 *
 * The server provides a `Client` to every request; a capability never
 * provides it. `Elicitation`, `Sampling` and `Roots` build on it and check the
 * client's capabilities first.
 *
 * Under protocol 2026-07-28 the server sends no requests: a request to the
 * client made while serving `tools/call`, `prompts/get` or `resources/read`
 * ends the round with an input-required result that carries it, and the
 * client's retry brings the answer (see `docs/adr/0003-input-required-rounds.md`).
 * The handler is run again from the start on the retry, and gets the answer
 * where it asked. The same handler code serves both eras.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Client from "effect-mcp-runtime/Client"
 *
 * const canSample = Effect.map(Effect.service(Client.Client), (client) => client.capabilities().sampling !== undefined)
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { ClientCapabilities } from "./McpSchema.ts"
import type { ProtocolVersion } from "./ProtocolVersion.ts"

/**
 * The client did not declare the capability a request needs (or its protocol
 * version predates it). The handler gets this at once; nothing is sent.
 *
 * **Example**
 *
 * ```ts
 * import { ClientCapabilityMissing } from "effect-mcp-runtime/Client"
 *
 * new ClientCapabilityMissing({
 *   capability: "elicitation",
 *   message: "The client does not support elicitation: it cannot ask the user for input.",
 *   suggestion: "Ask for the missing values in the tool's arguments instead."
 * })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ClientCapabilityMissing extends Schema.TaggedError<ClientCapabilityMissing>()("ClientCapabilityMissing", {
  capability: Schema.String,
  message: Schema.String,
  suggestion: Schema.optionalKey(Schema.String)
}) {}

/**
 * The client answered a request with an error, or with a result that is not
 * what the method returns.
 *
 * **Example**
 *
 * ```ts
 * import { ClientRequestFailed } from "effect-mcp-runtime/Client"
 *
 * new ClientRequestFailed({ method: "roots/list", code: -32601, message: "Method not found" })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ClientRequestFailed extends Schema.TaggedError<ClientRequestFailed>()("ClientRequestFailed", {
  method: Schema.String,
  /** The JSON-RPC error code, when the client answered with an error. */
  code: Schema.optionalKey(Schema.Number),
  message: Schema.String
}) {}

/**
 * The connection closed before the client answered.
 *
 * **Example**
 *
 * ```ts
 * import { ClientGone } from "effect-mcp-runtime/Client"
 *
 * new ClientGone({ method: "elicitation/create", message: "The connection closed before the client answered." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ClientGone extends Schema.TaggedError<ClientGone>()("ClientGone", {
  method: Schema.String,
  message: Schema.String
}) {}

/**
 * What a request to the client can fail with.
 *
 * **Example**
 *
 * ```ts
 * import type * as Client from "effect-mcp-runtime/Client"
 *
 * const describe = (error: Client.ClientError): string => `${error._tag}: ${error.message}`
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export type ClientError = ClientCapabilityMissing | ClientRequestFailed | ClientGone

/**
 * The client of the current session.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Client } from "effect-mcp-runtime/Client"
 *
 * const askForRoots = Effect.flatMap(Effect.service(Client), (client) => client.request("roots/list", {}))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Client extends Context.Service<
  Client,
  {
    /** What the client declared in `initialize`. */
    readonly capabilities: () => ClientCapabilities
    /** The protocol revision in force. */
    readonly protocolVersion: () => ProtocolVersion
    /**
     * Sends a request to the client and waits for its result. Checks no
     * capability: prefer `Elicitation`, `Sampling` and `Roots`.
     */
    readonly request: (
      method: string,
      params: Record<string, unknown>
    ) => Effect.Effect<Record<string, unknown>, ClientRequestFailed | ClientGone>
    /** Sends a notification to the client. */
    readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
    /** One element each time the client sends `notifications/roots/list_changed`. */
    readonly rootsChanged: Stream.Stream<void>
    /** Publishes to `rootsChanged`: what the `notifications/roots/list_changed` handler does. */
    readonly publishRootsChanged: Effect.Effect<void>
    /** Requests sent and not answered yet (diagnostics, tests). */
    readonly pending: () => number
  }
>()("effect-mcp-runtime/Client") {}

/**
 * The key an input request is filed under in a 2026-07-28 input-required
 * result (`inputRequests`), when the handler chose one with {@link inputKey};
 * otherwise the runtime derives it from the request (its method and a hash
 * of its parameters), which stays the same when the handler runs again.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { InputKey } from "effect-mcp-runtime/Client"
 *
 * const chosen = Effect.service(InputKey) // Effect<string | undefined>
 * ```
 *
 * @category references
 * @since 0.2.0
 */
export const InputKey = Context.Reference<string | undefined>("effect-mcp-runtime/Client/InputKey", {
  defaultValue: () => undefined
})

/**
 * Files the request to the client made by `effect` under `key` in a
 * 2026-07-28 input-required result, so the client (and its logs) see a
 * meaningful name. Earlier revisions send requests to the client and ignore
 * it. Keys must be unique within one request's rounds.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Client from "effect-mcp-runtime/Client"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const askName = Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
 *   Client.inputKey("user_name")
 * )
 * ```
 *
 * @category combinators
 * @since 0.2.0
 */
export const inputKey =
  (key: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.provideService(effect, InputKey, key)
