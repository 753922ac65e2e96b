/**
 * What the `serve --inspect` page shows, gathered while the server runs:
 * every request (method, tool, session, queue wait, elapsed time, outcome,
 * bytes) as it runs and after, the spans of each request's trace (nested
 * tool calls of a code run or a request chain included), progress
 * notifications and cancellations, command runs with the tail of their
 * output, audit records, and the limits with how full each slot pool and
 * queue is.
 *
 * The server reports to the {@link Inspector} in its context, if there is
 * one: `McpServer` installs its request observer and attaches its executor's
 * load; {@link layerCommandRunner} and {@link layerAuditLog} decorate the
 * command runner and the audit log; {@link tracer} records every span. With
 * no `Inspector` in context nothing is observed and nothing is paid. What is
 * kept is bounded (the last 500 requests, 300 traces, 50 command runs, 500
 * audit records); clients of the live feed each have a bounded queue, and a
 * client that falls behind is cut, never waited for.
 *
 * The page itself is served by `layers/InspectServer.ts`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 *
 * const program = Effect.gen(function* () {
 *   const inspector = yield* Inspector.make
 *   return inspector.snapshot().requests.length
 * }) // succeeds with 0
 * ```
 *
 * @since 0.5.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Tracer from "effect/Tracer"
import { AuditLog, redact } from "./AuditLog.ts"
import { CommandRunner } from "./CommandRunner.ts"
import { Hub } from "./internal/inspect/hub.ts"
import { RequestContext } from "./RequestContext.ts"
import { Transport } from "./Transport.ts"

export type {
  ActivityView,
  AuditView,
  Client,
  CommandView,
  LimitsView,
  RequestView,
  SpanView
} from "./internal/inspect/hub.ts"

/**
 * The inspector service: the event hub of the `--inspect` page.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Inspector } from "effect-mcp-runtime/Inspector"
 *
 * const requests = Effect.map(Effect.service(Inspector), (inspector) => inspector.snapshot().requests)
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export class Inspector extends Context.Service<Inspector, Hub>()("effect-mcp-runtime/Inspector") {}

/**
 * Builds an inspector whose timestamps follow the `Clock` in context.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 *
 * const empty = Effect.map(Inspector.make, (inspector) => inspector.snapshot().audit.length) // succeeds with 0
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make: Effect.Effect<Inspector["Service"]> = Clock.clockWith((clock) =>
  Effect.succeed(new Hub(() => clock.currentTimeMillisUnsafe()))
)

/**
 * A layer with a fresh inspector.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 *
 * const Inspected = Layer.mergeAll(Inspector.layer)
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer: Layer.Layer<Inspector> = Layer.effect(Inspector, make)

/**
 * A tracer that records every span in the inspector, then hands it to
 * `inner` (the OTLP exporter, or Effect's native tracer): installing it turns
 * on the request spans the page's waterfall shows.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Tracer from "effect/Tracer"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 *
 * const traced = <A, E, R>(inspector: Inspector.Inspector["Service"], effect: Effect.Effect<A, E, R>) =>
 *   Effect.provideService(effect, Tracer.Tracer, Inspector.tracer(inspector, Tracer.nativeTracer))
 * ```
 *
 * @category tracing
 * @since 0.5.0
 */
export const tracer = (inspector: Inspector["Service"], inner: Tracer.Tracer): Tracer.Tracer => inspector.tracer(inner)

const correlationOf = Effect.map(Effect.serviceOption(RequestContext), (request) =>
  request._tag === "Some" ? request.value.correlationId : undefined
)

