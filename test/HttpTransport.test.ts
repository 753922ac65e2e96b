/**
 * The pure pieces of the Streamable HTTP transport (`layers/internal/`):
 * event ids and the replay buffer, the Host / Origin / media type checks,
 * the kind of an outgoing message, and the routing of one session, driven
 * by hand with fake connections and timers (no sockets, no real time).
 * `test/integration/http.test.ts` covers the whole over real HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import { TestClock } from "effect/testing"
import { invalidEntries } from "../layers/HttpTransport.ts"
import * as Logging from "../layers/Logging.ts"
import {
  accepts,
  hostAllowed,
  isAllowedHostEntry,
  isAllowedOriginEntry,
  isJsonContentType,
  originAllowed,
  parseAuthority
} from "../layers/internal/httpChecks.ts"
import {
  type Connection,
  HttpSession,
  makeSchedule,
  type Schedule,
  type SessionSettings,
  type SseStream
} from "../layers/internal/httpSession.ts"
import { outgoingKind } from "../layers/internal/outgoing.ts"
import { eventId, formatEvent, formatPriming, parseEventId, ReplayBuffer } from "../layers/internal/sse.ts"
import type { Frame } from "../src/Transport.ts"

describe("layers/internal/sse", () => {
  it("an event id names its stream and its place, and reads back", () => {
    assert.strictEqual(eventId(3, 17), "3-17")
    assert.deepStrictEqual(parseEventId("3-17"), { stream: 3, seq: 17 })
    assert.deepStrictEqual(parseEventId(" 0-1 "), { stream: 0, seq: 1 })
    for (const junk of ["", "3", "3-", "-1", "a-1", "01-2", "1-2-3", "1.2", "1-9999999999999999"]) {
      assert.isUndefined(parseEventId(junk), junk)
    }
  })

  it("the replay buffer keeps the last events, oldest first, and counts what it dropped", () => {
    const buffer = new ReplayBuffer(3)
    assert.isUndefined(buffer.oldestSeq())
    for (let seq = 1; seq <= 5; seq++) buffer.push({ seq, data: `m${seq}` })
    assert.strictEqual(buffer.size, 3)
    assert.strictEqual(buffer.evicted, 2)
    assert.strictEqual(buffer.oldestSeq(), 3)
    assert.deepStrictEqual(
      buffer.after(0).map((event) => event.seq),
      [3, 4, 5]
    )
    assert.deepStrictEqual(
      buffer.after(4).map((event) => event.data),
      ["m5"]
    )
    assert.deepStrictEqual(buffer.after(5), [])
  })

  it("events are one data line per line; a priming event has an id, retry and empty data", () => {
    assert.strictEqual(formatEvent("1-2", '{"a":1}'), 'id: 1-2\nevent: message\ndata: {"a":1}\n\n')
    assert.strictEqual(formatEvent("1-3", "a\nb\r\nc"), "id: 1-3\nevent: message\ndata: a\ndata: b\ndata: c\n\n")
    assert.strictEqual(formatPriming("0-1", 1000), "id: 0-1\nretry: 1000\ndata: \n\n")
  })
})

describe("layers/internal/httpChecks", () => {
  it("reads host[:port], brackets required around IPv6", () => {
    assert.deepStrictEqual(parseAuthority("LocalHost:3000"), { host: "localhost", port: "3000" })
    assert.deepStrictEqual(parseAuthority("[::1]:80"), { host: "[::1]", port: "80" })
    assert.deepStrictEqual(parseAuthority("example.com."), { host: "example.com", port: undefined })
    for (const junk of ["", "::1", "a:b:c", "host:port", "host:123456", "a b", "user@host", "[::1"]) {
      assert.isUndefined(parseAuthority(junk), junk)
    }
  })

  it("Host: loopback names with any port; other names only when allowed", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:9", "[::1]:3000", "[::1]"]) {
      assert.isTrue(hostAllowed(host, []), host)
    }
    for (const host of [undefined, "", "evil.example.com", "127.0.0.2", "localhost.evil.com", "::1", "0.0.0.0:3000"]) {
      assert.isFalse(hostAllowed(host, []), String(host))
    }
    assert.isTrue(hostAllowed("mcp.example.com:8443", ["mcp.example.com"]))
    assert.isTrue(hostAllowed("mcp.example.com:8443", ["mcp.example.com:8443"]))
    assert.isFalse(hostAllowed("mcp.example.com:9000", ["mcp.example.com:8443"]))
    assert.isFalse(hostAllowed("other.example.com", ["mcp.example.com"]))
    assert.isTrue(hostAllowed("anything.example", ["*"]))
  })

  it("Origin: absent, or loopback with any port and scheme, or allowed; never null", () => {
    for (const origin of [undefined, "http://localhost:5173", "https://127.0.0.1", "http://[::1]:8080"]) {
      assert.isTrue(originAllowed(origin, []), String(origin))
    }
    for (const origin of ["null", "https://evil.example.com", "file://", "chrome-extension://abc", "garbage"]) {
      assert.isFalse(originAllowed(origin, []), origin)
    }
    assert.isTrue(originAllowed("https://app.example.com", ["https://app.example.com:443"]))
    assert.isFalse(originAllowed("http://app.example.com", ["https://app.example.com"]))
    assert.isTrue(originAllowed("https://anything.example", ["*"]))
  })

  it("allowed-hosts entries are host[:port] or *; allowed-origins entries are http(s) origins or *", () => {
    for (const entry of ["mcp.example.com", "mcp.example.com:8443", "10.0.0.5", "[fd00::1]:3000", "*"]) {
      assert.isTrue(isAllowedHostEntry(entry), entry)
    }
    for (const entry of ["https://x", "x/y", "x:port", "x:70000", "fd00::1", "", "user@x"]) {
      assert.isFalse(isAllowedHostEntry(entry), entry)
    }
    for (const entry of ["https://app.example.com", "http://localhost:5173", "https://x.test/", "*"]) {
      assert.isTrue(isAllowedOriginEntry(entry), entry)
    }
    for (const entry of ["x.com", "localhost:3000", "ftp://x.com", "https://x.com/path", "https://u@x.com", "null"]) {
      assert.isFalse(isAllowedOriginEntry(entry), entry)
    }
    assert.deepStrictEqual(
      invalidEntries({ allowedHosts: ["ok.test", "https://x"], allowedOrigins: ["x.com"] }).map(({ entry, option }) => [
        option,
        entry
      ]),
      [
        ["allowedHosts", "https://x"],
        ["allowedOrigins", "x.com"]
      ]
    )
  })

  it("Accept and Content-Type", () => {
    assert.isTrue(accepts("application/json, text/event-stream", "text/event-stream"))
    assert.isTrue(accepts("*/*", "application/json"))
    assert.isTrue(accepts("text/*;q=0.5", "text/event-stream"))
    assert.isFalse(accepts("text/event-stream;q=0", "text/event-stream"))
    assert.isFalse(accepts("application/json", "text/event-stream"))
    assert.isFalse(accepts(undefined, "application/json"))
    assert.isTrue(isJsonContentType("application/json"))
    assert.isTrue(isJsonContentType("Application/JSON; charset=UTF-8"))
    assert.isFalse(isJsonContentType("application/json; charset=latin1"))
    assert.isFalse(isJsonContentType("text/plain"))
    assert.isFalse(isJsonContentType(undefined))
  })
})

