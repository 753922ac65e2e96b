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
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import { bundled, type BundledId, defaults } from "../../capabilities/index.ts"
import * as Logging from "../../layers/Logging.ts"
import * as StdioTransport from "../../layers/StdioTransport.ts"
import * as Tracing from "../../layers/Tracing.ts"
import * as Kernel from "../Kernel.ts"
import * as McpServer from "../McpServer.ts"
import * as Policy from "../Policy.ts"
import * as ServerConfig from "../ServerConfig.ts"
import type { WorkspaceError } from "../Workspace.ts"
import { WorkspaceRoot } from "../WorkspaceRoot.ts"

/**
 * A usage error: bad flag values, an unknown capability, a missing root.
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

const parseCapabilities = (value: Option.Option<string>): Effect.Effect<ReadonlyArray<BundledId>, UsageError> => {
  const known = Object.keys(bundled) as Array<BundledId>
  if (Option.isNone(value)) return Effect.succeed(defaults)
  const ids = value.value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
  const unknown = ids.filter((id) => !(id in bundled))
  if (unknown.length > 0) {
    return Effect.fail(
      new UsageError({
        message:
          `Unknown capabilit${unknown.length === 1 ? "y" : "ies"}: ${unknown.join(", ")}. ` +
          `Bundled capabilities: ${known.join(", ")}`
      })
    )
  }
  return Effect.succeed([...new Set(ids)] as Array<BundledId>)
}

const parseList = (value: Option.Option<string>): ReadonlyArray<string> =>
  Option.isNone(value)
    ? []
    : value.value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0)

const serve = Command.make(
  "serve",
  {
    root: Flag.String("root").pipe(
      Flag.withDescription("Root directory the server works in (default: the current directory)"),
      Flag.optional
    ),
    capabilities: Flag.String("capabilities").pipe(
      Flag.withDescription(
        `Comma-separated capability ids to enable (default: ${defaults.join(",")}; bundled: ${Object.keys(bundled).join(",")})`
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
    const ids = yield* parseCapabilities(flags.capabilities)
    for (const [flag, value, min] of [
      ["--max-message-bytes", flags.maxMessageBytes, 1024],
      ["--shutdown-grace-ms", flags.shutdownGraceMs, 0],
      ["--timeout-ms", flags.timeoutMs, 0],
      ["--max-concurrent", flags.maxConcurrent, 0],
      ["--max-queued", flags.maxQueued, 0],
      ["--queue-timeout-ms", flags.queueTimeoutMs, 0],
      ["--max-result-bytes", flags.maxResultBytes, 0],
      ["--port", flags.port, 0],
      ["--session-idle-ms", flags.sessionIdleMs, 1],
      ["--resume-grace-ms", flags.resumeGraceMs, 0]
    ] as const) {
      if (Option.isSome(value) && value.value < min) {
        return yield* new UsageError({ message: `${flag} ${value.value}: must be at least ${min}` })
      }
    }
    const http = Option.getOrElse(flags.transport, () => "stdio") === "http"
    if (Option.isSome(flags.port) && flags.port.value > 65535) {
      return yield* new UsageError({ message: `--port ${flags.port.value}: must be at most 65535` })
    }
    if (!http) {
      const httpOnly: ReadonlyArray<readonly [string, Option.Option<unknown>]> = [
        ["--port", flags.port],
        ["--host", flags.host],
        ["--allowed-hosts", flags.allowedHosts],
        ["--allowed-origins", flags.allowedOrigins],
        ["--session-idle-ms", flags.sessionIdleMs],
        ["--resume-grace-ms", flags.resumeGraceMs]
      ]
      for (const [flag, value] of httpOnly) {
        if (Option.isSome(value)) {
          return yield* new UsageError({ message: `${flag} applies to --transport http only` })
        }
      }
    }
    const config = ServerConfig.layer({
      name: "mcp-runtime",
      instructions: "Tools are named <capability>_<tool>. Call system_info to see what this server provides.",
      maxMessageBytes: Option.getOrUndefined(flags.maxMessageBytes),
      shutdownGraceMs: Option.getOrUndefined(flags.shutdownGraceMs)
    })
    // 0 switches a limit off.
    const limit = (value: Option.Option<number>) =>
      Option.getOrUndefined(Option.map(value, (n) => (n === 0 ? Infinity : n)))
    const policy = Policy.layer({
      timeout: limit(flags.timeoutMs),
      maxConcurrent: limit(flags.maxConcurrent),
      maxQueued: Option.getOrUndefined(flags.maxQueued),
      queueTimeout: limit(flags.queueTimeoutMs),
      onOverload: Option.getOrUndefined(flags.onOverload),
      maxResultBytes: limit(flags.maxResultBytes)
    })
    const capabilities = ids.reduce(
      (acc: Layer.Layer<never, Kernel.KernelError | WorkspaceError, Kernel.Kernel>, id) =>
        Layer.merge(acc, bundled[id]),
      Layer.empty
    )
    const kernel = Kernel.layer()
    const program = http
      ? Effect.gen(function* () {
          // Imported on demand: run from source, stdio never loads the HTTP transport; in the
          // bundle its code is included, but `node:http` is only loaded when the listener is built.
          const HttpTransport = yield* Effect.promise(() => import("../../layers/HttpTransport.ts"))
          const allowedHosts = parseList(flags.allowedHosts)
          const allowedOrigins = parseList(flags.allowedOrigins)
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
            yield* Effect.logInfo(`mcp-runtime serving on ${url}`, { url, root, capabilities: ids })
            return yield* HttpTransport.serve(McpServer.serve(), {
              allowedHosts,
              allowedOrigins,
              sessionIdleMs: Option.getOrUndefined(flags.sessionIdleMs),
              resumeGraceMs: Option.getOrUndefined(flags.resumeGraceMs)
            })
          }).pipe(
            Effect.provide(
              Layer.mergeAll(
                HttpTransport.layerServer({
                  host: Option.getOrUndefined(flags.host),
                  port: Option.getOrUndefined(flags.port)
                }),
                capabilities
              ).pipe(Layer.provideMerge(kernel))
            )
          )
        })
      : Effect.andThen(
          Effect.logInfo("mcp-runtime serving on stdio", { root, capabilities: ids }),
          McpServer.serve().pipe(
            Effect.provide(Layer.mergeAll(StdioTransport.layer, capabilities).pipe(Layer.provideMerge(kernel)))
          )
        )
    // Outermost, so its scope closes (flushing the last spans) after the server
    // is done and before runMain's teardown exits the process.
    return yield* program.pipe(
      Effect.provideService(WorkspaceRoot, root),
      Effect.provide(Layer.mergeAll(config, policy)),
      Effect.provide(Tracing.layerOtlpFromEnv())
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
        : CliError.isCliError(Cause.squash(exit.cause)) || Cause.squash(exit.cause) instanceof UsageError
          ? 2
          : 1
    onExit(code)
    process.exit(code)
  }
})
