/**
 * An in-memory MCP client for tests: the server runs in a fiber behind a
 * memory transport and every message goes through the real framing and
 * codec as text. Typed helpers list and call tools, read resources, get
 * prompts and check error codes; server-to-client requests (elicitation,
 * sampling, roots) are answered by handlers the test gives. Nothing in it
 * uses real time, so a test can fork a call and move `TestClock`.
 * {@link forCapability} gives a view of the client typed by one
 * capability's tools: names, arguments and structured results checked by
 * the compiler.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as MemoryClient from "../internal/memoryClient.ts"
import { RpcError } from "../internal/memoryClient.ts"
import * as Kernel from "../Kernel.ts"
import type { CallToolResult } from "../McpSchema.ts"
import * as McpServer from "../McpServer.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import type * as Method from "../Method.ts"
import type * as Tool from "../Tool.ts"
import { makeMemory, Transport } from "../Transport.ts"

export {
  /**
   * A JSON-RPC error response (`code`, `message`, `data`).
   *
   * @since 0.1.0
   */
  RpcError
}

/**
 * A call's result was not the error the test expected.
 *
 * **Example**
 *
 * ```ts
 * import { UnexpectedResult } from "effect-mcp-runtime/testing"
 *
 * new UnexpectedResult({ message: "expected the error code denied, got a success" }).message
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class UnexpectedResult extends Error {
  readonly _tag = "UnexpectedResult"
  readonly result: unknown
  constructor(options: { readonly message: string; readonly result?: unknown }) {
    super(options.message)
    this.name = "UnexpectedResult"
    this.result = options.result
  }
}

/**
 * A notification the client received.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const changed = (client: TestClient.TestClient) =>
 *   Effect.map(client.awaitNotification("notifications/tools/list_changed"), (n: TestClient.Notification) => n.method)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params: any
}

/**
 * One input-required round the client answered (protocol 2026-07-28): the
 * request's method and the input requests the server sent.
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const keys = (round: TestClient.Round) => Object.keys(round.inputRequests)
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Round {
  readonly method: string
  readonly inputRequests: Readonly<Record<string, { readonly method: string; readonly params: any }>>
}

/**
 * What `runCode` gives back: the structured result of `code_run` (code mode):
 * the value the code returned, its console output, and each `mcp.*` call it
 * made with its outcome and duration.
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const run: TestClient.CodeRun = {
 *   value: 5,
 *   console: [{ level: "log", text: "adding" }],
 *   consoleTruncated: false,
 *   calls: [{ tool: "math_add", outcome: "ok", durationMs: 0.2 }]
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface CodeRun {
  readonly value: unknown
  readonly console: ReadonlyArray<{ readonly level: string; readonly text: string }>
  readonly consoleTruncated: boolean
  readonly calls: ReadonlyArray<{
    readonly tool: string
    readonly outcome: string
    readonly durationMs: number
    readonly error?: string
  }>
}

/**
 * A progress report delivered to `callTool`'s `onProgress`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const seen: Array<TestClient.ProgressReport> = []
 * const onProgress = (report: TestClient.ProgressReport) => Effect.sync(() => seen.push(report))
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ProgressReport {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * How the test client presents itself and answers the server.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Options } from "effect-mcp-runtime/testing/TestClient"
 *
 * const options: Options = {
 *   elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } }),
 *   roots: [{ uri: "file:///srv/project", name: "project" }]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * The protocol version (default `"2025-11-25"`): asked for in `initialize`,
   * or, for `"2026-07-28"`, sent in every request's `_meta` (no
   * `initialize`; input-required results are answered with the handlers
   * below and the request retried, as a 2026-07-28 client does).
   */
  readonly protocolVersion?: string | undefined
  /** Extensions the client declares (2026-07-28), e.g. `{ "io.modelcontextprotocol/tasks": {} }`. */
  readonly extensions?: Record<string, object> | undefined
  /** The most input-required rounds one request may take before the call fails (default 10). */
  readonly maxRounds?: number | undefined
  /** Declares elicitation (form mode) and answers `elicitation/create` with the result it returns. */
  readonly elicitation?: ((params: any) => Effect.Effect<unknown, RpcError>) | undefined
  /** Declares sampling and answers `sampling/createMessage`. */
  readonly sampling?: ((params: any) => Effect.Effect<unknown, RpcError>) | undefined
  /**
   * Declares roots and answers `roots/list` with them: a fixed list, or an
   * effect asked at each request (so a test can change them between calls).
   */
  readonly roots?:
    | ReadonlyArray<{ readonly uri: string; readonly name?: string }>
    | (() => Effect.Effect<ReadonlyArray<{ readonly uri: string; readonly name?: string }>, RpcError>)
    | undefined
  /** The largest message the server accepts (default: the transport's). */
  readonly maxMessageBytes?: number | undefined
  /** The kernel's page size for every list (default 1000): a small one makes the list helpers follow cursors. */
  readonly pageSize?: number | undefined
  /**
   * Whether the kernel publishes the tools marked experimental (default
   * true, as `Kernel.layer`; `false` is what the binary does without
   * `--experimental`). Since 0.5.0.
   */
  readonly experimental?: boolean | undefined
  /**
   * The server's method table (default `defaultMethods`), e.g.
   * `RequestFront.methods` to test through the request front. Since 0.4.0.
   */
  readonly methods?: ReadonlyArray<Method.Any> | undefined
}

