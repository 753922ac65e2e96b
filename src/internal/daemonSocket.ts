/**
 * A Unix socket connection as Effects: its first line (the daemon's control
 * message), the bytes after it as a stream (with backpressure: the socket is
 * paused while too many chunks wait), writes that wait until the data left,
 * half-close, and the moment it closed. Both sides of the daemon use it: the
 * daemon for the connections it accepts, `serve` for its connection to the
 * daemon.
 *
 * @since 0.4.0
 */
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodePath from "node:path"
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * A socket operation failed: `code` is Node's (`ENOENT`, `ECONNREFUSED`,
 * `EACCES`…), or `TIMEOUT`, `CLOSED`, `TOO_LONG`.
 *
 * **Example**
 *
 * ```ts
 * import { SocketError } from "./src/internal/daemonSocket.ts"
 *
 * new SocketError({ code: "ECONNREFUSED", message: "connect ECONNREFUSED /tmp/d/daemon.sock" })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class SocketError extends Schema.TaggedError<SocketError>()("SocketError", {
  code: Schema.String,
  message: Schema.String
}) {}

const socketError = (error: unknown): SocketError =>
  new SocketError({
    code: String((error as { code?: unknown } | undefined)?.code ?? "UNKNOWN"),
    message: error instanceof Error ? error.message : String(error)
  })

/**
 * One socket connection.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Connection } from "./src/internal/daemonSocket.ts"
 *
 * const greet = (connection: Connection) =>
 *   Effect.andThen(connection.write("hello\n"), connection.end)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Connection {
  /**
   * Reads the first line (without its newline). The bytes that came after it
   * are the start of {@link Connection.chunks}.
   */
  readonly readLine: (options: {
    readonly maxBytes: number
    readonly timeoutMs: number
  }) => Effect.Effect<string, SocketError>
  /** The bytes that arrive (after the first line, when it was read); ends when the peer ends its side or the connection closes. */
  readonly chunks: Stream.Stream<Uint8Array>
  /** Writes and waits until the data left; false when the connection is gone. */
  readonly write: (data: string | Uint8Array) => Effect.Effect<boolean>
  /** Writes without waiting (data is buffered); nothing when the connection is gone. */
  readonly writeNow: (text: string) => void
  /** Ends this side (half-close): the peer reads to the end, and may still answer. */
  readonly end: Effect.Effect<void>
  /** Closes both sides at once. */
  readonly destroy: Effect.Effect<void>
  /** Completes when the connection is closed (both sides, or an error). */
  readonly closed: Effect.Effect<void>
  /** Whether it closed already. */
  readonly isClosed: () => boolean
}

// The socket is paused while this many chunks wait to be read, and resumed below the low mark.
const highWater = 64
const lowWater = 8

/**
 * Wraps a connected socket.
 *
 * **Example**
 *
 * ```ts
 * import * as Net from "node:net"
 * import { wrap } from "./src/internal/daemonSocket.ts"
 *
 * const connection = wrap(Net.createConnection({ path: "/tmp/d/daemon.sock", allowHalfOpen: true }))
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const wrap = (socket: Net.Socket): Effect.Effect<Connection> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Uint8Array, Cause.Done>()
    const closed = yield* Deferred.make<void>()
    let isClosed = socket.destroyed
    let leftover: Uint8Array | undefined
    socket.on("data", (chunk: Buffer) => {
      Queue.offerUnsafe(queue, chunk)
      if (Queue.sizeUnsafe(queue) >= highWater) socket.pause()
    })
    socket.on("end", () => Queue.endUnsafe(queue))
    // An error is followed by "close"; without a listener it would be thrown.
    socket.on("error", () => {})
    socket.on("close", () => {
      isClosed = true
      Queue.endUnsafe(queue)
      Deferred.doneUnsafe(closed, Effect.void)
    })
    if (isClosed) {
      Queue.endUnsafe(queue)
      Deferred.doneUnsafe(closed, Effect.void)
    }
    const resumeIfLow = Effect.sync(() => {
      if (socket.isPaused() && Queue.sizeUnsafe(queue) <= lowWater) socket.resume()
    })
    const take = Effect.tap(Queue.take(queue), () => resumeIfLow)

    const readLine = (options: { readonly maxBytes: number; readonly timeoutMs: number }) =>
      Effect.gen(function* () {
        const parts: Array<Uint8Array> = []
        let size = 0
        while (true) {
          const chunk = yield* take.pipe(
            Effect.catch(() =>
              Effect.fail(new SocketError({ code: "CLOSED", message: "the connection ended before a whole line" }))
            )
          )
          const newline = chunk.indexOf(0x0a)
          // The line's length so far, whether or not this chunk ends it: never over the limit.
          size += newline === -1 ? chunk.length : newline
          if (size > options.maxBytes) {
            return yield* new SocketError({ code: "TOO_LONG", message: `a line of over ${options.maxBytes} bytes` })
          }
          if (newline === -1) {
            parts.push(chunk)
            continue
          }
          parts.push(chunk.subarray(0, newline))
          if (newline + 1 < chunk.length) leftover = chunk.subarray(newline + 1)
          return Buffer.concat(parts).toString("utf8")
        }
      }).pipe(
        Effect.timeoutOrElse({
          duration: options.timeoutMs,
          orElse: () =>
            Effect.fail(new SocketError({ code: "TIMEOUT", message: `no line within ${options.timeoutMs} ms` }))
        })
      )

    const chunks = Stream.suspend(() => {
      const first = leftover
      leftover = undefined
      const rest = Stream.fromQueue(queue).pipe(Stream.tap(() => resumeIfLow))
      return first === undefined ? rest : Stream.concat(Stream.make(first), rest)
    })

    return {
      readLine,
      chunks,
      write: (data) =>
        Effect.callback<boolean>((resume) => {
          if (isClosed || !socket.writable) return resume(Effect.succeed(false))
          socket.write(data, (error) => resume(Effect.succeed(error === undefined || error === null)))
        }),
      writeNow: (text) => {
        if (!isClosed && socket.writable) socket.write(text)
      },
      end: Effect.sync(() => {
        if (!isClosed && socket.writable) socket.end()
      }),
      destroy: Effect.sync(() => socket.destroy()),
      closed: Deferred.await(closed),
      isClosed: () => isClosed
    } satisfies Connection
  })

