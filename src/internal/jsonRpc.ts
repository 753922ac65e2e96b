/**
 * The JSON-RPC codec on the hot path: parse one line, classify the envelope
 * with the Schemas of `McpSchema`, and serialize responses by splicing
 * already-serialized parts instead of re-encoding whole objects.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { type McpError, toJsonRpcError } from "../McpError.ts"
import { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, type RequestId } from "../McpSchema.ts"
import { RawJson } from "../Method.ts"
import { formatIssues } from "./compileTool.ts"

/** A classified incoming message. */
export type Incoming =
  | { readonly _tag: "Request"; readonly id: RequestId; readonly method: string; readonly params: Params }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: Params }
  | {
      readonly _tag: "Response"
      readonly id: RequestId | null
      readonly malformed: boolean
      /** The decoded response, when it is well-formed. */
      readonly response?: JsonRpcResponse | undefined
    }
  | { readonly _tag: "Invalid"; readonly id: RequestId | null; readonly message: string }

type Params = { readonly [key: string]: unknown } | undefined

const NOT_JSON: unique symbol = Symbol("NOT_JSON")

/**
 * Parses JSON, returning a sentinel on failure. `JSON.parse` is the fastest
 * parser available and only reports failure by throwing; this is the one
 * place that catches.
 */
export const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return NOT_JSON
  }
}

/** Tells whether `parseJson` failed. */
export const isNotJson = (value: unknown): value is typeof NOT_JSON => value === NOT_JSON

const decodeRequest = Schema.decodeUnknownExit(JsonRpcRequest, { errors: "all", reportInput: true })
const decodeNotification = Schema.decodeUnknownExit(JsonRpcNotification, { errors: "all", reportInput: true })
const decodeResponse = Schema.decodeUnknownExit(JsonRpcResponse)

// Integers beyond 2^53 would come back changed after JSON.parse: not ids.
const isRequestId = (u: unknown): u is RequestId => typeof u === "string" || Number.isSafeInteger(u)

/** Tells whether a value is acceptable as `params`: absent, or a JSON object. */
export const isParams = (u: unknown): u is Params =>
  u === undefined || (typeof u === "object" && u !== null && !Array.isArray(u))

const describe = (u: unknown): string => (u === null ? "null" : Array.isArray(u) ? "an array" : typeof u)

const invalid = (id: RequestId | null, what: string, exit: Exit.Exit<unknown, Schema.SchemaError>) => {
  const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
  const details = error !== undefined && error._tag === "Some" ? `\n${formatIssues(error.value.issue).join("\n")}` : ""
  return { _tag: "Invalid", id, message: `Invalid ${what}${details}` } as const
}

/** Classifies one decoded JSON value as a JSON-RPC message. */
export const classify = (value: unknown): Incoming => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      _tag: "Invalid",
      id: null,
      message: `Invalid Request: expected a JSON-RPC 2.0 object, got ${describe(value)}`
    }
  }
  const message = value as Record<string, unknown>
  const id = isRequestId(message.id) ? message.id : null
  // A message without a method is a response, or nothing we can answer: its id
  // belongs to the server's own id space, so it is never echoed in an error.
  if (!("method" in message)) {
    if ("result" in message || "error" in message) {
      const exit = decodeResponse(message)
      return Exit.isSuccess(exit)
        ? { _tag: "Response", id: exit.value.id, malformed: false, response: exit.value }
        : { _tag: "Response", id, malformed: true }
    }
    return {
      _tag: "Invalid",
      id: null,
      message: `Invalid Request: a message needs a "method" (or a "result" or "error")`
    }
  }
  if (message.jsonrpc !== "2.0") {
    return { _tag: "Invalid", id, message: `Invalid Request: "jsonrpc" must be "2.0"` }
  }
  if (!("id" in message)) {
    if (typeof message.method === "string" && isParams(message.params)) {
      return { _tag: "Notification", method: message.method, params: message.params }
    }
    const exit = decodeNotification(message)
    return Exit.isSuccess(exit)
      ? { _tag: "Notification", method: exit.value.method, params: exit.value.params }
      : invalid(null, "notification", exit)
  }
  if (id === null) {
    return {
      _tag: "Invalid",
      id: null,
      message:
        `Invalid Request: "id" must be a string or an integer, got ${describe(message.id)}` +
        (typeof message.id === "number" ? ` ${message.id}` : "")
    }
  }
  // Fast path for the well-formed request; the Schema words the errors.
  if (typeof message.method === "string" && isParams(message.params)) {
    return { _tag: "Request", id, method: message.method, params: message.params }
  }
  const exit = decodeRequest(message)
  return Exit.isSuccess(exit)
    ? { _tag: "Request", id: exit.value.id, method: exit.value.method, params: exit.value.params }
    : invalid(id, "request", exit)
}

const idJson = (id: RequestId | null): string => (typeof id === "string" ? JSON.stringify(id) : String(id))

const idPattern = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")`
// `{"jsonrpc":"2.0","id":…,` — only keys with string values may come first,
// so the id found is the top-level one.
const headId = new RegExp(
  String.raw`^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*` +
    idPattern +
    String.raw`\s*[,}]`
)
// `…,"id":…}` at the very end: the last key of the outermost object.
const tailId = new RegExp(String.raw`[,{]\s*"id"\s*:\s*` + idPattern + String.raw`\s*\}\s*$`)

/**
 * Finds the top-level id of a message from its first and last bytes, for a
 * message too large to parse; undefined when it cannot be known for sure.
 */
export const idFromEdges = (head: string, tail: string): RequestId | undefined => {
  const match = headId.exec(head) ?? tailId.exec(tail)
  if (match === null) return undefined
  const id = parseJson(match[1]!)
  return isRequestId(id) ? id : undefined
}

/** Serializes a success response. */
export const successLine = (id: RequestId, result: unknown): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"result":${result instanceof RawJson ? result.json : JSON.stringify(result)}}`

/** Serializes an error response. */
export const errorLine = (id: RequestId | null, error: McpError): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(toJsonRpcError(error))}}`

/** Serializes a request of the server's to the client. */
export const requestLine = (id: string, method: string, params: unknown): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`

/** Serializes a notification. */
export const notificationLine = (method: string, params: unknown): string =>
  params === undefined
    ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}`
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`
