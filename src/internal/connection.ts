/**
 * One connection of a stream transport (stdio, the in-memory transport, one
 * legacy Streamable HTTP session): the read loop that frames, classifies and
 * routes every message, until input ends; then the drain.
 *
 * Both eras share it. A request that names its protocol version in `_meta`
 * (2026-07-28) is served statelessly (`stateless.ts`), with the connection
 * only carrying its messages; any other request belongs to the connection's
 * legacy session, which `initialize` opens (the session state, the requests
 * the server sends the client, the client's log level, its resource
 * subscriptions, list-changed notifications). Each request runs in its own
 * fiber, in the connection's table of requests in flight
 * (`notifications/cancelled` interrupts it, in either era).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Principal } from "../Authorization.ts"
import { Client } from "../Client.ts"
import { ClientLog, severity } from "../ClientLog.ts"
import type { Kernel } from "../Kernel.ts"
import { InvalidRequest, MethodNotFound, ParseError } from "../McpError.ts"
import type { LoggingLevel, LoggingMessageParams, RequestId } from "../McpSchema.ts"
import type * as Method from "../Method.ts"
import { disabled as disabledProgress, Progress } from "../Progress.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import { Session, type SessionState } from "../Session.ts"
import { type Frame, Transport } from "../Transport.ts"
import { type Dispatch, type RequestEnv, requestKey } from "./dispatch.ts"
import * as InFlight from "./inFlight.ts"
import { classify, errorLine, idFromEdges, type Incoming, isNotJson, notificationLine, parseJson } from "./jsonRpc.ts"
import { jsonSafe } from "./jsonSafe.ts"
import { Closing } from "./lifecycle.ts"
import * as Meta from "./meta.ts"
import * as OutputBarrier from "./outputBarrier.ts"
import * as SessionClient from "./sessionClient.ts"
import type * as Stateless from "./stateless.ts"

/** What a connection needs from its server. */
export interface Deps {
  readonly dispatch: Dispatch
  /** The legacy part of the method table (requests), by name. */
  readonly requests: ReadonlyMap<string, Method.Request>
  /** The notifications the server acts on, by name. */
  readonly notifications: ReadonlyMap<string, Method.Notification>
  /** Whether a method exists only in 2026-07-28 (`server/discover`, an extension's). */
  readonly modernOnly: (method: string) => boolean
  /** Serves a request that carries its own context (2026-07-28). */
  readonly stateless: (message: Stateless.Incoming, origin: Stateless.Origin) => Effect.Effect<Stateless.Answer>
  readonly kernel: Kernel["Service"]
  /** The client log level when the client chose none (the policy's). */
  readonly clientLogLevel: LoggingLevel
  readonly shutdownGraceMs: number
  readonly interruptWaitMs: number
  /** Completes when the server stops (stateless requests' listen streams end then too). */
  readonly serverClosing: Effect.Effect<void>
}