/**
 * Connects to the socket at `path`, failing after `timeoutMs`.
 *
 * **Example**
 *
 * ```ts
 * import { connect } from "./src/internal/daemonSocket.ts"
 *
 * const connection = connect("/tmp/d/daemon.sock", 1000)
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const connect = (path: string, timeoutMs: number): Effect.Effect<Connection, SocketError> =>
  connectTo({ path }, timeoutMs)

/**
 * Connects to a Unix socket (`{ path }`) or a TCP endpoint (`{ host, port }`),
 * failing after `timeoutMs`.
 *
 * **Example**
 *
 * ```ts
 * import { connectTo } from "./src/internal/daemonSocket.ts"
 *
 * const connection = connectTo({ host: "127.0.0.1", port: 7700 }, 1000)
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const connectTo = (
  endpoint: { readonly path: string } | { readonly host: string; readonly port: number },
  timeoutMs: number
): Effect.Effect<Connection, SocketError> =>
  Effect.callback<Net.Socket, SocketError>((resume) => {
    const socket = Net.createConnection({ ...endpoint, allowHalfOpen: true })
    const onError = (error: unknown) => {
      clearTimeout(timer)
      socket.destroy()
      resume(Effect.fail(socketError(error)))
    }
    const timer = setTimeout(() => {
      socket.removeListener("error", onError)
      socket.on("error", () => {})
      socket.destroy()
      resume(Effect.fail(new SocketError({ code: "TIMEOUT", message: `connect: no answer within ${timeoutMs} ms` })))
    }, timeoutMs)
    socket.once("error", onError)
    socket.once("connect", () => {
      clearTimeout(timer)
      socket.removeListener("error", onError)
      resume(Effect.succeed(socket))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      socket.destroy()
    })
  }).pipe(Effect.flatMap(wrap))

/**
 * A listening socket: the connections it accepts, in order.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
 * import type { Listener } from "./src/internal/daemonSocket.ts"
 *
 * const closeAll = (listener: Listener) =>
 *   Stream.runForEach(listener.accepted, (connection) => connection.destroy)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Listener {
  readonly accepted: Stream.Stream<Connection>
  /**
   * Stops accepting. The connections accepted but not yet taken from
   * `accepted` are answered with the listener's `farewell` line and ended
   * (destroyed when it has none), so that their peers learn at once; the
   * connections taken go on. The socket file is removed, unless it is no
   * longer this listener's (another listener has put its own in its place).
   */
  readonly close: Effect.Effect<void>
}

