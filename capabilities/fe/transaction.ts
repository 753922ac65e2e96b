/**
 * A file transaction for tools that change several files at once
 * (`fe_surgeon`, `fe_batch`): every change is checked and applied in memory
 * first ({@link prepare}), then written ({@link commit}); should a write fail
 * half-way, every file already written gets its exact previous bytes back.
 * The committed transaction keeps a `rollback` that restores all of them
 * later (for `fe_batch`, when verification gets worse).
 *
 * Everything goes through the `Workspace` service, so the workspace's own
 * checks (root, deny list, symlinks, special files, size cap) apply to every
 * path. The workspace writes text (UTF-8) and has no bytes-writing call, so a
 * file is only taken into a transaction when its bytes are valid UTF-8
 * without NUL bytes: then the text read encodes back to exactly the same
 * bytes (a BOM, CRLF line breaks and non-ASCII text included), which is what
 * makes the restore byte-exact. The workspace has no delete call either:
 * deleting goes through `applyPatch` with a patch that removes every line of
 * the file, which also checks the file still holds what was read.
 *
 * @since 0.4.0
 */
import * as NodeCrypto from "node:crypto"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { type BytesResult, Workspace, type WorkspaceError } from "../../src/Workspace.ts"
import { toToolError as workspaceToolError } from "../workspace/errors.ts"

// ---- inputs ----

/**
 * What the caller saw of a file when it read it, to detect a file changed
 * since: its size and modification time (as `workspace_stat` reports them),
 * or the SHA-256 (hex) of its bytes — the same as the SHA-256 of its text
 * encoded as UTF-8 (see {@link fingerprintOf}).
 *
 * **Example**
 *
 * ```ts
 * import type { Fingerprint } from "./capabilities/fe/transaction.ts"
 *
 * const seen: Fingerprint = { size: 120, modifiedMs: 1764072000000 }
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const Fingerprint = Schema.Union([
  Schema.Struct({
    size: Schema.Number.annotate({ description: "The file's size in bytes." }),
    modifiedMs: Schema.Number.annotate({ description: "Its last modification, milliseconds since the epoch." })
  }),
  Schema.Struct({
    sha256: Schema.String.annotate({ description: "The SHA-256 of the file's bytes (its UTF-8 text), in hex." })
  })
])

/**
 * @category models
 * @since 0.4.0
 */
export type Fingerprint = typeof Fingerprint.Type

/**
 * One replacement in a file's text: the characters `[start, end)` become
 * `text`. Offsets are UTF-16 code unit indexes into the file's current text
 * (JavaScript string indexes, not bytes; a BOM is the character at 0), as
 * read; `start === end` inserts.
 *
 * **Example**
 *
 * ```ts
 * import type { TextEdit } from "./capabilities/fe/transaction.ts"
 *
 * const rename: TextEdit = { start: 13, end: 16, text: "total" }
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const TextEdit = Schema.Struct({
  start: Schema.Number.annotate({ description: "First UTF-16 offset replaced, 0-based." }),
  end: Schema.Number.annotate({ description: "Offset just after the last one replaced (= start to insert)." }),
  text: Schema.String.annotate({ description: "The replacement text." })
})

/**
 * @category models
 * @since 0.4.0
 */
export type TextEdit = typeof TextEdit.Type

const expected = Schema.optionalKey(
  Fingerprint.annotate({ description: "What the caller read; the transaction is refused if the file changed since." })
)

/**
 * One file's change: `edits` (sorted by `start`, not overlapping) to apply to
 * its current text, `content` to replace all of it, `delete: true`, or
 * `create` for a file that must not exist yet. Each change of an existing
 * file may carry the `expected` {@link Fingerprint} of what was read.
 *
 * **Example**
 *
 * ```ts
 * import type { FileChange } from "./capabilities/fe/transaction.ts"
 *
 * const changes: ReadonlyArray<FileChange> = [
 *   { path: "src/a.ts", edits: [{ start: 0, end: 6, text: "export" }] },
 *   { path: "src/b.ts", content: "export const b = 2\n" },
 *   { path: "src/old.ts", delete: true },
 *   { path: "src/new.ts", create: "export {}\n" }
 * ]
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const FileChange = Schema.Union([
  Schema.Struct({ path: Schema.String, edits: Schema.Array(TextEdit), expected }),
  Schema.Struct({ path: Schema.String, content: Schema.String, expected }),
  Schema.Struct({ path: Schema.String, delete: Schema.Literal(true), expected }),
  Schema.Struct({ path: Schema.String, create: Schema.String })
])

/**
 * @category models
 * @since 0.4.0
 */
