/**
 * Upstream servers: other MCP servers mounted under a prefix. Each
 * configured upstream becomes a capability whose id is the upstream's key:
 * the server connects to it with the official SDK's `Client` (a process
 * started over stdio, or a Streamable HTTP endpoint), lists its tools,
 * prompts, resources and resource templates, and publishes each as
 * `<id>_<name>`, forwarding calls, `prompts/get`, `resources/read` and
 * completions to it. They are ordinary kernel entries, so the gate,
 * confirmation, execution policies, the audit log and spans apply to them as
 * to local tools.
 *
 * A cancelled or timed-out call is cancelled upstream
 * (`notifications/cancelled`); the upstream's progress is relayed to the
 * caller; the upstream's `list_changed` notifications re-list it and the
 * server's own `list_changed` go out. An error the upstream answers is that
 * request's error, and the connection is kept; a connection that closed (or
 * a request of the server's own that timed out, or an HTTP session the
 * endpoint no longer knows) is lost: the upstream is reconnected with
 * exponential backoff (250 ms doubling to 30 s, on the Effect `Clock`), its
 * tools meanwhile answering an error result that names it. At startup the
 * server waits (at most `startupTimeoutMs`, all upstreams at once) for each
 * upstream's first connection; one that does not come starts without its
 * tools, which are published once it connects. At shutdown, the upstreams
 * are closed all at once.
 *
 * See `docs/capabilities/upstream.md`.
 *
 * @since 0.3.0
 */
import type { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type {
  Progress as SdkProgress,
  Prompt as UpstreamPrompt,
  ReadResourceResult,
  Resource as UpstreamResource,
  ResourceTemplate as UpstreamTemplate,
  ServerCapabilities,
  Tool as UpstreamTool
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import {
  type CapabilityInfo,
  InvalidCapabilityId,
  Kernel,
  type KernelError,
  ReservedCapabilityId
} from "../../src/Kernel.ts"
import { type CallToolResult, errorMetaKey } from "../../src/McpSchema.ts"
import { Progress } from "../../src/Progress.ts"
import * as Resource from "../../src/Resource.ts"
import { packageVersion } from "../../src/ServerConfig.ts"
import { UpstreamError, UpstreamIdTaken } from "./errors.ts"
import { type CompileOutput, emptyLists, type Forward, type Lists, type ToolCall, toContents } from "./mapping.ts"
import { defaultReconnect, defaultStartupTimeoutMs, describeUpstream, type UpstreamSettings } from "./settings.ts"

/**
 * An upstream given in code rather than in the configuration file: a
 * function that makes an SDK transport for each connection (an in-memory
 * pair, a custom transport), and a label that says what it is.
 *
 * **Example**
 *
 * ```ts
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
 * import type { TransportUpstream } from "./capabilities/upstream/index.ts"
 *
 * declare const connectServer: (transport: InMemoryTransport) => void
 * const inProcess: TransportUpstream = {
 *   label: "in-process",
 *   transport: () => {
 *     const [client, server] = InMemoryTransport.createLinkedPair()
 *     connectServer(server)
 *     return client
 *   }
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface TransportUpstream extends Omit<
  UpstreamSettings,
  "command" | "args" | "env" | "cwd" | "url" | "headers"
> {
  readonly transport: () => SdkTransport
  readonly label: string
}

/**
 * One upstream: an entry of the configuration file's `upstreams` (with its
 * `cwd` resolved and its `${NAME}` variables expanded), or a
 * {@link TransportUpstream}.
 *
 * **Example**
 *
 * ```ts
 * import type { UpstreamSpec } from "./capabilities/upstream/index.ts"
 *
 * const docs: UpstreamSpec = { url: "http://127.0.0.1:3000/mcp", startupTimeoutMs: 5000 }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export type UpstreamSpec = UpstreamSettings | TransportUpstream

/**
 * How an upstream is doing, as `doctor` shows it.
 *
 * **Example**
 *
 * ```ts
 * import type { UpstreamStatus } from "./capabilities/upstream/index.ts"
 *
 * const status: UpstreamStatus = {
 *   id: "docs",
 *   transport: "http http://127.0.0.1:3000/mcp",
 *   state: "failed",
 *   reason: "fetch failed",
 *   restarts: 0,
 *   pid: undefined,
 *   server: undefined,
 *   tools: [],
 *   problems: []
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface UpstreamStatus {
  readonly id: string
  /**
   * `stdio <command> <args…>`, `http <url>` (secrets redacted, see
   * {@link describeTransport}), or the label of a {@link TransportUpstream}.
   */
  readonly transport: string
  /** `connected`; `connecting` (a first attempt under way); `failed` (not connected, retrying with backoff). */
  readonly state: "connecting" | "connected" | "failed"
  /** Why it is not connected (the last failure), when it is not. */
  readonly reason: string | undefined
  /** How many times it was connected again after a loss or a failed start. */
  readonly restarts: number
  /** The process of a stdio upstream, while connected. */
  readonly pid: number | undefined
  /** The upstream's `serverInfo`, once connected. */
  readonly server: { readonly name: string; readonly version: string } | undefined
  /** The public names of its tools now published. */
  readonly tools: ReadonlyArray<string>
  /** What it listed that could not be published, and why (one line each). */
  readonly problems: ReadonlyArray<string>
}

/**
 * The upstreams of the server, for status reports.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Upstreams } from "./capabilities/upstream/index.ts"
 *
 * const states = Effect.map(Effect.service(Upstreams), (upstreams) =>
 *   upstreams.status().map((status) => `${status.id}: ${status.state}`)
 * )
 * ```
 *
 * @category services
 * @since 0.3.0
 */
export class Upstreams extends Context.Service<
  Upstreams,
  {
    /** Each upstream's status, in configuration order. */
    readonly status: () => ReadonlyArray<UpstreamStatus>
  }
>()("effect-mcp-runtime/capabilities/upstream/Upstreams") {}

/**
 * Where an upstream is reached, in a word and its target: `stdio node
 * server.js`, `http http://…`, or a transport's label. What logs, status and
 * `doctor` show, so likely secrets are redacted: a URL's user information
 * and query values, the value of an argument after a flag such as `--token`
 * or `--api-key`, a `NAME=value` argument whose name says it is a secret.
 *
 * **Example**
 *
 * ```ts
 * import { describeTransport } from "./capabilities/upstream/index.ts"
 *
 * describeTransport({ command: "node", args: ["server.js"] }) // => "stdio node server.js"
 * describeTransport({ command: "node", args: ["server.js", "--token", "abc"] }) // => "stdio node server.js --token ***"
 * describeTransport({ url: "https://me:pw@docs.example.com/mcp?key=abc" }) // => "http https://***@docs.example.com/mcp?key=***"
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export const describeTransport = (spec: UpstreamSpec): string =>
  "transport" in spec ? spec.label : describeUpstream(spec)

const idPattern = /^[a-z][a-z0-9_]*$/

// Requests to the upstream are bounded by the server's own policy (the
// call's timeout and cancellation), not by the SDK's 60 s default.
const noTimeout = 2_147_483_647

const notConnectedSuggestion = "Retry in a few seconds, or call other tools."

type Sdk = Awaited<ReturnType<typeof loadSdk>>

// Loaded when the first upstream is built: a server without upstreams never loads the SDK client.
const loadSdk = async () => {
  const [client, stdio, http, types, ajv] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/validation/ajv")
  ])
  return {
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    http,
    types,
    AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator
  }
}

const messageOf = (error: unknown): string => {
  if (error instanceof Error) {
    return error.message
      .replace(/^(?:MCP error -?\d+: )+/, "")
      .replace(/^Streamable HTTP error: Error POSTing to endpoint: /, "")
  }
  return String(error)
}

type ListChange = "tools" | "prompts" | "resources"

/** One live connection to an upstream. */
interface Connection {
  readonly client: SdkClient
  readonly capabilities: ServerCapabilities
  /** Completed with the reason once the connection is gone. */
  readonly lost: Deferred.Deferred<string>
  /** Ends the connection (the first reason is kept). */
  readonly lose: (reason: string) => void
  /** Why it was lost, once it was. */
  readonly lostBecause: () => string | undefined
  /** The upstream's list_changed notifications. */
  readonly changed: Queue.Queue<ListChange>
  readonly pid: number | undefined
  readonly server: { readonly name: string; readonly version: string } | undefined
}

const pageLimit = 1000

// The network errors of a request that never reached the endpoint.
const unreachable = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"])

const networkCode = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const cause = (error as { cause?: { code?: unknown; errors?: ReadonlyArray<{ code?: unknown }> } }).cause
  const code = cause?.code ?? cause?.errors?.[0]?.code
  return typeof code === "string" ? code : undefined
}

