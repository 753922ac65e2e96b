/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, protocol
 * 2026-07-28) through the real server and codec (TestClient): the
 * CreateTaskResult, a task's lifecycle under the TestClock, `tasks/get`,
 * `tasks/update` (input requests inside a task), `tasks/cancel`, input
 * asked before the task, when the server creates a task at all, the tool's
 * policy (timeout, concurrency) around a task's work, and `server/discover`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { AuditLog, type Call } from "../src/AuditLog.ts"
import * as Capability from "../src/Capability.ts"
import * as Client from "../src/Client.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Task from "../src/Task.ts"
import * as Tool from "../src/Tool.ts"
import { TestClient } from "../src/testing.ts"

const extensionId = "io.modelcontextprotocol/tasks"
const withTasks = { [extensionId]: {} }
const serverInfoKey = "io.modelcontextprotocol/serverInfo"
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/

// Lets the server's fibers (and the tasks' work) run until they wait.
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

// Yields until `condition` holds (giving up after many turns): the work reached the point a test moves the clock from.
const until = (condition: () => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 5000 && !condition(); i++) yield* Effect.yieldNow
    yield* settle
    return condition()
  })
const reached = (what: string, condition: () => boolean) =>
  Effect.flatMap(until(condition), (ok) => (ok ? Effect.void : Effect.die(new Error(`never reached: ${what}`))))

const Answer = Schema.Struct({ name: Schema.String, confirm: Schema.Boolean })

// The tools of one test; `log` records what their work did (each test has its own).
const fixture = () => {
  const log: Array<string> = []
  const note = (line: string) => Effect.sync(() => void log.push(line))
  const capability = Capability.make(
    { id: "t", description: "tasks under test", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("slow", {
          description: "Waits, then answers its label (a task when it can be)",
          input: Schema.Struct({ seconds: Schema.Finite, label: Schema.optionalKey(Schema.String) }),
          task: "optional"
        }).pipe(
          Tool.handle(({ label = "slow", seconds }) =>
            Task.background(
              note(`started ${label}`).pipe(
                Effect.andThen(Effect.sleep(`${seconds} seconds`)),
                Effect.andThen(note(`finished ${label}`)),
                Effect.as(`${label}: done`),
                Effect.onInterrupt(() => note(`interrupted ${label}`)),
                Effect.ensuring(note(`finalized ${label}`))
              )
            )
          )
        ),
        Tool.make("failing", { description: "A task that ends with a tool error", task: "required" }).pipe(
          Tool.handle(() =>
            Task.background(
              note("failing started").pipe(
                Effect.andThen(Effect.sleep("1 second")),
                Effect.andThen(Effect.fail(new Tool.ToolError({ message: "boom" })))
              )
            )
          )
        ),
        Tool.make("defect", { description: "A task whose work dies", task: "required" }).pipe(
          Tool.handle(() =>
            Task.background(
              note("defect started").pipe(
                Effect.andThen(Effect.sleep("100 millis")),
                Effect.andThen(Effect.die(new Error("dies on purpose")))
              )
            )
          )
        ),
        Tool.make("sum", {
          description: "Adds, in a task",
          input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
          output: Schema.Struct({ sum: Schema.Finite }),
          task: "optional"
        }).pipe(Tool.handle(({ a, b }) => Task.background(Effect.succeed({ sum: a + b })))),
        Tool.make("confirm", {
          description: "A task that asks the user to confirm",
          input: Schema.Struct({ filename: Schema.String }),
          task: "required"
        }).pipe(
          Tool.handle(({ filename }) =>
            Task.background(
              Effect.map(
                Elicitation.form(`Delete ${filename}?`, Schema.Struct({ confirm: Schema.Boolean })),
                (answer) =>
                  answer.action === "accept" && answer.content.confirm ? `Deleted ${filename}` : `Kept ${filename}`
              )
            )
          )
        ),
        Tool.make("multi", { description: "A task with two questions at once", task: "required" }).pipe(
          Tool.handle(() =>
            Task.background(
              Effect.all(
                [
                  Elicitation.form("First?", Answer).pipe(Client.inputKey("input-1")),
                  Elicitation.form("Second?", Answer).pipe(Client.inputKey("input-2"))
                ],
                { concurrency: "unbounded" }
              ).pipe(
                Effect.map((answers) =>
                  answers.map((answer) => (answer.action === "accept" ? answer.content.name : answer.action)).join(", ")
                )
              )
            )
          )
        ),
        Tool.make("ask_first", { description: "Asks a name, then greets from a task", task: "required" }).pipe(
          Tool.handle(() =>
            Effect.gen(function* () {
              const answer = yield* Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
                Client.inputKey("user_name")
              )
              const name = answer.action === "accept" ? answer.content.name : "stranger"
              yield* note("asked")
              return yield* Task.background(
                note("greeting").pipe(Effect.andThen(Effect.sleep("200 millis")), Effect.as(`Hello, ${name}!`))
              )
            })
          )
        ),
        Tool.make("plain", { description: "Never a task" }).pipe(
          Tool.handle(() => Task.background(Effect.succeed("plain")))
        ),
        Tool.make("limited", {
          description: "A task that outlives its timeout",
          timeout: "1 second",
          task: "optional"
        }).pipe(
          Tool.handle(() =>
            Task.background(
              note("limited started").pipe(
                Effect.andThen(Effect.sleep("10 seconds")),
                Effect.as("late"),
                Effect.onInterrupt(() => note("limited interrupted"))
              )
            )
          )
        ),
        Tool.make("big", {
          description: "A result over its size limit",
          maxResultBytes: 200,
          task: "optional"
        }).pipe(Tool.handle(() => Task.background(Effect.succeed("x".repeat(1000))))),
        Tool.make("single", {
          description: "One at a time",
          input: Schema.Struct({ label: Schema.String }),
          maxConcurrent: 1,
          task: "optional"
        }).pipe(
          Tool.handle(({ label }) =>
            Task.background(
              note(`start ${label}`).pipe(
                Effect.andThen(Effect.sleep("5 seconds")),
                Effect.andThen(note(`end ${label}`)),
                Effect.as(label)
              )
            )
          )
        )
      ]
    })
  )
  return { log, capability }
}

