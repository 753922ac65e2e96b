/**
 * The built binary over real stdio, driven with raw NDJSON bytes: framing,
 * JSON-RPC envelope errors, the lifecycle, batches, notifications and
 * shutdown. After every error case the server must still answer a ping.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { assertBuilt, revisions, type ServerProcess, withServer } from "./ServerProcess.ts"
import { packageVersion } from "../../src/ServerConfig.ts"

beforeAll(assertBuilt)

/**
 * Checks that a value is a well-formed JSON-RPC error response (exactly one
 * of result/error, a string message) and returns its id and code for the
 * test to compare.
 */
const errorOf = (response: any): { readonly id: unknown; readonly code: unknown } => {
  const shown = JSON.stringify(response)
  assert.isObject(response, `expected a JSON-RPC response object, got ${shown}`)
  assert.strictEqual(response.jsonrpc, "2.0", shown)
  assert.notProperty(response, "result", `an error response has no result: ${shown}`)
  assert.isObject(response.error, `expected an error in ${shown}`)
  assert.isString(response.error.message, shown)
  return { id: response.id, code: response.error.code }
}

/** Writes a raw line and returns the next stdout line, parsed. */
const exchange = async (server: ServerProcess, raw: string): Promise<any> => {
  await server.write(raw.endsWith("\n") ? raw : `${raw}\n`)
  return server.next()
}

describe("raw stdio: malformed messages", () => {
  it("invalid JSON gets -32700 with id null", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      assert.deepStrictEqual(errorOf(await exchange(server, `{"jsonrpc":"2.0","id":1,"method":"ping"`)), {
        id: null,
        code: -32700
      })
      assert.deepStrictEqual(errorOf(await exchange(server, `not json at all`)), { id: null, code: -32700 })
      await server.expectPing()
    }))

  it("invalid JSON before initialize gets -32700 too", () =>
    withServer([], async (server) => {
      assert.deepStrictEqual(errorOf(await exchange(server, `{"jsonrpc":`)), { id: null, code: -32700 })
      await server.expectPing()
    }))

  it(`"jsonrpc":"1.0" gets -32600`, () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const response = await exchange(server, `{"jsonrpc":"1.0","id":7,"method":"ping"}`)
      // The id is well-formed, so it is echoed.
      assert.deepStrictEqual(errorOf(response), { id: 7, code: -32600 })
      assert.include(response.error.message, "jsonrpc")
      assert.deepStrictEqual(errorOf(await exchange(server, `{"id":8,"method":"ping"}`)), { id: 8, code: -32600 })
      await server.expectPing()
    }))

  for (const [label, id] of [
    ["null", "null"],
    ["a fraction", "1.5"],
    ["an object", `{"n":1}`],
    ["a boolean", "true"],
    ["an array", "[1]"]
  ] as const) {
    it(`an id that is ${label} gets -32600 with id null`, () =>
      withServer([], async (server) => {
        await server.initialize("2025-11-25")
        const response = await exchange(server, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`)
        assert.deepStrictEqual(errorOf(response), { id: null, code: -32600 })
        assert.include(response.error.message, `"id"`)
        await server.expectPing()
      }))
  }

  it("falsy and negative ids are valid and echoed exactly", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      for (const id of [0, -1, "", "0", 9007199254740991]) {
        const response = await exchange(server, JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }))
        assert.deepStrictEqual(response, { jsonrpc: "2.0", id, result: {} })
      }
    }))

  it("JSON that is not an object gets -32600 with id null", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      assert.deepStrictEqual(errorOf(await exchange(server, `"ping"`)), { id: null, code: -32600 })
      assert.deepStrictEqual(errorOf(await exchange(server, `42`)), { id: null, code: -32600 })
      assert.deepStrictEqual(errorOf(await exchange(server, `null`)), { id: null, code: -32600 })
      await server.expectPing()
    }))

  it("a line longer than --max-message-bytes gets -32600 with its id, naming the limit, and is discarded", () =>
    withServer(["--max-message-bytes", "65536"], async (server) => {
      await server.initialize("2025-11-25")
      const text = "x".repeat(200 * 1024)
      const huge = JSON.stringify({
        jsonrpc: "2.0",
        id: 99,
        method: "tools/call",
        params: { name: "system_echo", arguments: { text } }
      })
      const response = await exchange(server, huge)
      // The id is recovered from the first bytes, so the client's request does not hang.
      assert.deepStrictEqual(errorOf(response), { id: 99, code: -32600 })
      assert.include(response.error.message, "65536")
      assert.include(response.error.message, `${Buffer.byteLength(huge)} bytes`)
      // The SDK client puts the id last: it is recovered from the last bytes.
      const sdkOrder = `{"method":"tools/call","params":{"name":"system_echo","arguments":{"text":"${text}","id":7}},"jsonrpc":"2.0","id":"sdk-1"}`
      assert.deepStrictEqual(errorOf(await exchange(server, sdkOrder)), { id: "sdk-1", code: -32600 })
      // When the id cannot be known for sure, the answer carries id null.
      const nested = `{"params":{"text":"${text}","id":5}}`
      assert.deepStrictEqual(errorOf(await exchange(server, nested)), { id: null, code: -32600 })
      // A message just under the limit still goes through.
      const fits = await server.request("tools/call", {
        name: "system_echo",
        arguments: { text: "y".repeat(60 * 1024) }
      })
      assert.strictEqual(fits.result.structuredContent.text.length, 60 * 1024)
      await server.expectPing()
    }))

  it("the size limit is exact: a line of --max-message-bytes bytes is served, one more byte is not", () =>
    withServer(["--max-message-bytes", "1024"], async (server) => {
      const line = (id: string, bytes: number): string => {
        const bare = JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { _meta: { pad: "" } } })
        return JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "ping",
          params: { _meta: { pad: "p".repeat(bytes - bare.length) } }
        })
      }
      const exact = line("exact", 1024)
      assert.strictEqual(Buffer.byteLength(exact), 1024)
      assert.deepStrictEqual(await exchange(server, exact), { jsonrpc: "2.0", id: "exact", result: {} })
      const over = line("over", 1025)
      assert.strictEqual(Buffer.byteLength(over), 1025)
      assert.deepStrictEqual(errorOf(await exchange(server, over)), { id: "over", code: -32600 })
      await server.expectPing()
    }))

  it("an unknown method gets -32601", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const response = await exchange(server, `{"jsonrpc":"2.0","id":"u1","method":"tools/frobnicate"}`)
      assert.deepStrictEqual(errorOf(response), { id: "u1", code: -32601 })
      assert.include(response.error.message, "tools/frobnicate")
      await server.expectPing()
    }))

  it("wrong parameter types get -32602", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const response = await exchange(server, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}`)
      assert.deepStrictEqual(errorOf(response), { id: 3, code: -32602 })
      assert.include(response.error.message, "name")
      const badCursor = await exchange(server, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":1}}`)
      assert.deepStrictEqual(errorOf(badCursor), { id: 4, code: -32602 })
      await server.expectPing()
    }))

  it("an unknown tool gets -32602 naming the tool", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const response = await server.request("tools/call", { name: "system_nope", arguments: {} })
      assert.deepStrictEqual(errorOf(response), { id: response.id, code: -32602 })
      assert.include(response.error.message, "system_nope")
      await server.expectPing()
    }))
})

