/**
 * The runtime's side of the bridge: for each application that connects (see
 * `src/internal/bridgeProtocol.ts` for the wire), the runtime acts as an MCP
 * client of the application's server, lists its tools, resources, resource
 * templates and prompts, and registers each with the kernel as a run-time
 * entry (`app_<name>`: never shadowing a static name; the kernel sends
 * `list_changed`). Calls are forwarded to the application as `tools/call`,
 * `resources/read` and `prompts/get`; an interrupted call (cancelled by the
 * client, timed out by the execution policy) sends the application
 * `notifications/cancelled`; the application's progress is relayed. The
 * application's `list_changed` notifications re-list it. When it
 * disconnects, its entries are unregistered.
 *
 * A name another application (or a static capability) already has is not
 * published: the application is told with the notification
 * `notifications/mcp-runtime/bridge/registered` (which lists what was
 * published and what was refused, and why) and the refusal is logged.
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type {
  Prompt as UpstreamPrompt,
  Resource as UpstreamResource,
  ResourceTemplate as UpstreamTemplate,
  Tool as UpstreamTool
} from "@modelcontextprotocol/sdk/types.js"
import {
  type Accepted,
  BridgeListener,
  type Endpoint,
  type Entry,
  namePattern,
  refusalLine,
  registeredMethod,
  welcomeLine
} from "../../src/internal/bridgeProtocol.ts"
import { make as makePeer, type Peer, type PeerError } from "../../src/internal/bridgePeer.ts"
import { isoTime } from "../../src/internal/isoTime.ts"
import { Kernel, type KernelError } from "../../src/Kernel.ts"
import { type CallToolResult, errorMetaKey } from "../../src/McpSchema.ts"
import { Progress } from "../../src/Progress.ts"
import * as Resource from "../../src/Resource.ts"
import { ServerConfig } from "../../src/ServerConfig.ts"
import type * as Tool from "../../src/Tool.ts"
import { UpstreamError } from "../upstream/errors.ts"
import { type Forward, type Lists, toContents } from "../upstream/mapping.ts"

/**
 * One published (or refused) entry of an application.
 *
 * **Example**
 *
 * ```ts
 * import type { AppEntry } from "./capabilities/bridge/host.ts"
 *
 * const entry: AppEntry = { kind: "tool", name: "shop_orders", publicName: "app_shop_orders", description: "Lists orders." }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface AppEntry {
  readonly kind: "tool" | "resource" | "prompt"
  /** The application's name of it (a resource's name, see `uri`). */
  readonly name: string
  /** The kernel's public name, when it is published. */
  readonly publicName?: string | undefined
  readonly description?: string | undefined
  /** A resource's URI, or a template's URI template. */
  readonly uri?: string | undefined
  /** Why it is not published. */
  readonly refused?: string | undefined
}

/**
 * A connected application, as the `bridge` tools show it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { App } from "./capabilities/bridge/host.ts"
 *
 * const describe = (app: App) => Effect.succeed(`${app.name} (pid ${app.pid ?? "?"}) since ${app.since}`)
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface App {
  readonly name: string
  readonly pid: number | undefined
  /** When it connected (ISO 8601). */
  readonly since: string
  readonly entries: ReadonlyArray<AppEntry>
  /** Calls one of its tools by its own name, bypassing the kernel (for a tool that is not published). */
  readonly callTool: (name: string, args: Record<string, unknown>) => Effect.Effect<CallToolResult, never, Progress>
  /** Reads one of its resources by URI. */
  readonly readResource: (uri: string) => Effect.Effect<ReadonlyArray<Resource.Item>, UpstreamError | Resource.NotFound>
}

