// Part of the stdio conformance harness (see run.ts): a stand-in for the global
// `fetch`, loaded with `node --import` into the conformance CLI (next to
// ./stdio-hooks.mjs), so that the suite's 2026-07-28 scenarios can be run over
// stdio.
//
// Why: from the 2026-07-28 revision on (stateless, no initialize, per-request
// `_meta`), the suite no longer goes through the SDK's client transport that
// ./stdio-hooks.mjs replaces: its scenarios POST raw JSON-RPC with the global
// `fetch` to the `--url` they are given. This module answers those requests
// itself, from ONE server child process speaking newline-delimited JSON-RPC
// over stdio:
//
// - The URL it serves is MCP_STDIO_URL (default http://stdio.invalid/mcp, to be
//   passed as the suite's `--url`); any other URL goes to the real `fetch`
//   unchanged, so the 2025-era scenarios (which use the SDK transport, swapped
//   out by ./stdio-hooks.mjs) and every other request are unaffected.
// - The child is the command in MCP_STDIO_COMMAND (a JSON array), started on
//   first use, stderr inherited if MCP_STDIO_STDERR=inherit (else ignored),
//   killed when this process exits, and started again on the next request if it
//   dies (in-flight fetches then fail with a TypeError, as on a network error).
//   It holds the event loop open only while a request is in flight, as a socket
//   would.
// - A POSTed request is forwarded with a fresh id ("f-1", "f-2", ...) so that
//   concurrent fetches never collide, and its original id is restored on the
//   way back. The fetch resolves with the first message related to it: its
//   response gives an `application/json` body; a notification first gives a
//   `text/event-stream` body carrying the related notifications and then the
//   response. Related are: `notifications/progress` with the request's
//   progressToken; notifications whose `_meta` subscriptionId is the request's
//   (rewritten to the original id); `notifications/message` to the requests
//   that set a logLevel, or to all if none did; anything else to all in flight.
// - Aborting the fetch, or cancelling its body, before the response came sends
//   `notifications/cancelled` to the child, as closing an HTTP stream would.
// - A POSTed notification is forwarded (a `notifications/cancelled` has its
//   requestId mapped to the forwarded id) and answered 202; a response, a batch
//   or unparsable JSON is answered 400; GET and DELETE are answered 405 (the
//   2026-07-28 HTTP transport is POST-only).
//
// What it cannot do: stdio has no headers and no status codes. Request headers
// are ignored, so checks of header validation (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, Mcp-Param-*, Host/Origin) cannot apply. Response statuses are
// emulated from the error code, after the 2026-07-28 HTTP transport's table,
// not measured: -32601 → 404; -32020, -32021, -32022 → 400; -32602 → 400 only
// when the request lacked `_meta` or its protocolVersion or clientCapabilities;
// anything else → 200. Scenarios that bypass `fetch` (node:http, undici) still
// go to the network.
import { spawn } from "node:child_process"

const realFetch = globalThis.fetch
const target = new URL(process.env.MCP_STDIO_URL ?? "http://stdio.invalid/mcp")
const encoder = new TextEncoder()

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
const LOG_LEVEL = "io.modelcontextprotocol/logLevel"
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

/** The running child: { proc, buffer }, or undefined. */
let child
let nextId = 0
/** The forwarded requests awaiting their response, by forwarded id. */
const inFlight = new Map()

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value)

const log = (message) => process.stderr.write(`[stdio-fetch] ${message}\n`)

const json = (status, body, headers = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers }
  })

const rpcError = (code, message) => ({ jsonrpc: "2.0", id: null, error: { code, message } })

const abortReason = (signal) => signal.reason ?? new DOMException("This operation was aborted", "AbortError")

const targets = (input) => {
  let url
  try {
    url = new URL(input instanceof Request ? input.url : String(input))
  } catch {
    return false
  }
  url.hash = ""
  return url.href === target.href
}

const spawnChild = () => {
  const [command, ...args] = JSON.parse(process.env.MCP_STDIO_COMMAND ?? "[]")
  if (typeof command !== "string") {
    throw new TypeError("fetch failed", { cause: new Error("MCP_STDIO_COMMAND is not set") })
  }
  const proc = spawn(command, args, {
    stdio: ["pipe", "pipe", process.env.MCP_STDIO_STDERR === "inherit" ? "inherit" : "ignore"]
  })
  const current = { proc, buffer: "" }
  proc.unref()
  proc.stdin.on("error", () => {}) // EPIPE when it dies; reported by "exit"
  proc.stdout.setEncoding("utf8")
  proc.stdout.on("data", (chunk) => {
    current.buffer += chunk
    let newline
    while ((newline = current.buffer.indexOf("\n")) !== -1) {
      const line = current.buffer.slice(0, newline).trim()
      current.buffer = current.buffer.slice(newline + 1)
      if (line === "") continue
      let message
      try {
        message = JSON.parse(line)
      } catch {
        log(`ignored a line that is not JSON: ${line.slice(0, 200)}`)
        continue
      }
      route(message)
    }
  })
  const gone = (why) => {
    if (child !== current) return
    child = undefined
    log(`the MCP server ${why}`)
    const error = new TypeError("fetch failed", { cause: new Error(`the MCP server ${why}`) })
    for (const entry of [...inFlight.values()]) fail(entry, error)
  }
  proc.on("error", (error) => gone(`could not be run: ${error.message}`))
  proc.on("exit", (code, signal) => gone(`exited with code ${code}${signal ? ` (signal ${signal})` : ""}`))
  return current
}

process.on("exit", () => child?.proc.kill())