/**
 * Decorates the {@link CommandRunner} in context (given by `runner`): each
 * run is reported to the inspector when it starts, line by line, and when
 * it ends. The runner itself is untouched.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 *
 * declare const inspector: Inspector.Inspector["Service"]
 * const Runner = Inspector.layerCommandRunner(inspector, NodeCommandRunner.layer())
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerCommandRunner = <E, R>(
  inspector: Inspector["Service"],
  runner: Layer.Layer<CommandRunner, E, R>
): Layer.Layer<CommandRunner, E, R> =>
  Layer.effect(
    CommandRunner,
    Effect.map(Effect.service(CommandRunner), (inner) =>
      CommandRunner.of({
        ...inner,
        run: (request) =>
          Effect.flatMap(correlationOf, (correlationId) => {
            const run = inspector.commandStarted({
              command: request.command,
              args: request.args ?? [],
              cwd: request.cwd,
              correlationId
            })
            const onLine = request.onLine
            return inner
              .run({
                ...request,
                onLine: (stream, line) => {
                  run.line(stream, line)
                  return onLine === undefined ? Effect.void : onLine(stream, line)
                }
              })
              .pipe(
                Effect.onExit((exit) =>
                  Effect.sync(() =>
                    exit._tag === "Success"
                      ? run.ended({
                          exitCode: exit.value.exitCode,
                          signal: exit.value.signal,
                          outcome: "exited",
                          durationMs: exit.value.durationMs
                        })
                      : run.ended({
                          exitCode: undefined,
                          signal: undefined,
                          outcome: exit.cause.reasons.some((reason) => reason._tag === "Fail")
                            ? String((exit.cause.reasons.find((r) => r._tag === "Fail") as any).error?._tag ?? "failed")
                            : "interrupted",
                          durationMs: undefined
                        })
                  )
                )
              )
          })
      })
    )
  ).pipe(Layer.provide(runner))

/**
 * Decorates the {@link AuditLog} built by `auditLog`: each record is also
 * shown on the inspect page (its arguments redacted as the audit log's
 * default fields are, and cut to 300 characters).
 *
 * **Example**
 *
 * ```ts
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 * import * as FileAuditLog from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * declare const inspector: Inspector.Inspector["Service"]
 * const Audit = Inspector.layerAuditLog(inspector, FileAuditLog.layer({ path: "/tmp/audit.jsonl" }))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerAuditLog = <E, R>(
  inspector: Inspector["Service"],
  auditLog: Layer.Layer<AuditLog, E, R>
): Layer.Layer<AuditLog, E, R> =>
  Layer.effect(
    AuditLog,
    Effect.map(Effect.service(AuditLog), (inner) =>
      AuditLog.of({
        ...inner,
        record: (call) =>
          Effect.andThen(
            Effect.sync(() => inspector.audited({ ...call, arguments: redact(call.arguments) })),
            inner.record(call)
          ),
        enqueue:
          inner.enqueue === undefined
            ? undefined
            : (call) => {
                inspector.audited({ ...call, arguments: redact(call.arguments) })
                inner.enqueue!(call)
              }
      })
    )
  ).pipe(Layer.provide(auditLog))

const progressMethod = '"method":"notifications/progress"'

/**
 * Decorates the {@link Transport} built by `transport`: each progress
 * notification it sends is also shown on the inspect page, with the request
 * it belongs to when it is sent from the request's own fiber.
 *
 * **Example**
 *
 * ```ts
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 * import * as Layer from "effect/Layer"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 *
 * declare const inspector: Inspector.Inspector["Service"]
 * const Stdio = Inspector.layerTransport(inspector, StdioTransport.layer).pipe(Layer.provide(NodeStdio.layer))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerTransport = <E, R>(
  inspector: Inspector["Service"],
  transport: Layer.Layer<Transport, E, R>
): Layer.Layer<Transport, E, R> =>
  Layer.effect(
    Transport,
    Effect.map(Effect.service(Transport), (inner) =>
      Transport.of({
        ...inner,
        send: (message, related) =>
          message.includes(progressMethod)
            ? Effect.andThen(
                Effect.flatMap(correlationOf, (correlationId) =>
                  Effect.sync(() => {
                    const parsed = JSON.parse(message) as { readonly params?: Record<string, unknown> }
                    inspector.progress(correlationId, parsed.params ?? {})
                  })
                ),
                inner.send(message, related)
              )
            : inner.send(message, related)
      })
    )
  ).pipe(Layer.provide(transport))
