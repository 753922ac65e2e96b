/**
 * The live {@link Authorization.Authorization}: JWT access tokens (RFC 9068)
 * verified with `jose` against the authorization server's published keys.
 *
 * **What is checked.** The signature, with a key of the issuer's JSON Web
 * Key Set (asymmetric algorithms only: the set holds public keys); the
 * header's `typ` (`at+jwt` unless `tokenTypes` says otherwise); `iss` equal
 * to `issuer`; `aud` containing `audience` (RFC 8707: a token for another
 * resource is refused); `exp` and `nbf`, with `clockToleranceSeconds` of
 * skew (default 30); then `requiredScopes`.
 *
 * **Where the keys come from.** `jwksUri` when given; else the issuer's
 * metadata, OpenID Connect discovery (`<issuer>/.well-known/openid-configuration`)
 * then RFC 8414 (`/.well-known/oauth-authorization-server` before the
 * issuer's path), fetched when the first token arrives (a server whose
 * authorization server is down still starts), kept once it succeeds; its
 * `issuer` must be the configured one. The key set is cached (10 minutes)
 * and fetched again when a token names a key it does not hold (at most
 * every 30 s). When the keys cannot be fetched, the request fails with a
 * 500, not a 401: the client's token is not at fault.
 *
 * `jose` is loaded with this module only: the stdio server never loads it.
 *
 * @since 0.5.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createRemoteJWKSet, errors, type JWTVerifyGetKey, jwtVerify } from "jose"
import * as Authorization from "../src/Authorization.ts"

/**
 * Options of {@link layer}: what the resource requires
 * ({@link Authorization.Options}), and how tokens are checked.
 *
 * **Example**
 *
 * ```ts
 * import type * as OAuthResourceServer from "effect-mcp-runtime/layers/OAuthResourceServer"
 *
 * const options: OAuthResourceServer.Options = {
 *   issuer: "https://auth.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   requiredScopes: ["mcp"],
 *   clockToleranceSeconds: 60
 * }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options extends Authorization.Options {
  /** The key set's URL; default: the `jwks_uri` of the issuer's metadata. */
  readonly jwksUri?: string | undefined
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds (default 30). */
  readonly clockToleranceSeconds?: number | undefined
  /**
   * The `typ` header values accepted (default `["at+jwt"]`, RFC 9068). Add
   * `"JWT"` for an authorization server that issues plain JWT access tokens.
   */
  readonly tokenTypes?: ReadonlyArray<string> | undefined
  /** How long fetching the metadata or the key set may take, in ms (default 5000). */
  readonly fetchTimeoutMs?: number | undefined
}

/**
 * The authorization server's metadata or keys could not be fetched: a fault
 * of the server's set-up, not of the client's token.
 *
 * **Example**
 *
 * ```ts
 * import { KeysUnavailable } from "effect-mcp-runtime/layers/OAuthResourceServer"
 *
 * new KeysUnavailable({ message: "cannot fetch https://auth.example.com/.well-known/openid-configuration: 503" })
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class KeysUnavailable extends Schema.TaggedError<KeysUnavailable>()("KeysUnavailable", {
  message: Schema.String
}) {}

const timeoutOf = (options: Options) => options.fetchTimeoutMs ?? 5000

const getJson = (url: string, timeoutMs: number): Effect.Effect<Record<string, unknown>, KeysUnavailable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)])
      })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      const body: unknown = await response.json()
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not a JSON object")
      return body as Record<string, unknown>
    },
    catch: (error) =>
      new KeysUnavailable({
        message: `cannot fetch ${url}: ${error instanceof Error ? error.message : String(error)}`
      })
  })

/**
 * The URLs of an issuer's metadata, in the order they are tried: OpenID
 * Connect discovery, then RFC 8414 (the well-known segment before the
 * issuer's path).
 *
 * **Example**
 *
 * ```ts
 * import { metadataUrls } from "effect-mcp-runtime/layers/OAuthResourceServer"
 *
 * metadataUrls("https://auth.example.com/tenant")
 * // => ["https://auth.example.com/tenant/.well-known/openid-configuration",
 * //     "https://auth.example.com/.well-known/oauth-authorization-server/tenant"]
 * ```
 *
 * @category discovery
 * @since 0.5.0
 */
