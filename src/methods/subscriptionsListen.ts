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
import * as Pull from "effect/Pull"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Closing } from "../internal/lifecycle.ts"
import { metaKey } from "../internal/meta.ts"
import * as Tasks from "../internal/tasks.ts"
import { Kernel } from "../Kernel.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"
import { Session } from "../Session.ts"
import type { Task } from "../TaskStore.ts"
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
    resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String)),
    // The tasks extension: the tasks whose every change the stream carries (notifications/tasks).
    taskIds: Schema.optionalKey(Schema.Array(Schema.String))
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
 * With the tasks extension, `notifications.taskIds` asks for the changes of
 * those tasks: the acknowledgment lists the ones that exist (the others are
 * left out), each is sent at once as it is now, then again on every change,
 * as `notifications/tasks` whose params are the task as `tasks/get` answers
 * it. `taskIds` from a client that did not declare the extension is −32021.
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
        const runner = wanted.taskIds === undefined ? undefined : yield* Tasks.TaskRunner
        if (wanted.taskIds !== undefined && !Tasks.declared(request.clientCapabilities)) {
          return yield* Effect.fail(Tasks.missingExtension("subscriptions/listen with notifications.taskIds"))
        }
        const taskIds = new Set<string>()
        if (runner !== undefined) {
          for (const taskId of new Set(wanted.taskIds)) {
            if (taskIds.size === maxSubscriptions) break
            if ((yield* runner.store.get(taskId)) !== undefined) taskIds.add(taskId)
          }
        }
        const honoured = {
          ...(wanted.toolsListChanged === true ? { toolsListChanged: true } : {}),
          ...(wanted.promptsListChanged === true ? { promptsListChanged: true } : {}),
          ...(wanted.resourcesListChanged === true ? { resourcesListChanged: true } : {}),
          ...(wanted.resourceSubscriptions === undefined ? {} : { resourceSubscriptions: [...uris] }),
          ...(wanted.taskIds === undefined || runner === undefined ? {} : { taskIds: [...taskIds] })
        }
        // Subscribed before the acknowledgment: no change after it is missed.
        const changes = yield* PubSub.subscribe(kernel.changes)
        const updates = yield* PubSub.subscribe(kernel.updates)
        const taskChanges =
          taskIds.size === 0 || runner === undefined ? undefined : yield* Stream.toPull(runner.store.changes)
        yield* session.notify("notifications/subscriptions/acknowledged", { _meta: tagged, notifications: honoured })
        const notifyTask = (task: Task) => session.notify("notifications/tasks", { ...task, _meta: tagged })
        // Each task as it is now (it may have ended before the subscription), then its changes.
        if (runner !== undefined) {
          for (const taskId of taskIds) {
            const task = yield* runner.store.get(taskId)
            if (task !== undefined) yield* notifyTask(task)
          }
        }
        const forwardTasks =
          taskChanges === undefined
            ? Effect.never
            : Effect.forever(
                Effect.flatMap(taskChanges, (burst) =>
                  Effect.forEach(
                    burst.filter((task) => taskIds.has(task.taskId)),
                    notifyTask,
                    { discard: true }
                  )
                )
              ).pipe(Pull.catchDone(() => Effect.never))
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
          Effect.all([forwardChanges, forwardUpdates, forwardTasks], { concurrency: "unbounded", discard: true })
        )
        // The server ends the subscription: it says so with the request's result.
        return { _meta: tagged }
      })
    )
})
