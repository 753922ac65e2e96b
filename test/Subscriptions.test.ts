/**
 * `subscriptions/listen` (2026-07-28): a long-lived request whose stream
 * carries the change notifications its filter asks for, each tagged with the
 * subscription id, until the client cancels it or the server ends it with a
 * result. Served through `server.request` (collecting what it sends through
 * its origin) and over a memory-transport connection.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import { start, type TestClient } from "./support/memory.ts"
import { type Collector, collector, makeServer, meta, metaKey, type ModernServer } from "./support/modern.ts"

const capability = Capability.make(
  { id: "u", description: "subscriptions", version: "1.0.0" },
  Effect.succeed({
    tools: [Tool.make("t", { description: "t" }).pipe(Tool.handle(() => Effect.succeed("t")))],
    prompts: [Prompt.make("p", { description: "p" }).pipe(Prompt.handle(() => Effect.succeed("p")))],
    resources: [
      Resource.make("watched", { uri: "mem://watched", description: "w" }).pipe(
        Resource.handle(() => Effect.succeed("w"))
      ),
      Resource.make("other", { uri: "mem://other", description: "o" }).pipe(Resource.handle(() => Effect.succeed("o"))),
      Resource.template("note", {
        uriTemplate: "mem://note/{id}",
        description: "a note",
        params: Schema.Struct({ id: Schema.String })
      }).pipe(Resource.handle(({ id }) => Effect.succeed(id)))
    ]
  })
)

const setup = makeServer(capability).pipe(
  Effect.provide(ServerConfig.layer({ name: "subscriptions-test", version: "2.0.0" }))
)

const dynamicTool = (name: string) =>
  Tool.make(name, { description: name }).pipe(Tool.handle(() => Effect.succeed(name)))
const dynamicPrompt = (name: string) =>
  Prompt.make(name, { description: name }).pipe(Prompt.handle(() => Effect.succeed(name)))

const updated = (kernel: Kernel.Kernel["Service"], uri: string) =>
  Resource.updated(uri).pipe(Effect.provideService(Kernel.Kernel, kernel))

interface Stream {
  readonly id: string | number
  readonly messages: Collector
  readonly fiber: Fiber.Fiber<{ readonly status: string; readonly response: any }>
  /** The acknowledgment (the first message). */
  readonly ack: any
}

/** Opens a listen stream through `server.request` and waits for its acknowledgment. */
const listen = (served: ModernServer, id: string | number, notifications: Record<string, unknown>) =>
  Effect.gen(function* () {
    const messages = yield* collector()
    const fiber = yield* Effect.forkChild(
      served.request("subscriptions/listen", { _meta: meta(), notifications }, { id, origin: messages.origin })
    )
    const ack = yield* messages.next
    return { id, messages, fiber, ack } satisfies Stream
  })

const tagged = (id: string | number) => ({ [metaKey.subscriptionId]: id })

