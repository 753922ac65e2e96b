/**
 * What kind of JSON-RPC message the server core is sending, read from the
 * serialized text without parsing it: a response decides how the POST that
 * carried its request is answered, anything else may only be streamed.
 *
 * The core writes every message in one of four shapes
 * (`src/internal/jsonRpc.ts`): `{"jsonrpc":"2.0","id":…,"result"|"error":…}`,
 * `{"jsonrpc":"2.0","id":…,"method":…}`, `{"jsonrpc":"2.0","method":…}`,
 * and `[…]` for the responses of a batch. Those prefixes are read directly;
 * any other text is parsed, so the answer does not depend on them.
 *
 * @internal
 */
import { isNotJson, parseJson } from "../../src/internal/jsonRpc.ts"

/** The kind of an outgoing message. */
export type OutgoingKind = "response" | "request" | "notification" | "batch"

const head = '{"jsonrpc":"2.0",'

// The index just past the JSON value (string or number) that starts at `from`,
// or -1 when there is none.
const skipId = (text: string, from: number): number => {
  if (text.charCodeAt(from) === 0x22 /* " */) {
    for (let i = from + 1; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 0x5c /* \ */) i++
      else if (c === 0x22) return i + 1
    }
    return -1
  }
  let i = from
  while (i < text.length && /[-0-9.eE+]/.test(text[i]!)) i++
  return i === from ? -1 : i
}

const parsedKind = (text: string): OutgoingKind => {
  const value = parseJson(text)
  if (isNotJson(value)) return "notification" // not JSON: never a response, so never ends a request
  if (Array.isArray(value)) return "batch"
  if (typeof value !== "object" || value === null) return "notification"
  if ("method" in value) return "id" in value ? "request" : "notification"
  return "result" in value || "error" in value ? "response" : "notification"
}

/** Classifies one serialized outgoing message. */
export const outgoingKind = (text: string): OutgoingKind => {
  if (text.startsWith("[")) return "batch"
  if (text.startsWith(head)) {
    const rest = head.length
    if (text.startsWith('"method":', rest)) return "notification"
    if (text.startsWith('"id":', rest)) {
      const end = skipId(text, rest + 5)
      if (end !== -1) {
        if (text.startsWith(',"result":', end) || text.startsWith(',"error":', end)) return "response"
        if (text.startsWith(',"method":', end)) return "request"
      }
    }
  }
  return parsedKind(text)
}
