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
import * as fs from "node:fs"
import { Worker } from "node:worker_threads"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import { isoTime } from "../src/internal/isoTime.ts"
import { safeReplacer } from "../src/internal/jsonSafe.ts"
import {
  fieldsJsonKey,
  makeRequestLineFormat,
  type RequestLineFormat,
  requestLineKey,
  type RequestLineValues,
  type RequestLineWriter
} from "../src/internal/requestLine.ts"

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
    `{"message":${typeof message === "string" ? JSON.stringify(message) : json(message)},"level":"${levels[logLevel]}","timestamp":"${isoTime(date.getTime())}"` +
    (cause.reasons.length > 0 ? `,"cause":${JSON.stringify(Cause.pretty(cause))}` : "") +
    `,"annotations":${annotationsJson ?? json(annotations)},"spans":${spans},"fiberId":"#${fiber.id}"}`
  )
}

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

/**
 * The line {@link formatLine} gives for the server's per-request
 * `Effect.logInfo("request", fields)` on a fiber without log annotations or
 * spans, built straight from the values (what the JSON logger does for every
 * request: see `requestLineKey` in `src/internal/requestLine.ts`). The same
 * text, character for character.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * Logging.formatRequestLine(
 *   7,
 *   Date.UTC(2026, 10, 25),
 *   "tools/call",
 *   1,
 *   "ab12-1",
 *   "system",
 *   "system_echo",
 *   0,
 *   0.2,
 *   "ok",
 *   undefined,
 *   90,
 *   120
 * )
 * // => '{"message":"request","level":"INFO","timestamp":"2026-11-25T00:00:00.000Z","annotations":{"method":"tools/call",…},"spans":{},"fiberId":"#7"}'
 * ```
 *
 * @category formatting
 * @since 0.5.0
 */
export const formatRequestLine: (...values: RequestLineValues) => string = makeRequestLineFormat().line

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

/**
 * How many lines may wait for the stderr worker to write them (about 10 MB
 * of request lines): past it, lines are dropped (and counted) rather than
 * kept, so that a client that never reads stderr costs the server neither
 * memory nor time.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * Logging.maxPendingLines // => 32768
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const maxPendingLines = 32_768

/**
 * The process's stderr, as the server writes it: text, and the per-request
 * line given as its values.
 *
 * @category models
 * @since 0.5.0
 */
export interface StderrWriter {
  /** Writes complete lines (the text ends with a newline). */
  readonly write: (text: string) => void
  /** Writes the per-request line of these values (see {@link formatRequestLine}). */
  readonly request: RequestLineWriter
  /** Writes everything waiting, and waits (at most a second) until it is written: the process is exiting. */
  readonly flushSync: () => void
  /** Lines dropped so far because stderr was not read fast enough. */
  readonly dropped: () => number
}

// The stderr worker: formats the batches of request lines it is sent (with the same formatter as this thread) and
// writes them, with the text lines among them, in order, in writes of at most 4 KiB that end at a line's end: a pipe
// takes such a write whole or not at all, so a process that exits (or is killed) mid-batch never leaves half a line.
// It counts the lines written in the shared counter. Self-contained: it runs from its source text.
function stderrWorkerMain(require: (id: string) => any, makeFormat: () => RequestLineFormat): void {
  const fs = require("node:fs")
  const { parentPort, workerData } = require("node:worker_threads")
  const written = new Int32Array(workerData.counter)
  const format = makeFormat().line
  const chunkChars = 4000
  let gone = false
  const writeAll = (text: string): void => {
    if (gone) return
    try {
      const bytes = Buffer.from(text, "utf8")
      let at = 0
      while (at < bytes.length) {
        try {
          at += fs.writeSync(2, bytes, at, bytes.length - at)
        } catch (error: any) {
          // A non-blocking descriptor whose pipe is full: wait for the reader a little.
          if (error?.code !== "EAGAIN") throw error
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2)
        }
      }
    } catch {
      // stderr is gone (EPIPE, EBADF…): nothing left to report to.
      gone = true
    }
  }
  parentPort.on("message", (batch: Array<any>) => {
    let chunk = ""
    let lines = 0
    const flush = (): void => {
      writeAll(chunk)
      Atomics.add(written, 0, lines)
      Atomics.notify(written, 0)
      chunk = ""
      lines = 0
    }
    for (let i = 0; i < batch.length;) {
      let line: string
      if (batch[i] === 1) {
        line = batch[i + 1]
        i += 2
      } else {
        line =
          format(
            batch[i + 1],
            batch[i + 2],
            batch[i + 3],
            batch[i + 4],
            batch[i + 5],
            batch[i + 6],
            batch[i + 7],
            batch[i + 8],
            batch[i + 9],
            batch[i + 10],
            batch[i + 11],
            batch[i + 12],
            batch[i + 13]
          ) + "\n"
        i += 14
      }
      if (lines > 0 && chunk.length + line.length > chunkChars) flush()
      chunk += line
      lines++
    }
    if (lines > 0) flush()
  })
}

const workerSource = `"use strict";(${stderrWorkerMain.toString()})(require, ${makeRequestLineFormat.toString()})`

// With no worker (one that cannot start, or one that stopped): lines written here, at once, in order.
const directWriter = (): StderrWriter => {
  const format = makeRequestLineFormat().line
  const sink = makeBatchedSink((text) => {
    try {
      fs.writeSync(2, text)
    } catch {
      // stderr is gone, or will not take more now.
    }
  })
  return {
    write: (text) => sink.add(text.endsWith("\n") ? text.slice(0, -1) : text),
    request: (...args) => sink.add(format(...args)),
    flushSync: sink.flush,
    dropped: () => 0
  }
}