/**
 * The test client: typed helpers over one initialized MCP session.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const toolNames = (client: TestClient.TestClient) =>
 *   Effect.map(client.listTools, (tools) => tools.map((tool) => tool.name))
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface TestClient {
  /** The server's `initialize` result (2026-07-28: its `server/discover` result). */
  readonly initialized: any
  /**
   * The input-required rounds the client answered so far (2026-07-28), oldest
   * first: the method and the input requests of each.
   */
  readonly rounds: Effect.Effect<ReadonlyArray<Round>>
  /** The server's kernel (its registries), for assertions the protocol does not expose. */
  readonly kernel: Kernel.Kernel["Service"]
  /** Every tool, all pages. */
  readonly listTools: Effect.Effect<ReadonlyArray<any>, RpcError>
  /** Calls a tool; progress reports go to `onProgress`. A tool error is a result with `isError: true`. */
  readonly callTool: (
    name: string,
    args?: Record<string, unknown>,
    options?: { readonly onProgress?: ((report: ProgressReport) => Effect.Effect<void>) | undefined }
  ) => Effect.Effect<CallToolResult, RpcError>
  /**
   * Calls a tool and succeeds with its `structuredContent`; fails with
   * `UnexpectedResult` (saying what came instead) when the result is an
   * error or has no structured content.
   */
  readonly callToolStructured: (
    name: string,
    args?: Record<string, unknown>,
    options?: { readonly onProgress?: ((report: ProgressReport) => Effect.Effect<void>) | undefined }
  ) => Effect.Effect<any, RpcError | UnexpectedResult>
  /**
   * Runs code with `code_run` (the code capability must be installed: code
   * mode) and succeeds with its result; fails with `UnexpectedResult` when
   * the code was refused or stopped (its error code and message say why).
   * Since 0.3.0.
   */
  readonly runCode: (
    code: string,
    options?: { readonly language?: "typescript" | "javascript" | undefined; readonly input?: unknown }
  ) => Effect.Effect<CodeRun, RpcError | UnexpectedResult>
  /** Calls a tool and fails with `UnexpectedResult` unless it answers an error result with this code. */
  readonly expectToolError: (
    name: string,
    args: Record<string, unknown> | undefined,
    code: string
  ) => Effect.Effect<CallToolResult, RpcError | UnexpectedResult>
  /** Every static and listed resource, all pages. */
  readonly listResources: Effect.Effect<ReadonlyArray<any>, RpcError>
  /** Every resource template, all pages. */
  readonly listResourceTemplates: Effect.Effect<ReadonlyArray<any>, RpcError>
  /** `resources/read`: the contents. */
  readonly readResource: (uri: string) => Effect.Effect<ReadonlyArray<any>, RpcError>
  /** Every prompt, all pages. */
  readonly listPrompts: Effect.Effect<ReadonlyArray<any>, RpcError>
  /** `prompts/get`: the result (description, messages). */
  readonly getPrompt: (name: string, args?: Record<string, string>) => Effect.Effect<any, RpcError>
  /** Any request; a JSON-RPC error fails with `RpcError`. */
  readonly request: (method: string, params?: Record<string, unknown>) => Effect.Effect<any, RpcError>
  /** Sends a request without waiting: its id (for `cancel`) and the effect that waits for the response. */
  readonly send: (
    method: string,
    params?: Record<string, unknown>
  ) => Effect.Effect<{ readonly id: number; readonly response: Effect.Effect<any, RpcError> }>
  /** Sends `notifications/cancelled` for a request. */
  readonly cancel: (requestId: number, reason?: string) => Effect.Effect<void>
  /** Any notification. */
  readonly notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  /** The notifications received so far, oldest first. */
  readonly notifications: Effect.Effect<ReadonlyArray<Notification>>
  /**
   * The first notification with this method (and matching `predicate`),
   * already received or the next to arrive: waits without a timer, so it
   * works under `TestClock`.
   */
  readonly awaitNotification: (
    method: string,
    predicate?: ((params: any) => boolean) | undefined
  ) => Effect.Effect<Notification>
}

