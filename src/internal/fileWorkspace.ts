/**
 * The workspace engine: every `Workspace` operation over a file system with
 * the semantics of `node:fs/promises` (`lstat`, `realpath`, `open` with
 * `O_NOFOLLOW | O_NONBLOCK`, `fstat`). `layers/NodeWorkspace.ts` runs it on
 * the local disk; the test kit's `MemoryWorkspace` on a file system in
 * memory, so both run the very same checks.
 *
 * **How a path is resolved.** `checkPath` (pure, in `src/Workspace.ts`)
 * rejects bad syntax and lexical escapes and normalizes the path; the deny
 * list is checked on it; then the deepest existing ancestor (the path
 * itself when it exists) is resolved with `realpath`, and its real path must
 * be under the root's real path — so a symlink anywhere on the way that
 * leads out is rejected, for writes of new files too. A dangling symlink is
 * rejected (`symlink_escape` when it points outside the root,
 * `dangling_symlink` otherwise: a write would create its target). The deny
 * list is checked again on the real path (a link `notes -> .env` is denied),
 * and an existing path must be a regular file or a directory.
 *
 * **Opening.** Files are opened with `O_NOFOLLOW | O_NONBLOCK` (a symlink
 * swapped in after the check fails the open; a FIFO never blocks), then
 * `fstat` must say regular file, and on Linux `/proc/self/fd/N` must still
 * point under the root. Writes open without `O_TRUNC` and truncate only
 * after these checks. What remains is the race on intermediate directories
 * between the check and the open, which these re-checks detect on Linux.
 *
 * @internal
 */
import { constants, lstatSync, promises as nodeFsPromises } from "node:fs"
import * as nodePath from "node:path"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Gitignore from "./gitignore.ts"
import * as SearchPool from "./searchPool.ts"
import * as SearchScan from "./searchScan.ts"
import * as UnifiedDiff from "./unifiedDiff.ts"
import {
  type BytesResult,
  checkPath,
  defaultDeny,
  defaultMaxReadBytes,
  EditMismatch,
  type FileEntry,
  InvalidArgument,
  IoFailure,
  isDenied,
  listLimits,
  type ListEntry,
  NotFound,
  type PatchedFile,
  PathRejected,
  type Resolved,
  type SearchMatch,
  searchLimits,
  type SearchOptions,
  Workspace,
  type WorkspaceError,
  WrongKind
} from "../Workspace.ts"
import { WorkspaceRoot } from "../WorkspaceRoot.ts"

/**
 * What the workspace needs of a file system: a subset of `node:fs/promises`
 * (the default). The test kit's in-memory workspace gives it a file system
 * in memory, so both run the very same checks.
 *
 * **Example**
 *
 * ```ts
 * import type { FileSystem } from "effect-mcp-runtime/layers/NodeWorkspace"
 *
 * const realpathOnly: Pick<FileSystem, "realpath"> = { realpath: async (path) => path }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface FileSystem {
  readonly realpath: (path: string) => Promise<string>
  readonly stat: (path: string) => Promise<FileStats>
  readonly lstat: (path: string) => Promise<FileStats>
  readonly readlink: (path: string) => Promise<string>
  readonly readdir: {
    (path: string): Promise<Array<string>>
    (path: string, options: { readonly withFileTypes: true }): Promise<Array<DirectoryEntry>>
  }
  readonly mkdir: (path: string, options: { readonly recursive: true }) => Promise<unknown>
  readonly unlink: (path: string) => Promise<void>
  readonly open: (path: string, flags: number, mode?: number) => Promise<FileHandle>
}

/**
 * The parts of `fs.Stats` the workspace reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileStats {
  readonly isFile: () => boolean
  readonly isDirectory: () => boolean
  readonly isSymbolicLink: () => boolean
  readonly size: number
  readonly mtimeMs: number
}

/**
 * The parts of `fs.Dirent` the workspace reads.
 *
 * @category models
 * @since 0.1.0
 */
export interface DirectoryEntry {
  readonly name: string
  readonly isFile: () => boolean
  readonly isDirectory: () => boolean
}

/**
 * The parts of `fs.promises.FileHandle` the workspace uses.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileHandle {
  readonly fd: number
  readonly close: () => Promise<void>
  readonly read: (
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number
  ) => Promise<{ readonly bytesRead: number }>
  readonly readFile: {
    (): Promise<Buffer>
    (encoding: "utf8"): Promise<string>
  }
  readonly stat: () => Promise<FileStats>
  readonly truncate: (length: number) => Promise<void>
  readonly writeFile: (data: Uint8Array | string) => Promise<void>
}

/**
 * The options of the Node workspace.
 *
 * **Example**
 *
 * ```ts
 * import { defaultDeny } from "effect-mcp-runtime/Workspace"
 * import type { Options } from "effect-mcp-runtime/layers/NodeWorkspace"
 *
 * // keep the defaults, and also hide the build output
 * const options: Options = { deny: [...defaultDeny, "dist/"], maxReadBytes: 256 * 1024 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The root directory (default: the `WorkspaceRoot` reference). */
  readonly root?: string | undefined
  /** The deny patterns; replaces `Workspace.defaultDeny` (spread it to extend it). */
  readonly deny?: ReadonlyArray<string> | undefined
  /** The most bytes one `read` returns (default 1 MiB); also the largest file `applyPatch` changes. */
  readonly maxReadBytes?: number | undefined
  /** The most files one `search` reads (default `searchLimits.maxFiles`, 1 000 000). */
  readonly maxSearchFiles?: number | undefined
  /** The most bytes one `search` reads in all (default `searchLimits.maxBytes`, 256 MiB). */
  readonly maxSearchBytes?: number | undefined
  /** Larger files are skipped by `search` (default `searchLimits.maxFileBytes`, 1 MiB). */
  readonly maxSearchFileBytes?: number | undefined
  /**
   * How long one `search` may take, in milliseconds (default `searchLimits.maxMillis`, 5 000); then it answers
   * with what it found and a cursor to continue. Measured on Effect's `Clock` (a `TestClock` in tests).
   *
   * @since 0.5.0
   */
  readonly maxSearchMillis?: number | undefined
  /** The file system (default `node:fs/promises`); the test kit's in-memory workspace passes its own. */
  readonly fileSystem?: FileSystem | undefined
}

const listHint = "call workspace_list to see the files"

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const mapError = (path: string, operation: string, error: unknown): WorkspaceError => {
  const code = codeOf(error)
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return new NotFound({
        path,
        message: `Nothing exists at ${path}.`,
        suggestion: `Check the spelling; ${listHint} of the parent directory.`
      })
    case "ELOOP":
      return new PathRejected({
        path,
        reason: "symlink_loop",
        message: `${path} goes through a symlink loop, or a symlink appeared while it was opened.`,
        suggestion: `Use the path of the file itself; ${listHint}.`
      })
    case "ENAMETOOLONG":
      return new PathRejected({
        path,
        reason: "too_long",
        message: `${path} is too long for the file system.`,
        suggestion: `Use a shorter path; ${listHint}.`
      })
    case "EISDIR":
      return new WrongKind({
        path,
        expected: "file",
        message: `${path} is a directory.`,
        suggestion: "Call workspace_list to see what it contains."
      })
    case "ENXIO":
      return specialFile(path)
    default:
      return new IoFailure({
        path,
        operation,
        message: `${operation} of ${path} failed: ${code ?? (error instanceof Error ? error.message : String(error))}`,
        suggestion: "Check the file's permissions, or try another path."
      })
  }
}

