/**
 * `HttpTransport.serve` in this process, on a free port, with the given
 * capabilities, its log lines collected: for tests whose timing the
 * binary's defaults would make slow (keep-alives, time-outs, slow readers).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as HttpTransport from "../../layers/HttpTransport.ts"
import * as Logging from "../../layers/Logging.ts"
import * as Kernel from "../../src/Kernel.ts"
import * as McpServer from "../../src/McpServer.ts"

/** A running server: its MCP URL, its log lines so far (parsed), and how to stop it. */
export interface InProcessServer {
  readonly url: string
  readonly logs: Array<any>
  readonly stop: () => Promise<unknown>
}

/** Starts the server; fails if it stops before it listens. */
export const serveInProcess = async <E>(
  capabilities: Layer.Layer<never, E, Kernel.Kernel>,
  listen: HttpTransport.ListenOptions = {},
  options: HttpTransport.Options = {}
): Promise<InProcessServer> => {
  const logs: Array<any> = []
  let listening: (url: string) => void = () => undefined
  const url = new Promise<string>((resolve) => (listening = resolve))
  const fiber = Effect.runFork(
    Effect.gen(function* () {
      listening((yield* HttpTransport.Listener).url)
      return yield* HttpTransport.serve(McpServer.make(), options)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(HttpTransport.layerServer({ port: 0, ...listen }), capabilities).pipe(
          Layer.provideMerge(Kernel.layer())
        )
      ),
      Effect.provide(Logger.layer([Logger.make((line) => void logs.push(JSON.parse(Logging.formatLine(line))))]))
    )
  )
  const failed = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    throw new Error(`the server stopped: ${String(exit)}`)
  })
  return {
    url: await Promise.race([url, failed]),
    logs,
    stop: () => Effect.runPromise(Fiber.interrupt(fiber))
  }
}