/**
 * How a request to an upstream failed:
 * - `Answer`: the upstream answered it with an error (a JSON-RPC error, or an
 *   HTTP status other than 404): that request's error, the connection is kept;
 * - `Malformed`: it answered something that is not a valid result;
 * - `Lost`: the connection is gone (it closed, a timeout of the server's own
 *   ran out, the HTTP session is unknown, the endpoint is unreachable).
 *   `sent`: whether the request may have reached the upstream (then it may
 *   have run); a request that never left, or that an HTTP endpoint refused
 *   with 404, did not run.
 */
type Failure =
  | { readonly _tag: "Answer"; readonly code: number | undefined; readonly http: number | undefined }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Lost"; readonly sent: boolean }

/** A structured result that does not match the tool's outputSchema (checked here, as the SDK client would). */
class OutputMismatch extends Error {
  override readonly name = "OutputMismatch"
}

// Items of a paginated list, checked one by one against the SDK's schema of an entry.
interface LooseList {
  readonly method: "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list"
  readonly key: "tools" | "prompts" | "resources" | "resourceTemplates"
  /** How a problem names the entry (`tool "x"`, `resource <uri>`). */
  readonly name: (entry: any, index: number) => string
  /** A clearer reason than the schema's for a known mistake. */
  readonly why?: (entry: any) => string | undefined
  /** An upstream that does not know the method (−32601) lists nothing (templates: some servers have none). */
  readonly optional?: boolean
}

const quoted = (kind: string) => (entry: any, index: number) =>
  `${kind} ${typeof entry?.name === "string" ? JSON.stringify(entry.name) : `#${index + 1} of the list`}`

