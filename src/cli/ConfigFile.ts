/**
 * The `mcp-runtime` configuration file: one optional JSON file, decoded with a
 * Schema, that sets what the flags set and what only a file can express
 * (gate rules, per-tool limits, the exec allowlist, audit settings).
 *
 * Where a setting comes from, strongest first: a command-line flag, then the
 * file, then the built-in default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"

/** The variable naming the configuration file when `--config` is not given. */
const configFileVariable = "MCP_RUNTIME_CONFIG"
import { CodeSettingsSchema } from "../../capabilities/code/settings.ts"
import { ExecSettingsSchema } from "../../capabilities/exec/settings.ts"
import { FeSettingsSchema } from "../../capabilities/fe/settings.ts"
import { SkillsSettingsSchema } from "../../capabilities/skills/settings.ts"
import { UpstreamsSchema } from "../../capabilities/upstream/settings.ts"

/**
 * The file looked for in the root when `--config` is not given.
 *
 * **Example**
 *
 * ```ts
 * import { defaultFileName } from "./src/cli/ConfigFile.ts"
 *
 * defaultFileName // => "mcp-runtime.json"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultFileName = "mcp-runtime.json"

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const Globs = Schema.Array(Schema.String.check(Schema.isMinLength(1)))

const Limits = Schema.Struct({
  timeoutMs: Schema.optional(NonNegativeInt.annotate({ description: "Per-call timeout in ms; 0 disables it" })),
  maxConcurrent: Schema.optional(NonNegativeInt.annotate({ description: "Calls at once; 0 means no limit" })),
  maxResultBytes: Schema.optional(NonNegativeInt.annotate({ description: "Largest result; 0 means no limit" }))
})

const GateRule = Schema.Struct({
  effect: Schema.Literals(["allow", "deny"]),
  names: Globs.annotate({ description: "Public names (globs: * and ?), e.g. exec_*" }),
  principals: Schema.optional(Globs),
  methods: Schema.optional(Schema.Array(Schema.Literals(["tools/call", "resources/read", "prompts/get"])))
})

/**
 * The schema of the configuration file. Unknown keys are errors (a typo must
 * not silently leave a setting at its default).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ConfigFile } from "./src/cli/ConfigFile.ts"
 *
 * Schema.decodeUnknownSync(ConfigFile)({ capabilities: ["system"], limits: { timeoutMs: 60000 } })
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const ConfigFile = Schema.Struct({
  $schema: Schema.optional(Schema.String),
  capabilities: Schema.optional(
    Schema.Array(Schema.String).annotate({ description: "Capability ids to enable (like --capabilities)" })
  ),
  server: Schema.optional(
    Schema.Struct({
      maxMessageBytes: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1024))),
      shutdownGraceMs: Schema.optional(NonNegativeInt),
      listTtlMs: Schema.optional(
        NonNegativeInt.annotate({ description: "How long a client may keep a list result (2026-07-28 ttlMs)" })
      )
    })
  ),
  requestState: Schema.optional(
    Schema.Struct({
      keys: Schema.optional(
        Schema.Array(
          Schema.String.check(Schema.isMinLength(32)).annotate({
            description: "A secret of at least 32 characters; the first seals, every one opens (key rotation)"
          })
        ).check(Schema.isMinLength(1))
      ),
      maxAgeMs: Schema.optional(PositiveInt.annotate({ description: "How long a requestState stays valid" }))
    })
  ),
  limits: Schema.optional(
    Schema.Struct({
      ...Limits.fields,
      maxQueued: Schema.optional(NonNegativeInt),
      queueTimeoutMs: Schema.optional(NonNegativeInt),
      onOverload: Schema.optional(Schema.Literals(["queue", "reject"])),
      progressIntervalMs: Schema.optional(NonNegativeInt),
      tools: Schema.optional(Schema.Record(Schema.String, Limits)),
      capabilities: Schema.optional(Schema.Record(Schema.String, Limits))
    })
  ),
  confirmation: Schema.optional(
    Schema.Struct({
      preApproved: Schema.optional(
        Globs.annotate({ description: "Destructive tools that run without asking (public-name globs)" })
      )
    })
  ),
  gate: Schema.optional(
    Schema.Struct({
      default: Schema.optional(Schema.Literals(["allow", "deny"])),
      rules: Schema.optional(Schema.Array(GateRule))
    })
  ),
  audit: Schema.optional(
    Schema.Struct({
      enabled: Schema.optional(Schema.Boolean),
      path: Schema.optional(Schema.String.check(Schema.isMinLength(1))),
      maxBytes: Schema.optional(PositiveInt),
      keep: Schema.optional(NonNegativeInt),
      sync: Schema.optional(Schema.Boolean),
      arguments: Schema.optional(Schema.Literals(["digest", "redacted"])),
      redact: Schema.optional(Schema.Array(Schema.String))
    })
  ),
  logging: Schema.optional(
    Schema.Struct({
      level: Schema.optional(Schema.Literals(["debug", "info", "warning", "error", "none"])),
      clientLevel: Schema.optional(
        Schema.Literals(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])
      )
    })
  ),
  workspace: Schema.optional(
    Schema.Struct({
      deny: Schema.optional(Globs.annotate({ description: "Replaces the default deny list" })),
      additionalDeny: Schema.optional(Globs.annotate({ description: "Added to the deny list" })),
      maxReadBytes: Schema.optional(PositiveInt)
    })
  ),
  exec: Schema.optional(ExecSettingsSchema),
  fe: Schema.optional(FeSettingsSchema),
  skills: Schema.optional(SkillsSettingsSchema),
  code: Schema.optional(
    CodeSettingsSchema.annotate({
      description: "Code mode: the sandbox's limits and the learned capabilities' store (see docs/capabilities/code.md)"
    })
  ),
  upstreams: Schema.optional(
    UpstreamsSchema.annotate({
      description:
        "Other MCP servers whose tools, prompts and resources are published under <id>_ (see docs/capabilities/upstream.md)"
    })
  ),
  http: Schema.optional(
    Schema.Struct({
      port: Schema.optional(NonNegativeInt.check(Schema.isLessThanOrEqualTo(65535))),
      host: Schema.optional(Schema.String),
      allowedHosts: Schema.optional(Schema.Array(Schema.String)),
      allowedOrigins: Schema.optional(Schema.Array(Schema.String)),
      sessionIdleMs: Schema.optional(PositiveInt),
      resumeGraceMs: Schema.optional(NonNegativeInt),
      maxSessions: Schema.optional(
        PositiveInt.annotate({
          description:
            "How many sessions may be open at once; one more initialize gets 503 (default 1000); like --max-sessions"
        })
      ),
      authorization: Schema.optional(
        Schema.Struct({
          issuer: Schema.String.annotate({ description: "The authorization server's issuer URL (tokens' iss)" }),
          audience: Schema.String.annotate({
            description: "This server's resource URL, e.g. https://mcp.example.com/mcp (tokens' aud)"
          }),
          requiredScopes: Schema.optional(Globs.annotate({ description: "Scopes every request needs" })),
          toolScopes: Schema.optional(
            Schema.Record(Schema.String, Globs).annotate({
              description: 'Scopes a tools/call needs, by public tool name (globs), e.g. { "exec_*": ["mcp:exec"] }'
            })
          ),
          resourceMetadataUrl: Schema.optional(
            Schema.String.annotate({ description: "The metadata URL clients reach (default: derived from audience)" })
          )
        }).annotate({
          description: "OAuth 2.1 resource server: every request needs a bearer token (see docs/authorization.md)"
        })
      )
    })
  ),
  transport: Schema.optional(Schema.Literals(["stdio", "http"])),
  store: Schema.optional(
    Schema.Union([
      Schema.String.annotate({
        description:
          "Where tasks are kept: memory, sqlite (the default file under the state directory), sqlite:<file>, or postgres://… (several instances); like --store"
      }),
      Schema.Struct({
        url: Schema.String.annotate({
          description: "memory, sqlite, sqlite:<file> or postgres://user:password@host/db"
        }),
        runnerHost: Schema.optional(
          Schema.String.annotate({ description: "PostgreSQL: the address other instances reach this one at" })
        ),
        runnerPort: Schema.optional(
          PositiveInt.check(Schema.isLessThanOrEqualTo(65535)).annotate({
            description: "PostgreSQL: this instance's runner port (default: a free one)"
          })
        )
      })
    ]).annotate({ description: "The durable task store (see docs/scale-out.md)" })
  ),
  experimental: Schema.optional(
    Schema.Boolean.annotate({
      description: "Publish the tools marked experimental (default false); like --experimental"
    })
  ),
  front: Schema.optional(
    Schema.Literals(["tools", "request"]).annotate({
      description: "How tool calls reach the server: tools (default) or request (see docs/request.md); like --front"
    })
  ),
  request: Schema.optional(
    Schema.Struct({
      maxOps: Schema.optional(
        PositiveInt.check(Schema.isLessThanOrEqualTo(10_000)).annotate({
          description: "The request front's most operations per request (at most 10000)"
        })
      ),
      maxDepth: Schema.optional(
        PositiveInt.check(Schema.isLessThanOrEqualTo(256)).annotate({
          description: "The request front's deepest nesting of a value (at most 256)"
        })
      )
    })
  ),
  daemon: Schema.optional(
    Schema.Struct({
      mode: Schema.optional(
        Schema.Literals(["auto", "off"]).annotate({
          description: "auto: serve (stdio) forwards its session to the warm daemon (see docs/daemon.md); like --daemon"
        })
      ),
      idleMs: Schema.optional(
        PositiveInt.annotate({ description: "How long a daemon serve starts waits without a session before it exits" })
      )
    })
  )
})

/**
 * A decoded configuration file.
 *
 * **Example**
 *
 * ```ts
 * import type { Config } from "./src/cli/ConfigFile.ts"
 *
 * const config: Config = { gate: { default: "deny", rules: [{ effect: "allow", names: ["system_*"] }] } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Config = typeof ConfigFile.Type

/**
 * One problem in a configuration file: where (`$.gate.rules[0].effect`) and
 * what is wrong.
 *
 * **Example**
 *
 * ```ts
 * import type { Problem } from "./src/cli/ConfigFile.ts"
 *
 * const problem: Problem = { path: "$.limits.timeoutMs", message: "Expected a value greater than or equal to 0, got -1" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Problem {
  readonly path: string
  readonly message: string
}

/**
 * The configuration file could not be read or is invalid.
 *
 * **Example**
 *
 * ```ts
 * import { ConfigError } from "./src/cli/ConfigFile.ts"
 *
 * new ConfigError({ file: "mcp-runtime.json", problems: [{ path: "$", message: "not JSON" }], message: "…" })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  file: Schema.String,
  problems: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })),
  message: Schema.String
}) {}

const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (acc, key) =>
      typeof key === "number"
        ? `${acc}[${key}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(key))
          ? `${acc}.${String(key)}`
          : `${acc}[${JSON.stringify(String(key))}]`,
    "$"
  )

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const missing = Symbol("missing")

const valueAt = (json: unknown, keys: ReadonlyArray<PropertyKey>): unknown => {
  let value = json
  for (const key of keys) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return missing
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

// The Schema's message, with the value that was found (cut short), so the reader needs no second look at the file.
const describe = (message: string, value: unknown): string => {
  if (message === "Expected no excess property") return "unknown key (check its spelling)"
  if (value === missing) return message === "Missing key" ? "required key missing" : message
  const shown = JSON.stringify(value) ?? String(value)
  return `${message}, got ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}`
}

const failure = (file: string, problems: ReadonlyArray<Problem>) =>
  new ConfigError({
    file,
    problems,
    message: `${file}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`
  })

/**
 * Decodes the text of a configuration file; every problem is reported with
 * its JSON path.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { parse } from "./src/cli/ConfigFile.ts"
 *
 * const config = parse("mcp-runtime.json", '{ "capabilities": ["system"] }')
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (file: string, text: string): Effect.Effect<Config, ConfigError> =>
  Effect.suspend(() => {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      return Effect.fail(failure(file, [{ path: "$", message: `not valid JSON (${(error as Error).message})` }]))
    }
    return Schema.decodeUnknownEffect(ConfigFile)(json, { errors: "all", onExcessProperty: "error" }).pipe(
      Effect.mapError((error) =>
        failure(
          file,
          formatter(error.issue).issues.map((issue) => {
            const keys = (issue.path ?? []).map((p) => (typeof p === "object" ? p.key : p))
            return { path: pointer(keys), message: describe(issue.message, valueAt(json, keys)) }
          })
        )
      )
    )
  })

/**
 * Where the configuration comes from: the `--config` file (which must exist),
 * else the `MCP_RUNTIME_CONFIG` file (which must exist too), else
 * `mcp-runtime.json` in the root when there is one, else nothing.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Option from "effect/Option"
 * import { load } from "./src/cli/ConfigFile.ts"
 *
 * const config = load({ root: "/srv/project", file: Option.none() })
 * ```
 *
 * @category loading
 * @since 0.1.0
 */
