/**
 * Prompts through the real codec (in-memory transport): registration rules,
 * `prompts/list` per protocol revision and paginated, `prompts/get` with
 * required and optional arguments, every message content kind, and errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Tool from "../src/Tool.ts"
import { start, type TestClient } from "./support/memory.ts"

const simple = Prompt.make("simple", { description: "A prompt without arguments." }).pipe(
  Prompt.handle(() => Effect.succeed("Say something simple."))
)

const greet = Prompt.make("greet", {
  title: "Greeting",
  description: "Greets someone.",
  arguments: Schema.Struct({
    name: Schema.String.annotate({ description: "Who to greet" }),
    style: Schema.optionalKey(Schema.Literals(["formal", "casual"]))
  })
}).pipe(
  Prompt.handle(({ name, style }) =>
    Effect.succeed({
      description: `A ${style ?? "plain"} greeting`,
      messages: [Prompt.user(`Greet ${name}${style === undefined ? "" : ` in a ${style} way`}.`)]
    })
  )
)

const rich = Prompt.make("rich", { description: "Every kind of content." }).pipe(
  Prompt.handle(() =>
    Effect.succeed([
      Prompt.user("Look at these:"),
      Prompt.user(Tool.image("aGk=", "image/png")),
      Prompt.user(Tool.audio("aGk=", "audio/wav")),
      Prompt.assistant(Tool.resource({ uri: "file:///notes.md", text: "# Notes", mimeType: "text/markdown" }))
    ])
  )
)

const failing = Prompt.make("failing", {
  description: "Fails with a typed error.",
  arguments: Schema.Struct({ topic: Schema.String })
}).pipe(
  Prompt.handle(({ topic }) =>
    Effect.fail(new Tool.ToolError({ message: `No notes about ${topic}`, suggestion: "Call notes_list first." }))
  )
)

const boom = Prompt.make("boom", { description: "Dies." }).pipe(Prompt.handle(() => Effect.die(new Error("kaboom"))))

class NoMessage extends Schema.TaggedError<NoMessage>()("NoMessage", {}) {}
const silent = Prompt.make("silent", { description: "Fails without a message." }).pipe(
  Prompt.handle(() => Effect.fail(new NoMessage()))
)

const languages = Array.from({ length: 150 }, (_, i) => `lang-${String(i).padStart(3, "0")}`)
const translate = Prompt.make("translate", {
  description: "Asks for a translation.",
  arguments: Schema.Struct({ text: Schema.String, language: Schema.String, tone: Schema.optionalKey(Schema.String) })
}).pipe(
  Prompt.handle(({ language, text }) => Effect.succeed(`Translate into ${language}:\n\n${text}`)),
  Prompt.completions({
    language: (value) => Effect.succeed(languages.filter((language) => language.startsWith(value))),
    // Suggestions that depend on the arguments already filled in.
    tone: (value, { arguments: given }) =>
      Effect.succeed(
        (given.language === "lang-000" ? ["formal", "friendly"] : ["neutral"]).filter((t) => t.startsWith(value))
      ),
    text: () => Effect.die(new Error("completer bug"))
  })
)

const Prompts = Capability.make(
  { id: "p", description: "prompts", version: "1.0.0" },
  Effect.succeed({ prompts: [simple, greet, rich, failing, boom, silent, translate] })
)

const setup = (protocolVersion = "2025-11-25", pageSize?: number) =>
  Effect.gen(function* () {
    const client = yield* start(Prompts, pageSize === undefined ? {} : { pageSize })
    const init = yield* client.initialize(protocolVersion)
    return { client, init }
  })

describe("prompts/list", () => {
  it.effect("lists every prompt with its arguments; initialize advertises prompts", () =>
    Effect.gen(function* () {
      const { client, init } = yield* setup()
      assert.deepStrictEqual(init.result.capabilities, {
        completions: {},
        logging: {},
        prompts: { listChanged: true }
      })
      const list = yield* client.request("prompts/list")
      const byName = Object.fromEntries(list.result.prompts.map((p: any) => [p.name, p]))
      assert.deepStrictEqual(Object.keys(byName), [
        "p_simple",
        "p_greet",
        "p_rich",
        "p_failing",
        "p_boom",
        "p_silent",
        "p_translate"
      ])
      assert.deepStrictEqual(byName.p_simple, { name: "p_simple", description: "A prompt without arguments." })
      assert.deepStrictEqual(byName.p_greet, {
        name: "p_greet",
        title: "Greeting",
        description: "Greets someone.",
        arguments: [{ name: "name", description: "Who to greet", required: true }, { name: "style" }]
      })
      assert.isUndefined(list.result.nextCursor)
    })
  )

  it.effect("no title before 2025-06-18; pages follow nextCursor; a bad cursor is -32602", () =>
    Effect.gen(function* () {
      const { client } = yield* setup("2025-03-26", 2)
      const names: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* client.request("prompts/list", cursor === undefined ? {} : { cursor })
        for (const prompt of page.result.prompts) {
          names.push(prompt.name)
          assert.isUndefined(prompt.title)
        }
        cursor = page.result.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(names, ["p_simple", "p_greet", "p_rich", "p_failing", "p_boom", "p_silent", "p_translate"])
      const bad = yield* client.request("prompts/list", { cursor: "nope" })
      assert.strictEqual(bad.error.code, -32602)
      assert.include(bad.error.message, "prompts/list")
    })
  )
})

describe("prompts/get", () => {
  it.effect("required and optional arguments; a string reply is one user message", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const plain = yield* client.request("prompts/get", { name: "p_greet", arguments: { name: "Ada" } })
      assert.deepStrictEqual(plain.result, {
        description: "A plain greeting",
        messages: [{ role: "user", content: { type: "text", text: "Greet Ada." } }]
      })
      const styled = yield* client.request("prompts/get", {
        name: "p_greet",
        arguments: { name: "Ada", style: "formal" }
      })
      assert.strictEqual(styled.result.messages[0].content.text, "Greet Ada in a formal way.")
      const simpleReply = yield* client.request("prompts/get", { name: "p_simple" })
      assert.deepStrictEqual(simpleReply.result, {
        messages: [{ role: "user", content: { type: "text", text: "Say something simple." } }]
      })
    })
  )

  it.effect("a missing, unknown or invalid argument is -32602 naming each problem", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const missing = yield* client.request("prompts/get", { name: "p_greet", arguments: { style: "loud" } })
      assert.strictEqual(missing.error.code, -32602)
      assert.include(missing.error.message, "Invalid arguments for prompt p_greet")
      assert.include(missing.error.message, "- name: Missing required key")
      assert.include(missing.error.message, "- style:")
      const extra = yield* client.request("prompts/get", { name: "p_simple", arguments: { x: "1" } })
      assert.strictEqual(extra.error.code, -32602)
      assert.include(extra.error.message, "- x: Unexpected key")
      const notStrings = yield* client.request("prompts/get", { name: "p_greet", arguments: { name: 3 } })
      assert.strictEqual(notStrings.error.code, -32602)
      const unknown = yield* client.request("prompts/get", { name: "p_nope" })
      assert.strictEqual(unknown.error.code, -32602)
      assert.include(unknown.error.message, "Unknown prompt: p_nope. Call prompts/list")
    })
  )

  it.effect("image, audio and embedded resources; audio becomes text for 2024-11-05", () =>
    Effect.gen(function* () {
      const latest = yield* setup()
      const result = (yield* latest.client.request("prompts/get", { name: "p_rich" })).result
      assert.deepStrictEqual(
        result.messages.map((m: any) => [m.role, m.content.type]),
        [
          ["user", "text"],
          ["user", "image"],
          ["user", "audio"],
          ["assistant", "resource"]
        ]
      )
      assert.deepStrictEqual(result.messages[3].content.resource, {
        uri: "file:///notes.md",
        text: "# Notes",
        mimeType: "text/markdown"
      })
      const old = yield* setup("2024-11-05")
      const downgraded = (yield* old.client.request("prompts/get", { name: "p_rich" })).result
      assert.deepStrictEqual(downgraded.messages[2].content, {
        type: "text",
        text: "[audio content (audio/wav) not supported by protocol 2024-11-05]"
      })
    })
  )

  it.effect("a typed failure is -32602 with its message and suggestion; a defect is -32603", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const failed = yield* client.request("prompts/get", { name: "p_failing", arguments: { topic: "cats" } })
      assert.strictEqual(failed.error.code, -32602)
      assert.strictEqual(failed.error.message, "No notes about cats\nSuggestion: Call notes_list first.")
      const silentFailure = yield* client.request("prompts/get", { name: "p_silent" })
      assert.deepStrictEqual([silentFailure.error.code, silentFailure.error.message], [-32602, "NoMessage"])
      const died = yield* client.request("prompts/get", { name: "p_boom" })
      assert.strictEqual(died.error.code, -32603)
      assert.isString(died.error.data.correlationId)
    })
  )
})

describe("prompt registration", () => {
  const build = (layer: Layer.Layer<never, any, Kernel.Kernel>) =>
    Effect.exit(Layer.build(layer.pipe(Layer.provide(Kernel.layer()))))

  it.effect("prefixed, invalid and duplicate names, and non-string arguments, fail at startup", () =>
    Effect.gen(function* () {
      const prompt = (name: string) =>
        Prompt.make(name, { description: "x" }).pipe(Prompt.handle(() => Effect.succeed("x")))
      const cases: Array<[Layer.Layer<never, any, Kernel.Kernel>, string]> = [
        [
          Capability.make({ id: "a", description: "", version: "1" }, Effect.succeed({ prompts: [prompt("a_x")] })),
          "PrefixedName"
        ],
        [
          Capability.make(
            { id: "a", description: "", version: "1" },
            Effect.succeed({ prompts: [prompt("bad name")] })
          ),
          "InvalidName"
        ],
        [
          Capability.make(
            { id: "a", description: "", version: "1" },
            Effect.succeed({ prompts: [prompt("x"), prompt("x")] })
          ),
          "DuplicateName"
        ],
        [
          Capability.make(
            { id: "a", description: "", version: "1" },
            Effect.succeed({
              prompts: [
                Prompt.make("n", { description: "x", arguments: Schema.Struct({ n: Schema.Number }) as any }).pipe(
                  Prompt.handle(() => Effect.succeed("x"))
                )
              ]
            })
          ),
          'Prompt "a_n": argument "n" must be a string'
        ],
        [
          Capability.make(
            { id: "a", description: "", version: "1" },
            Effect.succeed({
              prompts: [
                Prompt.make("r", {
                  description: "x",
                  arguments: Schema.Record(Schema.String, Schema.String) as any
                }).pipe(Prompt.handle(() => Effect.succeed("x")))
              ]
            })
          ),
          "must be a Schema.Struct of strings"
        ],
        [
          Capability.make(
            { id: "a", description: "", version: "1" },
            Effect.succeed({
              prompts: [
                Prompt.make("c", { description: "x", arguments: Schema.Struct({ language: Schema.String }) }).pipe(
                  Prompt.handle(() => Effect.succeed("x")),
                  Prompt.completions({ langauge: () => Effect.succeed([]) })
                )
              ]
            })
          ),
          'Prompt "a_c": completer for "langauge", which is not an argument of the prompt'
        ]
      ]
      for (const [layer, expected] of cases) {
        const exit = yield* build(layer)
        assert.isTrue(Exit.isFailure(exit), expected)
        assert.include(String(exit), expected)
      }
      // A string argument with an identifier (a reference to a definition) is a string.
      const identified = yield* build(
        Capability.make(
          { id: "a", description: "", version: "1" },
          Effect.succeed({
            prompts: [
              Prompt.make("i", {
                description: "x",
                arguments: Schema.Struct({ lang: Schema.String.annotate({ identifier: "Lang" }) })
              }).pipe(Prompt.handle(() => Effect.succeed("x")))
            ]
          })
        )
      )
      assert.isTrue(Exit.isSuccess(identified), String(identified))
      // A capability registers all or nothing: its tools are not left behind when a prompt fails.
      const kernel = yield* Kernel.make()
      const tool = Tool.make("t", { description: "x" }).pipe(Tool.handle(() => Effect.succeed("x")))
      const failed = yield* Effect.exit(
        kernel.registerCapability({ id: "b", description: "", version: "1" }, [tool], yield* Effect.context<any>(), [
          prompt("b_prefixed")
        ])
      )
      assert.isTrue(Exit.isFailure(failed))
      assert.strictEqual(kernel.toolCount(), 0)
      assert.strictEqual(kernel.promptCount(), 0)
    })
  )
})

describe("completion/complete", () => {
  const complete = (
    client: TestClient,
    name: string,
    argument: string,
    value: string,
    context?: Record<string, string>
  ): Effect.Effect<any> =>
    client.request("completion/complete", {
      ref: { type: "ref/prompt", name },
      argument: { name: argument, value },
      ...(context === undefined ? {} : { context: { arguments: context } })
    })

  it.effect("suggests values, at most 100 with the total, using the arguments already given", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const few = yield* complete(client, "p_translate", "language", "lang-14")
      assert.deepStrictEqual(few.result, {
        completion: { values: Array.from({ length: 10 }, (_, i) => `lang-14${i}`) }
      })
      const many = yield* complete(client, "p_translate", "language", "")
      assert.strictEqual(many.result.completion.values.length, 100)
      assert.strictEqual(many.result.completion.total, 150)
      assert.strictEqual(many.result.completion.hasMore, true)
      const tone = yield* complete(client, "p_translate", "tone", "f", { language: "lang-000" })
      assert.deepStrictEqual(tone.result.completion.values, ["formal", "friendly"])
      const otherTone = yield* complete(client, "p_translate", "tone", "", { language: "lang-001" })
      assert.deepStrictEqual(otherTone.result.completion.values, ["neutral"])
      // An argument without a completer has no suggestions.
      const none = yield* complete(client, "p_greet", "name", "A")
      assert.deepStrictEqual(none.result, { completion: { values: [] } })
    })
  )

  it.effect("unknown prompts and resource references are -32602; a completer's defect is -32603", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const unknown = yield* complete(client, "p_nope", "x", "")
      assert.strictEqual(unknown.error.code, -32602)
      const resource = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "file:///{path}" },
        argument: { name: "path", value: "" }
      })
      assert.strictEqual(resource.error.code, -32602)
      assert.include(resource.error.message, "No resource template file:///{path}")
      const died = yield* complete(client, "p_translate", "text", "")
      assert.strictEqual(died.error.code, -32603)
      const noSuchArgument = yield* complete(client, "p_translate", "langauge", "")
      assert.strictEqual(noSuchArgument.error.code, -32602)
      assert.include(noSuchArgument.error.message, 'has no argument "langauge"')
      // A prompts/list cursor is not a tools/list cursor, and the other way round.
      const paged = yield* setup("2025-11-25", 2)
      const page = yield* paged.client.request("prompts/list")
      const crossed = yield* paged.client.request("tools/list", { cursor: page.result.nextCursor })
      assert.strictEqual(crossed.error.code, -32602)
    })
  )

  it.effect("the completions capability is advertised from 2025-03-26 on", () =>
    Effect.gen(function* () {
      const { init } = yield* setup("2024-11-05")
      assert.isUndefined(init.result.capabilities.completions)
    })
  )
})

describe("a server without prompts", () => {
  it.effect("does not offer prompts/list, prompts/get or completion/complete (-32601)", () =>
    Effect.gen(function* () {
      const tools = Capability.make(
        { id: "t", description: "", version: "1" },
        Effect.succeed({ tools: [Tool.make("x", { description: "x" }).pipe(Tool.handle(() => Effect.succeed("x")))] })
      )
      const client = yield* start(tools)
      const init = yield* client.initialize()
      assert.isUndefined(init.result.capabilities.prompts)
      assert.isUndefined(init.result.capabilities.completions)
      for (const [method, params] of [
        ["prompts/list", {}],
        ["prompts/get", { name: "x" }],
        ["completion/complete", { ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "" } }]
      ] as const) {
        const response = yield* client.request(method, params)
        assert.strictEqual(response.error.code, -32601, method)
      }
    })
  )
})
