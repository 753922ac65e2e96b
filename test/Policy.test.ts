/**
 * Execution policies through the real codec (in-memory transport), with the
 * TestClock: timeouts, concurrency limits and the queue, cancellation,
 * progress coalescing, client logging, result limits, the per-request log
 * line. No real sleeps.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as Tracer from "effect/Tracer"
import * as Capability from "../src/Capability.ts"
import * as ClientLog from "../src/ClientLog.ts"
import * as Policy from "../src/Policy.ts"
import * as Progress from "../src/Progress.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import { start, type TestClient } from "./support/memory.ts"
import { meta as modernMeta } from "./support/modern.ts"

const errorMeta = (response: any) => response.result?._meta?.["effect-mcp-runtime/error"]

/** Lets forked fibers run up to their next suspension (no time passes). */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

/** Probes shared between a test and its tools. */
const makeProbes = Effect.gen(function* () {
  return {
    /** Each call of `t_slow` and `t_gate` offers its tag here when it starts. */
    started: yield* Queue.unbounded<string>(),
    /** Each call's finalizer offers `<tag>:<how it ended>` here. */
    ended: yield* Queue.unbounded<string>(),
    /** `t_gate` calls wait here until the test offers a token. */
    gate: yield* Queue.unbounded<void>(),
    running: { now: 0, max: 0, perTool: new Map<string, { now: number; max: number }>() }
  }
})
type Probes = Effect.Success<typeof makeProbes>

const track = (probes: Probes, tool: string) => {
  const slot = probes.running.perTool.get(tool) ?? { now: 0, max: 0 }
  probes.running.perTool.set(tool, slot)
  return Effect.acquireRelease(
    Effect.sync(() => {
      probes.running.max = Math.max(probes.running.max, ++probes.running.now)
      slot.max = Math.max(slot.max, ++slot.now)
    }),
    () =>
      Effect.sync(() => {
        probes.running.now--
        slot.now--
      })
  )
}

