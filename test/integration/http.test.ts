/**
 * Streamable HTTP against real server processes: the built binary
 * (`serve --transport http --port 0`) and the test fixture
 * (`FIXTURE_TRANSPORT=http`), driven by the official SDK client and by raw
 * `fetch` / `node:http`. Each process is shared by the tests of its block;
 * every test works in a session of its own.
 */
import { assert, afterAll, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { connect } from "node:net"
import type * as HttpTransport from "../../layers/HttpTransport.ts"
import * as Capability from "../../src/Capability.ts"
import * as Tool from "../../src/Tool.ts"
import {
  binaryArgs,
  fixturePath,
  type HttpProcess,
  initialize,
  messageOf,
  post,
  rawRequest,
  readEvents,
  startHttp
} from "./HttpProcess.ts"
import { spawn } from "node:child_process"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"
import { serveInProcess as serveShared } from "../support/httpInProcess.ts"

const ping = (id: number | string = 1) => ({ jsonrpc: "2.0", id, method: "ping" })

/**
 * Resumes a stream right after the test dropped its connection: until the
 * server has seen the drop, the stream is still attached (409), so retry.
 */
const resume = async (url: string, session: string, lastEventId: string): Promise<Response> => {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, {
      headers: { accept: "text/event-stream", "mcp-session-id": session, "last-event-id": lastEventId }
    })
    if (response.status !== 409 || attempt === 40) return response
    await response.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The body of a refusal: a JSON-RPC error with no id unless given. */
const assertRefusal = async (
  response: Response | { readonly status: number; readonly body: string },
  status: number,
  text: string,
  code = -32000
): Promise<any> => {
  assert.strictEqual(response.status, status)
  const body: any = response instanceof Response ? await response.json() : JSON.parse(response.body)
  assert.strictEqual(body.jsonrpc, "2.0")
  assert.strictEqual(body.error.code, code)
  assert.include(body.error.message, text)
  return body
}

/** Runs the binary with `args` to its exit. */
const runToExit = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("exit", (code) => resolve({ code, stderr }))
  })

/** The server still answers: a fresh session pings. */
const assertServes = async (url: string) => {
  const session = await initialize(url)
  const response = await post(url, ping(7), { "mcp-session-id": session })
  assert.strictEqual(response.status, 200)
  assert.deepStrictEqual(await response.json(), { jsonrpc: "2.0", id: 7, result: {} })
}