describe("layers/internal/outgoing", () => {
  it("tells responses from requests, notifications and batches, by prefix or by parsing", () => {
    assert.strictEqual(outgoingKind('{"jsonrpc":"2.0","id":1,"result":{}}'), "response")
    assert.strictEqual(outgoingKind('{"jsonrpc":"2.0","id":"a\\"b","error":{"code":1,"message":"x"}}'), "response")
    assert.strictEqual(outgoingKind('{"jsonrpc":"2.0","id":"s-1","method":"roots/list","params":{}}'), "request")
    assert.strictEqual(outgoingKind('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'), "notification")
    assert.strictEqual(outgoingKind('[{"jsonrpc":"2.0","id":1,"result":{}}]'), "batch")
    // Another shape, read by parsing.
    assert.strictEqual(outgoingKind('{ "id": 2, "jsonrpc": "2.0", "result": {} }'), "response")
    assert.strictEqual(outgoingKind('{"method":"x","id":3,"jsonrpc":"2.0"}'), "request")
  })
})

// -- one session, by hand --------------------------------------------------------

interface FakeTimer {
  readonly ms: number
  readonly effect: Effect.Effect<void>
  cancelled: boolean
}

const settings: SessionSettings = {
  resumeGraceMs: 500,
  retryMs: 1000,
  replayEvents: 10,
  sessionIdleMs: 60_000,
  uninitializedSessionMs: 5_000,
  keepAliveMs: 1000
}

