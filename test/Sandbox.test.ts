/**
 * The code-mode sandbox on QuickJS (WebAssembly): values and input, the
 * async bridge to host calls (parallel, failing, limited, interrupted,
 * nested), console capture, every failure reason (syntax, thrown, cpu,
 * memory, stack, calls, result, unsettled), the absence of host APIs,
 * prototype pollution staying inside, and clean disposal of every isolate.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import * as QuickJsSandbox from "../layers/QuickJsSandbox.ts"
import {
  CallFailed,
  defaultLimits,
  type HostCall,
  type RunRequest,
  Sandbox,
  SandboxError,
  type SandboxErrorReason
} from "../src/Sandbox.ts"

const noCalls = () => Effect.die("no host call expected")

/** Runs code with no bindings unless given. */
const run = (code: string, request: Partial<RunRequest> = {}) =>
  Effect.flatMap(Effect.service(Sandbox), (sandbox) =>
    sandbox.run({ code, bindings: new Map(), call: noCalls, ...request })
  )

/** Runs code that must fail, and returns the failure. */
const runFailing = (code: string, request: Partial<RunRequest> = {}) =>
  Effect.flip(run(code, request)).pipe(Effect.tap((error) => Effect.sync(() => assert.instanceOf(error, SandboxError))))

const assertReason = (error: SandboxError, reason: SandboxErrorReason) =>
  assert.strictEqual(error.reason, reason, `expected ${reason}, got ${error.reason}: ${error.message}`)

/** Warnings logged while `effect` runs (a failed disposal logs one). */
const warningsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const warnings: Array<unknown> = []
  const capture = Logger.make((options) => {
    if (options.logLevel === "Warn" || options.logLevel === "Error") warnings.push(options.message)
  })
  return Effect.exit(effect).pipe(
    Effect.provide(Logger.layer([capture])),
    Effect.map((exit) => ({ exit, warnings }))
  )
}