// A 2026-07-28 client that declared the tasks extension (and, unless told otherwise, elicitation).
const tasksClient = <E, R>(capability: Layer.Layer<never, E, R>, options: Partial<TestClient.Options> = {}) =>
  TestClient.make(capability, {
    protocolVersion: "2026-07-28",
    extensions: withTasks,
    elicitation: () => Effect.succeed({ action: "accept", content: { name: "Bob" } }),
    ...options
  })

const get = (client: TestClient.TestClient, taskId: string) => client.request("tasks/get", { taskId })
// tasks/get until `done` holds (giving up after a while), without moving the clock.
const poll = (client: TestClient.TestClient, taskId: string, done: (task: any) => boolean) =>
  Effect.gen(function* () {
    let task = yield* get(client, taskId)
    for (let i = 0; i < 100 && !done(task); i++) {
      yield* settle
      task = yield* get(client, taskId)
    }
    return task
  })
const isStatus = (status: string) => (task: any) => task.status === status
const update = (client: TestClient.TestClient, taskId: string, inputResponses: Record<string, unknown>) =>
  client.request("tasks/update", { taskId, inputResponses })
const cancel = (client: TestClient.TestClient, taskId: string) => client.request("tasks/cancel", { taskId })
// The first result of a request, input-required results included (no retries).
const first = (client: TestClient.TestClient, method: string, params: Record<string, unknown>) =>
  Effect.flatMap(client.send(method, params), ({ response }) => response)
const errorOf = <A>(effect: Effect.Effect<A, TestClient.RpcError>) => Effect.flip(effect)

const startTask = (client: TestClient.TestClient, name: string, args: Record<string, unknown> = {}) =>
  Effect.map(first(client, "tools/call", { name, arguments: args }), (created) => {
    assert.strictEqual(created.resultType, "task", `${name} should have created a task: ${JSON.stringify(created)}`)
    return created.taskId as string
  })

// An empty acknowledgement (`tasks/update`, `tasks/cancel`).
const assertAck = (ack: any) => {
  assert.strictEqual(ack.resultType, "complete")
  assert.deepStrictEqual(
    Object.keys(ack).filter((key) => key !== "resultType" && key !== "_meta"),
    [],
    JSON.stringify(ack)
  )
}

const withoutMeta = ({ _meta, ...rest }: any) => rest

