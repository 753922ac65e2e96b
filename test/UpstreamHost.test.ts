/**
 * The upstream capability host, in process: a real SDK server (the fixture
 * of `test/fixtures/upstream-server.ts`, or a server written for one test)
 * connected over the SDK's in-memory transport, mounted under `fixture`, and
 * driven by the test kit's client through the real server. Reconnection runs
 * on the `TestClock`. The HTTP, stdio and shutdown tests run real peers (an
 * SDK server over Streamable HTTP on a local port, stdio processes) on real
 * time.
 */
import { execFileSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool as SdkTool
} from "@modelcontextprotocol/sdk/types.js"
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

const fixtures = resolve(__dirname, "fixtures")

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

// A server written for one test, over the SDK's in-memory transport: its tools, what a call answers, and
// optionally a prompt, a resource and completions that all answer `fail` (a JSON-RPC error). Counts connections.
const customServer = (options: {
  readonly tools: ReadonlyArray<SdkTool>
  readonly call?: (name: string, signal: AbortSignal) => unknown
  readonly fail?: McpError
}) => {
  const servers: Array<Server> = []
  const calls: Array<string> = []
  const spec: Upstream.TransportUpstream = {
    label: "custom",
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair()
      const fail = options.fail
      const s = new Server(
        { name: "custom", version: "1.0.0" },
        {
          capabilities: fail === undefined ? { tools: {} } : { tools: {}, prompts: {}, resources: {}, completions: {} }
        }
      )
      s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...options.tools] }))
      s.setRequestHandler(CallToolRequestSchema, (request, extra) => {
        calls.push(request.params.name)
        return (options.call?.(request.params.name, extra.signal) ?? {
          content: [{ type: "text", text: "ok" }]
        }) as any
      })
      if (fail !== undefined) {
        s.setRequestHandler(ListPromptsRequestSchema, () => ({
          prompts: [{ name: "p", arguments: [{ name: "a", required: true }] }]
        }))
        s.setRequestHandler(GetPromptRequestSchema, () => {
          throw fail
        })
        s.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: "custom://r", name: "r" }] }))
        s.setRequestHandler(ReadResourceRequestSchema, () => {
          throw fail
        })
        s.setRequestHandler(CompleteRequestSchema, () => {
          throw fail
        })
      }
      servers.push(s)
      void s.connect(server)
      return client
    }
  }
  return { spec, servers, calls }
}

const readOnlyTool = (name: string, more: Partial<SdkTool> = {}): SdkTool => ({
  name,
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  ...more
})

