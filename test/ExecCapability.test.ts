/**
 * The exec capability through the real codec, over the real NodeCommandRunner
 * in a temporary root (real child processes): the published tools and
 * annotations, the allowlist (names, paths, restricted subcommands), the
 * structured result of a run and of a failing run, tails of long output,
 * runner errors mapped to tool errors with suggestions, progress streamed
 * while a command runs, cancellation and timeout killing the whole process
 * tree (checked against the real process table), and the `logs://run/{id}`
 * resource. Most tests go through the test kit's TestClient; the ones that
 * follow the exact order of messages (progress while a command waits, the
 * process tree killed by cancellation or timeout) read the raw stream. The
 * last block runs exec over the kit's FakeCommandRunner: what the capability
 * asks the runner, and what it makes of the runner's answers and errors, in
 * no real time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { ExecCapability } from "../capabilities/exec/index.ts"
import { listPage } from "../capabilities/exec/runLog.ts"
import { defaultExecSettings, ExecSettings, type ExecSettingsShape } from "../capabilities/exec/settings.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import { CwdOutsideRoot, type RunSummary, SpawnFailed } from "../src/CommandRunner.ts"
import { Confirmation } from "../src/Confirmation.ts"
import * as Policy from "../src/Policy.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { FakeCommandRunner, type RpcError, TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { start, type TestClient as RawClient } from "./support/memory.ts"

const root = realpathSync(mkdtempSync(join(tmpdir(), "exec-capability-")))
mkdirSync(join(root, "sub"))
writeFileSync(join(root, "file.txt"), "not a directory\n")
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The settings of most tests: a few POSIX tools (and a shell, to start process trees) instead of the JS toolchain. */
const testSettings: ExecSettingsShape = {
  ...defaultExecSettings,
  commands: ["echo", "sh", "pwd", { command: "git", args: ["status", "log"], description: "read the history" }],
  additionalCommands: [{ command: "git", args: ["diff"] }, "no-such-command-4f3a"]
}

/** The services around the server: no grace, the policy, confirmations pre-approved, the root. */
const around = (policy: Parameters<typeof Policy.layer>[0]) =>
  Layer.mergeAll(
    ServerConfig.layer({ shutdownGraceMs: 0 }),
    Policy.layer(policy),
    // The user's confirmation is not what is tested here (see Confirmation.test.ts).
    Layer.succeed(Confirmation, { preApproved: ["exec_*"] }),
    Layer.succeed(WorkspaceRoot, root)
  )

const realExec = (settings: ExecSettingsShape) =>
  ExecCapability.pipe(
    Layer.provide(NodeCommandRunner.layer({ killGrace: "300 millis" })),
    Layer.provide(Layer.succeed(ExecSettings, settings))
  )

/** A test client over exec with the real runner. */
const setup = (settings: ExecSettingsShape = testSettings, policy: Parameters<typeof Policy.layer>[0] = {}) =>
  TestClient.make(realExec(settings)).pipe(Effect.provide(around(policy)))

/** The raw client (every message in order), for the tests that follow the stream message by message. */
const setupRaw = (settings: ExecSettingsShape = testSettings, policy: Parameters<typeof Policy.layer>[0] = {}) =>
  Effect.gen(function* () {
    const client = yield* start(realExec(settings)).pipe(Effect.provide(around(policy)))
    yield* client.initialize()
    return client
  })

const run = (client: TestClient.TestClient, args: Record<string, unknown>): Effect.Effect<any, RpcError> =>
  client.callTool("exec_run", args)

const code = (result: any): string | undefined => TestClient.errorCode(result)

const readLog = (client: TestClient.TestClient, uri: string) =>
  Effect.map(client.readResource(uri), (contents) => contents[0])

const rawCode = (result: any): string | undefined => result._meta?.["effect-mcp-runtime/error"]?.code

const rawReadLog = (client: RawClient, uri: string) => client.request("resources/read", { uri })

/** Waits in real time (the TestClock drives the server; the processes run on the wall clock). */
const wallSleep = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

interface ProcessRow {
  readonly pid: number
  readonly pgid: number
  readonly stat: string
}

/** The live (non-zombie) members of a process group, from the real process table. */
const liveMembers = (pgid: number): ReadonlyArray<ProcessRow> =>
  execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 3)
    .map(([pid, group, stat]) => ({ pid: Number(pid), pgid: Number(group), stat: stat! }))
    .filter((row) => row.pgid === pgid && !row.stat.startsWith("Z"))

