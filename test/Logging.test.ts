import * as Cause from "effect/Cause"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Logging from "../layers/Logging.ts"
import { requestFields } from "../src/internal/dispatch.ts"
import { fieldsJsonKey } from "../src/internal/requestLine.ts"

const capture = (lines: Array<any>) =>
  Logger.layer([Logger.make((options) => void lines.push(JSON.parse(Logging.formatLine(options))))])

describe("layers/Logging", () => {
  it.effect("a text and one plain object: the text is the message, the fields join the annotations", () =>
    Effect.gen(function* () {
      const lines: Array<any> = []
      yield* Effect.logInfo("request", { method: "ping", id: 1 }).pipe(
        Effect.annotateLogs({ session: "s1" }),
        Effect.provide(capture(lines))
      )
      yield* Effect.logWarning("plain").pipe(Effect.provide(capture(lines)))
      yield* Effect.logError("two", "texts", { n: 1n }).pipe(Effect.provide(capture(lines)))
      assert.strictEqual(lines[0].message, "request")
      assert.deepStrictEqual(lines[0].annotations, { session: "s1", method: "ping", id: 1 })
      assert.strictEqual(lines[0].level, "INFO")
      assert.match(lines[0].timestamp, /^\d{4}-\d\d-\d\dT/)
      assert.deepStrictEqual([lines[1].message, lines[1].level], ["plain", "WARN"])
      // Anything else stays an array; a bigint is written as a string instead of failing.
      assert.deepStrictEqual(lines[2].message, ["two", "texts", { n: "1" }])
    })
  )

  it.effect("errors keep their name and message; a value seen twice is not a cycle", () =>
    Effect.gen(function* () {
      const lines: Array<any> = []
      const shared = { a: 1 }
      const cycle: Record<string, unknown> = { n: 1n }
      cycle.self = cycle
      yield* Effect.logError("failed", { error: new TypeError("bad input") }).pipe(Effect.provide(capture(lines)))
      yield* Effect.logInfo("twice", { one: shared, two: shared, cycle }).pipe(Effect.provide(capture(lines)))
      assert.deepStrictEqual(lines[0].annotations, { error: { name: "TypeError", message: "bad input" } })
      assert.deepStrictEqual(lines[1].annotations, {
        one: { a: 1 },
        two: { a: 1 },
        cycle: { n: "1", self: "[Circular]" }
      })
    })
  )

  it("the sink writes the lines of a window in one write, and flush writes what is pending", async () => {
    const writes: Array<string> = []
    const sink = Logging.makeBatchedSink((text) => writes.push(text))
    sink.add("a")
    sink.add("b")
    assert.deepStrictEqual(writes, [])
    await new Promise((resolve) => setTimeout(resolve, Logging.flushWindowMs + 5))
    assert.deepStrictEqual(writes, ["a\nb\n"])
    sink.add("c")
    sink.flush()
    assert.deepStrictEqual(writes, ["a\nb\n", "c\n"])
    // A large batch is written at once.
    sink.add("x".repeat(70_000))
    assert.strictEqual(writes.length, 3)
  })

  it("a request's fields carry their own JSON: the same text JSON.stringify gives, in the same order", () => {
    const cases: Array<Parameters<typeof requestFields>> = [
      ["tools/call", 7, "ab12-1", "system", "system_echo", 0, 0.123, "ok", undefined, 91, 164],
      [
        "tools/call",
        'odd "id"\n\u2028',
        "ab12-2",
        "server",
        undefined,
        1.5,
        12,
        "cancelled",
        undefined,
        undefined,
        undefined
      ],
      [undefined, null, "ab12-3", "server", undefined, 0, 0, "error", "Parse error: not JSON", 17, 40],
      [
        "ping",
        -0,
        "ab12-4",
        "c\u00e9",
        "t\u00e9",
        Number.NaN,
        Number.POSITIVE_INFINITY,
        "timeout",
        'Tool "x"\nstopped',
        0,
        1e21
      ]
    ]
    for (const args of cases) {
      const fields = requestFields(...args)
      assert.strictEqual(fields[fieldsJsonKey], JSON.stringify(fields))
      // The key is a symbol: the fields as an object are the plain fields.
      assert.deepStrictEqual(Object.keys(fields), Object.keys(JSON.parse(JSON.stringify(fields))))
    }
  })

  it.effect("the request line built from its values is the line formatLine gives for the same request", () =>
    Effect.withFiber((fiber) => {
      const cases: Array<Parameters<typeof requestFields>> = [
        ["tools/call", 7, "ab12-1", "system", "system_echo", 0, 0.123, "ok", undefined, 91, 164],
        [
          "tools/call",
          'odd "id"\n\u2028',
          'x"y\\z',
          "server",
          undefined,
          1.5,
          12,
          "cancelled",
          undefined,
          undefined,
          undefined
        ],
        [undefined, null, "ab12-3", "server", undefined, 0, 0, "error", "Method not found: no/such", 17, 40],
        [
          "ping",
          -0,
          "ab12-4",
          'c"\u00e9',
          't\u00e9"',
          Number.NaN,
          Number.POSITIVE_INFINITY,
          "time\nout",
          'a \u2028 b\n"c"',
          0,
          1e21
        ]
      ]
      const millis = Date.UTC(2026, 10, 25, 8, 30, 1, 234)
      for (const args of cases) {
        const expected = Logging.formatLine({
          cause: Cause.empty,
          fiber,
          date: new Date(millis),
          logLevel: "Info",
          message: ["request", requestFields(...args)]
        })
        assert.strictEqual(Logging.formatRequestLine(fiber.id, millis, ...args), expected)
      }
      return Effect.void
    })
  )

  it.effect(
    "the JSON logger writes a request's own JSON, merged with the annotations as the generic path merges them",
    () =>
      Effect.gen(function* () {
        const carried: Array<string> = []
        const generic: Array<string> = []
        const both = Logger.layer([
          Logger.make((options) => void carried.push(Logging.formatLine(options))),
          Logger.make((options) => {
            const [text, fields] = options.message as [string, Record<string, unknown>]
            // The same message without the carried JSON: serialized by the generic path.
            generic.push(Logging.formatLine({ ...options, message: [text, { ...JSON.parse(JSON.stringify(fields)) }] }))
          })
        ])
        const fields = () =>
          requestFields(
            "tools/call",
            "r-1",
            "ab12-9",
            "system",
            "system_echo",
            0,
            2.5,
            "timeout",
            "Tool system_echo did not finish",
            10,
            20
          )
        yield* Effect.logInfo("request", fields()).pipe(Effect.provide(both))
        yield* Effect.logInfo("request", fields()).pipe(Effect.annotateLogs({ session: "s1" }), Effect.provide(both))
        // An annotation with a key of the fields: the fields win, as in the generic merge.
        yield* Effect.logInfo("request", fields()).pipe(Effect.annotateLogs({ outcome: "x" }), Effect.provide(both))
        // Annotations that serialize as nothing.
        yield* Effect.logInfo("request", fields()).pipe(Effect.annotateLogs({ gone: undefined }), Effect.provide(both))
        assert.strictEqual(carried.length, 4)
        const strip = (line: string) => ({ ...JSON.parse(line), timestamp: undefined, fiberId: undefined })
        for (let i = 0; i < 4; i++) assert.deepStrictEqual(strip(carried[i]!), strip(generic[i]!))
        assert.deepStrictEqual(Object.keys(JSON.parse(carried[1]!).annotations), [
          "session",
          "method",
          "id",
          "correlation_id",
          "component",
          "tool",
          "queue_ms",
          "elapsed_ms",
          "outcome",
          "error",
          "bytes_in",
          "bytes_out"
        ])
        assert.strictEqual(JSON.parse(carried[2]!).annotations.outcome, "timeout")
      })
  )
})
