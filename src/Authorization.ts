/**
 * HTTP authorization: the server as an OAuth 2.1 resource server, as the MCP
 * revisions 2025-06-18 and later define it. Every request to the MCP endpoint
 * carries an access token in its `Authorization: Bearer` header; the token
 * must be valid, issued by the configured authorization server, for this
 * server (its audience), and carry the scopes the request needs.
 *
 * This module is the concept: the {@link Authorization} service (verify a
 * token, know what this resource requires), the {@link Principal} a valid
 * token names, the two refusals ({@link InvalidToken}: 401,
 * {@link InsufficientScope}: 403), and the pure pieces the HTTP transport
 * needs (the protected-resource metadata document of RFC 9728, the
 * `WWW-Authenticate` challenges, reading the `Authorization` header, the
 * scopes a tool needs). `layers/OAuthResourceServer.ts` verifies JWT access
 * tokens with the authorization server's published keys; {@link make} takes
 * any other check (opaque tokens and introspection, a test double).
 *
 * The principal reaches every request the token came with: the request's
 * `RequestContext.principal`, the gate's `principals` rules, the audit
 * record.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Authorization from "effect-mcp-runtime/Authorization"
 *
 * // Opaque tokens checked by a lookup of your own
 * const known: Record<string, string> = { "secret-token-of-alice": "alice" }
 * const ByLookup = Authorization.layer(
 *   { issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp", requiredScopes: ["mcp"] },
 *   (token) => {
 *     const subject = known[token]
 *     return subject === undefined
 *       ? Effect.fail(new Authorization.InvalidToken({ message: "unknown token" }))
 *       : Effect.succeed({ subject, scopes: ["mcp"], claims: {} })
 *   }
 * )
 * ```
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { globToRegExp } from "./Gate.ts"

/**
 * Who a valid access token was issued to. `subject` is the name the gate's
 * `principals` rules and the audit records see: the token's `sub`, or its
 * `client_id` when it has no `sub`.
 *
 * **Example**
 *
 * ```ts
 * import type { Principal } from "effect-mcp-runtime/Authorization"
 *
 * const alice: Principal = {
 *   subject: "alice",
 *   clientId: "inspector",
 *   scopes: ["mcp:tools"],
 *   issuer: "https://auth.example.com",
 *   claims: { sub: "alice", scope: "mcp:tools" }
 * }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Principal {
  /** The token's `sub`, else its `client_id`. */
  readonly subject: string
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when the token says. */
  readonly clientId?: string | undefined
  /** The token's scopes (`scope`, space-separated, or `scp`). */
  readonly scopes: ReadonlyArray<string>
  /** The issuer (`iss`), when the token says. */
  readonly issuer?: string | undefined
  /** Every claim of the token (for a JWT, its payload). */
  readonly claims: Readonly<Record<string, unknown>>
}

/**
 * The token is missing, malformed, expired, not yet valid, signed by an
 * unknown key, issued by another issuer, or for another audience: the
 * request gets 401 with a `WWW-Authenticate` challenge
 * (`error="invalid_token"`). `message` says why, for the server's log and
 * the challenge's `error_description`.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidToken } from "effect-mcp-runtime/Authorization"
 *
 * new InvalidToken({ message: "the token has expired" })
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  message: Schema.String
}) {}

/**
 * The token is valid but lacks scopes the request needs: the request gets
 * 403 with `WWW-Authenticate: Bearer error="insufficient_scope"` naming
 * `scopes` (what the client must ask for: step-up authorization).
 *
 * **Example**
 *
 * ```ts
 * import { InsufficientScope } from "effect-mcp-runtime/Authorization"
 *
 * new InsufficientScope({ scopes: ["mcp:admin"], missing: ["mcp:admin"], message: "exec_run needs mcp:admin" })
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  /** Every scope the request needs (the challenge's `scope`). */
  scopes: Schema.Array(Schema.String),
  /** The ones the token lacks. */
  missing: Schema.Array(Schema.String),
  message: Schema.String
}) {}

