/**
 * `serve --daemon auto` as a proxy: stdin goes to the daemon's socket as it
 * came (byte for byte), the daemon's lines go to stdout, and what is needed to
 * carry on without the daemon is read from the messages as they pass — the
 * client's `initialize` and `notifications/initialized` (and its log level
 * and resource subscriptions), the ids of the requests the daemon has not
 * answered yet, and the client's lines the daemon may not have read yet.
 * Lines are parsed only as far as that needs.
 *
 * Three ways the daemon's part can end while the client is still talking:
 *
 * - **draining** (the daemon is shutting down): it says how many of the
 *   client's lines it has read (the `draining` control line, never
 *   forwarded). An in-process server is started, the kept messages of those
 *   lines are replayed into it (their responses swallowed), and the lines
 *   after them, then the rest of stdin, go to it; the daemon's answers to
 *   what it read keep coming until it closes.
 * - **lost** (killed, crashed): the in-process server is started the same
 *   way, every request in flight at the daemon is answered with an error
 *   (an `initialize` in flight is sent to the new server instead, which
 *   answers it), and stdin goes to the new server from then on.
 * - after the end of input (or SIGTERM), the daemon has the shutdown grace
 *   period to answer what is in flight; then what is left is answered with
 *   an error.
 *
 * @since 0.4.0
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { parseDraining } from "./daemonProtocol.ts"
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
 * the client's messages to replay into a new server, and the client's lines
 * the server may not have read yet. Lines are numbered from 1 as the client
 * sends them (every newline counts); a response to a request of line `n`
 * shows that the server has read the lines up to `n`, which are then no
 * longer kept.
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
  /** How many lines the client has sent (complete ones: every newline counts). */
  readonly linesSent: () => number
  /**
   * The messages that re-create, in a new server, the client's session as
   * it stood after its first `upTo` lines (all of them by default), as
   * lines. Requests are given ids whose responses are swallowed. With
   * `forwardInitialize`, an `initialize` still in flight is given as it came
   * instead (the client gets the new server's answer to it) and is no longer
   * in flight.
   */
  readonly replay: (options?: {
    readonly upTo?: number | undefined
    readonly forwardInitialize?: boolean | undefined
  }) => ReadonlyArray<string>
  /**
   * Takes the client's complete lines after its first `after`, as they came
   * (without their newlines), for another server to read: their requests
   * are no longer in flight here. Lines no longer kept (more than the
   * tracker keeps, or too long) are not among them: their requests stay in
   * flight.
   */
  readonly unread: (after: number) => ReadonlyArray<Uint8Array>
  /** The bytes of the client's line in progress (not sent whole yet); `oversize` when it was too long to keep. */
  readonly pending: () => { readonly bytes: Uint8Array | undefined; readonly oversize: boolean }
}

interface Step<A> {
  readonly index: number
  readonly value: A
}

// The last step at or before `index`.
const stateAt = <A>(history: ReadonlyArray<Step<A>>, index: number): Step<A> | undefined => {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.index <= index) return history[i]
  return undefined
}

// Drops the steps before the last one at or before `index` (the server has read up to there).
const settle = <A>(history: Array<Step<A>>, index: number): void => {
  let last = -1
  for (let i = 0; i < history.length && history[i]!.index <= index; i++) last = i
  if (last > 0) history.splice(0, last)
}

