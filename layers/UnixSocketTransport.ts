/**
 * The transport of a daemon session: one MCP connection carried by a Unix
 * socket connection, exactly as stdio carries it — newline-delimited
 * JSON-RPC both ways, framed with the size limit of `ServerConfig`, replies
 * written through the stdio transport's coalescing line writer.
 *
 * @since 0.4.0
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Pull from "effect/Pull"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { drainingLine } from "../src/internal/daemonProtocol.ts"
import type { Connection } from "../src/internal/daemonSocket.ts"
import { type Frame, LineFramer } from "../src/internal/LineFramer.ts"
import { ServerConfig } from "../src/ServerConfig.ts"
import { frameLines, Transport } from "../src/Transport.ts"
import { makeLineWriter } from "./StdioTransport.ts"

/**
 * Builds the transport of one session over `connection`: frames (of at most
 * `maxMessageBytes`, default the `ServerConfig`'s) from the bytes that
 * follow the control line; replies written to the connection (what is
 * pending is flushed when the scope closes). Input ends when the peer ends
 * its side (a last line without a newline is read, as over stdio), or when
 * `stop` completes (the daemon is shutting down: the session drains as it
 * would at end of input). At `stop`, the line in progress is not read, the
 * `draining` control line is written (`{"mcpRuntimeDaemon":1,"type":
 * "draining","linesRead":N}`, N the newlines read on the connection; see
 * `src/internal/daemonProtocol.ts`) so that `serve` can send the lines after
 * those to a server of its own, and what the peer sends from then on is
 * read and dropped (its writes never wait on a reader that is gone).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as UnixSocketTransport from "effect-mcp-runtime/layers/UnixSocketTransport"
 * import { Transport } from "effect-mcp-runtime/Transport"
 *
 * declare const connection: import("./src/internal/daemonSocket.ts").Connection
 * declare const server: McpServer.Server
 * const session = Effect.scoped(
 *   Effect.flatMap(UnixSocketTransport.make(connection), (transport) =>
 *     Effect.provideService(server.connection, Transport, transport)
 *   )
 * )
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const make = (
  connection: Connection,
  options: {
    readonly maxMessageBytes?: number | undefined
    readonly stop?: Effect.Effect<void> | undefined
  } = {}
): Effect.Effect<Transport["Service"], never, Scope.Scope> =>
  Effect.gen(function* () {
    const maxMessageBytes = options.maxMessageBytes ?? (yield* ServerConfig).maxMessageBytes
    const writer = makeLineWriter(connection.writeNow)
    yield* Effect.addFinalizer(() => Effect.sync(writer.flush))
    const send = (message: string) => Effect.sync(() => writer.writeLine(message))
    if (options.stop === undefined)
      return Transport.of({ frames: frameLines(connection.chunks, maxMessageBytes), send })
    const scope = yield* Effect.scope
    let stopped = false
    const input = Stream.interruptWhen(
      connection.chunks,
      Effect.tap(options.stop, () =>
        Effect.sync(() => {
          stopped = true
        })
      )
    )
    const frames = Stream.transformPull(input, (pull) =>
      Effect.sync(() => {
        const framer = new LineFramer(maxMessageBytes)
        let linesRead = 0
        let ended = false
        const next: Pull.Pull<Arr.NonEmptyReadonlyArray<Frame>, never, void> = Effect.suspend(() => {
          if (ended) return Cause.done()
          return pull.pipe(
            Effect.flatMap((chunks): Pull.Pull<Arr.NonEmptyReadonlyArray<Frame>, never, void> => {
              const out: Array<Frame> = []
              for (const chunk of chunks) {
                linesRead += countNewlines(chunk)
                for (const frame of framer.push(chunk)) out.push(frame)
              }
              return Arr.isArrayNonEmpty(out) ? Effect.succeed(out) : next
            }),
            Pull.catchDone(() => {
              ended = true
              if (stopped) {
                // The line in progress is the peer's to send elsewhere; the rest of the input is dropped.
                writer.writeLine(drainingLine(linesRead))
                return Effect.andThen(Effect.forkIn(Stream.runDrain(connection.chunks), scope), Cause.done())
              }
              const rest = framer.end()
              return Arr.isArrayNonEmpty(rest) ? Effect.succeed(rest) : Cause.done()
            })
          )
        })
        return next
      })
    )
    return Transport.of({ frames, send })
  })

const countNewlines = (chunk: Uint8Array): number => {
  let count = 0
  let at = chunk.indexOf(0x0a)
  while (at !== -1) {
    count++
    at = chunk.indexOf(0x0a, at + 1)
  }
  return count
}

/**
 * The transport of one session over `connection`, as a layer (see
 * {@link make}).
 *
 * **Example**
 *
 * ```ts
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as Effect from "effect/Effect"
 * import * as UnixSocketTransport from "effect-mcp-runtime/layers/UnixSocketTransport"
 *
 * declare const connection: import("./src/internal/daemonSocket.ts").Connection
 * const session = McpServer.serve().pipe(Effect.provide(UnixSocketTransport.layer(connection, { maxMessageBytes: 1 << 20 })))
 * ```
 *
 * @category layers
 * @since 0.4.0
 */
export const layer = (
  connection: Connection,
  options: {
    readonly maxMessageBytes?: number | undefined
    readonly stop?: Effect.Effect<void> | undefined
  } = {}
): Layer.Layer<Transport> => Layer.effect(Transport, make(connection, options))