const capability = (probes: Probes) =>
  Capability.make(
    { id: "t", description: "policy tests", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("slow", {
          description: "sleeps, then answers",
          input: Schema.Struct({
            tag: Schema.String,
            ms: Schema.optionalKey(Schema.Number),
            cleanupMs: Schema.optionalKey(Schema.Number)
          })
        }).pipe(
          Tool.handle(({ cleanupMs, ms, tag }) =>
            Effect.andThen(Queue.offer(probes.started, tag), Effect.sleep(ms ?? 10 * 60 * 1000)).pipe(
              Effect.as(`${tag} done`),
              Effect.onExit((exit) =>
                Effect.andThen(
                  // A finalizer that takes a while: the answer must wait for it.
                  cleanupMs === undefined ? Effect.void : Effect.sleep(cleanupMs),
                  Queue.offer(probes.ended, `${tag}:${exit._tag === "Success" ? "done" : "interrupted"}`)
                )
              )
            )
          )
        ),
        Tool.make("odd_log", { description: "logs values JSON cannot carry", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.gen(function* () {
              const cycle: Record<string, unknown> = { name: "loop" }
              cycle.self = cycle
              yield* ClientLog.info({ big: 12345678901234567890n, cycle })
              yield* ClientLog.info(undefined)
              return "logged"
            })
          )
        ),
        Tool.make("noisy", {
          description: "logs and reports progress from its finalizer",
          input: Schema.Struct({})
        }).pipe(
          Tool.handle(() =>
            Effect.andThen(Queue.offer(probes.started, "noisy"), Effect.never).pipe(
              Effect.onInterrupt(() =>
                Effect.andThen(
                  Effect.andThen(ClientLog.error("stopping"), Progress.report({ progress: 99 })),
                  Queue.offer(probes.ended, "noisy:interrupted")
                )
              )
            )
          )
        ),
        Tool.make("brief", {
          description: "has a timeout of its own",
          input: Schema.Struct({}),
          timeout: "2 seconds"
        }).pipe(
          Tool.handle(() =>
            Effect.sleep("1 hour").pipe(
              Effect.as("never"),
              Effect.onInterrupt(() => Queue.offer(probes.ended, "brief:interrupted"))
            )
          )
        ),
        Tool.make("gate", {
          description: "waits for the test to open the gate",
          input: Schema.Struct({ tag: Schema.String }),
          maxConcurrent: 2
        }).pipe(
          Tool.handle(({ tag }) =>
            Effect.scoped(
              Effect.gen(function* () {
                yield* track(probes, "gate")
                yield* Queue.offer(probes.started, tag)
                yield* Queue.take(probes.gate)
                return `${tag} passed`
              })
            ).pipe(
              Effect.onExit((exit) =>
                Queue.offer(probes.ended, `${tag}:${exit._tag === "Success" ? "done" : "interrupted"}`)
              )
            )
          )
        ),
        Tool.make("work", {
          description: "works for a while",
          input: Schema.Struct({ tool: Schema.String })
        }).pipe(
          Tool.handle(({ tool }) =>
            Effect.scoped(Effect.andThen(track(probes, "work"), Effect.sleep("10 millis"))).pipe(Effect.as(tool))
          )
        ),
        Tool.make("steady", {
          description: "works for a while, at most 3 at once",
          input: Schema.Struct({}),
          maxConcurrent: 3
        }).pipe(
          Tool.handle(() =>
            Effect.scoped(Effect.andThen(track(probes, "steady"), Effect.sleep("10 millis"))).pipe(Effect.as("ok"))
          )
        ),
        Tool.make("chatty", {
          description: "reports progress many times",
          input: Schema.Struct({ steps: Schema.Number, pauseMs: Schema.optionalKey(Schema.Number) })
        }).pipe(
          Tool.handle(({ pauseMs, steps }) =>
            Effect.gen(function* () {
              for (let i = 1; i <= steps; i++) {
                yield* Progress.report({ progress: i, total: steps, message: `step ${i}` })
                if (pauseMs !== undefined) yield* Effect.sleep(pauseMs)
              }
              return `${steps} steps`
            })
          )
        ),
        Tool.make("backwards", { description: "reports progress that goes down", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.gen(function* () {
              yield* Progress.report({ progress: 5 })
              yield* Progress.report({ progress: 3 })
              yield* Progress.report({ progress: 5 })
              return "done"
            })
          )
        ),
        Tool.make("talk", { description: "logs to the client at every level", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.gen(function* () {
              yield* ClientLog.debug("a debug line")
              yield* ClientLog.info("an info line")
              yield* ClientLog.warning({ detail: "a warning" }, { logger: "custom" })
              yield* ClientLog.error("an error line")
              return "talked"
            })
          )
        ),
        Tool.make("big", {
          description: "returns a large text",
          input: Schema.Struct({ bytes: Schema.Number })
        }).pipe(Tool.handle(({ bytes }) => Effect.succeed("é".repeat(bytes / 2)))),
        Tool.make("big_structured", {
          description: "returns a large structured result",
          input: Schema.Struct({ bytes: Schema.Number }),
          output: Schema.Struct({ text: Schema.String }),
          maxResultBytes: 1000
        }).pipe(Tool.handle(({ bytes }) => Effect.succeed({ text: "x".repeat(bytes) })))
      ]
    })
  )

const setup = (policy: Parameters<typeof Policy.layer>[0] = {}) =>
  Effect.gen(function* () {
    const probes = yield* makeProbes
    // No shutdown grace: a test may end with calls still waiting, and the
    // TestClock would never let a grace period run out.
    const client = yield* start(capability(probes)).pipe(
      Effect.provide(Layer.merge(Policy.layer(policy), ServerConfig.layer({ shutdownGraceMs: 0 })))
    )
    yield* client.initialize()
    return { client, probes }
  })

const call = (client: TestClient, id: string | number, name: string, args: unknown, meta?: unknown) =>
  client.send({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }
  })

const cancel = (client: TestClient, requestId: string | number) =>
  client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } })

/** The next message if one is already there (it is consumed), without waiting for one. */
const peek = (client: TestClient) => Effect.raceFirst(Effect.asSome(client.read), Effect.as(settle, Option.none<any>()))

/** The next message must be the answer to a ping: nothing else was sent in between. */
const expectQuiet = (client: TestClient) =>
  Effect.gen(function* () {
    const ping = yield* client.request("ping")
    assert.deepStrictEqual(ping.result, {}, `expected only the ping's answer, got ${JSON.stringify(ping)}`)
  })

