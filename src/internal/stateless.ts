/**
 * Serving one request of MCP 2026-07-28, with nothing but the request: its
 * `_meta` names the protocol version and the client's capabilities, the
 * transport says where the request's own messages go (its SSE stream, or
 * the stdio line it shares with others) and, over HTTP, passes the routing
 * headers. No session is read or written: any instance can serve any
 * request.
 *
 * In order, as the 2026-07-28 transport and the conformance suite expect:
 * `_meta` (−32602), the routing headers (−32020), the protocol version
 * (−32022), the method (−32601), then the request pipeline. The result gets
 * `resultType` and the server's identity in `_meta`; a handler's requests
 * to the client become input-required rounds (`mrtr.ts`).
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Principal } from "../Authorization.ts"
import { Client, ClientRequestFailed } from "../Client.ts"
import { ClientLog, severity } from "../ClientLog.ts"
import type { Kernel } from "../Kernel.ts"
import { type McpError, MethodNotFound, UnsupportedProtocolVersion } from "../McpError.ts"
import type { Implementation, LoggingLevel, LoggingMessageParams, RequestId } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext, type RequestRecord } from "../RequestContext.ts"
import { Session } from "../Session.ts"
import type { Dispatch } from "./dispatch.ts"
import { errorLine, notificationLine } from "./jsonRpc.ts"
import { jsonSafe } from "./jsonSafe.ts"
import * as Meta from "./meta.ts"
import { serverInfoMember } from "./modern.ts"
import * as Mrtr from "./mrtr.ts"
import * as RoutingHeaders from "./routingHeaders.ts"

/** How the answer to a stateless request went, for a transport that has statuses. */
export type Status =
  /** A result, or an error of the request's own (−32602 for its arguments, −32603…): HTTP 200. */
  | "ok"
  /** The request's envelope is wrong: `_meta` (−32602), headers (−32020), version (−32022), capability (−32021): HTTP 400. */
  | "bad_request"
  /** No such method (−32601): HTTP 404. */
  | "not_found"

/** A stateless request, as a transport hands it to the server. */
export interface Incoming {
  readonly id: RequestId
  readonly method: string
  readonly params: { readonly [key: string]: unknown } | undefined
  readonly bytesIn: number | undefined
}

/** Where a stateless request came from. */
export interface Origin {
  /** Sends a message that belongs to the request (before its response). */
  readonly send: (line: string) => Effect.Effect<void>
  /** The request's routing headers (Streamable HTTP); absent on transports without headers. */
  readonly headers?: RoutingHeaders.Headers | undefined
  /** Where the request's record is kept while it runs (stdio: so `notifications/cancelled` can end it). */
  readonly records?: Map<string, RequestRecord> | undefined
  /** Names the connection on spans (default `stateless`). */
  readonly scope?: string | undefined
  /** Who sent the request, when the transport authenticated it. */
  readonly principal?: Principal | undefined
}

/** The answer line and how it went. */
export interface Answer {
  readonly line: string
  readonly status: Status
}

/** What the stateless path needs from the server. */
export interface Deps {
  readonly dispatch: Dispatch
  /** The methods of 2026-07-28, by name (the method table's modern part). */
  readonly methods: ReadonlyMap<string, Method.Request>
  readonly kernel: Kernel["Service"]
  readonly serverInfo: Implementation
  readonly fork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>
  readonly correlationId: () => string
}

/** A protocol error of the request's envelope: whether it is one the transport answers with 400. */
const badRequestCodes = new Set([-32020, -32021, -32022])

// The code of an error response line (as `errorLine` writes it), or undefined for a result.
const codeOf = (line: string, id: RequestId): number | undefined => {
  const head = `{"jsonrpc":"2.0","id":${typeof id === "string" ? JSON.stringify(id) : String(id)},"error":{"code":`
  if (!line.startsWith(head)) return undefined
  const match = /^-?\d+/.exec(line.slice(head.length))
  return match === null ? undefined : Number(match[0])
}

