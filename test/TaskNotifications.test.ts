/**
 * `notifications/tasks` (the tasks extension, 2026-07-28): a
 * `subscriptions/listen` stream that names tasks in `notifications.taskIds`
 * carries each of them as it is now, then on every change, with the
 * subscription's id; unknown ids are left out of the acknowledgment; a client
 * that did not declare the extension gets −32021.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Capability from "../src/Capability.ts"
import * as Task from "../src/Task.ts"
import * as TaskStore from "../src/TaskStore.ts"
import * as Tool from "../src/Tool.ts"
import { collector, makeServer, meta, metaKey } from "./support/modern.ts"

const withTasks = meta({ [metaKey.clientCapabilities]: { extensions: { [Task.extensionId]: {} } } })

const makeJobs = (gate: Deferred.Deferred<string>) =>
  Capability.make(
    { id: "jobs", description: "A job that waits for the test", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("wait", { description: "Waits for the test's word", task: "optional" }).pipe(
          Tool.handle(() => Task.background(Deferred.await(gate)))
        )
      ]
    })
  )

describe("notifications/tasks", () => {
  it.effect("a listen stream carries the named tasks now and on every change", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<string>()
      const { request } = yield* makeServer(makeJobs(gate))
      const created = (yield* request("tools/call", { name: "jobs_wait", _meta: withTasks })).response.result
      assert.strictEqual(created.resultType, "task")
      const taskId: string = created.taskId

      const stream = yield* collector()
      const listen = yield* Effect.forkScoped(
        request(
          "subscriptions/listen",
          { notifications: { taskIds: [taskId, "no-such-task"] }, _meta: withTasks },
          { id: "listen-1", origin: stream.origin }
        )
      )
      const ack = yield* stream.next
      assert.strictEqual(ack.method, "notifications/subscriptions/acknowledged")
      assert.deepStrictEqual(ack.params.notifications, { taskIds: [taskId] })

      const now = yield* stream.next
      assert.strictEqual(now.method, "notifications/tasks")
      assert.strictEqual(now.params.taskId, taskId)
      assert.strictEqual(now.params.status, "working")
      assert.strictEqual(now.params._meta[metaKey.subscriptionId], "listen-1")
      assert.isUndefined(now.params.resultType)

      yield* Deferred.succeed(gate, "done")
      const ended = yield* stream.next
      assert.strictEqual(ended.method, "notifications/tasks")
      assert.strictEqual(ended.params.status, "completed")
      assert.strictEqual(ended.params.result.content[0].text, "done")
      assert.strictEqual(ended.params._meta[metaKey.subscriptionId], "listen-1")
      // The same task as tasks/get answers it.
      const got = (yield* request("tasks/get", { taskId, _meta: withTasks })).response.result
      const { _meta: _notificationMeta, ...notified } = ended.params
      const { _meta: _resultMeta, resultType: _resultType, ...answered } = got
      assert.deepStrictEqual(notified, answered)
      yield* Fiber.interrupt(listen)
    }).pipe(Effect.scoped)
  )

  it.effect("taskIds without the extension is −32021; the stream is never opened", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<string>()
      const { request } = yield* makeServer(makeJobs(gate))
      const stream = yield* collector()
      const answer = yield* request(
        "subscriptions/listen",
        { notifications: { taskIds: ["x"] }, _meta: meta() },
        { origin: stream.origin }
      )
      assert.strictEqual(answer.response.error.code, -32021)
      assert.deepStrictEqual(answer.response.error.data.requiredCapabilities, {
        extensions: { [Task.extensionId]: {} }
      })
      assert.deepStrictEqual(stream.sent, [])
    }).pipe(Effect.scoped)
  )
})

describe("tasks across servers that share a store", () => {
  it.effect("tasks/get and tasks/cancel through another server: the work stops where it runs", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<string>()
      const interrupted = yield* Deferred.make<void>()
      const jobs = Capability.make(
        { id: "jobs", description: "A job that waits", version: "1.0.0" },
        Effect.succeed({
          tools: [
            Tool.make("wait", { description: "Waits for the test's word", task: "optional" }).pipe(
              Tool.handle(() =>
                Task.background(
                  Deferred.await(gate).pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, void 0)))
                )
              )
            )
          ]
        })
      )
      const store = yield* TaskStore.makeMemory
      const a = yield* makeServer(jobs).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const b = yield* makeServer(jobs).pipe(Effect.provideService(TaskStore.TaskStore, store))
      const created = (yield* a.request("tools/call", { name: "jobs_wait", _meta: withTasks })).response.result
      const taskId: string = created.taskId
      assert.strictEqual(
        (yield* b.request("tasks/get", { taskId, _meta: withTasks })).response.result.status,
        "working"
      )
      yield* b.request("tasks/cancel", { taskId, _meta: withTasks })
      yield* Deferred.await(interrupted)
      assert.strictEqual(
        (yield* a.request("tasks/get", { taskId, _meta: withTasks })).response.result.status,
        "cancelled"
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a task cut off by the server's end is settled failed in a store that outlives the server", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<string>()
      const store = yield* TaskStore.makeMemory
      const taskId = yield* Effect.scoped(
        Effect.gen(function* () {
          const server = yield* makeServer(makeJobs(gate)).pipe(Effect.provideService(TaskStore.TaskStore, store))
          const created = (yield* server.request("tools/call", { name: "jobs_wait", _meta: withTasks })).response.result
          assert.strictEqual(created.status, "working")
          return created.taskId as string
        })
      )
      const task = yield* store.get(taskId)
      assert.strictEqual(task?.status, "failed")
      assert.include(task?.statusMessage ?? "", "the server shut down")
      assert.strictEqual(task?.error?.code, -32603)
    }).pipe(Effect.scoped)
  )
})
