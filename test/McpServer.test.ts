import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Capability from "../src/Capability.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"

const Echo = Tool.make("echo", {
  description: "echo",
  input: Schema.Struct({ text: Schema.String }),
  output: Schema.Struct({ text: Schema.String })
}).pipe(Tool.handle(({ text }) => Effect.succeed({ text })))

const makeCapability = (started: Deferred.Deferred<void>, finalized: Deferred.Deferred<string>) =>
  Capability.make(
    { id: "t", description: "test", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Echo,
        Tool.make("slow", { description: "waits a minute", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.andThen(Deferred.succeed(started, undefined), Effect.sleep("1 minute")).pipe(
              Effect.as("done"),
              Effect.onInterrupt(() => Deferred.succeed(finalized, "interrupted"))
            )
          )
        ),
        Tool.make("boom", { description: "dies", input: Schema.Struct({}) }).pipe(
          Tool.handle(() => Effect.die(new Error("kaboom")))
        ),
        Tool.make("bad_output", {
          description: "returns the wrong shape",
          input: Schema.Struct({}),
          output: Schema.Struct({ n: Schema.Int })
        }).pipe(Tool.handle(() => Effect.succeed({ n: 1.5 }))),
        Tool.make("content", { description: "returns content", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.succeed([
              Tool.text("hello"),
              Tool.image("aGk=", "image/png"),
              Tool.audio("aGk=", "audio/wav"),
              Tool.resourceLink({ uri: "file:///a.txt", name: "a.txt" }),
              Tool.resource({ uri: "file:///b.txt", text: "b" })
            ])
          )
        )
      ]
    })
  )

const setup = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const finalized = yield* Deferred.make<string>()
  const client = yield* start(makeCapability(started, finalized))
  return { client, started, finalized }
})

