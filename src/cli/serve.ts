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
import * as StdioTransport from "../../layers/StdioTransport.ts"
import * as Tracing from "../../layers/Tracing.ts"
import * as McpServer from "../McpServer.ts"
import * as RequestFront from "../RequestFront.ts"
import { Transport } from "../Transport.ts"
import { auditLogFlag, commonFlags, loadConfigured, provideSurroundings, serverLayers } from "./compose.ts"
import { serveThroughDaemon } from "./daemon.ts"
import { UsageError } from "./settings.ts"

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
    )
  },
  Effect.fnUntraced(function* (flags) {
    const cliLogLevel = yield* GlobalFlag.LogLevel
    const { config, settings } = yield* loadConfigured({ root: flags.root, config: flags.config, flags })
    const root = settings.root
    const http = settings.transport === "http"
    const { capabilities, configuration, kernel } = serverLayers(settings)
    const startup = {
      root,
      capabilities: settings.capabilities,
      front: settings.front,
      config: settings.configFile ?? null,
      audit: settings.audit?.path ?? null,
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
      serveOver(StdioTransport.layer)
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
            const { url } = yield* HttpTransport.Listener
            yield* Effect.logInfo(`mcp-runtime serving on ${url}`, { url, ...startup })
            return yield* HttpTransport.serve(makeServer, {
              allowedHosts,
              allowedOrigins,
              sessionIdleMs: settings.http.sessionIdleMs,
              resumeGraceMs: settings.http.resumeGraceMs
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
      : settings.daemon.mode === "auto"
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
    return yield* Effect.andThen(warnings, program).pipe(
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
