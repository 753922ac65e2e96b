/**
 * The executor applies the {@link Policy} to every tool call: it waits for a
 * per-tool slot, then a global one (in that order, so the two limits can
 * never deadlock each other), bounds the wait, then runs the call under its
 * timeout. A timed-out call is interrupted, and its finalizers have run
 * before the executor returns.
 *
 * `McpServer.serve` builds an executor of its own from the {@link Policy}
 * reference when none is in context; provide {@link layer} instead to share
 * one set of limits between several servers or sessions.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Executor from "effect-mcp-runtime/Executor"
 *
 * const program = Effect.gen(function*() {
 *   const executor = yield* Executor.Executor
 *   return yield* executor.run({ name: "demo_work", capability: "demo" }, Effect.succeed("done"))
 * }).pipe(Effect.provide(Executor.layer))
 * ```
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { Limiter } from "./internal/limiter.ts"
import { Timers } from "./internal/timers.ts"
import * as Policy from "./Policy.ts"

/**
 * No slot was free: the queue was full, the wait ran out, or the policy says
 * to reject at once. `message` names the tool, the count and the limit; the
 * other fields say the same as data (the executor sets them all; `scope`,
 * `reason`, `queued`, `maxQueued` and `queueTimeoutMs` since 0.5.0). A
 * limit that is off (`Infinity`) is `Infinity` here.
 *
 * **Example**
 *
 * ```ts
 * import { Overloaded } from "effect-mcp-runtime/Executor"
 *
 * const error = new Overloaded({
 *   message: "Server busy",
 *   tool: "exec_run",
 *   limit: 2,
 *   active: 2,
 *   waitedMs: 0,
 *   scope: "tool",
 *   reason: "rejected",
 *   queued: 0,
 *   maxQueued: 0,
 *   queueTimeoutMs: 30_000
 * })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class Overloaded extends Schema.TaggedError<Overloaded>()("Overloaded", {
  message: Schema.String,
  tool: Schema.String,
  /** The limit that was full (a `maxConcurrent`). */
  limit: Schema.Number,
  /** How many calls held it. */
  active: Schema.Number,
  /** How long the call waited before giving up (0: rejected at once). */
  waitedMs: Schema.Number,
  /** Whose limit was full: the tool's own `maxConcurrent`, or the server-wide one. */
  scope: Schema.optionalKey(Schema.Literals(["tool", "server"])),
  /**
   * Why the call got no slot: `rejected` (the policy rejects calls it cannot
   * start at once), `queue_full` (`maxQueued` calls were already waiting) or
   * `queue_timeout` (it waited `queueTimeout` and gave up).
   */
  reason: Schema.optionalKey(Schema.Literals(["rejected", "queue_full", "queue_timeout"])),
  /** How many other calls were waiting for a slot, server-wide, when it gave up. */
  queued: Schema.optionalKey(Schema.Number),
  /** The most calls that may wait (`maxQueued`; 0 when the policy rejects at once). */
  maxQueued: Schema.optionalKey(Schema.Number),
  /** How long a call may wait for its slot(s), in milliseconds (`queueTimeout`). */
  queueTimeoutMs: Schema.optionalKey(Schema.Number)
}) {}

/**
 * The call ran past its timeout and was interrupted. `elapsedMs` (since
 * 0.5.0) is how long it ran until it had stopped, its finalizers included.
 *
 * **Example**
 *
 * ```ts
 * import { TimedOut } from "effect-mcp-runtime/Executor"
 *
 * const error = new TimedOut({
 *   message: "exec_run timed out",
 *   tool: "exec_run",
 *   timeoutMs: 1000,
 *   source: "the server default"
 * })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class TimedOut extends Schema.TaggedError<TimedOut>()("TimedOut", {
  message: Schema.String,
  tool: Schema.String,
  timeoutMs: Schema.Number,
  /** Which setting the timeout came from (see `Policy.Source`). */
  source: Schema.String,
  /**
   * How long the call ran, in milliseconds, until it had stopped: the
   * timeout, plus the time its interruption took (its finalizers).
   */
  elapsedMs: Schema.optionalKey(Schema.Number)
}) {}

