/**
 * The server core: the method table, and the two ways a request reaches it.
 *
 * - **A connection** (stdio, the in-memory transport, one legacy Streamable
 *   HTTP session): {@link serve} reads framed messages from a
 *   {@link Transport}, dispatches them through the method table, and writes
 *   the responses. A legacy client (2024-11-05 … 2025-11-25) opens a session
 *   with `initialize`; a 2026-07-28 request, which names its protocol
 *   version and capabilities in `_meta`, is served on its own even on a
 *   connection.
 * - **A request without a connection** (2026-07-28 over Streamable HTTP):
 *   {@link make}'s `request` serves one request from nothing but the request
 *   itself — the dispatch path takes its whole context from the request, so
 *   any instance can serve any request.
 *
 * Each request runs in its own fiber, in a span named after its method (when
 * a tracing backend is installed: with Effect's native tracer a span would go
 * nowhere, and none is made), with a {@link RequestContext} of its own;
 * `notifications/cancelled` (or, over HTTP, a closed stream) interrupts that
 * fiber. When input ends (stdin EOF) or the server is interrupted (SIGTERM),
 * it stops reading, gives in-flight requests the configured grace period,
 * then interrupts what is left.
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
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type { Principal } from "./Authorization.ts"
import type { Client } from "./Client.ts"
import type { ClientLog } from "./ClientLog.ts"
import { Executor, make as makeExecutor } from "./Executor.ts"
import * as Connection from "./internal/connection.ts"
import * as Dispatch from "./internal/dispatch.ts"
import { DurableTasks, type Payload as DurablePayload, type Topic as DurableTopic } from "./internal/durable.ts"
import { Closing } from "./internal/lifecycle.ts"
import { serverInfoOf } from "./internal/modern.ts"
import * as Tasks from "./internal/tasks.ts"
import * as Stateless from "./internal/stateless.ts"
import * as UnknownKeys from "./internal/unknownKeys.ts"
import { Inspector } from "./Inspector.ts"
import { Kernel } from "./Kernel.ts"
import type { RequestId } from "./McpSchema.ts"
import type * as Method from "./Method.ts"
import { defaultMethods } from "./methods/index.ts"
import * as Policy from "./Policy.ts"
import { disabled as disabledProgress, Progress } from "./Progress.ts"
import type { RequestContext } from "./RequestContext.ts"
import { ServerConfig } from "./ServerConfig.ts"
import type { Session } from "./Session.ts"
import { makeMemory as makeMemoryTaskStore, TaskStore } from "./TaskStore.ts"
import type { Transport } from "./Transport.ts"

/**
 * Options of {@link serve} and {@link make}.
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
 * A request that carries its own context (protocol 2026-07-28), as a
 * transport without connections hands it to {@link Server.request}.
 *
 * **Example**
 *
 * ```ts
 * import type * as McpServer from "effect-mcp-runtime/McpServer"
 *
 * const request: McpServer.StatelessRequest = {
 *   id: 1,
 *   method: "tools/list",
 *   params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
 *   bytesIn: 180
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface StatelessRequest {
  readonly id: RequestId
  readonly method: string
  readonly params: { readonly [key: string]: unknown } | undefined
  /** The size of the request on the wire, for the request's log line. */
  readonly bytesIn?: number | undefined
}

/**
 * Where a stateless request came from: where its own messages go, and (over
 * Streamable HTTP) its routing headers, which the server checks against the
 * body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as McpServer from "effect-mcp-runtime/McpServer"
 *
 * const origin: McpServer.StatelessOrigin = {
 *   send: (line) => Effect.sync(() => console.error("before the response:", line)),
 *   headers: (name) => (name === "mcp-method" ? "tools/list" : undefined)
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface StatelessOrigin {
  /** Sends a message that belongs to the request (progress, a log message), before its response. */
  readonly send: (line: string) => Effect.Effect<void>
  /** Reads a request header by its lower-case name; absent on transports without headers. */
  readonly headers?: ((name: string) => string | undefined) | undefined
  /** Who sent the request, when the transport authenticated it (see `Authorization`). Since 0.5.0. */
  readonly principal?: Principal | undefined
}

