/**
 * Code mode end to end through the real server and codec (TestClient): code
 * that calls tools as `mcp.<namespace>.<tool>()` runs in a real QuickJS
 * isolate, each call through the whole tools/call pipeline (gate,
 * confirmation, policy, audit); learned capabilities are saved, published as
 * dynamic tools, called from code and directly, shown, listed and deleted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Tracer from "effect/Tracer"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { CodeCapability } from "../capabilities/code/index.ts"
import { ExecCapability } from "../capabilities/exec/index.ts"
import { defaultExecSettings, ExecSettings } from "../capabilities/exec/settings.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import { Confirmation } from "../src/Confirmation.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { CodeSettings, defaultCodeSettings } from "../capabilities/code/settings.ts"
import * as CodeStore from "../capabilities/code/store.ts"
import { SystemCapability } from "../capabilities/system/index.ts"
import * as QuickJsSandbox from "../layers/QuickJsSandbox.ts"
import { AuditLog, type Call } from "../src/AuditLog.ts"
import * as Capability from "../src/Capability.ts"
import { Gate, fromRules } from "../src/Gate.ts"
import * as Policy from "../src/Policy.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

const quiet = ServerConfig.layer({ shutdownGraceMs: 0 })

/** Tools for the code to call: one that fails, a destructive one, a slow one that notes its interruption. */
const toolsFor = (interrupted: { count: number; readonly started?: Deferred.Deferred<void> }) =>
  Capability.make(
    { id: "t", description: "test tools", version: "1" },
    Effect.succeed({
      tools: [
        Tool.make("fail", { description: "Always fails." }).pipe(
          Tool.handle(() =>
            Effect.fail(new Tool.ToolError({ message: "it broke", code: "broken", suggestion: "call t_add" }))
          )
        ),
        Tool.make("add", {
          description: "Adds two numbers.",
          input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
          output: Schema.Struct({ sum: Schema.Finite })
        }).pipe(Tool.handle(({ a, b }) => Effect.succeed({ sum: a + b }))),
        Tool.make("remove", {
          description: "Removes everything.",
          annotations: { destructiveHint: true }
        }).pipe(Tool.handle(() => Effect.succeed("removed"))),
        Tool.make("slow", { description: "Sleeps for a minute." }).pipe(
          Tool.handle(() =>
            Effect.as(
              Effect.andThen(
                interrupted.started === undefined ? Effect.void : Deferred.succeed(interrupted.started, undefined),
                Effect.sleep("1 minute")
              ),
              "done"
            ).pipe(Effect.onInterrupt(() => Effect.sync(() => void (interrupted.count += 1))))
          )
        )
      ]
    })
  )

const codeLayer = CodeCapability.pipe(Layer.provide([QuickJsSandbox.layer, CodeStore.memory]))

const serverWith = (interrupted = { count: 0 }, options: TestClient.Options = {}) =>
  TestClient.make(Layer.mergeAll(codeLayer, SystemCapability, toolsFor(interrupted)), options)

// The test kit's runCode: code_run's structured result, or UnexpectedResult when the run failed.
const runCode = (client: TestClient.TestClient, code: string): Effect.Effect<any, unknown> => client.runCode(code)