export type FileChange = typeof FileChange.Type

/**
 * The most operations a transaction takes by default: each edit counts one,
 * each whole-content, delete or create change one.
 *
 * **Example**
 *
 * ```ts
 * import { defaultMaxOperations } from "./capabilities/fe/transaction.ts"
 *
 * defaultMaxOperations // => 500
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const defaultMaxOperations = 500

// ---- errors ----

/**
 * Why {@link prepare} refused a transaction.
 *
 * **Example**
 *
 * ```ts
 * import { RefusalReason } from "./capabilities/fe/transaction.ts"
 *
 * RefusalReason.literals.includes("overlapping_edits") // => true
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export const RefusalReason = Schema.Literals([
  "stale",
  "overlapping_edits",
  "unsorted_edits",
  "out_of_bounds",
  "split_character",
  "too_many",
  "exists",
  "duplicate_path",
  "not_text",
  "too_large",
  "root"
])

/**
 * @category models
 * @since 0.4.0
 */
export type RefusalReason = typeof RefusalReason.Type

/**
 * The transaction was refused before anything was written: a stale file, bad
 * edits, too many operations, a file that is not UTF-8 text…
 *
 * **Example**
 *
 * ```ts
 * import { TransactionRefused } from "./capabilities/fe/transaction.ts"
 *
 * new TransactionRefused({
 *   reason: "stale",
 *   path: "src/a.ts",
 *   message: "src/a.ts changed since it was read. Nothing was written.",
 *   suggestion: "Read src/a.ts again and rebuild the change from its current text."
 * })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class TransactionRefused extends Schema.TaggedError<TransactionRefused>()("TransactionRefused", {
  reason: RefusalReason,
  path: Schema.optionalKey(Schema.String),
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * A write failed during {@link commit}. `restored` lists the files put back
 * to their previous bytes (created files removed, deleted ones recreated);
 * `notRestored` the ones that could not be (empty when all went back).
 *
 * **Example**
 *
 * ```ts
 * import { CommitFailed } from "./capabilities/fe/transaction.ts"
 *
 * new CommitFailed({
 *   path: "src/b.ts",
 *   restored: ["src/a.ts"],
 *   notRestored: [],
 *   message: "Writing src/b.ts failed: EACCES. Every file already written was restored: src/a.ts.",
 *   suggestion: "Fix the cause (permissions, disk space) and run the transaction again."
 * })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class CommitFailed extends Schema.TaggedError<CommitFailed>()("CommitFailed", {
  path: Schema.String,
  restored: Schema.Array(Schema.String),
  notRestored: Schema.Array(Schema.String),
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * A rollback could not restore some files (`notRestored`); the others were
 * restored.
 *
 * **Example**
 *
 * ```ts
 * import { RollbackFailed } from "./capabilities/fe/transaction.ts"
 *
 * new RollbackFailed({
 *   notRestored: ["src/a.ts"],
 *   message: "src/a.ts could not be restored: src/a.ts is a directory.",
 *   suggestion: "Restore src/a.ts by hand (git checkout, or the diff of the transaction)."
 * })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class RollbackFailed extends Schema.TaggedError<RollbackFailed>()("RollbackFailed", {
  notRestored: Schema.Array(Schema.String),
  message: Schema.String,
  suggestion: Schema.String
}) {}

// ---- results ----

/**
 * One file of a prepared transaction: its root-relative path, what happens
 * to it, its exact bytes and text before (none for a created file), its text
 * after (none for a deleted file) and the unified diff between the two.
 *
 * **Example**
 *
 * ```ts
 * import type { PreparedFile } from "./capabilities/fe/transaction.ts"
 *
 * const created: PreparedFile = {
 *   path: "src/new.ts",
 *   status: "created",
 *   before: undefined,
 *   beforeText: undefined,
 *   after: "export {}\n",
 *   diff: "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,1 @@\n+export {}\n"
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface PreparedFile {
  readonly path: string
  readonly status: "modified" | "created" | "deleted"
  readonly before: Uint8Array | undefined
  readonly beforeText: string | undefined
  readonly after: string | undefined
  readonly diff: string
}

/**
 * A transaction checked and applied in memory, ready for {@link commit}.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { prepare } from "./capabilities/fe/transaction.ts"
 *
 * const diffs = Effect.map(prepare([{ path: "a.txt", content: "new\n" }]), (prepared) =>
 *   prepared.files.map((file) => file.diff).join("")
 * )
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Prepared {
  readonly files: ReadonlyArray<PreparedFile>
  /** Edits, contents, deletions and creations counted against the limit. */
  readonly operations: number
}

