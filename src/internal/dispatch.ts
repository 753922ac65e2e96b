/**
 * The pipeline of one request, whatever carries it: decode the params with
 * the method's Schema, build the request's context (its `RequestContext`, a
 * `Progress` of its own when it asked for progress), run the handler in a
 * span, serialize the response, and write the request's log line when it
 * ends. It takes everything it knows about the request from {@link RequestEnv}
 * — the protocol version, the client's capabilities, where the request's
 * messages go, the services of its era — never from a session in a closure,
 * so the same code serves a request of a legacy session and a stateless
 * 2026-07-28 request.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type { Principal } from "../Authorization.ts"
import { InternalError, InvalidParams, isMcpError } from "../McpError.ts"
import type { ClientCapabilities, Implementation, RequestId } from "../McpSchema.ts"
import type * as Method from "../Method.ts"
import { Progress } from "../Progress.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext, type RequestRecord } from "../RequestContext.ts"
import { formatIssues } from "./compileTool.ts"
import { errorLine, notificationLine, successLine } from "./jsonRpc.ts"
import { makeReporter } from "./progress.ts"
import { fieldsJsonKey, makeRequestLineFormat, requestLineKey, type RequestLineWriter } from "./requestLine.ts"
import { utf8Length } from "./utf8.ts"

/** What every request served by one server shares. */
export interface Shared {
  readonly clock: Clock.Clock
  /**
   * Whether requests run in spans: a tracing backend is installed (with
   * Effect's native tracer a span would go nowhere), or, as a function asked
   * for each request, someone is looking at them now (the `--inspect` page).
   */
  readonly tracing: boolean | (() => boolean)
  readonly progressIntervalMs: number
  /** Told when each request starts and ends (the `serve --inspect` page); absent, nothing is told. */
  readonly observer?: RequestObserver | undefined
}

/**
 * A request as an observer sees it. `record` is live: the tool, capability
 * and queue wait are filled while the request runs.
 */
export interface ObservedRequest {
  readonly correlationId: string
  readonly method: string
  readonly id: RequestId
  /** The connection (session id) or `stateless`. */
  readonly scope: string
  readonly record: RequestRecord
  readonly bytesIn: number | undefined
  /** The clock's monotonic time at the start, in milliseconds. */
  readonly startedMs: number
  readonly principal: Principal | undefined
}

/** How a request ended, for an observer. */
export interface ObservedEnd {
  readonly outcome: string
  readonly elapsedMs: number
  readonly bytesOut: number | undefined
}

/** Told synchronously when a request starts and when it ends; must not throw or block. */
export interface RequestObserver {
  readonly started: (request: ObservedRequest) => void
  readonly ended: (request: ObservedRequest, end: ObservedEnd) => void
}

/** Everything a request's pipeline needs to know about the request and where it came from. */
export interface RequestEnv {
  readonly protocolVersion: ProtocolVersion.ProtocolVersion
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  /** Sends a message that belongs to this request (progress, a log message, a notification of its own). */
  readonly send: (line: string) => Effect.Effect<void>
  /** Starts a fiber outside the request (progress timers), with the server's services. */
  readonly fork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>
  /** Names the connection (or `stateless`) on the request's span. */
  readonly scope: string
  /** The next correlation id. */
  readonly correlationId: () => string
  /**
   * Services of the request's era added to its context (the per-request
   * `Client`, `Session` and `ClientLog` of a stateless request); undefined
   * when the context it runs in already has them (a legacy session's).
   */
  readonly services?: ReadonlyArray<readonly [Context.Key<any, any>, unknown]> | undefined
  /** Where the request's record is kept while it runs, so that cancelling it can mark it ended. */
  readonly records?: Map<string, RequestRecord> | undefined
  /** Turns a handler's result into what goes on the wire (the 2026-07-28 result fields). */
  readonly shape?: ((result: unknown, method: string) => unknown) | undefined
  /** Who sent the request, when the transport authenticated it. */
  readonly principal?: Principal | undefined
}

/** The key of a request id in maps (`1` and `"1"` are different ids). */
export const requestKey = (id: RequestId): string => (typeof id === "string" ? `s:${id}` : `n:${id}`)

const progressTokenOf = (params: { readonly [key: string]: unknown } | undefined): string | number | undefined => {
  const meta = params?._meta
  if (typeof meta !== "object" || meta === null) return undefined
  const token = (meta as { progressToken?: unknown }).progressToken
  return typeof token === "string" || typeof token === "number" ? token : undefined
}

/**
 * The fields of a request's log line, in their order, with their JSON under
 * {@link fieldsJsonKey} (built by hand: this runs for every request).
 */