describe("raw stdio: framing", () => {
  it("reassembles a message split across writes, including inside a UTF-8 character, and accepts CRLF", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const text = "héllo 🌍 wörld"
      const bytes = Buffer.from(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "system_echo", arguments: { text } } })}\r\n`,
        "utf8"
      )
      const emoji = bytes.indexOf(Buffer.from("🌍", "utf8"))
      await server.write(bytes.subarray(0, emoji + 2))
      await new Promise((resolve) => setTimeout(resolve, 50))
      await server.write(bytes.subarray(emoji + 2))
      const response = await server.next()
      assert.strictEqual(response.id, 1)
      assert.deepStrictEqual(response.result.structuredContent, { text })
      await server.expectPing()
    }))

  it("answers several messages written in one chunk, and skips blank lines", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      await server.write(
        `{"jsonrpc":"2.0","id":1,"method":"ping"}\n\n\r\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n` +
          `{"jsonrpc":"2.0","id":3,"method":"ping"}\n`
      )
      const ids = [(await server.next()).id, (await server.next()).id, (await server.next()).id].sort()
      assert.deepStrictEqual(ids, [1, 2, 3])
      await server.expectPing()
    }))
})

describe("raw stdio: throughput", () => {
  it("answers 500 pipelined requests written in one chunk, each exactly once", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const count = 500
      const lines = Array.from({ length: count }, (_, i) =>
        JSON.stringify(
          i % 2 === 0
            ? {
                jsonrpc: "2.0",
                id: i,
                method: "tools/call",
                params: { name: "system_echo", arguments: { text: `#${i}` } }
              }
            : { jsonrpc: "2.0", id: i, method: "ping" }
        )
      )
      await server.write(`${lines.join("\n")}\n`)
      const seen = new Set<number>()
      for (let n = 0; n < count; n++) {
        const response = await server.next()
        assert.isFalse(seen.has(response.id), `duplicate response for id ${response.id}`)
        seen.add(response.id)
        if (response.id % 2 === 0)
          assert.deepStrictEqual(response.result.structuredContent, { text: `#${response.id}` })
        else assert.deepStrictEqual(response.result, {})
      }
      assert.strictEqual(seen.size, count)
      await server.expectPing()
    }))

  it("writes a response of several megabytes as one line", () =>
    withServer(["--max-result-bytes", "4194304"], async (server) => {
      await server.initialize("2025-11-25")
      const text = "z".repeat(1024 * 1024)
      const response = await server.request("tools/call", { name: "system_echo", arguments: { text } })
      assert.strictEqual(response.result.structuredContent.text, text)
      assert.strictEqual(response.result.content[0].text, JSON.stringify({ text }))
      await server.expectPing()
    }))
})

