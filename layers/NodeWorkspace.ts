/**
 * The workspace on the local file system (Node).
 *
 * **Why `node:fs` and not Effect's `FileSystem`.** Every operation here
 * needs something `FileSystem` does not expose: `lstat` (to see a symlink or
 * a FIFO rather than what it points to), `readlink` of a dangling link,
 * `open` with `O_NOFOLLOW | O_NONBLOCK`, and `fstat` of the opened
 * descriptor. So the layer uses `node:fs/promises` directly, wrapped in
 * `Effect.tryPromise` with every error mapped to the workspace's typed
 * errors.
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
 * @since 0.1.0
 */
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import {
  checkPath,
  defaultDeny,
  defaultMaxReadBytes,
  EditMismatch,
  InvalidArgument,
  IoFailure,
  isDenied,
  listLimits,
  type ListEntry,
  NotFound,
  PathRejected,
  type Resolved,
  Workspace,
  type WorkspaceError,
  WrongKind
} from "../src/Workspace.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

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
  /** The most bytes one `read` returns (default 1 MiB). */
  readonly maxReadBytes?: number | undefined
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
const lstatIfExists = (path: string, absolute: string) =>
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
export const make = Effect.fnUntraced(function* (options: Options = {}) {
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
  const checkOpened = Effect.fnUntraced(function* (path: string, handle: fs.FileHandle) {
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
    use: (handle: fs.FileHandle) => Effect.Effect<A, WorkspaceError>
  ) =>
    Effect.acquireUseRelease(
      attempt(path, "open", () => fs.open(absolute, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666)),
      use,
      (handle) => Effect.promise(() => handle.close().catch(() => undefined))
    )

  const read = Effect.fnUntraced(function* (
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
        const bytes = buffer.subarray(0, filled)
        const truncated = offset + filled < stat.size
        return {
          path: resolved.relative,
          content: bytes.toString("utf8"),
          offset,
          bytesRead: filled,
          size: stat.size,
          truncated,
          ...(truncated ? { nextOffset: offset + filled } : {}),
          binary: bytes.includes(0)
        }
      })
    )
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

  return Workspace.of({ root, resolve, stat, read, list, write, edit })
})

/**
 * The Node workspace as a layer, rooted at `options.root` or the
 * `WorkspaceRoot` reference.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Workspace } from "effect-mcp-runtime/Workspace"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 *
 * const program = Effect.flatMap(Effect.service(Workspace), (workspace) => workspace.list(""))
 * Effect.runPromise(program.pipe(Effect.provide(NodeWorkspace.layer({ root: "." }))))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Workspace, WorkspaceError> =>
  Layer.effect(Workspace, make(options))