describe("subscriptions/listen through server.request", () => {
  it.effect("the acknowledgment comes first, with the honoured filter", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const stream = yield* listen(served, "sub-1", {
        toolsListChanged: true,
        promptsListChanged: false,
        resourceSubscriptions: ["mem://watched", "mem://unknown", "other://x", "mem://note/3"]
      })
      assert.deepStrictEqual(stream.ack, {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          _meta: tagged("sub-1"),
          notifications: { toolsListChanged: true, resourceSubscriptions: ["mem://watched", "mem://note/3"] }
        }
      })
      assert.strictEqual(stream.messages.sent.length, 1)
      assert.isUndefined(stream.fiber.pollUnsafe())
    })
  )

  it.effect("an empty filter is acknowledged as empty; a numeric id is the subscription id", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const stream = yield* listen(served, 42, {})
      assert.deepStrictEqual(stream.ack.params, { _meta: tagged(42), notifications: {} })
    })
  )

  it.effect("a listen request without a filter is invalid params, with status ok", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const answer = yield* served.request("subscriptions/listen", { _meta: meta() })
      assert.strictEqual(answer.response.error.code, -32602)
    })
  )

  it.effect("a dynamic tool registration: tools/list_changed with the subscription id", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const stream = yield* listen(served, "sub-t", { toolsListChanged: true })
      yield* served.kernel.registerDynamic(dynamicTool("added"))
      assert.deepStrictEqual(yield* stream.messages.next, {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: tagged("sub-t") }
      })
      yield* served.kernel.unregisterDynamic("app_added")
      const removed = yield* stream.messages.next
      assert.strictEqual(removed.method, "notifications/tools/list_changed")
    })
  )

  it.effect("the filter is honoured: a prompt change reaches only a stream that asked for prompts", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const toolsOnly = yield* listen(served, "tools-only", { toolsListChanged: true })
      const both = yield* listen(served, "both", { toolsListChanged: true, promptsListChanged: true })
      const resourcesOnly = yield* listen(served, "resources-only", { resourcesListChanged: true })
      yield* served.kernel.registerDynamicPrompt(dynamicPrompt("hello"))
      assert.deepStrictEqual(yield* both.messages.next, {
        jsonrpc: "2.0",
        method: "notifications/prompts/list_changed",
        params: { _meta: tagged("both") }
      })
      yield* served.kernel.registerDynamic(dynamicTool("later"))
      // The tools change came after the prompts change: a prompts notification would have come first.
      assert.strictEqual((yield* toolsOnly.messages.next).method, "notifications/tools/list_changed")
      assert.strictEqual((yield* both.messages.next).method, "notifications/tools/list_changed")
      yield* served.kernel.registerDynamicResource(
        Resource.make("fresh", { uri: "fresh://1", description: "" }).pipe(Resource.handle(() => Effect.succeed("")))
      )
      assert.deepStrictEqual(yield* resourcesOnly.messages.next, {
        jsonrpc: "2.0",
        method: "notifications/resources/list_changed",
        params: { _meta: tagged("resources-only") }
      })
      assert.deepStrictEqual(
        toolsOnly.messages.sent.map((message) => message.method),
        ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]
      )
      assert.deepStrictEqual(
        resourcesOnly.messages.sent.map((message) => message.method),
        ["notifications/subscriptions/acknowledged", "notifications/resources/list_changed"]
      )
    })
  )

  it.effect("resource updates reach only the streams subscribed to the URI", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const watcher = yield* listen(served, "w", { resourceSubscriptions: ["mem://watched", "mem://note/3"] })
      const other = yield* listen(served, "o", { resourceSubscriptions: ["mem://other"], toolsListChanged: true })
      const unknown = yield* listen(served, "u", { resourceSubscriptions: ["mem://unknown"], toolsListChanged: true })
      assert.deepStrictEqual(unknown.ack.params.notifications, { toolsListChanged: true, resourceSubscriptions: [] })

      yield* updated(served.kernel, "mem://watched")
      assert.deepStrictEqual(yield* watcher.messages.next, {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: tagged("w"), uri: "mem://watched" }
      })
      yield* updated(served.kernel, "mem://unknown")
      yield* updated(served.kernel, "mem://other")
      assert.deepStrictEqual((yield* other.messages.next).params, { _meta: tagged("o"), uri: "mem://other" })
      yield* updated(served.kernel, "mem://note/3")
      assert.deepStrictEqual((yield* watcher.messages.next).params, { _meta: tagged("w"), uri: "mem://note/3" })
      // A later change every stream hears: whatever they would have got before it has come.
      yield* served.kernel.registerDynamic(dynamicTool("marker"))
      assert.strictEqual((yield* other.messages.next).method, "notifications/tools/list_changed")
      assert.strictEqual((yield* unknown.messages.next).method, "notifications/tools/list_changed")
      assert.deepStrictEqual(
        unknown.messages.sent.map((message) => message.method),
        ["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"]
      )
      assert.strictEqual(watcher.messages.sent.length, 3)
      assert.strictEqual(other.messages.sent.length, 3)
    })
  )

  it.effect("interrupting the request (a closed stream) stops it: nothing more is sent", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const cancelled = yield* listen(served, "gone", {
        toolsListChanged: true,
        resourceSubscriptions: ["mem://watched"]
      })
      const kept = yield* listen(served, "kept", { toolsListChanged: true, resourceSubscriptions: ["mem://watched"] })
      yield* Fiber.interrupt(cancelled.fiber)
      yield* served.kernel.registerDynamic(dynamicTool("after"))
      yield* updated(served.kernel, "mem://watched")
      assert.strictEqual((yield* kept.messages.next).method, "notifications/tools/list_changed")
      assert.strictEqual((yield* kept.messages.next).method, "notifications/resources/updated")
      assert.strictEqual(cancelled.messages.sent.length, 1)
      assert.strictEqual(yield* cancelled.messages.pending, 0)
    })
  )

  it.effect("server.close ends every stream with its result", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const a = yield* listen(served, "a", { toolsListChanged: true })
      const b = yield* listen(served, 7, { resourceSubscriptions: ["mem://watched"] })
      yield* served.server.close
      for (const stream of [a, b]) {
        const answer = yield* Fiber.join(stream.fiber)
        assert.strictEqual(answer.status, "ok")
        assert.strictEqual(answer.response.id, stream.id)
        assert.strictEqual(answer.response.result.resultType, "complete")
        assert.strictEqual(answer.response.result._meta[metaKey.subscriptionId], stream.id)
        assert.deepStrictEqual(answer.response.result._meta[metaKey.serverInfo], {
          name: "subscriptions-test",
          version: "2.0.0"
        })
        assert.deepStrictEqual(Object.keys(answer.response.result).sort(), ["_meta", "resultType"])
        assert.strictEqual(stream.messages.sent.length, 1)
      }
      // A stream opened after the close is acknowledged and ended at once.
      const late = yield* listen(served, "late", { toolsListChanged: true })
      const answer = yield* Fiber.join(late.fiber)
      assert.strictEqual(answer.response.result._meta[metaKey.subscriptionId], "late")
    })
  )
})