const awaitMembers = (pgid: number, count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      if (liveMembers(pgid).length >= count) return
      yield* wallSleep(10)
    }
    assert.fail(`process group ${pgid} never had ${count} live members`)
  })

const awaitGroupGone = (pgid: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      if (liveMembers(pgid).length === 0) return
      yield* wallSleep(10)
    }
    assert.deepStrictEqual(liveMembers(pgid), [], "no process of the group is left")
  })

/**
 * Starts a call with a progress token; returns the pid the command prints
 * first (its process group). The server must send every progress report
 * (`progressInterval: 0`): the TestClock would hold coalesced ones back.
 */
const startWithPid = (client: RawClient, id: string, args: Record<string, unknown>) =>
  Effect.gen(function* () {
    yield* client.send({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "exec_run", arguments: args, _meta: { progressToken: id } }
    })
    while (true) {
      const message = yield* client.read
      assert.strictEqual(message.method, "notifications/progress", JSON.stringify(message))
      if (/^\d+$/.test(message.params.message)) return Number(message.params.message)
    }
  })

/** A shell that prints its pid, then waits on two background sleeps: a process tree of three. */
const tree = ["-c", "echo $$; sleep 30 & sleep 30 & wait"]

describe("exec capability", () => {
  it.effect("publishes exec_run (destructive, open world, confirmed), exec_commands and the logs template", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const byName = Object.fromEntries((yield* client.listTools).map((tool: any) => [tool.name, tool]))
      assert.deepStrictEqual(Object.keys(byName).sort(), ["exec_commands", "exec_run"])
      assert.deepStrictEqual(byName.exec_run.annotations, {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true
      })
      assert.strictEqual(byName.exec_run.inputSchema.properties.confirm.type, "boolean")
      assert.deepStrictEqual(byName.exec_run.inputSchema.required, ["command"])
      assert.isDefined(byName.exec_run.outputSchema.properties.log)
      assert.strictEqual(byName.exec_commands.annotations.readOnlyHint, true)
      assert.isUndefined(byName.exec_commands.inputSchema.properties.confirm)
      const templates = yield* client.listResourceTemplates
      assert.deepInclude(
        templates.map((t: any) => [t.name, t.uriTemplate, t.mimeType]),
        ["exec_run_log", "logs://run/{id}", "text/plain"]
      )
    })
  )

  it.effect("exec_commands lists the allowlist, entries of one command merged, and the timeouts", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const response = yield* client.callTool("exec_commands", {})
      assert.deepStrictEqual(response.structuredContent, {
        commands: [
          { command: "echo", args: "any" },
          { command: "sh", args: "any" },
          { command: "pwd", args: "any" },
          { command: "git", args: ["status", "log", "diff"], description: "read the history" },
          { command: "no-such-command-4f3a", args: "any" }
        ],
        defaultTimeoutMs: 120_000,
        maxTimeoutMs: 600_000
      })
    })
  )

  it.effect("runs an allowed command: a structured result, and its log readable as logs://run/<id>", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const result = yield* run(client, { command: "echo", args: ["hello", "world; rm -rf /"] })
      assert.isUndefined(result.isError)
      const out = result.structuredContent
      assert.include(out, {
        command: "echo",
        cwd: ".",
        exitCode: 0,
        signal: null,
        stdout: "hello world; rm -rf /\n",
        stderr: "",
        stdoutTruncated: false,
        stderrTruncated: false,
        logTruncated: false
      })
      assert.deepStrictEqual(out.args, ["hello", "world; rm -rf /"])
      assert.match(out.runId, /^run-/)
      assert.strictEqual(out.log, `logs://run/${out.runId}`)
      assert.include(out.summary, "exited with code 0")
      const contents = yield* readLog(client, out.log)
      assert.strictEqual(contents.mimeType, "text/plain")
      assert.strictEqual(contents.uri, out.log)
      assert.include(contents.text, `run: ${out.runId}\n$ echo hello "world; rm -rf /"\ncwd: ${root}\n`)
      assert.include(contents.text, "outcome: exited with code 0")
      assert.include(contents.text, "--- stdout ---\nhello world; rm -rf /\n--- stderr ---\n")

      const inSub = yield* run(client, { command: "pwd", cwd: "sub" })
      assert.strictEqual(inSub.structuredContent.stdout, `${join(root, "sub")}\n`)
      assert.strictEqual(inSub.structuredContent.cwd, "sub")
      const roundabout = yield* run(client, { command: "pwd", cwd: "./sub/../sub/" })
      assert.strictEqual(roundabout.structuredContent.cwd, "sub")
    })
  )

  it.effect("a non-zero exit is a normal result that says so; stdin reaches the command", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const result = yield* run(client, {
        command: "sh",
        args: ["-c", "read line; echo got $line; echo oops >&2; exit 3"],
        stdin: "input\n"
      })
      assert.isUndefined(result.isError)
      assert.include(result.structuredContent, { exitCode: 3, stdout: "got input\n", stderr: "oops\n" })
      assert.include(result.structuredContent.summary, "exited with code 3 after")
      assert.include(result.structuredContent.summary, "a failure")
      const signalled = yield* run(client, { command: "sh", args: ["-c", "kill -USR1 $$"] })
      assert.include(signalled.structuredContent, { exitCode: null, signal: "SIGUSR1" })
      assert.include(signalled.structuredContent.summary, "ended by signal SIGUSR1")
    })
  )

  it.effect("refuses what the allowlist does not name: other commands, paths, restricted subcommands", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      for (const command of ["rm", "/bin/echo", "./echo", "../echo", "sub/../echo", "echo ", "ECHO", "bash"]) {
        const result = yield* run(client, { command, args: ["x"] })
        assert.isTrue(result.isError, command)
        assert.strictEqual(code(result), "command_not_allowed", command)
        assert.include(result.content[0].text, "exec_commands", command)
      }
      const path = yield* run(client, { command: "/bin/echo" })
      assert.include(path.content[0].text, 'call "echo" by its name instead')

      const push = yield* run(client, { command: "git", args: ["push", "origin", "main"] })
      assert.strictEqual(code(push), "arguments_not_allowed")
      assert.include(push.content[0].text, "status, log, diff")
      const option = yield* run(client, { command: "git", args: ["-C", "..", "status"] })
      assert.strictEqual(code(option), "arguments_not_allowed")
      const bare = yield* run(client, { command: "git" })
      assert.strictEqual(code(bare), "arguments_not_allowed")

      const literal = yield* setup({ ...testSettings, commands: ["/bin/echo"], additionalCommands: [] })
      const byPath = yield* run(literal, { command: "/bin/echo", args: ["listed"] })
      assert.strictEqual(byPath.structuredContent.stdout, "listed\n")
      assert.strictEqual(code(yield* run(literal, { command: "echo" })), "command_not_allowed")
    })
  )

  it.effect("runner errors become tool errors that name the next tool", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      for (const cwd of ["..", "/etc", "sub/../.."]) {
        const outside = yield* run(client, { command: "pwd", cwd })
        assert.strictEqual(code(outside), "cwd_outside_root", cwd)
        assert.include(outside.content[0].text, "workspace_list")
      }
      const missing = yield* run(client, { command: "pwd", cwd: "missing" })
      assert.strictEqual(code(missing), "cwd_not_found")
      assert.include(missing.content[0].text, "workspace_list")
      assert.strictEqual(code(yield* run(client, { command: "pwd", cwd: "file.txt" })), "cwd_not_found")
      const notInstalled = yield* run(client, { command: "no-such-command-4f3a" })
      assert.strictEqual(code(notInstalled), "command_not_found")
      assert.include(notInstalled.content[0].text, "exec_commands")
    })
  )

  it.effect("long output: the result shows the real end of each stream, the log keeps up to the cap", () =>
    Effect.gen(function* () {
      const lines = "i=0; while [ $i -lt 200 ]; do echo line$i; i=$((i+1)); done; echo bad >&2"
      const client = yield* setup({ ...testSettings, resultTailBytes: 64, maxOutputBytes: 100_000 })
      const result = (yield* run(client, { command: "sh", args: ["-c", lines] })).structuredContent
      assert.isTrue(result.stdoutTruncated)
      assert.isFalse(result.stderrTruncated)
      assert.isFalse(result.logTruncated)
      assert.isTrue(result.stdout.endsWith("line198\nline199\n"))
      assert.isAtMost(new TextEncoder().encode(result.stdout).length, 64)
      assert.strictEqual(result.stderr, "bad\n")
      assert.include(result.summary, "Only the last 64 bytes of stdout is shown")
      const log = (yield* readLog(client, result.log)).text
      assert.include(log, "line0\nline1\n")
      assert.include(log, "line199\n")

      // Past the runner's cap, the store keeps the head; the result still shows the end.
      const capped = yield* setup({ ...testSettings, resultTailBytes: 64, maxOutputBytes: 200 })
      const cut = (yield* run(capped, { command: "sh", args: ["-c", lines] })).structuredContent
      assert.isTrue(cut.stdoutTruncated)
      assert.isTrue(cut.logTruncated)
      assert.isTrue(cut.stdout.endsWith("line198\nline199\n"), cut.stdout)
      const cutLog = (yield* readLog(capped, cut.log)).text
      assert.include(cutLog, "line0\n")
      assert.notInclude(cutLog, "line199")
      assert.include(cutLog, "--- stdout (cut at the server's cap; the end is missing) ---")
    })
  )

  it.effect("each output line is a progress notification, sent while the command runs", () =>
    Effect.gen(function* () {
      const client = yield* setupRaw(testSettings, { progressInterval: 0 })
      const dir = mkdtempSync(join(root, "progress-"))
      const cwd = dir.slice(root.length + 1)
      // The command prints a line, then waits for a file only the test creates after seeing that line.
      yield* client.send({
        jsonrpc: "2.0",
        id: "p",
        method: "tools/call",
        params: {
          name: "exec_run",
          arguments: {
            command: "sh",
            args: ["-c", "echo one; echo warn >&2; while [ ! -f go ]; do sleep 0.02; done; echo two"],
            cwd
          },
          _meta: { progressToken: "tok" }
        }
      })
      const started = yield* client.read
      assert.deepStrictEqual(started.params, {
        progressToken: "tok",
        progress: 0,
        message: `$ sh -c "echo one; echo warn >&2; while [ ! -f go ]; do sleep 0.02; done; echo two"`
      })
      const early = [yield* client.read, yield* client.read].map((message) => message.params.message).sort()
      assert.deepStrictEqual(early, ["one", "stderr: warn"])
      assert.isFalse(existsSync(join(dir, "go")), "the command is still waiting")
      writeFileSync(join(dir, "go"), "")
      const last = yield* client.read
      assert.deepStrictEqual(last.params, { progressToken: "tok", progress: 3, message: "two" })
      const response = yield* client.read
      assert.strictEqual(response.id, "p")
      assert.strictEqual(response.result.structuredContent.stdout, "one\ntwo\n")
    })
  )

  it.effect("cancelling exec_run kills the command's whole process tree; no response is sent", () =>
    Effect.gen(function* () {
      const client = yield* setupRaw(testSettings, { progressInterval: 0 })
      const pid = yield* startWithPid(client, "c", { command: "sh", args: tree })
      yield* awaitMembers(pid, 3)
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c" } })
      yield* awaitGroupGone(pid)
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping, { jsonrpc: "2.0", id: ping.id, result: {} })
    })
  )

  it.effect("timeoutMs kills the tree and answers timed_out naming the log, which keeps what was printed", () =>
    Effect.gen(function* () {
      const client = yield* setupRaw({ ...testSettings, maxTimeoutMs: 5_000 }, { progressInterval: 0 })
      // Asking for more than the maximum gets the maximum.
      const pid = yield* startWithPid(client, "t", { command: "sh", args: tree, timeoutMs: 60_000 })
      yield* awaitMembers(pid, 3)
      yield* TestClock.adjust("4999 millis")
      assert.isAtLeast(liveMembers(pid).length, 3, "still running just before the timeout")
      yield* TestClock.adjust("1 millis")
      const response = yield* client.read
      assert.strictEqual(response.id, "t")
      assert.isTrue(response.result.isError)
      assert.strictEqual(rawCode(response.result), "timed_out")
      const text: string = response.result.content[0].text
      assert.include(text, "within 5000 ms")
      assert.include(text, "at most 5000")
      yield* awaitGroupGone(pid)
      const uri = /logs:\/\/run\/[\w-]+/.exec(text)?.[0]
      assert.isDefined(uri)
      const log = (yield* rawReadLog(client, uri!)).result.contents[0].text
      assert.include(log, "outcome: timed out")
      assert.include(log, `--- stdout ---\n${pid}\n`)
    })
  )

  it.effect("an unknown run id is resource not found (-32002) with a clear message", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const response = { error: yield* Effect.flip(readLog(client, "logs://run/run-00000000-no-such-run")) }
      assert.strictEqual(response.error.code, -32002)
      assert.include(response.error.message, "No run")
      assert.include(response.error.message, "exec_run")
    })
  )

  it.effect("resources/list lists the runs in the store, newest first, with their command line and outcome", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const first = (yield* run(client, { command: "echo", args: ["a b"] })).structuredContent
      const second = (yield* run(client, { command: "sh", args: ["-c", "exit 2"] })).structuredContent
      const listed = yield* client.listResources
      const runs = listed.filter((r: any) => r.uri.startsWith("logs://run/"))
      assert.deepStrictEqual(
        runs.map((r: any) => [r.uri, r.name, r.title, r.mimeType]),
        [
          [second.log, second.runId, '$ sh -c "exit 2"', "text/plain"],
          [first.log, first.runId, '$ echo "a b"', "text/plain"]
        ]
      )
      assert.match(runs[0].description, /^exited with code 2 after \d+ ms; started /)
    })
  )

  it("listPage pages 50 runs at a time; a cursor whose run was evicted ends the listing", () => {
    const summary = (i: number): RunSummary => ({
      runId: `run-${i}`,
      command: "echo",
      args: [String(i)],
      cwd: root,
      exitCode: 0,
      signal: null,
      durationMs: 1,
      stdoutTruncated: false,
      stderrTruncated: false,
      outcome: "exited",
      startedAt: i,
      stdoutBytes: 2,
      stderrBytes: 0
    })
    const runs = Array.from({ length: 120 }, (_, i) => summary(119 - i))
    const first = listPage(runs, undefined)
    assert.strictEqual(first.resources.length, 50)
    assert.strictEqual(first.resources[0]!.name, "run-119")
    assert.strictEqual(first.nextCursor, "run-70")
    const second = listPage(runs, first.nextCursor)
    assert.strictEqual(second.resources[0]!.name, "run-69")
    const third = listPage(runs, second.nextCursor)
    assert.strictEqual(third.resources.length, 20)
    assert.isUndefined(third.nextCursor)
    assert.deepStrictEqual(listPage(runs.slice(0, 60), "run-0"), { resources: [] })
    assert.deepStrictEqual(listPage([], undefined), { resources: [] })
  })

  it.effect("run ids complete from the runs in the store", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const first = (yield* run(client, { command: "echo", args: ["1"] })).structuredContent.runId
      const second = (yield* run(client, { command: "echo", args: ["2"] })).structuredContent.runId
      const completion = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "logs://run/{id}" },
        argument: { name: "id", value: "run-" }
      })
      assert.deepStrictEqual(completion.completion.values, [second, first])
    })
  )
})

