/**
 * The server core: reads framed messages from a {@link Transport}, dispatches
 * them through the method table, and writes responses.
 *
 * Each request runs in its own fiber, in a span named after its method (when
 * a tracing backend is installed: with Effect's native tracer a span would go
 * nowhere, and none is made), with a {@link RequestContext} of its own; `notifications/cancelled` interrupts
 * that fiber. When input ends (stdin EOF) or the server is interrupted
 * (SIGTERM), it stops reading, gives in-flight requests the configured grace
 * period, then interrupts what is left.
 *
 * Every request is logged as one JSON line when it ends (method, id,
 * correlation id, tool, queue and elapsed time, outcome, bytes in and out),
 * and gets a `Progress` and a `ClientLog` of its own. Tool calls run under
 * the execution policy (see `Policy` and `Executor`): a concurrency slot, a
 * timeout that interrupts the work, a result size limit.
 *
 * The core knows no capability: it serves whatever the {@link Kernel} holds.
 * It logs through Effect's logger with `LogToStderr` set, so even the default
 * logger never writes to stdout, the protocol wire.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 *
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 *
 * const program = McpServer.serve().pipe(
 *   Effect.provide(
 *     Layer.mergeAll(StdioTransport.layer.pipe(Layer.provide(NodeStdio.layer)), Kernel.layer())
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { Client, ClientGone, ClientRequestFailed } from "./Client.ts"
import { ClientLog, severity } from "./ClientLog.ts"
import { Executor, make as makeExecutor } from "./Executor.ts"
import { formatIssues } from "./internal/compileTool.ts"
import {
  classify,
  errorLine,
  idFromEdges,
  type Incoming,
  isNotJson,
  notificationLine,
  parseJson,
  requestLine,
  successLine
} from "./internal/jsonRpc.ts"
import { makeReporter } from "./internal/progress.ts"
import { jsonSafe } from "./internal/jsonSafe.ts"
import { utf8Length } from "./internal/utf8.ts"
import { Kernel } from "./Kernel.ts"
import { InternalError, InvalidParams, InvalidRequest, isMcpError, MethodNotFound, ParseError } from "./McpError.ts"
import type { JsonRpcResponse, LoggingMessageParams, RequestId } from "./McpSchema.ts"
import type * as Method from "./Method.ts"
import { defaultMethods } from "./methods/index.ts"
import * as Policy from "./Policy.ts"
import { disabled as disabledProgress, Progress } from "./Progress.ts"
import * as ProtocolVersion from "./ProtocolVersion.ts"
import { RequestContext, type RequestRecord } from "./RequestContext.ts"
import { ServerConfig } from "./ServerConfig.ts"
import { Session, type SessionState } from "./Session.ts"
import { type Frame, Transport } from "./Transport.ts"

/**
 * Options of {@link serve}.
 *
 * **Example**
 *
 * ```ts
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import { initialize } from "effect-mcp-runtime/methods/initialize"
 * import { ping } from "effect-mcp-runtime/methods/ping"
 *
 * // a server that answers only the handshake and ping
 * const options: McpServer.ServeOptions = { methods: [initialize, ping] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ServeOptions<Methods extends ReadonlyArray<Method.Any> = ReadonlyArray<Method.Any>> {
  /**
   * The method table (default: every method in `src/methods`). What its
   * handlers need, beyond the session and request context the server
   * provides, becomes a requirement of {@link serve}.
   */
  readonly methods?: Methods | undefined
}