describe("Streamable HTTP: the binary", () => {
  let server: HttpProcess
  beforeAll(async () => {
    assertBuilt()
    server = await startHttp(
      binaryArgs([
        "--max-message-bytes",
        "4096",
        "--allowed-hosts",
        "mcp.test",
        "--allowed-origins",
        "https://app.test"
      ])
    )
  })
  afterAll(() => server?.stop())

  it("logs the URL it listens on, with the real port", () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    assert.notInclude(server.url, ":0/")
  })

  it("the SDK client initializes, lists and calls tools, and terminates its session (then 404)", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url))
    const client = new Client({ name: "http-test", version: "1.0.0" })
    await client.connect(transport)
    try {
      const session = transport.sessionId
      assert.match(session ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.strictEqual(transport.protocolVersion, "2025-11-25")
      const { tools } = await client.listTools()
      assert.includeMembers(
        tools.map((tool) => tool.name),
        ["system_echo", "system_info", "system_time"]
      )
      const result = await client.callTool({ name: "system_echo", arguments: { text: "over http" } })
      assert.deepStrictEqual(result.structuredContent, { text: "over http" })
      await client.ping()
      await transport.terminateSession()
      assert.isUndefined(transport.sessionId)
      await assertRefusal(
        await post(server.url, ping(), { "mcp-session-id": session! }),
        404,
        "Session not found",
        -32001
      )
      // The session's end is logged, by a label that is not the whole id.
      const ended = await server.waitForLog(
        (line) => line.message === "http session ended" && line.annotations.session === session!.slice(0, 8)
      )
      assert.strictEqual(ended.annotations.reason, "deleted")
      assert.strictEqual(ended.annotations.session, session!.slice(0, 8))
    } finally {
      await client.close()
    }
  })

  it("a port in use: exit 1 with a clear message; an HTTP flag without --transport http: exit 2", async () => {
    const port = new URL(server.url).port
    const run = runToExit
    const busy = await run([binaryPath, "serve", "--transport", "http", "--port", port])
    assert.strictEqual(busy.code, 1)
    assert.include(busy.stderr, `cannot listen on 127.0.0.1:${port}: EADDRINUSE`)
    const misuse = await run([binaryPath, "serve", "--port", "3000"])
    assert.strictEqual(misuse.code, 2)
    assert.include(misuse.stderr, "--port applies to --transport http only")
  })

  it("an --allowed-hosts or --allowed-origins entry of the wrong form: exit 2, naming it and the expected form", async () => {
    const [host, origin] = await Promise.all([
      runToExit(binaryArgs(["--allowed-hosts", "mcp.test,https://mcp.test"])),
      runToExit(binaryArgs(["--allowed-origins", "https://app.test,app.test"]))
    ])
    assert.strictEqual(host.code, 2)
    assert.include(host.stderr, '--allowed-hosts \\"https://mcp.test\\": expected a host name or IP address')
    assert.strictEqual(origin.code, 2)
    assert.include(origin.stderr, '--allowed-origins \\"app.test\\": expected scheme://host[:port]')
  })

  it("--host with an address: its URL works; --host 0.0.0.0: a loopback URL and a warning, other Hosts refused", async () => {
    const [specific, wildcard] = await Promise.all([
      startHttp(binaryArgs(["--host", "127.0.0.2"])),
      startHttp(binaryArgs(["--host", "0.0.0.0"]))
    ])
    try {
      // The bound address is accepted as Host (fetch sends 127.0.0.2:port), with or without the port.
      assert.match(specific.url, /^http:\/\/127\.0\.0\.2:\d+\/mcp$/)
      await assertServes(specific.url)
      const body = JSON.stringify(ping())
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
      const bare = await rawRequest(specific.url, { method: "POST", headers: { ...headers, host: "127.0.0.2" }, body })
      assert.notStrictEqual(bare.status, 403)

      assert.match(wildcard.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      await assertServes(wildcard.url)
      const warning = await wildcard.waitForLog(
        (line) => line.level === "WARN" && String(line.message).includes("--allowed-hosts")
      )
      assert.include(warning.message, "--allowed-hosts")
      // Reachable from other machines without authorization: said at start.
      const open = await wildcard.waitForLog(
        (line) => line.level === "WARN" && String(line.message).includes("without authorization")
      )
      assert.include(open.message, "--auth-issuer")
      const port = new URL(wildcard.url).port
      for (const host of [`0.0.0.0:${port}`, `192.168.1.20:${port}`]) {
        const refused = await rawRequest(wildcard.url, { method: "POST", headers: { ...headers, host }, body })
        await assertRefusal(refused, 403, "is not allowed", -32000)
      }
      assert.isFalse(specific.stderrLines().some((line) => line.includes('"level":"WARN"')))
    } finally {
      await Promise.all([specific.stop(), wildcard.stop()])
    }
  })

  it("SIGTERM with a GET stream open and a request in flight: 503 for new requests, the answer, exit 0", async () => {
    const draining = await startHttp([
      binaryPath,
      "serve",
      "--capabilities",
      "conformance",
      "--transport",
      "http",
      "--port",
      "0",
      "--shutdown-grace-ms",
      "3000"
    ])
    try {
      const session = await initialize(draining.url)
      const get = await fetch(draining.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
      const standalone = readEvents(get)
      assert.strictEqual((await standalone.next())?.data, "") // priming
      const call = await post(
        draining.url,
        {
          jsonrpc: "2.0",
          id: 5,
          method: "tools/call",
          params: { name: "test_tool_with_progress", arguments: {}, _meta: { progressToken: "t" } }
        },
        { "mcp-session-id": session }
      )
      const inFlight = readEvents(call)
      await inFlight.until((event) => messageOf(event)?.method === "notifications/progress")
      const from = draining.mark()
      const exited = draining.terminate("SIGTERM", 5_000)
      await draining.waitForLog((line) => line.message?.startsWith("http server shutting down"), 3_000, from)
      await assertRefusal(await post(draining.url, ping(8), { "mcp-session-id": session }), 503, "shutting down")
      // The request in flight finishes within the grace period, and its answer arrives.
      const rest = await inFlight.until((event) => messageOf(event)?.id === 5)
      assert.deepStrictEqual(messageOf(rest.at(-1)!).result.content, [{ type: "text", text: "t" }])
      assert.strictEqual(await inFlight.next(), undefined)
      assert.strictEqual(await standalone.next(), undefined) // the GET stream ends
      const exit = await exited
      assert.deepStrictEqual([exit.code, exit.signal], [0, null])
      assert.isBelow(exit.ms, 2_000)
      assert.strictEqual(draining.stdout(), "")
      const ended = await draining.waitForLog((line) => line.message === "http session ended", 1_000, from)
      assert.strictEqual(ended.annotations.reason, "shutdown")
    } finally {
      await draining.stop()
    }
  })

  it("a session with nothing going on for --session-idle-ms expires (then 404)", async () => {
    const idle = await startHttp(binaryArgs(["--session-idle-ms", "300"]))
    try {
      const session = await initialize(idle.url)
      const ended = await idle.waitForLog((line) => line.message === "http session ended", 3_000)
      assert.strictEqual(ended.annotations.reason, "idle")
      assert.isAtLeast(ended.annotations.duration_ms, 300)
      await assertRefusal(await post(idle.url, ping(), { "mcp-session-id": session }), 404, "Session not found", -32001)
    } finally {
      await idle.stop()
    }
  })

  it("a notification or a response alone gets 202 Accepted", async () => {
    const session = await initialize(server.url)
    const notification = await post(
      server.url,
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      { "mcp-session-id": session }
    )
    assert.strictEqual(notification.status, 202)
    assert.strictEqual(await notification.text(), "")
    const answer = await post(server.url, { jsonrpc: "2.0", id: "s-99", result: {} }, { "mcp-session-id": session })
    assert.strictEqual(answer.status, 202)
  })

  describe("bad input gets the right status and a clear body, and the server keeps serving", () => {
    it("a Content-Type other than JSON: 415", async () => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" },
        body: JSON.stringify(ping())
      })
      const body = await assertRefusal(response, 415, "Content-Type must be application/json")
      assert.isNull(body.id)
      await assertServes(server.url)
    })

    it("an Accept without text/event-stream: 406 (POST and GET)", async () => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(ping())
      })
      const body = await assertRefusal(response, 406, "Accept must list both application/json and text/event-stream")
      assert.isNull(body.id)
      const session = await initialize(server.url)
      const get = await fetch(server.url, { headers: { accept: "application/json", "mcp-session-id": session } })
      await assertRefusal(get, 406, "Accept must list text/event-stream")
      await assertServes(server.url)
    })

    it("a request without a session: 400; an unknown session: 404", async () => {
      // A legacy client (its MCP-Protocol-Version names a revision with sessions) is told to initialize.
      const missing = await assertRefusal(
        await post(server.url, ping(), { "mcp-protocol-version": "2025-11-25" }),
        400,
        "Mcp-Session-Id header is required"
      )
      assert.isNull(missing.id)
      // Anything else without a session is a request of protocol 2026-07-28, which carries its own _meta.
      const modern = await assertRefusal(await post(server.url, ping()), 400, "params._meta is missing", -32602)
      assert.include(modern.error.message, "initialize")
      assert.strictEqual(modern.id, 1)
      await assertRefusal(
        await post(server.url, ping(), { "mcp-session-id": "no-such-session" }),
        404,
        "Session not found",
        -32001
      )
      await assertRefusal(
        await fetch(server.url, { headers: { accept: "text/event-stream", "mcp-session-id": "nope" } }),
        404,
        "Session not found",
        -32001
      )
      await assertServes(server.url)
    })

    it("an unsupported MCP-Protocol-Version: 400; an absent one or another supported one is accepted", async () => {
      const session = await initialize(server.url)
      await assertRefusal(
        await post(server.url, ping(), { "mcp-session-id": session, "mcp-protocol-version": "1999-01-01" }),
        400,
        'unsupported MCP-Protocol-Version "1999-01-01"'
      )
      for (const headers of [{}, { "mcp-protocol-version": "2025-03-26" }]) {
        const response = await post(server.url, ping(2), { "mcp-session-id": session, ...headers })
        assert.strictEqual(response.status, 200)
      }
    })

    it("a body over --max-message-bytes: 413 with a JSON-RPC error, whether its length is declared or not", async () => {
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(5000) } })
      const declared = await assertRefusal(await post(server.url, big), 413, "exceeds the limit of 4096 bytes", -32600)
      assert.include(declared.error.message, `message of ${new TextEncoder().encode(big).length} bytes`)
      // Chunked: the size is only known while reading.
      const chunked = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(big))
            controller.close()
          }
        }),
        duplex: "half"
      } as RequestInit)
      await assertRefusal(chunked, 413, "exceeds the limit of 4096 bytes", -32600)
      await assertServes(server.url)
    })

    it("a foreign Origin: 403; a loopback or listed one is accepted", async () => {
      await assertRefusal(
        await post(server.url, ping(), { origin: "https://evil.example.com" }),
        403,
        'Origin "https://evil.example.com" is not allowed'
      )
      await assertRefusal(await post(server.url, ping(), { origin: "null" }), 403, "is not allowed")
      for (const origin of ["http://localhost:5173", "https://app.test"]) {
        const session = await initialize(server.url)
        const response = await post(server.url, ping(), { "mcp-session-id": session, origin })
        assert.strictEqual(response.status, 200, origin)
      }
      await assertServes(server.url)
    })

    it("a foreign Host (DNS rebinding): 403; a loopback or listed one is accepted", async () => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "rebinding", version: "1" } }
      })
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
      const foreign = await rawRequest(server.url, {
        method: "POST",
        headers: { ...headers, host: "evil.example.com", origin: "http://evil.example.com" },
        body
      })
      await assertRefusal(foreign, 403, 'Host "evil.example.com" is not allowed')
      const port = new URL(server.url).port
      for (const host of [`localhost:${port}`, `[::1]:${port}`, "mcp.test"]) {
        const accepted = await rawRequest(server.url, { method: "POST", headers: { ...headers, host }, body })
        assert.strictEqual(accepted.status, 200, host)
        assert.isString(accepted.headers["mcp-session-id"])
      }
      const rejected = await server.waitForLog(
        (line) => line.message === "http request rejected" && line.annotations.status === 403
      )
      assert.strictEqual(rejected.level, "WARN")
      await assertServes(server.url)
    })

    it("malformed JSON: 400 with -32700; an invalid envelope: 400 with -32600", async () => {
      const session = await initialize(server.url)
      await assertRefusal(
        await post(server.url, '{"jsonrpc":', { "mcp-session-id": session }),
        400,
        "not valid JSON",
        -32700
      )
      const invalid = await assertRefusal(
        await post(server.url, { jsonrpc: "1.0", id: 5, method: "ping" }, { "mcp-session-id": session }),
        400,
        '"jsonrpc" must be "2.0"',
        -32600
      )
      assert.strictEqual(invalid.id, 5)
      await assertServes(server.url)
    })

    it("a method other than GET, POST, DELETE: 405 with Allow", async () => {
      for (const method of ["PUT", "PATCH"]) {
        const response = await fetch(server.url, { method })
        assert.strictEqual(response.headers.get("allow"), "GET, POST, DELETE")
        await assertRefusal(response, 405, "Method Not Allowed")
      }
      await assertServes(server.url)
    })

    it("another path: 404", async () => {
      const body = await assertRefusal(
        await post(server.url.replace(/\/mcp$/, "/other"), ping()),
        404,
        "the MCP endpoint is /mcp"
      )
      assert.isNull(body.id)
    })

    it("a second initialize on a session: 400; batches only in 2025-03-26", async () => {
      const session = await initialize(server.url)
      await assertRefusal(
        await post(
          server.url,
          {
            jsonrpc: "2.0",
            id: 9,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "again", version: "1" } }
          },
          { "mcp-session-id": session }
        ),
        400,
        "already initialized",
        -32600
      )
      await assertRefusal(
        await post(server.url, [ping(1), ping(2)], { "mcp-session-id": session }),
        400,
        "batches are not part of protocol version 2025-11-25",
        -32600
      )
      const old = await initialize(server.url, "2025-03-26")
      const batch = await post(server.url, [ping(1), ping("two")], { "mcp-session-id": old })
      assert.strictEqual(batch.status, 200)
      assert.deepStrictEqual(await batch.json(), [
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: "two", result: {} }
      ])
      await assertRefusal(
        await post(server.url, [ping(3), { jsonrpc: "2.0", id: 4, method: "initialize", params: {} }], {
          "mcp-session-id": old
        }),
        400,
        "initialize must not be part of a batch",
        -32600
      )
    })

    it("a second GET stream on a session: 409; a Last-Event-ID of no stream: 400", async () => {
      const session = await initialize(server.url)
      const headers = { accept: "text/event-stream", "mcp-session-id": session }
      const first = await fetch(server.url, { headers })
      assert.strictEqual(first.headers.get("content-type"), "text/event-stream")
      await assertRefusal(await fetch(server.url, { headers }), 409, "a GET stream is already open")
      await assertRefusal(
        await fetch(server.url, { headers: { ...headers, "last-event-id": "42-1" } }),
        400,
        "names no stream that can be resumed"
      )
      await first.body?.cancel()
    })
  })
})

