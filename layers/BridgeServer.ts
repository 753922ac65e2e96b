/**
 * The bridge's socket on Node: where running applications (a dev server, a
 * test harness) connect to register tools and resources at run time (see
 * the `bridge` capability and `docs/bridge.md`).
 *
 * By default a Unix domain socket, `<state>/mcp-runtime/bridge/bridge.sock`
 * (`<state>`: `$XDG_STATE_HOME`, else `~/.local/state`), in a directory made
 * with mode 0700, the socket itself of mode 0600: only the user's own
 * processes can connect. Or TCP on the loopback interface, where an
 * application must send the bridge's token in its hello line (a random one
 * unless given, written to a file of mode 0600 when asked).
 *
 * Nothing is printed on stdout (the MCP wire of a stdio server): the address
 * is logged, and `bridge_list_client_tools_and_resources` shows it.
 *
 * @since 0.5.0
 */
import { randomBytes } from "node:crypto"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodePath from "node:path"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import {
  type Accepted,
  BridgeListener,
  decodeHello,
  defaultSocketPath,
  defaultTokenPath,
  type Endpoint,
  formatEndpoint,
  helloTimeoutMs,
  maxHelloBytes,
  refusalLine,
  tokenMatches
} from "../src/internal/bridgeProtocol.ts"
import { maxSocketPathBytes } from "../src/internal/daemonProtocol.ts"
import { type Connection, listen, SocketError, wrap } from "../src/internal/daemonSocket.ts"

/**
 * Where the bridge listens: a Unix socket (`path`, default
 * {@link defaultPath}), or TCP on loopback (`tcp`).
 *
 * **Example**
 *
 * ```ts
 * import type * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * const unix: BridgeServer.Options = { path: "/run/user/1000/mcp-runtime/bridge.sock" }
 * const tcp: BridgeServer.Options = { tcp: { port: 7700, tokenFile: "/run/user/1000/mcp-runtime/bridge.token" } }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Options =
  | { readonly path?: string | undefined }
  | {
      readonly tcp: {
        /** A loopback address (default `127.0.0.1`). */
        readonly host?: string | undefined
        /** Default 0: a free port, chosen by the system (see `bridge_list_client_tools_and_resources`). */
        readonly port?: number | undefined
        /** Default: 24 random bytes, base64url. */
        readonly token?: string | undefined
        /** A file to write the token to (mode 0600), for the applications to read. */
        readonly tokenFile?: string | undefined
      }
    }