/**
 * How long interrupted requests get to run their finalizers at shutdown
 * before the server stops waiting for them.
 *
 * **Example**
 *
 * ```ts
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 *
 * McpServer.interruptWaitMs // => 2000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const interruptWaitMs = 2000

const requestKey = (id: RequestId): string => (typeof id === "string" ? `s:${id}` : `n:${id}`)

const progressTokenOf = (params: { readonly [key: string]: unknown } | undefined): string | number | undefined => {
  const meta = params?._meta
  if (typeof meta !== "object" || meta === null) return undefined
  const token = (meta as { progressToken?: unknown }).progressToken
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

/**
 * What the server provides to every method handler itself: the session, the
 * request context, the executor (built from the `Policy` when none is in
 * context), progress and the client log.
 *
 * **Example**
 *
 * ```ts
 * import type * as McpServer from "effect-mcp-runtime/McpServer"
 * import type { Progress } from "effect-mcp-runtime/Progress"
 *
 * type Given = Extract<McpServer.ServerProvided, Progress> // Progress
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ServerProvided = Session | RequestContext | Executor | Progress | ClientLog | Client

/**
 * Serves one connection until its input ends, then drains. Requires the
 * transport and the kernel; every method handler's other needs (session,
 * request context) are provided here.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as Transport from "effect-mcp-runtime/Transport"
 *
 * const pong = Effect.gen(function*() {
 *   const { client, transport } = yield* Transport.makeMemory()
 *   yield* Effect.forkChild(Effect.provideService(McpServer.serve(), Transport.Transport, transport))
 *   yield* client.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
 *   return yield* client.read // => '{"jsonrpc":"2.0","id":1,"result":{}}'
 * }).pipe(Effect.provide(Kernel.layer()))
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export const serve = <const Methods extends ReadonlyArray<Method.Any> = typeof defaultMethods>(
  options: ServeOptions<Methods> = {}
): Effect.Effect<void, never, Transport | Kernel | Exclude<Method.Requirements<Methods[number]>, ServerProvided>> =>
  Effect.scoped(
    Effect.gen(function* () {
      const transport = yield* Transport
      const kernel = yield* Kernel
      const config = yield* ServerConfig
      const send = transport.send

      const requests = new Map<string, Method.Request<any>>()
      const notifications = new Map<string, Method.Notification<any>>()
      for (const method of (options.methods ?? defaultMethods) as ReadonlyArray<
        Method.Request<any> | Method.Notification<any>
      >) {
        if (method._tag === "Request") requests.set(method.name, method)
        else notifications.set(method.name, method)
      }

      const sessionId = crypto.randomUUID().slice(0, 8)
      let sequence = 0
      const nextCorrelationId = () => `${sessionId}-${(++sequence).toString(36)}`

      // Every request in flight, by id (and every batch, by a key of its own),
      // for cancellation, the duplicate-id check and the shutdown drain. A
      // request that completes synchronously is never entered; within a batch,
      // ids are also checked against each other.
      const inFlight = new Map<string, Fiber.Fiber<unknown, unknown>>()
      // The record of every request being served, by the same key.
      const records = new Map<string, RequestRecord>()
      const state: SessionState = {
        phase: "new",
        protocolVersion: ProtocolVersion.latest,
        clientCapabilities: {},
        clientInfo: undefined,
        initializedNotified: false,
        serverCapabilities: {},
        logLevel: undefined,
        subscriptions: new Set()
      }
      const session = Session.of({
        id: sessionId,
        state,
        // A notification sent while a request is served belongs to that request
        // (HTTP puts it on the request's stream).
        notify: (method, params) =>
          Effect.flatMap(Effect.serviceOption(RequestContext), (request) =>
            send(notificationLine(method, params), Option.isSome(request) ? request.value.requestId : undefined)
          ),
        cancel: (id) =>
          Effect.sync(() => {
            // `initialize` runs inline and is never in the table, so it cannot be cancelled.
            const fiber = inFlight.get(requestKey(id))
            if (fiber === undefined) return
            // Nothing more is sent for it, even from its finalizers.
            const record = records.get(requestKey(id))
            if (record !== undefined) record.ended = true
            fiber.interruptUnsafe()
          }),
        detach: (id) => (transport.detach === undefined ? Effect.void : transport.detach(id))
      })
      const policy = yield* Policy.Policy
      const provided = yield* Effect.serviceOption(Executor)
      const executor = Option.isSome(provided) ? provided.value : yield* makeExecutor(policy)
      const progressIntervalMs = Policy.millis(policy.progressInterval)
      const clock = yield* Clock.Clock
      // Spans only when a tracing backend is installed (see Tracer.nativeTracer).
      const tracing = (yield* Tracer.Tracer) !== Tracer.nativeTracer
      const clientLog = ClientLog.of({
        enabled: (level) => severity[level] >= severity[state.logLevel ?? policy.clientLogLevel],
        log: (level, data, options) =>
          Effect.flatMap(Effect.serviceOption(RequestContext), (request) => {
            if (severity[level] < severity[state.logLevel ?? policy.clientLogLevel]) return Effect.void
            if (Option.isSome(request) && request.value.record.ended) return Effect.void
            const logger = options?.logger ?? (Option.isSome(request) ? request.value.record.tool : undefined)
            // `data` is required and must be JSON: undefined becomes null, and
            // what JSON cannot carry (bigint, cycles) is written as text.
            const json = jsonSafe(data === undefined ? null : data)
            const params: LoggingMessageParams =
              logger === undefined ? { level, data: json } : { level, logger, data: json }
            // The request (if any) was just looked up: send directly rather than through
            // session.notify, which would look it up again.
            return send(
              notificationLine("notifications/message", params as unknown as Record<string, unknown>),
              Option.isSome(request) ? request.value.requestId : undefined
            )
          })
      })
      // -- requests to the client ------------------------------------------------

      // Answers awaited from the client, by the id we gave the request. Our ids
      // are strings ("s-1", …), the client's own ids live in another space.
      type Answer =
        | { readonly _tag: "Result"; readonly result: Record<string, unknown> }
        | { readonly _tag: "Error"; readonly code: number | undefined; readonly message: string }
        | { readonly _tag: "Gone" }
      // A request waiting for its answer. The entry exists before the request
      // is sent, so an answer can never arrive before anyone waits for it.
      interface Waiting {
        answer: Answer | undefined
        resume: ((answer: Answer) => void) | undefined
      }
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
      // Watchers of the roots end when the connection closes.
      const rootsChanged = yield* PubSub.unbounded<void>()
      const closed = yield* Deferred.make<void>()
      const client = Client.of({
        capabilities: () => state.clientCapabilities,
        protocolVersion: () => state.protocolVersion,
        notify: session.notify,
        rootsChanged: Stream.fromPubSub(rootsChanged).pipe(Stream.interruptWhen(Deferred.await(closed))),
        publishRootsChanged: Effect.asVoid(PubSub.publish(rootsChanged, undefined)),
        pending: () => pending.size,
        request: (method, params) =>
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
            const outcome = (
              answer: Answer
            ): Effect.Effect<Record<string, unknown>, ClientRequestFailed | ClientGone> =>
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
                  : Effect.fail(
                      new ClientGone({ method, message: "The connection closed before the client answered." })
                    )
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
                  return session.notify("notifications/cancelled", {
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
      })
      const onAnswer = (response: JsonRpcResponse): boolean =>
        typeof response.id === "string" &&
        settle(
          response.id,
          "result" in response
            ? { _tag: "Result", result: response.result as Record<string, unknown> }
            : { _tag: "Error", code: response.error.code, message: response.error.message }
        )

      const context = Context.add(yield* Effect.context<never>(), Session, session).pipe(
        Context.add(Client, client),
        Context.add(Executor, executor),
        Context.add(ClientLog, clientLog),
        Context.add(Progress, disabledProgress)
      )
      const runFork = Effect.runForkWith(context)

      // -- one request ----------------------------------------------------------

      // Only a self-inflicted interruption reaches `onFailure`: when the
      // request's fiber is interrupted from outside (notifications/cancelled,
      // shutdown), the continuation never runs and nothing is sent.
      const onFailure = (
        method: Method.Request,
        id: RequestId,
        correlationId: string,
        cause: Cause.Cause<unknown>,
        record: RequestRecord
      ): Effect.Effect<string> => {
        const failure = Cause.findErrorOption(cause)
        if (Option.isSome(failure) && isMcpError(failure.value) && !Cause.hasDies(cause)) {
          // A policy outcome (timeout, overloaded) set on the way is kept.
          record.outcome = failure.value._tag === "InternalError" ? "internal_error" : (record.outcome ?? "error")
          return Effect.succeed(errorLine(id, failure.value))
        }
        record.outcome = "internal_error"
        return Effect.as(
          Effect.logError(
            Cause.hasInterruptsOnly(cause)
              ? `${method.name} was interrupted from within`
              : `${method.name} failed with a defect`,
            { method: method.name, id, correlation_id: correlationId, cause: Cause.pretty(cause) }
          ),
          errorLine(id, new InternalError({ correlationId }))
        )
      }

      // The log line of a request answered with an error before any handler ran.
      // Also used for messages that never became a request (unparsable,
      // oversize, a bad envelope): `method` is then absent.
      const rejected = (
        method: string | undefined,
        id: RequestId | null,
        bytesIn: number | undefined,
        line: string
      ): Effect.Effect<string> => {
        const log = Effect.withFiber((fiber) =>
          LogLevel.isGreaterThanOrEqualTo("Info", fiber.getRef(References.MinimumLogLevel))
            ? Effect.logInfo("request", {
                ...(method === undefined ? {} : { method }),
                id,
                correlation_id: nextCorrelationId(),
                queue_ms: 0,
                elapsed_ms: 0,
                outcome: "error",
                ...(bytesIn === undefined ? {} : { bytes_in: bytesIn }),
                bytes_out: utf8Length(line) + 1
              })
            : Effect.void
        )
        const logged = Effect.as(log, line)
        // A request (it has a method) gets its span even when no handler ran.
        return tracing && method !== undefined
          ? Effect.withSpan(logged, method, {
              attributes: {
                "mcp.request.id": id,
                "mcp.session.id": sessionId,
                "mcp.outcome": "error",
                "error.type": "error"
              },
              captureStackTrace: false
            })
          : logged
      }

      const execute = (
        method: Method.Request,
        id: RequestId,
        params: { readonly [key: string]: unknown } | undefined,
        bytesIn: number | undefined
      ): Effect.Effect<string> => {
        const decoded = method.decode(params ?? {})
        if (decoded._tag === "Failure") {
          const error = Cause.findErrorOption(decoded.cause)
          const lines = Option.isSome(error) ? formatIssues(error.value.issue) : []
          return rejected(
            method.name,
            id,
            bytesIn,
            errorLine(
              id,
              new InvalidParams({
                message: `Invalid params for ${method.name}${lines.length > 0 ? `:\n${lines.join("\n")}` : ""}`
              })
            )
          )
        }
        const correlationId = nextCorrelationId()
        const progressToken = progressTokenOf(params)
        const record: RequestRecord = {
          tool: undefined,
          capability: undefined,
          queueMs: 0,
          outcome: undefined,
          ended: false
        }
        const key = requestKey(id)
        // A sequential method (initialize) skips the in-flight check: never
        // replace the record of another request that has this id.
        if (!records.has(key)) records.set(key, record)
        const request = RequestContext.of({
          requestId: id,
          method: method.name,
          correlationId,
          protocolVersion: state.protocolVersion,
          clientCapabilities: state.clientCapabilities,
          clientInfo: state.clientInfo,
          progressToken,
          record
        })
        const reporter =
          progressToken === undefined
            ? undefined
            : makeReporter({
                token: progressToken,
                intervalMs: progressIntervalMs,
                withMessage: ProtocolVersion.hasToolAnnotations(state.protocolVersion),
                now: () => Number(clock.monotonicTimeNanosUnsafe()) / 1e6,
                send: (update) =>
                  send(notificationLine("notifications/progress", update as unknown as Record<string, unknown>), id),
                fork: runFork,
                isOpen: () => !record.ended
              })
        const started = clock.monotonicTimeNanosUnsafe()

        // When the request ends, however it ends: the last progress (unless it
        // was cancelled), then its span attributes and its log line.
        const finish = (exit: Exit.Exit<string>): Effect.Effect<void> =>
          Effect.withFiber((fiber) => {
            const cancelled = exit._tag === "Failure"
            if (records.get(key) === record) records.delete(key)
            const line = cancelled ? undefined : exit.value
            const outcome = cancelled ? "cancelled" : (record.outcome ?? "ok")
            let annotate: Effect.Effect<void> = Effect.void
            if (tracing) {
              // `error.type` as in OpenTelemetry's semantic conventions, for any outcome but ok.
              const attributes: Record<string, unknown> =
                outcome === "ok" ? { "mcp.outcome": outcome } : { "mcp.outcome": outcome, "error.type": outcome }
              if (record.tool !== undefined) attributes["mcp.tool.name"] = record.tool
              if (record.capability !== undefined) attributes["mcp.capability"] = record.capability
              annotate = Effect.annotateCurrentSpan(attributes)
            }
            let log: Effect.Effect<void> = annotate
            if (LogLevel.isGreaterThanOrEqualTo("Info", fiber.getRef(References.MinimumLogLevel))) {
              const elapsedMs = Number(clock.monotonicTimeNanosUnsafe() - started) / 1e6
              const fields: Record<string, unknown> = {
                method: method.name,
                id,
                correlation_id: correlationId
              }
              if (record.tool !== undefined) fields.tool = record.tool
              fields.queue_ms = Math.round(record.queueMs * 1000) / 1000
              fields.elapsed_ms = Math.round(elapsedMs * 1000) / 1000
              fields.outcome = outcome
              if (bytesIn !== undefined) fields.bytes_in = bytesIn
              if (line !== undefined) fields.bytes_out = utf8Length(line) + 1
              // The fields as the message's second part: no log annotation context to
              // build per request; the JSON logger (layers/Logging) puts them with the
              // annotations.
              log = Effect.andThen(annotate, Effect.logInfo("request", fields))
            }
            if (reporter === undefined) {
              record.ended = true
              return log
            }
            return Effect.andThen(
              reporter.close(!cancelled),
              Effect.suspend(() => {
                record.ended = true
                return log
              })
            )
          })

        // `suspend`: a handler that throws instead of returning an Effect fails
        // this request only, as a defect.
        return Effect.suspend(() => method.handler(decoded.value)).pipe(
          Effect.matchCauseEffect({
            onSuccess: (result) => Effect.succeed(successLine(id, result)),
            onFailure: (cause) => onFailure(method, id, correlationId, cause, record)
          }),
          Effect.onExit(finish),
          // Data-first on purpose: in effect 4.1.0 the data-last form ignores its
          // options and captures a stack trace for every span.
          // With no tracing backend (Effect's native tracer), a span would go
          // nowhere: the request runs without one and saves its cost.
          (self) =>
            tracing
              ? Effect.withSpan(self, method.name, {
                  attributes: {
                    "mcp.request.id": id,
                    "mcp.correlation_id": correlationId,
                    "mcp.session.id": sessionId
                  },
                  captureStackTrace: false
                })
              : self,
          // Progress is in the session's context, disabled; only a request that
          // asked for progress gets one of its own.
          reporter === undefined
            ? Effect.provideService(RequestContext, request)
            : Effect.provideContext(Context.make(RequestContext, request).pipe(Context.add(Progress, reporter.service)))
        ) as Effect.Effect<string>
      }

      const notInitialized = (method: string) =>
        new InvalidRequest({
          message:
            `Server not initialized: ${method} was sent before initialize. ` +
            `Send initialize first (only ping is allowed before it).`
        })

      // The response to a request, or undefined when none is due (notifications,
      // responses from the peer). Used both for single messages and in batches.
      const answer = (message: Incoming, bytesIn?: number): Effect.Effect<string | undefined> => {
        switch (message._tag) {
          case "Invalid":
            return rejected(
              undefined,
              message.id,
              bytesIn,
              errorLine(message.id, new InvalidRequest({ message: message.message }))
            )
          case "Response":
            if (message.response !== undefined && onAnswer(message.response)) return Effect.succeed(undefined)
            // A malformed answer to a request of ours still ends the wait.
            if (
              message.malformed &&
              typeof message.id === "string" &&
              settle(message.id, {
                _tag: "Error",
                code: undefined,
                message: "The client's answer is not a valid JSON-RPC response."
              })
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
            return Effect.as(notify(message), undefined)
          case "Request": {
            const method = requests.get(message.method)
            if (method === undefined) {
              return rejected(
                message.method,
                message.id,
                bytesIn,
                errorLine(message.id, new MethodNotFound({ method: message.method }))
              )
            }
            if (state.phase === "new" && !method.beforeInitialize) {
              return rejected(
                message.method,
                message.id,
                bytesIn,
                errorLine(message.id, notInitialized(message.method))
              )
            }
            return execute(method, message.id, message.params, bytesIn)
          }
        }
      }

      const notify = (message: Incoming & { _tag: "Notification" }): Effect.Effect<void> => {
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
        fork(`notification:${++notificationCount}`, handled)
        return Effect.void
      }
      let notificationCount = 0

      // -- dispatch -------------------------------------------------------------

      const duplicateId = (id: RequestId) =>
        errorLine(id, new InvalidRequest({ message: `Invalid Request: id ${JSON.stringify(id)} is already in flight` }))

      // Starts `effect` in its own fiber, registered under `key` while it runs.
      // (A fiber that completed synchronously is already done when this returns.)
      const fork = <A>(key: string, effect: Effect.Effect<A>): Fiber.Fiber<A> => {
        const fiber = runFork(effect)
        if (fiber.pollUnsafe() === undefined) {
          inFlight.set(key, fiber)
          fiber.addObserver(() => {
            if (inFlight.get(key) === fiber) inFlight.delete(key)
          })
        }
        return fiber
      }

      const respondTo = (message: Incoming, bytesIn?: number): Effect.Effect<void> =>
        Effect.flatMap(
          Effect.suspend(() => answer(message, bytesIn)),
          (line) => (line === undefined ? Effect.void : send(line, message._tag === "Request" ? message.id : undefined))
        )

      let batches = 0
      const onBatch = (values: ReadonlyArray<unknown>, bytesIn: number): Effect.Effect<void> => {
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
          if (message._tag !== "Request") return Effect.suspend(() => answer(message))
          related ??= message.id
          const key = requestKey(message.id)
          if (inFlight.has(key) || seen.has(key)) {
            return rejected(message.method, message.id, undefined, duplicateId(message.id))
          }
          seen.add(key)
          const fiber = fork(
            key,
            Effect.suspend(() => answer(message))
          )
          return Effect.map(Fiber.await(fiber), (exit) => (exit._tag === "Success" ? exit.value : undefined))
        })
        fork(
          `batch:${++batches}`,
          Effect.forEach(entries, (entry) => entry).pipe(
            Effect.flatMap((lines) => {
              const responses = lines.filter((line): line is string => line !== undefined)
              return responses.length === 0 ? Effect.void : send(`[${responses.join(",")}]`, related)
            })
          )
        )
        return Effect.forEach(immediate, (message) => answer(message), { discard: true })
      }

      // Answers a message that never became a request (no id to answer), and logs it.
      const refuse = (bytesIn: number, error: ParseError | InvalidRequest): Effect.Effect<void> =>
        Effect.flatMap(rejected(undefined, null, bytesIn, errorLine(null, error)), send)

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
              settle(id, {
                _tag: "Error",
                code: undefined,
                message: `The client's answer of ${frame.bytes} bytes exceeds the limit of ${frame.limit} bytes.`
              })
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
            return Effect.flatMap(rejected(undefined, id, frame.bytes, line), (line) => send(line, id ?? undefined))
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
        if (Array.isArray(value)) return onBatch(value, frame.bytes)
        const message = classify(value)
        if (message._tag !== "Request") return respondTo(message, frame.bytes)
        if (requests.get(message.method)?.sequential === true) return respondTo(message, frame.bytes)
        const key = requestKey(message.id)
        if (inFlight.has(key)) {
          return Effect.flatMap(rejected(message.method, message.id, frame.bytes, duplicateId(message.id)), (line) =>
            send(line, message.id)
          )
        }
        fork(key, respondTo(message, frame.bytes))
        return Effect.void
      }

      // -- registry changes -----------------------------------------------------

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

      // -- shutdown -------------------------------------------------------------

      const drain = Effect.suspend(() => {
        state.phase = "closing"
        // No answer can come any more; watchers of the roots are done.
        for (const id of [...pending.keys()]) settle(id, { _tag: "Gone" })
        Deferred.doneUnsafe(closed, Exit.void)
        const fibers = [...inFlight.values()]
        if (fibers.length === 0) return Effect.void
        return Fiber.awaitAll(fibers).pipe(
          Effect.timeoutOption(config.shutdownGraceMs),
          Effect.flatMap((done) =>
            Option.isSome(done)
              ? Effect.void
              : Effect.andThen(
                  Effect.logWarning("shutdown grace period elapsed; interrupting in-flight requests", {
                    in_flight: fibers.length,
                    grace_ms: config.shutdownGraceMs
                  }),
                  // A request stuck in an uninterruptible region must not keep
                  // the server from exiting.
                  // Nothing more is sent for them, even from their finalizers.
                  Effect.andThen(
                    Effect.sync(() => {
                      for (const record of records.values()) record.ended = true
                    }),
                    Fiber.interruptAll(fibers)
                  ).pipe(
                    Effect.timeoutOption(interruptWaitMs),
                    Effect.flatMap((stopped) =>
                      Option.isSome(stopped)
                        ? Effect.void
                        : Effect.logWarning("in-flight requests did not stop after interruption; leaving them", {
                            wait_ms: interruptWaitMs
                          })
                    )
                  )
                )
          )
        )
      })

      yield* Stream.runForEachArray(transport.frames, (frames) => {
        // Almost every frame is handled synchronously (requests fork); only a
        // sequential method (initialize) makes the loop wait before the next one.
        if (frames.length === 1) return onFrame(frames[0])
        return Effect.forEach(frames, onFrame, { discard: true })
      }).pipe(Effect.ensuring(drain), Effect.provideService(Session, session), Effect.provideService(Client, client))
    }).pipe(Effect.provideService(References.LogToStderr, true))
  )
