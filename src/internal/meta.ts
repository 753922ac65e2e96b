/**
 * The per-request context of MCP 2026-07-28, carried in `params._meta`:
 * the protocol version and the client's capabilities (required), its
 * identity and a log level (optional). Reading it is the first step of a
 * stateless request.
 *
 * @internal
 */
import { InvalidParams } from "../McpError.ts"
import { type ClientCapabilities, type Implementation, LoggingLevel, type LoggingLevel as Level } from "../McpSchema.ts"
import * as Schema from "effect/Schema"

/** The `_meta` keys of MCP 2026-07-28. */
export const metaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/** A request's context, read from its `_meta`. */
export interface RequestMeta {
  /** The version it names (not yet checked against the supported ones). */
  readonly protocolVersion: string
  readonly clientCapabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  /** The lowest level of log messages the client wants for this request; none when absent. */
  readonly logLevel: Level | undefined
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isLevel = Schema.is(LoggingLevel)

/** Whether a request names its protocol version in `_meta`, the way 2026-07-28 requests do. */
export const namesVersion = (params: { readonly [key: string]: unknown } | undefined): boolean => {
  const meta = params?._meta
  return isObject(meta) && metaKey.protocolVersion in meta
}

const invalid = (message: string, field: string) =>
  new InvalidParams({
    message:
      `Invalid params: ${message}. Every request of protocol 2026-07-28 carries params._meta with ` +
      `"${metaKey.protocolVersion}" (a version string) and "${metaKey.clientCapabilities}" (an object, {} for ` +
      `none); clients of earlier revisions send initialize first.`,
    data: { reason: "invalid_meta", field }
  })

/** Reads a request's `_meta`, or the −32602 error for what is missing or malformed. */
export const read = (params: { readonly [key: string]: unknown } | undefined): RequestMeta | InvalidParams => {
  const meta = params?._meta
  if (meta === undefined) return invalid("params._meta is missing", "_meta")
  if (!isObject(meta)) return invalid("params._meta is not an object", "_meta")
  const version = meta[metaKey.protocolVersion]
  if (version === undefined) return invalid(`_meta has no "${metaKey.protocolVersion}"`, metaKey.protocolVersion)
  if (typeof version !== "string") {
    return invalid(`_meta "${metaKey.protocolVersion}" is not a string`, metaKey.protocolVersion)
  }
  const capabilities = meta[metaKey.clientCapabilities]
  if (capabilities === undefined) {
    return invalid(`_meta has no "${metaKey.clientCapabilities}"`, metaKey.clientCapabilities)
  }
  if (!isObject(capabilities)) {
    return invalid(`_meta "${metaKey.clientCapabilities}" is not an object`, metaKey.clientCapabilities)
  }
  const info = meta[metaKey.clientInfo]
  const clientInfo =
    isObject(info) && typeof info.name === "string" && typeof info.version === "string"
      ? (info as unknown as Implementation)
      : undefined
  const level = meta[metaKey.logLevel]
  if (level !== undefined && !isLevel(level)) {
    return new InvalidParams({
      message:
        `Invalid params: _meta "${metaKey.logLevel}" is ${JSON.stringify(level)}, not a log level ` +
        `(debug, info, notice, warning, error, critical, alert, emergency).`,
      data: { reason: "invalid_meta", field: metaKey.logLevel }
    })
  }
  return {
    protocolVersion: version,
    clientCapabilities: capabilities as ClientCapabilities,
    clientInfo,
    logLevel: level as Level | undefined
  }
}
