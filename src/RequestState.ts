/**
 * The `requestState` of an input-required result (MCP 2026-07-28): what the
 * server hands the client when a request needs input, and takes back, as is,
 * on the retry. The runtime keeps nothing between rounds (any instance can
 * serve the retry): the state carries the request it belongs to (method and
 * a SHA-256 digest of its parameters), when it was issued, and the answers
 * the client gave in earlier rounds. It is sealed with AES-256-GCM under a
 * server key — encrypted, so nothing in it is readable by the client, and
 * authenticated, so a state that was changed, cut, made with another key,
 * presented on another request or too old is refused (−32602, with
 * `data.reason`).
 *
 * The key: by default one random key per process, which is enough for one
 * instance (a restart makes older states invalid: the client starts the
 * request over). Instances that serve one another's retries share a key:
 * provide {@link layer} with the same secret everywhere (the binary reads
 * `MCP_RUNTIME_STATE_KEY` or the configuration file's `requestState.keys`).
 * Keys after the first are only used to open states, so that a key can be
 * rotated without failing the rounds in progress.
 *
 * See `docs/adr/0003-input-required-rounds.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * // two instances behind a load balancer, rotating from an old key (each secret: 32 bytes or more)
 * const Shared = RequestState.layer({
 *   keys: ["the new secret, 32 bytes or more of it", "the old secret, also 32 bytes or more"],
 *   maxAgeMs: 600_000
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/**
 * How states are sealed and opened: the keys (the first seals; every one
 * opens) and how long a state stays valid.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { RequestStateKeys } from "effect-mcp-runtime/RequestState"
 *
 * const ttl = Effect.map(Effect.service(RequestStateKeys), (settings) => settings.maxAgeMs)
 * ```
 *
 * @category services
 * @since 0.2.0
 */
export const RequestStateKeys = Context.Reference<Settings>("effect-mcp-runtime/RequestState", {
  defaultValue: () => ({ keys: [randomSecret()], maxAgeMs: defaultMaxAgeMs })
})

/**
 * The settings of {@link RequestStateKeys}.
 *
 * **Example**
 *
 * ```ts
 * import type * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * const settings: RequestState.Settings = { keys: ["a long random secret"], maxAgeMs: 900_000 }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Settings {
  /**
   * Secrets (any text or bytes; each is turned into an AES-256 key with
   * SHA-256). The first seals new states; all of them open states.
   */
  readonly keys: ReadonlyArray<string | Uint8Array>
  /** How long a state may be presented after it was issued, in milliseconds. */
  readonly maxAgeMs: number
}

/**
 * How long a state stays valid by default: 15 minutes, time for a person to
 * answer a question.
 *
 * **Example**
 *
 * ```ts
 * import * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * RequestState.defaultMaxAgeMs // => 900000
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const defaultMaxAgeMs = 15 * 60 * 1000

/**
 * Why a `requestState` was refused (`data.reason` of the −32602 error).
 *
 * **Example**
 *
 * ```ts
 * import type * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * const retryFromScratch = (reason: RequestState.Refusal) => reason === "request_state_expired"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type Refusal =
  /** Not a state this server makes (wrong shape, not text, cut). */
  | "request_state_malformed"
  /** Sealed with a key this server does not have (another server, a restart with a random key). */
  | "request_state_unknown_key"
  /** Its authentication failed: it was changed. */
  | "request_state_tampered"
  /** Older than `maxAgeMs`. */
  | "request_state_expired"
  /** Issued for another request (another method, or other parameters). */
  | "request_state_mismatch"

/**
 * A secret too short to seal states with (under {@link minSecretBytes}
 * bytes): building {@link layer} fails with it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * const built = Layer.build(RequestState.layer({ keys: ["short"] })).pipe(
 *   Effect.catchTag("WeakRequestStateKey", (error) => Effect.die(error.message))
 * )
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class WeakKey extends Schema.TaggedError<WeakKey>()("WeakRequestStateKey", {
  message: Schema.String
}) {}

/**
 * Keys for the given secrets (each at least {@link minSecretBytes} bytes,
 * else the layer fails with {@link WeakKey}), with states valid for
 * `maxAgeMs` (default {@link defaultMaxAgeMs}). The first secret seals; all
 * open. No secrets: one random key, as by default.
 *
 * **Example**
 *
 * ```ts
 * import * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * // STATE_KEY: e.g. the output of `openssl rand -base64 32`, the same on every instance
 * const Keys = RequestState.layer({ keys: [process.env.STATE_KEY!] })
 * ```
 *
 * @category layers
 * @since 0.2.0
 */
export const layer = (options: {
  readonly keys: ReadonlyArray<string | Uint8Array>
  readonly maxAgeMs?: number | undefined
}): Layer.Layer<never, WeakKey> =>
  Layer.effect(
    RequestStateKeys,
    Effect.suspend(() => {
      for (const [index, key] of options.keys.entries()) {
        const bytes = typeof key === "string" ? new TextEncoder().encode(key).length : key.length
        if (bytes < minSecretBytes) {
          return Effect.fail(
            new WeakKey({
              message: `Request-state secret ${index + 1} of ${options.keys.length} is ${bytes} bytes; each must be at least ${minSecretBytes} (256 bits).`
            })
          )
        }
      }
      return Effect.succeed({
        keys: options.keys.length === 0 ? [randomSecret()] : options.keys,
        maxAgeMs: options.maxAgeMs ?? defaultMaxAgeMs
      })
    })
  ) as Layer.Layer<never, WeakKey>

/**
 * The smallest secret accepted from configuration, in bytes: 32 (256 bits),
 * a random key's size.
 *
 * **Example**
 *
 * ```ts
 * import * as RequestState from "effect-mcp-runtime/RequestState"
 *
 * RequestState.minSecretBytes // => 32
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const minSecretBytes = 32

const randomSecret = (): Uint8Array => globalThis.crypto.getRandomValues(new Uint8Array(32))
