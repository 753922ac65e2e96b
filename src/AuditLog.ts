/**
 * The audit log: one record per tool call — when, who (the principal, when
 * the transport knows one), which tool, with what arguments (a digest, or
 * the arguments with configured fields redacted), the outcome, how long it
 * took and how many bytes went in and out.
 *
 * The service is an interface; `layers/FileAuditLog.ts` is the default store
 * (an append-only JSONL file with size-based rotation). Records are written
 * whole: a record is either in the file complete or not at all.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { AuditLog } from "effect-mcp-runtime/AuditLog"
 *
 * const note = Effect.flatMap(Effect.service(AuditLog), (audit) =>
 *   audit.record({
 *     time: new Date().toISOString(),
 *     correlationId: "1a2b3c4d-1",
 *     tool: "system_echo",
 *     arguments: { text: "hi" },
 *     outcome: "ok",
 *     durationMs: 1.2
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as OutputBarrier from "./internal/outputBarrier.ts"

/**
 * One audit record.
 *
 * **Example**
 *
 * ```ts
 * import type { Entry } from "effect-mcp-runtime/AuditLog"
 *
 * const entry: Entry = {
 *   time: "2026-11-22T08:00:00.000Z",
 *   correlationId: "1a2b3c4d-1",
 *   principal: "alice",
 *   tool: "exec_run",
 *   arguments: { command: "npm", args: ["test"], token: "[redacted]" },
 *   outcome: "ok",
 *   durationMs: 5321.4,
 *   bytesIn: 120,
 *   bytesOut: 2048
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  /** When the call ended, ISO 8601. */
  readonly time: string
  readonly correlationId: string
  /** Who called, when the transport identifies the caller. */
  readonly principal?: string | undefined
  /** The tool's public name. */
  readonly tool: string
  /** The task the entry is the end of (a call answered with a task is audited again when its work ends). */
  readonly taskId?: string | undefined
  /** The arguments with the configured fields redacted (when the store keeps arguments). */
  readonly arguments?: unknown
  /** `sha256:<hex>` of the arguments' canonical JSON (when the store keeps digests). */
  readonly argumentsDigest?: string | undefined
  /** `ok`, `error`, `timeout`, `overloaded`, `cancelled`, `internal_error`, … */
  readonly outcome: string
  readonly durationMs: number
  readonly bytesIn?: number | undefined
  readonly bytesOut?: number | undefined
}

/**
 * What the server hands the audit log for one call: the record's fields,
 * with the raw arguments. The store decides what of the arguments it keeps
 * (a digest, or the arguments with fields redacted).
 *
 * **Example**
 *
 * ```ts
 * import type { Call } from "effect-mcp-runtime/AuditLog"
 *
 * const call: Call = {
 *   time: "2026-11-22T08:00:00.000Z",
 *   correlationId: "1a2b3c4d-1",
 *   tool: "system_echo",
 *   arguments: { text: "hi" },
 *   outcome: "ok",
 *   durationMs: 0.4
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Call extends Omit<Entry, "arguments" | "argumentsDigest"> {
  readonly arguments: unknown
}

/**
 * The audit log service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { AuditLog, type Call } from "effect-mcp-runtime/AuditLog"
 *
 * // An in-memory audit log for tests.
 * const calls: Array<Call> = []
 * const InMemory = Layer.succeed(AuditLog, AuditLog.of({ record: (call) => Effect.sync(() => void calls.push(call)) }))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class AuditLog extends Context.Service<
  AuditLog,
  {
    /**
     * Appends the record of one call, and completes once the record is
     * stored: the server answers the call only then. Never fails: a store
     * that cannot write logs the problem on stderr. The file store groups
     * the records of calls that finish together into one write; on a
     * transport that flushes queued records before each of its writes
     * (stdio: `Transport.flushesAuditBeforeWrite`) it queues the record and
     * completes at once, the record still written before the answer.
     */
    readonly record: (call: Call) => Effect.Effect<void>
    /**
     * Optional: queues the record of a call answered on a transport that
     * writes the queued records before each of its writes
     * (`Transport.flushesAuditBeforeWrite`), so that the record still
     * reaches the store before the answer leaves. The server uses it, when
     * present, for calls it serves from such a transport: no effect is run
     * and nothing waits. The file store has it; a store without it gets
     * every call through `record`. Since 0.5.0.
     */
    readonly enqueue?: ((call: Call) => void) | undefined
  }
>()("effect-mcp-runtime/AuditLog") {}

