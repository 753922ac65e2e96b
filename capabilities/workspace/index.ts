/**
 * The `workspace` capability: files under the workspace root —
 * `workspace_read`, `workspace_list`, `workspace_stat` (read-only) and
 * `workspace_write`, `workspace_edit` (destructive, confirmed by the user).
 * It requires the `Workspace` service (`layers/NodeWorkspace.ts` on Node).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Capability from "../../src/Capability.ts"
import { edit } from "./edit.ts"
import { list } from "./list.ts"
import { read } from "./read.ts"
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
    description: "Read, list, inspect, write and edit files under the workspace root",
    version: "0.1.0"
  },
  Effect.succeed({ tools: [read, list, stat, write, edit] })
)

export {
  /**
   * `workspace_edit`.
   *
   * @since 0.1.0
   */
  edit,
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
