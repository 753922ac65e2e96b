/**
 * Tools marked experimental (`Tool.make(…, { experimental: true })`): a
 * kernel with `experimental: false` — the binary without `--experimental` —
 * does not publish them, and a call to one says what it is and how to
 * enable it; the default kernel publishes them. The bundled fe capability's
 * later tools are experimental, and its prompt names only the tools the
 * server publishes. The binary's flag, environment variable and
 * configuration key are checked through `Settings.resolve` in
 * test/cli.test.ts's neighbours (here: the flag on the built binary).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { FeCapability } from "../capabilities/fe/index.ts"
import * as Capability from "../src/Capability.ts"
import { FakeCommandRunner, MemoryWorkspace, TestClient } from "../src/testing.ts"
import * as Tool from "../src/Tool.ts"
import { binaryPath } from "./integration/ServerProcess.ts"

const proven = Tool.make("proven", { description: "Always there.", input: Schema.Struct({}) }).pipe(
  Tool.handle(() => Effect.succeed("proven"))
)
const trial = Tool.make("trial", {
  description: "Not proven yet.",
  input: Schema.Struct({}),
  experimental: true
}).pipe(Tool.handle(() => Effect.succeed("trial")))

const Lab = Capability.make(
  { id: "lab", description: "A lab", version: "1.0.0" },
  Effect.succeed({ tools: [proven, trial] })
)

const fe = FeCapability.pipe(
  Layer.provide(MemoryWorkspace.make({ "package.json": "{}" }).layer),
  Layer.provide(FakeCommandRunner.make([]).layer)
)

const later = ["fe_batch", "fe_budget", "fe_diff", "fe_impact", "fe_scaffold", "fe_surgeon"]

describe("experimental tools", () => {
  it.effect("published by default", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Lab)
      assert.deepStrictEqual(
        (yield* client.listTools).map((tool) => tool.name),
        ["lab_proven", "lab_trial"]
      )
      assert.strictEqual(TestClient.text(yield* client.callTool("lab_trial", {})), "trial")
    }).pipe(Effect.scoped)
  )

  it.effect("held back when the kernel does not enable them: not listed, and a call says how to enable them", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Lab, { experimental: false })
      assert.deepStrictEqual(
        (yield* client.listTools).map((tool) => tool.name),
        ["lab_proven"]
      )
      const error = yield* Effect.flip(client.callTool("lab_trial", {}))
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, "lab_trial is an experimental tool of the lab capability")
      assert.include(error.message, "--experimental")
      assert.deepStrictEqual(error.data, { tool: "lab_trial", experimental: true })
      // Any other unknown name is still just unknown.
      const unknown = yield* Effect.flip(client.callTool("lab_nope", {}))
      assert.include(unknown.message, "Unknown tool: lab_nope")
    }).pipe(Effect.scoped)
  )

  it.effect("the fe capability's later tools are experimental; its prompt names only published tools", () =>
    Effect.gen(function* () {
      const off = yield* TestClient.make(fe, { experimental: false })
      const published = (yield* off.listTools).map((tool) => tool.name)
      for (const name of later) assert.notInclude(published, name)
      assert.includeMembers(published, ["fe_skeleton", "fe_verify", "fe_doctor"])
      const text: string = (yield* off.getPrompt("fe_fix_project")).messages[0].content.text
      const named = [...new Set(text.match(/\bfe_[a-z_]+/g) ?? [])]
      for (const name of named) assert.include(published, name, `the prompt names ${name}`)
      assert.include(text, "edit each file yourself (workspace_edit")

      const on = yield* TestClient.make(fe)
      const all = (yield* on.listTools).map((tool) => tool.name)
      assert.includeMembers(all, later)
    }).pipe(Effect.scoped)
  )
})

describe("serve --experimental", () => {
  const tools = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), "mcp-experimental-"))
    try {
      const input =
        [
          {
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
          },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          { jsonrpc: "2.0", id: 1, method: "tools/list" }
        ]
          .map((message) => JSON.stringify(message))
          .join("\n") + "\n"
      const result = spawnSync(
        process.execPath,
        [binaryPath, "serve", "--root", dir, "--audit-log", "off", "--daemon", "off", ...args],
        {
          input,
          encoding: "utf8",
          env: { ...process.env, XDG_STATE_HOME: join(dir, "state"), ...env },
          timeout: 30_000
        }
      )
      const list = result.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
        .find((message) => message.id === 1)
      assert.isDefined(list, result.stderr)
      return list.result.tools.map((tool: { name: string }) => tool.name) as Array<string>
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it("the binary holds the later fe tools back unless --experimental (or MCP_RUNTIME_EXPERIMENTAL) is given", () => {
    const plain = tools([])
    for (const name of later) assert.notInclude(plain, name)
    assert.include(plain, "fe_skeleton")
    assert.includeMembers(tools(["--experimental"]), later)
    assert.includeMembers(tools([], { MCP_RUNTIME_EXPERIMENTAL: "1" }), later)
  }, 60_000)
})