/**
 * The value written in place of a redacted field.
 *
 * **Example**
 *
 * ```ts
 * import { redactedValue } from "effect-mcp-runtime/AuditLog"
 *
 * redactedValue // => "[redacted]"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const redactedValue = "[redacted]"

/**
 * The field names redacted by default, compared case-insensitively at any
 * depth: anything that looks like a credential.
 *
 * **Example**
 *
 * ```ts
 * import { defaultRedactedFields } from "effect-mcp-runtime/AuditLog"
 *
 * defaultRedactedFields.includes("password") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultRedactedFields: ReadonlyArray<string> = [
  "password",
  "passwd",
  "secret",
  "token",
  "apikey",
  "api_key",
  "authorization",
  "cookie",
  "privatekey",
  "private_key",
  "credentials"
]

/**
 * Replaces the values of the given fields (case-insensitive, at any depth,
 * inside arrays too) with {@link redactedValue}. The input is not changed.
 *
 * **Example**
 *
 * ```ts
 * import { redact } from "effect-mcp-runtime/AuditLog"
 *
 * redact({ user: "alice", auth: { Token: "t0p" } }, ["token"])
 * // => { user: "alice", auth: { Token: "[redacted]" } }
 * ```
 *
 * @category redaction
 * @since 0.1.0
 */
export const redact = (value: unknown, fields: ReadonlyArray<string> = defaultRedactedFields): unknown => {
  const names = new Set(fields.map((field) => field.toLowerCase()))
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 64) return "[too deep]"
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1))
    if (typeof node !== "object" || node === null) return node
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(node)) {
      out[key] = names.has(key.toLowerCase()) ? redactedValue : walk(item, depth + 1)
    }
    return out
  }
  return walk(value, 0)
}

/**
 * The canonical JSON of a value: object keys sorted, no whitespace. Two
 * argument objects that differ only in key order have the same digest.
 *
 * **Example**
 *
 * ```ts
 * import { canonicalJson } from "effect-mcp-runtime/AuditLog"
 *
 * canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // => '{"a":[2,{"c":4,"d":3}],"b":1}'
 * ```
 *
 * @category redaction
 * @since 0.1.0
 */
export const canonicalJson = (value: unknown): string =>
  // Arguments whose keys are in order already (one key, or a client that sorts) are their own canonical JSON.
  isCanonical(value, 0)
    ? (JSON.stringify(value) ?? "null")
    : (JSON.stringify(value, (_key, node: unknown) => {
        if (typeof node !== "object" || node === null || Array.isArray(node)) return node
        const sorted: Record<string, unknown> = {}
        for (const key of Object.keys(node).sort()) sorted[key] = (node as Record<string, unknown>)[key]
        return sorted
      }) ?? "null")

// Whether `JSON.stringify` writes every object of `value` with its keys sorted: plain data whose objects' own keys
// are in order (no `toJSON`, which could return anything); too deep (or a cycle) says no, and the sorting path
// decides (a cycle fails there as `JSON.stringify` fails).
const isCanonical = (value: unknown, depth: number): boolean => {
  if (typeof value !== "object" || value === null) return true
  if (depth > 32) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isCanonical(value[i], depth + 1)) return false
    return true
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false
  let previous: string | undefined
  for (const key of Object.keys(value)) {
    if (previous !== undefined && previous > key) return false
    previous = key
    if (!isCanonical((value as Record<string, unknown>)[key], depth + 1)) return false
  }
  return true
}

/**
 * `sha256:<hex>` of the canonical JSON of the arguments (Web Crypto).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { digest } from "effect-mcp-runtime/AuditLog"
 *
 * const hash = Effect.runPromise(digest({ text: "hello" })) // "sha256:…" (64 hex digits)
 * ```
 *
 * @category redaction
 * @since 0.1.0
 */
export const digest = (value: unknown): Effect.Effect<string> =>
  Effect.promise(async () => {
    const bytes = new TextEncoder().encode(canonicalJson(value))
    const hash = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes))
    let hex = ""
    for (const byte of hash) hex += byte.toString(16).padStart(2, "0")
    return `sha256:${hex}`
  })

/**
 * Registers a flush that the transports which say
 * `flushesAuditBeforeWrite` (stdio) run synchronously right before each of
 * their writes to the peer: a store with `enqueue` writes the records it
 * queued there, so that every record reaches the store before the answers
 * that follow it. The flush must be synchronous and must not throw. Returns
 * its removal (call it when the store closes).
 *
 * **Example**
 *
 * ```ts
 * import * as fs from "node:fs"
 * import { AuditLog, type Call, flushBeforeOutput } from "effect-mcp-runtime/AuditLog"
 * import * as Effect from "effect/Effect"
 *
 * const queued: Array<Call> = []
 * const write = () => {
 *   if (queued.length === 0) return
 *   fs.appendFileSync("audit.jsonl", queued.map((call) => JSON.stringify({ ...call, arguments: undefined }) + "\n").join(""))
 *   queued.length = 0
 * }
 * const stop = flushBeforeOutput(write)
 * const store = AuditLog.of({
 *   record: (call) => Effect.sync(() => (queued.push(call), write())),
 *   enqueue: (call) => void queued.push(call)
 * })
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const flushBeforeOutput = (flush: () => void): (() => void) => OutputBarrier.register(flush)