/** Serves one connection until its input ends, then drains. */
export const serve = (deps: Deps): Effect.Effect<void, never, Transport | Scope.Scope> =>
  Effect.gen(function* () {
    const transport = yield* Transport
    const { dispatch, kernel, notifications, requests } = deps
    const send = transport.send

    const sessionId = crypto.randomUUID().slice(0, 8)
    let sequence = 0
    const nextCorrelationId = () => `${sessionId}-${(++sequence).toString(36)}`

    const state: SessionState = {
      phase: "new",
      protocolVersion: ProtocolVersion.latestLegacy,
      clientCapabilities: {},
      clientInfo: undefined,
      initializedNotified: false,
      serverCapabilities: {},
      logLevel: undefined,
      subscriptions: new Set()
    }
    const closing = yield* Deferred.make<void>()
    const closed = Effect.raceFirst(Deferred.await(closing), deps.serverClosing)

    // Forward references: the table starts its fibers with the context built below.
    let runFork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A> = () => {
      throw new Error("the connection's context is not built yet")
    }
    const inFlight = InFlight.make((effect) => runFork(effect))

    // A notification sent while a request is served belongs to that request
    // (HTTP puts it on the request's stream).
    const notify = (method: string, params?: Record<string, unknown>) =>
      Effect.flatMap(Effect.serviceOption(RequestContext), (request) =>
        send(notificationLine(method, params), Option.isSome(request) ? request.value.requestId : undefined)
      )
    const session = Session.of({
      id: sessionId,
      state,
      notify,
      cancel: (id) => Effect.sync(() => inFlight.cancel(requestKey(id))),
      detach: (id) => (transport.detach === undefined ? Effect.void : transport.detach(id))
    })
    const clientLog = ClientLog.of({
      enabled: (level) => severity[level] >= severity[state.logLevel ?? deps.clientLogLevel],
      log: (level, data, options) =>
        Effect.flatMap(Effect.serviceOption(RequestContext), (request) => {
          if (severity[level] < severity[state.logLevel ?? deps.clientLogLevel]) return Effect.void
          if (Option.isSome(request) && request.value.record.ended) return Effect.void
          const logger = options?.logger ?? (Option.isSome(request) ? request.value.record.tool : undefined)
          // `data` is required and must be JSON: undefined becomes null, and
          // what JSON cannot carry (bigint, cycles) is written as text.
          const json = jsonSafe(data === undefined ? null : data)
          const params: LoggingMessageParams =
            logger === undefined ? { level, data: json } : { level, logger, data: json }
          // The request (if any) was just looked up: send directly.
          return send(
            notificationLine("notifications/message", params as unknown as Record<string, unknown>),
            Option.isSome(request) ? request.value.requestId : undefined
          )
        })
    })
    const sessionClient = yield* SessionClient.make({ state, send, notify })

    const context = Context.add(yield* Effect.context<never>(), Session, session).pipe(
      Context.add(Client, sessionClient.client),
      Context.add(ClientLog, clientLog),
      Context.add(Progress, disabledProgress),
      Context.add(Closing, closed),
      Context.add(OutputBarrier.Covered, transport.flushesAuditBeforeWrite === true)
    )
    runFork = Effect.runForkWith(context)

    // Where a request of the legacy session takes its context from.
    const legacyEnv = (id: RequestId, principal: Principal | undefined): RequestEnv => ({
      protocolVersion: state.protocolVersion,
      clientCapabilities: state.clientCapabilities,
      clientInfo: state.clientInfo,
      send: (line) => send(line, id),
      fork: runFork,
      scope: sessionId,
      correlationId: nextCorrelationId,
      records: inFlight.records,
      principal
    })

    const notInitialized = (method: string) =>
      new InvalidRequest({
        message:
          `Server not initialized: ${method} was sent before initialize. ` +
          `Send initialize first (only ping is allowed before it), or send requests of protocol 2026-07-28 ` +
          `that carry their own _meta.`
      })

    // A request that carries its own context, over this connection.
    const stateless = (
      message: Incoming & { _tag: "Request" },
      bytesIn: number | undefined,
      principal: Principal | undefined
    ): Effect.Effect<string> =>
      Effect.map(
        deps.stateless(
          { id: message.id, method: message.method, params: message.params, bytesIn },
          { send: (line) => send(line, message.id), records: inFlight.records, scope: sessionId, principal }
        ),
        (answer) => answer.line
      )

    // The response to a message, or undefined when none is due (notifications,
    // responses from the peer). Used both for single messages and in batches.
    const answer = (message: Incoming, bytesIn?: number, principal?: Principal): Effect.Effect<string | undefined> => {
      switch (message._tag) {
        case "Invalid":
          return dispatch.rejected(
            undefined,
            message.id,
            bytesIn,
            errorLine(message.id, new InvalidRequest({ message: message.message })),
            sessionId,
            nextCorrelationId
          )
        case "Response":
          if (message.response !== undefined && sessionClient.onAnswer(message.response))
            return Effect.succeed(undefined)
          // A malformed answer to a request of ours still ends the wait.
          if (
            message.malformed &&
            typeof message.id === "string" &&
            sessionClient.fail(message.id, "The client's answer is not a valid JSON-RPC response.")
          ) {
            return Effect.as(Effect.logWarning("a malformed answer from the client", { id: message.id }), undefined)
          }
          return Effect.as(
            message.malformed
              ? Effect.logWarning("ignoring a malformed response from the client", { id: message.id })
              : Effect.logDebug("ignoring a response to no request of ours (or one no longer awaited)", {
                  id: message.id
                }),
            undefined
          )
        case "Notification":
          return Effect.as(onNotification(message), undefined)
        case "Request": {
          const method = requests.get(message.method)
          // A request that names its version in _meta carries its own context. So does a method
          // only 2026-07-28 has (and, before initialize, any unknown one): it is answered with
          // what its _meta lacks.
          if (
            Meta.namesVersion(message.params) ||
            (method === undefined && (state.phase === "new" || deps.modernOnly(message.method)))
          ) {
            return stateless(message, bytesIn, principal)
          }
          if (method === undefined) {
            return dispatch.rejected(
              message.method,
              message.id,
              bytesIn,
              errorLine(message.id, new MethodNotFound({ method: message.method })),
              sessionId,
              nextCorrelationId
            )
          }
          if (state.phase === "new" && !method.beforeInitialize) {
            return dispatch.rejected(
              message.method,
              message.id,
              bytesIn,
              errorLine(message.id, notInitialized(message.method)),
              sessionId,
              nextCorrelationId
            )
          }
          return dispatch.execute(method, message.id, message.params, bytesIn, legacyEnv(message.id, principal))
        }
      }
    }

    let notificationCount = 0
    const onNotification = (message: Incoming & { _tag: "Notification" }): Effect.Effect<void> => {
      const handler = notifications.get(message.method)
      if (handler === undefined) return Effect.void // unknown notifications are ignored
      const decoded = handler.decode(message.params ?? {})
      if (decoded._tag === "Failure") {
        return Effect.logWarning("ignoring a malformed notification", { method: message.method })
      }
      const handled = Effect.suspend(() => handler.handler(decoded.value) as Effect.Effect<void>).pipe(
        Effect.catchCause((cause) =>
          Effect.logError(`${message.method} handler failed`, { method: message.method, cause: Cause.pretty(cause) })
        )
      )
      if (handler.inline) return handled
      // In a fiber of its own: it may wait on the client, whose answer the
      // read loop must stay free to read. The shutdown drain waits for it.
      inFlight.fork(`notification:${++notificationCount}`, handled)
      return Effect.void
    }

    // -- dispatch ---------------------------------------------------------------

    const duplicateId = (id: RequestId) =>
      errorLine(id, new InvalidRequest({ message: `Invalid Request: id ${JSON.stringify(id)} is already in flight` }))

    const respondTo = (message: Incoming, bytesIn?: number, principal?: Principal): Effect.Effect<void> =>
      Effect.flatMap(
        Effect.suspend(() => answer(message, bytesIn, principal)),
        (line) => (line === undefined ? Effect.void : send(line, message._tag === "Request" ? message.id : undefined))
      )

    let batches = 0
    const onBatch = (values: ReadonlyArray<unknown>, bytesIn: number, principal?: Principal): Effect.Effect<void> => {
      if (state.phase === "new" || !ProtocolVersion.acceptsBatches(state.protocolVersion)) {
        return refuse(
          bytesIn,
          new InvalidRequest({
            message:
              state.phase === "new"
                ? "Invalid Request: a batch cannot come before initialize (and initialize cannot be batched)"
                : `Invalid Request: JSON-RPC batches are not part of protocol version ${state.protocolVersion}; ` +
                  `send one message per line`
          })
        )
      }
      if (values.length === 0) {
        return refuse(bytesIn, new InvalidRequest({ message: "Invalid Request: empty batch" }))
      }
      const messages = values.map((value): Incoming => {
        const message = classify(value)
        return message._tag === "Request" && message.method === "initialize"
          ? { _tag: "Invalid", id: message.id, message: "Invalid Request: initialize must not be part of a batch" }
          : message
      })
      // Each request of the batch starts now in its own fiber, registered under
      // its id so that notifications/cancelled reaches it (a cancelled entry
      // gets no response); the batch's fiber gathers the answers in order.
      const seen = new Set<string>()
      // Answers to our requests and notifications are handled now, in order,
      // not behind the batch's requests (an answer a request waits on may
      // be in the same batch).
      const immediate: Array<Incoming> = []
      let related: RequestId | undefined
      const entries = messages.map((message): Effect.Effect<string | undefined> => {
        if (message._tag === "Response" || message._tag === "Notification") {
          immediate.push(message)
          return Effect.succeed(undefined)
        }
        if (message._tag !== "Request") return Effect.suspend(() => answer(message, undefined, principal))
        related ??= message.id
        const key = requestKey(message.id)
        if (inFlight.has(key) || seen.has(key)) {
          return dispatch.rejected(
            message.method,
            message.id,
            undefined,
            duplicateId(message.id),
            sessionId,
            nextCorrelationId
          )
        }
        seen.add(key)
        const fiber = inFlight.fork(
          key,
          Effect.suspend(() => answer(message, undefined, principal))
        )
        return Effect.map(Fiber.await(fiber), (exit) => (exit._tag === "Success" ? exit.value : undefined))
      })
      inFlight.fork(
        `batch:${++batches}`,
        Effect.forEach(entries, (entry) => entry).pipe(
          Effect.flatMap((lines) => {
            const responses = lines.filter((line): line is string => line !== undefined)
            return responses.length === 0 ? Effect.void : send(`[${responses.join(",")}]`, related)
          })
        )
      )
      return Effect.forEach(immediate, (message) => answer(message, undefined, principal), { discard: true })
    }

    // Answers a message that never became a request (no id to answer), and logs it.
    const refuse = (bytesIn: number, error: ParseError | InvalidRequest): Effect.Effect<void> =>
      Effect.flatMap(
        dispatch.rejected(undefined, null, bytesIn, errorLine(null, error), sessionId, nextCorrelationId),
        send
      )

    const onFrame = (frame: Frame): Effect.Effect<void> => {
      switch (frame._tag) {
        case "Oversize": {
          const id = idFromEdges(frame.head, frame.tail) ?? null
          // An answer of the client's (no "method") to a request of ours: it ends
          // that request's wait, and is not answered.
          if (
            typeof id === "string" &&
            !frame.head.includes('"method"') &&
            !frame.tail.includes('"method"') &&
            sessionClient.fail(
              id,
              `The client's answer of ${frame.bytes} bytes exceeds the limit of ${frame.limit} bytes.`
            )
          ) {
            return Effect.logWarning("an oversize answer from the client was discarded", { id, bytes: frame.bytes })
          }
          const line = errorLine(
            id,
            new InvalidRequest({
              message:
                `Invalid Request: message of ${frame.bytes} bytes exceeds the limit of ` +
                `${frame.limit} bytes; it was discarded`
            })
          )
          return Effect.flatMap(
            dispatch.rejected(undefined, id, frame.bytes, line, sessionId, nextCorrelationId),
            (line) => send(line, id ?? undefined)
          )
        }
        case "InvalidText":
          return refuse(frame.bytes, new ParseError({ message: "Parse error: the message is not valid UTF-8" }))
        case "Message":
          break
      }
      const value = "parsed" in frame ? frame.parsed : parseJson(frame.text)
      if (isNotJson(value)) {
        return refuse(frame.bytes, new ParseError({ message: "Parse error: the message is not valid JSON" }))
      }
      const principal = frame.principal
      if (Array.isArray(value)) return onBatch(value, frame.bytes, principal)
      const message = classify(value)
      if (message._tag !== "Request") return respondTo(message, frame.bytes, principal)
      if (requests.get(message.method)?.sequential === true && !Meta.namesVersion(message.params)) {
        return respondTo(message, frame.bytes, principal)
      }
      const key = requestKey(message.id)
      if (inFlight.has(key)) {
        return Effect.flatMap(
          dispatch.rejected(
            message.method,
            message.id,
            frame.bytes,
            duplicateId(message.id),
            sessionId,
            nextCorrelationId
          ),
          (line) => send(line, message.id)
        )
      }
      inFlight.fork(key, respondTo(message, frame.bytes, principal))
      return Effect.void
    }

    // -- registry changes (legacy sessions) --------------------------------------

    // Only to a client that was told the tool list can change, once it said
    // it is initialized; a burst of changes becomes one notification.
    const changes = yield* PubSub.subscribe(kernel.changes)
    yield* Effect.forkScoped(
      Effect.forever(
        // takeAll waits for one change and takes every change already queued.
        Effect.flatMap(PubSub.takeAll(changes), (burst) => {
          if (!state.initializedNotified) return Effect.void
          const kinds = new Set(burst)
          return Effect.andThen(
            kinds.has("tools") && state.serverCapabilities.tools?.listChanged === true
              ? session.notify("notifications/tools/list_changed")
              : Effect.void,
            Effect.andThen(
              kinds.has("prompts") && state.serverCapabilities.prompts?.listChanged === true
                ? session.notify("notifications/prompts/list_changed")
                : Effect.void,
              kinds.has("resources") && state.serverCapabilities.resources?.listChanged === true
                ? session.notify("notifications/resources/list_changed")
                : Effect.void
            )
          )
        })
      )
    )

    // Resource updates reach only the sessions that subscribed to the URI.
    const updates = yield* PubSub.subscribe(kernel.updates)
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(PubSub.takeAll(updates), (burst) => {
          if (!state.initializedNotified || state.subscriptions.size === 0) return Effect.void
          const uris = new Set(burst)
          return Effect.forEach(
            [...uris].filter((uri) => state.subscriptions.has(uri)),
            (uri) => session.notify("notifications/resources/updated", { uri }),
            { discard: true }
          )
        })
      )
    )

    // -- shutdown ---------------------------------------------------------------

    const drain = Effect.suspend(() => {
      state.phase = "closing"
      // No answer can come any more; listen streams end with their result.
      Deferred.doneUnsafe(closing, Exit.void)
      return Effect.andThen(sessionClient.close, inFlight.drain(deps.shutdownGraceMs, deps.interruptWaitMs))
    })

    yield* Stream.runForEachArray(transport.frames, (frames) => {
      // Almost every frame is handled synchronously (requests fork); only a
      // sequential method (initialize) makes the loop wait before the next one.
      if (frames.length === 1) return onFrame(frames[0])
      return Effect.forEach(frames, onFrame, { discard: true })
    }).pipe(
      // What runs in the read loop itself (inline notifications, initialize) gets the connection's services.
      Effect.provideContext(context),
      Effect.ensuring(drain)
    )
  })
