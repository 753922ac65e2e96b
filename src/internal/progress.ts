/**
 * The per-request progress reporter behind the `Progress` service:
 * monotonic values, a minimum interval between notifications, coalescing in
 * between, and the last value delivered before the response.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { ProgressParams } from "../McpSchema.ts"
import { Progress, type Update } from "../Progress.ts"

export interface Reporter {
  readonly service: Progress["Service"]
  /** Stops reporting; with `flush`, first sends the coalesced value still pending. */
  readonly close: (flush: boolean) => Effect.Effect<void>
}

export const makeReporter = (options: {
  readonly token: string | number
  readonly intervalMs: number
  /** Whether `message` may be sent (protocol 2025-03-26 and later). */
  readonly withMessage: boolean
  readonly now: () => number
  readonly send: (params: ProgressParams) => Effect.Effect<void>
  /** Starts a fiber outside the request, so a report from a short-lived child fiber is not lost. */
  readonly fork: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
  /** False once the request was cancelled: nothing more is sent. */
  readonly isOpen: () => boolean
}): Reporter => {
  const { intervalMs, now, send, token } = options
  let last = -Infinity
  let sentAt = -Infinity
  let pending: ProgressParams | undefined
  let timer: Fiber.Fiber<void> | undefined
  let closed = false

  const sendPending = Effect.suspend(() => {
    timer = undefined
    const params = pending
    if (params === undefined || closed || !options.isOpen()) return Effect.void
    pending = undefined
    sentAt = now()
    return send(params)
  })

  const report = (update: Update): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (closed || !options.isOpen() || !(update.progress > last) || !Number.isFinite(update.progress)) {
        return Effect.void
      }
      last = update.progress
      const params: ProgressParams = {
        progressToken: token,
        progress: update.progress,
        ...(update.total === undefined || !Number.isFinite(update.total) ? {} : { total: update.total }),
        ...(update.message === undefined || !options.withMessage ? {} : { message: update.message })
      }
      const at = now()
      if (timer === undefined && at - sentAt >= intervalMs) {
        sentAt = at
        return send(params)
      }
      pending = params
      if (timer === undefined) {
        timer = options.fork(Effect.andThen(Effect.sleep(intervalMs - (at - sentAt)), sendPending))
      }
      return Effect.void
    })

  const close = (flush: boolean): Effect.Effect<void> =>
    Effect.suspend(() => {
      const running = timer
      timer = undefined
      const stop = running === undefined ? Effect.void : Fiber.interrupt(running)
      return Effect.andThen(
        stop,
        Effect.suspend(() => {
          const params = flush && options.isOpen() ? pending : undefined
          pending = undefined
          closed = true
          return params === undefined ? Effect.void : send(params)
        })
      )
    })

  return { service: Progress.of({ enabled: true, report }), close }
}