const specialFile = (path: string) =>
  new PathRejected({
    path,
    reason: "special_file",
    message: `${path} is a device, FIFO or socket; the workspace only reads and writes regular files and directories.`,
    suggestion: `Pick a regular file; ${listHint}.`
  })

const symlinkEscape = (path: string) =>
  new PathRejected({
    path,
    reason: "symlink_escape",
    message: `${path} goes through a symlink that leads outside the workspace root.`,
    suggestion: `Use files that live inside the workspace root; ${listHint}.`
  })

const deniedPath = (path: string) =>
  new PathRejected({
    path,
    reason: "denied",
    message: `${path} is on the workspace's deny list (secrets such as .env files and private keys, and version-control internals such as .git/).`,
    suggestion: `Work with other files; ${listHint}. If the file is needed, ask the user to provide its relevant content.`
  })

const invalid = (path: string, message: string, suggestion: string) =>
  new InvalidArgument({ path, message, suggestion })

const attempt = <A>(path: string, operation: string, run: () => Promise<A>): Effect.Effect<A, WorkspaceError> =>
  Effect.tryPromise({ try: run, catch: (error) => mapError(path, operation, error) })

// `undefined` when nothing is there (ENOENT, or ENOTDIR: a file used as a directory).
const lstatIfExistsIn = (fs: FileSystem, path: string, absolute: string) =>
  Effect.tryPromise({
    try: () => fs.lstat(absolute),
    catch: (error) => error
  }).pipe(
    Effect.catch((error) => {
      const code = codeOf(error)
      return code === "ENOENT" || code === "ENOTDIR"
        ? Effect.succeed(undefined)
        : Effect.fail(mapError(path, "lstat", error))
    })
  )

const encodeCursor = (name: string) => Buffer.from(`v1:${name}`, "utf8").toString("base64url")

const decodeCursor = (cursor: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  return text.startsWith("v1:") ? text.slice(3) : undefined
}

const isInteger = (n: number | undefined, min: number) => n === undefined || (Number.isSafeInteger(n) && n >= min)

// Cursors of listFiles and search: versioned, base64url, opaque to the caller.
const encodeToken = (text: string) => Buffer.from(text, "utf8").toString("base64url")
const decodeToken = (cursor: string, version: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  const text = Buffer.from(cursor, "base64url").toString("utf8")
  return text.startsWith(version) ? text.slice(version.length) : undefined
}

// Where a walk entry stands relative to a resume point, both as path segments (walk order = segment-wise order).
const placeOf = (
  entry: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): "before" | "ancestor" | "same" | "after" => {
  const common = Math.min(entry.length, after.length)
  for (let i = 0; i < common; i++) {
    if (entry[i] === after[i]) continue
    return entry[i]! < after[i]! ? "before" : "after"
  }
  if (entry.length === after.length) return "same"
  return entry.length < after.length ? "ancestor" : "after"
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0

// FNV-1a of the search's parameters: a cursor only continues the search that handed it out.
const fingerprint = (text: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(36)
}

/**
 * Whether a regular expression nests unbounded quantifiers — `(a+)+`,
 * `(\w*)*`, `(x+y)+` — the usual shape of catastrophic backtracking. Escapes
 * and character classes are skipped; only an unbounded quantifier (`*`, `+`,
 * `{n,}`) on a group that itself contains one counts.
 */
const nestsQuantifiers = (source: string): boolean => {
  const stack: Array<boolean> = [false]
  let lastGroup: boolean | undefined
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "\\") {
      i++
      lastGroup = undefined
      continue
    }
    if (c === "[") {
      i++
      while (i < source.length && source[i] !== "]") {
        if (source[i] === "\\") i++
        i++
      }
      lastGroup = undefined
      continue
    }
    if (c === "(") {
      stack.push(false)
      lastGroup = undefined
      continue
    }
    if (c === ")") {
      const inner = stack.length > 1 ? stack.pop()! : false
      stack[stack.length - 1] ||= inner
      lastGroup = inner
      continue
    }
    const braces = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null
    if (c === "*" || c === "+" || c === "?" || braces !== null) {
      const unbounded = c === "*" || c === "+" || (braces !== null && braces[2] !== undefined && braces[3] === "")
      if (unbounded) {
        if (lastGroup === true) return true
        stack[stack.length - 1] = true
      }
      if (braces !== null) i += braces[0].length - 1
      if (source[i + 1] === "?") i++
      lastGroup = undefined
      continue
    }
    lastGroup = undefined
  }
  return false
}

// `a{b,c}d` → `abd`, `acd` (nested braces too), at most 256 globs.
const expandBraces = (glob: string): Array<string> => {
  let depth = 0
  let open = -1
  const commas: Array<number> = []
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === "\\") i++
    else if (c === "{") {
      if (depth === 0) open = i
      depth++
    } else if (c === "," && depth === 1) commas.push(i)
    else if (c === "}" && depth > 0) {
      depth--
      if (depth === 0 && commas.length > 0) {
        const parts: Array<string> = []
        let from = open + 1
        for (const comma of [...commas, i]) {
          parts.push(glob.slice(from, comma))
          from = comma + 1
        }
        const head = glob.slice(0, open)
        const tail = glob.slice(i + 1)
        return parts.flatMap((part) => expandBraces(head + part + tail)).slice(0, 256)
      }
      if (depth === 0) commas.length = 0
    }
  }
  return [glob]
}

