/**
 * The kernel's run-time replacement of a static capability's contents
 * (`replaceCapability`, what an upstream server's changed lists use),
 * `toolNames`, and `foreignNames`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Kernel from "../src/Kernel.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as Tool from "../src/Tool.ts"

const tool = (name: string, description = `the ${name} tool`) =>
  Tool.make(name, { description }).pipe(Tool.handle(() => Effect.succeed(name)))

const prompt = (name: string) =>
  Prompt.make(name, { description: `the ${name} prompt` }).pipe(Prompt.handle(() => Effect.succeed(name)))

const resource = (name: string, uri: string) =>
  Resource.make(name, { uri, description: name }).pipe(Resource.handle(() => Effect.succeed(`contents of ${uri}`)))

const template = (name: string, uriTemplate: string) =>
  Resource.template(name, { uriTemplate, description: name, params: Schema.Struct({ id: Schema.String }) }).pipe(
    Resource.handle(({ id }) => Effect.succeed(`item ${id}`))
  )

const info = (id: string, extra: Partial<Kernel.CapabilityInfo> = {}): Kernel.CapabilityInfo => ({
  id,
  description: id,
  version: "1.0.0",
  ...extra
})

const noContext = Context.empty() as Context.Context<any>

// A kernel, and the registry changes published from now on.
const setup = Effect.gen(function* () {
  const kernel = yield* Kernel.make({ aliases: { hello: "zed_greet" } })
  const changes = yield* PubSub.subscribe(kernel.changes)
  const drain = Effect.map(PubSub.takeAll(changes), (all) => [...new Set(all)].sort())
  const nothingPublished = Effect.map(PubSub.remaining(changes), (left) =>
    assert.strictEqual(left, 0, "no change published")
  )
  return { kernel, drain, nothingPublished }
})

const toolNamesOf = (page: string): Array<string> =>
  (JSON.parse(page) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)

describe("Kernel.toolNames", () => {
  it.effect("gives every public name in list order, aliases included", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerCapability(info("zed"), [tool("greet"), tool("wave")], noContext)
      yield* kernel.registerCapability(info("alpha"), [tool("b"), tool("a")], noContext)
      yield* kernel.registerDynamic(tool("late"))
      assert.deepStrictEqual(kernel.toolNames(), ["alpha_b", "alpha_a", "app_late", "hello", "zed_wave"])
      assert.deepStrictEqual(kernel.toolNames(), toolNamesOf(yield* kernel.toolsPage("2025-11-25", undefined)))
    }).pipe(Effect.scoped)
  )
})

describe("Kernel.replaceCapability", () => {
  it.effect("replaces a capability's tools in place, rebuilds the pages and publishes tools", () =>
    Effect.gen(function* () {
      const { drain, kernel } = yield* setup
      yield* kernel.registerCapability(info("alpha"), [tool("one")], noContext)
      yield* kernel.registerCapability(info("mid"), [tool("one"), tool("two")], noContext)
      yield* kernel.registerCapability(info("zulu"), [tool("one")], noContext)
      assert.deepStrictEqual(toolNamesOf(yield* kernel.toolsPage("2025-11-25", undefined)), [
        "alpha_one",
        "mid_one",
        "mid_two",
        "zulu_one"
      ])
      yield* drain
      const problems = yield* kernel.replaceCapability("mid", { tools: [tool("three"), tool("one")] }, noContext)
      assert.deepStrictEqual(problems, [])
      assert.deepStrictEqual(yield* drain, ["tools"])
      assert.deepStrictEqual(toolNamesOf(yield* kernel.toolsPage("2025-11-25", undefined)), [
        "alpha_one",
        "mid_three",
        "mid_one",
        "zulu_one"
      ])
      assert.isUndefined(kernel.tool("mid_two"))
      assert.deepStrictEqual(kernel.capabilities().find((c) => c.id === "mid")?.tools, ["mid_three", "mid_one"])
      assert.strictEqual(kernel.toolCount(), 4)
    }).pipe(Effect.scoped)
  )

  it.effect("publishes nothing when the lists are the same, and only the lists that changed", () =>
    Effect.gen(function* () {
      const { drain, kernel, nothingPublished } = yield* setup
      yield* kernel.registerCapability(
        info("up"),
        [tool("one")],
        noContext,
        [prompt("ask")],
        [resource("doc", "up://doc")]
      )
      yield* drain
      const again = { tools: [tool("one")], prompts: [prompt("ask")], resources: [resource("doc", "up://doc")] }
      assert.deepStrictEqual(yield* kernel.replaceCapability("up", again, noContext), [])
      yield* nothingPublished
      // A tool's description changed: only tools.
      yield* kernel.replaceCapability("up", { ...again, tools: [tool("one", "changed")] }, noContext)
      assert.deepStrictEqual(yield* drain, ["tools"])
      // Prompts and resources gone: those two.
      yield* kernel.replaceCapability("up", { tools: [tool("one", "changed")] }, noContext)
      assert.deepStrictEqual(yield* drain, ["prompts", "resources"])
      assert.isUndefined(kernel.prompt("up_ask"))
      assert.isUndefined(kernel.resolve("up://doc"))
      assert.strictEqual(kernel.promptCount(), 0)
      assert.strictEqual(kernel.resourceCount(), 0)
    }).pipe(Effect.scoped)
  )

  it.effect("skips what collides with another capability and returns it; publishes the rest", () =>
    Effect.gen(function* () {
      const { drain, kernel } = yield* setup
      // "a" publishes a_b_c; the upstream "a_b" would publish its tool "c" under the same name.
      yield* kernel.registerCapability(info("a"), [tool("b_c")], noContext, [], [resource("home", "home://index")])
      yield* kernel.registerCapability(info("a_b"), [], noContext)
      yield* drain
      const problems = yield* kernel.replaceCapability(
        "a_b",
        {
          tools: [tool("c"), tool("d")],
          resources: [resource("stolen", "home://other"), resource("own", "mine://x")]
        },
        noContext
      )
      assert.deepStrictEqual(
        problems.map((p) => p._tag),
        ["SchemeTaken", "DuplicateName"]
      )
      assert.include(problems[1]!.message, '"a" and "a_b" both resolve to the public name "a_b_c"')
      assert.deepStrictEqual(kernel.capabilities().find((c) => c.id === "a_b")?.tools, ["a_b_d"])
      assert.strictEqual(kernel.tool("a_b_c")?.capability, "a")
      assert.strictEqual(kernel.resolve("mine://x")?.resource.name, "a_b_own")
      assert.strictEqual(kernel.resolve("home://index")?.resource.name, "a_home")
      assert.deepStrictEqual(yield* drain, ["resources", "tools"])
    }).pipe(Effect.scoped)
  )

  it.effect("gives back the URI schemes its old resources used, keeps those it still uses", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerCapability(
        info("up"),
        [],
        noContext,
        [],
        [resource("doc", "old://doc"), template("item", "kept://items/{id}")]
      )
      yield* kernel.replaceCapability("up", { resources: [template("item", "kept://items/{id}")] }, noContext)
      // The freed scheme can be taken; the kept one cannot.
      yield* kernel.registerDynamicResource(resource("note", "old://note"))
      const taken = yield* Effect.flip(kernel.registerDynamicResource(resource("other", "kept://x")))
      assert.strictEqual(taken._tag, "SchemeTaken")
      const resolved = kernel.resolve("kept://items/42")
      assert.strictEqual(resolved?.resource.name, "up_item")
      assert.deepStrictEqual(resolved?.params, { id: "42" })
    }).pipe(Effect.scoped)
  )

  it.effect("checks each entry as a registration does, keeping the valid ones", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerCapability(info("up"), [tool("keep")], noContext)
      const problems = yield* kernel.replaceCapability(
        "up",
        { tools: [tool("bad name"), tool("keep"), tool("keep"), tool("up_prefixed")], prompts: [prompt("p")] },
        noContext
      )
      assert.deepStrictEqual(
        problems.map((p) => p._tag),
        ["InvalidName", "DuplicateName", "PrefixedName"]
      )
      assert.deepStrictEqual(kernel.capabilities()[0]?.tools, ["up_keep"])
      assert.deepStrictEqual(kernel.capabilities()[0]?.prompts, ["up_p"])
    }).pipe(Effect.scoped)
  )

  it.effect("a capability with foreignNames publishes names that start with its id", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerCapability(info("gh", { foreignNames: true }), [tool("gh_search")], noContext)
      assert.deepStrictEqual(kernel.toolNames(), ["gh_gh_search"])
      assert.deepStrictEqual(yield* kernel.replaceCapability("gh", { prompts: [prompt("gh_p")] }, noContext), [])
      assert.deepStrictEqual(kernel.capabilities()[0]?.prompts, ["gh_gh_p"])
      assert.deepStrictEqual(kernel.toolNames(), [])
    }).pipe(Effect.scoped)
  )

  it.effect("new tools run with the capability's limits and the given context", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerCapability(info("up", { timeout: "1 second" }), [], noContext)
      yield* kernel.replaceCapability("up", { tools: [tool("late")] }, noContext)
      assert.strictEqual(kernel.tool("up_late")?.target.capabilityOwn?.timeout, "1 second")
    }).pipe(Effect.scoped)
  )

  it.effect("fails with UnknownCapability for an id no static registration used", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      yield* kernel.registerDynamic(tool("x"))
      const unknown = yield* Effect.flip(kernel.replaceCapability("nope", { tools: [tool("x")] }, noContext))
      assert.strictEqual(unknown._tag, "UnknownCapability")
      const dynamic = yield* Effect.flip(kernel.replaceCapability("app", {}, noContext))
      assert.strictEqual(dynamic._tag, "UnknownCapability")
      assert.deepStrictEqual(kernel.toolNames(), ["app_x"])
    }).pipe(Effect.scoped)
  )
})

describe("Tool.outputJsonSchema", () => {
  it.effect("publishes the given outputSchema and passes whole results through", () =>
    Effect.gen(function* () {
      const { kernel } = yield* setup
      const weather = Tool.make("weather", {
        description: "Whole results with their structured content",
        outputJsonSchema: { type: "object", properties: { temperature: { type: "number" } } }
      }).pipe(
        Tool.handle(() =>
          Effect.succeed({ content: [{ type: "text" as const, text: "21" }], structuredContent: { temperature: 21 } })
        )
      )
      yield* kernel.registerCapability(info("up"), [weather], noContext)
      const [entry] = (JSON.parse(yield* kernel.toolsPage("2025-11-25", undefined)) as { tools: Array<any> }).tools
      assert.deepStrictEqual(entry.outputSchema, { type: "object", properties: { temperature: { type: "number" } } })
      const notAnObject = Tool.make("list", {
        description: "An array is no tool output",
        outputJsonSchema: { type: "array" } as any
      }).pipe(Tool.handle(() => Effect.succeed("")))
      const error = yield* Effect.flip(kernel.registerCapability(info("bad"), [notAnObject], noContext))
      assert.strictEqual(error._tag, "InvalidToolSchema")
      assert.include(error.message, "outputJsonSchema must describe a JSON object")
    }).pipe(Effect.scoped)
  )
})
