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
 * @category models
 * @since 0.1.0
 */
export const RequestId = Schema.Union([Schema.String, Schema.Int])

/**
 * A JSON-RPC request id: a string or an integer.
 *
 * **Example**
 *
 * ```ts
 * import type { RequestId } from "effect-mcp-runtime/McpSchema"
 *
 * const ids: ReadonlyArray<RequestId> = ["req-1", 2]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type RequestId = typeof RequestId.Type

/**
 * Request or notification params: a JSON object.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Params } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(Params)({ cursor: "abc" }) // => { cursor: "abc" }
 * ```
 *
 * @category models
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
 * // => { jsonrpc: "2.0", id: 1, method: "ping" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const JsonRpcRequest = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: RequestId,
  method: Schema.String,
  params: Schema.optionalKey(Params)
})

/**
 * A JSON-RPC request envelope.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonRpcRequest } from "effect-mcp-runtime/McpSchema"
 *
 * const request: JsonRpcRequest = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcRequest = typeof JsonRpcRequest.Type

/**
 * A JSON-RPC notification envelope: a request without an id. It never gets a
 * response.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { JsonRpcNotification } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(JsonRpcNotification)({ jsonrpc: "2.0", method: "notifications/initialized" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const JsonRpcNotification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optionalKey(Params)
})

/**
 * A JSON-RPC notification envelope.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonRpcNotification } from "effect-mcp-runtime/McpSchema"
 *
 * const cancel: JsonRpcNotification = {
 *   jsonrpc: "2.0",
 *   method: "notifications/cancelled",
 *   params: { requestId: 1 }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcNotification = typeof JsonRpcNotification.Type

/**
 * The `error` member of a JSON-RPC error response.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { JsonRpcErrorObject } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(JsonRpcErrorObject)({ code: -32601, message: "Method not found" })
 * // => { code: -32601, message: "Method not found" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const JsonRpcErrorObject = Schema.Struct({
  code: Schema.Int,
  message: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
})

/**
 * The `error` member of a JSON-RPC error response.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonRpcErrorObject } from "effect-mcp-runtime/McpSchema"
 *
 * const error: JsonRpcErrorObject = { code: -32602, message: "Invalid params", data: { field: "name" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcErrorObject = typeof JsonRpcErrorObject.Type

/**
 * A JSON-RPC response: exactly one of `result` or `error`. A peer sends these in
 * answer to requests the server made; the runtime accepts them on the wire.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { JsonRpcResponse } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(JsonRpcResponse)({ jsonrpc: "2.0", id: 1, result: {} })
 * // => { jsonrpc: "2.0", id: 1, result: {} }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const JsonRpcResponse = Schema.Union([
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: RequestId, result: Params }),
  Schema.Struct({ jsonrpc: Schema.Literal("2.0"), id: Schema.NullOr(RequestId), error: JsonRpcErrorObject })
])

/**
 * A JSON-RPC response, with a `result` or an `error`.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonRpcResponse } from "effect-mcp-runtime/McpSchema"
 *
 * const response: JsonRpcResponse = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcResponse = typeof JsonRpcResponse.Type

/**
 * Any single JSON-RPC message.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { JsonRpcMessage } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.is(JsonRpcMessage)({ jsonrpc: "2.0", id: 1, method: "ping" }) // => true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const JsonRpcMessage = Schema.Union([JsonRpcRequest, JsonRpcNotification, JsonRpcResponse])

/**
 * Any single JSON-RPC message: a request, a notification or a response.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonRpcMessage } from "effect-mcp-runtime/McpSchema"
 *
 * const isRequest = (message: JsonRpcMessage): boolean => "method" in message && "id" in message
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type JsonRpcMessage = typeof JsonRpcMessage.Type

/**
 * The standard JSON-RPC 2.0 error codes, plus the MCP ones the runtime emits.
 *
 * **Example**
 *
 * ```ts
 * import { ErrorCode } from "effect-mcp-runtime/McpSchema"
 *
 * ErrorCode.MethodNotFound // => -32601
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * MCP 2024-11-05 … 2025-11-25: the resource a `resources/read` or
   * `resources/subscribe` names does not exist (2026-07-28 answers −32602).
   */
  ResourceNotFound: -32002,
  /** MCP 2026-07-28: an HTTP routing header is missing or does not match the body. */
  HeaderMismatch: -32020,
  /** MCP 2026-07-28: serving the request needs a capability the client did not declare. */
  MissingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not one the server implements. */
  UnsupportedProtocolVersion: -32022
} as const

