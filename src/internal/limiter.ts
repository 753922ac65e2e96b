/**
 * A counting semaphore with a FIFO of waiters, built for the request hot
 * path: taking a free permit is a synchronous check; a wait can be bounded by
 * a deadline on the shared {@link Timers} (no fiber per waiter); and a waiter
 * that is interrupted (cancelled) leaves the queue at once and never leaks a
 * permit, even when it was granted one in the same instant.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Timer, Timers } from "./timers.ts"

interface Waiter {
  granted: boolean
  removed: boolean
  timer: Timer | undefined
  readonly resume: (effect: Effect.Effect<boolean>) => void
}

const granted = Effect.succeed(true)
const expired = Effect.succeed(false)

export class Limiter {
  readonly limit: number
  /** Permits held. */
  active = 0
  /** Waiters still queued (interrupted and expired ones leave the count at once). */
  waiting = 0
  private waiters: Array<Waiter | undefined> = []
  private head = 0

  constructor(limit: number) {
    this.limit = limit
  }

  /** Takes a permit if one is free and nobody is queued before us. */
  tryAcquire(): boolean {
    if (this.active < this.limit && this.waiting === 0) {
      this.active++
      return true
    }
    return false
  }

  /** Returns a permit: hands it to the first waiter, if any. */
  release(): void {
    while (this.head < this.waiters.length) {
      const waiter = this.waiters[this.head]!
      this.waiters[this.head++] = undefined
      this.compact()
      if (waiter.removed) continue
      waiter.granted = true
      this.waiting--
      waiter.timer?.cancel()
      waiter.resume(granted)
      return
    }
    this.active--
  }

  /**
   * Waits for a permit, at most `ms` milliseconds when `timers` is given.
   * Succeeds with `true` when a permit was taken, `false` when the wait ran
   * out. Interrupting the wait gives back a permit granted meanwhile.
   */
  acquire(ms: number, timers: Timers | undefined): Effect.Effect<boolean> {
    return Effect.suspend(() => {
      if (this.tryAcquire()) return granted
      if (ms <= 0) return expired
      let waiter: Waiter | undefined
      return Effect.onInterrupt(
        Effect.callback<boolean>((resume) => {
          const self: Waiter = { granted: false, removed: false, timer: undefined, resume }
          waiter = self
          this.waiters.push(self)
          this.waiting++
          if (timers !== undefined && Number.isFinite(ms)) {
            self.timer = timers.schedule(ms, () => {
              if (self.granted || self.removed) return
              self.removed = true
              this.waiting--
              resume(expired)
            })
          }
        }),
        () =>
          Effect.sync(() => {
            if (waiter === undefined) return
            waiter.timer?.cancel()
            if (waiter.granted) this.release()
            else if (!waiter.removed) {
              waiter.removed = true
              this.waiting--
            }
          })
      )
    })
  }

  private compact(): void {
    if (this.head === this.waiters.length) {
      this.waiters = []
      this.head = 0
    } else if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head)
      this.head = 0
    }
  }
}
