/**
 * The `fe` capability's shared state: the detected project (computed once
 * per root, detected again when `package.json` or a lockfile changes) and
 * the problems of the last `fe_verify`, which `fe_doctor` diagnoses when it
 * is called without a problem.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Tool from "../../src/Tool.ts"
import type { Problem } from "./problem.ts"
import type { ProjectInfo } from "./project.ts"

/**
 * The state service. `FeState.layer` (in `index.ts`) builds it over the
 * `Workspace`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FeState } from "./capabilities/fe/state.ts"
 *
 * const framework = Effect.map(Effect.flatMap(Effect.service(FeState), (state) => state.project), (p) => p.framework)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class FeState extends Context.Service<
  FeState,
  {
    /** The project at the root; detected again when package.json or a lockfile changed since. */
    readonly project: Effect.Effect<ProjectInfo, Tool.ToolError>
    /** The problems of the last fe_verify run, or undefined when none ran. */
    readonly lastVerify: Effect.Effect<ReadonlyArray<Problem> | undefined>
    /** Records the problems of a verify run. */
    readonly setLastVerify: (problems: ReadonlyArray<Problem>) => Effect.Effect<void>
  }
>()("effect-mcp-runtime/capabilities/fe/FeState") {}
