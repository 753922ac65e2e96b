/**
 * The Streamable HTTP transport (MCP 2025-03-26 and later): one endpoint
 * (`/mcp` by default) that takes JSON-RPC messages by POST, streams
 * server-initiated messages on a GET, and ends a session on DELETE.
 *
 * Each session is one `McpServer.serve()` (one {@link Transport}): it starts
 * with an `initialize` POST, which answers with a cryptographically random
 * `Mcp-Session-Id`, and ends on DELETE, after `sessionIdleMs` without an open
 * stream or a request in flight, or when the server shuts down (its
 * in-flight requests then get `ServerConfig.shutdownGraceMs`). All sessions
 * share the capability registry and one executor, so the execution policy's
 * limits are server-wide.
 *
 * **How a POST is answered**
 *
 * Notifications and responses only: `202 Accepted`. Requests: the POST stays
 * open until the first message due on it. When that is the response, the
 * answer is that JSON body (`application/json`); when something must go out
 * before it (progress, a log message, an elicitation, sampling or roots
 * request), the answer becomes an SSE stream (`text/event-stream`) that
 * carries those messages, then the response, then ends. This keeps the
 * common case, a request answered with nothing before its response, to one
 * plain JSON body that any client, proxy or `curl` reads, and uses a stream
 * exactly when one is needed. A request that stays silent for long becomes
 * a stream too: at a keep-alive tick (`keepAliveMs`), a POST that has waited
 * at least half of `keepAliveMs` gets its headers, a priming event (so it can
 * be resumed) and then keep-alive comments, so that proxies and clients with
 * an idle timeout do not drop it. The cost: a request that drops its
 * connection before anything was sent on it cannot be resumed, as no event id
 * was ever sent for it; it is cancelled at once instead.
 *
 * **Streams and resumption**
 *
 * Every SSE event has an id, `<stream>-<seq>`, that names its stream within
 * the session (0 is the GET stream). Sessions that negotiated 2025-11-25 or
 * later get a priming event (an id, empty data and `retry:`) when a stream
 * opens. A GET with `Last-Event-ID` resumes the named stream: it replays that
 * stream's events after the id from a bounded buffer (`replayEvents` per
 * stream), then goes on live. Every message goes on exactly one stream: a
 * request's messages on its POST's stream, anything unrelated to a request
 * on the GET stream; while no GET stream is open, those wait in its buffer.
 *
 * **Disconnection**
 *
 * A client that drops a POST whose stream it can resume (it was sent an event
 * id) has `resumeGraceMs` to resume it with a GET; after that its requests
 * are cancelled. A POST dropped before anything was sent on it is cancelled
 * at once. The core interrupts a cancelled request and sends nothing for it.
 *
 * **Slow readers**
 *
 * What waits in a stream's send buffer is bounded. A message that leaves it
 * over the high-water mark makes its sender wait for it to drain
 * (backpressure; a response never waits); past `maxStreamBufferBytes`, or
 * not drained for `slowReaderMs`, the stream ends with an `error` event
 * (`slow_reader`, no id) and is detached as if its connection had dropped:
 * its messages stay in its replay buffer, to be resumed with
 * `Last-Event-ID`, and the session goes on. A connection that does not take
 * even that end is destroyed `slowReaderMs` later, which frees its buffer.
 *
 * **Security**
 *
 * {@link layerServer} binds 127.0.0.1 by default. Every request's `Host`
 * must be a loopback name (`localhost`, `127.0.0.1`, `[::1]`, any port), the
 * address the server is bound to (unless it binds every interface), or
 * listed in `allowedHosts`, and its `Origin`, when present, an http(s)
 * origin on a loopback name or listed in `allowedOrigins`: anything else is
 * refused with 403, which defeats DNS rebinding. With the `authorization`
 * option the endpoint is an OAuth 2.1 resource server: every request needs a
 * valid bearer token for this server (401, 403 `insufficient_scope`, 400,
 * each with its `WWW-Authenticate` challenge), the protected-resource
 * metadata is served, and the token's principal goes with each request to
 * the gate and the audit (see `Authorization`). A session whose client does
 * not send `notifications/initialized` within `uninitializedSessionMs` ends,
 * and a request must arrive whole within `requestTimeoutMs`.
 *
 * **Why `node:http` and not Effect's `NodeHttpServer`**
 *
 * The binary is one bundle, so whatever this module imports is loaded by the
 * stdio server too. `@effect/platform-node/NodeHttpServer` brings WebSocket,
 * multipart, zlib and TLS code: measured, it made the stdio server start
 * about 40 ms slower and use 11 MB more memory. This module talks to
 * `node:http` directly through a small adapter, loads it only when
 * {@link layerServer} is built, and imports nothing from `effect/http`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { isUtf8 } from "node:buffer"
import type * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { classify, type Incoming, isNotJson, parseJson } from "../src/internal/jsonRpc.ts"
import * as Meta from "../src/internal/meta.ts"
import type { RequestId } from "../src/McpSchema.ts"
import * as McpServer from "../src/McpServer.ts"
import * as ProtocolVersion from "../src/ProtocolVersion.ts"
import * as Authorization from "../src/Authorization.ts"
import { ServerConfig } from "../src/ServerConfig.ts"
import { type Frame, Transport } from "../src/Transport.ts"
import {
  accepts,
  allowedHostForm,
  allowedOriginForm,
  hostAllowed,
  isAllowedHostEntry,
  isAllowedOriginEntry,
  isJsonContentType,
  originAllowed
} from "./internal/httpChecks.ts"
import {
  type Connection,
  type Decision,
  type EndReason,
  type Exchange,
  HttpSession,
  logLabel,
  makeSchedule,
  requestKey,
  type Schedule,
  type SseStream,
  standaloneStream,
  type Timer
} from "./internal/httpSession.ts"
import { outgoingKind } from "./internal/outgoing.ts"
import { keepAliveComment as sessionKeepAlive, parseEventId } from "./internal/sse.ts"

/**
 * Options of {@link serve}. Every field has a default ({@link defaults}).
 *
 * **Example**
 *
 * ```ts
 * import type * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * // behind a reverse proxy that serves https://mcp.example.com
 * const options: HttpTransport.Options = {
 *   allowedHosts: ["mcp.example.com"],
 *   allowedOrigins: ["https://app.example.com"]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The path of the MCP endpoint (default `/mcp`); any other path gets 404. */
  readonly path?: string | undefined
  /**
   * `Host` values accepted besides the loopback names: `name` (any port),
   * `name:port` (that port only), or `*` (any host: only behind a proxy that
   * checks it).
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** `Origin` values accepted besides loopback origins: `scheme://host[:port]`, or `*`. */
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
  /** How long a session with no open stream and no request in flight lives (default 30 min). */
  readonly sessionIdleMs?: number | undefined
  /** How long a dropped stream that can be resumed waits before its requests are cancelled (default 5 s). */
  readonly resumeGraceMs?: number | undefined
  /** The reconnection delay sent in priming events (`retry:`, default 1 s). */
  readonly retryMs?: number | undefined
  /** How many events each stream keeps for replay (default 100). */
  readonly replayEvents?: number | undefined
  /**
   * How often an open SSE stream gets a keep-alive comment (default 15 s; 0:
   * never). At each tick, a POST that has waited at least half of this for
   * its first message becomes a stream, so that it is not silent for long.
   */
  readonly keepAliveMs?: number | undefined
  /** How many sessions may be open at once; one more `initialize` gets 503 (default 1000). */
  readonly maxSessions?: number | undefined
  /**
   * How many bytes may wait in one SSE stream's send buffer for a client
   * that does not read them (default 4 MiB). A message is written only while
   * less than this waits, so a stream holds at most this plus one message;
   * past it the stream ends with an `error` event (`slow_reader`) and is
   * resumed with `Last-Event-ID`. Since 0.5.0.
   */
  readonly maxStreamBufferBytes?: number | undefined
  /**
   * How long one SSE stream's send buffer may stay full (over its
   * high-water mark) before the stream ends as for {@link maxStreamBufferBytes}
   * (default 30 s; 0: no limit); a stream so ended whose client does not
   * even read that end is dropped this long after. Since 0.5.0.
   */
  readonly slowReaderMs?: number | undefined
  /**
   * How long a session lives whose client never sends
   * `notifications/initialized` after `initialize` (default 60 s; 0: no limit).
   */
  readonly uninitializedSessionMs?: number | undefined
  /**
   * OAuth 2.1 resource server (see `Authorization`, `layers/OAuthResourceServer`):
   * every POST, GET and DELETE of the endpoint needs a valid bearer token
   * (401, 403 `insufficient_scope`, 400 otherwise, each with its
   * `WWW-Authenticate` challenge), the protected-resource metadata is served
   * at `/.well-known/oauth-protected-resource[<path>]`, a session is used by
   * the subject that opened it only, and each request's principal reaches
   * the gate and the audit. Default: none (anyone who reaches the endpoint
   * may use it: keep it on loopback). Since 0.5.0.
   */
  readonly authorization?: Authorization.Authorization["Service"] | undefined
}

