/**
 * HTTP faults over the real Streamable HTTP transport (`HttpTransport.serve`
 * in this process, on a free port, real sockets): a client that never reads
 * its SSE stream, whose server-side buffer stays bounded and whose stream
 * ends with an event that says why (and is resumed without losing a
 * message), while other clients are served; and the session cap (503 past
 * it). Real time with small bounds, as the sockets are real.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as HttpTransport from "../layers/HttpTransport.ts"
import * as Capability from "../src/Capability.ts"
import * as ClientLog from "../src/ClientLog.ts"
import * as Tool from "../src/Tool.ts"
import * as ConfigFile from "../src/cli/ConfigFile.ts"
import { noServeFlags } from "../src/cli/compose.ts"
import { diagnose, httpLimits } from "../src/cli/doctor.ts"
import * as Settings from "../src/cli/settings.ts"
import { initialize, messageOf, post, readEvents, type SseEvent } from "./integration/HttpProcess.ts"
import { serveInProcess as serveShared } from "./support/httpInProcess.ts"

const flood = Tool.make("flood", {
  description: "Logs `count` messages of `size` bytes to the client, one after the other or all at once.",
  input: Schema.Struct({ count: Schema.Number, size: Schema.Number, parallel: Schema.Boolean })
}).pipe(
  Tool.handle(({ count, parallel, size }) =>
    Effect.as(
      Effect.forEach(
        Array.from({ length: count }, (_, i) => i + 1),
        (n) => ClientLog.info({ n, pad: "x".repeat(size) }),
        { concurrency: parallel ? "unbounded" : 1, discard: true }
      ),
      `sent ${count}`
    )
  )
)

const Flooding = Capability.make(
  { id: "faults", description: "A tool that floods its stream", version: "1.0.0" },
  Effect.succeed({ tools: [flood] })
)

/** `HttpTransport.serve` in this process, on a free port, its log lines collected. */
const serveInProcess = (options: HttpTransport.Options) => serveShared(Flooding, {}, options)

/** Waits (bounded) for a log line. */
const logLine = async (logs: ReadonlyArray<any>, test: (line: any) => boolean, ms = 10_000): Promise<any> => {
  const deadline = performance.now() + ms
  for (;;) {
    const found = logs.find(test)
    if (found !== undefined) return found
    if (performance.now() > deadline) throw new Error("no such log line in time")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "http-faults", version: "1.0.0" },
  "io.modelcontextprotocol/logLevel": "info"
}

/**
 * A raw client that POSTs a tools/call and never reads the answer (its
 * socket is paused before anything arrives). `drain` reads it all later.
 */
const stuckCall = (url: string, session: string | undefined, args: Record<string, unknown>) => {
  const { port } = new URL(url)
  // With a session: protocol 2025-11-25; without: a 2026-07-28 request, which carries its own context.
  const params =
    session === undefined
      ? { name: "faults_flood", arguments: args, _meta: modernMeta }
      : { name: "faults_flood", arguments: args }
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params })
  const headers =
    session === undefined
      ? "Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: faults_flood\r\n"
      : `Mcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-11-25\r\n`
  const socket: Socket = connect({ port: Number(port), host: "127.0.0.1" }, () =>
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nConnection: close\r\n${headers}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    )
  )
  socket.pause()
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  return {
    socket,
    closed,
    /** Reads everything until the connection closes: the raw HTTP response. */
    drain: () =>
      new Promise<string>((resolve) => {
        const chunks: Array<Buffer> = []
        socket.on("data", (chunk: Buffer) => void chunks.push(chunk))
        socket.once("close", () => resolve(Buffer.concat(chunks).toString("utf8")))
        socket.resume()
      })
  }
}

/** The `n` of each `notifications/message` the events carry. */
const logged = (events: ReadonlyArray<{ readonly data: string }>): Array<number> =>
  events
    .filter((event) => event.data.startsWith("{"))
    .map((event) => JSON.parse(event.data))
    .filter((message) => message.method === "notifications/message")
    .map((message) => message.params.data.n)

/** The SSE events of a raw chunked HTTP response's body. */
const eventsOf = (raw: string) => {
  const body = raw
    .slice(raw.indexOf("\r\n\r\n") + 4)
    // De-chunk: drop the chunk-size lines.
    .split(/\r\n[0-9a-f]+\r\n|^[0-9a-f]+\r\n/)
    .join("")
    .replace(/\r\n$/, "")
  return {
    body,
    events: body
      .split("\n\n")
      .filter((block) => block !== "" && !block.startsWith(":"))
      .map((block) => {
        const lines = block.split("\n")
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2))
        return { id: field("id")[0], event: field("event")[0], data: field("data").join("\n") }
      })
  }
}

/** Every event of an SSE response, until it ends. */
const allEvents = async (response: Response) => {
  const reader = readEvents(response)
  const events: Array<SseEvent> = []
  for (let event = await reader.next(); event !== undefined; event = await reader.next()) events.push(event)
  return events
}