/**
 * A committed transaction: the files written, and `rollback`, which puts
 * every one of them back to its exact previous bytes (removing created files,
 * recreating deleted ones), whatever they hold now. Running it again does
 * nothing more.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Committed } from "./capabilities/fe/transaction.ts"
 *
 * const undoIfWorse = (committed: Committed, worse: boolean) => (worse ? committed.rollback : Effect.void)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Committed {
  readonly files: ReadonlyArray<PreparedFile>
  readonly rollback: Effect.Effect<void, RollbackFailed>
}

/**
 * A transaction's failure as a tool's error: a refusal is its reason as the
 * code (`stale`, `exists`, `too_many`…; a stale file says to call `tool`
 * again, which reads the files again), a failed write `commit_failed`, and a
 * workspace refusal the workspace's own code (`path_rejected:…`, `not_found`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { prepare, toToolError } from "./capabilities/fe/transaction.ts"
 *
 * const checked = prepare([{ path: "a.txt", content: "new\n" }]).pipe(
 *   Effect.mapError((error) => toToolError(error, "fe_surgeon"))
 * )
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export const toToolError = (
  error: TransactionRefused | CommitFailed | WorkspaceError,
  tool: string
): Tool.ToolError => {
  switch (error._tag) {
    case "TransactionRefused":
      return new Tool.ToolError({
        message: error.message,
        code: error.reason,
        suggestion:
          error.reason === "stale"
            ? `${error.path ?? "A file"} changed while the change was computed: call ${tool} again (it reads the files again).`
            : error.suggestion
      })
    case "CommitFailed":
      return new Tool.ToolError({ message: error.message, code: "commit_failed", suggestion: error.suggestion })
    default:
      return workspaceToolError(error)
  }
}

// ---- helpers ----

/**
 * The SHA-256 fingerprint of a text (hashed as UTF-8), as {@link prepare}
 * compares it with a file's bytes.
 *
 * **Example**
 *
 * ```ts
 * import { fingerprintOf } from "./capabilities/fe/transaction.ts"
 *
 * fingerprintOf("").sha256 // => "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const fingerprintOf = (text: string | Uint8Array): { readonly sha256: string } => ({
  sha256: NodeCrypto.createHash("sha256").update(text).digest("hex")
})

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The text whose UTF-8 encoding is exactly `bytes`, or undefined (not UTF-8, or NUL bytes). */
const textOf = (bytes: Uint8Array): string | undefined => {
  if (bytes.includes(0)) return undefined
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
  return sameBytes(Buffer.from(text, "utf8"), bytes) ? text : undefined
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const quoted = (path: string) => `"${path.replace(/[\\"]/g, "\\$&")}"`

/** The patch that deletes a file holding exactly `text` (applyPatch checks it still does). */
const deletionPatch = (path: string, text: string): string => {
  const header = `diff --git ${quoted(`a/${path}`)} ${quoted(`b/${path}`)}\ndeleted file mode 100644\n`
  if (text === "") return header
  const lines = text.split(/(?<=\n)/)
  const body = lines.map((line) => (line.endsWith("\n") ? `-${line}` : `-${line}\n\\ No newline at end of file\n`))
  return `${header}--- ${quoted(`a/${path}`)}\n+++ /dev/null\n@@ -1,${lines.length} +0,0 @@\n${body.join("")}`
}

// ---- the diff ----

const splitLines = (text: string): Array<string> => (text === "" ? [] : text.split(/(?<=\n)/))

/** The longest common subsequence is computed on at most this many cells; beyond, the middle is replaced whole. */
const maxDiffCells = 4_000_000

type DiffLine = { readonly kind: " " | "-" | "+"; readonly text: string }

const lineScript = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<DiffLine> => {
  let prefix = 0
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++
  const x = a.slice(prefix, a.length - suffix)
  const y = b.slice(prefix, b.length - suffix)
  const middle: Array<DiffLine> = []
  if (x.length * y.length > maxDiffCells) {
    for (const text of x) middle.push({ kind: "-", text })
    for (const text of y) middle.push({ kind: "+", text })
  } else {
    const n = x.length
    const m = y.length
    // lcs[i * (m + 1) + j]: the LCS length of x[i..] and y[j..].
    const lcs = new Uint32Array((n + 1) * (m + 1))
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] =
          x[i] === y[j]
            ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
            : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) {
        middle.push({ kind: " ", text: x[i++]! })
        j++
      } else if (j < m && (i === n || lcs[i * (m + 1) + j + 1]! > lcs[(i + 1) * (m + 1) + j]!)) {
        middle.push({ kind: "+", text: y[j++]! })
      } else middle.push({ kind: "-", text: x[i++]! })
    }
  }
  return [
    ...a.slice(0, prefix).map((text) => ({ kind: " " as const, text })),
    ...middle,
    ...a.slice(a.length - suffix).map((text) => ({ kind: " " as const, text }))
  ]
}