describe("Streamable HTTP, 2026-07-28: instances that share MCP_RUNTIME_STATE_KEY serve one another's rounds", () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "http-test", version: "1.0.0" }
  }
  const call = async (url: string, params: Record<string, unknown>): Promise<any> => {
    const response = await post(
      url,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: meta } },
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": String(params.name)
      }
    )
    return { status: response.status, body: await response.json() }
  }
  const key = (tag: string) => `${tag}-0123456789abcdef0123456789abcdef`
  const start = (stateKey: string) =>
    startHttp(
      binaryArgs(["--audit-log", "off"]).map((arg) => (arg === "system" ? "conformance" : arg)),
      {
        MCP_RUNTIME_STATE_KEY: stateKey
      }
    )

  it("a round asked by one instance is completed by another with the same key, refused by one without it", async () => {
    const [a, b, c] = await Promise.all([start(key("one")), start(`${key("two")},${key("one")}`), start(key("three"))])
    try {
      const name = "test_input_required_result_elicitation"
      const first = await call(a.url, { name })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.body.result.resultType, "input_required", JSON.stringify(first.body))
      const retry = {
        name,
        inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
        requestState: first.body.result.requestState
      }
      // b seals with another key and keeps a's for rotation: it opens a's state.
      const onB = await call(b.url, retry)
      assert.strictEqual(onB.body.result?.resultType, "complete", JSON.stringify(onB.body))
      assert.strictEqual(onB.body.result.content[0].text, "Hello, Ada!")
      const onC = await call(c.url, retry)
      assert.strictEqual(onC.body.error?.code, -32602, JSON.stringify(onC.body))
      assert.strictEqual(onC.body.error.data.reason, "request_state_unknown_key")
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()])
    }
  })
})

