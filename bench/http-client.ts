/**
 * A raw Streamable HTTP client for the benchmark: `node:http` with one
 * keep-alive agent per server, one POST per JSON-RPC request, no SDK. It has
 * the shape of the stdio client's `Peer` (`send`, `batch`, `label`,
 * `stderr`, `cpuMs`), so `bench/run.ts` drives both with the same loops and
 * checks.
 *
 * The server is a child process that prints its endpoint URL on stdout (one
 * line) and logs on stderr, which is always drained (its last few KiB kept).
 * `initialize` opens a session (`Mcp-Session-Id`); every later POST names it
 * and sends `MCP-Protocol-Version`, as the SDK's client does. With
 * `modern: true` it speaks MCP 2026-07-28 instead: no session; `initialize`
 * sends `server/discover`, and every request carries the protocol version,
 * the client's capabilities and identity in `params._meta`, with the routing
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) that must match
 * the body.
 *
 * Each answer must have status 200 and the content type the server is
 * expected to answer with (`application/json`, or `text/event-stream` for the
 * SDK's default); an SSE body is parsed into its `data:` events and must
 * carry exactly one response, with the request's id. Anything else reaches
 * the callback as a JSON-RPC error response (code -1) that says what was
 * wrong, so the caller's checks fail with it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import { protocolVersion, type Response, procCpuMs, procRssKiB } from "./client.ts"

type Callback = (response: Response) => void

export type AnswerType = "application/json" | "text/event-stream"

/** The revision a `modern` peer speaks. */
export const modernVersion = "2026-07-28"

/** The `_meta` every 2026-07-28 request of the bench carries: elicitation declared, for the asking tool. */
const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": modernVersion,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0.1.0" }
}

const modernMetaMember = `"_meta":${JSON.stringify(modernMeta)}`

/** How much of the child's stderr `HttpPeer.stderr` returns, in characters. */
const stderrKeep = 4000

/** The `data:` payloads of an SSE body, events with empty data (priming) left out. */
const sseData = (body: string): Array<string> => {
  const data: Array<string> = []
  for (const event of body.split("\n\n")) {
    let payload: string | undefined
    for (const line of event.split("\n")) {
      if (!line.startsWith("data:")) continue
      const value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5)
      payload = payload === undefined ? value : `${payload}\n${value}`
    }
    if (payload !== undefined && payload.length > 0) data.push(payload)
  }
  return data
}

export class HttpPeer {
  readonly label: string
  readonly child: ChildProcess
  /** The content type every answer to a request must have. */
  readonly answers: AnswerType
  /** Speaks 2026-07-28: no session, `_meta` and routing headers on every request. */
  readonly modern: boolean
  private readonly agent: http.Agent
  private url: URL | undefined
  private headers: Record<string, string> = {}
  private nextId = 1
  private stderrChunks: Array<Buffer> = []
  private stderrKept = 0
  private readonly exited: Promise<number | null>
  private readonly sockets = new WeakSet<object>()
  /** TCP connections the agent has opened so far. */
  connections = 0
  sessionId: string | undefined

