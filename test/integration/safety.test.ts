/**
 * The safety controls of the built binary, driven by the official SDK client
 * over stdio, configured through a real `mcp-runtime.json` in a temporary
 * root: confirmation (elicitation accepted, declined, not supported), the
 * authorization gate, the audit log, configuration errors, and the process
 * tree of a command cleaned up on cancel, timeout and shutdown (checked
 * against the real process table).
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { modernRpc, post, startHttp } from "./HttpProcess.ts"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

beforeAll(assertBuilt)

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

/** A fresh root with the given configuration file. */
const makeRoot = (config: unknown): string => {
  const root = mkdtempSync(join(tmpdir(), "mcp-safety-"))
  roots.push(root)
  writeFileSync(join(root, "mcp-runtime.json"), JSON.stringify(config, null, 2))
  return root
}

interface Connected {
  readonly client: Client
  readonly transport: StdioClientTransport
  readonly stderr: () => string
  /** Elicitation requests the client received. */
  readonly asked: Array<{ readonly message: string }>
}

const connect = async (
  root: string,
  options: {
    readonly elicitation?: (message: string) => ElicitResult
    readonly args?: ReadonlyArray<string>
  } = {}
): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--root", root, "--shutdown-grace-ms", "300", ...(options.args ?? [])],
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>) }
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  const asked: Array<{ readonly message: string }> = []
  const client = new Client(
    { name: "safety-test", version: "1.0.0" },
    { capabilities: options.elicitation === undefined ? {} : { elicitation: { form: {} } } }
  )
  if (options.elicitation !== undefined) {
    const answer = options.elicitation
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const message = request.params.message
      asked.push({ message })
      return answer(message)
    })
  }
  await client.connect(transport, { timeout: 10_000 })
  return { client, transport, stderr: () => stderr.join(""), asked }
}

const withServer = async <A>(
  root: string,
  options: Parameters<typeof connect>[1],
  body: (connected: Connected) => Promise<A>
): Promise<A> => {
  const connected = await connect(root, options)
  try {
    return await body(connected)
  } catch (error) {
    if (error instanceof Error) error.message += `\nserver stderr:\n${connected.stderr()}`
    throw error
  } finally {
    await connected.client.close()
  }
}

const text = (result: unknown): string =>
  ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("\n")

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 20_000 }) as Promise<CallToolResult>

const accept = (): ElicitResult => ({ action: "accept", content: { confirm: true } })

describe("confirmation over stdio with the SDK client", () => {
  it("asks the user through elicitation; accepted, the tool runs", async () => {
    const root = makeRoot({ audit: { enabled: false } })
    await withServer(root, { elicitation: accept }, async ({ asked, client }) => {
      const result = await call(client, "workspace_write", { path: "notes/a.txt", content: "hello" })
      assert.isNotTrue(result.isError, text(result))
      assert.strictEqual(asked.length, 1)
      assert.include(asked[0]!.message, "workspace_write")
      assert.include(asked[0]!.message, "notes/a.txt")
      assert.strictEqual(readFileSync(join(root, "notes/a.txt"), "utf8"), "hello")
    })
  })

  it("declined, the tool does not run and the result says so", async () => {
    const root = makeRoot({ audit: { enabled: false } })
    await withServer(root, { elicitation: () => ({ action: "decline" }) }, async ({ asked, client }) => {
      const result = await call(client, "workspace_write", { path: "a.txt", content: "hello" })
      assert.isTrue(result.isError)
      assert.include(text(result), "did not allow workspace_write")
      assert.include(text(result), "decline")
      assert.strictEqual(asked.length, 1)
      assert.isFalse(existsSync(join(root, "a.txt")))
    })
  })

  it("a client that can ask its user is asked even when the model passes confirm: true", async () => {
    const root = makeRoot({ audit: { enabled: false } })
    await withServer(root, { elicitation: () => ({ action: "cancel" }) }, async ({ asked, client }) => {
      const result = await call(client, "workspace_write", { path: "a.txt", content: "x", confirm: true })
      assert.isTrue(result.isError)
      assert.strictEqual(asked.length, 1)
      assert.isFalse(existsSync(join(root, "a.txt")))
    })
  })

  it("without elicitation: the confirm argument is in the schema, required to run, and explained", async () => {
    const root = makeRoot({ audit: { enabled: false } })
    await withServer(root, {}, async ({ client }) => {
      const { tools } = await client.listTools()
      const write = tools.find((tool) => tool.name === "workspace_write")!
      assert.property(write.inputSchema.properties, "confirm")
      const read = tools.find((tool) => tool.name === "workspace_read")!
      assert.notProperty(read.inputSchema.properties, "confirm")

      const refused = await call(client, "workspace_write", { path: "a.txt", content: "x" })
      assert.isTrue(refused.isError)
      assert.include(text(refused), '"confirm": true')
      assert.isFalse(existsSync(join(root, "a.txt")))

      const confirmed = await call(client, "workspace_write", { path: "a.txt", content: "x", confirm: true })
      assert.isNotTrue(confirmed.isError, text(confirmed))
      assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), "x")
    })
  })

  it("pre-approved tools run without asking", async () => {
    const root = makeRoot({ audit: { enabled: false }, confirmation: { preApproved: ["workspace_w*"] } })
    await withServer(root, { elicitation: accept }, async ({ asked, client, stderr }) => {
      const result = await call(client, "workspace_write", { path: "a.txt", content: "x" })
      assert.isNotTrue(result.isError, text(result))
      assert.strictEqual(asked.length, 0)
      // The file came from the workspace and loosens the controls: the operator is told at start-up (on stderr,
      // written apart from stdout: wait for it).
      await waitFor("the start-up warning", () => stderr().includes("pre-approves workspace_w*"))
    })
  })
})

