/**
 * The request front through the real server and codec (TestClient with
 * `RequestFront.methods`): one listed tool, the DSL and the JSON form, the
 * envelope's invariants, chains and `$prev`, write-key conflicts,
 * presentations, and the controls per op (gate, audit, one confirmation,
 * cancellation), under a legacy revision and under 2026-07-28.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { SystemCapability } from "../capabilities/system/index.ts"
import { AuditLog, type Call } from "../src/AuditLog.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import { Gate, fromRules } from "../src/Gate.ts"
import * as RequestFront from "../src/RequestFront.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

const quiet = ServerConfig.layer({ shutdownGraceMs: 0 })

interface Counters {
  runs: Record<string, number>
  interrupted: number
  readonly started?: Deferred.Deferred<void> | undefined
  readonly written: Array<string>
}

const counters = (started?: Deferred.Deferred<void>): Counters => ({ runs: {}, interrupted: 0, started, written: [] })

const ran = (c: Counters, name: string) =>
  Effect.sync(() => {
    c.runs[name] = (c.runs[name] ?? 0) + 1
  })

const toolsFor = (c: Counters) =>
  Capability.make(
    { id: "t", description: "test tools", version: "1" },
    Effect.succeed({
      tools: [
        Tool.make("add", {
          description: "Adds two numbers. Nothing else.",
          input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
          output: Schema.Struct({ sum: Schema.Finite })
        }).pipe(Tool.handle(({ a, b }) => Effect.as(ran(c, "add"), { sum: a + b }))),
        Tool.make("fail", { description: "Always fails." }).pipe(
          Tool.handle(() =>
            Effect.andThen(
              ran(c, "fail"),
              Effect.fail(new Tool.ToolError({ message: "it broke", code: "broken", suggestion: "call t_add" }))
            )
          )
        ),
        Tool.make("put", {
          description: "Writes a key.",
          input: Schema.Struct({ key: Schema.String, value: Schema.optionalKey(Schema.String) }),
          writeKey: ({ key }) => `k:${key}`
        }).pipe(
          Tool.handle(({ key }) =>
            Effect.as(
              Effect.andThen(
                ran(c, "put"),
                Effect.sync(() => c.written.push(key))
              ),
              `put ${key}`
            )
          )
        ),
        Tool.make("key", {
          description: "Names a key.",
          output: Schema.Struct({ key: Schema.String })
        }).pipe(Tool.handle(() => Effect.succeed({ key: "a" }))),
        Tool.make("listing", {
          description: "Lists files, with empty fields.",
          output: Schema.Struct({
            files: Schema.Array(
              Schema.Struct({ name: Schema.String, size: Schema.Finite, note: Schema.NullOr(Schema.String) })
            ),
            cursor: Schema.NullOr(Schema.String),
            truncated: Schema.Boolean,
            complete: Schema.Boolean
          })
        }).pipe(
          Tool.handle(() =>
            Effect.succeed({
              files: [
                { name: "a.ts", size: 1, note: null },
                { name: "b.ts", size: 2, note: null },
                { name: "c.ts", size: 3, note: "big" },
                { name: "d.ts", size: 4, note: null },
                { name: "e.ts", size: 5, note: null }
              ],
              cursor: null,
              truncated: false,
              complete: true
            })
          )
        ),
        Tool.make("exact", {
          description: "Output whose shape matters.",
          output: Schema.Struct({ value: Schema.NullOr(Schema.String) }),
          presentation: "verbose"
        }).pipe(Tool.handle(() => Effect.succeed({ value: null }))),
        Tool.make("remove", {
          description: "Removes a thing.",
          input: Schema.Struct({ what: Schema.String }),
          annotations: { destructiveHint: true },
          // "preview" removes nothing: not confirmed.
          confirmWhen: ({ what }) => what !== "preview"
        }).pipe(Tool.handle(({ what }) => Effect.as(ran(c, "remove"), `removed ${what}`))),
        Tool.make("overwrite", {
          description: "Overwrites a key.",
          input: Schema.Struct({ key: Schema.String }),
          annotations: { destructiveHint: true },
          writeKey: ({ key }) => `k:${key}`
        }).pipe(
          Tool.handle(({ key }) =>
            Effect.as(
              Effect.andThen(
                ran(c, "overwrite"),
                Effect.sync(() => c.written.push(key))
              ),
              `overwrote ${key}`
            )
          )
        ),
        Tool.make("proto", {
          description: "Output with a field named __proto__.",
          output: Schema.Struct({ value: Schema.Unknown })
        }).pipe(Tool.handle(() => Effect.succeed({ value: JSON.parse('{"__proto__":{"x":1},"a":null,"b":2}') }))),
        Tool.make("slow", { description: "Sleeps for a minute." }).pipe(
          Tool.handle(() =>
            Effect.as(
              Effect.andThen(
                c.started === undefined ? Effect.void : Deferred.succeed(c.started, undefined),
                Effect.sleep("1 minute")
              ),
              "done"
            ).pipe(Effect.onInterrupt(() => Effect.sync(() => void (c.interrupted += 1))))
          )
        )
      ]
    })
  )

const serverWith = (c: Counters = counters(), options: TestClient.Options = {}) =>
  TestClient.make(Layer.mergeAll(SystemCapability, toolsFor(c)), { methods: RequestFront.methods, ...options })

const envelopeOf = (result: { readonly content: ReadonlyArray<any> }): RequestFront.Envelope =>
  JSON.parse(result.content[0].text)

const request = (client: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(client.callTool("request", args), envelopeOf)

const invariant = (envelope: RequestFront.Envelope) => {
  const { aborted, failed, succeeded, total } = envelope.summary
  assert.strictEqual(envelope.results.length, total)
  assert.strictEqual(succeeded + failed + aborted, total)
}

describe("RequestFront: the one tool", () => {
  it.effect("tools/list shows exactly one tool, request, naming every verb", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const tools = yield* client.listTools
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["request"]
      )
      const description: string = tools[0].description
      for (const verb of ["t_add", "t_put", "system_echo"]) assert.include(description, verb)
      // A destructive verb exists: the request takes `confirm`.
      assert.property(tools[0].inputSchema.properties, "confirm")
      assert.strictEqual(tools[0].inputSchema.additionalProperties, false)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a verb called as a tool is an unknown tool that says how to call it", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const error = yield* Effect.flip(client.callTool("t_add", { a: 1, b: 2 }))
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, 'ops="t_add(...)"')
      assert.isUndefined(c.runs.add)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("request(help=true) lists the verbs with one line each; verb(help=true) describes without running", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const list = yield* client.callTool("request", { help: true })
      const text = TestClient.text(list)
      assert.include(text, "t_add: Adds two numbers.")
      assert.notInclude(text, "Nothing else")
      const verbose = yield* client.callTool("request", { help: true, presentation: "verbose" })
      assert.include(
        (verbose.structuredContent as any).verbs.map((verb: any) => verb.verb),
        "t_remove"
      )
      const help = yield* request(client, { ops: "t_add(help=true)" })
      invariant(help)
      const output = (help.results[0] as any).output
      assert.strictEqual(output.example, "t_add(a=1, b=1)")
      assert.deepStrictEqual(output.inputSchema.required, ["a", "b"])
      assert.isUndefined(c.runs.add)
      const removeHelp = yield* request(client, { ops: "t_remove(help=true)" })
      assert.strictEqual((removeHelp.results[0] as any).output.example, 't_remove(what="<what>")')
      assert.isUndefined(c.runs.remove)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: the envelope", () => {
  it.effect("a single op", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const envelope = yield* request(client, { ops: "t_add(a=1, b=2)" })
      invariant(envelope)
      assert.deepStrictEqual(envelope, {
        results: [{ verb: "t_add", ok: true, output: { sum: 3 } }],
        summary: { total: 1, succeeded: 1, failed: 0, aborted: 0 }
      })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("parallel: a failing op never aborts its siblings; results stay in the written order", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: "t_add(a=1, b=2); t_fail(); t_add(a=3, b=4)" })
      invariant(envelope)
      assert.deepStrictEqual(envelope.summary, { total: 3, succeeded: 2, failed: 1, aborted: 0 })
      assert.deepStrictEqual(envelope.results[0], { verb: "t_add", ok: true, output: { sum: 3 } })
      assert.deepStrictEqual(envelope.results[1], {
        verb: "t_fail",
        ok: false,
        error: { code: "broken", message: "it broke", suggestion: "call t_add" }
      })
      assert.deepStrictEqual(envelope.results[2], { verb: "t_add", ok: true, output: { sum: 7 } })
      assert.strictEqual(c.runs.add, 2)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("chain: $prev feeds the next step; a failure aborts the rest, each reported aborted", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const chained = yield* request(client, {
        ops: "t_add(a=1, b=2) | t_add(a=$prev.sum, b=10) | t_add(a=$prev.sum, b=$prev.sum)"
      })
      invariant(chained)
      assert.deepStrictEqual(
        chained.results.map((result: any) => result.output),
        [{ sum: 3 }, { sum: 13 }, { sum: 26 }]
      )
      const broken = yield* request(client, {
        ops: 't_add(a=1, b=1) | t_fail() | t_add(a=1, b=2) | system_echo(text="x")'
      })
      invariant(broken)
      assert.deepStrictEqual(broken.summary, { total: 4, succeeded: 1, failed: 1, aborted: 2 })
      assert.deepInclude(broken.results[2] as any, { verb: "t_add", ok: false, aborted: true })
      assert.deepInclude(broken.results[3] as any, { verb: "system_echo", ok: false, aborted: true })
      assert.strictEqual(c.runs.add, 4)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a missing $prev field fails its op with the fields that exist, and aborts the rest", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const envelope = yield* request(client, { ops: "t_add(a=1, b=2) | t_add(a=$prev.total, b=1) | t_add(a=1, b=1)" })
      invariant(envelope)
      const error = (envelope.results[1] as any).error
      assert.strictEqual(error.code, "missing_field")
      assert.include(error.message, "sum")
      assert.deepInclude(envelope.results[2] as any, { ok: false, aborted: true })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a verb's invalid arguments fail that op only", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: 't_add(a="one", b=2); t_add(a=1, b=2)' })
      invariant(envelope)
      assert.strictEqual((envelope.results[0] as any).error.code, "invalid_arguments")
      assert.deepStrictEqual(envelope.results[1], { verb: "t_add", ok: true, output: { sum: 3 } })
      assert.strictEqual(c.runs.add, 1)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("the JSON form, in parallel and as a chain with $prev", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const parallel = yield* request(client, {
        ops: [
          { verb: "t_add", args: { a: 1, b: 1 } },
          { verb: "system_echo", args: { text: "$$prev stays text" } }
        ]
      })
      invariant(parallel)
      assert.deepStrictEqual(
        (parallel.results[1] as any).output.text ?? (parallel.results[1] as any).output,
        "$prev stays text"
      )
      const chain = yield* request(client, {
        ops: [
          { verb: "t_add", args: { a: 2, b: 3 } },
          { verb: "t_add", args: { a: "$prev.sum", b: 1 } }
        ],
        mode: "chain"
      })
      assert.deepStrictEqual((chain.results[1] as any).output, { sum: 6 })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("every op failing marks the result an error; the envelope is still whole", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const result = yield* client.callTool("request", { ops: "t_fail(); t_fail()" })
      assert.isTrue(result.isError)
      const envelope = envelopeOf(result)
      invariant(envelope)
      assert.strictEqual(envelope.summary.failed, 2)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: bad input", () => {
  const refused = (args: Record<string, unknown>, settings?: RequestFront.Settings) =>
    Effect.gen(function* () {
      const c = counters()
      const server = serverWith(c)
      const client = yield* settings === undefined
        ? server
        : Effect.provideService(server, RequestFront.Settings, settings)
      const error = yield* Effect.flip(client.callTool("request", args))
      assert.strictEqual(error.code, -32602)
      // Nothing ran, and the server serves on.
      assert.deepStrictEqual(c.runs, {})
      const after = yield* request(client, { ops: "t_add(a=1, b=1)" })
      assert.strictEqual(after.summary.succeeded, 1)
      return error
    })

  it.effect("an unterminated string: invalid params with the position", () =>
    Effect.gen(function* () {
      const error = yield* refused({ ops: 't_add(a=1, b=2); system_echo(text="hi)' })
      assert.include(error.message, "unterminated string")
      assert.deepInclude(error.data as any, { line: 1, column: 35 })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("an unknown verb names the nearest ones, and nothing runs", () =>
    Effect.gen(function* () {
      const error = yield* refused({ ops: "t_add(a=1, b=2); t_ad(a=1, b=2)" })
      assert.include(error.message, "Unknown verb at 1:18: t_ad.")
      assert.include(error.message, "Nearest: t_add")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("$prev in the first step", () =>
    Effect.gen(function* () {
      const error = yield* refused({ ops: "t_add(a=$prev.sum, b=1)" })
      assert.include(error.message, "$prev")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("1,000 ops in one request are over the cap; a configured cap applies", () =>
    Effect.gen(function* () {
      const many = Array.from({ length: 1000 }, () => "t_add(a=1, b=1)").join("; ")
      const error = yield* refused({ ops: many })
      assert.include(error.message, "64")
      const small = yield* refused(
        { ops: "t_add(a=1, b=1); t_add(a=1, b=1); t_add(a=1, b=1)" },
        { maxOps: 2, maxDepth: 32 }
      )
      assert.include(small.message, "2")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("deeply nested values", () =>
    Effect.gen(function* () {
      const deep = "[".repeat(5000) + "]".repeat(5000)
      const error = yield* refused({ ops: `system_echo(text=${deep})` })
      assert.include(error.message.toLowerCase(), "deep")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("unknown arguments, a mode with the DSL, a bad presentation, no ops", () =>
    Effect.gen(function* () {
      assert.include((yield* refused({ ops: "t_add(a=1, b=1)", a: 1 })).message, "Unknown argument of request")
      assert.include((yield* refused({ ops: "t_add(a=1, b=1)", mode: "chain" })).message, "mode applies")
      assert.include((yield* refused({ ops: "t_add(a=1, b=1)", presentation: "tiny" })).message, "presentation")
      assert.include((yield* refused({})).message, "needs ops")
      assert.include((yield* refused({ ops: [{ verb: "t_add", args: 3 }] })).message, "ops[0]")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: write-key conflicts", () => {
  it.effect("parallel ops writing one key get conflict errors; the others run", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: 't_put(key="a"); t_put(key="a", value="2"); t_put(key="b")' })
      invariant(envelope)
      assert.strictEqual((envelope.results[0] as any).error.code, "write_conflict")
      assert.strictEqual((envelope.results[1] as any).error.code, "write_conflict")
      assert.include((envelope.results[0] as any).error.message, "k:a")
      assert.isTrue(envelope.results[2]!.ok)
      assert.deepStrictEqual(c.written, ["b"])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a chain writes one key in order, without conflict", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: 't_put(key="a") | t_put(key="a", value="2")' })
      assert.strictEqual(envelope.summary.succeeded, 2)
      assert.deepStrictEqual(c.written, ["a", "a"])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a key known only from $prev conflicts with another pipeline's", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: 't_key() | t_put(key=$prev.key); t_put(key="a")' })
      invariant(envelope)
      assert.strictEqual((envelope.results[1] as any).error.code, "write_conflict")
      assert.isTrue(envelope.results[2]!.ok)
      assert.deepStrictEqual(c.written, ["a"])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: presentation", () => {
  it.effect("agent compacts (empty fields out, tables); verbose is canonical; $prev sees the canonical output", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const agent = yield* client.callTool("request", { ops: "t_listing()" })
      const output = (envelopeOf(agent).results[0] as any).output
      assert.deepStrictEqual(output, {
        files: {
          $cols: ["name", "size", "note"],
          $rows: [
            ["a.ts", 1, null],
            ["b.ts", 2, null],
            ["c.ts", 3, "big"],
            ["d.ts", 4, null],
            ["e.ts", 5, null]
          ]
        },
        complete: true
      })
      assert.isUndefined(agent.structuredContent)
      const verbose = yield* client.callTool("request", { ops: "t_listing()", presentation: "verbose" })
      const canonical = (envelopeOf(verbose).results[0] as any).output
      assert.deepStrictEqual(canonical.files[0], { name: "a.ts", size: 1, note: null })
      assert.strictEqual(canonical.truncated, false)
      assert.deepStrictEqual(verbose.structuredContent, envelopeOf(verbose) as any)
      assert.isBelow(TestClient.text(agent).length, TestClient.text(verbose).length)
      const human = yield* client.callTool("request", { ops: "t_listing()", presentation: "human" })
      assert.strictEqual(TestClient.text(human), TestClient.text(verbose))
      const chained = yield* request(client, { ops: "t_listing() | system_echo(text=$prev.files[2].name)" })
      assert.strictEqual((chained.results[1] as any).output.text ?? (chained.results[1] as any).output, "c.ts")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a tool that is always verbose, and errors, are never compacted", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const envelope = yield* request(client, { ops: "t_exact(); t_fail()" })
      assert.deepStrictEqual((envelope.results[0] as any).output, { value: null })
      assert.deepStrictEqual((envelope.results[1] as any).error, {
        code: "broken",
        message: "it broke",
        suggestion: "call t_add"
      })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: controls per op", () => {
  it.effect("the gate decides per verb: a denied op fails, the rest run", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c).pipe(
        Effect.provideService(Gate, fromRules({ rules: [{ effect: "deny", names: ["t_put"] }] }))
      )
      const envelope = yield* request(client, { ops: 't_add(a=1, b=1); t_put(key="x")' })
      invariant(envelope)
      assert.isTrue(envelope.results[0]!.ok)
      assert.strictEqual((envelope.results[1] as any).error.code, "denied")
      assert.isUndefined(c.runs.put)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("each op is audited under the request's correlation id, and so is the request", () =>
    Effect.gen(function* () {
      const records: Array<Call> = []
      const client = yield* serverWith().pipe(
        Effect.provideService(AuditLog, { record: (call) => Effect.sync(() => void records.push(call)) })
      )
      yield* request(client, { ops: "t_add(a=1, b=1) | t_fail(); t_add(a=2, b=2)" })
      const parent = records.find((record) => record.tool === "request")!
      assert.strictEqual(parent.outcome, "ops_failed")
      const ops = records.filter((record) => record.tool !== "request")
      assert.deepStrictEqual(ops.map((record) => [record.correlationId, record.tool, record.outcome]).sort(), [
        [`${parent.correlationId}/1`, "t_add", "ok"],
        [`${parent.correlationId}/2`, "t_fail", "broken"],
        [`${parent.correlationId}/3`, "t_add", "ok"]
      ])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("one confirmation lists every destructive op; accepted, they run", () =>
    Effect.gen(function* () {
      const c = counters()
      const asked: Array<string> = []
      const client = yield* serverWith(c, {
        elicitation: (params) =>
          Effect.sync(() => {
            asked.push(params.message)
            return { action: "accept", content: { confirm: true } }
          })
      })
      const envelope = yield* request(client, { ops: 't_remove(what="a"); t_add(a=1, b=1); t_remove(what="b")' })
      assert.strictEqual(envelope.summary.succeeded, 3)
      assert.strictEqual(asked.length, 1)
      assert.include(asked[0]!, 't_remove(what="a")')
      assert.include(asked[0]!, 't_remove(what="b")')
      assert.notInclude(asked[0]!, "t_add")
      assert.strictEqual(c.runs.remove, 2)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("an op the tool's confirmWhen exempts (a preview) is not in the one confirmation; the others are", () =>
    Effect.gen(function* () {
      const c = counters()
      const asked: Array<string> = []
      const client = yield* serverWith(c, {
        elicitation: (params) =>
          Effect.sync(() => {
            asked.push(params.message)
            return { action: "accept", content: { confirm: true } }
          })
      })
      const previewOnly = yield* request(client, { ops: 't_remove(what="preview")' })
      assert.strictEqual(previewOnly.summary.succeeded, 1)
      assert.deepStrictEqual(asked, [], "a preview alone asks nothing")
      const mixed = yield* request(client, { ops: 't_remove(what="preview"); t_remove(what="a")' })
      assert.strictEqual(mixed.summary.succeeded, 2)
      assert.strictEqual(asked.length, 1)
      assert.include(asked[0]!, 't_remove(what="a")')
      assert.notInclude(asked[0]!, "preview")
      assert.strictEqual(c.runs.remove, 3)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("declined: the destructive ops are not run, the others are", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c, { elicitation: () => Effect.succeed({ action: "decline" }) })
      const envelope = yield* request(client, { ops: 't_remove(what="a"); t_add(a=1, b=1)' })
      invariant(envelope)
      assert.strictEqual((envelope.results[0] as any).error.code, "not_confirmed")
      assert.isTrue(envelope.results[1]!.ok)
      assert.isUndefined(c.runs.remove)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a client that cannot ask: confirmation_required, then confirm: true runs them", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const first = yield* request(client, { ops: 't_remove(what="a")' })
      assert.strictEqual((first.results[0] as any).error.code, "confirmation_required")
      assert.include((first.results[0] as any).error.suggestion, '"confirm": true')
      assert.isUndefined(c.runs.remove)
      const second = yield* request(client, { ops: 't_remove(what="a")', confirm: true })
      assert.strictEqual(second.summary.succeeded, 1)
      assert.strictEqual(c.runs.remove, 1)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("cancelling the request interrupts every op", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const c = counters(started)
      const client = yield* serverWith(c)
      const { id, response } = yield* client.send("tools/call", {
        name: "request",
        arguments: { ops: "t_slow(); t_slow() | t_add(a=1, b=1)" }
      })
      const waiting = yield* Effect.forkChild(Effect.flip(response))
      yield* Deferred.await(started)
      yield* Effect.yieldNow
      yield* client.cancel(id, "changed my mind")
      yield* Effect.eventually(Effect.suspend(() => (c.interrupted === 2 ? Effect.void : Effect.fail("wait"))))
      yield* Fiber.interrupt(waiting)
      assert.isUndefined(c.runs.add)
      // The server serves on.
      const after = yield* request(client, { ops: "t_add(a=1, b=1)" })
      assert.strictEqual(after.summary.succeeded, 1)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: revisions", () => {
  it.effect("2026-07-28: the confirmation is an input-required round, asked before any op runs (each runs once)", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c, {
        protocolVersion: "2026-07-28",
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      const tools = yield* client.listTools
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["request"]
      )
      const envelope = yield* request(client, { ops: 't_add(a=1, b=1); t_remove(what="x")' })
      assert.strictEqual(envelope.summary.succeeded, 2)
      assert.strictEqual(c.runs.add, 1)
      assert.strictEqual(c.runs.remove, 1)
      assert.isAbove((yield* client.rounds).length, 0)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("2024-11-05: the same envelope, without structured content or a title", () =>
    Effect.gen(function* () {
      const client = yield* serverWith(counters(), { protocolVersion: "2024-11-05" })
      const tools = yield* client.listTools
      assert.isUndefined(tools[0].title)
      const result = yield* client.callTool("request", { ops: "t_add(a=1, b=1)", presentation: "verbose" })
      assert.isUndefined(result.structuredContent)
      assert.strictEqual(envelopeOf(result).summary.succeeded, 1)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("RequestFront: review cases", () => {
  it.effect("`confirm` inside a verb's arguments does not hide its write key", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, {
        ops: 't_overwrite(key="a", confirm=true); t_overwrite(key="a", confirm=true)',
        confirm: true
      })
      assert.deepStrictEqual(
        envelope.results.map((result: any) => result.error?.code),
        ["write_conflict", "write_conflict"]
      )
      assert.deepStrictEqual(c.written, [])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a client that cannot ask: nothing runs until the request comes back with confirm: true", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const first = yield* request(client, { ops: 't_add(a=1, b=1); t_remove(what="a") | t_add(a=2, b=2)' })
      invariant(first)
      assert.deepStrictEqual(first.summary, { total: 3, succeeded: 0, failed: 1, aborted: 2 })
      assert.strictEqual((first.results[0] as any).error.code, "confirmation_required")
      assert.deepStrictEqual(c.runs, {})
      // A destructive op late in a chain reports its own reason, not the held step before it.
      const late = yield* request(client, { ops: 't_add(a=1, b=1) | t_remove(what="a")' })
      invariant(late)
      assert.deepStrictEqual(
        late.results.map((result: any) => [result.aborted === true, result.error.code]),
        [
          [true, "confirmation_required"],
          [false, "confirmation_required"]
        ]
      )
      assert.deepStrictEqual(c.runs, {})
      const second = yield* request(client, {
        ops: 't_add(a=1, b=1); t_remove(what="a") | t_add(a=2, b=2)',
        confirm: true
      })
      assert.strictEqual(second.summary.succeeded, 3)
      assert.deepStrictEqual(c.runs, { add: 2, remove: 1 })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect(
    "2026-07-28: an op whose arguments come from $prev is in the one question, with the step it stands for",
    () =>
      Effect.gen(function* () {
        const c = counters()
        const asked: Array<string> = []
        const client = yield* serverWith(c, {
          protocolVersion: "2026-07-28",
          elicitation: (params) =>
            Effect.sync(() => {
              asked.push(params.message)
              return { action: "accept", content: { confirm: true } }
            })
        })
        const envelope = yield* request(client, { ops: "t_key() | t_overwrite(key=$prev.key)" })
        assert.strictEqual(envelope.summary.succeeded, 2)
        assert.strictEqual(asked.length, 1)
        assert.include(asked[0]!, "t_overwrite(key=$prev.key)   ($prev: the output of t_key())")
        assert.deepStrictEqual(c.written, ["a"])
      }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a legacy client that can ask is asked about a $prev op when it runs, with its real arguments", () =>
    Effect.gen(function* () {
      const c = counters()
      const asked: Array<string> = []
      const client = yield* serverWith(c, {
        elicitation: (params) =>
          Effect.sync(() => {
            asked.push(params.message)
            return { action: "accept", content: { confirm: true } }
          })
      })
      const envelope = yield* request(client, { ops: 't_key() | t_overwrite(key=$prev.key); t_remove(what="x")' })
      assert.strictEqual(envelope.summary.succeeded, 3)
      assert.strictEqual(asked.length, 2)
      assert.include(
        asked.find((message) => message.includes("t_remove"))!,
        't_remove(what="x")'
      )
      const late = asked.find((message) => message.includes("t_overwrite"))!
      assert.include(late, '"key": "a"')
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a claim of an op that never ran is no conflict", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, {
        ops: 't_add(a="x", b=1) | t_put(key="a"); t_key() | t_put(key=$prev.key)'
      })
      invariant(envelope)
      assert.strictEqual((envelope.results[1] as any).aborted, true)
      assert.isTrue(envelope.results[3]!.ok)
      assert.deepStrictEqual(c.written, ["a"])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("ops the front stops are audited too: a conflict, an aborted step", () =>
    Effect.gen(function* () {
      const records: Array<Call> = []
      const client = yield* serverWith().pipe(
        Effect.provideService(AuditLog, { record: (call) => Effect.sync(() => void records.push(call)) })
      )
      yield* request(client, { ops: 't_put(key="a"); t_put(key="a"); t_fail() | t_add(a=1, b=1)' })
      const parent = records.find((record) => record.tool === "request")!
      assert.deepStrictEqual(
        records
          .filter((record) => record.tool !== "request")
          .map((record) => [record.correlationId, record.tool, record.outcome])
          .sort(),
        [
          [`${parent.correlationId}/1`, "t_put", "write_conflict"],
          [`${parent.correlationId}/2`, "t_put", "write_conflict"],
          [`${parent.correlationId}/3`, "t_fail", "broken"],
          [`${parent.correlationId}/4`, "t_add", "aborted"]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("agent presentation keeps a field named __proto__ as a field", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const envelope = yield* request(client, { ops: "t_proto()" })
      const output = (envelope.results[0] as any).output
      assert.deepStrictEqual(Object.keys(output.value), ["__proto__", "b"])
      assert.deepStrictEqual(Object.getOwnPropertyDescriptor(output.value, "__proto__")?.value, { x: 1 })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("2025-03-26 and 2025-06-18: the title only from 2025-06-18", () =>
    Effect.gen(function* () {
      const older = yield* serverWith(counters(), { protocolVersion: "2025-03-26" })
      assert.isUndefined((yield* older.listTools)[0].title)
      const newer = yield* serverWith(counters(), { protocolVersion: "2025-06-18" })
      assert.strictEqual((yield* newer.listTools)[0].title, "Request")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("ops take server-wide slots as tools/calls do: with one slot they queue, and all run", () =>
    Effect.gen(function* () {
      const c = counters()
      const client = yield* serverWith(c)
      const envelope = yield* request(client, { ops: "t_add(a=1, b=1); t_add(a=2, b=2); t_add(a=3, b=3)" })
      assert.strictEqual(envelope.summary.succeeded, 3)
      assert.strictEqual(c.runs.add, 3)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ maxConcurrent: 1 }))))
  )

  it.effect("with one slot and no queue, an op beyond the slot is overloaded on its own", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const c = counters(started)
      const client = yield* serverWith(c)
      const { response } = yield* client.send("tools/call", {
        name: "request",
        arguments: { ops: "t_slow(); t_slow()" }
      })
      const waiting = yield* Effect.forkChild(response)
      yield* Deferred.await(started)
      yield* Effect.yieldNow
      yield* TestClock.adjust("1 minute")
      const envelope = envelopeOf(yield* Fiber.join(waiting))
      invariant(envelope)
      assert.deepStrictEqual(envelope.results.map((result: any) => (result.ok ? "ok" : result.error.code)).sort(), [
        "ok",
        "overloaded"
      ])
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ maxConcurrent: 1, onOverload: "reject" }))))
  )

  it.effect("each op's end is a progress report to a client that asked for progress", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      const reports: Array<TestClient.ProgressReport> = []
      yield* client.callTool(
        "request",
        { ops: "t_add(a=1, b=1) | t_fail() | t_add(a=1, b=1)" },
        { onProgress: (report) => Effect.sync(() => void reports.push(report)) }
      )
      assert.deepStrictEqual(
        reports.map((report) => [report.progress, report.total, report.message]),
        [
          [1, 3, "t_add ok"],
          [2, 3, "t_fail broken"],
          [3, 3, "t_add aborted"]
        ]
      )
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ progressInterval: 0 }))))
  )

  it.effect("envelope invariants over 60 generated requests: counts, order, chain aborts, parallel independence", () =>
    Effect.gen(function* () {
      const client = yield* serverWith()
      // A small deterministic generator (mulberry32).
      let seed = 20261125
      const random = () => {
        seed = (seed + 0x6d2b79f5) | 0
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296
      }
      const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
      // Each step: what it is, and whether it fails when it runs.
      const first = [
        { text: "t_add(a=1, b=2)", fails: false },
        { text: "t_fail()", fails: true },
        { text: 't_add(a="x", b=2)', fails: true },
        { text: "t_key()", fails: false }
      ]
      const later = [
        ...first,
        { text: "t_add(a=$prev.sum, b=1)", fails: "unless-sum" as const },
        { text: "system_echo(text=$prev.key)", fails: "unless-key" as const }
      ]
      for (let n = 0; n < 60; n++) {
        const pipelines = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
          Array.from({ length: 1 + Math.floor(random() * 4) }, (_, step) => (step === 0 ? pick(first) : pick(later)))
        )
        const ops = pipelines.map((steps) => steps.map((step) => step.text).join(" | ")).join("; ")
        const envelope = yield* request(client, { ops })
        invariant(envelope)
        // Expected, step by step: a chain runs until a step fails; the steps after it are aborted.
        const expected: Array<string> = []
        for (const steps of pipelines) {
          let failed = false
          let prevHas: "sum" | "key" | "other" = "other"
          for (const step of steps) {
            if (failed) {
              expected.push("aborted")
              continue
            }
            const fails =
              step.fails === "unless-sum"
                ? prevHas !== "sum"
                : step.fails === "unless-key"
                  ? prevHas !== "key"
                  : step.fails
            expected.push(fails ? "failed" : "ok")
            failed = fails
            prevHas = step.text.startsWith("t_add(") ? "sum" : step.text.startsWith("t_key") ? "key" : "other"
          }
        }
        assert.deepStrictEqual(
          envelope.results.map((result: any) => (result.ok ? "ok" : result.aborted === true ? "aborted" : "failed")),
          expected,
          ops
        )
      }
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})
