/**
 * The examples of docs/testing.md, verbatim (apart from the import paths):
 * if this file fails, the page is wrong. The last test checks that the page's
 * complete test file is this file's code (the imports aside).
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { ExecCapability } from "../capabilities/exec/index.ts"
import { WorkspaceCapability } from "../capabilities/workspace/index.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import { FakeCommandRunner, MemoryWorkspace, TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

// -- the capability under test --------------------------------------------------

const greet = Tool.make("greet", {
  description: "Greets someone by name.",
  input: Schema.Struct({ name: Schema.String }),
  output: Schema.Struct({ greeting: Schema.String }),
  annotations: { readOnlyHint: true }
}).pipe(
  Tool.handle(({ name }) =>
    name === ""
      ? Effect.fail(new Tool.ToolError({ message: "No name given.", code: "empty_name", suggestion: "Pass a name." }))
      : Effect.succeed({ greeting: `Hello, ${name}!` })
  )
)

const slow = Tool.make("slow", {
  description: "Takes a minute.",
  input: Schema.Struct({}),
  annotations: { readOnlyHint: true }
}).pipe(Tool.handle(() => Effect.as(Effect.sleep("1 minute"), "done")))

const Greeter = Capability.make(
  { id: "hello", description: "Greetings", version: "1.0.0" },
  Effect.succeed({ tools: [greet, slow] })
)

describe("the greeter", () => {
  it.effect("lists its tools and greets", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const tools = yield* client.listTools
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["hello_greet", "hello_slow"]
      )
      const result = yield* client.callTool("hello_greet", { name: "Ada" })
      assert.deepStrictEqual(result.structuredContent, { greeting: "Hello, Ada!" })
    }).pipe(Effect.scoped)
  )

  it.effect("refuses an empty name with its error code", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const result = yield* client.expectToolError("hello_greet", { name: "" }, "empty_name")
      assert.include(TestClient.text(result), "Pass a name.")
    }).pipe(Effect.scoped)
  )

  it.effect("times out under TestClock, in no real time", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Greeter)
      const call = yield* Effect.forkChild(client.callTool("hello_slow", {}))
      yield* Effect.repeat(Effect.yieldNow, { times: 20 }) // let the call start
      yield* TestClock.adjust("31 seconds")
      const result = yield* Fiber.join(call)
      assert.strictEqual(TestClient.errorCode(result), "timeout")
    }).pipe(Effect.scoped, Effect.provide(Policy.layer({ timeout: "30 seconds" })))
  )
})

describe("exec with a fake command runner", () => {
  it.effect("the user confirms; the scripted run streams its lines as progress", () =>
    Effect.gen(function* () {
      const fake = FakeCommandRunner.make([
        { command: "npm", args: ["test"], lines: [["stdout", "12 passing"]], exitCode: 0, durationMs: 2000 }
      ])
      const client = yield* TestClient.make(ExecCapability.pipe(Layer.provide(fake.layer)), {
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      const progress: Array<string> = []
      const call = yield* Effect.forkChild(
        client.callTool(
          "exec_run",
          { command: "npm", args: ["test"] },
          { onProgress: (report) => Effect.sync(() => progress.push(report.message ?? "")) }
        )
      )
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* TestClock.adjust("3 seconds")
      const result = yield* Fiber.join(call)
      assert.strictEqual((result.structuredContent as { exitCode: number }).exitCode, 0)
      assert.include(progress, "12 passing")
      assert.deepStrictEqual(
        (yield* fake.calls).map((request) => request.args),
        [["test"]]
      )
    }).pipe(Effect.scoped, Effect.provide(Policy.layer({ progressInterval: 0 })))
  )
})

describe("the workspace capability on an in-memory workspace", () => {
  it.effect("reads, refuses secrets, and writes into memory", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make({ "README.md": "# Hello\n", ".env": "SECRET=1\n" })
      const client = yield* TestClient.make(WorkspaceCapability.pipe(Layer.provide(memory.layer)), {
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      const read = yield* client.callTool("workspace_read", { path: "README.md" })
      assert.include(TestClient.text(read), "# Hello")
      yield* client.expectToolError("workspace_read", { path: ".env" }, "path_rejected:denied")
      yield* client.callTool("workspace_write", { path: "notes/todo.md", content: "- test it\n" })
      assert.strictEqual((yield* memory.files)["notes/todo.md"], "- test it\n")
    }).pipe(Effect.scoped)
  )
})

// -- end of the example ----------------------------------------------------------

/** The code of a test file, from its first line after the imports (where the example starts) to `end`. */
const body = (source: string, end: string) => {
  const start = source.indexOf("// -- the capability under test")
  const stop = source.indexOf(end)
  return source.slice(start, stop === -1 ? undefined : stop).trim()
}

/** The named imports of a source, sorted, their module paths set aside. */
const importedNames = (source: string) =>
  [...source.matchAll(/^import (.+) from "[^"]+"$/gm)]
    .map((match) => match[1]!)
    .filter((names) => !names.includes("readFileSync"))
    .sort()

describe("docs/testing.md", () => {
  it("its complete test file is this file's code", () => {
    const page = readFileSync(new URL("../docs/testing.md", import.meta.url), "utf8")
    const section = page.slice(page.indexOf("## A complete test file"))
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
    assert.isDefined(example, "docs/testing.md has a complete test file")
    const self = readFileSync(new URL(import.meta.url), "utf8")
    assert.strictEqual(body(example!, "\u0000"), body(self, "// -- end of the example"))
    assert.deepStrictEqual(importedNames(example!), importedNames(self))
  })
})
