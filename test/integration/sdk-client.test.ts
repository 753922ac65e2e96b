/**
 * The built binary driven by the official TypeScript SDK client over stdio,
 * once per supported protocol revision.
 *
 * The SDK client always asks for its latest revision, so the transport below
 * rewrites the `protocolVersion` of the outgoing `initialize` request, and
 * records the negotiated version through the SDK's own `setProtocolVersion`
 * transport hook.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type JSONRPCMessage, McpError } from "@modelcontextprotocol/sdk/types.js"
import { assertBuilt, revisions, serveArgs } from "./ServerProcess.ts"
import { packageVersion } from "../../src/ServerConfig.ts"

beforeAll(assertBuilt)

const requestOptions = { timeout: 5_000 }

/** A stdio client transport that asks for a chosen protocol version. */
class VersionedStdioTransport extends StdioClientTransport {
  negotiatedVersion: string | undefined
  readonly stderrText: Array<string> = []
  private readonly requestedVersion: string

  constructor(requestedVersion: string) {
    super({ command: process.execPath, args: serveArgs(), stderr: "pipe" })
    this.requestedVersion = requestedVersion
    this.stderr?.on("data", (chunk: Buffer) => this.stderrText.push(chunk.toString("utf8")))
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if ("method" in message && message.method === "initialize" && "id" in message) {
      return super.send({ ...message, params: { ...message.params, protocolVersion: this.requestedVersion } })
    }
    return super.send(message)
  }

  setProtocolVersion = (version: string): void => {
    this.negotiatedVersion = version
  }
}

const withClient = async <A>(
  requestedVersion: string,
  body: (client: Client, transport: VersionedStdioTransport) => Promise<A>
): Promise<A> => {
  const transport = new VersionedStdioTransport(requestedVersion)
  const client = new Client({ name: "sdk-integration-test", version: "1.0.0" })
  try {
    await client.connect(transport, requestOptions)
    return await body(client, transport)
  } catch (error) {
    if (error instanceof Error) error.message += `\nserver stderr:\n${transport.stderrText.join("")}`
    throw error
  } finally {
    await client.close()
  }
}

const hasStructuredContent = (version: string) => version >= "2025-06-18"
const hasAnnotations = (version: string) => version >= "2025-03-26"

describe("SDK client over stdio", () => {
  for (const version of revisions) {
    describe(`protocol ${version}`, () => {
      it("negotiates the requested version and reports the server's identity", () =>
        withClient(version, async (client, transport) => {
          assert.strictEqual(transport.negotiatedVersion, version)
          assert.deepStrictEqual(client.getServerVersion(), { name: "mcp-runtime", version: packageVersion })
          assert.deepStrictEqual(client.getServerCapabilities(), { logging: {}, tools: { listChanged: true } })
          assert.include(client.getInstructions(), "system_info")
          await client.ping(requestOptions)
        }))

      it("lists the system tools in the revision's shape", () =>
        withClient(version, async (client) => {
          const { nextCursor, tools } = await client.listTools(undefined, requestOptions)
          assert.isUndefined(nextCursor)
          assert.deepStrictEqual(
            tools.map((tool) => tool.name),
            ["system_info", "system_time", "system_echo"]
          )
          for (const tool of tools) {
            assert.strictEqual(tool.inputSchema.type, "object", tool.name)
            assert.isString(tool.description, tool.name)
            if (hasAnnotations(version)) assert.isObject(tool.annotations, tool.name)
            else assert.isUndefined(tool.annotations, tool.name)
            if (hasStructuredContent(version)) {
              assert.isString(tool.title, tool.name)
              assert.isObject(tool.outputSchema, tool.name)
            } else {
              assert.isUndefined(tool.title, tool.name)
              assert.isUndefined(tool.outputSchema, tool.name)
            }
          }
          const echo = tools.find((tool) => tool.name === "system_echo")!
          assert.deepStrictEqual(echo.inputSchema.required, ["text"])
          assert.strictEqual((echo.inputSchema.properties as any).text.type, "string")
        }))

      it("calls system_echo: a text copy always, structuredContent from 2025-06-18", () =>
        withClient(version, async (client) => {
          // Listing first lets the SDK validate structuredContent against the outputSchema.
          await client.listTools(undefined, requestOptions)
          const text = "hello, wörld 🌍"
          const result = await client.callTool({ name: "system_echo", arguments: { text } }, undefined, requestOptions)
          assert.notStrictEqual(result.isError, true)
          assert.deepStrictEqual(result.content, [{ type: "text", text: JSON.stringify({ text }) }])
          if (hasStructuredContent(version)) assert.deepStrictEqual(result.structuredContent, { text })
          else assert.isUndefined(result.structuredContent)
        }))

      it("calls system_time and system_info", () =>
        withClient(version, async (client) => {
          const time = await client.callTool(
            { name: "system_time", arguments: { timeZone: "Europe/Paris" } },
            undefined,
            requestOptions
          )
          assert.notStrictEqual(time.isError, true)
          const now = JSON.parse((time.content as any)[0].text)
          assert.strictEqual(now.timeZone, "Europe/Paris")
          assert.match(now.local, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
          assert.isBelow(Math.abs(now.epochMs - Date.now()), 60_000)
          const info = await client.callTool({ name: "system_info" }, undefined, requestOptions)
          const described = JSON.parse((info.content as any)[0].text)
          assert.strictEqual(described.protocolVersion, version)
          assert.deepStrictEqual(
            described.capabilities.map((c: any) => c.id),
            ["system"]
          )
        }))

      it("bad arguments give an isError result naming the field", () =>
        withClient(version, async (client) => {
          await client.listTools(undefined, requestOptions)
          for (const args of [{ text: 42 }, {}]) {
            const result = await client.callTool({ name: "system_echo", arguments: args }, undefined, requestOptions)
            assert.strictEqual(result.isError, true, JSON.stringify(result))
            assert.isUndefined(result.structuredContent)
            const message = (result.content as any)[0].text as string
            assert.include(message, "system_echo")
            assert.match(message, /\btext\b/)
          }
        }))

      it("an unknown tool is a -32602 protocol error", () =>
        withClient(version, async (client) => {
          let thrown: unknown
          try {
            await client.callTool({ name: "system_nope", arguments: {} }, undefined, requestOptions)
          } catch (error) {
            thrown = error
          }
          assert.instanceOf(thrown, McpError)
          assert.strictEqual((thrown as McpError).code, -32602)
          assert.include((thrown as McpError).message, "system_nope")
          await client.ping(requestOptions)
        }))

      it("system_time with an unknown time zone gives an isError result with a suggestion", () =>
        withClient(version, async (client) => {
          await client.listTools(undefined, requestOptions)
          const result = await client.callTool(
            { name: "system_time", arguments: { timeZone: "Mars/Olympus_Mons" } },
            undefined,
            requestOptions
          )
          assert.strictEqual(result.isError, true, JSON.stringify(result))
          assert.isUndefined(result.structuredContent)
          const message = (result.content as any)[0].text as string
          assert.include(message, "Mars/Olympus_Mons")
          assert.include(message, "Suggestion:")
        }))
    })
  }

  it("an unsupported requested version is answered with 2025-11-25", () =>
    withClient("1999-01-01", async (client, transport) => {
      assert.strictEqual(transport.negotiatedVersion, "2025-11-25")
      assert.deepStrictEqual(client.getServerVersion(), { name: "mcp-runtime", version: packageVersion })
      const { tools } = await client.listTools(undefined, requestOptions)
      assert.strictEqual(tools.length, 3)
    }))
})
