/**
 * Transports: how framed messages reach the server and how its messages leave.
 *
 * The server core reads `frames` and calls `send`; it knows nothing of stdio,
 * HTTP or memory. Live transports are in `layers/` (stdio); {@link makeMemory}
 * is an in-memory transport for tests that still goes through the real
 * framing and codec: a test writes raw text and reads raw lines.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { type Frame, LineFramer } from "./internal/LineFramer.ts"
import type { RequestId } from "./McpSchema.ts"

/**
 * One framed message, or the report of a line that could not be one: too long
 * (`Oversize`) or not valid UTF-8 (`InvalidText`).
 *
 * **Example**
 *
 * ```ts
 * import type * as Transport from "effect-mcp-runtime/Transport"
 *
 * const describe = (frame: Transport.Frame): string =>
 *   frame._tag === "Message" ? frame.text : `${frame._tag} line of ${frame.bytes} bytes`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type { Frame } from "./internal/LineFramer.ts"

/**
 * The default maximum size of one incoming message: 4 MiB.
 *
 * **Example**
 *
 * ```ts
 * import * as Transport from "effect-mcp-runtime/Transport"
 *
 * Transport.defaultMaxMessageBytes // => 4194304
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxMessageBytes = 4 * 1024 * 1024

/**
 * A connection to one client.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Stream from "effect/Stream"
 * import { Transport } from "effect-mcp-runtime/Transport"
 *
 * // receives nothing and drops every message it is given
 * const NullTransport = Layer.succeed(Transport, Transport.of({ frames: Stream.empty, send: () => Effect.void }))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Transport extends Context.Service<
  Transport,
  {
    /** Incoming messages, framed; ends when the peer closes its side. */
    readonly frames: Stream.Stream<Frame>
    /**
     * Sends one serialized JSON-RPC message (without the trailing newline).
     *
     * `related` is the id of the client request the message belongs to: the
     * request a response answers (for a batch, one of its requests), or the
     * request being served when a progress, log or elicitation message was
     * sent. A transport with one stream (stdio) ignores it; Streamable HTTP
     * uses it to put the message on that request's stream.
     */
    readonly send: (message: string, related?: RequestId) => Effect.Effect<void>
    /**
     * Closes the connection carrying the messages of request `related`
     * without ending its stream, so the client reconnects and resumes (SSE
     * polling). Optional: transports with one stream have nothing to detach.
     */
    readonly detach?: ((related: RequestId) => Effect.Effect<void>) | undefined
    /**
     * True when the transport flushes the process's pending audit records
     * synchronously right before each write to its peer (the stdio transport
     * does): a store may then queue a call's record instead of holding the
     * call until it is written, and the record still reaches its file before
     * the answer leaves. Optional: a transport without it gets the store's
     * default, a call that waits for its record. Since 0.5.0.
     */
    readonly flushesAuditBeforeWrite?: boolean | undefined
  }
>()("effect-mcp-runtime/Transport") {}

/**
 * Frames a byte stream into newline-delimited messages of at most `maxBytes`.
 *
 * **Example**
 *
 * ```ts
 * import * as Stream from "effect/Stream"
 * import * as Transport from "effect-mcp-runtime/Transport"
 *
 * const frames = Transport.frameLines(Stream.make(new TextEncoder().encode('{"a":1}\n')), 1024)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const frameLines = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  maxBytes: number
): Stream.Stream<Frame, E, R> =>
  Stream.transformPull(bytes, (pull) =>
    Effect.sync(() => {
      // One pull stage: each chunk of bytes becomes the frames it completes.
      const framer = new LineFramer(maxBytes)
      let ended = false
      const next: Pull.Pull<Arr.NonEmptyReadonlyArray<Frame>, E, void> = Effect.suspend(() => {
        if (ended) return Cause.done()
        return pull.pipe(
          Effect.flatMap((chunks): Pull.Pull<Arr.NonEmptyReadonlyArray<Frame>, E, void> => {
            const frames: Array<Frame> = []
            for (const chunk of chunks) {
              for (const frame of framer.push(chunk)) frames.push(frame)
            }
            return Arr.isArrayNonEmpty(frames) ? Effect.succeed(frames) : next
          }),
          Pull.catchDone(() => {
            ended = true
            const rest = framer.end()
            return Arr.isArrayNonEmpty(rest) ? Effect.succeed(rest) : Cause.done()
          })
        )
      })
      return next
    })
  )

/**
 * The client side of an in-memory transport.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Transport from "effect-mcp-runtime/Transport"
 *
 * const ping = (client: Transport.MemoryClient) =>
 *   Effect.andThen(client.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'), client.read)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryClient {
  /** Writes raw text to the server, exactly as a stdio client would. */
  readonly write: (text: string) => Effect.Effect<void>
  /** Closes the client's side: the server sees end of input. */
  readonly close: Effect.Effect<void>
  /** Takes the next message the server sent, as raw text. */
  readonly read: Effect.Effect<string, Cause.Done>
  /** Everything the server sent, until it closed. */
  readonly output: Queue.Dequeue<string, Cause.Done>
}

/**
 * Builds an in-memory transport and its client side. Messages written by the
 * client go through the same line framing as stdio.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
 * import * as Transport from "effect-mcp-runtime/Transport"
 *
 * const frames = Effect.gen(function*() {
 *   const { client, transport } = yield* Transport.makeMemory({ maxMessageBytes: 1024 })
 *   yield* client.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
 *   yield* client.close
 *   return yield* Stream.runCollect(transport.frames)
 * }) // succeeds with [{ _tag: "Message", text: '{"jsonrpc":"2.0","id":1,"method":"ping"}', bytes: 40 }]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = Effect.fnUntraced(function* (
  options: { readonly maxMessageBytes?: number | undefined } = {}
) {
  const input = yield* Queue.unbounded<Uint8Array, Cause.Done>()
  const output = yield* Queue.unbounded<string, Cause.Done>()
  const encoder = new TextEncoder()
  const transport = Transport.of({
    frames: frameLines(Stream.fromQueue(input), options.maxMessageBytes ?? defaultMaxMessageBytes),
    send: (message) => Effect.asVoid(Queue.offer(output, message))
  })
  const client: MemoryClient = {
    write: (text) => Effect.asVoid(Queue.offer(input, encoder.encode(text))),
    close: Effect.asVoid(Queue.end(input)),
    read: Queue.take(output),
    output
  }
  return { transport, client, closeOutput: Queue.end(output) } as const
})