/** Builds the stateless path of a server. */
export const make = (deps: Deps) => {
  const { dispatch, kernel, methods } = deps
  const serverInfoMeta = { [Meta.metaKey.serverInfo]: deps.serverInfo }
  const rawPrefix = `{"resultType":"complete",${serverInfoMember(deps.serverInfo)},`

  // `resultType` and the server's identity on every result.
  const shape = (result: unknown): unknown => {
    if (result instanceof Method.RawJson) {
      const json = result.json
      if (json.startsWith('{"resultType"')) return result
      return new Method.RawJson(json === "{}" ? rawPrefix.slice(0, -1) + "}" : rawPrefix + json.slice(1))
    }
    if (typeof result !== "object" || result === null) return result
    const object = result as Record<string, unknown>
    const meta = object._meta
    return {
      resultType: "complete",
      ...object,
      _meta:
        typeof meta === "object" && meta !== null
          ? { ...(meta as Record<string, unknown>), ...serverInfoMeta }
          : serverInfoMeta
    }
  }

  const refuse = (message: Incoming, line: string, status: Status, scope: string): Effect.Effect<Answer> =>
    Effect.map(
      dispatch.rejected(message.method, message.id, message.bytesIn, line, scope, deps.correlationId),
      (line) => ({
        line,
        status
      })
    )

  // A client request that is not allowed where it was made.
  const noInput = (method: string) =>
    Effect.fail(
      new ClientRequestFailed({
        method,
        message:
          `Under protocol 2026-07-28 only tools/call, prompts/get and resources/read may ask the client for input ` +
          `(${method} was asked while serving another method).`
      })
    )

  const serve = (message: Incoming, origin: Origin): Effect.Effect<Answer> =>
    Effect.suspend(() => {
      const scope = origin.scope ?? "stateless"
      const params = message.params
      const meta = Meta.read(params)
      if (!("protocolVersion" in meta)) return refuse(message, errorLine(message.id, meta), "bad_request", scope)
      const method = methods.get(message.method) ?? kernel.extensionMethod(message.method)
      if (origin.headers !== undefined) {
        const tool =
          message.method === "tools/call" && typeof params?.name === "string" ? kernel.tool(params.name) : undefined
        const mismatch = RoutingHeaders.check({
          headers: origin.headers,
          method: message.method,
          protocolVersion: meta.protocolVersion,
          routingName: method?.routingName?.(params ?? {}),
          params: tool?.headerParams ?? [],
          args: params?.arguments
        })
        if (mismatch !== undefined) return refuse(message, errorLine(message.id, mismatch), "bad_request", scope)
      }
      if (!ProtocolVersion.isModern(meta.protocolVersion)) {
        const requested = meta.protocolVersion
        const error = new UnsupportedProtocolVersion({
          message: ProtocolVersion.isLegacy(requested)
            ? `Unsupported protocol version for a request without a session: ${requested} is served after ` +
              `initialize (a session); requests that carry their own _meta use ${ProtocolVersion.modern.join(", ")}.`
            : `Unsupported protocol version ${JSON.stringify(requested)}: this server implements ` +
              `${ProtocolVersion.supported.join(", ")}.`,
          supported: [...ProtocolVersion.supported],
          requested
        })
        return refuse(message, errorLine(message.id, error), "bad_request", scope)
      }
      if (method === undefined) {
        return refuse(
          message,
          errorLine(message.id, new MethodNotFound({ method: message.method })),
          "not_found",
          scope
        )
      }
      const send = origin.send
      const notify = (notification: string, notificationParams?: Record<string, unknown>) =>
        send(notificationLine(notification, notificationParams))
      const version = meta.protocolVersion
      const session = Session.of({
        id: scope,
        state: {
          phase: "ready",
          protocolVersion: version,
          clientCapabilities: meta.clientCapabilities,
          clientInfo: meta.clientInfo,
          initializedNotified: true,
          serverCapabilities: {},
          logLevel: meta.logLevel,
          subscriptions: new Set()
        },
        notify,
        cancel: () => Effect.void,
        detach: () => Effect.void
      })
      const level = meta.logLevel
      const clientLog = ClientLog.of({
        enabled: (at) => level !== undefined && severity[at] >= severity[level],
        log: (at: LoggingLevel, data, options) =>
          level === undefined || severity[at] < severity[level]
            ? Effect.void
            : Effect.flatMap(Effect.serviceOption(RequestContext), (request) => {
                if (Option.isSome(request) && request.value.record.ended) return Effect.void
                const logger = options?.logger ?? (Option.isSome(request) ? request.value.record.tool : undefined)
                const json = jsonSafe(data === undefined ? null : data)
                const logParams: LoggingMessageParams =
                  logger === undefined ? { level: at, data: json } : { level: at, logger, data: json }
                return notify("notifications/message", logParams as unknown as Record<string, unknown>)
              })
      })
      const client = Client.of({
        capabilities: () => meta.clientCapabilities,
        protocolVersion: () => version,
        request: noInput,
        notify,
        rootsChanged: Stream.empty,
        publishRootsChanged: Effect.void,
        pending: () => 0
      })
      const services: ReadonlyArray<readonly [Context.Key<any, any>, unknown]> = [
        [Session, session],
        [ClientLog, clientLog],
        [Client, client]
      ]
      const served = method.inputRequests ? withRounds(method, params ?? {}, meta, notify) : method
      return Effect.map(
        dispatch.execute(served, message.id, params, message.bytesIn, {
          protocolVersion: version,
          clientCapabilities: meta.clientCapabilities,
          clientInfo: meta.clientInfo,
          send,
          fork: deps.fork,
          scope,
          correlationId: deps.correlationId,
          services,
          records: origin.records,
          shape,
          principal: origin.principal
        }),
        (line): Answer => {
          const code = codeOf(line, message.id)
          return {
            line,
            status:
              code === undefined
                ? "ok"
                : code === -32601
                  ? "not_found"
                  : badRequestCodes.has(code)
                    ? "bad_request"
                    : "ok"
          }
        }
      )
    })

  // The method with its handler run in rounds: the handler's requests to the
  // client are looked up in the answers the request carries; when one has no
  // answer, the request is answered with an input-required result instead.
  const withRounds = (
    method: Method.Request,
    raw: { readonly [key: string]: unknown },
    meta: Meta.RequestMeta,
    notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
  ): Method.Request => ({
    ...method,
    handler: (decoded) =>
      Effect.flatMap(
        Mrtr.prepare(
          method.name,
          raw,
          // Checked: a modern revision (requests of other revisions are refused before).
          {
            protocolVersion: meta.protocolVersion as ProtocolVersion.ProtocolVersion,
            capabilities: meta.clientCapabilities
          },
          notify
        ),
        (round) => {
          // However the handler ended (a round ends it with an interruption; a handler may also have
          // turned that into a result of its own), an ended round decides the answer.
          const decide = <A, E>(
            outcome: Effect.Effect<A, E>
          ): Effect.Effect<A | Record<string, unknown>, E | McpError> => {
            // The round noted the outcome on the request's record when it ended the handler.
            const ended = round.ended()
            return ended === undefined ? outcome : ended === "blocked" ? round.result : Effect.fail(ended)
          }
          // Kept with the request: a durable task created by it runs again elsewhere with the same answers.
          const inputs =
            raw.inputResponses === undefined && raw.requestState === undefined
              ? undefined
              : { inputResponses: raw.inputResponses, requestState: raw.requestState }
          const handler =
            inputs === undefined
              ? method.handler(decoded)
              : Effect.flatMap(Effect.service(RequestContext), (request) => {
                  request.record.inputs = inputs
                  return method.handler(decoded)
                })
          return Effect.provideService(handler, Client, round.client).pipe(
            Effect.matchCauseEffect({
              onFailure: (cause) => decide(Effect.failCause(cause)),
              onSuccess: (value) => decide(Effect.succeed(value))
            })
          )
        }
      )
  })

  return serve
}
