/**
 * Resolves what `mcp-runtime serve` runs with, from its flags, the
 * configuration file and the defaults (strongest first), and validates it
 * before anything starts.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import { stateDirectory as sharedStateDirectory } from "../internal/stateDirectory.ts"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { CodeSettingsShape } from "../../capabilities/code/settings.ts"
import type { ExecSettingsShape } from "../../capabilities/exec/settings.ts"
import type { FeSettingsShape } from "../../capabilities/fe/settings.ts"
import type { SkillsSettingsShape } from "../../capabilities/skills/settings.ts"
import { describeUpstream, type UpstreamSettings } from "../../capabilities/upstream/settings.ts"
import { bundled, type BundledId, defaults } from "../../capabilities/index.ts"
import type * as FileAuditLog from "../../layers/FileAuditLog.ts"
import type * as NodeWorkspace from "../../layers/NodeWorkspace.ts"
import type * as Authorization from "../Authorization.ts"
import type * as Gate from "../Gate.ts"
import type * as Policy from "../Policy.ts"
import * as RequestFront from "../RequestFront.ts"
import * as RequestState from "../RequestState.ts"
import { defaultDeny } from "../Workspace.ts"
import { type Config, defaultFileName } from "./ConfigFile.ts"

/**
 * A usage error: bad flag values, an unknown capability, a missing root.
 *
 * **Example**
 *
 * ```ts
 * import { UsageError } from "./src/cli/settings.ts"
 *
 * new UsageError({ message: "--port 70000: must be at most 65535" })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/**
 * The values of `serve`'s flags (each optional).
 *
 * @category models
 * @since 0.1.0
 */
export interface Flags {
  readonly capabilities: Option.Option<string>
  readonly maxMessageBytes: Option.Option<number>
  readonly shutdownGraceMs: Option.Option<number>
  readonly timeoutMs: Option.Option<number>
  readonly maxConcurrent: Option.Option<number>
  readonly maxQueued: Option.Option<number>
  readonly queueTimeoutMs: Option.Option<number>
  readonly onOverload: Option.Option<"queue" | "reject">
  readonly maxResultBytes: Option.Option<number>
  readonly transport: Option.Option<"stdio" | "http">
  readonly port: Option.Option<number>
  readonly host: Option.Option<string>
  readonly allowedHosts: Option.Option<string>
  readonly allowedOrigins: Option.Option<string>
  readonly sessionIdleMs: Option.Option<number>
  readonly resumeGraceMs: Option.Option<number>
  readonly auditLog: Option.Option<string>
  /** `--front tools|request`: how tool calls reach the server (see docs/request.md). Since 0.4.0. */
  readonly front: Option.Option<"tools" | "request">
  /** `--daemon auto|off`: serve the session from the warm daemon (stdio only; see docs/daemon.md). Since 0.4.0. */
  readonly daemon: Option.Option<"auto" | "off">
  /** `--experimental`: publish the tools marked experimental (optional: undefined is not given). Since 0.5.0. */
  readonly experimental?: Option.Option<boolean> | undefined
  /** `--max-sessions N`: HTTP, how many sessions may be open at once (optional: undefined is not given). Since 0.5.0. */
  readonly maxSessions?: Option.Option<number> | undefined
  /** `--auth-issuer URL`: HTTP authorization, the authorization server (see docs/authorization.md). Since 0.5.0. */
  readonly authIssuer?: Option.Option<string> | undefined
  /** `--auth-audience URL`: HTTP authorization, this server's resource URL. Since 0.5.0. */
  readonly authAudience?: Option.Option<string> | undefined
  /** `--store memory|sqlite[:FILE]|postgres://…`: where tasks are kept (see docs/scale-out.md). Since 0.5.0. */
  readonly store?: Option.Option<string> | undefined
  /** `--runner-host HOST`: with a PostgreSQL store, the address other instances reach this one at. Since 0.5.0. */
  readonly runnerHost?: Option.Option<string> | undefined
  /** `--runner-port N`: with a PostgreSQL store, this instance's runner port. Since 0.5.0. */
  readonly runnerPort?: Option.Option<number> | undefined
}

/**
 * Where tasks are kept: in memory (they end with the process); in an SQLite
 * file (`explicit`: named by the operator, so a file locked by another
 * server stops the start; otherwise the default file, and a server that
 * finds it locked keeps its tasks in memory); or in PostgreSQL, shared by
 * every instance. Since 0.5.0.
 *
 * **Example**
 *
 * ```ts
 * import type { StoreSettings } from "./src/cli/settings.ts"
 *
 * const store: StoreSettings = { kind: "postgres", url: "postgres://mcp@db/mcp", runnerHost: undefined, runnerPort: undefined }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type StoreSettings =
  | { readonly kind: "memory" }
  | { readonly kind: "sqlite"; readonly filename: string; readonly explicit: boolean }
  | {
      readonly kind: "postgres"
      readonly url: string
      readonly runnerHost: string | undefined
      readonly runnerPort: number | undefined
    }

/**
 * The default task store of a root: an SQLite file per root under the
 * user's state directory, beside the audit log's default.
 *
 * **Example**
 *
 * ```ts
 * import { defaultStorePath } from "./src/cli/settings.ts"
 *
 * defaultStorePath("/srv/project", {}) // => "<home>/.local/state/mcp-runtime/tasks/project-<12 hex>.db"
 * ```
 *
 * @category defaults
 * @since 0.5.0
 */
export const defaultStorePath = (root: string, env: Readonly<Record<string, string | undefined>>): string => {
  const hash = Crypto.createHash("sha256").update(root).digest("hex").slice(0, 12)
  const base = NodePath.basename(root).replace(/[^A-Za-z0-9._-]/g, "_") || "root"
  return NodePath.join(stateDirectory(env), "mcp-runtime", "tasks", `${base}-${hash}.db`)
}

/**
 * A URL with its password replaced by `***` (parsed, so a password holding
 * `@` is hidden whole); text that is not a URL is left as it is.
 *
 * **Example**
 *
 * ```ts
 * import { redactUrl } from "./src/cli/settings.ts"
 *
 * redactUrl("postgres://mcp:p@ss@db/mcp") // => "postgres://mcp:***@db/mcp"
 * ```
 *
 * @category utils
 * @since 0.5.0
 */
export const redactUrl = (url: string): string => {
  if (!URL.canParse(url)) return url.replace(/\/\/([^:/@]*):.*@/, "//$1:***@")
  const parsed = new URL(url)
  if (parsed.password !== "") parsed.password = "***"
  return parsed.toString()
}

