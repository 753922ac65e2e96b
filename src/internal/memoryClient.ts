/**
 * A JSON-RPC client over the memory transport's client end: requests matched
 * to their responses by id, server-to-client requests answered by handlers,
 * notifications handed to a callback. Everything is an Effect (no timers,
 * no promises), so it runs under `TestClock`. Shared by the public test kit
 * (`effect-mcp-runtime/testing`) and the CLI's in-process commands.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { MemoryClient } from "../Transport.ts"

/**
 * A JSON-RPC error response, as the client received it.
 *
 * **Example**
 *
 * ```ts
 * import { RpcError } from "effect-mcp-runtime/testing"
 *
 * new RpcError({ code: -32602, message: "Unknown tool: nope", data: undefined }).code // => -32602
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class RpcError extends Error {
  readonly _tag = "RpcError"
  readonly code: number
  readonly data: unknown
  constructor(options: { readonly code: number; readonly message: string; readonly data: unknown }) {
    super(options.message)
    this.name = "RpcError"
    this.code = options.code
    this.data = options.data
  }
}

/**
 * What the client does with messages from the server that are not
 * responses.
 *
 * @category models
 * @since 0.1.0
 */
export interface Handlers {
  /** Answers a server-to-client request (elicitation, sampling, roots); a failure is sent as a JSON-RPC error. */
  readonly onRequest?: ((method: string, params: any) => Effect.Effect<unknown, RpcError>) | undefined
  /** Receives every notification. */
  readonly onNotification?: ((method: string, params: any) => Effect.Effect<void>) | undefined
}

/**
 * The client.
 *
 * @category models
 * @since 0.1.0
 */
export interface RpcClient {
  /** Sends a request; returns its id and an effect that waits for the response. */
  readonly send: (
    method: string,
    params?: Record<string, unknown>
  ) => Effect.Effect<{ readonly id: number; readonly response: Effect.Effect<any, RpcError> }>
  /** Sends a request and waits for its response; a JSON-RPC error fails with `RpcError`. */
  readonly request: (method: string, params?: Record<string, unknown>) => Effect.Effect<any, RpcError>
  /** Sends a notification. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Every page of a paginated list (`key` is the list's field, e.g. `"tools"`). */
  readonly listAll: (method: string, key: string) => Effect.Effect<ReadonlyArray<any>, RpcError>
}

/**
 * Connects to the client end of a memory transport; the reader fiber lives
 * in the scope.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeMemory } from "effect-mcp-runtime/Transport"
 * // inside the package (src/testing, src/cli):
 * import { connect } from "../internal/memoryClient.ts"
 *
 * const client = Effect.flatMap(makeMemory(), ({ client }) => connect(client, {}))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const connect = Effect.fnUntraced(function* (
  transport: MemoryClient,
  handlers: Handlers,
  options: {
    /** `_meta` fields every request carries (protocol 2026-07-28: version, capabilities, identity). */
    readonly meta?: Record<string, unknown> | undefined
  } = {}
): Effect.fn.Return<RpcClient, never, Scope.Scope> {
  const withMeta = (params: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
    options.meta === undefined
      ? params
      : { ...params, _meta: { ...options.meta, ...(params?._meta as Record<string, unknown> | undefined) } }
  let nextId = 1
  const pending = new Map<number, Deferred.Deferred<any>>()
  const write = (message: unknown) => transport.write(`${JSON.stringify(message)}\n`)

  const dispatch = (message: any): Effect.Effect<void> => {
    if (typeof message !== "object" || message === null) return Effect.void
    if (typeof message.method === "string") {
      if ("id" in message) {
        const answer =
          handlers.onRequest === undefined
            ? Effect.fail(
                new RpcError({ code: -32601, message: `Method not found: ${message.method}`, data: undefined })
              )
            : handlers.onRequest(message.method, message.params)
        return Effect.asVoid(
          Effect.forkDetach(
            answer.pipe(
              Effect.matchEffect({
                onSuccess: (result) => write({ jsonrpc: "2.0", id: message.id, result }),
                onFailure: (error) =>
                  write({
                    jsonrpc: "2.0",
                    id: message.id,
                    error: { code: error.code, message: error.message, data: error.data }
                  })
              })
            )
          )
        )
      }
      return handlers.onNotification === undefined
        ? Effect.void
        : handlers.onNotification(message.method, message.params)
    }
    const waiter = pending.get(message.id)
    if (waiter === undefined) return Effect.void
    pending.delete(message.id)
    return Effect.asVoid(Deferred.succeed(waiter, message))
  }

  yield* Effect.forkScoped(
    Effect.forever(Effect.flatMap(transport.read, (line) => dispatch(JSON.parse(line)))).pipe(Effect.ignore)
  )

  const send: RpcClient["send"] = (method, params) =>
    Effect.gen(function* () {
      const id = nextId++
      const waiter = yield* Deferred.make<any>()
      pending.set(id, waiter)
      const sent = withMeta(params)
      yield* write(sent === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: sent })
      const response = Effect.flatMap(Deferred.await(waiter), (message) =>
        message.error !== undefined
          ? Effect.fail(
              new RpcError({ code: message.error.code, message: message.error.message, data: message.error.data })
            )
          : Effect.succeed(message.result)
      )
      return { id, response }
    })
  const request: RpcClient["request"] = (method, params) =>
    Effect.flatMap(send(method, params), ({ response }) => response)
  const notify: RpcClient["notify"] = (method, params) =>
    write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params })
  const listAll: RpcClient["listAll"] = (method, key) =>
    Effect.gen(function* () {
      const items: Array<any> = []
      let cursor: string | undefined
      do {
        const page = yield* request(method, cursor === undefined ? {} : { cursor })
        items.push(...(page[key] as Array<any>))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      return items
    })
  return { send, request, notify, listAll }
})