/**
 * A tool as {@link forCapability} takes it: its declaration (what
 * `Tool.make` returns) or a handled tool (what `Tool.handle` returns), whose
 * `tool` is the declaration.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet: TestClient.ToolLike = Tool.make("greet", {
 *   description: "Greets someone by name.",
 *   input: Schema.Struct({ name: Schema.String })
 * })
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type ToolLike = Tool.Tool<any, any, any> | { readonly tool: Tool.Tool<any, any, any> }

/**
 * The declaration of a {@link ToolLike}: the tool itself, or a handled tool's
 * `tool`.
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping = Tool.make("ping", { description: "Answers pong." })
 * type Name = TestClient.DeclarationOf<{ readonly tool: typeof ping }>["name"] // "ping"
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type DeclarationOf<T> =
  T extends Tool.Tool<any, any, any>
    ? T
    : T extends { readonly tool: infer D extends Tool.Tool<any, any, any> }
      ? D
      : never

/**
 * The public names of a capability's tools, as a literal union:
 * `"<capabilityId>_<name>"` for each (the kernel prefixes every name with
 * the id of the capability that contributes it).
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets." })
 * const slow = Tool.make("slow", { description: "Takes a minute." })
 * type Names = TestClient.ToolName<"hello", [typeof greet, typeof slow]> // "hello_greet" | "hello_slow"
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type ToolName<
  Id extends string,
  Tools extends ReadonlyArray<ToolLike>
> = `${Id}_${DeclarationOf<Tools[number]>["name"]}`

/**
 * The arguments a client sends to a tool: its input Schema's `Encoded` side
 * (what goes over the wire as JSON; the server decodes it into the handler's
 * input).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const wait = Tool.make("wait", {
 *   description: "Waits.",
 *   input: Schema.Struct({ ms: Schema.NumberFromString })
 * })
 * const args: TestClient.Arguments<typeof wait> = { ms: "250" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Arguments<T extends ToolLike> = DeclarationOf<T>["input"]["Encoded"]

/**
 * The `structuredContent` a client receives from a tool: its output
 * Schema's `Encoded` side (the server encodes the handler's value with it),
 * or `unknown` for a tool without an output Schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const sum = Tool.make("sum", {
 *   description: "Adds numbers.",
 *   output: Schema.Struct({ total: Schema.Finite })
 * })
 * const structured: TestClient.Structured<typeof sum> = { total: 3 }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Structured<T extends ToolLike> = DeclarationOf<T>["output"] extends Tool.ObjectSchema
  ? DeclarationOf<T>["output"]["Encoded"]
  : unknown

/**
 * How a {@link CapabilityClient} call names a tool: the tool value (its
 * declaration or the handled tool) or its public name.
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets." })
 * const byValue: TestClient.ToolRef<"hello", [typeof greet]> = greet
 * const byName: TestClient.ToolRef<"hello", [typeof greet]> = "hello_greet"
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type ToolRef<Id extends string, Tools extends ReadonlyArray<ToolLike>> =
  | Tools[number]
  | DeclarationOf<Tools[number]>
  | ToolName<Id, Tools>

/**
 * The declaration a {@link ToolRef} names.
 *
 * **Example**
 *
 * ```ts
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets." })
 * type Greet = TestClient.Resolve<"hello", [typeof greet], "hello_greet"> // typeof greet
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Resolve<Id extends string, Tools extends ReadonlyArray<ToolLike>, K> = K extends string
  ? ByName<Id, DeclarationOf<Tools[number]>, K>
  : DeclarationOf<K>

// The declaration among D (a union) whose public name is K.
type ByName<Id extends string, D, K extends string> =
  D extends Tool.Tool<any, any, any> ? (K extends `${Id}_${D["name"]}` ? D : never) : never

/**
 * Options of a tool call: where its progress reports go.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 *
 * const options: TestClient.CallOptions = { onProgress: (report) => Effect.log(report.progress) }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface CallOptions {
  readonly onProgress?: ((report: ProgressReport) => Effect.Effect<void>) | undefined
}

/**
 * The arguments and options of a typed call: the arguments may be left out
 * when the tool's input has no required field.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets.", input: Schema.Struct({ name: Schema.String }) })
 * const rest: TestClient.CallRest<typeof greet> = [{ name: "Ada" }]
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type CallRest<D extends ToolLike> =
  {} extends Arguments<D>
    ? [args?: Arguments<D> | undefined, options?: CallOptions | undefined]
    : [args: Arguments<D>, options?: CallOptions | undefined]

/**
 * A typed view of a {@link TestClient} for one capability's tools (see
 * {@link forCapability}): each call takes a tool value or its public name
 * (a literal union), checks the arguments against the tool's input Schema,
 * and types the structured result by its output Schema. The calls are the
 * client's own (`tools/call` through the memory transport); only their
 * types are narrower.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import type { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", {
 *   description: "Greets someone by name.",
 *   input: Schema.Struct({ name: Schema.String }),
 *   output: Schema.Struct({ greeting: Schema.String })
 * })
 *
 * const greeting = (hello: TestClient.CapabilityClient<"hello", [typeof greet]>) =>
 *   Effect.map(hello.callToolStructured(greet, { name: "Ada" }), (out) => out.greeting)
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface CapabilityClient<Id extends string, Tools extends ReadonlyArray<ToolLike>> {
  /** The untyped client underneath, for calls the types would refuse (wrong arguments on purpose). */
  readonly client: TestClient
  /** The capability's id: the prefix of its public names. */
  readonly capabilityId: Id
  /** The public names of the tools given, in their order. */
  readonly names: ReadonlyArray<ToolName<Id, Tools>>
  /** The public name of a tool: `"<capabilityId>_<name>"`. */
  readonly name: <T extends Tools[number] | DeclarationOf<Tools[number]>>(
    tool: T
  ) => `${Id}_${DeclarationOf<T>["name"]}`
  /** `TestClient.callTool` with typed arguments. */
  readonly callTool: <K extends ToolRef<Id, Tools>>(
    tool: K,
    ...rest: CallRest<Resolve<Id, Tools, K>>
  ) => Effect.Effect<CallToolResult, RpcError>
  /** `TestClient.callToolStructured` with typed arguments and a result typed by the output Schema. */
  readonly callToolStructured: <K extends ToolRef<Id, Tools>>(
    tool: K,
    ...rest: CallRest<Resolve<Id, Tools, K>>
  ) => Effect.Effect<Structured<Resolve<Id, Tools, K>>, RpcError | UnexpectedResult>
  /** `TestClient.expectToolError` with typed arguments. */
  readonly expectToolError: <K extends ToolRef<Id, Tools>>(
    tool: K,
    args: Arguments<Resolve<Id, Tools, K>> | ({} extends Arguments<Resolve<Id, Tools, K>> ? undefined : never),
    code: string
  ) => Effect.Effect<CallToolResult, RpcError | UnexpectedResult>
}

