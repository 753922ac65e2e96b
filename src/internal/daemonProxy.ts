/**
 * `serve --daemon auto` as a proxy: stdin goes to the daemon's socket as it
 * came (byte for byte), the daemon's lines go to stdout, and what is needed to
 * carry on without the daemon is read from the messages as they pass — the
 * client's `initialize` and `notifications/initialized` (and its log level
 * and resource subscriptions), and the ids of the requests the daemon has
 * not answered yet. Lines are parsed only as far as that needs.
 *
 * When the daemon's connection is lost while the client is still talking,
 * the session moves into this process without the client noticing more than
 * an error for each request that was in flight: the in-process server is
 * started, the kept messages are replayed into it (their responses
 * swallowed), and stdin goes to it from then on.
 *
 * @since 0.4.0
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { parseJson as parse } from "./jsonRpc.ts"

/**
 * The JSON-RPC error code of a request the daemon was serving when it was
 * lost: −32603 (internal error).
 *
 * **Example**
 *
 * ```ts
 * import { lostCode } from "./src/internal/daemonProxy.ts"
 *
 * lostCode // => -32603
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const lostCode = -32603

/**
 * The message of that error.
 *
 * **Example**
 *
 * ```ts
 * import { lostMessage } from "./src/internal/daemonProxy.ts"
 *
 * lostMessage.startsWith("The mcp-runtime daemon") // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const lostMessage =
  "The mcp-runtime daemon serving this session was lost before it answered this request; the session goes on " +
  "in the server's own process, and the request may be retried."

/** Ids of the replayed requests; their responses are swallowed. */
const replayPrefix = "mcp-runtime-replay-"
const replayHead = `{"jsonrpc":"2.0","id":"${replayPrefix}`

