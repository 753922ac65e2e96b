/**
 * A real server process speaking Streamable HTTP, and raw HTTP helpers to
 * talk to it: the built binary (`serve --transport http --port 0`) or the
 * test fixture (`FIXTURE_TRANSPORT=http`). The process picks a free port and
 * logs its URL on stderr; {@link startHttp} waits for that line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { request as httpRequest } from "node:http"
import { resolve } from "node:path"
import { binaryPath, repoRoot } from "./ServerProcess.ts"

export const fixturePath = resolve(repoRoot, "test/fixtures/policy-server.ts")

export interface HttpProcess {
  readonly child: ChildProcessWithoutNullStreams
  /** The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`. */
  readonly url: string
  /** Every complete stderr line so far. */
  readonly stderrLines: () => ReadonlyArray<string>
  /**
   * Waits for a stderr JSON line that satisfies `predicate`, among the lines
   * from index `from` on (see `mark`), and returns it parsed.
   */
  readonly waitForLog: (predicate: (line: any) => boolean, timeoutMs?: number, from?: number) => Promise<any>
  /** The number of stderr lines so far, for `waitForLog`'s `from`. */
  readonly mark: () => number
  /** Everything written on stdout so far (the server writes nothing there). */
  readonly stdout: () => string
  /** Kills the process at once (SIGKILL), if it still runs. */
  readonly stop: () => Promise<void>
  /**
   * A graceful stop: sends `signal` (SIGTERM by default) and resolves with
   * how the process exited and how long that took; SIGKILLs it and fails
   * if it still runs after `timeoutMs`.
   */
  readonly terminate: (
    signal?: NodeJS.Signals,
    timeoutMs?: number
  ) => Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly ms: number }>
}

/** `serve --transport http --port 0` of the built binary, with the `system` capability. */
export const binaryArgs = (extra: ReadonlyArray<string> = []): Array<string> => [
  binaryPath,
  "serve",
  "--root",
  repoRoot,
  "--capabilities",
  "system",
  "--transport",
  "http",
  "--port",
  "0",
  ...extra
]

