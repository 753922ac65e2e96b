/**
 * `mcp-runtime doctor`: checks what `serve` would run with — Node, the root,
 * the configuration (every problem with its JSON path), the capabilities
 * (really built), the host services and safety controls in use — and prints
 * ready-to-paste client configuration. It reports everything it can and
 * exits 1 when any check failed.
 *
 * @since 0.1.0
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Cause from "effect/Cause"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { defaultExecSettings } from "../../capabilities/exec/settings.ts"
import { defaultFeSettings } from "../../capabilities/fe/settings.ts"
import type { UpstreamStatus } from "../../capabilities/upstream/index.ts"
import * as DaemonClient from "../internal/daemonClient.ts"
import * as DaemonProtocol from "../internal/daemonProtocol.ts"
import * as Durable from "../internal/durable.ts"
import { nodeSqlite, unavailableReason } from "../internal/sqlite.ts"
import * as UnknownKeys from "../internal/unknownKeys.ts"
import * as ServerConfig from "../ServerConfig.ts"
import {
  AlreadyReported,
  auditLogFlag,
  commonFlags,
  connectInProcess,
  noServeFlags,
  quietLogs,
  resolveRoot,
  storeLocation
} from "./compose.ts"
import * as ConfigFile from "./ConfigFile.ts"
import { daemonPaths } from "./daemon.ts"
import * as Settings from "./settings.ts"

/**
 * The oldest Node.js the binary runs on (the package's `engines.node`).
 *
 * **Example**
 *
 * ```ts
 * import { requiredNode } from "./src/cli/doctor.ts"
 *
 * requiredNode // => "22.19.0"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const requiredNode = "22.19.0"

/**
 * One check of the report.
 *
 * **Example**
 *
 * ```ts
 * import type { Check } from "./src/cli/doctor.ts"
 *
 * const check: Check = { ok: true, title: "Node.js 24.21.0", details: [] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Check {
  readonly ok: boolean
  readonly title: string
  readonly details: ReadonlyArray<string>
}

/**
 * The whole report: sections of checks, what the capabilities registered,
 * and the client configuration. `ok` is false when any check failed.
 *
 * **Example**
 *
 * ```ts
 * import type { Report } from "./src/cli/doctor.ts"
 *
 * const report: Report = {
 *   ok: false,
 *   sections: [{ name: "Root and configuration", checks: [{ ok: false, title: "Root", details: ["--root /nope: not a directory"] }] }],
 *   capabilities: [],
 *   clients: []
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Report {
  readonly ok: boolean
  readonly sections: ReadonlyArray<{ readonly name: string; readonly checks: ReadonlyArray<Check> }>
  /** What each capability registered, read from the kernel's registries (those that start). */
  readonly capabilities: ReadonlyArray<CapabilityReport>
  readonly clients: ReadonlyArray<{ readonly client: string; readonly where: string; readonly text: string }>
}

/**
 * One registered capability as `doctor` reports it: its tools with their
 * safety marks, its static resources, resource templates and prompts.
 *
 * **Example**
 *
 * ```ts
 * import type { CapabilityReport } from "./src/cli/doctor.ts"
 *
 * const system: CapabilityReport = {
 *   id: "system",
 *   version: "0.1.0",
 *   description: "Server information, the current time, and an echo",
 *   tools: [{ name: "system_echo", readOnly: true, destructive: false, confirms: false }],
 *   resources: [],
 *   templates: [],
 *   prompts: []
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface CapabilityReport {
  readonly id: string
  readonly version: string
  readonly description: string
  readonly tools: ReadonlyArray<{
    readonly name: string
    readonly readOnly: boolean
    readonly destructive: boolean
    /** Runs only once the user confirms it (see docs/confirmation.md). */
    readonly confirms: boolean
  }>
  readonly resources: ReadonlyArray<{ readonly name: string; readonly uri: string | undefined }>
  readonly templates: ReadonlyArray<{ readonly name: string; readonly uriTemplate: string | undefined }>
  readonly prompts: ReadonlyArray<{ readonly name: string; readonly arguments: ReadonlyArray<string> }>
  /**
   * For an upstream MCP server (`upstreams` in the configuration): how it is
   * reached, whether it is connected (else why not), how many times it was
   * reconnected, and what it listed that could not be published. Since 0.3.0.
   */
  readonly upstream?: Omit<UpstreamStatus, "id" | "tools"> | undefined
}

const toolMarks = (tool: CapabilityReport["tools"][number]): string => {
  const marks = [
    ...(tool.readOnly ? ["read-only"] : []),
    ...(tool.destructive ? ["destructive"] : []),
    ...(tool.confirms ? ["asks for confirmation"] : [])
  ]
  return marks.length === 0 ? tool.name : `${tool.name} (${marks.join(", ")})`
}

