/**
 * The routing headers of Streamable HTTP under 2026-07-28 (SEP-2243):
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` are
 * checked against the body of a stateless request (−32020, HTTP 400), and
 * the `x-mcp-header` annotations that declare `Mcp-Param-*` are checked when
 * a tool is registered.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import { decodeValue, check } from "../src/internal/routingHeaders.ts"
import * as Kernel from "../src/Kernel.ts"
import type { JsonSchemaObject } from "../src/McpSchema.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as Tool from "../src/Tool.ts"
import { makeServer, meta, metaKey, type ModernServer } from "./support/modern.ts"

const b64 = (text: string): string => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`

// Exactly the lower-case names: a server that asks for "Mcp-Method" gets nothing.
const strictHeaders =
  (record: Record<string, string>) =>
  (name: string): string | undefined => {
    const lower = Object.fromEntries(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]))
    return Object.hasOwn(lower, name) ? lower[name] : undefined
  }

const Route = Tool.make("route", {
  description: "mirrors its arguments into headers",
  input: Schema.Struct({
    region: Schema.optionalKey(Schema.String.annotate({ "x-mcp-header": "Region" })),
    count: Schema.optionalKey(Schema.Int.annotate({ "x-mcp-header": "Count" })),
    dry: Schema.optionalKey(Schema.Boolean.annotate({ "x-mcp-header": "Dry-Run" })),
    target: Schema.optionalKey(
      Schema.Struct({ zone: Schema.optionalKey(Schema.String.annotate({ "x-mcp-header": "Zone" })) })
    ),
    query: Schema.optionalKey(Schema.String)
  })
}).pipe(Tool.handle((args) => Effect.succeed(JSON.stringify(args))))

const explicitSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    mode: { type: "string", "x-mcp-header": "Mode" },
    item: { $ref: "#/$defs/Item" }
  },
  $defs: { Item: { type: "object", properties: { id: { type: "string" } } } },
  if: { properties: { mode: { const: "strict" } } },
  then: { required: ["item"] }
}

const Explicit = Tool.make("explicit", {
  description: "publishes its own JSON Schema",
  input: Schema.Struct({
    mode: Schema.optionalKey(Schema.String),
    item: Schema.optionalKey(Schema.Struct({ id: Schema.String }))
  }),
  inputJsonSchema: explicitSchema
}).pipe(Tool.handle(() => Effect.succeed("explicit")))

const capability = Capability.make(
  { id: "h", description: "routing headers", version: "1.0.0" },
  Effect.succeed({
    tools: [
      Route,
      Explicit,
      Tool.make("echo", { description: "echo", input: Schema.Struct({ text: Schema.String }) }).pipe(
        Tool.handle(({ text }) => Effect.succeed(text))
      )
    ],
    prompts: [Prompt.make("greet", { description: "greets" }).pipe(Prompt.handle(() => Effect.succeed("hello")))],
    resources: [
      Resource.make("a", { uri: "mem://a", description: "a" }).pipe(Resource.handle(() => Effect.succeed("A"))),
      Resource.template("note", {
        uriTemplate: "mem://note/{id}",
        description: "a note",
        params: Schema.Struct({ id: Schema.String })
      }).pipe(Resource.handle(({ id }) => Effect.succeed(`note ${id}`)))
    ]
  })
)

const setup = makeServer(capability)

/** A request with headers: the standard ones derived from the body, then `headers` over them (`null` removes one). */
const send = (
  served: ModernServer,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | null> = {},
  options: { readonly name?: string | undefined } = {}
) => {
  const base: Record<string, string | null> = {
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": method,
    ...(options.name === undefined ? {} : { "Mcp-Name": options.name })
  }
  const merged = { ...base, ...headers }
  const record = Object.fromEntries(
    Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== null)
  )
  return served.request(
    method,
    { _meta: meta(), ...params },
    { origin: { send: () => Effect.void, headers: strictHeaders(record) } }
  )
}

