/**
 * The `mcp-runtime` binary: the command tree (`serve`, `doctor`,
 * `capabilities list`, `surface`, `call`, `daemon`) and how failures become
 * exit codes.
 * Each command lives in its own file; `compose.ts` holds what they share.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logging from "../../layers/Logging.ts"
import * as ServerConfig from "../ServerConfig.ts"
import { call } from "./call.ts"
import { capabilities } from "./capabilities.ts"
import { AlreadyReported } from "./compose.ts"
import * as ConfigFile from "./ConfigFile.ts"
import { daemon } from "./daemon.ts"
import { doctor } from "./doctor.ts"
import { serve } from "./serve.ts"
import { UsageError } from "./settings.ts"
import { surface } from "./surface.ts"

const root = Command.make("mcp-runtime").pipe(
  Command.withDescription("An Effect-based runtime for Model Context Protocol servers"),
  Command.withSubcommands([serve, doctor, capabilities, surface, call, daemon])
)

// serve's stderr is its log channel, and so is the daemon's (`daemon run`): failures there are one JSON log line.
// The other commands talk to a person. The command is the first argument that is neither a global flag nor a
// global flag's value; the subcommand, the next such argument.
const commandPath = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const path: Array<string> = []
  for (let i = 0; i < args.length && path.length < 2; i++) {
    const arg = args[i]!
    if (arg === "--log-level" || arg === "--completions") i++
    else if (!arg.startsWith("-")) path.push(arg)
  }
  return path
}
const [command, subcommand] = commandPath(process.argv.slice(2))
const serving = command === "serve" || (command === "daemon" && subcommand === "run")

// Startup failures are reported as one JSON log line with a readable message
// (no stack trace for expected errors such as a bad flag or a kernel error).
const reportFailure = (cause: Cause.Cause<unknown>) => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.void
  const error = Cause.squash(cause)
  if (CliError.isCliError(error)) return Effect.void // effect/cli already printed it with the usage
  if (error instanceof AlreadyReported) return Effect.void
  if (!serving && !Cause.hasDies(cause) && typeof error === "object" && error !== null && "_tag" in error) {
    return Effect.sync(() => process.stderr.write(`mcp-runtime: ${String((error as { message?: unknown }).message)}\n`))
  }
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
    const failure = Exit.isSuccess(exit) ? undefined : Cause.squash(exit.cause)
    const code =
      Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
        ? 0
        : failure instanceof AlreadyReported
          ? failure.exitCode
          : CliError.isCliError(Cause.squash(exit.cause)) ||
              Cause.squash(exit.cause) instanceof UsageError ||
              Cause.squash(exit.cause) instanceof ConfigFile.ConfigError
            ? 2
            : 1
    onExit(code)
    process.exit(code)
  }
})