describe("tasks: CreateTaskResult", () => {
  it.effect("is flat, working, with ISO timestamps, a positive ttlMs and pollIntervalMs, and nothing else", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      yield* TestClock.adjust("90 seconds")
      const created = yield* first(client, "tools/call", { name: "t_slow", arguments: { seconds: 60 } })
      assert.strictEqual(created.resultType, "task")
      assert.isString(created.taskId)
      assert.isAbove(created.taskId.length, 0)
      assert.strictEqual(created.status, "working")
      assert.match(created.createdAt, iso)
      assert.match(created.lastUpdatedAt, iso)
      assert.strictEqual(created.createdAt, "1970-01-01T00:01:30.000Z", "the clock's time")
      assert.strictEqual(created.lastUpdatedAt, created.createdAt)
      assert.isTrue(Number.isInteger(created.ttlMs) && created.ttlMs > 0, `ttlMs ${created.ttlMs}`)
      assert.isTrue(Number.isInteger(created.pollIntervalMs) && created.pollIntervalMs > 0)
      for (const key of ["result", "error", "inputRequests", "requestState", "task", "ttl", "pollInterval"]) {
        assert.isFalse(key in created, `${key} in ${JSON.stringify(created)}`)
      }
      const allowed = ["resultType", "taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs"]
      for (const key of Object.keys(created)) {
        assert.include([...allowed, "pollIntervalMs", "_meta"], key, `unexpected key ${key}`)
      }
      assert.isDefined(created._meta?.[serverInfoKey])
      // Durable create: a tasks/get sent right after the answer finds it.
      const got = yield* get(client, created.taskId)
      assert.strictEqual(got.resultType, "complete", "tasks/get answers resultType complete")
      assert.strictEqual(got.taskId, created.taskId)
      assert.strictEqual(got.status, "working")
      assert.strictEqual(got.createdAt, created.createdAt)
      assert.strictEqual(got.ttlMs, created.ttlMs)
      for (const key of ["result", "error", "inputRequests", "requestState"]) assert.isFalse(key in got, key)
    }).pipe(Effect.scoped)
  )
})