const storeOf = (
  value: string,
  where: string,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  runner: { readonly host: string | undefined; readonly port: number | undefined }
): Effect.Effect<StoreSettings, UsageError> => {
  if (value === "memory") return Effect.succeed({ kind: "memory" })
  if (value === "sqlite")
    return Effect.succeed({ kind: "sqlite", filename: defaultStorePath(root, env), explicit: true })
  if (value.startsWith("sqlite:")) {
    const file = value.slice("sqlite:".length)
    if (file === "") return Effect.fail(new UsageError({ message: `${where} ${value}: expected sqlite:<file>` }))
    return Effect.succeed({ kind: "sqlite", filename: NodePath.resolve(root, file), explicit: true })
  }
  if (value.startsWith("postgres://") || value.startsWith("postgresql://")) {
    if (!URL.canParse(value)) return Effect.fail(new UsageError({ message: `${where}: not a valid PostgreSQL URL` }))
    return Effect.succeed({ kind: "postgres", url: value, runnerHost: runner.host, runnerPort: runner.port })
  }
  return Effect.fail(
    new UsageError({
      message: `${where} ${JSON.stringify(redactUrl(value))}: expected memory, sqlite, sqlite:<file> or postgres://…`
    })
  )
}

/**
 * Everything `serve` runs with, resolved.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  /** Things to tell the operator at start-up (a configuration file in the workspace that loosens the controls). */
  readonly warnings: ReadonlyArray<string>
  readonly root: string
  readonly configFile: string | undefined
  readonly capabilities: ReadonlyArray<BundledId>
  readonly transport: "stdio" | "http"
  readonly server: {
    readonly maxMessageBytes?: number | undefined
    readonly shutdownGraceMs?: number | undefined
    readonly listTtlMs?: number | undefined
  }
  /**
   * The keys that seal input-required states (2026-07-28), from
   * `MCP_RUNTIME_STATE_KEY` or the file's `requestState`; undefined: one
   * random key per process.
   */
  readonly requestState: { readonly keys: ReadonlyArray<string>; readonly maxAgeMs: number | undefined } | undefined
  readonly policy: { readonly [K in keyof Policy.PolicyShape]?: Policy.PolicyShape[K] | undefined }
  readonly preApproved: ReadonlyArray<string>
  /** Undefined: no gate (everything the capabilities offer is allowed). */
  readonly gate: { readonly rules: ReadonlyArray<Gate.Rule>; readonly defaultEffect: "allow" | "deny" } | undefined
  /** Undefined: auditing switched off. */
  readonly audit: FileAuditLog.Options | undefined
  readonly logLevel: LogLevel.LogLevel
  readonly workspace: NodeWorkspace.Options
  readonly exec: ExecSettingsShape | undefined
  readonly fe: FeSettingsShape | undefined
  /** The skills capability's settings (`skills` in the file); undefined keeps its defaults. */
  readonly skills: SkillsSettingsShape | undefined
  /**
   * The code capability's settings (`code` in the file; undefined keeps its
   * defaults) and the directory of its learned capabilities. Since 0.3.0.
   */
  readonly code: { readonly settings: CodeSettingsShape | undefined; readonly storePath: string }
  /**
   * The upstream MCP servers (`upstreams` in the file), by capability id:
   * `cwd` resolved against the root (default: the root), `${NAME}` in `env`
   * and `headers` values replaced by the variable. Since 0.3.0.
   */
  readonly upstreams: Readonly<Record<string, UpstreamSettings>>
  /**
   * How deep this server is in a chain of upstreams (`MCP_RUNTIME_UPSTREAM_DEPTH`,
   * which the server sets for its stdio upstreams): 0 for a server started
   * by a client. Since 0.3.0.
   */
  readonly upstreamDepth: number
  /**
   * The front the server is served with: `tools` (the method table as it is)
   * or `request` (`RequestFront.methods`), from `--front`,
   * `MCP_RUNTIME_FRONT` or the file's `front`. Since 0.4.0.
   */
  readonly front: "tools" | "request"
  /**
   * Whether the tools marked experimental are published (`--experimental`,
   * `MCP_RUNTIME_EXPERIMENTAL` or the file's `experimental`; default off).
   * Since 0.5.0.
   */
  readonly experimental: boolean
  /** The request front's limits (the file's `request`), defaults filled in. Since 0.4.0. */
  readonly request: RequestFront.Settings
  /**
   * The warm daemon: whether `serve` forwards its session to it (`--daemon`,
   * `MCP_RUNTIME_DAEMON`, the file's `daemon.mode`), and how long a daemon
   * that `serve` starts waits without a session before it exits
   * (`MCP_RUNTIME_DAEMON_IDLE_MS`, the file's `daemon.idleMs`). Since 0.4.0.
   */
  readonly daemon: { readonly mode: "auto" | "off"; readonly idleMs: number }
  /** Where tasks are kept (`--store`, `MCP_RUNTIME_STORE`, the file's `store`). Since 0.5.0. */
  readonly store: StoreSettings
  readonly http: {
    readonly port: number | undefined
    readonly host: string | undefined
    readonly allowedHosts: ReadonlyArray<string>
    readonly allowedOrigins: ReadonlyArray<string>
    readonly sessionIdleMs: number | undefined
    readonly resumeGraceMs: number | undefined
    /** How many sessions may be open at once (`--max-sessions`, the file's `http.maxSessions`). Since 0.5.0. */
    readonly maxSessions?: number | undefined
    /**
     * OAuth 2.1 resource server (`--auth-issuer`, `--auth-audience`, the
     * file's `http.authorization`); undefined: no authorization. Since 0.5.0.
     */
    readonly authorization?: Authorization.Options | undefined
  }
}

/**
 * The user's state directory: `$XDG_STATE_HOME` when it is an absolute path,
 * else `~/.local/state` (`$HOME` of `env` when it is absolute, else the
 * process's home directory). The audit log, code mode's store and the
 * daemon's directory live under `<state>/mcp-runtime/`.
 *
 * **Example**
 *
 * ```ts
 * import { stateDirectory } from "./src/cli/settings.ts"
 *
 * stateDirectory({ XDG_STATE_HOME: "/var/state" }) // => "/var/state"
 * stateDirectory({ HOME: "/home/ada" }) // => "/home/ada/.local/state"
 * ```
 *
 * @category defaults
 * @since 0.4.0
 */
export const stateDirectory: (env: Readonly<Record<string, string | undefined>>) => string = sharedStateDirectory

/**
 * Where the audit log goes when the configuration does not say: a file per
 * root under the user's state directory (`$XDG_STATE_HOME`, else
 * `~/.local/state`), outside the workspace, so the tools that write files
 * cannot touch it and it never shows up in the project.
 *
 * **Example**
 *
 * ```ts
 * import { defaultAuditPath } from "./src/cli/settings.ts"
 *
 * defaultAuditPath("/srv/project", {}) // => "<home>/.local/state/mcp-runtime/audit/project-<12 hex>.jsonl"
 * ```
 *
 * @category defaults
 * @since 0.1.0
 */