/**
 * The `TimedOut` of a tool stopped at its timeout, worded as the executor
 * words it (also for the part of a task's call it does not run itself).
 * `elapsedMs`, how long the call had run, defaults to the timeout.
 *
 * **Example**
 *
 * ```ts
 * import { timedOut } from "effect-mcp-runtime/Executor"
 *
 * timedOut({ name: "exec_run" }, { value: 1000, source: "the server default" }).message
 * // => "Tool exec_run did not finish within 1000 ms (the server default); it was stopped."
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export const timedOut = (
  target: { readonly name: string },
  timeout: { readonly value: number; readonly source: string },
  elapsedMs: number = timeout.value
): TimedOut =>
  new TimedOut({
    message: `Tool ${target.name} did not finish within ${timeout.value} ms (${timeout.source}); it was stopped.`,
    tool: target.name,
    timeoutMs: timeout.value,
    source: timeout.source,
    elapsedMs
  })

/**
 * What the executor needs to know about a tool.
 *
 * **Example**
 *
 * ```ts
 * import type * as Executor from "effect-mcp-runtime/Executor"
 *
 * const target: Executor.Target = { name: "exec_run", capability: "exec", own: { maxConcurrent: 2 } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Target {
  /**
   * The public name. Calls of one name share its per-tool limit, whichever
   * `Target` object they pass: a tool replaced at run time (an upstream
   * server's re-listed tools) keeps the calls still running under the old
   * one in its count. The limits are resolved once per `Target` object; a
   * new object whose `maxConcurrent` differs gets a limiter of its own.
   */
  readonly name: string
  readonly capability: string
  /** The tool's own limits (`Tool.make` options). */
  readonly own?: Policy.Limits | undefined
  /** The capability's own limits (`Capability.make` options). */
  readonly capabilityOwn?: Policy.Limits | undefined
}

/**
 * A point-in-time view of the executor's load.
 *
 * **Example**
 *
 * ```ts
 * import type * as Executor from "effect-mcp-runtime/Executor"
 *
 * const idle: Executor.Load = { active: 0, waiting: 0, limit: 32, tools: {} }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Load {
  readonly active: number
  readonly waiting: number
  readonly limit: number
  readonly tools: { readonly [name: string]: { readonly active: number; readonly waiting: number } }
}

/**
 * The executor service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Executor } from "effect-mcp-runtime/Executor"
 *
 * const busy = Effect.map(Effect.service(Executor), (executor) => executor.load().active > 0)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Executor extends Context.Service<
  Executor,
  {
    /**
     * Runs `effect` as a call of `target` under the policy. When the wait for
     * a slot ends (with a slot, out of time, or cancelled), its length in
     * milliseconds goes to `waited.queueMs` (a `RequestRecord` fits).
     */
    readonly run: <A, E, R>(
      target: Target,
      effect: Effect.Effect<A, E, R>,
      waited?: { queueMs: number },
      options?: RunOptions
    ) => Effect.Effect<A, E | Overloaded | TimedOut, R>
    /** The limits in force for a tool. */
    readonly limits: (target: Target) => Policy.ToolLimits
    /** Current load, for diagnostics and tests. */
    readonly load: () => Load
  }
>()("effect-mcp-runtime/Executor") {}

/**
 * How a call is run. `nested`: the call is made from inside a call that
 * holds a server-wide slot already (a tool called from code mode, see
 * `NestedCall`): it takes no server-wide slot of its own, or a caller
 * waiting for its calls would wait for itself once every slot is taken; the
 * tool's own limit, its timeout and its result size still apply.
 *
 * **Example**
 *
 * ```ts
 * import type { RunOptions } from "effect-mcp-runtime/Executor"
 *
 * const inside: RunOptions = { nested: true }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface RunOptions {
  readonly nested?: boolean | undefined
}

interface Entry {
  readonly limits: Policy.ToolLimits
  readonly limiter: Limiter | undefined
  /** Gives back the global slot and this tool's. */
  readonly release: () => void
}

