/**
 * The settings of the upstream servers: the `upstreams` section of the
 * configuration file, one entry per upstream MCP server, keyed by the
 * capability id its tools, prompts and resources are published under. An
 * entry starts a local server over stdio (`command`, `args`, `env`, `cwd`)
 * or connects to a Streamable HTTP endpoint (`url`, `headers`).
 * {@link UpstreamSettingsSchema} decodes one entry; {@link UpstreamsSchema}
 * the whole section.
 *
 * See `docs/capabilities/upstream.md`.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * How long the server waits, at startup, for an upstream to connect and list
 * what it offers before it starts without it (and keeps trying): 10 s.
 *
 * **Example**
 *
 * ```ts
 * import { defaultStartupTimeoutMs } from "./capabilities/upstream/settings.ts"
 *
 * defaultStartupTimeoutMs // => 10000
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const defaultStartupTimeoutMs = 10_000

/**
 * The reconnection backoff: the first retry after 250 ms, each next one
 * twice as late, 30 s at most.
 *
 * **Example**
 *
 * ```ts
 * import { defaultReconnect } from "./capabilities/upstream/settings.ts"
 *
 * defaultReconnect.maxDelayMs // => 30000
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const defaultReconnect = { initialDelayMs: 250, maxDelayMs: 30_000 } as const

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const NonEmpty = Schema.String.check(Schema.isMinLength(1))
const Strings = Schema.Record(Schema.String, Schema.String)

const hasOne = (entry: { readonly command?: unknown; readonly url?: unknown }) =>
  (entry.command === undefined) !== (entry.url === undefined)

const mixed = (entry: Record<string, unknown>): ReadonlyArray<string> =>
  entry.command !== undefined
    ? ["headers"].filter((key) => entry[key] !== undefined)
    : ["args", "env", "cwd"].filter((key) => entry[key] !== undefined)

/**
 * One upstream server in the configuration file: `command` (with `args`,
 * `env`, `cwd`) for a server started over stdio, or `url` (with `headers`)
 * for a Streamable HTTP endpoint; then the startup timeout, the
 * reconnection backoff and the default limits of its tools.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { UpstreamSettingsSchema } from "./capabilities/upstream/settings.ts"
 *
 * Schema.decodeUnknownSync(UpstreamSettingsSchema)({ command: "node", args: ["server.js"], env: { LEVEL: "debug" } })
 * Schema.decodeUnknownSync(UpstreamSettingsSchema)({ url: "http://127.0.0.1:3000/mcp", headers: { Authorization: "Bearer ${TOKEN}" } })
 * ```
 *
 * @category schemas
 * @since 0.3.0
 */
export const UpstreamSettingsSchema = Schema.Struct({
  command: Schema.optional(
    NonEmpty.annotate({ description: "The server's program, started over stdio (a name on PATH, or a path)" })
  ),
  args: Schema.optional(Schema.Array(Schema.String).annotate({ description: "Its arguments" })),
  env: Schema.optional(
    Strings.annotate({
      description:
        "Variables added to its environment (it gets HOME, LOGNAME, PATH, SHELL, TERM and USER besides); " +
        "${NAME} in a value is replaced by the server's own variable"
    })
  ),
  cwd: Schema.optional(
    NonEmpty.annotate({ description: "Its working directory, relative to the root (default the root)" })
  ),
  url: Schema.optional(
    NonEmpty.check(Schema.isPattern(/^https?:\/\/\S+$/)).annotate({
      description: "A Streamable HTTP endpoint (http:// or https://)"
    })
  ),
  headers: Schema.optional(
    Strings.annotate({ description: "HTTP headers sent with every request; ${NAME} is replaced by the variable" })
  ),
  description: Schema.optional(
    NonEmpty.annotate({ description: "The capability's description (doctor, system_info)" })
  ),
  startupTimeoutMs: Schema.optional(
    PositiveInt.annotate({ description: "How long startup waits for it to connect (default 10000)" })
  ),
  reconnect: Schema.optional(
    Schema.Struct({
      initialDelayMs: Schema.optional(PositiveInt.annotate({ description: "First retry delay (default 250)" })),
      maxDelayMs: Schema.optional(PositiveInt.annotate({ description: "Longest retry delay (default 30000)" }))
    })
  ),
  timeoutMs: Schema.optional(NonNegativeInt.annotate({ description: "Default timeout of its tools; 0 disables it" })),
  maxConcurrent: Schema.optional(
    NonNegativeInt.annotate({ description: "Calls of each of its tools at once; 0 means no limit" })
  ),
  maxResultBytes: Schema.optional(
    NonNegativeInt.annotate({ description: "Largest result of its tools; 0 means no limit" })
  )
}).check(
  Schema.makeFilter((entry) =>
    hasOne(entry)
      ? mixed(entry).length === 0
        ? undefined
        : `${mixed(entry).join(", ")} ${mixed(entry).length === 1 ? "does" : "do"} not apply to ${
            entry.command !== undefined ? "a stdio server (command)" : "an HTTP server (url)"
          }`
      : entry.command === undefined
        ? "give either command (a server started over stdio) or url (a Streamable HTTP endpoint)"
        : "give command (a server started over stdio) or url (a Streamable HTTP endpoint), not both"
  )
)