describe("timeouts", () => {
  it.effect("the default timeout interrupts the handler, runs its finalizers, and answers with a timeout result", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ timeout: "5 minutes" })
      yield* call(client, 1, "t_slow", { tag: "a", cleanupMs: 1000 })
      assert.strictEqual(yield* Queue.take(probes.started), "a")
      yield* settle
      yield* TestClock.adjust("4 minutes")
      assert.strictEqual(yield* Queue.size(probes.ended), 0, "still running after 4 minutes")
      yield* TestClock.adjust("1 minute")
      // The handler is interrupted; its finalizer takes a second: no answer before it is done.
      yield* settle
      assert.isTrue(Option.isNone(yield* peek(client)), "no answer while the finalizer runs")
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Queue.take(probes.ended), "a:interrupted")
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.strictEqual(response.result.isError, true)
      assert.strictEqual(errorMeta(response).code, "timeout")
      assert.include(response.result.content[0].text, "did not finish within 300000 ms (the server default)")
      // What the text says, as data: the timeout that applied, where it came from, how long the call ran.
      assert.deepStrictEqual(errorMeta(response), {
        code: "timeout",
        suggestion:
          "Retry with less work per call (fewer files, a narrower query), or ask the operator to raise the timeout " +
          "of t_slow.",
        timeoutMs: 300_000,
        source: "the server default",
        // Until it had stopped: the timeout, then the finalizer's second.
        elapsedMs: 301_000
      })
      yield* expectQuiet(client)
    })
  )

  it.effect("a tool's own timeout applies, and configuration overrides it", () =>
    Effect.gen(function* () {
      const own = yield* setup()
      yield* call(own.client, 1, "t_brief", {})
      yield* settle
      yield* TestClock.adjust("2 seconds")
      const response = yield* own.client.read
      assert.strictEqual(errorMeta(response).code, "timeout")
      assert.include(response.result.content[0].text, "within 2000 ms (the tool's own limit)")
      assert.strictEqual(yield* Queue.take(own.probes.ended), "brief:interrupted")

      const configured = yield* setup({ tools: { t_brief: { timeout: "500 millis" } } })
      yield* call(configured.client, 2, "t_brief", {})
      yield* settle
      yield* TestClock.adjust("500 millis")
      const overridden = yield* configured.client.read
      assert.include(overridden.result.content[0].text, "within 500 ms (configuration for the tool)")

      // The 2026-07-28 shape carries the same data, beside the server's identity.
      yield* call(configured.client, 4, "t_brief", {}, modernMeta())
      yield* settle
      yield* TestClock.adjust("500 millis")
      const modern = yield* configured.client.read
      assert.strictEqual(modern.result.resultType, "complete")
      assert.isObject(modern.result._meta["io.modelcontextprotocol/serverInfo"])
      assert.deepInclude(errorMeta(modern), {
        code: "timeout",
        timeoutMs: 500,
        source: "configuration for the tool",
        elapsedMs: 500
      })

      const perCapability = yield* setup({ capabilities: { t: { timeout: "1 second" } } })
      yield* call(perCapability.client, 3, "t_slow", { tag: "c" })
      yield* Queue.take(perCapability.probes.started)
      yield* settle
      yield* TestClock.adjust("1 second")
      const byCapability = yield* perCapability.client.read
      assert.include(byCapability.result.content[0].text, "within 1000 ms (configuration for the capability)")
    })
  )

  it.effect("a call that finishes in time is not affected", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ timeout: "1 minute" })
      yield* call(client, 1, "t_slow", { tag: "a", ms: 59_000 })
      yield* Queue.take(probes.started)
      yield* settle
      yield* TestClock.adjust("59 seconds")
      const response = yield* client.read
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "a done" }])
      yield* TestClock.adjust("5 minutes")
      yield* expectQuiet(client)
    })
  )
})