const never = (signal: AbortSignal) => new Promise((resolve) => signal.addEventListener("abort", resolve))

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("Upstream host: what an upstream answers", () => {
  it.effect("an error the upstream answers is that request's error, whatever its code: the connection is kept", () =>
    Effect.gen(function* () {
      // −32000 and −32001 are also the codes the SDK uses for a closed connection and its own timeout.
      const upstream = customServer({
        tools: [readOnlyTool("generic"), readOnlyTool("timeout"), readOnlyTool("fine")],
        call: (name) => {
          if (name === "generic") throw new McpError(-32000, "database unavailable")
          if (name === "timeout") throw new McpError(-32001, "the backend timed out")
          return undefined
        },
        fail: new McpError(-32000, "database unavailable")
      })
      const { layer, status } = mount({ other: upstream.spec })
      const client = yield* TestClient.make(layer)
      const generic = yield* client.expectToolError("other_generic", {}, "upstream_error")
      assert.strictEqual(
        TestClient.text(generic),
        "The upstream server other answered the call of generic with error -32000: database unavailable"
      )
      const timeout = yield* client.expectToolError("other_timeout", {}, "upstream_error")
      assert.include(TestClient.text(timeout), "with error -32001: the backend timed out")
      // prompts/get, resources/read and completions too.
      const prompt = yield* Effect.flip(client.getPrompt("other_p", { a: "x" }))
      assert.include(prompt.message, "answered prompts/get for p with error -32000: database unavailable")
      const read = yield* Effect.flip(client.readResource("custom://r"))
      assert.include(read.message, "answered resources/read for custom://r with error -32000: database unavailable")
      const completion = yield* client.request("completion/complete", {
        ref: { type: "ref/prompt", name: "other_p" },
        argument: { name: "a", value: "x" }
      })
      assert.deepStrictEqual(completion.completion.values, [])
      // Still the first connection.
      assert.strictEqual(TestClient.text(yield* client.callTool("other_fine")), "ok")
      assert.strictEqual(upstream.servers.length, 1)
      assert.strictEqual(status("other").state, "connected")
      assert.strictEqual(status("other").restarts, 0)
    }).pipe(Effect.scoped)
  )

  it.effect("an entry of a listing that is not valid is a problem of its own: the others are published", () =>
    Effect.gen(function* () {
      const upstream = customServer({
        tools: [
          readOnlyTool("ok"),
          readOnlyTool("stringy", { inputSchema: { type: "string" } as any }),
          readOnlyTool("badref", {
            outputSchema: { type: "object", properties: { a: { $ref: "#/definitions/Missing" } } }
          }),
          { name: 42, inputSchema: { type: "object" } } as any
        ]
      })
      const { layer, status } = mount({ other: upstream.spec })
      const client = yield* TestClient.make(layer)
      assert.deepStrictEqual(names(yield* client.listTools), ["other_ok"])
      const s = status("other")
      assert.strictEqual(s.state, "connected")
      assert.strictEqual(s.problems.length, 3)
      assert.include(s.problems[0]!, 'tool "stringy": its inputSchema does not describe an object')
      assert.include(s.problems[1]!, "tool #4 of the list: not valid (name:")
      assert.include(s.problems[2]!, 'tool "badref": its outputSchema cannot be compiled (can\'t resolve reference')
    }).pipe(Effect.scoped)
  )

  it.effect("a structured result is checked against its tool's outputSchema, on every page of the listing", () =>
    Effect.gen(function* () {
      const checked = (name: string) =>
        readOnlyTool(name, {
          outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
        })
      const pages = [
        [checked("first"), checked("bare")],
        [checked("second"), checked("good")]
      ]
      const spec: Upstream.TransportUpstream = {
        label: "paged",
        transport: () => {
          const [client, server] = InMemoryTransport.createLinkedPair()
          const s = new Server({ name: "paged", version: "1.0.0" }, { capabilities: { tools: {} } })
          s.setRequestHandler(ListToolsRequestSchema, (request) => {
            const at = Number(request.params?.cursor ?? 0)
            return { tools: pages[at]!, ...(at + 1 < pages.length ? { nextCursor: String(at + 1) } : {}) }
          })
          s.setRequestHandler(CallToolRequestSchema, (request) =>
            request.params.name === "good"
              ? { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } }
              : request.params.name === "bare"
                ? { content: [{ type: "text", text: "no structure" }] }
                : { content: [{ type: "text", text: "x" }], structuredContent: { n: "not a number" } }
          )
          void s.connect(server)
          return client
        }
      }
      const client = yield* TestClient.make(mount({ paged: spec }).layer)
      for (const name of ["paged_first", "paged_second"]) {
        const result = yield* client.expectToolError(name, {}, "upstream_error")
        assert.include(TestClient.text(result), "Structured content does not match the tool's output schema")
      }
      const bare = yield* client.expectToolError("paged_bare", {}, "upstream_error")
      assert.include(TestClient.text(bare), "has an output schema but did not return structured content")
      assert.deepStrictEqual(yield* client.callToolStructured("paged_good"), { n: 1 })
    }).pipe(Effect.scoped)
  )

  it.effect("an entry the kernel refuses (a schema it cannot compile) is a problem at startup, as after it", () =>
    Effect.gen(function* () {
      const upstream = customServer({
        tools: [
          readOnlyTool("ok"),
          readOnlyTool("headered", {
            inputSchema: {
              type: "object",
              properties: { items: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }
            }
          })
        ]
      })
      const { layer, status } = mount({ other: upstream.spec })
      const client = yield* TestClient.make(layer)
      assert.deepStrictEqual(names(yield* client.listTools), ["other_ok"])
      assert.strictEqual(status("other").problems.length, 1)
      assert.include(status("other").problems[0]!, "other_headered")
    }).pipe(Effect.scoped)
  )

  it.effect("a tool without annotations is confirmed here (the MCP default: destructive unless read-only)", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const client = yield* TestClient.make(mount({ fixture: upstream.spec }).layer)
      const tools = yield* client.listTools
      const unannotated = tools.find((t) => t.name === "fixture_unannotated")
      assert.isUndefined(unannotated.annotations)
      assert.deepStrictEqual(unannotated.inputSchema.properties.confirm, Confirmation.argumentSchema)
      yield* client.expectToolError("fixture_unannotated", {}, "confirmation_required")
      assert.deepStrictEqual(upstream.state.calls, [])
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_unannotated", { confirm: true })), "ran")
      // `destructiveHint: false`, or read-only: not confirmed.
      assert.isUndefined(tools.find((t) => t.name === "fixture_add_tool").inputSchema.properties?.confirm)
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_get_thing")), "thing")
    }).pipe(Effect.scoped)
  )

  it.effect("maxConcurrent still holds after a list_changed replaced the upstream's tools", () =>
    Effect.gen(function* () {
      const upstream = inMemory()
      const { layer } = mount({ fixture: { ...upstream.spec, maxConcurrent: 1 } })
      const client = yield* TestClient.make(layer).pipe(
        Effect.provide(Policy.layer({ onOverload: "reject", maxQueued: 0 }))
      )
      const first = yield* Effect.forkChild(client.callTool("fixture_slow", { ms: 400 }))
      yield* eventually("the first call upstream", () => upstream.state.calls.length === 1)
      yield* client.expectToolError("fixture_slow", { ms: 10 }, "overloaded")
      yield* client.callTool("fixture_add_tool")
      yield* eventually("the new listing", () => client.kernel.tool("fixture_extra_1"))
      // The tools were compiled again: the running call still holds fixture_slow's only slot.
      yield* client.expectToolError("fixture_slow", { ms: 10 }, "overloaded")
      assert.strictEqual(TestClient.text(yield* Fiber.join(first)), "done")
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_slow", { ms: 10 })), "done")
    }).pipe(Effect.scoped)
  )
})

