import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Logging from "../layers/Logging.ts"

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
})
