/**
 * Resources through the real codec (in-memory transport): registration
 * rules, `resources/list` and `resources/templates/list` per revision and
 * paginated, `resources/read` of text, binary and templated resources,
 * subscriptions, template completion, and errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import { TestClock } from "effect/testing"
import * as Kernel from "../src/Kernel.ts"
import * as Policy from "../src/Policy.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { start } from "./support/memory.ts"

const readme = Resource.make("readme", {
  uri: "notes://readme",
  title: "Read me",
  description: "What the notes are.",
  mimeType: "text/markdown",
  annotations: { audience: ["user"], priority: 0.5, lastModified: "2026-11-01T00:00:00Z" }
}).pipe(Resource.handle(() => Effect.succeed("# Notes\n")))

const logo = Resource.make("logo", {
  uri: "notes://logo.png",
  description: "A tiny PNG.",
  mimeType: "image/png",
  size: 4
}).pipe(Resource.handle(() => Effect.succeed(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))))

const notes = new Map([
  [1, "first"],
  [2, "second"]
])
const note = Resource.template("note", {
  uriTemplate: "notes://note/{id}",
  description: "A note, by numeric id.",
  mimeType: "text/plain",
  params: Schema.Struct({ id: Schema.FiniteFromString.check(Schema.isInt()) })
}).pipe(
  Resource.handle(({ id }) => {
    const text = notes.get(id)
    return text === undefined
      ? Effect.fail(new Resource.NotFound({ message: `There is no note ${id}.` }))
      : Effect.succeed(text)
  }),
  Resource.completions({
    id: (value) => Effect.succeed([...notes.keys()].map(String).filter((id) => id.startsWith(value)))
  })
)

const both = Resource.template("pair", {
  uriTemplate: "notes://pair/{a}/{b}",
  description: "Two items, one per part.",
  params: Schema.Struct({ a: Schema.String, b: Schema.String })
}).pipe(
  Resource.handle(({ a }, uri) =>
    Effect.succeed([
      { text: a, mimeType: "text/plain" },
      { uri: `${uri}#b`, blob: "aGk=", mimeType: "application/octet-stream" }
    ])
  ),
  Resource.completions({
    b: (value, { arguments: given }) => Effect.succeed([`${given.a ?? "?"}-${value}x`])
  })
)

class Broken extends Schema.TaggedError<Broken>()("Broken", { message: Schema.String }) {}
const failing = Resource.make("failing", { uri: "notes://failing", description: "Fails." }).pipe(
  Resource.handle(() => Effect.fail(new Broken({ message: "the disk is gone" })))
)
const dying = Resource.make("dying", { uri: "notes://dying", description: "Dies." }).pipe(
  Resource.handle(() => Effect.die(new Error("bug")))
)

const Notes = Capability.make(
  { id: "notes", description: "notes", version: "1.0.0" },
  Effect.succeed({ resources: [readme, logo, note, both, failing, dying] })
)

const setup = (protocolVersion = "2025-11-25", pageSize?: number) =>
  Effect.gen(function* () {
    const client = yield* start(Notes, pageSize === undefined ? {} : { pageSize })
    const init = yield* client.initialize(protocolVersion)
    return { client, init }
  })

describe("resources/list and resources/templates/list", () => {
  it.effect("lists static resources and templates; initialize advertises resources with subscribe", () =>
    Effect.gen(function* () {
      const { client, init } = yield* setup()
      assert.deepStrictEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true })
      assert.deepStrictEqual(init.result.capabilities.completions, {})
      const list = yield* client.request("resources/list")
      assert.deepStrictEqual(list.result.resources[0], {
        uri: "notes://readme",
        name: "notes_readme",
        title: "Read me",
        description: "What the notes are.",
        mimeType: "text/markdown",
        annotations: { audience: ["user"], priority: 0.5, lastModified: "2026-11-01T00:00:00Z" }
      })
      assert.deepStrictEqual(list.result.resources[1], {
        uri: "notes://logo.png",
        name: "notes_logo",
        description: "A tiny PNG.",
        mimeType: "image/png",
        size: 4
      })
      assert.deepStrictEqual(
        list.result.resources.map((r: any) => r.uri),
        ["notes://readme", "notes://logo.png", "notes://failing", "notes://dying"]
      )
      const templates = yield* client.request("resources/templates/list")
      assert.deepStrictEqual(templates.result.resourceTemplates, [
        {
          uriTemplate: "notes://note/{id}",
          name: "notes_note",
          description: "A note, by numeric id.",
          mimeType: "text/plain"
        },
        { uriTemplate: "notes://pair/{a}/{b}", name: "notes_pair", description: "Two items, one per part." }
      ])
    })
  )

  it.effect("no title or lastModified before 2025-06-18; pages follow nextCursor; cursors name their list", () =>
    Effect.gen(function* () {
      const { client } = yield* setup("2025-03-26", 3)
      const uris: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* client.request("resources/list", cursor === undefined ? {} : { cursor })
        for (const resource of page.result.resources) {
          uris.push(resource.uri)
          assert.isUndefined(resource.title)
          if (resource.annotations !== undefined) assert.isUndefined(resource.annotations.lastModified)
        }
        cursor = page.result.nextCursor
        // A resources/list cursor is not a templates/list cursor.
        if (cursor !== undefined) {
          const wrong = yield* client.request("resources/templates/list", { cursor })
          assert.strictEqual(wrong.error.code, -32602)
        }
      } while (cursor !== undefined)
      assert.strictEqual(uris.length, 4)
    })
  )
})

describe("resources/read", () => {
  it.effect("text, binary as base64, and several items with their own URIs", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const text = yield* client.request("resources/read", { uri: "notes://readme" })
      assert.deepStrictEqual(text.result, {
        contents: [{ uri: "notes://readme", mimeType: "text/markdown", text: "# Notes\n" }]
      })
      const binary = yield* client.request("resources/read", { uri: "notes://logo.png" })
      assert.deepStrictEqual(binary.result, {
        contents: [{ uri: "notes://logo.png", mimeType: "image/png", blob: "iVBORw==" }]
      })
      const pair = yield* client.request("resources/read", { uri: "notes://pair/x%20y/z" })
      assert.deepStrictEqual(pair.result.contents, [
        { uri: "notes://pair/x%20y/z", mimeType: "text/plain", text: "x y" },
        { uri: "notes://pair/x%20y/z#b", mimeType: "application/octet-stream", blob: "aGk=" }
      ])
    })
  )

  it.effect("templates decode their params with the Schema; no match or NotFound is -32002", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const first = yield* client.request("resources/read", { uri: "notes://note/1" })
      assert.deepStrictEqual(first.result.contents, [{ uri: "notes://note/1", mimeType: "text/plain", text: "first" }])
      const missing = yield* client.request("resources/read", { uri: "notes://note/9" })
      assert.strictEqual(missing.error.code, -32002)
      assert.include(missing.error.message, "There is no note 9.")
      assert.deepStrictEqual(missing.error.data, { uri: "notes://note/9" })
      // "abc" is not a number: the template does not match at all.
      const notNumber = yield* client.request("resources/read", { uri: "notes://note/abc" })
      assert.strictEqual(notNumber.error.code, -32002)
      assert.include(notNumber.error.message, "resources/templates/list")
      const unknown = yield* client.request("resources/read", { uri: "other://x" })
      assert.strictEqual(unknown.error.code, -32002)
      const bad = yield* client.request("resources/read", {})
      assert.strictEqual(bad.error.code, -32602)
    })
  )

  it.effect("a typed failure is -32603 with its message; a defect is -32603 with a correlation id", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const failed = yield* client.request("resources/read", { uri: "notes://failing" })
      assert.strictEqual(failed.error.code, -32603)
      assert.include(failed.error.message, "the disk is gone")
      const died = yield* client.request("resources/read", { uri: "notes://dying" })
      assert.strictEqual(died.error.code, -32603)
      assert.isString(died.error.data.correlationId)
      // The server keeps serving.
      const again = yield* client.request("resources/read", { uri: "notes://readme" })
      assert.isDefined(again.result)
    })
  )
})

describe("resources/subscribe", () => {
  it.effect("only subscribed sessions hear about updates, until they unsubscribe", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const sub = yield* client.request("resources/subscribe", { uri: "notes://note/1" })
      assert.deepStrictEqual(sub.result, {})
      const unknown = yield* client.request("resources/subscribe", { uri: "notes://nothing" })
      assert.strictEqual(unknown.error.code, -32002)
      yield* Effect.provideService(Resource.updated("notes://readme"), Kernel.Kernel, client.kernel)
      yield* Effect.provideService(Resource.updated("notes://note/1"), Kernel.Kernel, client.kernel)
      const notification = yield* client.read
      assert.deepStrictEqual(notification, {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "notes://note/1" }
      })
      const unsub = yield* client.request("resources/unsubscribe", { uri: "notes://note/1" })
      assert.deepStrictEqual(unsub.result, {})
      yield* Effect.provideService(Resource.updated("notes://note/1"), Kernel.Kernel, client.kernel)
      // Nothing was sent for it: the next message is the answer to this ping.
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
    })
  )
})

describe("completion/complete for template variables", () => {
  it.effect("suggests values, with the variables already chosen; unknown templates and variables are -32602", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const ids = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://note/{id}" },
        argument: { name: "id", value: "" }
      })
      assert.deepStrictEqual(ids.result, { completion: { values: ["1", "2"] } })
      const withContext = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://pair/{a}/{b}" },
        argument: { name: "b", value: "q" },
        context: { arguments: { a: "left" } }
      })
      assert.deepStrictEqual(withContext.result.completion.values, ["left-qx"])
      const noCompleter = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://pair/{a}/{b}" },
        argument: { name: "a", value: "" }
      })
      assert.deepStrictEqual(noCompleter.result.completion.values, [])
      const unknownVariable = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://note/{id}" },
        argument: { name: "nope", value: "" }
      })
      assert.strictEqual(unknownVariable.error.code, -32602)
      const unknownTemplate = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "notes://note/1" },
        argument: { name: "id", value: "" }
      })
      assert.strictEqual(unknownTemplate.error.code, -32602)
    })
  )
})

describe("resource registration", () => {
  const fails = (
    resources: ReadonlyArray<Resource.Handled<any>>,
    id = "bad",
    extra: Layer.Layer<never, any, Kernel.Kernel> = Layer.empty
  ) =>
    Effect.gen(function* () {
      const capability = Capability.make({ id, description: "x", version: "1" }, Effect.succeed({ resources }))
      const exit = yield* Effect.exit(
        Layer.build(Layer.merge(extra, capability).pipe(Layer.provideMerge(Kernel.layer())))
      )
      assert.isTrue(Exit.isFailure(exit))
      return Exit.isFailure(exit) ? String((exit.cause as any).reasons?.[0]?.error?.message ?? exit.cause) : ""
    }).pipe(Effect.scoped)

  const ok = Effect.succeed("x")
  it.effect("bad URIs and templates, mismatched params, stray completers, taken schemes fail at startup", () =>
    Effect.gen(function* () {
      assert.include(
        yield* fails([Resource.make("a", { uri: "no-scheme", description: "x" }).pipe(Resource.handle(() => ok))]),
        "has no scheme"
      )
      assert.include(
        yield* fails([
          Resource.template("a", {
            uriTemplate: "bad://{id",
            description: "x",
            params: Schema.Struct({ id: Schema.String })
          }).pipe(Resource.handle(() => ok))
        ]),
        "unclosed"
      )
      assert.include(
        yield* fails([
          Resource.template("a", {
            uriTemplate: "bad://{id}",
            description: "x",
            params: Schema.Struct({ other: Schema.String })
          }).pipe(Resource.handle(() => ok))
        ]),
        "is not a variable"
      )
      assert.include(
        yield* fails([
          Resource.template("a", {
            uriTemplate: "bad://{id}/{more}",
            description: "x",
            params: Schema.Struct({ id: Schema.String })
          }).pipe(Resource.handle(() => ok))
        ]),
        'variable "more"'
      )
      assert.include(
        yield* fails([
          Resource.template("a", {
            uriTemplate: "bad://{id}",
            description: "x",
            params: Schema.Struct({ id: Schema.String })
          }).pipe(
            Resource.handle(() => ok),
            Resource.completions({ nope: () => Effect.succeed([]) })
          )
        ]),
        '"nope"'
      )
      assert.include(
        yield* fails([Resource.make("bad_a", { uri: "bad://a", description: "x" }).pipe(Resource.handle(() => ok))]),
        "already prefixed"
      )
      assert.include(
        yield* fails([
          Resource.make("a", { uri: "bad://a", description: "x" }).pipe(Resource.handle(() => ok)),
          Resource.make("b", { uri: "bad://a", description: "x" }).pipe(Resource.handle(() => ok))
        ]),
        "registered twice"
      )
      // notes:// belongs to the notes capability.
      assert.include(
        yield* fails(
          [Resource.make("a", { uri: "notes://mine", description: "x" }).pipe(Resource.handle(() => ok))],
          "other",
          Notes
        ),
        'belongs to capability "notes"'
      )
    })
  )

  it.effect("a server without resources does not offer resources/* (-32601)", () =>
    Effect.gen(function* () {
      const client = yield* start()
      const init = yield* client.initialize()
      assert.isUndefined(init.result.capabilities.resources)
      for (const method of ["resources/list", "resources/templates/list", "resources/read", "resources/subscribe"]) {
        const answer = yield* client.request(method, method.endsWith("list") ? {} : { uri: "x://y" })
        assert.strictEqual(answer.error.code, -32601, method)
      }
    })
  )
})

describe("resources/read and prompts/get under the execution policy", () => {
  const settle = Effect.gen(function* () {
    for (let i = 0; i < 20; i++) yield* Effect.yieldNow
  })
  const stuck = Resource.make("stuck", { uri: "slow://stuck", description: "Never answers." }).pipe(
    Resource.handle(() => Effect.never)
  )
  const slowPrompt = Prompt.make("slow", { description: "Never answers." }).pipe(Prompt.handle(() => Effect.never))
  const Slow = Capability.make(
    { id: "slow", description: "slow", version: "1", maxConcurrent: 1 },
    Effect.succeed({ resources: [stuck], prompts: [slowPrompt] })
  )

  it.effect("a read or get that outlives its timeout is stopped and answered -32603 with reason timeout", () =>
    Effect.gen(function* () {
      const client = yield* start(Slow).pipe(
        Effect.provide(
          Layer.merge(Policy.layer({ timeout: 1000, onOverload: "reject" }), ServerConfig.layer({ shutdownGraceMs: 0 }))
        )
      )
      yield* client.initialize()
      yield* client.send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "slow://stuck" } })
      yield* settle
      // The capability allows one at a time (Capability.make option): a second read is rejected.
      const busy = yield* client.request("resources/read", { uri: "slow://stuck" })
      assert.strictEqual(busy.error.code, -32603)
      assert.strictEqual(busy.error.data.reason, "overloaded")
      // The numbers a tool's overload result carries in its _meta: the capability's one slot, taken.
      assert.deepInclude(busy.error.data, { name: "slow_stuck", maxConcurrent: 1, inFlight: 1, waitedMs: 0 })
      assert.notInclude(busy.error.message, "..")
      yield* TestClock.adjust("1 second")
      const timedOut = yield* client.read
      assert.strictEqual(timedOut.id, 1)
      assert.strictEqual(timedOut.error.code, -32603)
      // The numbers a tool's timeout result carries in its _meta.
      assert.deepStrictEqual(timedOut.error.data, {
        reason: "timeout",
        name: "slow_stuck",
        timeoutMs: 1000,
        source: "the server default",
        elapsedMs: 1000
      })
      assert.include(timedOut.error.message, "resources/read of slow://stuck did not finish within 1000 ms")
      yield* client.send({ jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "slow_slow" } })
      yield* settle
      yield* TestClock.adjust("1 second")
      const prompt = yield* client.read
      assert.strictEqual(prompt.id, 2)
      assert.include(prompt.error.message, "prompts/get of slow_slow did not finish")
    })
  )
})

describe("run-time registrations", () => {
  it.effect("a dynamic resource or prompt is listed as app_<name>, announces list_changed, and can be removed", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      // The ping's answer means notifications/initialized was handled: changes now reach the client.
      yield* client.request("ping")
      const kernel = client.kernel
      const name = yield* kernel.registerDynamicResource(
        Resource.make("scratch", { uri: "scratch://pad", description: "A scratch pad." }).pipe(
          Resource.handle(() => Effect.succeed("notes"))
        )
      )
      assert.strictEqual(name, "app_scratch")
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/resources/list_changed"
      })
      const read = yield* client.request("resources/read", { uri: "scratch://pad" })
      assert.deepStrictEqual(read.result.contents, [{ uri: "scratch://pad", text: "notes" }])
      const prompt = yield* kernel.registerDynamicPrompt(
        Prompt.make("hello", { description: "Says hello." }).pipe(Prompt.handle(() => Effect.succeed("Hello!")))
      )
      assert.strictEqual(prompt, "app_hello")
      // initialize did not advertise prompts (there were none): no prompts/list_changed, the ping answers first.
      assert.deepStrictEqual((yield* client.request("ping")).result, {})
      const prompts = yield* client.request("prompts/list")
      assert.deepStrictEqual(
        prompts.result.prompts.map((p: any) => p.name),
        ["app_hello"]
      )
      // Dynamic registrations never shadow static ones, nor take a static capability's URI scheme.
      const shadow = yield* Effect.flip(
        kernel.registerDynamicResource(
          Resource.make("mine", { uri: "notes://mine", description: "x" }).pipe(
            Resource.handle(() => Effect.succeed(""))
          )
        )
      )
      assert.strictEqual(shadow._tag, "SchemeTaken")
      assert.isTrue(yield* kernel.unregisterDynamic("app_scratch"))
      assert.deepStrictEqual(yield* client.read, {
        jsonrpc: "2.0",
        method: "notifications/resources/list_changed"
      })
      const gone = yield* client.request("resources/read", { uri: "scratch://pad" })
      assert.strictEqual(gone.error.code, -32002)
      assert.isFalse(yield* kernel.unregisterDynamic("app_scratch"))
      assert.isTrue(yield* kernel.unregisterDynamic("app_hello"))
    })
  )
})