/**
 * The most characters of unified diffs a tool's answer carries by default
 * (see {@link boundedDiffs}).
 *
 * @category constants
 * @since 0.4.0
 */
export const maxDiffChars = 60_000

/**
 * The files of a transaction with their unified diffs, as many whole diffs
 * as fit in `maxChars` (in order); the others with `diff: ""` and
 * `diffOmitted: true`, counted in `omitted`. So a change of hundreds of files
 * still gets an answer (that it was applied, and which files) instead of one
 * too large to send.
 *
 * **Example**
 *
 * ```ts
 * import { boundedDiffs } from "./capabilities/fe/transaction.ts"
 *
 * declare const files: Parameters<typeof boundedDiffs>[0]
 * const { files: shown, omitted } = boundedDiffs(files, 10_000)
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const boundedDiffs = (
  files: ReadonlyArray<Pick<PreparedFile, "path" | "status" | "diff">>,
  maxChars: number = maxDiffChars
): {
  readonly files: ReadonlyArray<{
    readonly path: string
    readonly status: PreparedFile["status"]
    readonly diff: string
    readonly diffOmitted?: true
  }>
  readonly omitted: number
} => {
  let left = maxChars
  let omitted = 0
  const shown = files.map((file) => {
    if (file.diff.length <= left) {
      left -= file.diff.length
      return { path: file.path, status: file.status, diff: file.diff }
    }
    omitted++
    left = 0
    return { path: file.path, status: file.status, diff: "", diffOmitted: true as const }
  })
  return { files: shown, omitted }
}

/**
 * Where each line of `before` is in `after`: for the 0-based line `i` of
 * `before`, the 0-based line of `after` that holds it unchanged, or
 * `undefined` when it was changed or deleted (lines matched by the longest
 * common subsequence, split at `\n`; beyond 4 million compared cells only the
 * common beginning and end are matched). For edits made on the lines of an
 * earlier version of a text.
 *
 * **Example**
 *
 * ```ts
 * import { lineMap } from "./capabilities/fe/transaction.ts"
 *
 * lineMap("a\nb\nc\n", "a\nx\nc\n") // => [0, undefined, 2, 3]
 * lineMap("a\nb\n", "new\na\nb\n") // => [1, 2, 3]
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const lineMap = (before: string, after: string): Array<number | undefined> => {
  // Split at every \n so the last (possibly empty) line is mapped too.
  const script = lineScript(before.split("\n"), after.split("\n"))
  const map: Array<number | undefined> = []
  let next = 0
  for (const line of script) {
    if (line.kind === " ") map.push(next++)
    else if (line.kind === "-") map.push(undefined)
    else next++
  }
  return map
}

/**
 * A unified diff (as `diff -u` writes it, with `a/` and `b/` prefixes and
 * `/dev/null` for a missing side) from `before` to `after`, with three lines
 * of context; `""` when they are equal. Lines end at `\n` (a `\r` stays part
 * of its line); a last line without a line break is followed by
 * `\ No newline at end of file`. The workspace's `applyPatch` applies it.
 *
 * **Example**
 *
 * ```ts
 * import { unifiedDiff } from "./capabilities/fe/transaction.ts"
 *
 * unifiedDiff("a.txt", "one\ntwo\n", "one\n2\n")
 * // => "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const unifiedDiff = (
  path: string,
  before: string | undefined,
  after: string | undefined,
  context = 3
): string => {
  if (before === after) return ""
  const script = lineScript(splitLines(before ?? ""), splitLines(after ?? ""))
  const changes = script.flatMap((line, index) => (line.kind === " " ? [] : [index]))
  if (changes.length === 0) return ""
  const old = before === undefined ? "/dev/null" : `a/${path}`
  const neu = after === undefined ? "/dev/null" : `b/${path}`
  let out = `--- ${old}\n+++ ${neu}\n`
  // Old and new line numbers before each script entry.
  const oldBefore: Array<number> = []
  const newBefore: Array<number> = []
  let o = 0
  let n = 0
  for (const line of script) {
    oldBefore.push(o)
    newBefore.push(n)
    if (line.kind !== "+") o++
    if (line.kind !== "-") n++
  }
  let k = 0
  while (k < changes.length) {
    const first = changes[k]!
    let last = first
    while (k + 1 < changes.length && changes[k + 1]! - last <= 2 * context + 1) last = changes[++k]!
    k++
    const from = Math.max(0, first - context)
    const to = Math.min(script.length, last + context + 1)
    const lines = script.slice(from, to)
    const oldCount = lines.filter((line) => line.kind !== "+").length
    const newCount = lines.filter((line) => line.kind !== "-").length
    const oldStart = oldCount === 0 ? oldBefore[from]! : oldBefore[from]! + 1
    const newStart = newCount === 0 ? newBefore[from]! : newBefore[from]! + 1
    out += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`
    for (const line of lines) {
      out += line.text.endsWith("\n")
        ? `${line.kind}${line.text}`
        : `${line.kind}${line.text}\n\\ No newline at end of file\n`
    }
  }
  return out
}

// ---- prepare ----

const refuse = (reason: RefusalReason, path: string | undefined, message: string, suggestion: string) =>
  Effect.fail(
    new TransactionRefused({ reason, ...(path === undefined ? {} : { path }), message, suggestion: suggestion })
  )

const nothingWritten = "Nothing was written."

const operationsOf = (change: FileChange): number => ("edits" in change ? Math.max(1, change.edits.length) : 1)

const range = (edit: TextEdit) => `[${edit.start}, ${edit.end})`

/** The edits checked (whole numbers, in bounds, sorted, apart) and applied to `text`. */
const applyEdits = (path: string, text: string, edits: ReadonlyArray<TextEdit>) =>
  Effect.gen(function* () {
    let previous: TextEdit | undefined
    for (const edit of edits) {
      if (
        !Number.isInteger(edit.start) ||
        !Number.isInteger(edit.end) ||
        edit.start < 0 ||
        edit.end < edit.start ||
        edit.end > text.length
      ) {
        return yield* refuse(
          "out_of_bounds",
          path,
          `The edit ${range(edit)} of ${path} is not a range of its text (0 to ${text.length} UTF-16 code units, ` +
            `start ≤ end). ${nothingWritten}`,
          `Read ${path} again and compute the offsets as JavaScript string indexes into its current text.`
        )
      }
      if (previous !== undefined && edit.start < previous.start) {
        return yield* refuse(
          "unsorted_edits",
          path,
          `The edits of ${path} are not sorted: ${range(edit)} comes after ${range(previous)}. ${nothingWritten}`,
          "Send each file's edits sorted by start."
        )
      }
      if (previous !== undefined && edit.start < previous.end) {
        return yield* refuse(
          "overlapping_edits",
          path,
          `The edits ${range(previous)} and ${range(edit)} of ${path} overlap. ${nothingWritten}`,
          "Merge the two edits into one, or make them cover separate ranges."
        )
      }
      previous = edit
    }
    let out = ""
    let at = 0
    for (const edit of edits) {
      out += text.slice(at, edit.start) + edit.text
      at = edit.end
    }
    out += text.slice(at)
    if (loneSurrogate.test(out)) {
      return yield* refuse(
        "split_character",
        path,
        `The edits of ${path} leave half of a UTF-16 surrogate pair (an edit cuts a character in two, or its text ` +
          `has a lone surrogate). ${nothingWritten}`,
        "Make every edit start and end between whole characters (an emoji or other astral character takes 2 offsets)."
      )
    }
    return out
  })