const callRoute = (served: ModernServer, args: Record<string, unknown>, headers: Record<string, string | null> = {}) =>
  send(served, "tools/call", { name: "h_route", arguments: args }, headers, { name: "h_route" })

const assertMismatch = (
  answer: { readonly status: string; readonly response: any },
  header: string,
  label?: string
) => {
  assert.strictEqual(answer.status, "bad_request", label)
  assert.strictEqual(answer.response.error?.code, -32020, label)
  assert.strictEqual(answer.response.error.data?.header, header, label)
}

const assertServed = (answer: { readonly status: string; readonly response: any }, label?: string) => {
  assert.strictEqual(answer.status, "ok", label)
  assert.isDefined(answer.response.result, label)
}

describe("routing headers: standard headers", () => {
  it.effect("matching headers are served", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* send(served, "tools/list", {}))
      assertServed(yield* send(served, "server/discover", {}))
      assertServed(
        yield* send(served, "tools/call", { name: "h_echo", arguments: { text: "x" } }, {}, { name: "h_echo" })
      )
      assertServed(yield* send(served, "prompts/get", { name: "h_greet" }, {}, { name: "h_greet" }))
      assertServed(yield* send(served, "resources/read", { uri: "mem://a" }, {}, { name: "mem://a" }))
    })
  )

  it.effect("MCP-Protocol-Version missing or not the body's: -32020", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertMismatch(yield* send(served, "tools/list", {}, { "MCP-Protocol-Version": null }), "MCP-Protocol-Version")
      assertMismatch(
        yield* send(served, "tools/list", {}, { "MCP-Protocol-Version": "2025-11-25" }),
        "MCP-Protocol-Version"
      )
      assertMismatch(
        yield* send(served, "tools/list", {}, { "MCP-Protocol-Version": " 2026-07-28" }),
        "MCP-Protocol-Version"
      )
    })
  )

  it.effect("Mcp-Method missing or not the body's (values are case-sensitive): -32020", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertMismatch(yield* send(served, "tools/list", {}, { "Mcp-Method": null }), "Mcp-Method")
      assertMismatch(yield* send(served, "tools/list", {}, { "Mcp-Method": "TOOLS/LIST" }), "Mcp-Method")
      assertMismatch(yield* send(served, "tools/list", {}, { "Mcp-Method": "prompts/list" }), "Mcp-Method")
    })
  )

  it.effect("header names are read case-insensitively (the server asks by lower-case name)", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const answer = yield* served.request(
        "tools/list",
        { _meta: meta() },
        {
          origin: {
            send: () => Effect.void,
            headers: strictHeaders({ "mCp-PrOtOcOl-VeRsIoN": "2026-07-28", "MCP-METHOD": "tools/list" })
          }
        }
      )
      assertServed(answer)
    })
  )

  const named: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ["tools/call", { name: "h_echo", arguments: { text: "x" } }, "h_echo"],
    ["prompts/get", { name: "h_greet" }, "h_greet"],
    ["resources/read", { uri: "mem://a" }, "mem://a"]
  ]
  for (const [method, params, name] of named) {
    it.effect(`${method}: Mcp-Name missing, mismatched, malformed: -32020; plain or Base64: served`, () =>
      Effect.gen(function* () {
        const served = yield* setup
        assertMismatch(yield* send(served, method, params), "Mcp-Name", "missing")
        assertMismatch(yield* send(served, method, params, {}, { name: `${name}x` }), "Mcp-Name", "other")
        assertMismatch(yield* send(served, method, params, {}, { name: name.toUpperCase() }), "Mcp-Name", "case")
        assertMismatch(yield* send(served, method, params, {}, { name: b64(`${name}x`) }), "Mcp-Name", "b64 other")
        assertMismatch(
          yield* send(served, method, params, {}, { name: "=?base64?SGVsbG8?=" }),
          "Mcp-Name",
          "no padding"
        )
        assertMismatch(
          yield* send(served, method, params, {}, { name: "=?base64?SGVs!!!bG8=?=" }),
          "Mcp-Name",
          "bad alphabet"
        )
        assertMismatch(yield* send(served, method, params, {}, { name: "=?base64?//4=?=" }), "Mcp-Name", "not UTF-8")
        assertServed(yield* send(served, method, params, {}, { name }), "plain")
        assertServed(yield* send(served, method, params, {}, { name: b64(name) }), "base64")
      })
    )
  }

  it.effect("resources/read of a URI outside plain ASCII: Mcp-Name in Base64", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const uri = "mem://note/café au lait"
      const encoded = yield* send(served, "resources/read", { uri }, {}, { name: b64(uri) })
      assertServed(encoded)
      assert.strictEqual(encoded.response.result.contents[0].text, "note café au lait")
      assertMismatch(yield* send(served, "resources/read", { uri }, {}, { name: uri }), "Mcp-Name", "raw")
    })
  )

  it.effect("methods without a name need no Mcp-Name; an extra one is not checked", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* send(served, "tools/list", {}, { "Mcp-Name": "whatever" }))
    })
  )
})