describe("concurrency", () => {
  it.effect("a call waits for a free slot, then runs; the queue timeout fails it as overloaded", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ maxConcurrent: 1, queueTimeout: "30 seconds" })
      yield* call(client, 1, "t_gate", { tag: "first" })
      assert.strictEqual(yield* Queue.take(probes.started), "first")
      yield* call(client, 2, "t_gate", { tag: "second" })
      yield* settle
      assert.strictEqual(yield* Queue.size(probes.started), 0, "the second call must wait")
      // The first finishes: the second gets its slot.
      yield* Queue.offer(probes.gate, undefined)
      assert.strictEqual((yield* client.read).id, 1)
      assert.strictEqual(yield* Queue.take(probes.started), "second")
      // A third call waits behind the second, and gives up after the queue timeout.
      yield* call(client, 3, "t_gate", { tag: "third" })
      yield* settle
      yield* TestClock.adjust("30 seconds")
      const overloaded = yield* client.read
      assert.strictEqual(overloaded.id, 3)
      assert.strictEqual(errorMeta(overloaded).code, "overloaded")
      assert.include(overloaded.result.content[0].text, "t_gate waited 30000 ms for a free slot")
      assert.include(overloaded.result.content[0].text, "the server has 1 call running, its limit is 1")
      assert.deepStrictEqual(errorMeta(overloaded), {
        code: "overloaded",
        suggestion: "Wait for the calls in progress to finish, then retry t_gate; make fewer calls in parallel.",
        reason: "queue_timeout",
        scope: "server",
        maxConcurrent: 1,
        inFlight: 1,
        queued: 0,
        maxQueued: 256,
        queueTimeoutMs: 30_000,
        waitedMs: 30_000
      })
      yield* Queue.offer(probes.gate, undefined)
      assert.strictEqual((yield* client.read).id, 2)
      assert.strictEqual(yield* Queue.size(probes.started), 0, "the timed-out call never ran")
    })
  )

  it.effect("when the queue is full, or the policy says reject, a call fails at once naming the limit", () =>
    Effect.gen(function* () {
      const queued = yield* setup({ maxConcurrent: 1, maxQueued: 1 })
      yield* call(queued.client, 1, "t_gate", { tag: "a" })
      yield* Queue.take(queued.probes.started)
      yield* call(queued.client, 2, "t_gate", { tag: "b" })
      yield* call(queued.client, 3, "t_gate", { tag: "c" })
      const full = yield* queued.client.read
      assert.strictEqual(full.id, 3)
      assert.strictEqual(errorMeta(full).code, "overloaded")
      assert.include(
        full.result.content[0].text,
        "found no free slot, and 1 call already waiting is the most the queue holds"
      )
      // The waiting call holds the tool's second slot while it waits for the server's: the tool's limit is full.
      assert.include(full.result.content[0].text, "tool t_gate has 2 calls running, its limit is 2")
      assert.deepInclude(errorMeta(full), {
        reason: "queue_full",
        scope: "tool",
        maxConcurrent: 2,
        inFlight: 2,
        queued: 1,
        maxQueued: 1,
        queueTimeoutMs: 30_000,
        waitedMs: 0
      })

      const rejecting = yield* setup({ maxConcurrent: 1, onOverload: "reject" })
      yield* call(rejecting.client, 1, "t_gate", { tag: "a" })
      yield* Queue.take(rejecting.probes.started)
      yield* call(rejecting.client, 2, "t_gate", { tag: "b" })
      const rejected = yield* rejecting.client.read
      assert.strictEqual(rejected.id, 2)
      assert.include(
        rejected.result.content[0].text,
        "found no free slot, and this server rejects calls it cannot start at once"
      )
      assert.include(rejected.result.content[0].text, "its limit is 1")
      assert.deepInclude(errorMeta(rejected), {
        code: "overloaded",
        reason: "rejected",
        scope: "server",
        maxConcurrent: 1,
        inFlight: 1,
        queued: 0,
        maxQueued: 0,
        waitedMs: 0
      })

      // A limit that is off is null; the 2026-07-28 shape carries the same data.
      const rejectingModern = yield* setup({ maxConcurrent: 1, onOverload: "reject", queueTimeout: "Infinity" })
      yield* call(rejectingModern.client, 1, "t_gate", { tag: "a" })
      yield* Queue.take(rejectingModern.probes.started)
      yield* call(rejectingModern.client, 2, "t_gate", { tag: "b" }, modernMeta())
      const modern = yield* rejectingModern.client.read
      assert.strictEqual(modern.id, 2)
      assert.strictEqual(modern.result.resultType, "complete")
      assert.deepInclude(errorMeta(modern), {
        code: "overloaded",
        reason: "rejected",
        scope: "server",
        maxConcurrent: 1,
        inFlight: 1,
        maxQueued: 0,
        queueTimeoutMs: null
      })
    })
  )

  it.effect("a per-tool limit names the tool; other tools still run", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ onOverload: "reject" })
      yield* call(client, 1, "t_gate", { tag: "a" })
      yield* call(client, 2, "t_gate", { tag: "b" })
      yield* Queue.take(probes.started)
      yield* Queue.take(probes.started)
      yield* call(client, 3, "t_gate", { tag: "c" })
      const rejected = yield* client.read
      assert.strictEqual(rejected.id, 3)
      assert.include(rejected.result.content[0].text, "tool t_gate has 2 calls running, its limit is 2")
      assert.deepInclude(errorMeta(rejected), { reason: "rejected", scope: "tool", maxConcurrent: 2, inFlight: 2 })
      // Invalid arguments are answered at once: they never wait for a slot.
      yield* call(client, 5, "t_gate", { tag: 42 })
      const invalid = yield* client.read
      assert.strictEqual(invalid.id, 5)
      assert.strictEqual(errorMeta(invalid).code, "invalid_arguments")
      yield* call(client, 4, "t_slow", { tag: "other", ms: 1 })
      yield* settle
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* client.read).id, 4)
    })
  )

  it.effect("cancelling a queued call removes it from the queue; it never runs and gets no answer", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ maxConcurrent: 1 })
      yield* call(client, 1, "t_gate", { tag: "a" })
      yield* Queue.take(probes.started)
      yield* call(client, 2, "t_gate", { tag: "b" })
      yield* settle
      yield* cancel(client, 2)
      yield* settle
      yield* Queue.offer(probes.gate, undefined)
      assert.strictEqual((yield* client.read).id, 1)
      yield* settle
      assert.strictEqual(yield* Queue.size(probes.started), 0, "the cancelled call never started")
      yield* expectQuiet(client)
      // Its slot was not leaked: the next call runs at once.
      yield* call(client, 3, "t_gate", { tag: "c" })
      assert.strictEqual(yield* Queue.take(probes.started), "c")
    })
  )

  it.effect("a call that waited for its slot can still be cancelled while it runs, and frees its slot", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ maxConcurrent: 1 })
      yield* call(client, 1, "t_gate", { tag: "a" })
      yield* Queue.take(probes.started)
      yield* call(client, 2, "t_gate", { tag: "b" })
      yield* settle
      yield* Queue.offer(probes.gate, undefined)
      assert.strictEqual((yield* client.read).id, 1)
      assert.strictEqual(yield* Queue.take(probes.started), "b")
      assert.strictEqual(yield* Queue.take(probes.ended), "a:done")
      yield* cancel(client, 2)
      assert.strictEqual(yield* Queue.take(probes.ended), "b:interrupted")
      yield* expectQuiet(client)
      yield* call(client, 3, "t_gate", { tag: "c" })
      assert.strictEqual(yield* Queue.take(probes.started), "c")
    })
  )

  it.effect("many parallel calls never exceed the global or per-tool limits, and all complete", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup({ maxConcurrent: 5, maxQueued: 1000 })
      const calls = 120
      for (let i = 0; i < calls; i++) {
        yield* call(client, i, i % 2 === 0 ? "t_work" : "t_steady", { ...(i % 2 === 0 ? { tool: "work" } : {}) })
      }
      const ids = new Set<number>()
      const reader = yield* Effect.forkChild(
        Effect.gen(function* () {
          while (ids.size < calls) {
            const response = yield* client.read
            assert.isUndefined(response.result.isError, JSON.stringify(response))
            ids.add(response.id)
          }
        })
      )
      while (ids.size < calls) {
        yield* settle
        yield* TestClock.adjust("10 millis")
      }
      yield* Fiber.join(reader)
      assert.strictEqual(probes.running.max, 5, "the global limit is reached and never exceeded")
      assert.isAtMost(probes.running.perTool.get("steady")!.max, 3)
      assert.strictEqual(probes.running.now, 0)
    })
  )
})