export const defaultAuditPath = (root: string, env: Readonly<Record<string, string | undefined>>): string => {
  const state = stateDirectory(env)
  const hash = Crypto.createHash("sha256").update(root).digest("hex").slice(0, 12)
  const base = NodePath.basename(root).replace(/[^A-Za-z0-9._-]/g, "_") || "root"
  return NodePath.join(state, "mcp-runtime", "audit", `${base}-${hash}.jsonl`)
}

/**
 * Where learned capabilities are kept when the configuration does not say
 * (`code.storePath`): a directory per root under the user's state directory,
 * beside the audit log's default, outside the workspace.
 *
 * **Example**
 *
 * ```ts
 * import { defaultCodeStorePath } from "./src/cli/settings.ts"
 *
 * defaultCodeStorePath("/srv/project", {}) // => "<home>/.local/state/mcp-runtime/code/project-<12 hex>"
 * ```
 *
 * @category defaults
 * @since 0.3.0
 */
export const defaultCodeStorePath = (root: string, env: Readonly<Record<string, string | undefined>>): string =>
  NodePath.join(
    NodePath.dirname(NodePath.dirname(defaultAuditPath(root, env))),
    "code",
    NodePath.basename(defaultAuditPath(root, env), ".jsonl")
  )

// The code section without its store's path (the capability's settings).
const limitsOf = (code: NonNullable<Config["code"]>): CodeSettingsShape => {
  const { storePath: _storePath, ...limits } = code
  return limits
}

const splitList = (value: string): ReadonlyArray<string> =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

const capabilityIds = (
  requested: ReadonlyArray<string> | undefined,
  source: string
): Effect.Effect<ReadonlyArray<BundledId>, UsageError> => {
  if (requested === undefined) return Effect.succeed(defaults)
  const unknown = requested.filter((id) => !Object.hasOwn(bundled, id))
  if (unknown.length > 0) {
    return Effect.fail(
      new UsageError({
        message:
          `${source}: unknown capabilit${unknown.length === 1 ? "y" : "ies"}: ${unknown.join(", ")}. ` +
          `Bundled capabilities: ${Object.keys(bundled).join(", ")}`
      })
    )
  }
  // Both serve the Skills extension (the fixtures their own skill): a server has one.
  if (requested.includes("skills") && requested.includes("conformance")) {
    return Effect.fail(
      new UsageError({
        message:
          `${source}: skills and conformance cannot be enabled together: the conformance fixtures serve a skill ` +
          `of their own through the Skills extension, and a server serves that extension once. Enable one of them.`
      })
    )
  }
  return Effect.succeed([...new Set(requested)] as Array<BundledId>)
}

// 0 switches a limit off.
const limit = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms === 0 ? Infinity : ms)

const limits = (given: {
  readonly timeoutMs?: number | undefined
  readonly maxConcurrent?: number | undefined
  readonly maxResultBytes?: number | undefined
}) =>
  Object.fromEntries(
    Object.entries({
      timeout: limit(given.timeoutMs),
      maxConcurrent: limit(given.maxConcurrent),
      maxResultBytes: limit(given.maxResultBytes)
    }).filter(([, v]) => v !== undefined)
  ) as Policy.Limits

const mapRecord = <A, B>(record: { readonly [key: string]: A } | undefined, f: (a: A) => B) =>
  record === undefined ? undefined : Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]))

const interpreters = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "csh",
  "tcsh",
  "pwsh",
  "powershell",
  "cmd",
  "python",
  "python3",
  "perl",
  "ruby",
  "env",
  "xargs",
  "sudo"
])

/**
 * What a configuration file does that weakens the safety controls: pre-approved destructive tools, the audit
 * log switched off, environment passed to commands, shells and interpreters allowed, the default deny list
 * replaced, upstream servers (their commands and URLs with secrets redacted, and the variables `${NAME}` sends
 * them). Said at start-up when such a file comes from the workspace (whose `upstreams` are refused unless
 * {@link allowWorkspaceUpstreamsVariable} is set).
 *
 * **Example**
 *
 * ```ts
 * import { loosenings } from "./src/cli/settings.ts"
 *
 * loosenings({ audit: { enabled: false } }) // => ["switches the audit log off"]
 * ```
 *
 * @category safety
 * @since 0.1.0
 */
export const loosenings = (config: Config): ReadonlyArray<string> => {
  const found: Array<string> = []
  const preApproved = config.confirmation?.preApproved ?? []
  if (preApproved.length > 0) found.push(`pre-approves ${preApproved.join(", ")} (run without asking the user)`)
  if (config.audit?.enabled === false) found.push("switches the audit log off")
  if ((config.exec?.inheritEnv ?? []).length > 0) {
    found.push(`passes ${config.exec!.inheritEnv.join(", ")} from the server's environment to commands`)
  }
  const commands = [...(config.exec?.commands ?? []), ...(config.exec?.additionalCommands ?? [])]
    .map((rule) => (typeof rule === "string" ? rule : rule.command))
    .filter((command) => interpreters.has(command.split("/").pop() ?? command) || command.includes("/"))
  if (commands.length > 0) found.push(`allows ${commands.join(", ")} to be run`)
  if (config.workspace?.deny !== undefined) found.push("replaces the default deny list for secrets")
  if (config.fe !== undefined && config.fe.node !== process.execPath) {
    found.push(`runs the project's tools (fe_verify) with ${config.fe.node}`)
  }
  if (config.requestState?.keys !== undefined) {
    found.push(
      "sets the keys that seal input-required states (whoever reads them can read captured states and make new ones)"
    )
  }
  const upstreams = Object.entries(config.upstreams ?? {})
  if (upstreams.length > 0) {
    const variables = [
      ...new Set(
        upstreams.flatMap(([, upstream]) =>
          [...Object.values(upstream.env ?? {}), ...Object.values(upstream.headers ?? {})].flatMap((value) =>
            [...value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]!)
          )
        )
      )
    ]
    found.push(
      `connects to upstream MCP servers (${upstreams
        .map(([id, upstream]) => `${id}: ${describeUpstream(upstream).replace(/^stdio /, "runs ")}`)
        .join("; ")}) and publishes their tools` +
        (variables.length === 0
          ? ""
          : `, sending them the server's environment variables ${variables.join(", ")} (\${NAME} in their env or headers)`)
    )
  }
  return found
}