export const requestFields = (
  method: string | undefined,
  id: RequestId | null,
  correlationId: string,
  component: string,
  tool: string | undefined,
  queueMs: number,
  elapsedMs: number,
  outcome: string,
  error: string | undefined,
  bytesIn: number | undefined,
  bytesOut: number | undefined
): Record<PropertyKey, unknown> => {
  const fields: Record<PropertyKey, unknown> = {}
  if (method !== undefined) fields.method = method
  fields.id = id
  fields.correlation_id = correlationId
  fields.component = component
  if (tool !== undefined) fields.tool = tool
  fields.queue_ms = queueMs
  fields.elapsed_ms = elapsedMs
  fields.outcome = outcome
  if (error !== undefined) fields.error = error
  if (bytesIn !== undefined) fields.bytes_in = bytesIn
  if (bytesOut !== undefined) fields.bytes_out = bytesOut
  // Not enumerable: a logger that prints the object (Effect's pretty logger, `console.log`) does not show it.
  Object.defineProperty(fields, fieldsJsonKey, {
    value: format.fields(
      method,
      id,
      correlationId,
      component,
      tool,
      queueMs,
      elapsedMs,
      outcome,
      error,
      bytesIn,
      bytesOut
    )
  })
  return fields
}

const format = makeRequestLineFormat()

/** The `component` of a request's log line whose capability is not known. */
export const serverComponent = "server"

// The message of a JSON-RPC error line (the lines `rejected` is given are built by `errorLine`, so always JSON).
const errorMessageOf = (line: string): string | undefined => {
  const parsed: unknown = JSON.parse(line)
  const error = typeof parsed === "object" && parsed !== null ? (parsed as { error?: unknown }).error : undefined
  const message = typeof error === "object" && error !== null ? (error as { message?: unknown }).message : undefined
  return typeof message === "string" ? message : undefined
}

// The only logger's request-line writer, when it has one and the line would carry nothing but its fields.
const requestLineWriter = (
  fiber: Fiber.Fiber<unknown, unknown>,
  loggers: ReadonlySet<Logger.Logger<unknown, unknown>>
): RequestLineWriter | undefined => {
  if (loggers.size !== 1) return undefined
  let writer: RequestLineWriter | undefined
  for (const logger of loggers)
    writer = (logger as unknown as Record<symbol, RequestLineWriter | undefined>)[requestLineKey]
  if (writer === undefined || fiber.getRef(References.CurrentLogSpans).length > 0) return undefined
  for (const _ in fiber.getRef(References.CurrentLogAnnotations)) return undefined
  return writer
}

/**
 * `Effect.logInfo("request", fields)` done at once, from inside the
 * request's fiber: every installed logger gets the same options it would
 * (the fiber, the clock's time, level Info, no cause), with no effect built
 * and run per request. The caller has checked the minimum log level.
 */
const logRequest = (
  fiber: Fiber.Fiber<unknown, unknown>,
  loggers: ReadonlySet<Logger.Logger<unknown, unknown>>,
  fields: Record<PropertyKey, unknown>
): void => {
  const date = new Date(fiber.getRef(Clock.Clock).currentTimeMillisUnsafe())
  const message = ["request", fields]
  for (const logger of loggers) logger.log({ cause: Cause.empty, fiber, date, logLevel: "Info", message })
}

// Where a request's line goes: the only logger's writer when it has one (values, no fields object), else the fields
// logged through every installed logger.
const requestLineSink = (
  fiber: Fiber.Fiber<unknown, unknown>,
  loggers: ReadonlySet<Logger.Logger<unknown, unknown>>
): RequestLineWriter =>
  requestLineWriter(fiber, loggers) ??
  ((
    _fiberId,
    _millis,
    method,
    id,
    correlationId,
    component,
    tool,
    queueMs,
    elapsedMs,
    outcome,
    error,
    bytesIn,
    bytesOut
  ) =>
    logRequest(
      fiber,
      loggers,
      requestFields(method, id, correlationId, component, tool, queueMs, elapsedMs, outcome, error, bytesIn, bytesOut)
    ))

/** The request pipeline of one server. */
export interface Dispatch {
  /** Decodes the params, runs the handler and answers with the response line. */
  readonly execute: (
    method: Method.Request,
    id: RequestId,
    params: { readonly [key: string]: unknown } | undefined,
    bytesIn: number | undefined,
    env: RequestEnv
  ) => Effect.Effect<string>
  /**
   * Logs (and, with a tracing backend, spans) a request answered with an
   * error before any handler ran, or a message that never became a request
   * (`method` absent), and returns its line.
   */
  readonly rejected: (
    method: string | undefined,
    id: RequestId | null,
    bytesIn: number | undefined,
    line: string,
    scope: string,
    correlationId: () => string
  ) => Effect.Effect<string>
}

