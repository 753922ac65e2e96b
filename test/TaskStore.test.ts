/**
 * The in-memory task store (`TaskStore.makeMemory`): create, get and atomic
 * update; terminal tasks never change; ended tasks expire `ttlMs` after
 * their creation (working ones never); every change on `changes`; at most
 * `maxTasks` tasks, the oldest ended ones dropped first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as TaskStore from "../src/TaskStore.ts"

const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

// A task created now (by the clock in context), working.
const newTask = (taskId: string, ttlMs: number | null = 1000): Effect.Effect<TaskStore.Task> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const at = new Date(now).toISOString()
    return { taskId, status: "working", createdAt: at, lastUpdatedAt: at, ttlMs, pollIntervalMs: 500 }
  })

const complete = (task: TaskStore.Task): TaskStore.Task => ({
  ...task,
  status: "completed",
  result: { content: [{ type: "text", text: "ok" }] }
})

describe("TaskStore.makeMemory", () => {
  it.effect("create, get and update; an unknown task is undefined", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      const task = yield* newTask("a")
      assert.isUndefined(yield* store.get("a"))
      yield* store.create(task)
      assert.deepStrictEqual(yield* store.get("a"), task)
      const asked = yield* store.update("a", (current) => ({
        ...current,
        status: "input_required",
        inputRequests: { "elicit-1": { method: "elicitation/create", params: { message: "?" } } }
      }))
      assert.strictEqual(asked?.status, "input_required")
      assert.deepStrictEqual(yield* store.get("a"), asked)
      // f returning undefined leaves the task as it is.
      const same = yield* store.update("a", () => undefined)
      assert.deepStrictEqual(same, asked)
      assert.deepStrictEqual(yield* store.get("a"), asked)
      // An unknown task: f is never called, the answer is undefined.
      let called = false
      const none = yield* store.update("nope", (current) => {
        called = true
        return current
      })
      assert.isUndefined(none)
      assert.isFalse(called)
      assert.isUndefined(yield* store.get("nope"))
    }).pipe(Effect.scoped)
  )

  it.effect("a terminal task never changes: f is not called, the task is answered as it is", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      for (const status of ["completed", "failed", "cancelled"] as const) {
        const task = { ...(yield* newTask(status)), status }
        yield* store.create(task)
        let called = false
        const after = yield* store.update(status, (current) => {
          called = true
          return { ...current, status: "working" }
        })
        assert.isFalse(called, status)
        assert.deepStrictEqual(after, task, status)
        assert.deepStrictEqual(yield* store.get(status), task, status)
      }
      assert.isTrue(TaskStore.isTerminal("completed"))
      assert.isTrue(TaskStore.isTerminal("failed"))
      assert.isTrue(TaskStore.isTerminal("cancelled"))
      assert.isFalse(TaskStore.isTerminal("working"))
      assert.isFalse(TaskStore.isTerminal("input_required"))
    }).pipe(Effect.scoped)
  )

  it.effect("an ended task expires ttlMs after its creation; a working one never does; null never expires", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      yield* store.create(yield* newTask("ended", 1000))
      yield* store.create(yield* newTask("running", 1000))
      yield* store.create(yield* newTask("forever", null))
      yield* store.update("ended", complete)
      yield* store.update("forever", complete)
      yield* TestClock.adjust("1000 millis")
      assert.strictEqual((yield* store.get("ended"))?.status, "completed", "kept for ttlMs")
      yield* TestClock.adjust("1 millis")
      assert.isUndefined(yield* store.get("ended"), "gone once ttlMs has passed")
      assert.strictEqual((yield* store.get("running"))?.status, "working", "a working task is never dropped")
      yield* TestClock.adjust("10 hours")
      assert.strictEqual((yield* store.get("running"))?.status, "working")
      assert.strictEqual((yield* store.get("forever"))?.status, "completed", "ttlMs null: kept")
      // A task that ends after its ttlMs went by is gone at the next read.
      yield* store.update("running", complete)
      assert.isUndefined(yield* store.get("running"))
      // Expired tasks are also swept when a task is created.
      yield* store.create(yield* newTask("late", 1000))
      yield* store.update("late", complete)
      yield* TestClock.adjust("2 seconds")
      yield* store.create(yield* newTask("next", 1000))
      assert.isUndefined(yield* store.get("late"))
      assert.strictEqual((yield* store.get("next"))?.status, "working")
    }).pipe(Effect.scoped)
  )

  it.effect("changes: every creation and change, in order; no change, no event", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      const seen = yield* Effect.forkChild(Stream.runCollect(Stream.take(store.changes, 4)))
      yield* settle
      const task = yield* newTask("a")
      yield* store.create(task)
      yield* store.update("a", () => undefined) // no change
      yield* store.update("a", (current) => ({ ...current, status: "input_required" }))
      yield* store.update("a", complete)
      yield* store.update("a", (current) => ({ ...current, status: "working" })) // terminal: no change
      yield* store.create(yield* newTask("b"))
      const events = yield* Fiber.join(seen)
      assert.deepStrictEqual(
        events.map((event) => `${event.taskId}:${event.status}`),
        ["a:working", "a:input_required", "a:completed", "b:working"]
      )
      assert.deepStrictEqual(events[0], task)
    }).pipe(Effect.scoped)
  )

  it.effect("past maxTasks the oldest ended task goes first; a working task is never dropped", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      yield* store.create(yield* newTask("working-oldest", null))
      yield* store.create(yield* newTask("ended-1", null))
      yield* store.create(yield* newTask("ended-2", null))
      yield* store.update("ended-1", complete)
      yield* store.update("ended-2", complete)
      for (let i = 3; i < TaskStore.maxTasks; i++) yield* store.create(yield* newTask(`filler-${i}`, null))
      // The store is full. Create until something is dropped (at most two more).
      let extra = 0
      while ((yield* store.get("ended-1")) !== undefined && extra < 2) {
        yield* store.create(yield* newTask(`extra-${extra++}`, null))
      }
      assert.isUndefined(yield* store.get("ended-1"), "the oldest ended task was dropped")
      assert.isDefined(yield* store.get("ended-2"), "only the oldest ended task was dropped")
      assert.isDefined(yield* store.get("working-oldest"), "a working task is never dropped")
      assert.isDefined(yield* store.get("filler-3"))
      assert.isDefined(yield* store.get(`extra-${extra - 1}`), "the new task is kept")
    }).pipe(Effect.scoped)
  )

  it.effect("keeps at most maxTasks tasks when ended ones can go", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      yield* store.create(yield* newTask("ended", null))
      yield* store.update("ended", complete)
      for (let i = 1; i < TaskStore.maxTasks; i++) yield* store.create(yield* newTask(`filler-${i}`, null))
      // maxTasks tasks now; one more must push the ended one out.
      yield* store.create(yield* newTask("one-more", null))
      assert.isDefined(yield* store.get("one-more"))
      assert.isUndefined(yield* store.get("ended"), `the store holds maxTasks + 1 (${TaskStore.maxTasks + 1}) tasks`)
    }).pipe(Effect.scoped)
  )

  it.effect("never drops a working task, even past maxTasks", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.makeMemory
      for (let i = 0; i < TaskStore.maxTasks + 3; i++) yield* store.create(yield* newTask(`w-${i}`, null))
      for (const id of ["w-0", "w-1", `w-${TaskStore.maxTasks + 2}`])
        assert.strictEqual((yield* store.get(id))?.status, "working", id)
    }).pipe(Effect.scoped)
  )

  it.effect("layerMemory provides a store", () =>
    Effect.gen(function* () {
      const store = yield* TaskStore.TaskStore
      yield* store.create(yield* newTask("x"))
      assert.strictEqual((yield* store.get("x"))?.taskId, "x")
    }).pipe(Effect.provide(TaskStore.layerMemory))
  )
})
