/**
 * Upstream servers end to end: the built binary serves with `upstreams` in
 * its configuration file, driven by the official SDK client over stdio, and
 * the upstreams are real processes — the binary itself (over stdio and over
 * Streamable HTTP), the SDK fixture of `test/fixtures/upstream-server.ts`
 * and the registry's `@modelcontextprotocol/server-everything`. Every test
 * closes what it started.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { makeTempDirs } from "./integration/CliProcess.ts"
import { binaryArgs, startHttp } from "./integration/HttpProcess.ts"
import { assertBuilt, binaryPath, repoRoot } from "./integration/ServerProcess.ts"

beforeAll(assertBuilt)
const temp = makeTempDirs()
afterAll(temp.removeAll)

const fixtureServer = resolve(repoRoot, "test/fixtures/upstream-server-stdio.ts")
const everythingServer = resolve(repoRoot, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
const options = { timeout: 10_000 }

const text = (result: unknown): string =>
  (result as CallToolResult).content.map((block) => (block.type === "text" ? block.text : "")).join("\n")

const errorCode = (result: unknown): string | undefined =>
  (result as CallToolResult).isError === true
    ? ((result as CallToolResult)._meta?.["effect-mcp-runtime/error"] as { code?: string } | undefined)?.code
    : undefined

const until = async <A>(what: string, check: () => Promise<A | undefined>, timeoutMs = 8_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (error) {
      last = error
    }
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error(`timed out waiting for ${what}${last === undefined ? "" : ` (last error: ${String(last)})`}`)
}

/** The binary serving `system` and the given upstreams, with an SDK client connected to it over stdio. */
const serveWith = async (upstreams: Record<string, unknown>) => {
  const dir = temp.make({ "config.json": JSON.stringify({ upstreams }) })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--root", dir, "--config", join(dir, "config.json")],
    env: { MCP_RUNTIME_CAPABILITIES: "system", MCP_RUNTIME_AUDIT_LOG: "off" },
    stderr: "pipe"
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  const client = new Client({ name: "upstream-test", version: "1.0.0" })
  // Anything but protocol messages on the server's stdout would show up here.
  const errors: Array<Error> = []
  client.onerror = (error) => errors.push(error)
  const toolsChanged: Array<number> = []
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    toolsChanged.push(Date.now())
  })
  try {
    await client.connect(transport, { timeout: 20_000 })
  } catch (error) {
    await client.close()
    throw new Error(`the server did not start: ${String(error)}\n${stderr.join("")}`, { cause: error })
  }
  return { client, transport, stderr, errors, toolsChanged, dir }
}

/** The binary as an upstream over stdio, in its own root, auditing its calls to `audit` (arguments kept). */
const innerBinary = (root: string, audit: string) => ({
  command: process.execPath,
  args: [
    binaryPath,
    "serve",
    "--root",
    root,
    "--config",
    join(root, "inner.json"),
    "--capabilities",
    "system,conformance,exec",
    "--audit-log",
    audit
  ]
})

const auditRecords = (file: string): Array<any> =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line))
    : []