/**
 * The default {@link Options}.
 *
 * **Example**
 *
 * ```ts
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * HttpTransport.defaults.path // => "/mcp"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = {
  path: "/mcp",
  allowedHosts: [] as ReadonlyArray<string>,
  allowedOrigins: [] as ReadonlyArray<string>,
  sessionIdleMs: 30 * 60 * 1000,
  resumeGraceMs: 5000,
  retryMs: 1000,
  replayEvents: 100,
  keepAliveMs: 15_000,
  maxSessions: 1000,
  maxStreamBufferBytes: 4 * 1024 * 1024,
  slowReaderMs: 30_000,
  uninitializedSessionMs: 60_000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000
} as const

/**
 * Where {@link layerServer} listens.
 *
 * **Example**
 *
 * ```ts
 * import type * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const anyFreePort: HttpTransport.ListenOptions = { port: 0 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenOptions {
  /** The address to bind (default `127.0.0.1`, this machine only). */
  readonly host?: string | undefined
  /** The port (default 3000; 0 picks a free one). */
  readonly port?: number | undefined
  /**
   * How long a client may take to send a whole request, headers and body
   * (default 30 s; 0: no limit); then it gets 408 and the connection closes.
   * Answers are not limited: a request may run, and a stream stay open, for
   * as long as needed.
   */
  readonly requestTimeoutMs?: number | undefined
  /** How long a client may take to send a request's headers (default 10 s, at most `requestTimeoutMs`). */
  readonly headersTimeoutMs?: number | undefined
}

/**
 * The HTTP server could not listen: the address is in use, or cannot be
 * bound.
 *
 * **Example**
 *
 * ```ts
 * import { ListenError } from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const error = new ListenError({ message: "cannot listen on 127.0.0.1:3000: EADDRINUSE" })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ListenError extends Schema.TaggedError<ListenError>()("ListenError", {
  message: Schema.String
}) {}

/**
 * A listening Node HTTP server and the URL of its MCP endpoint (with the
 * real port when it was started with port 0).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const announce = Effect.flatMap(Effect.service(HttpTransport.Listener), ({ url }) => Effect.logInfo(`serving on ${url}`))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Listener extends Context.Service<
  Listener,
  {
    readonly server: Http.Server
    /** The bound address, as Node reports it. */
    readonly address: AddressInfo
    /**
     * `http://host:port` plus the default endpoint path (`/mcp`; not the
     * `path` option of `serve`). For a server bound to every interface
     * (`0.0.0.0`, `::`), the loopback address (`127.0.0.1`, `[::1]`).
     */
    readonly url: string
  }
>()("effect-mcp-runtime/layers/HttpTransport/Listener") {}

/** How long open connections may finish once the server stops listening. */
const closeGraceMs = 2000

/**
 * A Node HTTP server listening on 127.0.0.1:3000 unless told otherwise;
 * closed when the layer is released.
 *
 * `node:http` is loaded when the layer is built, not when this module is:
 * the one-file binary then starts its stdio server without the HTTP stack.
 *
 * **Example**
 *
 * ```ts
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * const ListenerLive = HttpTransport.layerServer({ port: 8080 })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerServer = (listen: ListenOptions = {}): Layer.Layer<Listener, ListenError> =>
  Layer.effect(
    Listener,
    Effect.gen(function* () {
      const http = yield* Effect.promise(() => import("node:http"))
      const host = listen.host ?? "127.0.0.1"
      const port = listen.port ?? 3000
      const requestTimeout = listen.requestTimeoutMs ?? defaults.requestTimeoutMs
      const headersTimeout = Math.min(
        listen.headersTimeoutMs ?? defaults.headersTimeoutMs,
        requestTimeout > 0 ? requestTimeout : Infinity
      )
      // How often Node checks both timeouts: its default, 30 s, would let a 10 s one run for 40 s.
      const shortest = Math.min(headersTimeout || Infinity, requestTimeout || Infinity)
      const connectionsCheckingInterval =
        shortest === Infinity ? 30_000 : Math.max(10, Math.min(1000, Math.floor(shortest / 4)))
      const server = yield* Effect.acquireRelease(
        Effect.callback<Http.Server, ListenError>((resume) => {
          const server = http.createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval })
          const onError = (error: NodeJS.ErrnoException) =>
            resume(
              Effect.fail(
                new ListenError({ message: `cannot listen on ${host}:${port}: ${error.code ?? error.message}` })
              )
            )
          server.once("error", onError)
          server.listen({ host, port }, () => {
            server.off("error", onError)
            resume(Effect.succeed(server))
          })
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            // Idle keep-alive connections close now; busy ones get a moment.
            const timer = setTimeout(() => server.closeAllConnections(), closeGraceMs)
            server.close(() => {
              clearTimeout(timer)
              resume(Effect.void)
            })
            server.closeIdleConnections()
          })
      )
      const address = server.address() as AddressInfo
      // Bound to every interface: the URL names this machine's loopback address, which is accepted.
      const reachable = address.address === "0.0.0.0" ? "127.0.0.1" : address.address === "::" ? "::1" : address.address
      const name = address.family === "IPv6" ? `[${reachable}]` : reachable
      return Listener.of({ server, address, url: `http://${name}:${address.port}${defaults.path}` })
    })
  )

/**
 * The entries of `allowedHosts` and `allowedOrigins` that could never match
 * a request (an origin given as a host, a bare name given as an origin),
 * each with the form that was expected. {@link serve} logs a warning for
 * each; the CLI refuses to start.
 *
 * **Example**
 *
 * ```ts
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * HttpTransport.invalidEntries({ allowedHosts: ["https://mcp.example.com"] })[0]?.entry // => "https://mcp.example.com"
 * ```
 *
 * @category validation
 * @since 0.1.0
 */
