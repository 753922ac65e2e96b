/**
 * The executor in process, without a server: long queues, expired waiters,
 * and policy validation.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Capability from "../src/Capability.ts"
import { Limiter } from "../src/internal/limiter.ts"
import { Timers } from "../src/internal/timers.ts"
import * as Executor from "../src/Executor.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Policy from "../src/Policy.ts"
import * as Tool from "../src/Tool.ts"

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

describe("Executor", () => {
  it.effect("a nested call takes no server-wide slot: it runs while its caller holds the last one", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({
        ...Policy.defaults,
        maxConcurrent: 1,
        maxQueued: 10,
        queueTimeout: "1 second"
      })
      const outer: Executor.Target = { name: "code_run", capability: "code" }
      const inner: Executor.Target = { name: "t_inner", capability: "t", own: { maxConcurrent: 1 } }
      // The caller holds the only server-wide slot and waits for its nested call.
      const result = yield* executor.run(
        outer,
        Effect.gen(function* () {
          const nested = yield* executor.run(inner, Effect.succeed("inner ran"), undefined, { nested: true })
          // The same call as a top-level one has no slot to take: it waits, and the queue timeout answers it.
          const fiber = yield* Effect.forkChild(Effect.exit(executor.run(inner, Effect.succeed("never"))))
          yield* Effect.repeat(Effect.yieldNow, { times: 10 })
          yield* TestClock.adjust("2 seconds")
          const plain = yield* Fiber.join(fiber)
          return [nested, Exit.isFailure(plain) ? "overloaded" : "ran"]
        })
      )
      assert.deepStrictEqual(result, ["inner ran", "overloaded"])
      assert.strictEqual(executor.load().active, 0)
      // The tool's own limit still applies to nested calls.
      const held = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(executor.run(inner, Deferred.await(held), undefined, { nested: true }))
      yield* Effect.repeat(Effect.yieldNow, { times: 10 })
      const second = yield* Effect.forkChild(
        Effect.exit(executor.run(inner, Effect.succeed("second"), undefined, { nested: true }))
      )
      yield* Effect.repeat(Effect.yieldNow, { times: 10 })
      yield* TestClock.adjust("2 seconds")
      assert.isTrue(Exit.isFailure(yield* Fiber.join(second)))
      yield* Deferred.succeed(held, undefined)
      yield* Fiber.join(first)
    }).pipe(Effect.scoped)
  )

  it.effect("a long queue of calls that finish at once drains without deepening the stack", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({ ...Policy.defaults, maxConcurrent: 1, maxQueued: 10_000 })
      const target: Executor.Target = { name: "t_quick", capability: "t" }
      const gate = yield* Deferred.make<void>()
      // One call holds the only slot while 5,000 queue behind it.
      const holder = yield* Effect.forkChild(executor.run(target, Deferred.await(gate)))
      yield* settle
      const results = yield* Effect.forkChild(
        Effect.forEach(
          Array.from({ length: 5000 }, (_, i) => i),
          (i) => executor.run(target, Effect.succeed(i)),
          {
            concurrency: "unbounded"
          }
        )
      )
      yield* settle
      assert.strictEqual(executor.load().waiting, 5000)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      const values = yield* Fiber.join(results)
      assert.strictEqual(values.length, 5000)
      assert.strictEqual(values[4999], 4999)
      assert.deepStrictEqual([executor.load().active, executor.load().waiting], [0, 0])
    })
  )

  it.effect("the same with a per-tool limit", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({
        ...Policy.defaults,
        maxQueued: 10_000,
        tools: { t_quick: { maxConcurrent: 1 } }
      })
      const target: Executor.Target = { name: "t_quick", capability: "t" }
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(executor.run(target, Deferred.await(gate)))
      yield* settle
      const results = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 3000 }), () => executor.run(target, Effect.void), {
          concurrency: "unbounded",
          discard: true
        })
      )
      yield* settle
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(results)
      assert.deepStrictEqual(executor.load().tools.t_quick, { active: 0, waiting: 0 })
    })
  )

  it.effect("waiters that gave up do not pile up while the slot stays taken", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({
        ...Policy.defaults,
        maxConcurrent: 1,
        maxQueued: 10_000,
        queueTimeout: "1 second"
      })
      const target: Executor.Target = { name: "t_stuck", capability: "t" }
      yield* Effect.forkChild(executor.run(target, Effect.never))
      yield* settle
      const waiters = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 4000 }), () => Effect.exit(executor.run(target, Effect.void)), {
          concurrency: "unbounded"
        })
      )
      yield* settle
      yield* TestClock.adjust("1 second")
      const exits = yield* Fiber.join(waiters)
      assert.isTrue(exits.every((exit) => Exit.isFailure(exit)))
      assert.strictEqual(executor.load().waiting, 0)
      // The limiter's queue was compacted, though the slot was never released.
      const limiter = executor as any
      assert.isDefined(limiter)
      const failures = exits.filter(
        (exit) => Exit.isFailure(exit) && String(exit.cause).includes("waited 1000 ms for a free slot")
      )
      assert.strictEqual(failures.length, 4000)
    })
  )

  it.effect("a tool replaced by a new object of the same name keeps its per-tool limit (list_changed)", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({ ...Policy.defaults, onOverload: "reject" })
      // The compiled tool before and after `Kernel.replaceCapability`: two objects, one name.
      const before: Executor.Target = { name: "up_slow", capability: "up", capabilityOwn: { maxConcurrent: 1 } }
      const after: Executor.Target = { name: "up_slow", capability: "up", capabilityOwn: { maxConcurrent: 1 } }
      const held = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(executor.run(before, Deferred.await(held)))
      yield* settle
      const refused = yield* Effect.flip(executor.run(after, Effect.succeed("past the limit")))
      assert.strictEqual(refused._tag, "Overloaded")
      assert.include(refused.message, "tool up_slow has 1 call running, its limit is 1")
      assert.deepStrictEqual(executor.load().tools.up_slow, { active: 1, waiting: 0 })
      // A replacement whose limit changed gets that limit.
      const raised: Executor.Target = { name: "up_slow", capability: "up", capabilityOwn: { maxConcurrent: 2 } }
      assert.strictEqual(executor.limits(raised).maxConcurrent.value, 2)
      assert.strictEqual(yield* executor.run(raised, Effect.succeed("ran")), "ran")
      yield* Deferred.succeed(held, undefined)
      yield* Fiber.join(first)
      assert.strictEqual(yield* executor.run(after, Effect.succeed("ran")), "ran")
      assert.strictEqual(executor.load().active, 0)
    }).pipe(Effect.scoped)
  )

  it.effect("Overloaded and TimedOut carry the limits, the counts and the times as data", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({
        ...Policy.defaults,
        maxConcurrent: 1,
        maxQueued: 1,
        queueTimeout: "2 seconds",
        timeout: "3 seconds"
      })
      const target: Executor.Target = { name: "t_x", capability: "t" }
      const holder = yield* Effect.forkChild(Effect.flip(executor.run(target, Effect.never)))
      yield* settle
      const waiter = yield* Effect.forkChild(Effect.flip(executor.run(target, Effect.void)))
      yield* settle
      const full = yield* Effect.flip(executor.run(target, Effect.void))
      assert.deepInclude(full, {
        _tag: "Overloaded",
        tool: "t_x",
        limit: 1,
        active: 1,
        waitedMs: 0,
        scope: "server",
        reason: "queue_full",
        queued: 1,
        maxQueued: 1,
        queueTimeoutMs: 2000
      })
      yield* TestClock.adjust("2 seconds")
      assert.deepInclude(yield* Fiber.join(waiter), {
        _tag: "Overloaded",
        reason: "queue_timeout",
        scope: "server",
        queued: 0,
        waitedMs: 2000
      })
      yield* TestClock.adjust("1 second")
      assert.deepInclude(yield* Fiber.join(holder), {
        _tag: "TimedOut",
        tool: "t_x",
        timeoutMs: 3000,
        source: "the server default",
        elapsedMs: 3000
      })
      // A policy that rejects at once has no queue.
      const rejecting = yield* Executor.make({
        ...Policy.defaults,
        onOverload: "reject",
        tools: { t_x: { maxConcurrent: 1 } }
      })
      yield* Effect.forkChild(rejecting.run(target, Effect.never))
      yield* settle
      assert.deepInclude(yield* Effect.flip(rejecting.run(target, Effect.void)), {
        scope: "tool",
        reason: "rejected",
        limit: 1,
        active: 1,
        maxQueued: 0
      })
    }).pipe(Effect.scoped)
  )

  it.effect("a call that dies while queued for the global slot gives its tool slot back", () =>
    Effect.gen(function* () {
      const executor = yield* Executor.make({
        ...Policy.defaults,
        maxConcurrent: 1,
        tools: { t_a: { maxConcurrent: 1 } }
      })
      const a: Executor.Target = { name: "t_a", capability: "t" }
      const b: Executor.Target = { name: "t_b", capability: "t" }
      const holder = yield* Effect.forkChild(executor.run(b, Effect.never))
      yield* settle
      const waiting = yield* Effect.forkChild(executor.run(a, Effect.void))
      yield* settle
      assert.deepStrictEqual(executor.load().tools.t_a, { active: 1, waiting: 0 })
      yield* Fiber.interrupt(waiting)
      assert.deepStrictEqual(executor.load().tools.t_a, { active: 0, waiting: 0 })
      yield* Fiber.interrupt(holder)
      assert.strictEqual(executor.load().active, 0)
    })
  )
})

describe("Limiter", () => {
  it.effect("waiters that expire leave its queue even while no permit is released", () =>
    Effect.gen(function* () {
      const clock = yield* Clock.Clock
      const timers = new Timers(
        () => clock.currentTimeMillisUnsafe(),
        Effect.runForkWith(yield* Effect.context<never>())
      )
      yield* Effect.addFinalizer(() => Effect.sync(() => timers.close()))
      const limiter = new Limiter(1)
      assert.isTrue(limiter.tryAcquire())
      const waiters = yield* Effect.forkChild(
        Effect.forEach(Array.from({ length: 4000 }), () => limiter.acquire(1000, timers), { concurrency: "unbounded" })
      )
      yield* settle
      assert.strictEqual(limiter.waiting, 4000)
      yield* TestClock.adjust("1 second")
      const got = yield* Fiber.join(waiters)
      assert.isTrue(got.every((acquired) => acquired === false))
      assert.strictEqual(limiter.waiting, 0)
      assert.isBelow((limiter as any).waiters.length - (limiter as any).head, 2100, "compacted")
      // The permit still works as before.
      limiter.release()
      assert.isTrue(limiter.tryAcquire())
    })
  )
})

describe("Policy validation", () => {
  it("lists every unusable setting with where it is", () => {
    assert.deepStrictEqual(Policy.problems(Policy.defaults), [])
    assert.deepStrictEqual(Policy.problems(Policy.unlimited), [])
    assert.deepStrictEqual(
      Policy.problems({
        ...Policy.defaults,
        timeout: "5 minuts" as any,
        maxQueued: -1,
        onOverload: "drop" as any,
        tools: { exec_run: { timeout: -5, maxConcurrent: 0 } }
      }),
      [
        'timeout: not a duration: "5 minuts" (use milliseconds or e.g. "30 seconds")',
        "maxQueued: must be a whole number of at least 0, or Infinity: -1",
        'onOverload: must be "queue" or "reject": "drop"',
        "tools.exec_run.timeout: must not be negative: -5",
        "tools.exec_run.maxConcurrent: must be a whole number of at least 1, or Infinity: 0"
      ]
    )
  })

  it.effect("Policy.layer fails to build with a PolicyError", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Layer.build(Policy.layer({ capabilities: { exec: { maxResultBytes: 0.5 } } })))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(exit), "capabilities.exec.maxResultBytes: must be a whole number of at least 1")
    })
  )

  it.effect("a tool or capability with unusable limits fails registration with InvalidLimits", () =>
    Effect.gen(function* () {
      const bad = Capability.make(
        { id: "bad", description: "bad limits", version: "1.0.0", maxConcurrent: 0 },
        Effect.succeed({
          tools: [
            Tool.make("slow", { description: "x", input: Schema.Struct({}), timeout: "ten minutes" as any }).pipe(
              Tool.handle(() => Effect.succeed("x"))
            )
          ]
        })
      )
      const exit = yield* Effect.exit(Layer.build(bad.pipe(Layer.provide(Kernel.layer()))))
      assert.isTrue(Exit.isFailure(exit))
      const text = String(exit)
      assert.include(text, "InvalidLimits")
      assert.include(text, 'Tool.make option timeout: not a duration: "ten minutes"')
      assert.include(text, "Capability.make option maxConcurrent: must be a whole number of at least 1")
    })
  )
})
