/**
 * The transport of a daemon session: one MCP connection carried by a Unix
 * socket connection, exactly as stdio carries it — newline-delimited
 * JSON-RPC both ways, framed with the size limit of `ServerConfig`, replies
 * written through the stdio transport's coalescing line writer.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Connection } from "../src/internal/daemonSocket.ts"
import { ServerConfig } from "../src/ServerConfig.ts"
import { frameLines, Transport } from "../src/Transport.ts"
import { makeLineWriter } from "./StdioTransport.ts"

/**
 * Builds the transport of one session over `connection`: frames (of at most
 * `maxMessageBytes`, default the `ServerConfig`'s) from the bytes that
 * follow the control line; replies written to the connection (what is
 * pending is flushed when the scope closes). Input ends when the peer ends
 * its side, or when `stop` completes (the daemon is shutting down: the
 * session drains as it would at end of input).
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
    const input = options.stop === undefined ? connection.chunks : Stream.interruptWhen(connection.chunks, options.stop)
    return Transport.of({
      frames: frameLines(input, maxMessageBytes),
      send: (message) => Effect.sync(() => writer.writeLine(message))
    })
  })

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