/**
 * The applications connected to the bridge, and where the bridge listens.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { BridgeApps } from "./capabilities/bridge/host.ts"
 *
 * const names = Effect.map(Effect.service(BridgeApps), (bridge) => bridge.apps().map((app) => app.name))
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export class BridgeApps extends Context.Service<
  BridgeApps,
  {
    readonly endpoint: Endpoint
    readonly tokenFile: string | undefined
    readonly apps: () => ReadonlyArray<App>
  }
>()("effect-mcp-runtime/capabilities/bridge/BridgeApps") {}

// The runtime's own requests to an application (initialize, the lists) are limited in time; calls are limited
// by the execution policy.
const requestTimeout = Duration.seconds(10)
const maxPages = 100

const listChanged = new Set([
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed"
])

const isObject = (value: unknown): value is Record<string, any> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Each list's entries that are valid definitions, and why the others are not.
const checkTools = (items: ReadonlyArray<unknown>, problems: Array<string>): Array<UpstreamTool> =>
  items.filter((item, i): item is UpstreamTool => {
    const ok = isObject(item) && typeof item.name === "string" && isObject(item.inputSchema)
    if (!ok) problems.push(`tool #${i + 1}: not a tool definition (a name and an inputSchema object)`)
    return ok
  })
const checkResources = (items: ReadonlyArray<unknown>, problems: Array<string>): Array<UpstreamResource> =>
  items.filter((item, i): item is UpstreamResource => {
    const ok = isObject(item) && typeof item.name === "string" && typeof item.uri === "string"
    if (!ok) problems.push(`resource #${i + 1}: not a resource definition (a name and a uri)`)
    return ok
  })
const checkTemplates = (items: ReadonlyArray<unknown>, problems: Array<string>): Array<UpstreamTemplate> =>
  items.filter((item, i): item is UpstreamTemplate => {
    const ok = isObject(item) && typeof item.name === "string" && typeof item.uriTemplate === "string"
    if (!ok) problems.push(`resource template #${i + 1}: not a template definition (a name and a uriTemplate)`)
    return ok
  })
const checkPrompts = (items: ReadonlyArray<unknown>, problems: Array<string>): Array<UpstreamPrompt> =>
  items.filter((item, i): item is UpstreamPrompt => {
    const ok = isObject(item) && typeof item.name === "string"
    if (!ok) problems.push(`prompt #${i + 1}: not a prompt definition (a name)`)
    return ok
  })

const listAll = (peer: Peer, method: string, key: string): Effect.Effect<Array<unknown>, PeerError> =>
  Effect.gen(function* () {
    const items: Array<unknown> = []
    let cursor: string | undefined
    for (let page = 0; page < maxPages; page++) {
      const result = yield* peer.request(method, cursor === undefined ? {} : { cursor })
      if (isObject(result) && Array.isArray(result[key])) items.push(...(result[key] as Array<unknown>))
      cursor = isObject(result) && typeof result.nextCursor === "string" ? result.nextCursor : undefined
      if (cursor === undefined) break
    }
    return items
  })

// The kind a `toContents` problem line is about.
const kindOf = (problem: string): AppEntry["kind"] =>
  problem.startsWith("prompt") ? "prompt" : problem.startsWith("resource") ? "resource" : "tool"

const errorResult = (message: string, code: string, suggestion: string): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
  _meta: { [errorMetaKey]: { code, suggestion } }
})

interface Live {
  readonly app: App
  entries: ReadonlyArray<AppEntry>
}

/**
 * Builds the bridge's host: takes the connections of the listener, and
 * serves each application until it disconnects (in the layer's scope; they
 * are all closed with it).
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as BridgeHost from "./capabilities/bridge/host.ts"
 * import * as BridgeServer from "./layers/BridgeServer.ts"
 *
 * const Bridge = BridgeHost.layer.pipe(Layer.provide(BridgeServer.layer({ path: "/tmp/bridge.sock" })))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer: Layer.Layer<BridgeApps, never, Kernel | BridgeListener> = Layer.effect(
  BridgeApps,
  Effect.gen(function* () {
    const kernel = yield* Kernel
    const listener = yield* BridgeListener
    const config = yield* ServerConfig
    const live = new Map<string, Live>()

    // The names of the applications connected (or connecting).
    const reserved = new Set<string>()

    const serveApp = ({ connection, hello }: Accepted): Effect.Effect<void> =>
      Effect.suspend(() => serveNamed(connection, hello))

    const serveNamed = (connection: Accepted["connection"], hello: Accepted["hello"]): Effect.Effect<void> => {
      const name = hello.name
      const refuse = (reason: "name" | "name_taken", message: string) =>
        Effect.andThen(
          Effect.logWarning(`bridge: refused an application: ${message}`),
          Effect.andThen(connection.write(refusalLine(reason, message)), connection.end)
        )
      if (!namePattern.test(name)) {
        return refuse(
          "name",
          `the application name ${JSON.stringify(name)} must match ${namePattern.source} (lower case, digits, _)`
        )
      }
      if (reserved.has(name)) {
        const taken = live.get(name)?.app
        return refuse(
          "name_taken",
          `an application named ${name} is connected already (pid ${taken?.pid ?? "unknown"}` +
            `${taken === undefined ? "" : `, since ${taken.since}`}); choose another name, or disconnect it first`
        )
      }
      reserved.add(name)
      // Published names (kernel public names) of this application, to unregister.
      let published: Array<string> = []
      let fingerprint = ""

      return Effect.gen(function* () {
        const since = isoTime(yield* Clock.currentTimeMillis)
        const relists = yield* Queue.unbounded<void>()
        const peer = yield* makePeer(connection, {
          maxMessageBytes: config.maxMessageBytes,
          onNotification: (method, params) =>
            listChanged.has(method)
              ? Effect.asVoid(Queue.offer(relists, undefined))
              : method === "notifications/resources/updated" && typeof params?.uri === "string"
                ? Effect.asVoid(PubSub.publish(kernel.updates, params.uri))
                : Effect.void
        })

        const callTool: Forward["callTool"] = (tool, args) =>
          Effect.gen(function* () {
            const progress = yield* Progress
            const outcome = yield* peer
              .request(
                "tools/call",
                { name: tool, arguments: args },
                progress.enabled ? { onProgress: (update) => progress.report(update) } : undefined
              )
              .pipe(Effect.result)
            if (outcome._tag === "Success") {
              const result = outcome.success
              return isObject(result) && Array.isArray(result.content)
                ? (result as CallToolResult)
                : errorResult(
                    `The application ${name} answered the call of ${tool} with something that is not a tool result`,
                    "bridge_error",
                    "Report this to the application's developer; call other tools meanwhile."
                  )
            }
            const error = outcome.failure
            return error.gone
              ? errorResult(
                  `The application ${name} disconnected during the call of ${tool}; it may or may not have run.`,
                  "bridge_disconnected",
                  "Call bridge_list_client_tools_and_resources to see whether it reconnected, then retry."
                )
              : errorResult(
                  `The application ${name} answered the call of ${tool} with error ${error.code}: ${error.message}`,
                  "bridge_error",
                  "Check the arguments against the tool's inputSchema (tools/list), then retry."
                )
          })

        const failure = (what: string) => (error: PeerError) =>
          new UpstreamError({
            upstream: name,
            message: error.gone
              ? `The application ${name} disconnected during ${what}`
              : `The application ${name} answered ${what} with error ${error.code}: ${error.message}`,
            ...(error.code === undefined ? {} : { code: error.code })
          })

        const readResource: App["readResource"] = (uri) =>
          peer.request("resources/read", { uri }).pipe(
            Effect.mapError(failure(`resources/read for ${uri}`)),
            Effect.flatMap((result) =>
              isObject(result) && Array.isArray(result.contents)
                ? Effect.succeed(
                    (result.contents as Array<Record<string, unknown>>).map((item): Resource.Item =>
                      typeof item.text === "string"
                        ? {
                            uri: String(item.uri ?? uri),
                            mimeType: item.mimeType as string | undefined,
                            text: item.text
                          }
                        : {
                            uri: String(item.uri ?? uri),
                            mimeType: item.mimeType as string | undefined,
                            blob: String(item.blob ?? "")
                          }
                    )
                  )
                : Effect.fail(
                    new UpstreamError({
                      upstream: name,
                      message: `The application ${name} answered no contents for ${uri}`
                    })
                  )
            ),
            Effect.catchTag("UpstreamError", (error): Effect.Effect<never, UpstreamError | Resource.NotFound> =>
              error.code === -32002
                ? Effect.fail(new Resource.NotFound({ message: error.message }))
                : Effect.fail(error)
            )
          )

        const forward: Forward = {
          callTool,
          getPrompt: (prompt, args) =>
            peer.request("prompts/get", { name: prompt, arguments: args }).pipe(
              Effect.mapError(failure(`prompts/get for ${prompt}`)),
              Effect.map((result: any) => ({
                ...(typeof result?.description === "string" ? { description: result.description } : {}),
                messages: Array.isArray(result?.messages) ? result.messages : []
              }))
            ),
          readResource,
          complete: undefined
        }

        const app: App = {
          name,
          pid: hello.pid,
          since,
          get entries() {
            return live.get(name)?.entries ?? []
          },
          callTool: (tool, args) => callTool(tool, args, { output: undefined, retrySafe: false }),
          readResource
        }
        live.set(name, { app, entries: [] })

        // Lists the application and publishes what it lists in place of what it listed before.
        const publish = (capabilities: Record<string, unknown>) =>
          Effect.gen(function* () {
            const problems: Array<string> = []
            const [tools, resources, templates, prompts] = yield* Effect.all(
              [
                capabilities.tools === undefined ? Effect.succeed([]) : listAll(peer, "tools/list", "tools"),
                capabilities.resources === undefined
                  ? Effect.succeed([])
                  : listAll(peer, "resources/list", "resources"),
                capabilities.resources === undefined
                  ? Effect.succeed([])
                  : listAll(peer, "resources/templates/list", "resourceTemplates"),
                capabilities.prompts === undefined ? Effect.succeed([]) : listAll(peer, "prompts/list", "prompts")
              ],
              { concurrency: "unbounded" }
            ).pipe(Effect.timeout(requestTimeout))
            const lists: Lists = {
              tools: checkTools(tools, problems),
              resources: checkResources(resources, problems),
              templates: checkTemplates(templates, problems),
              prompts: checkPrompts(prompts, problems),
              toolProblems: [],
              promptProblems: [],
              resourceProblems: problems
            }
            const now = JSON.stringify(lists)
            if (now === fingerprint) return
            fingerprint = now
            const contents = toContents(name, lists, forward, () => () => undefined)
            yield* Effect.forEach(published, (publicName) => kernel.unregisterDynamic(publicName), { discard: true })
            published = []
            const entries: Array<AppEntry> = []
            const register = (
              kind: AppEntry["kind"],
              entryName: string,
              extra: Partial<AppEntry>,
              registration: Effect.Effect<string, KernelError>
            ) =>
              Effect.map(Effect.result(registration), (outcome) => {
                if (outcome._tag === "Success") {
                  published.push(outcome.success)
                  entries.push({ kind, name: entryName, ...extra, publicName: outcome.success })
                } else {
                  entries.push({ kind, name: entryName, ...extra, refused: outcome.failure.message })
                }
              })
            // The handlers need `Progress` only, which the server provides to every call itself.
            for (const tool of contents.tools) {
              yield* register(
                "tool",
                tool.tool.name,
                { description: tool.tool.description },
                kernel.registerDynamic(tool as unknown as Tool.Handled<never>)
              )
            }
            for (const resource of contents.resources) {
              const declared = resource.resource
              yield* register(
                "resource",
                declared.name,
                {
                  description: declared.description,
                  uri: declared._tag === "Resource" ? declared.uri : declared.uriTemplate
                },
                kernel.registerDynamicResource(resource)
              )
            }
            for (const prompt of contents.prompts) {
              yield* register(
                "prompt",
                prompt.prompt.name,
                { description: prompt.prompt.description },
                kernel.registerDynamicPrompt(prompt)
              )
            }
            for (const problem of contents.problems)
              entries.push({ kind: kindOf(problem), name: problem, refused: problem })
            const entry = live.get(name)
            if (entry !== undefined) entry.entries = entries
            const refused = entries.filter((e) => e.refused !== undefined)
            yield* peer.notify(registeredMethod, {
              published: entries
                .filter((e) => e.publicName !== undefined)
                .map((e): Entry => ({ kind: e.kind, name: e.name, publicName: e.publicName! })),
              refused: refused.map((e): Entry => ({ kind: e.kind, name: e.name, reason: e.refused! }))
            })
            yield* Effect.logInfo(
              `bridge: application ${name} publishes ${published.length} entr${published.length === 1 ? "y" : "ies"}` +
                (published.length === 0 ? "" : `: ${published.join(", ")}`)
            )
            if (refused.length > 0) {
              yield* Effect.logWarning(
                `bridge: application ${name}: ${refused.length} entr${refused.length === 1 ? "y" : "ies"} not published: ` +
                  refused.map((e) => `${e.kind} ${e.name}: ${e.refused}`).join("; ")
              )
            }
          })

        yield* connection.write(welcomeLine)
        const initialized = yield* peer
          .request("initialize", {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "mcp-runtime-bridge", version: "1" }
          })
          .pipe(Effect.timeout(requestTimeout))
        yield* peer.notify("notifications/initialized")
        const capabilities = isObject(initialized) && isObject(initialized.capabilities) ? initialized.capabilities : {}
        yield* Effect.logInfo(`bridge: application ${name} connected (pid ${hello.pid ?? "unknown"})`)
        yield* publish(capabilities)
        yield* Effect.forkScoped(
          Effect.forever(
            Effect.andThen(Queue.takeAll(relists), () =>
              publish(capabilities).pipe(
                Effect.catchCause((cause) => Effect.logWarning(`bridge: application ${name}: re-listing failed`, cause))
              )
            )
          )
        )
        yield* peer.ended
      }).pipe(
        Effect.scoped,
        Effect.catchCause((cause) => Effect.logWarning(`bridge: application ${name} dropped`, cause)),
        Effect.ensuring(
          Effect.suspend(() => {
            live.delete(name)
            reserved.delete(name)
            const names = published
            published = []
            return Effect.andThen(
              Effect.forEach(names, (publicName) => kernel.unregisterDynamic(publicName), { discard: true }),
              Effect.andThen(connection.destroy, Effect.logInfo(`bridge: application ${name} disconnected`))
            )
          })
        ),
        Effect.annotateLogs({ bridge: name })
      )
    }

    yield* listener.accepted.pipe(
      Stream.runForEach((accepted) => Effect.forkScoped(serveApp(accepted))),
      Effect.forkScoped
    )
    return BridgeApps.of({
      endpoint: listener.endpoint,
      tokenFile: listener.tokenFile,
      apps: () => [...live.values()].map((entry) => entry.app)
    })
  })
)
