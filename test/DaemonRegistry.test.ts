/**
 * The warm daemon's registry in process, on the TestClock: one server per
 * key shared by its sessions, closed after the idle time without a session,
 * rebuilt after that, after a failed build or after a build that did not
 * finish in time; the daemon's own idle timer, held off by any open
 * connection; the session slots (busy) and stopping.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import * as Exit from "effect/Exit"
import * as Registry from "../src/internal/daemonRegistry.ts"

const info = (root: string) => ({ root, capabilities: ["system"], front: "tools" })

const settle = Effect.gen(function* () {
  for (let i = 0; i < 10; i++) yield* Effect.yieldNow
})

/** A build that counts its runs and records when its server is closed. */
const counting = () => {
  const events: Array<string> = []
  let builds = 0
  const build = (name: string) =>
    Effect.gen(function* () {
      builds++
      events.push(`built ${name}`)
      yield* Effect.addFinalizer(() => Effect.sync(() => events.push(`closed ${name}`)))
      return `${name}#${builds}`
    })
  return { events, build, builds: () => builds }
}

const openSession = (
  registry: Registry.Registry<string, string>,
  key: string,
  build: Effect.Effect<string, string, Scope.Scope>
) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    // As the daemon does: the connection counts, a slot is taken, then the server is looked up or built.
    const opened = yield* Scope.provide(scope)(
      Effect.gen(function* () {
        yield* registry.connection
        assert.strictEqual(yield* registry.reserve(256), "ok")
        return yield* registry.session(key, info(`/srv/${key}`), build)
      })
    ).pipe(
      // As the daemon does: a session that fails ends with its scope.
      Effect.tapCause(() => Scope.close(scope, Exit.void))
    )
    return { ...opened, close: Scope.close(scope, Exit.void) }
  })

describe("daemon registry: idle exit", () => {
  it.effect("the daemon goes idle after idleMs without a session, not before", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const idle = yield* Effect.forkChild(registry.idle)
      yield* settle
      yield* TestClock.adjust(999)
      assert.isUndefined(idle.pollUnsafe())
      yield* TestClock.adjust(1)
      yield* Fiber.join(idle)
    })
  )

  it.effect("an open session holds the idle timer off; its end starts it again", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const { build } = counting()
      const done = yield* Deferred.make<void>()
      const idle = yield* Effect.forkChild(Effect.andThen(registry.idle, Deferred.succeed(done, undefined)))
      yield* TestClock.adjust(500)
      const session = yield* openSession(registry, "a", build("a"))
      assert.isNull((yield* registry.snapshot).idleSince)
      yield* TestClock.adjust(5000)
      assert.isFalse(yield* Deferred.isDone(done), "not idle while a session is open")
      yield* session.close
      yield* settle
      const snapshot = yield* registry.snapshot
      assert.strictEqual(snapshot.sessions, 0)
      assert.strictEqual(snapshot.idleSince, 5500)
      yield* TestClock.adjust(999)
      assert.isFalse(yield* Deferred.isDone(done))
      yield* TestClock.adjust(1)
      yield* Fiber.join(idle)
    })
  )
})

describe("daemon registry: connections, slots and stopping", () => {
  it.effect(
    "a connection in its handshake holds the idle timer off; once it closes, the timer keeps its deadline",
    () =>
      Effect.gen(function* () {
        const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
        const idle = yield* Effect.forkChild(registry.idle)
        yield* TestClock.adjust(900)
        const scope = yield* Scope.make()
        yield* Scope.provide(scope)(registry.connection)
        yield* TestClock.adjust(5000)
        yield* settle
        assert.isUndefined(idle.pollUnsafe(), "not idle while a connection is open")
        assert.isFalse(registry.isStopping())
        // A connection that was not a session (a status request, a refused handshake) does not push the deadline.
        yield* Scope.close(scope, Exit.void)
        yield* settle
        yield* Fiber.join(idle)
        assert.isTrue(registry.isStopping())
      })
  )

  it.effect("going idle marks the registry stopping in the same step: no slot is given after it", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      yield* TestClock.adjust(1000)
      yield* settle
      assert.isTrue(registry.isStopping())
      const slot = yield* Effect.scoped(registry.reserve(256))
      assert.strictEqual(slot, "stopping")
    })
  )

  it.effect("stop marks the registry stopping at once, and the idle timer never fires after it", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const idle = yield* Effect.forkChild(registry.idle)
      yield* registry.stop
      assert.isTrue(registry.isStopping())
      assert.strictEqual(yield* Effect.scoped(registry.reserve(256)), "stopping")
      yield* TestClock.adjust(10_000)
      yield* settle
      assert.isUndefined(idle.pollUnsafe())
    })
  )

  it.effect("slots are taken and counted in one step: of many at once, exactly `max` get one", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const scope = yield* Scope.make()
      const slots = yield* Effect.all(
        Array.from({ length: 5 }, () => Scope.provide(scope)(registry.reserve(2))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual([...slots].sort(), ["busy", "busy", "busy", "ok", "ok"])
      assert.strictEqual((yield* registry.snapshot).sessions, 2)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual((yield* registry.snapshot).sessions, 0)
      assert.strictEqual(yield* Effect.scoped(registry.reserve(2)), "ok")
    })
  )

  it.effect("a build that never finishes fails after buildTimeoutMs, is not kept, and does not hold idle exit", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000, buildTimeoutMs: 60_000 })
      const stuck = yield* Effect.forkChild(Effect.flip(openSession(registry, "a", Effect.never)))
      yield* settle
      assert.strictEqual((yield* registry.snapshot).warm[0]?.state, "building")
      yield* TestClock.adjust(59_999)
      yield* settle
      assert.isUndefined(stuck.pollUnsafe())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(stuck)
      assert.instanceOf(error, Registry.BuildTimeout)
      assert.include((error as Registry.BuildTimeout).message, "did not start within 60000 ms")
      yield* settle
      assert.deepStrictEqual((yield* registry.snapshot).warm, [], "the failed build is not kept")
      const { build } = counting()
      const next = yield* openSession(registry, "a", build("a"))
      assert.strictEqual(next.server, "a#1", "the next session builds again")
      yield* next.close
      const idle = yield* Effect.forkChild(registry.idle)
      yield* TestClock.adjust(1000)
      yield* Fiber.join(idle)
    })
  )
})

