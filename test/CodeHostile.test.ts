/**
 * Hostile code against code mode: each case is sent to `code_run` through the
 * real server (TestClient) and must be stopped with a clear error (or, for
 * what the isolate contains, come back harmless), after which the server
 * still answers, and the host's own objects are untouched.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CodeCapability } from "../capabilities/code/index.ts"
import { CodeSettings, defaultCodeSettings } from "../capabilities/code/settings.ts"
import * as CodeStore from "../capabilities/code/store.ts"
import { SystemCapability } from "../capabilities/system/index.ts"
import * as QuickJsSandbox from "../layers/QuickJsSandbox.ts"
import * as Capability from "../src/Capability.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

const removed = { count: 0 }

const destructive = Capability.make(
  { id: "danger", description: "a destructive tool", version: "1" },
  Effect.succeed({
    tools: [
      Tool.make("wipe", { description: "Wipes everything.", annotations: { destructiveHint: true } }).pipe(
        Tool.handle(() => Effect.sync(() => String((removed.count += 1))))
      )
    ]
  })
)

const layer = Layer.mergeAll(
  CodeCapability.pipe(Layer.provide([QuickJsSandbox.layer, CodeStore.memory])),
  SystemCapability,
  destructive
)

// Small limits keep the corpus fast: a CPU-bound case blocks the event loop for its slice.
const settings = {
  ...defaultCodeSettings,
  cpuMs: 300,
  memoryBytes: 16 * 1024 * 1024,
  maxCalls: 200,
  maxCodeBytes: 20_000,
  maxResultBytes: 100_000,
  maxConsoleBytes: 10_000
}

type Expect =
  | { readonly error: string; readonly says?: RegExp }
  | { readonly value: (value: unknown, result: any) => void }

interface Case {
  readonly name: string
  readonly code: string
  readonly expect: Expect
}

const error = (code: string, says?: RegExp): Expect => ({ error: code, ...(says === undefined ? {} : { says }) })
const value = (check: (value: unknown, result: any) => void): Expect => ({ value: check })

const cases: ReadonlyArray<Case> = [
  // CPU
  { name: "an infinite while loop", code: `while (true) {}`, expect: error("code_cpu", /CPU/) },
  {
    name: "an infinite for loop after a call",
    code: `await mcp.system.echo({ text: "x" }); for (;;) {}`,
    expect: error("code_cpu")
  },
  {
    name: "a loop that catches everything",
    code: `while (true) { try { for (;;) {} } catch (e) {} }`,
    expect: error("code_cpu")
  },
  {
    name: "catastrophic regular expression backtracking",
    code: `return /(a+)+$/.test("a".repeat(40) + "b")`,
    expect: error("code_cpu")
  },
  // memory and stack
  {
    name: "a memory bomb",
    code: `const a = []; while (true) a.push("x".repeat(1e6) + a.length)`,
    expect: error("code_memory")
  },
  { name: "a huge array", code: `return new Array(1e9).fill(0).length`, expect: error("code_memory") },
  {
    name: "a string doubling forever",
    code: `let s = "x"; while (true) s += s`,
    expect: error("code_thrown", /string too long/)
  },
  { name: "deep recursion", code: `function f(n) { return f(n + 1) + 1 } return f(0)`, expect: error("code_stack") },
  { name: "deep arrow recursion", code: `const f = () => f(); f()`, expect: error("code_stack") },
  {
    name: "a deeply nested returned value",
    code: `let o = {}; for (let i = 0; i < 200000; i++) o = { o }; return o`,
    expect: error("code_stack")
  },
  // reaching the host
  {
    name: "process is not there",
    code: `return typeof process`,
    expect: value((v) => assert.strictEqual(v, "undefined"))
  },
  {
    name: "process.exit",
    code: `process.exit(1)`,
    expect: error("code_thrown", /ReferenceError: .?process.? is not defined/)
  },
  {
    name: "require",
    code: `const fs = require("fs"); return fs.readFileSync("/etc/passwd", "utf8")`,
    expect: error("code_refused", /require|module/i)
  },
  {
    name: "dynamic import",
    code: `const fs = await import("node:fs"); return 1`,
    expect: error("code_refused", /import/)
  },
  { name: "a static import", code: `import fs from "node:fs"\nreturn 1`, expect: error("code_refused", /import/) },
  {
    name: "the Function constructor reached through a prototype",
    code: `return (() => {}).constructor("return typeof process")()`,
    expect: value((v) => assert.strictEqual(v, "undefined"))
  },
  {
    name: "globalThis has no host objects",
    code: `return Object.getOwnPropertyNames(globalThis).filter((n) => ["process", "require", "fetch", "setTimeout", "Buffer", "module"].includes(n))`,
    expect: value((v) => assert.deepStrictEqual(v, []))
  },
  { name: "no timers", code: `setTimeout(() => {}, 10)`, expect: error("code_thrown", /setTimeout/) },
  { name: "no network", code: `return await fetch("http://127.0.0.1/")`, expect: error("code_thrown", /fetch/) },
  // getting around the static check
  { name: "eval", code: `return eval("mcp.danger.wipe({})")`, expect: error("code_refused") },
  { name: "an alias of mcp", code: `const m = mcp; return await m.danger.wipe({})`, expect: error("code_refused") },
  {
    name: "a computed namespace",
    code: `const ns = ["dan", "ger"].join(""); return await mcp[ns].wipe({})`,
    expect: error("code_refused", /written out|checked/)
  },
  { name: "globalThis.mcp", code: `return await globalThis.mcp.danger.wipe({})`, expect: error("code_refused") },
  {
    name: "the global object aliased",
    code: `const g = globalThis; return g.mcp === undefined ? [] : Object.keys(g.mcp)`,
    expect: value((v) => assert.deepStrictEqual(v, []))
  },
  {
    name: "redeclaring mcp",
    code: `const mcp = { danger: { wipe: () => 1 } }; return mcp.danger.wipe()`,
    expect: error("code_refused", /reserved/)
  },
  { name: "breaking out of the wrapper", code: `}); process.exit(1); (async () => {`, expect: error("syntax_error") },
  // the host's objects
  {
    name: "prototype pollution inside the isolate",
    code: `Object.prototype.polluted = "yes"; Array.prototype.push = () => 0; return ({}).polluted`,
    expect: value((v) => assert.strictEqual(v, "yes"))
  },
  {
    name: "a __proto__ key in the returned value",
    code: `return JSON.parse('{"__proto__": {"polluted": "yes"}, "a": 1}')`,
    expect: value((_, result) => {
      assert.strictEqual(result.value.a, 1)
      assert.strictEqual(Object.getPrototypeOf(result.value), Object.prototype)
    })
  },
  {
    name: "a __proto__ key in a tool's arguments is an unexpected argument, not a prototype",
    code: `return (await mcp.system.echo(JSON.parse('{"__proto__": {"polluted": "yes"}, "text": "t"}'))).text`,
    expect: error("code_thrown", /__proto__: Unexpected key/)
  },
  // outputs
  { name: "a huge result", code: `return "x".repeat(1_000_000)`, expect: error("code_result", /bytes/) },
  { name: "a BigInt result", code: `return 10n`, expect: error("code_result") },
  { name: "a cyclic result", code: `const a = {}; a.self = a; return a`, expect: error("code_result") },
  {
    name: "a flood of console output",
    code: `for (let i = 0; i < 100000; i++) console.log("line", i, "x".repeat(50)); return "done"`,
    expect: value((v, result) => {
      assert.strictEqual(v, "done")
      assert.isTrue(result.consoleTruncated)
      assert.isBelow(JSON.stringify(result.console).length, 20_000)
    })
  },
  { name: "source over the size limit", code: `return 1 // ${"x".repeat(30_000)}`, expect: error("code_too_large") },
  // tools
  {
    name: "a tool called 10,000 times",
    code: `for (let i = 0; i < 10000; i++) await mcp.system.echo({ text: String(i) })`,
    expect: error("code_calls", /200/)
  },
  {
    name: "a tool called 10,000 times at once",
    code: `await Promise.all(Array.from({ length: 10000 }, (_, i) => mcp.system.echo({ text: String(i) })))`,
    expect: error("code_calls")
  },
  {
    name: "the call cap cannot be caught",
    code: `for (let i = 0; i < 10000; i++) { try { await mcp.system.echo({ text: "x" }) } catch (e) {} } return "escaped"`,
    expect: error("code_calls")
  },
  {
    name: "a destructive tool without confirmation",
    code: `return await mcp.danger.wipe({})`,
    expect: error("code_thrown", /confirmation/)
  },
  {
    name: "arguments that are not an object",
    code: `return await mcp.system.echo("hi")`,
    expect: error("code_thrown", /object of arguments/)
  },
  // never settling, throwing
  { name: "a promise that never settles", code: `await new Promise(() => {})`, expect: error("code_unsettled") },
  { name: "an Error thrown", code: `throw new Error("boom")`, expect: error("code_thrown", /boom/) },
  { name: "a non-Error thrown", code: `throw { weird: true }`, expect: error("code_thrown") },
  { name: "a syntax error", code: `return (1 +`, expect: error("syntax_error") }
]

describe("hostile code", () => {
  it("has at least 30 cases", () => {
    assert.isAtLeast(cases.length, 30)
  })

  for (const hostile of cases) {
    it.effect(hostile.name, () =>
      Effect.gen(function* () {
        const client = yield* TestClient.make(layer)
        const result = yield* client.callTool("code_run", { code: hostile.code })
        if ("error" in hostile.expect) {
          assert.strictEqual(TestClient.errorCode(result), hostile.expect.error, TestClient.text(result))
          if (hostile.expect.says !== undefined) assert.match(TestClient.text(result), hostile.expect.says)
        } else {
          assert.notStrictEqual(result.isError, true, TestClient.text(result))
          const structured = result.structuredContent as { readonly value: unknown }
          hostile.expect.value(structured.value, structured)
        }
        // The server is unharmed, and so is the host.
        const echo = yield* client.callToolStructured("system_echo", { text: "still here" })
        assert.deepStrictEqual(echo, { text: "still here" })
        assert.strictEqual(({} as { polluted?: unknown }).polluted, undefined)
        assert.strictEqual([].push.name, "push")
        assert.strictEqual(removed.count, 0)
      }).pipe(
        Effect.scoped,
        Effect.provide(ServerConfig.layer({ shutdownGraceMs: 0 })),
        Effect.provideService(CodeSettings, settings)
      )
    )
  }
})