describe("cancellation", () => {
  it.effect("cancelling a running call interrupts it (its finalizer runs) and sends nothing", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup()
      yield* call(client, "x", "t_slow", { tag: "a" })
      yield* Queue.take(probes.started)
      yield* cancel(client, "x")
      assert.strictEqual(yield* Queue.take(probes.ended), "a:interrupted")
      yield* expectQuiet(client)
      // Unknown and finished ids are ignored.
      yield* cancel(client, "x")
      yield* cancel(client, "never-sent")
      yield* expectQuiet(client)
    })
  )
})

describe("after a cancel", () => {
  it.effect("nothing is sent for the request, not even from its finalizers", () =>
    Effect.gen(function* () {
      const { client, probes } = yield* setup()
      yield* call(client, 1, "t_noisy", {}, { progressToken: "n" })
      yield* Queue.take(probes.started)
      yield* cancel(client, 1)
      assert.strictEqual(yield* Queue.take(probes.ended), "noisy:interrupted")
      yield* expectQuiet(client)
    })
  )
})

describe("progress", () => {
  it.effect("a burst is coalesced: the first report goes out at once, the last one before the response", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      yield* call(client, 1, "t_chatty", { steps: 100 }, { progressToken: "p1" })
      const first = yield* client.read
      assert.deepStrictEqual(first, {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: "p1", progress: 1, total: 100, message: "step 1" }
      })
      const last = yield* client.read
      assert.deepStrictEqual(last.params, { progressToken: "p1", progress: 100, total: 100, message: "step 100" })
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "100 steps" }])
    })
  )

  it.effect("reports are paced at the interval, values only go up, and nothing is sent without a token", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ progressInterval: "100 millis" })
      // A report every 30 ms for 10 steps: at most one notification per 100 ms.
      yield* call(client, 1, "t_chatty", { steps: 10, pauseMs: 30 }, { progressToken: 7 })
      const seen: Array<number> = []
      const reader = yield* Effect.forkChild(
        Effect.gen(function* () {
          while (true) {
            const message = yield* client.read
            if (message.id === 1) return message
            seen.push(message.params.progress)
          }
        })
      )
      for (let t = 0; t < 400; t += 10) {
        yield* settle
        yield* TestClock.adjust("10 millis")
      }
      const response = yield* Fiber.join(reader)
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "10 steps" }])
      assert.strictEqual(seen[0], 1)
      assert.strictEqual(seen[seen.length - 1], 10)
      assert.isAtMost(seen.length, 5, `paced: ${seen.join(",")}`)
      assert.isAtLeast(seen.length, 3, `paced: ${seen.join(",")}`)
      for (let i = 1; i < seen.length; i++) assert.isAbove(seen[i]!, seen[i - 1]!)

      yield* call(client, 2, "t_backwards", {}, { progressToken: "b" })
      const up = yield* client.read
      assert.strictEqual(up.params.progress, 5)
      assert.strictEqual((yield* client.read).id, 2, "3 and the repeated 5 were dropped")

      yield* call(client, 3, "t_chatty", { steps: 5 })
      assert.strictEqual((yield* client.read).id, 3, "no token, no notifications")
    })
  )

  it.effect("protocol 2024-11-05 gets no progress message field", () =>
    Effect.gen(function* () {
      const probes = yield* makeProbes
      const client = yield* start(capability(probes))
      yield* client.initialize("2024-11-05")
      yield* call(client, 1, "t_chatty", { steps: 1 }, { progressToken: "old" })
      const notification = yield* client.read
      assert.deepStrictEqual(notification.params, { progressToken: "old", progress: 1, total: 1 })
    })
  )

  it.effect("a cancelled call's pending progress is never sent", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ progressInterval: "1 second" })
      yield* call(client, 1, "t_chatty", { steps: 3, pauseMs: 100 }, { progressToken: "c" })
      const first = yield* client.read
      assert.strictEqual(first.params.progress, 1)
      yield* settle
      yield* TestClock.adjust("150 millis") // step 2 reported and pending
      yield* cancel(client, 1)
      yield* settle
      yield* TestClock.adjust("5 seconds")
      yield* expectQuiet(client)
    })
  )
})