describe("Streamable HTTP: the fixture (progress, requests to the client, streams, disconnection)", () => {
  let server: HttpProcess
  beforeAll(async () => {
    server = await startHttp([fixturePath], {
      FIXTURE_TRANSPORT: "http",
      FIXTURE_RESUME_GRACE_MS: "400",
      FIXTURE_LOG_LEVEL: "Info"
    })
  })
  afterAll(() => server?.stop())

  const call = (id: number, name: string, args: Record<string, unknown> = {}, progressToken?: string) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      ...(progressToken === undefined ? {} : { _meta: { progressToken } })
    }
  })

  const requestLine = (id: number, session: string) =>
    server.waitForLog(
      (line) =>
        line.message === "request" &&
        line.annotations.id === id &&
        line.annotations.session === session.slice(0, 8) &&
        line.annotations.method === "tools/call"
    )

  it("the SDK client gets progress over SSE", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url))
    const client = new Client({ name: "http-progress", version: "1.0.0" })
    await client.connect(transport)
    try {
      const seen: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
      const result = await client.callTool(
        { name: "fixture_steps", arguments: { count: 3, pauseMs: 120 } },
        undefined,
        { onprogress: (progress) => void seen.push(progress) }
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "3 steps" }])
      assert.deepStrictEqual(
        seen.map((progress) => progress.progress),
        [1, 2, 3]
      )
      assert.strictEqual(seen[0]!.message, "step 1 of 3")
    } finally {
      await client.close()
    }
  })

  it("an elicitation request reaches the SDK client, and its answer gets back to the tool", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url))
    const client = new Client({ name: "http-elicitation", version: "1.0.0" }, { capabilities: { elicitation: {} } })
    const asked: Array<string> = []
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message)
      return { action: "accept", content: { name: "Ada", color: "red" } }
    })
    await client.connect(transport)
    try {
      const result = await client.callTool({ name: "fixture_ask", arguments: {} })
      assert.deepStrictEqual(asked, ["Who are you?"])
      assert.deepStrictEqual(JSON.parse((result.content as Array<{ text: string }>)[0]!.text), {
        action: "accept",
        content: { name: "Ada", color: "red" }
      })
    } finally {
      await client.close()
    }
  })

  it("a 2025-11-25 SSE response starts with a priming event; event ids name the stream", async () => {
    const session = await initialize(server.url)
    const response = await post(server.url, call(1, "fixture_steps", { count: 2, pauseMs: 1 }, "p1"), {
      "mcp-session-id": session
    })
    assert.strictEqual(response.status, 200)
    assert.strictEqual(response.headers.get("content-type"), "text/event-stream")
    const events = readEvents(response)
    const priming = await events.next()
    assert.strictEqual(priming?.data, "")
    assert.match(priming?.id ?? "", /^[1-9]\d*-1$/)
    assert.strictEqual(priming?.retry, 1000)
    const rest = await events.until((event) => messageOf(event)?.id === 1)
    assert.deepStrictEqual(
      rest.map((event) => messageOf(event).method ?? "response"),
      ["notifications/progress", "notifications/progress", "response"]
    )
    const stream = priming!.id!.split("-")[0]
    assert.deepStrictEqual(
      rest.map((event) => event.id),
      [2, 3, 4].map((seq) => `${stream}-${seq}`)
    )
    assert.strictEqual(await events.next(), undefined) // ends after the response
  })

  it("before 2025-11-25 there is no priming event; a request with nothing before its response gets JSON", async () => {
    const session = await initialize(server.url, "2025-06-18")
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }
    const streamed = await post(server.url, call(1, "fixture_steps", { count: 1, pauseMs: 1 }, "p"), headers)
    const events = readEvents(streamed)
    const first = await events.next()
    assert.strictEqual(messageOf(first!).method, "notifications/progress")
    assert.isString(first!.id)
    assert.isUndefined(first!.retry)
    const plain = await post(server.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers)
    assert.strictEqual(plain.headers.get("content-type"), "application/json")
    assert.strictEqual(((await plain.json()) as any).id, 2)
  })

  it("a GET stream receives a server-initiated notification, which goes on no other stream", async () => {
    const session = await initialize(server.url)
    const get = await fetch(server.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
    assert.strictEqual(get.status, 200)
    const events = readEvents(get)
    const priming = await events.next()
    assert.strictEqual(priming?.data, "")
    assert.match(priming?.id ?? "", /^0-\d+$/)
    const response = await post(server.url, call(1, "fixture_announce"), { "mcp-session-id": session })
    // The request's own answer is plain JSON: the notification is not on its POST.
    assert.strictEqual(response.headers.get("content-type"), "application/json")
    assert.match(((await response.json()) as any).result.content[0].text, /_extra\d+$/)
    const notification = (await events.until((event) => event.data !== "")).at(-1)
    assert.deepStrictEqual(messageOf(notification!), { jsonrpc: "2.0", method: "notifications/tools/list_changed" })
    assert.match(notification!.id ?? "", /^0-\d+$/)
    await events.cancel()
  })

  it("a dropped SSE stream resumed with Last-Event-ID in time replays what was missed and completes", async () => {
    const session = await initialize(server.url)
    const abort = new AbortController()
    const response = await post(
      server.url,
      call(41, "fixture_steps", { count: 4, pauseMs: 100 }, "r"),
      { "mcp-session-id": session },
      abort.signal
    )
    const events = readEvents(response)
    const seen = await events.until((event) => messageOf(event)?.method === "notifications/progress")
    const lastId = seen.at(-1)!.id!
    abort.abort()
    const resumed = await resume(server.url, session, lastId)
    assert.strictEqual(resumed.status, 200)
    const rest = await readEvents(resumed).until((event) => messageOf(event)?.id === 41)
    const messages = rest.map(messageOf).filter((message) => message !== undefined)
    assert.deepStrictEqual(
      messages.filter((message) => message.method === "notifications/progress").map((m) => m.params.progress),
      [2, 3, 4]
    )
    assert.deepStrictEqual(messages.at(-1).result.content, [{ type: "text", text: "4 steps" }])
    assert.strictEqual((await requestLine(41, session)).annotations.outcome, "ok")
  })

  it("a dropped SSE stream not resumed within the grace period has its request cancelled", async () => {
    const session = await initialize(server.url)
    const abort = new AbortController()
    const response = await post(
      server.url,
      call(51, "fixture_steps", { count: 50, pauseMs: 100 }, "c"),
      { "mcp-session-id": session },
      abort.signal
    )
    const seen = await readEvents(response).until((event) => messageOf(event)?.method === "notifications/progress")
    const dropped = performance.now()
    abort.abort()
    const logged = await requestLine(51, session)
    const waited = performance.now() - dropped
    assert.strictEqual(logged.annotations.outcome, "cancelled")
    const told = await server.waitForLog(
      (line) =>
        line.message === "http client did not resume its stream; cancelling its requests" &&
        line.annotations.session === session.slice(0, 8)
    )
    assert.deepStrictEqual(told.annotations.ids, [51])
    assert.strictEqual(told.annotations.grace_ms, 400)
    // It waited for the 400 ms grace period, and not for the 5 s of the tool.
    assert.isAtLeast(waited, 350)
    assert.isBelow(waited, 2_500)
    // The stream is gone: nothing to resume any more.
    const late = await fetch(server.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": session, "last-event-id": seen.at(-1)!.id! }
    })
    assert.strictEqual(late.status, 400)
  })

  // The sleep tool's "started" and "finalized" lines carry no id: these run one after the other.
  it("a client that drops its POST before anything was sent interrupts its request at once; DELETE answers an open request with an error", async () => {
    const session = await initialize(server.url)
    const abort = new AbortController()
    let from = server.mark()
    const pending = post(
      server.url,
      call(31, "fixture_sleep", { ms: 30_000 }),
      { "mcp-session-id": session },
      abort.signal
    )
    await server.waitForLog((line) => line.event === "started", 5_000, from)
    const dropped = performance.timeOrigin + performance.now()
    abort.abort()
    await pending.catch(() => undefined)
    const finalized = await server.waitForLog((line) => line.event === "finalized", 3_000, from)
    assert.isBelow(finalized.at - dropped, 1_000)
    assert.strictEqual((await requestLine(31, session)).annotations.outcome, "cancelled")
    const response = await post(server.url, ping(2), { "mcp-session-id": session })
    assert.deepStrictEqual(await response.json(), { jsonrpc: "2.0", id: 2, result: {} })

    from = server.mark()
    const open = post(server.url, call(61, "fixture_sleep", { ms: 30_000 }), { "mcp-session-id": session })
    await server.waitForLog((line) => line.event === "started", 5_000, from)
    const deleted = await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": session } })
    assert.strictEqual(deleted.status, 200)
    const answer: any = await (await open).json()
    assert.strictEqual(answer.id, 61)
    assert.strictEqual(answer.error.code, -32000)
    assert.include(answer.error.message, "terminated")
    await server.waitForLog((line) => line.event === "finalized", 3_000, from)
    assert.strictEqual((await post(server.url, ping(), { "mcp-session-id": session })).status, 404)
  })
})

