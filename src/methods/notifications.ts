/**
 * The client notifications the server acts on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Client } from "../Client.ts"
import { CancelledParams } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import { Session } from "../Session.ts"

/**
 * `notifications/initialized`: the client is ready for server-initiated
 * messages.
 *
 * **Example**
 *
 * ```ts
 * import { initialized } from "effect-mcp-runtime/methods/notifications"
 *
 * initialized.decode({})._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const initialized = Method.notification("notifications/initialized", {
  params: Schema.Struct({}),
  inline: true,
  revisions: "legacy",
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
 * **Example**
 *
 * ```ts
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import { defaultMethods } from "effect-mcp-runtime/methods/index"
 * import { cancelled } from "effect-mcp-runtime/methods/notifications"
 *
 * // a server whose requests cannot be cancelled by the client
 * const uncancellable = McpServer.serve({ methods: defaultMethods.filter((method) => method !== cancelled) })
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const cancelled = Method.notification("notifications/cancelled", {
  params: CancelledParams,
  inline: true,
  handler: (params) => Effect.flatMap(Effect.service(Session), (session) => session.cancel(params.requestId))
})

/**
 * `notifications/roots/list_changed`: the client's roots changed; handlers
 * watching `Roots.changes` hear of it.
 *
 * **Example**
 *
 * ```ts
 * import { rootsListChanged } from "effect-mcp-runtime/methods/notifications"
 *
 * rootsListChanged.name // => "notifications/roots/list_changed"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const rootsListChanged = Method.notification("notifications/roots/list_changed", {
  params: Schema.Struct({}),
  inline: true,
  revisions: "legacy",
  handler: () => Effect.flatMap(Effect.service(Client), (client) => client.publishRootsChanged)
})