describe("McpServer (in memory)", () => {
  it.effect("negotiates the requested version, or the latest", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      const response = yield* client.initialize("2025-03-26")
      assert.strictEqual(response.result.protocolVersion, "2025-03-26")
      assert.deepStrictEqual(response.result.capabilities, { tools: { listChanged: true } })
      const { client: other } = yield* setup
      const latest = yield* other.initialize("1999-01-01")
      assert.strictEqual(latest.result.protocolVersion, "2025-11-25")
    })
  )

  it.effect("answers requests before initialize with -32600, but ping works", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      const early = yield* client.request("tools/list")
      assert.strictEqual(early.error.code, -32600)
      assert.include(early.error.message, "initialize")
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
    })
  )

  it.effect("calls a tool and returns structured content with a text copy", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize()
      const response = yield* client.request("tools/call", { name: "t_echo", arguments: { text: "hi" } })
      assert.deepStrictEqual(response.result, {
        content: [{ type: "text", text: '{"text":"hi"}' }],
        structuredContent: { text: "hi" }
      })
    })
  )

  it.effect("drops structuredContent and downgrades content for old revisions", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize("2024-11-05")
      const echo = yield* client.request("tools/call", { name: "t_echo", arguments: { text: "hi" } })
      assert.deepStrictEqual(echo.result, { content: [{ type: "text", text: '{"text":"hi"}' }] })
      const content = yield* client.request("tools/call", { name: "t_content" })
      const types = content.result.content.map((c: any) => c.type)
      assert.deepStrictEqual(types, ["text", "image", "text", "text", "resource"])
      const list = yield* client.request("tools/list")
      assert.isUndefined(list.result.tools[0].outputSchema)
    })
  )

  it.effect("keeps every content kind for 2025-06-18 and later", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize("2025-06-18")
      const content = yield* client.request("tools/call", { name: "t_content" })
      const types = content.result.content.map((c: any) => c.type)
      assert.deepStrictEqual(types, ["text", "image", "audio", "resource_link", "resource"])
    })
  )

  it.effect("a defect is an isError result with a correlation id, and the server keeps serving", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize()
      const boom = yield* client.request("tools/call", { name: "t_boom" })
      assert.isTrue(boom.result.isError)
      assert.match(boom.result.content[0].text, /correlation id [0-9a-f]{8}-[0-9a-z]+/)
      assert.notInclude(boom.result.content[0].text, "kaboom")
      const bad = yield* client.request("tools/call", { name: "t_bad_output" })
      assert.isTrue(bad.result.isError)
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
    })
  )

  it.effect("notifications/cancelled interrupts the request and no response is sent", () =>
    Effect.gen(function* () {
      const { client, finalized, started } = yield* setup
      yield* client.initialize()
      yield* client.send({ jsonrpc: "2.0", id: "slow-1", method: "tools/call", params: { name: "t_slow" } })
      yield* Deferred.await(started)
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow-1" } })
      assert.strictEqual(yield* Deferred.await(finalized), "interrupted")
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {}) // the next line is the ping's, not the cancelled call's
    })
  )

  it.effect("paginates tools/list with opaque cursors and rejects bad ones", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<string>()
      const client = yield* start(makeCapability(started, finalized), { pageSize: 2 })
      yield* client.initialize()
      const names: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* client.request("tools/list", cursor === undefined ? {} : { cursor })
        names.push(...page.result.tools.map((t: any) => t.name))
        cursor = page.result.nextCursor
        pages++
      } while (cursor !== undefined)
      assert.deepStrictEqual(names, ["t_echo", "t_slow", "t_boom", "t_bad_output", "t_content"])
      assert.strictEqual(pages, 3)
      const bad = yield* client.request("tools/list", { cursor: "not-a-cursor" })
      assert.strictEqual(bad.error.code, -32602)
    })
  )

  it.effect("sends tools/list_changed when a dynamic tool is registered", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize()
      const name = yield* client.kernel.registerDynamic(
        Tool.make("hello", { description: "hi" }).pipe(Tool.handle(() => Effect.succeed("hello!")))
      )
      const notification = yield* client.read
      assert.deepStrictEqual(notification, { jsonrpc: "2.0", method: "notifications/tools/list_changed" })
      const call = yield* client.request("tools/call", { name })
      assert.deepStrictEqual(call.result.content, [{ type: "text", text: "hello!" }])
    })
  )

  it.effect("end of input waits for in-flight requests within the grace period, then interrupts them", () =>
    Effect.gen(function* () {
      const { client, finalized, started } = yield* setup
      yield* client.initialize()
      yield* client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t_slow" } })
      yield* Deferred.await(started)
      yield* client.close
      yield* TestClock.adjust("4 seconds")
      assert.isUndefined(client.server.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Deferred.await(finalized), "interrupted")
      yield* Fiber.join(client.server)
    }).pipe(Effect.provide(ServerConfig.layer({ shutdownGraceMs: 5000 })))
  )

  it.effect("a request that finishes within the grace period is answered after end of input", () =>
    Effect.gen(function* () {
      const { client, started } = yield* setup
      yield* client.initialize()
      yield* client.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "t_slow" } })
      yield* Deferred.await(started)
      yield* client.close
      yield* TestClock.adjust("1 minute")
      const response = yield* client.read
      assert.strictEqual(response.id, 7)
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "done" }])
    }).pipe(Effect.provide(ServerConfig.layer({ shutdownGraceMs: 120_000 })))
  )

  it.effect("an oversize line is rejected without being buffered, and the next line is served", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<string>()
      const client = yield* start(makeCapability(started, finalized), { maxMessageBytes: 1024 })
      yield* client.write("x".repeat(600))
      yield* client.write("y".repeat(600))
      yield* client.write("z".repeat(600) + "\n")
      const error = yield* client.read
      assert.strictEqual(error.error.code, -32600)
      assert.isNull(error.id)
      assert.include(error.error.message, "1800 bytes")
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
    })
  )

  it.effect("a request inside a batch can be cancelled; the batch answers the rest", () =>
    Effect.gen(function* () {
      const { client, finalized, started } = yield* setup
      yield* client.initialize("2025-03-26")
      yield* client.send([
        { jsonrpc: "2.0", id: "slow", method: "tools/call", params: { name: "t_slow" } },
        { jsonrpc: "2.0", id: "fast", method: "ping" }
      ])
      yield* Deferred.await(started)
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow" } })
      assert.strictEqual(yield* Deferred.await(finalized), "interrupted")
      const batch = yield* client.read
      assert.deepStrictEqual(batch, [{ jsonrpc: "2.0", id: "fast", result: {} }])
    })
  )
})