  constructor(
    label: string,
    args: ReadonlyArray<string>,
    env: Record<string, string>,
    options: { readonly answers: AnswerType; readonly maxSockets: number; readonly modern?: boolean }
  ) {
    this.label = label
    this.answers = options.answers
    this.modern = options.modern === true
    this.agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets })
    this.child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)))
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderrChunks.push(chunk)
      this.stderrKept += chunk.length
      while (this.stderrChunks.length > 1 && this.stderrKept - this.stderrChunks[0]!.length >= stderrKeep) {
        this.stderrKept -= this.stderrChunks.shift()!.length
      }
    })
  }

  /** The last `stderrKeep` bytes (at least) the child wrote to stderr. */
  get stderr(): string {
    return Buffer.concat(this.stderrChunks).toString("utf8").slice(-stderrKeep)
  }

  /** Waits for the URL line on stdout. */
  private listening(timeoutMs = 15_000): Promise<URL> {
    return new Promise((resolve, reject) => {
      let text = ""
      const fail = (why: string) => {
        clearTimeout(timer)
        reject(new Error(`${this.label}: ${why} before printing its URL\n${this.stderr}`))
      }
      const timer = setTimeout(() => fail(`no URL after ${timeoutMs} ms`), timeoutMs)
      this.child.once("exit", (code) => fail(`exited (code ${code})`))
      this.child.stdout!.setEncoding("utf8")
      this.child.stdout!.on("data", (chunk: string) => {
        text += chunk
        const nl = text.indexOf("\n")
        if (nl === -1) return
        clearTimeout(timer)
        try {
          resolve(new URL(text.slice(0, nl).trim()))
        } catch {
          reject(new Error(`${this.label}: printed ${JSON.stringify(text.slice(0, 200))}, not a URL`))
        }
      })
    })
  }

  /** POSTs `body`; calls back with the status, the content type and the whole body. */
  private post(
    body: string,
    callback: (error: Error | undefined, status: number, contentType: string, text: string) => void,
    extra?: Record<string, string>
  ): void {
    const url = this.url!
    const request = http.request({
      agent: this.agent,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: { ...this.headers, ...extra, "content-length": Buffer.byteLength(body) }
    })
    request.once("socket", (socket) => {
      if (this.sockets.has(socket)) return
      this.sockets.add(socket)
      this.connections++
    })
    request.once("error", (error) => callback(error, 0, "", ""))
    request.once("response", (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        text += chunk
      })
      response.once("end", () =>
        callback(undefined, response.statusCode ?? 0, response.headers["content-type"] ?? "", text)
      )
    })
    request.end(body)
  }

  /** Sends a request; the callback gets its response (or an error response saying what was wrong with the answer). */
  send(method: string, params: unknown, callback: Callback, expect: AnswerType = this.answers): void {
    const id = this.nextId++
    // 2026-07-28: `_meta` spliced into the params' JSON (serialized once), as a client that sends it on every
    // request would do.
    const json = JSON.stringify(params)
    const sent = !this.modern
      ? json
      : json === "{}"
        ? `{${modernMetaMember}}`
        : `${json.slice(0, -1)},${modernMetaMember}}`
    const body = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${sent}}`
    // 2026-07-28: the routing headers mirror the body.
    const name = (params as { readonly name?: unknown } | undefined)?.name
    const extra = this.modern
      ? {
          "mcp-protocol-version": modernVersion,
          "mcp-method": method,
          ...(typeof name === "string" ? { "mcp-name": name } : {})
        }
      : undefined
    const wrong = (message: string): void =>
      callback({ id, error: { code: -1, message: `${this.label}: ${method} (id ${id}): ${message}` } })
    this.post(
      body,
      (error, status, contentType, text) => {
        if (error !== undefined) return wrong(`request failed: ${error.message}`)
        if (status !== 200) return wrong(`status ${status}: ${text.slice(0, 300)}`)
        if (!contentType.startsWith(expect)) return wrong(`content type ${JSON.stringify(contentType)}, not ${expect}`)
        let messages: Array<any>
        try {
          messages = expect === "application/json" ? [JSON.parse(text)] : sseData(text).map((data) => JSON.parse(data))
        } catch {
          return wrong(`a body that does not parse: ${JSON.stringify(text.slice(0, 300))}`)
        }
        const responses = messages.filter((m) => m !== null && typeof m === "object" && ("result" in m || "error" in m))
        if (responses.length !== 1 || responses[0].id !== id) {
          return wrong(`expected exactly one response with id ${id}, got ${JSON.stringify(text.slice(0, 300))}`)
        }
        callback(responses[0])
      },
      extra
    )
  }

  /** For the shape of `Peer`: every request is its own POST, so there is nothing to batch. */
  batch(fn: () => void): void {
    fn()
  }

  request(method: string, params: unknown, expect?: AnswerType): Promise<Response> {
    return new Promise((resolve) => this.send(method, params, resolve, expect))
  }

  /** Starts the server, waits for its URL, opens a session; returns spawn → initialize response in ms. */
  async initialize(): Promise<number> {
    const spawnedAt = performance.now()
    this.url = await this.listening()
    this.headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    if (this.modern) {
      // No session: server/discover says which revisions the server speaks.
      const discovered = await this.request("server/discover", {})
      if (!(discovered.result as any)?.supportedVersions?.includes(modernVersion)) {
        throw new Error(`${this.label}: server/discover: ${JSON.stringify(discovered)}\n${this.stderr}`)
      }
      return performance.now() - spawnedAt
    }
    const params = { protocolVersion, capabilities: {}, clientInfo: { name: "bench", version: "0.1.0" } }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params })
    const sessionId = await new Promise<string | undefined>((resolve, reject) => {
      const request = http.request({
        agent: this.agent,
        host: this.url!.hostname,
        port: this.url!.port,
        path: this.url!.pathname,
        method: "POST",
        headers: { ...this.headers, "content-length": Buffer.byteLength(body) }
      })
      request.once("error", reject)
      request.once("response", (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => {
          text += chunk
        })
        response.once("end", () => {
          const header = response.headers["mcp-session-id"]
          if (response.statusCode !== 200 || typeof header !== "string" || !text.includes(protocolVersion)) {
            reject(new Error(`${this.label}: bad initialize answer ${response.statusCode} ${text}\n${this.stderr}`))
          } else resolve(header)
        })
      })
      request.end(body)
    })
    const elapsed = performance.now() - spawnedAt
    this.sessionId = sessionId
    this.headers = { ...this.headers, "mcp-session-id": sessionId!, "mcp-protocol-version": protocolVersion }
    await new Promise<void>((resolve, reject) =>
      this.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, (error, status, _type, text) => {
        if (error !== undefined || status !== 202) {
          reject(new Error(`${this.label}: notifications/initialized got ${error?.message ?? status} ${text}`))
        } else resolve()
      })
    )
    return elapsed
  }

  rssKiB(): number {
    return procRssKiB(this.label, this.child.pid!)
  }

  cpuMs(): number {
    return procCpuMs(this.child.pid!)
  }

  /** Ends the session (DELETE), then stops the server: SIGTERM, SIGKILL after `graceMs`. */
  async close(graceMs = 3000): Promise<void> {
    if (this.url !== undefined && this.sessionId !== undefined && this.child.exitCode === null) {
      await new Promise<void>((resolve) => {
        const request = http.request(
          {
            agent: this.agent,
            host: this.url!.hostname,
            port: this.url!.port,
            path: this.url!.pathname,
            method: "DELETE",
            headers: { "mcp-session-id": this.sessionId!, "mcp-protocol-version": protocolVersion }
          },
          (response) => {
            response.resume()
            response.once("end", resolve)
          }
        )
        request.once("error", () => resolve())
        request.end()
      })
    }
    this.agent.destroy()
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    this.child.kill("SIGTERM")
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs)
    await this.exited
    clearTimeout(timer)
  }
}