// `{"jsonrpc":"2.0","id":<id>,"result"|"error"`: how the server writes a response (src/internal/jsonRpc.ts).
const responseHead = /^\{"jsonrpc":"2\.0","id":(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}"),"(?:result|error)"/
// Lines the server writes that are not responses: notifications and requests of its own.
const notResponseHead = /^\{"jsonrpc":"2\.0",(?:"method"|"id":(?:-?\d{1,16}|"(?:[^"\\]|\\.){0,256}"),"method")/

type Id = string | number

const isId = (value: unknown): value is Id =>
  typeof value === "string" || (typeof value === "number" && Number.isInteger(value))

/**
 * What the proxy reads from the messages that pass: the requests in flight,
 * and the client's messages to replay into a new server.
 *
 * **Example**
 *
 * ```ts
 * import { makeTracker } from "./src/internal/daemonProxy.ts"
 *
 * const tracker = makeTracker(4 * 1024 * 1024)
 * tracker.clientChunk(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'))
 * tracker.inFlight() // => ["1"]
 * tracker.serverLine('{"jsonrpc":"2.0","id":1,"result":{}}')
 * tracker.inFlight() // => []
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Tracker {
  /** Bytes from the client, as they came: complete lines are read. */
  readonly clientChunk: (chunk: Uint8Array) => void
  /** One line the server wrote. */
  readonly serverLine: (line: string) => void
  /** The ids (as JSON text) of the requests sent and not answered. */
  readonly inFlight: () => ReadonlyArray<string>
  /** The messages that re-create the client's session in a new server, as lines, with the ids to swallow. */
  readonly replay: () => ReadonlyArray<string>
  /** The bytes of the client's line in progress (not sent whole yet); `oversize` when it was too long to keep. */
  readonly pending: () => { readonly bytes: Uint8Array | undefined; readonly oversize: boolean }
}

/**
 * Builds a tracker; client lines longer than `maxBytes` are not read (the
 * server refuses them anyway).
 *
 * **Example**
 *
 * ```ts
 * import { makeTracker } from "./src/internal/daemonProxy.ts"
 *
 * const tracker = makeTracker(1024)
 * tracker.replay() // => []
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const makeTracker = (maxBytes: number): Tracker => {
  const inFlight = new Set<string>()
  let initialize: Record<string, unknown> | undefined
  let initialized: string | undefined
  let logLevel: Record<string, unknown> | undefined
  const subscriptions = new Map<string, Record<string, unknown>>()
  let parts: Array<Uint8Array> = []
  let size = 0
  let oversize = false

  const clientMessage = (message: unknown, line: string) => {
    if (typeof message !== "object" || message === null) return
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown }
    if (typeof method !== "string") return
    if (id === undefined) {
      if (method === "notifications/initialized") initialized = line
      else if (method === "notifications/cancelled") {
        const requestId = (params as { requestId?: unknown } | undefined)?.requestId
        if (isId(requestId)) inFlight.delete(JSON.stringify(requestId))
      }
      return
    }
    if (!isId(id)) return
    inFlight.add(JSON.stringify(id))
    if (method === "initialize") initialize = message as Record<string, unknown>
    else if (method === "logging/setLevel") logLevel = message as Record<string, unknown>
    else if (method === "resources/subscribe" || method === "resources/unsubscribe") {
      const uri = (params as { uri?: unknown } | undefined)?.uri
      if (typeof uri !== "string") return
      if (method === "resources/subscribe") subscriptions.set(uri, message as Record<string, unknown>)
      else subscriptions.delete(uri)
    }
  }

  const clientLine = (line: string) => {
    // Only requests, `initialized` and `cancelled` matter: every one of them names a method.
    if (!line.includes('"method"')) return
    const message = parse(line)
    if (Array.isArray(message)) for (const item of message) clientMessage(item, JSON.stringify(item))
    else clientMessage(message, line)
  }

  const serverMessage = (message: unknown) => {
    if (typeof message !== "object" || message === null) return
    const { id, method } = message as { id?: unknown; method?: unknown }
    if (method === undefined && isId(id)) inFlight.delete(JSON.stringify(id))
  }

  return {
    clientChunk: (chunk) => {
      let start = 0
      let newline = chunk.indexOf(0x0a)
      while (newline !== -1) {
        if (!oversize && size + newline - start <= maxBytes) {
          const piece = chunk.subarray(start, newline)
          const bytes = parts.length === 0 ? piece : Buffer.concat([...parts, piece])
          clientLine(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"))
        }
        parts = []
        size = 0
        oversize = false
        start = newline + 1
        newline = chunk.indexOf(0x0a, start)
      }
      if (start === chunk.length) return
      size += chunk.length - start
      if (oversize || size > maxBytes) {
        oversize = true
        parts = []
      } else parts.push(chunk.slice(start))
    },
    serverLine: (line) => {
      if (inFlight.size === 0) return
      const head = responseHead.exec(line)
      if (head !== null) {
        inFlight.delete(JSON.stringify(JSON.parse(head[1]!)))
        return
      }
      if (notResponseHead.test(line)) return
      const message = parse(line)
      if (Array.isArray(message)) for (const item of message) serverMessage(item)
      else serverMessage(message)
    },
    inFlight: () => [...inFlight],
    replay: () => {
      let n = 0
      const withReplayId = (message: Record<string, unknown>) =>
        JSON.stringify({ ...message, id: `${replayPrefix}${++n}` })
      return [
        ...(initialize === undefined ? [] : [withReplayId(initialize)]),
        ...(initialized === undefined ? [] : [initialized]),
        ...(logLevel === undefined ? [] : [withReplayId(logLevel)]),
        ...[...subscriptions.values()].map(withReplayId)
      ]
    },
    pending: () => ({ bytes: parts.length === 0 ? undefined : Buffer.concat(parts), oversize })
  }
}

/**
 * Whether a line the server wrote answers a replayed request (and is
 * swallowed).
 *
 * **Example**
 *
 * ```ts
 * import { isReplayResponse } from "./src/internal/daemonProxy.ts"
 *
 * isReplayResponse('{"jsonrpc":"2.0","id":"mcp-runtime-replay-1","result":{}}') // => true
 * ```
 *
 * @category guards
 * @since 0.4.0
 */
export const isReplayResponse = (line: string): boolean => line.startsWith(replayHead)

/**
 * Splits bytes into lines (without their newlines); the bytes after the last
 * newline wait for the next chunk.
 *
 * **Example**
 *
 * ```ts
 * import { makeLineSplitter } from "./src/internal/daemonProxy.ts"
 *
 * const split = makeLineSplitter()
 * split(new TextEncoder().encode('{"a":1}\n{"b"')) // => ['{"a":1}']
 * split(new TextEncoder().encode(':2}\n')) // => ['{"b":2}']
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const makeLineSplitter = (): ((chunk: Uint8Array) => ReadonlyArray<string>) => {
  let parts: Array<Uint8Array> = []
  return (chunk) => {
    const lines: Array<string> = []
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    let newline = bytes.indexOf(0x0a)
    while (newline !== -1) {
      lines.push(
        parts.length === 0
          ? bytes.toString("utf8", start, newline)
          : Buffer.concat([...parts, bytes.subarray(start, newline)]).toString("utf8")
      )
      parts = []
      start = newline + 1
      newline = bytes.indexOf(0x0a, start)
    }
    if (start < bytes.length) parts.push(bytes.slice(start))
    return lines
  }
}

/**
 * The daemon side of a proxied session: the connection's incoming bytes and
 * how to write, half-close and drop it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
import { parseJson as parse } from "./jsonRpc.ts"
 * import type { Upstream } from "./src/internal/daemonProxy.ts"
 *
 * const nowhere: Upstream = {
 *   chunks: Stream.empty,
 *   write: () => Effect.succeed(false),
 *   end: Effect.void,
 *   destroy: Effect.void
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Upstream {
  readonly chunks: Stream.Stream<Uint8Array>
  readonly write: (bytes: Uint8Array) => Effect.Effect<boolean>
  readonly end: Effect.Effect<void>
  readonly destroy: Effect.Effect<void>
}

/**
 * How to serve the rest of a session in this process: frames from `input`,
 * every line the server writes to `send`; completes when the session is over.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
import { parseJson as parse } from "./jsonRpc.ts"
 * import type { Fallback } from "./src/internal/daemonProxy.ts"
 *
 * // drains the input and answers nothing
 * const silent: Fallback = (input) => Stream.runDrain(input)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Fallback = (input: Stream.Stream<Uint8Array>, send: (line: string) => void) => Effect.Effect<void, unknown>

/**
 * Proxies one session between the client (`input`, `output`) and the daemon
 * (`upstream`) until it ends: input ended and the daemon done answering, or
 * — when the daemon's connection is lost first — the session served to its
 * end by `fallback`. Interrupted (SIGTERM), it ends the daemon's input and
 * waits up to `graceMs` for its answers.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
import { parseJson as parse } from "./jsonRpc.ts"
 * import * as DaemonProxy from "./src/internal/daemonProxy.ts"
 *
 * declare const upstream: DaemonProxy.Upstream
 * const session = DaemonProxy.run({
 *   upstream,
 *   input: Stream.empty,
 *   output: { writeLine: (line) => process.stdout.write(`${line}\n`), flush: () => {} },
 *   maxMessageBytes: 4 * 1024 * 1024,
 *   graceMs: 5000,
 *   fallback: (input) => Stream.runDrain(input),
 *   onLost: Effect.logWarning("lost the daemon")
 * })
 * ```
 *
 * @category running
 * @since 0.4.0
 */
export const run = (options: {
  readonly upstream: Upstream
  readonly input: Stream.Stream<Uint8Array>
  readonly output: { readonly writeLine: (line: string) => void; readonly flush: () => void }
  readonly maxMessageBytes: number
  readonly graceMs: number
  readonly fallback: Fallback
  /** Runs when the daemon is lost, before the session moves into this process (say so in the log). */
  readonly onLost: Effect.Effect<void>
}): Effect.Effect<void, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { output, upstream } = options
      const tracker = makeTracker(options.maxMessageBytes)
      const split = makeLineSplitter()
      const lock = yield* Semaphore.make(1)
      const local = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      // Fails when the server that took the session over in this process could not start.
      const done = yield* Deferred.make<void, unknown>()
      const upstreamDone = yield* Deferred.make<void>()
      let mode: "daemon" | "local" = "daemon"
      let inputEnded = false
      // After a failover with the client's line in progress too long to keep: its rest is dropped.
      let skipLine = false

      const answerInFlight = (message: string) =>
        Effect.sync(() => {
          for (const id of tracker.inFlight()) {
            output.writeLine(`{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code: lostCode, message })}}`)
          }
          output.flush()
        })

      const toLocal = (chunk: Uint8Array) => {
        if (!skipLine) return Queue.offer(local, chunk)
        const newline = chunk.indexOf(0x0a)
        if (newline === -1) return Effect.void
        skipLine = false
        return newline + 1 === chunk.length ? Effect.void : Queue.offer(local, chunk.subarray(newline + 1))
      }

      const pump = options.input.pipe(
        Stream.catchCause(() => Stream.empty),
        Stream.runForEach((chunk) =>
          lock.withPermit(
            Effect.suspend(() => {
              if (mode === "local") return toLocal(chunk)
              tracker.clientChunk(chunk)
              return Effect.asVoid(upstream.write(chunk))
            })
          )
        ),
        Effect.andThen(
          lock.withPermit(
            Effect.suspend(() => {
              inputEnded = true
              return mode === "daemon" ? upstream.end : Queue.end(local)
            })
          )
        )
      )

      const failover = Effect.gen(function* () {
        mode = "local"
        yield* upstream.destroy
        yield* options.onLost
        yield* answerInFlight(lostMessage)
        const encoder = new TextEncoder()
        for (const line of tracker.replay()) yield* Queue.offer(local, encoder.encode(`${line}\n`))
        const pending = tracker.pending()
        if (pending.bytes !== undefined) yield* Queue.offer(local, pending.bytes)
        skipLine = pending.oversize
        yield* options
          .fallback(Stream.fromQueue(local), (line) => {
            if (!isReplayResponse(line)) output.writeLine(line)
          })
          .pipe(
            Effect.ensuring(Effect.sync(output.flush)),
            Effect.exit,
            Effect.flatMap((exit) => Deferred.done(done, exit)),
            Effect.forkScoped
          )
      })

      const reader = upstream.chunks.pipe(
        Stream.runForEach((chunk) =>
          Effect.sync(() => {
            for (const line of split(chunk)) {
              tracker.serverLine(line)
              output.writeLine(line)
            }
          })
        ),
        Effect.andThen(Deferred.succeed(upstreamDone, undefined)),
        Effect.andThen(
          lock.withPermit(
            Effect.suspend(() =>
              inputEnded
                ? // The client is done and so is the daemon: what it left unanswered is answered here.
                  Effect.andThen(
                    answerInFlight("The mcp-runtime daemon closed the session before it answered this request."),
                    Deferred.succeed(done, undefined)
                  )
                : failover
            )
          )
        )
      )

      yield* Effect.forkScoped(pump)
      yield* Effect.forkScoped(reader)
      yield* Deferred.await(done).pipe(
        Effect.onInterrupt(() =>
          lock
            .withPermit(
              Effect.suspend(() => {
                const wasDaemon = mode === "daemon" && !inputEnded
                inputEnded = true
                return wasDaemon ? upstream.end : Effect.void
              })
            )
            .pipe(
              Effect.andThen(Deferred.await(upstreamDone)),
              Effect.timeoutOption(options.graceMs),
              Effect.andThen(Effect.sync(output.flush))
            )
        )
      )
    })
  )