describe("raw stdio: lifecycle", () => {
  it("a request before initialize gets -32600 (not initialized); ping before initialize works", () =>
    withServer([], async (server) => {
      await server.expectPing()
      const response = await exchange(server, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
      assert.deepStrictEqual(errorOf(response), { id: 1, code: -32600 })
      assert.include(response.error.message, "not initialized")
      await server.expectPing()
      // The session is still usable.
      await server.initialize("2025-11-25")
      const list = await server.request("tools/list")
      assert.isArray(list.result.tools)
    }))

  it("initialize with missing or mistyped params gets -32602 and leaves the session uninitialized", () =>
    withServer([], async (server) => {
      assert.deepStrictEqual(errorOf(await exchange(server, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)), {
        id: 1,
        code: -32602
      })
      const mistyped = await exchange(
        server,
        `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":20250618,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
      )
      assert.deepStrictEqual(errorOf(mistyped), { id: 2, code: -32602 })
      assert.include(mistyped.error.message, "protocolVersion")
      assert.deepStrictEqual(errorOf(await exchange(server, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)), {
        id: 3,
        code: -32600
      })
      const result = await server.initialize("2025-06-18")
      assert.strictEqual(result.protocolVersion, "2025-06-18")
    }))

  it("a second initialize gets -32600 and keeps the first negotiation", () =>
    withServer([], async (server) => {
      const first = await server.initialize("2025-03-26")
      assert.strictEqual(first.protocolVersion, "2025-03-26")
      const second = await server.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "again", version: "1.0.0" }
      })
      assert.deepStrictEqual(errorOf(second), { id: second.id, code: -32600 })
      await server.expectPing()
      // Still 2025-03-26: batches are accepted.
      const batch = await exchange(server, `[{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
      assert.deepStrictEqual(batch, [{ jsonrpc: "2.0", id: "b", result: {} }])
    }))

  it("an unsupported requested version is answered with 2025-11-25", () =>
    withServer([], async (server) => {
      const result = await server.initialize("1999-01-01")
      assert.strictEqual(result.protocolVersion, "2025-11-25")
      assert.deepStrictEqual(result.serverInfo, { name: "mcp-runtime", version: packageVersion })
      await server.expectPing()
    }))

  it("notifications never get a response: the next line is the ping's", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      await server.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      await server.send({ jsonrpc: "2.0", method: "notifications/whatever", params: { x: 1 } })
      await server.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
      // A known notification with params of the wrong shape is ignored (and logged), not answered.
      await server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: { bad: true } } })
      // Responses to no request of ours are ignored too.
      await server.send({ jsonrpc: "2.0", id: 12345, result: {} })
      await server.send({ jsonrpc: "2.0", id: "x", error: { code: -1, message: "client-side failure" } })
      await server.expectPing()
      assert.strictEqual(server.stdoutLines().length, 2, "only the initialize and ping responses were written")
    }))

  it("a message without an id whose envelope is invalid gets -32600 with id null, as in the JSON-RPC 2.0 examples", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      assert.deepStrictEqual(errorOf(await exchange(server, `{"jsonrpc":"2.0","method":1,"params":"bar"}`)), {
        id: null,
        code: -32600
      })
      await server.expectPing()
    }))

  it("requests carrying _meta in their params are served", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      const meta = { _meta: { progressToken: "tok-1" } }
      assert.deepStrictEqual((await server.request("ping", meta)).result, {})
      assert.isArray((await server.request("tools/list", meta)).result.tools)
      const echo = await server.request("tools/call", { ...meta, name: "system_echo", arguments: { text: "m" } })
      assert.deepStrictEqual(echo.result.structuredContent, { text: "m" })
      await server.expectPing()
    }))

  it("a notification before initialize gets no response either", () =>
    withServer([], async (server) => {
      await server.send({ jsonrpc: "2.0", method: "notifications/whatever" })
      await server.expectPing()
      assert.strictEqual(server.stdoutLines().length, 1, "only the ping response was written")
    }))

  for (const version of revisions) {
    it(`${version}: notifications/cancelled for an unknown id is ignored`, () =>
      withServer([], async (server) => {
        await server.initialize(version)
        await server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 424242 } })
        await server.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "nope", reason: "test" }
        })
        await server.expectPing()
        assert.strictEqual(server.stdoutLines().length, 2, "only the initialize and ping responses were written")
      }))
  }
})

