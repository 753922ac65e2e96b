/**
 * The benchmark's server on the official SDK's side: `McpServer` over stdio
 * with `bench_echo` and `BENCH_TOOLS` dummy tools `bench_dummy_<i>`, the same
 * public names and input/output schemas as `bench/effect-server.ts`. It runs
 * unbundled (Node strips the types of this one file; the SDK is plain JS).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as z from "zod"

const toolCount = Number(process.env.BENCH_TOOLS ?? "0")

const server = new McpServer({ name: "sdk-bench", version: "0.1.0" })

server.registerTool(
  "bench_echo",
  {
    title: "Echo",
    description: "Returns the given text unchanged.",
    inputSchema: { text: z.string().describe("The text to send back.") },
    outputSchema: { text: z.string().describe("The same text.") },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
  },
  ({ text }) => {
    const structuredContent = { text }
    return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
  }
)

for (let i = 0; i < toolCount; i++) {
  server.registerTool(
    `bench_dummy_${i}`,
    {
      title: `Dummy ${i}`,
      description: `Dummy tool number ${i}: returns its text unchanged. It exists to make tools/list long.`,
      inputSchema: { text: z.string().describe("Any text.") },
      outputSchema: { text: z.string().describe("The same text.") },
      annotations: { readOnlyHint: true }
    },
    ({ text }) => {
      const structuredContent = { text }
      return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent }
    }
  )
}

await server.connect(new StdioServerTransport())