const requestStateOf = (
  env: Readonly<Record<string, string | undefined>>,
  config: Config
): Effect.Effect<Settings["requestState"], UsageError> => {
  const fromEnv = env[stateKeyVariable]?.trim()
  const maxAgeMs = config.requestState?.maxAgeMs
  if (fromEnv !== undefined && fromEnv !== "") {
    const keys = fromEnv.split(",").map((key) => key.trim())
    const weak = keys.findIndex((key) => key.length < RequestState.minSecretBytes)
    if (weak !== -1) {
      return Effect.fail(
        new UsageError({
          message:
            `${stateKeyVariable}: secret ${weak + 1} of ${keys.length} is ${keys[weak]!.length} characters long; ` +
            `each must be at least ${RequestState.minSecretBytes} (e.g. the output of "openssl rand -base64 32")`
        })
      )
    }
    return Effect.succeed({ keys, maxAgeMs })
  }
  const keys = config.requestState?.keys
  return Effect.succeed(keys === undefined && maxAgeMs === undefined ? undefined : { keys: keys ?? [], maxAgeMs })
}

const logLevels = { debug: "Debug", info: "Info", warning: "Warn", error: "Error", none: "None" } as const

/**
 * The log level: `MCP_RUNTIME_LOG_LEVEL` when set, else the file's
 * `logging.level`, else `Info`; a usage error names a bad variable.
 *
 * **Example**
 *
 * ```ts
 * import { logLevelOf } from "./src/cli/settings.ts"
 *
 * const level = logLevelOf({ MCP_RUNTIME_LOG_LEVEL: "warn" }, {}) // succeeds with "Warn"
 * ```
 *
 * @category resolving
 * @since 0.4.0
 */
export const logLevelOf = (
  env: Readonly<Record<string, string | undefined>>,
  config: Config
): Effect.Effect<LogLevel.LogLevel, UsageError> => {
  const value = env[logLevelVariable]?.trim().toLowerCase()
  if (value === undefined || value === "") return Effect.succeed(logLevels[config.logging?.level ?? "info"])
  const level = logLevelNames[value]
  return level === undefined
    ? Effect.fail(
        new UsageError({
          message: `${logLevelVariable}=${value}: expected one of ${Object.keys(logLevelNames).join(", ")}`
        })
      )
    : Effect.succeed(level)
}

/**
 * The environment variables that override the configuration file (a flag
 * still wins over them), by the flag they stand for. An empty variable
 * counts as unset.
 *
 * **Example**
 *
 * ```ts
 * import { environmentVariables } from "./src/cli/settings.ts"
 *
 * environmentVariables.timeoutMs // => "MCP_RUNTIME_TIMEOUT_MS"
 * ```
 *
 * @category environment
 * @since 0.1.0
 */
export const environmentVariables = {
  capabilities: "MCP_RUNTIME_CAPABILITIES",
  transport: "MCP_RUNTIME_TRANSPORT",
  port: "MCP_RUNTIME_PORT",
  host: "MCP_RUNTIME_HOST",
  maxMessageBytes: "MCP_RUNTIME_MAX_MESSAGE_BYTES",
  shutdownGraceMs: "MCP_RUNTIME_SHUTDOWN_GRACE_MS",
  timeoutMs: "MCP_RUNTIME_TIMEOUT_MS",
  maxConcurrent: "MCP_RUNTIME_MAX_CONCURRENT",
  maxQueued: "MCP_RUNTIME_MAX_QUEUED",
  queueTimeoutMs: "MCP_RUNTIME_QUEUE_TIMEOUT_MS",
  onOverload: "MCP_RUNTIME_ON_OVERLOAD",
  maxResultBytes: "MCP_RUNTIME_MAX_RESULT_BYTES",
  auditLog: "MCP_RUNTIME_AUDIT_LOG",
  front: "MCP_RUNTIME_FRONT",
  daemon: "MCP_RUNTIME_DAEMON",
  store: "MCP_RUNTIME_STORE",
  experimental: "MCP_RUNTIME_EXPERIMENTAL"
} as const satisfies Partial<Record<keyof Flags, string>>

/**
 * The variable that sets the log level (below `--log-level`, above the
 * file's `logging.level`). `MCP_RUNTIME_CONFIG`, naming the configuration
 * file, is read by `ConfigFile.load`.
 *
 * **Example**
 *
 * ```ts
 * import { logLevelVariable } from "./src/cli/settings.ts"
 *
 * logLevelVariable // => "MCP_RUNTIME_LOG_LEVEL"
 * ```
 *
 * @category environment
 * @since 0.1.0
 */
export const logLevelVariable = "MCP_RUNTIME_LOG_LEVEL"

/**
 * The variable that holds the secrets sealing input-required states
 * (`requestState`, MCP 2026-07-28), comma-separated, the sealing one first:
 * instances that serve one another's retries share it. It wins over the
 * file's `requestState.keys`. Each secret is at least 32 characters.
 *
 * **Example**
 *
 * ```ts
 * import { stateKeyVariable } from "./src/cli/settings.ts"
 *
 * stateKeyVariable // => "MCP_RUNTIME_STATE_KEY"
 * ```
 *
 * @category environment
 * @since 0.2.0
 */
export const stateKeyVariable = "MCP_RUNTIME_STATE_KEY"

/**
 * The variable the server sets, one higher than its own, in the
 * environment of its stdio upstreams; a server with upstreams refuses to
 * start at {@link maxUpstreamDepth}: it is probably its own upstream (an
 * upstream `mcp-runtime` that reads the same configuration file).
 *
 * **Example**
 *
 * ```ts
 * import { upstreamDepthVariable } from "./src/cli/settings.ts"
 *
 * upstreamDepthVariable // => "MCP_RUNTIME_UPSTREAM_DEPTH"
 * ```
 *
 * @category environment
 * @since 0.3.0
 */
export const upstreamDepthVariable = "MCP_RUNTIME_UPSTREAM_DEPTH"

/**
 * How deep upstreams may nest: a server at this depth
 * (`MCP_RUNTIME_UPSTREAM_DEPTH`) with upstreams of its own refuses to start.
 *
 * **Example**
 *
 * ```ts
 * import { maxUpstreamDepth } from "./src/cli/settings.ts"
 *
 * maxUpstreamDepth // => 4
 * ```
 *
 * @category environment
 * @since 0.3.0
 */
export const maxUpstreamDepth = 4

/**
 * The variable that lets a configuration file found in the root (not named
 * by `--config` or `MCP_RUNTIME_CONFIG`) configure `upstreams`: set to `1`.
 * Without it such a file's upstreams stop the start (a usage error), since
 * they run commands when the server starts and `${NAME}` in their `env` or
 * `headers` sends the server's variables to them — whoever controls the
 * workspace may have written the file.
 *
 * **Example**
 *
 * ```ts
 * import { allowWorkspaceUpstreamsVariable } from "./src/cli/settings.ts"
 *
 * allowWorkspaceUpstreamsVariable // => "MCP_RUNTIME_ALLOW_WORKSPACE_UPSTREAMS"
 * ```
 *
 * @category environment
 * @since 0.3.0
 */
