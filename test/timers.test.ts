import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { Timers } from "../src/internal/timers.ts"

const make = Effect.gen(function* () {
  const clock = yield* Clock.Clock
  const runFork = Effect.runForkWith(yield* Effect.context<never>())
  const timers = new Timers(() => clock.currentTimeMillisUnsafe(), runFork)
  yield* Effect.addFinalizer(() => Effect.sync(() => timers.close()))
  return timers
})

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow
})

describe("Timers (one fiber for many deadlines)", () => {
  it.effect("fires in deadline order, never early, and not when cancelled", () =>
    Effect.gen(function* () {
      const timers = yield* make
      const fired: Array<string> = []
      timers.schedule(300, () => fired.push("300"))
      const cancelled = timers.schedule(200, () => fired.push("200"))
      timers.schedule(100, () => fired.push("100"))
      timers.schedule(100, () => fired.push("100b"))
      cancelled.cancel()
      yield* settle
      yield* TestClock.adjust(99)
      assert.deepStrictEqual(fired, [])
      yield* TestClock.adjust(1)
      assert.sameMembers(fired, ["100", "100b"])
      yield* TestClock.adjust(200)
      assert.deepStrictEqual(fired.slice(2), ["300"])
      // A later, earlier deadline restarts the sleeping driver.
      timers.schedule(10_000, () => fired.push("late"))
      yield* settle
      timers.schedule(5, () => fired.push("soon"))
      yield* settle
      yield* TestClock.adjust(5)
      assert.strictEqual(fired[fired.length - 1], "soon")
      yield* TestClock.adjust(10_000)
      assert.strictEqual(fired[fired.length - 1], "late")
    })
  )

  it.effect("many cancelled timers are compacted away and the live ones still fire", () =>
    Effect.gen(function* () {
      const timers = yield* make
      let fired = 0
      for (let i = 0; i < 5000; i++) timers.schedule(1000 + i, () => fired++).cancel()
      timers.schedule(2000, () => fired++)
      assert.isBelow((timers as any).heap.length, 3000, "compacted")
      yield* settle
      yield* TestClock.adjust(10_000)
      assert.strictEqual(fired, 1)
    })
  )

  it.effect("a callback that throws does not stop the others", () =>
    Effect.gen(function* () {
      const timers = yield* make
      const fired: Array<string> = []
      timers.schedule(10, () => {
        throw new Error("boom")
      })
      timers.schedule(10, () => fired.push("same time"))
      timers.schedule(20, () => fired.push("later"))
      yield* settle
      yield* TestClock.adjust(10)
      timers.schedule(5, () => fired.push("scheduled after"))
      yield* settle
      yield* TestClock.adjust(20)
      assert.deepStrictEqual(fired, ["same time", "scheduled after", "later"])
    })
  )

  it.effect("close stops everything", () =>
    Effect.gen(function* () {
      const timers = yield* make
      let fired = 0
      timers.schedule(10, () => fired++)
      yield* settle
      timers.close()
      timers.schedule(10, () => fired++)
      yield* TestClock.adjust(100)
      assert.strictEqual(fired, 0)
    })
  )
})