/** Another client, served while the stuck one is stuck: a fresh session, a ping and a small call. */
const assertServes = async (url: string) => {
  const other = await initialize(url)
  const pong = await post(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": other })
  assert.deepStrictEqual(await pong.json(), { jsonrpc: "2.0", id: 1, result: {} })
  const call = await post(
    url,
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "faults_flood", arguments: { count: 3, size: 10, parallel: false } }
    },
    { "mcp-session-id": other }
  )
  const events = await allEvents(call)
  assert.deepStrictEqual(logged(events), [1, 2, 3])
  assert.strictEqual(messageOf(events.at(-1)!).result.content[0].text, "sent 3")
}

const count = 400
const size = 64 * 1024

describe("HTTP faults: a client that never reads its SSE stream", () => {
  it("past maxStreamBufferBytes the stream ends with a slow_reader event; its buffer stayed bounded; resumed, nothing is lost", async () => {
    const cap = 256 * 1024
    const server = await serveInProcess({ maxStreamBufferBytes: cap, slowReaderMs: 10_000, replayEvents: 1000 })
    try {
      const session = await initialize(server.url)
      // 400 messages of 64 KiB at once: 25 MiB, far more than the kernel's socket buffers hold.
      const stuck = stuckCall(server.url, session, { count, size, parallel: true })
      const cut = await logLine(server.logs, (line) => line.message === "http stream closed: slow reader")
      assert.strictEqual(cut.level, "WARN")
      assert.strictEqual(cut.annotations.reason, "buffer")
      assert.strictEqual(cut.annotations.limit_bytes, cap)
      // Written only below the cap: at most the cap plus one message (with its event framing).
      assert.isAtLeast(cut.annotations.buffered_bytes, cap)
      assert.isBelow(cut.annotations.buffered_bytes, cap + size + 1024)
      await assertServes(server.url)

      // The reader reads at last: what was buffered, then the reason, then the end.
      const { body, events } = eventsOf(await stuck.drain())
      assert.match(body, /: closed: slow reader\n\nevent: error\ndata: \{[^\n]*\}\n\n$/)
      const last = events.at(-1)!
      assert.strictEqual(last.event, "error")
      assert.isUndefined(last.id)
      const reason = JSON.parse(last.data)
      assert.strictEqual(reason.error, "slow_reader")
      assert.include(reason.message, "Last-Event-ID")
      const first = logged(events)
      assert.isBelow(first.length, count)
      const lastId = events.filter((event) => event.id !== undefined).at(-1)!.id!

      // Resumed from the last event it got: the rest, then the answer; every message exactly once.
      const resumed = await fetch(server.url, {
        headers: { accept: "text/event-stream", "mcp-session-id": session, "last-event-id": lastId }
      })
      assert.strictEqual(resumed.status, 200)
      const rest = await allEvents(resumed)
      assert.deepStrictEqual(
        [...first, ...logged(rest)].sort((a, b) => a - b),
        Array.from({ length: count }, (_, i) => i + 1)
      )
      assert.strictEqual(messageOf(rest.at(-1)!).result.content[0].text, `sent ${count}`)
    } finally {
      await server.stop()
    }
  })

  it("a sender waits for the stream to drain (backpressure); not drained for slowReaderMs, the stream ends, then the connection goes", async () => {
    const server = await serveInProcess({
      maxStreamBufferBytes: 64 * 1024 * 1024,
      slowReaderMs: 300,
      replayEvents: 1000
    })
    try {
      const session = await initialize(server.url)
      const started = performance.now()
      const stuck = stuckCall(server.url, session, { count, size, parallel: false })
      const cut = await logLine(server.logs, (line) => line.message === "http stream closed: slow reader")
      assert.strictEqual(cut.annotations.reason, "stalled")
      assert.strictEqual(cut.annotations.slow_reader_ms, 300)
      // The tool waited for the buffer to drain: far below the 64 MiB cap, about one message over the high-water mark.
      assert.isBelow(cut.annotations.buffered_bytes, 2 * size)
      await assertServes(server.url)
      // A reader that takes not even the end is dropped, which frees its buffer; reading at last, it finds the
      // connection closed.
      const dropped = await logLine(server.logs, (line) => line.message === "http stream dropped: slow reader")
      assert.isAtLeast(performance.now() - started, 600)
      assert.isBelow(dropped.annotations.buffered_bytes, 2 * size)
      stuck.socket.on("error", () => undefined)
      stuck.socket.resume()
      await stuck.closed
      // What it never read is still there: resumed from its first event (the priming one), all of it and the answer.
      const resumed = await fetch(server.url, {
        headers: { accept: "text/event-stream", "mcp-session-id": session, "last-event-id": "1-1" }
      })
      assert.strictEqual(resumed.status, 200)
      const rest = await allEvents(resumed)
      assert.deepStrictEqual(
        logged(rest),
        Array.from({ length: count }, (_, i) => i + 1)
      )
      assert.strictEqual(messageOf(rest.at(-1)!).result.content[0].text, `sent ${count}`)
    } finally {
      await server.stop()
    }
  })
})

