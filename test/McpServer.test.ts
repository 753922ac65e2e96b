import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import * as Method from "../src/Method.ts"
import { defaultMethods } from "../src/methods/index.ts"
import { Transport, makeMemory } from "../src/Transport.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
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
      assert.deepStrictEqual(response.result.capabilities, { logging: {}, tools: { listChanged: true } })
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
      yield* client.request("ping") // notifications/initialized has been processed
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

  it.effect("a tool that interrupts itself gets an isError answer, not silence", () =>
    Effect.gen(function* () {
      const capability = Capability.make(
        { id: "x", description: "", version: "1" },
        Effect.succeed({
          tools: [Tool.make("quit", { description: "" }).pipe(Tool.handle(() => Effect.interrupt))]
        })
      )
      const client = yield* start(capability)
      yield* client.initialize()
      const response = yield* client.request("tools/call", { name: "x_quit" })
      assert.isTrue(response.result.isError)
      assert.match(response.result.content[0].text, /correlation id/)
    })
  )

  it.effect("a tool handler that throws instead of returning an Effect gets an isError answer", () =>
    Effect.gen(function* () {
      const capability = Capability.make(
        { id: "x", description: "", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("throws", { description: "" }).pipe(
              Tool.handle((): Effect.Effect<string> => {
                throw new Error("not an Effect")
              })
            )
          ]
        })
      )
      const client = yield* start(capability)
      yield* client.initialize()
      const response = yield* client.request("tools/call", { name: "x_throws" })
      assert.isTrue(response.result.isError)
    })
  )

  it.effect("a method handler that throws fails only its request (-32603); the server keeps serving", () =>
    Effect.gen(function* () {
      const bad = Method.request("test/throws", {
        params: Schema.Struct({}),
        beforeInitialize: true,
        handler: (): Effect.Effect<unknown> => {
          throw new Error("boom")
        }
      })
      const { client, closeOutput, transport } = yield* makeMemory()
      yield* McpServer.serve({ methods: [...defaultMethods, bad] }).pipe(
        Effect.provideService(Transport, transport),
        Effect.provide(Kernel.layer()),
        Effect.ensuring(closeOutput),
        Effect.forkScoped
      )
      yield* client.write('{"jsonrpc":"2.0","id":1,"method":"test/throws"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
      const first = JSON.parse(yield* client.read)
      const second = JSON.parse(yield* client.read)
      assert.deepStrictEqual([first.id, first.error.code], [1, -32603])
      assert.deepStrictEqual(second, { jsonrpc: "2.0", id: 2, result: {} })
    })
  )

  it.effect("a capability's own services win over the server's; ambient references come from the request", () =>
    Effect.gen(function* () {
      class Store extends Context.Service<Store, { readonly name: string }>()("test/Store") {}
      const capability = Capability.make(
        { id: "c", description: "", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("where", { description: "" }).pipe(
              Tool.handle(() =>
                Effect.gen(function* () {
                  const store = yield* Store
                  const root = yield* WorkspaceRoot
                  const toStderr = yield* References.LogToStderr
                  return `${store.name} ${root} ${toStderr}`
                })
              )
            )
          ]
        })
      ).pipe(
        Layer.provide(Layer.succeed(Store, Store.of({ name: "capability-store" }))),
        Layer.provide(Layer.succeed(WorkspaceRoot, "/cap-root"))
      )
      const client = yield* start(capability)
      yield* client.initialize()
      const response = yield* client.request("tools/call", { name: "c_where" })
      assert.strictEqual(response.result.content[0].text, "capability-store /cap-root true")
    }).pipe(Effect.provideService(WorkspaceRoot, "/server-root"))
  )

  it.effect("a duplicate id inside one batch is rejected, even when the first finishes at once", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.initialize("2025-03-26")
      yield* client.send([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 1, method: "ping" }
      ])
      const batch = yield* client.read
      assert.deepStrictEqual(batch[0], { jsonrpc: "2.0", id: 1, result: {} })
      assert.strictEqual(batch[1].error.code, -32600)
      assert.include(batch[1].error.message, "already in flight")
    })
  )

  it.effect("no tools/list_changed before the client said it is initialized", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      yield* client.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" }
      })
      yield* client.kernel.registerDynamic(
        Tool.make("early", { description: "" }).pipe(Tool.handle(() => Effect.succeed("x")))
      )
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {}) // no notification came first
    })
  )
})
