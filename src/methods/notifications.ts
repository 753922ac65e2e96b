/**
 * The client notifications the server acts on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CancelledParams } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import { Session } from "../Session.ts"

/**
 * `notifications/initialized`: the client is ready for server-initiated
 * messages.
 *
 * @category methods
 * @since 0.1.0
 */
export const initialized = Method.notification("notifications/initialized", {
  params: Schema.Struct({}),
  handler: () =>
    Effect.map(Effect.service(Session), (session) => {
      session.state.initializedNotified = true
    })
})

/**
 * `notifications/cancelled`: interrupts the named request's fiber, wherever it
 * is. No response is sent for it. Unknown or finished ids, and `initialize`,
 * are ignored.
 *
 * @category methods
 * @since 0.1.0
 */
export const cancelled = Method.notification("notifications/cancelled", {
  params: CancelledParams,
  handler: (params) => Effect.flatMap(Effect.service(Session), (session) => session.cancel(params.requestId))
})
