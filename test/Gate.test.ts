/**
 * The authorization gate: rule matching (globs, principals, methods, first
 * match wins, the default), and its use by tools/call (an error result),
 * resources/read and prompts/get (−32600 with reason "denied") through the
 * real codec.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Capability from "../src/Capability.ts"
import * as Gate from "../src/Gate.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"

const outcome = (gate: Gate.Gate["Service"], access: Gate.Access) =>
  Effect.match(gate.check(access), { onFailure: (denied) => `denied by ${denied.rule}`, onSuccess: () => "allowed" })

describe("Gate.fromRules", () => {
  it.effect("the first matching rule decides; globs, principals and methods narrow a rule; else the default", () =>
    Effect.gen(function* () {
      const gate = Gate.fromRules({
        rules: [
          { effect: "allow", names: ["exec_*"], principals: ["ops-*"] },
          { effect: "deny", names: ["exec_*", "workspace_write"] },
          { effect: "deny", names: ["notes_?"], methods: ["resources/read"] },
          { effect: "allow", names: ["system_*", "notes_*"] }
        ],
        defaultEffect: "deny"
      })
      assert.strictEqual(
        yield* outcome(gate, { method: "tools/call", name: "exec_run", principal: "ops-ann" }),
        "allowed"
      )
      assert.strictEqual(
        yield* outcome(gate, { method: "tools/call", name: "exec_run", principal: "dev" }),
        "denied by rule 2"
      )
      assert.strictEqual(yield* outcome(gate, { method: "tools/call", name: "exec_run" }), "denied by rule 2")
      assert.strictEqual(yield* outcome(gate, { method: "tools/call", name: "workspace_write" }), "denied by rule 2")
      assert.strictEqual(yield* outcome(gate, { method: "resources/read", name: "notes_a" }), "denied by rule 3")
      assert.strictEqual(yield* outcome(gate, { method: "prompts/get", name: "notes_a" }), "allowed")
      assert.strictEqual(yield* outcome(gate, { method: "resources/read", name: "notes_ab" }), "allowed")
      assert.strictEqual(yield* outcome(gate, { method: "tools/call", name: "system_info" }), "allowed")
      assert.strictEqual(yield* outcome(gate, { method: "tools/call", name: "other_x" }), "denied by the default")
      // Globs are anchored and literal apart from * and ?.
      assert.isFalse(Gate.globToRegExp("exec_*").test("my_exec_run"))
      assert.isFalse(Gate.globToRegExp("a.b").test("axb"))
      const open = Gate.fromRules({ rules: [] })
      assert.strictEqual(yield* outcome(open, { method: "tools/call", name: "anything" }), "allowed")
    })
  )
})

describe("the gate in the server", () => {
  const Stuff = Capability.make(
    { id: "s", description: "stuff", version: "1" },
    Effect.succeed({
      tools: [
        Tool.make("open", { description: "allowed" }).pipe(Tool.handle(() => Effect.succeed("ok"))),
        Tool.make("shut", { description: "denied" }).pipe(Tool.handle(() => Effect.die(new Error("must not run"))))
      ],
      prompts: [Prompt.make("shut", { description: "denied" }).pipe(Prompt.handle(() => Effect.succeed("no")))],
      resources: [
        Resource.make("shut", { uri: "s://shut", description: "denied" }).pipe(
          Resource.handle(() => Effect.succeed("no"))
        )
      ]
    })
  )
  const Gated = Layer.succeed(Gate.Gate, Gate.fromRules({ rules: [{ effect: "deny", names: ["s_shut"] }] }))

  it.effect("a denied tool call is an error result that says not to retry; prompts and resources get -32600", () =>
    Effect.gen(function* () {
      const client = yield* start(Stuff).pipe(Effect.provide(Gated))
      yield* client.initialize()
      const open = yield* client.request("tools/call", { name: "s_open" })
      assert.deepStrictEqual(open.result.content, [{ type: "text", text: "ok" }])
      const shut = yield* client.request("tools/call", { name: "s_shut" })
      assert.isTrue(shut.result.isError)
      assert.strictEqual(shut.result._meta["effect-mcp-runtime/error"].code, "denied")
      assert.include(
        shut.result.content[0].text,
        "tools/call of s_shut is not allowed on this server (rule 1 of its gate)"
      )
      assert.include(shut.result.content[0].text, "Do not retry s_shut")
      const prompt = yield* client.request("prompts/get", { name: "s_shut" })
      assert.strictEqual(prompt.error.code, -32600)
      assert.deepStrictEqual(prompt.error.data, { reason: "denied", name: "s_shut" })
      const resource = yield* client.request("resources/read", { uri: "s://shut" })
      assert.strictEqual(resource.error.code, -32600)
      assert.include(resource.error.message, "resources/read of s_shut is not allowed")
    })
  )
})