describe("tasks: lifecycle", () => {
  it.effect("working, then completed with the result tools/call would have answered", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_slow", { seconds: 2, label: "a" })
      yield* reached("a's work", () => log.includes("started a"))
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual((yield* get(client, taskId)).status, "working")
      yield* TestClock.adjust("1 second")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(done.createdAt, "1970-01-01T00:00:00.000Z")
      assert.strictEqual(done.lastUpdatedAt, "1970-01-01T00:00:02.000Z")
      assert.deepStrictEqual(done.result, { resultType: "complete", content: [{ type: "text", text: "a: done" }] })
      for (const key of ["error", "inputRequests", "requestState"]) assert.isFalse(key in done, key)
      assert.isUndefined(done.result._meta?.["io.modelcontextprotocol/related-task"])
      assert.deepStrictEqual(log, ["started a", "finished a", "finalized a"])
      // The same call, answered synchronously (a client without the extension): the same result.
      const plain = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })
      const call = yield* Effect.forkChild(plain.callTool("t_slow", { seconds: 2, label: "a" }))
      yield* reached("the call's work", () => log.filter((line) => line === "started a").length === 2)
      yield* TestClock.adjust("2 seconds")
      const sync = yield* Fiber.join(call)
      assert.deepStrictEqual(withoutMeta(sync), done.result)
    }).pipe(Effect.scoped)
  )

  it.effect("a task that ran longer than its ttlMs is kept an hour past its end, its ttlMs lengthened", () =>
    Effect.gen(function* () {
      const started: Array<string> = []
      const long = Capability.make(
        { id: "l", description: "a long task", version: "1.0.0" },
        Effect.succeed({
          tools: [
            Tool.make("long", { description: "Runs for two hours", task: "required", timeout: 3 * 3_600_000 }).pipe(
              Tool.handle(() =>
                Task.background(
                  Effect.andThen(
                    Effect.sync(() => void started.push("long")),
                    Effect.as(Effect.sleep("2 hours"), "long: done")
                  )
                )
              )
            )
          ]
        })
      )
      const client = yield* tasksClient(long)
      const taskId = yield* startTask(client, "l_long")
      const created = yield* get(client, taskId)
      assert.strictEqual(created.ttlMs, 3_600_000)
      yield* reached("the long work", () => started.length === 1)
      yield* TestClock.adjust("2 hours")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      // Two hours of work plus an hour to fetch the result.
      assert.strictEqual(done.ttlMs, 3 * 3_600_000)
      yield* TestClock.adjust("59 minutes")
      assert.strictEqual((yield* get(client, taskId)).status, "completed")
      yield* TestClock.adjust("2 minutes")
      const gone = yield* Effect.flip(get(client, taskId))
      assert.strictEqual(gone.code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect("audited: the call when answered with its task, then the task's end with its id; a refusal too", () =>
    Effect.gen(function* () {
      const calls: Array<Call> = []
      const InMemory = Layer.succeed(
        AuditLog,
        AuditLog.of({ record: (call) => Effect.sync(() => void calls.push(call)) })
      )
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability).pipe(Effect.provide(InMemory))
      const done = yield* startTask(client, "t_slow", { seconds: 1, label: "a" })
      yield* reached("a's work", () => log.includes("started a"))
      yield* TestClock.adjust("1 second")
      yield* poll(client, done, isStatus("completed"))
      const cancelled = yield* startTask(client, "t_slow", { seconds: 60, label: "b" })
      yield* reached("b's work", () => log.includes("started b"))
      yield* cancel(client, cancelled)
      yield* until(() => calls.length === 4)
      const plain = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" }).pipe(Effect.provide(InMemory))
      yield* Effect.flip(plain.request("tools/call", { name: "t_failing" }))
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.outcome, call.taskId]),
        [
          ["t_slow", "task", undefined],
          ["t_slow", "ok", done],
          ["t_slow", "task", undefined],
          ["t_slow", "cancelled", cancelled],
          ["t_failing", "missing_client_capability", undefined]
        ]
      )
      // The end has the call's correlation id.
      assert.strictEqual(calls[0]!.correlationId, calls[1]!.correlationId)
    }).pipe(Effect.scoped)
  )

  it.effect("a tool error ends the task completed, with an isError result (not failed)", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_failing")
      yield* reached("the work", () => log.includes("failing started"))
      yield* TestClock.adjust("1 second")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.isTrue(done.result.isError)
      assert.strictEqual(done.result.resultType, "complete")
      assert.include(TestClient.text(done.result), "boom")
      assert.isFalse("error" in done)
    }).pipe(Effect.scoped)
  )

  it.effect("a defect ends the task failed, with a -32603 error and no result", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_defect")
      yield* reached("the work", () => log.includes("defect started"))
      yield* TestClock.adjust("100 millis")
      const done = yield* poll(client, taskId, isStatus("failed"))
      assert.strictEqual(done.status, "failed")
      assert.strictEqual(done.error.code, -32603)
      assert.isString(done.error.message)
      assert.notInclude(done.error.message, "dies on purpose", "the defect stays in the server's log")
      assert.isString(done.statusMessage)
      assert.isFalse("result" in done)
      assert.isFalse("inputRequests" in done)
    }).pipe(Effect.scoped)
  )

  it.effect("an output-Schema tool's structuredContent is in the task's result", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_sum", { a: 1, b: 2 })
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.deepStrictEqual(done.result.structuredContent, { sum: 3 })
      assert.isAbove(done.result.content.length, 0)
      assert.isUndefined(done.result.isError)
    }).pipe(Effect.scoped)
  )
})