/**
 * Builds a tracker; client lines longer than `maxBytes` are not read (the
 * server refuses them anyway). At most `keepBytes` (default the larger of
 * 16 MiB and four times `maxBytes`) of lines not known to be read are kept.
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
export const makeTracker = (
  maxBytes: number,
  keepBytes: number = Math.max(16 * 1024 * 1024, 4 * maxBytes)
): Tracker => {
  // Request ids (JSON text) and the line they came on.
  const inFlight = new Map<string, number>()
  let lines = 0
  // Every line up to here has been read by the server.
  let readUpTo = 0
  let initialize:
    | { readonly message: Record<string, unknown>; readonly line: string; readonly index: number; readonly id: string }
    | undefined
  let initialized: Step<string> | undefined
  const logLevels: Array<Step<Record<string, unknown>>> = []
  const subscriptions = new Map<string, Array<Step<Record<string, unknown> | undefined>>>()
  const kept: Array<{ readonly index: number; readonly bytes: Uint8Array; readonly ids: ReadonlyArray<string> }> = []
  let keptSize = 0
  let parts: Array<Uint8Array> = []
  let size = 0
  let oversize = false

  const clientMessage = (message: unknown, line: string, index: number, ids: Array<string>) => {
    if (typeof message !== "object" || message === null) return
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown }
    if (typeof method !== "string") return
    if (id === undefined) {
      if (method === "notifications/initialized") initialized ??= { index, value: line }
      else if (method === "notifications/cancelled") {
        const requestId = (params as { requestId?: unknown } | undefined)?.requestId
        if (isId(requestId)) inFlight.delete(JSON.stringify(requestId))
      }
      return
    }
    if (!isId(id)) return
    const key = JSON.stringify(id)
    inFlight.set(key, index)
    ids.push(key)
    const record = message as Record<string, unknown>
    if (method === "initialize") initialize ??= { message: record, line, index, id: key }
    else if (method === "logging/setLevel") logLevels.push({ index, value: record })
    else if (method === "resources/subscribe" || method === "resources/unsubscribe") {
      const uri = (params as { uri?: unknown } | undefined)?.uri
      if (typeof uri !== "string") return
      const history = subscriptions.get(uri) ?? []
      history.push({ index, value: method === "resources/subscribe" ? record : undefined })
      subscriptions.set(uri, history)
    }
  }

  const clientLine = (bytes: Uint8Array) => {
    const index = ++lines
    const ids: Array<string> = []
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")
    // Only requests, `initialized` and `cancelled` matter: every one of them names a method.
    if (text.includes('"method"')) {
      const message = parse(text)
      if (Array.isArray(message)) for (const item of message) clientMessage(item, JSON.stringify(item), index, ids)
      else clientMessage(message, text, index, ids)
    }
    // A blank line carries nothing to send again.
    if (bytes.length === 0) return
    kept.push({ index, bytes, ids })
    keptSize += bytes.length
    while (keptSize > keepBytes && kept.length > 0) keptSize -= kept.shift()!.bytes.length
  }

  const read = (index: number) => {
    if (index <= readUpTo) return
    readUpTo = index
    while (kept.length > 0 && kept[0]!.index <= readUpTo) keptSize -= kept.shift()!.bytes.length
    settle(logLevels, readUpTo)
    for (const [uri, history] of subscriptions) {
      settle(history, readUpTo)
      if (history.length === 1 && history[0]!.index <= readUpTo && history[0]!.value === undefined) {
        subscriptions.delete(uri)
      }
    }
  }

  const answered = (key: string) => {
    const index = inFlight.get(key)
    if (index === undefined) return
    inFlight.delete(key)
    read(index)
  }

  const serverMessage = (message: unknown) => {
    if (typeof message !== "object" || message === null) return
    const { id, method } = message as { id?: unknown; method?: unknown }
    if (method === undefined && isId(id)) answered(JSON.stringify(id))
  }

  return {
    clientChunk: (chunk) => {
      let start = 0
      let newline = chunk.indexOf(0x0a)
      while (newline !== -1) {
        if (!oversize && size + newline - start <= maxBytes) {
          const piece = chunk.subarray(start, newline)
          // A copy: the caller's buffer may be reused, and kept lines may be sent again.
          clientLine(parts.length === 0 ? piece.slice() : Buffer.concat([...parts, piece]))
        } else lines++
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
        answered(JSON.stringify(JSON.parse(head[1]!)))
        return
      }
      if (notResponseHead.test(line)) return
      const message = parse(line)
      if (Array.isArray(message)) for (const item of message) serverMessage(item)
      else serverMessage(message)
    },
    inFlight: () => [...inFlight.keys()],
    linesSent: () => lines,
    replay: (options = {}) => {
      const upTo = options.upTo ?? Number.POSITIVE_INFINITY
      let n = 0
      const withReplayId = (message: Record<string, unknown>) =>
        JSON.stringify({ ...message, id: `${replayPrefix}${++n}` })
      const out: Array<string> = []
      if (initialize !== undefined && initialize.index <= upTo) {
        if (options.forwardInitialize === true && inFlight.has(initialize.id)) {
          inFlight.delete(initialize.id)
          out.push(initialize.line)
        } else out.push(withReplayId(initialize.message))
      }
      if (initialized !== undefined && initialized.index <= upTo) out.push(initialized.value)
      const level = stateAt(logLevels, upTo)
      if (level !== undefined) out.push(withReplayId(level.value))
      for (const history of subscriptions.values()) {
        const last = stateAt(history, upTo)
        if (last?.value !== undefined) out.push(withReplayId(last.value))
      }
      return out
    },
    unread: (after) => {
      const out: Array<Uint8Array> = []
      for (let i = kept.length - 1; i >= 0 && kept[i]!.index > after; i--) {
        const entry = kept[i]!
        out.unshift(entry.bytes)
        for (const id of entry.ids) inFlight.delete(id)
        keptSize -= entry.bytes.length
        kept.splice(i, 1)
      }
      return out
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

/** The error of a request the daemon left unanswered when it closed the session after the end of input. */
const closedMessage = "The mcp-runtime daemon closed the session before it answered this request."

