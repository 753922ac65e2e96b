/**
 * The inspector behind `serve --inspect`: what it keeps of requests, spans,
 * command runs and audit records (bounded), how it feeds clients (a slow one
 * is cut, never waited for), and the page server's checks (token, Host)
 * over a real loopback HTTP connection. The browser test of the page itself
 * is test/integration/inspect.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tracer from "effect/Tracer"
import { mkdtempSync, rmSync } from "node:fs"
import * as NodeNet from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import * as InspectServer from "../layers/InspectServer.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import { AuditLog } from "../src/AuditLog.ts"
import { CommandRunner } from "../src/CommandRunner.ts"
import * as Executor from "../src/Executor.ts"
import * as Inspector from "../src/Inspector.ts"
import { bounds } from "../src/internal/inspect/hub.ts"
import type { ObservedRequest } from "../src/internal/dispatch.ts"
import * as Policy from "../src/Policy.ts"
import type { RequestRecord } from "../src/RequestContext.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const root = mkdtempSync(join(tmpdir(), "inspect-unit-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const observed = (correlationId: string, record: RequestRecord, method = "tools/call"): ObservedRequest => ({
  correlationId,
  method,
  id: 1,
  scope: "s1",
  record,
  bytesIn: 42,
  startedMs: 0,
  principal: undefined
})

const newRecord = (): RequestRecord => ({
  tool: undefined,
  capability: undefined,
  queueMs: 0,
  outcome: undefined,
  ended: false
})

/** A client that keeps what it is offered; `room` batches fit in its queue. */
const collecting = (room = Infinity) => {
  const frames: Array<string> = []
  let cut = false
  return {
    frames,
    get cut() {
      return cut
    },
    events: () =>
      frames
        .join("")
        .split("\n\n")
        .filter((frame) => frame.startsWith("data: "))
        .map((frame) => JSON.parse(frame.slice("data: ".length))),
    client: {
      offer: (batch: string) => (frames.length < room ? (frames.push(batch), true) : false),
      onCut: () => {
        cut = true
      }
    }
  }
}

