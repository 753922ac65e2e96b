/**
 * The workspace: files under one root directory (`WorkspaceRoot`), and
 * nothing outside it. Every path a caller gives — usually a language model —
 * is checked before any file is touched: it must name something under the
 * root, after symlinks are resolved, that is not a secret (the deny list) and
 * not a device, FIFO or socket. A rejected path fails with a typed
 * {@link PathRejected} carrying a reason code and a suggestion of what to do
 * instead.
 *
 * The service is an interface; `layers/NodeWorkspace.ts` implements it on the
 * local file system. The path syntax checks ({@link checkPath}) and the deny
 * list matching ({@link isDenied}) are pure and live here, so every
 * implementation applies the same rules. See `docs/workspace.md`.
 *
 * `write`, `edit` and `applyPatch` change files: a capability exposing them
 * must annotate its tools as destructive so the confirmation gate applies.
 * `search` and `listFiles` also skip what `.gitignore` files ignore.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Workspace } from "effect-mcp-runtime/Workspace"
 *
 * const readme = Effect.flatMap(Effect.service(Workspace), (workspace) => workspace.read("README.md"))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/**
 * Why a path was rejected.
 *
 * **Example**
 *
 * ```ts
 * import { RejectionReason } from "effect-mcp-runtime/Workspace"
 *
 * RejectionReason.literals.includes("escapes_root") // => true
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const RejectionReason = Schema.Literals([
  "nul_byte",
  "control_character",
  "too_long",
  "url",
  "drive_letter",
  "backslash",
  "home_directory",
  "percent_encoded",
  "outside_root",
  "escapes_root",
  "symlink_escape",
  "dangling_symlink",
  "symlink_loop",
  "special_file",
  "denied"
])

/**
 * @category models
 * @since 0.1.0
 */
export type RejectionReason = typeof RejectionReason.Type

/**
 * A path that the workspace refuses to touch, with the reason and a
 * suggestion of what to do instead.
 *
 * **Example**
 *
 * ```ts
 * import { PathRejected } from "effect-mcp-runtime/Workspace"
 *
 * new PathRejected({
 *   path: "../etc/passwd",
 *   reason: "escapes_root",
 *   message: "The path ../etc/passwd leaves the workspace root.",
 *   suggestion: "Use a path relative to the workspace root; call workspace_list to see the files."
 * })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class PathRejected extends Schema.TaggedError<PathRejected>()("PathRejected", {
  path: Schema.String,
  reason: RejectionReason,
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * Nothing exists at the path.
 *
 * **Example**
 *
 * ```ts
 * import { NotFound } from "effect-mcp-runtime/Workspace"
 *
 * new NotFound({ path: "notes.md", message: "No file or directory at notes.md.", suggestion: "Call workspace_list." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  path: Schema.String,
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * The path names a directory where a file was expected, or the reverse.
 *
 * **Example**
 *
 * ```ts
 * import { WrongKind } from "effect-mcp-runtime/Workspace"
 *
 * new WrongKind({ path: "src", expected: "file", message: "src is a directory.", suggestion: "Call workspace_list." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class WrongKind extends Schema.TaggedError<WrongKind>()("WrongKind", {
  path: Schema.String,
  expected: Schema.Literals(["file", "directory"]),
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * An argument other than the path is unusable: a negative offset, a limit
 * out of range, a cursor this listing did not hand out.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidArgument } from "effect-mcp-runtime/Workspace"
 *
 * new InvalidArgument({ path: "a.txt", message: "offset must be ≥ 0", suggestion: "Pass offset 0 or more." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  path: Schema.String,
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * An `edit` whose `oldText` occurs zero times or more than once in the file,
 * or a patch hunk that does not match the file (`occurrences` 0; the message
 * names the file and the hunk).
 *
 * **Example**
 *
 * ```ts
 * import { EditMismatch } from "effect-mcp-runtime/Workspace"
 *
 * new EditMismatch({ path: "a.ts", occurrences: 0, message: "oldText not found", suggestion: "Call workspace_read." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class EditMismatch extends Schema.TaggedError<EditMismatch>()("EditMismatch", {
  path: Schema.String,
  occurrences: Schema.Number,
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * The operating system refused or failed an operation (permissions, disk
 * full, …).
 *
 * **Example**
 *
 * ```ts
 * import { IoFailure } from "effect-mcp-runtime/Workspace"
 *
 * new IoFailure({ path: "a.txt", operation: "read", message: "EACCES", suggestion: "Check permissions." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class IoFailure extends Schema.TaggedError<IoFailure>()("IoFailure", {
  path: Schema.String,
  operation: Schema.String,
  message: Schema.String,
  suggestion: Schema.String
}) {}

/**
 * Every way a workspace operation can fail.
 *
 * @category errors
 * @since 0.1.0
 */