describe("subscriptions/listen over a connection", () => {
  const send = (client: TestClient, id: string, notifications: Record<string, unknown>) =>
    client.send({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: meta(), notifications } })

  it.effect("the acknowledgment first, then the notifications the filter asks for, tagged", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* send(client, "L1", { toolsListChanged: true, resourceSubscriptions: ["mem://watched", "mem://nope"] })
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          _meta: tagged("L1"),
          notifications: { toolsListChanged: true, resourceSubscriptions: ["mem://watched"] }
        }
      })
      yield* client.kernel.registerDynamicPrompt(dynamicPrompt("unseen"))
      yield* client.kernel.registerDynamic(dynamicTool("seen"))
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: tagged("L1") }
      })
      yield* updated(client.kernel, "mem://other")
      yield* updated(client.kernel, "mem://watched")
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: tagged("L1"), uri: "mem://watched" }
      })
      // Other requests are served beside the stream.
      const discover = yield* client.request("server/discover", { _meta: meta() })
      assert.isDefined(discover.result.supportedVersions)
    })
  )

  it.effect("notifications/cancelled stops a stream (no result, nothing more); the others go on", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* send(client, "L1", { toolsListChanged: true })
      assert.strictEqual((yield* client.read).params._meta[metaKey.subscriptionId], "L1")
      yield* send(client, "L2", { toolsListChanged: true })
      assert.strictEqual((yield* client.read).params._meta[metaKey.subscriptionId], "L2")
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "L1" } })
      const discover = yield* client.request("server/discover", { _meta: meta() })
      assert.isDefined(discover.result)
      yield* client.kernel.registerDynamic(dynamicTool("after"))
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: tagged("L2") }
      })
      // The next line is this request's answer: nothing for L1 came in between.
      const next = yield* client.request("server/discover", { _meta: meta() })
      assert.isDefined(next.result)
    })
  )

  it.effect("end of input ends every stream with its result, then the server stops", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* send(client, "L1", { toolsListChanged: true })
      yield* send(client, "L2", { promptsListChanged: true })
      const acks = [yield* client.read, yield* client.read]
      assert.deepStrictEqual(acks.map((ack) => ack.params._meta[metaKey.subscriptionId]).sort(), ["L1", "L2"])
      yield* client.close
      const results = [yield* client.read, yield* client.read]
      for (const result of results) {
        assert.strictEqual(result.result.resultType, "complete")
        assert.strictEqual(result.result._meta[metaKey.subscriptionId], result.id)
      }
      assert.deepStrictEqual(results.map((result) => result.id).sort(), ["L1", "L2"])
      yield* Fiber.join(client.server)
    })
  )
})
