/**
 * Server logs: one JSON object per line on stderr. stdout is the protocol
 * wire and never carries a log.
 *
 * The lines have the shape of Effect's `Logger.formatJson` (`message`,
 * `level`, `timestamp`, `cause`, `annotations`, `spans`, `fiberId`), with one
 * difference: `Effect.log("text", { fields })` gives `"message": "text"` and
 * puts the fields with the annotations. Fields that carry their own JSON
 * (the server's per-request line: under the symbol
 * `Symbol.for("effect-mcp-runtime/log-fields-json")`, the text
 * `JSON.stringify` would give) are written as that text, not serialized
 * again. The lines logged within
 * {@link flushWindowMs} (10 ms) go out in one write: a busy server logs one
 * line per request without paying a system call per line. Pending lines are
 * written when the layer is released and when the process exits; a
 * `kill -9` can lose the last 10 ms of them.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import { safeReplacer } from "../src/internal/jsonSafe.ts"

/**
 * Formats a log entry as one JSON line (without the newline), in the shape
 * of Effect's `Logger.formatJson`; a message of a text and one plain object
 * becomes the text, with the object's fields among the annotations.
 *
 * **Example**
 *
 * ```ts
 * import * as Logger from "effect/Logger"
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * const lines: Array<string> = []
 * const capture = Logger.make((options) => {
 *   lines.push(Logging.formatLine(options))
 * })
 * ```
 *
 * @category formatting
 * @since 0.1.0
 */
export const formatLine = (options: Logger.Options<unknown>): string => {
  const { cause, date, fiber, logLevel } = options
  let message = options.message
  let annotations = fiber.getRef(References.CurrentLogAnnotations) as Record<string, unknown>
  // The annotations' JSON, when the fields come with their own (see `preformatted`).
  let annotationsJson: string | undefined
  if (Array.isArray(message)) {
    // `Effect.log("text", { fields })`: the fields join the annotations.
    const last = message[message.length - 1]
    if (message.length === 2 && typeof message[0] === "string" && isPlainObject(last)) {
      annotationsJson = preformatted(annotations, last)
      if (annotationsJson === undefined) annotations = isEmpty(annotations) ? last : { ...annotations, ...last }
      message = message[0]
    } else if (message.length === 1) {
      message = message[0]
    }
  }
  let spans = "{}"
  const logSpans = fiber.getRef(References.CurrentLogSpans)
  if (logSpans.length > 0) {
    const now = date.getTime()
    const record: Record<string, number> = {}
    for (const [label, start] of logSpans) record[label] = now - start
    spans = JSON.stringify(record)
  }
  // Built by hand around the two parts that vary (message, annotations): the
  // per-request line is on the server's hot path.
  return (
    `{"message":${typeof message === "string" ? JSON.stringify(message) : json(message)},"level":"${levels[logLevel]}","timestamp":"${isoOf(date)}"` +
    (cause.reasons.length > 0 ? `,"cause":${JSON.stringify(Cause.pretty(cause))}` : "") +
    `,"annotations":${annotationsJson ?? json(annotations)},"spans":${spans},"fiberId":"#${fiber.id}"}`
  )
}

/**
 * The key under which a log message's fields may carry their own JSON (the
 * server's per-request line does: `src/internal/dispatch.ts`, under the
 * same `Symbol.for` name).
 */
const fieldsJsonKey = Symbol.for("effect-mcp-runtime/log-fields-json")

// The JSON of the annotations merged with `fields`, from the JSON the fields carry: as it is with no annotations,
// the annotations' own in front when no key is in both; undefined when the fields carry none (or a key is in both).
const preformatted = (
  annotations: Record<string, unknown>,
  fields: Record<PropertyKey, unknown>
): string | undefined => {
  const own = fields[fieldsJsonKey]
  if (typeof own !== "string") return undefined
  if (isEmpty(annotations)) return own
  for (const key in annotations) if (key in fields) return undefined
  const before = json(annotations)
  // (Annotations whose values are all undefined serialize as `{}` too.)
  return own === "{}" ? before : before === "{}" ? own : `${before.slice(0, -1)},${own.slice(1)}`
}

// Lines logged within the same millisecond share one formatted timestamp.
let lastMillis = NaN
let lastIso = ""
const isoOf = (date: Date): string => {
  const millis = date.getTime()
  if (millis !== lastMillis) {
    lastMillis = millis
    lastIso = date.toISOString()
  }
  return lastIso
}

const levels: Record<LogLevel.LogLevel, string> = {
  All: "ALL",
  Fatal: "FATAL",
  Error: "ERROR",
  Warn: "WARN",
  Info: "INFO",
  Debug: "DEBUG",
  Trace: "TRACE",
  None: "NONE"
}

const json = (value: unknown): string => {
  if (!hasError(value)) {
    try {
      return JSON.stringify(value) ?? "null"
    } catch {
      // a bigint or a cycle: the careful way below
    }
  }
  return JSON.stringify(value, safeReplacer()) ?? "null"
}

// Errors serialize as `{}` without complaint: look for them one level deep
// (a message's parts, an annotation's values), where logs put them.
const hasError = (value: unknown): boolean => {
  if (value instanceof Error) return true
  if (typeof value !== "object" || value === null) return false
  for (const key in value) {
    if ((value as Record<string, unknown>)[key] instanceof Error) return true
  }
  return false
}

const isEmpty = (record: Record<string, unknown>): boolean => {
  for (const _ in record) return false
  return true
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * How long a log line may wait to be written with the lines that follow it.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * Logging.flushWindowMs // => 10
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const flushWindowMs = 10

/**
 * Collects lines and writes them with one call of `write` per
 * {@link flushWindowMs}; a batch larger than 64 KiB is written at once.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * const out: Array<string> = []
 * const sink = Logging.makeBatchedSink((text) => out.push(text))
 * sink.add('{"a":1}')
 * sink.add('{"b":2}')
 * sink.flush() // out: ['{"a":1}\n{"b":2}\n']
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeBatchedSink = (
  write: (text: string) => void
): { readonly add: (line: string) => void; readonly flush: () => void } => {
  let pending = ""
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending
    pending = ""
    write(text)
  }
  return {
    add: (line) => {
      pending += line + "\n"
      if (pending.length >= 64 * 1024) return flush()
      if (!scheduled) {
        scheduled = true
        // A short window rather than the next tick: a server answering one
        // request at a time would otherwise make one write per request.
        setTimeout(flush, flushWindowMs).unref()
      }
    },
    flush
  }
}

const writeStderr = (text: string): void => {
  try {
    process.stderr.write(text)
  } catch {
    // stderr is gone: nothing left to report to.
  }
}

/**
 * JSON logs on stderr at the given minimum level (default `Info`), batched
 * per tick.
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
    Layer.unwrap(
      Effect.gen(function* () {
        const sink = makeBatchedSink(writeStderr)
        // A client that closed its end of stderr must not crash the server:
        // the write error arrives as an event, not as an exception.
        const onError = () => {}
        process.stderr.on("error", onError)
        const onExit = () => sink.flush()
        process.once("exit", onExit)
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            process.off("exit", onExit)
            sink.flush()
            process.stderr.off("error", onError)
          })
        )
        return Logger.layer([Logger.make((options) => sink.add(formatLine(options)))])
      })
    ),
    Layer.succeed(References.MinimumLogLevel, level)
  )