describe("upstream servers (the built binary)", () => {
  it("mounts the binary itself: calls, confirmation, progress, cancellation, list_changed, restart", async () => {
    // The inner server confirms nothing itself (the outer one asks): exec_run is pre-approved there.
    const innerRoot = temp.make({
      "inner.json": JSON.stringify({ confirmation: { preApproved: ["exec_run"] }, audit: { arguments: "redacted" } })
    })
    const audit = join(innerRoot, "audit.jsonl")
    const outer = await serveWith({
      inner: innerBinary(innerRoot, audit),
      fixture: { command: process.execPath, args: [fixtureServer] }
    })
    const { client } = outer
    try {
      const tools = (await client.listTools(undefined, options)).tools
      const byName = new Map(tools.map((tool) => [tool.name, tool]))
      for (const name of ["system_echo", "inner_system_echo", "inner_exec_run", "inner_slow_compute", "fixture_slow"]) {
        assert.isTrue(byName.has(name), `${name} is listed`)
      }
      assert.strictEqual(byName.get("inner_exec_run")?.annotations?.destructiveHint, true)
      assert.deepStrictEqual(
        await client.callTool(
          { name: "inner_system_echo", arguments: { text: "through the upstream" } },
          undefined,
          options
        ),
        (await client.callTool(
          { name: "system_echo", arguments: { text: "through the upstream" } },
          undefined,
          options
        )) as any
      )

      // Confirmed by the outer server: refused without `confirm`, run with it.
      const refused = await client.callTool(
        { name: "inner_exec_run", arguments: { command: "node", args: ["-e", "console.log(6 * 7)"] } },
        undefined,
        options
      )
      assert.strictEqual(errorCode(refused), "confirmation_required")
      const ran = await client.callTool(
        { name: "inner_exec_run", arguments: { command: "node", args: ["-e", "console.log(6 * 7)"], confirm: true } },
        undefined,
        options
      )
      assert.isUndefined(errorCode(ran), text(ran))
      assert.include(text(ran), "42")
      // The SDK fixture shows what an upstream receives: the arguments without `confirm`.
      const echoed = await client.callTool(
        { name: "fixture_echo_args", arguments: { target: "notes.md", confirm: true } },
        undefined,
        options
      )
      assert.deepStrictEqual(JSON.parse(text(echoed)), { target: "notes.md" })

      // Progress from the upstream reaches the client (the tool has no annotations: confirmed, as the MCP
      // defaults make it destructive).
      const progress: Array<number> = []
      await client.callTool({ name: "inner_test_tool_with_progress", arguments: { confirm: true } }, undefined, {
        ...options,
        onprogress: (update) => progress.push(update.progress)
      })
      assert.isAtLeast(progress.length, 1)

      // A cancelled call is cancelled in the upstream (its audit log says so).
      const abort = new AbortController()
      const slow = client.callTool({ name: "inner_slow_compute", arguments: { seconds: 30 } }, undefined, {
        signal: abort.signal,
        timeout: 60_000
      })
      await new Promise((done) => setTimeout(done, 300))
      abort.abort("changed my mind")
      await slow.then(
        () => assert.fail("the call was cancelled"),
        () => undefined
      )
      const cancelled = await until("the inner server to record the cancelled call", async () =>
        auditRecords(audit).find((record) => record.tool === "slow_compute")
      )
      assert.strictEqual(cancelled.outcome, "cancelled")
      // The inner server got the arguments the outer one forwarded: no `confirm`.
      assert.deepStrictEqual(auditRecords(audit).find((record) => record.tool === "exec_run")?.arguments, {
        command: "node",
        args: ["-e", "console.log(6 * 7)"]
      })

      // The upstream's tools/list_changed becomes the server's own.
      const before = outer.toolsChanged.length
      assert.strictEqual(
        text(await client.callTool({ name: "fixture_add_tool", arguments: {} }, undefined, options)),
        "extra_1"
      )
      await until("tools/list_changed", async () => (outer.toolsChanged.length > before ? true : undefined))
      const listed = (await client.listTools(undefined, options)).tools.map((tool) => tool.name)
      assert.include(listed, "fixture_extra_1")

      // The upstream process dies: a clear error naming it, then it is restarted.
      const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(outer.transport.pid)], {
        encoding: "utf8"
      })
      const innerPid = Number(
        children
          .split("\n")
          .find((line) => line.includes("mcp-runtime.js serve"))
          ?.trim()
          .split(/\s+/)[0]
      )
      assert.isAbove(innerPid, 0, children)
      process.kill(innerPid, "SIGKILL")
      const down = await until("the error result of the dead upstream", async () => {
        const result = await client.callTool(
          { name: "inner_system_echo", arguments: { text: "x" } },
          undefined,
          options
        )
        return errorCode(result) === "upstream_unavailable" ? result : undefined
      })
      assert.match(
        text(down),
        /^The upstream server inner is not connected \(.+\); it is being restarted — retry in a few seconds, or call other tools\.$/
      )
      const back = await until("the restarted upstream", async () => {
        const result = await client.callTool(
          { name: "inner_system_echo", arguments: { text: "back" } },
          undefined,
          options
        )
        return errorCode(result) === undefined ? result : undefined
      })
      assert.include(text(back), "back")
      // The other upstream and the local tools never noticed.
      assert.strictEqual(
        text(await client.callTool({ name: "fixture_pid", arguments: {} }, undefined, options)).length > 0,
        true
      )
      assert.deepStrictEqual(outer.errors, [], "stdout carried only protocol messages")
    } finally {
      await client.close()
    }
  })

  it("mounts a third-party server from the registry (server-everything): tools, prompts, resources", async () => {
    const { client, errors } = await serveWith({ everything: { command: process.execPath, args: [everythingServer] } })
    try {
      const tools = (await client.listTools(undefined, options)).tools.map((tool) => tool.name)
      assert.includeMembers(tools, ["everything_echo", "everything_get-sum", "everything_get-structured-content"])
      const echo = await client.callTool(
        { name: "everything_echo", arguments: { message: "hello" } },
        undefined,
        options
      )
      assert.strictEqual(text(echo), "Echo: hello")
      const sum = await client.callTool({ name: "everything_get-sum", arguments: { a: 2, b: 3 } }, undefined, options)
      assert.include(text(sum), "5")
      // The structured result is checked by this client against the outputSchema the server passed on.
      const weather = await client.callTool(
        { name: "everything_get-structured-content", arguments: { location: "New York" } },
        undefined,
        options
      )
      assert.isObject(weather.structuredContent)

      const prompts = (await client.listPrompts(undefined, options)).prompts.map((prompt) => prompt.name)
      assert.include(prompts, "everything_args-prompt")
      const prompt = await client.getPrompt({ name: "everything_args-prompt", arguments: { city: "Paris" } }, options)
      assert.include(JSON.stringify(prompt.messages), "Paris")

      const resources = (await client.listResources(undefined, options)).resources
      const document = resources.find((resource) => resource.uri.startsWith("demo://resource/static/document/"))
      assert.isDefined(document)
      assert.isTrue(document!.name.startsWith("everything_"))
      const read = await client.readResource({ uri: document!.uri }, options)
      assert.isAbove(JSON.stringify(read.contents).length, 20)
      const templates = (await client.listResourceTemplates(undefined, options)).resourceTemplates
      const dynamic = templates.find((template) => template.uriTemplate.startsWith("demo://resource/dynamic/text/"))
      assert.isDefined(dynamic)
      const item = await client.readResource({ uri: "demo://resource/dynamic/text/1" }, options)
      assert.strictEqual(item.contents[0]?.uri, "demo://resource/dynamic/text/1")
      assert.deepStrictEqual(errors, [])
    } finally {
      await client.close()
    }
  })

  it("mounts an upstream over Streamable HTTP, and reconnects when it comes back", async () => {
    let inner = await startHttp(binaryArgs(["--audit-log", "off"]))
    const { client } = await serveWith({ web: { url: inner.url, headers: { "X-Test": "upstream" } } })
    try {
      const echo = await client.callTool(
        { name: "web_system_echo", arguments: { text: "over http" } },
        undefined,
        options
      )
      assert.include(text(echo), "over http")
      const port = new URL(inner.url).port
      await inner.stop()
      const down = await until("the error result of the stopped upstream", async () => {
        const result = await client.callTool({ name: "web_system_echo", arguments: { text: "x" } }, undefined, options)
        return errorCode(result) === "upstream_unavailable" ? result : undefined
      })
      assert.include(text(down), "The upstream server web is not connected")
      inner = await startHttp(
        binaryArgs(["--audit-log", "off"]).map((arg, i, all) => (all[i - 1] === "--port" ? port : arg))
      )
      const back = await until("the upstream back", async () => {
        const result = await client.callTool(
          { name: "web_system_echo", arguments: { text: "back" } },
          undefined,
          options
        )
        return errorCode(result) === undefined ? result : undefined
      })
      assert.include(text(back), "back")
    } finally {
      await client.close()
      await inner.stop()
    }
  })

  it("a collision between upstreams, or an id it cannot use, stops the start with a clear message", () => {
    const serve = (config: unknown, env: Record<string, string> = {}, fromRoot = false) => {
      const dir = temp.make({ [fromRoot ? "mcp-runtime.json" : "config.json"]: JSON.stringify(config) })
      return spawnSync(
        process.execPath,
        [
          binaryPath,
          "serve",
          "--root",
          dir,
          ...(fromRoot ? [] : ["--config", join(dir, "config.json")]),
          "--capabilities",
          "system",
          "--audit-log",
          "off"
        ],
        { encoding: "utf8", input: "", timeout: 20_000, env: { ...process.env, ...env } }
      )
    }
    const everything = { command: process.execPath, args: [everythingServer] }
    // Both serve demo:// URIs; each URI scheme belongs to one capability.
    const twice = serve({ upstreams: { one: everything, two: everything } })
    assert.strictEqual(twice.status, 1, twice.stderr)
    assert.include(twice.stderr, "SchemeTaken")
    assert.include(twice.stderr, 'uses the URI scheme \\"demo:\\"')

    const bundled = serve({ upstreams: { system: everything } })
    assert.strictEqual(bundled.status, 1, bundled.stderr)
    assert.include(bundled.stderr, "UpstreamIdTaken")

    const invalid = serve({ upstreams: { "Bad-Id": everything } })
    assert.strictEqual(invalid.status, 1, invalid.stderr)
    assert.include(invalid.stderr, "InvalidCapabilityId")

    const both = serve({ upstreams: { x: { command: "node", url: "http://127.0.0.1:1/mcp" } } })
    assert.strictEqual(both.status, 2, both.stderr)
    assert.include(both.stderr, "$.upstreams.x")
    assert.include(both.stderr, "not both")

    // A server that would be its own upstream, over and over.
    const nested = serve({ upstreams: { again: everything } }, { MCP_RUNTIME_UPSTREAM_DEPTH: "4" })
    assert.strictEqual(nested.status, 2, nested.stderr)
    assert.include(nested.stderr, "probably its own upstream")

    // A file found in the root may not start upstreams on its own say-so: nothing is started.
    const marker = join(temp.make({}), "started")
    const workspace = serve(
      {
        upstreams: {
          planted: {
            command: process.execPath,
            args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`]
          }
        }
      },
      {},
      true
    )
    assert.strictEqual(workspace.status, 2, workspace.stderr)
    assert.include(workspace.stderr, "this file was found in the root")
    assert.include(workspace.stderr, "MCP_RUNTIME_ALLOW_WORKSPACE_UPSTREAMS=1")
    assert.isFalse(existsSync(marker), "the upstream's command did not run")
  })

  it("doctor shows each upstream: transport, state, restarts, tools", () => {
    const dir = temp.make({
      "config.json": JSON.stringify({
        upstreams: {
          fixture: { command: process.execPath, args: [fixtureServer] },
          ghost: { command: join(repoRoot, "no-such-server") }
        }
      })
    })
    const result = spawnSync(
      process.execPath,
      [binaryPath, "doctor", "--root", dir, "--config", join(dir, "config.json"), "--capabilities", "system", "--json"],
      { encoding: "utf8", timeout: 20_000 }
    )
    assert.strictEqual(result.status, 1, result.stderr)
    const report = JSON.parse(result.stdout)
    const fixture = report.capabilities.find((c: any) => c.id === "fixture")
    assert.strictEqual(fixture.upstream.state, "connected")
    assert.strictEqual(fixture.upstream.transport, `stdio ${process.execPath} ${fixtureServer}`)
    assert.strictEqual(fixture.upstream.restarts, 0)
    assert.isAbove(fixture.upstream.pid, 0)
    assert.deepStrictEqual(fixture.upstream.server, { name: "upstream-fixture", version: "1.2.3" })
    assert.includeMembers(
      fixture.tools.map((tool: any) => tool.name),
      ["fixture_echo_args", "fixture_get_thing"]
    )
    assert.isTrue(fixture.tools.find((tool: any) => tool.name === "fixture_echo_args").confirms)
    const ghost = report.capabilities.find((c: any) => c.id === "ghost")
    assert.strictEqual(ghost.upstream.state, "failed")
    assert.include(ghost.upstream.reason, "ENOENT")
    const checks = report.sections.find((s: any) => s.name === "Capabilities").checks
    assert.isFalse(checks.find((c: any) => c.title.startsWith("ghost")).ok)
    assert.isTrue(checks.find((c: any) => c.title.startsWith("fixture")).ok)
  })
})