const errorMetaKey = "effect-mcp-runtime/error"

/**
 * The error code of a tool result (`_meta["effect-mcp-runtime/error"].code`),
 * or `undefined` for a success.
 *
 * **Example**
 *
 * ```ts
 * import { TestClient } from "effect-mcp-runtime/testing"
 *
 * TestClient.errorCode({ isError: true, content: [], _meta: { "effect-mcp-runtime/error": { code: "denied" } } })
 * // => "denied"
 * ```
 *
 * @category results
 * @since 0.1.0
 */
export const errorCode = (result: CallToolResult): string | undefined => {
  if (result.isError !== true) return undefined
  const details = result._meta?.[errorMetaKey] as { readonly code?: unknown } | undefined
  return typeof details?.code === "string" ? details.code : "tool_error"
}

/**
 * The text of a tool result's text content, joined by newlines.
 *
 * **Example**
 *
 * ```ts
 * import { TestClient } from "effect-mcp-runtime/testing"
 *
 * TestClient.text({ content: [{ type: "text", text: "hi" }] }) // => "hi"
 * ```
 *
 * @category results
 * @since 0.1.0
 */
export const text = (result: CallToolResult): string =>
  result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n")

/**
 * Starts a server with the given capabilities (over a fresh kernel) behind a
 * memory transport, initializes it as a client, and returns the client. The
 * server stops when the scope closes. Services the server reads from its
 * context (a `Policy`, a `Gate`, an `AuditLog`, `ServerConfig`, the
 * `Confirmation` settings) are provided around this effect.
 *
 * **Example**
 *
 * ```ts
 * import { assert, it } from "@effect/vitest"
 * import * as Effect from "effect/Effect"
 * import { TestClient } from "effect-mcp-runtime/testing"
 * import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
 *
 * it.effect("echoes", () =>
 *   Effect.gen(function* () {
 *     const client = yield* TestClient.make(SystemCapability)
 *     const result = yield* client.callTool("system_echo", { text: "hi" })
 *     assert.deepStrictEqual(result.structuredContent, { text: "hi" })
 *   }).pipe(Effect.scoped)
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <E, R>(
  capabilities: Layer.Layer<never, E, R>,
  options: Options = {}
): Effect.Effect<TestClient, E | RpcError, Scope.Scope | Exclude<R, Kernel.Kernel>> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      capabilities.pipe(
        Layer.provideMerge(Kernel.layer({ pageSize: options.pageSize, experimental: options.experimental }))
      )
    )
    const kernel = yield* Effect.provide(Effect.service(Kernel.Kernel), context)
    const { client, closeOutput, transport } = yield* makeMemory({ maxMessageBytes: options.maxMessageBytes })
    yield* (
      McpServer.serve(options.methods === undefined ? {} : { methods: options.methods }) as ReturnType<
        typeof McpServer.serve
      >
    ).pipe(
      Effect.provideService(Transport, transport),
      Effect.provide(context),
      Effect.ensuring(closeOutput),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => client.close)

    const received: Array<Notification> = []
    const waiters = new Set<{
      readonly method: string
      readonly predicate: (params: any) => boolean
      readonly deferred: Deferred.Deferred<Notification>
    }>()
    const progressHandlers = new Map<string, (report: ProgressReport) => Effect.Effect<void>>()
    // The client's answer to a request of the server's, sent as a request (legacy) or in an input-required result.
    const answer = (method: string, params: any): Effect.Effect<unknown, RpcError> => {
      if (method === "elicitation/create" && options.elicitation !== undefined) return options.elicitation(params)
      if (method === "sampling/createMessage" && options.sampling !== undefined) return options.sampling(params)
      if (method === "roots/list" && options.roots !== undefined) {
        const roots = options.roots
        return typeof roots === "function"
          ? Effect.map(roots(), (list) => ({ roots: list }))
          : Effect.succeed({ roots })
      }
      if (method === "ping") return Effect.succeed({})
      return Effect.fail(new RpcError({ code: -32601, message: `Method not found: ${method}`, data: undefined }))
    }
    const capabilitiesDeclared: Record<string, unknown> = {}
    if (options.elicitation !== undefined) capabilitiesDeclared.elicitation = { form: {} }
    if (options.sampling !== undefined) capabilitiesDeclared.sampling = {}
    if (options.roots !== undefined) capabilitiesDeclared.roots = { listChanged: true }
    const modern = options.protocolVersion !== undefined && ProtocolVersion.isModern(options.protocolVersion)
    if (modern && options.extensions !== undefined) capabilitiesDeclared.extensions = options.extensions
    const clientInfo = { name: "effect-mcp-runtime-testing", version: "1" }
    const rpc = yield* MemoryClient.connect(
      client,
      {
        onRequest: answer,
        onNotification: (method, params) =>
          Effect.suspend(() => {
            const notification: Notification = { method, params }
            received.push(notification)
            for (const waiter of waiters) {
              if (waiter.method === method && waiter.predicate(params)) {
                waiters.delete(waiter)
                Deferred.doneUnsafe(waiter.deferred, Effect.succeed(notification))
              }
            }
            if (method === "notifications/progress") {
              const handler = progressHandlers.get(String(params?.progressToken))
              if (handler !== undefined) {
                return handler({ progress: params.progress, total: params.total, message: params.message })
              }
            }
            return Effect.void
          })
      },
      modern
        ? {
            meta: {
              "io.modelcontextprotocol/protocolVersion": options.protocolVersion,
              "io.modelcontextprotocol/clientCapabilities": capabilitiesDeclared,
              "io.modelcontextprotocol/clientInfo": clientInfo
            }
          }
        : {}
    )
    const answered: Array<Round> = []
    const maxRounds = options.maxRounds ?? 10
    // 2026-07-28: a request answered with an input-required result is retried with the answers.
    const request = (method: string, params?: Record<string, unknown>): Effect.Effect<any, RpcError> =>
      !modern
        ? rpc.request(method, params)
        : Effect.gen(function* () {
            let retry = params
            for (let round = 0; ; round++) {
              const result = yield* rpc.request(method, retry)
              if (result?.resultType !== "input_required") return result
              if (round === maxRounds) {
                return yield* Effect.fail(
                  new RpcError({
                    code: -32603,
                    message: `${method} still asked for input after ${maxRounds} rounds (TestClient maxRounds)`,
                    data: result
                  })
                )
              }
              const inputRequests = (result.inputRequests ?? {}) as Round["inputRequests"]
              answered.push({ method, inputRequests })
              const inputResponses: Record<string, unknown> = {}
              for (const [key, input] of Object.entries(inputRequests)) {
                inputResponses[key] = yield* answer(input.method, input.params)
              }
              retry = {
                ...params,
                inputResponses,
                ...(result.requestState === undefined ? {} : { requestState: result.requestState })
              }
            }
          })
    const initialized = modern
      ? yield* rpc.request("server/discover")
      : yield* rpc.request("initialize", {
          protocolVersion: options.protocolVersion ?? "2025-11-25",
          capabilities: capabilitiesDeclared,
          clientInfo
        })
    if (!modern) yield* rpc.notify("notifications/initialized")

    let nextToken = 1
    const callTool: TestClient["callTool"] = (name, args, callOptions) =>
      Effect.suspend(() => {
        const onProgress = callOptions?.onProgress
        const token = onProgress === undefined ? undefined : `test-progress-${nextToken++}`
        if (token !== undefined) progressHandlers.set(token, onProgress!)
        const params: Record<string, unknown> = { name }
        if (args !== undefined) params.arguments = args
        if (token !== undefined) params._meta = { progressToken: token }
        return request("tools/call", params).pipe(
          Effect.ensuring(Effect.sync(() => token !== undefined && progressHandlers.delete(token)))
        ) as Effect.Effect<CallToolResult, RpcError>
      })

    return {
      initialized,
      rounds: Effect.sync(() => [...answered]),
      kernel,
      listTools: rpc.listAll("tools/list", "tools"),
      callTool,
      callToolStructured: (name, args, callOptions) =>
        Effect.flatMap(callTool(name, args, callOptions), (result) =>
          result.isError !== true && result.structuredContent !== undefined
            ? Effect.succeed(result.structuredContent)
            : Effect.fail(
                new UnexpectedResult({
                  message:
                    result.isError === true
                      ? `expected ${name} to succeed, but it failed with the error code ${errorCode(result)}: ${text(result)}`
                      : `expected ${name} to return structured content, but it returned only: ${text(result)}`,
                  result
                })
              )
        ),
      runCode: (code, runOptions) =>
        Effect.flatMap(
          callTool("code_run", {
            code,
            ...(runOptions?.language === undefined ? {} : { language: runOptions.language }),
            ...(runOptions !== undefined && "input" in runOptions ? { input: runOptions.input } : {})
          }),
          (result) =>
            result.isError !== true && result.structuredContent !== undefined
              ? Effect.succeed(result.structuredContent as unknown as CodeRun)
              : Effect.fail(
                  new UnexpectedResult({
                    message: `expected the code to run, but code_run failed with the error code ${errorCode(result)}: ${text(result)}`,
                    result
                  })
                )
        ),
      expectToolError: (name, args, code) =>
        Effect.flatMap(callTool(name, args), (result) => {
          const got = errorCode(result)
          return got === code
            ? Effect.succeed(result)
            : Effect.fail(
                new UnexpectedResult({
                  message:
                    got === undefined
                      ? `expected ${name} to fail with the error code ${code}, but it succeeded: ${text(result)}`
                      : `expected ${name} to fail with the error code ${code}, got ${got}: ${text(result)}`,
                  result
                })
              )
        }),
      listResources: rpc.listAll("resources/list", "resources"),
      listResourceTemplates: rpc.listAll("resources/templates/list", "resourceTemplates"),
      readResource: (uri) => Effect.map(request("resources/read", { uri }), (result) => result.contents),
      listPrompts: rpc.listAll("prompts/list", "prompts"),
      getPrompt: (name, args) => request("prompts/get", args === undefined ? { name } : { name, arguments: args }),
      request,
      send: rpc.send,
      cancel: (requestId, reason) =>
        rpc.notify("notifications/cancelled", reason === undefined ? { requestId } : { requestId, reason }),
      notify: rpc.notify,
      notifications: Effect.sync(() => [...received]),
      awaitNotification: (method, predicate = () => true) =>
        Effect.suspend(() => {
          const found = received.find((n) => n.method === method && predicate(n.params))
          if (found !== undefined) return Effect.succeed(found)
          const deferred = Deferred.makeUnsafe<Notification>()
          const waiter = { method, predicate, deferred }
          waiters.add(waiter)
          return Deferred.await(deferred).pipe(Effect.ensuring(Effect.sync(() => waiters.delete(waiter))))
        })
    } satisfies TestClient
  })

// Refuses a capability id that is not a literal type (its public names could not be checked).
type CheckId<Id extends string> = string extends Id
  ? "TestClient.forCapability: the capability id must be a literal type (write it inline, or declare the info `as const`)"
  : unknown

// Refuses tools whose names are not literal types: a `Tool.Handled` annotated as such has lost its declaration's type.
type CheckTools<Tools extends ReadonlyArray<ToolLike>> = string extends DeclarationOf<Tools[number]>["name"]
  ? "TestClient.forCapability: a tool's name is not a literal type (pass the declaration from Tool.make)"
  : unknown

const declaration = (tool: ToolLike): Tool.Tool<any, any, any> => ("tool" in tool ? tool.tool : tool)

/**
 * A typed view of the client for one capability's tools: calls take a tool
 * value or its public name, their arguments are checked against the tool's
 * input Schema (its `Encoded` side: what a JSON client sends) and the
 * structured result is typed by its output Schema (its `Encoded` side too:
 * what the client receives). Wrong names, wrong arguments and a wrong use
 * of the result are compile errors.
 *
 * **Details**
 *
 * A tool value does not know the id of the capability it is registered
 * under, and a capability's Layer does not carry its tools' types, so the
 * view is given both: the capability id (or its info object, `{ id }`, with
 * a literal id) and the tools, as declared with `Tool.make` or as handled
 * with `Tool.handle`. It composes each public name `"<id>_<name>"` from
 * them, as the kernel does; a wrong id shows at run time as an unknown tool.
 * A tool given as a `Tool.Handled` whose type has been widened (a name that
 * is not a literal) is a compile error: pass its declaration instead.
 *
 * Each call is the client's own (`callTool`, `callToolStructured`,
 * `expectToolError`): `tools/call` through the memory transport, with the
 * same results and errors. For calls whose arguments are wrong on purpose,
 * use the untyped client (`view.client`).
 *
 * **Example**
 *
 * ```ts
 * import { assert, it } from "@effect/vitest"
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import { TestClient } from "effect-mcp-runtime/testing"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", {
 *   description: "Greets someone by name.",
 *   input: Schema.Struct({ name: Schema.String }),
 *   output: Schema.Struct({ greeting: Schema.String })
 * })
 *
 * const Greeter = Capability.make(
 *   { id: "hello", description: "Greetings", version: "1.0.0" },
 *   Effect.succeed({ tools: [greet.pipe(Tool.handle(({ name }) => Effect.succeed({ greeting: `Hello, ${name}!` })))] })
 * )
 *
 * it.effect("greets", () =>
 *   Effect.gen(function* () {
 *     const hello = TestClient.forCapability(yield* TestClient.make(Greeter), "hello", [greet])
 *     const out = yield* hello.callToolStructured(greet, { name: "Ada" }) // { readonly greeting: string }
 *     assert.strictEqual(out.greeting, "Hello, Ada!")
 *     const same = yield* hello.callToolStructured("hello_greet", { name: "Ada" })
 *     assert.deepStrictEqual(same, out)
 *   }).pipe(Effect.scoped)
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const forCapability = <const Id extends string, const Tools extends ReadonlyArray<ToolLike>>(
  client: TestClient,
  capability: (Id | { readonly id: Id }) & CheckId<Id>,
  tools: Tools & CheckTools<Tools>
): CapabilityClient<Id, Tools> => {
  const capabilityId = (typeof capability === "string" ? capability : capability.id) as Id
  const publicName = (tool: ToolLike | string): string =>
    typeof tool === "string" ? tool : `${capabilityId}_${declaration(tool).name}`
  return {
    client,
    capabilityId,
    names: tools.map(publicName) as Array<ToolName<Id, Tools>>,
    name: (tool) => publicName(tool) as any,
    callTool: (tool, ...[args, options]) => client.callTool(publicName(tool), args, options),
    callToolStructured: (tool, ...[args, options]) => client.callToolStructured(publicName(tool), args, options),
    expectToolError: (tool, args, code) => client.expectToolError(publicName(tool), args, code)
  }
}