export const load = Effect.fnUntraced(function* (options: {
  readonly root: string
  readonly file: string | undefined
  /** Where `MCP_RUNTIME_CONFIG` is looked up when `file` is undefined (default: `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}): Effect.fn.Return<
  {
    readonly file: string | undefined
    readonly config: Config
    /** Found in the root by its default name, rather than named by --config or MCP_RUNTIME_CONFIG. */
    readonly fromRoot: boolean
  },
  ConfigError,
  FileSystem.FileSystem | Path.Path
> {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const fromEnv = (options.env ?? process.env)[configFileVariable]?.trim()
  const given = options.file ?? (fromEnv === "" ? undefined : fromEnv)
  const explicit = given !== undefined
  const file = explicit ? path.resolve(given) : path.join(options.root, defaultFileName)
  const text = yield* fs.readFileString(file).pipe(
    Effect.map((text) => text as string | undefined),
    Effect.catch((error) =>
      !explicit && error._tag === "PlatformError" && error.reason._tag === "NotFound"
        ? Effect.succeed(undefined)
        : Effect.fail(failure(file, [{ path: "$", message: `cannot be read (${error.message})` }]))
    )
  )
  if (text === undefined) return { file: undefined, config: {}, fromRoot: false }
  return { file, config: yield* parse(file, text), fromRoot: !explicit }
})
