/**
 * The `Client` of a legacy session (2024-11-05 … 2025-11-25): requests from
 * the server to the client (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) sent on the connection and matched with the client's
 * answers by id.
 *
 * Our ids are strings (`s-1`, …), the client's own ids live in another
 * space. A request's entry exists before it is sent, so an answer can never
 * arrive before anyone waits for it. A request whose handler is interrupted
 * (cancelled, timed out) stops waiting and the client is told with
 * `notifications/cancelled`; when the connection closes, every wait ends
 * with `ClientGone`.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Client, ClientGone, ClientRequestFailed } from "../Client.ts"
import type { JsonRpcResponse, RequestId } from "../McpSchema.ts"
import { RequestContext } from "../RequestContext.ts"
import type { SessionState } from "../Session.ts"
import { requestLine } from "./jsonRpc.ts"
import { jsonSafe } from "./jsonSafe.ts"

type Answer =
  | { readonly _tag: "Result"; readonly result: Record<string, unknown> }
  | { readonly _tag: "Error"; readonly code: number | undefined; readonly message: string }
  | { readonly _tag: "Gone" }

// A request waiting for its answer.
interface Waiting {
  answer: Answer | undefined
  resume: ((answer: Answer) => void) | undefined
}

/** A legacy session's client, and what the connection does with the client's answers. */
export interface SessionClient {
  readonly client: Client["Service"]
  /** Ends the wait of the request an answer belongs to; false when no request of ours waits for it. */
  readonly onAnswer: (response: JsonRpcResponse) => boolean
  /** Ends the wait of request `id` with an error (a malformed or oversize answer); false when none waits. */
  readonly fail: (id: string, message: string) => boolean
  /** The connection closes: every wait ends with `ClientGone`, watchers of the roots are done. */
  readonly close: Effect.Effect<void>
}

/** Builds the client of a session, sending on the connection with `send`. */
export const make = (options: {
  readonly state: SessionState
  readonly send: (message: string, related?: RequestId) => Effect.Effect<void>
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
}): Effect.Effect<SessionClient, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { notify, send, state } = options
    const pending = new Map<string, Waiting>()
    const settle = (id: string, answer: Answer): boolean => {
      const waiting = pending.get(id)
      if (waiting === undefined) return false
      pending.delete(id)
      if (waiting.resume !== undefined) waiting.resume(answer)
      else waiting.answer = answer
      return true
    }
    let outgoing = 0
    const rootsChanged = yield* PubSub.unbounded<void>()
    const closed = yield* Deferred.make<void>()

    const request = (
      method: string,
      params: Record<string, unknown>
    ): Effect.Effect<Record<string, unknown>, ClientRequestFailed | ClientGone> =>
      Effect.suspend(() => {
        if (state.phase === "closing") {
          return Effect.fail(
            new ClientGone({ method, message: "The connection is closing; the client cannot answer." })
          )
        }
        // The client may not be ready for requests before it says so.
        if (!state.initializedNotified) {
          return Effect.fail(
            new ClientRequestFailed({
              method,
              message: "The client has not sent notifications/initialized yet; it cannot take requests."
            })
          )
        }
        const id = `s-${++outgoing}`
        const waiting: Waiting = { answer: undefined, resume: undefined }
        pending.set(id, waiting)
        const outcome = (answer: Answer): Effect.Effect<Record<string, unknown>, ClientRequestFailed | ClientGone> =>
          answer._tag === "Result"
            ? Effect.succeed(answer.result)
            : answer._tag === "Error"
              ? Effect.fail(
                  new ClientRequestFailed(
                    answer.code === undefined
                      ? { method, message: answer.message }
                      : { method, code: answer.code, message: answer.message }
                  )
                )
              : Effect.fail(new ClientGone({ method, message: "The connection closed before the client answered." }))
        return Effect.andThen(
          Effect.flatMap(Effect.serviceOption(RequestContext), (request) =>
            send(
              requestLine(id, method, jsonSafe(params)),
              Option.isSome(request) ? request.value.requestId : undefined
            )
          ),
          Effect.callback<Record<string, unknown>, ClientRequestFailed | ClientGone>((resume) => {
            if (waiting.answer !== undefined) return resume(outcome(waiting.answer))
            waiting.resume = (answer) => resume(outcome(answer))
            // Interrupted (cancelled, timed out): stop waiting, and tell the client.
            return Effect.suspend(() => {
              if (pending.get(id) !== waiting) return Effect.void
              pending.delete(id)
              return notify("notifications/cancelled", {
                requestId: id,
                reason: "The server no longer needs the answer (its request was cancelled or timed out)."
              })
            })
          })
        ).pipe(
          // Sending failed or the fiber was interrupted before it waited: no entry left behind.
          Effect.onExit(() =>
            Effect.sync(() => {
              if (pending.get(id) === waiting && waiting.resume === undefined) pending.delete(id)
            })
          )
        )
      })

    const client = Client.of({
      capabilities: () => state.clientCapabilities,
      protocolVersion: () => state.protocolVersion,
      notify,
      rootsChanged: Stream.fromPubSub(rootsChanged).pipe(Stream.interruptWhen(Deferred.await(closed))),
      publishRootsChanged: Effect.asVoid(PubSub.publish(rootsChanged, undefined)),
      pending: () => pending.size,
      request
    })

    return {
      client,
      onAnswer: (response) =>
        typeof response.id === "string" &&
        settle(
          response.id,
          "result" in response
            ? { _tag: "Result", result: response.result as Record<string, unknown> }
            : { _tag: "Error", code: response.error.code, message: response.error.message }
        ),
      fail: (id, message) => settle(id, { _tag: "Error", code: undefined, message }),
      close: Effect.sync(() => {
        for (const id of [...pending.keys()]) settle(id, { _tag: "Gone" })
        Deferred.doneUnsafe(closed, Exit.void)
      })
    }
  })