/**
 * The answer to a stateless request: the response line, and how it went —
 * `ok` (a result, or an error of the request's own: HTTP 200),
 * `bad_request` (the envelope is wrong: `_meta`, headers, version, client
 * capabilities: HTTP 400), `not_found` (no such method: HTTP 404).
 *
 * **Example**
 *
 * ```ts
 * import type * as McpServer from "effect-mcp-runtime/McpServer"
 *
 * const statusOf = (answer: McpServer.StatelessAnswer): number =>
 *   answer.status === "ok" ? 200 : answer.status === "not_found" ? 404 : 400
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface StatelessAnswer {
  readonly line: string
  readonly status: "ok" | "bad_request" | "not_found"
}

/**
 * A built server: its two entry points, and its shutdown.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 *
 * const listTools = Effect.gen(function*() {
 *   const server = yield* McpServer.make()
 *   const answer = yield* server.request(
 *     {
 *       id: 1,
 *       method: "tools/list",
 *       params: {
 *         _meta: {
 *           "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *           "io.modelcontextprotocol/clientCapabilities": {}
 *         }
 *       }
 *     },
 *     { send: () => Effect.void }
 *   )
 *   return answer.line
 * })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Server {
  /** Serves one connection until its input ends, then drains its requests. */
  readonly connection: Effect.Effect<void, never, Transport>
  /**
   * Serves one request that carries its own context (protocol 2026-07-28).
   * Interrupting the effect cancels the request (a closed HTTP stream).
   */
  readonly request: (request: StatelessRequest, origin: StatelessOrigin) => Effect.Effect<StatelessAnswer>
  /**
   * Starts the server's shutdown: long-lived stateless requests
   * (`subscriptions/listen`) end with their result. Connections drain when
   * their input ends.
   */
  readonly close: Effect.Effect<void>
}

