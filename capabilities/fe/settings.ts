/**
 * The `fe` capability's settings: which Node runs the project's tools, and
 * the time and output limits of `fe_verify`'s steps.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"

/**
 * The settings' shape.
 *
 * @category models
 * @since 0.1.0
 */
export interface FeSettingsShape {
  /**
   * The Node.js executable that runs the project's own tools (their `bin`
   * entry files): by default the one running the server.
   */
  readonly node: string
  /** A step's timeout when the call gives none, in ms. */
  readonly defaultStepTimeoutMs: number
  /** The largest step timeout a call may ask for, in ms. */
  readonly maxStepTimeoutMs: number
  /** The output kept per stream of a step, in bytes (reports larger than this fail the step). */
  readonly maxOutputBytes: number
}

/**
 * The defaults: the server's own Node, 5 minutes a step (30 at most), 32
 * MiB of output a stream.
 *
 * **Example**
 *
 * ```ts
 * import { defaultFeSettings } from "./capabilities/fe/settings.ts"
 *
 * defaultFeSettings.defaultStepTimeoutMs // => 300000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultFeSettings: FeSettingsShape = {
  node: process.execPath,
  defaultStepTimeoutMs: 300_000,
  maxStepTimeoutMs: 1_800_000,
  maxOutputBytes: 32 * 1024 * 1024
}

/**
 * The settings reference, read when the capability is built; its default is
 * {@link defaultFeSettings}.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { defaultFeSettings, FeSettings } from "./capabilities/fe/settings.ts"
 *
 * const Quick = Layer.succeed(FeSettings, { ...defaultFeSettings, defaultStepTimeoutMs: 60_000 })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const FeSettings = Context.Reference<FeSettingsShape>("effect-mcp-runtime/capabilities/fe/FeSettings", {
  defaultValue: () => defaultFeSettings
})
