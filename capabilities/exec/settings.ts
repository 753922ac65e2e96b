/**
 * The settings of the `exec` capability: which commands may run (the
 * allowlist), how long a run may take, how much of its output is kept and
 * shown, and what it finds in its environment. {@link ExecSettings} is a
 * `Context.Reference` whose default is {@link defaultExecSettings};
 * {@link ExecSettingsSchema} decodes the `exec` section of the configuration
 * file into the same shape, every key optional (a missing key keeps its
 * default).
 *
 * Matching is by **exact name**: the `command` of a call must be spelled as
 * an entry of the allowlist. A name without a slash (`git`) is looked up on
 * the child's `PATH`; a path (`/bin/rm`, `./scripts/build.sh`,
 * `node_modules/.bin/tsc`) is refused unless that very string is listed —
 * listing `git` does not allow `/usr/bin/git`, and listing `./build.sh` does
 * not allow `build.sh` or `./x/../build.sh`. This keeps the check a string
 * comparison with no file-system lookups to race against, and makes an
 * operator who wants a script runnable say so literally.
 *
 * See `docs/capabilities/exec.md`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One entry of the allowlist: a command name (any arguments), or a command
 * whose **first argument** must be one of `args` (its subcommands: `npm` with
 * `["test", "run"]` allows `npm test …` and `npm run …`, not `npm publish`
 * nor `npm --prefix x test`). `description` is shown to the agent by
 * `exec_commands`.
 *
 * **Example**
 *
 * ```ts
 * import type { CommandRule } from "./capabilities/exec/settings.ts"
 *
 * const rules: ReadonlyArray<CommandRule> = [
 *   "git",
 *   { command: "npm", args: ["test", "run", "ci"], description: "tests and package scripts" }
 * ]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type CommandRule =
  | string
  | {
      readonly command: string
      readonly args?: ReadonlyArray<string>
      readonly description?: string
    }

/**
 * The settings of the `exec` capability.
 *
 * **Example**
 *
 * ```ts
 * import { defaultExecSettings, type ExecSettingsShape } from "./capabilities/exec/settings.ts"
 *
 * const strict: ExecSettingsShape = {
 *   ...defaultExecSettings,
 *   commands: [{ command: "npm", args: ["test"] }, { command: "git", args: ["status", "diff", "log"] }]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ExecSettingsShape {
  /** The allowlist (replaces the default list when configured). */
  readonly commands: ReadonlyArray<CommandRule>
  /** More entries, added to `commands` (to extend the default list rather than replace it). */
  readonly additionalCommands: ReadonlyArray<CommandRule>
  /** The timeout of a run that asks for none, in milliseconds. */
  readonly defaultTimeoutMs: number
  /** The largest timeout a run may ask for, in milliseconds; larger requests are lowered to it. */
  readonly maxTimeoutMs: number
  /** The most output kept per stream (stdout, stderr) of one run, in bytes: in the store, so in `logs://run/<id>`. */
  readonly maxOutputBytes: number
  /** How much of the end of each stream the `exec_run` result shows, in bytes; the whole output is in the log. */
  readonly resultTailBytes: number
  /** Variables set in every command's environment (on top of the runner's allowlist of the server's environment). */
  readonly env: Readonly<Record<string, string>>
  /** Names of further variables copied from the server's environment, when set there (e.g. `NPM_TOKEN`). */
  readonly inheritEnv: ReadonlyArray<string>
}

