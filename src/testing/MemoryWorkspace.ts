/**
 * An in-memory `Workspace` for tests: the files of a record, under the root
 * `/workspace`. It is the Node workspace itself (`layers/NodeWorkspace.ts`:
 * the same path checks, deny list, limits, search, `.gitignore` handling and
 * patching) running on a file system in memory, so a test sees exactly what
 * the real one does — without touching the disk. Symlinks can be part of the
 * tree; devices, FIFOs and sockets cannot. The file system approximates
 * Linux: no permissions, no hard links, modification times from a counter,
 * every operation atomic (see `docs/testing.md`, Limits).
 *
 * @since 0.1.0
 */
import { constants } from "node:fs"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodeWorkspace from "../internal/fileWorkspace.ts"
import { Workspace, type WorkspaceError } from "../Workspace.ts"

/**
 * One entry of the initial tree: text, bytes, or a symlink to a path
 * (relative to the link's directory, or absolute).
 *
 * **Example**
 *
 * ```ts
 * import type { MemoryWorkspace } from "effect-mcp-runtime/testing"
 *
 * const files: Record<string, MemoryWorkspace.Entry> = {
 *   "src/main.ts": "export {}\n",
 *   "logo.png": new Uint8Array([137, 80, 78, 71]),
 *   "latest": { symlink: "src/main.ts" }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Entry = string | Uint8Array | { readonly symlink: string }

/**
 * The root every in-memory workspace has.
 *
 * **Example**
 *
 * ```ts
 * import { MemoryWorkspace } from "effect-mcp-runtime/testing"
 *
 * MemoryWorkspace.root // => "/workspace"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const root = "/workspace"

type Node =
  | { readonly kind: "file"; data: Buffer; mtimeMs: number }
  | { readonly kind: "dir"; mtimeMs: number }
  | { readonly kind: "symlink"; readonly target: string; mtimeMs: number }

const failure = (code: string, syscall: string, path: string): NodeJS.ErrnoException => {
  const error = new Error(`${code}: ${syscall} '${path}'`) as NodeJS.ErrnoException
  error.code = code
  error.syscall = syscall
  error.path = path
  return error
}

const statsOf = (node: Node): NodeWorkspace.FileStats => ({
  isFile: () => node.kind === "file",
  isDirectory: () => node.kind === "dir",
  isSymbolicLink: () => node.kind === "symlink",
  size: node.kind === "file" ? node.data.length : node.kind === "symlink" ? node.target.length : 4096,
  mtimeMs: node.mtimeMs
})

/**
 * A file system in memory with the operations the workspace uses, with the
 * error codes Linux gives (`ENOENT`, `ENOTDIR`, `EISDIR`, `ELOOP`, `EINVAL`).
 *
 * **Example**
 *
 * ```ts
 * import { MemoryWorkspace } from "effect-mcp-runtime/testing"
 *
 * const memory = MemoryWorkspace.make({ "a.txt": "a\n" })
 * memory.fileSystem.add("b.txt", "added behind the workspace's back\n")
 * memory.fileSystem.files() // => { "a.txt": "a\n", "b.txt": "added behind the workspace's back\n" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export class MemoryFileSystem implements NodeWorkspace.FileSystem {
  private readonly nodes = new Map<string, Node>([["/", { kind: "dir", mtimeMs: 0 }]])
  private clock = Date.UTC(2026, 0, 1)
  private nextFd = 100

  private tick(): number {
    return ++this.clock
  }

  /** Resolves `path`: the real path and its node (undefined when only the last component is missing). */
  private locate(path: string, followLast: boolean, syscall: string): { real: string; node: Node | undefined } {
    let pending = NodePath.posix
      .resolve("/", path)
      .split("/")
      .filter((part) => part !== "")
    let current = "/"
    let hops = 0
    while (pending.length > 0) {
      const [name, ...rest] = pending
      const here = this.nodes.get(current)!
      if (here.kind !== "dir") throw failure("ENOTDIR", syscall, path)
      const next = current === "/" ? `/${name}` : `${current}/${name}`
      const node = this.nodes.get(next)
      if (node === undefined) {
        if (rest.length > 0) throw failure("ENOENT", syscall, path)
        return { real: next, node: undefined }
      }
      if (node.kind === "symlink" && (rest.length > 0 || followLast)) {
        if (++hops > 40) throw failure("ELOOP", syscall, path)
        const target = NodePath.posix.resolve(current, node.target)
        pending = [...target.split("/").filter((part) => part !== ""), ...rest]
        current = "/"
        continue
      }
      current = next
      pending = rest
    }
    return { real: current, node: this.nodes.get(current) }
  }

  private existing(path: string, followLast: boolean, syscall: string) {
    const found = this.locate(path, followLast, syscall)
    if (found.node === undefined) throw failure("ENOENT", syscall, path)
    return found as { real: string; node: Node }
  }

  /** Adds an entry (and its parent directories), relative to the root or absolute. */
  add(path: string, entry: Entry): void {
    const absolute = NodePath.posix.resolve(root, path)
    this.mkdirSync(NodePath.posix.dirname(absolute))
    this.nodes.set(
      absolute,
      typeof entry === "string"
        ? { kind: "file", data: Buffer.from(entry, "utf8"), mtimeMs: this.tick() }
        : entry instanceof Uint8Array
          ? { kind: "file", data: Buffer.from(entry), mtimeMs: this.tick() }
          : { kind: "symlink", target: entry.symlink, mtimeMs: this.tick() }
    )
  }

  /** Adds a directory (and its parents), relative to the root or absolute. */
  addDirectory(path: string): void {
    this.mkdirSync(NodePath.posix.resolve(root, path))
  }

  /** The regular files under the root, by path relative to it (text when it is valid UTF-8, else bytes). */
  files(): Record<string, string | Uint8Array> {
    const out: Record<string, string | Uint8Array> = {}
    for (const [path, node] of [...this.nodes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (node.kind !== "file" || !path.startsWith(`${root}/`)) continue
      const text = node.data.toString("utf8")
      out[path.slice(root.length + 1)] = Buffer.from(text, "utf8").equals(node.data) ? text : new Uint8Array(node.data)
    }
    return out
  }

  // As Node's recursive mkdir: EEXIST when the path itself is a file, ENOTDIR when a parent is.
  private mkdirSync(path: string): void {
    let current = "/"
    const parts = path.split("/").filter((p) => p !== "")
    parts.forEach((part, i) => {
      const located = this.locate(current === "/" ? `/${part}` : `${current}/${part}`, true, "mkdir")
      if (located.node === undefined) this.nodes.set(located.real, { kind: "dir", mtimeMs: this.tick() })
      else if (located.node.kind !== "dir") throw failure(i === parts.length - 1 ? "EEXIST" : "ENOTDIR", "mkdir", path)
      current = located.real
    })
  }

  readonly realpath = async (path: string) => this.existing(path, true, "realpath").real
  readonly stat = async (path: string) => statsOf(this.existing(path, true, "stat").node)
  readonly lstat = async (path: string) => statsOf(this.existing(path, false, "lstat").node)
  readonly readlink = async (path: string) => {
    if (path.startsWith("/proc/")) throw failure("ENOENT", "readlink", path)
    const { node } = this.existing(path, false, "readlink")
    if (node.kind !== "symlink") throw failure("EINVAL", "readlink", path)
    return node.target
  }
  readonly readdir = (async (path: string, options?: { readonly withFileTypes: true }) => {
    const { node, real } = this.existing(path, true, "scandir")
    if (node.kind !== "dir") throw failure("ENOTDIR", "scandir", path)
    const prefix = real === "/" ? "/" : `${real}/`
    const names = [...this.nodes.keys()]
      .filter((key) => key.startsWith(prefix) && key !== real && !key.slice(prefix.length).includes("/"))
      .map((key) => key.slice(prefix.length))
      .sort()
    if (options?.withFileTypes !== true) return names
    return names.map((name) => {
      const child = this.nodes.get(`${prefix}${name}`)!
      return { name, isFile: () => child.kind === "file", isDirectory: () => child.kind === "dir" }
    })
  }) as NodeWorkspace.FileSystem["readdir"]
  readonly mkdir = async (path: string, _options: { readonly recursive: true }) => {
    this.mkdirSync(path)
    return undefined
  }
  readonly unlink = async (path: string) => {
    const { node, real } = this.existing(path, false, "unlink")
    if (node.kind === "dir") throw failure("EISDIR", "unlink", path)
    this.nodes.delete(real)
  }
  readonly open = async (path: string, flags: number, _mode?: number): Promise<NodeWorkspace.FileHandle> => {
    const noFollow = (flags & constants.O_NOFOLLOW) !== 0
    let located = this.locate(path, !noFollow, "open")
    if (located.node?.kind === "symlink") throw failure("ELOOP", "open", path)
    if (located.node === undefined) {
      if ((flags & constants.O_CREAT) === 0) throw failure("ENOENT", "open", path)
      this.nodes.set(located.real, { kind: "file", data: Buffer.alloc(0), mtimeMs: this.tick() })
      located = { real: located.real, node: this.nodes.get(located.real) }
    }
    const node = located.node!
    const writing = (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0
    if (node.kind === "dir" && writing) throw failure("EISDIR", "open", path)
    const fd = this.nextFd++
    const tick = () => this.tick()
    const handle: NodeWorkspace.FileHandle = {
      fd,
      close: async () => undefined,
      read: async (buffer, offset, length, position) => {
        if (node.kind !== "file") throw failure("EISDIR", "read", path)
        const slice = node.data.subarray(position, position + length)
        buffer.set(slice, offset)
        return { bytesRead: slice.length }
      },
      readFile: (async (encoding?: "utf8") => {
        if (node.kind !== "file") throw failure("EISDIR", "read", path)
        return encoding === "utf8" ? node.data.toString("utf8") : Buffer.from(node.data)
      }) as NodeWorkspace.FileHandle["readFile"],
      stat: async () => statsOf(node),
      truncate: async (length) => {
        if (node.kind !== "file") throw failure("EISDIR", "ftruncate", path)
        node.data = Buffer.from(node.data.subarray(0, length))
        node.mtimeMs = tick()
      },
      writeFile: async (data) => {
        if (node.kind !== "file") throw failure("EISDIR", "write", path)
        node.data = Buffer.from(typeof data === "string" ? Buffer.from(data, "utf8") : data)
        node.mtimeMs = tick()
      }
    }
    return handle
  }
}

/**
 * An in-memory workspace: its layer, and the files it holds now.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { MemoryWorkspace } from "effect-mcp-runtime/testing"
 *
 * const memory: MemoryWorkspace.MemoryWorkspace = MemoryWorkspace.make({ "src/a.ts": "export {}\n" })
 * const paths = Effect.map(memory.files, Object.keys) // => ["src/a.ts"]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryWorkspace {
  readonly layer: Layer.Layer<Workspace, WorkspaceError>
  /** The regular files now, by path relative to the root. */
  readonly files: Effect.Effect<Record<string, string | Uint8Array>>
  readonly fileSystem: MemoryFileSystem
}

/**
 * Builds an in-memory workspace holding `files` (paths relative to the
 * root). Options are the Node workspace's (deny list, limits), minus the
 * root and the file system.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { MemoryWorkspace, TestClient } from "effect-mcp-runtime/testing"
 * import { WorkspaceCapability } from "effect-mcp-runtime/capabilities/workspace"
 *
 * const memory = MemoryWorkspace.make({ "README.md": "# Hello\n", ".env": "SECRET=1\n" })
 * const test = Effect.gen(function* () {
 *   const client = yield* TestClient.make(WorkspaceCapability.pipe(Layer.provide(memory.layer)))
 *   yield* client.expectToolError("workspace_read", { path: ".env" }, "path_rejected:denied")
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  files: Readonly<Record<string, Entry>> = {},
  options: Omit<NodeWorkspace.Options, "root" | "fileSystem"> = {}
): MemoryWorkspace => {
  const fileSystem = new MemoryFileSystem()
  fileSystem.addDirectory(".")
  for (const [path, entry] of Object.entries(files)) fileSystem.add(path, entry)
  return {
    layer: Layer.effect(Workspace, NodeWorkspace.make({ ...options, root, fileSystem })),
    files: Effect.sync(() => fileSystem.files()),
    fileSystem
  }
}