/** The exact bytes and text of an existing file, refusing what cannot be restored byte for byte. */
const readExact = (workspace: Workspace["Service"], path: string) =>
  Effect.gen(function* () {
    const read = yield* workspace.readBytes(path)
    if (read.truncated) {
      return yield* refuse(
        "too_large",
        path,
        `${path} is larger than the workspace reads at once (${read.bytes.length} of ${read.size} bytes). ${nothingWritten}`,
        "Leave this file out of the transaction."
      )
    }
    const text = textOf(read.bytes)
    if (text === undefined) {
      return yield* refuse(
        "not_text",
        path,
        `${path} is not UTF-8 text (invalid UTF-8 or NUL bytes); the transaction only changes text files, whose ` +
          `bytes it can restore exactly. ${nothingWritten}`,
        "Leave this file out of the transaction."
      )
    }
    return { bytes: new Uint8Array(read.bytes), text }
  })

/**
 * Checks a transaction and applies it in memory, writing nothing: every
 * path must be allowed by the workspace (its own errors otherwise: rejected,
 * denied, not found, a directory), each file changed at most once, existing
 * and UTF-8 text (or missing, for `create`), unchanged since `expected`,
 * its edits in bounds, sorted and not overlapping, and all of it at most
 * `maxOperations` operations (default 500). Returns each file's exact bytes,
 * new text and unified diff.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { commit, prepare } from "./capabilities/fe/transaction.ts"
 *
 * const renameAndAdd = Effect.gen(function* () {
 *   const prepared = yield* prepare([
 *     { path: "src/a.ts", edits: [{ start: 13, end: 16, text: "total" }] },
 *     { path: "src/b.ts", create: "export const b = 2\n" }
 *   ])
 *   return yield* commit(prepared)
 * })
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const prepare = Effect.fnUntraced(function* (
  changes: ReadonlyArray<FileChange>,
  options: { readonly maxOperations?: number | undefined } = {}
): Effect.fn.Return<Prepared, TransactionRefused | WorkspaceError, Workspace> {
  const maxOperations = options.maxOperations ?? defaultMaxOperations
  const operations = changes.reduce((sum, change) => sum + operationsOf(change), 0)
  if (operations > maxOperations) {
    return yield* refuse(
      "too_many",
      undefined,
      `The transaction has ${operations} operations (edits, contents, deletions, creations); at most ` +
        `${maxOperations} are taken. ${nothingWritten}`,
      "Split it into several transactions."
    )
  }
  const workspace = yield* Workspace
  const seen = new Map<string, string>()
  const files: Array<PreparedFile> = []
  for (const change of changes) {
    const resolved = yield* workspace.resolve(change.path)
    const path = resolved.relative
    if (path === "") {
      return yield* refuse(
        "root",
        change.path,
        `${change.path} is the workspace root. ${nothingWritten}`,
        "Name a file."
      )
    }
    const earlier = seen.get(path)
    if (earlier !== undefined) {
      return yield* refuse(
        "duplicate_path",
        path,
        `${change.path} and ${earlier} are the same file, changed twice. ${nothingWritten}`,
        "Send one change per file (put all of a file's edits in one change)."
      )
    }
    seen.set(path, change.path)
    if ("create" in change) {
      if (resolved.exists) {
        return yield* refuse(
          "exists",
          path,
          `${path} already exists; create is for new files. ${nothingWritten}`,
          `Read ${path} and send its new text as content, or edits.`
        )
      }
      if (loneSurrogate.test(change.create)) {
        return yield* refuse(
          "split_character",
          path,
          `The text for ${path} has half of a UTF-16 surrogate pair. ${nothingWritten}`,
          "Send well-formed text."
        )
      }
      files.push({
        path,
        status: "created",
        before: undefined,
        beforeText: undefined,
        after: change.create,
        diff: unifiedDiff(path, undefined, change.create)
      })
      continue
    }
    const stat = change.expected !== undefined && "size" in change.expected ? yield* workspace.stat(path) : undefined
    const current = yield* readExact(workspace, path)
    const fingerprint = change.expected
    if (
      fingerprint !== undefined &&
      ("size" in fingerprint
        ? stat!.size !== fingerprint.size || stat!.modifiedMs !== fingerprint.modifiedMs
        : fingerprintOf(current.bytes).sha256 !== fingerprint.sha256.toLowerCase())
    ) {
      return yield* refuse(
        "stale",
        path,
        `${path} changed since it was read (it no longer matches the expected ` +
          `${"size" in fingerprint ? "size and modification time" : "sha256"}). ${nothingWritten}`,
        `Read ${path} again and rebuild the change from its current text.`
      )
    }
    const after =
      "delete" in change
        ? undefined
        : "content" in change
          ? change.content
          : yield* applyEdits(path, current.text, change.edits)
    if (after !== undefined && "content" in change && loneSurrogate.test(after)) {
      return yield* refuse(
        "split_character",
        path,
        `The text for ${path} has half of a UTF-16 surrogate pair. ${nothingWritten}`,
        "Send well-formed text."
      )
    }
    files.push({
      path,
      status: after === undefined ? "deleted" : "modified",
      before: current.bytes,
      beforeText: current.text,
      after,
      diff: unifiedDiff(path, current.text, after)
    })
  }
  return { files, operations }
})

// ---- commit and rollback ----

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

const causeMessage = (cause: Cause.Cause<unknown>): string => {
  const reason = cause.reasons[0]
  if (reason === undefined || reason._tag === "Interrupt") return "interrupted"
  return describe(reason._tag === "Fail" ? reason.error : reason.defect)
}

const isNotFound = (cause: Cause.Cause<WorkspaceError>): boolean =>
  cause.reasons.some((reason) => reason._tag === "Fail" && reason.error._tag === "NotFound")

/**
 * Puts one file back to its bytes before the transaction (absent for a created file); nothing when it already is.
 * With `onlyIfOurs` (a rollback after the commit), a file that no longer holds what the transaction wrote was
 * changed since by someone else: it is left alone and reported, never overwritten.
 */