export const invalidEntries = (
  options: Pick<Options, "allowedHosts" | "allowedOrigins">
): ReadonlyArray<{
  readonly option: "allowedHosts" | "allowedOrigins"
  readonly entry: string
  readonly expected: string
}> => [
  ...(options.allowedHosts ?? [])
    .filter((entry) => !isAllowedHostEntry(entry))
    .map((entry) => ({ option: "allowedHosts" as const, entry, expected: allowedHostForm })),
  ...(options.allowedOrigins ?? [])
    .filter((entry) => !isAllowedOriginEntry(entry))
    .map((entry) => ({ option: "allowedOrigins" as const, entry, expected: allowedOriginForm }))
]

/** Whether a bound address is every interface of the machine (`0.0.0.0`, `::`). */
const isWildcard = (address: string): boolean => address === "0.0.0.0" || address === "::"

// -- responses -----------------------------------------------------------------

const errorBody = (code: number, message: string, id: RequestId | null = null): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })

/** The JSON-RPC error code of transport-level refusals (as the official SDK): a server error. */
const transportError = -32000
/** The JSON-RPC error code for an unknown or expired session (as the official SDK). */
const sessionNotFound = -32001

const allowedMethods = "GET, POST, DELETE"

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const header = (request: Http.IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/** Writes a whole response, unless the client is already gone. */
const respond = (
  response: Http.ServerResponse,
  status: number,
  headers: Record<string, string>,
  body?: string
): Effect.Effect<void> =>
  Effect.sync(() => {
    if (response.headersSent || response.destroyed) return
    response.writeHead(status, { ...headers, "content-length": body === undefined ? 0 : Buffer.byteLength(body) })
    response.end(body)
  })

const json = (response: Http.ServerResponse, body: string, headers: Record<string, string> = {}) =>
  respond(response, 200, { "content-type": "application/json", ...headers }, body)

const eventStreamHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" }
// A stateless request's stream: proxies must not buffer it (nginx reads X-Accel-Buffering).
const statelessStreamHeaders = { ...eventStreamHeaders, "x-accel-buffering": "no" }
const keepAliveComment = ":\n\n"

/** Why a stream was cut for a slow reader: its buffer reached the cap, or it did not drain in time. */
type SlowReason = "buffer" | "stalled"

/** The connection of a session's SSE stream, which bounds what it buffers for a reader that does not read. */
interface StreamConnection extends Connection {
  /** Waits until what was written drains below the high-water mark, or the connection is over (never fails). */
  readonly drained: Effect.Effect<void>
  /**
   * Runs `attach`, whose replay (at most the stream's replay buffer, which
   * the server holds anyway) is written whatever the cap: the cap then
   * counts from what the replay left, until the buffer first drains.
   */
  readonly replay: <A>(attach: () => A) => A
}

/** What bounds a stream's connection (see `maxStreamBufferBytes` and `slowReaderMs`). */
interface StreamLimits {
  readonly maxBufferBytes: number
  readonly slowReaderMs: number
  readonly schedule: Schedule
  /** A write left the connection over its high-water mark: whoever sent it may wait for {@link StreamConnection.drained}. */
  readonly congested: (connection: StreamConnection) => void
  /** A stream was cut (logged by the transport). */
  readonly cut: (fields: { readonly reason: SlowReason; readonly buffered_bytes: number }) => void
  /** A connection whose reader did not take even its end was dropped, and its buffer freed (logged by the transport). */
  readonly dropped: (fields: { readonly buffered_bytes: number }) => void
}

/**
 * The last words of a stream cut for a slow reader: a comment, then an
 * `error` event (clients read JSON-RPC messages from `message` events only,
 * so it is never taken for one) without an id, so that the client's
 * `Last-Event-ID` still names the last message it got.
 */
const slowReaderEvent = (
  reason: SlowReason,
  buffered: number,
  limits: Pick<StreamLimits, "maxBufferBytes" | "slowReaderMs">,
  resumable = true
): string =>
  `: closed: slow reader\n\nevent: error\ndata: ${JSON.stringify({
    error: "slow_reader",
    message:
      (reason === "buffer"
        ? `The stream was closed: ${buffered} bytes waited to be read (limit ${limits.maxBufferBytes}).`
        : `The stream was closed: it was not read for ${limits.slowReaderMs} ms.`) +
      (resumable
        ? " Reconnect with a GET and Last-Event-ID to resume it."
        : " What the request sent after this is lost; its work was not stopped."),
    bufferedBytes: buffered,
    limitBytes: limits.maxBufferBytes
  })}\n\n`

/**
 * Starts an SSE response; the connection writes its events. What waits in
 * the response's buffer is bounded: a write that leaves it over the
 * high-water mark makes its sender wait for `drain` (`limits.congested`),
 * keep-alive comments are skipped while it is full, and a reader that lets
 * it reach `maxBufferBytes`, or does not drain it for `slowReaderMs`, gets
 * a last event that says why, and the connection ends (`onCut`: the stream
 * detaches, its events stay in the replay buffer). A reader that does not
 * take even that is dropped `slowReaderMs` later, which frees the buffer.
 */
const openEventStream = (response: Http.ServerResponse, limits: StreamLimits, onCut: () => void): StreamConnection => {
  response.writeHead(200, eventStreamHeaders)
  response.flushHeaders()
  let isCut = false
  // Bytes a replay left in the buffer, allowed on top of the cap until it first drains.
  let allowance = 0
  let replaying = false
  let stallTimer: Timer | undefined = undefined
  let dropTimer: Timer | undefined = undefined
  const waiters = new Set<() => void>()
  // A woken sender may write (and wait) again at once: it waits for the next drain.
  const release = () => {
    const woken = [...waiters]
    waiters.clear()
    for (const waiter of woken) waiter()
  }
  const open = () => !isCut && !response.writableEnded && !response.destroyed
  const onDrain = () => {
    if (response.writableNeedDrain) return
    allowance = 0
    stallTimer?.cancel()
    stallTimer = undefined
    release()
  }
  response.on("drain", onDrain)
  response.once("close", () => {
    stallTimer?.cancel()
    dropTimer?.cancel()
    response.off("drain", onDrain)
    release()
  })
  const cutOff = (reason: SlowReason) => {
    if (!open()) return
    isCut = true
    stallTimer?.cancel()
    const buffered = response.writableLength
    response.end(slowReaderEvent(reason, buffered, limits))
    dropTimer = limits.schedule(
      limits.slowReaderMs > 0 ? limits.slowReaderMs : defaults.slowReaderMs,
      Effect.sync(() => {
        if (response.writableFinished || response.destroyed) return
        const buffered = response.writableLength
        response.destroy()
        limits.dropped({ buffered_bytes: buffered })
      })
    )
    release()
    limits.cut({ reason, buffered_bytes: buffered })
    onCut()
  }
  // The buffer has not drained for `slowReaderMs`: the stream is cut; one that was ended already (all that was
  // due on it is written) has its connection dropped instead, which frees what it still buffers.
  const stalled = Effect.sync(() => {
    stallTimer = undefined
    if (open()) return cutOff("stalled")
    if (isCut || response.writableFinished || response.destroyed) return
    const buffered = response.writableLength
    response.destroy()
    limits.dropped({ buffered_bytes: buffered })
  })
  const armStall = () => {
    if (stallTimer === undefined && limits.slowReaderMs > 0) stallTimer = limits.schedule(limits.slowReaderMs, stalled)
  }
  const connection: StreamConnection = {
    write: (text) => {
      if (!open()) return
      // A keep-alive comment can wait: a full buffer is not an idle stream.
      if (text === sessionKeepAlive && response.writableNeedDrain) return
      if (!replaying && response.writableLength >= limits.maxBufferBytes + allowance) return cutOff("buffer")
      if (!response.write(text)) {
        armStall()
        limits.congested(connection)
      }
    },
    replay: (attach) => {
      replaying = true
      try {
        return attach()
      } finally {
        replaying = false
        if (response.writableNeedDrain) allowance = response.writableLength
      }
    },
    end: () => {
      if (response.writableEnded) return
      response.end()
      if (response.writableNeedDrain) armStall()
    },
    drained: Effect.callback<void>((resume) => {
      if (!open() || !response.writableNeedDrain) return resume(Effect.void)
      const waiter = () => resume(Effect.void)
      waiters.add(waiter)
      return Effect.sync(() => {
        waiters.delete(waiter)
      })
    })
  }
  return connection
}

type Body =
  | { readonly _tag: "Body"; readonly bytes: Buffer }
  | { readonly _tag: "TooLarge"; readonly size: number }
  | { readonly _tag: "Failed" }

/** Reads a request body, giving up as soon as it grows past `limit` bytes. */
const readBody = (request: Http.IncomingMessage, limit: number): Effect.Effect<Body> =>
  Effect.callback<Body>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    const settle = (body: Body) => {
      if (settled) return
      settled = true
      request.off("end", onEnd)
      request.off("error", onError)
      resume(Effect.succeed(body))
    }
    // Past the limit the bytes are dropped as they come (never buffered).
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) settle({ _tag: "TooLarge", size })
      else if (!settled) chunks.push(chunk)
    }
    const onEnd = () => settle({ _tag: "Body", bytes: Buffer.concat(chunks, size) })
    const onError = () => settle({ _tag: "Failed" })
    request.on("data", onData)
    request.on("end", onEnd)
    request.on("error", onError)
    return Effect.sync(() => {
      settled = true
      request.off("end", onEnd)
      request.off("error", onError)
    })
  })

