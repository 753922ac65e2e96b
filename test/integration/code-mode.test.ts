/**
 * Code mode from the built binary, driven by the official SDK client over
 * stdio: code_run calling tools, code_types, a learned capability saved by
 * one server process and called after a restart (the store under the state
 * directory), and runaway code stopped while the server keeps serving.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

beforeAll(assertBuilt)

const work = mkdtempSync(join(tmpdir(), "code-mode-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const state = join(work, "state")
const config = join(work, "mcp-runtime.json")
writeFileSync(config, JSON.stringify({ code: { cpuMs: 200 } }))

const requestOptions = { timeout: 20_000 }

const withClient = async <A>(body: (client: Client) => Promise<A>): Promise<A> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--root", work, "--config", config, "--capabilities", "system,code"],
    env: { ...(process.env as Record<string, string>), XDG_STATE_HOME: state },
    stderr: "ignore"
  })
  const client = new Client({ name: "code-mode-test", version: "1.0.0" })
  await client.connect(transport, requestOptions)
  try {
    return await body(client)
  } finally {
    await client.close()
  }
}

const text = (result: any): string => result.content.map((block: any) => block.text ?? "").join("\n")

describe("code mode from the binary with the SDK client", () => {
  it("runs code that calls tools, declares them, keeps learned capabilities across restarts, stops runaway code", async () => {
    await withClient(async (client) => {
      const tools = (await client.listTools(undefined, requestOptions)).tools.map((tool) => tool.name)
      assert.includeMembers(tools, ["code_run", "code_types", "code_save", "code_list", "code_show", "code_delete"])

      const run = await client.callTool(
        {
          name: "code_run",
          arguments: {
            code: `const texts: string[] = []
for (const word of ["a", "b", "c"]) texts.push((await mcp.system.echo({ text: word })).text)
console.log("echoed", texts.length)
return texts.join("")`
          }
        },
        undefined,
        requestOptions
      )
      assert.notStrictEqual(run.isError, true, text(run))
      const structured = run.structuredContent as any
      assert.strictEqual(structured.value, "abc")
      assert.deepStrictEqual(structured.console, [{ level: "log", text: "echoed 3" }])
      assert.deepStrictEqual(
        structured.calls.map((call: any) => call.tool),
        ["system_echo", "system_echo", "system_echo"]
      )

      const types = await client.callTool({ name: "code_types", arguments: {} }, undefined, requestOptions)
      assert.match(text(types), /echo\(args: \{\s*\/\*\* The text to send back\. \*\/\s*readonly text: string/)

      const saved = await client.callTool(
        {
          name: "code_save",
          arguments: {
            name: "words:shout",
            description: "Echoes a word in capitals.",
            inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
            code: `return (await mcp.system.echo({ text: input.word.toUpperCase() })).text`
          }
        },
        undefined,
        requestOptions
      )
      assert.notStrictEqual(saved.isError, true, text(saved))

      const runaway = await client.callTool(
        { name: "code_run", arguments: { code: "while (true) {}" } },
        undefined,
        requestOptions
      )
      assert.isTrue(runaway.isError)
      assert.include(text(runaway), "200 ms of CPU time")
      const still = await client.callTool({ name: "system_echo", arguments: { text: "ok" } }, undefined, requestOptions)
      assert.deepStrictEqual(still.structuredContent, { text: "ok" })
    })

    const stored = readdirSync(join(state, "mcp-runtime", "code"))
    assert.strictEqual(stored.length, 1)
    assert.deepStrictEqual(readdirSync(join(state, "mcp-runtime", "code", stored[0]!)), ["words.shout.json"])

    await withClient(async (client) => {
      const tools = (await client.listTools(undefined, requestOptions)).tools.map((tool) => tool.name)
      assert.include(tools, "app_words_shout")
      const direct = await client.callTool(
        { name: "app_words_shout", arguments: { word: "hi" } },
        undefined,
        requestOptions
      )
      assert.strictEqual(text(direct), '"HI"')
      const fromCode = await client.callTool(
        { name: "code_run", arguments: { code: `return await mcp.words.shout({ word: "yo" })` } },
        undefined,
        requestOptions
      )
      assert.strictEqual((fromCode.structuredContent as any).value, "YO")
    })
  }, 60_000)
})
