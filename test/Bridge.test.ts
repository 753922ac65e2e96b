/**
 * The dynamic-registry bridge: a runtime server in process (the memory test
 * client) with the bridge capability on a real Unix socket in a temporary
 * directory; applications connect with BridgeClient from this process and
 * from a child process (test/fixtures/bridge-app.ts).
 */
import { spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { BridgeCapability } from "../capabilities/bridge/index.ts"
import * as BridgeServer from "../layers/BridgeServer.ts"
import * as BridgeClient from "../src/BridgeClient.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import * as Progress from "../src/Progress.ts"
import * as Resource from "../src/Resource.ts"
import * as Tool from "../src/Tool.ts"
import { start, type TestClient } from "./support/memory.ts"

const fixture = join(import.meta.dirname, "fixtures", "bridge-app.ts")

// A client session that keeps the notifications it reads past while it waits for a response.
const session = (client: TestClient) => {
  const seen: Array<any> = []
  let nextId = 1
  const readUntil = (predicate: (message: any) => boolean): Effect.Effect<any> =>
    Effect.gen(function* () {
      const index = seen.findIndex(predicate)
      if (index !== -1) return seen.splice(index, 1)[0]
      while (true) {
        const message = yield* client.read
        if (predicate(message)) return message
        seen.push(message)
      }
    })
  const send = (method: string, params: unknown) =>
    Effect.gen(function* () {
      const id = nextId++
      yield* client.send({ jsonrpc: "2.0", id, method, params })
      return id
    })
  const response = (id: number) => readUntil((message) => message.id === id && message.method === undefined)
  const request = (method: string, params: unknown = {}) => Effect.flatMap(send(method, params), response)
  const notification = (method: string) => readUntil((message) => message.method === method && message.id === undefined)
  const toolNames = Effect.map(request("tools/list"), (result): Array<string> =>
    result.result.tools.map((tool: { name: string }) => tool.name)
  )
  const call = (name: string, args: unknown = {}) => request("tools/call", { name, arguments: args })
  const notify = (method: string, params: unknown) => client.send({ jsonrpc: "2.0", method, params })
  return { send, notify, response, request, notification, toolNames, call, seen }
}

const tempDir = Effect.acquireRelease(
  Effect.sync(() => NodeFs.mkdtempSync(join(tmpdir(), "mcpb-"))),
  (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
)

const runtime = (
  options: { readonly extra?: Layer.Layer<never, any, any>; readonly listen?: BridgeServer.Options } = {}
) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const path = join(dir, "bridge.sock")
    const client = yield* start(
      Layer.mergeAll(
        BridgeCapability.pipe(Layer.provide(BridgeServer.layer(options.listen ?? { path }))),
        options.extra ?? Layer.empty
      ) as Layer.Layer<never, any, any>
    )
    yield* client.initialize()
    return { client, path, dir, rpc: session(client) }
  })

interface Signals {
  readonly started: Deferred.Deferred<void>
  readonly interrupted: Deferred.Deferred<void>
}

const signals = Effect.map(Effect.all([Deferred.make<void>(), Deferred.make<void>()]), ([started, interrupted]) => ({
  started,
  interrupted
}))

const shopTools = (signals: Signals) => [
  Tool.make("echo", {
    description: "Echoes the text.",
    input: Schema.Struct({ text: Schema.String }),
    annotations: { readOnlyHint: true }
  }).pipe(Tool.handle(({ text }) => Effect.succeed(`shop says ${text}`))),
  Tool.make("wait", { description: "Waits until interrupted.", annotations: { readOnlyHint: true } }).pipe(
    Tool.handle(() =>
      Deferred.succeed(signals.started, undefined).pipe(
        Effect.andThen(Effect.never),
        Effect.onInterrupt(() => Deferred.succeed(signals.interrupted, undefined)),
        Effect.as("never")
      )
    )
  )
]

const routes = Resource.make("routes", { uri: "shop://routes", description: "The routes." }).pipe(
  Resource.handle(() => Effect.succeed("GET /orders"))
)

const textOf = (response: any): string => response.result.content[0].text