interface Listening {
  readonly server: Net.Server
  /** The socket file's identity once in place: only that file is removed at close. */
  readonly dev: number
  readonly ino: number
  closed: boolean
}

/**
 * Listens on a Unix socket at `path`. The socket is bound under a temporary
 * name in the same directory (never longer than `path`), made readable and
 * writable by its owner only (mode 0600), and renamed into place once it
 * listens: the file at `path` is always a socket that answers (it replaces
 * a stale one). Closed with the scope; at close, the file at `path` is
 * removed only while it is still this socket (libuv removes the name a
 * socket was bound under when it closes, here the temporary one, long
 * gone). `farewell` is the line the connections still waiting to be taken
 * get at close.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { listen } from "./src/internal/daemonSocket.ts"
 *
 * const program = Effect.scoped(Effect.flatMap(listen("/run/user/1000/mcpd/daemon.sock"), (listener) => listener.close))
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const listen = (
  path: string,
  options: { readonly farewell?: string | undefined } = {}
): Effect.Effect<Listener, SocketError, Scope.Scope> =>
  Effect.gen(function* () {
    const queue = yield* Queue.unbounded<Net.Socket, Cause.Done>()
    const temporary = NodePath.join(NodePath.dirname(path), `.s${process.pid.toString(36)}`)
    const listening = yield* Effect.acquireRelease(
      Effect.callback<Listening, SocketError>((resume) => {
        // A leftover of an earlier process with this pid.
        Result.try(() => NodeFs.unlinkSync(temporary))
        const server = Net.createServer({ allowHalfOpen: true })
        server.on("connection", (socket) => {
          if (!Queue.offerUnsafe(queue, socket)) socket.destroy()
        })
        const onError = (error: unknown) => resume(Effect.fail(socketError(error)))
        server.once("error", onError)
        server.listen(temporary, () => {
          server.removeListener("error", onError)
          // Logged by whoever closes it; an error after listening must not be thrown.
          server.on("error", () => {})
          const placed = Result.try(() => {
            NodeFs.chmodSync(temporary, 0o600)
            const stat = NodeFs.lstatSync(temporary)
            NodeFs.renameSync(temporary, path)
            return stat
          })
          if (Result.isFailure(placed)) {
            server.close()
            return resume(Effect.fail(socketError(placed.failure)))
          }
          resume(Effect.succeed({ server, dev: placed.success.dev, ino: placed.success.ino, closed: false }))
        })
      }),
      (listening) => closeServer(listening, queue, path, options.farewell)
    )
    return {
      accepted: Stream.fromQueue(queue).pipe(Stream.mapEffect(wrap)),
      close: closeServer(listening, queue, path, options.farewell)
    }
  })

/**
 * Whether the file at `path` is the socket `listening` put there.
 */
const isOurs = (listening: Listening, path: string): boolean => {
  const stat = Result.try(() => NodeFs.lstatSync(path))
  return Result.isSuccess(stat) && stat.success.dev === listening.dev && stat.success.ino === listening.ino
}

// Not waiting for close's callback: it comes once every accepted connection has ended. The listening
// handle closes at once.
const closeServer = (
  listening: Listening,
  queue: Queue.Queue<Net.Socket, Cause.Done>,
  path: string,
  farewell: string | undefined
) =>
  Effect.gen(function* () {
    if (listening.closed) return
    listening.closed = true
    const waiting = yield* Queue.clear(queue)
    Queue.endUnsafe(queue)
    if (listening.server.listening) listening.server.close()
    if (isOurs(listening, path)) Result.try(() => NodeFs.unlinkSync(path))
    for (const socket of waiting) {
      socket.on("error", () => {})
      if (farewell === undefined) socket.destroy()
      else socket.end(farewell, () => socket.destroy())
    }
  })
