/**
 * The wire of the dynamic-registry bridge, shared by the runtime's side
 * (`layers/BridgeServer.ts`, `capabilities/bridge`) and the application's
 * (`BridgeClient`).
 *
 * An application opens a connection to the runtime's bridge socket (a Unix
 * domain socket, or TCP on the loopback interface) and sends one line, its
 * hello: `{"mcpRuntimeBridge":1,"name":"shop","pid":4242,"token":"…"}` (the
 * token only over TCP). The runtime answers one line,
 * `{"mcpRuntimeBridge":1,"ok":true}` or
 * `{"mcpRuntimeBridge":1,"ok":false,"reason":"token","message":"…"}`, and from
 * then on the connection carries MCP exactly as stdio does (newline-delimited
 * JSON-RPC), with the roles reversed: the application is the MCP **server**,
 * the runtime its client. The runtime initializes, lists the application's
 * tools, resources and prompts, publishes them under `app_`, and tells the
 * application what it published with the notification
 * {@link registeredMethod}.
 *
 * @internal
 */
import { timingSafeEqual } from "node:crypto"
import * as NodePath from "node:path"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import { type Connection, connectTo, type SocketError } from "./daemonSocket.ts"
import { stateDirectory } from "./stateDirectory.ts"

/** The version of the bridge's hello and answer lines. */
export const protocolVersion = 1

/** The longest hello line, in bytes. */
export const maxHelloBytes = 64 * 1024

/** How long the runtime waits for an application's hello, and an application for the answer. */
export const helloTimeoutMs = 10_000

/** The environment variable that tells an application where the bridge is (a socket path, or `tcp://host:port`). */
export const endpointVariable = "MCP_RUNTIME_BRIDGE"

/** The environment variable that carries the token of a TCP bridge to an application. */
export const tokenVariable = "MCP_RUNTIME_BRIDGE_TOKEN"

/** What an application's name must look like (it names the application's tools too). */
export const namePattern = /^[a-z][a-z0-9_]{0,31}$/

/**
 * The notification the runtime sends the application after each
 * registration: what was published, under which public names, and what was
 * refused and why.
 */
export const registeredMethod = "notifications/mcp-runtime/bridge/registered"

/** The application's hello. */
export const Hello = Schema.Struct({
  mcpRuntimeBridge: Schema.Literal(protocolVersion),
  name: Schema.String,
  pid: Schema.optionalKey(Schema.Int),
  token: Schema.optionalKey(Schema.String)
})
export type Hello = typeof Hello.Type

/** Why the runtime refused a connection. */
export const RefusalReason = Schema.Literals(["hello", "token", "name", "name_taken"])
export type RefusalReason = typeof RefusalReason.Type

/** The runtime's answer to a hello. */
export const Answer = Schema.Union([
  Schema.Struct({ mcpRuntimeBridge: Schema.Literal(protocolVersion), ok: Schema.Literal(true) }),
  Schema.Struct({
    mcpRuntimeBridge: Schema.Literal(protocolVersion),
    ok: Schema.Literal(false),
    reason: RefusalReason,
    message: Schema.String
  })
])
export type Answer = typeof Answer.Type

export const decodeHello = Schema.decodeUnknownEffect(Schema.fromJsonString(Hello))
export const decodeAnswer = Schema.decodeUnknownEffect(Schema.fromJsonString(Answer))

export const welcomeLine = `${JSON.stringify({ mcpRuntimeBridge: protocolVersion, ok: true })}\n`
export const refusalLine = (reason: RefusalReason, message: string): string =>
  `${JSON.stringify({ mcpRuntimeBridge: protocolVersion, ok: false, reason, message })}\n`

/** One entry of a registration report. */
export const Entry = Schema.Struct({
  kind: Schema.Literals(["tool", "resource", "prompt"]),
  /** The application's name of it (a resource: its URI or URI template). */
  name: Schema.String,
  /** The runtime's public name, when published. */
  publicName: Schema.optionalKey(Schema.String),
  /** Why it was not published. */
  reason: Schema.optionalKey(Schema.String)
})
export type Entry = typeof Entry.Type

/** The params of {@link registeredMethod}. */
export const Registered = Schema.Struct({
  published: Schema.Array(Entry),
  refused: Schema.Array(Entry)
})
export type Registered = typeof Registered.Type

/** Where the bridge listens. */
export type Endpoint =
  | { readonly _tag: "Unix"; readonly path: string }
  | { readonly _tag: "Tcp"; readonly host: string; readonly port: number }

/** The endpoint as applications name it: a socket path, or `tcp://host:port`. */
export const formatEndpoint = (endpoint: Endpoint): string =>
  endpoint._tag === "Unix"
    ? endpoint.path
    : `tcp://${endpoint.host.includes(":") ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`

/** Reads an endpoint as {@link formatEndpoint} writes it; undefined when it is neither. */
export const parseEndpoint = (text: string): Endpoint | undefined => {
  const trimmed = text.trim()
  if (trimmed.startsWith("tcp://")) {
    const match = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/.exec(trimmed)
    if (match === null) return undefined
    const port = Number(match[2])
    if (port < 1 || port > 65535) return undefined
    return { _tag: "Tcp", host: match[1]!.replace(/^\[|\]$/g, ""), port }
  }
  return trimmed === "" ? undefined : { _tag: "Unix", path: NodePath.resolve(trimmed) }
}

/**
 * The default socket: `<state>/mcp-runtime/bridge/bridge.sock`, `<state>`
 * being `$XDG_STATE_HOME`, else `~/.local/state` (as the daemon's files).
 */
export const defaultSocketPath = (env: Readonly<Record<string, string | undefined>>): string =>
  NodePath.join(bridgeDirectory(env), "bridge.sock")

/** The default file of a TCP bridge's token: `<state>/mcp-runtime/bridge/bridge.token`. */
export const defaultTokenPath = (env: Readonly<Record<string, string | undefined>>): string =>
  NodePath.join(bridgeDirectory(env), "bridge.token")

const bridgeDirectory = (env: Readonly<Record<string, string | undefined>>): string =>
  NodePath.join(stateDirectory(env), "mcp-runtime", "bridge")

/** Compares a token in constant time. */
export const tokenMatches = (expected: string, given: string | undefined): boolean => {
  if (given === undefined) return false
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** A connection an application opened, with its hello (a TCP token already checked). */
export interface Accepted {
  readonly hello: Hello
  readonly connection: Connection
}

/**
 * The listening side of the bridge, as the runtime's `bridge` capability
 * sees it: where it listens, and the connections of applications whose hello
 * was read (and whose token matched, over TCP). The Node implementation is
 * `layers/BridgeServer.ts`.
 */
export class BridgeListener extends Context.Service<
  BridgeListener,
  {
    readonly endpoint: Endpoint
    /** Where an application finds the TCP token (a file of mode 0600), when it is not given to it otherwise. */
    readonly tokenFile: string | undefined
    readonly accepted: Stream.Stream<Accepted>
  }
>()("effect-mcp-runtime/BridgeListener") {}

/** Connects to a TCP endpoint, failing after `timeoutMs`. */
export const connectTcp = (host: string, port: number, timeoutMs: number): Effect.Effect<Connection, SocketError> =>
  connectTo({ host, port }, timeoutMs)