describe("gate and audit log over stdio", () => {
  it("denies by rule, audits every call with its outcome, and keeps serving", async () => {
    const root = makeRoot({
      gate: { rules: [{ effect: "deny", names: ["workspace_write"] }] },
      audit: { path: "audit/calls.jsonl" }
    })
    writeFileSync(join(root, "readme.md"), "# hi\n")
    await withServer(root, { elicitation: () => ({ action: "decline" }) }, async ({ client }) => {
      const denied = await call(client, "workspace_write", { path: "a.txt", content: "x" })
      assert.isTrue(denied.isError)
      assert.include(text(denied), "not allowed")
      assert.isFalse(existsSync(join(root, "a.txt")))

      const read = await call(client, "workspace_read", { path: "readme.md" })
      assert.isNotTrue(read.isError, text(read))

      const missing = await call(client, "workspace_read", { path: "nope.md" })
      assert.isTrue(missing.isError)
    })
    const records = readFileSync(join(root, "audit/calls.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.deepStrictEqual(
      records.map((r) => [r.tool, r.outcome]),
      [
        ["workspace_write", "denied"],
        ["workspace_read", "ok"],
        ["workspace_read", "not_found"]
      ]
    )
    for (const record of records) {
      assert.isString(record.correlationId)
      assert.isString(record.argumentsDigest)
      assert.isNumber(record.durationMs)
      assert.notProperty(record, "arguments")
    }
  })

  it("resources/read is gated too: a denied resource is a clear JSON-RPC error, an allowed one reads", async () => {
    const root = makeRoot({
      audit: { enabled: false },
      gate: { rules: [{ effect: "deny", names: ["workspace_file"], methods: ["resources/read"] }] }
    })
    writeFileSync(join(root, "readme.md"), "# hi\n")
    await withServer(root, {}, async ({ client }) => {
      const error = await client.readResource({ uri: "workspace://readme.md" }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; message?: string }
      )
      assert.isDefined(error)
      assert.strictEqual(error!.code, -32600)
      assert.include(error!.message, "not allowed")
      // The tool reading the same file is not denied: the rule names the resource and the method.
      const read = await call(client, "workspace_read", { path: "readme.md" })
      assert.include(text(read), "# hi")
    })
  })

  it("the gate's default can make the configuration an allowlist", async () => {
    const root = makeRoot({
      audit: { enabled: false },
      gate: { default: "deny", rules: [{ effect: "allow", names: ["system_*"] }] }
    })
    await withServer(root, {}, async ({ client }) => {
      const allowed = await call(client, "system_echo", { text: "hi" })
      assert.isNotTrue(allowed.isError, text(allowed))
      const denied = await call(client, "workspace_list", {})
      assert.isTrue(denied.isError)
      assert.include(text(denied), "the default")
    })
  })
})