describe("raw stdio: batches", () => {
  for (const version of ["2024-11-05", "2025-06-18", "2025-11-25"] as const) {
    it(`${version}: a batch is rejected with -32600 and id null`, () =>
      withServer([], async (server) => {
        await server.initialize(version)
        const response = await exchange(
          server,
          `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`
        )
        assert.deepStrictEqual(errorOf(response), { id: null, code: -32600 })
        await server.expectPing()
      }))
  }

  it("2025-03-26: a batch of two pings and a notification gets one array with two responses", () =>
    withServer([], async (server) => {
      await server.initialize("2025-03-26")
      const response = await exchange(
        server,
        `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
          `{"jsonrpc":"2.0","id":"two","method":"ping"}]`
      )
      assert.isArray(response, `expected an array, got ${JSON.stringify(response)}`)
      assert.strictEqual(response.length, 2)
      const byId = new Map(response.map((r: any) => [r.id, r]))
      assert.deepStrictEqual(byId.get(1), { jsonrpc: "2.0", id: 1, result: {} })
      assert.deepStrictEqual(byId.get("two"), { jsonrpc: "2.0", id: "two", result: {} })
      await server.expectPing()
    }))

  it("2025-03-26: a batch mixes results and errors, one per request", () =>
    withServer([], async (server) => {
      await server.initialize("2025-03-26")
      const response = await exchange(
        server,
        JSON.stringify([
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "system_echo", arguments: { text: "a" } } },
          { jsonrpc: "2.0", id: 2, method: "no/such" },
          { jsonrpc: "2.0", id: null, method: "ping" },
          5
        ])
      )
      assert.isArray(response, `expected an array, got ${JSON.stringify(response)}`)
      assert.strictEqual(response.length, 4)
      const echo = response.find((r: any) => r.id === 1)
      assert.deepStrictEqual(echo.result.content, [{ type: "text", text: `{"text":"a"}` }])
      assert.deepStrictEqual(errorOf(response.find((r: any) => r.id === 2)), { id: 2, code: -32601 })
      const nulls = response.filter((r: any) => r.id === null)
      assert.strictEqual(nulls.length, 2)
      for (const r of nulls) assert.deepStrictEqual(errorOf(r), { id: null, code: -32600 })
      await server.expectPing()
    }))

  it("2025-03-26: a batch of notifications only gets no response", () =>
    withServer([], async (server) => {
      await server.initialize("2025-03-26")
      await server.write(
        `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/x"}]\n`
      )
      await server.expectPing()
      assert.strictEqual(server.stdoutLines().length, 2, "only the initialize and ping responses were written")
    }))

  it("2025-03-26: an empty batch gets -32600", () =>
    withServer([], async (server) => {
      await server.initialize("2025-03-26")
      assert.deepStrictEqual(errorOf(await exchange(server, `[]`)), { id: null, code: -32600 })
      await server.expectPing()
    }))

  it("initialize inside a batch gets -32600", () =>
    withServer([], async (server) => {
      const response = await exchange(
        server,
        JSON.stringify([
          {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batch", version: "1" } }
          }
        ])
      )
      assert.deepStrictEqual(errorOf(response), { id: null, code: -32600 })
      await server.expectPing()
      // The session was not initialized by the batch.
      const list = await server.request("tools/list")
      assert.deepStrictEqual(errorOf(list), { id: list.id, code: -32600 })
    }))

  it("2025-03-26: initialize inside a batch after initialize gets -32600 for that entry", () =>
    withServer([], async (server) => {
      await server.initialize("2025-03-26")
      const response = await exchange(
        server,
        JSON.stringify([
          {
            jsonrpc: "2.0",
            id: "init",
            method: "initialize",
            params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batch", version: "1" } }
          },
          { jsonrpc: "2.0", id: "p", method: "ping" }
        ])
      )
      assert.isArray(response, `expected an array, got ${JSON.stringify(response)}`)
      assert.deepStrictEqual(errorOf(response.find((r: any) => r.id === "init")), { id: "init", code: -32600 })
      assert.deepStrictEqual(
        response.find((r: any) => r.id === "p"),
        { jsonrpc: "2.0", id: "p", result: {} }
      )
      await server.expectPing()
    }))
})