const parse = (line: string): any => {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

/** Starts `node <args>` and resolves once it logged the URL it listens on. */
export const startHttp = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<HttpProcess> =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env }
    })
    const lines: Array<string> = []
    const watchers: Array<() => void> = []
    let tail = ""
    let url: string | undefined
    let stdout = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      const parts = (tail + chunk).split("\n")
      tail = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        const parsed = parse(line)
        const found: unknown = parsed?.annotations?.url ?? (parsed?.event === "listening" ? parsed.url : undefined)
        if (url === undefined && typeof found === "string") {
          url = found
          clearTimeout(timer)
          resolvePromise(process_)
        }
      }
      for (const watcher of watchers.slice()) watcher()
    })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the server did not log its URL within 10 s:\n${lines.join("\n")}`))
    }, 10_000)
    child.on("exit", (code) => {
      if (url === undefined) {
        clearTimeout(timer)
        reject(new Error(`the server exited (${code}) before listening:\n${lines.join("\n")}${tail}`))
      }
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on("exit", (code, signal) => done({ code, signal }))
    )
    const waitForLog = (predicate: (line: any) => boolean, timeoutMs = 5_000, from = 0): Promise<any> =>
      new Promise((resolveLog, rejectLog) => {
        const check = () => {
          for (const line of lines.slice(from)) {
            const parsed = parse(line)
            if (parsed !== undefined && predicate(parsed)) {
              watchers.splice(watchers.indexOf(check), 1)
              clearTimeout(logTimer)
              resolveLog(parsed)
              return
            }
          }
        }
        const logTimer = setTimeout(() => {
          watchers.splice(watchers.indexOf(check), 1)
          rejectLog(new Error(`no matching stderr line within ${timeoutMs} ms:\n${lines.join("\n")}`))
        }, timeoutMs)
        watchers.push(check)
        check()
      })
    const process_: HttpProcess = {
      child,
      get url() {
        return url!
      },
      stderrLines: () => lines,
      waitForLog,
      mark: () => lines.length,
      stdout: () => stdout,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill("SIGKILL")
          await exited
        }
      },
      terminate: async (signal = "SIGTERM", timeoutMs = 10_000) => {
        const started = performance.now()
        child.kill(signal)
        let timer: NodeJS.Timeout | undefined
        const timedOut = new Promise<never>((_, rejectTimeout) => {
          timer = setTimeout(() => {
            child.kill("SIGKILL")
            rejectTimeout(
              new Error(`the server did not exit within ${timeoutMs} ms of ${signal}:\n${lines.join("\n")}`)
            )
          }, timeoutMs)
        })
        const exit = await Promise.race([exited, timedOut]).finally(() => clearTimeout(timer))
        return { ...exit, ms: performance.now() - started }
      }
    }
  })

/** The headers of a POST as the spec wants them, plus `extra`. */
export const postHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra
})

/** POSTs one JSON-RPC message (or raw text) with the spec's headers plus `extra`. */
export const post = (url: string, body: unknown, extra: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(url, {
    method: "POST",
    headers: postHeaders(extra),
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal })
  })

/** Initializes a session with raw HTTP (initialize, then notifications/initialized); returns its id. */
export const initialize = async (
  url: string,
  protocolVersion = "2025-11-25",
  capabilities: Record<string, unknown> = {}
): Promise<string> => {
  const response = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion, capabilities, clientInfo: { name: "http-test", version: "1.0.0" } }
  })
  const body: any = await response.json()
  const session = response.headers.get("mcp-session-id")
  if (response.status !== 200 || session === null || body.result?.protocolVersion !== protocolVersion) {
    throw new Error(`initialize failed: ${response.status} ${JSON.stringify(body)}`)
  }
  const initialized = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { "mcp-session-id": session, "mcp-protocol-version": protocolVersion }
  )
  if (initialized.status !== 202) throw new Error(`notifications/initialized got ${initialized.status}`)
  return session
}

/** A request with node:http, which (unlike fetch) lets a test set `Host`. */
export const rawRequest = (
  url: string,
  options: { readonly method: string; readonly headers: Record<string, string>; readonly body?: string }
): Promise<{ readonly status: number; readonly headers: Record<string, unknown>; readonly body: string }> =>
  new Promise((resolvePromise, reject) => {
    const request = httpRequest(url, { method: options.method, headers: options.headers }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resolvePromise({ status: response.statusCode ?? 0, headers: response.headers, body }))
    })
    request.on("error", reject)
    request.end(options.body)
  })

/** One server-sent event. */
export interface SseEvent {
  readonly id?: string
  readonly event?: string
  readonly retry?: number
  readonly data: string
}

/**
 * Reads the events of an SSE response as they come. `next` resolves with the
 * next event, or undefined when the stream ended; it fails after
 * `timeoutMs`.
 */
export const readEvents = (response: Response) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  const ready: Array<SseEvent> = []
  let ended = false
  const parseBlock = (block: string): SseEvent | undefined => {
    const fields: { id?: string; event?: string; retry?: number; data: Array<string> } = { data: [] }
    let any = false
    for (const line of block.split("\n")) {
      if (line.startsWith(":") || line === "") continue
      const colon = line.indexOf(":")
      const name = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
      any = true
      if (name === "id") fields.id = value
      else if (name === "event") fields.event = value
      else if (name === "retry") fields.retry = Number(value)
      else if (name === "data") fields.data.push(value)
    }
    if (!any) return undefined
    return { ...fields, data: fields.data.join("\n") }
  }
  const next = async (timeoutMs = 5_000): Promise<SseEvent | undefined> => {
    const deadline = Date.now() + timeoutMs
    while (true) {
      if (ready.length > 0) return ready.shift()
      if (ended) return undefined
      const remaining = deadline - Date.now()
      if (remaining <= 0) throw new Error(`no SSE event within ${timeoutMs} ms`)
      let timer: NodeJS.Timeout | undefined
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms`)), remaining)
        })
      ]).finally(() => clearTimeout(timer))
      if (chunk.done) {
        ended = true
        continue
      }
      buffer += chunk.value
      let end: number
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = parseBlock(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (event !== undefined) ready.push(event)
      }
    }
  }
  /** Reads until `predicate` holds for an event; returns every event read, that one included. */
  const until = async (predicate: (event: SseEvent) => boolean, timeoutMs = 5_000): Promise<Array<SseEvent>> => {
    const events: Array<SseEvent> = []
    while (true) {
      const event = await next(timeoutMs)
      if (event === undefined) throw new Error(`the stream ended first; got ${JSON.stringify(events)}`)
      events.push(event)
      if (predicate(event)) return events
    }
  }
  return { next, until, cancel: () => reader.cancel().catch(() => undefined) }
}

/** The JSON-RPC message an event carries (undefined for a priming event). */
export const messageOf = (event: SseEvent): any => (event.data === "" ? undefined : JSON.parse(event.data))

/**
 * A 2026-07-28 client over plain POSTs: each request carries `meta` as its
 * `_meta` and the routing headers (`tasks/*` name their task in `Mcp-Name`
 * unless `name` is given); the answer is the JSON body, or the last event of
 * an SSE answer. Anything but HTTP 200 fails with the body.
 */
export const modernRpc = (meta: Record<string, unknown>) => {
  let nextId = 1
  return async (url: string, method: string, params: Record<string, unknown>, name?: string): Promise<any> => {
    const routed = name ?? (typeof params.taskId === "string" ? params.taskId : undefined)
    const response = await post(
      url,
      { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } },
      {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(routed === undefined ? {} : { "mcp-name": routed })
      }
    )
    const body = await response.text()
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${body}`)
    return response.headers.get("content-type")?.startsWith("text/event-stream")
      ? body
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => JSON.parse(line.slice(5)))
          .at(-1)
      : JSON.parse(body)
  }
}