export type WorkspaceError = PathRejected | NotFound | WrongKind | InvalidArgument | EditMismatch | IoFailure

/**
 * A path resolved under the root.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resolved {
  /** The absolute real path (symlinks resolved; for a missing path, its deepest existing ancestor's). */
  readonly absolute: string
  /** The same, relative to the root, with `/` separators; `""` is the root itself. */
  readonly relative: string
  /** Whether something exists there. */
  readonly exists: boolean
}

/**
 * What a file or directory is.
 *
 * @category models
 * @since 0.1.0
 */
export type EntryType = "file" | "directory" | "symlink" | "other"

/**
 * The result of `stat`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stat {
  readonly path: string
  readonly type: "file" | "directory"
  readonly size: number
  /** Last modification, milliseconds since the epoch. */
  readonly modifiedMs: number
}

/**
 * The result of `read`: `content` holds the bytes `[offset, offset + bytesRead)`
 * decoded as UTF-8 (a multi-byte character cut at either end shows as U+FFFD).
 *
 * **Example**
 *
 * ```ts
 * import type { ReadResult } from "effect-mcp-runtime/Workspace"
 *
 * const slice: ReadResult = {
 *   path: "README.md",
 *   content: "works",
 *   offset: 6,
 *   bytesRead: 5,
 *   size: 16,
 *   truncated: true,
 *   nextOffset: 11,
 *   binary: false
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ReadResult {
  readonly path: string
  readonly content: string
  readonly offset: number
  readonly bytesRead: number
  /** The file's size in bytes. */
  readonly size: number
  /** True when the file goes on past what was read. */
  readonly truncated: boolean
  /** Where to continue reading, when truncated. */
  readonly nextOffset?: number | undefined
  /** True when the bytes read contain a NUL byte (probably not text). */
  readonly binary: boolean
}

/**
 * One entry of a listing. Symlinks are reported as such, not followed.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListEntry {
  readonly name: string
  /** Relative to the root, `/`-separated. */
  readonly path: string
  readonly type: EntryType
  readonly size: number
}

/**
 * One page of a listing, ordered by name (UTF-16 code units). Pass
 * `nextCursor` back to get the next page.
 *
 * **Example**
 *
 * ```ts
 * import type { ListResult } from "effect-mcp-runtime/Workspace"
 *
 * const page: ListResult = {
 *   path: "src",
 *   entries: [{ name: "a.ts", path: "src/a.ts", type: "file", size: 19 }],
 *   nextCursor: "djE6YS50cw"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface ListResult {
  readonly path: string
  readonly entries: ReadonlyArray<ListEntry>
  readonly nextCursor?: string | undefined
}

/**
 * The result of `write` and `edit`.
 *
 * @category models
 * @since 0.1.0
 */
export interface WriteResult {
  readonly path: string
  readonly bytesWritten: number
  /** True when the file did not exist before. */
  readonly created: boolean
}

/**
 * The result of `readBytes`: the bytes `[offset, offset + bytes.length)` of
 * a file, unchanged.
 *
 * **Example**
 *
 * ```ts
 * import type { BytesResult } from "effect-mcp-runtime/Workspace"
 *
 * const logo: BytesResult = { path: "logo.png", bytes: new Uint8Array([137, 80]), offset: 0, size: 2, truncated: false }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface BytesResult {
  readonly path: string
  readonly bytes: Uint8Array
  readonly offset: number
  /** The file's size in bytes. */
  readonly size: number
  /** True when the file goes on past the bytes read. */
  readonly truncated: boolean
  /** Where to continue reading, when truncated. */
  readonly nextOffset?: number | undefined
}

/**
 * One file of a recursive listing (`listFiles`).
 *
 * @category models
 * @since 0.1.0
 */
export interface FileEntry {
  /** Relative to the root, `/`-separated. */
  readonly path: string
  readonly size: number
  /** Last modification, in milliseconds since the epoch (from the walk's own `lstat`). Since 0.4.0. */
  readonly modifiedMs: number
}

