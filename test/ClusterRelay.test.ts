/**
 * Two servers in one process, each a runner on one throwaway PostgreSQL
 * (layers/ClusterTasks.ts): what happens on one reaches the
 * `subscriptions/listen` streams of the other — a resource update, a change
 * of the tool list, a task's status — exactly once, and an instance's own
 * events are not echoed back to it.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as ClusterTasks from "../layers/ClusterTasks.ts"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as Resource from "../src/Resource.ts"
import * as Task from "../src/Task.ts"
import * as Tool from "../src/Tool.ts"
import { freePort } from "./support/ports.ts"
import * as Postgres from "./support/postgres.ts"
import { collector, makeServer, meta, type ModernServer } from "./support/modern.ts"

const capability = Capability.make(
  { id: "r", description: "relayed events", version: "1.0.0" },
  Effect.succeed({
    tools: [
      Tool.make("work", {
        description: "A short task",
        input: Schema.Struct({ label: Schema.String }),
        task: "optional"
      }).pipe(Tool.handle(({ label }) => Task.background(Effect.as(Effect.sleep("50 millis"), `${label}: done`))))
    ],
    resources: [
      Resource.make("watched", { uri: "mem://watched", description: "w" }).pipe(
        Resource.handle(() => Effect.succeed("w"))
      )
    ]
  })
)

let pg: Postgres.Postgres
beforeAll(async () => {
  pg = await Postgres.start()
}, 30_000)
afterAll(async () => {
  await pg?.stop()
})

const instance = Effect.fnUntraced(function* () {
  const runnerPort = yield* Effect.promise(freePort)
  return yield* makeServer(
    Layer.merge(capability, ClusterTasks.layerPostgres({ url: pg.url, runnerPort })) as unknown as Layer.Layer<
      never,
      never,
      Kernel.Kernel
    >
  )
})

const listen = (served: ModernServer, id: string, notifications: Record<string, unknown>) =>
  Effect.gen(function* () {
    const messages = yield* collector()
    yield* Effect.forkScoped(
      served.request("subscriptions/listen", { _meta: meta(), notifications }, { id, origin: messages.origin })
    )
    yield* messages.next
    return messages
  })

// The next message, or a failure after a few seconds (the events cross the database).
const nextWithin = (messages: { readonly next: Effect.Effect<any> }, what: string) =>
  Effect.timeoutOrElse(messages.next, {
    duration: Duration.seconds(10),
    orElse: () => Effect.die(new Error(`no ${what} within 10 s`))
  })

describe("events relayed between instances on PostgreSQL", { concurrent: false }, () => {
  it.live(
    "a resource update and a tool list change on A reach B's listener once; A's own listener is not echoed",
    () =>
      Effect.gen(function* () {
        const a = yield* instance()
        const b = yield* instance()
        const onB = yield* listen(b, "b", { toolsListChanged: true, resourceSubscriptions: ["mem://watched"] })
        const onA = yield* listen(a, "a", { resourceSubscriptions: ["mem://watched"] })
        yield* Resource.updated("mem://watched").pipe(Effect.provideService(Kernel.Kernel, a.kernel))
        const update = yield* nextWithin(onB, "resource update on B")
        assert.strictEqual(update.method, "notifications/resources/updated")
        assert.strictEqual(update.params.uri, "mem://watched")
        assert.strictEqual((yield* nextWithin(onA, "resource update on A")).method, "notifications/resources/updated")
        yield* a.kernel.registerDynamic(
          Tool.make("added", { description: "added" }).pipe(Tool.handle(() => Effect.succeed("added")))
        )
        assert.strictEqual(
          (yield* nextWithin(onB, "tools list change on B")).method,
          "notifications/tools/list_changed"
        )
        // Nothing more: no echo of B's relayed events back to A, no duplicate on B.
        yield* Effect.sleep("1500 millis")
        assert.strictEqual(onA.sent.length, 2, JSON.stringify(onA.sent))
        assert.strictEqual(onB.sent.length, 3, JSON.stringify(onB.sent))
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a task created through A is read through B, and B's listener hears its end",
    () =>
      Effect.gen(function* () {
        const a = yield* instance()
        const b = yield* instance()
        const withTasks = meta({
          "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } }
        })
        const created = yield* a.request("tools/call", { _meta: withTasks, name: "r_work", arguments: { label: "x" } })
        assert.strictEqual(created.response.result.resultType, "task", created.line)
        const taskId: string = created.response.result.taskId
        // B's listener on the task (opened through B, with the extension): its changes made on A reach it.
        const messages = yield* collector()
        yield* Effect.forkScoped(
          b.request(
            "subscriptions/listen",
            { _meta: withTasks, notifications: { taskIds: [taskId] } },
            { id: "tasks", origin: messages.origin }
          )
        )
        const ack = yield* nextWithin(messages, "acknowledgment")
        assert.deepStrictEqual(ack.params.notifications.taskIds, [taskId], JSON.stringify(ack))
        // The task as it is when the stream opens (working, or already ended), then each change until its end.
        let ended = yield* nextWithin(messages, "the task on B")
        while (ended.params.status === "working") ended = yield* nextWithin(messages, "the task's end on B")
        assert.strictEqual(ended.method, "notifications/tasks")
        assert.strictEqual(ended.params.status, "completed", JSON.stringify(ended))
        const task = (yield* b.request("tasks/get", { _meta: withTasks, taskId })).response.result
        assert.strictEqual(task.status, "completed", JSON.stringify(task))
        assert.deepStrictEqual(task.result.content, [{ type: "text", text: "x: done" }])
      }).pipe(Effect.scoped),
    60_000
  )
})
