/**
 * The allowlist of the `exec` capability as the tools use it: the entries of
 * the settings merged per command, and the check of one call against them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"
import type { CommandRule, ExecSettingsShape } from "./settings.ts"

/**
 * One allowed command: its exact name, and either `"any"` arguments or the
 * list of allowed first arguments (subcommands).
 *
 * **Example**
 *
 * ```ts
 * import type { AllowedCommand } from "./capabilities/exec/allowlist.ts"
 *
 * const npm: AllowedCommand = { command: "npm", args: ["test", "run"], description: "tests and scripts" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface AllowedCommand {
  readonly command: string
  readonly args: "any" | ReadonlyArray<string>
  readonly description?: string
}

const make = (command: string, args: AllowedCommand["args"], description: string | undefined): AllowedCommand =>
  description === undefined ? { command, args } : { command, args, description }

const normalize = (rule: CommandRule): AllowedCommand =>
  typeof rule === "string" ? make(rule, "any", undefined) : make(rule.command, rule.args ?? "any", rule.description)

/**
 * The allowed commands of the settings (`commands`, then
 * `additionalCommands`), one per name, in the order first listed. Entries of
 * the same name are merged: any entry without `args` allows any arguments,
 * otherwise their `args` are joined.
 *
 * **Example**
 *
 * ```ts
 * import { allowedCommands } from "./capabilities/exec/allowlist.ts"
 * import { defaultExecSettings } from "./capabilities/exec/settings.ts"
 *
 * allowedCommands({
 *   ...defaultExecSettings,
 *   commands: [{ command: "npm", args: ["test"] }],
 *   additionalCommands: [{ command: "npm", args: ["run"] }, "git"]
 * })
 * // => [{ command: "npm", args: ["test", "run"] }, { command: "git", args: "any" }]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const allowedCommands = (settings: ExecSettingsShape): ReadonlyArray<AllowedCommand> => {
  const byName = new Map<string, AllowedCommand>()
  for (const rule of [...settings.commands, ...settings.additionalCommands]) {
    const next = normalize(rule)
    const previous = byName.get(next.command)
    if (previous === undefined) {
      byName.set(next.command, next)
      continue
    }
    const args =
      previous.args === "any" || next.args === "any"
        ? ("any" as const)
        : [...previous.args, ...next.args.filter((arg) => !previous.args.includes(arg))]
    byName.set(next.command, make(next.command, args, previous.description ?? next.description))
  }
  return [...byName.values()]
}

/**
 * Checks one call against the allowed commands: the command must be listed
 * under exactly this name (a path only if listed literally), and, when its
 * entry restricts the arguments, the first argument must be one of them.
 * Fails with a `Tool.ToolError` coded `command_not_allowed` or
 * `arguments_not_allowed` whose suggestion names `exec_commands`.
 *
 * **Example**
 *
 * ```ts
 * import { allowedCommands, authorize } from "./capabilities/exec/allowlist.ts"
 * import { defaultExecSettings } from "./capabilities/exec/settings.ts"
 *
 * const allowed = allowedCommands(defaultExecSettings)
 * authorize(allowed, "git", ["status"]) // succeeds
 * authorize(allowed, "/usr/bin/git", ["status"]) // fails: command_not_allowed
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const authorize = (
  allowed: ReadonlyArray<AllowedCommand>,
  command: string,
  args: ReadonlyArray<string>
): Effect.Effect<void, Tool.ToolError> => {
  const entry = allowed.find((candidate) => candidate.command === command)
  if (entry === undefined) {
    const listed = allowed.map((candidate) => candidate.command).join(", ")
    const path = command.includes("/")
      ? " Commands are matched by their exact name: a path runs only if that very path is on the allowlist" +
        (allowed.some((candidate) => candidate.command === command.slice(command.lastIndexOf("/") + 1))
          ? ` (call "${command.slice(command.lastIndexOf("/") + 1)}" by its name instead).`
          : ".")
      : ""
    return Effect.fail(
      new Tool.ToolError({
        message: `The command "${command}" is not on the exec allowlist (allowed: ${listed === "" ? "none" : listed}).${path}`,
        suggestion:
          "Call exec_commands to see the commands you may run and their allowed subcommands; the server's operator " +
          "can add commands in the configuration (exec.additionalCommands).",
        code: "command_not_allowed"
      })
    )
  }
  if (entry.args === "any" || entry.args.includes(args[0] ?? "")) return Effect.void
  const first = args[0]
  return Effect.fail(
    new Tool.ToolError({
      message:
        `${first === undefined ? `"${command}" without arguments` : `"${command} ${first}"`} is not allowed: ` +
        `the first argument of ${command} must be one of ${entry.args.join(", ")} (options go after it).`,
      suggestion: `Call exec_commands to see what ${command} may run, then call exec_run with one of those subcommands first.`,
      code: "arguments_not_allowed"
    })
  )
}
