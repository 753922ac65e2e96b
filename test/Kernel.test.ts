import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Tool from "../src/Tool.ts"

const tool = (name: string) =>
  Tool.make(name, { description: `the ${name} tool`, input: Schema.Struct({}) }).pipe(
    Tool.handle(() => Effect.succeed(name))
  )

const build = (...capabilities: Array<Layer.Layer<never, Kernel.KernelError, Kernel.Kernel>>) =>
  Effect.gen(function* () {
    const kernel = yield* Kernel.Kernel
    return kernel
  }).pipe(
    Effect.provide(
      capabilities
        .reduce((acc, c) => Layer.merge(acc, c), Layer.empty as Layer.Layer<never, Kernel.KernelError, Kernel.Kernel>)
        .pipe(Layer.provideMerge(Kernel.layer()))
    )
  )

const cap = (id: string, ...names: Array<string>) =>
  Capability.make({ id, description: id, version: "1.0.0" }, Effect.succeed({ tools: names.map(tool) }))

describe("Kernel", () => {
  it.effect("publishes <id>_<name>", () =>
    Effect.gen(function* () {
      const kernel = yield* build(cap("fs", "read", "write"))
      assert.deepStrictEqual(
        kernel.capabilities().map((c) => c.tools),
        [["fs_read", "fs_write"]]
      )
      assert.isDefined(kernel.tool("fs_read"))
    })
  )

  it.effect("rejects an invalid id", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(cap("Bad-Id", "x")))
      assert.strictEqual(error._tag, "InvalidCapabilityId")
      assert.include(error.message, "^[a-z][a-z0-9_]*$")
    })
  )

  it.effect("rejects the reserved id app", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(cap("app", "x")))
      assert.strictEqual(error._tag, "ReservedCapabilityId")
    })
  )

  it.effect("rejects a pre-prefixed name", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(cap("fs", "fs_read")))
      assert.strictEqual(error._tag, "PrefixedName")
      assert.include(error.message, `pass the bare name "read"`)
    })
  )

  it.effect("names both capabilities on a public-name collision", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(build(cap("a", "b_c"), cap("a_b", "c")))
      assert.strictEqual(error._tag, "DuplicateName")
      assert.include(error.message, "a_b_c")
      assert.include(error.message, `"a"`)
      assert.include(error.message, `"a_b"`)
    })
  )

  it.effect("dynamic registrations live under app_ and cannot shadow static ones", () =>
    Effect.gen(function* () {
      const kernel = yield* build(cap("app_tools", "list"))
      const name = yield* kernel.registerDynamic(tool("hello"))
      assert.strictEqual(name, "app_hello")
      const error = yield* Effect.flip(kernel.registerDynamic(tool("tools_list")))
      assert.strictEqual(error._tag, "DynamicShadow")
      assert.include(error.message, "app_tools")
      assert.isTrue(yield* kernel.unregisterDynamic("app_hello"))
      assert.isFalse(yield* kernel.unregisterDynamic("app_tools_list"))
    })
  )

  it.effect("orders tools by capability id, then by each capability's own order, whatever the build order", () =>
    Effect.gen(function* () {
      const slow = Capability.make(
        { id: "alpha", description: "", version: "1" },
        Effect.as(Effect.yieldNow, { tools: [tool("z"), tool("a")] })
      )
      const kernel = yield* build(cap("zeta", "one"), slow, cap("mid", "x"))
      const names = kernel.capabilities().flatMap((c) => c.tools)
      assert.sameMembers(names, ["zeta_one", "alpha_z", "alpha_a", "mid_x"])
      const page = JSON.parse(yield* kernel.toolsPage("2025-11-25", undefined))
      assert.deepStrictEqual(
        page.tools.map((t: { name: string }) => t.name),
        ["alpha_z", "alpha_a", "mid_x", "zeta_one"]
      )
    })
  )
})