/**
 * One page of a recursive listing: the regular files under a directory, in
 * walk order (depth first, each directory's entries by name), without the
 * denied, the `.gitignore`d, symlinks and special files.
 *
 * **Example**
 *
 * ```ts
 * import type { FilesResult } from "effect-mcp-runtime/Workspace"
 *
 * const page: FilesResult = {
 *   path: "",
 *   files: [{ path: "src/a.ts", size: 19, modifiedMs: 1764000000000 }],
 *   nextCursor: "dzE6c3JjL2EudHM"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FilesResult {
  readonly path: string
  readonly files: ReadonlyArray<FileEntry>
  readonly nextCursor?: string | undefined
}

/**
 * What `search` looks for, and where.
 *
 * **Example**
 *
 * ```ts
 * import type { SearchOptions } from "effect-mcp-runtime/Workspace"
 *
 * const todos: SearchOptions = { query: "TODO\\((\\w+)\\)", regex: true, include: "**\/*.{ts,tsx}", limit: 50 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchOptions {
  /** The text to find, or a JavaScript regular expression when `regex` is true. */
  readonly query: string
  /** Take `query` as a regular expression (default false: literal text). */
  readonly regex?: boolean | undefined
  /** Match case exactly (default true). */
  readonly caseSensitive?: boolean | undefined
  /** A directory to search under, or one file (default: the root). */
  readonly path?: string | undefined
  /**
   * Only files whose path matches this glob: `*`, `?`, `[…]`, `**`, `{a,b}`.
   * Without a `/` it matches the file name at any depth (`*.ts`); with one,
   * the path relative to the root or to `path` (`src/**\/*.ts`).
   */
  readonly include?: string | undefined
  /** Search `.gitignore`d files too (default false). */
  readonly includeIgnored?: boolean | undefined
  /** At most this many matching lines (default 100, at most 1000). */
  readonly limit?: number | undefined
  /** The `nextCursor` of the previous page of the same search. */
  readonly cursor?: string | undefined
}

/**
 * One matching line.
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchMatch {
  /** Relative to the root, `/`-separated. */
  readonly path: string
  /** 1-based. */
  readonly line: number
  /** 1-based, in UTF-16 code units, of the first match on the line. */
  readonly column: number
  /** The line (without its line break); a long one is cut around the match, with `…` where it was cut. */
  readonly text: string
}

/**
 * The result of `search`. `truncated` means there may be more: the `limit`
 * was reached (`stoppedBy: "limit"`), the byte (or file) budget ran out
 * (`"scan_budget"`), or the time budget did (`"time_budget"`); in each case
 * `nextCursor` continues exactly where this page stopped and `lastPath`
 * names the last file it reached. A search is never cut short silently.
 *
 * **Example**
 *
 * ```ts
 * import type { SearchResult } from "effect-mcp-runtime/Workspace"
 *
 * const result: SearchResult = {
 *   matches: [{ path: "src/a.ts", line: 3, column: 14, text: "export const a = 1" }],
 *   truncated: false,
 *   filesScanned: 42,
 *   skipped: { binary: 1, tooLarge: 0 }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface SearchResult {
  readonly matches: ReadonlyArray<SearchMatch>
  readonly truncated: boolean
  readonly stoppedBy?: "limit" | "scan_budget" | "time_budget" | undefined
  readonly nextCursor?: string | undefined
  /** Files read by this call. */
  readonly filesScanned: number
  /**
   * Bytes read by this call.
   *
   * @since 0.5.0
   */
  readonly bytesScanned?: number | undefined
  /**
   * When truncated: the last file this call reached (searched up to the
   * cursor's position); the next page starts there.
   *
   * @since 0.5.0
   */
  readonly lastPath?: string | undefined
  /**
   * When the time budget ran out while a file was still being matched: that
   * file. With a regular expression this usually means it backtracks
   * catastrophically on the file's lines: simplify it.
   *
   * @since 0.5.0
   */
  readonly pendingPath?: string | undefined
  /** Files passed over: containing NUL bytes, or larger than the per-file cap. */
  readonly skipped: { readonly binary: number; readonly tooLarge: number }
}

/**
 * What `applyPatch` did to one file.
 *
 * @category models
 * @since 0.1.0
 */
export interface PatchedFile {
  /** The file's path after the patch, relative to the root. */
  readonly path: string
  readonly status: "modified" | "created" | "deleted" | "renamed"
  /** For a rename, where the file was. */
  readonly from?: string | undefined
  readonly hunks: number
  readonly linesAdded: number
  readonly linesRemoved: number
}

