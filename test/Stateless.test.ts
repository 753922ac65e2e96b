/**
 * Requests of protocol 2026-07-28 that carry their own context in `_meta`,
 * served without a session: through `McpServer.make()`'s `request` (as the
 * Streamable HTTP transport hands them over) and over a connection beside a
 * legacy session.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Logging from "../layers/Logging.ts"
import * as Capability from "../src/Capability.ts"
import * as ClientLog from "../src/ClientLog.ts"
import * as Progress from "../src/Progress.ts"
import * as Prompt from "../src/Prompt.ts"
import * as ProtocolVersion from "../src/ProtocolVersion.ts"
import * as Resource from "../src/Resource.ts"
import * as Sampling from "../src/Sampling.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"
import { collector, makeServer, meta, metaKey } from "./support/modern.ts"

const config = { name: "stateless-test", version: "9.9.9", listTtlMs: 4321 }
const serverInfo = { name: config.name, version: config.version }

const makeCapability = (started: Deferred.Deferred<void>, finalized: Deferred.Deferred<string>) =>
  Capability.make(
    { id: "s", description: "stateless test", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("echo", {
          description: "echo",
          input: Schema.Struct({ text: Schema.String }),
          output: Schema.Struct({ text: Schema.String })
        }).pipe(Tool.handle(({ text }) => Effect.succeed({ text }))),
        Tool.make("logs", { description: "logs at info and debug" }).pipe(
          Tool.handle(() =>
            Effect.andThen(
              ClientLog.info("hello at info"),
              Effect.andThen(ClientLog.debug("hello at debug"), Effect.succeed("logged"))
            )
          )
        ),
        Tool.make("progress", { description: "reports progress" }).pipe(
          Tool.handle(() =>
            Effect.andThen(
              Progress.report({ progress: 1, total: 2 }),
              Effect.andThen(Progress.report({ progress: 2, total: 2 }), Effect.succeed("progressed"))
            )
          )
        ),
        Tool.make("sample", { description: "asks the client's model" }).pipe(
          Tool.handle(() =>
            Effect.map(
              Sampling.createMessage({
                messages: [{ role: "user", content: { type: "text", text: "hi" } }],
                maxTokens: 10
              }),
              () => "sampled"
            )
          )
        ),
        Tool.make("wait", { description: "waits until cancelled" }).pipe(
          Tool.handle(() =>
            Effect.andThen(Deferred.succeed(started, undefined), Effect.never).pipe(
              Effect.as("never"),
              Effect.onInterrupt(() => Deferred.succeed(finalized, "interrupted"))
            )
          )
        )
      ],
      prompts: [
        Prompt.make("greet", { description: "greets" }).pipe(Prompt.handle(() => Effect.succeed("hello"))),
        Prompt.make("bye", { description: "says goodbye" }).pipe(Prompt.handle(() => Effect.succeed("bye")))
      ],
      resources: [
        Resource.make("a", { uri: "mem://a", description: "a" }).pipe(Resource.handle(() => Effect.succeed("A"))),
        Resource.make("b", { uri: "mem://b", description: "b" }).pipe(Resource.handle(() => Effect.succeed("B"))),
        Resource.template("note", {
          uriTemplate: "mem://note/{id}",
          description: "a note",
          params: Schema.Struct({ id: Schema.String })
        }).pipe(Resource.handle(({ id }) => Effect.succeed(`note ${id}`))),
        Resource.template("page", {
          uriTemplate: "mem://page/{n}",
          description: "a page",
          params: Schema.Struct({ n: Schema.String })
        }).pipe(Resource.handle(({ n }) => Effect.succeed(`page ${n}`)))
      ]
    })
  )

const setup = (options: { readonly pageSize?: number } = {}) =>
  Effect.gen(function* () {
    const started = yield* Deferred.make<void>()
    const finalized = yield* Deferred.make<string>()
    const served = yield* makeServer(makeCapability(started, finalized), options)
    return { ...served, started, finalized }
  }).pipe(Effect.provide(ServerConfig.layer(config)))

const withoutKey = (key: string) => {
  const copy = meta()
  delete copy[key]
  return copy
}

describe("stateless requests: _meta", () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown> | undefined, string]> = [
    ["no params", undefined, "_meta"],
    ["params without _meta", {}, "_meta"],
    ["_meta not an object", { _meta: "2026-07-28" }, "_meta"],
    ["_meta without protocolVersion", { _meta: withoutKey(metaKey.protocolVersion) }, metaKey.protocolVersion],
    ["_meta without clientCapabilities", { _meta: withoutKey(metaKey.clientCapabilities) }, metaKey.clientCapabilities],
    [
      "a version that is not a string",
      { _meta: meta({ [metaKey.protocolVersion]: 20260728 }) },
      metaKey.protocolVersion
    ],
    [
      "capabilities that are not an object",
      { _meta: meta({ [metaKey.clientCapabilities]: ["sampling"] }) },
      metaKey.clientCapabilities
    ],
    ["capabilities that are null", { _meta: meta({ [metaKey.clientCapabilities]: null }) }, metaKey.clientCapabilities],
    ["a log level that is not one", { _meta: meta({ [metaKey.logLevel]: "verbose" }) }, metaKey.logLevel]
  ]
  for (const [name, params, field] of cases) {
    it.effect(`${name}: -32602 invalid_meta, bad_request`, () =>
      Effect.gen(function* () {
        const { request } = yield* setup()
        const answer = yield* request("tools/list", params, { id: "m-1" })
        assert.strictEqual(answer.status, "bad_request")
        assert.strictEqual(answer.response.id, "m-1")
        assert.strictEqual(answer.response.error.code, -32602)
        assert.deepStrictEqual(answer.response.error.data, { reason: "invalid_meta", field })
        assert.isUndefined(answer.response.result)
      })
    )
  }

  it.effect("_meta without clientInfo is served", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("tools/list", { _meta: withoutKey(metaKey.clientInfo) })
      assert.strictEqual(answer.status, "ok")
      assert.isArray(answer.response.result.tools)
      assert.strictEqual(answer.response.result.tools.length, 5)
    })
  )

  it.effect("a malformed clientInfo is ignored, not refused", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("tools/list", { _meta: meta({ [metaKey.clientInfo]: "me" }) })
      assert.strictEqual(answer.status, "ok")
    })
  )
})

describe("stateless requests: the context", () => {
  it.effect("a request runs in the server's context and keeps its caller's log annotations", () =>
    Effect.gen(function* () {
      const lines: Array<any> = []
      const { request } = yield* setup().pipe(
        Effect.provide(
          Logger.layer([Logger.make((options) => void lines.push(JSON.parse(Logging.formatLine(options))))])
        )
      )
      const answer = yield* request("tools/call", { name: "s_echo", arguments: { text: "x" }, _meta: meta() }).pipe(
        Effect.annotateLogs({ caller: "c1" })
      )
      assert.strictEqual(answer.response.result.structuredContent.text, "x")
      // The server's logger (in the context it was made in) wrote the request's line, with the caller's annotation.
      const line = lines.find((entry) => entry.message === "request")
      assert.strictEqual(line?.annotations.caller, "c1")
      assert.strictEqual(line?.annotations.method, "tools/call")
    }).pipe(Effect.scoped)
  )
})

describe("stateless requests: versions and methods", () => {
  for (const requested of ["1999-01-01", "2025-11-25", "2024-11-05"]) {
    it.effect(`version ${requested} in _meta: -32022 with the supported versions`, () =>
      Effect.gen(function* () {
        const { request } = yield* setup()
        const answer = yield* request(
          "tools/list",
          { _meta: meta({ [metaKey.protocolVersion]: requested }) },
          { id: 7 }
        )
        assert.strictEqual(answer.status, "bad_request")
        assert.strictEqual(answer.response.id, 7)
        assert.strictEqual(answer.response.error.code, -32022)
        assert.deepStrictEqual(answer.response.error.data, {
          supported: [...ProtocolVersion.supported],
          requested
        })
      })
    )
  }

  it.effect("an unsupported version is refused before the method is looked up", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("no/such/method", { _meta: meta({ [metaKey.protocolVersion]: "1999-01-01" }) })
      assert.strictEqual(answer.response.error.code, -32022)
      assert.strictEqual(answer.status, "bad_request")
    })
  )

  for (const method of [
    "no/such/method",
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe"
  ]) {
    it.effect(`${method}: -32601, not_found, the id echoed`, () =>
      Effect.gen(function* () {
        const { request } = yield* setup()
        const params =
          method === "initialize"
            ? {
                _meta: meta(),
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "c", version: "1" }
              }
            : method === "logging/setLevel"
              ? { _meta: meta(), level: "debug" }
              : method.startsWith("resources/")
                ? { _meta: meta(), uri: "mem://a" }
                : { _meta: meta() }
        const answer = yield* request(method, params, { id: `id-${method}` })
        assert.strictEqual(answer.status, "not_found")
        assert.strictEqual(answer.response.id, `id-${method}`)
        assert.strictEqual(answer.response.error.code, -32601)
        assert.isUndefined(answer.response.result)
      })
    )
  }
})

describe("stateless requests: results", () => {
  it.effect("every result has resultType complete and the server's identity", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
        ["server/discover", {}],
        ["tools/list", {}],
        ["tools/call", { name: "s_echo", arguments: { text: "hi" } }],
        ["tools/call", { name: "s_logs" }],
        ["prompts/list", {}],
        ["prompts/get", { name: "s_greet" }],
        ["resources/list", {}],
        ["resources/templates/list", {}],
        ["resources/read", { uri: "mem://a" }],
        ["resources/read", { uri: "mem://note/1" }]
      ]
      for (const [method, params] of calls) {
        const answer = yield* request(method, { ...params, _meta: meta() })
        assert.strictEqual(answer.status, "ok", method)
        assert.strictEqual(answer.response.result.resultType, "complete", method)
        assert.deepStrictEqual(answer.response.result._meta[metaKey.serverInfo], serverInfo, method)
      }
    })
  )

  it.effect("a tool error result is a result too (resultType, serverInfo), with status ok", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("tools/call", { _meta: meta(), name: "s_echo", arguments: { text: 1 } })
      assert.strictEqual(answer.status, "ok")
      assert.isTrue(answer.response.result.isError)
      assert.strictEqual(answer.response.result.resultType, "complete")
      assert.deepStrictEqual(answer.response.result._meta[metaKey.serverInfo], serverInfo)
    })
  )

  const lists: ReadonlyArray<readonly [string, string, number]> = [
    ["tools/list", "tools", 5],
    ["prompts/list", "prompts", 2],
    ["resources/list", "resources", 2],
    ["resources/templates/list", "resourceTemplates", 2]
  ]
  for (const [method, key, total] of lists) {
    it.effect(`${method}: ttlMs and cacheScope public on every page`, () =>
      Effect.gen(function* () {
        const { request } = yield* setup({ pageSize: 1 })
        const items: Array<unknown> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const answer = yield* request(method, cursor === undefined ? { _meta: meta() } : { _meta: meta(), cursor })
          assert.strictEqual(answer.status, "ok")
          const result = answer.response.result
          assert.strictEqual(result.ttlMs, config.listTtlMs, `page ${pages}`)
          assert.strictEqual(result.cacheScope, "public", `page ${pages}`)
          assert.strictEqual(result.resultType, "complete")
          assert.deepStrictEqual(result._meta[metaKey.serverInfo], serverInfo)
          items.push(...result[key])
          cursor = result.nextCursor
          pages++
        } while (cursor !== undefined && pages < 20)
        assert.strictEqual(items.length, total)
        assert.strictEqual(pages, total)
      })
    )
  }

  it.effect("server/discover: the supported versions, the capabilities, caching hints", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("server/discover", { _meta: meta() })
      assert.strictEqual(answer.status, "ok")
      const result = answer.response.result
      assert.deepStrictEqual(result.supportedVersions, [...ProtocolVersion.supported])
      assert.deepStrictEqual(result.capabilities, {
        logging: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true }
      })
      assert.strictEqual(result.ttlMs, config.listTtlMs)
      assert.strictEqual(result.cacheScope, "public")
      assert.strictEqual(result.resultType, "complete")
      assert.deepStrictEqual(result._meta[metaKey.serverInfo], serverInfo)
    })
  )

  it.effect("resources/read: ttlMs 0, cacheScope private", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      for (const uri of ["mem://a", "mem://note/7"]) {
        const answer = yield* request("resources/read", { _meta: meta(), uri })
        assert.strictEqual(answer.status, "ok")
        assert.strictEqual(answer.response.result.ttlMs, 0)
        assert.strictEqual(answer.response.result.cacheScope, "private")
        assert.strictEqual(answer.response.result.contents[0].uri, uri)
      }
    })
  )

  it.effect("resources/read of a URI nothing serves: -32602 with data.uri", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("resources/read", { _meta: meta(), uri: "other://nothing" }, { id: "r" })
      assert.strictEqual(answer.response.id, "r")
      assert.strictEqual(answer.response.error.code, -32602)
      assert.strictEqual(answer.response.error.data.uri, "other://nothing")
    })
  )

  it.effect("the same read under a legacy session: -32002", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<string>()
      const client = yield* TestClient.make(makeCapability(started, finalized))
      const error = yield* Effect.flip(client.request("resources/read", { uri: "other://nothing" }))
      assert.strictEqual(error.code, -32002)
    })
  )
})

describe("stateless requests: client capabilities, logging, progress", () => {
  it.effect("a tool that needs sampling, for a client without it: -32021, bad_request", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const answer = yield* request("tools/call", { _meta: meta(), name: "s_sample" }, { id: 21 })
      assert.strictEqual(answer.status, "bad_request")
      assert.strictEqual(answer.response.id, 21)
      assert.strictEqual(answer.response.error.code, -32021)
      assert.deepStrictEqual(answer.response.error.data.requiredCapabilities, { sampling: {} })
    })
  )

  it.effect("the same tool under a legacy session: an isError result", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Deferred.make<string>()
      const client = yield* TestClient.make(makeCapability(started, finalized))
      const result = yield* client.callTool("s_sample")
      assert.isTrue(result.isError)
      assert.strictEqual(TestClient.errorCode(result), "ClientCapabilityMissing")
    })
  )

  it.effect("log messages go through origin.send only at or above the level _meta asks for", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const atInfo = yield* collector()
      const answer = yield* request(
        "tools/call",
        { _meta: meta({ [metaKey.logLevel]: "info" }), name: "s_logs" },
        { origin: atInfo.origin }
      )
      assert.strictEqual(answer.status, "ok")
      assert.deepStrictEqual(atInfo.sent, [
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", logger: "s_logs", data: "hello at info" }
        }
      ])

      const atDebug = yield* collector()
      yield* request(
        "tools/call",
        { _meta: meta({ [metaKey.logLevel]: "debug" }), name: "s_logs" },
        { origin: atDebug.origin }
      )
      assert.deepStrictEqual(
        atDebug.sent.map((message) => [message.method, message.params.level]),
        [
          ["notifications/message", "info"],
          ["notifications/message", "debug"]
        ]
      )

      const atError = yield* collector()
      yield* request(
        "tools/call",
        { _meta: meta({ [metaKey.logLevel]: "error" }), name: "s_logs" },
        { origin: atError.origin }
      )
      assert.deepStrictEqual(atError.sent, [])

      const none = yield* collector()
      const silent = yield* request("tools/call", { _meta: meta(), name: "s_logs" }, { origin: none.origin })
      assert.strictEqual(silent.response.result.content[0].text, "logged")
      assert.deepStrictEqual(none.sent, [])
    })
  )

  it.effect("progress goes through origin.send when _meta has a progressToken, and not otherwise", () =>
    Effect.gen(function* () {
      const { request } = yield* setup()
      const withToken = yield* collector()
      const answer = yield* request(
        "tools/call",
        { _meta: meta({ progressToken: "p-1" }), name: "s_progress" },
        { origin: withToken.origin }
      )
      assert.strictEqual(answer.response.result.content[0].text, "progressed")
      assert.deepStrictEqual(withToken.sent, [
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p-1", progress: 1, total: 2 } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p-1", progress: 2, total: 2 } }
      ])
      const without = yield* collector()
      yield* request("tools/call", { _meta: meta(), name: "s_progress" }, { origin: without.origin })
      assert.deepStrictEqual(without.sent, [])
    })
  )
})

describe("stateless requests over a connection", () => {
  const startConnection = Effect.gen(function* () {
    const started = yield* Deferred.make<void>()
    const finalized = yield* Deferred.make<string>()
    const client = yield* start(makeCapability(started, finalized))
    return { client, started, finalized }
  })

  it.effect("a 2026-07-28 request is served without initialize", () =>
    Effect.gen(function* () {
      const { client } = yield* startConnection
      yield* client.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } })
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.strictEqual(response.result.resultType, "complete")
      assert.strictEqual(response.result.tools.length, 5)
      yield* client.send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { _meta: meta(), name: "s_echo", arguments: { text: "x" } }
      })
      const call = yield* client.read
      assert.deepStrictEqual(call.result.structuredContent, { text: "x" })
    })
  )

  it.effect("server/discover without _meta: -32602, before and after a legacy initialize", () =>
    Effect.gen(function* () {
      const { client } = yield* startConnection
      const before = yield* client.request("server/discover")
      assert.strictEqual(before.error.code, -32602)
      assert.strictEqual(before.error.data.reason, "invalid_meta")
      yield* client.initialize()
      const after = yield* client.request("server/discover", {})
      assert.strictEqual(after.error.code, -32602)
      assert.strictEqual(after.error.data.reason, "invalid_meta")
      const served = yield* client.request("server/discover", { _meta: meta() })
      assert.deepStrictEqual(served.result.supportedVersions, [...ProtocolVersion.supported])
    })
  )

  it.effect("a legacy session is unaffected by 2026-07-28 requests on the same connection", () =>
    Effect.gen(function* () {
      const { client } = yield* startConnection
      const init = yield* client.initialize("2024-11-05")
      assert.strictEqual(init.result.protocolVersion, "2024-11-05")
      const level = yield* client.request("logging/setLevel", { level: "error" })
      assert.deepStrictEqual(level.result, {})

      // A 2026-07-28 request on the connection: its own version, its own log level.
      yield* client.send({
        jsonrpc: "2.0",
        id: "m1",
        method: "tools/call",
        params: { _meta: meta({ [metaKey.logLevel]: "debug" }), name: "s_logs" }
      })
      const modernLines = [yield* client.read, yield* client.read, yield* client.read]
      assert.deepStrictEqual(
        modernLines.map((line) => line.method ?? line.id),
        ["notifications/message", "notifications/message", "m1"]
      )
      assert.strictEqual(modernLines[2].result.resultType, "complete")
      const modernList = yield* client.request("tools/list", { _meta: meta() })
      assert.isDefined(modernList.result.tools.find((tool: any) => tool.name === "s_echo").outputSchema)

      // The legacy session still speaks 2024-11-05 at level error.
      const list = yield* client.request("tools/list")
      assert.isUndefined(list.result.resultType)
      assert.isUndefined(list.result.ttlMs)
      assert.isUndefined(list.result.tools.find((tool: any) => tool.name === "s_echo").outputSchema)
      const call = yield* client.request("tools/call", { name: "s_logs" })
      assert.deepStrictEqual(call.result, { content: [{ type: "text", text: "logged" }] })
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
    })
  )

  it.effect("notifications/cancelled interrupts a 2026-07-28 request", () =>
    Effect.gen(function* () {
      const { client, finalized, started } = yield* startConnection
      yield* client.send({
        jsonrpc: "2.0",
        id: "w1",
        method: "tools/call",
        params: { _meta: meta(), name: "s_wait" }
      })
      yield* Deferred.await(started)
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "w1" } })
      assert.strictEqual(yield* Deferred.await(finalized), "interrupted")
      // The next line is the next request's answer, not the cancelled call's.
      const next = yield* client.request("server/discover", { _meta: meta() })
      assert.strictEqual(next.id, 1000)
      assert.isDefined(next.result.supportedVersions)
    })
  )
})

describe("stateless requests: cancellation", () => {
  it.effect("interrupting server.request interrupts the handler", () =>
    Effect.gen(function* () {
      const { finalized, request, started } = yield* setup()
      const fiber = yield* Effect.forkChild(request("tools/call", { _meta: meta(), name: "s_wait" }))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* Deferred.await(finalized), "interrupted")
    })
  )
})
