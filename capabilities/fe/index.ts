/**
 * The `fe` capability: the understand → verify → diagnose loop for
 * TypeScript and JavaScript projects — `fe_skeleton` (a token-budgeted map
 * of the code's exports and imports), `fe_verify` (typecheck, lint and tests
 * with the project's own tools) and `fe_doctor` (the cause and the fix of
 * each problem verify finds). The three share the project detection
 * (framework, package manager, tsconfig, linter, test runner, source
 * directory) — and `fe_impact` (who depends on a file or an exported
 * symbol, over the cached import graph). It also serves each `fe_verify` step's whole output as the
 * resource `fe://build/<id>`, and the prompt `fe_fix_project` (the loop, for the agent to follow). It
 * requires the `Workspace` and `CommandRunner` services. See
 * `docs/capabilities/fe.md`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Capability from "../../src/Capability.ts"
import { makeBatch } from "./batch.ts"
import { budget } from "./budget.ts"
import { buildLog } from "./buildLog.ts"
import { diff } from "./diff.ts"
import { doctor } from "./doctor.ts"
import { fixProject } from "./fixProject.ts"
import * as FeGraph from "./graph/cache.ts"
import { impact } from "./impact.ts"
import { scaffold } from "./scaffold.ts"
import { skeleton } from "./skeleton.ts"
import { surgeon } from "./surgeon.ts"
import { FeSettings } from "./settings.ts"
import { FeSkeletons } from "./skeleton/cache.ts"
import * as FeState from "./state.ts"
import { makeVerify } from "./verify.ts"
import { FeBuildLogs } from "./verify/logs.ts"

/**
 * The capability layer: `Layer<never, KernelError, Kernel | Workspace |
 * CommandRunner>`. Provide `FeSettings` to change the Node executable or the
 * step limits.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { FeCapability } from "./capabilities/fe/index.ts"
 *
 * const Frontend = FeCapability.pipe(
 *   Layer.provide(NodeCommandRunner.layer()),
 *   Layer.provide(NodeWorkspace.layer({ root: "/srv/app" }))
 * )
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const FeCapability = Capability.make(
  {
    id: "fe",
    description:
      "Map, verify and diagnose TypeScript and JavaScript projects: skeleton, typecheck/lint/test, doctor, impact",
    version: "0.2.0"
  },
  Effect.map(Effect.service(FeSettings), (settings) => ({
    tools: [skeleton, makeVerify(settings), doctor, impact, scaffold, surgeon, makeBatch(settings), diff, budget],
    resources: [buildLog],
    prompts: [fixProject]
  }))
).pipe(Layer.provide(Layer.mergeAll(FeState.layer, FeGraph.layer, FeSkeletons.layer, FeBuildLogs.layer)))

export {
  /**
   * `fe_skeleton`.
   *
   * @since 0.1.0
   */
  skeleton
} from "./skeleton.ts"
export {
  /**
   * `fe_impact`.
   *
   * @since 0.4.0
   */
  impact
} from "./impact.ts"
export {
  /**
   * The resource template `fe://build/{id}` (a `fe_verify` step's output).
   *
   * @since 0.5.0
   */
  buildLog
} from "./buildLog.ts"
export {
  /**
   * The prompt `fe_fix_project`.
   *
   * @since 0.5.0
   */
  fixProject
} from "./fixProject.ts"
export {
  /**
   * `fe_doctor`.
   *
   * @since 0.1.0
   */
  doctor
} from "./doctor.ts"
export {
  /**
   * `fe_verify`, for given settings.
   *
   * @since 0.1.0
   */
  makeVerify
} from "./verify.ts"
export {
  /**
   * The default settings (see `settings.ts`).
   *
   * @since 0.1.0
   */
  defaultFeSettings,
  /**
   * The settings reference, read when the capability is built (see `settings.ts`).
   *
   * @since 0.1.0
   */
  FeSettings
} from "./settings.ts"
