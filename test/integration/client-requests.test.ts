/**
 * Requests from the server to the client, with the official SDK client over
 * stdio against a real server process (`test/fixtures/policy-server.ts`):
 * elicitation accepted, declined, and not supported; sampling; roots.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as path from "node:path"

const fixture = path.resolve(import.meta.dirname, "..", "fixtures", "policy-server.ts")

const withClient = async (capabilities: ClientCapabilities, body: (client: Client) => Promise<void>) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: "pipe" })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  const client = new Client({ name: "client-requests-test", version: "1.0.0" }, { capabilities })
  try {
    await client.connect(transport, { timeout: 10_000 })
    await body(client)
  } catch (error) {
    if (error instanceof Error) error.message += `\nserver stderr:\n${stderr.join("")}`
    throw error
  } finally {
    await client.close()
  }
}

const textOf = (result: any): string => result.content[0].text

describe("requests to the client, with the SDK client", () => {
  it("elicitation: the SDK renders the form request; accepted and declined answers reach the tool", () =>
    withClient({ elicitation: {} }, async (client) => {
      const seen: Array<any> = []
      let answer: "accept" | "decline" = "accept"
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        seen.push(request.params)
        return answer === "accept" ? { action: "accept", content: { name: "Ada", color: "blue" } } : { action: answer }
      })
      const accepted = await client.callTool({ name: "fixture_ask", arguments: {} })
      assert.deepStrictEqual(JSON.parse(textOf(accepted)), {
        action: "accept",
        content: { name: "Ada", color: "blue" }
      })
      assert.strictEqual(seen[0].message, "Who are you?")
      assert.deepStrictEqual(seen[0].requestedSchema.required, ["name"])
      assert.deepStrictEqual(seen[0].requestedSchema.properties.color.enum, ["red", "blue"])

      answer = "decline"
      const declined = await client.callTool({ name: "fixture_ask", arguments: {} })
      assert.deepStrictEqual(JSON.parse(textOf(declined)), { action: "decline" })
    }))

  it("elicitation with a client that does not support it: an error result at once, no request", () =>
    withClient({}, async (client) => {
      const result = await client.callTool({ name: "fixture_ask", arguments: {} })
      assert.strictEqual(result.isError, true)
      assert.include(textOf(result), "did not declare the elicitation capability")
      assert.deepInclude(result._meta?.["effect-mcp-runtime/error"] as object, { code: "ClientCapabilityMissing" })
    }))

  it("sampling and roots answered by the SDK client's handlers", () =>
    withClient({ sampling: {}, roots: { listChanged: true } }, async (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        role: "assistant",
        content: {
          type: "text",
          text: `hello (${(request.params.messages[0]!.content as { text: string }).text})`
        },
        model: "sdk-test-model"
      }))
      client.setRequestHandler(ListRootsRequestSchema, async () => ({
        roots: [{ uri: "file:///tmp/project", name: "project" }]
      }))
      const sampled = JSON.parse(textOf(await client.callTool({ name: "fixture_sample", arguments: {} })))
      assert.deepStrictEqual(sampled, {
        role: "assistant",
        content: { type: "text", text: "hello (Say hello)" },
        model: "sdk-test-model"
      })
      const roots = JSON.parse(textOf(await client.callTool({ name: "fixture_roots", arguments: {} })))
      assert.deepStrictEqual(roots, [{ uri: "file:///tmp/project", name: "project" }])
    }))
})

describe("prompts, with the SDK client", () => {
  it("lists and gets a prompt; the SDK validates both results", () =>
    withClient({}, async (client) => {
      assert.deepInclude(client.getServerCapabilities() ?? {}, { prompts: { listChanged: true } })
      const { prompts } = await client.listPrompts()
      assert.deepStrictEqual(prompts, [
        {
          name: "fixture_brief",
          title: "Write a brief",
          description: "Asks for a short brief on a topic.",
          arguments: [
            { name: "topic", description: "What the brief is about", required: true },
            { name: "length", description: "How long, in words" }
          ]
        }
      ])
      const result = await client.getPrompt({ name: "fixture_brief", arguments: { topic: "pipes", length: "50" } })
      assert.deepStrictEqual(result, {
        description: "A brief on pipes",
        messages: [
          { role: "user", content: { type: "text", text: "Write a brief on pipes in about 50 words." } },
          { role: "assistant", content: { type: "image", data: "aGk=", mimeType: "image/png" } }
        ]
      })
      const missing = await client.getPrompt({ name: "fixture_brief", arguments: {} }).then(
        () => "answered",
        (error: unknown) => String(error)
      )
      assert.include(missing, "-32602")
      assert.include(missing, "Missing required key")

      assert.deepInclude(client.getServerCapabilities() ?? {}, { completions: {} })
      const completed = await client.complete({
        ref: { type: "ref/prompt", name: "fixture_brief" },
        argument: { name: "topic", value: "p" }
      })
      assert.deepStrictEqual(completed.completion, { values: ["pipes", "pumps"] })
    }))
})
