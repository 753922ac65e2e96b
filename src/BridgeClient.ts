/**
 * The application's side of the bridge: a running application (a dev
 * server, a test harness) connects to an `mcp-runtime` that serves the
 * `bridge` capability and registers tools, resources and prompts at run
 * time. The runtime publishes them under `app_` (a tool `orders` of the
 * application `shop` becomes `app_shop_orders`), forwards calls to the
 * application, and removes them when it disconnects — here, when the scope
 * of {@link connect} closes.
 *
 * The application is an MCP server on the connection it opens: its tools are
 * ordinary `Tool.make` definitions served by this package's own server core,
 * so its handlers get cancellation (a call the agent cancels, or the runtime
 * times out, is interrupted), progress, and typed errors as any tool does.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const orders = Tool.make("orders", {
 *   description: "Lists the last orders of the dev server's database.",
 *   input: Schema.Struct({ limit: Schema.Int })
 * }).pipe(Tool.handle(({ limit }) => Effect.succeed(`${limit} orders`)))
 *
 * // published by the runtime as app_shop_orders while the scope is open
 * const program = Effect.scoped(
 *   Effect.andThen(BridgeClient.connect({ name: "shop", tools: [orders] }), Effect.never)
 * )
 * ```
 *
 * @since 0.5.0
 */
import * as NodeFs from "node:fs"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { RequestServices } from "./Capability.ts"
import {
  connectTcp,
  decodeAnswer,
  endpointVariable,
  type Endpoint,
  formatEndpoint,
  helloTimeoutMs,
  maxHelloBytes,
  namePattern,
  parseEndpoint,
  protocolVersion,
  Registered,
  registeredMethod,
  defaultSocketPath,
  defaultTokenPath,
  tokenVariable
} from "./internal/bridgeProtocol.ts"
import { type Connection, connect as connectUnix } from "./internal/daemonSocket.ts"
import { Kernel } from "./Kernel.ts"
import * as Kernels from "./Kernel.ts"
import * as McpServer from "./McpServer.ts"
import type * as Prompt from "./Prompt.ts"
import type * as Resource from "./Resource.ts"
import { ServerConfig } from "./ServerConfig.ts"
import type * as Tool from "./Tool.ts"
import { frameLines, Transport } from "./Transport.ts"

/**
 * The application could not join the bridge: it could not connect
 * (`connect`), the runtime refused it (`refused`: a wrong token, a name in
 * use), or the runtime did not speak the bridge's protocol (`protocol`).
 *
 * **Example**
 *
 * ```ts
 * import { BridgeError } from "effect-mcp-runtime/BridgeClient"
 *
 * new BridgeError({ reason: "refused", message: "the token is missing or wrong" }).reason // => "refused"
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class BridgeError extends Schema.TaggedError<BridgeError>()("BridgeError", {
  reason: Schema.Literals(["connect", "refused", "protocol"]),
  message: Schema.String
}) {}

/**
 * One entry of a registration report: what the runtime published, under
 * which public name, or why it did not.
 *
 * **Example**
 *
 * ```ts
 * import type * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 *
 * const entry: BridgeClient.Entry = { kind: "tool", name: "shop_orders", publicName: "app_shop_orders" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Entry = (typeof Registered.Type)["published"][number]

/**
 * What the runtime published of the application, and what it refused (a
 * name a static capability or another application has) and why.
 *
 * **Example**
 *
 * ```ts
 * import type * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 *
 * const names = (report: BridgeClient.Report) => report.published.map((entry) => entry.publicName)
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Report = typeof Registered.Type

/**
 * Where the application connects and what it registers.
 *
 * The endpoint: `path` (a Unix socket), or `host` and `port` with `token`
 * (TCP on loopback), or `endpoint` (a socket path or `tcp://host:port`);
 * by default `$MCP_RUNTIME_BRIDGE`, else the runtime's default socket
 * `<state>/mcp-runtime/bridge/bridge.sock`. The TCP token: `token`, else the
 * file `tokenFile`, else `$MCP_RUNTIME_BRIDGE_TOKEN`, else the runtime's
 * default token file `<state>/mcp-runtime/bridge/bridge.token`.
 *
 * What it registers: `tools`, `resources` and `prompts`, published by the
 * application as `<name>_<tool>` (and by the runtime as
 * `app_<name>_<tool>`), or a `capability` layer of its own (any
 * `Capability.make` layers, with their ids).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping = Tool.make("ping", { description: "Answers pong." }).pipe(Tool.handle(() => Effect.succeed("pong")))
 * const options: BridgeClient.Options<never> = { name: "shop", path: "/tmp/bridge.sock", tools: [ping] }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options<R = never, E = never> {
  /** The application's name: `^[a-z][a-z0-9_]{0,31}$`, unique among the connected applications. */
  readonly name: string
  readonly description?: string | undefined
  readonly path?: string | undefined
  readonly endpoint?: string | undefined
  readonly host?: string | undefined
  readonly port?: number | undefined
  readonly token?: string | undefined
  readonly tokenFile?: string | undefined
  readonly tools?: ReadonlyArray<Tool.Handled<R>> | undefined
  readonly resources?: ReadonlyArray<Resource.Handled<R>> | undefined
  readonly prompts?: ReadonlyArray<Prompt.Handled<R>> | undefined
  /** Capabilities of the application's own, registered with its kernel (instead of, or with, `tools`…). */
  readonly capability?: Layer.Layer<never, E, Kernel> | undefined
  /** How long to wait for the connection and the runtime's answers (default 10 s). */
  readonly timeoutMs?: number | undefined
  /** Environment variables to read the endpoint and token from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * A connected application.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 *
 * const published = (bridge: BridgeClient.Bridge) =>
 *   Effect.map(bridge.report, (report) => report.published.map((entry) => entry.publicName))
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Bridge {
  /** Where it is connected. */
  readonly endpoint: string
  /** The runtime's latest registration report (its first one once `connect` returned). */
  readonly report: Effect.Effect<Report>
  /** The application's kernel: register more entries at run time (the runtime re-lists them). */
  readonly kernel: Kernel["Service"]
  /** Completes when the runtime closed the connection. */
  readonly closed: Effect.Effect<void>
}