// -- in process: timing that the binary's defaults would make slow to test -------------------

const wait = Tool.make("wait", {
  description: "Waits `ms` milliseconds in silence, then answers.",
  input: Schema.Struct({ ms: Schema.Number })
}).pipe(Tool.handle(({ ms }) => Effect.as(Effect.sleep(ms), `waited ${ms} ms`)))

const Waiting = Capability.make(
  { id: "slow", description: "A silent, slow tool", version: "1.0.0" },
  Effect.succeed({ tools: [wait] })
)

/** `HttpTransport.serve` in this process, on a free port, its log lines collected. */
const serveInProcess = (listen: HttpTransport.ListenOptions, options: HttpTransport.Options = {}) =>
  serveShared(Waiting, listen, options)

describe("Streamable HTTP in process", () => {
  it("a silent request turns into a stream at a keep-alive tick: priming, keep-alive comments, its answer; a quick one stays JSON", async () => {
    const server = await serveInProcess({}, { keepAliveMs: 100 })
    try {
      const session = await initialize(server.url)
      const started = performance.now()
      const slow = await post(
        server.url,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow_wait", arguments: { ms: 1500 } } },
        { "mcp-session-id": session }
      )
      // The headers came at a tick (100 ms), long before the answer (1500 ms); wide margin for a loaded machine.
      assert.isBelow(performance.now() - started, 1200)
      assert.strictEqual(slow.headers.get("content-type"), "text/event-stream")
      const quick = await post(server.url, ping(2), { "mcp-session-id": session })
      assert.strictEqual(quick.headers.get("content-type"), "application/json")
      assert.deepStrictEqual(await quick.json(), { jsonrpc: "2.0", id: 2, result: {} })
      const text = await slow.text()
      const blocks = text.split("\n\n").filter((block) => block !== "")
      assert.match(blocks[0]!, /^id: \d+-1\nretry: 1000\ndata: $/)
      assert.isAtLeast(blocks.filter((block) => block === ": keep-alive").length, 2)
      const answer = JSON.parse(
        blocks
          .at(-1)!
          .split("\n")
          .find((line) => line.startsWith("data: "))!
          .slice(6)
      )
      assert.deepStrictEqual(answer.result.content, [{ type: "text", text: "waited 1500 ms" }])
    } finally {
      await server.stop()
    }
  })

  it("a request whose body does not arrive within requestTimeoutMs gets 408 and its connection closes", async () => {
    const server = await serveInProcess({ requestTimeoutMs: 300, headersTimeoutMs: 200 })
    try {
      const { port } = new URL(server.url)
      const slowly = (head: string) =>
        new Promise<{ status: string; ms: number }>((resolve, reject) => {
          const started = performance.now()
          let received = ""
          const socket = connect(Number(port), "127.0.0.1", () => socket.write(head))
          socket.setEncoding("utf8")
          socket.on("data", (chunk: string) => (received += chunk))
          socket.on("error", reject)
          socket.on("close", () => resolve({ status: received.split("\r\n")[0]!, ms: performance.now() - started }))
        })
      const [body, headers] = await Promise.all([
        slowly(
          "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
            "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"
        ),
        slowly("POST /mcp HTTP/1.1\r\nHost: localhost\r\n")
      ])
      assert.strictEqual(body.status, "HTTP/1.1 408 Request Timeout")
      assert.isBelow(body.ms, 1_500)
      assert.strictEqual(headers.status, "HTTP/1.1 408 Request Timeout")
      assert.isBelow(headers.ms, 1_500)
      // A request that arrived whole may take longer than that to be answered.
      const session = await initialize(server.url)
      const slow = await post(
        server.url,
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "slow_wait", arguments: { ms: 500 } } },
        { "mcp-session-id": session }
      )
      assert.strictEqual(((await slow.json()) as any).result.content[0].text, "waited 500 ms")
    } finally {
      await server.stop()
    }
  })

  it("a server bound to every interface logs a loopback URL and a warning about --allowed-hosts", async () => {
    const server = await serveInProcess({ host: "0.0.0.0" })
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
      await assertServes(server.url)
      const warning = server.logs.find((line) => line.level === "WARN")
      assert.include(warning?.message, "listening on every interface (0.0.0.0)")
    } finally {
      await server.stop()
    }
  })
})