/**
 * Builds the capabilities the settings name, in process and as `serve`
 * would (audit log off), and reads the kernel's registries: a capability
 * that fails to register fails with its typed error.
 *
 * **Example**
 *
 * ```ts
 * import { inspectCapabilities } from "./src/cli/doctor.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const reports = inspectCapabilities({ ...settings, capabilities: ["system"] })
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const inspectCapabilities = (
  settings: Settings.Settings
): Effect.Effect<ReadonlyArray<CapabilityReport>, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* connectInProcess({ ...settings, audit: undefined })
      const offered = (key: string) => client.initialized.capabilities?.[key] !== undefined
      const kernel = client.kernel
      const summaries = kernel.capabilities()
      // The URIs come from the lists a client sees; the names from the registries.
      const templates = offered("resources")
        ? yield* client.listAll("resources/templates/list", "resourceTemplates")
        : []
      const uriTemplates = new Map<string, string>(templates.map((t) => [t.name, t.uriTemplate]))
      const statics = summaries.flatMap((c) => c.resources).filter((name) => !uriTemplates.has(name))
      const uris = new Map<string, string>()
      if (statics.length > 0 && offered("resources")) {
        // Static resources come first in resources/list: stop once they are all seen (the rest is the root's files).
        let cursor: string | undefined
        do {
          const page = yield* client.request("resources/list", cursor === undefined ? {} : { cursor })
          for (const r of page.resources as ReadonlyArray<{ name: string; uri: string }>) uris.set(r.name, r.uri)
          cursor = page.nextCursor
        } while (cursor !== undefined && statics.some((name) => !uris.has(name)))
      }
      const prompts = offered("prompts") ? yield* client.listAll("prompts/list", "prompts") : []
      const promptArguments = new Map<string, ReadonlyArray<string>>(
        prompts.map((p) => [p.name, (p.arguments ?? []).map((a: { name: string }) => a.name)])
      )
      const upstreams = new Map(client.upstreams().map((status) => [status.id, status]))
      return summaries.map((c): CapabilityReport => ({
        id: c.id,
        version: c.version,
        description: c.description,
        tools: c.tools.map((name) => {
          const tool = kernel.tool(name)
          return {
            name,
            readOnly: tool?.annotations?.readOnlyHint === true,
            destructive: tool?.annotations?.destructiveHint === true,
            confirms: tool?.confirms === true
          }
        }),
        resources: c.resources.filter((name) => !uriTemplates.has(name)).map((name) => ({ name, uri: uris.get(name) })),
        templates: c.resources
          .filter((name) => uriTemplates.has(name))
          .map((name) => ({ name, uriTemplate: uriTemplates.get(name) })),
        prompts: c.prompts.map((name) => ({ name, arguments: promptArguments.get(name) ?? [] })),
        ...upstreamReport(upstreams.get(c.id))
      }))
    })
  )

const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error) && !Cause.hasDies(cause)) {
    const e = error.value as { readonly _tag?: unknown; readonly message?: unknown }
    return `${typeof e._tag === "string" ? e._tag : "Error"}: ${typeof e.message === "string" ? e.message : String(error.value)}`
  }
  return `a defect: ${Cause.pretty(cause).split("\n")[0]}`
}

// The capability's tools are listed already: the status without its id and tools.
const upstreamReport = (status: UpstreamStatus | undefined): Pick<CapabilityReport, "upstream"> => {
  if (status === undefined) return {}
  const { id: _id, tools: _tools, ...upstream } = status
  return { upstream }
}

const upstreamDetails = (upstream: NonNullable<CapabilityReport["upstream"]>): ReadonlyArray<string> => [
  `upstream: ${upstream.transport}`,
  `state: ${upstream.state}${upstream.reason === undefined ? "" : ` (${upstream.reason})`}${
    upstream.server === undefined ? "" : `, server ${upstream.server.name} ${upstream.server.version}`
  }${upstream.pid === undefined ? "" : `, pid ${upstream.pid}`}, ${upstream.restarts} restart${upstream.restarts === 1 ? "" : "s"}`,
  ...upstream.problems.map((problem) => `not published: ${problem}`)
]

const capabilityCheck = (c: CapabilityReport): Check => ({
  // An upstream that is not connected is reported, though the server starts without it.
  ok: c.upstream === undefined || c.upstream.state === "connected",
  title: c.upstream === undefined ? `${c.id} ${c.version} — ${c.description}` : `${c.id} — ${c.description}`,
  details: [
    ...(c.upstream === undefined ? [] : upstreamDetails(c.upstream)),
    `tools: ${c.tools.map(toolMarks).join(", ") || "none"}`,
    `resources: ${c.resources.map((r) => (r.uri === undefined ? r.name : `${r.name} (${r.uri})`)).join(", ") || "none"}`,
    `resource templates: ${
      c.templates.map((t) => (t.uriTemplate === undefined ? t.name : `${t.name} (${t.uriTemplate})`)).join(", ") ||
      "none"
    }`,
    `prompts: ${c.prompts.map((p) => (p.arguments.length === 0 ? p.name : `${p.name}(${p.arguments.join(", ")})`)).join(", ") || "none"}`
  ]
})

/**
 * The Capabilities section: every capability the settings enable, built
 * together as `serve` builds them. When they do not start, each one is built
 * on its own to tell which fails (✗ with its typed error) from which works
 * (✓ with what it registers); when each works alone, the failure is in their
 * combination (a name or URI scheme taken twice) and is reported as such.
 *
 * **Example**
 *
 * ```ts
 * import { capabilityChecks } from "./src/cli/doctor.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const section = capabilityChecks(settings) // Effect<{ checks, registered }>
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const capabilityChecks = Effect.fnUntraced(function* (
  settings: Settings.Settings,
  inspect: (
    settings: Settings.Settings
  ) => Effect.Effect<ReadonlyArray<CapabilityReport>, unknown> = inspectCapabilities
): Effect.fn.Return<{ readonly checks: ReadonlyArray<Check>; readonly registered: ReadonlyArray<CapabilityReport> }> {
  const together = yield* Effect.exit(inspect(settings))
  if (Exit.isSuccess(together)) return { checks: together.value.map(capabilityCheck), registered: together.value }
  const checks: Array<Check> = []
  const registered: Array<CapabilityReport> = []
  let aloneFailed = false
  // Each bundled capability alone, then each upstream server alone.
  const each: ReadonlyArray<readonly [string, Settings.Settings]> = [
    ...settings.capabilities.map((id) => [id, { ...settings, capabilities: [id], upstreams: {} }] as const),
    ...Object.entries(settings.upstreams).map(
      ([id, upstream]) => [id, { ...settings, capabilities: [], upstreams: { [id]: upstream } }] as const
    )
  ]
  for (const [id, aloneSettings] of each) {
    const alone = yield* Effect.exit(inspect(aloneSettings))
    if (Exit.isSuccess(alone)) {
      checks.push(...alone.value.map(capabilityCheck))
      registered.push(...alone.value)
    } else {
      aloneFailed = true
      checks.push({ ok: false, title: `${id}: does not start`, details: [describeFailure(alone.cause)] })
    }
  }
  if (!aloneFailed) {
    checks.push({
      ok: false,
      title: `${[...settings.capabilities, ...Object.keys(settings.upstreams)].join(", ")}: each starts alone, but not together`,
      details: [describeFailure(together.cause)]
    })
  }
  return { checks, registered }
})

/**
 * The check of the names the configuration holds — `limits.tools` and
 * `limits.capabilities` keys, gate rules' `names`, `confirmation.preApproved`
 * — against what the capabilities registered: ✗ naming each key that
 * matches nothing, with the nearest public name (such a setting has no
 * effect). Run-time (`app_`) names are not known here and never reported.
 * No check when the settings name nothing; not checked when a capability
 * did not start (its names are unknown).
 *
 * **Example**
 *
 * ```ts
 * import { nameCheck } from "./src/cli/doctor.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * declare const registered: ReadonlyArray<import("./src/cli/doctor.ts").CapabilityReport>
 * const check = nameCheck(settings, registered) // Check | undefined
 * ```
 *
 * @category reports
 * @since 0.5.0
 */
