/**
 * Helpers for requests of protocol 2026-07-28 served without a connection
 * (`McpServer.make()` + `server.request`): the `_meta` a request carries, a
 * server over a kernel with the given capabilities, and a collector of the
 * messages a request sends through its origin before its response.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Kernel from "../../src/Kernel.ts"
import * as McpServer from "../../src/McpServer.ts"

export const version = "2026-07-28"

export const metaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/** The `_meta` of a 2026-07-28 request (no capabilities, a client identity), plus `extra`. */
export const meta = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  [metaKey.protocolVersion]: version,
  [metaKey.clientCapabilities]: {},
  [metaKey.clientInfo]: { name: "modern-test", version: "1" },
  ...extra
})

/** What a request sent through its origin, parsed, and a way to wait for the next one. */
export interface Collector {
  readonly origin: McpServer.StatelessOrigin
  /** Everything sent so far, oldest first. */
  readonly sent: Array<any>
  /** The next message sent (already sent, or the next to come); never a timer. */
  readonly next: Effect.Effect<any>
  /** How many messages were sent and not yet taken by `next`. */
  readonly pending: Effect.Effect<number>
}

export const collector = (headers?: ((name: string) => string | undefined) | undefined): Effect.Effect<Collector> =>
  Effect.map(Queue.unbounded<any>(), (queue) => {
    const sent: Array<any> = []
    return {
      origin: {
        send: (line: string) =>
          Effect.suspend(() => {
            const message = JSON.parse(line)
            sent.push(message)
            return Effect.asVoid(Queue.offer(queue, message))
          }),
        ...(headers === undefined ? {} : { headers })
      },
      sent,
      next: Queue.take(queue),
      pending: Queue.size(queue)
    }
  })

/** Headers from a record, read by lower-case name as the server does. */
export const headersOf =
  (record: Record<string, string>) =>
  (name: string): string | undefined => {
    for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === name) return value
    return undefined
  }

export interface Answer {
  readonly status: McpServer.StatelessAnswer["status"]
  readonly line: string
  readonly response: any
}

export interface ModernServer {
  readonly server: McpServer.Server
  readonly kernel: Kernel.Kernel["Service"]
  /** Serves one request; `origin` defaults to one that drops what is sent. */
  readonly request: (
    method: string,
    params: Record<string, unknown> | undefined,
    options?: {
      readonly id?: string | number | undefined
      readonly origin?: McpServer.StatelessOrigin | undefined
    }
  ) => Effect.Effect<Answer>
}

/** A server (no connection) over a fresh kernel with the given capabilities. */
export const makeServer = <E>(
  capabilities: Layer.Layer<never, E, Kernel.Kernel>,
  options: { readonly pageSize?: number | undefined } = {}
): Effect.Effect<ModernServer, E, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      capabilities.pipe(Layer.provideMerge(Kernel.layer({ pageSize: options.pageSize })))
    )
    const kernel = yield* Effect.provide(Effect.service(Kernel.Kernel), context)
    const server = yield* (
      McpServer.make() as Effect.Effect<McpServer.Server, never, Kernel.Kernel | Scope.Scope>
    ).pipe(Effect.provide(context))
    let nextId = 1
    const request: ModernServer["request"] = (method, params, requestOptions = {}) =>
      Effect.map(
        server.request(
          { id: requestOptions.id ?? nextId++, method, params },
          requestOptions.origin ?? { send: () => Effect.void }
        ),
        (answer): Answer => ({ status: answer.status, line: answer.line, response: JSON.parse(answer.line) })
      )
    return { server, kernel, request }
  })
