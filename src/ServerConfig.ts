/**
 * The server's own settings: who it says it is, what it tells the model, and
 * its limits. Every field has a documented default, so a library user only
 * sets what they change.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { defaultMaxMessageBytes } from "./Transport.ts"

/**
 * The server's settings: its identity, its instructions to the model, and its
 * limits.
 *
 * **Example**
 *
 * ```ts
 * import * as ServerConfig from "effect-mcp-runtime/ServerConfig"
 *
 * const config: ServerConfig.ServerConfigShape = { ...ServerConfig.ServerConfig.defaultValue(), name: "notes" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerConfigShape {
  /** `serverInfo.name` (default `effect-mcp-runtime`). */
  readonly name: string
  /** `serverInfo.version` (default the package version). */
  readonly version: string
  /** `serverInfo.title`, a display name. */
  readonly title: string | undefined
  /** `instructions` sent in the `initialize` result: how to use this server. */
  readonly instructions: string | undefined
  /** Largest incoming message in bytes; a longer line gets −32600 (default 4 MiB). */
  readonly maxMessageBytes: number
  /** How long in-flight requests may run after input ends or SIGTERM (default 5000 ms). */
  readonly shutdownGraceMs: number
  /**
   * 2026-07-28: how long a client may keep the results of `server/discover`,
   * `tools/list`, `prompts/list`, `resources/list` and
   * `resources/templates/list` (`ttlMs`, default 60000). Changes still reach
   * `subscriptions/listen` streams at once; 0 tells clients to ask again
   * every time.
   */
  readonly listTtlMs: number
}

/**
 * The package version, reported as `serverInfo.version` by default.
 *
 * **Example**
 *
 * ```ts
 * import * as ServerConfig from "effect-mcp-runtime/ServerConfig"
 *
 * ServerConfig.packageVersion // => "0.4.0"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const packageVersion = "0.4.0"

/**
 * The server configuration, a reference with defaults.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { ServerConfig } from "effect-mcp-runtime/ServerConfig"
 *
 * const program = Effect.gen(function*() {
 *   const config = yield* ServerConfig
 *   return config.maxMessageBytes // => 4194304
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const ServerConfig = Context.Reference<ServerConfigShape>("effect-mcp-runtime/ServerConfig", {
  defaultValue: () => ({
    name: "effect-mcp-runtime",
    version: packageVersion,
    title: undefined,
    instructions: undefined,
    maxMessageBytes: defaultMaxMessageBytes,
    shutdownGraceMs: 5000,
    listTtlMs: 60_000
  })
})

/**
 * Overrides some settings, keeping the defaults for the rest.
 *
 * **Example**
 *
 * ```ts
 * import * as ServerConfig from "effect-mcp-runtime/ServerConfig"
 *
 * const config = ServerConfig.layer({ name: "notes", instructions: "Call notes_search first." })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: {
  readonly [K in keyof ServerConfigShape]?: ServerConfigShape[K] | undefined
}): Layer.Layer<never> =>
  Layer.succeed(ServerConfig, {
    ...ServerConfig.defaultValue(),
    ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<ServerConfigShape>)
  }) as Layer.Layer<never>
