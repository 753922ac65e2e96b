/**
 * The request front from the built binary (`serve --front request`), driven
 * by the official SDK client over stdio: one listed tool, a chain over real
 * files, write-key conflicts between real workspace writes, invalid ops
 * answered with invalid params and the server serving on, the audit log's
 * records per op, and the configuration file's `front` and `request` keys.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

beforeAll(assertBuilt)

const work = mkdtempSync(join(tmpdir(), "request-front-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const root = join(work, "root")
mkdirSync(join(root, "src"), { recursive: true })
writeFileSync(join(root, "src", "a.ts"), "export const a = 1\n")
writeFileSync(join(root, "src", "b.ts"), "export const b = 2\n")
const audit = join(work, "audit.jsonl")
const config = join(work, "mcp-runtime.json")
writeFileSync(
  config,
  JSON.stringify({ front: "request", request: { maxOps: 8 }, confirmation: { preApproved: ["workspace_*"] } })
)

const requestOptions = { timeout: 20_000 }

const withClient = async <A>(args: ReadonlyArray<string>, body: (client: Client) => Promise<A>): Promise<A> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--root", root, "--capabilities", "system,workspace", "--audit-log", audit, ...args],
    env: { ...(process.env as Record<string, string>), XDG_STATE_HOME: join(work, "state") },
    stderr: "ignore"
  })
  const client = new Client({ name: "request-front-test", version: "1.0.0" })
  await client.connect(transport, requestOptions)
  try {
    return await body(client)
  } finally {
    await client.close()
  }
}

const envelope = (result: any) => JSON.parse(result.content[0].text)

describe("the request front from the binary with the SDK client", () => {
  it("lists one tool and runs a chain, a parallel request and conflicts over real files", async () => {
    await withClient(["--front", "request"], async (client) => {
      const tools = (await client.listTools(undefined, requestOptions)).tools
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["request"]
      )
      assert.include(tools[0]!.description!, "workspace_read")

      const chain = await client.callTool(
        {
          name: "request",
          arguments: {
            ops: 'workspace_search(query="export const b", path="src") | workspace_read(path=$prev.matches[0].path)'
          }
        },
        undefined,
        requestOptions
      )
      const chained = envelope(chain)
      assert.deepStrictEqual(chained.summary, { total: 2, succeeded: 2, failed: 0, aborted: 0 })
      assert.strictEqual(chained.results[1].output.content, "export const b = 2\n")

      const conflict = await client.callTool(
        {
          name: "request",
          arguments: {
            ops:
              'workspace_write(path="src/c.ts", content="1"); workspace_write(path="./src/c.ts", content="2"); ' +
              'workspace_write(path="src/d.ts", content="4")',
            confirm: true
          }
        },
        undefined,
        requestOptions
      )
      const conflicted = envelope(conflict)
      assert.deepStrictEqual(
        conflicted.results.map((result: any) => (result.ok ? "ok" : result.error.code)),
        ["write_conflict", "write_conflict", "ok"]
      )
      assert.isFalse(existsSync(join(root, "src", "c.ts")))
      assert.strictEqual(readFileSync(join(root, "src", "d.ts"), "utf8"), "4")

      const bad = await client
        .callTool({ name: "request", arguments: { ops: 'workspace_read(path="src/a.ts)' } }, undefined, requestOptions)
        .then(
          () => undefined,
          (error: unknown) => error
        )
      assert.instanceOf(bad, McpError)
      assert.strictEqual((bad as McpError).code, -32602)
      assert.include((bad as McpError).message, "unterminated string")

      const direct = await client
        .callTool({ name: "workspace_read", arguments: { path: "src/a.ts" } }, undefined, requestOptions)
        .then(
          () => undefined,
          (error: unknown) => error
        )
      assert.strictEqual((direct as McpError).code, -32602)

      const after = envelope(
        await client.callTool(
          { name: "request", arguments: { ops: 'system_echo(text="still here")' } },
          undefined,
          requestOptions
        )
      )
      assert.strictEqual(after.results[0].output.text, "still here")
    })
    const records = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    const chainRecord = records.find((record) => record.tool === "request" && record.outcome === "ok")
    assert.isDefined(chainRecord)
    assert.isTrue(
      records.some(
        (record) => record.correlationId === `${chainRecord.correlationId}/2` && record.tool === "workspace_read"
      )
    )
  })

  it("the configuration file turns the front on and sets its cap", async () => {
    await withClient(["--config", config], async (client) => {
      const tools = (await client.listTools(undefined, requestOptions)).tools
      assert.deepStrictEqual(
        tools.map((tool) => tool.name),
        ["request"]
      )
      const many = Array.from({ length: 9 }, () => 'system_echo(text="x")').join("; ")
      const error = await client
        .callTool({ name: "request", arguments: { ops: many } }, undefined, requestOptions)
        .then(
          () => undefined,
          (e: unknown) => e
        )
      assert.strictEqual((error as McpError).code, -32602)
      assert.include((error as McpError).message, "8")
    })
  })
})
