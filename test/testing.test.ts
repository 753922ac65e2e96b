/**
 * The public test kit (`effect-mcp-runtime/testing`) on the bundled
 * capabilities: TestClient helpers (tools, resources and prompts across
 * pages, typed JSON-RPC errors, awaited notifications), TestClock-driven
 * timeouts, scripted elicitation, FakeCommandRunner (scripts, records,
 * progress, the log store, cancellation). MemoryWorkspace's parity with the
 * Node workspace is in MemoryWorkspace.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { ExecCapability } from "../capabilities/exec/index.ts"
import { defaultExecSettings, ExecSettings } from "../capabilities/exec/settings.ts"
import { SystemCapability } from "../capabilities/system/index.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Resource from "../src/Resource.ts"
import * as Roots from "../src/Roots.ts"
import * as Sampling from "../src/Sampling.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { FakeCommandRunner, RpcError, TestClient, UnexpectedResult } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"

const quiet = ServerConfig.layer({ shutdownGraceMs: 0 })

/** exec over a fake runner (allowing npm and git), and the fake. */
const execWith = (scripts: ReadonlyArray<FakeCommandRunner.Script>) => {
  const fake = FakeCommandRunner.make(scripts)
  const layer = ExecCapability.pipe(
    Layer.provide(Layer.succeed(ExecSettings, { ...defaultExecSettings, commands: ["npm", "git"] })),
    Layer.provide(fake.layer)
  )
  return { fake, layer }
}

const npmTest: FakeCommandRunner.Script = {
  command: "npm",
  args: ["test"],
  lines: [
    ["stdout", "> test"],
    ["stdout", "3 passing"],
    ["stderr", "1 warning"]
  ],
  exitCode: 0,
  durationMs: 3000
}

const yieldMany = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("TestClient", () => {
  it.effect("lists and calls tools through the real codec", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(SystemCapability)
      const tools = yield* client.listTools
      assert.includeMembers(
        tools.map((tool) => tool.name),
        ["system_echo", "system_info", "system_time"]
      )
      const result = yield* client.callTool("system_echo", { text: "hi" })
      assert.deepStrictEqual(result.structuredContent, { text: "hi" })
      assert.strictEqual(TestClient.text(result), JSON.stringify({ text: "hi" }))
      assert.strictEqual(client.initialized.serverInfo.name, "effect-mcp-runtime")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("expectToolError passes on the expected code and fails readably otherwise", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Layer.merge(execWith([]).layer, SystemCapability), {
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      yield* client.expectToolError("exec_run", { command: "rm", args: ["-rf", "/"] }, "command_not_allowed")
      const wrong = yield* Effect.flip(client.expectToolError("system_echo", { text: "x" }, "denied"))
      assert.include(wrong.message, "expected system_echo to fail with the error code denied")
      const unknown = yield* Effect.flip(client.callTool("nope"))
      assert.strictEqual(unknown.code, -32602)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a timeout under TestClock: the call ends with the timeout error, no real time spent", () =>
    Effect.gen(function* () {
      const slow = Tool.make("slow", {
        description: "Sleeps for a minute.",
        input: Schema.Struct({}),
        annotations: { readOnlyHint: true }
      }).pipe(Tool.handle(() => Effect.as(Effect.sleep("1 minute"), "done")))
      const client = yield* TestClient.make(
        Capability.make({ id: "t", description: "slow things", version: "1" }, Effect.succeed({ tools: [slow] }))
      )
      const fiber = yield* Effect.forkChild(client.callTool("t_slow", {}))
      yield* yieldMany
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(TestClient.errorCode(result), "timeout")
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ timeout: "1 second" }))))
  )
})

/** Three notes (resources), a prompt per note, and a tool that saves a note (and says so to subscribers). */
const notes = ["a", "b", "c"]
const Notes = Capability.make(
  { id: "notes", description: "Notes", version: "1" },
  Effect.succeed({
    resources: notes.map((id) =>
      Resource.make(`note_${id}`, { uri: `notes://${id}`, description: `Note ${id}`, mimeType: "text/plain" }).pipe(
        Resource.handle(() => Effect.succeed(`note ${id}\n`))
      )
    ),
    prompts: notes.map((id) =>
      Prompt.make(`summarize_${id}`, {
        description: `Summarize note ${id}`,
        arguments: Schema.Struct({ style: Schema.String })
      }).pipe(Prompt.handle(({ style }) => Effect.succeed(`Summarize note ${id}, ${style}.`)))
    ),
    tools: [
      Tool.make("save", {
        description: "Saves a note.",
        input: Schema.Struct({ id: Schema.String }),
        annotations: { readOnlyHint: false, destructiveHint: false }
      }).pipe(Tool.handle(({ id }) => Effect.as(Resource.updated(`notes://${id}`), "saved")))
    ]
  })
)

