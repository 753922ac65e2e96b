// Part of the stdio conformance harness (see run.ts): stands in for the SDK's
// StreamableHTTPClientTransport inside the conformance package, so that each
// scenario's client launches the server over stdio instead of connecting to a
// URL. The command comes from MCP_STDIO_COMMAND (a JSON array).
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

export class StreamableHTTPClientTransport extends StdioClientTransport {
  constructor() {
    const [command, ...args] = JSON.parse(process.env.MCP_STDIO_COMMAND ?? "[]")
    super({ command, args, stderr: process.env.MCP_STDIO_STDERR === "inherit" ? "inherit" : "ignore" })
  }
}
