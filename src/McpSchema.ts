/**
 * The wire format: JSON-RPC 2.0 envelopes and the MCP payloads the runtime
 * reads and writes, as Effect Schemas.
 *
 * Every type here describes the *encoded* JSON that crosses the transport. The
 * runtime decodes only what a method needs: the envelope of every message, and
 * the params of the method being called. Results are encoded once, with plain
 * `JSON.stringify`, from values whose types are checked against the official
 * SDK's `spec.types.ts` (see `test/wire-types.test.ts`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

// -----------------------------------------------------------------------------
// JSON-RPC 2.0
// -----------------------------------------------------------------------------

/**
 * A JSON-RPC request id. MCP narrows JSON-RPC: an id is a string or an integer,
 * never `null` and never a fraction.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { RequestId } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(RequestId)(7) // => 7
 * ```
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const RequestId = Schema.Union([Schema.String, Schema.Int])

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type RequestId = typeof RequestId.Type

/**
 * Request or notification params: a JSON object.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const Params = Schema.Record(Schema.String, Schema.Unknown)

/**
 * A JSON-RPC request envelope. `params` is kept as an opaque object here; each
 * method decodes its own params with its own schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { JsonRpcRequest } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(JsonRpcRequest)({ jsonrpc: "2.0", id: 1, method: "ping" })
 * ```
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  method: Schema.String,
  params: Schema.optionalKey(Params)
})

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type JsonRpcRequest = typeof JsonRpcRequest.Type

/**
 * A JSON-RPC notification envelope: a request without an id. It never gets a
 * response.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const JsonRpcNotification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optionalKey(Params)
})

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type JsonRpcNotification = typeof JsonRpcNotification.Type

/**
 * The `error` member of a JSON-RPC error response.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const JsonRpcErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
})

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type JsonRpcErrorObject = typeof JsonRpcErrorObject.Type

/**
 * A JSON-RPC response: exactly one of `result` or `error`. A peer sends these in
 * answer to requests the server made; the runtime accepts them on the wire.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const JsonRpcResponse = Schema.Union([
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: RequestId, result: Params }),
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: Schema.NullOr(RequestId), error: JsonRpcErrorObject })
])

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

/**
 * Any single JSON-RPC message.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const JsonRpcMessage = Schema.Union([JsonRpcRequest, JsonRpcNotification, JsonRpcResponse])

/**
 * @category json-rpc
 * @since 0.1.0
 */
export type JsonRpcMessage = typeof JsonRpcMessage.Type

/**
 * The standard JSON-RPC 2.0 error codes, plus the MCP ones the runtime emits.
 *
 * @category json-rpc
 * @since 0.1.0
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603
} as const

// -----------------------------------------------------------------------------
// MCP: shared
// -----------------------------------------------------------------------------

/**
 * The name and version of an MCP implementation (`clientInfo`, `serverInfo`).
 *
 * @category mcp
 * @since 0.1.0
 */
export const Implementation = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optionalKey(Schema.String)
})

/**
 * @category mcp
 * @since 0.1.0
 */
export type Implementation = typeof Implementation.Type

/**
 * What a client declared it supports, as sent in `initialize`. Kept open: the
 * runtime reads the members it knows (`roots`, `sampling`, `elicitation`) and
 * keeps the rest.
 *
 * @category mcp
 * @since 0.1.0
 */
export const ClientCapabilities = Schema.Record(Schema.String, Schema.Unknown)

/**
 * @category mcp
 * @since 0.1.0
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * The params of `initialize`.
 *
 * @category mcp
 * @since 0.1.0
 */
export const InitializeParams = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: ClientCapabilities,
  clientInfo: Implementation
})

/**
 * @category mcp
 * @since 0.1.0
 */
export type InitializeParams = typeof InitializeParams.Type

/**
 * What the server advertises in its `initialize` result.
 *
 * @category mcp
 * @since 0.1.0
 */
export interface ServerCapabilities {
  readonly tools?: { readonly listChanged?: boolean }
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean }
  readonly prompts?: { readonly listChanged?: boolean }
  readonly logging?: {}
  readonly completions?: {}
  readonly experimental?: Record<string, object>
}

/**
 * The result of `initialize`.
 *
 * @category mcp
 * @since 0.1.0
 */
