/**
 * Execution policies: how long a tool call may run, how many run at once, how
 * long a call may wait for a slot, how large its result may be, how often
 * progress reaches the client, and which client log messages are sent before
 * the client picks a level.
 *
 * Limits are set at four places. For each setting, the first that sets it
 * wins:
 *
 * 1. configuration, per tool (`tools["<public name>"]`);
 * 2. configuration, per capability (`capabilities["<id>"]`);
 * 3. the tool's own option (`Tool.make(name, { timeout, maxConcurrent, maxResultBytes })`);
 * 4. the capability's own option (`Capability.make({ id, …, timeout })`);
 * 5. the global default here.
 *
 * The operator's configuration always beats what the code says.
 *
 * A `tools` key is a public name (`<capability>_<name>`), a `capabilities`
 * key a capability id. A key that names nothing has no effect: the server
 * logs a warning for each such key at start-up, naming the nearest public
 * name, and {@link layerFor} makes it a type error where the tools are known
 * in code.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const PolicyLive = Policy.layer({
 *   timeout: "2 minutes",
 *   maxConcurrent: 8,
 *   tools: { exec_run: { timeout: "10 minutes", maxConcurrent: 2 } }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { LoggingLevel } from "./McpSchema.ts"

/**
 * Limits that can be set per tool and per capability.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const slowTool: Policy.Limits = { timeout: "15 minutes", maxConcurrent: 1 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  /**
   * How long one call may run once it has a slot. On expiry the handler is
   * interrupted (its finalizers run) and the call ends with a `timeout` error
   * result. `"Infinity"` disables it.
   */
  readonly timeout?: Duration.Input | undefined
  /** How many calls of this tool may run at once (per capability: per tool of it). */
  readonly maxConcurrent?: number | undefined
  /** The largest serialized `tools/call` result, in bytes. */
  readonly maxResultBytes?: number | undefined
}

/**
 * What to do with a call when no slot is free: wait in the bounded queue, or
 * fail at once with an `overloaded` error.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const failFast: Policy.OnOverload = "reject"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type OnOverload = "queue" | "reject"

/**
 * Every policy setting.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * Policy.Policy.defaultValue().maxConcurrent // => 32
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PolicyShape {
  /** Default per-call timeout (default 5 minutes). */
  readonly timeout: Duration.Input
  /** Tool calls running at once across the whole server (default 32). */
  readonly maxConcurrent: number
  /** Tool calls that may wait for a slot; one more is rejected at once (default 256). */
  readonly maxQueued: number
  /** How long a call may wait for a slot before it fails as `overloaded` (default 30 seconds). */
  readonly queueTimeout: Duration.Input
  /** `"queue"` (default) waits for a slot; `"reject"` fails at once when none is free. */
  readonly onOverload: OnOverload
  /** Default largest serialized `tools/call` result (default 1 MiB). */
  readonly maxResultBytes: number
  /**
   * The shortest time between two progress notifications of one request
   * (default 100 ms). Reports in between are coalesced; the last one is
   * always delivered before the response.
   */
  readonly progressInterval: Duration.Input
  /**
   * Client log messages below this level are not sent until the client sends
   * `logging/setLevel` (default `"info"`).
   */
  readonly clientLogLevel: LoggingLevel
  /**
   * Limits per tool, by public name (`"exec_run"`, not the bare `"run"`);
   * prompts and resources run under them too, by their public names. A key
   * that names nothing published is reported in a warning at start-up.
   */
  readonly tools: { readonly [publicName: string]: Limits }
  /**
   * Limits for every tool of a capability, by capability id (`"exec"`). A
   * key that names no capability is reported in a warning at start-up.
   */
  readonly capabilities: { readonly [id: string]: Limits }
}