describe("routing headers: Mcp-Param-*", () => {
  it.effect("a string argument: the header must say exactly the same", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, { region: "us-west1" }, { "Mcp-Param-Region": "us-west1" }))
      assertServed(yield* callRoute(served, { region: "us-west1" }, { "mcp-param-region": "us-west1" }))
      assertMismatch(
        yield* callRoute(served, { region: "us-west1" }, { "Mcp-Param-Region": "US-WEST1" }),
        "Mcp-Param-Region"
      )
      assertMismatch(
        yield* callRoute(served, { region: "us-west1" }, { "Mcp-Param-Region": "us-east1" }),
        "Mcp-Param-Region"
      )
      assertServed(
        yield* callRoute(served, { region: "Hello, 世界" }, { "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=" })
      )
      assertServed(yield* callRoute(served, { region: " padded " }, { "Mcp-Param-Region": "=?base64?IHBhZGRlZCA=?=" }))
      assertMismatch(
        yield* callRoute(served, { region: "Hello, 世界" }, { "Mcp-Param-Region": "Hello, 世界" }),
        "Mcp-Param-Region",
        "raw non-ASCII"
      )
      assertMismatch(
        yield* callRoute(served, { region: "us-west1" }, { "Mcp-Param-Region": "=?base64?dXMtd2VzdDE?=" }),
        "Mcp-Param-Region",
        "Base64 without its padding"
      )
      // The sentinel itself, sent in Base64 as the spec asks.
      assertServed(
        yield* callRoute(
          served,
          { region: "=?base64?literal?=" },
          { "Mcp-Param-Region": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=" }
        )
      )
    })
  )

  it.effect("a literal value that merely starts with =?base64? is read as it is", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, { region: "=?base64?abc" }, { "Mcp-Param-Region": "=?base64?abc" }))
      assertServed(yield* callRoute(served, { region: "=?base64?" }, { "Mcp-Param-Region": "=?base64?" }))
    })
  )

  it.effect("an integer argument is compared numerically", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, { count: 42 }, { "Mcp-Param-Count": "42" }))
      assertServed(yield* callRoute(served, { count: 42 }, { "Mcp-Param-Count": "42.0" }))
      assertServed(yield* callRoute(served, { count: -7 }, { "Mcp-Param-Count": "-7" }))
      assertServed(yield* callRoute(served, { count: 0 }, { "Mcp-Param-Count": "0" }))
      for (const wrong of ["43", "42.5", "forty-two", "", "4 2"]) {
        assertMismatch(yield* callRoute(served, { count: 42 }, { "Mcp-Param-Count": wrong }), "Mcp-Param-Count", wrong)
      }
    })
  )

  it.effect("a boolean argument: lowercase true or false", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, { dry: true }, { "Mcp-Param-Dry-Run": "true" }))
      assertServed(yield* callRoute(served, { dry: false }, { "Mcp-Param-Dry-Run": "false" }))
      for (const wrong of ["false", "True", "1", "yes"]) {
        assertMismatch(
          yield* callRoute(served, { dry: true }, { "Mcp-Param-Dry-Run": wrong }),
          "Mcp-Param-Dry-Run",
          wrong
        )
      }
    })
  )

  it.effect("a present argument without its header: -32020", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertMismatch(yield* callRoute(served, { region: "us-west1" }), "Mcp-Param-Region")
      assertMismatch(yield* callRoute(served, { count: 1 }), "Mcp-Param-Count")
      assertMismatch(yield* callRoute(served, { dry: false }), "Mcp-Param-Dry-Run")
      assertMismatch(yield* callRoute(served, { target: { zone: "b" } }), "Mcp-Param-Zone")
    })
  )

  it.effect("an absent or null argument: no header expected", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, {}))
      assertServed(yield* callRoute(served, { query: "select 1" }))
      assertServed(yield* callRoute(served, { target: {} }))
      // null is not a valid argument here: the call is refused by its Schema, not by the headers.
      const nulled = yield* callRoute(served, { region: null })
      assertServed(nulled)
      assert.isTrue(nulled.response.result.isError)
      const callWithoutArguments = yield* send(served, "tools/call", { name: "h_route" }, {}, { name: "h_route" })
      assertServed(callWithoutArguments)
    })
  )

  it.effect("a nested property reached through properties", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* callRoute(served, { target: { zone: "eu-1" } }, { "Mcp-Param-Zone": "eu-1" }))
      assertMismatch(
        yield* callRoute(served, { target: { zone: "eu-1" } }, { "Mcp-Param-Zone": "eu-2" }),
        "Mcp-Param-Zone"
      )
    })
  )

  it.effect("all headers of a call at once; the one that is wrong is named", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const args = { region: "r", count: 3, dry: true, target: { zone: "z" } }
      const headers = {
        "Mcp-Param-Region": "r",
        "Mcp-Param-Count": "3",
        "Mcp-Param-Dry-Run": "true",
        "Mcp-Param-Zone": "z"
      }
      const answer = yield* callRoute(served, args, headers)
      assertServed(answer)
      assert.deepStrictEqual(JSON.parse(answer.response.result.content[0].text), args)
      assertMismatch(yield* callRoute(served, args, { ...headers, "Mcp-Param-Zone": "y" }), "Mcp-Param-Zone")
    })
  )

  it.effect("a hand-written inputJsonSchema's x-mcp-header is enforced too", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const call = (args: Record<string, unknown>, headers: Record<string, string | null> = {}) =>
        send(served, "tools/call", { name: "h_explicit", arguments: args }, headers, { name: "h_explicit" })
      assertServed(yield* call({ mode: "loose" }, { "Mcp-Param-Mode": "loose" }))
      assertMismatch(yield* call({ mode: "loose" }), "Mcp-Param-Mode")
    })
  )

  it.effect("tools/call of a tool that does not exist: no Mcp-Param-* to check", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const answer = yield* send(
        served,
        "tools/call",
        { name: "h_nope", arguments: { region: "x" } },
        {},
        { name: "h_nope" }
      )
      assert.notStrictEqual(answer.response.error?.code, -32020)
    })
  )
})