describe("Inspector", () => {
  it.effect("keeps each request from start to end, with the live record's tool and queue wait", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const record = newRecord()
      const request = observed("c-1", record)
      inspector.observer.started(request)
      let [view] = inspector.snapshot().requests
      assert.strictEqual(view!.running, true)
      assert.isUndefined(view!.tool)

      // While it runs, the tick reads the record the pipeline fills.
      const watcher = collecting()
      const connection = inspector.connect(watcher.client)!
      assert.include(connection.first, '"type":"snapshot"')
      record.tool = "system_echo"
      record.queueMs = 3
      inspector.tick()
      inspector.flush()
      const tick = watcher.events().find((event) => event.type === "tick")
      assert.strictEqual(tick.running[0].tool, "system_echo")
      assert.strictEqual(tick.running[0].queueMs, 3)

      inspector.observer.ended(request, { outcome: "cancelled", elapsedMs: 12, bytesOut: undefined })
      ;[view] = inspector.snapshot().requests
      assert.strictEqual(view!.running, false)
      assert.strictEqual(view!.outcome, "cancelled")
      assert.strictEqual(view!.elapsedMs, 12)
      // A cancellation is also an activity.
      assert.strictEqual(inspector.snapshot().activity[0]!.kind, "cancelled")
      inspector.flush()
      const kinds = watcher.events().map((event) => event.type)
      assert.deepStrictEqual(kinds, ["tick", "request", "activity"])
      connection.disconnect()
    })
  )

  it.effect("keeps at most the last requests, and a rejected request ends at once", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      for (let i = 0; i < bounds.requests + 20; i++) {
        const request = observed(`c-${i}`, newRecord())
        inspector.observer.started(request)
        inspector.observer.ended(request, { outcome: "ok", elapsedMs: 1, bytesOut: 10 })
      }
      const rejected = observed("", { ...newRecord(), outcome: "error", ended: true }, "(invalid message)")
      inspector.observer.started(rejected)
      inspector.observer.ended(rejected, { outcome: "error", elapsedMs: 0, bytesOut: 80 })
      const { requests } = inspector.snapshot()
      assert.strictEqual(requests.length, bounds.requests)
      assert.strictEqual(requests.at(-1)!.method, "(invalid message)")
      assert.strictEqual(requests.at(-1)!.running, false)
      assert.strictEqual(requests[0]!.correlationId, `c-${20 + 1}`)
    })
  )

  it.effect("cuts a client whose queue is full, and one that falls too far behind between flushes", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const full = collecting(1)
      const fine = collecting()
      inspector.connect(full.client)
      inspector.connect(fine.client)
      for (let round = 0; round < 3; round++) {
        const request = observed(`c-${round}`, newRecord())
        inspector.observer.started(request)
        inspector.flush()
      }
      assert.isTrue(full.cut)
      assert.isFalse(fine.cut)
      assert.strictEqual(inspector.clients.size, 1)
      assert.strictEqual(fine.frames.length, 3)

      // Never flushed (its writes stalled): cut once its frames pass the byte bound, without a flush.
      const stalled = collecting()
      inspector.connect(stalled.client)
      const big = "x".repeat(64 * 1024)
      for (let i = 0; !stalled.cut && i < 1000; i++) {
        inspector.audited({ time: "t", tool: big, outcome: "ok", durationMs: 1, correlationId: "c", arguments: {} })
      }
      assert.isTrue(stalled.cut)
      assert.strictEqual(stalled.frames.length, 0)
    })
  )

  it.effect("refuses clients beyond the bound", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      for (let i = 0; i < bounds.clients; i++) assert.isDefined(inspector.connect(collecting().client))
      assert.isUndefined(inspector.connect(collecting().client))
    })
  )

  it.effect("records a request's spans and the spans under it, by the request's correlation id", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const tracer = Inspector.tracer(inspector, Tracer.nativeTracer)
      yield* Effect.void.pipe(
        Effect.withSpan("tools/call", { attributes: { "mcp.tool.name": "system_echo" } }),
        Effect.withSpan("code.run"),
        Effect.withSpan("tools/call", { attributes: { "mcp.correlation_id": "c-9" } }),
        Effect.provideService(Tracer.Tracer, tracer)
      )
      yield* Effect.void.pipe(
        Effect.withSpan("tools/call", { attributes: { "mcp.correlation_id": "c-10" } }),
        Effect.provideService(Tracer.Tracer, tracer)
      )
      const spans = inspector.trace("c-9")
      assert.deepStrictEqual(
        spans.map((span) => span.name),
        ["tools/call", "code.run", "tools/call"]
      )
      assert.isUndefined(spans[0]!.parentId)
      assert.strictEqual(spans[1]!.parentId, spans[0]!.spanId)
      assert.strictEqual(spans[2]!.parentId, spans[1]!.spanId)
      assert.strictEqual(spans[2]!.attributes["mcp.tool.name"], "system_echo")
      assert.isTrue(spans.every((span) => span.status === "ok" && span.end !== undefined))
      assert.strictEqual(new Set(spans.map((span) => span.traceId)).size, 1)
      assert.strictEqual(inspector.trace("c-10").length, 1)
      assert.deepStrictEqual(inspector.trace("unknown"), [])

      for (let i = 0; i < bounds.traces; i++) {
        yield* Effect.void.pipe(Effect.withSpan("ping"), Effect.provideService(Tracer.Tracer, tracer))
      }
      assert.strictEqual(inspector.traces.length, bounds.traces)
      assert.deepStrictEqual(inspector.trace("c-9"), [])
    })
  )

  it.effect("shows the limits and the executor's load", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const policy = { ...Policy.defaults, maxConcurrent: 4, timeout: "2 seconds" as const }
      const executor = yield* Executor.make(policy)
      inspector.attachServer({ load: executor.load, policy })
      const [limits] = inspector.snapshot().limits
      assert.strictEqual(limits!.policy.maxConcurrent, 4)
      assert.strictEqual(limits!.policy.timeoutMs, 2000)
      assert.deepStrictEqual(limits!.load, { active: 0, waiting: 0, limit: 4, tools: {} })
    })
  )

  it.live("shows a command run's lines as they come and how it ended", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const result = yield* Effect.gen(function* () {
        const runner = yield* CommandRunner
        return yield* runner.run({ command: "node", args: ["-e", "console.log('one'); console.error('two')"] })
      }).pipe(
        Effect.provide(Inspector.layerCommandRunner(inspector, NodeCommandRunner.layer())),
        Effect.provideService(WorkspaceRoot, root)
      )
      assert.strictEqual(result.exitCode, 0)
      const [command] = inspector.snapshot().commands
      assert.strictEqual(command!.command, "node")
      assert.strictEqual(command!.running, false)
      assert.strictEqual(command!.exitCode, 0)
      assert.deepStrictEqual(
        [...command!.lines].sort((a, b) => a.stream.localeCompare(b.stream)),
        [
          { stream: "stderr", line: "two" },
          { stream: "stdout", line: "one" }
        ]
      )
    })
  )

  it.effect("shows audit records with their arguments redacted, and still writes them", () =>
    Effect.gen(function* () {
      const inspector = yield* Inspector.make
      const written: Array<unknown> = []
      const store = Layer.succeed(AuditLog, AuditLog.of({ record: (call) => Effect.sync(() => written.push(call)) }))
      yield* Effect.gen(function* () {
        const audit = yield* AuditLog
        yield* audit.record({
          time: "2026-01-01T00:00:00.000Z",
          correlationId: "c-1",
          tool: "upstream_login",
          arguments: { user: "ann", password: "hunter2" },
          outcome: "ok",
          durationMs: 3
        })
      }).pipe(Effect.provide(Inspector.layerAuditLog(inspector, store)))
      assert.strictEqual(written.length, 1)
      const [entry] = inspector.snapshot().audit
      assert.strictEqual(entry!.tool, "upstream_login")
      assert.notInclude(entry!.arguments, "hunter2")
      assert.include(entry!.arguments, '"user":"ann"')
    })
  )
})