/**
 * The defaults, for reference and for spreading.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * Policy.defaults.timeout // => "5 minutes"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: PolicyShape = {
  timeout: "5 minutes",
  maxConcurrent: 32,
  maxQueued: 256,
  queueTimeout: "30 seconds",
  onOverload: "queue",
  maxResultBytes: 1024 * 1024,
  progressInterval: "100 millis",
  clientLogLevel: "info",
  tools: {},
  capabilities: {}
}

/**
 * Settings that switch every limit off: no timeout, no concurrency limit, no
 * result limit, no progress coalescing. Useful to measure what the policies
 * cost, and in tests of code that must not depend on them.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const Unlimited = Policy.layer(Policy.unlimited)
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const unlimited: PolicyShape = {
  ...defaults,
  timeout: "Infinity",
  maxConcurrent: Infinity,
  maxQueued: Infinity,
  queueTimeout: "Infinity",
  maxResultBytes: Infinity,
  progressInterval: 0
}

/**
 * The policy settings, a reference with the documented defaults.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Policy } from "effect-mcp-runtime/Policy"
 *
 * const globalLimit = Effect.map(Effect.service(Policy), (policy) => policy.maxConcurrent)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const Policy = Context.Reference<PolicyShape>("effect-mcp-runtime/Policy", { defaultValue: () => defaults })

/**
 * The policy settings are unusable: `problems` lists each one, with where it
 * is (`tools.exec_run.timeout: …`).
 *
 * **Example**
 *
 * ```ts
 * import { PolicyError } from "effect-mcp-runtime/Policy"
 *
 * const error = new PolicyError({ problems: ["maxQueued: must be a whole number of at least 0, or Infinity: -1"] })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class PolicyError extends Schema.TaggedError<PolicyError>()("PolicyError", {
  problems: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return `Invalid policy settings:\n${this.problems.map((problem) => `- ${problem}`).join("\n")}`
  }
}

const durationProblem = (input: unknown): string | undefined => {
  const duration = Duration.fromInput(input as Duration.Input)
  if (duration._tag === "None") {
    return `not a duration: ${JSON.stringify(input)} (use milliseconds or e.g. "30 seconds")`
  }
  const millis = Duration.toMillis(duration.value)
  return Number.isNaN(millis) || millis < 0 ? `must not be negative: ${JSON.stringify(input)}` : undefined
}

const countProblem = (value: unknown, min: number): string | undefined =>
  value === Infinity || (typeof value === "number" && Number.isInteger(value) && value >= min)
    ? undefined
    : `must be a whole number of at least ${min}, or Infinity: ${JSON.stringify(value)}`

/**
 * What is wrong with some limits, one line per problem, each prefixed with
 * `where` (empty when all is well).
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * Policy.limitsProblems({ maxConcurrent: 0 }, "tools.exec_run")
 * // => ["tools.exec_run.maxConcurrent: must be a whole number of at least 1, or Infinity: 0"]
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const limitsProblems = (limits: Limits, where: string): Array<string> => {
  const found: Array<string> = []
  const at = (key: string, problem: string | undefined) => {
    if (problem !== undefined) found.push(`${where === "" ? "" : `${where}.`}${key}: ${problem}`)
  }
  if (limits.timeout !== undefined) at("timeout", durationProblem(limits.timeout))
  if (limits.maxConcurrent !== undefined) at("maxConcurrent", countProblem(limits.maxConcurrent, 1))
  if (limits.maxResultBytes !== undefined) at("maxResultBytes", countProblem(limits.maxResultBytes, 1))
  return found
}

/**
 * Every problem with some policy settings (empty when all is well).
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * Policy.problems(Policy.defaults) // => []
 * Policy.problems({ ...Policy.defaults, maxQueued: -1 })
 * // => ["maxQueued: must be a whole number of at least 0, or Infinity: -1"]
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const problems = (policy: PolicyShape): Array<string> => {
  const found = limitsProblems(
    { timeout: policy.timeout, maxConcurrent: policy.maxConcurrent, maxResultBytes: policy.maxResultBytes },
    ""
  )
  const at = (key: string, problem: string | undefined) => {
    if (problem !== undefined) found.push(`${key}: ${problem}`)
  }
  at("maxQueued", countProblem(policy.maxQueued, 0))
  at("queueTimeout", durationProblem(policy.queueTimeout))
  at("progressInterval", durationProblem(policy.progressInterval))
  if (policy.onOverload !== "queue" && policy.onOverload !== "reject") {
    at("onOverload", `must be "queue" or "reject": ${JSON.stringify(policy.onOverload)}`)
  }
  if (!Schema.is(LoggingLevel)(policy.clientLogLevel)) {
    at("clientLogLevel", `not a log level: ${JSON.stringify(policy.clientLogLevel)}`)
  }
  for (const [name, limits] of Object.entries(policy.tools)) found.push(...limitsProblems(limits, `tools.${name}`))
  for (const [id, limits] of Object.entries(policy.capabilities)) {
    found.push(...limitsProblems(limits, `capabilities.${id}`))
  }
  return found
}

/**
 * The settings {@link layer} takes: any of {@link PolicyShape}, each optional.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const options: Policy.Options = { maxConcurrent: 4, tools: { exec_run: { timeout: "10 minutes" } } }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Options = { readonly [K in keyof PolicyShape]?: PolicyShape[K] | undefined }

/**
 * Overrides some settings, keeping the defaults for the rest. Building the
 * layer fails with a {@link PolicyError} listing every unusable setting.
 *
 * `tools` and `capabilities` take any string here (names known only at run
 * time, a configuration file's keys); a key that names nothing published is
 * reported in a warning when the server starts. Where the tools are known in
 * code, prefer {@link layerFor}: a wrong key is a type error.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const FailFast = Policy.layer({ onOverload: "reject", maxConcurrent: 4 })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<never, PolicyError> =>
  Layer.effect(
    Policy,
    Effect.suspend(() => {
      const policy: PolicyShape = {
        ...defaults,
        ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<PolicyShape>)
      }
      const found = problems(policy)
      return found.length === 0 ? Effect.succeed(policy) : Effect.fail(new PolicyError({ problems: found }))
    })
  ) as Layer.Layer<never, PolicyError>

/**
 * What names a tool for {@link layerFor}: a declared tool (`Tool.make`, its
 * `name`) or a handled one (its `tool.name`). A declared prompt
 * (`Prompt.make`) has a `name` too: it is limited by its public name as a
 * tool is.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const declared: Policy.NamedTool = { name: "search" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type NamedTool = { readonly name: string } | { readonly tool: { readonly name: string } }

/**
 * The bare name of a {@link NamedTool}: its string literal when it has one,
 * else `string`.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * type Name = Policy.ToolName<{ readonly name: "search" }> // "search"
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type ToolName<T> = T extends { readonly tool: { readonly name: infer N extends string } }
  ? N
  : T extends { readonly name: infer N extends string }
    ? N
    : never

/**
 * The public names of the tools of some capabilities, given as capability id
 * → tools: `<id>_<name>` for each. A tool whose name is not a string literal
 * contributes `<id>_${string}` (its capability's prefix is still checked).
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * type Names = Policy.PublicName<{ notes: [{ readonly name: "search" }, { readonly name: "rebuild" }] }>
 * // "notes_search" | "notes_rebuild"
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type PublicName<Capabilities extends { readonly [id: string]: ReadonlyArray<NamedTool> }> = {
  readonly [Id in keyof Capabilities & string]: `${Id}_${ToolName<Capabilities[Id][number]>}`
}[keyof Capabilities & string]

/**
 * The settings {@link layerFor} takes: as {@link Options}, with `tools` keyed
 * by the known public names and `capabilities` by the known ids. Run-time
 * names (`app_…`, capability `app`) are accepted too: they are not known in
 * code.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const options: Policy.TypedOptions<"notes_search", "notes"> = { tools: { notes_search: { timeout: "1 minute" } } }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type TypedOptions<Name extends string, Id extends string> = Omit<Options, "tools" | "capabilities"> & {
  readonly tools?: { readonly [K in Name | `app_${string}`]?: Limits } | undefined
  readonly capabilities?: { readonly [K in Id | "app"]?: Limits } | undefined
}

/**
 * {@link layer} with the names checked by the compiler: given the
 * capabilities as id → tools (the same tools given to `Capability.make`),
 * it returns a `layer` whose `tools` keys must be their public names
 * (`notes_search`, not the bare `search`) and whose `capabilities` keys must
 * be their ids. The recommended form wherever the tools are known in code;
 * {@link layer} remains for names known only at run time.
 *
 * Declared tools (`Tool.make`) carry their name as a string literal; a tool
 * typed with a plain `string` name is checked by its capability prefix
 * only. A tool the kernel publishes under an alias (`Kernel.Options.aliases`)
 * needs {@link layer}.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const search = Tool.make("search", { description: "Searches the notes." })
 * const rebuild = Tool.make("rebuild", { description: "Rebuilds the index." })
 *
 * const PolicyLive = Policy.layerFor({ notes: [search, rebuild] })({
 *   tools: { notes_rebuild: { timeout: "10 minutes", maxConcurrent: 1 } },
 *   capabilities: { notes: { timeout: "1 minute" } }
 * })
 * // Policy.layerFor({ notes: [search, rebuild] })({ tools: { rebuild: {} } }) does not compile
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layerFor =
  <const Capabilities extends { readonly [id: string]: ReadonlyArray<NamedTool> }>(_capabilities: Capabilities) =>
  (options: TypedOptions<PublicName<Capabilities>, keyof Capabilities & string>): Layer.Layer<never, PolicyError> =>
    // The keys were checked above; the shape is the same.
    layer(options as Options)

/**
 * Where a limit in force came from, as named in error messages.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const source: Policy.Source = "configuration for the tool"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Source =
  | "configuration for the tool"
  | "configuration for the capability"
  | "the tool's own limit"
  | "the capability's own limit"
  | "the server default"

/**
 * A limit in force and where it came from.
 *
 * **Example**
 *
 * ```ts
 * import type * as Policy from "effect-mcp-runtime/Policy"
 *
 * const limit: Policy.Resolved<number> = { value: 4, source: "the tool's own limit" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Resolved<A> {
  readonly value: A
  readonly source: Source
}

/**
 * The limits in force for one tool.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const limits = Policy.resolve(Policy.defaults, { name: "exec_run", capability: "exec" })
 * limits.timeoutMs.value // => 300000
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolLimits {
  /** Milliseconds; `Infinity` when there is none. */
  readonly timeoutMs: Resolved<number>
  /** `Infinity` when there is none. */
  readonly maxConcurrent: Resolved<number>
  readonly maxResultBytes: Resolved<number>
}

