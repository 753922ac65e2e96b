/**
 * `serve --daemon auto`'s proxy in process: what it reads from the messages
 * that pass (requests in flight, the session to replay, the lines the daemon
 * may not have read), the session moving into a real in-process server when
 * the daemon drains or is lost, and the bounded wait after the end of input.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import * as Protocol from "../src/internal/daemonProtocol.ts"
import * as DaemonProxy from "../src/internal/daemonProxy.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import { frameLines, Transport } from "../src/Transport.ts"

const encode = (text: string) => new TextEncoder().encode(text)
const jsonLine = (message: unknown) => `${JSON.stringify(message)}\n`

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } }
}

describe("daemon proxy: the tracker", () => {
  it("tracks requests until their response, across chunks, batches and cancellations", () => {
    const tracker = DaemonProxy.makeTracker(1024)
    const text =
      jsonLine({ jsonrpc: "2.0", id: 1, method: "ping" }) + jsonLine({ jsonrpc: "2.0", id: "a", method: "x" })
    tracker.clientChunk(encode(text.slice(0, 10)))
    assert.deepStrictEqual(tracker.inFlight(), [])
    tracker.clientChunk(encode(text.slice(10)))
    assert.deepStrictEqual(tracker.inFlight(), ["1", '"a"'])
    // A request of the server's (it names a method) is not a response.
    tracker.serverLine('{"jsonrpc":"2.0","id":"a","method":"elicitation/create","params":{}}')
    tracker.serverLine('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}')
    assert.deepStrictEqual(tracker.inFlight(), ["1", '"a"'])
    tracker.serverLine('{"jsonrpc":"2.0","id":1,"result":{}}')
    assert.deepStrictEqual(tracker.inFlight(), ['"a"'])
    tracker.clientChunk(
      encode(
        jsonLine([
          { jsonrpc: "2.0", id: 2, method: "ping" },
          { jsonrpc: "2.0", id: 3, method: "ping" }
        ])
      )
    )
    tracker.serverLine(
      '[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"x"}}]'
    )
    assert.deepStrictEqual(tracker.inFlight(), ['"a"'])
    // A cancelled request is never answered: it is no longer in flight.
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "a" } }))
    )
    assert.deepStrictEqual(tracker.inFlight(), [])
  })

  it("keeps what re-creates the session, with ids whose responses are swallowed", () => {
    const tracker = DaemonProxy.makeTracker(4096)
    tracker.clientChunk(encode(jsonLine(initialize)))
    tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" })))
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 7, method: "logging/setLevel", params: { level: "debug" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 8, method: "resources/subscribe", params: { uri: "file:///a" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri: "file:///b" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 10, method: "resources/unsubscribe", params: { uri: "file:///a" } }))
    )
    const replay = tracker.replay().map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      replay.map((message) => [message.method, message.id]),
      [
        ["initialize", "mcp-runtime-replay-1"],
        ["notifications/initialized", undefined],
        ["logging/setLevel", "mcp-runtime-replay-2"],
        ["resources/subscribe", "mcp-runtime-replay-3"]
      ]
    )
    assert.deepStrictEqual(replay[0].params, initialize.params)
    assert.deepStrictEqual(replay[3].params, { uri: "file:///b" })
    assert.isTrue(DaemonProxy.isReplayResponse('{"jsonrpc":"2.0","id":"mcp-runtime-replay-1","result":{}}'))
    assert.isFalse(DaemonProxy.isReplayResponse('{"jsonrpc":"2.0","id":1,"result":{}}'))
  })

  it("keeps the line in progress, and forgets one too long to keep", () => {
    const tracker = DaemonProxy.makeTracker(16)
    tracker.clientChunk(encode('{"a":1}\n{"b"'))
    assert.strictEqual(new TextDecoder().decode(tracker.pending().bytes), '{"b"')
    tracker.clientChunk(encode(":2}\n"))
    assert.isUndefined(tracker.pending().bytes)
    tracker.clientChunk(encode(`{"jsonrpc":"2.0","id":1,"method":"ping"`))
    assert.deepStrictEqual(tracker.pending(), { bytes: undefined, oversize: true })
    tracker.clientChunk(encode("}\n"))
    // Too long to read: not tracked (the server refuses it with no id to answer).
    assert.deepStrictEqual(tracker.inFlight(), [])
    assert.deepStrictEqual(tracker.pending(), { bytes: undefined, oversize: false })
  })

  it("splits the daemon's bytes into lines", () => {
    const split = DaemonProxy.makeLineSplitter()
    assert.deepStrictEqual(split(encode('{"a":1}\n{"b"')), ['{"a":1}'])
    assert.deepStrictEqual(split(encode(":2}\n\n")), ['{"b":2}', ""])
  })
})

/**
 * A fake daemon connection: what the proxy writes to it, and what it sends
 * back. It closes when the proxy ends its side, unless `stays`.
 */