describe("client logging", () => {
  it.effect("messages at or above the client's level are sent, with the tool as logger by default", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      // Before logging/setLevel: the policy's default level, info.
      yield* call(client, 1, "t_talk", {})
      const before: Array<any> = []
      while (true) {
        const message = yield* client.read
        if (message.id === 1) break
        before.push(message)
      }
      assert.deepStrictEqual(before, [
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", logger: "t_talk", data: "an info line" }
        },
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "warning", logger: "custom", data: { detail: "a warning" } }
        },
        {
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "error", logger: "t_talk", data: "an error line" }
        }
      ])
      const set = yield* client.request("logging/setLevel", { level: "error" })
      assert.deepStrictEqual(set.result, {})
      yield* call(client, 2, "t_talk", {})
      const only = yield* client.read
      assert.deepStrictEqual(only.params, { level: "error", logger: "t_talk", data: "an error line" })
      assert.strictEqual((yield* client.read).id, 2)

      yield* client.request("logging/setLevel", { level: "debug" })
      yield* call(client, 3, "t_talk", {})
      assert.strictEqual((yield* client.read).params.level, "debug")
    })
  )

  it.effect("data JSON cannot carry is sent as text, undefined as null, and the call still succeeds", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      yield* call(client, 1, "t_odd_log", {})
      const first = yield* client.read
      assert.deepStrictEqual(first.params.data, {
        big: "12345678901234567890",
        cycle: { name: "loop", self: "[Circular]" }
      })
      const second = yield* client.read
      assert.deepStrictEqual(second.params, { level: "info", logger: "t_odd_log", data: null })
      const response = yield* client.read
      assert.deepStrictEqual(response.result.content, [{ type: "text", text: "logged" }])
    })
  )

  it.effect("an unknown level is -32602 naming the levels", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const response = yield* client.request("logging/setLevel", { level: "verbose" })
      assert.strictEqual(response.error.code, -32602)
      assert.include(response.error.message, '"debug" | "info"')
    })
  )
})