/**
 * Builds a server over the {@link Kernel} in context: the method table, the
 * executor (the one in context, else one built from the `Policy`), the
 * request pipeline. Its {@link Server.connection} serves a transport; its
 * {@link Server.request} serves a stateless request; both share the
 * executor's limits. It logs a warning for each `Policy` key, gate rule
 * name and confirmation pre-approval that names nothing the kernel
 * publishes (such a setting has no effect), with the nearest public name.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const program = HttpTransport.serve(McpServer.make()).pipe(
 *   Effect.provide([HttpTransport.layerServer({ port: 3000 }), Kernel.layer()])
 * )
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = <const Methods extends ReadonlyArray<Method.Any> = typeof defaultMethods>(
  options: ServeOptions<Methods> = {}
): Effect.Effect<Server, never, Kernel | Scope.Scope | Exclude<Method.Requirements<Methods[number]>, ServerProvided>> =>
  Effect.gen(function* () {
    const kernel = yield* Kernel
    const config = yield* ServerConfig
    const policy = yield* Policy.Policy
    // A policy key, gate pattern or pre-approval that names nothing published is without effect: a warning each.
    yield* UnknownKeys.warnAtStart(kernel, policy)
    const provided = yield* Effect.serviceOption(Executor)
    const executor = Option.isSome(provided) ? provided.value : yield* makeExecutor(policy)
    const clock = yield* Clock.Clock
    const currentTracer = yield* Tracer.Tracer

    // The one method table, split by revision.
    const legacy = new Map<string, Method.Request<any>>()
    const modern = new Map<string, Method.Request<any>>()
    const notifications = new Map<string, Method.Notification<any>>()
    for (const method of (options.methods ?? defaultMethods) as ReadonlyArray<
      Method.Request<any> | Method.Notification<any>
    >) {
      if (method._tag === "Notification") {
        notifications.set(method.name, method)
        continue
      }
      if (method.revisions !== "modern") legacy.set(method.name, method)
      if (method.revisions !== "legacy") modern.set(method.name, method)
    }

    // The `--inspect` page, when an Inspector is in context: told of every request, shown the executor's load.
    const inspector = yield* Effect.serviceOption(Inspector)
    if (Option.isSome(inspector)) inspector.value.attachServer({ load: executor.load, policy })
    // Spans only when a tracing backend is installed (see Tracer.nativeTracer); with the inspector's tracer over the
    // native one, only while its page is open.
    const tracing =
      currentTracer === Tracer.nativeTracer
        ? false
        : ((Option.isSome(inspector) ? inspector.value.spansWanted(currentTracer) : undefined) ?? true)
    const dispatch = Dispatch.make({
      clock,
      tracing,
      progressIntervalMs: Policy.millis(policy.progressInterval),
      observer: Option.isSome(inspector) ? inspector.value.observer : undefined
    })
    const closing = yield* Deferred.make<void>()
    const serverClosing = Deferred.await(closing)
    // Tasks: the store in context, else one in memory; their work runs in the server's scope.
    const storeProvided = yield* Effect.serviceOption(TaskStore)
    const store = Option.isSome(storeProvided) ? storeProvided.value : yield* makeMemoryTaskStore
    const taskFibers = yield* FiberSet.make()
    const runTask = yield* FiberSet.runtime(taskFibers)<never>()
    // A durable store (layers/ClusterTasks.ts): tasks are workflows, their view a projection in SQL.
    const durableProvided = yield* Effect.serviceOption(DurableTasks)
    const durable = Option.isSome(durableProvided) ? durableProvided.value : undefined
    const runner = yield* Tasks.make({
      store,
      fork: (effect) => runTask(effect),
      durable,
      durability: (name) => kernel.tool(name)?.durable
    })
    const base = Context.add(yield* Effect.context<never>(), Executor, executor).pipe(
      Context.add(Progress, disabledProgress),
      Context.add(Closing, serverClosing),
      Context.add(Tasks.TaskRunner, runner)
    )
    const runFork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A> = Effect.runForkWith(base)

    const prefix = crypto.randomUUID().slice(0, 8)
    let sequence = 0
    const serve = Stateless.make({
      dispatch,
      methods: modern,
      kernel,
      serverInfo: serverInfoOf(config),
      fork: runFork,
      correlationId: () => `${prefix}-${(++sequence).toString(36)}`
    })

    if (durable !== undefined && runner.activity !== undefined) {
      const activity = runner.activity
      // A durable task's work, run again on this instance: its call is served again (without a session, as any
      // 2026-07-28 request), and its Task.background hands the work to the resumed runner.
      const resume = (payload: DurablePayload, resumed: Tasks.Resumption): Effect.Effect<void> =>
        Effect.suspend(() => {
          const params = JSON.parse(payload.params) as Record<string, unknown>
          return Effect.asVoid(
            Effect.updateContext(
              serve(
                { id: `task-${payload.taskId}`, method: "tools/call", params, bytesIn: undefined },
                payload.principal === undefined
                  ? { send: () => Effect.void, scope: "task" }
                  : { send: () => Effect.void, scope: "task", principal: JSON.parse(payload.principal) as Principal }
              ),
              () => Context.add(base, Tasks.CurrentResumption, resumed)
            )
          )
        })
      yield* durable.setActivity((payload) => activity(payload, resume))
      if (!durable.single) {
        // Resource updates and list changes reach the clients of every instance. An event that came from another
        // instance is not sent back out (counted per value: the kernel's hubs keep their order).
        const relay = <A extends string>(topic: DurableTopic, hub: PubSub.PubSub<A>) =>
          Effect.gen(function* () {
            const fromElsewhere = new Map<string, number>()
            // Subscribed first: a relayed event counted in `fromElsewhere` is always seen by the loop below.
            const subscription = yield* PubSub.subscribe(hub)
            yield* Effect.forkScoped(
              Stream.runForEach(durable.broadcasts(topic), (value) =>
                Effect.suspend(() => {
                  fromElsewhere.set(value, (fromElsewhere.get(value) ?? 0) + 1)
                  return PubSub.publish(hub, value as A)
                })
              )
            )
            yield* Effect.forkScoped(
              Stream.runForEach(Stream.fromSubscription(subscription), (value) =>
                Effect.suspend(() => {
                  const count = fromElsewhere.get(value)
                  if (count === undefined) return durable.broadcast(topic, value)
                  if (count <= 1) fromElsewhere.delete(value)
                  else fromElsewhere.set(value, count - 1)
                  return Effect.void
                })
              )
            )
          })
        yield* relay("resource_updates", kernel.updates)
        yield* relay("list_changes", kernel.changes)
      }
    }

    // A request runs in the server's context, not merged into its caller's: a merge copies both on every request
    // and starts a context whose cached references are cold. What belongs to the caller's request (its span,
    // its log annotations and spans) comes along.
    const carried = [Tracer.ParentSpanKey, References.CurrentLogAnnotations.key, References.CurrentLogSpans.key]
    const requestContext = (caller: Context.Context<never>): Context.Context<never> => {
      let context = base
      for (const key of carried) {
        const value = caller.mapUnsafe.get(key)
        if (value !== undefined && value !== base.mapUnsafe.get(key)) context = Context.addUnsafe(context, key, value)
      }
      return context
    }
    const request = (message: StatelessRequest, origin: StatelessOrigin): Effect.Effect<StatelessAnswer> =>
      Effect.updateContext(
        serve(
          { id: message.id, method: message.method, params: message.params, bytesIn: message.bytesIn },
          origin.headers === undefined && origin.principal === undefined
            ? { send: origin.send }
            : { send: origin.send, headers: origin.headers, principal: origin.principal }
        ),
        requestContext
      )

    const connection: Effect.Effect<void, never, Transport> = Effect.scoped(
      Connection.serve({
        dispatch,
        requests: legacy,
        notifications,
        stateless: serve,
        modernOnly: (name) => (modern.has(name) && !legacy.has(name)) || kernel.extensionMethod(name) !== undefined,
        kernel,
        clientLogLevel: policy.clientLogLevel,
        shutdownGraceMs: config.shutdownGraceMs,
        interruptWaitMs,
        serverClosing
      }).pipe(Effect.provideContext(base))
    )

    return { connection, request, close: Deferred.done(closing, Exit.void).pipe(Effect.asVoid) } satisfies Server
  }).pipe(Effect.provideService(References.LogToStderr, true)) as any

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
  Effect.scoped(Effect.flatMap(make(options), (server) => server.connection)).pipe(
    Effect.provideService(References.LogToStderr, true)
  )