/**
 * The result of `applyPatch`: every file it changed, in patch order.
 *
 * **Example**
 *
 * ```ts
 * import type { PatchResult } from "effect-mcp-runtime/Workspace"
 *
 * const result: PatchResult = {
 *   files: [{ path: "src/a.ts", status: "modified", hunks: 2, linesAdded: 3, linesRemoved: 1 }]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface PatchResult {
  readonly files: ReadonlyArray<PatchedFile>
}

/**
 * The workspace service. Paths are relative to the root (`/`-separated); an
 * absolute path is accepted only when it lies under the root.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Workspace } from "effect-mcp-runtime/Workspace"
 *
 * const firstPage = Effect.gen(function* () {
 *   const workspace = yield* Workspace
 *   const page = yield* workspace.list("src", { limit: 50 })
 *   return page.entries.map((entry) => entry.path)
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Workspace extends Context.Service<
  Workspace,
  {
    /** The root's absolute real path. */
    readonly root: string
    /** Checks a path and resolves it under the root, without reading anything. */
    readonly resolve: (path: string) => Effect.Effect<Resolved, WorkspaceError>
    readonly stat: (path: string) => Effect.Effect<Stat, WorkspaceError>
    /** Reads at most `length` bytes (default and ceiling: the layer's `maxReadBytes`) from `offset` (default 0). */
    readonly read: (
      path: string,
      options?: { readonly offset?: number | undefined; readonly length?: number | undefined }
    ) => Effect.Effect<ReadResult, WorkspaceError>
    /** Lists a directory, `limit` entries a page (default 100, at most 1000), denied entries left out. */
    readonly list: (
      path: string,
      options?: { readonly cursor?: string | undefined; readonly limit?: number | undefined }
    ) => Effect.Effect<ListResult, WorkspaceError>
    /** Creates or replaces a file (and missing parent directories). Destructive. */
    readonly write: (path: string, content: string) => Effect.Effect<WriteResult, WorkspaceError>
    /** Replaces the one occurrence of `oldText` in a file with `newText`. Destructive. */
    readonly edit: (
      path: string,
      change: { readonly oldText: string; readonly newText: string }
    ) => Effect.Effect<WriteResult, WorkspaceError>
    /** As `read`, but the bytes themselves (for binary files). */
    readonly readBytes: (
      path: string,
      options?: { readonly offset?: number | undefined; readonly length?: number | undefined }
    ) => Effect.Effect<BytesResult, WorkspaceError>
    /**
     * The regular files under a directory, recursively, `limit` a page
     * (default 100, at most 1000): denied, `.gitignore`d, symlinked and
     * special files left out, `.git/` never entered, nor any directory whose
     * name is in `skipDirectories` (e.g. `node_modules` where no
     * `.gitignore` says so). Pass the same `skipDirectories` with a cursor.
     */
    readonly listFiles: (
      path: string,
      options?: {
        readonly cursor?: string | undefined
        readonly limit?: number | undefined
        readonly skipDirectories?: ReadonlyArray<string> | undefined
      }
    ) => Effect.Effect<FilesResult, WorkspaceError>
    /** Finds lines matching text or a regular expression; bounded (see {@link searchLimits}). */
    readonly search: (options: SearchOptions) => Effect.Effect<SearchResult, WorkspaceError>
    /**
     * Applies a unified diff (`git diff`, `diff -u`) to the files it names:
     * every hunk of every file is checked before anything is written.
     * `strip` removes that many leading path components (default: 1 for a
     * git-style patch with `a/` and `b/` prefixes, else 0). Destructive.
     */
    readonly applyPatch: (
      patch: string,
      options?: { readonly strip?: number | undefined }
    ) => Effect.Effect<PatchResult, WorkspaceError>
  }
>()("effect-mcp-runtime/Workspace") {}

