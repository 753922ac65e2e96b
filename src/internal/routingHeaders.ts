/**
 * The routing headers of Streamable HTTP under MCP 2026-07-28 (SEP-2243):
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and one `Mcp-Param-{Name}`
 * per `x-mcp-header` property of a tool's input schema mirror the body so
 * that intermediaries can route without parsing it. A server that reads the
 * body must check that they agree with it: a header that is missing,
 * malformed, or says something else than the body is a `HeaderMismatch`
 * (−32020, HTTP 400).
 *
 * Values that are not plain visible ASCII travel as `=?base64?…?=`; they
 * are decoded (strict Base64, then UTF-8) before the comparison.
 *
 * @internal
 */
import { HeaderMismatch } from "../McpError.ts"

/** A tool argument mirrored into a header (`x-mcp-header`). */
export interface HeaderParam {
  /** The chain of `properties` keys that leads to the argument. */
  readonly path: ReadonlyArray<string>
  /** The header is `Mcp-Param-<name>`. */
  readonly name: string
  readonly type: "string" | "integer" | "boolean"
}

/** Reads a request header by name (any case). */
export type Headers = (name: string) => string | undefined

// RFC 9110 visible ASCII and spaces inside, no leading or trailing space.
const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$|^$/
const sentinel = /^=\?base64\?(.*)\?=$/s
const strictBase64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** The value a header carries (decoded when Base64-encoded), or why it cannot be read. */
export const decodeValue = (
  value: string
): { readonly _tag: "Value"; readonly value: string } | { readonly _tag: "Invalid"; readonly reason: string } => {
  const encoded = sentinel.exec(value)
  if (encoded !== null) {
    const body = encoded[1]!
    if (!strictBase64.test(body)) {
      return { _tag: "Invalid", reason: "its =?base64?…?= value is not valid Base64 (alphabet and padding)" }
    }
    const binary = atob(body)
    const bytes = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
    try {
      return { _tag: "Value", value: utf8.decode(bytes) }
    } catch {
      return { _tag: "Invalid", reason: "its =?base64?…?= value is not UTF-8" }
    }
  }
  if (!plain.test(value)) {
    return {
      _tag: "Invalid",
      reason: "it contains characters a plain header value cannot have (send such values as =?base64?…?=)"
    }
  }
  return { _tag: "Value", value }
}

const mismatch = (message: string, header: string) =>
  new HeaderMismatch({
    message: `Header mismatch: ${message}. The routing headers must repeat what the body says.`,
    data: { header }
  })

const display = (value: unknown): string => JSON.stringify(value) ?? String(value)

/** The value of an argument at a chain of `properties` keys, or undefined. */
const at = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let value = args
  for (const key of path) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

const matches = (param: HeaderParam, header: string, value: unknown): boolean => {
  switch (param.type) {
    case "string":
      return header === value
    case "boolean":
      return header === String(value)
    case "integer": {
      // Numerically: "42" and "42.0" both say 42.
      if (!/^-?\d+(?:\.0+)?$/.test(header)) return false
      return typeof value === "number" && Number(header) === value
    }
  }
}

/**
 * Checks the routing headers of a 2026-07-28 request against its body:
 * `MCP-Protocol-Version` against `_meta`'s version, `Mcp-Method` against the
 * method, `Mcp-Name` against `routingName` (when the method has one), and the
 * `Mcp-Param-*` headers against the arguments they mirror. Undefined when
 * they agree.
 */
export const check = (options: {
  readonly headers: Headers
  readonly method: string
  readonly protocolVersion: string
  readonly routingName: string | undefined
  readonly params: ReadonlyArray<HeaderParam>
  readonly args: unknown
}): HeaderMismatch | undefined => {
  const { headers } = options
  const version = headers("mcp-protocol-version")
  if (version === undefined) {
    return mismatch(
      `the MCP-Protocol-Version header is missing (the body's _meta says ${options.protocolVersion})`,
      "MCP-Protocol-Version"
    )
  }
  if (version !== options.protocolVersion) {
    return mismatch(
      `MCP-Protocol-Version is ${display(version)}, the body's _meta says ${display(options.protocolVersion)}`,
      "MCP-Protocol-Version"
    )
  }
  const method = headers("mcp-method")
  if (method === undefined)
    return mismatch(`the Mcp-Method header is missing (the body's method is ${options.method})`, "Mcp-Method")
  if (method !== options.method) {
    return mismatch(`Mcp-Method is ${display(method)}, the body's method is ${display(options.method)}`, "Mcp-Method")
  }
  if (options.routingName !== undefined) {
    const raw = headers("mcp-name")
    if (raw === undefined) {
      return mismatch(
        `the Mcp-Name header is missing (${options.method} names ${display(options.routingName)})`,
        "Mcp-Name"
      )
    }
    const name = decodeValue(raw)
    if (name._tag === "Invalid") return mismatch(`Mcp-Name: ${name.reason}`, "Mcp-Name")
    if (name.value !== options.routingName) {
      return mismatch(`Mcp-Name is ${display(name.value)}, the body names ${display(options.routingName)}`, "Mcp-Name")
    }
  }
  for (const param of options.params) {
    const header = `Mcp-Param-${param.name}`
    const value = at(options.args, param.path)
    const raw = headers(header.toLowerCase())
    // An absent or null argument has no header to expect.
    if (value === undefined || value === null) continue
    if (raw === undefined) {
      return mismatch(
        `the ${header} header is missing, and the argument ${param.path.join(".")} is ${display(value)}`,
        header
      )
    }
    const decoded = decodeValue(raw)
    if (decoded._tag === "Invalid") return mismatch(`${header}: ${decoded.reason}`, header)
    if (!matches(param, decoded.value, value)) {
      return mismatch(
        `${header} is ${display(decoded.value)}, the argument ${param.path.join(".")} is ${display(value)}`,
        header
      )
    }
  }
  return undefined
}
