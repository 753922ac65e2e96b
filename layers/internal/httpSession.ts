/**
 * One Streamable HTTP session: the frames it feeds to the server core, and
 * where each message the core sends goes.
 *
 * Every POST that carries requests opens an {@link Exchange}. Its answer is
 * decided by the first message the core sends for it: the response itself
 * (the POST is answered with that JSON body), or anything else, a progress
 * notification, a log message, a request to the client (the POST becomes an
 * SSE stream, which carries those messages and then the response). A POST
 * that waits long for its first message becomes a stream at a keep-alive
 * tick ({@link HttpSession.keepAlive}). A message unrelated to any request
 * goes to the session's GET stream.
 *
 * Streams are {@link SseStream}s: numbered within the session (0 is the GET
 * stream), with a bounded buffer of their last events so that a client can
 * resume one with `Last-Event-ID`. The HTTP response that currently carries
 * a stream is its {@link Connection}; a stream outlives its connections.
 *
 * Everything here runs synchronously on the JavaScript thread (routing a
 * message never waits), so the state needs no locks.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { RequestId } from "../../src/McpSchema.ts"
import { utf8Length } from "../../src/internal/utf8.ts"
import type { Frame } from "../../src/Transport.ts"
import { outgoingKind } from "./outgoing.ts"
import { eventId, formatEvent, formatPriming, keepAliveComment, ReplayBuffer } from "./sse.ts"

/** The key of a request id in maps (`1` and `"1"` are different ids). */
export const requestKey = (id: RequestId): string => (typeof id === "string" ? `s:${id}` : `n:${id}`)

/** A pending timer; `cancel` is idempotent. */
export interface Timer {
  readonly cancel: () => void
}

/** Runs `effect` after `ms` milliseconds, unless cancelled first. */
export type Schedule = (ms: number, effect: Effect.Effect<void>) => Timer

/**
 * The {@link Schedule} of the transport: one fiber per timer, in a set that
 * the scope closes. Cancelling a timer that has fired does nothing: its
 * effect runs to the end even when it cancels its own timer (ending a
 * stream cancels the stream's timers, the one that ends it included).
 */
export const makeSchedule: Effect.Effect<Schedule, never, Scope.Scope> = Effect.gen(function* () {
  const fibers = yield* FiberSet.make()
  const run = yield* FiberSet.runtime(fibers)<never>()
  return (ms, effect) => {
    let fired = false
    const fiber = run(
      Effect.andThen(
        Effect.sleep(ms),
        Effect.suspend(() => {
          fired = true
          return effect
        })
      )
    )
    return {
      cancel: () => {
        if (!fired) fiber.interruptUnsafe()
      }
    }
  }
})

/** The settings a session runs with. */
export interface SessionSettings {
  /** How long a stream whose connection dropped waits to be resumed before its requests are cancelled. */
  readonly resumeGraceMs: number
  /** The reconnection delay announced in priming events. */
  readonly retryMs: number
  /** How many events each stream keeps for replay. */
  readonly replayEvents: number
  /** How long a session with no open stream and no request in flight lives. */
  readonly sessionIdleMs: number
  /** How long a session whose client never sent `notifications/initialized` lives (0: no limit). */
  readonly uninitializedSessionMs: number
  /**
   * How often {@link HttpSession.keepAlive} runs: a POST still waiting for
   * its answer at a tick, after at least half of this, becomes a stream.
   */
  readonly keepAliveMs: number
}

/** Why a session ended. */
export type EndReason = "deleted" | "idle" | "uninitialized" | "shutdown" | "initialize failed" | "abandoned" | "failed"

/** The HTTP response that currently carries a stream. */
export interface Connection {
  /** Writes text on the response, as it is. */
  readonly write: (text: string) => void
  /** Ends the response once what was written is sent. */
  readonly end: () => void
}

/** The id of a session's GET stream. */
export const standaloneStream = 0