const looseLists = {
  tools: {
    method: "tools/list",
    key: "tools",
    name: quoted("tool"),
    why: (entry) =>
      typeof entry?.inputSchema !== "object" || entry.inputSchema === null || entry.inputSchema.type !== "object"
        ? "its inputSchema does not describe an object"
        : entry.outputSchema !== undefined &&
            (typeof entry.outputSchema !== "object" ||
              entry.outputSchema === null ||
              entry.outputSchema.type !== "object")
          ? "its outputSchema does not describe an object"
          : undefined
  },
  prompts: { method: "prompts/list", key: "prompts", name: quoted("prompt") },
  resources: {
    method: "resources/list",
    key: "resources",
    name: (entry, index) => `resource ${typeof entry?.uri === "string" ? entry.uri : `#${index + 1} of the list`}`
  },
  templates: {
    method: "resources/templates/list",
    key: "resourceTemplates",
    optional: true,
    name: (entry, index) =>
      `resource template ${typeof entry?.uriTemplate === "string" ? entry.uriTemplate : `#${index + 1} of the list`}`
  }
} satisfies Record<string, LooseList>

const issuesOf = (error: unknown): string => {
  const issues = (error as { issues?: ReadonlyArray<{ path?: ReadonlyArray<PropertyKey>; message?: string }> }).issues
  if (!Array.isArray(issues) || issues.length === 0) return messageOf(error)
  const shown = issues
    .slice(0, 3)
    .map((issue) => `${(issue.path ?? []).map(String).join(".") || "the entry"}: ${issue.message ?? "invalid"}`)
  return `${shown.join("; ")}${issues.length > 3 ? `; and ${issues.length - 3} more` : ""}`
}

/**
 * The upstream servers as capabilities, and the {@link Upstreams} service
 * that reports on them. Fails with the kernel's `InvalidCapabilityId` or
 * `ReservedCapabilityId` for an id it cannot use, with
 * {@link UpstreamIdTaken} for an id in `reservedIds` (the bundled
 * capabilities') or already registered, and, when an upstream connected at
 * startup, with the kernel's error for a public name or URI scheme that
 * another capability has (`DuplicateName`, `SchemeTaken`, `InvalidAlias`).
 * Any other entry the kernel refuses (a schema it cannot compile…) is a
 * problem of that upstream, logged and shown by `doctor`, as after startup.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Upstream from "./capabilities/upstream/index.ts"
 *
 * const Upstreams = Upstream.layer({
 *   everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
 *   docs: { url: "http://127.0.0.1:3000/mcp" }
 * }).pipe(Layer.provide(Kernel.layer()))
 * ```
 *
 * @category layers
 * @since 0.3.0
 */
export const layer = (
  upstreams: Readonly<Record<string, UpstreamSpec>>,
  options: {
    /** Ids an upstream may not take (the bundled capabilities'). */
    readonly reservedIds?: ReadonlyArray<string> | undefined
    /**
     * Variables added to the environment of every stdio upstream, over its
     * own `env` (the server's `MCP_RUNTIME_UPSTREAM_DEPTH`: an upstream's
     * `env` cannot reset it).
     */
    readonly env?: Readonly<Record<string, string>> | undefined
  } = {}
): Layer.Layer<Upstreams, KernelError | UpstreamIdTaken, Kernel> =>
  Layer.effect(
    Upstreams,
    Effect.gen(function* () {
      const kernel = yield* Kernel
      const entries = Object.entries(upstreams)
      const reserved = new Set([...(options.reservedIds ?? []), ...kernel.capabilities().map((c) => c.id)])
      // Ids first: a bad one stops the start before any upstream is started.
      for (const [id] of entries) {
        if (id === "app") return yield* new ReservedCapabilityId({ id })
        if (!idPattern.test(id)) return yield* new InvalidCapabilityId({ id })
        if (reserved.has(id)) return yield* new UpstreamIdTaken({ id })
      }
      if (entries.length === 0) return Upstreams.of({ status: () => [] })
      const sdk = yield* Effect.promise(loadSdk)
      // The supervisors are interrupted together at shutdown: closing a stdio upstream may take 4 s (the SDK's
      // SIGTERM, then SIGKILL), and one after the other that would add up.
      const supervisors = yield* Scope.fork(yield* Effect.scope, "parallel")
      const hosts = yield* Effect.forEach(
        entries,
        ([id, spec]) => host(id, spec, sdk, options.env ?? {}, supervisors),
        { concurrency: "unbounded" }
      )
      return Upstreams.of({ status: () => hosts.map((status) => status()) })
    })
  )

// The kernel's refusals that stop the start when an upstream connected at startup: its entries collide with
// another capability's. The others (a schema the kernel cannot compile…) are problems of the upstream.
const collisions = new Set(["DuplicateName", "SchemeTaken", "InvalidAlias"])