export const nameCheck = (
  settings: Settings.Settings,
  registered: ReadonlyArray<CapabilityReport>
): Check | undefined => {
  const policyTools = Object.keys(settings.policy.tools ?? {})
  const policyCapabilities = Object.keys(settings.policy.capabilities ?? {})
  const gateRules = settings.gate?.rules ?? []
  const keys: UnknownKeys.Keys = { policyTools, policyCapabilities, gateRules, preApproved: settings.preApproved }
  const count =
    policyTools.length +
    policyCapabilities.length +
    gateRules.reduce((n, rule) => n + rule.names.length, 0) +
    settings.preApproved.length
  if (count === 0) return undefined
  const ids = new Set(registered.map((c) => c.id))
  const missing = [...settings.capabilities, ...Object.keys(settings.upstreams)].filter((id) => !ids.has(id))
  if (missing.length > 0) {
    return {
      ok: true,
      title: `Names in the configuration: not checked (${missing.join(", ")} did not start)`,
      details: []
    }
  }
  const unknown = UnknownKeys.find(
    {
      capabilities: registered.map((c) => ({
        id: c.id,
        tools: c.tools.map((t) => t.name),
        prompts: c.prompts.map((p) => p.name),
        resources: [...c.resources.map((r) => r.name), ...c.templates.map((t) => t.name)],
        foreignNames: c.upstream !== undefined
      }))
    },
    keys
  )
  return unknown.length === 0
    ? { ok: true, title: `Names in the configuration: each of ${count} names something published`, details: [] }
    : {
        ok: false,
        title: `Names in the configuration: ${unknown.length} name${unknown.length === 1 ? "" : "s"} nothing published`,
        details: unknown.map(UnknownKeys.configMessage)
      }
}

const atLeast = (version: string, required: string): boolean => {
  const a = version.replace(/^v/, "").split(".").map(Number)
  const b = required.split(".").map(Number)
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0)
  }
  return true
}