/** One SSE stream of a session, and the events it keeps for replay. */
export class SseStream {
  readonly id: number
  readonly buffer: ReplayBuffer
  /** Whether events carry a priming event (the session negotiated 2025-11-25 or later). */
  readonly primes: boolean
  readonly retryMs: number
  /** The POST whose messages this stream carries; undefined for the GET stream. */
  readonly exchange: Exchange | undefined
  private seq = 0
  /** The last event written to a connection. */
  delivered = 0
  connection: Connection | undefined = undefined
  /** Everything due on this stream was sent (POST streams only): a resumed connection only replays. */
  done = false
  /** Cancels the requests of a stream whose connection dropped, unless it is resumed in time. */
  graceTimer: Timer | undefined = undefined
  /** Forgets a finished stream once nobody can resume it any more. */
  retentionTimer: Timer | undefined = undefined
  /** The POST's connection is to close after its first events (`detach` came before it was attached). */
  detachPending = false

  constructor(id: number, options: { replayEvents: number; primes: boolean; retryMs: number }, exchange?: Exchange) {
    this.id = id
    this.buffer = new ReplayBuffer(options.replayEvents)
    this.primes = options.primes
    this.retryMs = options.retryMs
    this.exchange = exchange
  }

  /** The `seq` of the last event. */
  get lastSeq(): number {
    return this.seq
  }

  private format(seq: number, data: string): string {
    return data === "" ? formatPriming(eventId(this.id, seq), this.retryMs) : formatEvent(eventId(this.id, seq), data)
  }

  /** Appends one message (or, with `""`, a priming event) and writes it if a connection is attached. */
  append(data: string): void {
    const seq = ++this.seq
    this.buffer.push({ seq, data })
    if (this.connection !== undefined) {
      this.connection.write(this.format(seq, data))
      this.delivered = seq
    }
  }

  /**
   * Attaches a connection: writes the events after `after`, then, if the
   * stream goes on, a priming event (for sessions that prime) and the live
   * events; if the stream is done, ends the connection after the replay.
   * Returns how many events after `after` were lost to the buffer's bound.
   */
  attach(connection: Connection, after: number, prime: boolean): number {
    const oldest = this.buffer.oldestSeq()
    const lost = oldest === undefined ? Math.max(0, this.seq - after) : Math.max(0, oldest - after - 1)
    for (const event of this.buffer.after(after)) connection.write(this.format(event.seq, event.data))
    this.delivered = Math.max(this.delivered, this.seq)
    if (this.done) {
      connection.end()
      return lost
    }
    this.connection = connection
    if (prime && this.primes) this.append("")
    return lost
  }
}

/** How the POST of an exchange is answered. */
export type Decision =
  | { readonly _tag: "Json"; readonly body: string }
  | { readonly _tag: "Sse"; readonly stream: SseStream }
  /** Every request of the POST was cancelled by the client before anything was due. */
  | { readonly _tag: "Empty" }

/** One POST that carries requests, until everything due on it was sent. */
export class Exchange {
  /** Its requests, by key. */
  readonly ids: ReadonlyMap<string, RequestId>
  /** The requests not answered yet (nor cancelled by the client). */
  readonly outstanding: Set<string>
  /** A batch is answered by one array of responses. */
  readonly batch: boolean
  readonly decision: Deferred.Deferred<Decision>
  /** When the POST was opened (epoch ms): a long wait turns it into a stream at a keep-alive tick. */
  readonly openedAt: number
  state: "pending" | "sse" | "closed" = "pending"
  stream: SseStream | undefined = undefined

  constructor(ids: ReadonlyArray<RequestId>, batch: boolean, openedAt = 0) {
    this.ids = new Map(ids.map((id) => [requestKey(id), id]))
    this.outstanding = new Set(this.ids.keys())
    this.batch = batch
    this.decision = Deferred.makeUnsafe<Decision>()
    this.openedAt = openedAt
  }
}

/** The JSON-RPC error code of a request that the session's end left without an answer. */
export const sessionEndedCode = -32000

const sessionEndedLine = (id: RequestId, reason: EndReason): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: {
      code: sessionEndedCode,
      message:
        reason === "deleted"
          ? "The session was terminated (DELETE) before the request was answered."
          : reason === "uninitialized"
            ? "The session expired: the client never sent notifications/initialized."
            : "The session ended before the request was answered: the server is shutting down."
    }
  })

/** A synthetic `notifications/cancelled` for the server core. */
export const cancelFrame = (id: RequestId, reason: string): Frame => {
  const parsed = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason } }
  const text = JSON.stringify(parsed)
  return { _tag: "Message", text, bytes: utf8Length(text), parsed }
}