describe("result limits", () => {
  it.effect("an oversize result is replaced by an error saying so; a result under the limit is untouched", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ maxResultBytes: 10_000 })
      const small = yield* client.request("tools/call", { name: "t_big", arguments: { bytes: 4000 } })
      assert.strictEqual(small.result.content[0].text.length, 2000)
      // 2 bytes per "é": 12,000 bytes of text, though only 6,000 characters.
      const large = yield* client.request("tools/call", { name: "t_big", arguments: { bytes: 12_000 } })
      assert.strictEqual(large.result.isError, true)
      assert.strictEqual(errorMeta(large).code, "result_too_large")
      assert.match(large.result.content[0].text, /The result of t_big was 120\d\d bytes, over the limit of 10000 bytes/)
      assert.include(large.result.content[0].text, "(the server default)")
    })
  )

  it.effect("an oversize structured result carries no structuredContent", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const fits = yield* client.request("tools/call", { name: "t_big_structured", arguments: { bytes: 100 } })
      assert.strictEqual(fits.result.structuredContent.text.length, 100)
      const large = yield* client.request("tools/call", { name: "t_big_structured", arguments: { bytes: 5000 } })
      assert.strictEqual(large.result.isError, true)
      assert.isUndefined(large.result.structuredContent)
      assert.include(large.result.content[0].text, "limit of 1000 bytes (the tool's own limit)")
    })
  )
})

