/**
 * Template listings in `resources/list` (`Resource.list`), through the real
 * codec (in-memory transport): paging across the static resources and the
 * listing templates, cursors that are refused, listers that fail, the
 * lister's services, the execution policy and the gate, run-time
 * registrations, startup errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Base64 } from "effect/encoding"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Capability from "../src/Capability.ts"
import * as Gate from "../src/Gate.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Policy from "../src/Policy.ts"
import * as Resource from "../src/Resource.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { start, type TestClient } from "./support/memory.ts"

// A service the `files` lister needs, provided to the capability's Layer.
class FileIndex extends Context.Service<FileIndex, { readonly paths: ReadonlyArray<string> }>()(
  "test/ResourceListing/FileIndex"
) {}
const FileIndexLive = Layer.succeed(FileIndex, { paths: ["a.txt", "b.txt", "src/c.ts", "src/d.ts", "e.md"] })

const ok = Effect.succeed("x")

const statics = ["one", "two", "three"].map((name) =>
  Resource.make(name, { uri: `files://static/${name}`, description: `Static ${name}.` }).pipe(Resource.handle(() => ok))
)

// Two paths per page; the lister's cursor is the index of the next path.
const file = Resource.template("file", {
  uriTemplate: "files://tree/{+path}",
  description: "A file, by path.",
  mimeType: "text/plain",
  params: Schema.Struct({ path: Schema.String })
}).pipe(
  Resource.handle(({ path }) => Effect.succeed(`contents of ${path}`)),
  Resource.list((cursor) =>
    Effect.gen(function* () {
      const index = yield* FileIndex
      const from = cursor === undefined ? 0 : Number(cursor)
      const to = from + 2
      return {
        resources: index.paths.slice(from, to).map((path) => ({
          uri: `files://tree/${path}`,
          name: path,
          title: `File ${path}`,
          size: path.length
        })),
        nextCursor: to < index.paths.length ? String(to) : undefined
      }
    })
  )
)

// A template that does not list: skipped by resources/list.
const blob = Resource.template("blob", {
  uriTemplate: "files://blob/{sha}",
  description: "A blob, by hash.",
  params: Schema.Struct({ sha: Schema.String })
}).pipe(Resource.handle(() => ok))

// A listing template whose listing is empty: skipped within the request.
const trash = Resource.template("trash", {
  uriTemplate: "files://trash/{name}",
  description: "Deleted files.",
  params: Schema.Struct({ name: Schema.String })
}).pipe(
  Resource.handle(() => ok),
  Resource.list(() => Effect.succeed({ resources: [] }))
)

const Files = Capability.make(
  { id: "files", description: "files", version: "1" },
  Effect.succeed({ resources: [...statics, file, blob, trash] })
).pipe(Layer.provide(FileIndexLive))

// All runs in one page, with a cursor the lister checks itself.
const run = Resource.template("run", {
  uriTemplate: "logs://run/{id}",
  description: "One run's log.",
  params: Schema.Struct({ id: Schema.FiniteFromString })
}).pipe(
  Resource.handle(({ id }) => Effect.succeed(`log ${id}`)),
  Resource.list(() =>
    Effect.succeed({
      resources: [1, 2, 3].map((id) => ({ uri: `logs://run/${id}`, name: `run ${id}`, description: `Run ${id}.` }))
    })
  )
)

const Logs = Capability.make({ id: "logs", description: "logs", version: "1" }, Effect.succeed({ resources: [run] }))

const walk = (client: TestClient) =>
  Effect.gen(function* () {
    const pages: Array<ReadonlyArray<any>> = []
    let cursor: string | undefined
    do {
      const page = yield* client.request("resources/list", cursor === undefined ? {} : { cursor })
      assert.isDefined(page.result, JSON.stringify(page.error))
      pages.push(page.result.resources)
      cursor = page.result.nextCursor
    } while (cursor !== undefined && pages.length < 50)
    return pages
  })

describe("resources/list with listing templates", () => {
  it.effect("pages through the static resources, then each listing template, everything exactly once", () =>
    Effect.gen(function* () {
      const client = yield* start(Layer.merge(Files, Logs), { pageSize: 2 })
      const init = yield* client.initialize()
      assert.deepStrictEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true })
      const pages = yield* walk(client)
      assert.deepStrictEqual(
        pages.map((page) => page.map((r) => r.uri)),
        [
          ["files://static/one", "files://static/two"],
          ["files://static/three"],
          ["files://tree/a.txt", "files://tree/b.txt"],
          ["files://tree/src/c.ts", "files://tree/src/d.ts"],
          // The file listing's last page, then the empty trash gives way to logs in the same request.
          ["files://tree/e.md"],
          ["logs://run/1", "logs://run/2", "logs://run/3"]
        ]
      )
      const all = pages.flat()
      assert.strictEqual(new Set(all.map((r) => r.uri)).size, all.length)
      // The listed name is used as given; mimeType defaults to the template's; title from 2025-06-18 on.
      assert.deepStrictEqual(pages[3]![0], {
        uri: "files://tree/src/c.ts",
        name: "src/c.ts",
        mimeType: "text/plain",
        size: 8,
        title: "File src/c.ts"
      })
      assert.deepStrictEqual(pages[5]![0], { uri: "logs://run/1", name: "run 1", description: "Run 1." })
      // Listed URIs are read through their template.
      const read = yield* client.request("resources/read", { uri: "files://tree/src/c.ts" })
      assert.deepStrictEqual(read.result.contents, [
        { uri: "files://tree/src/c.ts", mimeType: "text/plain", text: "contents of src/c.ts" }
      ])
    })
  )

  it.effect("per protocol era: no title before 2025-06-18", () =>
    Effect.gen(function* () {
      const client = yield* start(Files, { pageSize: 10 })
      yield* client.initialize("2025-03-26")
      const pages = yield* walk(client)
      const listed = pages.flat().find((r) => r.uri === "files://tree/a.txt")
      assert.deepStrictEqual(listed, { uri: "files://tree/a.txt", name: "a.txt", mimeType: "text/plain", size: 5 })
    })
  )

  it.effect("a server with listing templates only: resources are offered and listed from the first page", () =>
    Effect.gen(function* () {
      const client = yield* start(Logs)
      const init = yield* client.initialize()
      assert.deepStrictEqual(init.result.capabilities.resources, { subscribe: true, listChanged: true })
      const list = yield* client.request("resources/list", {})
      assert.deepStrictEqual(
        list.result.resources.map((r: any) => r.name),
        ["run 1", "run 2", "run 3"]
      )
      assert.isUndefined(list.result.nextCursor)
    })
  )

  it.effect("a tampered, foreign or stale cursor is -32602", () =>
    Effect.gen(function* () {
      const client = yield* start(Layer.merge(Files, Logs), { pageSize: 2 })
      yield* client.initialize()
      const first = yield* client.request("resources/list", {})
      const second = yield* client.request("resources/list", { cursor: first.result.nextCursor })
      // The cursor into the file listing (its second page: the lister's cursor "2").
      const third = yield* client.request("resources/list", { cursor: second.result.nextCursor })
      const listing: string = third.result.nextCursor
      const text = Base64.decodeString(listing)
      assert.isTrue(text._tag === "Success")
      const decoded = text._tag === "Success" ? text.success : ""
      assert.isTrue(decoded.endsWith("files_file/2"), decoded)
      const tampered = [
        Base64.encode(decoded.replace(/2$/, "0")),
        Base64.encode(decoded.replace("files_file", "files_blob")),
        listing.slice(0, -4),
        `${listing}AAAA`,
        "not base64!",
        ""
      ]
      for (const cursor of tampered) {
        const answer = yield* client.request("resources/list", { cursor })
        assert.strictEqual(answer.error?.code, -32602, cursor)
        assert.include(answer.error.message, "Invalid cursor")
      }
      // A listing cursor is not a templates/list cursor, and a tools/list cursor is not a resources/list one.
      const wrongList = yield* client.request("resources/templates/list", { cursor: listing })
      assert.strictEqual(wrongList.error.code, -32602)
      const foreign = yield* client.request("resources/list", { cursor: btoa("o:2") })
      assert.strictEqual(foreign.error.code, -32602)
      // The genuine cursor still works.
      const fourth = yield* client.request("resources/list", { cursor: listing })
      assert.deepStrictEqual(
        fourth.result.resources.map((r: any) => r.name),
        ["src/c.ts", "src/d.ts"]
      )
    })
  )

  it.effect("a cursor into a template that is gone is -32602", () =>
    Effect.gen(function* () {
      const client = yield* start(Logs)
      yield* client.initialize()
      const dynamic = Resource.template("scratch", {
        uriTemplate: "scratch://{id}",
        description: "Scratch pads.",
        params: Schema.Struct({ id: Schema.String })
      }).pipe(
        Resource.handle(() => ok),
        Resource.list((cursor) =>
          Effect.succeed(
            cursor === undefined
              ? { resources: [{ uri: "scratch://1", name: "1" }], nextCursor: "more" }
              : { resources: [{ uri: "scratch://2", name: "2" }] }
          )
        )
      )
      // The ping's answer means notifications/initialized was handled: changes now reach the client.
      yield* client.request("ping")
      // Run-time registrations take listing templates too.
      assert.strictEqual(yield* client.kernel.registerDynamicResource(dynamic), "app_scratch")
      assert.strictEqual((yield* client.read).method, "notifications/resources/list_changed")
      const first = yield* client.request("resources/list", {})
      assert.deepStrictEqual(
        first.result.resources.map((r: any) => r.uri),
        ["scratch://1"]
      )
      const cursor = first.result.nextCursor
      const second = yield* client.request("resources/list", { cursor })
      assert.deepStrictEqual(
        second.result.resources.map((r: any) => r.uri),
        ["scratch://2"]
      )
      // After app_ comes logs_ (templates are listed by capability id).
      const third = yield* client.request("resources/list", { cursor: second.result.nextCursor })
      assert.deepStrictEqual(
        third.result.resources.map((r: any) => r.name),
        ["run 1", "run 2", "run 3"]
      )
      assert.isTrue(yield* client.kernel.unregisterDynamic("app_scratch"))
      assert.strictEqual((yield* client.read).method, "notifications/resources/list_changed")
      const stale = yield* client.request("resources/list", { cursor })
      assert.strictEqual(stale.error.code, -32602)
    })
  )
})

describe("listers that fail", () => {
  class Unreachable extends Schema.TaggedError<Unreachable>()("Unreachable", { message: Schema.String }) {}
  const lister = (name: string, listing: (cursor: string | undefined) => Effect.Effect<Resource.Listing, any>) =>
    Resource.template(name, {
      uriTemplate: `bad://${name}/{id}`,
      description: name,
      params: Schema.Struct({ id: Schema.String })
    }).pipe(
      Resource.handle(() => ok),
      Resource.list(listing)
    )
  const failing = lister("failing", () => Effect.fail(new Unreachable({ message: "the index is unreachable" })))
  const dying = lister("dying", () => Effect.die(new Error("bug")))
  const stray = lister("stray", () => Effect.succeed({ resources: [{ uri: "bad://elsewhere/1", name: "x" }] }))
  const nameless = lister("nameless", () => Effect.succeed({ resources: [{ uri: "bad://nameless/1" } as any] }))
  const Bad = Capability.make(
    { id: "bad", description: "bad", version: "1" },
    Effect.succeed({ resources: [failing, dying, stray, nameless] })
  )
  it.effect("a typed failure is -32603 with its message; the server keeps serving", () =>
    Effect.gen(function* () {
      const client = yield* start(Bad)
      yield* client.initialize()
      const failed = yield* client.request("resources/list", {})
      assert.strictEqual(failed.error.code, -32603)
      assert.strictEqual(failed.error.message, "Listing the resources of bad_failing failed: the index is unreachable")
      assert.deepStrictEqual(failed.error.data, { template: "bad://failing/{id}", resource: "bad_failing" })
      // The server keeps serving.
      assert.deepStrictEqual((yield* client.request("ping")).result, {})
      const read = yield* client.request("resources/read", { uri: "bad://failing/1" })
      assert.strictEqual(read.result.contents[0].text, "x")
    })
  )

  it.effect("each kind of failure, reached through its own cursor", () =>
    Effect.gen(function* () {
      // One capability per failing lister, after a good one, so that each is reached by following nextCursor.
      const good = Resource.template("good", {
        uriTemplate: "aa://{id}",
        description: "good",
        params: Schema.Struct({ id: Schema.String })
      }).pipe(
        Resource.handle(() => ok),
        Resource.list(() => Effect.succeed({ resources: [{ uri: "aa://1", name: "1" }] }))
      )
      const answers: Array<any> = []
      for (const bad of [dying, stray, nameless]) {
        const client = yield* start(
          Layer.merge(
            Capability.make({ id: "aa", description: "a", version: "1" }, Effect.succeed({ resources: [good] })),
            Capability.make({ id: "bad", description: "b", version: "1" }, Effect.succeed({ resources: [bad] }))
          )
        )
        yield* client.initialize()
        const first = yield* client.request("resources/list", {})
        assert.deepStrictEqual(
          first.result.resources.map((r: any) => r.uri),
          ["aa://1"]
        )
        answers.push(yield* client.request("resources/list", { cursor: first.result.nextCursor }))
        // The server keeps serving, the good listing included.
        const again = yield* client.request("resources/list", {})
        assert.deepStrictEqual(again.result, first.result)
      }
      const [died, strayed, noName] = answers
      assert.strictEqual(died.error.code, -32603)
      assert.isString(died.error.data.correlationId)
      assert.strictEqual(strayed.error.code, -32603)
      assert.include(
        strayed.error.message,
        'Listing the resources of bad_stray failed: the template listed "bad://elsewhere/1", which its URI template ' +
          "bad://stray/{id} does not match"
      )
      assert.strictEqual(noName.error.code, -32603)
      assert.include(noName.error.message, "with a name that is undefined, not a string")
    })
  )

  it.effect("a lister that outlives its timeout is stopped and answered -32603 with reason timeout", () =>
    Effect.gen(function* () {
      const stuck = lister("stuck", () => Effect.never)
      const client = yield* start(
        Capability.make({ id: "slow", description: "slow", version: "1" }, Effect.succeed({ resources: [stuck] }))
      ).pipe(Effect.provide(Layer.merge(Policy.layer({ timeout: 1000 }), ServerConfig.layer({ shutdownGraceMs: 0 }))))
      yield* client.initialize()
      yield* client.send({ jsonrpc: "2.0", id: 1, method: "resources/list", params: {} })
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
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
      assert.include(timedOut.error.message, "resources/list of slow_stuck did not finish within 1000 ms")
    })
  )

  it.effect("a template the gate does not let the caller read is not listed", () =>
    Effect.gen(function* () {
      const client = yield* start(Layer.merge(Files, Logs), { pageSize: 10 }).pipe(
        Effect.provideService(Gate.Gate, Gate.fromRules({ rules: [{ effect: "deny", names: ["files_file"] }] }))
      )
      yield* client.initialize()
      const pages = yield* walk(client)
      assert.deepStrictEqual(
        pages.map((page) => page.map((r) => r.uri)),
        [
          ["files://static/one", "files://static/two", "files://static/three"],
          ["logs://run/1", "logs://run/2", "logs://run/3"]
        ]
      )
    })
  )
})

describe("Resource.list registration", () => {
  it("the lister's services are requirements of its capability's Layer (checked by the typecheck)", () => {
    const layer = Capability.make({ id: "files", description: "", version: "1" }, Effect.succeed({ resources: [file] }))
    const typed: Layer.Layer<never, unknown, Kernel.Kernel | FileIndex> = layer
    // @ts-expect-error FileIndex is required: the lister needs it
    const missing: Layer.Layer<never, unknown, Kernel.Kernel> = layer
    assert.isDefined(typed)
    assert.isDefined(missing)
  })

  it.effect("a lister on a static resource fails at startup with InvalidResource", () =>
    Effect.gen(function* () {
      const listed = Resource.make("one", { uri: "bad://one", description: "x" }).pipe(
        Resource.handle(() => ok),
        Resource.list(() => Effect.succeed({ resources: [] }))
      )
      const capability = Capability.make(
        { id: "bad", description: "x", version: "1" },
        Effect.succeed({ resources: [listed] })
      )
      const exit = yield* Effect.exit(Layer.build(capability.pipe(Layer.provideMerge(Kernel.layer()))))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? (exit.cause as any).reasons?.[0]?.error : undefined
      assert.strictEqual(error?._tag, "InvalidResource")
      assert.strictEqual(
        error?.message,
        'Resource "bad_one": a lister belongs to resource templates (Resource.list); resources/list already lists a static resource'
      )
    }).pipe(Effect.scoped)
  )
})