/** How a session id appears in logs: its first 8 characters (the id itself lets anyone use the session). */
export const logLabel = (id: string): string => id.slice(0, 8)

/** One session: its frames, its open POSTs, its streams, its lifetime. */
export class HttpSession {
  readonly id: string
  /** The frames the server core reads; ended when the session ends. */
  readonly frames: Queue.Queue<Frame, Cause.Done>
  /** The version negotiated by `initialize`, once it is answered. */
  protocolVersion: string | undefined = undefined
  /** Why the session ended, once it did. */
  ended: EndReason | undefined = undefined
  /** When the session started (epoch ms), for its log line. */
  startedAt = 0
  private readonly settings: SessionSettings
  private readonly schedule: Schedule
  private readonly onEnd: (session: HttpSession, reason: EndReason) => Effect.Effect<void>
  private readonly routes = new Map<string, Exchange>()
  private readonly exchanges = new Set<Exchange>()
  private readonly streams = new Map<number, SseStream>()
  private nextStream = 1
  private idleTimer: Timer | undefined = undefined
  /** Ends a session whose client does not send `notifications/initialized` in time. */
  private initializedTimer: Timer | undefined = undefined
  /** The client sent `notifications/initialized`. */
  private initialized = false
  private readonly now: () => number

  constructor(options: {
    readonly id: string
    readonly frames: Queue.Queue<Frame, Cause.Done>
    readonly settings: SessionSettings
    readonly schedule: Schedule
    /** The current time (epoch ms). */
    readonly now: () => number
    /** Called once when the session ends, whatever the reason. */
    readonly onEnd: (session: HttpSession, reason: EndReason) => Effect.Effect<void>
  }) {
    this.id = options.id
    this.frames = options.frames
    this.settings = options.settings
    this.schedule = options.schedule
    this.now = options.now
    this.onEnd = options.onEnd
  }

  /**
   * The session in log lines: the first 8 characters of its id, enough to
   * tell sessions apart, not enough to use one.
   */
  get label(): string {
    return logLabel(this.id)
  }

  /** Whether priming events are sent: the session negotiated 2025-11-25 or later. */
  get primes(): boolean {
    return this.protocolVersion !== undefined && this.protocolVersion >= "2025-11-25"
  }

  /** Whether JSON-RPC batches are accepted: only in 2025-03-26. */
  get acceptsBatches(): boolean {
    return this.protocolVersion === "2025-03-26"
  }

  // -- incoming ---------------------------------------------------------------

  /** Hands a frame to the server core. */
  offer(frame: Frame): void {
    if (this.ended === undefined) Queue.offerUnsafe(this.frames, frame)
  }

  /** Whether a request with this id is still open on one of the session's POSTs. */
  isOpen(id: RequestId): boolean {
    return this.routes.has(requestKey(id))
  }

  /**
   * `initialize` was answered with `protocolVersion`: the session is open.
   * Its client has `uninitializedSessionMs` to send
   * `notifications/initialized` ({@link markInitialized}), or the session
   * ends: a bare `initialize` must not hold a session slot for long.
   */
  started(protocolVersion: string): void {
    this.protocolVersion = protocolVersion
    if (!this.initialized && this.settings.uninitializedSessionMs > 0) {
      this.initializedTimer = this.schedule(
        this.settings.uninitializedSessionMs,
        Effect.suspend(() => {
          this.initializedTimer = undefined
          return this.initialized ? Effect.void : this.endNow("uninitialized")
        })
      )
    }
    this.checkIdle()
  }

  /** The client sent `notifications/initialized`. */
  markInitialized(): void {
    this.initialized = true
    this.initializedTimer?.cancel()
    this.initializedTimer = undefined
  }

  /** Opens the exchange of a POST that carries `ids`, before its frame is offered. */
  open(ids: ReadonlyArray<RequestId>, batch: boolean): Exchange {
    this.touch()
    const exchange = new Exchange(ids, batch, this.now())
    for (const key of exchange.ids.keys()) this.routes.set(key, exchange)
    this.exchanges.add(exchange)
    return exchange
  }

