/**
 * MCP methods as Effect handlers. The server's method table is a list of
 * these; adding a method is one file that calls {@link request} (or
 * {@link notification}) and one line in `src/methods/index.ts`.
 *
 * A handler receives params already decoded with its Schema (a decode failure
 * is answered with −32602 naming every bad field), may fail only with a
 * protocol error, and reads whatever else it needs — the session, the
 * request context, the kernel — from its context.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Method from "effect-mcp-runtime/Method"
 *
 * export const ping = Method.request("ping", {
 *   params: Schema.Struct({}),
 *   beforeInitialize: true,
 *   handler: () => Effect.succeed({})
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { McpError } from "./McpError.ts"

/**
 * A result that is already serialized JSON, spliced into the response as is.
 * Methods that serve cached results (`tools/list`) return it to avoid
 * re-serializing on every call.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Method from "effect-mcp-runtime/Method"
 *
 * const cached = new Method.RawJson('{"items":[]}')
 * const itemsList = Method.request("items/list", { params: Schema.Struct({}), handler: () => Effect.succeed(cached) })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class RawJson {
  readonly json: string
  constructor(json: string) {
    this.json = json
  }
}

/**
 * A request handler.
 *
 * **Example**
 *
 * ```ts
 * import type * as Method from "effect-mcp-runtime/Method"
 * import { ping } from "effect-mcp-runtime/methods/ping"
 *
 * const method: Method.Request = ping
 * method.beforeInitialize // => true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Request<R = any> {
  readonly _tag: "Request"
  readonly name: string
  /** The protocol revisions that have the method (see {@link Revisions}). */
  readonly revisions: Revisions
  /**
   * Under 2026-07-28, whether the method may answer with an input-required
   * result, asking the client for input (`tools/call`, `prompts/get`,
   * `resources/read`). Its handler's requests to the client (`Client`,
   * `Elicitation`, `Sampling`, `Roots`) then become the result's input
   * requests; elsewhere they fail.
   */
  readonly inputRequests: boolean
  /**
   * What the request names, which Streamable HTTP mirrors in the `Mcp-Name`
   * header under 2026-07-28 (the tool of `tools/call`, the URI of
   * `resources/read`); undefined for methods that name nothing.
   */
  readonly routingName: ((params: { readonly [key: string]: unknown }) => string | undefined) | undefined
  /** May run before `initialize` has been answered (`initialize`, `ping`). */
  readonly beforeInitialize: boolean
  /** Runs before the next message is read, instead of concurrently (`initialize`). */
  readonly sequential: boolean
  readonly decode: (params: unknown) => Exit.Exit<any, Schema.SchemaError>
  readonly handler: (params: any) => Effect.Effect<unknown, McpError, R>
}

/**
 * A notification handler. Notifications never get a response; a handler's
 * failure is only logged.
 *
 * **Example**
 *
 * ```ts
 * import type * as Method from "effect-mcp-runtime/Method"
 * import { initialized } from "effect-mcp-runtime/methods/notifications"
 *
 * const method: Method.Notification = initialized
 * method.name // => "notifications/initialized"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification<R = any> {
  readonly _tag: "Notification"
  readonly name: string
  /** The protocol revisions that have the notification (see {@link Revisions}). */
  readonly revisions: Revisions
  /**
   * Runs in the read loop, before the next message is read (short state
   * updates whose order matters: `initialized`, `cancelled`). Otherwise the
   * handler runs in a fiber of its own, and may wait — for instance on a
   * request to the client, whose answer the read loop must be free to read.
   */
  readonly inline: boolean
  readonly decode: (params: unknown) => Exit.Exit<any, Schema.SchemaError>
  readonly handler: (params: any) => Effect.Effect<void, never, R>
}