describe("TestClient: resources, prompts, raw requests, notifications", () => {
  it.effect("the list helpers follow every cursor; read and get return the contents", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Notes, { pageSize: 1 })
      const firstPage = yield* client.request("resources/list")
      assert.strictEqual(firstPage.resources.length, 1)
      assert.isString(firstPage.nextCursor)
      assert.deepStrictEqual(
        (yield* client.listResources).map((resource) => resource.uri),
        ["notes://a", "notes://b", "notes://c"]
      )
      assert.deepStrictEqual(
        (yield* client.listPrompts).map((prompt) => prompt.name),
        ["notes_summarize_a", "notes_summarize_b", "notes_summarize_c"]
      )
      assert.deepStrictEqual(yield* client.readResource("notes://b"), [
        { uri: "notes://b", mimeType: "text/plain", text: "note b\n" }
      ])
      const prompt = yield* client.getPrompt("notes_summarize_c", { style: "briefly" })
      assert.deepStrictEqual(prompt.messages, [
        { role: "user", content: { type: "text", text: "Summarize note c, briefly." } }
      ])
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("a JSON-RPC error is a typed RpcError with its code, message and data", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Notes)
      const unknown = yield* Effect.flip(client.request("no/such/method"))
      assert.instanceOf(unknown, RpcError)
      assert.strictEqual(unknown.code, -32601)
      const missing = yield* Effect.flip(client.getPrompt("notes_summarize_a"))
      assert.strictEqual(missing.code, -32602)
      assert.include(missing.message, "style")
      const notFound = yield* Effect.flip(client.readResource("notes://z"))
      assert.strictEqual(notFound.code, -32002)
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("awaitNotification: resources/updated after a subscription, list_changed after a registration", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Notes)
      yield* client.request("resources/subscribe", { uri: "notes://b" })
      const updated = yield* Effect.forkChild(
        client.awaitNotification("notifications/resources/updated", (params) => params.uri === "notes://b")
      )
      yield* client.callTool("notes_save", { id: "a" })
      yield* client.callTool("notes_save", { id: "b" })
      assert.deepStrictEqual((yield* Fiber.join(updated)).params, { uri: "notes://b" })
      // Only the subscribed URI was announced.
      const announced = (yield* client.notifications).filter((n) => n.method === "notifications/resources/updated")
      assert.deepStrictEqual(
        announced.map((n) => n.params.uri),
        ["notes://b"]
      )

      const extra = Tool.make("extra", { description: "Registered later.", input: Schema.Struct({}) }).pipe(
        Tool.handle(() => Effect.succeed("ok"))
      )
      yield* client.kernel.registerDynamic(extra)
      const changed = yield* client.awaitNotification("notifications/tools/list_changed")
      assert.strictEqual(changed.method, "notifications/tools/list_changed")
      assert.include(
        (yield* client.listTools).map((tool) => tool.name),
        "app_extra"
      )
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

/** Tools that ask the client: its model (sampling) and its roots. */
const Asking = Capability.make(
  { id: "ask", description: "asks the client", version: "1" },
  Effect.succeed({
    tools: [
      Tool.make("sample", { description: "asks the client's model", input: Schema.Struct({}) }).pipe(
        Tool.handle(() =>
          Effect.map(
            Sampling.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
              maxTokens: 5
            }),
            (reply) => `${reply.model}: ${reply.content.type === "text" ? reply.content.text : ""}`
          )
        )
      ),
      Tool.make("roots", {
        description: "lists the client's roots",
        input: Schema.Struct({}),
        output: Schema.Struct({ uris: Schema.Array(Schema.String) })
      }).pipe(Tool.handle(() => Effect.map(Roots.list, (roots) => ({ uris: roots.map((root) => root.uri) }))))
    ]
  })
)

