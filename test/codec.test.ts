import { assert, describe, it } from "@effect/vitest"
import { classify, errorLine, idFromEdges, isNotJson, parseJson, successLine } from "../src/internal/jsonRpc.ts"
import { LineFramer } from "../src/internal/LineFramer.ts"
import * as McpError from "../src/McpError.ts"
import { RawJson } from "../src/Method.ts"
import * as ProtocolVersion from "../src/ProtocolVersion.ts"

const bytes = (s: string) => new TextEncoder().encode(s)

describe("LineFramer", () => {
  it("frames lines split across chunks, strips CR, skips blank lines", () => {
    const framer = new LineFramer(1024)
    assert.deepStrictEqual(framer.push(bytes('{"a"')), [])
    assert.deepStrictEqual(framer.push(bytes(':1}\r\n\n{"b":2}\n{"c"')), [
      { _tag: "Message", text: '{"a":1}', bytes: 7 },
      { _tag: "Message", text: '{"b":2}', bytes: 7 }
    ])
    assert.deepStrictEqual(framer.end(), [{ _tag: "Message", text: '{"c"', bytes: 4 }])
  })

  it("decodes multi-byte UTF-8 split between chunks", () => {
    const framer = new LineFramer(1024)
    const all = bytes('"héllo ✓"\n')
    assert.deepStrictEqual(framer.push(all.subarray(0, 3)), [])
    assert.deepStrictEqual(framer.push(all.subarray(3)), [{ _tag: "Message", text: '"héllo ✓"', bytes: 12 }])
  })

  it("reports an oversize line once, with its size, and keeps no more than the limit", () => {
    const framer = new LineFramer(10)
    assert.deepStrictEqual(framer.push(bytes("123456")), [])
    assert.deepStrictEqual(framer.push(bytes("7890123")), [])
    assert.deepStrictEqual(framer.push(bytes("45\nok\n")), [
      { _tag: "Oversize", bytes: 15, limit: 10, head: "1234567890123", tail: "123456789012345" },
      { _tag: "Message", text: "ok", bytes: 2 }
    ])
  })

  it("reports a line that is not valid UTF-8", () => {
    const framer = new LineFramer(100)
    assert.deepStrictEqual(framer.push(new Uint8Array([0x22, 0xff, 0xfe, 0x22, 0x0a])), [
      { _tag: "InvalidText", bytes: 4 }
    ])
  })

  it("keeps the tail independent of a reused input buffer", () => {
    const framer = new LineFramer(100)
    const buffer = bytes("abc")
    framer.push(buffer)
    buffer.set(bytes("xyz"))
    assert.deepStrictEqual(framer.push(bytes("\n")), [{ _tag: "Message", text: "abc", bytes: 3 }])
  })
})