// One upstream: its supervisor (connect, list, serve, reconnect) in `supervisors`, its first
// registration (static, so a collision stops the start), and its status.
const host = Effect.fnUntraced(function* (
  id: string,
  spec: UpstreamSpec,
  sdk: Sdk,
  env: Readonly<Record<string, string>>,
  supervisors: Scope.Scope
) {
  const kernel = yield* Kernel
  const context = (yield* Effect.context<never>()) as Context.Context<any>
  const runFork = Effect.runForkWith(context)
  const label = describeTransport(spec)
  const startupTimeoutMs = spec.startupTimeoutMs ?? defaultStartupTimeoutMs
  const initialDelayMs = spec.reconnect?.initialDelayMs ?? defaultReconnect.initialDelayMs
  const maxDelayMs = Math.max(initialDelayMs, spec.reconnect?.maxDelayMs ?? defaultReconnect.maxDelayMs)
  const annotate = Effect.annotateLogs({ upstream: id })

  let state: UpstreamStatus["state"] = "connecting"
  let reason: string | undefined
  let restarts = 0
  let attempted = false
  let problems: ReadonlyArray<string> = []
  let current: Connection | undefined
  let lists: Lists = emptyLists
  // The tools' outputSchemas, compiled for each listing with a validator of their own (the SDK's Ajv settings), so
  // that an `$id` of one listing's schema cannot clash with another's.
  const compileOutput = (): CompileOutput => {
    const validator = new sdk.AjvJsonSchemaValidator()
    return (schema) => {
      const check = validator.getValidator(schema as never)
      return (value) => {
        const result = check(value)
        return result.valid ? undefined : (result.errorMessage ?? "it does not match")
      }
    }
  }
  // The outcome of the first attempt (the lists, or none), and the static registration done.
  const initial = yield* Deferred.make<{ readonly lists: Lists; readonly capabilities: ServerCapabilities }>()
  const registered = yield* Deferred.make<void>()

  const notConnected = (): CallToolResult => ({
    content: [
      {
        type: "text",
        text:
          `The upstream server ${id} is not connected (${reason ?? "it has not connected yet"}); ` +
          `it is being restarted — retry in a few seconds, or call other tools.`
      }
    ],
    isError: true,
    _meta: { [errorMetaKey]: { code: "upstream_unavailable", suggestion: notConnectedSuggestion } }
  })

  // A call that may have reached the upstream before the connection was lost: it may have run.
  const lostDuring = (name: string, why: string, retrySafe: boolean): CallToolResult => ({
    content: [
      {
        type: "text",
        text:
          `The connection to the upstream server ${id} was lost while it ran ${name} (${why}), so whether the call ` +
          `took effect is unknown; the upstream is being restarted.`
      }
    ],
    isError: true,
    _meta: {
      [errorMetaKey]: {
        code: "upstream_lost",
        suggestion: retrySafe
          ? `${name} is annotated read-only or idempotent: retry it in a few seconds.`
          : `Check whether the call took effect (with a read-only tool of ${id}, for example) before calling it again.`
      }
    }
  })

  // Timeouts the server set itself (a completion's): the upstream did not answer in time, its connection is lost.
  const ownTimeouts = new WeakSet<object>()

  const classify = (conn: Connection, error: unknown): Failure => {
    if (typeof error === "object" && error !== null && ownTimeouts.has(error)) return { _tag: "Lost", sent: true }
    if (error instanceof sdk.http.StreamableHTTPError) {
      const status = (error as { code?: number }).code
      // 404: the endpoint no longer knows the session (it did not run the request); -1: not a JSON or SSE answer.
      if (status === 404) return { _tag: "Lost", sent: false }
      if (status === -1) return { _tag: "Malformed" }
      return { _tag: "Answer", code: undefined, http: status }
    }
    if (error instanceof sdk.types.McpError) {
      // The SDK rejects what is in flight with ConnectionClosed (−32000) once the connection closed; an upstream
      // may answer −32000 itself (a generic server error), which is an answer.
      if (error.code === sdk.types.ErrorCode.ConnectionClosed && conn.lostBecause() !== undefined) {
        return { _tag: "Lost", sent: true }
      }
      return { _tag: "Answer", code: error.code, http: undefined }
    }
    if (error instanceof OutputMismatch || (error instanceof Error && /ZodError/.test(error.name))) {
      return { _tag: "Malformed" }
    }
    // The SDK's "Not connected" (the transport was gone before the request left), or an endpoint not reached.
    if (error instanceof Error && error.message === "Not connected") return { _tag: "Lost", sent: false }
    const code = networkCode(error)
    return { _tag: "Lost", sent: code === undefined || !unreachable.has(code) }
  }

  // What the client is told of a request the upstream answered without a result.
  const answered = (what: string, failure: Failure, error: unknown): string =>
    failure._tag === "Answer"
      ? failure.http !== undefined
        ? `The upstream server ${id} answered ${what} with HTTP ${failure.http}: ${messageOf(error)}`
        : `The upstream server ${id} answered ${what} with error ${failure.code}: ${messageOf(error)}`
      : `The upstream server ${id} answered ${what} with something that is not a valid result: ${messageOf(error)}`

  // Checks a result as the SDK client's callTool does, against the outputSchema compiled when it was listed.
  const checkOutput = (name: string, result: CallToolResult, output: ToolCall["output"]): string | undefined => {
    if (output === undefined) return undefined
    if (result.structuredContent === undefined) {
      return result.isError === true
        ? undefined
        : `Tool ${name} has an output schema but did not return structured content`
    }
    const mismatch = output(result.structuredContent)
    return mismatch === undefined
      ? undefined
      : `Structured content does not match the tool's output schema: ${mismatch}`
  }

  const callTool: Forward["callTool"] = (name, args, tool) =>
    Effect.gen(function* () {
      const conn = current
      if (conn === undefined) return notConnected()
      // Lost a moment ago (the supervisor has not noticed yet): the call is not sent.
      if (conn.lostBecause() !== undefined) {
        reason = conn.lostBecause()
        return notConnected()
      }
      const progress = yield* Progress
      const updates = progress.enabled ? yield* Queue.unbounded<SdkProgress, Cause.Done>() : undefined
      const relay =
        updates === undefined
          ? undefined
          : yield* Effect.forkChild(
              Effect.forever(Effect.flatMap(Queue.take(updates), (update) => progress.report(update))).pipe(
                Effect.ignore
              )
            )
      const outcome = yield* Effect.tryPromise({
        try: async (signal) => {
          // `request`, not `callTool`: the SDK client would check the result against validators it caches from its
          // own listTools (which the server does not call: it lists loosely, page by page).
          const result = (await conn.client.request(
            { method: "tools/call", params: { name, arguments: args } },
            sdk.types.CallToolResultSchema,
            {
              signal,
              timeout: noTimeout,
              resetTimeoutOnProgress: true,
              ...(updates === undefined
                ? {}
                : {
                    onprogress: (update: SdkProgress) => {
                      Queue.offerUnsafe(updates, update)
                    }
                  })
            }
          )) as unknown as CallToolResult
          const mismatch = checkOutput(name, result, tool.output)
          if (mismatch !== undefined) throw new OutputMismatch(mismatch)
          return result
        },
        catch: (error) => error
      }).pipe(Effect.result)
      if (updates !== undefined && relay !== undefined) {
        // The updates that came before the result go out before it.
        Queue.endUnsafe(updates)
        yield* Fiber.join(relay)
      }
      if (outcome._tag === "Success") return outcome.success
      const error = outcome.failure
      const failure = classify(conn, error)
      if (failure._tag === "Lost") {
        conn.lose(messageOf(error))
        const why = conn.lostBecause() ?? messageOf(error)
        if (!failure.sent) {
          reason = why
          return notConnected()
        }
        return lostDuring(name, why, tool.retrySafe)
      }
      return {
        content: [{ type: "text", text: answered(`the call of ${name}`, failure, error) }],
        isError: true,
        _meta: {
          [errorMetaKey]: {
            code: "upstream_error",
            suggestion:
              failure._tag === "Answer" && failure.http !== undefined
                ? `The upstream's endpoint answered this request with an HTTP error; retry later, or call other tools.`
                : `Check the arguments against the tool's inputSchema (tools/list), then retry.`
          }
        }
      } satisfies CallToolResult
    })

  // A request other than a tool call (reads, all): a typed failure when it gets no result. `timeoutMs`: a time
  // limit of the server's own (the policy's timeout bounds the others).
  const request = <A>(
    what: string,
    run: (conn: Connection, signal: AbortSignal) => Promise<A>,
    timeoutMs?: number
  ): Effect.Effect<A, UpstreamError> =>
    Effect.suspend(() => {
      const conn = current
      if (conn !== undefined && conn.lostBecause() !== undefined) reason = conn.lostBecause()
      if (conn === undefined || conn.lostBecause() !== undefined) {
        return Effect.fail(
          new UpstreamError({
            upstream: id,
            message:
              `The upstream server ${id} is not connected (${reason ?? "it has not connected yet"}); ` +
              `it is being restarted — retry in a few seconds.`
          })
        )
      }
      return Effect.tryPromise({
        try: (signal) => {
          if (timeoutMs === undefined) return run(conn, signal)
          // The SDK rejects the request with the abort's reason: this very error, known as the server's own.
          const timedOut = new sdk.types.McpError(
            sdk.types.ErrorCode.RequestTimeout,
            `it did not answer ${what} within ${timeoutMs} ms`
          )
          ownTimeouts.add(timedOut)
          const controller = new AbortController()
          const timer = setTimeout(() => controller.abort(timedOut), timeoutMs)
          signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true })
          return run(conn, controller.signal).finally(() => clearTimeout(timer))
        },
        catch: (error) => {
          const failure = classify(conn, error)
          if (failure._tag === "Lost") {
            conn.lose(messageOf(error))
            const why = conn.lostBecause() ?? messageOf(error)
            return new UpstreamError({
              upstream: id,
              message: failure.sent
                ? `The connection to the upstream server ${id} was lost during ${what} (${why}); ` +
                  `it is being restarted — retry in a few seconds.`
                : `The upstream server ${id} is not connected (${why}); it is being restarted — retry in a few seconds.`
            })
          }
          return new UpstreamError({
            upstream: id,
            message: answered(what, failure, error),
            ...(failure._tag === "Answer" && failure.code !== undefined ? { code: failure.code } : {})
          })
        }
      })
    })

  const forwardFor = (capabilities: ServerCapabilities): Forward => ({
    callTool,
    getPrompt: (name, args) =>
      Effect.map(
        request(`prompts/get for ${name}`, (conn, signal) =>
          conn.client.getPrompt({ name, arguments: args }, { signal, timeout: noTimeout })
        ),
        (result) => ({
          ...(result.description === undefined ? {} : { description: result.description }),
          messages: result.messages as any
        })
      ),
    readResource: (uri) =>
      request<ReadResourceResult>(`resources/read for ${uri}`, (conn, signal) =>
        conn.client.readResource({ uri }, { signal, timeout: noTimeout })
      ).pipe(
        Effect.map((result) =>
          result.contents.map((item): Resource.Item =>
            "text" in item && typeof item.text === "string"
              ? { uri: item.uri, mimeType: item.mimeType, text: item.text }
              : { uri: item.uri, mimeType: item.mimeType, blob: (item as { blob: string }).blob }
          )
        ),
        Effect.catchTag("UpstreamError", (error): Effect.Effect<never, UpstreamError | Resource.NotFound> =>
          error.code === -32002 ? Effect.fail(new Resource.NotFound({ message: error.message })) : Effect.fail(error)
        )
      ),
    complete:
      capabilities.completions === undefined
        ? undefined
        : (ref, argument, context) =>
            request(
              "completion/complete",
              (conn, signal) => conn.client.complete({ ref, argument, context }, { signal, timeout: noTimeout }),
              startupTimeoutMs
            ).pipe(
              Effect.map((result) => result.completion.values),
              Effect.orElseSucceed(() => [])
            )
  })

  // What could not be published, logged when it differs from what was logged last.
  let logged = ""
  const report = (found: ReadonlyArray<string>) => {
    problems = found
    const text = found.join("; ")
    if (text === logged) return Effect.void
    logged = text
    return found.length === 0
      ? Effect.void
      : Effect.logWarning(
          `upstream ${id}: ${found.length} entr${found.length === 1 ? "y" : "ies"} not published: ${text}`
        )
  }

  // Publishes what the upstream lists now, in place of what it listed before (after the static registration);
  // nothing to do when that is what is published already (a reconnection to the same server).
  let published = ""
  const publish = (listed: Lists, capabilities: ServerCapabilities) =>
    Effect.gen(function* () {
      lists = listed
      const fingerprint = JSON.stringify([listed, capabilities.completions !== undefined])
      if (fingerprint === published) return
      published = fingerprint
      const contents = toContents(id, listed, forwardFor(capabilities), compileOutput())
      const refused = yield* kernel.replaceCapability(id, contents, context).pipe(Effect.orDie)
      yield* report([...contents.problems, ...refused.map((error) => error.message)])
    })

  // Every page of one list, loosely: the SDK's listTools would reject the whole listing for one entry it does not
  // accept (and cache output validators of the last page only); here each entry is checked on its own, and one
  // that is not a valid definition is a problem of its own.
  const listLoosely = <A>(
    conn: Connection,
    list: LooseList,
    schema: { readonly safeParse: (value: unknown) => { success: boolean; data?: A; error?: unknown } }
  ): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly problems: ReadonlyArray<string> }, string> =>
    Effect.tryPromise({
      try: async (signal) => {
        const items: Array<A> = []
        const problems: Array<string> = []
        let cursor: string | undefined
        for (let page = 0; page < pageLimit; page++) {
          const result: Record<string, unknown> = await conn.client
            .request(
              { method: list.method, ...(cursor === undefined ? {} : { params: { cursor } }) } as never,
              sdk.types.PaginatedResultSchema,
              { signal, timeout: startupTimeoutMs }
            )
            .catch((error: unknown) => {
              if (
                list.optional === true &&
                page === 0 &&
                error instanceof sdk.types.McpError &&
                error.code === sdk.types.ErrorCode.MethodNotFound
              ) {
                return { [list.key]: [] }
              }
              throw error
            })
          const entries = result[list.key]
          if (!Array.isArray(entries)) throw new Error(`its ${list.method} result has no ${list.key} array`)
          entries.forEach((entry, index) => {
            const parsed = schema.safeParse(entry)
            if (parsed.success) items.push(parsed.data as A)
            else
              problems.push(
                `${list.name(entry, index)}: ${list.why?.(entry) ?? `not valid (${issuesOf(parsed.error)})`}`
              )
          })
          cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined
          if (cursor === undefined) break
        }
        return { items, problems }
      },
      catch: messageOf
    })

  const listKind = (conn: Connection, kind: ListChange): Effect.Effect<Partial<Lists>, string> => {
    const caps = conn.capabilities
    switch (kind) {
      case "tools":
        return caps.tools === undefined
          ? Effect.succeed({ tools: [], toolProblems: [] })
          : Effect.map(listLoosely<UpstreamTool>(conn, looseLists.tools, sdk.types.ToolSchema), (listed) => ({
              tools: listed.items,
              toolProblems: listed.problems
            }))
      case "prompts":
        return caps.prompts === undefined
          ? Effect.succeed({ prompts: [], promptProblems: [] })
          : Effect.map(listLoosely<UpstreamPrompt>(conn, looseLists.prompts, sdk.types.PromptSchema), (listed) => ({
              prompts: listed.items,
              promptProblems: listed.problems
            }))
      case "resources":
        return caps.resources === undefined
          ? Effect.succeed({ resources: [], templates: [], resourceProblems: [] })
          : Effect.zipWith(
              listLoosely<UpstreamResource>(conn, looseLists.resources, sdk.types.ResourceSchema),
              listLoosely<UpstreamTemplate>(conn, looseLists.templates, sdk.types.ResourceTemplateSchema),
              (resources, templates) => ({
                resources: resources.items,
                templates: templates.items,
                resourceProblems: [...resources.problems, ...templates.problems]
              }),
              { concurrent: true }
            )
    }
  }

  const listAll = (conn: Connection): Effect.Effect<Lists, string> =>
    Effect.map(
      Effect.all([listKind(conn, "tools"), listKind(conn, "prompts"), listKind(conn, "resources")], {
        concurrency: "unbounded"
      }),
      (parts): Lists => ({ ...emptyLists, ...parts[0], ...parts[1], ...parts[2] })
    )

  const transportOf = (stderrLine: (line: string) => void): { transport: SdkTransport; pid: () => number | null } => {
    if ("transport" in spec) return { transport: spec.transport(), pid: () => null }
    if (spec.command !== undefined) {
      const transport = new sdk.StdioClientTransport({
        command: spec.command,
        args: [...(spec.args ?? [])],
        // The server's own variables (MCP_RUNTIME_UPSTREAM_DEPTH) win over the entry's: the guard against a server
        // that is its own upstream cannot be reset from the configuration.
        env: { ...spec.env, ...env },
        ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
        // stdout is our protocol wire: the upstream's stderr goes to our log, never to stdout.
        stderr: "pipe"
      })
      let tail = ""
      transport.stderr?.on("data", (chunk: Buffer) => {
        const parts = (tail + chunk.toString("utf8")).split("\n")
        tail = parts.pop() ?? ""
        if (tail.length > 65_536) tail = ""
        for (const line of parts) if (line.trim() !== "") stderrLine(line)
      })
      return { transport, pid: () => transport.pid }
    }
    const transport = new sdk.http.StreamableHTTPClientTransport(new URL(spec.url!), {
      ...(spec.headers === undefined ? {} : { requestInit: { headers: { ...spec.headers } } })
    })
    return { transport, pid: () => null }
  }

  // Connects (the client is closed, and a stdio upstream's process ended, when the scope closes).
  const connect = Effect.gen(function* () {
    const lost = yield* Deferred.make<string>()
    let lostBecause: string | undefined
    const lose = (why: string) => {
      if (lostBecause !== undefined) return
      lostBecause = why
      Deferred.doneUnsafe(lost, Effect.succeed(why))
    }
    const changed = yield* Queue.unbounded<ListChange>()
    let lastStderr: string | undefined
    const { pid, transport } = yield* Effect.try({
      try: () =>
        transportOf((line) => {
          lastStderr = line.length > 300 ? `${line.slice(0, 300)}…` : line
          runFork(Effect.logDebug("upstream stderr", { upstream: id, line }))
        }),
      catch: messageOf
    })
    const client = new sdk.Client({ name: "mcp-runtime", version: packageVersion }, { capabilities: {} })
    let lastError: string | undefined
    client.onerror = (error) => {
      lastError = messageOf(error)
    }
    client.onclose = () => {
      const why = "command" in spec && spec.command !== undefined ? "its process exited" : "the connection was closed"
      const detail = lastStderr ?? lastError
      lose(detail === undefined ? why : `${why}: ${detail}`)
    }
    for (const [schema, kind] of [
      [sdk.types.ToolListChangedNotificationSchema, "tools"],
      [sdk.types.PromptListChangedNotificationSchema, "prompts"],
      [sdk.types.ResourceListChangedNotificationSchema, "resources"]
    ] as const) {
      client.setNotificationHandler(schema, () => {
        Queue.offerUnsafe(changed, kind)
      })
    }
    client.setNotificationHandler(sdk.types.LoggingMessageNotificationSchema, (notification) => {
      runFork(
        Effect.logDebug("upstream log message", {
          upstream: id,
          level: notification.params.level,
          data: notification.params.data
        })
      )
    })
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        if (transport instanceof sdk.http.StreamableHTTPClientTransport) {
          await Promise.race([
            transport.terminateSession().catch(() => {}),
            new Promise((resolve) => setTimeout(resolve, 1000).unref())
          ])
        }
        await client.close().catch(() => {})
      })
    )
    yield* Effect.tryPromise({
      try: (signal) => client.connect(transport, { signal, timeout: startupTimeoutMs }),
      catch: (error) => {
        const detail = lastStderr === undefined ? "" : ` (its last stderr line: ${lastStderr})`
        return `${messageOf(error)}${detail}`
      }
    })
    const version = client.getServerVersion()
    return {
      client,
      capabilities: client.getServerCapabilities() ?? {},
      lost,
      lose,
      lostBecause: () => lostBecause,
      changed,
      pid: pid() ?? undefined,
      server: version === undefined ? undefined : { name: version.name, version: version.version }
    } satisfies Connection
  })

  // Re-lists what the upstream says changed (a burst of notifications is one re-listing).
  const relist = (conn: Connection) =>
    Effect.forever(
      Effect.gen(function* () {
        const kinds = new Set(yield* Queue.takeAll(conn.changed))
        const parts = yield* Effect.forEach([...kinds], (kind) => listKind(conn, kind), { concurrency: "unbounded" })
        yield* Deferred.await(registered)
        yield* publish(Object.assign({}, lists, ...parts) as Lists, conn.capabilities)
      }).pipe(
        Effect.catch((why: string) =>
          Effect.logWarning(`upstream ${id}: listing what changed failed: ${why}`).pipe(
            Effect.andThen(Effect.sync(() => conn.lose(why)))
          )
        )
      )
    )

  // One connection, from the attempt to its loss; fails with the reason when it cannot connect.
  const session = Effect.gen(function* () {
    const conn = yield* connect.pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(startupTimeoutMs),
        orElse: () => Effect.fail(`it did not answer initialize within ${startupTimeoutMs} ms`)
      })
    )
    const listed = yield* listAll(conn)
    current = conn
    state = "connected"
    reason = undefined
    if (attempted) restarts++
    const first = yield* Deferred.succeed(initial, { lists: listed, capabilities: conn.capabilities })
    if (first) lists = listed
    else {
      yield* Deferred.await(registered)
      yield* publish(listed, conn.capabilities)
    }
    yield* Effect.logInfo(
      `upstream ${id} connected${conn.server === undefined ? "" : ` (${conn.server.name} ${conn.server.version})`}`,
      { upstream: id, transport: label, tools: lists.tools.length, pid: conn.pid ?? null }
    )
    yield* Effect.forkScoped(relist(conn))
    const why = yield* Deferred.await(conn.lost)
    current = undefined
    return why
  })

  const backoff = Schedule.exponential(Duration.millis(initialDelayMs)).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.millis(maxDelayMs))))
  )

  const supervise = Effect.gen(function* () {
    let step = yield* Schedule.toStep(backoff)
    while (true) {
      const started = yield* Clock.currentTimeMillis
      const outcome = yield* Effect.scoped(session).pipe(
        // A defect of one attempt is that attempt's failure; an interruption (shutdown) ends the loop.
        Effect.catchCause((cause) => {
          if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
          const error = Cause.findErrorOption(cause)
          return Effect.fail(Option.isSome(error) && !Cause.hasDies(cause) ? error.value : Cause.pretty(cause))
        }),
        Effect.result
      )
      attempted = true
      current = undefined
      state = "failed"
      reason = outcome._tag === "Success" ? outcome.success : outcome.failure
      // The first attempt failed: startup goes on without the upstream's tools.
      yield* Deferred.succeed(initial, { lists: emptyLists, capabilities: {} })
      const now = yield* Clock.currentTimeMillis
      // A connection that stayed up for a while starts the backoff over.
      if (outcome._tag === "Success" && now - started >= maxDelayMs) step = yield* Schedule.toStep(backoff)
      const delay = yield* step(now, undefined).pipe(
        Effect.map(([, delay]) => delay),
        Effect.orElseSucceed(() => Duration.millis(maxDelayMs))
      )
      yield* Effect.logWarning(
        outcome._tag === "Success"
          ? `upstream ${id} disconnected (${reason}); reconnecting in ${Duration.toMillis(delay)} ms`
          : `upstream ${id} could not connect (${reason}); retrying in ${Duration.toMillis(delay)} ms`,
        { upstream: id, transport: label }
      )
      yield* Effect.sleep(delay)
    }
  }).pipe(annotate)

  yield* Effect.forkIn(supervise, supervisors)

  // The first attempt's outcome, within the startup timeout.
  const first = yield* Deferred.await(initial).pipe(Effect.timeoutOption(Duration.millis(startupTimeoutMs)))
  let start = Option.getOrUndefined(first)
  if (start === undefined) {
    const timedOut = { lists: emptyLists, capabilities: {} }
    start = (yield* Deferred.succeed(initial, timedOut)) ? timedOut : yield* Deferred.await(initial)
  }
  if (current === undefined) {
    yield* Effect.logWarning(
      `upstream ${id} is not connected at startup (${reason ?? `no answer within ${startupTimeoutMs} ms`}); ` +
        `starting without its tools, and retrying in the background`,
      { upstream: id, transport: label }
    )
  }
  lists = start.lists
  const contents = toContents(id, start.lists, forwardFor(start.capabilities), compileOutput())
  published = JSON.stringify([start.lists, start.capabilities.completions !== undefined])
  // 0 switches a limit off.
  const limit = (ms: number) => (ms === 0 ? Infinity : ms)
  const info: CapabilityInfo = {
    id,
    description:
      spec.description ??
      `The upstream MCP server ${id}${current?.server === undefined ? "" : ` (${current.server.name})`}`,
    version: current?.server?.version ?? "unknown",
    foreignNames: true,
    ...(spec.timeoutMs === undefined ? {} : { timeout: limit(spec.timeoutMs) }),
    ...(spec.maxConcurrent === undefined ? {} : { maxConcurrent: limit(spec.maxConcurrent) }),
    ...(spec.maxResultBytes === undefined ? {} : { maxResultBytes: limit(spec.maxResultBytes) })
  }
  // Registered empty, then filled as after startup: an entry the kernel refuses is a problem of the upstream, except
  // a collision with another capability, which stops the start (as for any capability).
  yield* kernel.registerCapability(info, [], context)
  const refused = yield* kernel.replaceCapability(id, contents, context).pipe(Effect.orDie)
  const collision = refused.find((error) => collisions.has(error._tag))
  if (collision !== undefined) return yield* Effect.fail(collision)
  yield* report([...contents.problems, ...refused.map((error) => error.message)])
  yield* Deferred.succeed(registered, undefined)

  return (): UpstreamStatus => {
    const summary = kernel.capabilities().find((c) => c.id === id)
    const conn = current
    return {
      id,
      transport: label,
      state: conn !== undefined ? "connected" : state,
      reason: conn !== undefined ? undefined : reason,
      restarts,
      pid: conn?.pid,
      server: conn?.server,
      tools: summary?.tools ?? [],
      problems
    }
  }
})
