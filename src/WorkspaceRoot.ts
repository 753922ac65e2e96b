/**
 * The directory the server works in: `mcp-runtime serve --root DIR`, the
 * current directory by default. Capabilities that touch files resolve paths
 * under it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/**
 * The absolute path of the root directory.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { WorkspaceRoot } from "effect-mcp-runtime/WorkspaceRoot"
 *
 * const program = Effect.provideService(
 *   Effect.map(Effect.service(WorkspaceRoot), (root) => `working in ${root}`),
 *   WorkspaceRoot,
 *   "/srv/project"
 * )
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const WorkspaceRoot = Context.Reference<string>("effect-mcp-runtime/WorkspaceRoot", {
  defaultValue: () => "."
})