export const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/$/, "")
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`
  ]
}

/** The issuer's `jwks_uri`, from its metadata (checked to name the same issuer). */
const discoverJwksUri = (options: Options): Effect.Effect<string, KeysUnavailable> => {
  const urls = metadataUrls(options.issuer)
  const attempt = (index: number, failures: ReadonlyArray<string>): Effect.Effect<string, KeysUnavailable> => {
    const url = urls[index]
    if (url === undefined) {
      return Effect.fail(
        new KeysUnavailable({
          message: `no metadata for the issuer ${options.issuer}: ${failures.join("; ")}`
        })
      )
    }
    return getJson(url, timeoutOf(options)).pipe(
      Effect.flatMap((metadata) => {
        if (metadata.issuer !== options.issuer) {
          return Effect.fail(
            new KeysUnavailable({
              message: `${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${options.issuer}`
            })
          )
        }
        return typeof metadata.jwks_uri === "string"
          ? Effect.succeed(metadata.jwks_uri)
          : Effect.fail(new KeysUnavailable({ message: `${url} has no jwks_uri` }))
      }),
      Effect.catchTag("KeysUnavailable", (error) => attempt(index + 1, [...failures, error.message]))
    )
  }
  return attempt(0, [])
}

// "application/at+jwt" and "at+jwt" are the same type (RFC 7515 §4.1.9).
const normalType = (type: string): string => type.toLowerCase().replace(/^application\//, "")

/** Why jose refused a token, in words for the log and the challenge. */
const reasonOf = (error: unknown, options: Options): string => {
  if (error instanceof errors.JWTExpired) return "the token has expired"
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "iss":
        return `the token was not issued by ${options.issuer}`
      case "aud":
        return `the token is not for this resource (its audience is not ${options.audience})`
      case "nbf":
        return "the token is not valid yet"
      case "exp":
        return "the token has expired"
      default:
        return `the token's ${error.claim} claim is invalid: ${error.reason}`
    }
  }
  if (error instanceof errors.JWKSNoMatchingKey) return "the token is signed with a key the issuer does not publish"
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify"
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported)
    return "the token's signing algorithm is not accepted"
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return "the token is not a valid JWT"
  return "the token could not be verified"
}

/** Errors of jose that are the key set's fault, not the token's. */
const isKeySetFault = (error: unknown): boolean =>
  error instanceof errors.JWKSTimeout ||
  error instanceof errors.JWKSInvalid ||
  (error instanceof Error && !(error instanceof errors.JOSEError))

/**
 * Builds the service: a JWT check over the issuer's keys, with the clock
 * in context (its time is the one `exp` and `nbf` are checked against).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as OAuthResourceServer from "effect-mcp-runtime/layers/OAuthResourceServer"
 *
 * const service = OAuthResourceServer.make({ issuer: "https://auth.example.com", audience: "https://mcp.example.com/mcp" })
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (options: Options): Effect.Effect<Authorization.Authorization["Service"]> =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    const types = new Set((options.tokenTypes ?? ["at+jwt"]).map(normalType))
    const tolerance = options.clockToleranceSeconds ?? 30
    // Discovered on the first token and kept once it succeeds (a failure is retried by the next token).
    let keys: JWTVerifyGetKey | undefined
    const keySet: Effect.Effect<JWTVerifyGetKey, KeysUnavailable> = Effect.suspend(() => {
      if (keys !== undefined) return Effect.succeed(keys)
      const uri = options.jwksUri === undefined ? discoverJwksUri(options) : Effect.succeed(options.jwksUri)
      return Effect.map(uri, (jwksUri) => {
        keys ??= createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: timeoutOf(options) })
        return keys
      })
    })
    const verifyToken = (token: string): Effect.Effect<Authorization.Principal, Authorization.InvalidToken> =>
      // Not even shaped like a JWT: refused without fetching keys.
      token.split(".").length !== 3
        ? Effect.fail(new Authorization.InvalidToken({ message: "the token is not a valid JWT" }))
        : checked(token)
    const checked = (token: string): Effect.Effect<Authorization.Principal, Authorization.InvalidToken> =>
      keySet.pipe(
        Effect.flatMap((getKey) =>
          Effect.tryPromise({
            try: () =>
              jwtVerify(token, getKey, {
                issuer: options.issuer,
                audience: options.audience,
                clockTolerance: tolerance,
                currentDate: new Date(clock.currentTimeMillisUnsafe()),
                requiredClaims: ["exp"]
              }),
            catch: (error) =>
              isKeySetFault(error)
                ? new KeysUnavailable({
                    message: `cannot verify tokens: ${error instanceof Error ? error.message : String(error)}`
                  })
                : new Authorization.InvalidToken({ message: reasonOf(error, options) })
          })
        ),
        Effect.flatMap(({ payload, protectedHeader }) => {
          const type = protectedHeader.typ === undefined ? undefined : normalType(protectedHeader.typ)
          if (type === undefined || !types.has(type)) {
            return Effect.fail(
              new Authorization.InvalidToken({
                message: `the token's type is ${JSON.stringify(protectedHeader.typ ?? null)}, not an access token (${[...types].join(", ")})`
              })
            )
          }
          const principal = Authorization.principalOf(payload as Record<string, unknown>)
          return principal === undefined
            ? Effect.fail(new Authorization.InvalidToken({ message: "the token names no subject or client" }))
            : Effect.succeed(principal)
        }),
        // The server cannot check tokens: a 500 (the transport logs it), not the client's fault.
        Effect.catchTag("KeysUnavailable", (error) => Effect.die(error))
      )
    return Authorization.make(options, verifyToken)
  })

/**
 * The service as a layer.
 *
 * **Example**
 *
 * ```ts
 * import * as OAuthResourceServer from "effect-mcp-runtime/layers/OAuthResourceServer"
 *
 * const AuthorizationLive = OAuthResourceServer.layer({
 *   issuer: "https://auth.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   requiredScopes: ["mcp"],
 *   toolScopes: { "exec_*": ["mcp:exec"] }
 * })
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = (options: Options): Layer.Layer<Authorization.Authorization> =>
  Layer.effect(Authorization.Authorization, make(options))