describe("routing headers: order of the checks", () => {
  it.effect("bad _meta and bad headers: -32602", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const answer = yield* served.request(
        "tools/list",
        { _meta: { [metaKey.protocolVersion]: "2026-07-28" } },
        { origin: { send: () => Effect.void, headers: strictHeaders({ "Mcp-Method": "prompts/list" }) } }
      )
      assert.strictEqual(answer.status, "bad_request")
      assert.strictEqual(answer.response.error.code, -32602)
    })
  )

  it.effect("bad headers and an unsupported version: -32020; matching headers: -32022", () =>
    Effect.gen(function* () {
      const served = yield* setup
      const old = { [metaKey.protocolVersion]: "1999-01-01" }
      const headers = (record: Record<string, string>) => ({ send: () => Effect.void, headers: strictHeaders(record) })
      const mismatched = yield* served.request(
        "tools/list",
        { _meta: meta(old) },
        { origin: headers({ "MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/call" }) }
      )
      assertMismatch(mismatched, "Mcp-Method")
      const wrongVersionHeader = yield* served.request(
        "tools/list",
        { _meta: meta(old) },
        { origin: headers({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" }) }
      )
      assertMismatch(wrongVersionHeader, "MCP-Protocol-Version")
      const matching = yield* served.request(
        "tools/list",
        { _meta: meta(old) },
        { origin: headers({ "MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list" }) }
      )
      assert.strictEqual(matching.status, "bad_request")
      assert.strictEqual(matching.response.error.code, -32022)
    })
  )

  it.effect("bad headers and an unknown method: -32020; matching headers: -32601", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertMismatch(yield* send(served, "no/such", {}, { "Mcp-Method": "tools/list" }), "Mcp-Method")
      const unknown = yield* send(served, "no/such", {})
      assert.strictEqual(unknown.status, "not_found")
      assert.strictEqual(unknown.response.error.code, -32601)
    })
  )

  it.effect("without a headers function (stdio, memory), nothing is checked", () =>
    Effect.gen(function* () {
      const served = yield* setup
      assertServed(yield* served.request("tools/call", { _meta: meta(), name: "h_route", arguments: { region: "x" } }))
    })
  )
})