/** exec over a fake runner (and the fake), with the test settings or others. */
const withFake = (scripts: ReadonlyArray<FakeCommandRunner.Script>, settings: ExecSettingsShape = testSettings) => {
  const fake = FakeCommandRunner.make(scripts)
  const capability = ExecCapability.pipe(
    Layer.provide(fake.layer),
    Layer.provide(Layer.succeed(ExecSettings, settings))
  )
  return { fake, capability }
}

const yieldMany = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("exec capability over a FakeCommandRunner", () => {
  it.effect("what exec_run asks the runner (args, cwd, stdin, the timeout capped, the output cap, env)", () =>
    Effect.gen(function* () {
      const settings = { ...testSettings, maxTimeoutMs: 5_000, maxOutputBytes: 4096, env: { CI: "1" } }
      const { capability, fake } = withFake(
        [{ command: "git", args: ["status"], stdout: "M a.ts\n?? b.ts\n", durationMs: 1200 }],
        settings
      )
      const client = yield* TestClient.make(capability).pipe(Effect.provide(around({})))
      // The scripted run takes 1.2 s on the clock: the TestClock lets it finish.
      const call = yield* Effect.forkChild(
        run(client, { command: "git", args: ["status", "--short"], cwd: "./sub/", stdin: "input\n", timeoutMs: 60_000 })
      )
      yield* yieldMany
      yield* TestClock.adjust("1200 millis")
      const result = yield* Fiber.join(call)
      assert.isUndefined(result.isError, TestClient.text(result))
      assert.include(result.structuredContent, {
        command: "git",
        cwd: "sub",
        exitCode: 0,
        signal: null,
        stdout: "M a.ts\n?? b.ts\n",
        stderr: "",
        durationMs: 1200
      })
      assert.include(result.structuredContent.summary, "exited with code 0")
      const [request] = yield* fake.calls
      assert.strictEqual(request!.command, "git")
      assert.deepStrictEqual(request!.args, ["status", "--short"])
      assert.strictEqual(request!.cwd, "./sub/")
      assert.strictEqual(request!.stdin, "input\n")
      assert.strictEqual(request!.timeout, 5_000, "asking for more than the maximum gets the maximum")
      assert.strictEqual(request!.maxOutputBytes, 4096)
      assert.deepStrictEqual(request!.env, { CI: "1" })
      const log = yield* readLog(client, result.structuredContent.log)
      assert.include(log.text, "$ git status --short\n")
      assert.include(log.text, "--- stdout ---\nM a.ts\n?? b.ts\n")
    })
  )

  it.effect("each runner error becomes its tool error code; an unscripted command is command_not_found", () =>
    Effect.gen(function* () {
      const { capability } = withFake([
        {
          command: "pwd",
          fail: new CwdOutsideRoot({ cwd: "..", root, message: "outside" })
        },
        {
          command: "sh",
          fail: new SpawnFailed({ command: "sh", reason: "PermissionDenied", message: "EACCES" })
        }
      ])
      const client = yield* TestClient.make(capability).pipe(Effect.provide(around({})))
      const outside = yield* client.expectToolError("exec_run", { command: "pwd", cwd: ".." }, "cwd_outside_root")
      assert.include(TestClient.text(outside), "workspace_list")
      const spawn = yield* client.expectToolError("exec_run", { command: "sh", args: ["x"] }, "spawn_failed")
      assert.include(TestClient.text(spawn), "(PermissionDenied)")
      const missing = yield* client.expectToolError("exec_run", { command: "echo" }, "command_not_found")
      assert.include(TestClient.text(missing), "exec_commands")
    })
  )

  it.effect("past timeoutMs on the TestClock: timed_out naming the log, which keeps what was printed", () =>
    Effect.gen(function* () {
      const { capability } = withFake([
        {
          command: "sh",
          lines: [
            ["stdout", "first"],
            ["stdout", "second"]
          ],
          durationMs: 12_000
        }
      ])
      const client = yield* TestClient.make(capability).pipe(Effect.provide(around({ progressInterval: 0 })))
      const progress: Array<string> = []
      const call = yield* Effect.forkChild(
        client.callTool(
          "exec_run",
          { command: "sh", args: ["-c", "slow"], timeoutMs: 5_000 },
          { onProgress: (report) => Effect.sync(() => progress.push(report.message ?? "")) }
        )
      )
      yield* yieldMany
      yield* TestClock.adjust("4999 millis")
      yield* yieldMany
      assert.isUndefined(call.pollUnsafe(), "still running just before the timeout")
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(call)
      assert.strictEqual(code(result), "timed_out")
      const text = TestClient.text(result)
      assert.include(text, "within 5000 ms")
      assert.deepStrictEqual(progress, ["$ sh -c slow", "first"])
      const uri = /logs:\/\/run\/[\w-]+/.exec(text)?.[0]
      assert.isDefined(uri)
      const log = (yield* readLog(client, uri!)).text
      assert.include(log, "outcome: timed out")
      assert.include(log, "--- stdout ---\nfirst\n")
      assert.notInclude(log, "second")
    })
  )

  it.effect("output past the cap: the result shows the end of the stream, the log keeps the head", () =>
    Effect.gen(function* () {
      const stdout = Array.from({ length: 200 }, (_, i) => `line${i}\n`).join("")
      const { capability } = withFake([{ command: "sh", stdout, stderr: "bad\n" }], {
        ...testSettings,
        resultTailBytes: 64,
        maxOutputBytes: 200
      })
      const client = yield* TestClient.make(capability).pipe(Effect.provide(around({})))
      const cut = (yield* run(client, { command: "sh", args: ["-c", "many"] })).structuredContent
      assert.isTrue(cut.stdoutTruncated)
      assert.isFalse(cut.stderrTruncated)
      assert.isTrue(cut.logTruncated)
      assert.isTrue(cut.stdout.endsWith("line198\nline199\n"), cut.stdout)
      assert.strictEqual(cut.stderr, "bad\n")
      const log = (yield* readLog(client, cut.log)).text
      assert.include(log, "line0\n")
      assert.notInclude(log, "line199")
      assert.include(log, "--- stdout (cut at the server's cap; the end is missing) ---")
    })
  )
})
