/**
 * The requests a connection is serving, by key: each runs in a fiber of its
 * own, registered while it runs, so that `notifications/cancelled` can
 * interrupt it, a duplicate id can be refused, and the shutdown drain can
 * wait for it (then interrupt what is left after the grace period).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type { RequestRecord } from "../RequestContext.ts"

/** A connection's table of requests in flight. */
export interface InFlight {
  /**
   * Starts `effect` in its own fiber, registered under `key` while it runs.
   * (A fiber that completed synchronously is already done when this returns,
   * and is never registered.)
   */
  readonly fork: <A>(key: string, effect: Effect.Effect<A>) => Fiber.Fiber<A>
  /** Whether a request is registered under `key`. */
  readonly has: (key: string) => boolean
  /**
   * Interrupts the request registered under `key`, marking its record ended
   * first so that nothing more is sent for it, even from its finalizers.
   * Unknown keys are ignored.
   */
  readonly cancel: (key: string) => void
  /** The records of the requests being served, by the same keys (filled by the request pipeline). */
  readonly records: Map<string, RequestRecord>
  /**
   * Waits for every request in flight for at most `graceMs`, then marks them
   * all ended and interrupts them, waiting at most `interruptWaitMs` for
   * their finalizers.
   */
  readonly drain: (graceMs: number, interruptWaitMs: number) => Effect.Effect<void>
}

/** Builds an empty table whose fibers start with `runFork`. */
export const make = (runFork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>): InFlight => {
  const fibers = new Map<string, Fiber.Fiber<unknown, unknown>>()
  const records = new Map<string, RequestRecord>()

  const fork = <A>(key: string, effect: Effect.Effect<A>): Fiber.Fiber<A> => {
    const fiber = runFork(effect)
    if (fiber.pollUnsafe() === undefined) {
      fibers.set(key, fiber)
      fiber.addObserver(() => {
        if (fibers.get(key) === fiber) fibers.delete(key)
      })
    }
    return fiber
  }

  const cancel = (key: string): void => {
    const fiber = fibers.get(key)
    if (fiber === undefined) return
    const record = records.get(key)
    if (record !== undefined) record.ended = true
    fiber.interruptUnsafe()
  }

  const drain = (graceMs: number, interruptWaitMs: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      const running = [...fibers.values()]
      if (running.length === 0) return Effect.void
      return Fiber.awaitAll(running).pipe(
        Effect.timeoutOption(graceMs),
        Effect.flatMap((done) =>
          Option.isSome(done)
            ? Effect.void
            : Effect.andThen(
                Effect.logWarning("shutdown grace period elapsed; interrupting in-flight requests", {
                  in_flight: running.length,
                  grace_ms: graceMs
                }),
                // A request stuck in an uninterruptible region must not keep
                // the server from exiting. Nothing more is sent for them, even
                // from their finalizers.
                Effect.andThen(
                  Effect.sync(() => {
                    for (const record of records.values()) record.ended = true
                  }),
                  Fiber.interruptAll(running)
                ).pipe(
                  Effect.timeoutOption(interruptWaitMs),
                  Effect.flatMap((stopped) =>
                    Option.isSome(stopped)
                      ? Effect.void
                      : Effect.logWarning("in-flight requests did not stop after interruption; leaving them", {
                          wait_ms: interruptWaitMs
                        })
                  )
                )
              )
        )
      )
    })

  return { fork, has: (key) => fibers.has(key), cancel, records, drain }
}