const makeUpstreamWith = (options: { readonly stays?: boolean } = {}) =>
  Effect.gen(function* () {
    const toClient = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const received: Array<string> = []
    let ended = false
    const upstream: DaemonProxy.Upstream = {
      chunks: Stream.fromQueue(toClient),
      write: (bytes) =>
        Effect.sync(() => {
          received.push(new TextDecoder().decode(bytes))
          return true
        }),
      end: Effect.andThen(
        Effect.sync(() => {
          ended = true
        }),
        options.stays === true ? Effect.void : Queue.end(toClient)
      ),
      destroy: Effect.void
    }
    return {
      upstream,
      toClient,
      send: (message: unknown) => Queue.offer(toClient, encode(jsonLine(message))),
      die: Queue.end(toClient),
      received: () => received.join(""),
      ended: () => ended
    }
  })
const makeUpstream = makeUpstreamWith()

// The server this process serves with once the daemon is gone: a real one, with no capability.
const localServer: DaemonProxy.Fallback = (input, send) =>
  McpServer.serve().pipe(
    Effect.provideService(
      Transport,
      Transport.of({ frames: frameLines(input, 1 << 20), send: (line) => Effect.sync(() => send(line)) })
    ),
    Effect.provide(Kernel.layer()),
    Effect.provideService(References.MinimumLogLevel, "Warn")
  )

const waitFor = <A>(what: string, check: () => A | undefined) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      const found = check()
      if (found !== undefined) return found
      yield* Effect.sleep(5)
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

describe("daemon proxy: the lines the daemon may not have read", () => {
  it("numbers the client's lines, keeps those not known to be read, and gives back those after a count", () => {
    const tracker = DaemonProxy.makeTracker(1024)
    tracker.clientChunk(encode(jsonLine(initialize)))
    tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" })))
    tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n"))
    tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", id: 3, method: "tools/list" })))
    assert.strictEqual(tracker.linesSent(), 5, "every newline counts, a blank line too")
    // The answer to line 1 shows lines 1 and before were read: they are no longer kept.
    tracker.serverLine('{"jsonrpc":"2.0","id":1,"result":{}}')
    const unread = tracker.unread(3).map((bytes) => new TextDecoder().decode(bytes))
    assert.deepStrictEqual(unread, [jsonLine({ jsonrpc: "2.0", id: 3, method: "tools/list" }).trimEnd()])
    assert.deepStrictEqual(tracker.inFlight(), ["2"], "the request given back is no longer in flight here")
    assert.deepStrictEqual(tracker.unread(3), [], "given back once")
  })

  it("replays the session as it stood after a number of lines", () => {
    const tracker = DaemonProxy.makeTracker(4096)
    tracker.clientChunk(encode(jsonLine(initialize)))
    tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" })))
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "debug" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 4, method: "resources/subscribe", params: { uri: "file:///a" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 5, method: "logging/setLevel", params: { level: "error" } }))
    )
    tracker.clientChunk(
      encode(jsonLine({ jsonrpc: "2.0", id: 6, method: "resources/unsubscribe", params: { uri: "file:///a" } }))
    )
    const methods = (lines: ReadonlyArray<string>) =>
      lines.map((line) => JSON.parse(line)).map((message) => [message.method, message.params?.level ?? null])
    assert.deepStrictEqual(methods(tracker.replay({ upTo: 4 })), [
      ["initialize", null],
      ["notifications/initialized", null],
      ["logging/setLevel", "debug"],
      ["resources/subscribe", null]
    ])
    assert.deepStrictEqual(methods(tracker.replay()), [
      ["initialize", null],
      ["notifications/initialized", null],
      ["logging/setLevel", "error"]
    ])
    assert.deepStrictEqual(tracker.replay({ upTo: 0 }), [], "an initialize the daemon never read is not replayed")
  })

  it("keeps no more than it may: the oldest lines go first, and their requests stay in flight", () => {
    const tracker = DaemonProxy.makeTracker(100, 100)
    for (let id = 1; id <= 4; id++) tracker.clientChunk(encode(jsonLine({ jsonrpc: "2.0", id, method: "ping" })))
    const unread = tracker.unread(0).map((bytes) => JSON.parse(new TextDecoder().decode(bytes)).id)
    assert.deepStrictEqual(unread, [3, 4], "40-odd bytes a line: two fit in 100")
    assert.deepStrictEqual(tracker.inFlight(), ["1", "2"])
  })
})