describe("configuration errors", () => {
  it("an invalid file stops the start with exit code 2 and every problem by JSON path", async () => {
    const root = makeRoot({
      gate: { rules: [{ effect: "alow", names: ["x"] }] },
      limits: { timeoutMs: -1 },
      tyop: true
    })
    const child = spawn(process.execPath, [binaryPath, "serve", "--root", root], { stdio: ["pipe", "pipe", "pipe"] })
    let stderr = ""
    let stdout = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)))
    assert.strictEqual(code, 2, stderr)
    assert.strictEqual(stdout, "")
    assert.include(stderr, "$.gate.rules[0].effect")
    assert.include(stderr, "$.limits.timeoutMs")
    assert.include(stderr, "$.tyop")
  })
})

// ---------------------------------------------------------------------------
// Process-tree cleanup, checked against the real process table.

/** Live processes whose command line contains `marker`. */
const processesWith = (marker: string): ReadonlyArray<string> =>
  execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"))

const waitFor = async (what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.fail(`timed out waiting for ${what}`)
}

/** A shell that starts two sleeping grandchildren, each with a unique duration as the marker. */
const sleepers = (
  options: { readonly ignoreTerm?: boolean } = {}
): { readonly marker: string; readonly args: Array<string> } => {
  const seconds = String(80_000 + Math.floor(Math.random() * 9_999))
  // With SIGTERM ignored (inherited by the children), only SIGKILL ends the tree.
  const trap = options.ignoreTerm === true ? "trap '' TERM; " : ""
  return {
    marker: `sleep ${seconds}`,
    args: ["-c", `${trap}sleep ${seconds} & sh -c 'sleep ${seconds} & wait' & wait`]
  }
}

const execConfig = () =>
  makeRoot({
    audit: { enabled: false },
    exec: { commands: ["sh"] },
    confirmation: { preApproved: ["exec_run"] }
  })

describe("exec process trees", () => {
  it("shutdown (SIGTERM) kills the whole tree of a running command", async () => {
    const root = execConfig()
    const { args, marker } = sleepers()
    const { client, transport } = await connect(root)
    const pid = transport.pid!
    const running = call(client, "exec_run", { command: "sh", args }).catch((error: unknown) => error)
    await waitFor("the grandchildren to start", () => processesWith(marker).length >= 2)
    process.kill(pid, "SIGTERM")
    await waitFor("the server to exit", () => {
      try {
        process.kill(pid, 0)
        return false
      } catch {
        return true
      }
    })
    await waitFor("the tree to be gone", () => processesWith(marker).length === 0, 5_000)
    assert.deepStrictEqual(processesWith(marker), [], "no process of the command's tree remains")
    await running
    await client.close()
  })

  it("a second SIGTERM exits at once, and the tree dies with the server all the same", async () => {
    const root = execConfig()
    // A tree that ignores SIGTERM: the graceful shutdown started by the first signal cannot end it before the second.
    const { args, marker } = sleepers({ ignoreTerm: true })
    const { client, transport } = await connect(root)
    const pid = transport.pid!
    const running = call(client, "exec_run", { command: "sh", args }).catch((error: unknown) => error)
    await waitFor("the grandchildren to start", () => processesWith(marker).length >= 2)
    process.kill(pid, "SIGTERM")
    process.kill(pid, "SIGTERM")
    await waitFor("the server to exit", () => {
      try {
        process.kill(pid, 0)
        return false
      } catch {
        return true
      }
    })
    await waitFor("the tree to be gone", () => processesWith(marker).length === 0, 5_000)
    assert.deepStrictEqual(processesWith(marker), [], "no process of the command's tree remains")
    await running
    await client.close()
  })

  it("cancelling the call kills the tree, and the server keeps serving", async () => {
    const root = execConfig()
    const { args, marker } = sleepers()
    await withServer(root, {}, async ({ client }) => {
      const controller = new AbortController()
      const running = client
        .callTool({ name: "exec_run", arguments: { command: "sh", args } }, undefined, { signal: controller.signal })
        .catch((error: unknown) => error)
      await waitFor("the grandchildren to start", () => processesWith(marker).length >= 2)
      controller.abort("the test cancels")
      await running
      await waitFor("the tree to be gone", () => processesWith(marker).length === 0, 5_000)
      const after = await call(client, "system_echo", { text: "still here" })
      assert.include(text(after), "still here")
    })
  })

  it("the run's timeout kills the tree and says so", async () => {
    const root = execConfig()
    const { args, marker } = sleepers()
    await withServer(root, {}, async ({ client }) => {
      const result = await call(client, "exec_run", { command: "sh", args, timeoutMs: 1_000 })
      assert.isTrue(result.isError, text(result))
      assert.match(text(result), /time/i)
      await waitFor("the tree to be gone", () => processesWith(marker).length === 0, 5_000)
    })
  })
})