const decoder = new TextDecoder()

/**
 * Serves MCP over Streamable HTTP on the {@link Listener} in context (see
 * {@link layerServer}), with the server `make` builds (`McpServer.make()`):
 * a legacy client's session (`initialize`, `Mcp-Session-Id`) runs the
 * server's `connection` with that session's {@link Transport}; a request of
 * protocol 2026-07-28 (it names its version in `_meta`, or comes without a
 * session) is served by the server's `request`, its routing headers checked
 * against its body, answered with JSON or, when something goes out before
 * the response, a stream of its own. Both share the server's executor, so
 * the execution policy's limits are server-wide. Runs until interrupted;
 * then listen streams end with their result, every session ends and drains
 * (`ServerConfig.shutdownGraceMs`) before it returns, and the connections
 * still open get what their sessions owed them.
 *
 * **Example**
 *
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as HttpTransport from "effect-mcp-runtime/layers/HttpTransport"
 *
 * HttpTransport.serve(McpServer.make()).pipe(
 *   Effect.provide(Layer.mergeAll(HttpTransport.layerServer({ port: 3000 }), Kernel.layer())),
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @category running
 * @since 0.1.0
 */
export const serve = <R>(
  make: Effect.Effect<McpServer.Server, never, R>,
  options: Options = {}
): Effect.Effect<never, never, Listener | Exclude<R, Scope.Scope>> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { address, server } = yield* Listener
      const config = yield* ServerConfig
      const clock = yield* Clock.Clock
      const built = yield* make
      const path = options.path ?? defaults.path
      const allowedOrigins = options.allowedOrigins ?? defaults.allowedOrigins
      const maxSessions = options.maxSessions ?? defaults.maxSessions
      const keepAliveMs = options.keepAliveMs ?? defaults.keepAliveMs
      const maxStreamBufferBytes = options.maxStreamBufferBytes ?? defaults.maxStreamBufferBytes
      const slowReaderMs = options.slowReaderMs ?? defaults.slowReaderMs
      const settings = {
        sessionIdleMs: options.sessionIdleMs ?? defaults.sessionIdleMs,
        resumeGraceMs: options.resumeGraceMs ?? defaults.resumeGraceMs,
        retryMs: options.retryMs ?? defaults.retryMs,
        replayEvents: options.replayEvents ?? defaults.replayEvents,
        uninitializedSessionMs: options.uninitializedSessionMs ?? defaults.uninitializedSessionMs,
        keepAliveMs
      }
      for (const { entry, expected, option } of invalidEntries(options)) {
        yield* Effect.logWarning(`malformed ${option} entry ${JSON.stringify(entry)}: expected ${expected}`)
      }
      // The address the server is bound to names it: its Host is accepted (any port). Every
      // interface (0.0.0.0, ::) names no host in particular: only what is allowed.
      const allowedHosts = isWildcard(address.address)
        ? (options.allowedHosts ?? defaults.allowedHosts)
        : [
            ...(options.allowedHosts ?? defaults.allowedHosts),
            address.family === "IPv6" ? `[${address.address}]` : address.address
          ]
      if (isWildcard(address.address) && allowedHosts.length === 0) {
        yield* Effect.logWarning(
          `listening on every interface (${address.address}), but only requests to a loopback name are accepted: ` +
            "list the names or addresses remote clients use in --allowed-hosts (allowedHosts)",
          { address: address.address, port: address.port }
        )
      }

      // -- authorization: the protected-resource metadata, and who opened each session ------------
      const authorization = options.authorization
      const resourceMetadata =
        authorization === undefined
          ? ""
          : (authorization.options.resourceMetadataUrl ?? Authorization.metadataUrlOf(authorization.options.audience))
      const metadataBody =
        authorization === undefined ? undefined : JSON.stringify(Authorization.metadataOf(authorization.options))
      const metadataPaths = new Set([Authorization.wellKnownPath, `${Authorization.wellKnownPath}${path}`])
      if (authorization !== undefined) metadataPaths.add(new URL(resourceMetadata).pathname)
      // The subject each session was opened by: only that subject's tokens may use it.
      const sessionSubjects = new WeakMap<HttpSession, string>()

      // Sessions that answered initialize, by id; `live` also holds those still initializing.
      const sessions = new Map<string, HttpSession>()
      const live = new Set<HttpSession>()
      let closing = false

      const sessionFibers = yield* FiberSet.make()
      const runSession = yield* FiberSet.runtime(sessionFibers)<never>()
      const backgroundFibers = yield* FiberSet.make()
      const runBackground = yield* FiberSet.runtime(backgroundFibers)<never>()
      const schedule = yield* makeSchedule
      const now = () => clock.currentTimeMillisUnsafe()

      const onEnd = (ended: HttpSession, reason: EndReason): Effect.Effect<void> =>
        Effect.suspend(() => {
          if (sessions.get(ended.id) !== ended) return Effect.void
          sessions.delete(ended.id)
          return Effect.logInfo("http session ended", {
            session: ended.label,
            reason,
            duration_ms: clock.currentTimeMillisUnsafe() - ended.startedAt
          })
        })

      // -- refusals ---------------------------------------------------------------

      const reject = (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        status: number,
        message: string,
        options: {
          readonly code?: number | undefined
          readonly id?: RequestId | null | undefined
          readonly headers?: Record<string, string> | undefined
          readonly session?: string | undefined
        } = {}
      ): Effect.Effect<void> => {
        const fields: Record<string, unknown> = {
          status,
          reason: message,
          method: request.method,
          path: pathOf(request.url ?? "")
        }
        if (options.session !== undefined) fields.session = options.session
        const log =
          status === 403
            ? Effect.logWarning("http request rejected", fields)
            : Effect.logInfo("http request rejected", fields)
        return Effect.andThen(
          log,
          respond(
            response,
            status,
            { "content-type": "application/json", ...options.headers },
            errorBody(options.code ?? transportError, message, options.id ?? null)
          )
        )
      }

      // The session a request names, or the refusal to send.
      const sessionOf = (
        request: Http.IncomingMessage,
        response: Http.ServerResponse
      ): HttpSession | Effect.Effect<void> => {
        const id = header(request, "mcp-session-id")
        if (id === undefined) {
          return reject(
            request,
            response,
            400,
            "Bad Request: Mcp-Session-Id header is required (send initialize first)"
          )
        }
        const found = sessions.get(id)
        if (found === undefined) {
          return reject(
            request,
            response,
            404,
            "Session not found: it was terminated or expired; initialize a new one",
            {
              code: sessionNotFound,
              session: logLabel(id)
            }
          )
        }
        const version = header(request, "mcp-protocol-version")
        if (version !== undefined && !ProtocolVersion.isSupported(version)) {
          return reject(
            request,
            response,
            400,
            `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} ` +
              `(supported: ${ProtocolVersion.supported.join(", ")})`,
            { session: found.label }
          )
        }
        return found
      }

      // -- authorization -------------------------------------------------------------

      // A request the token does not authorize, with its challenge: 401 (no token, or an invalid one), 403 (a
      // scope is missing: step-up), 400 (a malformed Authorization header).
      const unauthorized = (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        auth: Authorization.Authorization["Service"],
        refusal: Exclude<Authorization.Credentials, { readonly _tag: "Bearer" }> | Authorization.AuthError,
        id: RequestId | null = null
      ): Effect.Effect<void> => {
        const scopes = auth.options.requiredScopes ?? []
        const challenge = (options: Omit<Parameters<typeof Authorization.challenge>[0], "resourceMetadata">) => ({
          "www-authenticate": Authorization.challenge({ resourceMetadata, scopes, ...options })
        })
        switch (refusal._tag) {
          case "None":
            return reject(
              request,
              response,
              401,
              "Unauthorized: an access token is required (Authorization: Bearer <token>); " +
                `the authorization server is named at ${resourceMetadata}`,
              { headers: challenge({}) }
            )
          case "Malformed":
            return reject(request, response, 400, `Bad Request: malformed Authorization header: ${refusal.reason}`, {
              headers: challenge({ error: "invalid_request", description: refusal.reason })
            })
          case "InvalidToken":
            return reject(request, response, 401, `Unauthorized: invalid access token: ${refusal.message}`, {
              headers: challenge({ error: "invalid_token", description: refusal.message })
            })
          case "InsufficientScope":
            return reject(request, response, 403, `Forbidden: insufficient scope: ${refusal.message}`, {
              id,
              headers: challenge({ error: "insufficient_scope", scopes: refusal.scopes, description: refusal.message })
            })
        }
      }

      // A session opened with another subject's token: refused (a session is not a credential).
      const foreign = (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        owner: HttpSession,
        principal: Authorization.Principal | undefined
      ): Effect.Effect<void> | undefined => {
        const subject = sessionSubjects.get(owner)
        if (subject === undefined || principal === undefined || principal.subject === subject) return undefined
        return reject(
          request,
          response,
          403,
          "Forbidden: this session was opened with another principal's token; initialize a session of your own",
          { session: owner.label }
        )
      }

      // The protected-resource metadata document (RFC 9728): public, no token needed.
      const metadata = (request: Http.IncomingMessage, response: Http.ServerResponse): Effect.Effect<void> =>
        request.method === "GET" || request.method === "HEAD"
          ? Effect.sync(() => {
              if (response.headersSent || response.destroyed) return
              response.writeHead(200, {
                "content-type": "application/json",
                "cache-control": "max-age=3600",
                "access-control-allow-origin": "*",
                "content-length": Buffer.byteLength(metadataBody!)
              })
              response.end(request.method === "HEAD" ? undefined : metadataBody)
            })
          : reject(request, response, 405, "Method Not Allowed: use GET", { headers: { allow: "GET, HEAD" } })

      // -- answers ----------------------------------------------------------------

      // The connection whose buffer the last write left full: its sender waits for it to drain (see `send`).
      let congested: StreamConnection | undefined = undefined
      const limitsOf = (owner: HttpSession, stream: number): StreamLimits => ({
        maxBufferBytes: maxStreamBufferBytes,
        slowReaderMs,
        schedule,
        congested: (connection) => {
          congested = connection
        },
        cut: (fields) =>
          void runBackground(
            Effect.logWarning("http stream closed: slow reader", {
              session: owner.label,
              stream,
              ...fields,
              limit_bytes: maxStreamBufferBytes,
              slow_reader_ms: slowReaderMs
            })
          ),
        dropped: (fields) =>
          void runBackground(
            Effect.logWarning("http stream dropped: slow reader", {
              session: owner.label,
              stream,
              ...fields,
              slow_reader_ms: slowReaderMs
            })
          )
      })

      // Starts an SSE response for a session's stream. The stream hears when the connection closes, or is
      // cut for a slow reader (maybe while it replays, before `attach` returns).
      const connect = (owner: HttpSession, response: Http.ServerResponse, stream: number) => {
        let attached: SseStream | undefined = undefined
        let cut = false
        const connection = openEventStream(response, limitsOf(owner, stream), () => {
          cut = true
          if (attached !== undefined) owner.connectionClosed(attached, connection)
        })
        return {
          connection,
          attached: (to: SseStream) => {
            attached = to
            response.once("close", () => owner.connectionClosed(to, connection))
            if (cut) owner.connectionClosed(to, connection)
          }
        }
      }

      // Starts an SSE response and attaches it to a stream; the stream hears when it closes.
      const streamOn = (owner: HttpSession, response: Http.ServerResponse, stream: SseStream) => {
        const { attached, connection } = connect(owner, response, stream.id)
        connection.replay(() => owner.attachPost(stream, connection))
        attached(stream)
      }

      const answerWith = (
        owner: HttpSession,
        response: Http.ServerResponse,
        decision: Decision,
        headers?: Record<string, string>
      ): Effect.Effect<void> => {
        switch (decision._tag) {
          case "Json":
            return json(response, decision.body, headers)
          case "Empty":
            return respond(response, 200, eventStreamHeaders, "")
          case "Sse":
            return Effect.sync(() => {
              if (response.destroyed) {
                owner.abandon(decision.stream.exchange!, "The client disconnected before the request was answered.")
              } else streamOn(owner, response, decision.stream)
            })
        }
      }

      // Waits for the first message due on an exchange and answers its POST accordingly.
      const answer = (owner: HttpSession, response: Http.ServerResponse, exchange: Exchange): Effect.Effect<void> =>
        Deferred.await(exchange.decision).pipe(
          Effect.onInterrupt(() =>
            Effect.suspend(() => {
              // Nothing with an id was sent on this POST: nothing to resume.
              const ids = owner.abandon(exchange, "The client disconnected before the request was answered.")
              return ids.length === 0
                ? Effect.void
                : Effect.logInfo("http client disconnected; cancelling its requests", { session: owner.label, ids })
            })
          ),
          Effect.flatMap((decision) => answerWith(owner, response, decision))
        )

      // -- stateless requests (2026-07-28) ------------------------------------------

      // Whether a message is served without a session: it names its protocol version in
      // `_meta`, or, without a session header, it is anything but a legacy client's
      // (initialize, or a request that says it speaks a legacy version).
      const isStateless = (request: Http.IncomingMessage, message: Incoming): boolean => {
        if (message._tag === "Request" || message._tag === "Notification") {
          if (Meta.namesVersion(message.params)) return true
          if (message._tag === "Request" && message.method === "initialize") return false
        }
        if (header(request, "mcp-session-id") !== undefined) return false
        const version = header(request, "mcp-protocol-version")
        return version === undefined || !ProtocolVersion.isLegacy(version)
      }

      // The POSTs of stateless requests not answered yet: at a keep-alive tick, one that
      // waited long becomes a stream (so that it is not silent for long), and open
      // streams get a comment.
      // The shutdown waits for their fibers.
      interface Pending {
        readonly response: Http.ServerResponse
        readonly openedAt: number
        readonly fiber: Fiber.Fiber<unknown, unknown>
        sse: boolean
      }
      const pending = new Set<Pending>()
      const startStream = (exchange: Pending) => {
        if (exchange.sse || exchange.response.headersSent || exchange.response.destroyed) return
        exchange.response.writeHead(200, statelessStreamHeaders)
        exchange.response.flushHeaders()
        exchange.sse = true
      }
      const keepAliveStateless = () => {
        const at = now()
        for (const exchange of pending) {
          if (!exchange.sse && at - exchange.openedAt < keepAliveMs / 2) continue
          startStream(exchange)
          // A full buffer is not an idle stream: no comment then.
          if (!exchange.response.writableEnded && !exchange.response.destroyed && !exchange.response.writableNeedDrain)
            exchange.response.write(keepAliveComment)
        }
      }
      const statusOf = { ok: 200, bad_request: 400, not_found: 404 } as const
      // A stateless stream has no replay to resume from: past the cap it ends with the slow-reader event, the
      // request's later messages are dropped, and a reader that does not take even that is dropped after a while.
      const cutStateless = (response: Http.ServerResponse) => {
        const buffered = response.writableLength
        const limits = { maxBufferBytes: maxStreamBufferBytes, slowReaderMs }
        response.end(slowReaderEvent("buffer", buffered, limits, false))
        schedule(
          slowReaderMs > 0 ? slowReaderMs : defaults.slowReaderMs,
          Effect.sync(() => {
            if (!response.writableFinished && !response.destroyed) response.destroy()
          })
        )
        runBackground(
          Effect.logWarning("http stream closed: slow reader", {
            stateless: true,
            reason: "buffer",
            buffered_bytes: buffered,
            limit_bytes: maxStreamBufferBytes
          })
        )
      }

      const statelessRequest = (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        message: Incoming & { readonly _tag: "Request" },
        bytesIn: number,
        principal: Authorization.Principal | undefined
      ): Effect.Effect<void> =>
        Effect.withFiber((fiber) => {
          const exchange: Pending = { response, openedAt: now(), fiber, sse: false }
          pending.add(exchange)
          // Whatever the request sends before its response makes the answer a stream.
          const write = (line: string) => {
            startStream(exchange)
            if (response.writableEnded || response.destroyed) return
            if (response.writableLength >= maxStreamBufferBytes) return cutStateless(response)
            response.write(`event: message\ndata: ${line}\n\n`)
          }
          return built
            .request(
              { id: message.id, method: message.method, params: message.params, bytesIn },
              {
                send: (line) => Effect.sync(() => write(line)),
                headers: (name) => header(request, name),
                principal
              }
            )
            .pipe(
              Effect.flatMap((answer) => {
                if (!exchange.sse) {
                  return respond(response, statusOf[answer.status], { "content-type": "application/json" }, answer.line)
                }
                return Effect.sync(() => {
                  write(answer.line)
                  if (!response.writableEnded) response.end()
                })
              }),
              Effect.ensuring(
                Effect.sync(() => {
                  pending.delete(exchange)
                })
              )
            )
        })

      // -- POST -------------------------------------------------------------------

      const initialize = Effect.fnUntraced(function* (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        frame: Frame,
        id: RequestId
      ) {
        if (live.size >= maxSessions) {
          return yield* reject(request, response, 503, `Service Unavailable: too many open sessions (${maxSessions})`)
        }
        const frames = yield* Queue.unbounded<Frame, Cause.Done>()
        const owner: HttpSession = new HttpSession({ id: crypto.randomUUID(), frames, settings, schedule, now, onEnd })
        owner.startedAt = clock.currentTimeMillisUnsafe()
        live.add(owner)
        if (frame._tag === "Message" && frame.principal !== undefined)
          sessionSubjects.set(owner, frame.principal.subject)
        const transport = Transport.of({
          frames: Stream.fromQueue(frames),
          // Backpressure: a message that leaves its stream's buffer full makes its sender (a tool's progress,
          // its log, a request to the client) wait until the buffer drains, or until the stream is cut for a
          // slow reader (`slowReaderMs`). A response never waits: its request is done.
          send: (message, related) => {
            const kind = outgoingKind(message)
            if (kind === "response" || kind === "batch") return owner.send(message, related)
            return Effect.suspend(() => {
              congested = undefined
              return owner.send(message, related)
            }).pipe(
              Effect.andThen(
                Effect.suspend(() => {
                  const full = congested
                  congested = undefined
                  return full === undefined ? Effect.void : full.drained
                })
              )
            )
          },
          detach: (related) => Effect.sync(() => owner.detach(related))
        })
        runSession(
          built.connection.pipe(
            Effect.provideService(Transport, transport),
            // The core's lines (one per request) name the session too.
            Effect.annotateLogs("session", owner.label),
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.void
                : Effect.andThen(
                    Effect.logError("http session failed", { session: owner.label, cause: Cause.pretty(cause) }),
                    owner.end("failed")
                  )
            ),
            // The core returns once the session's frames have ended and it has drained.
            Effect.ensuring(
              Effect.andThen(
                owner.end("shutdown"),
                Effect.sync(() => {
                  live.delete(owner)
                  owner.finish()
                })
              )
            )
          )
        )
        const exchange = owner.open([id], false)
        owner.offer(frame)
        const decision = yield* Deferred.await(exchange.decision).pipe(Effect.onInterrupt(() => owner.end("abandoned")))
        if (decision._tag === "Json") {
          const answer = parseJson(decision.body) as { result?: { protocolVersion?: unknown } }
          const version = isNotJson(answer) ? undefined : answer.result?.protocolVersion
          if (typeof version === "string" && owner.ended === undefined) {
            sessions.set(owner.id, owner)
            owner.started(version)
            yield* Effect.logInfo("http session started", { session: owner.label, protocol_version: version })
            return yield* json(response, decision.body, { "mcp-session-id": owner.id })
          }
        }
        // An error (bad params): no session.
        yield* owner.end("initialize failed")
        return yield* answerWith(owner, response, decision)
      })

      const post = Effect.fnUntraced(function* (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        principal: Authorization.Principal | undefined
      ) {
        const accept = header(request, "accept")
        if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
          return yield* reject(
            request,
            response,
            406,
            "Not Acceptable: Accept must list both application/json and text/event-stream"
          )
        }
        if (!isJsonContentType(header(request, "content-type"))) {
          return yield* reject(request, response, 415, "Unsupported Media Type: Content-Type must be application/json")
        }
        const limit = config.maxMessageBytes
        const tooLarge = (size: string) =>
          reject(
            request,
            response,
            413,
            `Invalid Request: message of ${size} bytes exceeds the limit of ${limit} bytes`,
            {
              code: -32600,
              // The rest of the body is not read: the connection closes after the answer.
              headers: { connection: "close" }
            }
          )
        const declared = header(request, "content-length")
        if (declared !== undefined && Number(declared) > limit) return yield* tooLarge(declared)
        const body = yield* readBody(request, limit)
        if (body._tag === "TooLarge") return yield* tooLarge(`more than ${limit}`)
        if (body._tag === "Failed")
          return yield* reject(request, response, 400, "Bad Request: the body could not be read")
        const bytes = body.bytes
        if (!isUtf8(bytes)) {
          return yield* reject(request, response, 400, "Parse error: the message is not valid UTF-8", { code: -32700 })
        }
        const text = decoder.decode(bytes)
        const value = parseJson(text)
        if (isNotJson(value)) {
          return yield* reject(request, response, 400, "Parse error: the message is not valid JSON", { code: -32700 })
        }
        const batch = Array.isArray(value)
        if (batch && value.length === 0) {
          return yield* reject(request, response, 400, "Invalid Request: empty batch", { code: -32600 })
        }
        const messages: Array<Incoming> = batch ? value.map(classify) : [classify(value)]
        for (const message of messages) {
          if (message._tag === "Invalid") {
            return yield* reject(request, response, 400, message.message, {
              code: -32600,
              id: batch ? null : message.id
            })
          }
        }
        const requests = messages.filter((message) => message._tag === "Request")
        // Step-up: a tools/call needs the scopes of its tool (`toolScopes`); without them, 403 insufficient_scope.
        if (authorization !== undefined && principal !== undefined) {
          for (const message of requests) {
            const tool = message.method === "tools/call" ? message.params?.name : undefined
            if (typeof tool !== "string") continue
            const held = yield* Effect.result(
              Authorization.requireScopes(principal, authorization.scopesForTool(tool), `tools/call of ${tool}`)
            )
            if (held._tag === "Failure") {
              return yield* unauthorized(request, response, authorization, held.failure, batch ? null : message.id)
            }
          }
        }
        const frame: Frame = { _tag: "Message", text, bytes: bytes.length, parsed: value, principal }

        // A message of protocol 2026-07-28 carries its own context: served without a session.
        if (!batch && isStateless(request, messages[0]!)) {
          const message = messages[0]!
          if (message._tag === "Request") {
            // Served on the scheduler's next turn, not inside the socket's read callback: the requests read in one
            // turn of the event loop are then served, and answered, together (as a session's fiber does), which
            // saves both sides wakeups. Measured: about a fifth less server CPU per call at 16 in flight.
            yield* Effect.yieldNow
            return yield* statelessRequest(request, response, message, bytes.length, principal)
          }
          if (message._tag === "Notification") return yield* respond(response, 202, {})
          return yield* reject(
            request,
            response,
            400,
            "Invalid Request: protocol 2026-07-28 clients send no responses (the server sends no requests)",
            { code: -32600 }
          )
        }
        if (
          batch &&
          messages.some(
            (message) =>
              (message._tag === "Request" || message._tag === "Notification") && Meta.namesVersion(message.params)
          )
        ) {
          return yield* reject(
            request,
            response,
            400,
            "Invalid Request: protocol 2026-07-28 has no JSON-RPC batches; send one message per POST",
            { code: -32600 }
          )
        }

        if (requests.some((message) => message.method === "initialize")) {
          if (batch) {
            return yield* reject(request, response, 400, "Invalid Request: initialize must not be part of a batch", {
              code: -32600
            })
          }
          const id = header(request, "mcp-session-id")
          if (id !== undefined) {
            return yield* sessions.has(id)
              ? reject(request, response, 400, "Invalid Request: the session is already initialized", {
                  code: -32600,
                  id: requests[0]!.id,
                  session: logLabel(id)
                })
              : reject(request, response, 404, "Session not found: send initialize without an Mcp-Session-Id header", {
                  code: sessionNotFound,
                  session: logLabel(id)
                })
          }
          return yield* initialize(request, response, frame, requests[0]!.id)
        }

        const owner = sessionOf(request, response)
        if (!(owner instanceof HttpSession)) return yield* owner
        const stranger = foreign(request, response, owner, principal)
        if (stranger !== undefined) return yield* stranger
        owner.touch()
        if (batch && !owner.acceptsBatches) {
          return yield* reject(
            request,
            response,
            400,
            `Invalid Request: JSON-RPC batches are not part of protocol version ${owner.protocolVersion}; ` +
              `send one message per POST`,
            { code: -32600, session: owner.label }
          )
        }
        const seen = new Set<string>()
        for (const message of requests) {
          const key = requestKey(message.id)
          if (seen.has(key) || owner.isOpen(message.id)) {
            return yield* reject(
              request,
              response,
              400,
              `Invalid Request: id ${JSON.stringify(message.id)} is already in flight`,
              { code: -32600, id: batch ? null : message.id, session: owner.label }
            )
          }
          seen.add(key)
        }
        for (const message of messages) {
          if (message._tag !== "Notification") continue
          if (message.method === "notifications/cancelled") {
            const id = message.params?.requestId
            if (typeof id === "string" || typeof id === "number") owner.clientCancelled(id)
          } else if (message.method === "notifications/initialized") owner.markInitialized()
        }
        if (requests.length === 0) {
          owner.offer(frame)
          owner.checkIdle()
          return yield* respond(response, 202, {})
        }
        const exchange = owner.open(
          requests.map((message) => message.id),
          batch
        )
        owner.offer(frame)
        return yield* answer(owner, response, exchange)
      })

      // -- GET and DELETE ---------------------------------------------------------

      // Without a session, the endpoint speaks 2026-07-28, which is POST only.
      const sessionless = (request: Http.IncomingMessage, response: Http.ServerResponse) =>
        reject(
          request,
          response,
          405,
          `Method Not Allowed: ${request.method} needs a session (Mcp-Session-Id, from initialize); ` +
            `without one, protocol 2026-07-28 sends every message with POST`,
          { headers: { allow: "POST" } }
        )

      const get = Effect.fnUntraced(function* (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        principal: Authorization.Principal | undefined
      ) {
        if (header(request, "mcp-session-id") === undefined) return yield* sessionless(request, response)
        if (!accepts(header(request, "accept"), "text/event-stream")) {
          return yield* reject(request, response, 406, "Not Acceptable: Accept must list text/event-stream")
        }
        const owner = sessionOf(request, response)
        if (!(owner instanceof HttpSession)) return yield* owner
        const stranger = foreign(request, response, owner, principal)
        if (stranger !== undefined) return yield* stranger
        const lastEventId = header(request, "last-event-id")
        const position = lastEventId === undefined ? { stream: standaloneStream, seq: -1 } : parseEventId(lastEventId)
        if (position === undefined || (lastEventId !== undefined && !owner.canResume(position))) {
          return yield* reject(
            request,
            response,
            400,
            `Bad Request: Last-Event-ID ${JSON.stringify(lastEventId)} names no stream that can be resumed`,
            { session: owner.label }
          )
        }
        if (owner.isAttached(position.stream)) {
          return yield* reject(
            request,
            response,
            409,
            lastEventId === undefined
              ? "Conflict: a GET stream is already open for this session"
              : "Conflict: the stream is already open on another connection",
            { session: owner.label }
          )
        }
        // The headers go out at once; the events that waited for this stream follow them.
        const opened = connect(owner, response, position.stream)
        const connection = opened.connection
        const attached = connection.replay(() =>
          lastEventId === undefined ? owner.openStandalone(connection) : owner.resume(position, connection)
        )
        opened.attached(attached.stream)
        if (attached.lost > 0) {
          yield* Effect.logWarning("resumed a stream whose oldest events were dropped from its buffer", {
            session: owner.label,
            last_event_id: lastEventId,
            lost: attached.lost
          })
        }
      })

      const remove = Effect.fnUntraced(function* (
        request: Http.IncomingMessage,
        response: Http.ServerResponse,
        principal: Authorization.Principal | undefined
      ) {
        if (header(request, "mcp-session-id") === undefined) return yield* sessionless(request, response)
        const owner = sessionOf(request, response)
        if (!(owner instanceof HttpSession)) return yield* owner
        const stranger = foreign(request, response, owner, principal)
        if (stranger !== undefined) return yield* stranger
        yield* owner.end("deleted")
        return yield* respond(response, 200, {})
      })

      // -- the endpoint -------------------------------------------------------------

      const handle = (request: Http.IncomingMessage, response: Http.ServerResponse): Effect.Effect<void> =>
        Effect.suspend(() => {
          if (closing) return reject(request, response, 503, "Service Unavailable: the server is shutting down")
          const host = header(request, "host")
          if (!hostAllowed(host, allowedHosts)) {
            return reject(
              request,
              response,
              403,
              `Forbidden: Host ${JSON.stringify(host ?? "")} is not allowed (see --allowed-hosts)`
            )
          }
          const origin = header(request, "origin")
          if (!originAllowed(origin, allowedOrigins)) {
            return reject(
              request,
              response,
              403,
              `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (see --allowed-origins)`
            )
          }
          const requestPath = pathOf(request.url ?? "")
          if (metadataBody !== undefined && metadataPaths.has(requestPath)) return metadata(request, response)
          if (requestPath !== path) {
            return reject(request, response, 404, `Not Found: the MCP endpoint is ${path}`)
          }
          const route = (principal: Authorization.Principal | undefined): Effect.Effect<void> => {
            switch (request.method) {
              case "POST":
                return post(request, response, principal)
              case "GET":
                return get(request, response, principal)
              case "DELETE":
                return remove(request, response, principal)
              default:
                return reject(request, response, 405, `Method Not Allowed: use ${allowedMethods}`, {
                  headers: { allow: allowedMethods }
                })
            }
          }
          // With authorization, every method of the endpoint needs a valid token, checked before anything else.
          const method = request.method
          if (authorization === undefined || (method !== "POST" && method !== "GET" && method !== "DELETE")) {
            return route(undefined)
          }
          const credentials = Authorization.credentialsOf(header(request, "authorization"))
          if (credentials._tag !== "Bearer") return unauthorized(request, response, authorization, credentials)
          return authorization.verify(credentials.token).pipe(
            Effect.matchEffect({
              onFailure: (refusal) => unauthorized(request, response, authorization, refusal),
              onSuccess: route
            })
          )
        }).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.void
              : Effect.andThen(
                  Effect.logError("http handler failed", { cause: Cause.pretty(cause) }),
                  respond(response, 500, { "content-type": "application/json" }, errorBody(-32603, "Internal error"))
                )
          )
        )

      const handlers = yield* FiberSet.make()
      const runHandler = yield* FiberSet.runtime(handlers)<never>()
      const onRequest = (request: Http.IncomingMessage, response: Http.ServerResponse) => {
        const fiber = runHandler(handle(request, response))
        // A client that goes away interrupts what is waiting on its behalf.
        if (fiber.pollUnsafe() === undefined) {
          response.once("close", () => {
            if (!response.writableEnded) fiber.interruptUnsafe()
          })
        }
      }
      server.on("request", onRequest)
      yield* Effect.addFinalizer(() => Effect.sync(() => server.off("request", onRequest)))

      if (keepAliveMs > 0) {
        runBackground(
          Effect.forever(
            Effect.andThen(
              Effect.sleep(keepAliveMs),
              Effect.sync(() => {
                for (const owner of live) owner.keepAlive()
                keepAliveStateless()
              })
            )
          )
        )
      }

      // Runs first when the server stops: every session ends, drains, and answers
      // what it still owes on the connections still open.
      yield* Effect.addFinalizer(() =>
        Effect.gen(function* () {
          closing = true
          yield* Effect.logInfo("http server shutting down: new requests get 503, open sessions drain", {
            sessions: live.size,
            grace_ms: config.shutdownGraceMs
          })
          for (const owner of [...live]) yield* owner.end("shutdown")
          // Stateless requests: listen streams end with their result; the rest get the grace period.
          yield* built.close
          const running = [...pending].map((exchange) => exchange.fiber)
          if (running.length > 0) {
            const done = yield* Effect.timeoutOption(Fiber.awaitAll(running), config.shutdownGraceMs)
            if (Option.isNone(done)) {
              yield* Effect.logWarning("shutdown grace period elapsed; interrupting stateless requests", {
                in_flight: running.length,
                grace_ms: config.shutdownGraceMs
              })
              yield* Effect.timeoutOption(Fiber.interruptAll(running), McpServer.interruptWaitMs)
            }
          }
          yield* FiberSet.awaitEmpty(sessionFibers)
        })
      )

      return yield* Effect.never
    })
  )
