/**
 * `resources/subscribe` and `resources/unsubscribe`: which resources this
 * session hears about (`notifications/resources/updated`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { MethodNotFound, RequestFailed } from "../McpError.ts"
import * as Method from "../Method.ts"
import { Session } from "../Session.ts"
import { resourceAt, UriParams } from "./resourcesRead.ts"

/**
 * The most URIs one session may subscribe to: a client cannot grow the
 * server's memory without bound.
 *
 * **Example**
 *
 * ```ts
 * import { maxSubscriptions } from "effect-mcp-runtime/methods/resourcesSubscribe"
 *
 * maxSubscriptions // => 10000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const maxSubscriptions = 10_000

/**
 * Subscribes the session to a resource's updates. The URI must name a
 * resource (−32002 otherwise); subscribing twice is harmless.
 *
 * **Example**
 *
 * ```ts
 * import { resourcesSubscribe } from "effect-mcp-runtime/methods/resourcesSubscribe"
 *
 * resourcesSubscribe.decode({ uri: "notes://readme" })._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesSubscribe = Method.request("resources/subscribe", {
  params: UriParams,
  // 2026-07-28 subscribes through subscriptions/listen.
  revisions: "legacy",
  handler: (params) =>
    Effect.flatMap(resourceAt(params.uri, "resources/subscribe"), () =>
      Effect.flatMap(Effect.service(Session), (session) => {
        const subscriptions = session.state.subscriptions
        if (!subscriptions.has(params.uri) && subscriptions.size >= maxSubscriptions) {
          return Effect.fail(
            new RequestFailed({
              message:
                `This session already has ${subscriptions.size} subscriptions, the most it may have; ` +
                `unsubscribe from resources it no longer watches first.`,
              data: { reason: "too_many_subscriptions", limit: maxSubscriptions }
            })
          )
        }
        subscriptions.add(params.uri)
        return Effect.succeed({})
      })
    )
})

/**
 * Ends a subscription. Unsubscribing from a URI the session never subscribed
 * to is harmless (the spec leaves it open; nothing is gained by an error).
 *
 * **Example**
 *
 * ```ts
 * import { resourcesUnsubscribe } from "effect-mcp-runtime/methods/resourcesSubscribe"
 *
 * resourcesUnsubscribe.decode({ uri: "notes://readme" })._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesUnsubscribe = Method.request("resources/unsubscribe", {
  params: UriParams,
  revisions: "legacy",
  handler: (params) =>
    Effect.flatMap(Effect.service(Kernel), (kernel) => {
      if (kernel.resourceCount() === 0) return Effect.fail(new MethodNotFound({ method: "resources/unsubscribe" }))
      return Effect.map(Effect.service(Session), (session) => {
        session.state.subscriptions.delete(params.uri)
        return {}
      })
    })
})
