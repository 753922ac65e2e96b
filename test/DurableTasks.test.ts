/**
 * Durable tasks on an SQLite file (layers/ClusterTasks.ts): the task's
 * workflow runs its work, the projection answers tasks/get, and the task
 * and its result outlive the server that created it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as ClusterTasks from "../layers/ClusterTasks.ts"
import * as Capability from "../src/Capability.ts"
import * as Task from "../src/Task.ts"
import * as Tool from "../src/Tool.ts"
import { TestClient } from "../src/testing.ts"

const withTasks = { "io.modelcontextprotocol/tasks": {} }

const fixture = (log: Array<string>) =>
  Capability.make(
    { id: "t", description: "durable tasks under test", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("slow", {
          description: "Waits, then answers its label",
          input: Schema.Struct({ ms: Schema.Finite, label: Schema.String }),
          task: "optional"
        }).pipe(
          Tool.handle(({ label, ms }) =>
            Task.background(
              Effect.sync(() => log.push(`started ${label}`)).pipe(
                Effect.andThen(Effect.sleep(ms)),
                Effect.andThen(Effect.sync(() => log.push(`finished ${label}`))),
                Effect.as(`${label}: done`),
                Effect.onInterrupt(() => Effect.sync(() => log.push(`interrupted ${label}`)))
              )
            )
          )
        ),
        Tool.make("check", {
          description: "Waits, then answers its label; safe to run again",
          input: Schema.Struct({ ms: Schema.Finite, label: Schema.String }),
          task: "optional",
          durable: "rerun"
        }).pipe(
          Tool.handle(({ label, ms }) =>
            Task.background(
              Effect.sync(() => log.push(`started ${label}`)).pipe(
                Effect.andThen(Effect.sleep(ms)),
                Effect.andThen(Effect.sync(() => log.push(`finished ${label}`))),
                Effect.as(`${label}: checked`)
              )
            )
          )
        )
      ]
    })
  )

const client = (filename: string, log: Array<string>) =>
  TestClient.make(Layer.merge(fixture(log), ClusterTasks.layerSqlite({ filename })) as unknown as Layer.Layer<never>, {
    protocolVersion: "2026-07-28",
    extensions: withTasks
  })

const poll = (c: TestClient.TestClient, taskId: string, done: (task: any) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 2000; i++) {
      const task = yield* c.request("tasks/get", { taskId })
      if (done(task)) return task
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 25)))
    }
    return yield* Effect.die(new Error("never done"))
  })

describe("durable tasks on SQLite", () => {
  it.live("a task runs as a workflow, and its result outlives the server", () =>
    Effect.gen(function* () {
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "durable-"))
      const filename = NodePath.join(dir, "tasks.db")
      const log: Array<string> = []
      const taskId = yield* Effect.scoped(
        Effect.gen(function* () {
          const c = yield* client(filename, log)
          const created = yield* c.request("tools/call", { name: "t_slow", arguments: { ms: 50, label: "a" } })
          assert.strictEqual(created.resultType, "task")
          const done = yield* poll(c, created.taskId, (task) => task.status !== "working")
          assert.strictEqual(done.status, "completed")
          assert.deepStrictEqual(done.result.content, [{ type: "text", text: "a: done" }])
          return created.taskId as string
        })
      )
      assert.deepStrictEqual(log, ["started a", "finished a"])
      const again = yield* Effect.scoped(
        Effect.flatMap(client(filename, log), (c) => c.request("tasks/get", { taskId }))
      )
      assert.strictEqual(again.status, "completed")
      assert.deepStrictEqual(log, ["started a", "finished a"])
    })
  )

  it.live(
    "a task cut off by its server's end is taken over when it starts again: failed, or run again",
    () =>
      Effect.gen(function* () {
        const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "durable-"))
        const filename = NodePath.join(dir, "tasks.db")
        const log: Array<string> = []
        const [failing, rerun] = yield* Effect.scoped(
          Effect.gen(function* () {
            const c = yield* client(filename, log)
            const a = yield* c.request("tools/call", { name: "t_slow", arguments: { ms: 60_000, label: "a" } })
            const b = yield* c.request("tools/call", { name: "t_check", arguments: { ms: 100, label: "b" } })
            const b2 = yield* c.request("tools/call", { name: "t_check", arguments: { ms: 60_000, label: "c" } })
            yield* poll(c, a.taskId, () => log.includes("started a") && log.includes("started c"))
            return [a.taskId as string, b2.taskId as string, b.taskId as string] as const
          })
        )
        assert.deepStrictEqual(
          log.filter((line) => line.startsWith("interrupted")),
          ["interrupted a"]
        )
        const [a, c] = yield* Effect.scoped(
          Effect.gen(function* () {
            const c = yield* client(filename, log)
            console.error("DBG restarted", Date.now())
            return yield* Effect.all([
              poll(c, failing, (task) => task.status !== "working"),
              poll(c, rerun, () => log.filter((line) => line === "started c").length === 2)
            ])
          })
        )
        assert.strictEqual(a.status, "failed")
        assert.match(a.statusMessage, /stopped before it ended.*t_slow is not safe to run twice/)
        assert.strictEqual(c.status, "working")
      }),
    90_000
  )

  it.live("a second server on the same file refuses to start", () =>
    Effect.gen(function* () {
      const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "durable-"))
      const filename = NodePath.join(dir, "tasks.db")
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* client(filename, [])
          const second = yield* Effect.flip(Effect.scoped(client(filename, [])))
          assert.match(String((second as any).message), /another process|cannot be used/)
        })
      )
    })
  )
})