describe("tasks: tasks/cancel", () => {
  it.effect("a running task becomes cancelled, its work is interrupted, and it stays cancelled", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_slow", { seconds: 60, label: "c" })
      yield* reached("the work", () => log.includes("started c"))
      yield* TestClock.adjust("1 second")
      const ack = yield* cancel(client, taskId)
      assertAck(ack)
      // Cancelled before the ack: a tasks/get right after sees it.
      const cancelled = yield* get(client, taskId)
      assert.strictEqual(cancelled.status, "cancelled")
      assert.strictEqual(cancelled.lastUpdatedAt, "1970-01-01T00:00:01.000Z")
      for (const key of ["result", "error", "inputRequests"]) assert.isFalse(key in cancelled, key)
      yield* until(() => log.includes("finalized c"))
      assert.deepStrictEqual(log, ["started c", "interrupted c", "finalized c"])
      // When the work would have ended: nothing changes.
      yield* TestClock.adjust("2 minutes")
      yield* settle
      assert.deepStrictEqual(yield* get(client, taskId), cancelled)
      assert.notInclude(log, "finished c")
    }).pipe(Effect.scoped)
  )

  it.effect("a task waiting for input can be cancelled: its input requests are gone", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_confirm", { filename: "a.txt" })
      assert.strictEqual((yield* poll(client, taskId, isStatus("input_required"))).status, "input_required")
      assertAck(yield* cancel(client, taskId))
      const cancelled = yield* get(client, taskId)
      assert.strictEqual(cancelled.status, "cancelled")
      assert.isFalse("inputRequests" in cancelled)
      // A late answer changes nothing.
      assertAck(yield* update(client, taskId, { anything: { action: "accept", content: { confirm: true } } }))
      yield* settle
      assert.deepStrictEqual(yield* get(client, taskId), cancelled)
    }).pipe(Effect.scoped)
  )

  it.effect("cancelling an ended task is the same empty ack and changes nothing", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const completed = yield* startTask(client, "t_slow", { seconds: 1, label: "done" })
      const failed = yield* startTask(client, "t_defect")
      const cancelled = yield* startTask(client, "t_slow", { seconds: 60 })
      yield* reached("the work", () => log.includes("started done") && log.includes("defect started"))
      assertAck(yield* cancel(client, cancelled))
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* poll(client, completed, isStatus("completed"))).status, "completed")
      assert.strictEqual((yield* poll(client, failed, isStatus("failed"))).status, "failed")
      for (const taskId of [completed, failed, cancelled]) {
        const before = yield* get(client, taskId)
        yield* TestClock.adjust("1 second")
        assertAck(yield* cancel(client, taskId))
        yield* settle
        assert.deepStrictEqual(yield* get(client, taskId), before, before.status)
      }
    }).pipe(Effect.scoped)
  )

  it.effect("an unknown task is -32602 for tasks/get, tasks/update and tasks/cancel", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      assert.strictEqual((yield* errorOf(get(client, "nope"))).code, -32602)
      assert.strictEqual((yield* errorOf(update(client, "nope", {}))).code, -32602)
      assert.strictEqual((yield* errorOf(cancel(client, "nope"))).code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect("without the extension, tasks/get|update|cancel are -32021 (before the lookup), with the data", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_slow", { seconds: 60 })
      const noTasks = { "io.modelcontextprotocol/clientCapabilities": {} }
      for (const id of ["gate-test", taskId]) {
        for (const [method, params] of [
          ["tasks/get", { taskId: id }],
          ["tasks/update", { taskId: id, inputResponses: {} }],
          ["tasks/cancel", { taskId: id }]
        ] as const) {
          const error = yield* errorOf(client.request(method, { ...params, _meta: noTasks }))
          assert.strictEqual(error.code, -32021, `${method} ${id}`)
          assert.deepStrictEqual((error.data as any)?.requiredCapabilities?.extensions?.[extensionId], {}, method)
        }
      }
      // The same, from a client that never declared it.
      const other = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })
      assert.strictEqual((yield* errorOf(get(other, "gate-test"))).code, -32021)
      // The gate changed nothing.
      assert.strictEqual((yield* get(client, taskId)).status, "working")
    }).pipe(Effect.scoped)
  )
})

