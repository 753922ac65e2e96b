/**
 * An in-memory MCP client for tests: the server runs in a fiber behind a
 * memory transport, and every message goes through the real framing and
 * codec as raw text.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Kernel from "../../src/Kernel.ts"
import * as McpServer from "../../src/McpServer.ts"
import { Transport, makeMemory } from "../../src/Transport.ts"

export interface TestClient {
  readonly write: (text: string) => Effect.Effect<void>
  readonly send: (message: unknown) => Effect.Effect<void>
  readonly read: Effect.Effect<any>
  readonly readRaw: Effect.Effect<string>
  readonly request: (method: string, params?: unknown) => Effect.Effect<any>
  readonly initialize: (protocolVersion?: string) => Effect.Effect<any>
  readonly close: Effect.Effect<void>
  readonly server: Fiber.Fiber<void>
  readonly kernel: Kernel.Kernel["Service"]
}

export const start = (
  capabilities: Layer.Layer<never, any, Kernel.Kernel> = Layer.empty,
  options: {
    readonly maxMessageBytes?: number
    readonly pageSize?: number
    /** A method table other than the default one. */
    readonly methods?: ReadonlyArray<any>
  } = {}
): Effect.Effect<TestClient, any, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      capabilities.pipe(Layer.provideMerge(Kernel.layer({ pageSize: options.pageSize })))
    )
    const kernel = yield* Effect.provide(Effect.service(Kernel.Kernel), context)
    const { client, closeOutput, transport } = yield* makeMemory({ maxMessageBytes: options.maxMessageBytes })
    const serve = (
      options.methods === undefined ? McpServer.serve() : McpServer.serve({ methods: options.methods as any })
    ) as Effect.Effect<void, never, Transport | Kernel.Kernel>
    const server = yield* serve.pipe(
      Effect.provideService(Transport, transport),
      Effect.provide(context),
      Effect.ensuring(closeOutput),
      Effect.forkScoped
    )
    let nextId = 1000
    const readRaw = Effect.orDie(client.read)
    const read = Effect.map(readRaw, (line) => JSON.parse(line))
    const send = (message: unknown) => client.write(JSON.stringify(message) + "\n")
    const request = (method: string, params?: unknown) =>
      Effect.gen(function* () {
        const id = nextId++
        yield* send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params })
        return yield* read
      })
    const initialize = (protocolVersion = "2025-11-25") =>
      Effect.tap(
        request("initialize", { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1" } }),
        () => send({ jsonrpc: "2.0", method: "notifications/initialized" })
      )
    return { write: client.write, send, read, readRaw, request, initialize, close: client.close, server, kernel }
  })

export const awaitServer = (client: TestClient) => Fiber.await(client.server)
