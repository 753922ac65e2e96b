/**
 * The runtime's side of one bridge connection after the hello: a small
 * JSON-RPC client of the application's MCP server. Requests are matched to
 * their responses by id; a request whose fiber is interrupted (the caller
 * cancelled it, the policy's timeout ran out) stops waiting and the
 * application is told with `notifications/cancelled`; the application's
 * progress for a request is handed to that request's callback; its other
 * notifications go to `onNotification`; its own requests are answered
 * (`ping`, and −32601 for anything else). When the connection ends, every
 * wait ends with a `PeerError` whose `gone` is true.
 *
 * Everything is an Effect with no timer of its own, so it runs under
 * `TestClock`.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { frameLines } from "../Transport.ts"
import type { Connection } from "./daemonSocket.ts"

/** A request that got no result: the application answered an error (`code`), or the connection is gone. */
export class PeerError extends Schema.TaggedError<PeerError>()("PeerError", {
  message: Schema.String,
  code: Schema.optionalKey(Schema.Number),
  gone: Schema.Boolean
}) {}

type Answer =
  | { readonly _tag: "Result"; readonly result: unknown }
  | { readonly _tag: "Error"; readonly code: number; readonly message: string }
  | { readonly _tag: "Gone" }

/** A progress update of the application's, as `notifications/progress` carries it. */
export interface ProgressUpdate {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** The client of the application's server. */
export interface Peer {
  /** Sends a request and waits for its result. */
  readonly request: (
    method: string,
    params: Record<string, unknown>,
    options?: { readonly onProgress?: ((update: ProgressUpdate) => Effect.Effect<void>) | undefined }
  ) => Effect.Effect<any, PeerError>
  /** Sends a notification. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** Completes when the application's side of the connection ended. */
  readonly ended: Effect.Effect<void>
}

const parse = (text: string): unknown => {
  const parsed = Result.try(() => JSON.parse(text) as unknown)
  return Result.isSuccess(parsed) ? parsed.success : undefined
}

/** Starts reading the connection (the reader lives in the scope) and returns the client. */
export const make = (
  connection: Connection,
  options: {
    readonly maxMessageBytes: number
    readonly onNotification: (method: string, params: Record<string, unknown> | undefined) => Effect.Effect<void>
  }
): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function* () {
    let nextId = 1
    let isEnded = false
    const pending = new Map<number, Deferred.Deferred<Answer>>()
    const progress = new Map<string, (update: ProgressUpdate) => Effect.Effect<void>>()
    const ended = yield* Deferred.make<void>()
    const write = (message: unknown) => Effect.sync(() => connection.writeNow(`${JSON.stringify(message)}\n`))

    const onMessage = (message: any): Effect.Effect<void> => {
      if (typeof message !== "object" || message === null || Array.isArray(message)) return Effect.void
      if (typeof message.method === "string") {
        if ("id" in message) {
          return message.method === "ping"
            ? write({ jsonrpc: "2.0", id: message.id, result: {} })
            : write({
                jsonrpc: "2.0",
                id: message.id,
                error: { code: -32601, message: `Method not found: ${message.method} (the runtime's bridge)` }
              })
        }
        const params = typeof message.params === "object" && message.params !== null ? message.params : undefined
        if (message.method === "notifications/progress" && params !== undefined) {
          const handler = progress.get(String(params.progressToken))
          if (handler === undefined || typeof params.progress !== "number") return Effect.void
          return handler({
            progress: params.progress,
            ...(typeof params.total === "number" ? { total: params.total } : {}),
            ...(typeof params.message === "string" ? { message: params.message } : {})
          })
        }
        return options.onNotification(message.method, params)
      }
      if (typeof message.id !== "number") return Effect.void
      const waiter = pending.get(message.id)
      if (waiter === undefined) return Effect.void
      pending.delete(message.id)
      const error = message.error
      return Deferred.succeed(
        waiter,
        typeof error === "object" && error !== null
          ? {
              _tag: "Error",
              code: typeof error.code === "number" ? error.code : -32603,
              message: typeof error.message === "string" ? error.message : "error"
            }
          : { _tag: "Result", result: message.result }
      ).pipe(Effect.asVoid)
    }

    yield* frameLines(connection.chunks, options.maxMessageBytes).pipe(
      Stream.runForEach((frame) => (frame._tag === "Message" ? onMessage(parse(frame.text)) : Effect.void)),
      Effect.ensuring(
        Effect.suspend(() => {
          isEnded = true
          const waiting = [...pending.values()]
          pending.clear()
          return Effect.andThen(
            Effect.forEach(waiting, (waiter) => Deferred.succeed(waiter, { _tag: "Gone" }), { discard: true }),
            Deferred.succeed(ended, undefined)
          )
        })
      ),
      Effect.forkScoped
    )

    const request: Peer["request"] = (method, params, requestOptions) =>
      Effect.suspend(() => {
        if (isEnded) {
          return Effect.fail(new PeerError({ message: "the application disconnected", gone: true }))
        }
        const id = nextId++
        const waiter = Deferred.makeUnsafe<Answer>()
        pending.set(id, waiter)
        const onProgress = requestOptions?.onProgress
        const token = `bridge-${id}`
        if (onProgress !== undefined) progress.set(token, onProgress)
        const sent =
          onProgress === undefined
            ? params
            : { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), progressToken: token } }
        return write({ jsonrpc: "2.0", id, method, params: sent }).pipe(
          Effect.andThen(Deferred.await(waiter)),
          Effect.onInterrupt(() =>
            isEnded
              ? Effect.void
              : write({
                  jsonrpc: "2.0",
                  method: "notifications/cancelled",
                  params: { requestId: id, reason: "The runtime's caller cancelled the request, or it timed out" }
                })
          ),
          Effect.ensuring(
            Effect.sync(() => {
              pending.delete(id)
              progress.delete(token)
            })
          ),
          Effect.flatMap((answer) =>
            answer._tag === "Result"
              ? Effect.succeed(answer.result as any)
              : answer._tag === "Error"
                ? Effect.fail(new PeerError({ message: answer.message, code: answer.code, gone: false }))
                : Effect.fail(
                    new PeerError({ message: `the application disconnected before answering ${method}`, gone: true })
                  )
          )
        )
      })

    const notify: Peer["notify"] = (method, params) =>
      isEnded
        ? Effect.void
        : write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params })

    return { request, notify, ended: Deferred.await(ended) }
  })