describe("raw stdio: shutdown and output hygiene", () => {
  const assertCleanOutput = (server: ServerProcess): void => {
    for (const line of server.stdoutLines()) {
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        assert.fail(`stdout carries a line that is not JSON: ${JSON.stringify(line)}`)
      }
      const messages = Array.isArray(value) ? value : [value]
      for (const message of messages) {
        assert.isObject(message, `stdout line is not a JSON-RPC message: ${line}`)
        assert.strictEqual((message as any).jsonrpc, "2.0", `stdout line is not a JSON-RPC message: ${line}`)
      }
    }
    for (const line of server.stderrLines()) {
      if (line.trim() === "") continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        assert.fail(`stderr carries a line that is not a JSON log: ${JSON.stringify(line)}`)
      }
      assert.isObject(value, `stderr line is not a JSON object: ${line}`)
    }
  }

  it("closing stdin (EOF) makes the server exit with code 0 promptly", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      await server.expectPing()
      const started = Date.now()
      server.closeStdin()
      const exit = await server.waitForExit(3_000)
      assert.deepStrictEqual(exit, { code: 0, signal: null })
      assert.isBelow(Date.now() - started, 3_000)
    }))

  it("EOF before initialize also exits with code 0", () =>
    withServer([], async (server) => {
      server.closeStdin()
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
    }))

  it("EOF right after a request still delivers its response before exiting", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      await server.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: "last", method: "tools/call", params: { name: "system_time", arguments: {} } })}\n`
      )
      server.closeStdin()
      const response = await server.next()
      assert.strictEqual(response.id, "last")
      assert.isString(response.result.structuredContent.iso)
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
    }))

  it("a last message without a trailing newline is served at EOF", () =>
    withServer([], async (server) => {
      await server.write(`{"jsonrpc":"2.0","id":"tail","method":"ping"}`)
      server.closeStdin()
      assert.deepStrictEqual(await server.next(), { jsonrpc: "2.0", id: "tail", result: {} })
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
    }))

  it("SIGTERM makes the server exit with code 0", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      await server.expectPing()
      server.child.kill("SIGTERM")
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
    }))

  it("SIGINT makes the server exit with code 0", () =>
    withServer([], async (server) => {
      await server.initialize("2025-11-25")
      server.child.kill("SIGINT")
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
    }))

  it("stdout carries only JSON-RPC lines and stderr only JSON log objects", () =>
    withServer(["--max-message-bytes", "4096"], async (server) => {
      await server.expectPing()
      await server.initialize("2025-03-26")
      await exchange(server, "garbage")
      await exchange(server, `{"jsonrpc":"2.0","id":true,"method":"ping"}`)
      await exchange(server, "y".repeat(10_000))
      await exchange(server, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
      await server.request("tools/list")
      await server.request("tools/call", { name: "system_info", arguments: {} })
      await server.request("tools/call", { name: "system_time", arguments: { timeZone: "Nowhere/Land" } })
      await server.request("tools/call", { name: "system_echo", arguments: { text: 1 } })
      await server.request("nope")
      await server.expectPing()
      server.closeStdin()
      assert.deepStrictEqual(await server.waitForExit(3_000), { code: 0, signal: null })
      // Every response was read, and nothing else was written.
      assert.strictEqual(server.stdoutLines().length, 12)
      assertCleanOutput(server)
      assert.isAbove(server.stderrLines().length, 0, "the server logs its start on stderr")
    }))
})
