/**
 * The benchmark's server on the official SDK's side: `McpServer` over stdio
 * with `bench_echo` and `BENCH_TOOLS` dummy tools `bench_dummy_<i>`, the same
 * public names and input/output schemas as `bench/effect-server.ts`. It runs
 * unbundled (Node strips the types of this one file; the SDK is plain JS).
 *
 * With `BENCH_TRANSPORT=http` it serves Streamable HTTP instead, as the SDK's
 * documentation shows for a stateful server on Node's HTTP server: one
 * `StreamableHTTPServerTransport` (`sessionIdGenerator: randomUUID`) and one
 * `McpServer` per session, found by `Mcp-Session-Id`, the POST body parsed
 * before it is handed over (as `express.json()` does in the SDK's examples),
 * plain `node:http` on 127.0.0.1 and a free port, endpoint `/mcp`. It prints
 * the endpoint's URL on stdout, one line. `BENCH_JSON_RESPONSE=1` sets
 * `enableJsonResponse: true` (answers as one JSON body); by default (false) the
 * SDK answers every request with an SSE stream. The HTTP modules are imported
 * only in that mode, so the stdio server's cold start is unchanged. SIGTERM
 * stops it (exit code 0).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as z from "zod"

const toolCount = Number(process.env.BENCH_TOOLS ?? "0")

const makeServer = (): McpServer => {
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
  return server
}

const transportMode = process.env.BENCH_TRANSPORT ?? "stdio"
if (transportMode === "stdio") {
  await makeServer().connect(new StdioServerTransport())
} else if (transportMode === "http") {
  await serveHttp(process.env.BENCH_JSON_RESPONSE === "1")
} else {
  throw new Error(`BENCH_TRANSPORT must be "stdio" or "http", not ${JSON.stringify(transportMode)}`)
}

async function serveHttp(enableJsonResponse: boolean): Promise<void> {
  const http = await import("node:http")
  const { randomUUID } = await import("node:crypto")
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js")
  const { isInitializeRequest } = await import("@modelcontextprotocol/sdk/types.js")

  const transports = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>()

  const refuse = (response: Http.ServerResponse, status: number, message: string): void => {
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }))
  }

  const readJson = (request: Http.IncomingMessage): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        } catch (error) {
          reject(error)
        }
      })
      request.on("error", reject)
    })

  const handle = async (request: Http.IncomingMessage, response: Http.ServerResponse): Promise<void> => {
    if ((request.url ?? "").split("?")[0] !== "/mcp") return refuse(response, 404, "Not Found")
    const header = request.headers["mcp-session-id"]
    const sessionId = Array.isArray(header) ? header[0] : header
    const existing = sessionId === undefined ? undefined : transports.get(sessionId)
    if (request.method !== "POST") {
      if (existing === undefined) return refuse(response, 400, "Bad Request: no valid session id")
      return existing.handleRequest(request, response)
    }
    let body: unknown
    try {
      body = await readJson(request)
    } catch {
      return refuse(response, 400, "Parse error")
    }
    if (existing !== undefined) return existing.handleRequest(request, response, body)
    if (sessionId !== undefined || !isInitializeRequest(body)) {
      return refuse(response, 400, "Bad Request: no valid session id")
    }
    const transport: InstanceType<typeof StreamableHTTPServerTransport> = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse,
      onsessioninitialized: (id) => {
        transports.set(id, transport)
      }
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId)
    }
    await makeServer().connect(transport)
    return transport.handleRequest(request, response, body)
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      process.stderr.write(`sdk-server: ${String(error)}\n`)
      if (!response.headersSent) refuse(response, 500, "Internal error")
    })
  })
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve))
  const address = server.address() as AddressInfo
  process.stdout.write(`http://127.0.0.1:${address.port}/mcp\n`)
  // Exit normally on SIGTERM (as ours does), so that `--cpu-prof` writes its profile.
  process.once("SIGTERM", () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