describe("routing headers: decodeValue and check", () => {
  it("decodes strict Base64 of UTF-8, and reads plain values as they are", () => {
    assert.deepStrictEqual(decodeValue("us-west1"), { _tag: "Value", value: "us-west1" })
    assert.deepStrictEqual(decodeValue("=?base64?SGVsbG8=?="), { _tag: "Value", value: "Hello" })
    assert.deepStrictEqual(decodeValue("=?base64?SGVsbG8sIOS4lueVjA==?="), { _tag: "Value", value: "Hello, 世界" })
    assert.deepStrictEqual(decodeValue("=?base64??="), { _tag: "Value", value: "" })
    assert.deepStrictEqual(decodeValue("a b"), { _tag: "Value", value: "a b" })
    assert.deepStrictEqual(decodeValue("=?base64?abc"), { _tag: "Value", value: "=?base64?abc" })
    assert.deepStrictEqual(decodeValue("x=?base64?SGVsbG8=?="), { _tag: "Value", value: "x=?base64?SGVsbG8=?=" })
    for (const invalid of [
      "=?base64?SGVsbG8?=",
      "=?base64?SGVs!!!bG8=?=",
      "=?base64?SGVsbG8==?=",
      "=?base64?SGV sbG8=?=",
      "=?base64?//4=?=",
      "=?base64?wA==?=",
      "café",
      " leading",
      "trailing ",
      "line\nbreak",
      "nul\u0000"
    ]) {
      assert.strictEqual(decodeValue(invalid)._tag, "Invalid", JSON.stringify(invalid))
    }
  })

  it("the sentinel markers are case-sensitive: an upper-case one is a plain value", () => {
    assert.deepStrictEqual(decodeValue("=?BASE64?SGVsbG8=?="), { _tag: "Value", value: "=?BASE64?SGVsbG8=?=" })
  })

  it("check: the first mismatch, or undefined", () => {
    const base = {
      method: "tools/call",
      protocolVersion: "2026-07-28",
      routingName: "t",
      params: [{ path: ["a", "b"], name: "B", type: "integer" as const }],
      args: { a: { b: 5 } }
    }
    const headers = strictHeaders({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "t",
      "Mcp-Param-B": "5.00"
    })
    assert.isUndefined(check({ ...base, headers }))
    assert.strictEqual(check({ ...base, headers, args: { a: { b: 6 } } })?.code, -32020)
    assert.isUndefined(check({ ...base, headers, args: { a: { b: null } } }))
    assert.isUndefined(check({ ...base, headers, args: { a: [5] } }))
    assert.isUndefined(check({ ...base, headers, args: undefined }))
    const missing = check({ ...base, headers: strictHeaders({ "MCP-Protocol-Version": "2026-07-28" }) })
    assert.deepStrictEqual(missing?.data, { header: "Mcp-Method" })
  })
})