describe("InspectServer", () => {
  it.live(
    "answers only the token on 127.0.0.1 or localhost, with a bare 403 otherwise; feeds a snapshot then events",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const inspector = yield* Inspector.make
          const { port, token, url } = yield* InspectServer.serve(inspector, { token: "t".repeat(32) })
          assert.strictEqual(url, `http://127.0.0.1:${port}/?token=${token}`)
          const get = (path: string, headers: Record<string, string> = {}) =>
            Effect.promise(async () => {
              const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers })
              return { status: response.status, body: await response.text(), headers: response.headers }
            })
          for (const path of ["/", "/events", "/snapshot", "/trace?request=x", `/?token=${token}x`, "/?token="]) {
            const response = yield* get(path)
            assert.strictEqual(response.status, 403, path)
            assert.strictEqual(response.body, "Forbidden\n", path)
          }
          const page = yield* get(`/?token=${token}`)
          assert.strictEqual(page.status, 200)
          assert.include(page.body, "<title>mcp-runtime inspect</title>")
          assert.include(
            page.headers.get("set-cookie") ?? "",
            `mcp_inspect_${port}=${token}; HttpOnly; SameSite=Strict`
          )
          assert.include(page.headers.get("content-security-policy") ?? "", "default-src 'none'")
          // The cookie, or a header, instead of the query.
          assert.strictEqual((yield* get("/snapshot", { cookie: `mcp_inspect_${port}=${token}` })).status, 200)
          assert.strictEqual((yield* get("/snapshot", { "x-inspect-token": token })).status, 200)
          assert.strictEqual((yield* get("/nothing", { "x-inspect-token": token })).status, 404)

          // The feed: the snapshot first, then the events as they happen.
          const events = yield* Effect.promise(async () => {
            const controller = new AbortController()
            const response = await fetch(`http://127.0.0.1:${port}/events?token=${token}`, {
              signal: controller.signal
            })
            assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
            const reader = response.body!.getReader()
            const decoder = new TextDecoder()
            let text = ""
            const read = async (until: (text: string) => boolean) => {
              while (!until(text)) text += decoder.decode((await reader.read()).value, { stream: true })
            }
            await read((t) => t.includes('"type":"snapshot"'))
            const request = observed("c-1", newRecord())
            inspector.observer.started(request)
            await read((t) => t.includes('"type":"request"'))
            controller.abort()
            return text
          })
          assert.isBelow(events.indexOf('"type":"snapshot"'), events.indexOf('"type":"request"'))
          assert.include(events, '"correlationId":"c-1"')
        })
      )
  )

  it.live("cuts a page that stops reading its feed, and serves the next one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const inspector = yield* Inspector.make
        const { port, token } = yield* InspectServer.serve(inspector)
        // A turn of the event loop (I/O included), not a timer.
        const turn = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        const socket = NodeNet.connect(port, "127.0.0.1")
        yield* Effect.addFinalizer(() => Effect.sync(() => socket.destroy()))
        socket.write(`GET /events?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
        socket.pause()
        for (let i = 0; i < 10_000 && inspector.clients.size === 0; i++) yield* turn
        assert.strictEqual(inspector.clients.size, 1)
        const big = "x".repeat(16 * 1024)
        let rounds = 0
        for (; rounds < 5000 && inspector.clients.size > 0; rounds++) {
          for (let j = 0; j < 20; j++) {
            inspector.audited({ time: "t", tool: big, outcome: "ok", durationMs: 1, correlationId: "c", arguments: {} })
          }
          inspector.flush()
          yield* turn
        }
        assert.strictEqual(inspector.clients.size, 0)
        // Cut after a few MiB (its queue of 8 batches, the socket's buffers), not after all that was sent (320 KiB a
        // round).
        assert.isBelow(rounds, 60)
        const next = yield* Effect.promise(async () => {
          const controller = new AbortController()
          const response = await fetch(`http://127.0.0.1:${port}/events?token=${token}`, { signal: controller.signal })
          const { value } = await response.body!.getReader().read()
          controller.abort()
          return new TextDecoder().decode(value)
        })
        assert.include(next, '"type":"snapshot"')
      })
    )
  )

  it.live("refuses a Host header other than its own address (DNS rebinding)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const inspector = yield* Inspector.make
        const { port, token } = yield* InspectServer.serve(inspector)
        const status = (host: string) =>
          Effect.promise(
            () =>
              new Promise<number>((resolve, reject) => {
                // fetch sets Host itself: node:http lets the test choose it.
                import("node:http").then((NodeHttp) => {
                  const request = NodeHttp.request(
                    { host: "127.0.0.1", port, path: `/snapshot?token=${token}`, headers: { host } },
                    (response) => {
                      response.resume()
                      resolve(response.statusCode ?? 0)
                    }
                  )
                  request.on("error", reject)
                  request.end()
                }, reject)
              })
          )
        assert.strictEqual(yield* status(`127.0.0.1:${port}`), 200)
        assert.strictEqual(yield* status(`localhost:${port}`), 200)
        assert.strictEqual(yield* status(`evil.example:${port}`), 403)
        assert.strictEqual(yield* status(`127.0.0.1:${port + 1}`), 403)
        assert.strictEqual(yield* status("127.0.0.1"), 403)
      })
    )
  )
})
