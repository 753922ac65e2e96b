/**
 * `subscriptions/listen` (2026-07-28): a long-lived request whose stream
 * carries the change notifications the client asked for — list changes,
 * updates of given resources — until the client cancels it (closes the
 * stream, or `notifications/cancelled` on stdio) or the server shuts down
 * (then it is answered with an empty result, so the client knows it ended
 * cleanly).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import { Closing } from "../internal/lifecycle.ts"
import { metaKey } from "../internal/meta.ts"
import { Kernel } from "../Kernel.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"
import { Session } from "../Session.ts"
import { maxSubscriptions } from "./resourcesSubscribe.ts"

/**
 * The params of `subscriptions/listen`: which notifications the stream
 * carries.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ListenParams } from "effect-mcp-runtime/methods/subscriptionsListen"
 *
 * Schema.decodeUnknownSync(ListenParams)({ notifications: { toolsListChanged: true } })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const ListenParams = Schema.Struct({
  notifications: Schema.Struct({
    toolsListChanged: Schema.optionalKey(Schema.Boolean),
    promptsListChanged: Schema.optionalKey(Schema.Boolean),
    resourcesListChanged: Schema.optionalKey(Schema.Boolean),
    resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String))
  })
})

/**
 * Opens a subscription. The first message on its stream is
 * `notifications/subscriptions/acknowledged`, with the part of the filter the
 * server honours (the resource URIs it serves, at most
 * {@link maxSubscriptions}); every notification after it carries the
 * subscription id (the request's id) in `_meta`. Changes that happen while
 * the subscription is open reach it; nothing is kept for a client that
 * reconnects.
 *
 * **Example**
 *
 * ```ts
 * import { subscriptionsListen } from "effect-mcp-runtime/methods/subscriptionsListen"
 *
 * subscriptionsListen.decode({ notifications: { promptsListChanged: true } })._tag // => "Success"
 * subscriptionsListen.decode({})._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const subscriptionsListen = Method.request("subscriptions/listen", {
  params: ListenParams,
  revisions: "modern",
  handler: (params) =>
    Effect.scoped(
      Effect.gen(function* () {
        const kernel = yield* Kernel
        const session = yield* Session
        const request = yield* RequestContext
        const closing = yield* Closing
        const subscriptionId = request.requestId
        const tagged = { [metaKey.subscriptionId]: subscriptionId }
        const wanted = params.notifications
        const uris = new Set(
          (wanted.resourceSubscriptions ?? [])
            .filter((uri) => kernel.resolve(uri) !== undefined)
            .slice(0, maxSubscriptions)
        )
        const honoured = {
          ...(wanted.toolsListChanged === true ? { toolsListChanged: true } : {}),
          ...(wanted.promptsListChanged === true ? { promptsListChanged: true } : {}),
          ...(wanted.resourcesListChanged === true ? { resourcesListChanged: true } : {}),
          ...(wanted.resourceSubscriptions === undefined ? {} : { resourceSubscriptions: [...uris] })
        }
        // Subscribed before the acknowledgment: no change after it is missed.
        const changes = yield* PubSub.subscribe(kernel.changes)
        const updates = yield* PubSub.subscribe(kernel.updates)
        yield* session.notify("notifications/subscriptions/acknowledged", { _meta: tagged, notifications: honoured })
        const kinds: ReadonlyArray<readonly [string, boolean]> = [
          ["tools", honoured.toolsListChanged === true],
          ["prompts", honoured.promptsListChanged === true],
          ["resources", honoured.resourcesListChanged === true]
        ]
        // A burst of changes becomes one notification per kind.
        const forwardChanges = Effect.forever(
          Effect.flatMap(PubSub.takeAll(changes), (burst) =>
            Effect.forEach(
              kinds.filter(([kind, on]) => on && burst.includes(kind as never)),
              ([kind]) => session.notify(`notifications/${kind}/list_changed`, { _meta: tagged }),
              { discard: true }
            )
          )
        )
        const forwardUpdates = Effect.forever(
          Effect.flatMap(PubSub.takeAll(updates), (burst) =>
            Effect.forEach(
              [...new Set(burst)].filter((uri) => uris.has(uri)),
              (uri) => session.notify("notifications/resources/updated", { _meta: tagged, uri }),
              { discard: true }
            )
          )
        )
        yield* Effect.raceFirst(
          closing,
          Effect.all([forwardChanges, forwardUpdates], { concurrency: "unbounded", discard: true })
        )
        // The server ends the subscription: it says so with the request's result.
        return { _meta: tagged }
      })
    )
})