describe("Bridge", () => {
  it.effect("publishes an application's tools and resources under app_, forwards calls, and removes them", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime()
      const mode = NodeFs.statSync(path).mode & 0o777
      assert.strictEqual(mode, 0o600)

      const appScope = yield* Scope.make()
      const bridge = yield* BridgeClient.connect({
        path,
        name: "shop",
        tools: shopTools(yield* signals),
        resources: [routes]
      }).pipe(Scope.provide(appScope))
      const report = yield* bridge.report
      assert.deepStrictEqual(report.published.map((entry) => entry.publicName).sort(), [
        "app_shop_echo",
        "app_shop_routes",
        "app_shop_wait"
      ])
      assert.deepStrictEqual(report.refused, [])

      yield* rpc.notification("notifications/tools/list_changed")
      const names = yield* rpc.toolNames
      assert.includeMembers(names, ["app_shop_echo", "app_shop_wait", "bridge_client_tool"])

      assert.strictEqual(textOf(yield* rpc.call("app_shop_echo", { text: "hi" })), "shop says hi")
      const read = yield* rpc.request("resources/read", { uri: "shop://routes" })
      assert.strictEqual(read.result.contents[0].text, "GET /orders")

      // The trio.
      const listed = yield* rpc.call("bridge_list_client_tools_and_resources")
      const app = listed.result.structuredContent.applications[0]
      assert.strictEqual(app.name, "shop")
      assert.strictEqual(app.pid, process.pid)
      assert.deepStrictEqual(
        app.tools.map((tool: any) => tool.publicName),
        ["app_shop_echo", "app_shop_wait"]
      )
      assert.strictEqual(listed.result.structuredContent.endpoint, path)
      assert.strictEqual(
        textOf(
          yield* rpc.call("bridge_client_tool", { application: "shop", name: "shop_echo", arguments: { text: "yo" } })
        ),
        "shop says yo"
      )
      const resource = yield* rpc.call("bridge_client_resource", { uri: "shop://routes" })
      assert.strictEqual(resource.result.content[0].resource.text, "GET /orders")
      const unknown = yield* rpc.call("bridge_client_tool", { application: "shop", name: "shop_ecko" })
      assert.isTrue(unknown.result.isError)
      assert.include(textOf(unknown), "did you mean shop_echo")
      const noApp = yield* rpc.call("bridge_client_tool", { application: "shpo", name: "x" })
      assert.include(textOf(noApp), "did you mean shop")

      // Disconnect: the names vanish, list_changed again.
      yield* Scope.close(appScope, Exit.void)
      yield* rpc.notification("notifications/tools/list_changed")
      let after = yield* rpc.toolNames
      // The runtime may see the close a moment after the notification of an earlier change.
      while (after.includes("app_shop_echo")) {
        yield* rpc.notification("notifications/tools/list_changed")
        after = yield* rpc.toolNames
      }
      assert.notInclude(after, "app_shop_wait")
      const none = yield* rpc.call("bridge_client_tool", { application: "shop", name: "shop_echo" })
      assert.isTrue(none.result.isError)
      assert.include(textOf(none), "No application is connected")
      assert.include(none.result._meta["effect-mcp-runtime/error"].suggestion, path)
    })
  )

  it.effect("the socket's directory is made with mode 0700, the socket has mode 0600", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "state", "bridge", "bridge.sock")
      yield* Layer.build(BridgeServer.layer({ path }))
      assert.strictEqual(NodeFs.statSync(join(dir, "state", "bridge")).mode & 0o777, 0o700)
      assert.strictEqual(NodeFs.statSync(path).mode & 0o777, 0o600)
      assert.isTrue(NodeFs.statSync(path).isSocket())
    })
  )

  it.effect("a cancelled call interrupts the application's handler", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime()
      const shop = yield* signals
      yield* BridgeClient.connect({ path, name: "shop", tools: shopTools(shop) })
      const id = yield* rpc.send("tools/call", { name: "app_shop_wait", arguments: {} })
      yield* Deferred.await(shop.started)
      yield* rpc.notify("notifications/cancelled", { requestId: id, reason: "changed my mind" })
      yield* Deferred.await(shop.interrupted)
    })
  )

  it.effect("the application's progress reaches the caller", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime()
      const steps = Tool.make("steps", { description: "Reports progress.", annotations: { readOnlyHint: true } }).pipe(
        Tool.handle(() => Effect.as(Progress.report({ progress: 1, total: 2, message: "half way" }), "done"))
      )
      yield* BridgeClient.connect({ path, name: "shop", tools: [steps] })
      const id = yield* rpc.send("tools/call", {
        name: "app_shop_steps",
        arguments: {},
        _meta: { progressToken: "t1" }
      })
      const progress = yield* rpc.notification("notifications/progress")
      assert.deepStrictEqual(progress.params, { progressToken: "t1", progress: 1, total: 2, message: "half way" })
      assert.strictEqual(textOf(yield* rpc.response(id)), "done")
    })
  )

  it.effect("the policy's timeout interrupts the application's handler", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime({ extra: Policy.layer({ timeout: "2 seconds" }) })
      const shop = yield* signals
      yield* BridgeClient.connect({ path, name: "shop", tools: shopTools(shop) })
      const id = yield* rpc.send("tools/call", { name: "app_shop_wait", arguments: {} })
      yield* Deferred.await(shop.started)
      yield* TestClock.adjust("3 seconds")
      yield* Deferred.await(shop.interrupted)
      const response = yield* rpc.response(id)
      assert.isTrue(response.result.isError)
      assert.include(textOf(response), "did not finish")
    })
  )

  it.effect("a static name is never shadowed, and a second application of the same name is refused", () =>
    Effect.gen(function* () {
      const staticShop = Capability.make(
        { id: "app_shop", description: "A static capability", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("echo", { description: "Static.", annotations: { readOnlyHint: true } }).pipe(
              Tool.handle(() => Effect.succeed("static"))
            )
          ]
        })
      )
      const { path, rpc } = yield* runtime({ extra: staticShop })
      const bridge = yield* BridgeClient.connect({ path, name: "shop", tools: shopTools(yield* signals) })
      const report = yield* bridge.report
      assert.deepStrictEqual(
        report.published.map((entry) => entry.publicName),
        ["app_shop_wait"]
      )
      assert.strictEqual(report.refused.length, 1)
      assert.strictEqual(report.refused[0]!.name, "shop_echo")
      assert.include(report.refused[0]!.reason, "shadow")
      assert.strictEqual(textOf(yield* rpc.call("app_shop_echo", { text: "x" })), "static")
      // The refused tool is still reachable through bridge_client_tool.
      assert.strictEqual(
        textOf(
          yield* rpc.call("bridge_client_tool", { application: "shop", name: "shop_echo", arguments: { text: "x" } })
        ),
        "shop says x"
      )

      const second = yield* Effect.flip(BridgeClient.connect({ path, name: "shop", tools: [] }))
      assert.strictEqual(second._tag, "BridgeError")
      assert.strictEqual((second as BridgeClient.BridgeError).reason, "refused")
      assert.include(second.message, "connected already")
    })
  )

  it.effect("the application's list_changed re-lists it", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime()
      const bridge = yield* BridgeClient.connect({ path, name: "shop", tools: shopTools(yield* signals) })
      yield* rpc.notification("notifications/tools/list_changed")
      const late = Tool.make("late", { description: "Registered later.", annotations: { readOnlyHint: true } }).pipe(
        Tool.handle(() => Effect.succeed("late"))
      )
      // A run-time registration of the application's own kernel (published by it as app_late).
      yield* bridge.kernel.registerDynamic(late)
      let names = yield* rpc.toolNames
      while (!names.includes("app_app_late")) {
        yield* rpc.notification("notifications/tools/list_changed")
        names = yield* rpc.toolNames
      }
      assert.strictEqual(textOf(yield* rpc.call("app_app_late")), "late")
    })
  )

  it.effect("over TCP, a wrong token is refused and the right one accepted", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const tokenFile = join(dir, "token")
      const { rpc } = yield* runtime({ listen: { tcp: { tokenFile } } })
      assert.strictEqual(NodeFs.statSync(tokenFile).mode & 0o777, 0o600)
      const listed = yield* rpc.call("bridge_list_client_tools_and_resources")
      const endpoint: string = listed.result.structuredContent.endpoint
      assert.match(endpoint, /^tcp:\/\/127\.0\.0\.1:\d+$/)
      const wrong = yield* Effect.flip(BridgeClient.connect({ endpoint, token: "nope", name: "shop" }))
      assert.strictEqual((wrong as BridgeClient.BridgeError).reason, "refused")
      assert.include(wrong.message, "token")
      const bridge = yield* BridgeClient.connect({
        endpoint,
        tokenFile,
        name: "shop",
        tools: shopTools(yield* signals)
      })
      assert.strictEqual((yield* bridge.report).published.length, 2)
      assert.strictEqual(textOf(yield* rpc.call("app_shop_echo", { text: "tcp" })), "shop says tcp")
    })
  )

  it.effect("an application in a child process registers, answers, and vanishes when it exits", () =>
    Effect.gen(function* () {
      const { path, rpc } = yield* runtime()
      const child = yield* Effect.acquireRelease(
        Effect.sync(() => spawn(process.execPath, [fixture, path], { stdio: ["pipe", "pipe", "inherit"] })),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      const ready = yield* Effect.callback<string>((resume) => {
        let out = ""
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8")
          const line = out.split("\n").find((candidate) => candidate.startsWith("ready"))
          if (line !== undefined) resume(Effect.succeed(line))
        })
      })
      assert.strictEqual(ready, "ready app_kid_hello app_kid_status")
      assert.strictEqual(textOf(yield* rpc.call("app_kid_hello", { who: "test" })), `hello test from ${child.pid}`)
      const status = yield* rpc.request("resources/read", { uri: "kid://status" })
      assert.strictEqual(status.result.contents[0].text, `running as ${child.pid}`)
      child.kill("SIGKILL")
      let names = yield* rpc.toolNames
      while (names.includes("app_kid_hello")) {
        yield* rpc.notification("notifications/tools/list_changed")
        names = yield* rpc.toolNames
      }
      const listed = yield* rpc.call("bridge_list_client_tools_and_resources")
      assert.deepStrictEqual(listed.result.structuredContent.applications, [])
    })
  )
})