export interface InitializeResult {
  readonly protocolVersion: string
  readonly capabilities: ServerCapabilities
  readonly serverInfo: { readonly name: string; readonly version: string; readonly title?: string }
  readonly instructions?: string
}

/**
 * The params of the paginated list methods (`tools/list`, …).
 *
 * @category mcp
 * @since 0.1.0
 */
export const PaginatedParams = Schema.Struct({
  cursor: Schema.optionalKey(Schema.String)
})

/**
 * The params of `tools/call`.
 *
 * @category mcp
 * @since 0.1.0
 */
export const CallToolParams = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Params)
})

/**
 * @category mcp
 * @since 0.1.0
 */
export type CallToolParams = typeof CallToolParams.Type

/**
 * The params of `notifications/cancelled`.
 *
 * @category mcp
 * @since 0.1.0
 */
export const CancelledParams = Schema.Struct({
  requestId: RequestId,
  reason: Schema.optionalKey(Schema.String)
})

// -----------------------------------------------------------------------------
// MCP: content
// -----------------------------------------------------------------------------

/**
 * Optional hints on content: who it is for and how important it is.
 *
 * @category content
 * @since 0.1.0
 */
export const Annotations = Schema.Struct({
  audience: Schema.optionalKey(Schema.Array(Schema.Literals(["user", "assistant"]))),
  priority: Schema.optionalKey(Schema.Number),
  lastModified: Schema.optionalKey(Schema.String)
})

/**
 * @category content
 * @since 0.1.0
 */
export type Annotations = typeof Annotations.Type

/**
 * @category content
 * @since 0.1.0
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * @category content
 * @since 0.1.0
 */
export type TextContent = typeof TextContent.Type

/**
 * @category content
 * @since 0.1.0
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * @category content
 * @since 0.1.0
 */
export type ImageContent = typeof ImageContent.Type

/**
 * @category content
 * @since 0.1.0
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * @category content
 * @since 0.1.0
 */
export type AudioContent = typeof AudioContent.Type

/**
 * A link to a resource the client may read (protocol 2025-06-18 and later).
 *
 * @category content
 * @since 0.1.0
 */
export const ResourceLink = Schema.Struct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  size: Schema.optionalKey(Schema.Number),
  annotations: Schema.optionalKey(Annotations)
})

/**
 * @category content
 * @since 0.1.0
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * The contents of a resource, as text or as base64 data.
 *
 * @category content
 * @since 0.1.0
 */
export const ResourceContents = Schema.Union([
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), text: Schema.String }),
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), blob: Schema.String })
])

/**
 * @category content
 * @since 0.1.0
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * A resource embedded in a result.
 *
 * @category content
 * @since 0.1.0
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * @category content
 * @since 0.1.0
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * Any content block a tool result or prompt message may carry.
 *
 * @category content
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])

/**
 * @category content
 * @since 0.1.0
 */
export type ContentBlock = typeof ContentBlock.Type

// -----------------------------------------------------------------------------
// MCP: tools
// -----------------------------------------------------------------------------

/**
 * Hints about a tool's behaviour. Clients treat them as untrusted.
 *
 * @category tools
 * @since 0.1.0
 */
export const ToolAnnotations = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})

/**
 * @category tools
 * @since 0.1.0
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A JSON Schema object, as emitted in `inputSchema` / `outputSchema`.
 *
 * @category tools
 * @since 0.1.0
 */
export interface JsonSchemaObject {
  readonly type: "object"
  readonly [key: string]: unknown
}

/**
 * One entry of a `tools/list` result.
 *
 * @category tools
 * @since 0.1.0
 */
export interface ToolDefinition {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: JsonSchemaObject
  readonly outputSchema?: JsonSchemaObject
  readonly annotations?: ToolAnnotations
}

/**
 * The result of `tools/call`.
 *
 * @category tools
 * @since 0.1.0
 */
export interface CallToolResult {
  readonly content: ReadonlyArray<ContentBlock>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
  readonly _meta?: Record<string, unknown>
}

/**
 * The `_meta` key under which an error result carries machine-readable
 * details: `{ code, suggestion?, correlationId? }`.
 *
 * @category tools
 * @since 0.1.0
 */
export const errorMetaKey = "effect-mcp-runtime/error"