/**
 * The default allowlist: the development toolchain of a JavaScript or
 * TypeScript repository — `node`, the package managers and runners (`npm`,
 * `npx`, `pnpm`, `yarn`), `git`, and the TypeScript compiler `tsc` — each
 * with any arguments. Shells (`sh`, `bash`) and general file tools (`rm`,
 * `cp`, `cat`, `find`) are left out: a shell turns every call into arbitrary
 * code and invites shell strings where exec takes argv, and the file tools
 * duplicate the `workspace` capability without its path checks and deny
 * list. This is no sandbox (`node -e`, `npx`, a package script run arbitrary
 * code); the control is that every `exec_run` call is confirmed by the user.
 *
 * **Example**
 *
 * ```ts
 * import { defaultCommands } from "./capabilities/exec/settings.ts"
 *
 * defaultCommands.includes("git") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultCommands: ReadonlyArray<CommandRule> = ["node", "npm", "npx", "pnpm", "yarn", "git", "tsc"]

/**
 * The default settings: {@link defaultCommands}; 2-minute runs by default,
 * 10 minutes at most; 1 MiB of output kept per stream; the last 16 KiB of
 * each stream in the result; `NO_COLOR=1`, `GIT_PAGER=cat` and
 * `GIT_TERMINAL_PROMPT=0` set, so the output is plain text and nothing
 * waits for a terminal.
 *
 * **Example**
 *
 * ```ts
 * import { defaultExecSettings } from "./capabilities/exec/settings.ts"
 *
 * defaultExecSettings.maxTimeoutMs // => 600000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultExecSettings: ExecSettingsShape = {
  commands: defaultCommands,
  additionalCommands: [],
  defaultTimeoutMs: 2 * 60 * 1000,
  maxTimeoutMs: 10 * 60 * 1000,
  maxOutputBytes: 1024 * 1024,
  resultTailBytes: 16 * 1024,
  env: { NO_COLOR: "1", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" },
  inheritEnv: []
}

/**
 * The settings of the `exec` capability, a reference with
 * {@link defaultExecSettings} as its default. The capability reads it once,
 * when it is built: provide it to the capability's layer.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { defaultExecSettings, ExecSettings } from "./capabilities/exec/settings.ts"
 *
 * const TestsOnly = Layer.succeed(ExecSettings, { ...defaultExecSettings, commands: [{ command: "npm", args: ["test"] }] })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const ExecSettings = Context.Reference<ExecSettingsShape>("effect-mcp-runtime/capabilities/exec/ExecSettings", {
  defaultValue: () => defaultExecSettings
})

const Name = Schema.String.check(Schema.isMinLength(1), Schema.isPattern(/^[^\0]*$/))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * The Schema of one allowlist entry, as written in JSON: `"git"` or
 * `{ "command": "npm", "args": ["test", "run"], "description": "…" }`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { CommandRuleSchema } from "./capabilities/exec/settings.ts"
 *
 * Schema.decodeUnknownSync(CommandRuleSchema)({ command: "npm", args: ["test"] })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const CommandRuleSchema = Schema.Union([
  Name.annotate({ description: "A command name (or a literal path), allowed with any arguments" }),
  Schema.Struct({
    command: Name.annotate({ description: "The command name (or a literal path)" }),
    args: Schema.optionalKey(
      Schema.Array(Name).annotate({
        description: "The allowed first arguments (subcommands); without this key, any arguments"
      })
    ),
    description: Schema.optionalKey(Schema.String.annotate({ description: "Shown to the agent by exec_commands" }))
  })
])

const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * The Schema of the `exec` section of the configuration file. Every key is
 * optional and decodes to its default, so the decoded value is a whole
 * {@link ExecSettingsShape}: `{}` decodes to {@link defaultExecSettings}.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ExecSettingsSchema } from "./capabilities/exec/settings.ts"
 *
 * const settings = Schema.decodeUnknownSync(ExecSettingsSchema)({
 *   commands: ["git", { command: "npm", args: ["test", "run"] }],
 *   defaultTimeoutMs: 60000
 * })
 * settings.maxTimeoutMs // => 600000 (the default)
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ExecSettingsSchema = Schema.Struct({
  commands: withDefault(
    Schema.Array(CommandRuleSchema).annotate({
      description: "The allowlist; replaces the default one (node, npm, npx, pnpm, yarn, git, tsc)"
    }),
    defaultExecSettings.commands
  ),
  additionalCommands: withDefault(
    Schema.Array(CommandRuleSchema).annotate({ description: "Entries added to commands" }),
    defaultExecSettings.additionalCommands
  ),
  defaultTimeoutMs: withDefault(
    PositiveInt.annotate({ description: "Timeout of a run that asks for none, in ms (default 120000)" }),
    defaultExecSettings.defaultTimeoutMs
  ),
  maxTimeoutMs: withDefault(
    PositiveInt.annotate({ description: "Largest timeout a run may ask for, in ms (default 600000)" }),
    defaultExecSettings.maxTimeoutMs
  ),
  maxOutputBytes: withDefault(
    PositiveInt.annotate({ description: "Output kept per stream of a run, in bytes (default 1048576)" }),
    defaultExecSettings.maxOutputBytes
  ),
  resultTailBytes: withDefault(
    PositiveInt.annotate({ description: "End of each stream shown in the result, in bytes (default 16384)" }),
    defaultExecSettings.resultTailBytes
  ),
  env: withDefault(
    Schema.Record(Schema.String, Schema.String).annotate({
      description: "Variables set for every command; replaces the default (NO_COLOR, GIT_PAGER, GIT_TERMINAL_PROMPT)"
    }),
    defaultExecSettings.env
  ),
  inheritEnv: withDefault(
    Schema.Array(Name).annotate({ description: "Further variables copied from the server's environment" }),
    defaultExecSettings.inheritEnv
  )
})