  /**
   * The client cancelled a request (`notifications/cancelled` in a POST):
   * the core will send nothing for it, so its POST is done once none of its
   * requests is left.
   */
  clientCancelled(id: RequestId): void {
    const exchange = this.routes.get(requestKey(id))
    if (exchange === undefined || !exchange.outstanding.delete(requestKey(id))) return
    if (exchange.outstanding.size > 0) return
    if (exchange.state === "pending") Deferred.doneUnsafe(exchange.decision, Exit.succeed({ _tag: "Empty" } as const))
    else if (exchange.stream !== undefined) this.finishStream(exchange.stream)
    this.close(exchange)
  }

  /**
   * The client went away from an exchange that cannot be resumed (its POST
   * was never answered, or its stream's grace period ran out): its requests
   * are cancelled.
   */
  abandon(exchange: Exchange, reason: string): ReadonlyArray<RequestId> {
    if (exchange.state === "closed") return []
    const cancelled: Array<RequestId> = []
    for (const key of exchange.outstanding) {
      const id = exchange.ids.get(key)!
      cancelled.push(id)
      this.offer(cancelFrame(id, reason))
    }
    exchange.outstanding.clear()
    const stream = exchange.stream
    if (stream !== undefined) {
      stream.done = true
      stream.graceTimer?.cancel()
      stream.retentionTimer?.cancel()
      this.streams.delete(stream.id)
    }
    this.close(exchange)
    return cancelled
  }

  private close(exchange: Exchange): void {
    exchange.state = "closed"
    for (const key of exchange.ids.keys()) {
      if (this.routes.get(key) === exchange) this.routes.delete(key)
    }
    this.exchanges.delete(exchange)
    this.checkIdle()
  }

  // -- outgoing ---------------------------------------------------------------

  /** `Transport.send`: puts one message on the one stream it belongs to. */
  send(message: string, related: RequestId | undefined): Effect.Effect<void> {
    return Effect.suspend(() => this.route(message, related))
  }

  private route(message: string, related: RequestId | undefined): Effect.Effect<void> {
    if (this.ended !== undefined && this.ended !== "shutdown") return Effect.void
    if (related === undefined) {
      const kind = outgoingKind(message)
      if (kind === "response" || kind === "batch") {
        // A response never goes on the GET stream.
        return Effect.logWarning("dropping a response that belongs to no open request", { session: this.label })
      }
      this.standalone().append(message)
      return Effect.void
    }
    const exchange = this.routes.get(requestKey(related))
    if (exchange === undefined) {
      return Effect.logDebug("dropping a message for a request that is no longer open", {
        session: this.label,
        id: related
      })
    }
    const kind = outgoingKind(message)
    if (exchange.batch ? kind === "batch" : kind === "response") this.respond(exchange, message)
    else this.stream(exchange).append(message)
    return Effect.void
  }

  private respond(exchange: Exchange, message: string): void {
    exchange.outstanding.clear()
    if (exchange.state === "pending") {
      Deferred.doneUnsafe(exchange.decision, Exit.succeed({ _tag: "Json", body: message } as const))
    } else if (exchange.stream !== undefined) {
      exchange.stream.append(message)
      this.finishStream(exchange.stream)
    }
    this.close(exchange)
  }

  // The stream of an exchange, opened when the first message that is not its response is due.
  private stream(exchange: Exchange): SseStream {
    if (exchange.stream !== undefined) return exchange.stream
    const stream = new SseStream(
      this.nextStream++,
      { replayEvents: this.settings.replayEvents, primes: this.primes, retryMs: this.settings.retryMs },
      exchange
    )
    if (stream.primes) stream.append("")
    this.streams.set(stream.id, stream)
    exchange.stream = stream
    exchange.state = "sse"
    Deferred.doneUnsafe(exchange.decision, Exit.succeed({ _tag: "Sse", stream } as const))
    return stream
  }

  // Everything due on a POST stream was sent: end its connection, keep its
  // events for a while for a client that lost the end of it.
  private finishStream(stream: SseStream): void {
    stream.done = true
    stream.graceTimer?.cancel()
    stream.connection?.end()
    stream.connection = undefined
    stream.retentionTimer = this.schedule(
      this.settings.resumeGraceMs,
      Effect.sync(() => {
        if (this.streams.get(stream.id) === stream) this.streams.delete(stream.id)
      })
    )
  }