describe("HTTP faults: a 2026-07-28 client that never reads its stream", () => {
  it("past maxStreamBufferBytes its stream ends with a slow_reader event (nothing to resume); others are served", async () => {
    const cap = 256 * 1024
    const server = await serveInProcess({ maxStreamBufferBytes: cap, slowReaderMs: 10_000 })
    try {
      const stuck = stuckCall(server.url, undefined, { count, size, parallel: true })
      const cut = await logLine(server.logs, (line) => line.message === "http stream closed: slow reader")
      assert.strictEqual(cut.annotations.stateless, true)
      assert.isAtLeast(cut.annotations.buffered_bytes, cap)
      assert.isBelow(cut.annotations.buffered_bytes, cap + size + 1024)
      await assertServes(server.url)
      const { body, events } = eventsOf(await stuck.drain())
      assert.match(body, /: closed: slow reader\n\nevent: error\ndata: \{[^\n]*\}\n\n$/)
      const reason = JSON.parse(events.at(-1)!.data)
      assert.strictEqual(reason.error, "slow_reader")
      assert.include(reason.message, "is lost")
      assert.isBelow(logged(events).length, count)
    } finally {
      await server.stop()
    }
  })
})

describe("HTTP faults: the session cap", () => {
  it("with maxSessions 3, a fourth initialize gets 503 while the others are served; one ended frees a slot", async () => {
    const server = await serveInProcess({ maxSessions: 3 })
    try {
      const sessions = [await initialize(server.url), await initialize(server.url), await initialize(server.url)]
      const refused = await post(server.url, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fourth", version: "1.0.0" } }
      })
      assert.strictEqual(refused.status, 503)
      const body: any = await refused.json()
      assert.strictEqual(body.error.code, -32000)
      assert.include(body.error.message, "too many open sessions (3)")
      for (const session of sessions) {
        const pong = await post(server.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": session })
        assert.strictEqual(pong.status, 200)
      }
      const deleted = await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": sessions[0]! } })
      assert.strictEqual(deleted.status, 200)
      // The slot is free once the session has drained.
      const deadline = performance.now() + 5_000
      for (;;) {
        const again = await initialize(server.url).then(
          () => true,
          () => false
        )
        if (again) break
        if (performance.now() > deadline) assert.fail("no slot freed by DELETE")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      await server.stop()
    }
  })
})

describe("HTTP faults: the session cap is configured and shown", () => {
  const resolve = (config: ConfigFile.Config, flags: Partial<Settings.Flags> = {}) =>
    Effect.runPromise(
      Effect.result(
        Settings.resolve({
          root: "/tmp",
          configFile: "mcp-runtime.json",
          config,
          flags: { ...noServeFlags, ...flags },
          env: {}
        })
      )
    )

  it("--max-sessions wins over the file's http.maxSessions; below 1, or without HTTP: a usage error", async () => {
    const fromFile = await resolve({ transport: "http", http: { maxSessions: 5 } })
    assert.strictEqual(fromFile._tag === "Success" && fromFile.success.http.maxSessions, 5)
    const fromFlag = await resolve({ transport: "http", http: { maxSessions: 5 } }, { maxSessions: Option.some(3) })
    assert.strictEqual(fromFlag._tag === "Success" && fromFlag.success.http.maxSessions, 3)
    const unset = await resolve({ transport: "http" })
    assert.isUndefined(unset._tag === "Success" ? unset.success.http.maxSessions : "failed")
    const zero = await resolve({ transport: "http" }, { maxSessions: Option.some(0) })
    assert.strictEqual(zero._tag === "Failure" && zero.failure.message, "--max-sessions 0: must be at least 1")
    const stdio = await resolve({}, { maxSessions: Option.some(3) })
    assert.strictEqual(
      stdio._tag === "Failure" && stdio.failure.message,
      "--max-sessions applies to --transport http only"
    )
    const decoded = Schema.decodeUnknownExit(ConfigFile.ConfigFile)({ http: { maxSessions: 0 } })
    assert.strictEqual(decoded._tag, "Failure")
  })

  it("doctor shows the HTTP limits: the session cap from the configuration file, the SSE buffer cap", async () => {
    const root = mkdtempSync(join(tmpdir(), "http-faults-"))
    try {
      writeFileSync(join(root, "mcp-runtime.json"), JSON.stringify({ transport: "http", http: { maxSessions: 3 } }))
      const report = await Effect.runPromise(
        diagnose({
          root: Option.some(root),
          config: Option.none(),
          capabilities: Option.some("system"),
          auditLog: Option.some("off")
        }).pipe(Effect.provide(NodeServices.layer))
      )
      const transport = report.sections
        .flatMap((section) => section.checks)
        .find((check) => check.title === "Transport: http")
      assert.isDefined(transport)
      assert.deepStrictEqual(transport!.details.slice(1), [
        "sessions: at most 3 open at once (one more initialize gets 503); about 87 KiB each, 261 KiB when full",
        "SSE streams: one ends with a slow_reader event (resumable) once 4 MiB wait for a client that does not read, " +
          "or its buffer has not drained for 30000 ms"
      ])
      assert.include(
        httpLimits({}, HttpTransport.defaults)[0],
        "at most 1000 open at once (one more initialize gets 503); about 87 KiB each, 85 MiB when full"
      )
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