describe("code_run", () => {
  it.effect("calls tools as mcp.<namespace>.<tool>() and reports each call", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(
        client,
        `const a = await mcp.system.echo({ text: "hi" })
         const b = await mcp.t.add({ a: 2, b: 3 })
         console.log("sum is", b.sum)
         return { echoed: a.text, sum: b.sum }`
      )
      assert.deepStrictEqual(result.value, { echoed: "hi", sum: 5 })
      assert.deepStrictEqual(result.console, [{ level: "log", text: "sum is 5" }])
      assert.deepStrictEqual(
        result.calls.map((call: any) => [call.tool, call.outcome]),
        [
          ["system_echo", "ok"],
          ["t_add", "ok"]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("strips TypeScript types and runs calls in parallel", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(
        client,
        `interface Sum { sum: number }
         const pairs: Array<[number, number]> = [[1, 2], [3, 4], [5, 6]]
         const sums = await Promise.all(pairs.map(([a, b]) => mcp.t.add({ a, b }) as Promise<Sum>))
         return sums.map((s: Sum) => s.sum)`
      )
      assert.deepStrictEqual(result.value, [3, 7, 11])
      assert.strictEqual(result.calls.length, 3)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("an unknown tool is refused before anything runs, naming the nearest tools", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.expectToolError(
        "code_run",
        { code: `console.log("ran"); await mcp.system.ecko({ text: "x" })` },
        "unknown_tool"
      )
      const text = TestClient.text(result)
      assert.include(text, "mcp.system.ecko is not a tool")
      assert.include(text, "mcp.system.echo")
      assert.include(text, "line 1")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("computed access to mcp is refused with an explanation", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.expectToolError(
        "code_run",
        { code: `const name = "echo"; return await mcp.system[name]({ text: "x" })` },
        "code_refused"
      )
      assert.match(TestClient.text(result), /written out|checked before/)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a failed call rejects with the tool's message, code and suggestion, which code can catch", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(
        client,
        `try { await mcp.t.fail({}) } catch (e) { return { message: e.message, code: e.code, suggestion: e.suggestion } }`
      )
      assert.strictEqual(result.value.code, "broken")
      assert.include(result.value.message, "it broke")
      assert.strictEqual(result.value.suggestion, "call t_add")
      assert.deepStrictEqual(result.calls[0].outcome, "broken")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("an uncaught failed call ends the run with the error, the calls made and the console", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.expectToolError(
        "code_run",
        { code: `console.log("before"); await mcp.t.add({ a: 1, b: 1 }); await mcp.t.fail({})` },
        "code_thrown"
      )
      const text = TestClient.text(result)
      assert.include(text, "it broke")
      assert.include(text, "before")
      assert.include(text, "t_add: ok")
      assert.include(text, "t_fail: broken")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("invalid arguments of a call are the tool's invalid_arguments error", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(client, `try { await mcp.t.add({ a: "x" }) } catch (e) { return e.code }`)
      assert.strictEqual(result.value, "invalid_arguments")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a destructive tool needs confirmation inside code too", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const refused = yield* runCode(client, `try { await mcp.t.remove({}) } catch (e) { return e.code }`)
      assert.strictEqual(refused.value, "confirmation_required")
      // A client that can ask its user is asked, and the call goes on once the user agreed.
      const asked: Array<string> = []
      const asking = yield* serverWith(
        { count: 0 },
        {
          elicitation: (params) =>
            Effect.sync(() => {
              asked.push(params.message)
              return { action: "accept", content: { confirm: true } }
            })
        }
      )
      const confirmed = yield* runCode(asking, `return await mcp.t.remove({})`)
      assert.strictEqual(confirmed.value, "removed")
      assert.strictEqual(asked.length, 1)
      assert.include(asked[0]!, "t_remove")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("the gate applies to every call made from code", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(client, `try { await mcp.t.add({ a: 1, b: 2 }) } catch (e) { return e.code }`)
      assert.strictEqual(result.value, "denied")
    }).pipe(
      Effect.scoped,
      Effect.provide(quiet),
      Effect.provideService(Gate, fromRules({ rules: [{ effect: "deny", names: ["t_add"] }] }))
    )
  )

  it.effect("every call is audited with a correlation id under the run's", () =>
    Effect.gen(function* () {
      const records: Array<Call> = []
      const client = yield* serverWith().pipe(
        Effect.provideService(AuditLog, { record: (call) => Effect.sync(() => void records.push(call)) })
      )
      yield* runCode(client, `await mcp.system.echo({ text: "a" }); await mcp.t.add({ a: 1, b: 2 })`)
      const run = records.find((record) => record.tool === "code_run")!
      const inner = records.filter((record) => record.tool !== "code_run")
      assert.deepStrictEqual(
        inner.map((record) => [record.tool, record.outcome, record.correlationId]),
        [
          ["system_echo", "ok", `${run.correlationId}/1`],
          ["t_add", "ok", `${run.correlationId}/2`]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a timeout of code_run interrupts the sandbox and the tool call in flight", () =>
    Effect.gen(function* () {
      const interrupted = { count: 0, started: yield* Deferred.make<void>() }
      const client = yield* serverWith(interrupted)
      const fiber = yield* Effect.forkChild(client.callTool("code_run", { code: `await mcp.t.slow({})` }))
      // The first run compiles QuickJS (real I/O): the clock moves once the call is in flight.
      yield* Deferred.await(interrupted.started)
      yield* TestClock.adjust("40 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(TestClient.errorCode(result), "timeout")
      assert.strictEqual(interrupted.count, 1)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ timeout: "30 seconds" }))))
  )

  it.effect(
    "a client of an old revision: calls still resolve to structured values (only the answer is downgraded)",
    () =>
      Effect.gen(function* () {
        const client = yield* serverWith({ count: 0 }, { protocolVersion: "2024-11-05" })
        const result = yield* client.callTool("code_run", { code: `return (await mcp.t.add({ a: 2, b: 2 })).sum` })
        assert.isUndefined(result.structuredContent)
        assert.strictEqual(JSON.parse(TestClient.text(result)).value, 4)
      }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("calls from code run even when code_run holds the server's only slot", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* runCode(client, `return (await mcp.t.add({ a: 1, b: 1 })).sum`)
      assert.strictEqual(result.value, 2)
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.merge(quiet, Policy.layer({ maxConcurrent: 1, queueTimeout: "1 second" })))
    )
  )

  it.effect("a client that asked for progress hears of each call as it ends", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const reports: Array<TestClient.ProgressReport> = []
      const result = yield* client.callTool(
        "code_run",
        { code: `await mcp.system.echo({ text: "a" }); await mcp.t.add({ a: 1, b: 2 }); return "done"` },
        { onProgress: (report) => Effect.sync(() => void reports.push(report)) }
      )
      assert.notStrictEqual(result.isError, true)
      assert.deepStrictEqual(
        reports.map((report) => [report.progress, report.message]),
        [
          [1, "system_echo: ok"],
          [2, "t_add: ok"]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ progressInterval: 0 }))))
  )

  it.effect("code mode's own tools cannot be called from code", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.expectToolError(
        "code_run",
        { code: `return await mcp.code.run({ code: "return 1" })` },
        "unknown_tool"
      )
      assert.include(TestClient.text(result), "cannot be called from code")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("the call cap stops a run that calls a tool too often", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.expectToolError(
        "code_run",
        { code: `for (let i = 0; i < 100; i++) await mcp.system.echo({ text: String(i) })` },
        "code_calls"
      )
      assert.include(TestClient.text(result), "10")
    }).pipe(
      Effect.scoped,
      Effect.provide(quiet),
      Effect.provideService(CodeSettings, { ...defaultCodeSettings, maxCalls: 10 })
    )
  )
})

const root = realpathSync(mkdtempSync(join(tmpdir(), "code-capability-")))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const wallSleep = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/** The live (non-zombie) processes of a process group, from the real process table. */
const liveMembers = (pgid: number): number =>
  execFileSync("ps", ["-eo", "pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([group, stat]) => Number(group) === pgid && stat !== undefined && !stat.startsWith("Z")).length

describe("cancellation", () => {
  it.effect(
    "cancelling code_run interrupts the isolate and the call in flight: the command's process tree is killed",
    () =>
      Effect.gen(function* () {
        const pidFile = join(root, `pid-${Math.random().toString(36).slice(2)}`)
        const exec = ExecCapability.pipe(
          Layer.provide(NodeCommandRunner.layer({ killGrace: "300 millis" })),
          Layer.provide(Layer.succeed(ExecSettings, { ...defaultExecSettings, commands: ["sh"] }))
        )
        const client = yield* TestClient.make(Layer.mergeAll(codeLayer, exec)).pipe(
          Effect.provide(
            Layer.mergeAll(Layer.succeed(Confirmation, { preApproved: ["exec_*"] }), Layer.succeed(WorkspaceRoot, root))
          )
        )
        const { id, response } = yield* client.send("tools/call", {
          name: "code_run",
          arguments: {
            code: `await mcp.exec.run({ command: "sh", args: ["-c", ${JSON.stringify(`echo $$ > ${pidFile}; sleep 30 & sleep 30 & wait`)}] })`
          }
        })
        let pid = 0
        for (let i = 0; i < 500 && pid === 0; i++) {
          yield* wallSleep(10)
          pid = Number(
            (() => {
              try {
                return readFileSync(pidFile, "utf8").trim()
              } catch {
                return "0"
              }
            })()
          )
        }
        assert.isAbove(pid, 0, "the command started")
        for (let i = 0; i < 500 && liveMembers(pid) < 3; i++) yield* wallSleep(10)
        assert.strictEqual(liveMembers(pid), 3, "the shell and its two sleeps run")
        yield* client.cancel(id, "changed my mind")
        for (let i = 0; i < 500 && liveMembers(pid) > 0; i++) yield* wallSleep(10)
        assert.strictEqual(liveMembers(pid), 0, "no process of the command is left")
        // A cancelled request is not answered.
        const answered = yield* Effect.raceFirst(
          Effect.map(response, () => "answered"),
          Effect.as(wallSleep(200), "not answered")
        )
        assert.strictEqual(answered, "not answered")
      }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("spans", () => {
  it.effect("each call's span is a child of the run's, itself a child of the code_run request's", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const client = yield* serverWith().pipe(Effect.provideService(Tracer.Tracer, tracer))
      yield* runCode(client, `await mcp.system.echo({ text: "a" }); try { await mcp.t.fail({}) } catch {}`)
      const request = spans.find(
        (span) => span.name === "tools/call" && Object.fromEntries(span.attributes)["mcp.tool.name"] === "code_run"
      )!
      const run = spans.find((span) => span.name === "code.run")!
      const nested = spans.filter((span) => Object.fromEntries(span.attributes)["mcp.nested"] === true)
      assert.strictEqual(run.parent._tag === "Some" && run.parent.value.spanId, request.spanId)
      assert.deepStrictEqual(
        nested.map((span) => {
          const attributes = Object.fromEntries(span.attributes)
          return [
            attributes["mcp.tool.name"],
            attributes["mcp.outcome"],
            span.parent._tag === "Some" && span.parent.value.spanId
          ]
        }),
        [
          ["system_echo", "ok", run.spanId],
          ["t_fail", "broken", run.spanId]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("code_types", () => {
  it.effect("declares every callable tool from its schemas, and follows new learned capabilities", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const before = TestClient.text(yield* client.callTool("code_types", {}))
      assert.include(before, "declare const mcp")
      assert.include(before, "readonly system:")
      assert.match(before, /echo\(args: \{/)
      assert.match(before, /add\(args: \{[\s\S]*readonly a: number/)
      assert.notInclude(before, "readonly code:")
      yield* client.callToolStructured("code_save", {
        name: "math:double",
        description: "Doubles a number.",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        code: `return (await mcp.t.add({ a: input.n, b: input.n })).sum`
      })
      const after = TestClient.text(yield* client.callTool("code_types", { namespaces: ["math"] }))
      assert.include(after, "readonly math:")
      assert.include(after, "double(args: {")
      assert.notInclude(after, "readonly system:")
      const resource = yield* client.readResource("code://types.d.ts")
      assert.include(resource[0].text, "readonly math:")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("learned capabilities", () => {
  const double = {
    name: "math:double",
    description: "Doubles a number.",
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    code: `const r = await mcp.t.add({ a: input.n, b: input.n }); return { doubled: r.sum }`
  }

  it.effect("saved, published as app_<namespace>_<action>, callable from code and directly", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const saved = yield* client.callToolStructured("code_save", double)
      assert.deepStrictEqual(saved, {
        name: "math:double",
        tool: "app_math_double",
        call: "mcp.math.double(args)",
        references: ["t_add"]
      })
      yield* client.awaitNotification("notifications/tools/list_changed")
      const tools = (yield* client.listTools).map((tool) => tool.name)
      assert.include(tools, "app_math_double")
      const direct = yield* client.callToolStructured("app_math_double", { n: 4 })
      assert.deepStrictEqual(direct, { doubled: 8 })
      const fromCode = yield* runCode(client, `return (await mcp.math.double({ n: 21 })).doubled`)
      assert.strictEqual(fromCode.value, 42)
      assert.deepStrictEqual(
        fromCode.calls.map((call: any) => call.tool),
        ["app_math_double"]
      )
      const invalid = yield* client.callTool("app_math_double", { n: "four" })
      assert.strictEqual(TestClient.errorCode(invalid), "invalid_arguments")
      const listed = yield* client.callToolStructured("code_list", {})
      assert.deepStrictEqual(
        listed.learned.map((entry: any) => entry.name),
        ["math:double"]
      )
      const shown = yield* client.callToolStructured("code_show", { name: "math:double" })
      assert.strictEqual(shown.code, double.code)
      const exists = yield* client.expectToolError("code_save", double, "exists")
      assert.include(TestClient.text(exists), "replace: true")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a learned capability may not call another one: refused when saved", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", double)
      const result = yield* client.expectToolError(
        "code_save",
        {
          name: "math:quadruple",
          description: "Four times.",
          code: `return (await mcp.math.double({ n: input.n })).doubled * 2`
        },
        "unknown_tool"
      )
      assert.include(TestClient.text(result), "not another learned capability")
      // code_run may call it: only learned capabilities are kept from calling each other.
      const ok = yield* runCode(client, `return (await mcp.math.double({ n: 1 })).doubled`)
      assert.strictEqual(ok.value, 2)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("names are checked: the pattern, a capability's namespace, a schema Effect cannot enforce", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.expectToolError("code_save", { ...double, name: "Math:double" }, "invalid_name")
      yield* client.expectToolError("code_save", { ...double, name: "system:double" }, "namespace_taken")
      yield* client.expectToolError("code_save", { ...double, inputSchema: { type: "array" } }, "invalid_input_schema")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("refused: a schema that refers to itself without end, a name that differs from another only in case", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const cyclic = yield* client.expectToolError(
        "code_save",
        {
          name: "loop:self",
          description: "x",
          code: "return 1",
          inputSchema: {
            type: "object",
            $defs: { x: { $ref: "#/$defs/y" }, y: { $ref: "#/$defs/x" } },
            properties: { a: { $ref: "#/$defs/x" } }
          }
        },
        "invalid_input_schema"
      )
      assert.include(TestClient.text(cyclic), "itself")
      yield* client.callToolStructured("code_save", { name: "notes:count", description: "a", code: "return 1" })
      yield* client.expectToolError(
        "code_save",
        { name: "notes:Count", description: "b", code: "return 2" },
        "name_taken"
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a learned capability whose code calls a confirmed tool needs confirmation itself", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", {
        name: "clean:all",
        description: "Removes everything, confirming on the user's behalf.",
        code: "return await mcp.t.remove({ confirm: true })"
      })
      const listed = (yield* client.listTools).find((tool) => tool.name === "app_clean_all")
      assert.strictEqual(listed.annotations.destructiveHint, true)
      assert.strictEqual(listed.inputSchema.properties.confirm.type, "boolean")
      yield* client.expectToolError("app_clean_all", {}, "confirmation_required")
      const confirmed = yield* client.callTool("app_clean_all", { confirm: true })
      assert.strictEqual(TestClient.text(confirmed), '"removed"')
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("code gets a learned capability's value itself, a number included", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", {
        name: "math:triple",
        description: "Three times n.",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        code: `return input.n * 3`
      })
      const result = yield* runCode(client, `const t = await mcp.math.triple({ n: 5 }); return [t, typeof t]`)
      assert.deepStrictEqual(result.value, [15, "number"])
      const types = TestClient.text(yield* client.callTool("code_types", { namespaces: ["math"] }))
      assert.match(types, /triple\(args: \{[\s\S]*\}\): Promise<unknown>/)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("two names that would be the same tool: the second is refused, the first kept", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", { name: "notes:count_all", description: "a", code: "return 1" })
      const refused = yield* client.expectToolError(
        "code_save",
        { name: "notes_count:all", description: "b", code: "return 2" },
        "name_taken"
      )
      assert.include(TestClient.text(refused), "notes:count_all")
      assert.strictEqual(TestClient.text(yield* client.callTool("app_notes_count_all", {})), "1")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("deleted: its tool is withdrawn and code can no longer call it", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", double)
      const deleted = yield* client.callToolStructured("code_delete", { name: "math:double", confirm: true })
      assert.deepStrictEqual(deleted, { deleted: "math:double" })
      const tools = (yield* client.listTools).map((tool) => tool.name)
      assert.notInclude(tools, "app_math_double")
      yield* client.expectToolError("code_run", { code: `return await mcp.math.double({ n: 1 })` }, "unknown_tool")
      yield* client.expectToolError("code_show", { name: "math:double" }, "not_found")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("each learned capability runs in a fresh isolate of its own: nested runs do not disturb each other", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", {
        name: "state:probe",
        description: "Sets a global and reports what it saw.",
        code: `const seen = globalThis.marker; globalThis.marker = "inner"; await mcp.system.echo({ text: "x" }); return { seen: seen ?? null, now: globalThis.marker }`
      })
      const result = yield* runCode(
        client,
        `globalThis.marker = "outer"
         const results = await Promise.all([mcp.state.probe({}), mcp.state.probe({})])
         return { results, outer: globalThis.marker }`
      )
      assert.deepStrictEqual(result.value, {
        results: [
          { seen: null, now: "inner" },
          { seen: null, now: "inner" }
        ],
        outer: "outer"
      })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("one budget per run, learned capabilities included", () => {
  it.effect("their CPU time comes out of the run's: once spent, no more of them start", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", { name: "burn:cpu", description: "Spins.", code: "for (;;) {}" })
      const result = yield* runCode(
        client,
        `const all = await Promise.all(Array.from({ length: 20 }, () => mcp.burn.cpu({}).then(() => "ran", (e) => e.message)))
         return all`
      )
      const notStarted = (result.value as Array<string>).filter((message) => message.includes("was not started"))
      const stopped = (result.value as Array<string>).filter((message) => message.includes("CPU time"))
      assert.isAtLeast(notStarted.length, 15)
      assert.isAtMost(stopped.length, 5)
    }).pipe(
      Effect.scoped,
      Effect.provide(quiet),
      Effect.provideService(CodeSettings, { ...defaultCodeSettings, cpuMs: 100 })
    )
  )

  it.effect("their calls count against the run's calls", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      yield* client.callToolStructured("code_save", {
        name: "echo:ten",
        description: "Echoes ten times.",
        code: `for (let i = 0; i < 10; i++) await mcp.system.echo({ text: String(i) }); return "done"`
      })
      const result = yield* runCode(
        client,
        `const out = []
         for (let i = 0; i < 5; i++) out.push(await mcp.echo.ten({}).then(() => "done", (e) => e.code))
         return out`
      )
      // 5 calls of echo:ten and 10 echoes each would be 55 calls: the run's 20 stop them at the second.
      assert.deepStrictEqual(result.value.slice(0, 1), ["done"])
      assert.include(result.value, "code_calls")
    }).pipe(
      Effect.scoped,
      Effect.provide(quiet),
      Effect.provideService(CodeSettings, { ...defaultCodeSettings, maxCalls: 20 })
    )
  )

  it.effect("at most a few of their isolates at once", () =>
    Effect.gen(function* () {
      const running = { now: 0, max: 0 }
      const probe = Capability.make(
        { id: "probe", description: "counts calls in flight", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("hold", { description: "Holds a second." }).pipe(
              Tool.handle(() =>
                Effect.acquireUseRelease(
                  Effect.sync(() => {
                    running.now += 1
                    running.max = Math.max(running.max, running.now)
                  }),
                  () => Effect.as(Effect.sleep("1 second"), "held"),
                  () => Effect.sync(() => void (running.now -= 1))
                )
              )
            )
          ]
        })
      )
      const client = yield* TestClient.make(Layer.mergeAll(codeLayer, SystemCapability, probe))
      yield* client.callToolStructured("code_save", {
        name: "wait:one",
        description: "Holds.",
        code: `return await mcp.probe.hold({})`
      })
      const fiber = yield* Effect.forkChild(
        client.runCode(`return (await Promise.all(Array.from({ length: 12 }, () => mcp.wait.one({})))).length`)
      )
      // The first run compiles QuickJS (real I/O, not the test clock's): the clock moves until the run is done.
      for (let i = 0; i < 1000 && fiber.pollUnsafe() === undefined; i++) {
        yield* Effect.repeat(Effect.yieldNow, { times: 100 })
        yield* TestClock.adjust("1 second")
        if (i % 10 === 9) yield* wallSleep(5)
      }
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.value, 12)
      assert.strictEqual(running.max, 4)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("the directory store", () => {
  it.effect("learned capabilities survive a restart", () =>
    Effect.gen(function* () {
      const os = yield* Effect.promise(() => import("node:os"))
      const fs = yield* Effect.promise(() => import("node:fs/promises"))
      const path = yield* Effect.promise(() => import("node:path"))
      const NodeServices = yield* Effect.promise(() => import("@effect/platform-node/NodeServices"))
      const dir = yield* Effect.acquireRelease(
        Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "code-store-"))),
        (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
      )
      const store = CodeStore.directory(path.join(dir, "learned")).pipe(Layer.provide(NodeServices.layer))
      const layerWith = () =>
        Layer.mergeAll(
          CodeCapability.pipe(Layer.provide([QuickJsSandbox.layer, store])),
          SystemCapability,
          toolsFor({ count: 0 })
        )
      yield* Effect.scoped(
        Effect.gen(function* () {
          const first = yield* TestClient.make(layerWith())
          yield* first.callToolStructured("code_save", {
            name: "math:double",
            description: "Doubles a number.",
            inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
            code: `return (await mcp.t.add({ a: input.n, b: input.n })).sum`
          })
        })
      )
      const files = yield* Effect.promise(() => fs.readdir(path.join(dir, "learned")))
      assert.deepStrictEqual(files, ["math.double.json"])
      const second = yield* TestClient.make(layerWith())
      const result = yield* second.callTool("app_math_double", { n: 5 })
      assert.strictEqual(TestClient.text(result), "10")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})
