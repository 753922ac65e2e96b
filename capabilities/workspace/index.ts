/**
 * The `workspace` capability: files under the workspace root —
 * `workspace_read`, `workspace_list`, `workspace_stat`, `workspace_search`
 * (read-only) and `workspace_write`, `workspace_edit`,
 * `workspace_apply_patch` (destructive, confirmed by the user), and the
 * resource template `workspace://{+path}` (each file as a resource, listed in
 * `resources/list`). It requires the `Workspace` service
 * (`layers/NodeWorkspace.ts` on Node).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Capability from "../../src/Capability.ts"
import { applyPatch } from "./applyPatch.ts"
import { edit } from "./edit.ts"
import { fileResource } from "./fileResource.ts"
import { list } from "./list.ts"
import { read } from "./read.ts"
import { search } from "./search.ts"
import { stat } from "./stat.ts"
import { write } from "./write.ts"

/**
 * The capability layer: `Layer<never, KernelError, Kernel | Workspace>`.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { WorkspaceCapability } from "./capabilities/workspace/index.ts"
 *
 * const Files = WorkspaceCapability.pipe(Layer.provide(NodeWorkspace.layer({ root: "/srv/project" })))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const WorkspaceCapability = Capability.make(
  {
    id: "workspace",
    description: "Read, list, search, inspect, write, edit and patch files under the workspace root",
    version: "0.1.0"
  },
  Effect.succeed({
    tools: [read, list, stat, search, write, edit, applyPatch],
    resources: [fileResource]
  })
)

export {
  /**
   * `workspace_apply_patch`.
   *
   * @since 0.1.0
   */
  applyPatch,
  /**
   * `workspace_edit`.
   *
   * @since 0.1.0
   */
  edit,
  /**
   * The resource template `workspace://{+path}`.
   *
   * @since 0.1.0
   */
  fileResource,
  /**
   * `workspace_list`.
   *
   * @since 0.1.0
   */
  list,
  /**
   * `workspace_read`.
   *
   * @since 0.1.0
   */
  read,
  /**
   * `workspace_search`.
   *
   * @since 0.1.0
   */
  search,
  /**
   * `workspace_stat`.
   *
   * @since 0.1.0
   */
  stat,
  /**
   * `workspace_write`.
   *
   * @since 0.1.0
   */
  write
}