  private standalone(): SseStream {
    let stream = this.streams.get(standaloneStream)
    if (stream === undefined) {
      stream = new SseStream(standaloneStream, {
        replayEvents: this.settings.replayEvents,
        primes: this.primes,
        retryMs: this.settings.retryMs
      })
      this.streams.set(standaloneStream, stream)
    }
    return stream
  }

  // -- connections ------------------------------------------------------------

  /**
   * Attaches the connection of the POST that opened `stream` (its answer
   * became a stream): every event so far, then the live ones.
   */
  attachPost(stream: SseStream, connection: Connection): void {
    stream.attach(connection, 0, false)
    if (stream.detachPending && stream.connection === connection) {
      stream.detachPending = false
      this.closeConnection(stream, connection)
    }
  }

  /**
   * Closes the connection that carries request `related`'s stream without
   * ending the stream (SSE polling): the client resumes it with a GET and
   * `Last-Event-ID` within the grace period, and gets what was sent in the
   * meantime. A POST still waiting for its first message becomes a stream
   * (a priming event) first. Only for sessions that prime: without an event
   * id the client could not resume, so nothing is done.
   */
  detach(related: RequestId): void {
    const exchange = this.routes.get(requestKey(related))
    if (exchange === undefined || !this.primes) return
    const stream = this.stream(exchange)
    if (stream.connection === undefined) stream.detachPending = true
    else this.closeConnection(stream, stream.connection)
  }

  private closeConnection(stream: SseStream, connection: Connection): void {
    connection.end()
    this.connectionClosed(stream, connection)
  }

  /** Whether a connection is attached to the stream numbered `stream`. */
  isAttached(stream: number): boolean {
    return this.streams.get(stream)?.connection !== undefined
  }

  /** Whether the position names an event of a stream the session still holds. */
  canResume(position: { readonly stream: number; readonly seq: number }): boolean {
    const stream = this.streams.get(position.stream)
    return stream !== undefined && position.seq <= stream.lastSeq
  }

  /**
   * Attaches a GET's connection to the session's GET stream (check
   * {@link isAttached} first): the messages that waited for it, a priming
   * event, then the live ones.
   */
  openStandalone(connection: Connection): { readonly stream: SseStream; readonly lost: number } {
    this.touch()
    const stream = this.standalone()
    const lost = stream.attach(connection, stream.delivered, true)
    return { stream, lost }
  }

  /**
   * Resumes the stream named by a `Last-Event-ID` (check {@link canResume}
   * and {@link isAttached} first): replays its events after `seq`, then goes
   * on live, or ends if the stream is done. `lost` counts the events after
   * `seq` that the buffer no longer holds.
   */
  resume(
    position: { readonly stream: number; readonly seq: number },
    connection: Connection
  ): { readonly stream: SseStream; readonly lost: number } {
    this.touch()
    const stream = this.streams.get(position.stream)!
    stream.graceTimer?.cancel()
    stream.graceTimer = undefined
    const lost = stream.attach(connection, position.seq, true)
    return { stream, lost }
  }

  /**
   * A connection's HTTP response is over: it ended, or the client went away.
   * A POST stream that still owes its response waits for the client to
   * resume it; past the grace period its requests are cancelled. One that
   * was never sent an event (so no id to resume from) is cancelled at once.
   */
  connectionClosed(stream: SseStream, connection: Connection): void {
    if (stream.connection !== connection) return
    stream.connection = undefined
    const exchange = stream.exchange
    if (this.ended === undefined && !stream.done && exchange !== undefined) {
      // A stream that was never sent an event (a POST that became a stream to keep its
      // connection alive, in a session without priming) has no id to resume from.
      const resumable = stream.lastSeq > 0
      stream.graceTimer = this.schedule(
        resumable ? this.settings.resumeGraceMs : 0,
        Effect.suspend(() => {
          // Forgotten first: abandon cancels the stream's grace timer, and that is this one.
          stream.graceTimer = undefined
          if (stream.connection !== undefined || stream.done) return Effect.void
          if (!resumable) {
            const ids = this.abandon(exchange, "The client disconnected before the request was answered.")
            return ids.length === 0
              ? Effect.void
              : Effect.logInfo("http client disconnected; cancelling its requests", { session: this.label, ids })
          }
          const ids = this.abandon(exchange, "The client disconnected and did not resume the stream in time.")
          return ids.length === 0
            ? Effect.void
            : Effect.logInfo("http client did not resume its stream; cancelling its requests", {
                session: this.label,
                stream: stream.id,
                ids,
                grace_ms: this.settings.resumeGraceMs
              })
        })
      )
    }
    this.checkIdle()
  }