/**
 * Why a request was refused.
 *
 * **Example**
 *
 * ```ts
 * import type { AuthError } from "effect-mcp-runtime/Authorization"
 *
 * const status = (error: AuthError): number => (error._tag === "InvalidToken" ? 401 : 403)
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export type AuthError = InvalidToken | InsufficientScope

/**
 * What this resource server requires and announces.
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/Authorization"
 *
 * const options: Options = {
 *   issuer: "https://auth.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   requiredScopes: ["mcp"],
 *   toolScopes: { "exec_*": ["mcp:exec"], "workspace_write": ["mcp:write"] }
 * }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  /** The authorization server's issuer identifier: tokens must carry it as `iss`. */
  readonly issuer: string
  /**
   * This server's resource identifier (its canonical URL, e.g.
   * `https://mcp.example.com/mcp`): tokens must carry it in `aud` (RFC 8707),
   * and the metadata document names it as `resource`.
   */
  readonly audience: string
  /** Scopes every request needs (default none). */
  readonly requiredScopes?: ReadonlyArray<string> | undefined
  /**
   * Scopes a `tools/call` needs besides `requiredScopes`, by the tool's
   * public name (globs: `*` any run of characters, `?` one); every entry
   * that matches adds its scopes. A call without them gets 403
   * `insufficient_scope` (step-up).
   */
  readonly toolScopes?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  /**
   * The URL of the protected-resource metadata document, when the server is
   * reached at another URL than `audience` names (default: the well-known
   * URL of `audience`, see {@link metadataUrlOf}).
   */
  readonly resourceMetadataUrl?: string | undefined
  /** The authorization servers the metadata lists (default `[issuer]`). */
  readonly authorizationServers?: ReadonlyArray<string> | undefined
  /** The scopes the metadata lists (default: `requiredScopes` and every scope of `toolScopes`). */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
}

/**
 * The authorization service: verifies a token, and says what this resource
 * requires.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Authorization } from "effect-mcp-runtime/Authorization"
 *
 * const whoIs = (token: string) =>
 *   Effect.flatMap(Effect.service(Authorization), (authorization) => authorization.verify(token))
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export class Authorization extends Context.Service<
  Authorization,
  {
    readonly options: Options
    /**
     * The principal of a valid token that carries `requiredScopes`;
     * {@link InvalidToken} for any other token, {@link InsufficientScope}
     * when it lacks a required scope.
     */
    readonly verify: (token: string) => Effect.Effect<Principal, AuthError>
    /** The scopes a `tools/call` of `tool` needs (`requiredScopes` and its `toolScopes`). */
    readonly scopesForTool: (tool: string) => ReadonlyArray<string>
  }
>()("effect-mcp-runtime/Authorization") {}

/**
 * The scopes a token's claims grant: `scope` (a space-separated string, RFC
 * 9068) or `scp` (an array, or a string).
 *
 * **Example**
 *
 * ```ts
 * import { scopesOf } from "effect-mcp-runtime/Authorization"
 *
 * scopesOf({ scope: "mcp:read mcp:write" }) // => ["mcp:read", "mcp:write"]
 * scopesOf({ scp: ["mcp:read"] }) // => ["mcp:read"]
 * ```
 *
 * @category tokens
 * @since 0.5.0
 */
export const scopesOf = (claims: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const words = (value: unknown): ReadonlyArray<string> =>
    typeof value === "string"
      ? value.split(" ").filter((scope) => scope !== "")
      : Array.isArray(value)
        ? value.filter((scope): scope is string => typeof scope === "string" && scope !== "")
        : []
  const scope = words(claims.scope)
  return scope.length > 0 ? scope : words(claims.scp)
}

/**
 * The principal of a token's claims, or `undefined` when they name nobody
 * (neither `sub` nor `client_id`).
 *
 * **Example**
 *
 * ```ts
 * import { principalOf } from "effect-mcp-runtime/Authorization"
 *
 * principalOf({ sub: "alice", client_id: "cli", scope: "mcp" })?.subject // => "alice"
 * principalOf({ client_id: "batch-job" })?.subject // => "batch-job"
 * ```
 *
 * @category tokens
 * @since 0.5.0
 */
export const principalOf = (claims: Readonly<Record<string, unknown>>): Principal | undefined => {
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)
  const clientId = text(claims.client_id) ?? text(claims.azp)
  const subject = text(claims.sub) ?? clientId
  if (subject === undefined) return undefined
  return { subject, clientId, scopes: scopesOf(claims), issuer: text(claims.iss), claims }
}

/**
 * The well-known URL of a resource's protected-resource metadata (RFC 9728
 * §3.1): `/.well-known/oauth-protected-resource` between the host and the
 * resource's path.
 *
 * **Example**
 *
 * ```ts
 * import { metadataUrlOf } from "effect-mcp-runtime/Authorization"
 *
 * metadataUrlOf("https://mcp.example.com/mcp") // => "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
 * ```
 *
 * @category metadata
 * @since 0.5.0
 */
export const metadataUrlOf = (resource: string): string => {
  const url = new URL(resource)
  const path = url.pathname === "/" ? "" : url.pathname
  return `${url.origin}${wellKnownPath}${path}`
}

