/**
 * The upstream capability host, in process: a real SDK server (the fixture
 * of `test/fixtures/upstream-server.ts`) connected over the SDK's in-memory
 * transport, mounted under `fixture`, and driven by the test kit's client
 * through the real server. Reconnection runs on the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as Upstream from "../capabilities/upstream/index.ts"
import * as Capability from "../src/Capability.ts"
import * as Confirmation from "../src/Confirmation.ts"
import * as Policy from "../src/Policy.ts"
import * as Resource from "../src/Resource.ts"
import * as Tool from "../src/Tool.ts"
import { TestClient } from "../src/testing.ts"
import { type FixtureState, makeFixtureServer, makeState } from "./fixtures/upstream-server.ts"

// An upstream over the SDK's in-memory transport: each connection gets a new fixture server (sharing `state`);
// the first `failFirst` attempts fail as a refused connection would.
const inMemory = (options: { readonly failFirst?: number; readonly state?: FixtureState } = {}) => {
  const state = options.state ?? makeState()
  const servers: Array<Server> = []
  let attempts = 0
  const spec: Upstream.TransportUpstream = {
    label: "in-memory fixture",
    transport: () => {
      attempts++
      if (attempts <= (options.failFirst ?? 0)) throw new Error(`connection refused (attempt ${attempts})`)
      const [client, server] = InMemoryTransport.createLinkedPair()
      const fixture = makeFixtureServer(state)
      servers.push(fixture)
      void fixture.connect(server)
      return client
    }
  }
  return { spec, state, servers, attempts: () => attempts }
}

// The upstream layer as a capability layer, with its status reachable from the test.
const mount = (
  specs: Readonly<Record<string, Upstream.UpstreamSpec>>,
  options: { readonly reservedIds?: ReadonlyArray<string> } = {}
) => {
  let status: () => ReadonlyArray<Upstream.UpstreamStatus> = () => []
  const layer = Layer.flatMap(Upstream.layer(specs, options), (context) => {
    status = Context.get(context, Upstream.Upstreams).status
    return Layer.empty
  })
  return { layer, status: (id: string) => status().find((s) => s.id === id)! }
}

// Real time passes (the SDK's peers run on the event loop), whatever the TestClock says.
const tick = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

const eventually = <A>(what: string, check: () => A | undefined): Effect.Effect<A> =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const value = check()
      if (value !== undefined && value !== false) return value
      yield* tick
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((t) => t.name)

const local = Capability.make(
  { id: "local", description: "A local tool", version: "1.0.0" },
  Effect.succeed({
    tools: [Tool.make("ping", { description: "Answers pong." }).pipe(Tool.handle(() => Effect.succeed("pong")))]
  })
)

describe("Upstream host", () => {
  it.effect("publishes the upstream's tools, prompts and resources under its id and forwards to it", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer, status } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer)
      const tools = yield* client.listTools
      assert.includeMembers(names(tools), [
        "fixture_echo_args",
        "fixture_slow",
        "fixture_structured",
        "fixture_get_thing",
        "fixture_fixture_prefixed"
      ])
      const structured = tools.find((t) => t.name === "fixture_structured")
      assert.deepStrictEqual(structured.outputSchema, {
        type: "object",
        properties: { n: { type: "number" } },
        required: ["n"]
      })
      assert.deepStrictEqual(structured.annotations, { readOnlyHint: true })
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_get_thing")), "thing")
      assert.deepStrictEqual(yield* client.callToolStructured("fixture_structured"), { n: 1 })
      const failing = yield* client.expectToolError("fixture_failing", {}, "upstream_error")
      assert.include(TestClient.text(failing), "The upstream server fixture answered the call of failing")
      assert.include(TestClient.text(failing), "failing always fails")

      const prompt = yield* client.getPrompt("fixture_greet", { name: "Ada", mood: "cheerful" })
      assert.deepStrictEqual(prompt.messages, [
        { role: "user", content: { type: "text", text: "Hello, Ada (cheerful)!" } }
      ])
      const missing = yield* Effect.flip(client.getPrompt("fixture_greet", {}))
      assert.strictEqual(missing.code, -32602)
      const completion = yield* client.request("completion/complete", {
        ref: { type: "ref/prompt", name: "fixture_greet" },
        argument: { name: "name", value: "A" }
      })
      assert.deepStrictEqual(completion.completion.values, ["Ada", "Alan"])

      const resources = yield* client.listResources
      assert.deepStrictEqual(
        resources.map((r) => [r.name, r.uri, r.title]),
        [["fixture_Note_One", "fixture://notes/one", "Note One"]]
      )
      assert.deepStrictEqual(
        (yield* client.listResourceTemplates).map((t) => t.uriTemplate),
        ["fixture://notes/{id}"]
      )
      assert.strictEqual((yield* client.readResource("fixture://notes/one"))[0].text, "note one")
      assert.strictEqual((yield* client.readResource("fixture://notes/two"))[0].text, "note two")
      const notFound = yield* Effect.flip(client.readResource("fixture://notes/missing"))
      assert.strictEqual(notFound.code, -32002)

      const s = status("fixture")
      assert.strictEqual(s.state, "connected")
      assert.strictEqual(s.transport, "in-memory fixture")
      assert.deepStrictEqual(s.server, { name: "upstream-fixture", version: "1.2.3" })
      assert.strictEqual(s.restarts, 0)
      assert.include(s.tools, "fixture_slow")
      assert.strictEqual(client.kernel.capabilities().find((c) => c.id === "fixture")?.version, "1.2.3")
    }).pipe(Effect.scoped)
  )

  it.effect("confirms a destructive upstream tool here; the upstream never sees confirm", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer)
      const tool = (yield* client.listTools).find((t) => t.name === "fixture_echo_args")
      // The upstream's own `confirm` gave way to the runtime's.
      assert.deepStrictEqual(tool.inputSchema.properties.confirm, Confirmation.argumentSchema)
      assert.deepStrictEqual(tool.inputSchema.required, ["target"])
      yield* client.expectToolError("fixture_echo_args", { target: "x" }, "confirmation_required")
      assert.deepStrictEqual(upstream.state.calls, [])
      const result = yield* client.callTool("fixture_echo_args", { target: "x", confirm: true })
      assert.deepStrictEqual(JSON.parse(TestClient.text(result)), { target: "x" })
      assert.deepStrictEqual(upstream.state.calls, [{ tool: "echo_args", arguments: { target: "x" } }])
    }).pipe(Effect.scoped)
  )

  it.effect("asks through elicitation when the client can, and forwards without confirm", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer, {
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      const result = yield* client.callTool("fixture_echo_args", { target: "y" })
      assert.deepStrictEqual(JSON.parse(TestClient.text(result)), { target: "y" })
    }).pipe(Effect.scoped)
  )

  it.effect("relays the upstream's progress, and a cancelled call is cancelled upstream", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer).pipe(Effect.provide(Policy.layer({ progressInterval: 0 })))
      const { id, response } = yield* client.send("tools/call", {
        name: "fixture_slow",
        arguments: {},
        _meta: { progressToken: "p1" }
      })
      const progress = yield* client.awaitNotification("notifications/progress", (p) => p.progress >= 2)
      assert.strictEqual(progress.params.progressToken, "p1")
      assert.include(progress.params.message, "step")
      yield* client.cancel(id, "the user changed their mind")
      yield* eventually("the upstream to see the cancellation", () => upstream.state.cancelled.length === 1)
      assert.strictEqual(upstream.state.cancelled[0]!.tool, "slow")
      // A cancelled request gets no response.
      const answered = yield* Effect.forkChild(response)
      yield* tick
      assert.isUndefined(answered.pollUnsafe())
    }).pipe(Effect.scoped)
  )

  it.effect("a call past its timeout (the server's policy, not the SDK's) is cancelled upstream", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: { ...upstream.spec, timeoutMs: 1000 } })
      const client = yield* TestClient.make(layer)
      const call = yield* Effect.forkChild(client.callTool("fixture_slow"))
      yield* eventually("the call to reach the upstream", () => upstream.state.calls.length === 1)
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(call)
      assert.strictEqual(TestClient.errorCode(result), "timeout")
      yield* eventually("the upstream to see the cancellation", () => upstream.state.cancelled.length === 1)
    }).pipe(Effect.scoped)
  )

  it.effect("re-lists on the upstream's list_changed, and the server's own list_changed goes out", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer)
      const changed = yield* Effect.forkChild(client.awaitNotification("notifications/tools/list_changed"))
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_add_tool")), "extra_1")
      yield* Fiber.join(changed)
      yield* eventually("extra_1 to be listed", () => client.kernel.tool("fixture_extra_1"))
      assert.include(names(yield* client.listTools), "fixture_extra_1")
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_extra_1")), "extra_1")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "starts without an upstream that cannot connect, and publishes it once it does (backoff on the Clock)",
    () =>
      Effect.gen(function* () {
        const upstream = inMemory({ failFirst: 3 })
        const { layer, status } = mount({ fixture: upstream.spec })
        // The server advertises tools (and so sends tools/list_changed) when it has some at initialize.
        const client = yield* TestClient.make(Layer.merge(layer, local))
        assert.deepStrictEqual(
          names(yield* client.listTools).filter((n) => n.startsWith("fixture_")),
          []
        )
        assert.strictEqual(status("fixture").state, "failed")
        assert.strictEqual(status("fixture").reason, "connection refused (attempt 1)")
        assert.strictEqual(upstream.attempts(), 1)
        const changed = yield* Effect.forkChild(client.awaitNotification("notifications/tools/list_changed"))
        // 250 ms, then 500 ms, then 1 s.
        yield* TestClock.adjust("249 millis")
        assert.strictEqual(upstream.attempts(), 1)
        yield* TestClock.adjust("1 millis")
        yield* eventually("the second attempt", () => upstream.attempts() === 2)
        yield* TestClock.adjust("499 millis")
        assert.strictEqual(upstream.attempts(), 2)
        yield* TestClock.adjust("1 millis")
        yield* eventually("the third attempt", () => upstream.attempts() === 3)
        assert.strictEqual(status("fixture").reason, "connection refused (attempt 3)")
        yield* TestClock.adjust("1 second")
        yield* eventually("the connection", () => status("fixture").state === "connected")
        yield* Fiber.join(changed)
        assert.include(names(yield* client.listTools), "fixture_slow")
        assert.strictEqual(TestClient.text(yield* client.callTool("fixture_get_thing")), "thing")
        assert.strictEqual(status("fixture").restarts, 1)
      }).pipe(Effect.scoped)
  )

  it.effect("an upstream that dies answers an error naming it, then is reconnected", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer, status } = mount({ fixture: upstream.spec })
      const client = yield* TestClient.make(layer)
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_get_thing")), "thing")
      yield* Effect.promise(() => upstream.servers[0]!.close())
      yield* eventually("the loss", () => status("fixture").state === "failed")
      const down = yield* client.expectToolError("fixture_get_thing", {}, "upstream_unavailable")
      assert.match(
        TestClient.text(down),
        /^The upstream server fixture is not connected \(.+\); it is being restarted — retry in a few seconds, or call other tools\.$/
      )
      // Still listed while it is away: its tools come back as they were.
      assert.include(names(yield* client.listTools), "fixture_get_thing")
      yield* TestClock.adjust("250 millis")
      yield* eventually("the reconnection", () => status("fixture").state === "connected")
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_get_thing")), "thing")
      assert.strictEqual(status("fixture").restarts, 1)
      assert.strictEqual(upstream.attempts(), 2)
    }).pipe(Effect.scoped)
  )

  it.effect("refuses an id it cannot use, before starting anything", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const reserved = yield* Effect.flip(
        TestClient.make(mount({ system: upstream.spec }, { reservedIds: ["system"] }).layer)
      )
      assert.strictEqual(reserved._tag, "UpstreamIdTaken")
      assert.include(reserved.message, '"system"')
      const invalid = yield* Effect.flip(TestClient.make(mount({ "Bad-Id": upstream.spec }).layer))
      assert.strictEqual(invalid._tag, "InvalidCapabilityId")
      const app = yield* Effect.flip(TestClient.make(mount({ app: upstream.spec }).layer))
      assert.strictEqual(app._tag, "ReservedCapabilityId")
      assert.strictEqual(upstream.attempts(), 0)
    }).pipe(Effect.scoped)
  )

  it.effect("a public name or URI scheme another capability has stops the start", () =>
    Effect.gen(function* () {
      // A local capability `fixture_get` publishes fixture_get_thing, as the upstream's get/thing would be.
      const local = Capability.make(
        { id: "fixture_get", description: "local", version: "1.0.0" },
        Effect.succeed({
          tools: [Tool.make("thing", { description: "local thing" }).pipe(Tool.handle(() => Effect.succeed("local")))]
        })
      )
      const duplicate = yield* Effect.flip(
        TestClient.make(Layer.merge(local, mount({ fixture: inMemory().spec }).layer))
      )
      assert.strictEqual(duplicate._tag, "DuplicateName")
      assert.include(duplicate.message, "fixture_get_thing")
      // A local capability serving fixture:// URIs.
      const notes = Capability.make(
        { id: "notes", description: "local", version: "1.0.0" },
        Effect.succeed({
          resources: [
            Resource.make("index", { uri: "fixture://index", description: "local" }).pipe(
              Resource.handle(() => Effect.succeed("local"))
            )
          ]
        })
      )
      const scheme = yield* Effect.flip(TestClient.make(Layer.merge(notes, mount({ fixture: inMemory().spec }).layer)))
      assert.strictEqual(scheme._tag, "SchemeTaken")
      assert.include(scheme.message, '"fixture:"')
    }).pipe(Effect.scoped)
  )

  it.effect("the upstream's tool limits come from its settings", () =>
    Effect.gen(function* () {
      const { layer } = mount({ fixture: { ...inMemory().spec, maxConcurrent: 2, maxResultBytes: 0 } })
      const client = yield* TestClient.make(layer)
      const target = client.kernel.tool("fixture_slow")!.target
      assert.deepStrictEqual(target.capabilityOwn, { timeout: undefined, maxConcurrent: 2, maxResultBytes: Infinity })
    }).pipe(Effect.scoped)
  )
})