/**
 * Proxies one session between the client (`input`, `output`) and the daemon
 * (`upstream`) until it ends: the input ended and the daemon done
 * answering; or — when the daemon stops reading (draining) or is lost while
 * the client is still talking — the session served to its end by
 * `fallback`, in this process. After the end of input (or when interrupted:
 * SIGTERM), the daemon's input is ended and it has `graceMs` to answer what
 * is in flight; then each request still unanswered gets an error, and the
 * daemon's later lines are dropped.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
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
  /** How long the daemon has to answer what is in flight after the end of input (or SIGTERM). */
  readonly graceMs: number
  readonly fallback: Fallback
  /** Runs when the daemon is lost, before the session moves into this process (say so in the log). */
  readonly onLost: Effect.Effect<void>
  /** Runs when the daemon says it is draining, before the client's next lines go to this process. */
  readonly onDraining?: ((linesRead: number) => Effect.Effect<void>) | undefined
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
      // The daemon's part is over: it closed, was lost, or was given up on.
      const upstreamOver = yield* Deferred.make<void>()
      const scope = yield* Effect.scope
      const encoder = new TextEncoder()
      let mode: "daemon" | "draining" | "local" = "daemon"
      let inputEnded = false
      let over = false
      let localState: "none" | "running" | "over" = "none"
      // After a hand-over with the client's line in progress too long to keep: its rest is dropped.
      let skipLine = false

      const finishIfOver = () => {
        if (over && localState !== "running") Deferred.doneUnsafe(done, Effect.void)
      }

      // The daemon's part is over: what it left unanswered is answered here, and nothing more of it is delivered.
      const endUpstream = (message: string) => {
        if (over) return
        over = true
        for (const id of tracker.inFlight()) {
          output.writeLine(`{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code: lostCode, message })}}`)
        }
        output.flush()
        Deferred.doneUnsafe(upstreamOver, Effect.void)
        finishIfOver()
      }

      const giveUp = lock.withPermit(
        Effect.suspend(() => {
          if (over) return Effect.void
          endUpstream(
            `The mcp-runtime daemon did not answer this request within the shutdown grace period (${options.graceMs} ms).`
          )
          return upstream.destroy
        })
      )
      // The daemon has `graceMs` from now to finish.
      const startDeadline = Effect.asVoid(Effect.forkIn(Effect.andThen(Effect.sleep(options.graceMs), giveUp), scope))

      const startLocal = (lines: ReadonlyArray<Uint8Array>, pending: ReturnType<Tracker["pending"]>) =>
        Effect.gen(function* () {
          localState = "running"
          for (const line of lines) Queue.offerUnsafe(local, line)
          if (pending.bytes !== undefined) Queue.offerUnsafe(local, pending.bytes)
          skipLine = pending.oversize
          if (inputEnded) Queue.endUnsafe(local)
          yield* options
            .fallback(Stream.fromQueue(local), (line) => {
              if (!isReplayResponse(line)) output.writeLine(line)
            })
            .pipe(
              Effect.ensuring(Effect.sync(output.flush)),
              Effect.exit,
              Effect.flatMap((exit) =>
                Effect.sync(() => {
                  if (exit._tag === "Failure") return Deferred.doneUnsafe(done, exit)
                  localState = "over"
                  finishIfOver()
                })
              ),
              Effect.forkIn(scope)
            )
        })

      const withNewline = (bytes: Uint8Array): Uint8Array => {
        const out = new Uint8Array(bytes.length + 1)
        out.set(bytes)
        out[bytes.length] = 0x0a
        return out
      }

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
              if (mode === "daemon") {
                tracker.clientChunk(chunk)
                return Effect.asVoid(upstream.write(chunk))
              }
              return localState === "running" ? toLocal(chunk) : Effect.void
            })
          )
        ),
        Effect.andThen(
          lock.withPermit(
            Effect.suspend(() => {
              inputEnded = true
              if (localState === "running") Queue.endUnsafe(local)
              if (over) return Effect.void
              return mode === "daemon" ? Effect.andThen(upstream.end, startDeadline) : startDeadline
            })
          )
        )
      )

      // The daemon read the client's first `linesRead` lines and reads no more: the lines after those go to a server
      // in this process, which first gets the session as it stood after them.
      const drain = (linesRead: number) =>
        Effect.gen(function* () {
          if (mode !== "daemon" || over) return
          mode = "draining"
          if (options.onDraining !== undefined) yield* options.onDraining(linesRead)
          const replay = tracker.replay({ upTo: linesRead })
          const unread = tracker.unread(linesRead)
          const pending = tracker.pending()
          if (inputEnded && unread.length === 0 && pending.bytes === undefined) return
          yield* startLocal([...replay.map((line) => encoder.encode(`${line}\n`)), ...unread.map(withNewline)], pending)
          if (!inputEnded) yield* upstream.end
        })

      const failover = Effect.gen(function* () {
        mode = "local"
        yield* upstream.destroy
        yield* options.onLost
        // An `initialize` in flight goes to the new server as it came: the client gets its answer from there.
        const replay = tracker.replay({ forwardInitialize: true })
        yield* startLocal(
          replay.map((line) => encoder.encode(`${line}\n`)),
          tracker.pending()
        )
        endUpstream(lostMessage)
      })

      const deliver = (lines: ReadonlyArray<string>, from: number): Effect.Effect<void> =>
        Effect.suspend(() => {
          for (let i = from; i < lines.length; i++) {
            const line = lines[i]!
            const linesRead = parseDraining(line)
            if (linesRead !== undefined) {
              return Effect.andThen(lock.withPermit(drain(linesRead)), deliver(lines, i + 1))
            }
            if (over) continue
            tracker.serverLine(line)
            output.writeLine(line)
          }
          return Effect.void
        })

      const reader = upstream.chunks.pipe(
        Stream.runForEach((chunk) => deliver(split(chunk), 0)),
        Effect.andThen(
          lock.withPermit(
            Effect.suspend(() => {
              if (over) return Effect.void
              if (mode === "daemon" && !inputEnded) return failover
              // The daemon is done (after the end of input, or after draining): what it left unanswered is answered here.
              mode = "local"
              endUpstream(closedMessage)
              return Effect.void
            })
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
                const wasDaemon = mode === "daemon" && !inputEnded && !over
                inputEnded = true
                return wasDaemon ? upstream.end : Effect.void
              })
            )
            .pipe(
              Effect.andThen(Deferred.await(upstreamOver)),
              Effect.timeoutOption(options.graceMs),
              Effect.andThen(giveUp),
              Effect.andThen(Effect.sync(output.flush))
            )
        )
      )
    })
  )