/**
 * One decoded upstream entry.
 *
 * **Example**
 *
 * ```ts
 * import type { UpstreamSettings } from "./capabilities/upstream/settings.ts"
 *
 * const everything: UpstreamSettings = { command: "npx", args: ["@modelcontextprotocol/server-everything"] }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export type UpstreamSettings = typeof UpstreamSettingsSchema.Type

/**
 * The `upstreams` section: upstream servers by capability id (the id follows
 * the capability rules, `^[a-z][a-z0-9_]*$`, and may not be `app` nor a
 * bundled capability's: the server refuses to start otherwise).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { UpstreamsSchema } from "./capabilities/upstream/settings.ts"
 *
 * Schema.decodeUnknownSync(UpstreamsSchema)({ everything: { command: "mcp-server-everything" } })
 * ```
 *
 * @category schemas
 * @since 0.3.0
 */
export const UpstreamsSchema = Schema.Record(Schema.String, UpstreamSettingsSchema)

// Names of flags and variables that usually carry a secret.
const secretName =
  /token|secret|passw(?:or)?d|passphrase|pwd|credential|bearer|cookie|auth(?!or)|apikey|(?:^|[-_])key(?:$|[-_])/i

const redacted = "***"

/**
 * A URL fit for logs, `doctor` and status: its user information and the
 * values of its query (and its fragment) replaced by `***`, which is where
 * a URL usually carries a secret.
 *
 * **Example**
 *
 * ```ts
 * import { redactUrl } from "./capabilities/upstream/settings.ts"
 *
 * redactUrl("https://me:pw@docs.example.com/mcp?key=abc&v=2")
 * // => "https://***@docs.example.com/mcp?key=***&v=***"
 * ```
 *
 * @category formatting
 * @since 0.3.0
 */
export const redactUrl = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url.replace(/[?#].*$/s, `?${redacted}`)
  }
  const userinfo = parsed.username !== "" || parsed.password !== "" ? `${redacted}@` : ""
  const keys = [...new Set(parsed.searchParams.keys())]
  const query = parsed.search === "" ? "" : `?${keys.map((key) => `${encodeURIComponent(key)}=${redacted}`).join("&")}`
  const fragment = parsed.hash === "" ? "" : `#${redacted}`
  return `${parsed.protocol}//${userinfo}${parsed.host}${parsed.pathname}${query}${fragment}`
}

/**
 * A stdio upstream's arguments fit for logs, `doctor` and status: the value
 * of a flag whose name says it is a secret (`--token x`, `--api-key=x`,
 * `--password x`…) and of a `NAME=value` whose name does (`API_KEY=x`)
 * become `***`, and URLs are redacted as {@link redactUrl} does.
 *
 * **Example**
 *
 * ```ts
 * import { redactArgs } from "./capabilities/upstream/settings.ts"
 *
 * redactArgs(["server.js", "--token", "abc", "--api-key=def", "--port", "3000"])
 * // => ["server.js", "--token", "***", "--api-key=***", "--port", "3000"]
 * ```
 *
 * @category formatting
 * @since 0.3.0
 */
export const redactArgs = (args: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const assigned = /^(-{0,2}[A-Za-z_][A-Za-z0-9_.-]*)=/.exec(arg)
    if (assigned !== null && secretName.test(assigned[1]!)) {
      out.push(`${assigned[1]}=${redacted}`)
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(arg)) {
      out.push(redactUrl(arg))
    } else {
      out.push(arg)
      // A flag named like a secret: its value is the next argument.
      if (/^--?[A-Za-z]/.test(arg) && secretName.test(arg) && i + 1 < args.length) {
        out.push(redacted)
        i++
      }
    }
  }
  return out
}

/**
 * Where an upstream of the configuration file is reached, with its secrets
 * redacted ({@link redactArgs}, {@link redactUrl}): `stdio <command>
 * <args…>` or `http <url>`. Its `env` and `headers` are never shown.
 *
 * **Example**
 *
 * ```ts
 * import { describeUpstream } from "./capabilities/upstream/settings.ts"
 *
 * describeUpstream({ command: "node", args: ["server.js", "--token", "abc"] }) // => "stdio node server.js --token ***"
 * describeUpstream({ url: "https://docs.example.com/mcp?key=abc" }) // => "http https://docs.example.com/mcp?key=***"
 * ```
 *
 * @category formatting
 * @since 0.3.0
 */
export const describeUpstream = (spec: Pick<UpstreamSettings, "command" | "args" | "url">): string =>
  spec.command !== undefined
    ? `stdio ${[spec.command, ...redactArgs(spec.args ?? [])].join(" ")}`
    : `http ${redactUrl(spec.url ?? "")}`