describe("daemon registry: warm servers", () => {
  it.effect("sessions with one key share one server; another key gets its own", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const { build, builds } = counting()
      const first = yield* openSession(registry, "a", build("a"))
      const second = yield* openSession(registry, "a", build("a"))
      const other = yield* openSession(registry, "b", build("b"))
      assert.strictEqual(first.server, "a#1")
      assert.strictEqual(second.server, "a#1")
      assert.isFalse(first.reused)
      assert.isTrue(second.reused)
      assert.strictEqual(other.server, "b#2")
      assert.strictEqual(builds(), 2)
      const snapshot = yield* registry.snapshot
      assert.strictEqual(snapshot.sessions, 3)
      assert.strictEqual(snapshot.totalSessions, 3)
      const byRoot = Object.fromEntries(snapshot.warm.map((warm) => [warm.root, warm]))
      assert.strictEqual(byRoot["/srv/a"]!.sessions, 2)
      assert.strictEqual(byRoot["/srv/a"]!.state, "ready")
      assert.strictEqual(byRoot["/srv/b"]!.sessions, 1)
      yield* Effect.all([first.close, second.close, other.close])
    })
  )

  it.effect("a warm server with no session for idleMs is closed; the next session builds a new one", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      // A connection open all along (a client in its handshake): the daemon stays, its idle warm servers go.
      yield* registry.connection
      const { build, builds, events } = counting()
      const first = yield* openSession(registry, "a", build("a"))
      yield* first.close
      yield* TestClock.adjust(600)
      // Used again within the idle time: the same server, and its idle time starts over.
      const again = yield* openSession(registry, "a", build("a"))
      assert.isTrue(again.reused)
      yield* again.close
      yield* TestClock.adjust(999)
      assert.deepStrictEqual(events, ["built a"])
      assert.strictEqual((yield* registry.snapshot).warm.length, 1)
      yield* TestClock.adjust(1)
      yield* settle
      assert.deepStrictEqual(events, ["built a", "closed a"])
      assert.strictEqual((yield* registry.snapshot).warm.length, 0)
      const later = yield* openSession(registry, "a", build("a"))
      assert.isFalse(later.reused)
      assert.strictEqual(builds(), 2)
      yield* later.close
    })
  )

  it.effect("a failed build is not kept: the next session builds again", () =>
    Effect.gen(function* () {
      const registry = yield* Registry.make<string, string>({ idleMs: 1000 })
      const failing = yield* Effect.flip(openSession(registry, "a", Effect.fail("upstream down")))
      assert.strictEqual(failing, "upstream down")
      assert.strictEqual((yield* registry.snapshot).totalSessions, 0, "nor counted among the sessions served")
      assert.strictEqual((yield* registry.snapshot).sessions, 0, "the failed session is not counted as open")
      const { build } = counting()
      const next = yield* openSession(registry, "a", build("a"))
      assert.strictEqual(next.server, "a#1")
      yield* next.close
    })
  )

  it.effect("closing the registry closes every warm server", () =>
    Effect.gen(function* () {
      const { build, events } = counting()
      const scope = yield* Scope.make()
      const registry = yield* Scope.provide(scope)(Registry.make<string, string>({ idleMs: 60_000 }))
      const session = yield* openSession(registry, "a", build("a"))
      yield* session.close
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(events, ["built a", "closed a"])
    })
  )
})