describe("the per-request log line", () => {
  it.effect("one line per request with method, id, correlation id, tool, timings, outcome and sizes", () =>
    Effect.gen(function* () {
      const lines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const capture = Logger.make<unknown, void>((options) => {
        const annotations = options.fiber.getRef(References.CurrentLogAnnotations) as Record<string, unknown>
        lines.push({ message: options.message, annotations: { ...annotations } })
      })
      const { client, probes } = yield* setup({ timeout: "1 minute" }).pipe(Effect.provide(Logger.layer([capture])))
      yield* call(client, 1, "t_slow", { tag: "a", ms: 250 })
      yield* Queue.take(probes.started)
      yield* settle
      yield* TestClock.adjust("250 millis")
      const ok = yield* client.read
      yield* call(client, 2, "t_slow", { tag: "b" })
      yield* Queue.take(probes.started)
      yield* cancel(client, 2)
      yield* Queue.take(probes.ended)
      yield* Queue.take(probes.ended)
      // A call that waits for a slot and gives up: its wait is in queue_ms.
      yield* call(client, "g1", "t_gate", { tag: "g1" })
      yield* call(client, "g2", "t_gate", { tag: "g2" })
      yield* Queue.take(probes.started)
      yield* Queue.take(probes.started)
      yield* call(client, 3, "t_gate", { tag: "g3" })
      yield* settle
      yield* TestClock.adjust("30 seconds")
      const overloaded = yield* client.read
      assert.strictEqual(errorMeta(overloaded).code, "overloaded")
      // An error result's text, and a JSON-RPC error's message.
      yield* call(client, 4, "t_gate", { tag: 42 })
      assert.strictEqual(errorMeta(yield* client.read).code, "invalid_arguments")
      yield* call(client, 5, "nope", {})
      assert.strictEqual((yield* client.read).error.code, -32602)
      yield* client.request("no/such/method")
      // Lines that never became a request are logged too, without a method.
      yield* client.write("{not json\n")
      assert.strictEqual((yield* client.read).error.code, -32700)
      yield* client.send({ jsonrpc: "1.0", id: "bad", method: "ping" })
      assert.strictEqual((yield* client.read).error.code, -32600)
      // A batch, which this protocol version does not have: answered and logged too.
      yield* client.write("[]\n")
      assert.strictEqual((yield* client.read).error.code, -32600)
      yield* settle
      const requests = lines
        .filter((line) => Array.isArray(line.message) && line.message[0] === "request")
        .map((line) => (line.message as Array<any>)[1] as Record<string, unknown>)
      const byId = (id: unknown) => requests.find((fields) => fields.id === id)!
      const first = byId(1)
      assert.strictEqual(first.method, "tools/call")
      assert.strictEqual(first.tool, "t_slow")
      assert.strictEqual(first.outcome, "ok")
      assert.strictEqual(first.elapsed_ms, 250)
      assert.strictEqual(first.queue_ms, 0)
      assert.strictEqual(
        first.bytes_in,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "t_slow", arguments: { tag: "a", ms: 250 } }
        }).length
      )
      assert.strictEqual(first.bytes_out, JSON.stringify(ok).length + 1)
      assert.match(String(first.correlation_id), /^[0-9a-f]{8}-[0-9a-z]+$/)
      // What served it: the tool's capability; an ok line has no error.
      assert.strictEqual(first.component, "t")
      assert.notProperty(first, "error")
      assert.deepStrictEqual(Object.keys(first), [
        "method",
        "id",
        "correlation_id",
        "component",
        "tool",
        "queue_ms",
        "elapsed_ms",
        "outcome",
        "bytes_in",
        "bytes_out"
      ])
      assert.strictEqual(byId(2).outcome, "cancelled")
      assert.notProperty(byId(2), "error")
      assert.strictEqual(byId(3).outcome, "overloaded")
      assert.strictEqual(byId(3).queue_ms, 30_000)
      assert.strictEqual(byId(3).component, "t")
      // The result's text without its suggestion.
      assert.strictEqual(byId(3).error, overloaded.result.content[0].text.split("\nSuggestion: ")[0])
      assert.match(String(byId(3).error), /^Server busy: t_gate waited 30000 ms for a free slot/)
      assert.strictEqual(byId(4).outcome, "invalid_arguments")
      assert.match(String(byId(4).error), /^Invalid arguments for tool t_gate:\n- tag: /)
      // An unknown tool: a JSON-RPC error, served by the server itself.
      assert.deepInclude(byId(5), { outcome: "error", component: "server" })
      assert.match(String(byId(5).error), /^Unknown tool: nope\./)
      assert.isUndefined(byId(2).bytes_out)
      const unknown = requests.find((fields) => fields.method === "no/such/method")!
      assert.strictEqual(unknown.outcome, "error")
      assert.strictEqual(unknown.component, "server")
      assert.include(String(unknown.error), "no/such/method")
      assert.strictEqual(requests.filter((fields) => fields.method === "initialize").length, 1)
      const unparsed = requests.filter((fields) => fields.method === undefined)
      assert.deepStrictEqual(
        unparsed.map((fields) => [fields.id, fields.outcome, fields.bytes_in]),
        [
          [null, "error", 9],
          ["bad", "error", JSON.stringify({ jsonrpc: "1.0", id: "bad", method: "ping" }).length],
          [null, "error", 2]
        ]
      )
      assert.match(String(unparsed[0]!.error), /^Parse error/)
      for (const fields of unparsed) assert.strictEqual(fields.component, "server")
    })
  )
})

describe("spans", () => {
  it.effect("with a tracer installed, each request has a span named after its method, with its attributes", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const { client } = yield* setup().pipe(Effect.provideService(Tracer.Tracer, tracer))
      yield* client.request("tools/call", { name: "t_big", arguments: { bytes: 10 } })
      yield* client.request("tools/call", { name: "t_big", arguments: {} })
      yield* client.request("tools/call", { name: "nope" })
      const names = spans.map((span) => span.name)
      assert.deepStrictEqual(names, ["initialize", "tools/call", "tools/call", "tools/call"])
      const [, ok, invalid, unknown] = spans.map((span) => Object.fromEntries(span.attributes))
      assert.deepInclude(ok, { "mcp.tool.name": "t_big", "mcp.capability": "t", "mcp.outcome": "ok" })
      assert.isString(ok!["mcp.correlation_id"])
      assert.deepInclude(invalid, { "mcp.outcome": "invalid_arguments", "error.type": "invalid_arguments" })
      assert.match(String(invalid!["mcp.error.message"]), /^Invalid arguments for tool t_big:/)
      assert.deepInclude(unknown, { "mcp.outcome": "error", "error.type": "error" })
      assert.match(String(unknown!["mcp.error.message"]), /^Unknown tool: nope\./)
      assert.notProperty(ok, "mcp.error.message")
      for (const span of spans) assert.strictEqual(span.status._tag, "Ended")
    })
  )
})
