/**
 * Sealing and opening `requestState` (see `RequestState`): AES-256-GCM under
 * a key derived with SHA-256 from each configured secret, as
 * `mrtr1.<key id>.<base64url(iv | ciphertext | tag)>`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Refusal, Settings } from "../RequestState.ts"

interface Key {
  /** A short, public id of the key: the first bytes of SHA-256("kid" + secret). */
  readonly id: string
  readonly key: Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const bytesOf = (secret: string | Uint8Array): Uint8Array<ArrayBuffer> =>
  typeof secret === "string" ? encoder.encode(secret) : new Uint8Array(secret)

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

const derived = new WeakMap<Settings, Promise<ReadonlyArray<Key>>>()

const deriveKeys = (settings: Settings): Promise<ReadonlyArray<Key>> => {
  let found = derived.get(settings)
  if (found === undefined) {
    found = Promise.all(
      settings.keys.map(async (secret) => {
        const raw = bytesOf(secret)
        const material = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", raw))
        const kid = new Uint8Array(
          await globalThis.crypto.subtle.digest("SHA-256", new Uint8Array([...encoder.encode("kid:"), ...raw]))
        )
        const key = await globalThis.crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"])
        return { id: hex(kid.slice(0, 4)), key }
      })
    )
    derived.set(settings, found)
  }
  return found
}

const toBase64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")

const fromBase64Url = (text: string): Uint8Array<ArrayBuffer> | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4)
  try {
    const binary = atob(padded)
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}

/** The prefix of every state: the format's version. */
const prefix = "mrtr1"

/** Seals a payload into a state string. */
export const seal = (settings: Settings, payload: unknown): Effect.Effect<string> =>
  Effect.promise(async () => {
    const [key] = await deriveKeys(settings)
    const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
    const sealed = new Uint8Array(
      await globalThis.crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: encoder.encode(prefix) },
        key!.key,
        encoder.encode(JSON.stringify(payload))
      )
    )
    const out = new Uint8Array(iv.length + sealed.length)
    out.set(iv, 0)
    out.set(sealed, iv.length)
    return `${prefix}.${key!.id}.${toBase64Url(out)}`
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
  Effect.promise(async () => {
    const refuse = (reason: Refusal, detail: string) => ({ _tag: "Refused" as const, reason, detail })
    const parts = state.split(".")
    if (parts.length !== 3 || parts[0] !== prefix) {
      return refuse("request_state_malformed", "it is not a requestState this server issued")
    }
    const keys = await deriveKeys(settings)
    const key = keys.find((candidate) => candidate.id === parts[1])
    if (key === undefined) {
      return refuse(
        "request_state_unknown_key",
        "it was sealed with a key this server does not have (another server, or this one restarted with a new key)"
      )
    }
    const bytes = fromBase64Url(parts[2]!)
    if (bytes === undefined || bytes.length < 12 + 16) {
      return refuse("request_state_malformed", "it is cut or not base64url")
    }
    try {
      const plain = await globalThis.crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: encoder.encode(prefix) },
        key.key,
        bytes.slice(12)
      )
      return { _tag: "Opened" as const, payload: JSON.parse(decoder.decode(plain)) as unknown }
    } catch {
      return refuse("request_state_tampered", "its authentication failed: it was changed")
    }
  })

/** The SHA-256 digest (hex) of a text. */
export const digest = (text: string): Effect.Effect<string> =>
  Effect.promise(async () =>
    hex(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", encoder.encode(text))))
  )