describe("JSON-RPC codec", () => {
  it("parses JSON or returns the not-JSON sentinel", () => {
    assert.deepStrictEqual(parseJson('{"a":1}'), { a: 1 })
    assert.isTrue(isNotJson(parseJson("{nope")))
  })

  it("classifies requests, notifications and responses", () => {
    assert.deepStrictEqual(classify({ jsonrpc: "2.0", id: 1, method: "ping" }), {
      _tag: "Request",
      id: 1,
      method: "ping",
      params: undefined
    })
    assert.strictEqual(classify({ jsonrpc: "2.0", method: "notifications/initialized" })._tag, "Notification")
    assert.strictEqual(classify({ jsonrpc: "2.0", id: 1, result: {} })._tag, "Response")
    assert.strictEqual(classify({ jsonrpc: "2.0", id: null, error: { code: 1, message: "x" } })._tag, "Response")
  })

  it("rejects malformed envelopes with a reason and the best id it can keep", () => {
    const cases: Array<[unknown, string | number | null, string]> = [
      [42, null, "expected a JSON-RPC 2.0 object, got number"],
      [null, null, "got null"],
      [{ jsonrpc: "1.0", id: 3, method: "ping" }, 3, '"jsonrpc" must be "2.0"'],
      [{ jsonrpc: "2.0", id: null, method: "ping" }, null, '"id" must be a string or an integer, got null'],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, null, "got number 1.5"],
      [{ jsonrpc: "2.0", id: {}, method: "ping" }, null, "got object"],
      [{ jsonrpc: "2.0", id: true, method: "ping" }, null, "got boolean"],
      [{ jsonrpc: "2.0", id: 4, method: 7 }, 4, "method"],
      [{ jsonrpc: "2.0", id: 5, method: "x", params: [1] }, 5, "params"],
      [{ jsonrpc: "2.0", id: 6 }, null, 'needs a "method"'],
      [{ jsonrpc: "2.0", id: 2 ** 53, method: "ping" }, null, "got number"]
    ]
    for (const [input, id, fragment] of cases) {
      const result = classify(input)
      assert.strictEqual(result._tag, "Invalid", JSON.stringify(input))
      if (result._tag === "Invalid") {
        assert.strictEqual(result.id, id, JSON.stringify(input))
        assert.include(result.message, fragment, JSON.stringify(input))
      }
    }
  })

  it("never answers a response, even a malformed one: its id is in the server's id space", () => {
    assert.deepStrictEqual(classify({ jsonrpc: "1.0", id: 7, result: {} }), {
      _tag: "Response",
      id: 7,
      malformed: true
    })
    assert.deepStrictEqual(classify({ jsonrpc: "2.0", id: 8, error: "bad" }), {
      _tag: "Response",
      id: 8,
      malformed: true
    })
    assert.deepStrictEqual(classify({ jsonrpc: "2.0", id: 9, result: {} }), {
      _tag: "Response",
      id: 9,
      malformed: false,
      response: { jsonrpc: "2.0", id: 9, result: {} }
    })
  })

  it("recovers the top-level id of an oversize message from its edges, or gives up", () => {
    assert.strictEqual(idFromEdges('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":"', ""), 5)
    assert.strictEqual(idFromEdges('{"method":"tools/call","params":{', 'x"}},"jsonrpc":"2.0","id":"abc-1"}'), "abc-1")
    assert.strictEqual(idFromEdges('{"id":"q\\"uote","jsonrpc":"2.0"', ""), 'q"uote')
    assert.isUndefined(idFromEdges('{"params":{"id":3,', 'x":{"id":5}}}'))
    assert.isUndefined(idFromEdges('{"method":"a","id":99999999999999999999,', ""))
    assert.isUndefined(idFromEdges("garbage", "garbage"))
  })

  it("serializes responses, splicing raw JSON", () => {
    assert.strictEqual(successLine("a", { x: 1 }), '{"jsonrpc":"2.0","id":"a","result":{"x":1}}')
    assert.strictEqual(successLine(2, new RawJson('{"tools":[]}')), '{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}')
    assert.deepStrictEqual(JSON.parse(errorLine(null, new McpError.ParseError({ message: "bad" }))), {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "bad" }
    })
  })

  it("maps every protocol error to its JSON-RPC code", () => {
    assert.strictEqual(McpError.toJsonRpcError(new McpError.InvalidRequest({ message: "x" })).code, -32600)
    assert.strictEqual(McpError.toJsonRpcError(new McpError.MethodNotFound({ method: "x" })).code, -32601)
    assert.strictEqual(McpError.toJsonRpcError(new McpError.InvalidParams({ message: "x" })).code, -32602)
    const internal = McpError.toJsonRpcError(new McpError.InternalError({ correlationId: "abc-1" }))
    assert.strictEqual(internal.code, -32603)
    assert.deepStrictEqual(internal.data, { correlationId: "abc-1" })
  })
})

describe("ProtocolVersion", () => {
  it("negotiates and gates features by revision", () => {
    assert.strictEqual(ProtocolVersion.negotiate("2024-11-05"), "2024-11-05")
    assert.strictEqual(ProtocolVersion.negotiate("2026-07-28"), "2025-11-25")
    assert.isTrue(ProtocolVersion.acceptsBatches("2025-03-26"))
    assert.isFalse(ProtocolVersion.acceptsBatches("2025-06-18"))
    assert.isFalse(ProtocolVersion.acceptsBatches("2024-11-05"))
    assert.isTrue(ProtocolVersion.hasStructuredContent("2025-11-25"))
    assert.isFalse(ProtocolVersion.hasStructuredContent("2025-03-26"))
  })
})