/**
 * Which protocol revisions have a method: the legacy ones, negotiated in
 * `initialize` (2024-11-05 … 2025-11-25), the modern one, whose requests
 * carry their own context (2026-07-28), or all of them. A request for a
 * method its revision does not have is answered −32601 (Method not found).
 *
 * **Example**
 *
 * ```ts
 * import type * as Method from "effect-mcp-runtime/Method"
 *
 * const discoverOnly: Method.Revisions = "modern" // server/discover
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type Revisions = "legacy" | "modern" | "all"

/**
 * Any request or notification handler.
 *
 * **Example**
 *
 * ```ts
 * import type * as Method from "effect-mcp-runtime/Method"
 * import { defaultMethods } from "effect-mcp-runtime/methods/index"
 *
 * const table: ReadonlyArray<Method.Any> = defaultMethods
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Any = Request<any> | Notification<any>

/**
 * The services a handler needs.
 *
 * **Example**
 *
 * ```ts
 * import type * as Method from "effect-mcp-runtime/Method"
 * import { toolsCall } from "effect-mcp-runtime/methods/toolsCall"
 *
 * type Needs = Method.Requirements<typeof toolsCall> // Kernel | RequestContext
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Requirements<M> = M extends Request<infer R> ? R : M extends Notification<infer R> ? R : never

/**
 * Declares a request handler.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Method from "effect-mcp-runtime/Method"
 *
 * const echo = Method.request("debug/echo", {
 *   params: Schema.Struct({ text: Schema.String }),
 *   handler: ({ text }) => Effect.succeed({ text })
 * })
 * echo.decode({ text: 1 })._tag // => "Failure"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const request = <P extends Schema.Top, A, R>(
  name: string,
  options: {
    readonly params: P & Schema.Codec<P["Type"], unknown, never, never>
    readonly handler: (params: P["Type"]) => Effect.Effect<A, McpError, R>
    readonly beforeInitialize?: boolean | undefined
    readonly sequential?: boolean | undefined
    /** The protocol revisions that have the method (default `"all"`). */
    readonly revisions?: Revisions | undefined
    /** Under 2026-07-28, whether the method may ask the client for input (default `false`). */
    readonly inputRequests?: boolean | undefined
    /** What the request names, for the `Mcp-Name` routing header (default: nothing). */
    readonly routingName?: ((params: { readonly [key: string]: unknown }) => string | undefined) | undefined
    /**
     * An optional fast check for hot methods: when it returns true the params
     * are used as they are, without Schema decoding (which then only runs to
     * word the error of params that fail the check). It must accept nothing
     * the Schema would reject.
     */
    readonly accepts?: ((params: { readonly [key: string]: unknown }) => boolean) | undefined
  }
): Request<R> => {
  const decode = Schema.decodeUnknownExit(options.params as any, { errors: "all", reportInput: true })
  const accepts = options.accepts
  return {
    _tag: "Request",
    name,
    revisions: options.revisions ?? "all",
    inputRequests: options.inputRequests ?? false,
    routingName: options.routingName,
    beforeInitialize: options.beforeInitialize ?? false,
    sequential: options.sequential ?? false,
    decode:
      accepts === undefined ? decode : (params) => (accepts(params as any) ? Exit.succeed(params) : decode(params)),
    handler: options.handler
  }
}

/**
 * Declares a notification handler.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Method from "effect-mcp-runtime/Method"
 *
 * const progress = Method.notification("notifications/progress", {
 *   params: Schema.Struct({ progressToken: Schema.Union([Schema.String, Schema.Number]), progress: Schema.Number }),
 *   handler: ({ progress }) => Effect.logDebug("client progress", { progress })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const notification = <P extends Schema.Top, R>(
  name: string,
  options: {
    readonly params: P & Schema.Codec<P["Type"], unknown, never, never>
    readonly handler: (params: P["Type"]) => Effect.Effect<void, never, R>
    /** Run in the read loop (default `false`: in a fiber of its own). */
    readonly inline?: boolean | undefined
    /** The protocol revisions that have the notification (default `"all"`). */
    readonly revisions?: Revisions | undefined
  }
): Notification<R> => ({
  _tag: "Notification",
  name,
  revisions: options.revisions ?? "all",
  inline: options.inline ?? false,
  decode: Schema.decodeUnknownExit(options.params as any, { errors: "all", reportInput: true }),
  handler: options.handler
})