const restore = (workspace: Workspace["Service"], file: PreparedFile, onlyIfOurs = false) =>
  Effect.gen(function* () {
    const current = yield* Effect.exit(workspace.readBytes(file.path))
    const missing = Exit.isFailure(current) && isNotFound(current.cause)
    if (Exit.isFailure(current) && !missing) return yield* Effect.failCause(current.cause)
    const found: BytesResult | undefined = Exit.isSuccess(current) ? current.value : undefined
    if (onlyIfOurs) {
      const ours =
        file.after === undefined
          ? found === undefined
          : found !== undefined && !found.truncated && sameBytes(found.bytes, new TextEncoder().encode(file.after))
      const alreadyBack =
        file.before === undefined
          ? found === undefined
          : found !== undefined && !found.truncated && sameBytes(found.bytes, file.before)
      if (alreadyBack) return
      if (!ours) {
        return yield* Effect.fail(
          new Error(`${file.path} was changed after the transaction wrote it; it was left as it is`)
        )
      }
    }
    if (file.before === undefined) {
      if (found === undefined) return
      const text = found.truncated ? undefined : textOf(found.bytes)
      if (text === undefined) {
        return yield* Effect.fail(new Error(`${file.path} no longer holds text the transaction can delete`))
      }
      yield* workspace.applyPatch(deletionPatch(file.path, text))
      return
    }
    if (found !== undefined && !found.truncated && sameBytes(found.bytes, file.before)) return
    yield* workspace.write(file.path, file.beforeText!)
  })

