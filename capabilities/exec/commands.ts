/**
 * `exec_commands`: lists the commands `exec_run` may run.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { allowedCommands } from "./allowlist.ts"
import type { ExecSettingsShape } from "./settings.ts"

/**
 * The `exec_commands` result's Schema.
 *
 * **Example**
 *
 * ```ts
 * import { CommandsResult } from "./capabilities/exec/commands.ts"
 *
 * Object.keys(CommandsResult.fields) // => ["commands", "defaultTimeoutMs", "maxTimeoutMs"]
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const CommandsResult = Schema.Struct({
  commands: Schema.Array(
    Schema.Struct({
      command: Schema.String.annotate({ description: "The name to pass as exec_run's command, exactly." }),
      args: Schema.Union([Schema.Literal("any"), Schema.Array(Schema.String)]).annotate({
        description: '"any": any arguments; otherwise the allowed first arguments (subcommands).'
      }),
      description: Schema.optionalKey(Schema.String)
    })
  ),
  defaultTimeoutMs: Schema.Int.annotate({ description: "The timeout of a run that gives no timeoutMs." }),
  maxTimeoutMs: Schema.Int.annotate({ description: "The largest timeoutMs a run may ask for." })
})

/**
 * Builds the `commands` tool, published as `exec_commands`, for the given
 * settings: the allowlist (one entry per command, with `args: "any"` or the
 * allowed first arguments) and the timeouts. Read-only and idempotent.
 *
 * **Example**
 *
 * ```ts
 * import { makeCommands } from "./capabilities/exec/commands.ts"
 * import { defaultExecSettings } from "./capabilities/exec/settings.ts"
 *
 * makeCommands(defaultExecSettings).tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeCommands = (settings: ExecSettingsShape): Tool.Handled => {
  const result = {
    commands: allowedCommands(settings),
    defaultTimeoutMs: Math.min(settings.defaultTimeoutMs, settings.maxTimeoutMs),
    maxTimeoutMs: settings.maxTimeoutMs
  }
  return Tool.make("commands", {
    title: "List the commands exec_run may run",
    description:
      "Lists the commands exec_run may run on this server: each command's exact name (paths are not matched: call " +
      'a command by the name listed) and either args "any" or the allowed first arguments (subcommands, e.g. ' +
      'npm with ["test", "run"] allows "npm test" and "npm run build" but not "npm publish"), with the default ' +
      "and largest timeouts. Call it before exec_run when you are unsure a command is allowed.",
    output: CommandsResult,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
  }).pipe(Tool.handle(() => Effect.succeed(result)))
}
