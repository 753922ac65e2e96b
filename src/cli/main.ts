/**
 * The `mcp-runtime` binary: composes the bundled capabilities with the server
 * core and a transport. This is the only place that knows about both.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as References from "effect/References"
import * as Bundled from "../../capabilities/index.ts"
import * as FileAuditLog from "../../layers/FileAuditLog.ts"
import * as Logging from "../../layers/Logging.ts"
import * as StdioTransport from "../../layers/StdioTransport.ts"
import * as Tracing from "../../layers/Tracing.ts"
import { Confirmation } from "../Confirmation.ts"
import * as Gate from "../Gate.ts"
import * as Kernel from "../Kernel.ts"
import * as McpServer from "../McpServer.ts"
import * as Policy from "../Policy.ts"
import * as ServerConfig from "../ServerConfig.ts"
import { WorkspaceRoot } from "../WorkspaceRoot.ts"
import * as ConfigFile from "./ConfigFile.ts"
import * as Settings from "./settings.ts"
import { UsageError } from "./settings.ts"

const serve = Command.make(
  "serve",
  {
    root: Flag.String("root").pipe(
      Flag.withDescription("Root directory the server works in (default: the current directory)"),
      Flag.optional
    ),
    config: Flag.String("config").pipe(
      Flag.withDescription(
        `Configuration file (default: ${ConfigFile.defaultFileName} in the root, when there is one)`
      ),
      Flag.optional
    ),
    auditLog: Flag.String("audit-log").pipe(
      Flag.withDescription(
        "Audit log file (JSONL), or off (default: a file per root under $XDG_STATE_HOME/mcp-runtime/audit, else ~/.local/state/...)"
      ),
      Flag.optional
    ),
    capabilities: Flag.String("capabilities").pipe(
      Flag.withDescription(
        `Comma-separated capability ids to enable (default: ${Bundled.defaults.join(",")}; bundled: ${Object.keys(Bundled.bundled).join(",")})`
      ),
      Flag.optional
    ),
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
    )
  },
  Effect.fnUntraced(function* (flags) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = path.resolve(Option.getOrElse(flags.root, () => "."))
    const stat = yield* Effect.result(fs.stat(root))
    if (stat._tag === "Failure" || stat.success.type !== "Directory") {
      return yield* new UsageError({ message: `--root ${root}: not a directory` })
    }
    const cliLogLevel = yield* GlobalFlag.LogLevel
    const loaded = yield* ConfigFile.load({ root, file: Option.getOrUndefined(flags.config) })
    const settings = yield* Settings.resolve({
      root,
      configFile: loaded.file,
      config: loaded.config,
      configFromRoot: loaded.fromRoot,
      flags,
      env: process.env
    })
    const http = settings.transport === "http"
    const config = ServerConfig.layer({
      name: "mcp-runtime",
      instructions: "Tools are named <capability>_<tool>. Call system_info to see what this server provides.",
      maxMessageBytes: settings.server.maxMessageBytes,
      shutdownGraceMs: settings.server.shutdownGraceMs
    })
    const policy = Policy.layer(settings.policy)
    const capabilities = Bundled.layer(settings.capabilities, { workspace: settings.workspace, exec: settings.exec })
    // The safety services: a gate when rules are configured, the audit log unless switched off.
    const safety = Layer.mergeAll(
      settings.gate === undefined ? Layer.empty : Layer.succeed(Gate.Gate, Gate.fromRules(settings.gate)),
      settings.audit === undefined ? Layer.empty : FileAuditLog.layer(settings.audit)
    )
    const kernel = Kernel.layer()
    const startup = {
      root,
      capabilities: settings.capabilities,
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
            return yield* HttpTransport.serve(McpServer.serve(), {
              allowedHosts,
              allowedOrigins,
              sessionIdleMs: settings.http.sessionIdleMs,
              resumeGraceMs: settings.http.resumeGraceMs
            })
          }).pipe(
            Effect.provide(
              Layer.mergeAll(
                HttpTransport.layerServer({ host: settings.http.host, port: settings.http.port }),
                capabilities,
                safety
              ).pipe(Layer.provideMerge(kernel))
            )
          )
        })
      : Effect.andThen(
          Effect.logInfo("mcp-runtime serving on stdio", startup),
          McpServer.serve().pipe(
            Effect.provide(Layer.mergeAll(StdioTransport.layer, capabilities, safety).pipe(Layer.provideMerge(kernel)))
          )
        )
    // Outermost, so its scope closes (flushing the last spans) after the server
    // is done and before runMain's teardown exits the process.
    return yield* Effect.andThen(warnings, program).pipe(
      Effect.provideService(WorkspaceRoot, root),
      Effect.provideService(Confirmation, { preApproved: settings.preApproved }),
      Effect.provide(Layer.mergeAll(config, policy)),
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

const root = Command.make("mcp-runtime").pipe(
  Command.withDescription("An Effect-based runtime for Model Context Protocol servers"),
  Command.withSubcommands([serve])
)

// Startup failures are reported as one JSON log line with a readable message
// (no stack trace for expected errors such as a bad flag or a kernel error).
const reportFailure = (cause: Cause.Cause<unknown>) => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.void
  const error = Cause.squash(cause)
  if (CliError.isCliError(error)) return Effect.void // effect/cli already printed it with the usage
  const expected = !Cause.hasDies(cause) && typeof error === "object" && error !== null && "_tag" in error
  return Effect.logError(
    expected ? `mcp-runtime: ${String((error as { message?: unknown }).message)}` : "mcp-runtime failed",
    expected ? { error: String((error as { _tag?: unknown })._tag) } : { cause: Cause.pretty(cause) }
  )
}

const main = root.pipe(
  Command.run({ version: ServerConfig.packageVersion }),
  Effect.tapCause(reportFailure),
  Effect.provide(Logging.layerJsonStderr()),
  Effect.provide(NodeServices.layer)
)

// The first SIGTERM or SIGINT starts a graceful shutdown (runMain interrupts
// the main fiber; in-flight requests get the grace period). A second one
// exits at once.
let signals = 0
const onSignal = () => {
  if (++signals > 1) process.exit(1)
}
process.on("SIGTERM", onSignal)
process.on("SIGINT", onSignal)

NodeRuntime.runMain(main as Effect.Effect<void, unknown>, {
  disableErrorReporting: true,
  // A graceful shutdown after end of input, SIGTERM or SIGINT is a success.
  // The process exits as soon as the server is done, even if a tool left a
  // timer or a handle behind.
  teardown: (exit, onExit) => {
    const code =
      Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
        ? 0
        : CliError.isCliError(Cause.squash(exit.cause)) ||
            Cause.squash(exit.cause) instanceof UsageError ||
            Cause.squash(exit.cause) instanceof ConfigFile.ConfigError
          ? 2
          : 1
    onExit(code)
    process.exit(code)
  }
})
