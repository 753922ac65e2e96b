/**
 * When serving stops: an effect that completes once the connection (or,
 * for stateless requests, the server) starts to shut down. A long-lived
 * request (`subscriptions/listen`) waits on it to end gracefully, with a
 * result, instead of being cut off at the end of the grace period.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** Completes when serving stops; never, when nothing provides it. */
export const Closing = Context.Reference<Effect.Effect<void>>("effect-mcp-runtime/internal/Closing", {
  defaultValue: () => Effect.never
})
