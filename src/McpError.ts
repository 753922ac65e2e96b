/**
 * Protocol errors: the closed set of failures that become a JSON-RPC `error`
 * response, and the one function that maps them to wire codes.
 *
 * Tool failures are *not* protocol errors: a tool that fails returns a result
 * with `isError: true` so the model can read it (see `Tool`). Only malformed
 * messages, unknown methods, bad params and server faults use these.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { ErrorCode, type JsonRpcErrorObject } from "./McpSchema.ts"

/**
 * The message was not valid JSON (−32700). Sent with `id: null`.
 *
 * **Example**
 *
 * ```ts
 * import { ParseError, toJsonRpcError } from "effect-mcp-runtime/McpError"
 *
 * toJsonRpcError(new ParseError({ message: "Parse error" }))
 * // => { code: -32700, message: "Parse error" }
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ParseError extends Schema.TaggedError<ParseError>()("ParseError", {
  message: Schema.String
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.ParseError
}

/**
 * The message was JSON but not a valid JSON-RPC request, or was sent at a time
 * the protocol does not allow (−32600).
 *
 * **Example**
 *
 * ```ts
 * import { InvalidRequest } from "effect-mcp-runtime/McpError"
 *
 * new InvalidRequest({ message: "Send initialize first" }).code // => -32600
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.InvalidRequest
}

/**
 * No handler exists for the requested method (−32601).
 *
 * **Example**
 *
 * ```ts
 * import { MethodNotFound } from "effect-mcp-runtime/McpError"
 *
 * new MethodNotFound({ method: "tools/frobnicate" }).message
 * // => "Method not found: tools/frobnicate"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class MethodNotFound extends Schema.TaggedError<MethodNotFound>()("MethodNotFound", {
  method: Schema.String
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.MethodNotFound
  override get message(): string {
    return `Method not found: ${this.method}`
  }
}

/**
 * The params of a request were missing or of the wrong shape, or named
 * something that does not exist (an unknown tool, a bad cursor) (−32602).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { InvalidParams } from "effect-mcp-runtime/McpError"
 *
 * const unknownTool = (name: string) =>
 *   Effect.fail(new InvalidParams({ message: `Unknown tool: ${name}`, data: { tool: name } }))
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", {
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.InvalidParams
}

/**
 * The server failed while handling the request (−32603). The client sees only
 * the correlation id; the cause is logged on stderr under the same id.
 *
 * **Example**
 *
 * ```ts
 * import { InternalError } from "effect-mcp-runtime/McpError"
 *
 * new InternalError({ correlationId: "1a2b3c4d-5" }).message
 * // => "Internal error (correlation id 1a2b3c4d-5); the server log has the details"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  correlationId: Schema.String
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.InternalError
  override get message(): string {
    return `Internal error (correlation id ${this.correlationId}); the server log has the details`
  }
}

/**
 * No resource has the URI a request names (−32002, MCP's "resource not
 * found"). `data.uri` repeats it.
 *
 * **Example**
 *
 * ```ts
 * import { ResourceNotFound } from "effect-mcp-runtime/McpError"
 *
 * new ResourceNotFound({ uri: "notes://note/7", message: "Resource not found: notes://note/7" }).code // => -32002
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  uri: Schema.String,
  message: Schema.String
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.ResourceNotFound
}

/**
 * The request could not be served, for a reason the client may read: a
 * prompt or resource read that timed out or found the server overloaded, a
 * resource handler's own failure (−32603, with the message). Unlike
 * {@link InternalError}, the message is meant for the client.
 *
 * **Example**
 *
 * ```ts
 * import { RequestFailed } from "effect-mcp-runtime/McpError"
 *
 * new RequestFailed({ message: "Reading notes://big timed out after 30000 ms", data: { reason: "timeout" } }).code
 * // => -32603
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class RequestFailed extends Schema.TaggedError<RequestFailed>()("RequestFailed", {
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /** @since 0.1.0 */
  readonly code = ErrorCode.InternalError
}

/**
 * A Streamable HTTP routing header (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name`, `Mcp-Param-*`) is missing, malformed, or does not match the
 * request body (−32020, MCP 2026-07-28; answered with HTTP 400).
 *
 * **Example**
 *
 * ```ts
 * import { HeaderMismatch } from "effect-mcp-runtime/McpError"
 *
 * new HeaderMismatch({ message: "Header mismatch: Mcp-Name is 'a', the body names 'b'" }).code // => -32020
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>()("HeaderMismatch", {
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  /** @since 0.2.0 */
  readonly code = ErrorCode.HeaderMismatch
}