/**
 * The path prefix of protected-resource metadata documents.
 *
 * **Example**
 *
 * ```ts
 * import { wellKnownPath } from "effect-mcp-runtime/Authorization"
 *
 * `${wellKnownPath}/mcp` // => "/.well-known/oauth-protected-resource/mcp"
 * ```
 *
 * @category metadata
 * @since 0.5.0
 */
export const wellKnownPath = "/.well-known/oauth-protected-resource"

// RFC 9728 / the MCP spec: offline_access is not advertised.
const advertised = (scopes: ReadonlyArray<string>): ReadonlyArray<string> =>
  [...new Set(scopes)].filter((scope) => scope !== "offline_access")

/**
 * The protected-resource metadata document (RFC 9728) of these options:
 * `resource`, `authorization_servers`, `scopes_supported` (when there
 * are any; never `offline_access`), `bearer_methods_supported: ["header"]`.
 *
 * **Example**
 *
 * ```ts
 * import { metadataOf } from "effect-mcp-runtime/Authorization"
 *
 * metadataOf({ issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp", requiredScopes: ["mcp"] })
 * // => { resource: "https://mcp.example.com/mcp", authorization_servers: ["https://auth.example.com"],
 * //      scopes_supported: ["mcp"], bearer_methods_supported: ["header"] }
 * ```
 *
 * @category metadata
 * @since 0.5.0
 */
export const metadataOf = (options: Options): Record<string, unknown> => {
  const scopes = advertised(
    options.scopesSupported ?? [
      ...(options.requiredScopes ?? []),
      ...Object.values(options.toolScopes ?? {}).flatMap((scopes) => scopes)
    ]
  )
  return {
    resource: options.audience,
    authorization_servers: [...(options.authorizationServers ?? [options.issuer])],
    // Omitted when there are none (the field is optional).
    ...(scopes.length === 0 ? {} : { scopes_supported: scopes }),
    bearer_methods_supported: ["header"]
  }
}

/**
 * The scopes a `tools/call` of `tool` needs under these options:
 * `requiredScopes`, then the scopes of every `toolScopes` entry whose glob
 * matches the tool's public name.
 *
 * **Example**
 *
 * ```ts
 * import { scopesForTool } from "effect-mcp-runtime/Authorization"
 *
 * const options = { issuer: "https://as", audience: "https://mcp/mcp", requiredScopes: ["mcp"], toolScopes: { "exec_*": ["mcp:exec"] } }
 * scopesForTool(options)("exec_run") // => ["mcp", "mcp:exec"]
 * scopesForTool(options)("system_echo") // => ["mcp"]
 * ```
 *
 * @category scopes
 * @since 0.5.0
 */
export const scopesForTool = (options: Options): ((tool: string) => ReadonlyArray<string>) => {
  const required = options.requiredScopes ?? []
  const entries = Object.entries(options.toolScopes ?? {}).map(
    ([glob, scopes]) => [globToRegExp(glob), scopes] as const
  )
  return (tool) => {
    const scopes = [...required]
    for (const [pattern, more] of entries) if (pattern.test(tool)) scopes.push(...more)
    return [...new Set(scopes)]
  }
}

/**
 * Checks that a principal holds `scopes`; fails with
 * {@link InsufficientScope} naming all of them (what to ask for) and the
 * missing ones.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { requireScopes } from "effect-mcp-runtime/Authorization"
 *
 * const principal = { subject: "alice", scopes: ["mcp"], claims: {} }
 * const refused = Effect.flip(requireScopes(principal, ["mcp", "mcp:exec"], "exec_run")) // missing: ["mcp:exec"]
 * ```
 *
 * @category scopes
 * @since 0.5.0
 */
export const requireScopes = (
  principal: Principal,
  scopes: ReadonlyArray<string>,
  what = "this request"
): Effect.Effect<void, InsufficientScope> => {
  const held = new Set(principal.scopes)
  const missing = scopes.filter((scope) => !held.has(scope))
  return missing.length === 0
    ? Effect.void
    : Effect.fail(
        new InsufficientScope({
          scopes: [...scopes],
          missing,
          message: `${what} needs the scope${missing.length === 1 ? "" : "s"} ${missing.join(" ")}`
        })
      )
}

