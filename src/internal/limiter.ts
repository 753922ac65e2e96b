/**
 * A counting semaphore with a FIFO of waiters, built for the request hot
 * path: taking a free permit is a synchronous check; a wait can be bounded by
 * a deadline on the shared {@link Timers} (no fiber per waiter); and a waiter
 * that is interrupted (cancelled) or dies leaves the queue at once and never
 * leaks a permit, even when it was granted one in the same instant.
 *
 * Handing a permit to a waiter resumes its fiber synchronously, and that
 * fiber may release its permit before `release` returns (a call that
 * completes at once). Releases made during a hand-off are queued and handed
 * on by the outermost `release`, in a loop: a long queue of such calls never
 * deepens the stack.
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
  /** Entries between `head` and the end that left the queue without a permit. */
  private removed = 0
  private releasing = false
  private pendingReleases = 0

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
    if (this.releasing) {
      this.pendingReleases++
      return
    }
    this.releasing = true
    try {
      let releases = 1
      while (releases > 0) {
        releases--
        this.handOff()
        releases += this.pendingReleases
        this.pendingReleases = 0
      }
    } finally {
      this.releasing = false
    }
  }

  private handOff(): void {
    while (this.head < this.waiters.length) {
      const waiter = this.waiters[this.head]!
      this.waiters[this.head++] = undefined
      if (waiter.removed) {
        this.removed--
        continue
      }
      this.compact()
      waiter.granted = true
      this.waiting--
      waiter.timer?.cancel()
      waiter.resume(granted)
      return
    }
    this.compact()
    this.active--
  }

  /**
   * Waits for a permit, at most `ms` milliseconds when `timers` is given.
   * Succeeds with `true` when a permit was taken, `false` when the wait ran
   * out. If the wait ends any other way (interrupted, or a defect), a permit
   * granted meanwhile is given back.
   */
  acquire(ms: number, timers: Timers | undefined): Effect.Effect<boolean> {
    return Effect.suspend(() => {
      if (this.tryAcquire()) return granted
      if (ms <= 0) return expired
      let waiter: Waiter | undefined
      return Effect.onExit(
        Effect.callback<boolean>((resume) => {
          const self: Waiter = { granted: false, removed: false, timer: undefined, resume }
          waiter = self
          this.waiters.push(self)
          this.waiting++
          if (timers !== undefined && Number.isFinite(ms)) {
            self.timer = timers.schedule(ms, () => {
              if (self.granted || self.removed) return
              this.remove(self)
              resume(expired)
            })
          }
        }),
        (exit) =>
          exit._tag === "Success"
            ? Effect.void
            : Effect.sync(() => {
                if (waiter === undefined) return
                waiter.timer?.cancel()
                if (waiter.granted) this.release()
                else if (!waiter.removed) this.remove(waiter)
              })
      )
    })
  }

  private remove(waiter: Waiter): void {
    waiter.removed = true
    this.waiting--
    this.removed++
    // Waiters that left stay in the array until the head passes them, or
    // until they are most of it.
    if (this.removed > 1024 && this.removed * 2 > this.waiters.length - this.head) {
      this.waiters = this.waiters.slice(this.head).filter((w) => w !== undefined && !w.removed)
      this.head = 0
      this.removed = 0
    }
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