export const allowWorkspaceUpstreamsVariable = "MCP_RUNTIME_ALLOW_WORKSPACE_UPSTREAMS"

/**
 * The variable that sets how long a daemon waits without a session before it
 * exits, in ms (below `daemon start --idle-ms`, above the file's
 * `daemon.idleMs`; default {@link defaultDaemonIdleMs}).
 *
 * **Example**
 *
 * ```ts
 * import { daemonIdleVariable } from "./src/cli/settings.ts"
 *
 * daemonIdleVariable // => "MCP_RUNTIME_DAEMON_IDLE_MS"
 * ```
 *
 * @category environment
 * @since 0.4.0
 */
export const daemonIdleVariable = "MCP_RUNTIME_DAEMON_IDLE_MS"

/**
 * The variable that names the daemon's directory (its socket, pid file and
 * log), instead of `<state>/mcp-runtime/daemon`.
 *
 * **Example**
 *
 * ```ts
 * import { daemonDirVariable } from "./src/cli/settings.ts"
 *
 * daemonDirVariable // => "MCP_RUNTIME_DAEMON_DIR"
 * ```
 *
 * @category environment
 * @since 0.4.0
 */
export const daemonDirVariable = "MCP_RUNTIME_DAEMON_DIR"

/**
 * How long a daemon waits without a session before it exits, by default:
 * 30 minutes.
 *
 * **Example**
 *
 * ```ts
 * import { defaultDaemonIdleMs } from "./src/cli/settings.ts"
 *
 * defaultDaemonIdleMs // => 1800000
 * ```
 *
 * @category defaults
 * @since 0.4.0
 */
export const defaultDaemonIdleMs = 30 * 60 * 1000

/**
 * The daemon's idle time: `value` (a flag, when given), else
 * `MCP_RUNTIME_DAEMON_IDLE_MS`, else the file's `daemon.idleMs`, else
 * {@link defaultDaemonIdleMs}; a usage error names the source of a value
 * that is not a positive whole number.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { daemonIdleMsOf } from "./src/cli/settings.ts"
 *
 * const idleMs = daemonIdleMsOf(Option.none(), { MCP_RUNTIME_DAEMON_IDLE_MS: "60000" }, {}) // succeeds with 60000
 * ```
 *
 * @category resolving
 * @since 0.4.0
 */
export const daemonIdleMsOf = (
  flag: Option.Option<number>,
  env: Readonly<Record<string, string | undefined>>,
  config: Config
): Effect.Effect<number, UsageError> => {
  if (Option.isSome(flag)) {
    return flag.value >= 1
      ? Effect.succeed(flag.value)
      : Effect.fail(new UsageError({ message: `--idle-ms ${flag.value}: must be at least 1` }))
  }
  const value = env[daemonIdleVariable]?.trim()
  if (value !== undefined && value !== "") {
    return /^\d+$/.test(value) && Number(value) >= 1
      ? Effect.succeed(Number(value))
      : Effect.fail(
          new UsageError({ message: `${daemonIdleVariable}=${value}: expected a whole number of ms, at least 1` })
        )
  }
  return Effect.succeed(config.daemon?.idleMs ?? defaultDaemonIdleMs)
}

/**
 * The environment variables settings resolution reads, for a configuration:
 * every `MCP_RUNTIME_*` variable present in `env`, `XDG_STATE_HOME` and
 * `HOME` (the state directory), and the variables named by `${NAME}` in the
 * `env` and `headers` of the configuration's upstreams — the environment a
 * daemon needs to resolve a session's settings exactly as the session's own
 * process would.
 *
 * **Example**
 *
 * ```ts
 * import { variablesRead } from "./src/cli/settings.ts"
 *
 * variablesRead({ MCP_RUNTIME_TIMEOUT_MS: "1000", PATH: "/bin" }, {}) // => { MCP_RUNTIME_TIMEOUT_MS: "1000" }
 * ```
 *
 * @category environment
 * @since 0.4.0
 */
export const variablesRead = (
  env: Readonly<Record<string, string | undefined>>,
  config: Config
): Record<string, string> => {
  const named = new Set(["XDG_STATE_HOME", "HOME"])
  for (const upstream of Object.values(config.upstreams ?? {})) {
    for (const value of [...Object.values(upstream.env ?? {}), ...Object.values(upstream.headers ?? {})]) {
      for (const match of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) named.add(match[1]!)
    }
  }
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (name.startsWith("MCP_RUNTIME_") || named.has(name))) out[name] = value
  }
  return out
}

const integerKeys = [
  "port",
  "maxMessageBytes",
  "shutdownGraceMs",
  "timeoutMs",
  "maxConcurrent",
  "maxQueued",
  "queueTimeoutMs",
  "maxResultBytes"
] as const

const fromEnvironment = (
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<Partial<{ -readonly [K in keyof Flags]: Flags[K] }>, UsageError> =>
  Effect.suspend(() => {
    const out: Partial<{ -readonly [K in keyof Flags]: Flags[K] }> = {}
    const get = (key: keyof typeof environmentVariables) => {
      const value = env[environmentVariables[key]]?.trim()
      return value === undefined || value === "" ? undefined : value
    }
    for (const key of integerKeys) {
      const value = get(key)
      if (value === undefined) continue
      if (!/^\d+$/.test(value)) {
        return Effect.fail(
          new UsageError({ message: `${environmentVariables[key]}=${value}: expected a whole number` })
        )
      }
      out[key] = Option.some(Number(value))
    }
    for (const key of ["capabilities", "host", "auditLog", "store"] as const) {
      const value = get(key)
      if (value !== undefined) out[key] = Option.some(value)
    }
    const transport = get("transport")
    if (transport !== undefined) {
      if (transport !== "stdio" && transport !== "http") {
        return Effect.fail(
          new UsageError({ message: `${environmentVariables.transport}=${transport}: expected stdio or http` })
        )
      }
      out.transport = Option.some(transport)
    }
    const front = get("front")
    if (front !== undefined) {
      if (front !== "tools" && front !== "request") {
        return Effect.fail(
          new UsageError({ message: `${environmentVariables.front}=${front}: expected tools or request` })
        )
      }
      out.front = Option.some(front)
    }
    const experimental = get("experimental")
    if (experimental !== undefined) {
      const on = ["1", "true", "on", "yes"].includes(experimental.toLowerCase())
      if (!on && !["0", "false", "off", "no"].includes(experimental.toLowerCase())) {
        return Effect.fail(
          new UsageError({
            message: `${environmentVariables.experimental}=${experimental}: expected 1, true, on, 0, false or off`
          })
        )
      }
      out.experimental = Option.some(on)
    }
    const daemon = get("daemon")
    if (daemon !== undefined) {
      if (daemon !== "auto" && daemon !== "off") {
        return Effect.fail(
          new UsageError({ message: `${environmentVariables.daemon}=${daemon}: expected auto or off` })
        )
      }
      out.daemon = Option.some(daemon)
    }
    const onOverload = get("onOverload")
    if (onOverload !== undefined) {
      if (onOverload !== "queue" && onOverload !== "reject") {
        return Effect.fail(
          new UsageError({ message: `${environmentVariables.onOverload}=${onOverload}: expected queue or reject` })
        )
      }
      out.onOverload = Option.some(onOverload)
    }
    return Effect.succeed(out)
  })

// `${NAME}` in a value of an upstream's `env` or `headers`: the server's own variable (a secret need not be in the file).
const expandVariables = (
  values: Readonly<Record<string, string>> | undefined,
  env: Readonly<Record<string, string | undefined>>,
  where: string
): Effect.Effect<Record<string, string> | undefined, UsageError> =>
  Effect.suspend(() => {
    if (values === undefined) return Effect.succeed(undefined)
    const out: Record<string, string> = {}
    for (const [key, value] of Object.entries(values)) {
      let missing: string | undefined
      out[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
        const found = env[name]
        if (found === undefined) missing ??= name
        return found ?? ""
      })
      if (missing !== undefined) {
        return Effect.fail(
          new UsageError({ message: `${where}.${key}: \${${missing}} names a variable that is not set` })
        )
      }
    }
    return Effect.succeed(out)
  })