/** Builds the pipeline. */
export const make = (shared: Shared): Dispatch => {
  const { clock, observer, progressIntervalMs } = shared
  const tracingNow: () => boolean =
    typeof shared.tracing === "function" ? shared.tracing : shared.tracing ? () => true : () => false

  // Only a self-inflicted interruption reaches `onFailure`: when the
  // request's fiber is interrupted from outside (cancellation, shutdown),
  // the continuation never runs and nothing is sent.
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
      record.error = failure.value.message
      return Effect.succeed(errorLine(id, failure.value))
    }
    record.outcome = "internal_error"
    const internal = new InternalError({ correlationId })
    record.error = internal.message
    return Effect.as(
      Effect.logError(
        Cause.hasInterruptsOnly(cause)
          ? `${method.name} was interrupted from within`
          : `${method.name} failed with a defect`,
        { method: method.name, id, correlation_id: correlationId, cause: Cause.pretty(cause) }
      ),
      errorLine(id, internal)
    )
  }

  const rejected: Dispatch["rejected"] = (method, id, bytesIn, line, scope, correlationId) => {
    const log = Effect.withFiber((fiber) => {
      if (LogLevel.isGreaterThanOrEqualTo("Info", fiber.getRef(References.MinimumLogLevel))) {
        const loggers = fiber.getRef(Logger.CurrentLoggers)
        if (loggers.size > 0) {
          requestLineSink(fiber, loggers)(
            fiber.id,
            fiber.getRef(Clock.Clock).currentTimeMillisUnsafe(),
            method,
            id,
            correlationId(),
            serverComponent,
            undefined,
            0,
            0,
            "error",
            errorMessageOf(line),
            bytesIn,
            utf8Length(line) + 1
          )
        }
      }
      return Effect.void
    })
    const logged = Effect.as(log, line)
    if (observer !== undefined) {
      const now = Number(clock.monotonicTimeNanosUnsafe()) / 1e6
      const observed: ObservedRequest = {
        correlationId: "",
        method: method ?? "(invalid message)",
        id: id ?? "",
        scope,
        record: { tool: undefined, capability: undefined, queueMs: 0, outcome: "error", ended: true },
        bytesIn,
        startedMs: now,
        principal: undefined
      }
      observer.started(observed)
      observer.ended(observed, { outcome: "error", elapsedMs: 0, bytesOut: utf8Length(line) + 1 })
    }
    // A request (it has a method) gets its span even when no handler ran.
    return method !== undefined && tracingNow()
      ? Effect.withSpan(logged, method, {
          attributes: {
            "mcp.request.id": id,
            "mcp.session.id": scope,
            "mcp.outcome": "error",
            "error.type": "error"
          },
          captureStackTrace: false
        })
      : logged
  }

  const execute: Dispatch["execute"] = (method, id, params, bytesIn, env) => {
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
        ),
        env.scope,
        env.correlationId
      )
    }
    const correlationId = env.correlationId()
    const tracing = tracingNow()
    const progressToken = progressTokenOf(params)
    const record: RequestRecord = {
      tool: undefined,
      capability: undefined,
      queueMs: 0,
      outcome: undefined,
      error: undefined,
      ended: false,
      atEnd: []
    }
    const key = requestKey(id)
    const records = env.records
    // A sequential method (initialize) skips the in-flight check: never
    // replace the record of another request that has this id.
    if (records !== undefined && !records.has(key)) records.set(key, record)
    const request = RequestContext.of({
      requestId: id,
      method: method.name,
      correlationId,
      protocolVersion: env.protocolVersion,
      clientCapabilities: env.clientCapabilities,
      clientInfo: env.clientInfo,
      progressToken,
      record,
      principal: env.principal
    })
    const send = env.send
    const reporter =
      progressToken === undefined
        ? undefined
        : makeReporter({
            token: progressToken,
            intervalMs: progressIntervalMs,
            withMessage: ProtocolVersion.hasToolAnnotations(env.protocolVersion),
            now: () => Number(clock.monotonicTimeNanosUnsafe()) / 1e6,
            send: (update) =>
              send(notificationLine("notifications/progress", update as unknown as Record<string, unknown>)),
            fork: env.fork,
            isOpen: () => !record.ended
          })
    const started = clock.monotonicTimeNanosUnsafe()
    const shape = env.shape
    const observed: ObservedRequest | undefined =
      observer === undefined
        ? undefined
        : {
            correlationId,
            method: method.name,
            id,
            scope: env.scope,
            record,
            bytesIn,
            startedMs: Number(started) / 1e6,
            principal: env.principal
          }
    if (observed !== undefined) observer!.started(observed)

    // When the request ends, however it ends: the last progress (unless it
    // was cancelled), then its span attributes and its log line.
    const finish = (exit: Exit.Exit<string>): Effect.Effect<void> =>
      Effect.withFiber((fiber) => {
        const cancelled = exit._tag === "Failure"
        // What the handler left to run at the end (a queued audit record), before the answer is handed over.
        const atEnd = record.atEnd!
        for (let i = 0; i < atEnd.length; i++) atEnd[i]!()
        if (records !== undefined && records.get(key) === record) records.delete(key)
        const line = cancelled ? undefined : exit.value
        const outcome = cancelled ? "cancelled" : (record.outcome ?? "ok")
        if (observed !== undefined) {
          observer!.ended(observed, {
            outcome,
            elapsedMs: Number(clock.monotonicTimeNanosUnsafe() - started) / 1e6,
            bytesOut: line === undefined ? undefined : utf8Length(line) + 1
          })
        }
        let annotate: Effect.Effect<void> = Effect.void
        if (tracing) {
          // `error.type` as in OpenTelemetry's semantic conventions, for any outcome but ok.
          const attributes: Record<string, unknown> =
            outcome === "ok" ? { "mcp.outcome": outcome } : { "mcp.outcome": outcome, "error.type": outcome }
          if (record.tool !== undefined) attributes["mcp.tool.name"] = record.tool
          if (record.capability !== undefined) attributes["mcp.capability"] = record.capability
          if (record.error !== undefined) attributes["mcp.error.message"] = record.error
          annotate = Effect.annotateCurrentSpan(attributes)
        }
        // The request's log line, handed to the loggers directly (what `Effect.logInfo("request", fields)`
        // does, without building and running an effect per request), once the request has ended.
        let log: (() => void) | undefined
        if (LogLevel.isGreaterThanOrEqualTo("Info", fiber.getRef(References.MinimumLogLevel))) {
          const loggers = fiber.getRef(Logger.CurrentLoggers)
          if (loggers.size > 0) {
            const elapsedMs = Math.round(Number(clock.monotonicTimeNanosUnsafe() - started) / 1e3) / 1000
            const queueMs = Math.round(record.queueMs * 1000) / 1000
            const bytesOut = line === undefined ? undefined : utf8Length(line) + 1
            const sink = requestLineSink(fiber, loggers)
            // What served it: the capability of the tool, resource or prompt, else the server itself.
            const component = record.capability ?? serverComponent
            // A message only for an outcome other than ok (a cancelled request's record may hold one from before).
            const error = cancelled ? undefined : record.error
            const millis = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
            const tool = record.tool
            log = () =>
              sink(
                fiber.id,
                millis,
                method.name,
                id,
                correlationId,
                component,
                tool,
                queueMs,
                elapsedMs,
                outcome,
                error,
                bytesIn,
                bytesOut
              )
          }
        }
        if (reporter === undefined) {
          record.ended = true
          if (log !== undefined) log()
          return annotate
        }
        return Effect.andThen(
          reporter.close(!cancelled),
          Effect.suspend(() => {
            record.ended = true
            if (log !== undefined) log()
            return annotate
          })
        )
      })

    const services = env.services
    const own = () => Context.make(RequestContext, request).pipe(Context.add(Progress, reporter!.service))
    // `suspend`: a handler that throws instead of returning an Effect fails
    // this request only, as a defect.
    return Effect.suspend(() => method.handler(decoded.value)).pipe(
      Effect.matchCauseEffect({
        onSuccess: (result) =>
          Effect.succeed(successLine(id, shape === undefined ? result : shape(result, method.name))),
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
                "mcp.session.id": env.scope
              },
              captureStackTrace: false
            })
          : self,
      // Progress is in the connection's context, disabled; only a request that
      // asked for progress gets one of its own.
      services === undefined
        ? reporter === undefined
          ? Effect.provideService(RequestContext, request)
          : Effect.provideContext(own())
        : // Added one by one, as overlays on the fiber's context: provideContext (a merge) would copy the whole
          // context, and a new context loses the fiber's cached references.
          (self) =>
            Effect.updateContext(self, (context: Context.Context<any>) => {
              let next: Context.Context<any> = context
              for (const [key, value] of services) next = Context.add(next, key, value)
              next = Context.add(next, RequestContext, request)
              return reporter === undefined ? next : Context.add(next, Progress, reporter.service)
            })
    ) as Effect.Effect<string>
  }

  return { execute, rejected }
}