/** Whether the audit file can be appended to: the file itself, or the nearest existing directory above it. */
const writable = (file: string): { readonly ok: boolean; readonly detail: string } => {
  let target = file
  while (!NodeFs.existsSync(target)) {
    const parent = NodePath.dirname(target)
    if (parent === target) break
    target = parent
  }
  const isDirectory = NodeFs.statSync(target).isDirectory()
  if (target === file && isDirectory) return { ok: false, detail: "is a directory, not a file" }
  if (target !== file && !isDirectory) {
    return { ok: false, detail: `cannot be created: ${target} is not a directory` }
  }
  try {
    NodeFs.accessSync(target, NodeFs.constants.W_OK)
    return { ok: true, detail: target === file ? "exists and is writable" : `will be created (under ${target})` }
  } catch (error) {
    return { ok: false, detail: `not writable: ${target} (${(error as NodeJS.ErrnoException).code ?? String(error)})` }
  }
}

// Where Claude Desktop keeps its configuration (it is made for macOS and Windows).
const claudeDesktopConfig: Partial<Record<NodeJS.Platform, string>> = {
  darwin: "~/Library/Application Support/Claude/claude_desktop_config.json",
  win32: "%APPDATA%\\Claude\\claude_desktop_config.json"
}

const quoteArg = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`)

/**
 * The client configuration snippets for the common MCP clients, running
 * `node <script> serve --root <root>` (with `--config` when one was named).
 *
 * **Example**
 *
 * ```ts
 * import { clientSnippets } from "./src/cli/doctor.ts"
 *
 * clientSnippets({ node: "/usr/bin/node", script: "/opt/mcp/dist/mcp-runtime.js", root: "/srv/p", config: undefined })[0]?.client
 * // => "Claude Desktop"
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const clientSnippets = (options: {
  readonly node: string
  readonly script: string
  readonly root: string
  readonly config: string | undefined
}): Report["clients"] => {
  const args = [options.script, "serve", "--root", options.root]
  if (options.config !== undefined) args.push("--config", options.config)
  const server = { command: options.node, args }
  const mcpServers = JSON.stringify({ mcpServers: { "mcp-runtime": server } }, null, 2)
  return [
    {
      client: "Claude Desktop",
      where: `${claudeDesktopConfig[process.platform] ?? "claude_desktop_config.json"} (Settings → Developer → Edit Config)`,
      text: mcpServers
    },
    {
      client: "Claude Code",
      where: "a shell, in the project",
      text: `claude mcp add mcp-runtime -- ${[options.node, ...args].map(quoteArg).join(" ")}`
    },
    { client: "Cursor", where: ".cursor/mcp.json in the project (or ~/.cursor/mcp.json)", text: mcpServers },
    {
      client: "VS Code",
      where: ".vscode/mcp.json in the project",
      text: JSON.stringify({ servers: { "mcp-runtime": { type: "stdio", ...server } } }, null, 2)
    }
  ]
}

/** What one HTTP session costs (measured: an initialized session with nothing in flight). */
const sessionBytes = 87 * 1024

