/**
 * The `exec` capability: commands from an allowlist — `exec_run`
 * (destructive and open-world, so confirmed by the user), `exec_commands`
 * (read-only: the allowlist) and the resource template `logs://run/{id}`
 * (the whole output of a run). It requires the `CommandRunner` service
 * (`layers/NodeCommandRunner.ts` on Node) and reads its settings from the
 * `ExecSettings` reference when it is built. See `docs/capabilities/exec.md`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Capability from "../../src/Capability.ts"
import { makeCommands } from "./commands.ts"
import { makeRun } from "./run.ts"
import { runLog } from "./runLog.ts"
import { ExecSettings } from "./settings.ts"

/**
 * The capability layer: `Layer<never, KernelError, Kernel | CommandRunner>`.
 * Provide `ExecSettings` to it to change the allowlist or the limits.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 * import { ExecCapability } from "./capabilities/exec/index.ts"
 * import { defaultExecSettings, ExecSettings } from "./capabilities/exec/settings.ts"
 *
 * const Exec = ExecCapability.pipe(
 *   Layer.provide(NodeCommandRunner.layer()),
 *   Layer.provide(Layer.succeed(ExecSettings, { ...defaultExecSettings, additionalCommands: ["make"] }))
 * )
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const ExecCapability = Capability.make(
  {
    id: "exec",
    description: "Run commands from an allowlist in the workspace, and read their logs",
    version: "0.2.0"
  },
  Effect.map(Effect.service(ExecSettings), (settings) => ({
    tools: [makeRun(settings), makeCommands(settings)],
    resources: [runLog]
  }))
)

export {
  /**
   * `exec_commands`, for given settings.
   *
   * @since 0.1.0
   */
  makeCommands,
  /**
   * `exec_run`, for given settings.
   *
   * @since 0.1.0
   */
  makeRun,
  /**
   * The resource template `logs://run/{id}`.
   *
   * @since 0.1.0
   */
  runLog
}
export {
  /**
   * The default settings (see `settings.ts`).
   *
   * @since 0.1.0
   */
  defaultExecSettings,
  /**
   * The settings reference, read when the capability is built (see `settings.ts`).
   *
   * @since 0.1.0
   */
  ExecSettings,
  /**
   * The Schema of the configuration file's `exec` section (see `settings.ts`).
   *
   * @since 0.1.0
   */
  ExecSettingsSchema
} from "./settings.ts"