const upstreamDepthOf = (env: Readonly<Record<string, string | undefined>>): number => {
  const value = env[upstreamDepthVariable]?.trim()
  return value !== undefined && /^\d{1,3}$/.test(value) ? Number(value) : 0
}

const resolveUpstreams = Effect.fnUntraced(function* (
  config: Config,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string,
  fromRoot: boolean
): Effect.fn.Return<Readonly<Record<string, UpstreamSettings>>, UsageError> {
  const ids = Object.keys(config.upstreams ?? {})
  // A file from the workspace may not start programs, nor send the server's variables anywhere, on its own say-so.
  if (fromRoot && ids.length > 0 && env[allowWorkspaceUpstreamsVariable]?.trim() !== "1") {
    return yield* new UsageError({
      message:
        `${file}: $.upstreams (${ids.join(", ")}): this file was found in the root, so whoever controls the ` +
        `workspace may have written it, and its upstreams would run commands or connect to URLs when the server ` +
        `starts (\${NAME} in their env or headers sending them the server's environment variables): pass the file ` +
        `with --config (or MCP_RUNTIME_CONFIG), or set ${allowWorkspaceUpstreamsVariable}=1 to allow its upstreams`
    })
  }
  const depth = upstreamDepthOf(env)
  if (depth >= maxUpstreamDepth && Object.keys(config.upstreams ?? {}).length > 0) {
    return yield* new UsageError({
      message:
        `${file}: $.upstreams: this server is an upstream ${depth} levels deep (${upstreamDepthVariable}=${depth}); ` +
        `it is probably its own upstream, an upstream mcp-runtime that reads the same configuration file: give ` +
        `the upstream its own --root or --config`
    })
  }
  const out: Record<string, UpstreamSettings> = {}
  for (const [id, upstream] of Object.entries(config.upstreams ?? {})) {
    const where = `${file}: $.upstreams.${id}`
    const expandedEnv = yield* expandVariables(upstream.env, env, `${where}.env`)
    const headers = yield* expandVariables(upstream.headers, env, `${where}.headers`)
    out[id] = {
      ...upstream,
      ...(expandedEnv === undefined ? {} : { env: expandedEnv }),
      ...(headers === undefined ? {} : { headers }),
      ...(upstream.command === undefined ? {} : { cwd: NodePath.resolve(root, upstream.cwd ?? ".") })
    }
  }
  return out
})

const flagNames: Record<keyof Flags, string> = {
  capabilities: "--capabilities",
  maxMessageBytes: "--max-message-bytes",
  shutdownGraceMs: "--shutdown-grace-ms",
  timeoutMs: "--timeout-ms",
  maxConcurrent: "--max-concurrent",
  maxQueued: "--max-queued",
  queueTimeoutMs: "--queue-timeout-ms",
  onOverload: "--on-overload",
  maxResultBytes: "--max-result-bytes",
  transport: "--transport",
  port: "--port",
  host: "--host",
  allowedHosts: "--allowed-hosts",
  allowedOrigins: "--allowed-origins",
  sessionIdleMs: "--session-idle-ms",
  resumeGraceMs: "--resume-grace-ms",
  auditLog: "--audit-log",
  front: "--front",
  daemon: "--daemon",
  maxSessions: "--max-sessions",
  authIssuer: "--auth-issuer",
  authAudience: "--auth-audience",
  store: "--store",
  runnerHost: "--runner-host",
  runnerPort: "--runner-port",
  experimental: "--experimental"
}

const logLevelNames: Record<string, LogLevel.LogLevel> = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  warning: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
}

/**
 * Resolves and validates the settings: flags win over the environment
 * variables, the variables over the file, the file over the defaults. Usage errors name the flag or the file and the key.
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { resolve } from "./src/cli/settings.ts"
 *
 * const settings = resolve({ root: "/srv/project", configFile: undefined, config: {}, flags, env: process.env })
 * ```
 *
 * @category resolving
 * @since 0.1.0
 */