/**
 * Serving the request needs a capability the client did not declare in the
 * request's `io.modelcontextprotocol/clientCapabilities` (−32021, MCP
 * 2026-07-28; HTTP 400). `requiredCapabilities` is a `ClientCapabilities`
 * object naming what is missing, such as `{ sampling: {} }`.
 *
 * **Example**
 *
 * ```ts
 * import { MissingRequiredClientCapability } from "effect-mcp-runtime/McpError"
 *
 * new MissingRequiredClientCapability({
 *   message: "This tool asks the client's model: declare the sampling capability",
 *   requiredCapabilities: { sampling: {} }
 * }).code // => -32021
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class MissingRequiredClientCapability extends Schema.TaggedError<MissingRequiredClientCapability>()(
  "MissingRequiredClientCapability",
  {
    message: Schema.String,
    requiredCapabilities: Schema.Record(Schema.String, Schema.Unknown)
  }
) {
  /** @since 0.2.0 */
  readonly code = ErrorCode.MissingRequiredClientCapability
}

/**
 * The request names a protocol version the server does not implement
 * (−32022, MCP 2026-07-28; HTTP 400). `supported` lists the versions it
 * does, `requested` echoes the one asked for.
 *
 * **Example**
 *
 * ```ts
 * import { UnsupportedProtocolVersion } from "effect-mcp-runtime/McpError"
 *
 * new UnsupportedProtocolVersion({
 *   message: "Unsupported protocol version 1999-01-01",
 *   supported: ["2026-07-28"],
 *   requested: "1999-01-01"
 * }).code // => -32022
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class UnsupportedProtocolVersion extends Schema.TaggedError<UnsupportedProtocolVersion>()(
  "UnsupportedProtocolVersion",
  {
    message: Schema.String,
    supported: Schema.Array(Schema.String),
    requested: Schema.Unknown
  }
) {
  /** @since 0.2.0 */
  readonly code = ErrorCode.UnsupportedProtocolVersion
}

/**
 * Every protocol error, as a Schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { McpError, MethodNotFound } from "effect-mcp-runtime/McpError"
 *
 * Schema.is(McpError)(new MethodNotFound({ method: "nope" })) // => true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const McpError = Schema.Union([
  ParseError,
  InvalidRequest,
  MethodNotFound,
  InvalidParams,
  InternalError,
  ResourceNotFound,
  RequestFailed,
  HeaderMismatch,
  MissingRequiredClientCapability,
  UnsupportedProtocolVersion
])

/**
 * Any one of the protocol errors.
 *
 * **Example**
 *
 * ```ts
 * import type { McpError } from "effect-mcp-runtime/McpError"
 *
 * const codeOf = (error: McpError): number => error.code
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export type McpError = typeof McpError.Type

/**
 * Maps a protocol error to the JSON-RPC `error` object sent on the wire. This
 * is the only place where errors become codes.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidParams, toJsonRpcError } from "effect-mcp-runtime/McpError"
 *
 * toJsonRpcError(new InvalidParams({ message: "Unknown tool: nope" }))
 * // => { code: -32602, message: "Unknown tool: nope" }
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const toJsonRpcError = (error: McpError): JsonRpcErrorObject => {
  switch (error._tag) {
    case "InvalidRequest":
    case "InvalidParams":
    case "RequestFailed":
    case "HeaderMismatch":
      return error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data }
    case "InternalError":
      return { code: error.code, message: error.message, data: { correlationId: error.correlationId } }
    case "MethodNotFound":
      return { code: error.code, message: error.message, data: { method: error.method } }
    case "ParseError":
      return { code: error.code, message: error.message }
    case "ResourceNotFound":
      return { code: error.code, message: error.message, data: { uri: error.uri } }
    case "MissingRequiredClientCapability":
      return { code: error.code, message: error.message, data: { requiredCapabilities: error.requiredCapabilities } }
    case "UnsupportedProtocolVersion":
      return {
        code: error.code,
        message: error.message,
        data: { supported: error.supported, requested: error.requested }
      }
  }
}

/**
 * Tells whether a value is one of the protocol errors.
 *
 * **Example**
 *
 * ```ts
 * import { isMcpError, ParseError } from "effect-mcp-runtime/McpError"
 *
 * isMcpError(new ParseError({ message: "Parse error" })) // => true
 * isMcpError(new Error("boom")) // => false
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const isMcpError = (u: unknown): u is McpError =>
  typeof u === "object" &&
  u !== null &&
  "_tag" in u &&
  "code" in u &&
  (u._tag === "ParseError" ||
    u._tag === "InvalidRequest" ||
    u._tag === "MethodNotFound" ||
    u._tag === "InvalidParams" ||
    u._tag === "InternalError" ||
    u._tag === "ResourceNotFound" ||
    u._tag === "RequestFailed" ||
    u._tag === "HeaderMismatch" ||
    u._tag === "MissingRequiredClientCapability" ||
    u._tag === "UnsupportedProtocolVersion")