describe("tasks: input inside a task", () => {
  it.effect("input_required with the request; tasks/update with the answer: working, then completed", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      let asked = 0
      const client = yield* tasksClient(capability, {
        elicitation: () => Effect.sync(() => asked++).pipe(Effect.as({ action: "decline" }))
      })
      const taskId = yield* startTask(client, "t_confirm", { filename: "a.txt" })
      const waiting = yield* poll(client, taskId, isStatus("input_required"))
      assert.strictEqual(waiting.status, "input_required")
      const keys = Object.keys(waiting.inputRequests)
      assert.strictEqual(keys.length, 1)
      const request = waiting.inputRequests[keys[0]!]
      assert.strictEqual(request.method, "elicitation/create")
      assert.strictEqual(request.params.message, "Delete a.txt?")
      assert.strictEqual(request.params.mode, "form")
      assert.strictEqual(request.params.requestedSchema.type, "object")
      assert.strictEqual(request.params.requestedSchema.properties.confirm.type, "boolean")
      assert.isFalse("jsonrpc" in request || "id" in request)
      assert.strictEqual(asked, 0, "inside a task the client is not asked directly")
      yield* TestClock.adjust("1 second")
      const ack = yield* update(client, taskId, { [keys[0]!]: { action: "accept", content: { confirm: true } } })
      assertAck(ack)
      const resumed = yield* get(client, taskId)
      assert.notStrictEqual(resumed.status, "input_required", "the answer is applied before the ack")
      assert.isFalse("inputRequests" in resumed)
      assert.strictEqual(resumed.lastUpdatedAt, "1970-01-01T00:00:01.000Z")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(TestClient.text(done.result), "Deleted a.txt")
    }).pipe(Effect.scoped)
  )

  it.effect("the working status between the answer and the end is visible", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const capability = Capability.make(
        { id: "w", description: "asks, then works", version: "1.0.0" },
        Effect.succeed({
          tools: [
            Tool.make("ask_then_work", { description: "asks, then works", task: "required" }).pipe(
              Tool.handle(() =>
                Task.background(
                  Elicitation.form("Go?", Schema.Struct({ go: Schema.Boolean })).pipe(
                    Effect.andThen(Effect.sync(() => log.push("answered"))),
                    Effect.andThen(Effect.sleep("3 seconds")),
                    Effect.andThen(Effect.sync(() => log.push("worked"))),
                    Effect.as("worked")
                  )
                )
              )
            )
          ]
        })
      )
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "w_ask_then_work")
      const [key] = Object.keys((yield* poll(client, taskId, isStatus("input_required"))).inputRequests ?? {})
      assertAck(yield* update(client, taskId, { [key!]: { action: "accept", content: { go: true } } }))
      yield* reached("the answer", () => log.includes("answered"))
      assert.strictEqual((yield* get(client, taskId)).status, "working")
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual((yield* poll(client, taskId, isStatus("completed"))).status, "completed")
      assert.deepStrictEqual(log, ["answered", "worked"])
    }).pipe(Effect.scoped)
  )

  it.effect("two questions at once: answering one leaves the other; unknown keys ignored; malformed rejected", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_multi")
      const both = yield* poll(client, taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2)
      assert.strictEqual(both.status, "input_required")
      assert.deepStrictEqual(Object.keys(both.inputRequests).sort(), ["input-1", "input-2"])
      // One answer, plus a key never asked (ignored, and its value not checked).
      assertAck(
        yield* update(client, taskId, {
          "input-1": { action: "accept", content: { name: "partial-1", confirm: true } },
          "unknown-key": { ignored: true }
        })
      )
      const one = yield* get(client, taskId)
      assert.strictEqual(one.status, "input_required")
      assert.deepStrictEqual(Object.keys(one.inputRequests), ["input-2"])
      // An answered key again: ignored too.
      assertAck(yield* update(client, taskId, { "input-1": "junk" }))
      // A malformed answer to the outstanding key: -32602, and nothing applied (not even the valid part).
      const malformed = yield* errorOf(
        update(client, taskId, {
          "input-2": { action: "maybe" },
          "unknown-key": { ignored: true }
        })
      )
      assert.strictEqual(malformed.code, -32602)
      yield* settle
      assert.deepStrictEqual(yield* get(client, taskId), one)
      assertAck(
        yield* update(client, taskId, {
          "input-2": { action: "accept", content: { name: "partial-2", confirm: true } }
        })
      )
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(TestClient.text(done.result), "partial-1, partial-2")
    }).pipe(Effect.scoped)
  )

  it.effect("a task whose client did not declare elicitation fails as the call would: -32021", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability, { elicitation: undefined })
      const taskId = yield* startTask(client, "t_confirm", { filename: "a.txt" })
      const done = yield* poll(client, taskId, isStatus("failed"))
      assert.strictEqual(done.status, "failed")
      assert.strictEqual(done.error.code, -32021)
      assert.isDefined(done.error.data?.requiredCapabilities?.elicitation)
      assert.isFalse("result" in done)
      assert.isFalse("inputRequests" in done)
    }).pipe(Effect.scoped)
  )
})