export const resolve = Effect.fnUntraced(function* (input: {
  readonly root: string
  readonly configFile: string | undefined
  readonly config: Config
  /** The file was found in the root (not named by --config or MCP_RUNTIME_CONFIG): whoever controls the workspace may have written it. */
  readonly configFromRoot?: boolean | undefined
  readonly flags: Flags
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.fn.Return<Settings, UsageError> {
  const { config, root } = input
  const file = input.configFile ?? "the configuration file"
  // A flag wins over its environment variable; messages name whichever was used.
  const fromEnv = yield* fromEnvironment(input.env)
  // The authorization flags are optional (undefined: not given).
  const merged: Record<string, Option.Option<unknown> | undefined> = { ...input.flags }
  const names: Record<string, string> = { ...flagNames }
  for (const [key, value] of Object.entries(fromEnv) as Array<
    [keyof typeof environmentVariables, Option.Option<unknown>]
  >) {
    if (merged[key] === undefined || Option.isNone(merged[key])) {
      merged[key] = value
      names[key] = environmentVariables[key]
    }
  }
  const flags = merged as unknown as Flags
  const capabilities = Option.isSome(flags.capabilities)
    ? yield* capabilityIds(splitList(flags.capabilities.value), names.capabilities!)
    : yield* capabilityIds(config.capabilities, `${file}: $.capabilities`)
  for (const [key, min] of [
    ["maxMessageBytes", 1024],
    ["shutdownGraceMs", 0],
    ["timeoutMs", 0],
    ["maxConcurrent", 0],
    ["maxQueued", 0],
    ["queueTimeoutMs", 0],
    ["maxResultBytes", 0],
    ["port", 0],
    ["sessionIdleMs", 1],
    ["resumeGraceMs", 0]
  ] as const) {
    const value: Option.Option<number> = flags[key]
    if (Option.isSome(value) && value.value < min) {
      return yield* new UsageError({ message: `${names[key]} ${value.value}: must be at least ${min}` })
    }
  }
  if (flags.maxSessions !== undefined && Option.isSome(flags.maxSessions) && flags.maxSessions.value < 1) {
    return yield* new UsageError({ message: `${names.maxSessions} ${flags.maxSessions.value}: must be at least 1` })
  }
  if (Option.isSome(flags.port) && flags.port.value > 65535) {
    return yield* new UsageError({ message: `${names.port} ${flags.port.value}: must be at most 65535` })
  }
  const transport = Option.getOrElse(flags.transport, () => config.transport ?? "stdio")
  if (transport !== "http") {
    for (const key of [
      "port",
      "host",
      "allowedHosts",
      "allowedOrigins",
      "sessionIdleMs",
      "resumeGraceMs",
      "maxSessions",
      "authIssuer",
      "authAudience"
    ] as const) {
      const value = flags[key] as Option.Option<unknown> | undefined
      if (value !== undefined && Option.isSome(value)) {
        return yield* new UsageError({ message: `${names[key]} applies to --transport http only` })
      }
    }
  }
  const flag = <A>(value: Option.Option<A>, fallback: A | undefined): A | undefined =>
    Option.getOrElse(value, () => fallback)
  // The daemon serves stdio sessions only: an HTTP server is a long-lived process already.
  const daemonMode = Option.getOrElse(flags.daemon, () => config.daemon?.mode ?? "off")
  if (daemonMode === "auto" && transport === "http") {
    return yield* new UsageError({
      message: Option.isSome(flags.daemon)
        ? `${names.daemon === "--daemon" ? "--daemon auto" : `${names.daemon}=auto`} applies to --transport stdio ` +
          `only (an HTTP server is already a long-lived process); pass --daemon off`
        : `${file}: $.daemon.mode "auto" applies to --transport stdio only (an HTTP server is already a ` +
          `long-lived process); pass --daemon off`
    })
  }
  const requestDefaults = RequestFront.Settings.defaultValue()
  const fileLimits = config.limits ?? {}
  const policy: Settings["policy"] = {
    timeout: limit(flag(flags.timeoutMs, fileLimits.timeoutMs)),
    maxConcurrent: limit(flag(flags.maxConcurrent, fileLimits.maxConcurrent)),
    maxQueued: flag(flags.maxQueued, fileLimits.maxQueued),
    queueTimeout: limit(flag(flags.queueTimeoutMs, fileLimits.queueTimeoutMs)),
    onOverload: flag(flags.onOverload, fileLimits.onOverload),
    maxResultBytes: limit(flag(flags.maxResultBytes, fileLimits.maxResultBytes)),
    progressInterval: fileLimits.progressIntervalMs,
    clientLogLevel: config.logging?.clientLevel,
    tools: mapRecord(fileLimits.tools, limits),
    capabilities: mapRecord(fileLimits.capabilities, limits)
  }
  const auditConfig = config.audit ?? {}
  const auditPath = Option.getOrElse(flags.auditLog, () => auditConfig.path)
  const audit: FileAuditLog.Options | undefined =
    Option.isSome(flags.auditLog) && flags.auditLog.value === "off"
      ? undefined
      : Option.isNone(flags.auditLog) && auditConfig.enabled === false
        ? undefined
        : {
            // A relative path in the file is relative to the root; on the command line, to the current directory.
            path:
              auditPath === undefined
                ? defaultAuditPath(root, input.env)
                : Option.isSome(flags.auditLog)
                  ? NodePath.resolve(auditPath)
                  : NodePath.resolve(root, auditPath),
            maxBytes: auditConfig.maxBytes,
            keep: auditConfig.keep,
            sync: auditConfig.sync,
            arguments: auditConfig.arguments,
            redact: auditConfig.redact
          }
  const workspaceConfig = config.workspace ?? {}
  // An audit file inside the root is denied to the workspace tools (with its rotated copies).
  const auditInRoot = audit === undefined ? undefined : NodePath.relative(root, audit.path)
  const auditDeny =
    auditInRoot === undefined || auditInRoot.startsWith("..") || NodePath.isAbsolute(auditInRoot)
      ? []
      : /[*?[\]]/.test(auditInRoot)
        ? // A name with glob characters cannot be denied exactly: deny its directory (or the name as a pattern).
          [
            NodePath.dirname(auditInRoot) === "."
              ? auditInRoot
              : `${NodePath.dirname(auditInRoot).split(NodePath.sep).join("/")}/`
          ]
        : [`${auditInRoot.split(NodePath.sep).join("/")}*`]
  const codeStorePath =
    config.code?.storePath === undefined
      ? defaultCodeStorePath(root, input.env)
      : NodePath.resolve(root, config.code.storePath)
  // A store inside the root is denied to the workspace tools: learned code changes only through code_save.
  const codeInRoot = NodePath.relative(root, codeStorePath)
  if (codeInRoot === "") {
    return yield* new UsageError({
      message:
        `${file}: $.code.storePath: the store of learned capabilities cannot be the root itself (the workspace tools ` +
        `would have to be denied everything); use a directory under it, or outside it`
    })
  }
  const codeDeny =
    codeInRoot.startsWith("..") || NodePath.isAbsolute(codeInRoot)
      ? []
      : [`${codeInRoot.split(NodePath.sep).join("/")}/`]
  const http = config.http ?? {}
  // The configuration files are denied to the workspace tools: the agent must not rewrite its own controls.
  const configDeny = [defaultFileName]
  if (input.configFile !== undefined) {
    const relative = NodePath.relative(root, input.configFile)
    if (!relative.startsWith("..") && !NodePath.isAbsolute(relative))
      configDeny.push(relative.split(NodePath.sep).join("/"))
  }
  const authorization = yield* authorizationOf(flags, http.authorization, transport, file, names)
  // Callers are identified by HTTP authorization only (the token's subject): without it, a principals rule never applies.
  for (const [index, rule] of (config.gate?.rules ?? []).entries()) {
    if (rule.principals !== undefined && authorization === undefined) {
      return yield* new UsageError({
        message:
          `${file}: $.gate.rules[${index}].principals: callers are identified only over HTTP with authorization ` +
          `(--auth-issuer and --auth-audience, or $.http.authorization), so this rule would never apply; ` +
          `configure authorization, or remove it`
      })
    }
  }
  return {
    warnings: input.configFromRoot === true ? loosenings(config).map((what) => `${file} ${what}`) : [],
    root,
    configFile: input.configFile,
    capabilities,
    transport,
    server: {
      maxMessageBytes: flag(flags.maxMessageBytes, config.server?.maxMessageBytes),
      shutdownGraceMs: flag(flags.shutdownGraceMs, config.server?.shutdownGraceMs),
      listTtlMs: config.server?.listTtlMs
    },
    requestState: yield* requestStateOf(input.env, config),
    policy,
    preApproved: config.confirmation?.preApproved ?? [],
    gate:
      config.gate === undefined
        ? undefined
        : { rules: config.gate.rules ?? [], defaultEffect: config.gate.default ?? "allow" },
    audit,
    logLevel: yield* logLevelOf(input.env, config),
    workspace: {
      root,
      deny: [
        ...(workspaceConfig.deny ?? defaultDeny),
        ...(workspaceConfig.additionalDeny ?? []),
        ...auditDeny,
        ...codeDeny,
        ...configDeny
      ],
      maxReadBytes: workspaceConfig.maxReadBytes
    },
    exec: config.exec,
    fe: config.fe,
    skills: config.skills,
    code: {
      settings: config.code === undefined ? undefined : limitsOf(config.code),
      storePath: codeStorePath
    },
    upstreams: yield* resolveUpstreams(config, root, input.env, file, input.configFromRoot === true),
    upstreamDepth: upstreamDepthOf(input.env),
    front: Option.getOrElse(flags.front, () => config.front ?? "tools"),
    experimental: Option.getOrElse(flags.experimental ?? Option.none(), () => config.experimental ?? false),
    request: {
      maxOps: config.request?.maxOps ?? requestDefaults.maxOps,
      maxDepth: config.request?.maxDepth ?? requestDefaults.maxDepth
    },
    daemon: { mode: daemonMode, idleMs: yield* daemonIdleMsOf(Option.none(), input.env, config) },
    store: yield* storeSettings(flags, names, config, root, input.env, file),
    http: {
      port: flag(flags.port, http.port),
      host: flag(flags.host, http.host),
      allowedHosts: Option.isSome(flags.allowedHosts) ? splitList(flags.allowedHosts.value) : (http.allowedHosts ?? []),
      allowedOrigins: Option.isSome(flags.allowedOrigins)
        ? splitList(flags.allowedOrigins.value)
        : (http.allowedOrigins ?? []),
      sessionIdleMs: flag(flags.sessionIdleMs, http.sessionIdleMs),
      resumeGraceMs: flag(flags.resumeGraceMs, http.resumeGraceMs),
      maxSessions: flag(flags.maxSessions ?? Option.none(), http.maxSessions),
      authorization
    }
  }
})

// The task store: `--store` (or MCP_RUNTIME_STORE) wins over the file's `store`; the default is the SQLite file
// under the state directory (not explicit: a server that finds it locked keeps its tasks in memory).
const storeSettings = (
  flags: Flags,
  names: Record<string, string>,
  config: Config,
  root: string,
  env: Readonly<Record<string, string | undefined>>,
  file: string
): Effect.Effect<StoreSettings, UsageError> =>
  Effect.gen(function* () {
    const fromFile = typeof config.store === "string" ? { url: config.store } : config.store
    const runner = {
      host: Option.getOrElse(flags.runnerHost ?? Option.none(), () => fromFile?.runnerHost),
      port: Option.getOrElse(flags.runnerPort ?? Option.none(), () => fromFile?.runnerPort)
    }
    if (runner.port !== undefined && (runner.port < 1 || runner.port > 65535)) {
      return yield* new UsageError({ message: `${names.runnerPort} ${runner.port}: must be between 1 and 65535` })
    }
    const given = flags.store ?? Option.none()
    const store = Option.isSome(given)
      ? yield* storeOf(given.value, names.store ?? "--store", root, env, runner)
      : fromFile !== undefined
        ? yield* storeOf(fromFile.url, `${file}: $.store`, root, env, runner)
        : ({ kind: "sqlite", filename: defaultStorePath(root, env), explicit: false } as const)
    if (store.kind !== "postgres" && (runner.host !== undefined || runner.port !== undefined)) {
      return yield* new UsageError({
        message: `${runner.host !== undefined ? names.runnerHost : names.runnerPort} applies to a PostgreSQL store only (--store postgres://…)`
      })
    }
    return store
  })

/**
 * HTTP authorization from `--auth-issuer` / `--auth-audience` (which win)
 * and the file's `http.authorization`: both URLs are needed, http(s),
 * and only with `--transport http`.
 */
const authorizationOf = (
  flags: Flags,
  file: NonNullable<Config["http"]>["authorization"],
  transport: "stdio" | "http",
  fileName: string,
  names: Record<string, string>
): Effect.Effect<Authorization.Options | undefined, UsageError> =>
  Effect.suspend(() => {
    const issuer = Option.getOrUndefined(flags.authIssuer ?? Option.none()) ?? file?.issuer
    const audience = Option.getOrUndefined(flags.authAudience ?? Option.none()) ?? file?.audience
    if (issuer === undefined && audience === undefined) return Effect.succeed(undefined)
    if (transport !== "http") {
      return Effect.fail(
        new UsageError({
          message: `${fileName}: $.http.authorization applies to --transport http only (stdio takes no tokens)`
        })
      )
    }
    for (const [key, value] of [
      ["authIssuer", issuer],
      ["authAudience", audience]
    ] as const) {
      const where = Option.isSome(flags[key] ?? Option.none())
        ? names[key]!
        : `${fileName}: $.http.authorization.${key === "authIssuer" ? "issuer" : "audience"}`
      if (value === undefined) {
        return Effect.fail(
          new UsageError({
            message: `${key === "authIssuer" ? "--auth-audience" : "--auth-issuer"} needs ${names[key]} too (or ${fileName}: $.http.authorization.${key === "authIssuer" ? "issuer" : "audience"})`
          })
        )
      }
      if (!/^https?:\/\/[^/]/.test(value) || !URL.canParse(value)) {
        return Effect.fail(new UsageError({ message: `${where} ${JSON.stringify(value)}: expected an http(s) URL` }))
      }
    }
    return Effect.succeed({
      issuer: issuer!,
      audience: audience!,
      requiredScopes: file?.requiredScopes,
      toolScopes: file?.toolScopes,
      resourceMetadataUrl: file?.resourceMetadataUrl
    })
  })
