/**
 * Protocol extensions (MCP 2026-07-28, `capabilities.extensions`): a named
 * set of methods a capability adds to the protocol, with the settings the
 * server advertises for it in `server/discover`. The Skills extension
 * (`io.modelcontextprotocol/skills`: `skills/list`, `skills/get`,
 * `resources/directory/read`) is one.
 *
 * A capability contributes extensions next to its tools (`Capability.make`
 * returns `{ tools, extensions }`); their methods run like its tools, with
 * the capability's services and the request's own. Extensions are served to
 * 2026-07-28 requests only, since earlier revisions have no
 * `capabilities.extensions`. An extension whose id another capability took,
 * or a method another extension serves, fails at startup with a typed
 * error; an extension never replaces a core method (the server looks those
 * up first).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Extension from "effect-mcp-runtime/Extension"
 * import * as Method from "effect-mcp-runtime/Method"
 *
 * const echo = Method.request("example/echo", {
 *   params: Schema.Struct({ text: Schema.String }),
 *   handler: ({ text }) => Effect.succeed({ text })
 * })
 *
 * export const Echo = Extension.make("com.example/echo", { settings: { maxLength: 100 }, methods: [echo] })
 * ```
 *
 * @since 0.2.0
 */
import type * as Method from "./Method.ts"

/**
 * An extension: its identifier, the settings advertised for it, its methods.
 *
 * **Example**
 *
 * ```ts
 * import type * as Extension from "effect-mcp-runtime/Extension"
 *
 * const idOf = (extension: Extension.Extension<never>): string => extension.id
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Extension<R = never> {
  readonly _tag: "Extension"
  /** `<prefix>/<name>`, the prefix being reversed DNS labels: `io.modelcontextprotocol/skills`. */
  readonly id: string
  /** Advertised as `capabilities.extensions[id]` (`{}`: supported, no settings). */
  readonly settings: { readonly [key: string]: unknown }
  readonly methods: ReadonlyArray<Method.Request<R>>
}

/**
 * The requirements of an extension's methods.
 *
 * **Example**
 *
 * ```ts
 * import type * as Extension from "effect-mcp-runtime/Extension"
 *
 * interface Store { readonly _: unique symbol }
 * type Needs = Extension.Requirements<Extension.Extension<Store>> // Store
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type Requirements<E> = E extends Extension<infer R> ? R : never

/**
 * The pattern of an extension identifier: a mandatory prefix of dot-separated
 * labels, `/`, then a name (the `_meta` key rules of MCP).
 *
 * **Example**
 *
 * ```ts
 * import * as Extension from "effect-mcp-runtime/Extension"
 *
 * Extension.idPattern.test("io.modelcontextprotocol/tasks") // => true
 * Extension.idPattern.test("tasks") // => false
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const idPattern =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\/[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/i

/**
 * The methods of the core protocol (every revision), which no extension may
 * serve.
 *
 * **Example**
 *
 * ```ts
 * import * as Extension from "effect-mcp-runtime/Extension"
 *
 * Extension.coreMethods.has("tools/call") // => true
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const coreMethods: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "server/discover",
  "subscriptions/listen",
  "tools/list",
  "tools/call",
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
  "logging/setLevel",
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
  "tasks/result",
  "tasks/list"
])

/**
 * Declares an extension.
 *
 * **Example**
 *
 * ```ts
 * import * as Extension from "effect-mcp-runtime/Extension"
 *
 * const Marker = Extension.make("com.example/marker") // advertised as {}, no methods
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = <R = never>(
  id: string,
  options: {
    readonly settings?: { readonly [key: string]: unknown } | undefined
    readonly methods?: ReadonlyArray<Method.Request<R>> | undefined
  } = {}
): Extension<R> => ({ _tag: "Extension", id, settings: options.settings ?? {}, methods: options.methods ?? [] })
