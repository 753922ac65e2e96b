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
 * server's own `list_changed` go out. An upstream that dies is reconnected
 * with exponential backoff (250 ms doubling to 30 s, on the Effect `Clock`),
 * its tools meanwhile answering an error result that names it. At startup
 * the server waits (at most `startupTimeoutMs`, all upstreams at once) for
 * each upstream's first connection; one that does not come starts without
 * its tools, which are published once it connects.
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
import { emptyLists, type Forward, type Lists, toContents } from "./mapping.ts"
import { defaultReconnect, defaultStartupTimeoutMs, type UpstreamSettings } from "./settings.ts"

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
  /** `stdio <command> <args…>`, `http <url>`, or the label of a {@link TransportUpstream}. */
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
 * server.js`, `http http://…`, or a transport's label.
 *
 * **Example**
 *
 * ```ts
 * import { describeTransport } from "./capabilities/upstream/index.ts"
 *
 * describeTransport({ command: "node", args: ["server.js"] }) // => "stdio node server.js"
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export const describeTransport = (spec: UpstreamSpec): string =>
  "transport" in spec
    ? spec.label
    : spec.command !== undefined
      ? `stdio ${[spec.command, ...(spec.args ?? [])].join(" ")}`
      : `http ${spec.url}`

const idPattern = /^[a-z][a-z0-9_]*$/

// Requests to the upstream are bounded by the server's own policy (the
// call's timeout and cancellation), not by the SDK's 60 s default.
const noTimeout = 2_147_483_647

const notConnectedSuggestion = "Retry in a few seconds, or call other tools."

type Sdk = Awaited<ReturnType<typeof loadSdk>>

// Loaded when the first upstream is built: a server without upstreams never loads the SDK client.
const loadSdk = async () => {
  const [client, stdio, http, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js")
  ])
  return { Client: client.Client, StdioClientTransport: stdio.StdioClientTransport, http, types }
}

const messageOf = (error: unknown): string => {
  if (error instanceof Error) return error.message.replace(/^MCP error -?\d+: /, "")
  return String(error)
}

type ListChange = "tools" | "prompts" | "resources"

/** One live connection to an upstream. */
interface Connection {
  readonly client: SdkClient
  readonly capabilities: ServerCapabilities
  /** Completed with the reason once the connection is gone. */
  readonly lost: Deferred.Deferred<string>
  /** The upstream's list_changed notifications. */
  readonly changed: Queue.Queue<ListChange>
  readonly pid: number | undefined
  readonly server: { readonly name: string; readonly version: string } | undefined
}

const pageLimit = 1000

// Every page of one of the upstream's lists.
const allPages = <A>(
  list: (cursor: string | undefined, signal: AbortSignal) => Promise<{ readonly nextCursor?: string | undefined }>,
  items: (page: any) => ReadonlyArray<A>
): Effect.Effect<ReadonlyArray<A>, string> =>
  Effect.tryPromise({
    try: async (signal) => {
      const all: Array<A> = []
      let cursor: string | undefined
      for (let page = 0; page < pageLimit; page++) {
        const result = await list(cursor, signal)
        all.push(...items(result))
        cursor = result.nextCursor
        if (cursor === undefined) break
      }
      return all
    },
    catch: messageOf
  })

/**
 * The upstream servers as capabilities, and the {@link Upstreams} service
 * that reports on them. Fails with the kernel's `InvalidCapabilityId` or
 * `ReservedCapabilityId` for an id it cannot use, with
 * {@link UpstreamIdTaken} for an id in `reservedIds` (the bundled
 * capabilities') or already registered, and, when an upstream connected at
 * startup, with the kernel's error for a public name or URI scheme that
 * another capability has (`DuplicateName`, `SchemeTaken`…).
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
    /** Variables added to the environment of every stdio upstream (under its own `env`). */
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
      const hosts = yield* Effect.forEach(entries, ([id, spec]) => host(id, spec, sdk, options.env ?? {}), {
        concurrency: "unbounded"
      })
      return Upstreams.of({ status: () => hosts.map((status) => status()) })
    })
  )

// One upstream: its supervisor (connect, list, serve, reconnect) in the layer's scope, its first
// registration (static, so a collision stops the start), and its status.
const host = Effect.fnUntraced(function* (
  id: string,
  spec: UpstreamSpec,
  sdk: Sdk,
  env: Readonly<Record<string, string>>
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

  // How a request failed: the upstream answered an error (its code), answered something that is not a result of
  // the request (a malformed answer), or the request never got an answer — a transport-level failure, which means
  // the connection is gone.
  const classify = (
    error: unknown
  ): { readonly _tag: "Answer"; readonly code: number } | { readonly _tag: "Malformed" } | { readonly _tag: "Lost" } =>
    error instanceof sdk.types.McpError &&
    error.code !== sdk.types.ErrorCode.ConnectionClosed &&
    error.code !== sdk.types.ErrorCode.RequestTimeout
      ? { _tag: "Answer", code: error.code }
      : error instanceof Error && /ZodError/.test(error.name)
        ? { _tag: "Malformed" }
        : { _tag: "Lost" }
  const failed = (conn: Connection, error: unknown): void => {
    if (classify(error)._tag === "Lost") Deferred.doneUnsafe(conn.lost, Effect.succeed(messageOf(error)))
  }
  // What the client is told of a request the upstream did not answer with a result.
  const answered = (what: string, error: unknown): string | undefined => {
    const kind = classify(error)
    return kind._tag === "Answer"
      ? `The upstream server ${id} answered ${what} with error ${kind.code}: ${messageOf(error)}`
      : kind._tag === "Malformed"
        ? `The upstream server ${id} answered ${what} with something that is not a valid result: ${messageOf(error)}`
        : undefined
  }

  const callTool: Forward["callTool"] = (name, args) =>
    Effect.gen(function* () {
      const conn = current
      if (conn === undefined) return notConnected()
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
        try: (signal) =>
          conn.client.callTool({ name, arguments: args }, undefined, {
            signal,
            timeout: noTimeout,
            resetTimeoutOnProgress: true,
            ...(updates === undefined
              ? {}
              : {
                  onprogress: (update) => {
                    Queue.offerUnsafe(updates, update)
                  }
                })
          }),
        catch: (error) => error
      }).pipe(Effect.result)
      if (updates !== undefined && relay !== undefined) {
        // The updates that came before the result go out before it.
        Queue.endUnsafe(updates)
        yield* Fiber.join(relay)
      }
      if (outcome._tag === "Success") return outcome.success as unknown as CallToolResult
      const error = outcome.failure
      failed(conn, error)
      const message = answered(`the call of ${name}`, error)
      if (message === undefined) {
        reason = messageOf(error)
        return notConnected()
      }
      return {
        content: [{ type: "text", text: message }],
        isError: true,
        _meta: {
          [errorMetaKey]: {
            code: "upstream_error",
            suggestion: `Check the arguments against the tool's inputSchema (tools/list), then retry.`
          }
        }
      } satisfies CallToolResult
    })

  // A request other than a tool call: a typed failure when it gets no result.
  const request = <A>(
    what: string,
    run: (conn: Connection, signal: AbortSignal) => Promise<A>
  ): Effect.Effect<A, UpstreamError> =>
    Effect.suspend(() => {
      const conn = current
      if (conn === undefined) {
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
        try: (signal) => run(conn, signal),
        catch: (error) => {
          failed(conn, error)
          const kind = classify(error)
          return new UpstreamError({
            upstream: id,
            message:
              answered(what, error) ??
              `The upstream server ${id} is not connected (${messageOf(error)}); it is being restarted — retry in a few seconds.`,
            ...(kind._tag === "Answer" ? { code: kind.code } : {})
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
            request("completion/complete", (conn, signal) =>
              conn.client.complete({ ref, argument, context }, { signal, timeout: startupTimeoutMs })
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
      const contents = toContents(id, listed, forwardFor(capabilities))
      const collisions = yield* kernel.replaceCapability(id, contents, context).pipe(Effect.orDie)
      yield* report([...contents.problems, ...collisions.map((error) => error.message)])
    })

  const listKind = (conn: Connection, kind: ListChange): Effect.Effect<Partial<Lists>, string> => {
    const caps = conn.capabilities
    const timeout = { timeout: startupTimeoutMs }
    switch (kind) {
      case "tools":
        return caps.tools === undefined
          ? Effect.succeed({ tools: [] })
          : Effect.map(
              allPages<UpstreamTool>(
                (cursor, signal) =>
                  conn.client.listTools(cursor === undefined ? undefined : { cursor }, { ...timeout, signal }),
                (page) => page.tools
              ),
              (tools) => ({ tools })
            )
      case "prompts":
        return caps.prompts === undefined
          ? Effect.succeed({ prompts: [] })
          : Effect.map(
              allPages<UpstreamPrompt>(
                (cursor, signal) =>
                  conn.client.listPrompts(cursor === undefined ? undefined : { cursor }, { ...timeout, signal }),
                (page) => page.prompts
              ),
              (prompts) => ({ prompts })
            )
      case "resources":
        return caps.resources === undefined
          ? Effect.succeed({ resources: [], templates: [] })
          : Effect.zipWith(
              allPages<UpstreamResource>(
                (cursor, signal) =>
                  conn.client.listResources(cursor === undefined ? undefined : { cursor }, { ...timeout, signal }),
                (page) => page.resources
              ),
              allPages<UpstreamTemplate>(
                (cursor, signal) =>
                  conn.client.listResourceTemplates(cursor === undefined ? undefined : { cursor }, {
                    ...timeout,
                    signal
                  }),
                (page) => page.resourceTemplates
              ),
              (resources, templates) => ({ resources, templates }),
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
        env: { ...env, ...spec.env },
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
      Deferred.doneUnsafe(lost, Effect.succeed(detail === undefined ? why : `${why}: ${detail}`))
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
            Effect.andThen(Effect.sync(() => Deferred.doneUnsafe(conn.lost, Effect.succeed(why))))
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

  yield* Effect.forkScoped(supervise)

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
  const contents = toContents(id, start.lists, forwardFor(start.capabilities))
  published = JSON.stringify([start.lists, start.capabilities.completions !== undefined])
  yield* report(contents.problems)
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
  yield* kernel.registerCapability(info, contents.tools, context, contents.prompts, contents.resources)
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