/**
 * Builds an executor from policy settings. Its timers run on one fiber,
 * stopped when the scope closes; they follow the `Clock` in context, so the
 * TestClock drives them in tests.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Executor from "effect-mcp-runtime/Executor"
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * const limit = Effect.scoped(
 *   Effect.map(Executor.make({ ...Policy.defaults, maxConcurrent: 4 }), (executor) => executor.load().limit)
 * ) // succeeds with 4
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (policy: Policy.PolicyShape): Effect.Effect<Executor["Service"], never, Scope.Scope> =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    // Monotonic: a step of the system clock neither fires deadlines early nor delays them.
    const now = () => Number(clock.monotonicTimeNanosUnsafe()) / 1e6
    const timers = new Timers(now, runFork)
    yield* Effect.addFinalizer(() => Effect.sync(() => timers.close()))
    return makeWith(policy, timers, now)
  })

const makeWith = (policy: Policy.PolicyShape, timers: Timers, now: () => number): Executor["Service"] => {
  const serverWide = new Limiter(policy.maxConcurrent)
  // What a nested call takes instead of a server-wide slot: always one free (see RunOptions).
  const unbounded = new Limiter(Infinity)
  const queueTimeoutMs = Policy.millis(policy.queueTimeout)
  const reject = policy.onOverload === "reject" || policy.maxQueued <= 0
  // The entries by public name: the per-tool limiter belongs to the name, so
  // that a tool replaced at run time (a new compiled object, same name) is
  // not a fresh limit beside the calls of the old one still running. The
  // weak map caches the entry of each target object (its limits resolved
  // once).
  const entries = new WeakMap<Target, Entry>()
  const byName = new Map<string, Entry>()
  let waiting = 0

  const entryOf = (target: Target): Entry => {
    let entry = entries.get(target)
    if (entry === undefined) {
      const limits = Policy.resolve(policy, target)
      const max = limits.maxConcurrent.value
      const previous = byName.get(target.name)
      // The same limit as the name's entry: the same limiter (its running calls count).
      const limiter =
        previous !== undefined && previous.limits.maxConcurrent.value === max
          ? previous.limiter
          : Number.isFinite(max)
            ? new Limiter(Math.max(0, max))
            : undefined
      entry = {
        limits,
        limiter,
        release:
          limiter === undefined
            ? () => serverWide.release()
            : () => {
                serverWide.release()
                limiter.release()
              }
      }
      entries.set(target, entry)
      byName.set(target.name, entry)
    }
    return entry
  }

  const calls = (n: number) => `${n} call${n === 1 ? "" : "s"}`

  // Why a call got no slot: the queue was full, the policy rejects at once,
  // or the wait ran out in the per-tool stage or the global one.
  type Shortage = "queue-full" | "rejected" | "tool-wait" | "global-wait"

  const overloaded = (target: Target, entry: Entry, shortage: Shortage, waitedMs: number): Overloaded => {
    const limiter = entry.limiter
    const toolFull =
      limiter !== undefined &&
      (shortage === "tool-wait" || (shortage !== "global-wait" && limiter.active >= limiter.limit))
    const [scope, active, limit] = toolFull
      ? [`tool ${target.name} has ${calls(limiter.active)} running, its limit`, limiter.active, limiter.limit]
      : [`the server has ${calls(serverWide.active)} running, its limit`, serverWide.active, serverWide.limit]
    const why =
      shortage === "rejected"
        ? "found no free slot, and this server rejects calls it cannot start at once"
        : shortage === "queue-full"
          ? `found no free slot, and ${calls(waiting)} already waiting is the most the queue holds`
          : `waited ${Math.round(waitedMs)} ms for a free slot (the queue timeout)`
    return new Overloaded({
      message: `Server busy: ${target.name} ${why}; ${scope} is ${limit}.`,
      tool: target.name,
      limit,
      active,
      waitedMs,
      scope: toolFull ? "tool" : "server",
      reason: shortage === "rejected" ? "rejected" : shortage === "queue-full" ? "queue_full" : "queue_timeout",
      queued: waiting,
      maxQueued: reject ? 0 : policy.maxQueued,
      queueTimeoutMs
    })
  }

  // The call runs in a child fiber of its own, started at once: a call that
  // completes synchronously needs no timer at all. Otherwise one entry on the
  // shared timers interrupts the child at the deadline; the caller waits for
  // the child to finish (its finalizers included) either way. `release` gives
  // the call's slots back the moment the child ends, however it ends (the
  // child of an interrupted caller is interrupted too).
  const guarded = <A, E, R>(
    target: Target,
    entry: Entry,
    effect: Effect.Effect<A, E, R>,
    release: (() => void) | undefined
  ): Effect.Effect<A, E | TimedOut, R> => {
    const timeout = entry.limits.timeoutMs
    // Callers may be in an uninterruptible region (the queue's slow path takes
    // its slots there): the call itself, and the wait for it, are always
    // interruptible.
    if (!Number.isFinite(timeout.value)) {
      return release === undefined ? effect : Effect.ensuring(Effect.interruptible(effect), Effect.sync(release))
    }
    return Effect.uninterruptible(
      Effect.flatMap(Effect.forkChild(effect, { startImmediately: true }), (fiber) => {
        const done = fiber.pollUnsafe()
        if (done !== undefined) {
          release?.()
          return done
        }
        if (release !== undefined) fiber.addObserver(release)
        const startedAt = now()
        let expired = false
        const timer = timers.schedule(timeout.value, () => {
          expired = true
          fiber.interruptUnsafe()
        })
        return Effect.interruptible(Fiber.await(fiber)).pipe(
          Effect.onInterrupt(() => Effect.sync(timer.cancel)),
          Effect.flatMap((exit): Effect.Effect<A, E | TimedOut> => {
            timer.cancel()
            if (!expired || exit._tag === "Success") return exit
            return Effect.fail(timedOut(target, timeout, Math.round((now() - startedAt) * 1000) / 1000))
          })
        )
      })
    )
  }

  const run = <A, E, R>(
    target: Target,
    effect: Effect.Effect<A, E, R>,
    waited?: { queueMs: number },
    options?: RunOptions
  ): Effect.Effect<A, E | Overloaded | TimedOut, R> =>
    Effect.suspend((): Effect.Effect<A, E | Overloaded | TimedOut, R> => {
      const entry = entryOf(target)
      const limiter = entry.limiter
      const nested = options?.nested === true
      const global = nested ? unbounded : serverWide
      const release = nested
        ? limiter === undefined
          ? () => unbounded.release()
          : () => {
              unbounded.release()
              limiter.release()
            }
        : entry.release
      // No limit at all: nothing to take or give back.
      if (limiter === undefined && global.limit === Infinity) {
        if (waited !== undefined) waited.queueMs = 0
        return guarded(target, entry, effect, undefined)
      }
      // Fast path: both slots free, nobody queued.
      const haveTool = limiter === undefined || limiter.tryAcquire()
      if (haveTool && global.tryAcquire()) {
        if (waited !== undefined) waited.queueMs = 0
        return guarded(target, entry, effect, release)
      }
      if (haveTool) limiter?.release()
      if (reject || waiting >= policy.maxQueued) {
        if (waited !== undefined) waited.queueMs = 0
        return Effect.fail(overloaded(target, entry, reject ? "rejected" : "queue-full", 0))
      }
      // Slow path: wait in line, per-tool slot first, then a global one, all
      // within one queue timeout.
      waiting++
      const queuedAt = now()
      const deadline = queuedAt + queueTimeoutMs
      let stage: "tool-wait" | "global-wait" = limiter === undefined ? "global-wait" : "tool-wait"
      const waitGlobal = Effect.suspend(() => {
        stage = "global-wait"
        return global.acquire(deadline - now(), timers)
      })
      const acquire =
        limiter === undefined
          ? waitGlobal
          : Effect.flatMap(limiter.acquire(queueTimeoutMs, timers), (gotTool) =>
              gotTool
                ? Effect.onExit(waitGlobal, (exit) =>
                    // Without a global slot, the tool's slot goes back.
                    exit._tag === "Success" && exit.value ? Effect.void : Effect.sync(() => limiter.release())
                  )
                : Effect.succeed(false)
            )
      return Effect.uninterruptibleMask((restore) =>
        restore(acquire).pipe(
          Effect.onExit(() =>
            Effect.sync(() => {
              waiting--
              if (waited !== undefined) waited.queueMs = now() - queuedAt
            })
          ),
          Effect.flatMap((acquired): Effect.Effect<A, E | Overloaded | TimedOut, R> => {
            if (!acquired) return Effect.fail(overloaded(target, entry, stage, now() - queuedAt))
            return guarded(target, entry, effect, release)
          })
        )
      )
    })

  return Executor.of({
    run,
    limits: (target) => entryOf(target).limits,
    load: () => ({
      active: serverWide.active,
      waiting,
      limit: serverWide.limit,
      tools: Object.fromEntries(
        [...byName].flatMap(([name, entry]) =>
          entry.limiter === undefined
            ? []
            : [[name, { active: entry.limiter.active, waiting: entry.limiter.waiting }] as const]
        )
      )
    })
  })
}

/**
 * An executor built from the {@link Policy} reference in context.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Executor from "effect-mcp-runtime/Executor"
 * import * as Policy from "effect-mcp-runtime/Policy"
 *
 * // one executor shared by every session of a server
 * const ExecutorLive = Executor.layer.pipe(Layer.provide(Policy.layer({ maxConcurrent: 8 })))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Executor> = Layer.effect(Executor, Effect.flatMap(Effect.service(Policy.Policy), make))