describe("exec runs as tasks (2026-07-28 over HTTP)", () => {
  // A 2026-07-28 client that declared the tasks extension: exec_run answers at once with a task.
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    "io.modelcontextprotocol/clientInfo": { name: "safety-test", version: "1.0.0" }
  }
  const rpc = modernRpc(meta)

  it("tasks/cancel kills the command's whole tree; the task ends cancelled and the server keeps serving", async () => {
    const root = execConfig()
    const { args, marker } = sleepers()
    const server = await startHttp([binaryPath, "serve", "--root", root, "--transport", "http", "--port", "0"])
    try {
      const created = await rpc(
        server.url,
        "tools/call",
        { name: "exec_run", arguments: { command: "sh", args } },
        "exec_run"
      )
      assert.strictEqual(created.result?.resultType, "task", JSON.stringify(created))
      const taskId: string = created.result.taskId
      assert.strictEqual(created.result.status, "working")
      await waitFor("the grandchildren to start", () => processesWith(marker).length >= 2)
      const working = await rpc(server.url, "tasks/get", { taskId }, taskId)
      assert.strictEqual(working.result.status, "working")

      const cancelled = await rpc(server.url, "tasks/cancel", { taskId }, taskId)
      assert.isUndefined(cancelled.error, JSON.stringify(cancelled))
      await waitFor("the tree to be gone", () => processesWith(marker).length === 0, 5_000)
      const after = await rpc(server.url, "tasks/get", { taskId }, taskId)
      assert.strictEqual(after.result.status, "cancelled")

      // The same tool without the extension is an ordinary call, answered with its result.
      const plain = await post(
        server.url,
        {
          jsonrpc: "2.0",
          id: 9999,
          method: "tools/call",
          params: {
            name: "exec_run",
            arguments: { command: "sh", args: ["-c", "echo hi"] },
            _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": {} }
          }
        },
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "exec_run" }
      )
      const text = await plain.text()
      assert.include(text, '"resultType":"complete"')
      assert.include(text, "hi\\n")
    } finally {
      await server.stop()
    }
  })

  it("a run's task ends completed with the run's result", async () => {
    const root = execConfig()
    const server = await startHttp([binaryPath, "serve", "--root", root, "--transport", "http", "--port", "0"])
    try {
      const created = await rpc(
        server.url,
        "tools/call",
        { name: "exec_run", arguments: { command: "sh", args: ["-c", "echo done; exit 3"] } },
        "exec_run"
      )
      assert.strictEqual(created.result?.resultType, "task", JSON.stringify(created))
      const taskId: string = created.result.taskId
      let task: any
      for (let i = 0; i < 200; i++) {
        task = (await rpc(server.url, "tasks/get", { taskId }, taskId)).result
        if (task.status !== "working") break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      assert.strictEqual(task.status, "completed", JSON.stringify(task))
      assert.strictEqual(task.result.structuredContent.exitCode, 3)
      assert.strictEqual(task.result.structuredContent.stdout, "done\n")
    } finally {
      await server.stop()
    }
  })
})