describe("Upstream host: a connection lost", () => {
  it.effect("a call in flight when the connection is lost answers upstream_lost: it may have run", () =>
    Effect.gen(function* () {
      const upstream = customServer({
        tools: [{ name: "charge", inputSchema: { type: "object", properties: {} } }, readOnlyTool("peek")],
        call: (_name, signal) => never(signal)
      })
      const { layer, status } = mount({ pay: upstream.spec })
      const client = yield* TestClient.make(layer)
      const charge = yield* Effect.forkChild(client.callTool("pay_charge", { confirm: true }))
      const peek = yield* Effect.forkChild(client.callTool("pay_peek"))
      yield* eventually("both calls upstream", () => upstream.calls.length === 2)
      yield* Effect.promise(() => upstream.servers[0]!.close())
      const charged = yield* Fiber.join(charge)
      assert.strictEqual(TestClient.errorCode(charged), "upstream_lost")
      assert.match(
        TestClient.text(charged),
        /^The connection to the upstream server pay was lost while it ran charge \(.+\), so whether the call took effect is unknown; the upstream is being restarted\.$/
      )
      assert.include(
        (charged._meta as any)["effect-mcp-runtime/error"].suggestion,
        "Check whether the call took effect"
      )
      // A read-only tool may simply be called again.
      const peeked = yield* Fiber.join(peek)
      assert.strictEqual(TestClient.errorCode(peeked), "upstream_lost")
      assert.strictEqual(
        (peeked._meta as any)["effect-mcp-runtime/error"].suggestion,
        "peek is annotated read-only or idempotent: retry it in a few seconds."
      )
      // A call made while it is away never reaches it: retrying is safe.
      yield* eventually("the loss", () => status("pay").state === "failed")
      yield* client.expectToolError("pay_peek", {}, "upstream_unavailable")
    }).pipe(Effect.scoped)
  )

  it.live("HTTP: a status other than 404 is that request's error; a 404 (the session is gone) reconnects", () =>
    Effect.gen(function* () {
      const transports = new Map<string, StreamableHTTPServerTransport>()
      let sessions = 0
      const http = createServer(async (req, res) => {
        const chunks: Array<Buffer> = []
        for await (const chunk of req as IncomingMessage) chunks.push(chunk as Buffer)
        const raw = Buffer.concat(chunks).toString("utf8")
        const body = raw === "" ? undefined : JSON.parse(raw)
        // A gateway in front of the server fails this one request.
        if (body?.method === "tools/call" && body.params?.name === "boom") {
          res.writeHead(502).end("bad gateway")
          return
        }
        const sid = req.headers["mcp-session-id"] as string | undefined
        let transport = sid === undefined ? undefined : transports.get(sid)
        if (sid !== undefined && transport === undefined) {
          res.writeHead(404).end("unknown session")
          return
        }
        if (transport === undefined) {
          sessions++
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => void transports.set(id, created)
          })
          const s = new Server({ name: "http", version: "1.0.0" }, { capabilities: { tools: {} } })
          s.setRequestHandler(ListToolsRequestSchema, () => ({
            tools: [readOnlyTool("boom"), readOnlyTool("wait")]
          }))
          s.setRequestHandler(CallToolRequestSchema, async () => {
            await new Promise((done) => setTimeout(done, 300))
            return { content: [{ type: "text", text: "waited" }] }
          })
          void s.connect(created)
          transport = created
        }
        await transport.handleRequest(req, res, body)
      })
      yield* Effect.promise(() => new Promise<void>((done) => http.listen(0, "127.0.0.1", () => done())))
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => {
          http.closeAllConnections()
          return new Promise((done) => http.close(() => done(undefined)))
        })
      )
      const port = (http.address() as AddressInfo).port
      const { layer, status } = mount({
        web: { url: `http://127.0.0.1:${port}/mcp`, reconnect: { initialDelayMs: 10 } }
      })
      const client = yield* TestClient.make(layer)
      const waiting = yield* Effect.forkChild(client.callTool("web_wait"))
      yield* sleep(50)
      const boom = yield* client.expectToolError("web_boom", {}, "upstream_error")
      assert.strictEqual(
        TestClient.text(boom),
        "The upstream server web answered the call of boom with HTTP 502: bad gateway"
      )
      assert.strictEqual(TestClient.text(yield* Fiber.join(waiting)), "waited")
      assert.strictEqual(status("web").state, "connected")
      assert.strictEqual(sessions, 1)
      // The endpoint forgets the session: the call did not run, the upstream reconnects.
      transports.clear()
      yield* client.expectToolError("web_wait", {}, "upstream_unavailable")
      yield* eventually("a new session", () => status("web").state === "connected" && sessions === 2)
      assert.strictEqual(TestClient.text(yield* client.callTool("web_wait")), "waited")
      assert.strictEqual(status("web").restarts, 1)
    }).pipe(Effect.scoped)
  )
})

