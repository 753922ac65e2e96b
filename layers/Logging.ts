/**
 * Server logs: one JSON object per line on stderr. stdout is the protocol
 * wire and never carries a log.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"

/**
 * JSON logs on stderr at the given minimum level (default `Info`).
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * const LogsLive = Logging.layerJsonStderr("Debug")
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerJsonStderr = (level: LogLevel.LogLevel = "Info"): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
    Layer.succeed(References.MinimumLogLevel, level)
  )
