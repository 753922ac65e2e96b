/**
 * `serve --bridge` as a user runs it: the built binary over stdio with the
 * SDK client, and the example application (`examples/bridge-app.ts`) in a
 * process of its own connecting to the socket the flag names. Its tools
 * appear under `app_shop_…` with `list_changed`, calls reach it, and they
 * vanish when it exits. A malformed value is a usage error (exit 2).
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assertBuilt, binaryPath, repoRoot } from "./ServerProcess.ts"

beforeAll(() => assertBuilt())

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe("serve --bridge", { concurrent: false }, () => {
  it(
    "an application's tools appear under app_, are called, and vanish when it exits",
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-bridge-cli-"))
      const socket = join(dir, "bridge.sock")
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [binaryPath, "serve", "--root", dir, "--audit-log", "off", `--bridge=${socket}`],
        env: { ...process.env, XDG_STATE_HOME: join(dir, "state") } as Record<string, string>,
        stderr: "pipe"
      })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      const client = new Client({ name: "bridge-cli-test", version: "1.0.0" })
      let changed = 0
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++)
      await client.connect(transport)
      try {
        const appNames = async () =>
          (await client.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith("app_"))
        const bridgeTools = (await client.listTools()).tools
          .map((tool) => tool.name)
          .filter((n) => n.startsWith("bridge_"))
        assert.deepStrictEqual(bridgeTools.sort(), [
          "bridge_client_resource",
          "bridge_client_tool",
          "bridge_list_client_tools_and_resources"
        ])
        assert.strictEqual(statSync(socket).mode & 0o777, 0o600, "the socket is the user's alone")
        assert.deepStrictEqual(await appNames(), [])

        const app = spawn(process.execPath, [join(repoRoot, "examples/bridge-app.ts")], {
          cwd: repoRoot,
          env: { ...process.env, MCP_RUNTIME_BRIDGE: socket },
          stdio: ["ignore", "ignore", "pipe"]
        })
        let appStderr = ""
        app.stderr.on("data", (chunk: Buffer) => void (appStderr += chunk.toString("utf8")))
        const exited = new Promise((resolve) => app.once("exit", resolve))
        await until(`the application's tools\n${stderr}\n${appStderr}`, async () => (await appNames()).length === 2)
        assert.isAtLeast(changed, 1, "list_changed was sent")
        assert.deepStrictEqual((await appNames()).sort(), ["app_shop_add_order", "app_shop_orders"])
        const added = await client.callTool({ name: "app_shop_add_order", arguments: { item: "tea" } })
        assert.deepStrictEqual(added.content, [{ type: "text", text: "order 2 added" }])
        const orders = await client.callTool({ name: "app_shop_orders", arguments: {} })
        assert.include((orders.content as Array<{ text: string }>)[0]!.text, '"item":"tea"')

        const seen = changed
        app.kill("SIGTERM")
        await exited
        await until("the application's tools gone", async () => (await appNames()).length === 0)
        assert.isAbove(changed, seen, "list_changed was sent again")
      } finally {
        await client.close()
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it("a malformed --bridge value is a usage error", () => {
    const result = spawnSync(process.execPath, [binaryPath, "serve", "--audit-log", "off", "--bridge=tcpx"], {
      encoding: "utf8",
      input: ""
    })
    assert.strictEqual(result.status, 2, result.stderr)
    assert.include(result.stderr, "--bridge=tcpx: expected tcp or tcp:PORT")
  })
})
