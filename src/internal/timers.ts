/**
 * One timer fiber for many deadlines: call timeouts and queue timeouts are
 * entries in a binary heap, and a single fiber sleeps (on the Effect `Clock`,
 * so the TestClock drives it) until the earliest one. Scheduling and
 * cancelling an entry are synchronous and allocate no fiber; the common case
 * — every call with the same timeout, finishing before it — never wakes the
 * fiber early.
 *
 * Cancelled entries stay in the heap until they reach the top or the heap is
 * compacted, which happens when they outnumber the live ones.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

export interface Timer {
  /** Stops the timer; its callback will not run. Idempotent. */
  readonly cancel: () => void
}

interface Entry extends Timer {
  readonly deadline: number
  readonly fire: () => void
  cancelled: boolean
}

export class Timers {
  private heap: Array<Entry> = []
  private live = 0
  private driver: Fiber.Fiber<void> | undefined
  /** The deadline the driver sleeps until (Infinity when it is not running). */
  private target = Infinity
  private closed = false
  private readonly now: () => number
  private readonly fork: (effect: Effect.Effect<void>) => Fiber.Fiber<void>

  constructor(now: () => number, fork: (effect: Effect.Effect<void>) => Fiber.Fiber<void>) {
    this.now = now
    this.fork = fork
  }

  /** Runs `fire` after `ms` milliseconds, unless cancelled first. */
  schedule(ms: number, fire: () => void): Timer {
    const entry: Entry = {
      deadline: this.now() + ms,
      fire,
      cancelled: false,
      cancel: () => {
        if (entry.cancelled) return
        entry.cancelled = true
        this.live--
        if (this.heap.length > 1024 && this.heap.length > 2 * this.live) this.compact()
      }
    }
    if (this.closed) return entry
    this.push(entry)
    this.live++
    if (entry.deadline < this.target) this.restart(entry.deadline)
    return entry
  }

  /** Stops the driver; timers still pending never fire. */
  close(): void {
    this.closed = true
    this.driver?.interruptUnsafe()
    this.driver = undefined
    this.heap = []
    this.live = 0
  }

  // A new earliest deadline: start a driver for it (the new one recomputes
  // its target when it runs; until then, later entries do not restart it).
  private restart(deadline: number): void {
    this.driver?.interruptUnsafe()
    this.target = deadline
    this.driver = this.fork(this.loop)
  }

  private readonly loop: Effect.Effect<void> = Effect.suspend(() => {
    const now = this.now()
    while (this.heap.length > 0) {
      const top = this.heap[0]!
      if (top.cancelled) {
        this.pop()
        continue
      }
      if (top.deadline > now) break
      this.pop()
      top.cancelled = true
      this.live--
      // A callback that throws must not stop the timers of everyone else.
      try {
        top.fire()
      } catch {
        // nothing to report to: the callback's owner sees its own failure
      }
    }
    if (this.heap.length === 0) {
      this.target = Infinity
      this.driver = undefined
      return Effect.void
    }
    this.target = this.heap[0]!.deadline
    return Effect.andThen(Effect.sleep(this.target - now), this.loop)
  })

  private compact(): void {
    const kept = this.heap.filter((entry) => !entry.cancelled)
    this.heap = []
    for (const entry of kept) this.push(entry)
  }

  private push(entry: Entry): void {
    const heap = this.heap
    heap.push(entry)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[parent]!.deadline <= entry.deadline) break
      heap[i] = heap[parent]!
      i = parent
    }
    heap[i] = entry
  }

  private pop(): void {
    const heap = this.heap
    const last = heap.pop()!
    if (heap.length === 0) return
    let i = 0
    const n = heap.length
    while (true) {
      const left = 2 * i + 1
      if (left >= n) break
      const right = left + 1
      const child = right < n && heap[right]!.deadline < heap[left]!.deadline ? right : left
      if (heap[child]!.deadline >= last.deadline) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
  }
}