/**
 * The deny list used when a layer is given none: secrets and version-control
 * internals. A pattern without `/` matches any single path segment (so
 * `.git/` denies `.git` and everything under it, at any depth); a pattern
 * with `/` inside matches the path from the root and everything under it.
 * `*` and `?` stay within a segment, `**` crosses segments. Matching is
 * case-insensitive, and trailing dots and spaces of a segment are ignored
 * (Windows drops them).
 *
 * **Example**
 *
 * ```ts
 * import { defaultDeny, isDenied } from "effect-mcp-runtime/Workspace"
 *
 * isDenied("config/.env.local", defaultDeny) // => true
 * isDenied("src/main.ts", defaultDeny) // => false
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultDeny: ReadonlyArray<string> = [
  ".env*",
  ".git/",
  ".hg/",
  ".svn/",
  ".ssh/",
  ".aws/",
  ".gnupg/",
  ".docker/",
  ".kube/",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.keystore",
  "*.jks",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".pgpass",
  ".htpasswd"
]

const globToRegExp = (glob: string): string => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        out += ".*"
        i++
        if (glob[i + 1] === "/") i++
      } else out += "[^/]*"
    } else if (c === "?") out += "[^/]"
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
  }
  return out
}

const compiled = new Map<ReadonlyArray<string>, ReadonlyArray<(segments: ReadonlyArray<string>) => boolean>>()

const compile = (patterns: ReadonlyArray<string>) => {
  const cached = compiled.get(patterns)
  if (cached !== undefined) return cached
  const matchers = patterns.map((raw) => {
    const pattern = raw.replace(/\/+$/, "").replace(/^\/+/, "")
    if (!pattern.includes("/")) {
      const re = new RegExp(`^${globToRegExp(pattern)}$`, "i")
      return (segments: ReadonlyArray<string>) => segments.some((segment) => re.test(segment))
    }
    const re = new RegExp(`^${globToRegExp(pattern)}(/.*)?$`, "i")
    return (segments: ReadonlyArray<string>) => re.test(segments.join("/"))
  })
  compiled.set(patterns, matchers)
  return matchers
}

/**
 * Whether a root-relative, `/`-separated path falls under a deny pattern
 * (see {@link defaultDeny} for the pattern syntax).
 *
 * **Example**
 *
 * ```ts
 * import { isDenied } from "effect-mcp-runtime/Workspace"
 *
 * isDenied("sub/.git/HEAD", [".git/"]) // => true
 * isDenied("build/out.js", ["build/**"]) // => true
 * ```
 *
 * @category deny list
 * @since 0.1.0
 */
export const isDenied = (relative: string, patterns: ReadonlyArray<string>): boolean => {
  const segments = relative
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => segment.replace(/[. ]+$/, (tail) => (tail.length === segment.length ? tail : "")))
  if (segments.length === 0) return false
  return compile(patterns).some((matches) => matches(segments))
}

/** The longest path accepted, in UTF-16 code units (Linux's PATH_MAX is 4096 bytes). */
const maxPathLength = 4096
/** The longest segment accepted, in UTF-8 bytes (NAME_MAX). */
const maxSegmentBytes = 255

const listHint = "call workspace_list to see the files"

const reject = (path: string, reason: RejectionReason, message: string, suggestion: string) =>
  Result.fail(new PathRejected({ path, reason, message, suggestion }))

// Decodes %XX sequences byte by byte (never throws); used only to look for encoded tricks.
const percentDecode = (text: string): string =>
  text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))

const encodedDanger = /%(2e|2f|5c|00)/i

/**
 * Checks a path's syntax and normalizes it to a root-relative,
 * `/`-separated form (`""` is the root), without touching the file system.
 * `roots` are the absolute forms of the root an absolute path may start with
 * (the root as configured and its real path). Symlinks, special files and
 * the deny list are checked by the implementation afterwards.
 *
 * Rejected, in this order: NUL bytes; other control characters; paths over
 * 4096 characters or with a segment over 255 bytes; URLs (`file://…`);
 * Windows drive letters (`C:`); backslashes (neither taken as separators nor
 * as literal characters: both readings are ambiguous); `~` (no shell
 * expansion happens here); `%2e`, `%2f`, `%5c` or `%00` at any depth of
 * percent-decoding (paths are never decoded, so these only ever appear in an
 * attack or a confused client); absolute paths outside the roots; `..` that
 * climbs above the root.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import { checkPath } from "effect-mcp-runtime/Workspace"
 *
 * Result.isSuccess(checkPath("src/../README.md", ["/srv/project"])) // => true (normalized to "README.md")
 * Result.isFailure(checkPath("../etc/passwd", ["/srv/project"])) // => true (escapes_root)
 * ```
 *
 * @category validation
 * @since 0.1.0
 */
