/**
 * The default audit log store: an append-only JSONL file, one record per
 * line, with size-based rotation.
 *
 * **Whole records.** The file is opened with `O_APPEND` and each record —
 * its JSON and the newline — goes out in one `write(2)` of a complete
 * buffer, so records never interleave and every record whose write
 * returned is complete in the file. A process killed with `kill -9` *during*
 * a write can leave the start of that one record (Linux stops a large write
 * between pages when a fatal signal is pending): that record was never
 * completed, and the next time the file is opened the unterminated tail is
 * cut off, so the file holds complete records only (tested in
 * `test/AuditLog.test.ts` with a real `kill -9`). A power failure is another
 * matter: records not yet flushed by the OS may be lost unless `fsync` is on
 * (option `sync`, slower).
 *
 * **Rotation.** Before a record would take the file past `maxBytes`, the file
 * is renamed `<path>.1` (older ones shift to `.2` … up to `keep`, the oldest
 * is deleted) and a new file is started.
 *
 * Writes are synchronous: one short write per tool call, in order, with no
 * buffer to lose.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { AuditLog, canonicalJson, defaultRedactedFields, type Entry, redact } from "../src/AuditLog.ts"

// `AuditLog.digest`, computed with Node's hash at once: Web Crypto's digest is asynchronous (a trip through the
// thread pool for every call), which made the audit record cost more than the call it records.
const digestNow = (value: unknown): string =>
  `sha256:${createHash("sha256").update(canonicalJson(value)).digest("hex")}`

/**
 * The options of the file store.
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * const options: Options = { path: ".mcp-runtime/audit.jsonl", maxBytes: 10 * 1024 * 1024, keep: 5 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The file (its directory is created if missing). */
  readonly path: string
  /** Rotate before the file would grow past this many bytes (default 10 MiB). */
  readonly maxBytes?: number | undefined
  /** How many rotated files to keep (default 5). */
  readonly keep?: number | undefined
  /** `fsync` after every record (default false). */
  readonly sync?: boolean | undefined
  /**
   * What is kept of a call's arguments: their SHA-256 digest (the default:
   * nothing readable, still comparable), or the arguments themselves with the
   * `redact` fields replaced.
   */
  readonly arguments?: "digest" | "redacted" | undefined
  /** The fields redacted when arguments are kept (default `AuditLog.defaultRedactedFields`). */
  readonly redact?: ReadonlyArray<string> | undefined
}

/**
 * The default options, apart from the path.
 *
 * **Example**
 *
 * ```ts
 * import { defaults } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * defaults.keep // => 5
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = { maxBytes: 10 * 1024 * 1024, keep: 5, sync: false, arguments: "digest" } as const

// Truncates the file after its last newline; returns the new size.
const repairTail = (path: string, size: number): number => {
  const fd = fs.openSync(path, "r+")
  try {
    const chunk = Buffer.alloc(64 * 1024)
    let end = size
    while (end > 0) {
      const start = Math.max(0, end - chunk.length)
      const read = fs.readSync(fd, chunk, 0, end - start, start)
      const at = chunk.subarray(0, read).lastIndexOf(0x0a)
      if (at !== -1) {
        const keep = start + at + 1
        if (keep < size) fs.ftruncateSync(fd, keep)
        return keep
      }
      end = start
    }
    fs.ftruncateSync(fd, 0)
    return 0
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The audit file cannot be created or opened for appending (a missing
 * permission, a directory in its place): the server does not start without
 * the audit log it was configured with.
 *
 * **Example**
 *
 * ```ts
 * import { AuditFileUnavailable } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * new AuditFileUnavailable({ path: "/var/log/mcp/audit.jsonl", message: "EACCES" }).path // => "/var/log/mcp/audit.jsonl"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class AuditFileUnavailable extends Schema.TaggedError<AuditFileUnavailable>()("AuditFileUnavailable", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * A synchronous JSONL appender: what the layer runs on, usable on its own.
 *
 * **Example**
 *
 * ```ts
 * import { makeAppender } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * const appender = makeAppender({ path: "/tmp/audit.jsonl" })
 * appender.append({ time: new Date().toISOString(), correlationId: "x-1", tool: "t", outcome: "ok", durationMs: 1 })
 * appender.close()
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeAppender = (options: Options) => {
  const path = nodePath.resolve(options.path)
  const maxBytes = options.maxBytes ?? defaults.maxBytes
  const keep = Math.max(0, options.keep ?? defaults.keep)
  const sync = options.sync ?? defaults.sync
  fs.mkdirSync(nodePath.dirname(path), { recursive: true })
  let fd = fs.openSync(path, "a", 0o600)
  let size = fs.fstatSync(fd).size
  // A record cut short by a crash (no final newline) was never completed: cut it off.
  if (size > 0) size = repairTail(path, size)

  const rotate = () => {
    fs.closeSync(fd)
    if (keep === 0) fs.rmSync(path, { force: true })
    else {
      fs.rmSync(`${path}.${keep}`, { force: true })
      for (let i = keep - 1; i >= 1; i--) {
        if (fs.existsSync(`${path}.${i}`)) fs.renameSync(`${path}.${i}`, `${path}.${i + 1}`)
      }
      fs.renameSync(path, `${path}.1`)
    }
    fd = fs.openSync(path, "a", 0o600)
    size = 0
  }

  return {
    path,
    append: (entry: Entry): void => {
      const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8")
      if (size > 0 && size + line.length > maxBytes) rotate()
      // One write of the whole record; loop only if the kernel wrote less (it does not for regular files).
      let written = 0
      while (written < line.length) written += fs.writeSync(fd, line, written, line.length - written)
      if (sync) fs.fsyncSync(fd)
      size += line.length
    },
    close: (): void => fs.closeSync(fd)
  }
}

/**
 * The file store as an `AuditLog` layer. A record that cannot be written is
 * reported on stderr (as a log line) and the call goes on.
 *
 * **Example**
 *
 * ```ts
 * import * as FileAuditLog from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * const Audit = FileAuditLog.layer({ path: ".mcp-runtime/audit.jsonl", maxBytes: 5 * 1024 * 1024 })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<AuditLog, AuditFileUnavailable> =>
  Layer.effect(
    AuditLog,
    Effect.acquireRelease(
      Effect.try({
        try: () => makeAppender(options),
        catch: (error) =>
          new AuditFileUnavailable({
            path: nodePath.resolve(options.path),
            message: `The audit log ${nodePath.resolve(options.path)} cannot be opened for appending: ${
              error instanceof Error ? error.message : String(error)
            }`
          })
      }),
      (appender) => Effect.sync(appender.close)
    ).pipe(
      Effect.map((appender) =>
        AuditLog.of({
          record: ({ arguments: args, ...call }) =>
            Effect.sync(() =>
              appender.append(
                (options.arguments ?? defaults.arguments) === "redacted"
                  ? { ...call, arguments: redact(args, options.redact ?? defaultRedactedFields) }
                  : { ...call, argumentsDigest: digestNow(args) }
              )
            ).pipe(
              Effect.asVoid,
              Effect.catchDefect((error) =>
                Effect.logError("audit record not written", { path: appender.path, error: String(error) })
              )
            )
        })
      )
    )
  )
