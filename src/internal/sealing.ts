/**
 * Sealing and opening `requestState` (see `RequestState`): AES-256-GCM under
 * a key derived with SHA-256 from each configured secret, as
 * `mrtr1.<key id>.<base64url(iv | ciphertext | tag)>`.
 *
 * @internal
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import type { Refusal, Settings } from "../RequestState.ts"

// node:crypto, not WebCrypto: these run on every round, and WebCrypto's calls each take a trip through the thread
// pool (tens of microseconds of latency) where node:crypto's synchronous ones take a few.

interface Key {
  /** A short, public id of the key: the first bytes of SHA-256("kid:" + secret). */
  readonly id: string
  /** The AES-256 key: SHA-256 of the secret (a KeyObject: imported once, not on every use). */
  readonly key: KeyObject
}

const bytesOf = (secret: string | Uint8Array): Buffer =>
  typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret)

const derived = new WeakMap<Settings, ReadonlyArray<Key>>()

const deriveKeys = (settings: Settings): ReadonlyArray<Key> => {
  let found = derived.get(settings)
  if (found === undefined) {
    found = settings.keys.map((secret) => {
      const raw = bytesOf(secret)
      return {
        id: createHash("sha256").update("kid:").update(raw).digest("hex").slice(0, 8),
        key: createSecretKey(createHash("sha256").update(raw).digest())
      }
    })
    derived.set(settings, found)
  }
  return found
}

/** The prefix of every state: the format's version (also the cipher's additional data). */
const prefix = "mrtr1"
const additionalData = Buffer.from(prefix, "utf8")
const base64url = /^[A-Za-z0-9_-]*$/

/** Seals a payload into a state string: `mrtr1.<key id>.<base64url(iv | ciphertext | tag)>`. */
export const seal = (settings: Settings, payload: unknown): Effect.Effect<string> =>
  Effect.sync(() => {
    const key = deriveKeys(settings)[0]!
    const iv = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", key.key, iv)
    cipher.setAAD(additionalData)
    const sealed = Buffer.concat([
      iv,
      cipher.update(JSON.stringify(payload), "utf8"),
      cipher.final(),
      cipher.getAuthTag()
    ])
    return `${prefix}.${key.id}.${sealed.toString("base64url")}`
  })

/**
 * Opens a state: the payload, or why it was refused. The payload's own
 * checks (age, request binding) are the caller's.
 */
export const open = (
  settings: Settings,
  state: string
): Effect.Effect<
  | { readonly _tag: "Opened"; readonly payload: unknown }
  | { readonly _tag: "Refused"; readonly reason: Refusal; readonly detail: string }
> =>
  Effect.sync(() => {
    const refuse = (reason: Refusal, detail: string) => ({ _tag: "Refused" as const, reason, detail })
    const parts = state.split(".")
    if (parts.length !== 3 || parts[0] !== prefix) {
      return refuse("request_state_malformed", "it is not a requestState this server issued")
    }
    const key = deriveKeys(settings).find((candidate) => candidate.id === parts[1])
    if (key === undefined) {
      return refuse(
        "request_state_unknown_key",
        "it was sealed with a key this server does not have (another server, or this one restarted with a new key)"
      )
    }
    const text = parts[2]!
    const bytes = base64url.test(text) && text.length % 4 !== 1 ? Buffer.from(text, "base64url") : undefined
    if (bytes === undefined || bytes.length < 12 + 16) {
      return refuse("request_state_malformed", "it is cut or not base64url")
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, bytes.subarray(0, 12))
      decipher.setAAD(additionalData)
      decipher.setAuthTag(bytes.subarray(bytes.length - 16))
      const plain = Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()])
      return { _tag: "Opened" as const, payload: JSON.parse(plain.toString("utf8")) as unknown }
    } catch {
      return refuse("request_state_tampered", "its authentication failed: it was changed")
    }
  })

/** The SHA-256 digest (hex) of a text. */
export const digest = (text: string): Effect.Effect<string> =>
  Effect.sync(() => createHash("sha256").update(text, "utf8").digest("hex"))