export const checkPath = (path: string, roots: ReadonlyArray<string>): Result.Result<string, PathRejected> => {
  if (path.includes("\0")) {
    return reject(path, "nul_byte", "The path contains a NUL byte.", `Send the path without it; ${listHint}.`)
  }
  // oxlint-disable-next-line no-control-regex
  if (/[\u0001-\u001f\u007f]/.test(path)) {
    return reject(
      path,
      "control_character",
      "The path contains a control character (a newline, tab, escape, …).",
      `Send the path as plain text; ${listHint}.`
    )
  }
  if (path.length > maxPathLength) {
    return reject(
      path.slice(0, 200) + "…",
      "too_long",
      `The path is longer than ${maxPathLength} characters.`,
      `Use a shorter path; ${listHint}.`
    )
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || /^file:/i.test(path)) {
    return reject(
      path,
      "url",
      "The path is a URL; the workspace takes file paths.",
      "Send the path relative to the workspace root, without a scheme (for file:///root/a.txt send a.txt)."
    )
  }
  if (/^[a-z]:/i.test(path)) {
    return reject(
      path,
      "drive_letter",
      "The path starts with a Windows drive letter; the workspace takes paths relative to its root.",
      `Send the path relative to the workspace root with / separators; ${listHint}.`
    )
  }
  if (path.includes("\\")) {
    return reject(
      path,
      "backslash",
      "The path contains a backslash; the workspace uses / as the only separator.",
      "Write the path with / separators, relative to the workspace root."
    )
  }
  if (path.startsWith("~")) {
    return reject(
      path,
      "home_directory",
      "The path starts with ~; there is no home directory expansion, and the workspace only serves its root.",
      `Send a path relative to the workspace root; ${listHint}.`
    )
  }
  let level = path
  for (let depth = 0; depth < 4 && level.includes("%"); depth++) {
    if (encodedDanger.test(level)) {
      return reject(
        path,
        "percent_encoded",
        "The path contains a percent-encoded dot, slash, backslash or NUL; paths are taken literally, never decoded.",
        "Send the path decoded, relative to the workspace root, without .. segments."
      )
    }
    level = percentDecode(level)
  }
  const segments: Array<string> = []
  let rest = path
  if (path.startsWith("/")) {
    const normalized =
      "/" +
      path
        .split("/")
        .filter((s) => s !== "" && s !== ".")
        .join("/")
    const root = roots.find((r) => normalized === r || normalized.startsWith(r.endsWith("/") ? r : r + "/"))
    if (root === undefined || path.split("/").includes("..")) {
      return reject(
        path,
        "outside_root",
        "The absolute path is not under the workspace root.",
        `Send a path relative to the workspace root; ${listHint}.`
      )
    }
    rest = normalized.slice(root.length)
  }
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (segments.length === 0) {
        return reject(
          path,
          "escapes_root",
          "The path climbs above the workspace root with ..",
          `Use a path inside the workspace root; ${listHint}.`
        )
      }
      segments.pop()
      continue
    }
    if (new TextEncoder().encode(segment).length > maxSegmentBytes) {
      return reject(
        path,
        "too_long",
        `A segment of the path is longer than ${maxSegmentBytes} bytes.`,
        `Use a shorter name; ${listHint}.`
      )
    }
    segments.push(segment)
  }
  return Result.succeed(segments.join("/"))
}

/**
 * The largest read by default: 1 MiB.
 *
 * **Example**
 *
 * ```ts
 * import { defaultMaxReadBytes } from "effect-mcp-runtime/Workspace"
 *
 * defaultMaxReadBytes // => 1048576
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxReadBytes = 1024 * 1024

/**
 * The default and largest page sizes of `list`.
 *
 * **Example**
 *
 * ```ts
 * import { listLimits } from "effect-mcp-runtime/Workspace"
 *
 * listLimits.max // => 1000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const listLimits = { default: 100, max: 1000 } as const

/**
 * The bounds of `search`. A call returns at most `max` matching lines
 * (default `default`); it reads at most `maxBytes` bytes in all (and at most
 * `maxFiles` files) and takes at most `maxMillis` milliseconds (then it stops
 * with a cursor to continue and says how far it got); it skips files over
 * `maxFileBytes` and files with a NUL byte in their first `binaryProbeBytes`;
 * a regular expression is tried on the first `maxLineChars` characters of
 * each line only; each reported line is cut to `maxTextChars` around the
 * match; a query is at most `maxQueryChars` long. Layers may lower the scan
 * budgets.
 *
 * **Example**
 *
 * ```ts
 * import { searchLimits } from "effect-mcp-runtime/Workspace"
 *
 * searchLimits.max // => 1000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const searchLimits = {
  default: 100,
  max: 1000,
  maxFiles: 1_000_000,
  maxBytes: 256 * 1024 * 1024,
  maxMillis: 5_000,
  maxFileBytes: 1024 * 1024,
  binaryProbeBytes: 8000,
  maxLineChars: 4096,
  maxTextChars: 300,
  maxQueryChars: 1000
} as const