// -----------------------------------------------------------------------------
// MCP: shared
// -----------------------------------------------------------------------------

/**
 * The name and version of an MCP implementation (`clientInfo`, `serverInfo`).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Implementation } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(Implementation)({ name: "inspector", version: "1.0.0" })
 * // => { name: "inspector", version: "1.0.0" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const Implementation = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optionalKey(Schema.String)
})

/**
 * The name, version and optional title of an MCP implementation.
 *
 * **Example**
 *
 * ```ts
 * import type { Implementation } from "effect-mcp-runtime/McpSchema"
 *
 * const serverInfo: Implementation = { name: "notes", version: "1.2.0", title: "Notes" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Implementation = typeof Implementation.Type

/**
 * What a client declared it supports, as sent in `initialize`. Kept open: the
 * runtime reads the members it knows (`roots`, `sampling`, `elicitation`) and
 * keeps the rest.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ClientCapabilities } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(ClientCapabilities)({ roots: { listChanged: true } }) // => { roots: { listChanged: true } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const ClientCapabilities = Schema.Record(Schema.String, Schema.Unknown)

/**
 * What a client declared it supports: an open JSON object.
 *
 * **Example**
 *
 * ```ts
 * import type { ClientCapabilities } from "effect-mcp-runtime/McpSchema"
 *
 * const supportsRoots = (capabilities: ClientCapabilities): boolean => capabilities.roots !== undefined
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * The params of `initialize`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { InitializeParams } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(InitializeParams)({
 *   protocolVersion: "2025-06-18",
 *   capabilities: {},
 *   clientInfo: { name: "inspector", version: "1.0.0" }
 * })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const InitializeParams = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: ClientCapabilities,
  clientInfo: Implementation
})

/**
 * The params of `initialize`, decoded.
 *
 * **Example**
 *
 * ```ts
 * import type { InitializeParams } from "effect-mcp-runtime/McpSchema"
 *
 * const params: InitializeParams = {
 *   protocolVersion: "2025-11-25",
 *   capabilities: { roots: {} },
 *   clientInfo: { name: "inspector", version: "1.0.0" }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type InitializeParams = typeof InitializeParams.Type

/**
 * What the server advertises in its `initialize` result.
 *
 * **Example**
 *
 * ```ts
 * import type { ServerCapabilities } from "effect-mcp-runtime/McpSchema"
 *
 * const capabilities: ServerCapabilities = { tools: { listChanged: true } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ServerCapabilities {
  readonly tools?: { readonly listChanged?: boolean }
  readonly resources?: { readonly subscribe?: boolean; readonly listChanged?: boolean }
  readonly prompts?: { readonly listChanged?: boolean }
  readonly logging?: {}
  readonly completions?: {}
  readonly experimental?: Record<string, object>
  /** Protocol extensions and their settings (2026-07-28). */
  readonly extensions?: Record<string, object>
}