describe("tasks: input before the task", () => {
  it.effect("round 1 is input_required without a task; the retry with the answer creates it", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const round1 = yield* first(client, "tools/call", { name: "t_ask_first", arguments: {} })
      assert.strictEqual(round1.resultType, "input_required")
      assert.isFalse("taskId" in round1)
      assert.deepStrictEqual(Object.keys(round1.inputRequests), ["user_name"])
      assert.strictEqual(round1.inputRequests.user_name.method, "elicitation/create")
      assert.deepStrictEqual(log, [])
      const round2 = yield* first(client, "tools/call", {
        name: "t_ask_first",
        arguments: {},
        inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
        ...(round1.requestState === undefined ? {} : { requestState: round1.requestState })
      })
      assert.strictEqual(round2.resultType, "task")
      assert.isString(round2.taskId)
      assert.isFalse("requestState" in round2)
      assert.isFalse("inputRequests" in round2)
      assert.deepStrictEqual(
        log.filter((line) => line === "asked"),
        ["asked"],
        "the handler got past the question once, on the retry"
      )
      yield* reached("the task's work", () => log.includes("greeting"))
      yield* TestClock.adjust("200 millis")
      const done = yield* poll(client, round2.taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(TestClient.text(done.result), "Hello, Alice!")
    }).pipe(Effect.scoped)
  )

  it.effect("client.request answers the round and gets the task", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const created = yield* client.request("tools/call", { name: "t_ask_first", arguments: {} })
      assert.strictEqual(created.resultType, "task")
      const rounds = yield* client.rounds
      assert.strictEqual(rounds.length, 1)
      assert.deepStrictEqual(Object.keys(rounds[0]!.inputRequests), ["user_name"])
      yield* reached("the task's work", () => log.includes("greeting"))
      yield* TestClock.adjust("200 millis")
      const done = yield* poll(client, created.taskId, isStatus("completed"))
      assert.strictEqual(TestClient.text(done.result), "Hello, Bob!")
    }).pipe(Effect.scoped)
  )
})

describe("tasks: the server decides", () => {
  it.effect("an optional tool answers synchronously for a 2026-07-28 client without the extension", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })
      const call = yield* Effect.forkChild(first(client, "tools/call", { name: "t_slow", arguments: { seconds: 1 } }))
      yield* reached("the work", () => log.includes("started slow"))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(call)
      assert.strictEqual(result.resultType, "complete")
      assert.isFalse("taskId" in result)
      assert.strictEqual(TestClient.text(result), "slow: done")
    }).pipe(Effect.scoped)
  )

  it.effect("a legacy client gets the synchronous result", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* TestClient.make(capability, { extensions: withTasks })
      const call = yield* Effect.forkChild(client.request("tools/call", { name: "t_slow", arguments: { seconds: 1 } }))
      yield* reached("the work", () => log.includes("started slow"))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(call)
      assert.isFalse("taskId" in result)
      assert.isFalse("resultType" in result)
      assert.strictEqual(TestClient.text(result), "slow: done")
      // A task-required tool runs inline for a legacy client (no -32021: the extension is 2026-07-28's).
      const failing = yield* Effect.forkChild(client.callTool("t_failing"))
      yield* reached("the work", () => log.includes("failing started"))
      yield* TestClock.adjust("1 second")
      const failed = yield* Fiber.join(failing)
      assert.isTrue(failed.isError)
      assert.include(TestClient.text(failed), "boom")
    }).pipe(Effect.scoped)
  )

  it.effect("a tool without task support never creates one, even for a client with the extension", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      const result = yield* first(client, "tools/call", { name: "t_plain", arguments: {} })
      assert.strictEqual(result.resultType, "complete")
      assert.isFalse("taskId" in result)
      assert.strictEqual(TestClient.text(result), "plain")
    }).pipe(Effect.scoped)
  )

  it.effect("the legacy task param on tools/call is ignored", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const legacyHint = { ttl: 60000, pollInterval: 100 }
      const client = yield* tasksClient(capability)
      const plain = yield* first(client, "tools/call", { name: "t_plain", arguments: {}, task: legacyHint })
      assert.strictEqual(plain.resultType, "complete")
      assert.isFalse("taskId" in plain)
      // It does not ask for a task either, without the extension.
      const without = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })
      const sum = yield* first(without, "tools/call", { name: "t_sum", arguments: { a: 1, b: 1 }, task: legacyHint })
      assert.strictEqual(sum.resultType, "complete")
      assert.deepStrictEqual(sum.structuredContent, { sum: 2 })
      // Nor does it change a task's ttlMs.
      const created = yield* first(client, "tools/call", { name: "t_sum", arguments: { a: 1, b: 1 }, task: legacyHint })
      assert.strictEqual(created.resultType, "task")
      assert.notStrictEqual(created.ttlMs, 60000)
    }).pipe(Effect.scoped)
  )

  it.effect("a task-required tool without the extension is -32021 with the extension in its data", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })
      const error = yield* errorOf(first(client, "tools/call", { name: "t_ask_first", arguments: {} }))
      assert.strictEqual(error.code, -32021)
      assert.deepStrictEqual((error.data as any).requiredCapabilities, { extensions: { [extensionId]: {} } })
      assert.deepStrictEqual(log, [], "the handler did not run")
    }).pipe(Effect.scoped)
  )
})

