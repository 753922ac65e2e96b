/**
 * The stdio transport: newline-delimited JSON-RPC on stdin and stdout, as MCP
 * clients launch local servers.
 *
 * Built on Effect's `Stdio` service, so the same layer serves the real
 * process (`NodeStdio`) or an in-memory `Stdio.layerTest`. Outgoing messages
 * are queued and written by one fiber, which joins whatever is queued into a
 * single write; the queue is flushed when the layer closes. Nothing but
 * protocol messages is ever written to stdout.
 *
 * @since 0.1.0
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { ServerConfig } from "../src/ServerConfig.ts"
import { frameLines, Transport } from "../src/Transport.ts"

/**
 * Builds a stdio transport from the `Stdio` service, with the message size
 * limit from `ServerConfig`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.gen(function* () {
  const stdio = yield* Stdio.Stdio
  const config = yield* ServerConfig
  const outgoing = yield* Queue.unbounded<string, Cause.Done>()
  const writer = yield* Stream.fromQueue(outgoing).pipe(
    Stream.mapArray((lines) => [lines.join("\n") + "\n"] as const),
    Stream.run(stdio.stdout()),
    Effect.catchCause((cause) =>
      Effect.logError("stdout closed; dropping outgoing messages", { cause: String(cause) })
    ),
    Effect.forkDetach
  )
  yield* Effect.addFinalizer(() => Effect.andThen(Queue.end(outgoing), Fiber.await(writer)))
  const stdin = stdio.stdin.pipe(
    Stream.catchCause((cause) =>
      Stream.fromEffectDrain(Effect.logError("stdin failed; treating it as end of input", { cause: String(cause) }))
    )
  )
  return Transport.of({
    frames: frameLines(stdin, config.maxMessageBytes),
    send: (message) => Effect.asVoid(Queue.offer(outgoing, message))
  })
})

/**
 * The stdio transport layer.
 *
 * **Example**
 *
 * ```ts
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 * import * as Layer from "effect/Layer"
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 *
 * const TransportLive = StdioTransport.layer.pipe(Layer.provide(NodeStdio.layer))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Transport, never, Stdio.Stdio> = Layer.effect(Transport, make)
