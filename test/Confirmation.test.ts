/**
 * The confirmation gate through the real codec: a destructive tool's input
 * schema gains `confirm`; with an elicitation-capable client the user is
 * asked (accepted, declined, not confirmed); without one the call needs
 * `confirm: true`; pre-approved tools skip it; invalid arguments are
 * answered before anyone is asked; read-only tools are untouched.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Confirmation from "../src/Confirmation.ts"
import * as Kernel from "../src/Kernel.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"

const makeFiles = () => {
  const deleted: Array<string> = []
  const remove = Tool.make("remove", {
    description: "Deletes a file.",
    input: Schema.Struct({ path: Schema.String }),
    annotations: { destructiveHint: true }
  }).pipe(Tool.handle(({ path }) => Effect.sync(() => (deleted.push(path), `deleted ${path}`))))
  const deploy = Tool.make("deploy", { description: "Deploys.", confirm: true }).pipe(
    Tool.handle(() => Effect.succeed("deployed"))
  )
  const read = Tool.make("read", { description: "Reads.", annotations: { readOnlyHint: true } }).pipe(
    Tool.handle(() => Effect.succeed("read"))
  )
  const publish = Tool.make("publish", {
    description: "Publishes, or shows what it would publish.",
    input: Schema.Struct({ dryRun: Schema.optionalKey(Schema.Boolean) }),
    annotations: { destructiveHint: true },
    confirmWhen: (input) => input.dryRun !== true
  }).pipe(Tool.handle(({ dryRun }) => Effect.succeed(dryRun === true ? "would publish" : "published")))
  const Files = Capability.make(
    { id: "f", description: "files", version: "1" },
    Effect.succeed({ tools: [remove, deploy, read, publish] })
  )
  return { deleted, Files }
}

const setup = (capabilities: Record<string, unknown>, preApproved: ReadonlyArray<string> = []) =>
  Effect.gen(function* () {
    const { deleted, Files } = makeFiles()
    const client = yield* start(Files).pipe(
      Effect.provide(
        Layer.merge(
          Layer.succeed(Confirmation.Confirmation, { preApproved }),
          ServerConfig.layer({ shutdownGraceMs: 0 })
        )
      )
    )
    yield* client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities,
      clientInfo: { name: "test", version: "1" }
    })
    yield* client.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return { client, deleted }
  })

const call = (name: string, args?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: args === undefined ? { name } : { name, arguments: args }
})
const code = (response: any) => response.result._meta?.["effect-mcp-runtime/error"]?.code

describe("confirmation", () => {
  it.effect("a destructive tool's input schema gains a described, optional confirm; others do not", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({})
      const list = yield* client.request("tools/list")
      const byName = Object.fromEntries(list.result.tools.map((tool: any) => [tool.name, tool.inputSchema]))
      assert.deepStrictEqual(byName.f_remove.properties.confirm, Confirmation.argumentSchema)
      assert.deepStrictEqual(byName.f_remove.required, ["path"])
      assert.isDefined(byName.f_deploy.properties.confirm)
      assert.isUndefined(byName.f_read.properties?.confirm)
    })
  )

  it.effect("a client that can ask the user: accepted and confirmed runs; declined or unconfirmed does not", () =>
    Effect.gen(function* () {
      const { client, deleted } = yield* setup({ elicitation: {} })
      for (const [answer, runs] of [
        [{ action: "accept", content: { confirm: true } }, true],
        [{ action: "accept", content: { confirm: false } }, false],
        [{ action: "decline" }, false]
      ] as const) {
        yield* client.send(call("f_remove", { path: "a.txt" }))
        const ask = yield* client.read
        assert.strictEqual(ask.method, "elicitation/create")
        assert.include(ask.params.message, "Allow f_remove to run?")
        assert.include(ask.params.message, '"path": "a.txt"')
        assert.deepInclude(ask.params.requestedSchema.properties.confirm, { type: "boolean" })
        yield* client.send({ jsonrpc: "2.0", id: ask.id, result: answer })
        const response = yield* client.read
        if (runs) assert.deepStrictEqual(response.result.content, [{ type: "text", text: "deleted a.txt" }])
        else assert.strictEqual(code(response), "not_confirmed")
      }
      assert.deepStrictEqual(deleted, ["a.txt"])
    })
  )

  it.effect("a client with URL-mode elicitation only cannot be asked with a form: confirm: true is its way", () =>
    Effect.gen(function* () {
      const { client, deleted } = yield* setup({ elicitation: { url: {} } })
      const refused = yield* client.request("tools/call", { name: "f_remove", arguments: { path: "u.txt" } })
      assert.strictEqual(code(refused), "confirmation_required")
      const confirmed = yield* client.request("tools/call", {
        name: "f_remove",
        arguments: { path: "u.txt", confirm: true }
      })
      assert.deepStrictEqual(confirmed.result.content, [{ type: "text", text: "deleted u.txt" }])
      assert.deepStrictEqual(deleted, ["u.txt"])
    })
  )

  it("the confirmation message shows the arguments whole, escapes invisible characters, and says what it cuts", () => {
    const message = Confirmation.confirmationMessage("exec_run", "Runs a command. More text follows here.", {
      command: "node",
      args: ["-e", "ok()\u202e;evil()"]
    })
    assert.include(message, "Allow exec_run to run?")
    assert.include(message, '"command": "node"')
    assert.include(message, "\\u202e")
    assert.notInclude(message, "\u202e")
    assert.include(message, "(exec_run: Runs a command.)")
    const long = Confirmation.confirmationMessage("exec_run", "Runs.", { args: ["x".repeat(5000)] })
    assert.match(long, /\[… \d+ more characters not shown: decline unless you know what they are\]/)
  })

  it.effect("a client that cannot ask: the call needs confirm: true, and the result says how to confirm", () =>
    Effect.gen(function* () {
      const { client, deleted } = yield* setup({})
      const refused = yield* client.request("tools/call", { name: "f_remove", arguments: { path: "b.txt" } })
      assert.strictEqual(code(refused), "confirmation_required")
      assert.include(refused.result.content[0].text, '"confirm": true')
      const confirmed = yield* client.request("tools/call", {
        name: "f_remove",
        arguments: { path: "b.txt", confirm: true }
      })
      assert.deepStrictEqual(confirmed.result.content, [{ type: "text", text: "deleted b.txt" }])
      // confirm: false is no confirmation.
      const no = yield* client.request("tools/call", { name: "f_deploy", arguments: { confirm: false } })
      assert.strictEqual(code(no), "confirmation_required")
      assert.deepStrictEqual(deleted, ["b.txt"])
    })
  )

  it.effect(
    "invalid arguments are answered before anyone is asked; pre-approved tools and read-only ones just run",
    () =>
      Effect.gen(function* () {
        const { client } = yield* setup({ elicitation: {} }, ["f_dep*"])
        const invalid = yield* client.request("tools/call", { name: "f_remove", arguments: { path: 1 } })
        assert.strictEqual(code(invalid), "invalid_arguments")
        const deployed = yield* client.request("tools/call", { name: "f_deploy" })
        assert.deepStrictEqual(deployed.result.content, [{ type: "text", text: "deployed" }])
        const read = yield* client.request("tools/call", { name: "f_read" })
        assert.deepStrictEqual(read.result.content, [{ type: "text", text: "read" }])
      })
  )

  it.effect("confirmWhen: a call it exempts (a dry run) runs without asking; the others are asked", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      const list = yield* client.request("tools/list")
      const publish = list.result.tools.find((tool: any) => tool.name === "f_publish")
      assert.isDefined(publish.inputSchema.properties.confirm, "the confirm argument is still published")
      // A dry run: no elicitation, the answer comes at once (with or without confirm).
      const dry = yield* client.request("tools/call", { name: "f_publish", arguments: { dryRun: true } })
      assert.deepStrictEqual(dry.result.content, [{ type: "text", text: "would publish" }])
      const dryConfirmed = yield* client.request("tools/call", {
        name: "f_publish",
        arguments: { dryRun: true, confirm: true }
      })
      assert.deepStrictEqual(dryConfirmed.result.content, [{ type: "text", text: "would publish" }])
      // The real call is asked about.
      yield* client.send(call("f_publish", { dryRun: false }))
      const ask = yield* client.read
      assert.strictEqual(ask.method, "elicitation/create")
      assert.include(ask.params.message, "Allow f_publish to run?")
      yield* client.send({ jsonrpc: "2.0", id: ask.id, result: { action: "decline" } })
      assert.strictEqual(code(yield* client.read), "not_confirmed")
      // Arguments that do not decode are answered as invalid, not run and not exempted.
      const invalid = yield* client.request("tools/call", { name: "f_publish", arguments: { dryRun: "yes" } })
      assert.strictEqual(code(invalid), "invalid_arguments")
    })
  )

  it.effect("confirmWhen with a client that cannot ask: a dry run needs no confirm, a real call does", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({})
      const dry = yield* client.request("tools/call", { name: "f_publish", arguments: { dryRun: true } })
      assert.deepStrictEqual(dry.result.content, [{ type: "text", text: "would publish" }])
      const refused = yield* client.request("tools/call", { name: "f_publish", arguments: {} })
      assert.strictEqual(code(refused), "confirmation_required")
      const confirmed = yield* client.request("tools/call", { name: "f_publish", arguments: { confirm: true } })
      assert.deepStrictEqual(confirmed.result.content, [{ type: "text", text: "published" }])
    })
  )

  it.effect("a tool that needs confirmation cannot have its own confirm field", () =>
    Effect.gen(function* () {
      const bad = Capability.make(
        { id: "b", description: "", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("x", {
              description: "x",
              input: Schema.Struct({ confirm: Schema.Boolean }),
              annotations: { destructiveHint: true }
            }).pipe(Tool.handle(() => Effect.succeed("x")))
          ]
        })
      )
      const error = yield* Effect.flip(Layer.build(bad.pipe(Layer.provide(Kernel.layer()))))
      assert.include(String((error as any).message), 'has a field "confirm"')
    }).pipe(Effect.scoped)
  )
})