/** Restores the files in reverse order, trying every one; returns those that could not be, with why. */
const restoreAll = (workspace: Workspace["Service"], files: ReadonlyArray<PreparedFile>, onlyIfOurs = false) =>
  Effect.gen(function* () {
    const failed: Array<{ readonly path: string; readonly why: string }> = []
    for (const file of [...files].reverse()) {
      const outcome = yield* Effect.exit(restore(workspace, file, onlyIfOurs))
      if (Exit.isFailure(outcome)) failed.push({ path: file.path, why: causeMessage(outcome.cause) })
    }
    return failed
  })

/** Checks the file still holds what `prepare` read (or is still missing), then writes or deletes it. */
const writeOne = (workspace: Workspace["Service"], file: PreparedFile) =>
  Effect.gen(function* () {
    const current = yield* Effect.exit(workspace.readBytes(file.path))
    const missing = Exit.isFailure(current) && isNotFound(current.cause)
    const unchanged =
      file.before === undefined
        ? missing
        : Exit.isSuccess(current) && !current.value.truncated && sameBytes(current.value.bytes, file.before)
    if (!unchanged) {
      const why = Exit.isFailure(current) && !missing ? causeMessage(current.cause) : ""
      return {
        touched: false,
        error: `${file.path} changed since the transaction was prepared${why ? ` (${why})` : ""}`
      }
    }
    const outcome = yield* Effect.exit(
      file.after === undefined
        ? Effect.asVoid(workspace.applyPatch(deletionPatch(file.path, file.beforeText!)))
        : Effect.asVoid(workspace.write(file.path, file.after))
    )
    return { touched: true, error: Exit.isSuccess(outcome) ? undefined : causeMessage(outcome.cause) }
  })