const mebibytes = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB` : `${Math.round(bytes / 1024)} KiB`

/**
 * The HTTP transport's limits as `doctor` shows them: how many sessions may
 * be open (and what they cost), and what bounds each SSE stream's buffer for
 * a slow reader. `defaults` are the transport's (`HttpTransport.defaults`).
 *
 * **Example**
 *
 * ```ts
 * import { httpLimits } from "./src/cli/doctor.ts"
 *
 * httpLimits({ maxSessions: 3 }, { maxSessions: 1000, maxStreamBufferBytes: 4194304, slowReaderMs: 30000 })[0]
 * // => "sessions: at most 3 open at once (one more initialize gets 503); about 87 KiB each, 261 KiB when full"
 * ```
 *
 * @category reports
 * @since 0.5.0
 */
export const httpLimits = (
  http: { readonly maxSessions?: number | undefined },
  defaults: { readonly maxSessions: number; readonly maxStreamBufferBytes: number; readonly slowReaderMs: number }
): ReadonlyArray<string> => {
  const maxSessions = http.maxSessions ?? defaults.maxSessions
  return [
    `sessions: at most ${maxSessions} open at once (one more initialize gets 503); about ` +
      `${mebibytes(sessionBytes)} each, ${mebibytes(maxSessions * sessionBytes)} when full`,
    `SSE streams: one ends with a slow_reader event (resumable) once ${mebibytes(defaults.maxStreamBufferBytes)} ` +
      `wait for a client that does not read, or its buffer has not drained for ${defaults.slowReaderMs} ms`
  ]
}

/** The order tasks are counted in: the MCP statuses, then any other. */
const statusOrder = ["working", "input_required", "completed", "failed", "cancelled"]

const taskCounts = (rows: ReadonlyArray<{ readonly status: string; readonly n: number }>): string => {
  const total = rows.reduce((sum, row) => sum + row.n, 0)
  if (total === 0) return "tasks: none"
  const rank = (status: string) => {
    const index = statusOrder.indexOf(status)
    return index === -1 ? statusOrder.length : index
  }
  const sorted = [...rows].sort((a, b) => rank(a.status) - rank(b.status) || a.status.localeCompare(b.status))
  return `tasks: ${total} (${sorted.map((row) => `${row.n} ${row.status}`).join(", ")})`
}

/** The SQLite file's lock, as `serve` leaves it: `<file>.lock` holding the pid of the server using the file. */
const lockDetail = (filename: string): string => {
  const path = `${filename}.lock`
  let text: string
  try {
    text = NodeFs.readFileSync(path, "utf8")
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT"
      ? "lock: none (no server uses it now)"
      : `lock ${path}: unreadable (${Durable.describe(error)})`
  }
  const pid = Number(text.trim())
  if (!Number.isInteger(pid) || pid <= 0) {
    return `stale lock ${path} (no pid in it): the next server to start takes it over`
  }
  return DaemonClient.processState(pid) !== "dead"
    ? `in use by pid ${pid}`
    : `stale lock ${path} (pid ${pid} is gone): the next server to start takes it over`
}

const sqliteCheck = (store: Extract<Settings.StoreSettings, { readonly kind: "sqlite" }>): Check => {
  const title = `Task store: SQLite ${store.filename}`
  const where = store.explicit ? [] : ["the root's default (--store memory|sqlite:FILE|postgres://… for another)"]
  // An older Node: the default store keeps tasks in memory; an explicit SQLite store cannot start.
  if (nodeSqlite() === undefined) {
    return store.explicit
      ? { ok: false, title, details: [`cannot be used: ${unavailableReason()}`] }
      : {
          ok: true,
          title: "Task store: memory",
          details: [`tasks are kept in memory: ${unavailableReason()} for the default SQLite file`]
        }
  }
  let stat: NodeFs.Stats
  try {
    stat = NodeFs.statSync(store.filename)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { ok: true, title, details: [...where, "absent: created when the first task runs"] }
    }
    return { ok: false, title, details: [...where, `cannot be read: ${Durable.describe(error)}`] }
  }
  if (!stat.isFile()) return { ok: false, title, details: [...where, "is not a file"] }
  const sqlite = nodeSqlite()
  if (sqlite === undefined) return { ok: false, title, details: [...where, `cannot be read: ${unavailableReason()}`] }
  let counts: string
  try {
    const db = new sqlite.DatabaseSync(store.filename, { readOnly: true })
    try {
      const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'mcp_tasks'").get()
      counts =
        table === undefined
          ? "tasks: none (no mcp_tasks table yet: made when the store is first opened)"
          : taskCounts(
              db
                .prepare("SELECT status, COUNT(*) AS n FROM mcp_tasks GROUP BY status")
                .all()
                .map((row) => ({ status: String(row.status), n: Number(row.n) }))
            )
    } finally {
      db.close()
    }
  } catch (error) {
    return {
      ok: false,
      title,
      details: [...where, lockDetail(store.filename), `unreadable: ${Durable.describe(error)}`]
    }
  }
  let size = stat.size
  try {
    size += NodeFs.statSync(`${store.filename}-wal`).size
  } catch {
    // No write-ahead log.
  }
  return { ok: true, title, details: [...where, lockDetail(store.filename), counts, `size: ${mebibytes(size)}`] }
}

/** Replaces the URL's password, wherever it shows (an error message may quote the URL), by `***`. */
const scrubPassword = (url: string) => {
  let password = ""
  try {
    password = new URL(url).password
  } catch {
    // Not parsed: only the URL's own text is replaced.
  }
  const secrets = [url, password, password === "" ? "" : decodeURIComponent(password)].filter((s) => s.length > 0)
  return (text: string): string =>
    secrets.reduce((out, secret) => out.split(secret).join(secret === url ? redactUrl(url) : "***"), text)
}

const redactUrl = (url: string): string =>
  storeLocation({ kind: "postgres", url, runnerHost: undefined, runnerPort: undefined })

const postgresCheck = (
  store: Extract<Settings.StoreSettings, { readonly kind: "postgres" }>,
  timeout: Duration.Input
): Effect.Effect<Check> => {
  const location = redactUrl(store.url)
  const title = `Task store: PostgreSQL ${location}`
  const scrub = scrubPassword(store.url)
  return Effect.gen(function* () {
    const Pg = yield* Effect.promise(() => import("@effect/sql-pg/PgClient"))
    const probe = Effect.gen(function* () {
      const sql = yield* Pg.PgClient
      const version = yield* sql<{ readonly server_version: string }>`SHOW server_version`
      const [tables] = yield* sql<{ readonly tasks: string | null; readonly runners: string | null }>`
        SELECT to_regclass('mcp_tasks')::text AS tasks, to_regclass('cluster_runners')::text AS runners`
      const counts =
        tables?.tasks == null
          ? undefined
          : yield* sql<{ readonly status: string; readonly n: unknown }>`
              SELECT status, COUNT(*) AS n FROM mcp_tasks GROUP BY status`
      const runners =
        tables?.runners == null
          ? undefined
          : yield* sql<{ readonly address: string; readonly healthy: unknown; readonly age: unknown }>`
              SELECT address, healthy, EXTRACT(EPOCH FROM (NOW() - last_heartbeat))::float8 AS age
              FROM cluster_runners ORDER BY address`
      return { version: version[0]?.server_version ?? "unknown", counts, runners }
    }).pipe(
      Effect.provide(Pg.layer({ url: Redacted.make(store.url), connectTimeout: timeout, maxConnections: 1 }), {
        local: true
      }),
      Effect.scoped
    )
    const result = yield* Effect.result(
      // The connection has `timeout`; the queries as long again.
      Effect.timeoutOrElse(probe, {
        duration: Duration.times(Duration.fromInputUnsafe(timeout), 2),
        orElse: () => Effect.fail(new Error(`no answer within ${Duration.toSeconds(timeout) * 2} s`))
      })
    )
    if (result._tag === "Failure") {
      return { ok: false, title, details: [scrub(`unreachable: ${Durable.describe(result.failure)}`)] }
    }
    const { version, counts, runners } = result.success
    return {
      ok: true,
      title,
      details: [
        "reachable",
        `server version: PostgreSQL ${version}`,
        counts === undefined
          ? "tasks: none (no mcp_tasks table yet: made when the first server starts)"
          : taskCounts(counts.map((row) => ({ status: String(row.status), n: Number(row.n) }))),
        runners === undefined
          ? "runners: none (no cluster_runners table yet)"
          : runners.length === 0
            ? "runners: none registered"
            : `runners: ${runners
                .map((runner) => {
                  const age = Math.max(0, Math.round(Number(runner.age)))
                  return `${runner.address} (${runner.healthy === false || runner.healthy === 0 ? "unhealthy" : "healthy"}, last heartbeat ${age} s ago)`
                })
                .join(", ")}`
      ].map(scrub)
    }
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.succeed<Check>({ ok: false, title, details: [scrub(`unreachable: ${describeFailure(cause)}`)] })
    )
  )
}

/**
 * The Task store check: where `serve` keeps tasks and what is there. Memory:
 * nothing to check. SQLite: the file (absent is fine: it is created when the
 * first task runs), its lock (the pid of the server using it, or a stale
 * lock the next server takes over), the tasks by status (read-only) and its
 * size; a file that cannot be read fails. PostgreSQL: connects within
 * `timeout` (default 3 s; unreachable fails), then the server version, the
 * tasks by status and the cluster's registered runners. A URL's password is
 * never shown. Never fails: a problem is a failed check.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { storeCheck } from "./src/cli/doctor.ts"
 *
 * const check = Effect.runSync(storeCheck({ kind: "memory" }))
 * // => { ok: true, title: "Task store: memory", details: ["tasks are kept in memory: they end with the process"] }
 * ```
 *
 * @category reports
 * @since 0.5.0
 */