describe("daemon proxy: a session", () => {
  it.live("goes through the daemon, and ends when the client and then the daemon are done", () =>
    Effect.gen(function* () {
      const daemon = yield* makeUpstream
      const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const output: Array<string> = []
      const proxy = yield* Effect.forkChild(
        DaemonProxy.run({
          upstream: daemon.upstream,
          input: Stream.fromQueue(stdin),
          output: { writeLine: (line) => output.push(line), flush: () => {} },
          maxMessageBytes: 1 << 20,
          graceMs: 1000,
          fallback: () => Effect.die("no fallback expected"),
          onLost: Effect.void
        })
      )
      yield* Queue.offer(stdin, encode(jsonLine({ jsonrpc: "2.0", id: 1, method: "ping" })))
      yield* waitFor("the request at the daemon", () => (daemon.received().includes('"ping"') ? true : undefined))
      yield* daemon.send({ jsonrpc: "2.0", id: 1, result: {} })
      yield* waitFor("the response", () => output[0])
      yield* Queue.end(stdin)
      yield* waitFor("the half-close", () => (daemon.ended() ? true : undefined))
      yield* Fiber.join(proxy)
      assert.deepStrictEqual(output, ['{"jsonrpc":"2.0","id":1,"result":{}}'])
    })
  )

  it.live("moves into this process when the daemon is lost: in-flight requests fail, the session goes on", () =>
    Effect.gen(function* () {
      const daemon = yield* makeUpstream
      const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const output: Array<string> = []
      let lost = 0
      const proxy = yield* Effect.forkChild(
        DaemonProxy.run({
          upstream: daemon.upstream,
          input: Stream.fromQueue(stdin),
          output: { writeLine: (line) => output.push(line), flush: () => {} },
          maxMessageBytes: 1 << 20,
          graceMs: 1000,
          fallback: localServer,
          onLost: Effect.sync(() => lost++)
        })
      )
      yield* Queue.offer(stdin, encode(jsonLine(initialize)))
      yield* waitFor("initialize at the daemon", () => (daemon.received().includes("initialize") ? true : undefined))
      yield* daemon.send({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: {} } })
      yield* Queue.offer(stdin, encode(jsonLine({ jsonrpc: "2.0", method: "notifications/initialized" })))
      // A request the daemon never answers, and the start of the next line.
      yield* Queue.offer(stdin, encode(`${jsonLine({ jsonrpc: "2.0", id: 2, method: "tools/list" })}{"jsonrpc":"2.0",`))
      yield* waitFor("tools/list at the daemon", () => (daemon.received().includes("tools/list") ? true : undefined))
      yield* daemon.die
      const error = yield* waitFor("the error of the request in flight", () =>
        output.find((line) => line.includes('"id":2'))
      )
      assert.deepStrictEqual(JSON.parse(error), {
        jsonrpc: "2.0",
        id: 2,
        error: { code: DaemonProxy.lostCode, message: DaemonProxy.lostMessage }
      })
      assert.strictEqual(lost, 1)
      // The rest of the line in progress goes to the server in this process, which knows the session.
      yield* Queue.offer(stdin, encode(`"id":3,"method":"ping"}\n`))
      const pong = yield* waitFor("the ping's answer", () => output.find((line) => line.includes('"id":3')))
      assert.deepStrictEqual(JSON.parse(pong), { jsonrpc: "2.0", id: 3, result: {} })
      yield* Queue.end(stdin)
      yield* Fiber.join(proxy)
      assert.isUndefined(
        output.find((line) => line.includes("mcp-runtime-replay")),
        "the replayed initialize's answer is swallowed"
      )
      assert.strictEqual(output.length, 3)
    })
  )
})

/** Runs the proxy over a fake daemon, collecting the client's output. */
const startProxy = (options: { readonly graceMs?: number; readonly fallback?: DaemonProxy.Fallback } = {}) =>
  Effect.gen(function* () {
    const daemon = yield* makeUpstreamWith({ stays: true })
    const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const output: Array<string> = []
    const events: Array<string> = []
    const proxy = yield* Effect.forkChild(
      DaemonProxy.run({
        upstream: daemon.upstream,
        input: Stream.fromQueue(stdin),
        output: { writeLine: (line) => output.push(line), flush: () => {} },
        maxMessageBytes: 1 << 20,
        graceMs: options.graceMs ?? 1000,
        fallback: options.fallback ?? localServer,
        onLost: Effect.sync(() => events.push("lost")),
        onDraining: (linesRead) => Effect.sync(() => events.push(`draining ${linesRead}`))
      })
    )
    const answerOf = (id: number) =>
      waitFor(`the answer to ${id}`, () => {
        const line = output.find((line) => line.startsWith(`{"jsonrpc":"2.0","id":${id},`))
        return line === undefined ? undefined : JSON.parse(line)
      })
    return {
      daemon,
      stdin,
      output,
      events,
      proxy,
      answerOf,
      write: (message: unknown) => Queue.offer(stdin, encode(jsonLine(message)))
    }
  })