/**
 * Writes a prepared transaction, file by file in order: each file is first
 * checked to still hold the bytes `prepare` read (or to still be missing),
 * then written, created or deleted. Should anything fail, every file already
 * written — and the one being written — is put back to its exact previous
 * bytes (created files removed, deleted files recreated) and the commit fails
 * with {@link CommitFailed}, saying what failed and what was restored.
 * Returns the committed transaction with its `rollback`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { commit, prepare } from "./capabilities/fe/transaction.ts"
 *
 * const tryAndUndo = Effect.gen(function* () {
 *   const committed = yield* commit(yield* prepare([{ path: "a.txt", content: "new\n" }]))
 *   yield* committed.rollback // a.txt has its old bytes again
 * })
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const commit = Effect.fnUntraced(function* (
  prepared: Prepared
): Effect.fn.Return<Committed, CommitFailed, Workspace> {
  const workspace = yield* Workspace
  // Uninterruptible: a cancellation between two writes (or during one: the workspace truncates, then writes) would
  // leave the files half changed; the writes are bounded (the operation limit, the workspace's file size).
  return yield* Effect.uninterruptible(writeAll(workspace, prepared))
})

const writeAll = (workspace: Workspace["Service"], prepared: Prepared): Effect.Effect<Committed, CommitFailed> =>
  Effect.gen(function* () {
    const written: Array<PreparedFile> = []
    for (const file of prepared.files) {
      const { error, touched } = yield* writeOne(workspace, file)
      if (error === undefined) {
        written.push(file)
        continue
      }
      const toRestore = touched ? [...written, file] : written
      const failed = yield* restoreAll(workspace, toRestore)
      const notRestored = failed.map((entry) => entry.path)
      const restored = toRestore.map((entry) => entry.path).filter((path) => !notRestored.includes(path))
      const list = (paths: ReadonlyArray<string>) => (paths.length === 0 ? "none" : paths.join(", "))
      return yield* new CommitFailed({
        path: file.path,
        restored,
        notRestored,
        message:
          `Writing ${file.path} failed: ${error}. ` +
          (failed.length === 0
            ? `Everything was restored to its previous bytes (files restored: ${list(restored)}).`
            : `Restored: ${list(restored)}. NOT restored: ${failed.map((entry) => `${entry.path} (${entry.why})`).join(", ")}.`),
        suggestion:
          failed.length === 0
            ? "Fix the cause and prepare the transaction again from the files' current text."
            : `Restore ${list(notRestored)} by hand (git checkout, or the transaction's diffs), then prepare it again.`
      })
    }
    const rollback = Effect.gen(function* () {
      const failed = yield* restoreAll(workspace, prepared.files, true)
      if (failed.length === 0) return
      return yield* new RollbackFailed({
        notRestored: failed.map((entry) => entry.path),
        message: `Could not restore: ${failed.map((entry) => `${entry.path} (${entry.why})`).join(", ")}. The other files were restored.`,
        suggestion: "Restore these files by hand (git checkout, or the transaction's diffs)."
      })
    })
    return { files: prepared.files, rollback }
  })
