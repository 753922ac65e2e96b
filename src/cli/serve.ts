/**
 * `mcp-runtime serve`: the main job. Serves the bundled capabilities over
 * stdio (newline-delimited JSON-RPC) or Streamable HTTP, configured by flags,
 * environment variables and the configuration file.
 *
 * @since 0.1.0
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import * as BridgeServer from "../../layers/BridgeServer.ts"
import * as Logging from "../../layers/Logging.ts"
import * as StdioTransport from "../../layers/StdioTransport.ts"
import * as Tracing from "../../layers/Tracing.ts"
import * as Inspector from "../Inspector.ts"
import * as McpServer from "../McpServer.ts"
import * as RequestFront from "../RequestFront.ts"
import { Transport } from "../Transport.ts"
import {
  auditLogFlag,
  commonFlags,
  loadConfigured,
  provideSurroundings,
  serverLayers,
  storeLayer,
  storeLocation
} from "./compose.ts"
import { serveThroughDaemon } from "./daemon.ts"
import { UsageError } from "./settings.ts"

// `--bridge`'s value: `on` (the default socket), `tcp` / `tcp:PORT` (loopback with a token file), else a socket path.
const bridgeOptions = (value: string): Effect.Effect<BridgeServer.Options, UsageError> => {
  if (value === "on" || value === "") return Effect.succeed({ path: BridgeServer.defaultPath(process.env) })
  const tcp = /^tcp(?::(\d+))?$/.exec(value)
  if (tcp !== null) {
    const port = tcp[1] === undefined ? 0 : Number(tcp[1])
    if (port > 65535) {
      return Effect.fail(new UsageError({ message: `--bridge=${value}: expected a port from 1 to 65535` }))
    }
    return Effect.succeed({ tcp: { port, tokenFile: BridgeServer.defaultTokenFile(process.env) } })
  }
  if (value.startsWith("tcp")) {
    return Effect.fail(
      new UsageError({ message: `--bridge=${value}: expected tcp or tcp:PORT, or a socket path (or --bridge alone)` })
    )
  }
  return Effect.succeed({ path: value })
}
/**
 * The `serve` command.
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime serve --root /srv/project --transport http --port 3000
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const serve = Command.make(
  "serve",
  {
    ...commonFlags,
    auditLog: auditLogFlag,
    maxMessageBytes: Flag.Int("max-message-bytes").pipe(
      Flag.withDescription("Largest incoming message, in bytes (default 4194304)"),
      Flag.optional
    ),
    shutdownGraceMs: Flag.Int("shutdown-grace-ms").pipe(
      Flag.withDescription("Grace period for in-flight requests at shutdown, in ms (default 5000)"),
      Flag.optional
    ),
    timeoutMs: Flag.Int("timeout-ms").pipe(
      Flag.withDescription("Default timeout of a tool call, in ms; 0 disables it (default 300000)"),
      Flag.optional
    ),
    maxConcurrent: Flag.Int("max-concurrent").pipe(
      Flag.withDescription("Tool calls running at once, server-wide; 0 means no limit (default 32)"),
      Flag.optional
    ),
    maxQueued: Flag.Int("max-queued").pipe(
      Flag.withDescription(
        "Tool calls that may wait for a free slot; 0 rejects a call at once when none is free (default 256)"
      ),
      Flag.optional
    ),
    queueTimeoutMs: Flag.Int("queue-timeout-ms").pipe(
      Flag.withDescription("How long a call may wait for a slot, in ms; 0 means no limit (default 30000)"),
      Flag.optional
    ),
    onOverload: Flag.Literals("on-overload", ["queue", "reject"]).pipe(
      Flag.withDescription("When no slot is free: wait in the queue, or reject at once (default queue)"),
      Flag.optional
    ),
    maxResultBytes: Flag.Int("max-result-bytes").pipe(
      Flag.withDescription("Largest tool result, in bytes; 0 means no limit (default 1048576)"),
      Flag.optional
    ),
    transport: Flag.Literals("transport", ["stdio", "http"]).pipe(
      Flag.withDescription(
        "stdio (newline-delimited JSON-RPC on stdin/stdout) or http (Streamable HTTP) (default stdio)"
      ),
      Flag.optional
    ),
    port: Flag.Int("port").pipe(
      Flag.withDescription("HTTP: the port to listen on; 0 picks a free one (default 3000)"),
      Flag.optional
    ),
    host: Flag.String("host").pipe(
      Flag.withDescription("HTTP: the address to bind (default 127.0.0.1, this machine only)"),
      Flag.optional
    ),
    allowedHosts: Flag.String("allowed-hosts").pipe(
      Flag.withDescription(
        "HTTP: comma-separated Host values accepted besides localhost, 127.0.0.1, [::1] and the --host address (name or name:port; * for any)"
      ),
      Flag.optional
    ),
    allowedOrigins: Flag.String("allowed-origins").pipe(
      Flag.withDescription(
        "HTTP: comma-separated Origin values accepted besides loopback origins (scheme://host[:port]; * for any)"
      ),
      Flag.optional
    ),
    sessionIdleMs: Flag.Int("session-idle-ms").pipe(
      Flag.withDescription(
        "HTTP: a session with no open stream and no request in flight ends after this long (default 1800000)"
      ),
      Flag.optional
    ),
    resumeGraceMs: Flag.Int("resume-grace-ms").pipe(
      Flag.withDescription(
        "HTTP: how long a dropped SSE stream may be resumed before its requests are cancelled, in ms (default 5000)"
      ),
      Flag.optional
    ),
    maxSessions: Flag.Int("max-sessions").pipe(
      Flag.withDescription(
        "HTTP: how many sessions may be open at once; one more initialize gets 503 (default 1000, about 87 KiB each)"
      ),
      Flag.optional
    ),
    front: Flag.Literals("front", ["tools", "request"]).pipe(
      Flag.withDescription(
        "How tool calls reach the server: tools (the method table as it is) or request (the request front, see docs/request.md) (default tools)"
      ),
      Flag.optional
    ),
    daemon: Flag.Literals("daemon", ["auto", "off"]).pipe(
      Flag.withDescription(
        "stdio: auto forwards the session to the warm daemon, starting it when none runs, and serves in process when it cannot (see docs/daemon.md) (default off)"
      ),
      Flag.optional
    ),
    authIssuer: Flag.String("auth-issuer").pipe(
      Flag.withDescription(
        "HTTP: require OAuth 2.1 access tokens issued by this authorization server (its issuer URL; with --auth-audience; see docs/authorization.md)"
      ),
      Flag.optional
    ),
    authAudience: Flag.String("auth-audience").pipe(
      Flag.withDescription(
        "HTTP: this server's resource URL, which tokens must name as their audience (e.g. https://mcp.example.com/mcp)"
      ),
      Flag.optional
    ),
    store: Flag.String("store").pipe(
      Flag.withDescription(
        "Where tasks are kept: memory, sqlite (default: a file per root under the state directory), sqlite:FILE, or postgres://user:password@host/db to share them between instances (see docs/scale-out.md)"
      ),
      Flag.optional
    ),
    runnerHost: Flag.String("runner-host").pipe(
      Flag.withDescription(
        "With --store postgres://…: the address other instances reach this one at (default 127.0.0.1)"
      ),
      Flag.optional
    ),
    runnerPort: Flag.Int("runner-port").pipe(
      Flag.withDescription("With --store postgres://…: this instance's runner port (default: a free one)"),
      Flag.optional
    ),
    experimental: Flag.Boolean("experimental").pipe(
      Flag.withDescription(
        "Publish the tools marked experimental (the later fe tools: fe_impact, fe_scaffold, fe_surgeon, fe_batch, fe_diff, fe_budget) (default off)"
      ),
      Flag.optional
    ),
    bridge: Flag.String("bridge").pipe(
      Flag.withOptionalValue("on"),
      Flag.withDescription(
        "Let running applications register tools and resources at run time through a local socket (--bridge: the default Unix socket under the state directory; --bridge=PATH: that socket; --bridge=tcp or tcp:PORT: 127.0.0.1 with a token in a 0600 file); adds the bridge capability (see docs/bridge.md)"
      ),
      Flag.optional
    ),
    inspect: Flag.Int("inspect").pipe(
      Flag.withOptionalValue("0"),
      Flag.withDescription(
        "Serve a live page of what the server is doing on 127.0.0.1 (--inspect: a free port; --inspect=PORT); its address, with a token, is printed on stderr (see docs/inspect.md)"
      ),
      Flag.optional
    )
  },
  Effect.fnUntraced(function* (flags) {
    const cliLogLevel = yield* GlobalFlag.LogLevel
    const loaded = yield* loadConfigured({ root: flags.root, config: flags.config, flags })
    const config = loaded.config
    let settings = loaded.settings
    const root = settings.root
    const http = settings.transport === "http"
    const inspectPort = Option.getOrUndefined(flags.inspect)
    if (inspectPort !== undefined && !(Number.isInteger(inspectPort) && inspectPort >= 0 && inspectPort <= 65535)) {
      return yield* new UsageError({
        message: `--inspect=${inspectPort}: expected a port from 1 to 65535 (or --inspect alone for a free one)`
      })
    }
    const inspector = inspectPort === undefined ? undefined : yield* Inspector.make
    // --bridge, or the bridge capability enabled otherwise (--capabilities, the configuration file): its socket.
    const bridgeFlag =
      Option.getOrUndefined(flags.bridge) ?? (settings.capabilities.includes("bridge") ? "on" : undefined)
    const bridge = bridgeFlag === undefined ? undefined : yield* bridgeOptions(bridgeFlag)
    if (bridge !== undefined && !settings.capabilities.includes("bridge")) {
      settings = { ...settings, capabilities: [...settings.capabilities, "bridge"] }
    }
    const { capabilities: bundled, configuration, kernel } = serverLayers(settings, { inspector, bridge })
    // The durable task store is part of what the server is built with (the kernel's tools run its tasks).
    // With PostgreSQL, input-required states are sealed with a secret every instance shares (from the database),
    // unless keys are configured.
    const capabilities = Layer.merge(
      bundled,
      storeLayer(settings.store, { sharedRequestState: settings.requestState === undefined })
    )
    const startup = {
      root,
      capabilities: settings.capabilities,
      front: settings.front,
      config: settings.configFile ?? null,
      audit: settings.audit?.path ?? null,
      store: storeLocation(settings.store),
      gate:
        settings.gate === undefined
          ? "none"
          : `${settings.gate.rules.length} rules, default ${settings.gate.defaultEffect}`
    }
    const warnings = Effect.forEach(
      settings.warnings,
      (warning) =>
        Effect.logWarning(
          `${warning}. A configuration file in the workspace can be written by whoever controls the workspace; ` +
            `keep yours outside it (--config or MCP_RUNTIME_CONFIG) if that is not you.`
        ),
      { discard: true }
    )
    // The request front is the method table with the front installed; its settings are always provided.
    const makeServer =
      settings.front === "request" ? McpServer.make({ methods: RequestFront.methods }) : McpServer.make()
    const serveOver = <R>(transport: Layer.Layer<Transport, never, R>) =>
      (settings.front === "request" ? McpServer.serve({ methods: RequestFront.methods }) : McpServer.serve()).pipe(
        Effect.provide(Layer.mergeAll(transport, capabilities).pipe(Layer.provideMerge(kernel)))
      )
    const stdio = Effect.andThen(
      Effect.logInfo("mcp-runtime serving on stdio", startup),
      serveOver(
        inspector === undefined ? StdioTransport.layer : Inspector.layerTransport(inspector, StdioTransport.layer)
      )
    )
    const program = http
      ? Effect.gen(function* () {
          // Imported on demand: run from source, stdio never loads the HTTP transport; in the
          // bundle its code is included, but `node:http` is only loaded when the listener is built.
          const HttpTransport = yield* Effect.promise(() => import("../../layers/HttpTransport.ts"))
          const { allowedHosts, allowedOrigins } = settings.http
          // An entry that could never match (an origin given as a host, or the reverse) is refused, not ignored.
          const [invalid] = HttpTransport.invalidEntries({ allowedHosts, allowedOrigins })
          if (invalid !== undefined) {
            const flag = invalid.option === "allowedHosts" ? "--allowed-hosts" : "--allowed-origins"
            return yield* new UsageError({
              message: `${flag} ${JSON.stringify(invalid.entry)}: expected ${invalid.expected}`
            })
          }
          return yield* Effect.gen(function* () {
            const { address, url } = yield* HttpTransport.Listener
            const options = settings.http.authorization
            yield* Effect.logInfo(`mcp-runtime serving on ${url}`, {
              url,
              ...startup,
              authorization: options === undefined ? "none" : `issuer ${options.issuer}, audience ${options.audience}`
            })
            // Off by default on loopback; anywhere else, anyone who reaches the port may use every tool.
            if (options === undefined && !isLoopback(address.address)) {
              yield* Effect.logWarning(
                `listening on ${address.address}, which other machines may reach, without authorization: anyone who ` +
                  `can connect may call every tool. Require access tokens with --auth-issuer and --auth-audience ` +
                  `(see docs/authorization.md), or bind 127.0.0.1`
              )
            }
            // jose is loaded only when authorization is configured.
            const authorization =
              options === undefined
                ? undefined
                : yield* Effect.flatMap(
                    Effect.promise(() => import("../../layers/OAuthResourceServer.ts")),
                    (OAuthResourceServer) => OAuthResourceServer.make(options)
                  )
            return yield* HttpTransport.serve(makeServer, {
              allowedHosts,
              allowedOrigins,
              sessionIdleMs: settings.http.sessionIdleMs,
              resumeGraceMs: settings.http.resumeGraceMs,
              maxSessions: settings.http.maxSessions,
              authorization
            })
          }).pipe(
            Effect.provide(
              Layer.mergeAll(
                HttpTransport.layerServer({ host: settings.http.host, port: settings.http.port }),
                capabilities
              ).pipe(Layer.provideMerge(kernel))
            )
          )
        })
      : // The page shows this process's requests, and the bridge's socket is this process's: with --inspect or
        // --bridge the session is served here.
        settings.daemon.mode === "auto" && inspector === undefined && bridge === undefined
        ? serveThroughDaemon({
            settings,
            flags,
            config,
            startup,
            serveOver: (transport) => serveOver(Layer.succeed(Transport, transport)),
            serveStdio: stdio
          })
        : stdio
    // Outermost, so its scope closes (flushing the last spans) after the server
    // is done and before runMain's teardown exits the process.
    const inspected =
      inspector === undefined || inspectPort === undefined
        ? program
        : Effect.scoped(
            Effect.gen(function* () {
              // Loaded on demand: a server without --inspect never loads the page's HTTP server.
              const InspectServer = yield* Effect.promise(() => import("../../layers/InspectServer.ts"))
              const listening = yield* InspectServer.serve(inspector, { port: inspectPort }).pipe(
                Effect.mapError(
                  (error) =>
                    new UsageError({
                      message: `--inspect${inspectPort === 0 ? "" : `=${inspectPort}`}: cannot listen on 127.0.0.1${inspectPort === 0 ? "" : `:${inspectPort}`} (${causeOf(error)}); choose another port`
                    })
                )
              )
              yield* Effect.sync(() => Logging.stderr().write(`Inspect: ${listening.url}\n`))
              yield* Effect.logInfo(`inspect page on ${listening.url}`, { inspect: listening.url })
              // Every span recorded for the page's waterfall, then handed to the tracer in place (OTLP, or none).
              const inner = yield* Tracer.Tracer
              return yield* program.pipe(
                Effect.provideService(Tracer.Tracer, Inspector.tracer(inspector, inner)),
                Effect.provideService(Inspector.Inspector, inspector)
              )
            })
          )
    return yield* Effect.andThen(warnings, inspected).pipe(
      provideSurroundings(settings),
      Effect.provideService(RequestFront.Settings, settings.request),
      Effect.provide(configuration),
      Effect.provide(Tracing.layerOtlpFromEnv()),
      // `--log-level` (effect/cli's global flag, already in force) wins over the file.
      Option.isNone(cliLogLevel) ? Effect.provideService(References.MinimumLogLevel, settings.logLevel) : identity
    )
  })
).pipe(
  Command.withDescription(
    "Serve MCP over stdio (newline-delimited JSON-RPC on stdin/stdout) or Streamable HTTP (--transport http)"
  )
)

/** Whether a bound address is this machine's loopback interface (127.0.0.0/8, ::1). */
const isLoopback = (address: string): boolean =>
  address === "::1" || address.startsWith("127.") || address === "::ffff:127.0.0.1"

/** Why a listener could not start: the system's error code and message (`EADDRINUSE: address already in use …`). */
const causeOf = (error: { readonly cause: unknown; readonly message: string }): string => {
  const cause = error.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  return typeof cause?.message === "string" ? cause.message : error.message || "unknown error"
}
