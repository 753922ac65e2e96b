/**
 * Maps the command runner's typed errors to tool errors whose suggestion
 * names the tool (or resource) to use next.
 *
 * @since 0.1.0
 */
import type { RunError } from "../../src/CommandRunner.ts"
import * as Tool from "../../src/Tool.ts"
import { logUri } from "./runLog.ts"

/**
 * Turns one `CommandRunner.RunError` of an `exec_run` call into a
 * `Tool.ToolError`, coded `cwd_outside_root`, `cwd_not_found`,
 * `command_not_found`, `spawn_failed` or `timed_out`. `maxTimeoutMs` is the
 * largest timeout a call may ask for, quoted in the advice after a timeout.
 *
 * **Example**
 *
 * ```ts
 * import { CommandNotFound } from "effect-mcp-runtime/CommandRunner"
 * import { toToolError } from "./capabilities/exec/errors.ts"
 *
 * toToolError(new CommandNotFound({ command: "pnpm", message: "…" }), { maxTimeoutMs: 600000 }).code
 * // => "command_not_found"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const toToolError = (error: RunError, options: { readonly maxTimeoutMs: number }): Tool.ToolError => {
  switch (error._tag) {
    case "CwdOutsideRoot":
      return new Tool.ToolError({
        message: `The working directory "${error.cwd}" is outside the workspace root.`,
        suggestion:
          'Pass cwd relative to the workspace root, staying under it (e.g. "." or "packages/app"); call ' +
          "workspace_list to see the directories.",
        code: "cwd_outside_root"
      })
    case "CwdNotFound":
      return new Tool.ToolError({
        message: `The working directory "${error.cwd}" does not exist or is not a directory.`,
        suggestion: "Call workspace_list to find an existing directory, then call exec_run with it as cwd.",
        code: "cwd_not_found"
      })
    case "CommandNotFound":
      return new Tool.ToolError({
        message: `The command "${error.command}" is allowed but is not installed on the server (not found on its PATH).`,
        suggestion:
          "Call exec_commands to pick another command; a tool installed in the project's node_modules runs " +
          'through its package manager, e.g. exec_run with command "npx" and args ["tsc", "--noEmit"].',
        code: "command_not_found"
      })
    case "SpawnFailed":
      return new Tool.ToolError({
        message: `The command "${error.command}" could not be started (${error.reason}).`,
        suggestion:
          "Check that no argument contains a NUL byte; if the command is a script, it must be executable. Call " +
          "exec_commands to pick another command.",
        code: "spawn_failed"
      })
    case "TimedOut":
      return new Tool.ToolError({
        message:
          `The command "${error.command}" did not finish within ${error.timeoutMs} ms and was killed with every ` +
          `process it started. What it printed until then is in ${logUri(error.runId)}.`,
        suggestion:
          `Read ${logUri(error.runId)} with resources/read to see how far it got; to give it longer, call exec_run ` +
          `again with a larger timeoutMs (at most ${options.maxTimeoutMs}).`,
        code: "timed_out"
      })
  }
}