/**
 * The default socket path for an environment:
 * `<state>/mcp-runtime/bridge/bridge.sock`.
 *
 * **Example**
 *
 * ```ts
 * import * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * BridgeServer.defaultPath({ XDG_STATE_HOME: "/var/state" }) // => "/var/state/mcp-runtime/bridge/bridge.sock"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const defaultPath: (env: Readonly<Record<string, string | undefined>>) => string = defaultSocketPath

/**
 * The default token file of a TCP bridge for an environment:
 * `<state>/mcp-runtime/bridge/bridge.token` (where `BridgeClient` looks when
 * it is given no token).
 *
 * **Example**
 *
 * ```ts
 * import * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * BridgeServer.defaultTokenFile({ XDG_STATE_HOME: "/var/state" }) // => "/var/state/mcp-runtime/bridge/bridge.token"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const defaultTokenFile: (env: Readonly<Record<string, string | undefined>>) => string = defaultTokenPath

const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)

const fsError = (error: unknown, what: string): SocketError =>
  new SocketError({
    code: String((error as { code?: unknown } | undefined)?.code ?? "UNKNOWN"),
    message: `${what}: ${error instanceof Error ? error.message : String(error)}`
  })

// Reads each connection's hello on a fiber of its own (a slow one never holds up the others) and queues the
// ones accepted; refuses the others with a line that says why.
const admit = (
  connections: Stream.Stream<Connection>,
  token: string | undefined
): Effect.Effect<Stream.Stream<Accepted>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Accepted, Cause.Done>()
    const refuse = (connection: Connection, reason: "hello" | "token", message: string) =>
      Effect.andThen(
        Effect.logWarning(`bridge: refused a connection: ${message}`),
        Effect.andThen(connection.write(refusalLine(reason, message)), connection.end)
      )
    const greet = (connection: Connection) =>
      connection.readLine({ maxBytes: maxHelloBytes, timeoutMs: helloTimeoutMs }).pipe(
        Effect.flatMap(decodeHello),
        Effect.matchEffect({
          onFailure: (error) =>
            refuse(
              connection,
              "hello",
              `the first line must be the bridge's hello ({"mcpRuntimeBridge":1,"name":…}): ${error.message}`
            ),
          onSuccess: (hello) =>
            token !== undefined && !tokenMatches(token, hello.token)
              ? refuse(connection, "token", "the token is missing or wrong")
              : Effect.asVoid(Queue.offer(queue, { hello, connection }))
        })
      )
    yield* connections.pipe(
      Stream.runForEach((connection) => Effect.forkScoped(greet(connection))),
      Effect.ensuring(Queue.end(queue)),
      Effect.forkScoped
    )
    return Stream.fromQueue(queue)
  })

const listenUnix = (path: string): Effect.Effect<BridgeListener["Service"], SocketError, Scope.Scope> =>
  Effect.gen(function* () {
    const bytes = Buffer.byteLength(path)
    if (bytes > maxSocketPathBytes) {
      return yield* new SocketError({
        code: "TOO_LONG",
        message:
          `the bridge's socket path ${path} is ${bytes} bytes long, and Unix socket paths are limited to ` +
          `${maxSocketPathBytes} bytes here: choose a shorter path`
      })
    }
    const dir = NodePath.dirname(path)
    const made = Result.try(() => NodeFs.mkdirSync(dir, { recursive: true, mode: 0o700 }))
    if (Result.isFailure(made)) return yield* fsError(made.failure, `cannot make the directory ${dir}`)
    const listener = yield* listen(path, {})
    const endpoint: Endpoint = { _tag: "Unix", path }
    yield* Effect.logInfo(`bridge: listening on ${formatEndpoint(endpoint)}`)
    return { endpoint, tokenFile: undefined, accepted: yield* admit(listener.accepted, undefined) }
  })

const listenTcp = (options: Extract<Options, { readonly tcp: unknown }>["tcp"]) =>
  Effect.gen(function* () {
    const host = options.host ?? "127.0.0.1"
    if (!isLoopback(host)) {
      return yield* new SocketError({
        code: "EADDRNOTAVAIL",
        message: `the bridge listens on a loopback address only (127.0.0.1, ::1, localhost), not ${host}`
      })
    }
    const token = options.token ?? randomBytes(24).toString("base64url")
    const queue = yield* Queue.unbounded<Net.Socket, Cause.Done>()
    const server = yield* Effect.acquireRelease(
      Effect.callback<Net.Server, SocketError>((resume) => {
        const server = Net.createServer({ allowHalfOpen: true })
        server.on("connection", (socket) => {
          if (!Queue.offerUnsafe(queue, socket)) socket.destroy()
        })
        const onError = (error: unknown) => resume(Effect.fail(fsError(error, `cannot listen on ${host}`)))
        server.once("error", onError)
        server.listen(options.port ?? 0, host, () => {
          server.removeListener("error", onError)
          server.on("error", () => {})
          resume(Effect.succeed(server))
        })
      }),
      (server) =>
        Effect.sync(() => {
          Queue.endUnsafe(queue)
          server.close()
        })
    )
    const address = server.address() as Net.AddressInfo
    if (options.tokenFile !== undefined) {
      const file = options.tokenFile
      const written = Result.try(() => {
        NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true, mode: 0o700 })
        NodeFs.writeFileSync(file, `${token}\n`, { mode: 0o600 })
        NodeFs.chmodSync(file, 0o600)
      })
      if (Result.isFailure(written)) return yield* fsError(written.failure, `cannot write the token file ${file}`)
      yield* Effect.addFinalizer(() => Effect.sync(() => Result.try(() => NodeFs.unlinkSync(file))))
    }
    const endpoint: Endpoint = { _tag: "Tcp", host, port: address.port }
    yield* Effect.logInfo(
      `bridge: listening on ${formatEndpoint(endpoint)}` +
        (options.tokenFile === undefined ? "" : ` (token in ${options.tokenFile})`)
    )
    const connections = Stream.fromQueue(queue).pipe(Stream.mapEffect(wrap))
    return {
      endpoint,
      tokenFile: options.tokenFile,
      accepted: yield* admit(connections, token)
    } satisfies BridgeListener["Service"]
  })

/**
 * Listens for applications; closed with the layer's scope (the socket file
 * is removed, and the applications' connections end).
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { BridgeCapability } from "effect-mcp-runtime/capabilities/bridge"
 * import * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * const OnUnixSocket = BridgeCapability.pipe(Layer.provide(BridgeServer.layer()))
 * const OnLoopback = BridgeCapability.pipe(Layer.provide(BridgeServer.layer({ tcp: { port: 7700 } })))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = (options: Options = {}): Layer.Layer<BridgeListener, SocketError> =>
  Layer.effect(
    BridgeListener,
    "tcp" in options ? listenTcp(options.tcp) : listenUnix(options.path ?? defaultSocketPath(process.env))
  )

/**
 * A bridge that does not listen: its endpoint is the default socket's path,
 * and no application ever connects. For servers built only to be looked at
 * in process (`mcp-runtime capabilities list`, `doctor`, `surface`, `call`),
 * which must not take the socket of a running server.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { BridgeCapability } from "effect-mcp-runtime/capabilities/bridge"
 * import * as BridgeServer from "effect-mcp-runtime/layers/BridgeServer"
 *
 * const Inspected = BridgeCapability.pipe(Layer.provide(BridgeServer.idle))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const idle: Layer.Layer<BridgeListener> = Layer.sync(BridgeListener, () =>
  BridgeListener.of({
    endpoint: { _tag: "Unix", path: defaultSocketPath(process.env) },
    tokenFile: undefined,
    accepted: Stream.never
  })
)
