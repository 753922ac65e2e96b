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
  | { readonly _tag: "Response"; readonly id: RequestId | null }
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

const isRequestId = (u: unknown): u is RequestId => typeof u === "string" || Number.isInteger(u)

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
  if (message.jsonrpc !== "2.0") {
    return { _tag: "Invalid", id, message: `Invalid Request: "jsonrpc" must be "2.0"` }
  }
  if ("method" in message) {
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
  if ("result" in message || "error" in message) {
    const exit = decodeResponse(message)
    return Exit.isSuccess(exit) ? { _tag: "Response", id: exit.value.id } : invalid(id, "response", exit)
  }
  return { _tag: "Invalid", id, message: `Invalid Request: a message needs a "method" (or a "result" or "error")` }
}

const idJson = (id: RequestId | null): string => (typeof id === "string" ? JSON.stringify(id) : String(id))

/** Serializes a success response. */
export const successLine = (id: RequestId, result: unknown): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"result":${result instanceof RawJson ? result.json : JSON.stringify(result)}}`

/** Serializes an error response. */
export const errorLine = (id: RequestId | null, error: McpError): string =>
  `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(toJsonRpcError(error))}}`

/** Serializes a notification. */
export const notificationLine = (method: string, params: unknown): string =>
  params === undefined
    ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}`
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`
