/**
 * Resolves what `mcp-runtime serve` runs with, from its flags, the
 * configuration file and the defaults (strongest first), and validates it
 * before anything starts.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ExecSettingsShape } from "../../capabilities/exec/settings.ts"
import { bundled, type BundledId, defaults } from "../../capabilities/index.ts"
import type * as FileAuditLog from "../../layers/FileAuditLog.ts"
import type * as NodeWorkspace from "../../layers/NodeWorkspace.ts"
import type * as Gate from "../Gate.ts"
import type * as Policy from "../Policy.ts"
import { defaultDeny } from "../Workspace.ts"
import type { Config } from "./ConfigFile.ts"

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
}

/**
 * Everything `serve` runs with, resolved.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly root: string
  readonly configFile: string | undefined
  readonly capabilities: ReadonlyArray<BundledId>
  readonly transport: "stdio" | "http"
  readonly server: { readonly maxMessageBytes?: number | undefined; readonly shutdownGraceMs?: number | undefined }
  readonly policy: { readonly [K in keyof Policy.PolicyShape]?: Policy.PolicyShape[K] | undefined }
  readonly preApproved: ReadonlyArray<string>
  /** Undefined: no gate (everything the capabilities offer is allowed). */
  readonly gate: { readonly rules: ReadonlyArray<Gate.Rule>; readonly defaultEffect: "allow" | "deny" } | undefined
  /** Undefined: auditing switched off. */
  readonly audit: FileAuditLog.Options | undefined
  readonly logLevel: LogLevel.LogLevel
  readonly workspace: NodeWorkspace.Options
  readonly exec: ExecSettingsShape | undefined
  readonly http: {
    readonly port: number | undefined
    readonly host: string | undefined
    readonly allowedHosts: ReadonlyArray<string>
    readonly allowedOrigins: ReadonlyArray<string>
    readonly sessionIdleMs: number | undefined
    readonly resumeGraceMs: number | undefined
  }
}

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
  const state =
    env.XDG_STATE_HOME !== undefined && NodePath.isAbsolute(env.XDG_STATE_HOME)
      ? env.XDG_STATE_HOME
      : NodePath.join(Os.homedir(), ".local", "state")
  const hash = Crypto.createHash("sha256").update(root).digest("hex").slice(0, 12)
  const base = NodePath.basename(root).replace(/[^A-Za-z0-9._-]/g, "_") || "root"
  return NodePath.join(state, "mcp-runtime", "audit", `${base}-${hash}.jsonl`)
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

const logLevels = { debug: "Debug", info: "Info", warning: "Warn", error: "Error", none: "None" } as const

/**
 * Resolves and validates the settings: flags win over the file, the file
 * over the defaults. Usage errors name the flag or the file and the key.
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
  readonly flags: Flags
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.fn.Return<Settings, UsageError> {
  const { config, flags, root } = input
  const file = input.configFile ?? "the configuration file"
  const capabilities = Option.isSome(flags.capabilities)
    ? yield* capabilityIds(splitList(flags.capabilities.value), "--capabilities")
    : yield* capabilityIds(config.capabilities, `${file}: $.capabilities`)
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
  if (Option.isSome(flags.port) && flags.port.value > 65535) {
    return yield* new UsageError({ message: `--port ${flags.port.value}: must be at most 65535` })
  }
  const transport = Option.getOrElse(flags.transport, () => config.transport ?? "stdio")
  if (transport !== "http") {
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
  const flag = <A>(value: Option.Option<A>, fallback: A | undefined): A | undefined =>
    Option.getOrElse(value, () => fallback)
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
      : [`${auditInRoot.split(NodePath.sep).join("/")}*`]
  const http = config.http ?? {}
  return {
    root,
    configFile: input.configFile,
    capabilities,
    transport,
    server: {
      maxMessageBytes: flag(flags.maxMessageBytes, config.server?.maxMessageBytes),
      shutdownGraceMs: flag(flags.shutdownGraceMs, config.server?.shutdownGraceMs)
    },
    policy,
    preApproved: config.confirmation?.preApproved ?? [],
    gate:
      config.gate === undefined
        ? undefined
        : { rules: config.gate.rules ?? [], defaultEffect: config.gate.default ?? "allow" },
    audit,
    logLevel: logLevels[config.logging?.level ?? "info"],
    workspace: {
      root,
      deny: [...(workspaceConfig.deny ?? defaultDeny), ...(workspaceConfig.additionalDeny ?? []), ...auditDeny],
      maxReadBytes: workspaceConfig.maxReadBytes
    },
    exec: config.exec,
    http: {
      port: flag(flags.port, http.port),
      host: flag(flags.host, http.host),
      allowedHosts: Option.isSome(flags.allowedHosts) ? splitList(flags.allowedHosts.value) : (http.allowedHosts ?? []),
      allowedOrigins: Option.isSome(flags.allowedOrigins)
        ? splitList(flags.allowedOrigins.value)
        : (http.allowedOrigins ?? []),
      sessionIdleMs: flag(flags.sessionIdleMs, http.sessionIdleMs),
      resumeGraceMs: flag(flags.resumeGraceMs, http.resumeGraceMs)
    }
  }
})
