/**
 * The stdio transport: newline-delimited JSON-RPC on stdin and stdout, as MCP
 * clients launch local servers.
 *
 * Input is read through Effect's `Stdio` service and framed with the size
 * limit of `ServerConfig`. Output is written synchronously to the process's
 * stdout (a pipe write is synchronous on Linux, as in the official SDK), with
 * a little coalescing: the first reply of a turn of the event loop is written at once, the
 * replies that follow it in the same turn are joined, and flushed every
 * {@link flushEvery} lines so the client can start reading while the server
 * is still answering. Whatever is
 * pending is flushed when the layer closes. Nothing but protocol messages is
 * ever written to stdout.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { ServerConfig } from "../src/ServerConfig.ts"
import * as OutputBarrier from "../src/internal/outputBarrier.ts"
import { frameLines, Transport } from "../src/Transport.ts"

/**
 * The number of pending replies that triggers an immediate write.
 *
 * **Example**
 *
 * ```ts
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 *
 * StdioTransport.flushEvery // => 8
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const flushEvery = 8

/**
 * A line writer that coalesces the lines of one turn of the event loop into one write.
 *
 * **Example**
 *
 * ```ts
 * import type { LineWriter } from "effect-mcp-runtime/layers/StdioTransport"
 *
 * const writeAll = (writer: LineWriter, lines: ReadonlyArray<string>) => {
 *   for (const line of lines) writer.writeLine(line)
 *   writer.flush()
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface LineWriter {
  readonly writeLine: (line: string) => void
  readonly flush: () => void
}

/**
 * Builds a {@link LineWriter} over a synchronous `write`.
 *
 * **Example**
 *
 * ```ts
 * import { makeLineWriter } from "effect-mcp-runtime/layers/StdioTransport"
 *
 * const out: Array<string> = []
 * const writer = makeLineWriter((text) => out.push(text))
 * writer.writeLine("{}") // written at once: out is ["{}\n"]
 * writer.writeLine("[]") // same turn: pending until the turn ends, or flush()
 * writer.flush() // out is ["{}\n", "[]\n"]
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeLineWriter = (write: (text: string) => void): LineWriter => {
  let pending: Array<string> = []
  let inTick = false
  const flush = () => {
    if (pending.length === 0) return
    const text = pending.length === 1 ? pending[0] + "\n" : pending.join("\n") + "\n"
    pending = []
    write(text)
  }
  const endTick = () => {
    inTick = false
    flush()
  }
  return {
    writeLine: (line) => {
      // The first reply of a turn leaves at once (latency); the ones that
      // follow in the same turn of the event loop are coalesced (throughput).
      // A turn, not a microtask: Effect resumes fibers in separate immediate
      // callbacks, so replies finishing together are microtasks apart.
      if (!inTick) {
        inTick = true
        setImmediate(endTick)
        return write(line + "\n")
      }
      pending.push(line)
      if (pending.length >= flushEvery) flush()
    },
    flush
  }
}

/**
 * Builds a stdio transport: frames from `Stdio.stdin`, replies to `write`.
 * The audit records the process has queued are written before each `write`
 * (so a call's record is in its file before its answer is written, without
 * holding the call back).
 *
 * **Example**
 *
 * ```ts
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 * import * as Layer from "effect/Layer"
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 * import { Transport } from "effect-mcp-runtime/Transport"
 *
 * // replies go to stderr instead of stdout
 * const StderrTransport = Layer.effect(Transport, StdioTransport.make((text) => process.stderr.write(text))).pipe(
 *   Layer.provide(NodeStdio.layer)
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (write: (text: string) => void) =>
  Effect.gen(function* () {
    const stdio = yield* Stdio.Stdio
    const config = yield* ServerConfig
    // The audit records queued so far reach their file before any byte that follows them leaves.
    const writer = makeLineWriter((text) => {
      OutputBarrier.beforeOutput()
      write(text)
    })
    yield* Effect.addFinalizer(() => Effect.sync(writer.flush))
    const stdin = stdio.stdin.pipe(
      Stream.catchCause((cause) =>
        Stream.fromEffectDrain(Effect.logError("stdin failed; treating it as end of input", { cause: String(cause) }))
      )
    )
    return Transport.of({
      frames: frameLines(stdin, config.maxMessageBytes),
      send: (message) => Effect.sync(() => writer.writeLine(message)),
      flushesAuditBeforeWrite: true
    })
  })

const writeStdout = Effect.gen(function* () {
  const runFork = Effect.runForkWith(yield* Effect.context<never>())
  return yield* Effect.acquireRelease(
    Effect.sync(() => {
      // A client that goes away closes the pipe: report once, then drop output.
      let closed = false
      const onError = (error: Error) => {
        if (closed) return
        closed = true
        runFork(Effect.logError("stdout closed; dropping outgoing messages", { error: error.message }))
      }
      process.stdout.on("error", onError)
      return {
        onError,
        write: (text: string) => {
          if (!closed) process.stdout.write(text)
        }
      }
    }),
    ({ onError }) => Effect.sync(() => process.stdout.off("error", onError))
  )
})

/**
 * The stdio transport of the Node process: stdin through `Stdio`, replies to
 * `process.stdout`.
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
export const layer: Layer.Layer<Transport, never, Stdio.Stdio> = Layer.effect(
  Transport,
  Effect.flatMap(writeStdout, ({ write }) => make(write))
)