describe("x-mcp-header at registration", () => {
  const register = (tool: Tool.Handled<never>) =>
    Effect.flip(
      Layer.build(
        Capability.make({ id: "r", description: "", version: "1" }, Effect.succeed({ tools: [tool] })).pipe(
          Layer.provide(Kernel.layer())
        )
      )
    )
  const toolWith = (input: Tool.ObjectSchema) =>
    Tool.make("t", { description: "", input }).pipe(Tool.handle(() => Effect.succeed("")))

  const invalid: ReadonlyArray<readonly [string, Tool.ObjectSchema]> = [
    ["on a Number field", Schema.Struct({ n: Schema.Number.annotate({ "x-mcp-header": "N" }) })],
    ["on a Finite field", Schema.Struct({ n: Schema.Finite.annotate({ "x-mcp-header": "N" }) })],
    ["on an object field", Schema.Struct({ o: Schema.Struct({}).annotate({ "x-mcp-header": "O" }) })],
    ["inside an array item", Schema.Struct({ list: Schema.Array(Schema.String.annotate({ "x-mcp-header": "Item" })) })],
    [
      "inside a union",
      Schema.Struct({ u: Schema.Union([Schema.String.annotate({ "x-mcp-header": "U" }), Schema.Boolean]) })
    ],
    [
      "duplicated case-insensitively",
      Schema.Struct({
        a: Schema.String.annotate({ "x-mcp-header": "Region" }),
        b: Schema.String.annotate({ "x-mcp-header": "REGION" })
      })
    ],
    ["not a token (a space)", Schema.Struct({ a: Schema.String.annotate({ "x-mcp-header": "Bad Header" }) })],
    ["not a token (a colon)", Schema.Struct({ a: Schema.String.annotate({ "x-mcp-header": "a:b" }) })],
    ["not a token (non-ASCII)", Schema.Struct({ a: Schema.String.annotate({ "x-mcp-header": "Régión" }) })],
    ["empty", Schema.Struct({ a: Schema.String.annotate({ "x-mcp-header": "" }) })],
    ["not a string", Schema.Struct({ a: Schema.String.annotate({ "x-mcp-header": 1 } as any) })]
  ]
  for (const [name, input] of invalid) {
    it.effect(`x-mcp-header ${name}: InvalidToolSchema`, () =>
      Effect.gen(function* () {
        const error = yield* register(toolWith(input))
        assert.instanceOf(error, Kernel.InvalidToolSchema)
        assert.strictEqual((error as Kernel.InvalidToolSchema).toolName, "r_t")
      })
    )
  }

  it.effect("x-mcp-header on string, integer and boolean fields, nested through properties, is accepted", () =>
    Effect.gen(function* () {
      const served = yield* makeServer(
        Capability.make({ id: "r", description: "", version: "1" }, Effect.succeed({ tools: [Route] }))
      )
      const tool = served.kernel.tool("r_route")
      assert.deepStrictEqual(tool?.headerParams, [
        { path: ["region"], name: "Region", type: "string" },
        { path: ["count"], name: "Count", type: "integer" },
        { path: ["dry"], name: "Dry-Run", type: "boolean" },
        { path: ["target", "zone"], name: "Zone", type: "string" }
      ])
      const list = yield* served.request("tools/list", { _meta: meta() })
      const schema = list.response.result.tools[0].inputSchema
      assert.strictEqual(schema.properties.region["x-mcp-header"], "Region")
      assert.strictEqual(schema.properties.count["x-mcp-header"], "Count")
      assert.strictEqual(schema.properties.dry["x-mcp-header"], "Dry-Run")
      assert.strictEqual(schema.properties.target.properties.zone["x-mcp-header"], "Zone")
      assert.notInclude(JSON.stringify(schema.properties.count.allOf ?? []), "x-mcp-header")
    })
  )

  const invalidJson: ReadonlyArray<readonly [string, unknown]> = [
    ["without a type", { properties: {} }],
    ["of type array", { type: "array", items: {} }],
    ["of type [object, null]", { type: ["object", "null"] }],
    ["with x-mcp-header on a number", { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } }],
    [
      "with x-mcp-header inside $defs",
      {
        type: "object",
        properties: { i: { $ref: "#/$defs/I" } },
        $defs: { I: { type: "string", "x-mcp-header": "I" } }
      }
    ],
    [
      "with x-mcp-header inside anyOf",
      { type: "object", properties: { u: { anyOf: [{ type: "string", "x-mcp-header": "U" }, { type: "null" }] } } }
    ],
    [
      "with x-mcp-header inside items",
      { type: "object", properties: { l: { type: "array", items: { type: "string", "x-mcp-header": "L" } } } }
    ],
    [
      "with x-mcp-header under then",
      {
        type: "object",
        properties: { a: { type: "string" } },
        then: { properties: { a: { type: "string", "x-mcp-header": "A" } } }
      }
    ],
    [
      "with x-mcp-header duplicated",
      {
        type: "object",
        properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "boolean", "x-mcp-header": "x" } }
      }
    ]
  ]
  for (const [name, schema] of invalidJson) {
    it.effect(`inputJsonSchema ${name}: InvalidToolSchema`, () =>
      Effect.gen(function* () {
        const tool = Tool.make("t", { description: "", inputJsonSchema: schema as JsonSchemaObject }).pipe(
          Tool.handle(() => Effect.succeed(""))
        )
        const error = yield* register(tool)
        assert.instanceOf(error, Kernel.InvalidToolSchema)
      })
    )
  }

  it.effect("a valid inputJsonSchema is published as given, with $schema added when it has $defs and none", () =>
    Effect.gen(function* () {
      const plain: JsonSchemaObject = {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "integer", minimum: 1 } },
        required: ["a"],
        dependentRequired: { b: ["a"] },
        additionalProperties: false
      }
      const withOwnDialect: JsonSchemaObject = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { x: { $ref: "#/$defs/X" } },
        $defs: { X: { type: "string" } }
      }
      const tools = [
        Tool.make("plain", { description: "", inputJsonSchema: plain }),
        Tool.make("defs", { description: "", inputJsonSchema: explicitSchema }),
        Tool.make("own", { description: "", inputJsonSchema: withOwnDialect })
      ].map((tool) => tool.pipe(Tool.handle(() => Effect.succeed(""))))
      const served = yield* makeServer(
        Capability.make({ id: "j", description: "", version: "1" }, Effect.succeed({ tools }))
      )
      const list = yield* served.request("tools/list", { _meta: meta() })
      const byName = Object.fromEntries(list.response.result.tools.map((tool: any) => [tool.name, tool.inputSchema]))
      assert.deepStrictEqual(byName.j_plain, plain)
      assert.deepStrictEqual(byName.j_defs, {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        ...explicitSchema
      })
      assert.deepStrictEqual(byName.j_own, withOwnDialect)
      // The given object is not changed by publishing it.
      assert.isUndefined((explicitSchema as Record<string, unknown>).$schema)
    })
  )
})
