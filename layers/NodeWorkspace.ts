/**
 * The workspace on the local file system (Node): the workspace engine
 * (every path check, the deny list, `.gitignore`, limits, search, patches)
 * on `node:fs/promises`.
 *
 * **Why `node:fs` and not Effect's `FileSystem`.** Every operation needs
 * something `FileSystem` does not expose: `lstat` (to see a symlink or a
 * FIFO rather than what it points to), `readlink` of a dangling link, `open`
 * with `O_NOFOLLOW | O_NONBLOCK`, and `fstat` of the opened descriptor. So
 * the engine runs on `node:fs/promises` directly, wrapped in
 * `Effect.tryPromise` with every error mapped to the workspace's typed
 * errors. How a path is resolved and a file opened is described in
 * `docs/workspace.md`.
 *
 * @since 0.1.0
 */
import * as nodeFs from "node:fs/promises"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Engine from "../src/internal/fileWorkspace.ts"
import { Workspace, type WorkspaceError } from "../src/Workspace.ts"

export type {
  /**
   * The parts of `fs.Dirent` the workspace reads.
   *
   * @category models
   * @since 0.1.0
   */
  DirectoryEntry,
  /**
   * The parts of `fs.promises.FileHandle` the workspace uses.
   *
   * @category models
   * @since 0.1.0
   */
  FileHandle,
  /**
   * What the workspace needs of a file system: a subset of
   * `node:fs/promises` (the default). The test kit's in-memory workspace
   * gives it a file system in memory, so both run the very same checks.
   *
   * @category models
   * @since 0.1.0
   */
  FileSystem,
  /**
   * The parts of `fs.Stats` the workspace reads.
   *
   * @category models
   * @since 0.1.0
   */
  FileStats,
  /**
   * The options of the workspace: its root, deny list and limits (see
   * `docs/workspace.md`).
   *
   * @category models
   * @since 0.1.0
   */
  Options
} from "../src/internal/fileWorkspace.ts"

/**
 * Builds the workspace on the local disk (or on `options.fileSystem`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 *
 * const listRoot = Effect.scoped(Effect.flatMap(NodeWorkspace.make({ root: "." }), (workspace) => workspace.list("")))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Engine.Options = {}): Effect.Effect<Workspace["Service"], WorkspaceError> =>
  Engine.make({ ...options, fileSystem: options.fileSystem ?? (nodeFs as unknown as Engine.FileSystem) })

/**
 * The workspace on the local disk as a layer.
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
export const layer = (options: Engine.Options = {}): Layer.Layer<Workspace, WorkspaceError> =>
  Layer.effect(Workspace, make(options))