/** A session whose initialize was answered with `protocolVersion` (null: not yet). */
const makeSession = (protocolVersion: string | null = "2025-11-25", schedule?: Schedule) =>
  Effect.gen(function* () {
    const frames = yield* Queue.unbounded<Frame, Cause.Done>()
    const timers: Array<FakeTimer> = []
    const ended: Array<string> = []
    // The session's clock, moved by hand.
    const clock = { ms: 0 }
    const session = new HttpSession({
      id: "00000000-test-session",
      frames,
      settings,
      schedule:
        schedule ??
        ((ms, effect) => {
          const timer: FakeTimer = { ms, effect, cancelled: false }
          timers.push(timer)
          return { cancel: () => void (timer.cancelled = true) }
        }),
      now: () => clock.ms,
      onEnd: (_, reason) => Effect.sync(() => void ended.push(reason))
    })
    if (protocolVersion !== null) session.protocolVersion = protocolVersion
    // Runs the live timers of a duration, as if that time had passed.
    const elapse = (ms: number) =>
      Effect.forEach(
        timers.filter((timer) => !timer.cancelled && timer.ms === ms),
        (timer) =>
          Effect.andThen(
            Effect.sync(() => void (timer.cancelled = true)),
            timer.effect
          ),
        { discard: true }
      )
    return { session, frames, timers, ended, elapse, clock }
  })

/** Collects the log lines, as the JSON logger writes them. */
const captureLogs = (lines: Array<any>) =>
  Logger.layer([Logger.make((options) => void lines.push(JSON.parse(Logging.formatLine(options))))])

const fakeConnection = () => {
  const written: Array<string> = []
  let ended = false
  const connection: Connection = {
    write: (text) => void (ended ? undefined : written.push(text)),
    end: () => void (ended = true)
  }
  return { connection, written, ended: () => ended }
}

const response = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{}}`
const progress = (n: number) => `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":${n}}}`
const cancelledIds = (frames: ReadonlyArray<Frame>) =>
  frames.map((frame) => (frame._tag === "Message" ? (frame.parsed as any).params.requestId : undefined))