// The include filter: a glob without `/` matches the name; one with `/`, the path from the root or from the search path.
const includeFilter = (include: string) => {
  const globs = expandBraces(include.replace(/^\.\//, ""))
  return (relative: string, fromStart: string) =>
    globs.some((glob) =>
      glob.includes("/")
        ? Gitignore.wildmatch(glob.replace(/^\//, ""), relative, true) ||
          Gitignore.wildmatch(glob.replace(/^\//, ""), fromStart, true)
        : Gitignore.wildmatch(glob, relative.slice(relative.lastIndexOf("/") + 1), true)
    )
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The longest run of literal text every match of a regular expression
 * contains (at least 3 characters), or `undefined`: a file whose bytes lack
 * it cannot match, so it is not decoded. Only text at the top level counts
 * (not in a group, a class or after an alternation), and a character
 * followed by a quantifier ends the run without it.
 *
 * **Example**
 *
 * ```ts
 * requiredLiteral("^export (const|function) \\w+") // => "export "
 * requiredLiteral("foo|bar") // => undefined
 * ```
 *
 * @internal
 * @since 0.5.0
 */
export const requiredLiteral = (source: string): string | undefined => {
  let best = ""
  let run = ""
  const end = () => {
    if (run.length > best.length) best = run
    run = ""
  }
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === "|" && depth === 0) return undefined
    if (c === "\\") {
      const next = source[i + 1]
      i++
      if (depth === 0 && next !== undefined && /[.*+?^${}()|[\]\\/-]/.test(next)) {
        run += next
        continue
      }
      if (depth === 0) end()
      // Skip the whole escape: \u{…} \uXXXX \xXX \cX \p{…} \k<…> \12 (anything else is one character).
      const rest = source.slice(i + 1)
      const span =
        next === "u"
          ? (/^\{[^}]*\}|^[0-9a-fA-F]{4}/.exec(rest)?.[0].length ?? 0)
          : next === "x"
            ? (/^[0-9a-fA-F]{2}/.exec(rest)?.[0].length ?? 0)
            : next === "c"
              ? 1
              : next === "p" || next === "P"
                ? (/^\{[^}]*\}/.exec(rest)?.[0].length ?? 0)
                : next === "k"
                  ? (/^<[^>]*>/.exec(rest)?.[0].length ?? 0)
                  : next !== undefined && /[0-9]/.test(next)
                    ? (/^[0-9]*/.exec(rest)?.[0].length ?? 0)
                    : 0
      i += span
      continue
    }
    if (c === "[") {
      if (depth === 0) end()
      i++
      if (source[i] === "^") i++
      if (source[i] === "]") i++
      while (i < source.length && source[i] !== "]") {
        if (source[i] === "\\") i++
        i++
      }
      continue
    }
    if (c === "(") {
      if (depth === 0) end()
      depth++
      continue
    }
    if (c === ")") {
      depth = Math.max(0, depth - 1)
      continue
    }
    if (depth > 0) continue
    const braces = c === "{" ? /^\{\d+(,\d*)?\}/.exec(source.slice(i)) : null
    if (c === "*" || c === "+" || c === "?" || braces !== null) {
      // The quantified character is not required as part of the run (with `*`, `?`, `{0,…}` not at all).
      run = run.slice(0, -1)
      end()
      if (braces !== null) i += braces[0].length - 1
      continue
    }
    if (c === "{" || c === "}") {
      end()
      continue
    }
    if (c === "." || c === "^" || c === "$") {
      end()
      continue
    }
    run += c
  }
  end()
  return best.length >= 3 ? best : undefined
}

/**
 * Builds the Node workspace: resolves the root's real path (it must exist).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 *
 * const program = Effect.gen(function* () {
 *   const workspace = yield* NodeWorkspace.make({ root: "/srv/project" })
 *   return yield* workspace.stat("package.json")
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (options: Options & { readonly fileSystem: FileSystem }) {
  const fs: FileSystem = options.fileSystem
  const lstatIfExists = (path: string, absolute: string) => lstatIfExistsIn(fs, path, absolute)
  const configured = nodePath.resolve(options.root ?? (yield* WorkspaceRoot))
  const root = yield* attempt(configured, "realpath", () => fs.realpath(configured))
  const rootStat = yield* attempt(configured, "stat", () => fs.stat(root))
  if (!rootStat.isDirectory()) {
    return yield* new WrongKind({
      path: configured,
      expected: "directory",
      message: `The workspace root ${configured} is not a directory.`,
      suggestion: "Start the server with --root set to a directory."
    })
  }
  const deny = options.deny ?? defaultDeny
  const maxReadBytes = options.maxReadBytes ?? defaultMaxReadBytes
  const rootPrefix = root.endsWith(nodePath.sep) ? root : root + nodePath.sep
  const inside = (real: string) => real === root || real.startsWith(rootPrefix)
  const toRelative = (absolute: string) => nodePath.relative(root, absolute).split(nodePath.sep).join("/")

  const resolve = Effect.fnUntraced(function* (path: string): Effect.fn.Return<Resolved, WorkspaceError> {
    const checked = checkPath(path, [configured, root])
    if (Result.isFailure(checked)) return yield* checked.failure
    const relative = checked.success
    if (isDenied(relative, deny)) return yield* deniedPath(path)
    let current = relative === "" ? root : nodePath.join(root, relative)
    const tail: Array<string> = []
    // Walk up to the deepest existing ancestor; the root exists, so this ends.
    while (true) {
      const found = yield* lstatIfExists(path, current)
      if (found === undefined) {
        tail.unshift(nodePath.basename(current))
        current = nodePath.dirname(current)
        continue
      }
      const at = current
      const real = yield* Effect.tryPromise({ try: () => fs.realpath(at), catch: (error) => error }).pipe(
        Effect.catch((error) => {
          if (codeOf(error) !== "ENOENT" || !found.isSymbolicLink())
            return Effect.fail(mapError(path, "realpath", error))
          // A dangling symlink: never follow it (a write would create its target).
          return attempt(path, "readlink", () => fs.readlink(at)).pipe(
            Effect.flatMap((target) =>
              Effect.fail(
                inside(nodePath.resolve(nodePath.dirname(at), target))
                  ? new PathRejected({
                      path,
                      reason: "dangling_symlink",
                      message: `${path} goes through a symlink whose target does not exist.`,
                      suggestion: `Use the path of the target itself; ${listHint}.`
                    })
                  : symlinkEscape(path)
              )
            )
          )
        })
      )
      if (!inside(real)) return yield* symlinkEscape(path)
      const absolute = tail.length === 0 ? real : nodePath.join(real, ...tail)
      const realRelative = toRelative(absolute)
      if (isDenied(realRelative, deny)) return yield* deniedPath(path)
      if (tail.length === 0) {
        const target = yield* attempt(path, "lstat", () => fs.lstat(real))
        if (!target.isFile() && !target.isDirectory()) return yield* specialFile(path)
      }
      return { absolute, relative: realRelative, exists: tail.length === 0 }
    }
  })

  const resolveExisting = Effect.fnUntraced(function* (path: string) {
    const resolved = yield* resolve(path)
    if (!resolved.exists) {
      return yield* new NotFound({
        path,
        message: `Nothing exists at ${path}.`,
        suggestion: `Check the spelling; ${listHint} of the parent directory.`
      })
    }
    return resolved
  })

  // After open: the descriptor must be a regular file, and (Linux) still under the root.
  const checkOpened = Effect.fnUntraced(function* (path: string, handle: FileHandle) {
    const stat = yield* attempt(path, "fstat", () => handle.stat())
    if (stat.isDirectory()) {
      return yield* new WrongKind({
        path,
        expected: "file",
        message: `${path} is a directory.`,
        suggestion: "Call workspace_list to see what it contains."
      })
    }
    if (!stat.isFile()) return yield* specialFile(path)
    const opened = yield* Effect.promise(() =>
      fs.readlink(`/proc/self/fd/${handle.fd}`).then(
        (target) => target,
        () => undefined
      )
    )
    if (opened !== undefined && !inside(opened)) return yield* symlinkEscape(path)
    return stat
  })

  const withFile = <A>(
    path: string,
    absolute: string,
    flags: number,
    use: (handle: FileHandle) => Effect.Effect<A, WorkspaceError>
  ) =>
    Effect.acquireUseRelease(
      attempt(path, "open", () => fs.open(absolute, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666)),
      use,
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )

  const readRaw = Effect.fnUntraced(function* (
    path: string,
    options: { readonly offset?: number | undefined; readonly length?: number | undefined } = {}
  ) {
    if (!isInteger(options.offset, 0)) {
      return yield* invalid(path, "offset must be a whole number ≥ 0.", "Pass offset 0 to read from the start.")
    }
    if (!isInteger(options.length, 1)) {
      return yield* invalid(
        path,
        "length must be a whole number ≥ 1.",
        `Omit length to read up to ${maxReadBytes} bytes.`
      )
    }
    const offset = options.offset ?? 0
    const resolved = yield* resolveExisting(path)
    return yield* withFile(path, resolved.absolute, constants.O_RDONLY, (handle) =>
      Effect.gen(function* () {
        const stat = yield* checkOpened(path, handle)
        const wanted = Math.min(options.length ?? maxReadBytes, maxReadBytes, Math.max(0, stat.size - offset))
        const buffer = Buffer.alloc(wanted)
        let filled = 0
        while (filled < wanted) {
          const { bytesRead } = yield* attempt(path, "read", () =>
            handle.read(buffer, filled, wanted - filled, offset + filled)
          )
          if (bytesRead === 0) break
          filled += bytesRead
        }
        return { relative: resolved.relative, bytes: buffer.subarray(0, filled), offset, size: stat.size }
      })
    )
  })

  const read = Effect.fnUntraced(function* (
    path: string,
    options: { readonly offset?: number | undefined; readonly length?: number | undefined } = {}
  ) {
    const { bytes, offset, relative, size } = yield* readRaw(path, options)
    const truncated = offset + bytes.length < size
    return {
      path: relative,
      content: bytes.toString("utf8"),
      offset,
      bytesRead: bytes.length,
      size,
      truncated,
      ...(truncated ? { nextOffset: offset + bytes.length } : {}),
      binary: bytes.includes(0)
    }
  })

  const readBytes = Effect.fnUntraced(function* (
    path: string,
    options: { readonly offset?: number | undefined; readonly length?: number | undefined } = {}
  ) {
    const { bytes, offset, relative, size } = yield* readRaw(path, options)
    const truncated = offset + bytes.length < size
    const result: BytesResult = {
      path: relative,
      bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
      offset,
      size,
      truncated,
      ...(truncated ? { nextOffset: offset + bytes.length } : {})
    }
    return result
  })

  const list = Effect.fnUntraced(function* (
    path: string,
    options: { readonly cursor?: string | undefined; readonly limit?: number | undefined } = {}
  ) {
    const limit = options.limit ?? listLimits.default
    if (!isInteger(limit, 1) || limit > listLimits.max) {
      return yield* invalid(
        path,
        `limit must be a whole number from 1 to ${listLimits.max}.`,
        `Omit limit for pages of ${listLimits.default}.`
      )
    }
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor)
    if (options.cursor !== undefined && after === undefined) {
      return yield* invalid(
        path,
        "The cursor was not handed out by workspace_list.",
        "Omit the cursor to start from the first page, or pass the nextCursor of the previous page unchanged."
      )
    }
    const resolved = yield* resolveExisting(path)
    const stat = yield* attempt(path, "stat", () => fs.stat(resolved.absolute))
    if (!stat.isDirectory()) {
      return yield* new WrongKind({
        path,
        expected: "directory",
        message: `${path} is a file, not a directory.`,
        suggestion: "Call workspace_read to read it."
      })
    }
    const join = (name: string) => (resolved.relative === "" ? name : `${resolved.relative}/${name}`)
    const names = (yield* attempt(path, "readdir", () => fs.readdir(resolved.absolute)))
      .filter((name) => !isDenied(join(name), deny))
      .sort()
    const start = after === undefined ? 0 : names.findIndex((name) => name > after)
    const page = start === -1 ? [] : names.slice(start, start + limit)
    const entries: Array<ListEntry> = []
    for (const name of page) {
      const entry = yield* lstatIfExists(path, nodePath.join(resolved.absolute, name))
      if (entry === undefined) continue
      entries.push({
        name,
        path: join(name),
        type: entry.isFile()
          ? "file"
          : entry.isDirectory()
            ? "directory"
            : entry.isSymbolicLink()
              ? "symlink"
              : "other",
        size: entry.size
      })
    }
    const last = page.at(-1)
    const more = start !== -1 && start + limit < names.length && last !== undefined
    return { path: resolved.relative, entries, ...(more ? { nextCursor: encodeCursor(last) } : {}) }
  })

  const stat = Effect.fnUntraced(function* (path: string) {
    const resolved = yield* resolveExisting(path)
    const found = yield* attempt(path, "stat", () => fs.stat(resolved.absolute))
    return {
      path: resolved.relative,
      type: found.isDirectory() ? ("directory" as const) : ("file" as const),
      size: found.size,
      modifiedMs: found.mtimeMs
    }
  })

  const write = Effect.fnUntraced(function* (path: string, content: string) {
    const resolved = yield* resolve(path)
    if (resolved.relative === "") {
      return yield* new WrongKind({
        path,
        expected: "file",
        message: "The workspace root is a directory.",
        suggestion: "Name a file under the root."
      })
    }
    if (!resolved.exists) {
      const parent = nodePath.dirname(resolved.absolute)
      yield* attempt(path, "mkdir", () => fs.mkdir(parent, { recursive: true }))
      const realParent = yield* attempt(path, "realpath", () => fs.realpath(parent))
      if (!inside(realParent)) return yield* symlinkEscape(path)
    }
    const data = Buffer.from(content, "utf8")
    yield* withFile(path, resolved.absolute, constants.O_WRONLY | constants.O_CREAT, (handle) =>
      Effect.gen(function* () {
        yield* checkOpened(path, handle)
        yield* attempt(path, "truncate", () => handle.truncate(0))
        yield* attempt(path, "write", () => handle.writeFile(data))
      })
    )
    return { path: resolved.relative, bytesWritten: data.length, created: !resolved.exists }
  })

  const edit = Effect.fnUntraced(function* (
    path: string,
    change: { readonly oldText: string; readonly newText: string }
  ) {
    if (change.oldText === "") {
      return yield* invalid(path, "oldText is empty.", "Pass the exact text to replace, or call workspace_write.")
    }
    const current = yield* read(path)
    if (current.truncated) {
      return yield* invalid(
        path,
        `${path} is larger than ${maxReadBytes} bytes, too large to edit.`,
        "Edit a smaller file, or rewrite it with workspace_write."
      )
    }
    const parts = current.content.split(change.oldText)
    const occurrences = parts.length - 1
    if (occurrences !== 1) {
      return yield* new EditMismatch({
        path,
        occurrences,
        message:
          occurrences === 0
            ? `oldText does not occur in ${path}.`
            : `oldText occurs ${occurrences} times in ${path}; it must occur exactly once.`,
        suggestion:
          occurrences === 0
            ? "Call workspace_read and copy the text exactly, whitespace included."
            : "Include more surrounding lines in oldText so that it occurs once."
      })
    }
    return yield* write(path, parts.join(change.newText))
  })

  // ---- the recursive walk (listFiles, search) ----

  // The local disk (node:fs itself): search reads and matches files in worker threads, listFiles reads sizes with
  // synchronous calls. Any other file system (the test kit's memory one) goes through `fs`, here.
  const onDisk =
    fs.open === nodeFsPromises.open && fs.readdir === nodeFsPromises.readdir && fs.lstat === nodeFsPromises.lstat

  // The patterns of one directory's .gitignore: read without following a symlink, at most 1 MiB; none when unreadable.
  const gitignoreOf = (absoluteDir: string, relativeDir: string): Effect.Effect<ReadonlyArray<Gitignore.Pattern>> =>
    Effect.acquireUseRelease(
      Effect.tryPromise(() =>
        fs.open(
          nodePath.join(absoluteDir, ".gitignore"),
          constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
        )
      ),
      (handle) =>
        Effect.tryPromise(() => handle.stat()).pipe(
          Effect.flatMap((stat) =>
            !stat.isFile() || stat.size > 1024 * 1024
              ? Effect.succeed([])
              : Effect.map(
                  Effect.tryPromise(() => handle.readFile("utf8")),
                  (text) => Gitignore.parse(text, relativeDir)
                )
          )
        ),
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    ).pipe(Effect.orElseSucceed((): ReadonlyArray<Gitignore.Pattern> => []))

  // The patterns in effect for the entries of `relativeDir`'s parent chain: the .gitignore files of the root and of
  // every ancestor of `relativeDir` (not its own: the walk reads that one).
  const gitignoreAbove = Effect.fnUntraced(function* (relativeDir: string) {
    const segments = relativeDir === "" ? [] : relativeDir.split("/")
    const patterns: Array<Gitignore.Pattern> = []
    for (let depth = 0; depth < segments.length; depth++) {
      const relative = segments.slice(0, depth).join("/")
      patterns.push(...(yield* gitignoreOf(nodePath.join(root, ...segments.slice(0, depth)), relative)))
    }
    return patterns
  })

  // Whether a directory is ignored by the .gitignore files of its ancestors, itself or through one of them.
  const ignoredDirectory = Effect.fnUntraced(function* (relativeDir: string) {
    const segments = relativeDir === "" ? [] : relativeDir.split("/")
    const patterns: Array<Gitignore.Pattern> = []
    for (let depth = 0; depth < segments.length; depth++) {
      const parent = segments.slice(0, depth).join("/")
      patterns.push(...(yield* gitignoreOf(nodePath.join(root, ...segments.slice(0, depth)), parent)))
      if (Gitignore.decide(patterns, segments.slice(0, depth + 1).join("/"), true)) return true
    }
    return false
  })

  interface Walk {
    /** Read and honour .gitignore files. */
    readonly ignore: boolean
    /** Resume strictly after (or, when `inclusive`, at) this root-relative path. */
    readonly after: ReadonlyArray<string> | undefined
    readonly inclusive: boolean
    /** Names of directories never entered (besides .git). */
    readonly skip?: ReadonlySet<string> | undefined
    /** Called for each regular file in walk order (synchronously: no Effect per file); false stops the walk. */
    readonly visit: (relative: string, absolute: string) => boolean
  }

  // The deny list, entry by entry: the walk only enters directories that are not denied, so a pattern without a `/`
  // (which matches any one segment) needs only the entry's own name, and its answer is the same for every entry of
  // that name; patterns with a `/` are tried on the whole path.
  const denyByName = deny.filter((pattern) => !pattern.replace(/^\/+|\/+$/g, "").includes("/"))
  const denyByPath = deny.filter((pattern) => !denyByName.includes(pattern))
  const deniedNames = new Map<string, boolean>()
  const deniedEntry = (name: string, relative: string): boolean => {
    let denied = deniedNames.get(name)
    if (denied === undefined) {
      denied = isDenied(name, denyByName)
      if (deniedNames.size >= 100_000) deniedNames.clear()
      deniedNames.set(name, denied)
    }
    return denied || (denyByPath.length > 0 && isDenied(relative, denyByPath))
  }

  // A directory's entries, or why it could not be listed; never rejects (a listing read ahead may go unused).
  type Listing = ReadonlyArray<DirectoryEntry> | { readonly error: unknown }
  const listing = (absolute: string): Promise<Listing> =>
    fs.readdir(absolute, { withFileTypes: true }).then(
      (entries) => entries,
      (error: unknown) => ({ error })
    )
  // How many subdirectories of a directory are listed ahead of the one being walked.
  const readAhead = 8

  // Depth first, each directory's entries by name; never enters .git, denied or ignored entries, never follows a
  // symlink, skips special files. An unreadable subdirectory is skipped. Returns false when `visit` stopped it.
  // The listings of the next few subdirectories are read while the current one is walked (the order stays the same).
  const walkDirectory = (
    relativeDir: string,
    absoluteDir: string,
    inherited: ReadonlyArray<Gitignore.Pattern>,
    after: ReadonlyArray<string> | undefined,
    walk: Walk,
    top: boolean,
    listed: Promise<Listing>
  ): Effect.Effect<boolean, WorkspaceError> =>
    Effect.gen(function* () {
      const found = yield* Effect.promise(() => listed)
      if (!Array.isArray(found)) {
        if (top) return yield* Effect.fail(mapError(relativeDir, "readdir", (found as { error: unknown }).error))
        return true
      }
      const entries = found as ReadonlyArray<DirectoryEntry>
      const patterns =
        walk.ignore && entries.some((entry) => entry.name === ".gitignore" && entry.isFile())
          ? [...inherited, ...(yield* gitignoreOf(absoluteDir, relativeDir))]
          : inherited
      const kept: Array<{
        readonly name: string
        readonly relative: string
        readonly directory: boolean
        readonly below: ReadonlyArray<string> | undefined
      }> = []
      for (const entry of [...entries].sort(byName)) {
        if (entry.name === ".git") continue
        const relative = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`
        const directory = entry.isDirectory()
        if (!directory && !entry.isFile()) continue
        if (directory && walk.skip?.has(entry.name) === true) continue
        if (deniedEntry(entry.name, relative)) continue
        if (walk.ignore && patterns.length > 0 && Gitignore.decide(patterns, relative, directory)) continue
        let below = after
        if (after !== undefined) {
          const place = placeOf(relative.split("/"), after)
          if (place === "before" || (place === "same" && (directory || !walk.inclusive))) continue
          if (place === "after") below = undefined
        }
        kept.push({ name: entry.name, relative, directory, below })
      }
      const ahead = new Map<number, Promise<Listing>>()
      const directories = kept.flatMap((entry, index) => (entry.directory ? [index] : []))
      let next = 0
      for (let index = 0; index < kept.length; index++) {
        const entry = kept[index]!
        const absolute = absoluteDir + nodePath.sep + entry.name
        if (!entry.directory) {
          if (!walk.visit(entry.relative, absolute)) return false
          continue
        }
        while (next < directories.length && directories[next]! <= index) next++
        for (let k = next; k < Math.min(directories.length, next + readAhead); k++) {
          const at = directories[k]!
          if (!ahead.has(at)) ahead.set(at, listing(absoluteDir + nodePath.sep + kept[at]!.name))
        }
        const own = ahead.get(index) ?? listing(absolute)
        ahead.delete(index)
        if (!(yield* walkDirectory(entry.relative, absolute, patterns, entry.below, walk, false, own))) return false
      }
      return true
    })

  // Walks `path`: a directory's files, or the file itself.
  const walkPath = Effect.fnUntraced(function* (path: string, walk: Walk) {
    const resolved = yield* resolveExisting(path)
    const found = yield* attempt(path, "stat", () => fs.stat(resolved.absolute))
    if (!found.isDirectory()) {
      const place = walk.after === undefined ? "after" : placeOf(resolved.relative.split("/"), walk.after)
      if (place === "after" || (place === "same" && walk.inclusive)) walk.visit(resolved.relative, resolved.absolute)
      return resolved
    }
    // A directory that a .gitignore above it ignores (or that lies under an ignored one) has nothing to walk, as
    // `git ls-files --others --exclude-standard <dir>` lists nothing there.
    if (walk.ignore && (yield* ignoredDirectory(resolved.relative))) return resolved
    const inherited = walk.ignore ? yield* gitignoreAbove(resolved.relative) : []
    yield* walkDirectory(
      resolved.relative,
      resolved.absolute,
      inherited,
      walk.after,
      walk,
      true,
      listing(resolved.absolute)
    )
    return resolved
  })

  const listFiles = Effect.fnUntraced(function* (
    path: string,
    options: {
      readonly cursor?: string | undefined
      readonly limit?: number | undefined
      readonly skipDirectories?: ReadonlyArray<string> | undefined
    } = {}
  ) {
    const limit = options.limit ?? listLimits.default
    if (!isInteger(limit, 1) || limit > listLimits.max) {
      return yield* invalid(
        path,
        `limit must be a whole number from 1 to ${listLimits.max}.`,
        `Omit limit for pages of ${listLimits.default}.`
      )
    }
    const after = options.cursor === undefined ? undefined : decodeToken(options.cursor, "w1:")
    if (options.cursor !== undefined && (after === undefined || after === "")) {
      return yield* invalid(
        path,
        "The cursor was not handed out by this listing.",
        "Omit the cursor to start from the first page, or pass the nextCursor of the previous page unchanged."
      )
    }
    const seen: Array<{ readonly relative: string; readonly absolute: string }> = []
    let more = false
    const resolved = yield* walkPath(path, {
      ignore: true,
      after: after?.split("/"),
      inclusive: false,
      skip: options.skipDirectories === undefined ? undefined : new Set(options.skipDirectories),
      visit: (relative, absolute) => {
        if (seen.length === limit) {
          more = true
          return false
        }
        seen.push({ relative, absolute })
        return true
      }
    })
    // Sizes and times; a file that vanished since the listing is left out. On the local disk with lstatSync: a page
    // of 1,000 takes 2-3 ms, four times less than as many promises.
    const stats: ReadonlyArray<FileStats | undefined> = onDisk
      ? yield* Effect.forEach(seen, (file) => {
          const found = Result.try({
            try: () => lstatSync(file.absolute, { throwIfNoEntry: false }),
            catch: (error) => error
          })
          if (Result.isSuccess(found)) return Effect.succeed(found.success)
          const code = codeOf(found.failure)
          return code === "ENOTDIR"
            ? Effect.succeed(undefined)
            : Effect.fail(mapError(file.relative, "lstat", found.failure))
        })
      : yield* Effect.forEach(seen, (file) => lstatIfExists(file.relative, file.absolute), { concurrency: 16 })
    const files: Array<FileEntry> = []
    stats.forEach((found, index) => {
      if (found !== undefined && found.isFile()) {
        files.push({ path: seen[index]!.relative, size: found.size, modifiedMs: found.mtimeMs })
      }
    })
    const last = seen.at(-1)
    return {
      path: resolved.relative,
      files,
      ...(more && last !== undefined ? { nextCursor: encodeToken(`w1:${last.relative}`) } : {})
    }
  })

  // ---- search ----

  const maxSearchFiles = options.maxSearchFiles ?? searchLimits.maxFiles
  const maxSearchBytes = options.maxSearchBytes ?? searchLimits.maxBytes
  const maxSearchFileBytes = options.maxSearchFileBytes ?? searchLimits.maxFileBytes
  const maxSearchMillis = options.maxSearchMillis ?? searchLimits.maxMillis
  const searchHint = "Call workspace_search again without cursor to start over."
  const scanLimits: SearchScan.ScanLimits = {
    maxLineChars: searchLimits.maxLineChars,
    maxTextChars: searchLimits.maxTextChars,
    binaryProbeBytes: searchLimits.binaryProbeBytes
  }

  const compileQuery = (options: SearchOptions): Result.Result<RegExp, InvalidArgument> => {
    const flags = options.caseSensitive === false ? "i" : ""
    if (options.regex !== true) return Result.succeed(new RegExp(escapeRegExp(options.query), flags))
    if (nestsQuantifiers(options.query)) {
      return Result.fail(
        invalid(
          options.query,
          "The regular expression nests unbounded quantifiers (like (a+)+ or (\\w*)*), which can take exponential time.",
          "Simplify it: drop the outer quantifier or the inner one (e.g. (ab)+ or a+), or search for a literal with regex false."
        )
      )
    }
    // With the u flag first (so . matches a whole character), else without it (more lenient syntax).
    const build = (withFlags: string) =>
      Result.try({ try: () => new RegExp(options.query, withFlags), catch: (e) => e })
    return Result.orElse(build(flags + "u"), () =>
      Result.mapError(build(flags), (error) =>
        invalid(
          options.query,
          `The regular expression is invalid: ${error instanceof Error ? error.message : String(error)}.`,
          "Fix the regular expression (JavaScript syntax; escape ( ) [ ] { } . * + ? with a backslash to match " +
            "them literally), or pass regex false to search for the text as it is."
        )
      )
    )
  }

  // One file read and matched here (a file system other than the local disk), with the same outcomes as a worker's.
  const scanHere = (
    relative: string,
    absolute: string,
    first: number,
    pattern: RegExp,
    literal: Buffer | undefined,
    cap: number
  ): Effect.Effect<SearchScan.FileOutcome> =>
    withFile(relative, absolute, constants.O_RDONLY, (handle) =>
      Effect.gen(function* () {
        const stat = yield* checkOpened(relative, handle)
        if (stat.size > maxSearchFileBytes) return undefined
        return yield* attempt(relative, "read", () => handle.readFile())
      })
    ).pipe(
      Effect.map((bytes): SearchScan.FileOutcome => {
        if (bytes === undefined || bytes.length > maxSearchFileBytes) return [1]
        const found = SearchScan.scanBytes(bytes, pattern, literal, first, cap, scanLimits)
        return found === undefined ? [2, bytes.length] : [3, bytes.length, found]
      }),
      // A file that vanished or turned into something else since the listing is passed over.
      Effect.orElseSucceed((): SearchScan.FileOutcome => [0])
    )

  const search = Effect.fnUntraced(function* (options: SearchOptions) {
    const path = options.path ?? ""
    if (options.query === "") {
      return yield* invalid(path, "The query is empty.", "Pass the text (or regular expression) to look for.")
    }
    if (options.query.length > searchLimits.maxQueryChars) {
      return yield* invalid(
        path,
        `The query is longer than ${searchLimits.maxQueryChars} characters.`,
        "Search for a shorter, distinctive part of the text."
      )
    }
    const limit = options.limit ?? searchLimits.default
    if (!isInteger(limit, 1) || limit > searchLimits.max) {
      return yield* invalid(
        path,
        `limit must be a whole number from 1 to ${searchLimits.max}.`,
        `Omit limit for at most ${searchLimits.default} matches.`
      )
    }
    const compiled = compileQuery(options)
    if (Result.isFailure(compiled)) return yield* compiled.failure
    const pattern = compiled.success
    // Case-sensitive literal text (or the literal text every match of a regular expression contains) is looked for
    // in a file's raw bytes first (not when it could match decoding debris).
    const required =
      options.caseSensitive === false
        ? undefined
        : options.regex === true
          ? requiredLiteral(options.query)
          : options.query
    const literal = required !== undefined && !required.includes("\uFFFD") ? required : undefined
    const include = options.include === undefined || options.include === "" ? undefined : includeFilter(options.include)
    const ignore = options.includeIgnored !== true
    const resolved = yield* resolveExisting(path)
    const print = fingerprint(
      JSON.stringify([
        options.query,
        options.regex === true,
        options.caseSensitive !== false,
        resolved.relative,
        options.include ?? "",
        ignore
      ])
    )
    let after: { readonly path: string; readonly line: number } | undefined
    if (options.cursor !== undefined) {
      const token = decodeToken(options.cursor, "s1:")
      const parsed = token === undefined ? null : /^([0-9a-z]+):(-?\d+):(.+)$/s.exec(token)
      if (parsed === null) {
        return yield* invalid(
          path,
          "The cursor was not handed out by workspace_search.",
          `Pass the nextCursor of the previous result unchanged. ${searchHint}`
        )
      }
      if (parsed[1] !== print) {
        return yield* invalid(
          path,
          "The cursor belongs to a different search (another query, path, include or option).",
          `Repeat the search with exactly the same arguments plus the cursor. ${searchHint}`
        )
      }
      after = { path: parsed[3]!, line: Number(parsed[2]) }
    }

    const matches: Array<SearchMatch> = []
    const skipped = { binary: 0, tooLarge: 0 }
    let filesScanned = 0
    let bytesScanned = 0
    let stoppedBy: "limit" | "scan_budget" | "time_budget" | undefined
    // The last position fully reported: a file (line -1: all of it) or a matching line.
    let position: { path: string; line: number } | undefined
    let failure: unknown
    const fromStart = (relative: string) =>
      resolved.relative === "" || relative === resolved.relative
        ? relative
        : relative.slice(resolved.relative.length + 1)
    // A file's lines after the last reported one cannot add more than limit + 1 matches that matter.
    const cap = limit + 1
    const query: SearchScan.ScanQuery = {
      source: pattern.source,
      flags: pattern.flags,
      literal,
      cap,
      limits: scanLimits
    }
    const literalBytes = literal === undefined ? undefined : Buffer.from(literal, "utf8")

    // The files go out in batches (small first, for a quick first answer), are matched in parallel, and are taken
    // back strictly in walk order: budgets, the limit and the cursor apply exactly as in a file-by-file search.
    interface Pending {
      readonly files: Array<readonly [relative: string, absolute: string, first: number]>
      results: ReadonlyArray<SearchScan.FileOutcome> | undefined
      running: SearchPool.Running | undefined
    }
    const batches: Array<Pending> = []
    let assembled = 0
    let filling: Pending | undefined
    let walked = false
    let wake: (() => void) | undefined
    const finished = () => stoppedBy !== undefined || failure !== undefined || (walked && assembled === batches.length)

    const take = (file: readonly [string, string, number], outcome: SearchScan.FileOutcome): boolean => {
      const [relative] = file
      if (filesScanned >= maxSearchFiles || bytesScanned >= maxSearchBytes) {
        stoppedBy = "scan_budget"
        return false
      }
      if (outcome[0] === 0) return true
      if (outcome[0] === 1) {
        skipped.tooLarge++
        return true
      }
      filesScanned++
      bytesScanned += outcome[1]
      if (outcome[0] === 2) {
        skipped.binary++
        position = { path: relative, line: -1 }
        return true
      }
      const found = outcome[2]
      for (let i = 0; i < found.length; i += 3) {
        if (matches.length === limit) {
          stoppedBy = "limit"
          return false
        }
        const line = found[i] as number
        matches.push({ path: relative, line, column: found[i + 1] as number, text: found[i + 2] as string })
        position = { path: relative, line }
      }
      position = { path: relative, line: -1 }
      return true
    }

    const cancelAll = () => {
      for (let i = assembled; i < batches.length; i++) batches[i]!.running?.cancel()
    }

    const advance = () => {
      while (!finished() && assembled < batches.length && batches[assembled]!.results !== undefined) {
        const batch = batches[assembled]!
        const results = batch.results!
        for (let i = 0; i < batch.files.length; i++) {
          if (!take(batch.files[i]!, results[i]!)) break
        }
        assembled++
      }
      if (finished()) {
        if (stoppedBy !== undefined || failure !== undefined) cancelAll()
        const resume = wake
        wake = undefined
        resume?.()
      }
    }

    // At most `ahead` batches of this search are out at once (the rest wait here, in order): searches running at
    // the same time share the workers, and a search that reaches its limit has little work to throw away.
    const ahead = onDisk ? SearchPool.size * 2 : 4
    let launched = 0
    let out = 0
    const launch = () => {
      for (; launched < batches.length && !finished(); launched++) {
        if (out >= ahead) return
        start(batches[launched]!)
      }
    }
    const start = (batch: Pending) => {
      out++
      const done = (results: ReadonlyArray<SearchScan.FileOutcome>) => {
        out--
        batch.results = results
        batch.running = undefined
        advance()
        launch()
      }
      const failed = (error: unknown) => {
        out--
        failure = error
        advance()
      }
      if (onDisk) {
        batch.running = SearchPool.run(
          {
            root,
            maxFileBytes: maxSearchFileBytes,
            query,
            files: batch.files.map(([, absolute, first]) => [absolute, first] as const)
          },
          done,
          failed
        )
      } else {
        const fiber = Effect.runFork(
          Effect.forEach(batch.files, ([relative, absolute, first]) =>
            scanHere(relative, absolute, first, pattern, literalBytes, cap)
          )
        )
        let cancelled = false
        fiber.addObserver((exit) => {
          if (cancelled) return
          if (Exit.isSuccess(exit)) done(exit.value)
          else failed(Cause.squash(exit.cause))
        })
        batch.running = {
          cancel: () => {
            cancelled = true
            fiber.interruptUnsafe()
          },
          current: () => undefined
        }
      }
    }
    const dispatch = (batch: Pending) => {
      batches.push(batch)
      launch()
    }

    const batchSize = () => (batches.length < 4 ? 16 : onDisk ? 256 : 64)
    const flush = () => {
      if (filling !== undefined && filling.files.length > 0) dispatch(filling)
      filling = undefined
    }

    let pendingPath: string | undefined
    const work = Effect.gen(function* () {
      yield* walkPath(path, {
        ignore,
        after: after?.path.split("/"),
        inclusive: after !== undefined && after.line >= 0,
        visit: (relative, absolute) => {
          if (finished()) return false
          if (include !== undefined && !include(relative, fromStart(relative))) return true
          filling ??= { files: [], results: undefined, running: undefined }
          filling.files.push([relative, absolute, after !== undefined && after.path === relative ? after.line : 0])
          if (filling.files.length >= batchSize()) flush()
          return true
        }
      })
      flush()
      walked = true
      advance()
      if (!finished()) {
        yield* Effect.callback<void>((resume) => {
          wake = () => resume(Effect.void)
          advance()
        })
      }
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          // The file a worker was still on when the time ran out: the first one not taken back, if its worker is on it.
          const batch = batches[assembled]
          const at = batch?.running?.current()
          if (batch !== undefined && at !== undefined) pendingPath = batch.files[at]?.[0]
          cancelAll()
        })
      )
    )

    const timedOut = Option.isNone(yield* Effect.timeoutOption(work, Duration.millis(maxSearchMillis)))
    if (timedOut && stoppedBy === undefined && failure === undefined) stoppedBy = "time_budget"
    if (stoppedBy !== "time_budget") pendingPath = undefined
    if (failure !== undefined) {
      return yield* new IoFailure({
        path,
        operation: "search",
        message: `The search failed: ${failure instanceof Error ? failure.message : String(failure)}`,
        suggestion: "Try again; if it fails again, narrow the search with path or include."
      })
    }
    const resume = position ?? after
    const nextCursor =
      stoppedBy !== undefined && resume !== undefined
        ? encodeToken(`s1:${print}:${resume.line}:${resume.path}`)
        : stoppedBy !== undefined
          ? options.cursor
          : undefined
    return {
      matches,
      truncated: stoppedBy !== undefined,
      ...(stoppedBy !== undefined ? { stoppedBy } : {}),
      ...(nextCursor !== undefined ? { nextCursor } : {}),
      filesScanned,
      bytesScanned,
      ...(stoppedBy !== undefined && resume !== undefined ? { lastPath: resume.path } : {}),
      ...(pendingPath !== undefined ? { pendingPath } : {}),
      skipped
    }
  })

  // ---- applyPatch ----

  const remove = Effect.fnUntraced(function* (path: string) {
    const resolved = yield* resolveExisting(path)
    const found = yield* attempt(path, "lstat", () => fs.lstat(resolved.absolute))
    if (!found.isFile()) {
      return yield* new WrongKind({
        path,
        expected: "file",
        message: `${path} is not a regular file; a patch only deletes files.`,
        suggestion: "Call workspace_list to see what it is."
      })
    }
    yield* attempt(path, "unlink", () => fs.unlink(resolved.absolute))
  })

  const readForPatch = Effect.fnUntraced(function* (path: string) {
    const current = yield* read(path)
    if (current.truncated) {
      return yield* invalid(
        path,
        `${path} is larger than ${maxReadBytes} bytes, too large to patch.`,
        "Patch smaller files, or rewrite this one with workspace_write."
      )
    }
    if (current.binary) {
      return yield* invalid(
        path,
        `${path} is a binary file (it contains NUL bytes); patches apply to text.`,
        "Leave it out of the patch, or replace it with workspace_write."
      )
    }
    return current.content
  })

  const patchFormat =
    "Send a unified diff as git diff or diff -u print it: a --- line and a +++ line naming each file (a/ and b/ " +
    "prefixes are fine, /dev/null for a new or deleted file), then hunks starting @@ -start,count +start,count @@ " +
    "whose lines start with a space (context), - (removed) or + (added)."

  const applyPatch = Effect.fnUntraced(function* (
    patch: string,
    patchOptions: { readonly strip?: number | undefined } = {}
  ) {
    if (!isInteger(patchOptions.strip, 0)) {
      return yield* invalid("", "strip must be a whole number ≥ 0.", "Omit strip to let the patch format decide.")
    }
    const parsed = UnifiedDiff.parse(patch, patchOptions.strip)
    if (parsed._tag === "Error") {
      return yield* invalid("", `The patch cannot be read: line ${parsed.line}: ${parsed.message}.`, patchFormat)
    }
    // Plan every change in memory, by real root-relative path; nothing is written until all of it checks out.
    const state = new Map<string, { readonly original: string | undefined; current: string | undefined }>()
    const contentOf = Effect.fnUntraced(function* (path: string) {
      const resolved = yield* resolve(path)
      const known = state.get(resolved.relative)
      if (known !== undefined) return { resolved, content: known.current }
      const content = resolved.exists ? yield* readForPatch(path) : undefined
      state.set(resolved.relative, { original: content, current: content })
      return { resolved, content }
    })
    const setContent = (relative: string, content: string | undefined) => {
      state.get(relative)!.current = content
    }
    const files: Array<PatchedFile> = []
    for (const file of parsed.files) {
      const label = file.newPath ?? file.oldPath ?? ""
      let source = ""
      let sourceRelative: string | undefined
      // `diff -N` writes a new file as a change of an empty one: missing, and only added to at line 0.
      const createsFromEmpty = file.hunks.length > 0 && file.hunks.every((h) => h.oldStart === 0 && h.oldCount === 0)
      if (file.oldPath !== undefined) {
        const { content, resolved } = yield* contentOf(file.oldPath)
        if (content === undefined && createsFromEmpty && !file.rename && file.newPath !== undefined) {
          const { resolved: target } = yield* contentOf(file.newPath)
          if (target.relative === resolved.relative) {
            const created = UnifiedDiff.apply("", file.hunks)
            if (created._tag === "Ok") {
              setContent(resolved.relative, created.content)
              files.push({
                path: resolved.relative,
                status: "created",
                hunks: file.hunks.length,
                linesAdded: file.hunks.reduce((n, h) => n + h.lines.length, 0),
                linesRemoved: 0
              })
              continue
            }
          }
        }
        if (content === undefined) {
          return yield* new NotFound({
            path: file.oldPath,
            message: `The patch changes ${file.oldPath}, which does not exist. Nothing was changed.`,
            suggestion: `Call workspace_list to find the file, or send it as a new file (--- /dev/null).`
          })
        }
        if (resolved.relative === "") {
          return yield* invalid(file.oldPath, "The patch names the workspace root.", patchFormat)
        }
        source = content
        sourceRelative = resolved.relative
      }
      let targetRelative: string | undefined
      if (file.newPath !== undefined && (file.oldPath === undefined || file.rename)) {
        const { content, resolved } = yield* contentOf(file.newPath)
        if (resolved.relative === "") {
          return yield* invalid(file.newPath, "The patch names the workspace root.", patchFormat)
        }
        if (content !== undefined && resolved.relative !== sourceRelative) {
          return yield* invalid(
            file.newPath,
            `The patch creates ${file.newPath}, which already exists. Nothing was changed.`,
            `Call workspace_read on ${file.newPath} and send a patch that modifies it (--- a/${file.newPath}), ` +
              "or replace it with workspace_write."
          )
        }
        targetRelative = resolved.relative
      }
      const applied = UnifiedDiff.apply(source, file.hunks)
      if (applied._tag === "Mismatch") {
        return yield* new EditMismatch({
          path: label,
          occurrences: 0,
          message: `Hunk ${applied.hunk} of ${label} (${applied.header}) does not apply: ${applied.message}. Nothing was changed.`,
          suggestion:
            `Call workspace_read on ${label} to see its current text and rebuild the patch from it (context and ` +
            "removed lines must match the file exactly, whitespace included), or use workspace_edit for a small change."
        })
      }
      const counts = {
        hunks: file.hunks.length,
        linesAdded: file.hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "+").length, 0),
        linesRemoved: file.hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "-").length, 0)
      }
      if (file.newPath === undefined) {
        if (applied.content !== "") {
          return yield* new EditMismatch({
            path: label,
            occurrences: 0,
            message: `The patch deletes ${label}, but the file has lines the patch does not remove. Nothing was changed.`,
            suggestion: `Call workspace_read on ${label} and make the deletion remove every line of it.`
          })
        }
        setContent(sourceRelative!, undefined)
        files.push({ path: sourceRelative!, status: "deleted", ...counts })
      } else if (sourceRelative === undefined) {
        setContent(targetRelative!, applied.content)
        files.push({ path: targetRelative!, status: "created", ...counts })
      } else if (targetRelative !== undefined && targetRelative !== sourceRelative) {
        setContent(sourceRelative, undefined)
        setContent(targetRelative, applied.content)
        files.push({ path: targetRelative, status: "renamed", from: sourceRelative, ...counts })
      } else {
        setContent(sourceRelative, applied.content)
        files.push({ path: sourceRelative, status: "modified", ...counts })
      }
    }
    // Write. Should the file system fail half-way, restore what was already changed (best effort).
    const done: Array<readonly [string, string | undefined]> = []
    const change = (relative: string, content: string | undefined) =>
      content === undefined ? remove(relative) : Effect.asVoid(write(relative, content))
    for (const [relative, entry] of state) {
      if (entry.current === entry.original) continue
      const outcome = yield* Effect.exit(change(relative, entry.current))
      if (outcome._tag === "Failure") {
        for (const [undoPath, original] of done.reverse()) yield* Effect.ignore(change(undoPath, original))
        return yield* Effect.failCause(outcome.cause)
      }
      done.push([relative, entry.original])
    }
    return { files }
  })

  return Workspace.of({
    root,
    resolve,
    stat,
    read,
    readBytes,
    list,
    listFiles,
    search,
    write,
    edit,
    applyPatch
  })
})