describe("daemon proxy: the daemon drains, the input ends", () => {
  it.live("draining: the lines the daemon did not read go to this process; its answers to the rest still arrive", () =>
    Effect.gen(function* () {
      const { answerOf, daemon, events, output, proxy, stdin, write } = yield* startProxy()
      yield* write(initialize)
      yield* waitFor("initialize at the daemon", () => (daemon.received().includes("initialize") ? true : undefined))
      yield* daemon.send({ jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: {} } })
      yield* write({ jsonrpc: "2.0", method: "notifications/initialized" })
      // Line 3: read by the daemon, which answers it later; line 4 and the start of line 5: never read.
      yield* write({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow" } })
      yield* Queue.offer(stdin, encode(`${jsonLine({ jsonrpc: "2.0", id: 3, method: "ping" })}{"jsonrpc":"2.0",`))
      yield* waitFor("line 4 at the daemon", () => (daemon.received().includes('"id":3') ? true : undefined))
      yield* Queue.offer(daemon.toClient, encode(`${Protocol.drainingLine(3)}\n`))
      const pong = yield* answerOf(3)
      assert.deepStrictEqual(pong, { jsonrpc: "2.0", id: 3, result: {} }, "answered in this process, not with an error")
      // The rest of the line in progress, and a new request: this process answers both.
      yield* Queue.offer(stdin, encode(`"id":4,"method":"ping"}\n`))
      assert.deepStrictEqual(yield* answerOf(4), { jsonrpc: "2.0", id: 4, result: {} })
      yield* write({ jsonrpc: "2.0", id: 5, method: "ping" })
      assert.deepStrictEqual(yield* answerOf(5), { jsonrpc: "2.0", id: 5, result: {} })
      assert.isFalse(daemon.received().includes('"id":5'), "nothing more goes to a draining daemon")
      // The daemon still answers what it read, then closes.
      yield* daemon.send({ jsonrpc: "2.0", id: 2, result: { content: [] } })
      assert.deepStrictEqual(yield* answerOf(2), { jsonrpc: "2.0", id: 2, result: { content: [] } })
      yield* daemon.die
      yield* Queue.end(stdin)
      yield* Fiber.join(proxy)
      assert.deepStrictEqual(events, ["draining 3"])
      assert.isUndefined(
        output.find((line) => line.includes(String(DaemonProxy.lostCode)) || line.includes("mcpRuntimeDaemon")),
        "no error, and the control line is not forwarded"
      )
      assert.isUndefined(output.find((line) => line.includes("mcp-runtime-replay")))
      assert.strictEqual(output.filter((line) => line.includes('"id":1,')).length, 1, "initialize answered once")
    })
  )

  it.live("lost while initialize is in flight: this process answers it, with its own id; no error for it", () =>
    Effect.gen(function* () {
      const { answerOf, daemon, events, output, proxy, stdin, write } = yield* startProxy()
      yield* write(initialize)
      yield* waitFor("initialize at the daemon", () => (daemon.received().includes("initialize") ? true : undefined))
      yield* daemon.die
      const result = yield* answerOf(1)
      assert.strictEqual(result.result.protocolVersion, "2025-06-18", "the in-process server's answer")
      yield* write({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* write({ jsonrpc: "2.0", id: 2, method: "ping" })
      assert.deepStrictEqual(yield* answerOf(2), { jsonrpc: "2.0", id: 2, result: {} })
      yield* Queue.end(stdin)
      yield* Fiber.join(proxy)
      assert.deepStrictEqual(events, ["lost"])
      assert.strictEqual(output.filter((line) => line.includes('"id":1,')).length, 1, "one answer, no error")
    })
  )

  it.live(
    "after the end of input, the daemon has the grace period; then what it left gets an error and serve ends",
    () =>
      Effect.gen(function* () {
        const { answerOf, daemon, output, proxy, stdin, write } = yield* startProxy({ graceMs: 200 })
        yield* write({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "forever" } })
        yield* waitFor("the call at the daemon", () => (daemon.received().includes("forever") ? true : undefined))
        yield* Queue.end(stdin)
        yield* waitFor("the half-close", () => (daemon.ended() ? true : undefined))
        // The daemon neither answers nor closes.
        yield* Fiber.join(proxy).pipe(
          Effect.timeoutOrElse({
            duration: 2000,
            orElse: () => Effect.die(new Error("serve waited past the grace period"))
          })
        )
        const error = yield* answerOf(1)
        assert.strictEqual(error.error.code, DaemonProxy.lostCode)
        assert.include(error.error.message, "shutdown grace period")
        // What the daemon sends afterwards is not delivered.
        yield* daemon.send({ jsonrpc: "2.0", id: 1, result: {} })
        assert.strictEqual(output.length, 1)
      })
  )
})
