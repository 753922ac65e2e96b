/**
 * Log messages for the client (`notifications/message`), apart from the
 * server's own logs on stderr. A message is sent when its level is at or
 * above the level the client chose with `logging/setLevel` — or, before it
 * chose one, `Policy.clientLogLevel` (default `info`). The logger name
 * defaults to the public name of the tool being called.
 *
 * Never put secrets or personal data in a client log message: the client
 * may show it to the user or to the model.
 *
 * The server provides a `ClientLog` to every request; a capability never
 * provides it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const fetchPage = Effect.gen(function*() {
 *   yield* ClientLog.info("fetching page 2")
 *   yield* ClientLog.warning({ skipped: 3, reason: "binary files" }, { logger: "indexer" })
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { LoggingLevel } from "./McpSchema.ts"

/**
 * The severity of each level, lowest first (RFC 5424 order).
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * ClientLog.severity.warning > ClientLog.severity.info // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const severity: { readonly [L in LoggingLevel]: number } = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7
}

/**
 * Options of one log message.
 *
 * **Example**
 *
 * ```ts
 * import type * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const options: ClientLog.Options = { logger: "indexer" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The logger name shown by the client (default: the tool's public name). */
  readonly logger?: string | undefined
}

/**
 * The client log of the current request.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { ClientLog } from "effect-mcp-runtime/ClientLog"
 *
 * const verbose = Effect.map(Effect.service(ClientLog), (log) => log.enabled("debug"))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class ClientLog extends Context.Service<
  ClientLog,
  {
    /** Whether a message at `level` would be sent now. */
    readonly enabled: (level: LoggingLevel) => boolean
    /** Sends `data` (any JSON value) at `level`, if the client's level lets it through. */
    readonly log: (level: LoggingLevel, data: unknown, options?: Options) => Effect.Effect<void>
  }
>()("effect-mcp-runtime/ClientLog") {}

/**
 * Sends a log message to the client at the given level.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const note = ClientLog.log("notice", "cache rebuilt")
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const log = (level: LoggingLevel, data: unknown, options?: Options): Effect.Effect<void, never, ClientLog> =>
  Effect.flatMap(Effect.service(ClientLog), (service) => service.log(level, data, options))

const at =
  (level: LoggingLevel) =>
  (data: unknown, options?: Options): Effect.Effect<void, never, ClientLog> =>
    log(level, data, options)

/**
 * Sends a `debug` message.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const trace = ClientLog.debug({ step: "parse", ms: 12 })
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const debug = at("debug")

/**
 * Sends an `info` message.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const started = ClientLog.info("build started")
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const info = at("info")

/**
 * Sends a `notice` message.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const cached = ClientLog.notice("using the cached index")
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const notice = at("notice")

/**
 * Sends a `warning` message.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const slow = ClientLog.warning("the index is stale; results may be incomplete")
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const warning = at("warning")

/**
 * Sends an `error` message.
 *
 * **Example**
 *
 * ```ts
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const failed = ClientLog.error({ file: "a.ts", reason: "unreadable" })
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const error = at("error")

/**
 * A `ClientLog` that sends nothing, for handlers run outside a server.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as ClientLog from "effect-mcp-runtime/ClientLog"
 *
 * const quiet = Effect.provideService(ClientLog.info("hello"), ClientLog.ClientLog, ClientLog.disabled)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const disabled: ClientLog["Service"] = ClientLog.of({ enabled: () => false, log: () => Effect.void })