export const storeCheck = (
  store: Settings.StoreSettings,
  options: { readonly timeout?: Duration.Input | undefined } = {}
): Effect.Effect<Check> => {
  switch (store.kind) {
    case "memory":
      return Effect.succeed({
        ok: true,
        title: "Task store: memory",
        details: ["tasks are kept in memory: they end with the process"]
      })
    case "sqlite":
      return Effect.sync(() => sqliteCheck(store))
    case "postgres":
      return postgresCheck(store, options.timeout ?? "3 seconds")
  }
}

/**
 * Runs every check and returns the report; never fails (a problem is a
 * failed check).
 *
 * **Example**
 *
 * ```ts
 * import * as Option from "effect/Option"
 * import { diagnose } from "./src/cli/doctor.ts"
 *
 * const report = diagnose({
 *   root: Option.none(),
 *   config: Option.none(),
 *   capabilities: Option.none(),
 *   auditLog: Option.none()
 * })
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const diagnose = Effect.fnUntraced(function* (flags: {
  readonly root: Option.Option<string>
  readonly config: Option.Option<string>
  readonly capabilities: Option.Option<string>
  readonly auditLog: Option.Option<string>
}) {
  const sections: Array<{ name: string; checks: Array<Check> }> = []
  const section = (name: string) => {
    const checks: Array<Check> = []
    sections.push({ name, checks })
    return checks
  }

  const runtime = section("Runtime")
  runtime.push({
    ok: atLeast(process.versions.node, requiredNode),
    title: `Node.js ${process.versions.node}`,
    details: atLeast(process.versions.node, requiredNode)
      ? []
      : [`mcp-runtime needs Node.js ${requiredNode} or newer; start it with a newer node`]
  })
  runtime.push({ ok: true, title: `mcp-runtime ${ServerConfig.packageVersion}`, details: [] })

  const setup = section("Root and configuration")
  const rootResult = yield* Effect.result(resolveRoot(flags.root))
  if (rootResult._tag === "Failure") {
    setup.push({ ok: false, title: "Root", details: [rootResult.failure.message] })
    return finish(sections, undefined)
  }
  const root = rootResult.success
  setup.push({ ok: true, title: `Root ${root}`, details: [] })
  const loaded = yield* Effect.result(ConfigFile.load({ root, file: Option.getOrUndefined(flags.config) }))
  let config: ConfigFile.Config = {}
  let configFile: string | undefined
  let fromRoot = false
  if (loaded._tag === "Failure") {
    setup.push({
      ok: false,
      title: `Configuration ${loaded.failure.file}: ${loaded.failure.problems.length} problem(s)`,
      details: loaded.failure.problems.map((p) => `${p.path}: ${p.message}`)
    })
  } else {
    config = loaded.success.config
    configFile = loaded.success.file
    fromRoot = loaded.success.fromRoot
    setup.push({
      ok: true,
      title:
        configFile === undefined
          ? `Configuration: none (no ${ConfigFile.defaultFileName} in the root; defaults, flags and MCP_RUNTIME_* apply)`
          : `Configuration ${configFile}: valid`,
      details: []
    })
  }
  // A settings error is reported, then the rest is checked with less: without the MCP_RUNTIME_* variables,
  // then without the file too, then with the defaults.
  const withoutVariables = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("MCP_RUNTIME_"))
  )
  // No --store flag here: MCP_RUNTIME_STORE or the file's `store` chooses the store checked.
  const given: Settings.Flags = {
    ...noServeFlags,
    capabilities: flags.capabilities,
    auditLog: flags.auditLog,
    store: Option.none()
  }
  const attempts: ReadonlyArray<readonly [ConfigFile.Config, Record<string, string | undefined>, Settings.Flags]> = [
    [config, process.env, given],
    [config, withoutVariables, given],
    [{}, withoutVariables, given],
    [{}, withoutVariables, noServeFlags]
  ]
  let settings: Settings.Settings | undefined
  for (const [index, [attemptConfig, env, attemptFlags]] of attempts.entries()) {
    const resolved = yield* Effect.result(
      Settings.resolve({
        root,
        configFile,
        config: attemptConfig,
        configFromRoot: fromRoot,
        flags: attemptFlags,
        env
      })
    )
    if (resolved._tag === "Success") {
      settings = resolved.success
      break
    }
    if (index === 0) {
      setup.push({ ok: false, title: "Settings", details: [resolved.failure.message] })
    }
  }
  if (settings === undefined) return finish(sections, undefined)
  for (const warning of settings.warnings) {
    setup.push({ ok: true, title: "Warning", details: [warning] })
  }

  const capabilities = section("Capabilities")
  const inspected = yield* capabilityChecks(settings)
  capabilities.push(...inspected.checks)
  const registered = inspected.registered
  // A name in the configuration that matches nothing published is a setting without effect.
  const names = nameCheck(settings, registered)
  if (names !== undefined) setup.push(names)

  const services = section("Host services and safety controls")
  // Loaded for its defaults only when HTTP is configured (as serve does).
  const http =
    settings.transport === "http" ? yield* Effect.promise(() => import("../../layers/HttpTransport.ts")) : undefined
  services.push({
    ok: true,
    title: `Transport: ${settings.transport}`,
    details:
      http !== undefined
        ? [
            `http://${settings.http.host ?? "127.0.0.1"}:${settings.http.port ?? 3000}/mcp`,
            ...httpLimits(settings.http, http.defaults)
          ]
        : ["newline-delimited JSON-RPC on stdin/stdout"]
  })
  services.push({
    ok: true,
    title: `Front: ${settings.front}`,
    details:
      settings.front === "request"
        ? [
            `the request front (docs/request.md): at most ${settings.request.maxOps} operations, ${settings.request.maxDepth} deep`
          ]
        : ["tool calls reach the tools as they are"]
  })
  if (settings.daemon.mode === "auto") {
    const paths = daemonPaths(process.env)
    const running = yield* Effect.result(DaemonClient.status(paths, 1000))
    const build = yield* DaemonProtocol.buildId
    services.push({
      ok: true,
      title: "Daemon: auto (serve forwards its session to the warm daemon)",
      details: [
        `directory: ${paths.dir}`,
        running._tag === "Failure"
          ? `not answering: ${running.failure.message} (sessions are served in process)`
          : running.success === undefined
            ? `none running: the first serve --daemon auto starts one (it exits after ${settings.daemon.idleMs} ms without a session)`
            : running.success.version === ServerConfig.packageVersion && running.success.build === build
              ? `running (pid ${running.success.pid}, ${running.success.sessions} sessions open, ${running.success.warm.length} warm servers)`
              : `running (pid ${running.success.pid}) but of mcp-runtime ${running.success.version} (build ` +
                `${running.success.build}), this is build ${build}: sessions are served in process until ` +
                "`mcp-runtime daemon stop`"
      ]
    })
  }
  if (settings.capabilities.includes("workspace")) {
    services.push({
      ok: true,
      title: `Workspace: ${root}`,
      details: [`denied: ${(settings.workspace.deny ?? []).join(" ")}`]
    })
  }
  if (settings.capabilities.includes("exec")) {
    const exec = settings.exec ?? defaultExecSettings
    const rules = [...exec.commands, ...exec.additionalCommands].map((rule) =>
      typeof rule === "string" ? rule : `${rule.command}${rule.args === undefined ? "" : ` (${rule.args.join("|")})`}`
    )
    services.push({
      ok: true,
      title: "Command runner (exec)",
      details: [
        `allowed: ${rules.join(", ") || "nothing"}`,
        `timeouts: ${exec.defaultTimeoutMs} ms by default, ${exec.maxTimeoutMs} ms at most`,
        `environment passed on: the runner's allowlist${exec.inheritEnv.length > 0 ? ` + ${exec.inheritEnv.join(", ")}` : ""}`
      ]
    })
  }
  if (settings.capabilities.includes("fe")) {
    const fe = settings.fe ?? defaultFeSettings
    const node = NodeFs.existsSync(fe.node)
    services.push({
      ok: node,
      title: "Project tools (fe)",
      details: [
        `Node for the project's tools: ${fe.node}${node ? "" : " (not found)"}`,
        `verify step timeouts: ${fe.defaultStepTimeoutMs} ms by default, ${fe.maxStepTimeoutMs} ms at most`
      ]
    })
  }
  if (settings.audit === undefined) {
    services.push({ ok: true, title: "Audit log: off", details: [] })
  } else {
    const check = writable(settings.audit.path)
    services.push({ ok: check.ok, title: `Audit log: ${settings.audit.path}`, details: [check.detail] })
  }
  services.push(yield* storeCheck(settings.store))
  services.push({
    ok: true,
    title:
      settings.gate === undefined
        ? "Authorization gate: none (everything the capabilities offer is allowed)"
        : `Authorization gate: ${settings.gate.rules.length} rule(s), default ${settings.gate.defaultEffect}`,
    details: []
  })
  services.push({
    ok: true,
    title: `Confirmation: destructive tools ask the user${
      settings.preApproved.length > 0 ? `, except the pre-approved ${settings.preApproved.join(", ")}` : ""
    }`,
    details: []
  })

  const script = NodePath.resolve(process.argv[1] ?? "dist/mcp-runtime.js")
  return finish(
    sections,
    clientSnippets({
      node: process.execPath,
      script,
      root,
      config: fromRoot ? undefined : (configFile ?? Option.getOrUndefined(flags.config))
    }),
    registered
  )
})

const finish = (
  sections: ReadonlyArray<{ readonly name: string; readonly checks: ReadonlyArray<Check> }>,
  clients: Report["clients"] | undefined,
  capabilities: ReadonlyArray<CapabilityReport> = []
): Report => ({
  ok: sections.every((s) => s.checks.every((c) => c.ok)),
  sections,
  capabilities,
  clients: clients ?? []
})

/**
 * The report as text: a section per heading, `✓`/`✗` per check, then the
 * client configuration.
 *
 * **Example**
 *
 * ```ts
 * import { render } from "./src/cli/doctor.ts"
 *
 * render({
 *   ok: true,
 *   sections: [{ name: "Runtime", checks: [{ ok: true, title: "Node.js 24", details: [] }] }],
 *   capabilities: [],
 *   clients: []
 * })
 * // => "Runtime\n  ✓ Node.js 24\n\nAll checks passed.\n"
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const render = (report: Report): string => {
  let out = ""
  for (const section of report.sections) {
    out += `${section.name}\n`
    for (const check of section.checks) {
      out += `  ${check.ok ? "✓" : "✗"} ${check.title}\n`
      for (const detail of check.details) out += `      ${detail}\n`
    }
    out += "\n"
  }
  if (report.clients.length > 0) {
    out += "Client configuration\n"
    for (const client of report.clients) {
      out += `  ${client.client} — ${client.where}:\n`
      out += `${client.text
        .split("\n")
        .map((line) => `    ${line}`)
        .join("\n")}\n\n`
    }
  }
  out += report.ok ? "All checks passed.\n" : "Some checks failed (✗ above).\n"
  return out
}

/**
 * The `doctor` command.
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime doctor --root /srv/project
 * mcp-runtime doctor --json
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const doctor = Command.make(
  "doctor",
  {
    ...commonFlags,
    auditLog: auditLogFlag,
    json: Flag.Boolean("json").pipe(Flag.withDescription("Print the report as JSON"), Flag.withDefault(false))
  },
  Effect.fnUntraced(function* (flags) {
    const report = yield* diagnose(flags)
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : render(report))
    if (!report.ok) {
      return yield* new AlreadyReported({ exitCode: 1, message: "doctor found problems" })
    }
  }, quietLogs)
).pipe(
  Command.withDescription(
    "Check Node, the root, the configuration, the capabilities and the safety controls; print client configuration"
  )
)