describe("layers/internal/httpSession", () => {
  it.effect("a response first: the POST is answered with that JSON body", () =>
    Effect.gen(function* () {
      const { session, timers } = yield* makeSession()
      const exchange = session.open([1], false)
      assert.isTrue(session.isOpen(1))
      yield* session.send(response(1), 1)
      const decision = yield* Deferred.await(exchange.decision)
      assert.deepStrictEqual(decision, { _tag: "Json", body: response(1) })
      assert.isFalse(session.isOpen(1))
      // Nothing is going on any more: the idle timer runs.
      assert.isTrue(session.isIdle())
      assert.deepStrictEqual(
        timers.map((timer) => timer.ms),
        [60_000]
      )
    })
  )

  it.effect("anything before the response turns the POST into a stream: priming, messages, response, end", () =>
    Effect.gen(function* () {
      const { session, timers } = yield* makeSession()
      const exchange = session.open([1], false)
      yield* session.send(progress(1), 1)
      const decision = yield* Deferred.await(exchange.decision)
      assert.strictEqual(decision._tag, "Sse")
      const stream = (decision as { stream: SseStream }).stream
      yield* session.send(progress(2), 1)
      const { connection, ended, written } = fakeConnection()
      session.attachPost(stream, connection)
      assert.deepStrictEqual(written, [
        `id: ${stream.id}-1\nretry: 1000\ndata: \n\n`,
        formatEvent(`${stream.id}-2`, progress(1)),
        formatEvent(`${stream.id}-3`, progress(2))
      ])
      yield* session.send(response(1), 1)
      assert.strictEqual(written.at(-1), formatEvent(`${stream.id}-4`, response(1)))
      assert.isTrue(ended())
      // Kept for a client that lost the end of it, then forgotten.
      assert.isTrue(session.canResume({ stream: stream.id, seq: 2 }))
      assert.isTrue(timers.some((timer) => timer.ms === settings.resumeGraceMs && !timer.cancelled))
    })
  )

  it.effect("before 2025-11-25 a stream has no priming event", () =>
    Effect.gen(function* () {
      const { session } = yield* makeSession("2025-06-18")
      const exchange = session.open([1], false)
      yield* session.send(progress(1), 1)
      const decision = (yield* Deferred.await(exchange.decision)) as { stream: SseStream }
      const { connection, written } = fakeConnection()
      session.attachPost(decision.stream, connection)
      assert.deepStrictEqual(written, [formatEvent(`${decision.stream.id}-1`, progress(1))])
    })
  )

  it.effect("a batch is answered by its array of responses", () =>
    Effect.gen(function* () {
      const { session } = yield* makeSession("2025-03-26")
      const exchange = session.open([1, 2], true)
      const batch = `[${response(1)},${response(2)}]`
      yield* session.send(batch, 1)
      assert.deepStrictEqual(yield* Deferred.await(exchange.decision), { _tag: "Json", body: batch })
      assert.isFalse(session.isOpen(2))
    })
  )

  it.effect("a message unrelated to any request waits for the GET stream; a response never goes there", () =>
    Effect.gen(function* () {
      const { session } = yield* makeSession()
      const changed = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
      yield* session.send(changed, undefined)
      yield* session.send(response(9), undefined)
      const { connection, written } = fakeConnection()
      const { stream } = session.openStandalone(connection)
      assert.strictEqual(stream.id, 0)
      assert.deepStrictEqual(written, [formatEvent("0-1", changed), "id: 0-2\nretry: 1000\ndata: \n\n"])
      assert.isTrue(session.isAttached(0))
      yield* session.send(changed, undefined)
      assert.strictEqual(written.at(-1), formatEvent("0-3", changed))
    })
  )

  it.effect("a POST dropped before anything was sent: its requests are cancelled at once", () =>
    Effect.gen(function* () {
      const { frames, session } = yield* makeSession()
      const exchange = session.open([1, "two"], true)
      assert.deepStrictEqual(session.abandon(exchange, "gone"), [1, "two"])
      assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(frames)), [1, "two"])
      assert.isFalse(session.isOpen(1))
    })
  )

  it.effect("a client's notifications/cancelled for the last request of a POST ends it with no answer", () =>
    Effect.gen(function* () {
      const { session } = yield* makeSession()
      const exchange = session.open([1, 2], true)
      session.clientCancelled(1)
      assert.isFalse(yield* Deferred.isDone(exchange.decision))
      session.clientCancelled(2)
      assert.deepStrictEqual(yield* Deferred.await(exchange.decision), { _tag: "Empty" })
    })
  )

  it.effect(
    "a dropped stream resumed in time replays after Last-Event-ID and goes on; else its requests are cancelled",
    () =>
      Effect.gen(function* () {
        const { elapse, frames, session } = yield* makeSession()
        // Resumed in time.
        const first = session.open([1], false)
        yield* session.send(progress(1), 1)
        const stream = ((yield* Deferred.await(first.decision)) as { stream: SseStream }).stream
        const one = fakeConnection()
        session.attachPost(stream, one.connection)
        session.connectionClosed(stream, one.connection)
        yield* session.send(progress(2), 1)
        assert.isTrue(session.canResume({ stream: stream.id, seq: 2 }))
        const two = fakeConnection()
        const { lost } = session.resume({ stream: stream.id, seq: 2 }, two.connection)
        assert.strictEqual(lost, 0)
        assert.deepStrictEqual(two.written.slice(0, 1), [formatEvent(`${stream.id}-3`, progress(2))])
        yield* elapse(settings.resumeGraceMs)
        assert.strictEqual(yield* Queue.size(frames), 0)
        yield* session.send(response(1), 1)
        assert.strictEqual(two.written.at(-1), formatEvent(`${stream.id}-5`, response(1)))

        // Not resumed: cancelled when the grace period is over, and forgotten.
        const second = session.open([2], false)
        yield* session.send(progress(1), 2)
        const other = ((yield* Deferred.await(second.decision)) as { stream: SseStream }).stream
        const three = fakeConnection()
        session.attachPost(other, three.connection)
        session.connectionClosed(other, three.connection)
        assert.isTrue(session.isOpen(2))
        yield* elapse(settings.resumeGraceMs)
        assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(frames)), [2])
        assert.isFalse(session.canResume({ stream: other.id, seq: 1 }))
        assert.isFalse(session.isOpen(2))
      })
  )

  it.effect("detach turns a waiting POST into a stream that closes after its priming event, to be resumed", () =>
    Effect.gen(function* () {
      const { session } = yield* makeSession()
      const exchange = session.open([1], false)
      session.detach(1)
      const stream = ((yield* Deferred.await(exchange.decision)) as { stream: SseStream }).stream
      const { connection, ended, written } = fakeConnection()
      session.attachPost(stream, connection)
      assert.deepStrictEqual(written, [`id: ${stream.id}-1\nretry: 1000\ndata: \n\n`])
      assert.isTrue(ended())
      assert.isFalse(session.isAttached(stream.id))
      yield* session.send(response(1), 1)
      const again = fakeConnection()
      session.resume({ stream: stream.id, seq: 1 }, again.connection)
      assert.deepStrictEqual(again.written, [formatEvent(`${stream.id}-2`, response(1))])
      assert.isTrue(again.ended())
    })
  )

  it.effect("DELETE cancels open requests, ends the frames, and open POSTs get an error", () =>
    Effect.gen(function* () {
      const { ended, frames, session } = yield* makeSession()
      const exchange = session.open([7], false)
      yield* session.end("deleted")
      assert.deepStrictEqual(ended, ["deleted"])
      assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(frames)), [7])
      // The frames have ended: the server core drains and returns.
      assert.strictEqual((yield* Effect.exit(Queue.take(frames)))._tag, "Failure")
      session.finish()
      const decision = (yield* Deferred.await(exchange.decision)) as { _tag: "Json"; body: string }
      const body = JSON.parse(decision.body)
      assert.strictEqual(body.id, 7)
      assert.strictEqual(body.error.code, -32000)
      assert.include(body.error.message, "terminated")
    })
  )

  it.effect("the idle timer ends a session with nothing going on, not one with an open stream", () =>
    Effect.gen(function* () {
      const { elapse, ended, session } = yield* makeSession()
      session.checkIdle()
      const { connection } = fakeConnection()
      const { stream } = session.openStandalone(connection) // touches: the timer is cancelled
      yield* elapse(settings.sessionIdleMs)
      assert.deepStrictEqual(ended, [])
      session.checkIdle() // busy: no timer
      yield* elapse(settings.sessionIdleMs)
      assert.deepStrictEqual(ended, [])
      session.connectionClosed(stream, connection)
      yield* elapse(settings.sessionIdleMs)
      assert.deepStrictEqual(ended, ["idle"])
    })
  )

  it.effect(
    "a POST still waiting at a keep-alive tick, after half an interval, becomes a stream; a quick one stays JSON",
    () =>
      Effect.gen(function* () {
        const { clock, session } = yield* makeSession()
        const slow = session.open([1], false)
        clock.ms = 600
        const quick = session.open([2], false)
        clock.ms = 1000
        session.keepAlive() // 1 waited 1000 ms, 2 only 400 ms
        const decision = yield* Deferred.await(slow.decision)
        assert.strictEqual(decision._tag, "Sse")
        assert.isFalse(yield* Deferred.isDone(quick.decision))
        yield* session.send(response(2), 2)
        assert.deepStrictEqual(yield* Deferred.await(quick.decision), { _tag: "Json", body: response(2) })
        // Headers, a priming event (it can be resumed), keep-alive comments, the response.
        const stream = (decision as { stream: SseStream }).stream
        const { connection, ended, written } = fakeConnection()
        session.attachPost(stream, connection)
        assert.deepStrictEqual(written, [`id: ${stream.id}-1\nretry: 1000\ndata: \n\n`])
        clock.ms = 2000
        session.keepAlive()
        assert.deepStrictEqual(written.slice(1), [": keep-alive\n\n"])
        assert.isTrue(session.canResume({ stream: stream.id, seq: 1 }))
        yield* session.send(response(1), 1)
        assert.strictEqual(written.at(-1), formatEvent(`${stream.id}-2`, response(1)))
        assert.isTrue(ended())
      })
  )

  it.effect("a POST turned into a stream without priming (before 2025-11-25) that drops is cancelled at once", () =>
    Effect.gen(function* () {
      const { clock, elapse, frames, session } = yield* makeSession("2025-06-18")
      const exchange = session.open([1], false)
      clock.ms = 1000
      session.keepAlive()
      const stream = ((yield* Deferred.await(exchange.decision)) as { stream: SseStream }).stream
      const { connection, written } = fakeConnection()
      session.attachPost(stream, connection)
      assert.deepStrictEqual(written, []) // the headers only: no event, so no id to resume from
      session.connectionClosed(stream, connection)
      yield* elapse(0)
      assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(frames)), [1])
      assert.isFalse(session.isOpen(1))
    })
  )

  it.effect("a session whose initialize is not answered yet never turns its POST into a stream", () =>
    Effect.gen(function* () {
      const { clock, session } = yield* makeSession(null)
      const exchange = session.open([0], false)
      clock.ms = 10_000
      session.keepAlive()
      assert.isFalse(yield* Deferred.isDone(exchange.decision))
    })
  )

  it.effect("a stream not resumed in time is cancelled and logged (real timers, TestClock)", () =>
    Effect.gen(function* () {
      const lines: Array<any> = []
      yield* Effect.gen(function* () {
        const { frames, session } = yield* makeSession("2025-11-25", yield* makeSchedule)
        const exchange = session.open([3], false)
        yield* session.send(progress(1), 3)
        const stream = ((yield* Deferred.await(exchange.decision)) as { stream: SseStream }).stream
        const { connection } = fakeConnection()
        session.attachPost(stream, connection)
        session.connectionClosed(stream, connection)
        yield* TestClock.adjust(settings.resumeGraceMs - 1)
        assert.strictEqual(yield* Queue.size(frames), 0)
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(frames)), [3])
        assert.isFalse(session.isOpen(3))
      }).pipe(Effect.scoped, Effect.provide(captureLogs(lines)))
      const line = lines.find(
        (line) => line.message === "http client did not resume its stream; cancelling its requests"
      )
      assert.isDefined(line, JSON.stringify(lines))
      assert.deepStrictEqual(line.annotations.ids, [3])
      assert.strictEqual(line.annotations.grace_ms, settings.resumeGraceMs)
    })
  )

  it.effect("a timer of the transport's schedule runs to its end even when it cancels itself", () =>
    Effect.gen(function* () {
      const steps: Array<string> = []
      const schedule = yield* makeSchedule
      const timer = schedule(
        10,
        Effect.gen(function* () {
          steps.push("fired")
          timer.cancel()
          yield* Effect.yieldNow
          steps.push("done")
        })
      )
      const cancelled = schedule(
        10,
        Effect.sync(() => void steps.push("never"))
      )
      cancelled.cancel()
      yield* TestClock.adjust(10)
      assert.deepStrictEqual(steps, ["fired", "done"])
    }).pipe(Effect.scoped)
  )

  it.effect("a session whose client never sends notifications/initialized ends after uninitializedSessionMs", () =>
    Effect.gen(function* () {
      // Initialized in time: it lives on.
      const good = yield* makeSession(null)
      good.session.started("2025-11-25")
      good.session.markInitialized()
      yield* good.elapse(settings.uninitializedSessionMs)
      assert.deepStrictEqual(good.ended, [])

      // Never initialized: it ends, open requests included, even with a stream open.
      const bare = yield* makeSession(null)
      bare.session.started("2025-11-25")
      assert.strictEqual(bare.session.protocolVersion, "2025-11-25")
      const exchange = bare.session.open([5], false)
      bare.session.openStandalone(fakeConnection().connection)
      yield* bare.elapse(settings.uninitializedSessionMs)
      assert.deepStrictEqual(bare.ended, ["uninitialized"])
      assert.deepStrictEqual(cancelledIds(yield* Queue.takeAll(bare.frames)), [5])
      bare.session.finish()
      const decision = (yield* Deferred.await(exchange.decision)) as { _tag: "Json"; body: string }
      assert.include(JSON.parse(decision.body).error.message, "never sent notifications/initialized")
    })
  )
})
