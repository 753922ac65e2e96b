/**
 * The default audit log store: an append-only JSONL file, one record per
 * line, with size-based rotation.
 *
 * **Grouped writes.** A call's record is queued and written with the
 * records of the calls that finish with it, in one `write(2)`. On the stdio
 * transport (`Transport.flushesAuditBeforeWrite`) the call does not wait:
 * its record is queued with `enqueue` when its request ends, and the
 * transport writes the queued records right before it writes the answers
 * that follow them (`AuditLog.flushBeforeOutput`). Elsewhere, `record`
 * suspends the call until the end of the current turn of the event loop
 * (`setImmediate`, once every call that finished in that turn's I/O has
 * queued its record), when the queued records are digested, serialized and
 * written, and only then releases it to answer. Either way no answer is
 * sent before its record is in the file, and a busy server pays one system
 * call for all the calls that finish together instead of one per call.
 *
 * **Whole records.** The file is opened with `O_APPEND` and each group of
 * records — their JSON lines — goes out in one `write(2)` of a complete
 * buffer, so records never interleave and every record whose write
 * returned is complete in the file. A process killed with `kill -9` *during*
 * a write can leave the start of one record (Linux stops a large write
 * between pages when a fatal signal is pending): that record's call was
 * never answered, and the next time the file is opened the unterminated tail
 * is cut off, so the file holds complete records only (tested in
 * `test/AuditLog.test.ts` with a real `kill -9` while many calls are in
 * flight: every answered call has its record). A power failure is another
 * matter: records not yet flushed by the OS may be lost unless `fsync` is on
 * (option `sync`: one `fsync` per group).
 *
 * **Rotation.** Before a record would take the file past `maxBytes`, the file
 * is renamed `<path>.1` (older ones shift to `.2` … up to `keep`, the oldest
 * is deleted) and a new file is started.
 *
 * @since 0.1.0
 */
