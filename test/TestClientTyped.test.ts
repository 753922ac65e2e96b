/**
 * The typed view of the test client (`TestClient.forCapability`): real calls
 * through the memory transport against a small capability, typed by the
 * tools' Schemas. The `@ts-expect-error` lines are the compile-time half:
 * `npm run typecheck` covers this file, so a line that stopped being an
 * error fails it.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import * as Progress from "../src/Progress.ts"
import { RpcError, TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

// -- the capability under test: declarations kept apart from their handlers ----

const greetTool = Tool.make("greet", {
  description: "Greets someone by name.",
  input: Schema.Struct({ name: Schema.String }),
  output: Schema.Struct({ greeting: Schema.String })
})

const pingTool = Tool.make("ping", { description: "Answers pong." })

// The wire form differs from the handler's: numbers travel as strings.
const doubleTool = Tool.make("double", {
  description: "Doubles a number.",
  input: Schema.Struct({ n: Schema.NumberFromString }),
  output: Schema.Struct({ doubled: Schema.NumberFromString })
})

const searchTool = Tool.make("search", {
  description: "Searches, with an optional query; reports progress.",
  input: Schema.Struct({ query: Schema.optionalKey(Schema.String) }),
  output: Schema.Struct({ hits: Schema.Array(Schema.String) })
})

const greet = greetTool.pipe(
  Tool.handle(({ name }) =>
    name === ""
      ? Effect.fail(new Tool.ToolError({ message: "No name given.", code: "empty_name" }))
      : Effect.succeed({ greeting: `Hello, ${name}!` })
  )
)
const ping = pingTool.pipe(Tool.handle(() => Effect.succeed("pong")))
const double = doubleTool.pipe(Tool.handle(({ n }) => Effect.succeed({ doubled: n * 2 })))
const search = searchTool.pipe(
  Tool.handle(({ query }) =>
    Effect.as(Progress.report({ progress: 1, total: 1, message: "searched" }), {
      hits: query === undefined ? ["all"] : [query]
    })
  )
)

const info = { id: "hello", description: "Greetings", version: "1.0.0" } as const

const Greeter = Capability.make(info, Effect.succeed({ tools: [greet, ping, double, search] }))

const tools = [greetTool, pingTool, doubleTool, searchTool] as const

// A tool of another capability: not part of the view.
const otherTool = Tool.make("other", { description: "Elsewhere." })

describe("TestClient.forCapability", () => {
  it.effect("calls by tool value and by public name, with results typed by the output Schema", () =>
    Effect.gen(function* () {
      const hello = TestClient.forCapability(yield* TestClient.make(Greeter), "hello", tools)
      const byValue = yield* hello.callToolStructured(greetTool, { name: "Ada" })
      const greeting: string = byValue.greeting
      assert.strictEqual(greeting, "Hello, Ada!")
      const byName = yield* hello.callToolStructured("hello_greet", { name: "Ada" })
      assert.deepStrictEqual(byName, { greeting: "Hello, Ada!" })

      const result = yield* hello.callTool(greetTool, { name: "Grace" })
      assert.deepStrictEqual(result.structuredContent, { greeting: "Hello, Grace!" })
      assert.strictEqual(TestClient.errorCode(result), undefined)
    }).pipe(Effect.scoped)
  )

  it.effect("names the tools as the kernel publishes them", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const hello = TestClient.forCapability(client, "hello", tools)
      const name: "hello_greet" = hello.name(greetTool)
      assert.strictEqual(name, "hello_greet")
      // A handled tool stands for its declaration.
      const handled = { tool: doubleTool }
      const viaHandled = TestClient.forCapability(client, "hello", [handled])
      const doubleName: "hello_double" = viaHandled.name(handled)
      assert.strictEqual(doubleName, "hello_double")
      assert.deepStrictEqual(yield* viaHandled.callToolStructured(handled, { n: "2" }), { doubled: "4" })
      assert.strictEqual(hello.capabilityId, "hello")
      assert.deepStrictEqual(
        (yield* client.listTools).map((tool) => tool.name),
        [...hello.names]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("sends and receives the Schemas' encoded side", () =>
    Effect.gen(function* () {
      const hello = TestClient.forCapability(yield* TestClient.make(Greeter), "hello", tools)
      const out = yield* hello.callToolStructured(doubleTool, { n: "21" })
      const doubled: string = out.doubled
      assert.strictEqual(doubled, "42")
    }).pipe(Effect.scoped)
  )

  it.effect("leaves out the arguments of a tool with no required input, and passes the options on", () =>
    Effect.gen(function* () {
      const hello = TestClient.forCapability(yield* TestClient.make(Greeter), "hello", tools)
      const pong = yield* hello.callTool(pingTool)
      assert.strictEqual(TestClient.text(pong), "pong")
      // Its result has no structured content: callToolStructured says so.
      const noStructured = yield* Effect.flip(hello.callToolStructured("hello_ping"))
      assert.instanceOf(noStructured, TestClient.UnexpectedResult)

      assert.deepStrictEqual(yield* hello.callToolStructured(searchTool), { hits: ["all"] })
      const messages: Array<string | undefined> = []
      const found = yield* hello.callToolStructured(
        "hello_search",
        { query: "effect" },
        { onProgress: (report) => Effect.sync(() => messages.push(report.message)) }
      )
      assert.deepStrictEqual(found.hits, ["effect"])
      assert.deepStrictEqual(messages, ["searched"])
    }).pipe(Effect.scoped, Effect.provide(Policy.layer({ progressInterval: 0 })))
  )

  it.effect("expects a tool's error code with typed arguments", () =>
    Effect.gen(function* () {
      const hello = TestClient.forCapability(yield* TestClient.make(Greeter), "hello", tools)
      const refused = yield* hello.expectToolError(greetTool, { name: "" }, "empty_name")
      assert.include(TestClient.text(refused), "No name given.")
      const unexpected = yield* Effect.flip(hello.expectToolError("hello_greet", { name: "Ada" }, "empty_name"))
      assert.instanceOf(unexpected, TestClient.UnexpectedResult)
      // Arguments wrong on purpose go through the untyped client.
      yield* hello.client.expectToolError("hello_greet", { name: 42 }, "invalid_arguments")
    }).pipe(Effect.scoped)
  )

  it.effect("takes the capability's info object with a literal id; a wrong id shows as an unknown tool", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const hello = TestClient.forCapability(client, info, tools)
      assert.deepStrictEqual(yield* hello.callToolStructured("hello_greet", { name: "Ada" }), {
        greeting: "Hello, Ada!"
      })
      const wrong = TestClient.forCapability(client, "hullo", tools)
      const error = yield* Effect.flip(wrong.callTool(greetTool, { name: "Ada" }))
      assert.instanceOf(error, RpcError)
      assert.include(error.message, "hullo_greet")
    }).pipe(Effect.scoped)
  )
})

// -- the example of docs/testing.md ("Typed calls"), verbatim apart from its imports and indentation --

describe("docs/testing.md: typed calls", () => {
  // The declarations, each in a constant of its own: they carry the names and Schemas.
  const greetTool = Tool.make("greet", {
    description: "Greets someone by name.",
    input: Schema.Struct({ name: Schema.String }),
    output: Schema.Struct({ greeting: Schema.String })
  })
  const pingTool = Tool.make("ping", { description: "Answers pong." })

  const Greeter = Capability.make(
    { id: "hello", description: "Greetings", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.handle(greetTool, ({ name }) => Effect.succeed({ greeting: `Hello, ${name}!` })),
        Tool.handle(pingTool, () => Effect.succeed("pong"))
      ]
    })
  )

  it.effect("greets, typed by the tools' Schemas", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const hello = TestClient.forCapability(client, "hello", [greetTool, pingTool])
      const out = yield* hello.callToolStructured(greetTool, { name: "Ada" }) // { readonly greeting: string }
      assert.strictEqual(out.greeting, "Hello, Ada!")
      const pong = yield* hello.callTool("hello_ping") // no required input: no arguments
      assert.strictEqual(TestClient.text(pong), "pong")
      // Each of these is a compile error:
      //   hello.callTool("hello_gret", { name: "Ada" })   no such tool
      //   hello.callTool(greetTool, { name: 42 })         name is a string
      //   hello.callTool(greetTool)                       name is required
      //   out.greeting.toFixed()                          greeting is a string
    }).pipe(Effect.scoped)
  )
  // -- end of the example

  it("is the page's example", () => {
    const page = readFileSync(new URL("../docs/testing.md", import.meta.url), "utf8")
    const section = page.slice(page.indexOf("### Typed calls"))
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    assert.isDefined(example, "docs/testing.md has a typed calls example")
    const self = readFileSync(new URL(import.meta.url), "utf8")
    const lines = (text: string) =>
      text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "")
    const start = self.indexOf("// The declarations, each")
    assert.deepStrictEqual(
      lines(self.slice(start, self.indexOf("// -- end of the example", start))),
      lines(example!.slice(example!.indexOf("// The declarations, each")))
    )
  })
})

// -- compile-time checks: every line below the marker must be a type error --------

// Never run: only type-checked.
export const compileErrors = (client: TestClient.TestClient) =>
  Effect.gen(function* () {
    const hello = TestClient.forCapability(client, "hello", tools)

    // A name the capability does not publish.
    // @ts-expect-error
    yield* hello.callTool("hello_gret", { name: "Ada" })
    // The bare name, without the capability prefix.
    // @ts-expect-error
    yield* hello.callTool("greet", { name: "Ada" })
    // Another capability's prefix.
    // @ts-expect-error
    yield* hello.callToolStructured("other_greet", { name: "Ada" })
    // A tool value that is not one of the view's.
    // @ts-expect-error
    yield* hello.callTool(otherTool)

    // An argument of the wrong type.
    // @ts-expect-error
    yield* hello.callTool(greetTool, { name: 42 })
    // A required argument missing, by value and by name.
    // @ts-expect-error
    yield* hello.callTool(greetTool)
    // @ts-expect-error
    yield* hello.callToolStructured("hello_greet", {})
    // An argument the input Schema does not have.
    // @ts-expect-error
    yield* hello.callTool("hello_greet", { name: "Ada", age: 3 })
    // The decoded side is not what a client sends: NumberFromString travels as a string.
    // @ts-expect-error
    yield* hello.callTool(doubleTool, { n: 21 })
    // expectToolError checks its arguments too.
    // @ts-expect-error
    yield* hello.expectToolError(greetTool, undefined, "empty_name")

    // Misusing the result type.
    const out = yield* hello.callToolStructured(greetTool, { name: "Ada" })
    // @ts-expect-error
    out.greeting.toFixed()
    // @ts-expect-error
    const missing = out.missing
    const doubled = yield* hello.callToolStructured("hello_double", { n: "21" })
    // @ts-expect-error
    const asNumber: number = doubled.doubled
    // A tool without an output Schema: its structured content is unknown.
    const pong = yield* hello.callToolStructured(pingTool)
    // @ts-expect-error
    const length = pong.length

    // Names are literal types.
    // @ts-expect-error
    const wrongName: "hello_ping" = hello.name(greetTool)
    // @ts-expect-error
    hello.name(otherTool)

    // A capability id that is not a literal type.
    const id: string = "hello"
    // @ts-expect-error
    TestClient.forCapability(client, id, tools)
    // A handled tool whose declaration's type was widened.
    const erased: Tool.Handled = greet
    // @ts-expect-error
    TestClient.forCapability(client, "hello", [erased])

    return [missing, asNumber, length, wrongName] as const
  })