const toMillis = (input: Duration.Input): number => {
  const duration = Duration.fromInputUnsafe(input)
  return Duration.isFinite(duration) ? Duration.toMillis(duration) : Infinity
}

/**
 * Milliseconds of a duration setting (`Infinity` for an infinite one).
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * Policy.millis("30 seconds") // => 30000
 * Policy.millis("Infinity") // => Infinity
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const millis: (input: Duration.Input) => number = toMillis

/**
 * Resolves the limits in force for a tool, following the precedence in the
 * module documentation.
 *
 * **Example**
 *
 * ```ts
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const policy: Policy.PolicyShape = { ...Policy.defaults, capabilities: { exec: { timeout: "1 minute" } } }
 * const limits = Policy.resolve(policy, { name: "exec_run", capability: "exec", own: { timeout: "10 minutes" } })
 * limits.timeoutMs // => { value: 60000, source: "configuration for the capability" }
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const resolve = (
  policy: PolicyShape,
  tool: {
    readonly name: string
    readonly capability: string
    readonly own?: Limits | undefined
    readonly capabilityOwn?: Limits | undefined
  }
): ToolLimits => {
  const layers: ReadonlyArray<readonly [Limits | undefined, Source]> = [
    [policy.tools[tool.name], "configuration for the tool"],
    [policy.capabilities[tool.capability], "configuration for the capability"],
    [tool.own, "the tool's own limit"],
    [tool.capabilityOwn, "the capability's own limit"]
  ]
  const pick = <K extends keyof Limits>(key: K, fallback: NonNullable<Limits[K]>): Resolved<NonNullable<Limits[K]>> => {
    for (const [limits, source] of layers) {
      const value = limits?.[key]
      if (value !== undefined) return { value: value as NonNullable<Limits[K]>, source }
    }
    return { value: fallback, source: "the server default" }
  }
  const timeout = pick("timeout", policy.timeout)
  return {
    timeoutMs: { value: toMillis(timeout.value), source: timeout.source },
    maxConcurrent: pick("maxConcurrent", Infinity),
    maxResultBytes: pick("maxResultBytes", policy.maxResultBytes)
  }
}