/** Hold the event loop open while, and only while, a request is in flight. */
const updateRef = () => {
  if (child === undefined) return
  const method = inFlight.size > 0 ? "ref" : "unref"
  child.proc[method]()
  child.proc.stdout[method]()
}

const send = (message) => {
  child ??= spawnChild()
  child.proc.stdin.write(`${JSON.stringify(message)}\n`)
  updateRef()
}

const finish = (entry) => {
  inFlight.delete(entry.id)
  entry.signal?.removeEventListener("abort", entry.onAbort)
  updateRef()
}

const fail = (entry, error) => {
  finish(entry)
  if (entry.controller === undefined) entry.reject(error)
  else entry.controller.error(error)
}

const cancel = (entry, reason) => {
  if (!inFlight.has(entry.id)) return
  finish(entry)
  if (child !== undefined) {
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: entry.id, reason } })
  }
}

/** The HTTP status the 2026-07-28 transport gives a response, emulated. */
const statusOf = (entry, response) => {
  const code = response.error?.code
  if (code === -32601) return 404
  if (code === -32020 || code === -32021 || code === -32022) return 400
  if (code === -32602 && entry.metaIncomplete) return 400
  return 200
}

/** Gives a message to a request: first as its Response, then on its stream. */
const deliver = (entry, message) => {
  const isResponse = !("method" in message)
  if (entry.controller === undefined && isResponse) {
    finish(entry)
    entry.resolve(json(statusOf(entry, message), message))
    return
  }
  if (entry.controller === undefined) {
    const body = new ReadableStream({
      start: (controller) => {
        entry.controller = controller
      },
      cancel: () => cancel(entry, "The client closed the response stream")
    })
    entry.resolve(new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }))
  }
  entry.controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`))
  if (isResponse) {
    finish(entry)
    entry.controller.close()
  }
}

/** Routes a message from the child to the request(s) it belongs to. */
const route = (message) => {
  if (!isObject(message)) return
  if (typeof message.method !== "string") {
    const entry = inFlight.get(message.id)
    if (entry !== undefined) deliver(entry, { ...message, id: entry.originalId })
    else if (message.id === null) log(`dropped a response to no request: ${JSON.stringify(message)}`)
    return
  }
  const entries = [...inFlight.values()]
  const params = isObject(message.params) ? message.params : {}
  const subscriptionId = isObject(params._meta) ? params._meta[SUBSCRIPTION_ID] : undefined
  if (message.method === "notifications/progress" && params.progressToken !== undefined) {
    for (const entry of entries) if (entry.progressToken === params.progressToken) deliver(entry, message)
  } else if (subscriptionId !== undefined) {
    const entry = inFlight.get(subscriptionId)
    if (entry === undefined) return
    const _meta = { ...params._meta, [SUBSCRIPTION_ID]: entry.originalId }
    deliver(entry, { ...message, params: { ...params, _meta } })
  } else if (message.method === "notifications/message") {
    const asked = entries.filter((entry) => entry.logLevel)
    for (const entry of asked.length > 0 ? asked : entries) deliver(entry, message)
  } else {
    // Unrelated notifications, and server-to-client requests (which the
    // 2026-07-28 revision forbids): to every request, where a check can see them.
    for (const entry of entries) deliver(entry, message)
  }
}

const forwardRequest = (message, signal) =>
  new Promise((resolve, reject) => {
    const id = `f-${++nextId}`
    const params = isObject(message.params) ? message.params : undefined
    const meta = isObject(params?._meta) ? params._meta : undefined
    const entry = {
      id,
      originalId: message.id,
      progressToken: meta?.progressToken,
      logLevel: meta?.[LOG_LEVEL] !== undefined,
      metaIncomplete: meta?.[PROTOCOL_VERSION] === undefined || meta?.[CLIENT_CAPABILITIES] === undefined,
      signal,
      controller: undefined,
      resolve,
      reject,
      onAbort: () => {
        if (!inFlight.has(id)) return
        cancel(entry, "The client aborted the request")
        if (entry.controller === undefined) reject(abortReason(signal))
        else entry.controller.error(abortReason(signal))
      }
    }
    inFlight.set(id, entry)
    signal?.addEventListener("abort", entry.onAbort, { once: true })
    try {
      send({ ...message, id })
    } catch (error) {
      finish(entry)
      reject(error)
    }
  })

const forwardNotification = (message) => {
  if (message.method === "notifications/cancelled" && isObject(message.params)) {
    const entry = [...inFlight.values()].findLast((entry) => entry.originalId === message.params.requestId)
    if (entry !== undefined) message = { ...message, params: { ...message.params, requestId: entry.id } }
  }
  send(message)
  return new Response(null, { status: 202 })
}

const stdioFetch = async (input, init) => {
  const request = new Request(input, init)
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined)
  if (signal?.aborted) throw abortReason(signal)
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } })
  let message
  try {
    message = JSON.parse(await request.text())
  } catch {
    return json(400, rpcError(-32700, "Parse error"))
  }
  if (Array.isArray(message)) return json(400, rpcError(-32600, "Invalid Request: batches are not supported"))
  if (!isObject(message)) return json(400, rpcError(-32600, "Invalid Request"))
  if (typeof message.method !== "string") {
    return json(400, rpcError(-32600, "Invalid Request: the client may not POST a response"))
  }
  return "id" in message ? forwardRequest(message, signal) : forwardNotification(message)
}

globalThis.fetch = function fetch(input, init) {
  return targets(input) ? stdioFetch(input, init) : realFetch(input, init)
}
