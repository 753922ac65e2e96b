/**
 * The header checks of the Streamable HTTP transport, as pure functions:
 * Host and Origin against DNS rebinding, and the media types of `Accept`
 * and `Content-Type`.
 *
 * @internal
 */

/** A host name and an optional port, both lowercase; IPv6 hosts keep their brackets. */
export interface Authority {
  readonly host: string
  readonly port: string | undefined
}

const portPattern = /^\d{1,5}$/

/**
 * Reads `host[:port]` (a `Host` header, or an `--allowed-hosts` entry).
 * IPv6 addresses must be bracketed, as in a URL. One trailing dot of a
 * fully qualified name is dropped. Undefined when it is not an authority.
 */
export const parseAuthority = (value: string): Authority | undefined => {
  const text = value.trim().toLowerCase()
  if (text === "" || /[\s/?#@]/.test(text)) return undefined
  let host: string
  let port: string | undefined
  if (text.startsWith("[")) {
    const end = text.indexOf("]")
    if (end === -1) return undefined
    host = text.slice(0, end + 1)
    const rest = text.slice(end + 1)
    if (rest !== "") {
      if (!rest.startsWith(":")) return undefined
      port = rest.slice(1)
    }
  } else {
    const colon = text.indexOf(":")
    if (colon !== -1 && text.indexOf(":", colon + 1) !== -1) return undefined // IPv6 without brackets
    host = colon === -1 ? text : text.slice(0, colon)
    port = colon === -1 ? undefined : text.slice(colon + 1)
  }
  if (port !== undefined && !portPattern.test(port)) return undefined
  if (host.endsWith(".") && host.length > 1) host = host.slice(0, -1)
  if (host === "" || host === "[]") return undefined
  return { host, port }
}

/** The names of this machine's loopback interface, accepted with any port. */
export const loopbackHosts: ReadonlyArray<string> = ["localhost", "127.0.0.1", "[::1]"]

const isLoopback = (host: string): boolean => loopbackHosts.includes(host)

/**
 * Tells whether a `Host` header names this server: a loopback name with any
 * port, or an entry of `allowed` (`name` for any port, `name:port` for that
 * port only, `*` for anything). A missing or malformed header is refused.
 */
export const hostAllowed = (header: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (allowed.includes("*")) return true
  if (header === undefined) return false
  const authority = parseAuthority(header)
  if (authority === undefined) return false
  if (isLoopback(authority.host)) return true
  return allowed.some((entry) => {
    const permitted = parseAuthority(entry)
    return (
      permitted !== undefined &&
      permitted.host === authority.host &&
      (permitted.port === undefined || permitted.port === authority.port)
    )
  })
}

/** The form of an `allowedHosts` entry, for error messages. */
export const allowedHostForm =
  "a host name or IP address, optionally with :port (e.g. mcp.example.com, 10.0.0.5:3000, [fd00::1]), or *"

/** The form of an `allowedOrigins` entry, for error messages. */
export const allowedOriginForm = "scheme://host[:port] with scheme http or https (e.g. https://app.example.com), or *"

/**
 * Tells whether an `allowedHosts` entry can ever match a `Host` header: `*`,
 * or `host[:port]` with a port of at most 65535 (`https://x` is an origin,
 * not a host, and would never match).
 */
export const isAllowedHostEntry = (entry: string): boolean => {
  if (entry.trim() === "*") return true
  const authority = parseAuthority(entry)
  return authority !== undefined && (authority.port === undefined || Number(authority.port) <= 65535)
}

/**
 * Tells whether an `allowedOrigins` entry can ever match an `Origin` header:
 * `*`, or an http(s) origin with nothing after the authority but an optional
 * `/` (`x.com` is a host, not an origin, and would never match).
 */
export const isAllowedOriginEntry = (entry: string): boolean => {
  const text = entry.trim()
  if (text === "*") return true
  if (normalizeOrigin(text) === undefined) return false
  const url = new URL(text)
  return (
    url.username === "" &&
    url.password === "" &&
    url.pathname === "/" &&
    url.search === "" &&
    url.hash === "" &&
    !/[?#]/.test(text)
  )
}

/** `scheme://host[:port]`, lowercase, without a default port; undefined when `value` is not an http(s) origin. */
export const normalizeOrigin = (value: string): string | undefined => {
  const text = value.trim()
  if (!URL.canParse(text)) return undefined
  const url = new URL(text)
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  return url.origin.toLowerCase()
}

/**
 * Tells whether an `Origin` header may call this server: absent (not a
 * browser), an http(s) origin on a loopback name with any port, or one of
 * `allowed` (full origins such as `https://app.example.com`, or `*`).
 * `Origin: null` (sandboxed documents, `file:` pages) is refused.
 */
export const originAllowed = (header: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (header === undefined) return true
  if (allowed.includes("*")) return true
  const origin = normalizeOrigin(header)
  if (origin === undefined) return false
  if (isLoopback(new URL(origin).hostname)) return true
  return allowed.some((entry) => normalizeOrigin(entry) === origin)
}

interface MediaRange {
  readonly type: string
  readonly params: ReadonlyMap<string, string>
}

const parseMediaRange = (text: string): MediaRange => {
  const [type = "", ...rest] = text.split(";")
  const params = new Map<string, string>()
  for (const param of rest) {
    const equals = param.indexOf("=")
    if (equals === -1) continue
    params.set(
      param.slice(0, equals).trim().toLowerCase(),
      param
        .slice(equals + 1)
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase()
    )
  }
  return { type: type.trim().toLowerCase(), params }
}

/**
 * Tells whether an `Accept` header accepts `mediaType`: listed, or matched
 * by `type/*` or `*\/*`, with a quality above zero.
 */
export const accepts = (header: string | undefined, mediaType: string): boolean => {
  if (header === undefined) return false
  const [type] = mediaType.split("/")
  return header.split(",").some((part) => {
    const range = parseMediaRange(part)
    if (range.params.get("q") !== undefined && Number(range.params.get("q")) <= 0) return false
    return range.type === mediaType || range.type === `${type}/*` || range.type === "*/*"
  })
}

/**
 * Tells whether a `Content-Type` header says JSON in UTF-8:
 * `application/json`, with no charset or a UTF-8 one.
 */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const range = parseMediaRange(header)
  const charset = range.params.get("charset")
  return range.type === "application/json" && (charset === undefined || charset === "utf-8" || charset === "utf8")
}
