/**
 * The `fe_fix_project` prompt through the test kit, served by the whole fe
 * capability (so the tools it names are the ones the capability
 * publishes): listed with its arguments, its message for no arguments and
 * for a focus, steps and a goal, an unknown step refused (−32602), and the
 * steps argument completed as it is typed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import { FakeCommandRunner, MemoryWorkspace, TestClient } from "../src/testing.ts"

const setup = Effect.gen(function* () {
  const memory = MemoryWorkspace.make({ "package.json": "{}" })
  return yield* TestClient.make(
    FeCapability.pipe(Layer.provide(memory.layer), Layer.provide(FakeCommandRunner.make([]).layer))
  )
})

/** The fe_… tool names a text mentions. */
const toolsNamed = (text: string): Array<string> => [...new Set(text.match(/\bfe_[a-z_]+/g) ?? [])].sort()

describe("fe_fix_project", () => {
  it.effect("is listed with its optional arguments", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const prompts = yield* client.listPrompts
      assert.deepStrictEqual(
        prompts.map((p: any) => [p.name, p.title, p.arguments.map((a: any) => [a.name, a.required ?? false])]),
        [
          [
            "fe_fix_project",
            "Verify, diagnose and fix this project",
            [
              ["focus", false],
              ["steps", false],
              ["goal", false]
            ]
          ]
        ]
      )
    })
  )

  it.effect("walks the agent through the loop with the tools the capability publishes", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const published = (yield* client.listTools).map((tool: any) => tool.name)
      const result = yield* client.getPrompt("fe_fix_project")
      assert.strictEqual(result.description, "The fe loop: verify, diagnose, fix, verify again.")
      assert.lengthOf(result.messages, 1)
      const [message] = result.messages
      assert.strictEqual(message.role, "user")
      const text: string = message.content.text
      assert.isTrue(
        text.startsWith("Verify, diagnose and fix this project with the fe tools, until its checks pass.\n")
      )
      assert.include(text, "1. Call fe_verify with {}.")
      assert.include(text, "6. Call fe_verify again with {}.")
      assert.include(text, "fe://build/<id>")
      // Every tool the prompt names is one the capability publishes.
      const named = toolsNamed(text)
      assert.deepStrictEqual(named, ["fe_batch", "fe_doctor", "fe_impact", "fe_skeleton", "fe_surgeon", "fe_verify"])
      for (const tool of named) assert.include(published, tool)
    })
  )

  it.effect("a focus, steps and a goal shape fe_verify's arguments and the map to read", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const result = yield* client.getPrompt("fe_fix_project", {
        focus: " src/cart ,",
        steps: "typecheck, test, typecheck",
        goal: "make the cart tests pass"
      })
      const text: string = result.messages[0].content.text
      assert.include(text, 'Call fe_verify with {"steps":["typecheck","test"],"files":["src/cart"]}.')
      assert.include(text, "Focus on src/cart: the lint and the tests run on those files only")
      assert.include(text, "\n\nThe goal: make the cart tests pass\n")
      assert.include(text, 'call fe_skeleton with {"path":"src/cart"}')
    })
  )

  it.effect("an unknown step is an invalid argument", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const error = yield* Effect.flip(client.getPrompt("fe_fix_project", { steps: "typecheck, build" }))
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, 'steps: "build" is not a step; the steps are typecheck, lint and test')
    })
  )

  it.effect("completes the step being typed", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const complete = (value: string) =>
        Effect.map(
          client.request("completion/complete", {
            ref: { type: "ref/prompt", name: "fe_fix_project" },
            argument: { name: "steps", value }
          }),
          (response) => response.completion.values
        )
      assert.deepStrictEqual(yield* complete(""), ["typecheck", "lint", "test"])
      assert.deepStrictEqual(yield* complete("t"), ["typecheck", "test"])
      assert.deepStrictEqual(yield* complete("typecheck, t"), ["typecheck, test"])
      assert.deepStrictEqual(yield* complete("lint,"), ["lint,typecheck", "lint,test"])
    })
  )
})