/**
 * A stderr writer whose writing is done by a worker thread: the server's own
 * thread only collects the values of each request line (and the text of
 * other lines) and hands them over in batches, every
 * {@link flushWindowMs} or 2,048 request lines; the worker formats them and
 * writes them in order, in writes of at most 4 KiB. So the per-request line
 * costs the server's thread a few stores, not the formatting, the encoding
 * and the system call (which took it about a fifth of its time). When stderr
 * is not read fast enough, at most {@link maxPendingLines} lines wait and
 * later lines are dropped, then counted in a line of their own. Without
 * worker threads, the lines are written by this thread.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * const writer = Logging.makeStderrWriter()
 * writer.write("one line\n")
 * process.once("exit", () => writer.flushSync())
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const makeStderrWriter = (): StderrWriter => {
  let worker: Worker
  const counter = new SharedArrayBuffer(4)
  const written = new Int32Array(counter)
  try {
    worker = new Worker(workerSource, { eval: true, workerData: { counter }, stdout: false, stderr: false })
  } catch {
    return directWriter()
  }
  worker.unref()
  let fallback: StderrWriter | undefined
  let batch: Array<unknown> = []
  // Lines (request lines and texts) in the batch being collected, and handed over in all.
  let items = 0
  let posted = 0
  let scheduled = false
  let dropped = 0
  let droppedUnreported = 0
  // A worker that fails or stops: this thread writes the lines from then on.
  const stopped = () => {
    fallback ??= directWriter()
  }
  worker.on("error", stopped)
  worker.on("exit", stopped)
  // `force`: the process is exiting, everything collected goes (the bound only protects a running server).
  const post = (force = false): void => {
    scheduled = false
    if (fallback !== undefined) {
      batch = []
      items = 0
      return
    }
    if (batch.length === 0 && droppedUnreported === 0) return
    // Lines handed over and not written yet (the counters wrap around together).
    if (!force && ((posted - Atomics.load(written, 0)) | 0) + items > maxPendingLines) {
      dropped += items
      droppedUnreported += items
      batch = []
      items = 0
      // Tried again until there is room to say how many were dropped.
      schedule()
      return
    }
    if (droppedUnreported > 0) {
      const count = droppedUnreported
      droppedUnreported = 0
      batch.unshift(
        1,
        `{"message":"${count} log line${count === 1 ? "" : "s"} dropped: stderr was not read fast enough",` +
          `"level":"WARN","timestamp":"${new Date().toISOString()}","annotations":{"dropped":${count}},"spans":{}}\n`
      )
      items++
    }
    worker.postMessage(batch)
    posted = (posted + items) | 0
    batch = []
    items = 0
  }
  const schedule = (): void => {
    if (!scheduled) {
      scheduled = true
      setTimeout(post, flushWindowMs).unref()
    }
  }
  return {
    write: (text) => {
      if (fallback !== undefined) return fallback.write(text)
      batch.push(1, text)
      items++
      schedule()
    },
    request: (
      fiberId,
      millis,
      method,
      id,
      correlationId,
      component,
      tool,
      queueMs,
      elapsedMs,
      outcome,
      error,
      bytesIn,
      bytesOut
    ) => {
      if (fallback !== undefined) {
        return fallback.request(
          fiberId,
          millis,
          method,
          id,
          correlationId,
          component,
          tool,
          queueMs,
          elapsedMs,
          outcome,
          error,
          bytesIn,
          bytesOut
        )
      }
      batch.push(
        0,
        fiberId,
        millis,
        method,
        id,
        correlationId,
        component,
        tool,
        queueMs,
        elapsedMs,
        outcome,
        error,
        bytesIn,
        bytesOut
      )
      if (++items >= 2048) post()
      else schedule()
    },
    flushSync: () => {
      if (fallback !== undefined) return fallback.flushSync()
      post(true)
      // The worker writes what it was sent; this thread waits for it (at most a second).
      const deadline = Date.now() + 1000
      for (let done = Atomics.load(written, 0); ((posted - done) | 0) > 0; done = Atomics.load(written, 0)) {
        const left = deadline - Date.now()
        if (left <= 0) break
        Atomics.wait(written, 0, done, left)
      }
    },
    dropped: () => dropped
  }
}

let stderrWriter: StderrWriter | undefined

/**
 * The process's stderr writer ({@link makeStderrWriter}), made on first use
 * and flushed when the process exits. Everything the server writes on
 * stderr goes through it, so that lines never interleave.
 *
 * **Example**
 *
 * ```ts
 * import * as Logging from "effect-mcp-runtime/layers/Logging"
 *
 * Logging.stderr().write("Inspect: http://127.0.0.1:4000/?token=…\n")
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const stderr = (): StderrWriter => {
  if (stderrWriter === undefined) {
    const writer = makeStderrWriter()
    stderrWriter = writer
    process.once("exit", () => writer.flushSync())
  }
  return stderrWriter
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
      Effect.sync(() => {
        // Every line goes to the process's stderr writer (a worker thread writes them, all before the process exits).
        const writer = stderr()
        const logger = Logger.make((options) => writer.write(`${formatLine(options)}\n`))
        // The per-request line, from its values (see `formatRequestLine`).
        Object.defineProperty(logger, requestLineKey, { value: writer.request })
        return Logger.layer([logger])
      })
    ),
    Layer.succeed(References.MinimumLogLevel, level)
  )