layer(QuickJsSandbox.layer)("Sandbox (QuickJS)", (it) => {
  describe("values", () => {
    it.effect("returns the JSON value the code returns, and undefined when it returns nothing", () =>
      Effect.gen(function* () {
        const output = yield* run(
          "const xs = [1, 2, 3]\nreturn { sum: xs.reduce((a, b) => a + b, 0), s: 'é', n: null }"
        )
        const { cpuMs, ...rest } = output
        assert.deepStrictEqual(rest, {
          value: { sum: 6, s: "é", n: null },
          console: [],
          consoleTruncated: false,
          calls: 0
        })
        assert.isAbove(cpuMs, 0)
        assert.strictEqual((yield* run("const x = 1")).value, undefined)
        assert.strictEqual((yield* run("return () => 1")).value, undefined)
        assert.deepStrictEqual((yield* run("return [undefined, NaN, new Date(0)]")).value, [
          null,
          null,
          "1970-01-01T00:00:00.000Z"
        ])
      })
    )

    it.effect("the code is an async function body: top-level await and return", () =>
      Effect.gen(function* () {
        const output = yield* run(
          "const v = await Promise.resolve(20)\nconst w = await (async () => v + 1)()\nreturn w * 2"
        )
        assert.strictEqual(output.value, 42)
      })
    )

    it.effect("input is a global constant holding the JSON value, undefined when absent", () =>
      Effect.gen(function* () {
        const output = yield* run("input.list.push(4)\nreturn [input.list, typeof input.n, input.s]", {
          input: { list: [1, 2, 3], n: 1, s: "ü" }
        })
        assert.deepStrictEqual(output.value, [[1, 2, 3, 4], "number", "ü"])
        assert.strictEqual((yield* run("return typeof input")).value, "undefined")
        const reassigned = yield* run(
          "'use strict'\ntry { input = 2 } catch (e) { return e.name }\nreturn 'assigned'",
          {
            input: 1
          }
        )
        assert.strictEqual(reassigned.value, "TypeError")
      })
    )

    it.effect("a value JSON cannot represent (cycle, BigInt) fails with reason result", () =>
      Effect.gen(function* () {
        const cyclic = yield* runFailing("const o = {}\no.self = o\nreturn o")
        assertReason(cyclic, "result")
        assert.include(cyclic.message, "circular")
        const big = yield* runFailing("return { n: 10n }")
        assertReason(big, "result")
        assert.include(big.message, "BigInt")
      })
    )

    it.effect("a result larger than maxResultBytes fails with reason result", () =>
      Effect.gen(function* () {
        const error = yield* runFailing("return 'x'.repeat(2000)", { limits: { maxResultBytes: 1000 } })
        assertReason(error, "result")
        assert.include(error.message, "2002 bytes")
        assert.strictEqual(
          (yield* run("return 'x'.repeat(998)", { limits: { maxResultBytes: 1000 } })).value,
          "x".repeat(998)
        )
      })
    )
  })

  describe("console", () => {
    it.effect("captures every level, formatting arguments and joining them with spaces", () =>
      Effect.gen(function* () {
        const output = yield* run(
          [
            "console.log('a', 1, { b: [2] }, null, undefined, true)",
            "console.info('info')",
            "console.warn(new TypeError('bad'))",
            "console.error('error', 'x')",
            "console.debug()",
            "const cyclic = {}; cyclic.self = cyclic",
            "console.log(cyclic, 5n, Symbol('s'))",
            "return 1"
          ].join("\n")
        )
        assert.deepStrictEqual(output.console, [
          { level: "log", text: 'a 1 {"b":[2]} null undefined true' },
          { level: "info", text: "info" },
          { level: "warn", text: "TypeError: bad" },
          { level: "error", text: "error x" },
          { level: "debug", text: "" },
          { level: "log", text: "[object Object] 5 Symbol(s)" }
        ])
        assert.isFalse(output.consoleTruncated)
      })
    )

    it.effect("keeps at most maxConsoleBytes (a line counts its newline) and flags the rest as dropped", () =>
      Effect.gen(function* () {
        const output = yield* run("for (let i = 0; i < 100; i++) console.log('0123456789')\nreturn 'done'", {
          limits: { maxConsoleBytes: 25 }
        })
        assert.strictEqual(output.value, "done")
        assert.deepStrictEqual(output.console, [
          { level: "log", text: "0123456789" },
          { level: "log", text: "0123456789" },
          { level: "log", text: "01" }
        ])
        assert.isTrue(output.consoleTruncated)

        // A cut never splits a UTF-8 sequence; an exactly full console is not truncated.
        const cut = yield* run("console.log('ééé')", { limits: { maxConsoleBytes: 5 } })
        assert.deepStrictEqual(cut.console, [{ level: "log", text: "éé" }])
        const exact = yield* run("console.log('abcd')", { limits: { maxConsoleBytes: 5 } })
        assert.deepStrictEqual(exact.console, [{ level: "log", text: "abcd" }])
        assert.isFalse(exact.consoleTruncated)
      })
    )

    it.effect("a failed run carries the console lines written before the failure", () =>
      Effect.gen(function* () {
        const error = yield* runFailing("console.log('step 1')\nconsole.warn('step 2')\nthrow new Error('step 3')")
        assert.deepStrictEqual(error.console, [
          { level: "log", text: "step 1" },
          { level: "warn", text: "step 2" }
        ])
      })
    )
  })

  describe("host calls", () => {
    it.effect(
      "mcp.<namespace>.<name>(args) calls the host with the args as JSON and resolves with its JSON result",
      () =>
        Effect.gen(function* () {
          const seen: Array<HostCall> = []
          const output = yield* run(
            [
              "const a = await mcp.math.add({ a: 1, b: 2, when: new Date(0), skip: () => 1 })",
              "const b = await mcp['file-system']['read.file']({ path: 'x' })",
              "const c = await mcp.math.none()",
              "return { a, b, c }"
            ].join("\n"),
            {
              bindings: new Map([
                ["math", ["add", "none"]],
                ["file-system", ["read.file"]]
              ]),
              call: (call) =>
                Effect.sync(() => {
                  seen.push(call)
                  if (call.name === "add") {
                    const { a, b } = call.args as { a: number; b: number }
                    return { sum: a + b, list: [1, "two", null], nested: { deep: true } }
                  }
                  return call.name === "none" ? undefined : "text"
                })
            }
          )
          assert.deepStrictEqual(output.value, {
            a: { sum: 3, list: [1, "two", null], nested: { deep: true } },
            b: "text"
          })
          assert.strictEqual(output.calls, 3)
          assert.deepStrictEqual(seen, [
            { namespace: "math", name: "add", args: { a: 1, b: 2, when: "1970-01-01T00:00:00.000Z" } },
            { namespace: "file-system", name: "read.file", args: { path: "x" } },
            { namespace: "math", name: "none", args: undefined }
          ])
        })
    )

    it.effect("exposes exactly the bindings, on frozen objects without a prototype", () =>
      Effect.gen(function* () {
        const output = yield* run(
          [
            "'use strict'",
            "const attempts = []",
            "try { mcp.extra = {} } catch (e) { attempts.push(e.name) }",
            "try { mcp.ns.other = () => 1 } catch (e) { attempts.push(e.name) }",
            "try { mcp = null } catch (e) { attempts.push(e.name) }",
            "let missing",
            "try { await mcp.ns.nope() } catch (e) { missing = e.name }",
            "return {",
            "  namespaces: Object.keys(mcp), names: Object.keys(mcp.ns), proto: Object.getPrototypeOf(mcp),",
            "  nsProto: Object.getPrototypeOf(mcp.ns), frozen: Object.isFrozen(mcp) && Object.isFrozen(mcp.ns),",
            "  kind: typeof mcp.ns['get-x'], toString: typeof mcp.toString, attempts, missing",
            "}"
          ].join("\n"),
          { bindings: new Map([["ns", ["get-x", "a.b", "get-x"]]]) }
        )
        assert.deepStrictEqual(output.value, {
          namespaces: ["ns"],
          names: ["get-x", "a.b"],
          proto: null,
          nsProto: null,
          frozen: true,
          kind: "function",
          toString: "undefined",
          attempts: ["TypeError", "TypeError", "TypeError"],
          missing: "TypeError"
        })
      })
    )

    it.effect("calls run in parallel: Promise.all starts them all before any completes", () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const output = yield* run("return await Promise.all([mcp.t.wait({}), mcp.t.open({}), mcp.t.wait({})])", {
          bindings: new Map([["t", ["wait", "open"]]]),
          // `wait` completes only once `open` ran: sequential calls would never settle.
          call: (call) =>
            call.name === "open"
              ? Effect.as(Deferred.succeed(gate, undefined), "opened")
              : Effect.as(Deferred.await(gate), "waited")
        })
        assert.deepStrictEqual(output.value, ["waited", "opened", "waited"])
        assert.strictEqual(output.calls, 3)
      })
    )

    it.effect("a CallFailed rejects the promise with an Error carrying message, code and suggestion", () =>
      Effect.gen(function* () {
        const call = () =>
          Effect.fail(new CallFailed({ message: "No file named a.txt", code: "not_found", suggestion: "List first." }))
        const output = yield* run(
          "try { await mcp.fs.read({ path: 'a.txt' }) } catch (e) {\n  return [e instanceof Error, e.message, e.code, e.suggestion]\n}",
          { bindings: new Map([["fs", ["read"]]]), call }
        )
        assert.deepStrictEqual(output.value, [true, "No file named a.txt", "not_found", "List first."])

        const plain = yield* run("try { await mcp.fs.read() } catch (e) { return ['code' in e, 'suggestion' in e] }", {
          bindings: new Map([["fs", ["read"]]]),
          call: () => Effect.fail(new CallFailed({ message: "nope" }))
        })
        assert.deepStrictEqual(plain.value, [false, false])

        const uncaught = yield* runFailing("await mcp.fs.read({ path: 'a.txt' })", {
          bindings: new Map([["fs", ["read"]]]),
          call
        })
        assertReason(uncaught, "thrown")
        assert.include(uncaught.message, "No file named a.txt")
        assert.strictEqual(uncaught.line, 1)
      })
    )

    it.effect("args that are not JSON reject inside the sandbox, without calling the host", () =>
      Effect.gen(function* () {
        const output = yield* run("try { await mcp.a.b({ n: 1n }) } catch (e) { return e.name }", {
          bindings: new Map([["a", ["b"]]])
        })
        assert.strictEqual(output.value, "TypeError")
        assert.strictEqual(output.calls, 0)
      })
    )

    it.effect("past maxCalls the run fails with reason calls, even when the code catches the rejection", () =>
      Effect.gen(function* () {
        let hostCalls = 0
        const error = yield* runFailing(
          "let ok = 0\nwhile (true) { try { await mcp.a.b({}); ok++ } catch (e) { /* keep going */ } }",
          {
            bindings: new Map([["a", ["b"]]]),
            call: () => Effect.sync(() => ++hostCalls),
            limits: { maxCalls: 5 }
          }
        )
        assertReason(error, "calls")
        assert.include(error.message, "more than 5 mcp.* calls")
        assert.strictEqual(hostCalls, 5)
      })
    )

    it.effect("1000 sequential calls", () =>
      Effect.gen(function* () {
        const output = yield* run(
          "let n = 0\nfor (let i = 0; i < 1000; i++) n += (await mcp.a.b({ i })).ok\nreturn n",
          {
            bindings: new Map([["a", ["b"]]]),
            call: () => Effect.succeed({ ok: 1 })
          }
        )
        assert.strictEqual(output.value, 1000)
        assert.strictEqual(output.calls, 1000)
      })
    )

    it.effect("a host call may itself run the sandbox: nested runs are independent isolates", () =>
      Effect.gen(function* () {
        const sandbox = yield* Sandbox
        const output = yield* run(
          "globalThis.marker = 'outer'\nconst inner = await mcp.code.run({ code: 'return [typeof marker, input * 2]', input: 21 })\nreturn [marker, inner]",
          {
            bindings: new Map([["code", ["run"]]]),
            call: ({ args }) => {
              const { code, input } = args as { code: string; input: number }
              return sandbox.run({ code, input, bindings: new Map(), call: noCalls }).pipe(
                Effect.map((inner) => inner.value),
                Effect.catchTag("SandboxError", (error) => Effect.fail(new CallFailed({ message: error.message })))
              )
            }
          }
        )
        assert.deepStrictEqual(output.value, ["outer", ["undefined", 42]])
      })
    )

    it.effect("interrupting the run (a timeout) interrupts the host calls in flight", () =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const interrupted = yield* Deferred.make<void>()
        const fiber = yield* run("await mcp.slow.op({})\nreturn 'never'", {
          bindings: new Map([["slow", ["op"]]]),
          call: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.andThen(Effect.sleep("10 seconds")),
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        }).pipe(Effect.timeout("1 second"), Effect.exit, Effect.forkChild)
        yield* Deferred.await(started)
        yield* TestClock.adjust("1 second")
        const exit = yield* Fiber.join(fiber)
        assert.isTrue(Exit.isFailure(exit) && Cause.isTimeoutError(Cause.squash(exit.cause)))
        assert.isTrue(yield* Deferred.isDone(interrupted), "the host call's fiber was interrupted")
      })
    )

    it.effect("calls the code did not await are dispatched, and interrupted when the run ends", () =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<void>()
        const interrupted = yield* Deferred.make<void>()
        const output = yield* run("mcp.slow.op({})\nreturn 'returned'", {
          bindings: new Map([["slow", ["op"]]]),
          call: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        })
        assert.strictEqual(output.value, "returned")
        assert.strictEqual(output.calls, 1)
        assert.isTrue(yield* Deferred.isDone(started))
        assert.isTrue(yield* Deferred.isDone(interrupted))
      })
    )

    it.effect("a defect in a host call ends the run with that defect", () =>
      Effect.gen(function* () {
        const exit = yield* Effect.exit(
          run("try { await mcp.a.b() } catch (e) { return 'caught' }", {
            bindings: new Map([["a", ["b"]]]),
            call: () => Effect.die(new Error("host bug"))
          })
        )
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      })
    )
  })

  describe("failures", () => {
    it.effect("a syntax error fails with reason syntax and its line", () =>
      Effect.gen(function* () {
        const error = yield* runFailing("const a = 1\nconst b = ;\nreturn a")
        assertReason(error, "syntax")
        assert.strictEqual(error.line, 2)
        assert.include(error.message, "line 2")
        assertReason(yield* runFailing("const x: number = 1"), "syntax")
        assertReason(yield* runFailing("import fs from 'fs'"), "syntax")
      })
    )

    it.effect("an uncaught exception fails with reason thrown, its message, the code's line and frames", () =>
      Effect.gen(function* () {
        const error = yield* runFailing(
          "function check(x) {\n  if (x > 1) throw new RangeError('too big: ' + x)\n}\n\ncheck(5)"
        )
        assertReason(error, "thrown")
        assert.include(error.message, "RangeError: too big: 5")
        assert.include(error.message, "at check (line 2")
        assert.strictEqual(error.line, 2)
        const late = yield* runFailing("await null\nawait null\nthrow new Error('late')")
        assert.strictEqual(late.line, 3)
        const value = yield* runFailing("throw { code: 42 }")
        assertReason(value, "thrown")
        assert.include(value.message, 'value: {"code":42}')
      })
    )

    it.effect("a loop past cpuMs fails with reason cpu, even when the code catches the interrupt", () =>
      Effect.gen(function* () {
        const error = yield* runFailing("while (true) {}", { limits: { cpuMs: 200 } })
        assertReason(error, "cpu")
        assert.include(error.message, "more than 200 ms of CPU time")
        const caught = yield* runFailing("for (;;) { try { while (true) {} } catch (e) {} }", {
          limits: { cpuMs: 100 }
        })
        assertReason(caught, "cpu")
        const inJobs = yield* runFailing("await null\nfor (;;) { await null }", { limits: { cpuMs: 100 } })
        assertReason(inJobs, "cpu")
      })
    )

    it.effect("cpu is enforced between expensive built-in calls too (QuickJS polls only every 10,000 ticks)", () =>
      Effect.gen(function* () {
        const started = performance.now()
        const error = yield* runFailing("let n = 0\nwhile (true) n += 'x'.repeat(1e6).length", {
          limits: { cpuMs: 200 }
        })
        assertReason(error, "cpu")
        assert.isBelow(performance.now() - started, 2000)
      })
    )

    it.effect("time spent waiting for host calls does not count as cpu", () =>
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const fiber = yield* run("return await mcp.t.wait({})", {
          bindings: new Map([["t", ["wait"]]]),
          call: () => Effect.as(Deferred.await(gate), "ok"),
          limits: { cpuMs: 50 }
        }).pipe(Effect.forkChild)
        // Real time passes on the host (a busy wait outside the sandbox) while the call is in flight.
        yield* Effect.sync(() => {
          const until = performance.now() + 100
          while (performance.now() < until) {
            // busy
          }
        })
        yield* Deferred.succeed(gate, undefined)
        assert.strictEqual((yield* Fiber.join(fiber)).value, "ok")
      })
    )

    it.effect("a memory bomb fails with reason memory, caught or not", () =>
      Effect.gen(function* () {
        const bomb = yield* runFailing("let a = []\nwhile (true) a.push('x'.repeat(1e6))", {
          limits: { memoryBytes: 16 * 1024 * 1024 }
        })
        assertReason(bomb, "memory")
        assert.include(bomb.message, "16 MiB")
        const typed = yield* runFailing(
          "const keep = []\ntry { while (true) keep.push(new Uint8Array(1 << 20)) } catch (e) { return 'caught' }",
          { limits: { memoryBytes: 16 * 1024 * 1024 } }
        )
        assertReason(typed, "memory")
        const objects = yield* runFailing(
          "const keep = []\nwhile (true) keep.push({ n: keep.length, s: 'v' + keep.length })",
          {
            limits: { memoryBytes: 16 * 1024 * 1024 }
          }
        )
        assertReason(objects, "memory")
        // The same code within the limit runs.
        const fits = yield* run("const a = []\nfor (let i = 0; i < 8; i++) a.push('x'.repeat(1e6))\nreturn a.length", {
          limits: { memoryBytes: 16 * 1024 * 1024 }
        })
        assert.strictEqual(fits.value, 8)
      })
    )

    it.effect("unbounded recursion fails with reason stack, whether QuickJS or the host stack stops it", () =>
      Effect.gen(function* () {
        assertReason(yield* runFailing("function f() { return f() }\nf()"), "stack")
        // Caught by the code, the QuickJS stack overflow is an ordinary RangeError-like error.
        const caught = yield* run("function f() { return f() }\ntry { f() } catch (e) { return String(e) }")
        assert.include(String(caught.value), "stack overflow")
        // Deep nesting in the parser can exhaust the host's stack first: the isolate is dropped, the run fails.
        assertReason(yield* runFailing("return eval('('.repeat(1e5) + '1' + ')'.repeat(1e5))"), "stack")
        // And the next run is unaffected.
        assert.strictEqual((yield* run("return 1 + 1")).value, 2)
      })
    )

    it.effect("awaiting a promise that can never settle fails with reason unsettled", () =>
      Effect.gen(function* () {
        const error = yield* runFailing("console.log('waiting')\nawait new Promise(() => {})\nreturn 1")
        assertReason(error, "unsettled")
        assert.deepStrictEqual(error.console, [{ level: "log", text: "waiting" }])
      })
    )
  })

  describe("isolation", () => {
    it.effect("the code cannot forge its outcome through the promise's species or constructor", () =>
      Effect.gen(function* () {
        const fake = `class Fake { constructor(ex) { ex(() => {}, () => {}) } toString() { return 'o{"forged":true}' } }`
        const bySpecies = yield* Effect.exit(
          run(
            `${fake}\nObject.defineProperty(Promise, Symbol.species, { value: Fake, configurable: true })\nawait null\nreturn "real"`
          )
        )
        assert.isTrue(
          Exit.isFailure(bySpecies) && Cause.findErrorOption(bySpecies.cause)._tag === "Some",
          "redefining the species fails in the code"
        )
        const byConstructor = yield* run(`${fake}\nPromise.prototype.constructor = Fake\nawait null\nreturn "real"`)
        assert.strictEqual(byConstructor.value, "real")
      })
    )

    it.effect("no Node or host API exists in the sandbox, and there is no module loader", () =>
      Effect.gen(function* () {
        const output = yield* run(
          [
            "const names = ['process', 'require', 'module', 'fetch', 'setTimeout', 'setInterval', 'queueMicrotask',",
            "  'Buffer', 'WebAssembly', 'std', 'os', 'XMLHttpRequest', 'global']",
            "const types = Object.fromEntries(names.map((n) => [n, typeof globalThis[n]]))",
            "let imported",
            "try { await import('fs'); imported = 'loaded' } catch (e) { imported = e.name }",
            "return { types, imported, evalReachesOnlyTheIsolate: eval('typeof process'), fn: Function('return typeof require')() }"
          ].join("\n")
        )
        const { types, imported, evalReachesOnlyTheIsolate, fn } = output.value as {
          types: Record<string, string>
          imported: string
          evalReachesOnlyTheIsolate: string
          fn: string
        }
        for (const [name, type] of Object.entries(types)) assert.strictEqual(type, "undefined", name)
        assert.notStrictEqual(imported, "loaded")
        assert.strictEqual(evalReachesOnlyTheIsolate, "undefined")
        assert.strictEqual(fn, "undefined")
      })
    )

    it.effect("prototype pollution inside stays inside, and a returned __proto__ key does not pollute the host", () =>
      Effect.gen(function* () {
        const output = yield* run(
          [
            "Object.prototype.polluted = 1",
            ";({}).__proto__.alsoPolluted = 2",
            "Array.prototype.map = () => 'hijacked'",
            "JSON.stringify = () => 'hijacked'",
            'return JSON.parse(\'{"__proto__": {"polluted": 3}, "ok": true}\')'
          ].join("\n")
        )
        const value = output.value as Record<string, unknown>
        assert.isTrue(value["ok"])
        assert.isTrue(Object.hasOwn(value, "__proto__"), "the key is an own property on the host")
        assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
        assert.strictEqual(({} as Record<string, unknown>)["alsoPolluted"], undefined)
        assert.deepStrictEqual(
          [1].map((n) => n + 1),
          [2]
        )
        // The next run starts from pristine built-ins.
        assert.deepStrictEqual((yield* run("return [({}).polluted, [1].map((n) => n * 3)]")).value, [null, [3]])
      })
    )

    it.effect("host call results with a __proto__ key stay data in the sandbox and on the host", () =>
      Effect.gen(function* () {
        const output = yield* run(
          "const r = await mcp.a.b({ __proto__: { x: 1 }, y: 2 })\nreturn [({}).x, r.y, Object.keys(r)]",
          {
            bindings: new Map([["a", ["b"]]]),
            call: () => Effect.succeed(JSON.parse('{"__proto__": {"x": 9}, "y": 3}'))
          }
        )
        assert.deepStrictEqual(output.value, [null, 3, ["__proto__", "y"]])
        assert.strictEqual(({} as Record<string, unknown>)["x"], undefined)
      })
    )

    it.effect("every isolate is disposed cleanly: after success, every failure, and interruption", () =>
      Effect.gen(function* () {
        const bindings = new Map([["a", ["b", "never"]]])
        const call = (hostCall: HostCall) => (hostCall.name === "never" ? Effect.never : Effect.succeed({ ok: 1 }))
        const runs = [
          run("mcp.a.never(); mcp.a.never()\nreturn await mcp.a.b()", { bindings, call }),
          run("mcp.a.never()\nthrow new Error('x')", { bindings, call }),
          run("const p = mcp.a.never()\nwhile (true) {}", { bindings, call, limits: { cpuMs: 50 } }),
          run("mcp.a.never()\nlet a = []\nwhile (true) a.push('x'.repeat(1e5))", {
            bindings,
            call,
            limits: { memoryBytes: 8 * 1024 * 1024 }
          }),
          run("const x = ", { bindings, call }),
          run("return 1n", { bindings, call }),
          run("await new Promise(() => {})", { bindings, call })
        ]
        for (const effect of runs) {
          const { warnings } = yield* warningsOf(effect)
          assert.deepStrictEqual(warnings, [])
        }
        // Interrupted while host calls are in flight.
        const started = yield* Deferred.make<void>()
        const fiber = yield* warningsOf(
          run("mcp.a.never()\nawait mcp.a.b()", {
            bindings,
            call: (hostCall) =>
              hostCall.name === "b" ? Effect.andThen(Deferred.succeed(started, undefined), Effect.never) : Effect.never
          })
        ).pipe(Effect.forkChild)
        yield* Deferred.await(started)
        yield* Fiber.interrupt(fiber)
        const interrupted = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(interrupted) && Cause.hasInterruptsOnly(interrupted.cause))
      })
    )

    it.effect("the limits default to the documented values", () =>
      Effect.sync(() => {
        assert.deepStrictEqual(defaultLimits, {
          memoryBytes: 64 * 1024 * 1024,
          stackBytes: 256 * 1024,
          cpuMs: 5000,
          maxCalls: 1000,
          maxConsoleBytes: 64 * 1024,
          maxResultBytes: 1024 * 1024
        })
      })
    )
  })
})