/**
 * The service from options and a token check of your own (opaque tokens
 * and introspection, a key of your own): `verifyToken` says whether the
 * token is valid and for whom; `verify` then checks `requiredScopes`.
 * `layers/OAuthResourceServer.ts` builds it with a JWT check.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Authorization from "effect-mcp-runtime/Authorization"
 *
 * const service = Authorization.make(
 *   { issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp" },
 *   (token) => Effect.fail(new Authorization.InvalidToken({ message: `no such token: ${token.slice(0, 4)}…` }))
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (
  options: Options,
  verifyToken: (token: string) => Effect.Effect<Principal, InvalidToken>
): Authorization["Service"] => {
  const required = options.requiredScopes ?? []
  return Authorization.of({
    options,
    verify: (token) =>
      required.length === 0
        ? verifyToken(token)
        : Effect.tap(verifyToken(token), (principal) => requireScopes(principal, required)),
    scopesForTool: scopesForTool(options)
  })
}

/**
 * {@link make} as a layer.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Authorization from "effect-mcp-runtime/Authorization"
 *
 * const OnlyAlice = Authorization.layer(
 *   { issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp" },
 *   (token) =>
 *     token === "alice-token"
 *       ? Effect.succeed({ subject: "alice", scopes: [], claims: {} })
 *       : Effect.fail(new Authorization.InvalidToken({ message: "unknown token" }))
 * )
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = (
  options: Options,
  verifyToken: (token: string) => Effect.Effect<Principal, InvalidToken>
): Layer.Layer<Authorization> => Layer.succeed(Authorization, make(options, verifyToken))

/**
 * What a request's `Authorization` header holds: nothing (or another
 * scheme), a bearer token, or a malformed bearer credential (400).
 *
 * **Example**
 *
 * ```ts
 * import type { Credentials } from "effect-mcp-runtime/Authorization"
 *
 * const credentials: Credentials = { _tag: "Bearer", token: "eyJ…" }
 * ```
 *
 * @category http
 * @since 0.5.0
 */
export type Credentials =
  | { readonly _tag: "None" }
  | { readonly _tag: "Bearer"; readonly token: string }
  | { readonly _tag: "Malformed"; readonly reason: string }

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const b64token = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * Reads an `Authorization` header (RFC 6750 §2.1). Only the header carries
 * a token: a token in the query string or the body is never read.
 *
 * **Example**
 *
 * ```ts
 * import { credentialsOf } from "effect-mcp-runtime/Authorization"
 *
 * credentialsOf("Bearer abc.def") // => { _tag: "Bearer", token: "abc.def" }
 * credentialsOf(undefined) // => { _tag: "None" }
 * credentialsOf("Bearer") // => { _tag: "Malformed", reason: "the Bearer credentials carry no token" }
 * ```
 *
 * @category http
 * @since 0.5.0
 */
export const credentialsOf = (header: string | undefined): Credentials => {
  if (header === undefined || header.trim() === "") return { _tag: "None" }
  const value = header.trim()
  const space = value.indexOf(" ")
  const scheme = space === -1 ? value : value.slice(0, space)
  if (scheme.toLowerCase() !== "bearer") {
    // Several headers joined, one of them a Bearer one: ambiguous.
    return /(^|,)\s*bearer(\s|$)/i.test(value)
      ? { _tag: "Malformed", reason: "more than one Authorization header" }
      : { _tag: "None" }
  }
  const token = space === -1 ? "" : value.slice(space + 1).trim()
  if (token === "") return { _tag: "Malformed", reason: "the Bearer credentials carry no token" }
  if (!b64token.test(token)) return { _tag: "Malformed", reason: "the Bearer token is not a valid token (RFC 6750)" }
  return { _tag: "Bearer", token }
}

const quoted = (value: string): string => `"${value.replace(/[\\"]/g, "\\$&").replace(/[\r\n]/g, " ")}"`

/**
 * A `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1): `Bearer`
 * with the error (when a token was given), the scopes to ask for, and the
 * metadata URL.
 *
 * **Example**
 *
 * ```ts
 * import { challenge } from "effect-mcp-runtime/Authorization"
 *
 * challenge({ resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scopes: ["mcp"] })
 * // => 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"'
 * ```
 *
 * @category http
 * @since 0.5.0
 */
export const challenge = (options: {
  readonly resourceMetadata: string
  readonly scopes?: ReadonlyArray<string> | undefined
  readonly error?: "invalid_request" | "invalid_token" | "insufficient_scope" | undefined
  readonly description?: string | undefined
}): string => {
  const parts: Array<string> = []
  if (options.error !== undefined) parts.push(`error=${quoted(options.error)}`)
  if (options.description !== undefined) parts.push(`error_description=${quoted(options.description)}`)
  parts.push(`resource_metadata=${quoted(options.resourceMetadata)}`)
  const scopes = advertised(options.scopes ?? [])
  if (scopes.length > 0) parts.push(`scope=${quoted(scopes.join(" "))}`)
  return `Bearer ${parts.join(", ")}`
}