describe("tasks: the tool's policy", () => {
  it.effect("a task's work runs under the tool's timeout: completed with an isError timeout result", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_limited")
      yield* reached("the work", () => log.includes("limited started"))
      assert.strictEqual((yield* get(client, taskId)).status, "working")
      yield* TestClock.adjust("1 second")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.isTrue(done.result.isError)
      assert.strictEqual(TestClient.errorCode(done.result), "timeout")
      assert.deepStrictEqual(log, ["limited started", "limited interrupted"])
    }).pipe(Effect.scoped)
  )

  it.effect("a task's result is held to the tool's maxResultBytes, as the call's result is", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const sync = yield* (yield* TestClient.make(capability, { protocolVersion: "2026-07-28" })).callTool("t_big")
      assert.strictEqual(TestClient.errorCode(sync), "result_too_large")
      const client = yield* tasksClient(capability)
      const taskId = yield* startTask(client, "t_big")
      const done = yield* poll(client, taskId, isStatus("completed"))
      assert.strictEqual(done.status, "completed")
      assert.strictEqual(TestClient.errorCode(done.result), "result_too_large", "the 1000-byte result was kept")
    }).pipe(Effect.scoped)
  )

  it.effect("a task's work runs under the tool's concurrency limit: the second task waits for the first", () =>
    Effect.gen(function* () {
      const { capability, log } = fixture()
      const client = yield* tasksClient(capability)
      const a = yield* startTask(client, "t_single", { label: "A" })
      yield* until(() => log.includes("start A"))
      const logAtStart = [...log]
      const second = yield* Effect.forkChild(startTask(client, "t_single", { label: "B" }))
      // Observed first, asserted once every call has ended (a failing test must not leave a call in flight).
      const answeredAtOnce = yield* until(() => second.pollUnsafe() !== undefined)
      const logWhileA = [...log]
      yield* TestClock.adjust("5 seconds")
      yield* until(() => log.includes("start B"))
      const statusA = (yield* get(client, a)).status
      const logAfterA = [...log]
      yield* TestClock.adjust("5 seconds")
      yield* until(() => log.includes("end B"))
      const b = yield* Fiber.join(second)
      assert.deepStrictEqual(logAtStart, ["start A"])
      assert.deepStrictEqual(logWhileA, ["start A"], "B's work waits for A's slot")
      assert.strictEqual(statusA, "completed")
      assert.deepStrictEqual(logAfterA, ["start A", "end A", "start B"])
      assert.strictEqual((yield* get(client, b)).status, "completed")
      assert.deepStrictEqual(log, ["start A", "end A", "start B", "end B"])
      // The second call is answered at once with its task (working, waiting for the slot), not when A ends.
      assert.isTrue(answeredAtOnce, "tools/call of the second task waited for the first task's work to end")
    }).pipe(Effect.scoped)
  )
})

describe("tasks: server/discover", () => {
  it.effect("advertises the extension only when a registered tool supports tasks", () =>
    Effect.gen(function* () {
      const { capability } = fixture()
      const client = yield* tasksClient(capability)
      assert.deepStrictEqual(client.initialized.capabilities.extensions?.[extensionId], {})
      assert.isUndefined(client.initialized.capabilities.tasks, "no v1 capabilities.tasks")
      const plainOnly = Capability.make(
        { id: "p", description: "no tasks", version: "1.0.0" },
        Effect.succeed({
          tools: [Tool.make("hello", { description: "hello" }).pipe(Tool.handle(() => Effect.succeed("hi")))]
        })
      )
      const other = yield* TestClient.make(plainOnly, { protocolVersion: "2026-07-28", extensions: withTasks })
      assert.isUndefined(other.initialized.capabilities.extensions?.[extensionId])
      assert.isUndefined(other.initialized.capabilities.tasks)
    }).pipe(Effect.scoped)
  )
})
