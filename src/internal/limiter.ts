/**
 * A counting semaphore with a FIFO of waiters, built for the request hot
 * path: taking a free permit is a synchronous check, and a waiter that is
 * interrupted (cancelled, timed out in the queue) leaves the queue at once
 * and never leaks a permit, even when it was granted one in the same instant.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

interface Waiter {
  granted: boolean
  removed: boolean
  readonly resume: (effect: Effect.Effect<void>) => void
}

export class Limiter {
  readonly limit: number
  /** Permits held. */
  active = 0
  /** Waiters still queued (interrupted ones leave the count at once). */
  waiting = 0
  private waiters: Array<Waiter> = []
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
      this.waiters[this.head++] = undefined as never
      this.compact()
      if (waiter.removed) continue
      waiter.granted = true
      this.waiting--
      waiter.resume(Effect.void)
      return
    }
    this.active--
  }

  /** Waits for a permit. Interrupting the wait gives back a permit granted meanwhile. */
  readonly acquire: Effect.Effect<void> = Effect.suspend(() => {
    if (this.tryAcquire()) return Effect.void
    let waiter: Waiter | undefined
    return Effect.onInterrupt(
      Effect.callback<void>((resume) => {
        waiter = { granted: false, removed: false, resume }
        this.waiters.push(waiter)
        this.waiting++
      }),
      () =>
        Effect.sync(() => {
          if (waiter === undefined) return
          if (waiter.granted) this.release()
          else if (!waiter.removed) {
            waiter.removed = true
            this.waiting--
          }
        })
    )
  })

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