import { hash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import {
  AuditLog,
  type Call,
  canonicalJson,
  defaultRedactedFields,
  type Entry,
  flushBeforeOutput,
  redact
} from "../src/AuditLog.ts"
import * as OutputBarrier from "../src/internal/outputBarrier.ts"

// `AuditLog.digest`, computed with Node's one-shot hash at once: Web Crypto's digest is asynchronous (a trip through
// the thread pool for every call), and a `createHash` object per record cost twice as much as the one-shot call.
const digestNow = (value: unknown): string => `sha256:${hash("sha256", canonicalJson(value), "hex")}`

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
 * `append` writes one record; `appendLines` writes several records (their
 * JSON lines, without newlines) with one `write(2)`, or record by record
 * when the group crosses the rotation point.
 *
 * **Example**
 *
 * ```ts
 * import { makeAppender } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * const appender = makeAppender({ path: "/tmp/audit.jsonl" })
 * appender.append({ time: new Date().toISOString(), correlationId: "x-1", tool: "t", outcome: "ok", durationMs: 1 })
 * appender.appendLines(['{"time":"2026-11-25T08:00:00.000Z","correlationId":"x-2","tool":"t","outcome":"ok","durationMs":1}'])
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

  const scratchLimit = 16 * 1024 * 1024
  let scratch = Buffer.allocUnsafe(64 * 1024)

  // One write of the whole buffer; loop only if the kernel wrote less (it does not for regular files).
  const write = (bytes: Buffer): void => {
    let written = 0
    while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written)
    size += bytes.length
  }

  const appendLine = (line: string): void => {
    const bytes = Buffer.from(`${line}\n`, "utf8")
    if (size > 0 && size + bytes.length > maxBytes) rotate()
    write(bytes)
  }

  return {
    path,
    append: (entry: Entry): void => {
      appendLine(JSON.stringify(entry))
      if (sync) fs.fsyncSync(fd)
    },
    appendLines: (lines: ReadonlyArray<string>): void => {
      if (lines.length === 0) return
      const text = `${lines.join("\n")}\n`
      // Encoded into a buffer kept between groups (a fresh one per group is garbage for every write), grown up to
      // 16 MiB; a larger group gets a buffer of its own. (At most 3 UTF-8 bytes per UTF-16 unit.)
      const most = text.length * 3
      if (most > scratch.length && most <= scratchLimit) scratch = Buffer.allocUnsafe(2 ** Math.ceil(Math.log2(most)))
      const bytes =
        most <= scratch.length ? scratch.subarray(0, scratch.write(text, 0, "utf8")) : Buffer.from(text, "utf8")
      if (size + bytes.length <= maxBytes) write(bytes)
      else for (const line of lines) appendLine(line)
      if (sync) fs.fsyncSync(fd)
    },
    close: (): void => fs.closeSync(fd)
  }
}

/**
 * The JSON line of a call's record as the store keeps it: the arguments'
 * digest (the default) or the arguments with the configured fields
 * redacted, in place of the arguments.
 *
 * **Example**
 *
 * ```ts
 * import { recordLine } from "effect-mcp-runtime/layers/FileAuditLog"
 *
 * recordLine(
 *   { time: "2026-11-25T08:00:00.000Z", correlationId: "x-1", tool: "t", arguments: { a: 1 }, outcome: "ok", durationMs: 1 },
 *   { path: "audit.jsonl" }
 * )
 * // => '{"time":"2026-11-25T08:00:00.000Z","correlationId":"x-1","tool":"t","outcome":"ok","durationMs":1,"argumentsDigest":"sha256:…"}'
 * ```
 *
 * @category formatting
 * @since 0.5.0
 */
export const recordLine = (call: Call, options: Options): string => {
  // `arguments: undefined` is left out by JSON.stringify (a spread copies faster than a rest pattern).
  if ((options.arguments ?? defaults.arguments) === "redacted") {
    return JSON.stringify({ ...call, arguments: redact(call.arguments, options.redact ?? defaultRedactedFields) })
  }
  // The record without its arguments, their digest added as the last field.
  const json = JSON.stringify({ ...call, arguments: undefined })
  const digestField = `"argumentsDigest":"${digestNow(call.arguments)}"}`
  return json === "{}" ? `{${digestField}` : `${json.slice(0, -1)},${digestField}`
}

/**
 * The file store as an `AuditLog` layer. Records queued in the same turn of
 * work are written together (see the module's description); a record that
 * cannot be written is reported on stderr (as a log line) and the call goes
 * on. Records still queued when the layer is released are written then.
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
    Effect.map(
      Effect.acquireRelease(
        Effect.flatMap(Effect.context<never>(), (context) =>
          Effect.try({
            try: () => makeWriter(makeAppender(options), options, Effect.runForkWith(context)),
            catch: (error) =>
              new AuditFileUnavailable({
                path: nodePath.resolve(options.path),
                message: `The audit log ${nodePath.resolve(options.path)} cannot be opened for appending: ${
                  error instanceof Error ? error.message : String(error)
                }`
              })
          })
        ),
        (writer) => Effect.sync(writer.close)
      ),
      (writer) => AuditLog.of({ record: writer.record, enqueue: writer.enqueue })
    )
  )

const notWritten = (path: string, error: unknown): Effect.Effect<void> =>
  Effect.logError("audit record not written", { path, error: String(error) })

// The grouped writer. A record is queued; it is written by the next flush: the output barrier a covering transport
// runs before its next write (see `src/internal/outputBarrier.ts`), or the end of the current turn of the event loop
// (after the turn's I/O: every call that finished in it), with one write(2) for the group. A call on a covering
// transport goes on at once (its answer cannot leave before the barrier); any other call waits for the flush.
const makeWriter = (
  appender: ReturnType<typeof makeAppender>,
  options: Options,
  report: (effect: Effect.Effect<void>) => void
) => {
  let calls: Array<Call> = []
  // The resumption of each queued call that waits (undefined for a call that went on).
  let waiters: Array<((effect: Effect.Effect<void>) => void) | undefined> = []
  let scheduled = false
  let closed = false

  const flush = (): void => {
    if (calls.length === 0) return
    const batch = calls
    const resumes = waiters
    calls = []
    waiters = []
    // Digests and JSON in the batch, each record on its own: one that cannot be serialized is reported alone.
    const lines: Array<string> = []
    const outcomes: Array<Effect.Effect<void> | undefined> = []
    for (let i = 0; i < batch.length; i++) {
      try {
        lines.push(recordLine(batch[i]!, options))
        outcomes.push(undefined)
      } catch (error) {
        outcomes.push(notWritten(appender.path, error))
      }
    }
    let written: Effect.Effect<void> = Effect.void
    try {
      if (closed) throw new Error("the audit log is closed")
      appender.appendLines(lines)
    } catch (error) {
      written = notWritten(appender.path, error)
    }
    // Only now, with the records in the file, do the waiting calls go on to answer.
    for (let i = 0; i < resumes.length; i++) {
      const outcome = outcomes[i] ?? written
      const resume = resumes[i]
      if (resume !== undefined) resume(outcome)
      else if (outcome !== Effect.void) report(outcome)
    }
  }
  const endOfTurn = (): void => {
    scheduled = false
    flush()
  }
  const queue = (call: Call, resume: ((effect: Effect.Effect<void>) => void) | undefined): void => {
    calls.push(call)
    waiters.push(resume)
    if (!scheduled) {
      scheduled = true
      setImmediate(endOfTurn)
    }
  }
  const unregister = flushBeforeOutput(flush)

  return {
    record: (call: Call): Effect.Effect<void> =>
      Effect.withFiber((fiber) => {
        if (fiber.getRef(OutputBarrier.Covered)) {
          queue(call, undefined)
          return Effect.void
        }
        return Effect.callback<void>((resume) => queue(call, resume))
      }),
    enqueue: (call: Call): void => {
      queue(call, undefined)
    },
    close: (): void => {
      unregister()
      flush()
      closed = true
      appender.close()
    }
  }
}