const readToken = (options: Options<any, any>, env: Readonly<Record<string, string | undefined>>) => {
  if (options.token !== undefined) return Effect.succeed(options.token)
  if (options.tokenFile !== undefined) {
    const file = options.tokenFile
    const read = Result.try(() => NodeFs.readFileSync(file, "utf8").trim())
    return Result.isSuccess(read)
      ? Effect.succeed(read.success)
      : Effect.fail(new BridgeError({ reason: "connect", message: `cannot read the bridge's token file ${file}` }))
  }
  const given = env[tokenVariable]
  if (given !== undefined && given !== "") return Effect.succeed(given)
  // The runtime's default token file, when it is there.
  const read = Result.try(() => NodeFs.readFileSync(defaultTokenPath(env), "utf8").trim())
  return Effect.succeed(Result.isSuccess(read) ? read.success : undefined)
}

const endpointOf = (
  options: Options<any, any>,
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<Endpoint, BridgeError> => {
  if (options.path !== undefined) return Effect.succeed({ _tag: "Unix", path: options.path })
  if (options.port !== undefined) {
    return Effect.succeed({ _tag: "Tcp", host: options.host ?? "127.0.0.1", port: options.port })
  }
  const given = options.endpoint ?? env[endpointVariable]
  if (given === undefined || given.trim() === "") {
    return Effect.succeed({ _tag: "Unix", path: defaultSocketPath(env) })
  }
  const parsed = parseEndpoint(given)
  return parsed === undefined
    ? Effect.fail(
        new BridgeError({
          reason: "connect",
          message: `${JSON.stringify(given)} is not a bridge endpoint (a socket path, or tcp://host:port)`
        })
      )
    : Effect.succeed(parsed)
}

/**
 * Connects the application to the runtime's bridge and serves its tools,
 * resources and prompts there until the scope closes (then the runtime
 * removes them). Returns once the runtime has listed and published them;
 * entries the runtime refused are logged as warnings and listed in the
 * report. Fails with {@link BridgeError} when it cannot connect or is
 * refused.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 * import * as Resource from "effect-mcp-runtime/Resource"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets.", input: Schema.Struct({ who: Schema.String }) }).pipe(
 *   Tool.handle(({ who }) => Effect.succeed(`hello ${who}`))
 * )
 * const routes = Resource.make("routes", { uri: "shop://routes", description: "The dev server's routes." }).pipe(
 *   Resource.handle(() => Effect.succeed("GET /orders\nGET /users"))
 * )
 *
 * const program = Effect.scoped(
 *   Effect.gen(function*() {
 *     const bridge = yield* BridgeClient.connect({ name: "shop", tools: [greet], resources: [routes] })
 *     const report = yield* bridge.report
 *     yield* Effect.log(`published: ${report.published.map((entry) => entry.publicName).join(", ")}`)
 *     yield* bridge.closed
 *   })
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const connect = <R = never, E = never>(
  options: Options<R, E>
): Effect.Effect<Bridge, BridgeError | E | Kernels.KernelError, Scope.Scope | Exclude<R, RequestServices>> =>
  Effect.gen(function* () {
    const env = options.env ?? process.env
    const timeoutMs = options.timeoutMs ?? helloTimeoutMs
    if (!namePattern.test(options.name)) {
      return yield* new BridgeError({
        reason: "refused",
        message: `the application name ${JSON.stringify(options.name)} must match ${namePattern.source}`
      })
    }
    const endpoint = yield* endpointOf(options, env)
    const token = endpoint._tag === "Tcp" ? yield* readToken(options, env) : undefined

    // The application's own server: a kernel with its entries.
    const scope = yield* Effect.scope
    const kernel = yield* Kernels.make()
    const context = yield* Effect.context<Exclude<R, RequestServices>>()
    const tools = options.tools ?? []
    const resources = options.resources ?? []
    const prompts = options.prompts ?? []
    if (tools.length + resources.length + prompts.length > 0) {
      yield* kernel.registerCapability(
        {
          id: options.name,
          description: options.description ?? `The application ${options.name}`,
          version: "1.0.0"
        },
        tools,
        context as any,
        prompts,
        resources
      )
    }
    if (options.capability !== undefined) {
      yield* Layer.buildWithScope(options.capability.pipe(Layer.provide(Layer.succeed(Kernel, kernel))), scope)
    }

    const connection: Connection = yield* (
      endpoint._tag === "Unix"
        ? connectUnix(endpoint.path, timeoutMs)
        : connectTcp(endpoint.host, endpoint.port, timeoutMs)
    ).pipe(
      Effect.mapError(
        (error) =>
          new BridgeError({
            reason: "connect",
            message:
              `cannot connect to the bridge at ${formatEndpoint(endpoint)} (${error.message}); is mcp-runtime ` +
              `serving the bridge capability there (serve --bridge)?`
          })
      )
    )
    yield* Effect.addFinalizer(() => connection.destroy)
    yield* connection.write(
      `${JSON.stringify({
        mcpRuntimeBridge: protocolVersion,
        name: options.name,
        pid: process.pid,
        ...(token === undefined ? {} : { token })
      })}\n`
    )
    const answer = yield* connection.readLine({ maxBytes: maxHelloBytes, timeoutMs }).pipe(
      Effect.flatMap(decodeAnswer),
      Effect.mapError(
        (error) =>
          new BridgeError({ reason: "protocol", message: `the bridge did not answer the hello: ${error.message}` })
      )
    )
    if (!answer.ok) return yield* new BridgeError({ reason: "refused", message: answer.message })

    // The runtime's registration reports are for the application, not for its server.
    let latest: Report = { published: [], refused: [] }
    const first = yield* Deferred.make<void>()
    const decodeReport = Schema.decodeUnknownResult(Schema.fromJsonString(Schema.Struct({ params: Registered })))
    const onReport = (text: string): Effect.Effect<void> => {
      const decoded = decodeReport(text)
      if (Result.isFailure(decoded)) return Effect.logWarning(`bridge: a registration report that cannot be read`)
      latest = decoded.success.params
      const refused = latest.refused
      return Effect.andThen(
        refused.length === 0
          ? Effect.void
          : Effect.logWarning(
              `bridge: the runtime did not publish ${refused.length} entr${refused.length === 1 ? "y" : "ies"}: ` +
                refused.map((entry) => `${entry.kind} ${entry.name}: ${entry.reason ?? "refused"}`).join("; ")
            ),
        Deferred.succeed(first, undefined)
      )
    }
    const config = yield* ServerConfig
    const frames = frameLines(connection.chunks, config.maxMessageBytes).pipe(
      Stream.filterEffect((frame) =>
        frame._tag === "Message" && frame.text.includes(registeredMethod) && isReport(frame.text)
          ? Effect.as(onReport(frame.text), false)
          : Effect.succeed(true)
      )
    )
    const transport = Transport.of({
      frames,
      send: (message) => Effect.sync(() => connection.writeNow(`${message}\n`))
    })
    yield* McpServer.serve().pipe(
      Effect.provideService(Transport, transport),
      Effect.provideService(Kernel, kernel),
      Effect.provideService(ServerConfig, { ...config, name: options.name }),
      Effect.forkIn(scope)
    )
    yield* Deferred.await(first).pipe(
      Effect.raceFirst(
        Effect.andThen(
          connection.closed,
          Effect.fail(new BridgeError({ reason: "protocol", message: "the runtime closed the connection" }))
        )
      ),
      Effect.timeoutOrElse({
        duration: timeoutMs * 3,
        orElse: () =>
          Effect.fail(
            new BridgeError({ reason: "protocol", message: `the runtime did not list the application in time` })
          )
      })
    )
    return {
      endpoint: formatEndpoint(endpoint),
      report: Effect.sync(() => latest),
      kernel,
      closed: connection.closed
    } satisfies Bridge
  })

const isReport = (text: string): boolean => {
  const parsed = Result.try(() => JSON.parse(text) as { method?: unknown; id?: unknown })
  return Result.isSuccess(parsed) && parsed.success.method === registeredMethod && parsed.success.id === undefined
}

/**
 * The same as {@link connect}, for an application that does not use Effect:
 * a Promise of a handle whose `close()` disconnects. The tools' handlers are
 * Effects all the same (write them with `Effect.promise` around async code).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as BridgeClient from "effect-mcp-runtime/BridgeClient"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping = Tool.make("ping", { description: "Answers pong." }).pipe(Tool.handle(() => Effect.succeed("pong")))
 *
 * const bridge = await BridgeClient.connectPromise({ name: "devserver", tools: [ping] })
 * process.on("SIGTERM", () => void bridge.close())
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const connectPromise = (
  options: Options<never, never>
): Promise<{ readonly endpoint: string; readonly report: () => Report; readonly close: () => Promise<void> }> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const bridge = yield* connect(options).pipe(
        Scope.provide(scope),
        Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
      )
      return {
        endpoint: bridge.endpoint,
        report: () => Effect.runSync(bridge.report),
        close: () => Effect.runPromise(Scope.close(scope, Exit.void))
      }
    })
  )