describe("TestClient: structured results, scripted sampling and roots", () => {
  it.effect("callToolStructured gives the structured content, and fails readably on an error result", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(SystemCapability)
      assert.deepStrictEqual(yield* client.callToolStructured("system_echo", { text: "hi" }), { text: "hi" })
      const failed = yield* Effect.flip(client.callToolStructured("system_echo", {}))
      assert.instanceOf(failed, UnexpectedResult)
      assert.include(failed.message, "expected system_echo to succeed, but it failed with the error code")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("sampling and roots are answered by the test's handlers; roots can change between calls", () =>
    Effect.gen(function* () {
      const prompts: Array<string> = []
      let roots = [{ uri: "file:///one", name: "one" }]
      const client = yield* TestClient.make(Asking, {
        sampling: (params) => {
          prompts.push(params.messages[0].content.text)
          return Effect.succeed({ role: "assistant", content: { type: "text", text: "hi!" }, model: "scripted" })
        },
        roots: () => Effect.sync(() => roots)
      })
      assert.deepStrictEqual(client.initialized.protocolVersion, "2025-11-25")
      const sampled = yield* client.callTool("ask_sample", {})
      assert.strictEqual(TestClient.text(sampled), "scripted: hi!")
      assert.deepStrictEqual(prompts, ["Say hi"])
      assert.deepStrictEqual(yield* client.callToolStructured("ask_roots", {}), { uris: ["file:///one"] })
      roots = [...roots, { uri: "file:///two", name: "two" }]
      assert.deepStrictEqual(yield* client.callToolStructured("ask_roots", {}), {
        uris: ["file:///one", "file:///two"]
      })

      // A client that declares neither: the tools get the server's capability error.
      const bare = yield* TestClient.make(Asking)
      assert.isTrue((yield* bare.callTool("ask_sample", {})).isError)
      const fixed = yield* TestClient.make(Asking, { roots: [{ uri: "file:///fixed" }] })
      assert.deepStrictEqual(yield* fixed.callToolStructured("ask_roots", {}), { uris: ["file:///fixed"] })
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})

describe("FakeCommandRunner with the exec capability", () => {
  it.effect("scripted elicitation confirms the call; the run, its lines and the log are the script's", () =>
    Effect.gen(function* () {
      const asked: Array<string> = []
      const exec = execWith([npmTest])
      const client = yield* TestClient.make(exec.layer, {
        elicitation: (params) => {
          asked.push(params.message)
          return Effect.succeed({ action: "accept", content: { confirm: true } })
        }
      })
      const progress: Array<string> = []
      const fiber = yield* Effect.forkChild(
        client.callTool(
          "exec_run",
          { command: "npm", args: ["test"] },
          { onProgress: (report) => Effect.sync(() => progress.push(report.message ?? "")) }
        )
      )
      yield* yieldMany
      yield* TestClock.adjust("4 seconds")
      const result = yield* Fiber.join(fiber)
      assert.isNotTrue(result.isError, TestClient.text(result))
      assert.strictEqual(asked.length, 1)
      assert.include(asked[0]!, '"command": "npm"')
      const output = result.structuredContent as { exitCode: number; stdout: string; stderr: string; log: string }
      assert.strictEqual(output.exitCode, 0)
      assert.strictEqual(output.stdout, "> test\n3 passing\n")
      assert.strictEqual(output.stderr, "1 warning\n")
      assert.includeMembers(progress, ["$ npm test", "3 passing", "stderr: 1 warning"])
      const calls = yield* exec.fake.calls
      assert.deepStrictEqual(
        calls.map((call) => [call.command, call.args]),
        [["npm", ["test"]]]
      )
      const [log] = yield* client.readResource(output.log)
      assert.include(log.text, "3 passing")
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(quiet, Policy.layer({ progressInterval: 0 }))))
  )

  it.effect("declined: nothing runs; an unscripted command is command_not_found", () =>
    Effect.gen(function* () {
      const exec = execWith([npmTest])
      const client = yield* TestClient.make(exec.layer, {
        elicitation: () => Effect.succeed({ action: "decline" })
      })
      yield* client.expectToolError("exec_run", { command: "npm", args: ["test"] }, "not_confirmed")
      assert.strictEqual((yield* exec.fake.calls).length, 0)
      const accepting = yield* TestClient.make(execWith([]).layer, {
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      yield* accepting.expectToolError("exec_run", { command: "git", args: ["status"] }, "command_not_found")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )

  it.effect("cancelling a call interrupts the fake run: no response, the run stored as interrupted", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(
        execWith([{ command: "npm", args: ["test"], lines: [["stdout", "starting"]], durationMs: 60_000 }]).layer,
        { elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } }) }
      )
      const { id } = yield* client.send("tools/call", {
        name: "exec_run",
        arguments: { command: "npm", args: ["test"] }
      })
      yield* yieldMany
      yield* TestClock.adjust("10 seconds")
      yield* client.cancel(id, "the test cancels")
      yield* yieldMany
      const logs = yield* client.listResources
      assert.strictEqual(logs.length, 1)
      const [log] = yield* client.readResource(logs[0].uri)
      assert.include(log.text, "interrupted")
    }).pipe(Effect.scoped, Effect.provide(quiet))
  )
})