/**
 * The result of `initialize`.
 *
 * **Example**
 *
 * ```ts
 * import type { InitializeResult } from "effect-mcp-runtime/McpSchema"
 *
 * const result: InitializeResult = {
 *   protocolVersion: "2025-06-18",
 *   capabilities: { tools: { listChanged: true } },
 *   serverInfo: { name: "effect-mcp-runtime", version: "0.1.0" }
 * }
 * ```
 *
 * @category models
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
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { PaginatedParams } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(PaginatedParams)({ cursor: "bzox" }) // => { cursor: "bzox" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const PaginatedParams = Schema.Struct({
  cursor: Schema.optionalKey(Schema.String)
})

/**
 * The params of `tools/call`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { CallToolParams } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(CallToolParams)({ name: "system_echo", arguments: { text: "hi" } })
 * // => { name: "system_echo", arguments: { text: "hi" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const CallToolParams = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Params)
})

/**
 * The params of `tools/call`, decoded.
 *
 * **Example**
 *
 * ```ts
 * import type { CallToolParams } from "effect-mcp-runtime/McpSchema"
 *
 * const call: CallToolParams = { name: "system_time", arguments: { timeZone: "UTC" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type CallToolParams = typeof CallToolParams.Type

/**
 * The params of `notifications/cancelled`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { CancelledParams } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(CancelledParams)({ requestId: 3, reason: "user aborted" })
 * // => { requestId: 3, reason: "user aborted" }
 * ```
 *
 * @category models
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
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Annotations } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(Annotations)({ audience: ["user"], priority: 0.5 })
 * // => { audience: ["user"], priority: 0.5 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const Annotations = Schema.Struct({
  audience: Schema.optionalKey(Schema.Array(Schema.Literals(["user", "assistant"]))),
  priority: Schema.optionalKey(Schema.Number),
  lastModified: Schema.optionalKey(Schema.String)
})

/**
 * Optional hints on content: audience, priority and last modification.
 *
 * **Example**
 *
 * ```ts
 * import type { Annotations } from "effect-mcp-runtime/McpSchema"
 *
 * const annotations: Annotations = { audience: ["assistant"], priority: 1 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Annotations = typeof Annotations.Type

/**
 * A text content block.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { TextContent } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(TextContent)({ type: "text", text: "hi" }) // => { type: "text", text: "hi" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * A text content block.
 *
 * **Example**
 *
 * ```ts
 * import type { TextContent } from "effect-mcp-runtime/McpSchema"
 *
 * const block: TextContent = { type: "text", text: "Saved notes.md" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type TextContent = typeof TextContent.Type

/**
 * An image content block: base64 `data` and its MIME type.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ImageContent } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(ImageContent)({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const ImageContent = Schema.Struct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * An image content block.
 *
 * **Example**
 *
 * ```ts
 * import type { ImageContent } from "effect-mcp-runtime/McpSchema"
 *
 * const block: ImageContent = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ImageContent = typeof ImageContent.Type

/**
 * An audio content block: base64 `data` and its MIME type (protocol 2025-03-26 and later).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { AudioContent } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(AudioContent)({ type: "audio", data: "UklGRg==", mimeType: "audio/wav" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const AudioContent = Schema.Struct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * An audio content block.
 *
 * **Example**
 *
 * ```ts
 * import type { AudioContent } from "effect-mcp-runtime/McpSchema"
 *
 * const block: AudioContent = { type: "audio", data: "UklGRg==", mimeType: "audio/wav" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type AudioContent = typeof AudioContent.Type

/**
 * A link to a resource the client may read (protocol 2025-06-18 and later).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ResourceLink } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(ResourceLink)({ type: "resource_link", uri: "file:///notes.md", name: "notes.md" })
 * ```
 *
 * @category models
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
 * A link to a resource the client may read.
 *
 * **Example**
 *
 * ```ts
 * import type { ResourceLink } from "effect-mcp-runtime/McpSchema"
 *
 * const link: ResourceLink = { type: "resource_link", uri: "file:///notes.md", name: "notes.md" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceLink = typeof ResourceLink.Type

/**
 * The contents of a resource, as text or as base64 data.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ResourceContents } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(ResourceContents)({ uri: "file:///a.txt", text: "hello" })
 * // => { uri: "file:///a.txt", text: "hello" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const ResourceContents = Schema.Union([
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), text: Schema.String }),
  Schema.Struct({ uri: Schema.String, mimeType: Schema.optionalKey(Schema.String), blob: Schema.String })
])

/**
 * The contents of a resource: `text`, or base64 data in `blob`.
 *
 * **Example**
 *
 * ```ts
 * import type { ResourceContents } from "effect-mcp-runtime/McpSchema"
 *
 * const logo: ResourceContents = { uri: "file:///logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * A resource embedded in a result.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { EmbeddedResource } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(EmbeddedResource)({ type: "resource", resource: { uri: "file:///a.txt", text: "hello" } })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const EmbeddedResource = Schema.Struct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optionalKey(Annotations)
})

/**
 * A resource embedded in a result.
 *
 * **Example**
 *
 * ```ts
 * import type { EmbeddedResource } from "effect-mcp-runtime/McpSchema"
 *
 * const embedded: EmbeddedResource = { type: "resource", resource: { uri: "file:///a.txt", text: "hello" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type EmbeddedResource = typeof EmbeddedResource.Type

/**
 * Any content block a tool result or prompt message may carry.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ContentBlock } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.is(ContentBlock)({ type: "text", text: "hi" }) // => true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union([TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource])

/**
 * Any content block: text, image, audio, resource link or embedded resource.
 *
 * **Example**
 *
 * ```ts
 * import type { ContentBlock } from "effect-mcp-runtime/McpSchema"
 *
 * const blocks: ReadonlyArray<ContentBlock> = [
 *   { type: "text", text: "Here is the chart." },
 *   { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
 * ]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ContentBlock = typeof ContentBlock.Type

// -----------------------------------------------------------------------------
// MCP: tools
// -----------------------------------------------------------------------------

/**
 * Hints about a tool's behaviour. Clients treat them as untrusted.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ToolAnnotations } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(ToolAnnotations)({ readOnlyHint: true, openWorldHint: false })
 * // => { readOnlyHint: true, openWorldHint: false }
 * ```
 *
 * @category models
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
 * Hints about a tool's behaviour: title, read-only, destructive, idempotent, open-world.
 *
 * **Example**
 *
 * ```ts
 * import type { ToolAnnotations } from "effect-mcp-runtime/McpSchema"
 *
 * const hints: ToolAnnotations = { readOnlyHint: true, idempotentHint: true }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A JSON Schema object, as emitted in `inputSchema` / `outputSchema`.
 *
 * **Example**
 *
 * ```ts
 * import type { JsonSchemaObject } from "effect-mcp-runtime/McpSchema"
 *
 * const schema: JsonSchemaObject = { type: "object", properties: { text: { type: "string" } }, required: ["text"] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface JsonSchemaObject {
  readonly type: "object"
  readonly [key: string]: unknown
}

/**
 * One entry of a `tools/list` result.
 *
 * **Example**
 *
 * ```ts
 * import type { ToolDefinition } from "effect-mcp-runtime/McpSchema"
 *
 * const definition: ToolDefinition = {
 *   name: "system_echo",
 *   description: "Returns the given text unchanged.",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } } }
 * }
 * ```
 *
 * @category models
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
 * **Example**
 *
 * ```ts
 * import type { CallToolResult } from "effect-mcp-runtime/McpSchema"
 *
 * const result: CallToolResult = { content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } }
 * ```
 *
 * @category models
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
 * **Example**
 *
 * ```ts
 * import { type CallToolResult, errorMetaKey } from "effect-mcp-runtime/McpSchema"
 *
 * const errorDetails = (result: CallToolResult): unknown =>
 *   result.isError === true ? result._meta?.[errorMetaKey] : undefined
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const errorMetaKey = "effect-mcp-runtime/error"

/**
 * The severity of a log message sent to the client (RFC 5424 levels, lowest
 * first).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { LoggingLevel } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.is(LoggingLevel)("warning") // => true
 * Schema.is(LoggingLevel)("verbose") // => false
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const LoggingLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])

/**
 * A log level, decoded.
 *
 * **Example**
 *
 * ```ts
 * import type { LoggingLevel } from "effect-mcp-runtime/McpSchema"
 *
 * const level: LoggingLevel = "notice"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * The params of `logging/setLevel`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { SetLevelParams } from "effect-mcp-runtime/McpSchema"
 *
 * Schema.decodeUnknownSync(SetLevelParams)({ level: "error" }) // => { level: "error" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const SetLevelParams = Schema.Struct({
  level: LoggingLevel
})

/**
 * The params of `notifications/message`: a log message for the client.
 *
 * **Example**
 *
 * ```ts
 * import type { LoggingMessageParams } from "effect-mcp-runtime/McpSchema"
 *
 * const message: LoggingMessageParams = { level: "info", logger: "notes_search", data: "indexed 12 notes" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface LoggingMessageParams {
  readonly level: LoggingLevel
  readonly logger?: string
  readonly data: unknown
}

/**
 * The params of `notifications/progress`. `message` exists from protocol
 * 2025-03-26 on.
 *
 * **Example**
 *
 * ```ts
 * import type { ProgressParams } from "effect-mcp-runtime/McpSchema"
 *
 * const update: ProgressParams = { progressToken: "t1", progress: 3, total: 10, message: "3 of 10 files" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ProgressParams {
  readonly progressToken: string | number
  readonly progress: number
  readonly total?: number
  readonly message?: string
}