describe("Upstream host: processes", () => {
  it.live("a stdio upstream gets the server's MCP_RUNTIME_UPSTREAM_DEPTH, whatever its own env says", () =>
    Effect.gen(function* () {
      const spec = {
        command: process.execPath,
        args: [resolve(fixtures, "upstream-server-stdio.ts")],
        env: { MCP_RUNTIME_UPSTREAM_DEPTH: "0" }
      }
      const layer = Upstream.layer({ fixture: spec }, { env: { MCP_RUNTIME_UPSTREAM_DEPTH: "3" } })
      const client = yield* TestClient.make(layer)
      assert.strictEqual(TestClient.text(yield* client.callTool("fixture_depth")), "3")
    }).pipe(Effect.scoped)
  )

  it.live(
    "shutdown closes every upstream at once",
    () =>
      Effect.gen(function* () {
        // Each one outlives the end of its input: the SDK waits 2 s before its SIGTERM.
        const marker = `upstream-stubborn-${process.pid}-${Date.now()}`
        const spec = (n: number) => ({
          command: process.execPath,
          args: [resolve(fixtures, "upstream-stubborn.ts"), `${marker}-${n}`]
        })
        let closing = 0
        yield* Effect.scoped(
          Effect.gen(function* () {
            const { layer, status } = mount({ a: spec(1), b: spec(2), c: spec(3) })
            yield* TestClient.make(layer)
            for (const id of ["a", "b", "c"]) assert.strictEqual(status(id).state, "connected")
            closing = Date.now()
          })
        )
        const took = Date.now() - closing
        assert.isBelow(took, 4000, `closing 3 upstreams took ${took} ms (one after the other: 6 s)`)
        const left = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
          .split("\n")
          .filter((line) => line.includes(marker))
        assert.deepStrictEqual(left, [])
      }),
    20_000
  )
})

describe("describeTransport", () => {
  it("redacts what is likely a secret: URL credentials and query values, the values of secret flags", () => {
    assert.strictEqual(
      Upstream.describeTransport({ url: "https://me:pw@docs.example.com/mcp?key=abc&v=2#frag" }),
      "http https://***@docs.example.com/mcp?key=***&v=***#***"
    )
    assert.strictEqual(
      Upstream.describeTransport({ url: "http://127.0.0.1:3000/mcp" }),
      "http http://127.0.0.1:3000/mcp"
    )
    assert.strictEqual(
      Upstream.describeTransport({
        command: "node",
        args: ["server.js", "--token", "t0k", "--api-key=k3y", "GITHUB_TOKEN=ghp", "--port", "3000", "--keyboard", "us"]
      }),
      "stdio node server.js --token *** --api-key=*** GITHUB_TOKEN=*** --port 3000 --keyboard us"
    )
    assert.strictEqual(
      Upstream.describeTransport({ command: "npx", args: ["mcp-remote", "https://u:p@example.com/mcp?token=x"] }),
      "stdio npx mcp-remote https://***@example.com/mcp?token=***"
    )
  })
})