  /**
   * A keep-alive tick (every `keepAliveMs`): a POST that has waited at least
   * half of `keepAliveMs` for its first message becomes a stream (a priming
   * event for sessions that prime, so it can be resumed), so that no proxy or
   * client sees it silent for long; then every open connection gets a
   * keep-alive comment. A quick answer therefore stays plain JSON, and no
   * connection stays silent for more than 1.5 × `keepAliveMs`.
   */
  keepAlive(): void {
    if (this.protocolVersion !== undefined && this.ended === undefined) {
      const before = this.now() - this.settings.keepAliveMs / 2
      for (const exchange of this.exchanges) {
        if (exchange.state === "pending" && exchange.openedAt <= before) this.stream(exchange)
      }
    }
    for (const stream of this.streams.values()) stream.connection?.write(keepAliveComment)
  }

  // -- lifetime ---------------------------------------------------------------

  /** Whether nothing is going on: no open POST, no open stream. */
  isIdle(): boolean {
    if (this.exchanges.size > 0) return false
    for (const stream of this.streams.values()) if (stream.connection !== undefined) return false
    return true
  }

  /** Something is going on: the idle timer stops. */
  touch(): void {
    this.idleTimer?.cancel()
    this.idleTimer = undefined
  }

  /** Starts the idle timer if nothing is going on. */
  checkIdle(): void {
    if (this.ended !== undefined || this.idleTimer !== undefined || !this.isIdle()) return
    this.idleTimer = this.schedule(
      this.settings.sessionIdleMs,
      Effect.suspend(() => {
        this.idleTimer = undefined
        return this.isIdle() ? this.endNow("idle") : Effect.void
      })
    )
  }

  /**
   * Ends the session: its frames end, so the server core drains it and
   * returns (then {@link finish} runs). The requests of a deleted session,
   * or of one that was never initialized in time, are cancelled at once; at
   * shutdown they get the core's grace period.
   */
  end(reason: EndReason): Effect.Effect<void> {
    return Effect.suspend(() => this.endNow(reason))
  }

  private endNow(reason: EndReason): Effect.Effect<void> {
    if (this.ended !== undefined) return Effect.void
    this.touch()
    this.initializedTimer?.cancel()
    this.initializedTimer = undefined
    if (reason === "deleted" || reason === "uninitialized") {
      const why =
        reason === "deleted"
          ? "The client terminated the session."
          : "The session expired: the client never sent notifications/initialized."
      for (const exchange of this.exchanges) {
        for (const key of exchange.outstanding) {
          Queue.offerUnsafe(this.frames, cancelFrame(exchange.ids.get(key)!, why))
        }
      }
    }
    this.ended = reason
    Queue.endUnsafe(this.frames)
    return this.onEnd(this, reason)
  }

  /**
   * The server core is done with the session: every POST still open gets an
   * error for each request left unanswered, and every connection ends.
   */
  finish(): void {
    const reason = this.ended ?? "shutdown"
    for (const exchange of [...this.exchanges]) {
      const lines = [...exchange.outstanding].map((key) => sessionEndedLine(exchange.ids.get(key)!, reason))
      exchange.outstanding.clear()
      if (exchange.state === "pending") {
        const decision: Decision =
          lines.length === 0
            ? { _tag: "Empty" }
            : { _tag: "Json", body: exchange.batch ? `[${lines.join(",")}]` : lines[0]! }
        Deferred.doneUnsafe(exchange.decision, Exit.succeed(decision))
      } else if (exchange.stream !== undefined) {
        for (const line of lines) exchange.stream.append(line)
      }
      this.close(exchange)
    }
    for (const stream of this.streams.values()) {
      stream.done = true
      stream.graceTimer?.cancel()
      stream.retentionTimer?.cancel()
      stream.connection?.end()
      stream.connection = undefined
    }
    this.streams.clear()
    this.touch()
  }
}
