/**
 * The `serve --inspect` page: a small HTTP server on 127.0.0.1 (Effect's
 * HTTP server over `node:http`) that serves one self-contained HTML page and
 * the live feed of an {@link Inspector} as server-sent events.
 *
 * Every route checks, before anything else:
 *
 * - the `Host` header: only `127.0.0.1:PORT` and `localhost:PORT` (a page on
 *   another site that rebinds its name to 127.0.0.1 is refused);
 * - the token: a random 192-bit value, given as `?token=…`, in the cookie
 *   the page sets on the first visit, or in an `X-Inspect-Token` header.
 *
 * Anything else gets `403` with the body `Forbidden` and nothing more.
 *
 * Routes: `/` the page, `/events` the feed (a snapshot, then the events,
 * sent every 100 ms), `/snapshot` the state as JSON, `/trace?request=ID` the
 * spans of one request's trace (by its correlation id).
 *
 * @since 0.5.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ServeError } from "effect/http/HttpServerError"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import { page } from "../src/internal/inspect/page.ts"
import type { Inspector } from "../src/Inspector.ts"

/**
 * Where the page is served and how to open it.
 *
 * **Example**
 *
 * ```ts
 * import type { Listening } from "effect-mcp-runtime/layers/InspectServer"
 *
 * const open = (listening: Listening) => listening.url // http://127.0.0.1:PORT/?token=…
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Listening {
  readonly port: number
  readonly token: string
  /** The page's address with the token: what to open in a browser. */
  readonly url: string
}

/**
 * How the page is served.
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/layers/InspectServer"
 *
 * const options: Options = { port: 0 }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number | undefined
  /** The token; by default a random one (24 bytes from the system's CSPRNG). */
  readonly token?: string | undefined
  /** How many batches of events (one every 100 ms) a client may have waiting before it is cut (default 8). */
  readonly clientQueue?: number | undefined
  /** How many bytes of a client's feed may wait in its socket's buffer before it is cut (default 4 MiB). */
  readonly maxBufferedBytes?: number | undefined
}

const forbidden = () =>
  HttpServerResponse.text("Forbidden\n", {
    status: 403,
    headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
  })

const securityHeaders = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
}

const sameToken = (given: string | undefined, token: string): boolean => {
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && NodeCrypto.timingSafeEqual(a, b)
}

const encoder = new TextEncoder()

/**
 * Serves the page of `inspector` on 127.0.0.1 until the scope closes, and
 * says where (`Listening`). Fails with `ServeError` when the port is taken.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Inspector from "effect-mcp-runtime/Inspector"
 * import * as InspectServer from "effect-mcp-runtime/layers/InspectServer"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const inspector = yield* Inspector.make
 *     const { url } = yield* InspectServer.serve(inspector, { port: 0 })
 *     return url
 *   })
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const serve = (
  inspector: Inspector["Service"],
  options: Options = {}
): Effect.Effect<Listening, ServeError, Scope.Scope> =>
  Effect.gen(function* () {
    const token = options.token ?? NodeCrypto.randomBytes(24).toString("base64url")
    const clientQueue = options.clientQueue ?? 8
    const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024
    const server = yield* NodeHttpServer.make(() => NodeHttp.createServer(), {
      port: options.port ?? 0,
      host: "127.0.0.1"
    })
    const address = server.address
    const port = "port" in address ? address.port : 0
    const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
    // Cookies are shared by every port of a host: the name carries the port.
    const cookie = `mcp_inspect_${port}`
    const url = `http://127.0.0.1:${port}/?token=${token}`

    // `written`: how many bytes Node holds for the socket, not yet taken by the peer.
    const events = (written: () => number) =>
      Stream.callback<Uint8Array>(
        (queue) =>
          Effect.acquireRelease(
            Effect.sync(() => {
              const connection = inspector.connect({
                offer: (frames) => written() <= maxBuffered && Queue.offerUnsafe(queue, encoder.encode(frames)),
                // Too slow: the stream ends (the page's EventSource reconnects and starts from a new snapshot).
                onCut: () => Queue.endUnsafe(queue)
              })
              if (connection === undefined) {
                Queue.endUnsafe(queue)
                return undefined
              }
              Queue.offerUnsafe(queue, encoder.encode(`retry: 1000\n${connection.first}`))
              return connection
            }),
            (connection) => Effect.sync(() => connection?.disconnect())
          ),
        { bufferSize: clientQueue }
      )

    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const host = request.headers["host"]
      if (host === undefined || !hosts.has(host.toLowerCase())) return forbidden()
      const parsed = new URL(request.url, `http://127.0.0.1:${port}`)
      const given = parsed.searchParams.get("token") ?? request.cookies[cookie] ?? request.headers["x-inspect-token"]
      if (!sameToken(given ?? undefined, token)) return forbidden()
      if (request.method !== "GET") return HttpServerResponse.text("Not found\n", { status: 404 })
      switch (parsed.pathname) {
        case "/":
          return HttpServerResponse.text(page, {
            contentType: "text/html; charset=utf-8",
            headers: {
              ...securityHeaders,
              "set-cookie": `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`
            }
          })
        case "/events":
          const response = NodeHttpServerRequest.toServerResponse(request)
          return HttpServerResponse.stream(
            events(() => response.writableLength),
            {
              contentType: "text/event-stream",
              headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
            }
          )
        case "/snapshot":
          return HttpServerResponse.text(JSON.stringify(inspector.snapshot()), {
            contentType: "application/json",
            headers: { "cache-control": "no-store" }
          })
        case "/trace":
          return HttpServerResponse.text(JSON.stringify(inspector.trace(parsed.searchParams.get("request") ?? "")), {
            contentType: "application/json",
            headers: { "cache-control": "no-store" }
          })
        default:
          return HttpServerResponse.text("Not found\n", { status: 404 })
      }
    })
    yield* server.serve(app)
    // The events gathered, to each page every 100 ms (one write each); the running requests and the pools'
    // fill every second. Nothing to do while no page is open.
    let ticks = 0
    yield* Effect.sync(() => {
      if (++ticks % 10 === 0) inspector.tick()
      inspector.flush()
    }).pipe(Effect.repeat(Schedule.spaced("100 millis")), Effect.forkScoped)
    return { port, token, url }
  })
