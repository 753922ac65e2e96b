/**
 * The `fe` capability's settings: which Node runs the project's tools, and
 * the time and output limits of `fe_verify`'s steps.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

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

const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * The Schema of the `fe` section of the configuration file. Every key is
 * optional and decodes to its default: `{}` decodes to
 * {@link defaultFeSettings}.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { FeSettingsSchema } from "./capabilities/fe/settings.ts"
 *
 * const settings = Schema.decodeUnknownSync(FeSettingsSchema)({ defaultStepTimeoutMs: 120000 })
 * settings.maxStepTimeoutMs // => 1800000 (the default)
 * ```
 *
 * @category schemas
 * @since 0.1.0
 */
export const FeSettingsSchema = Schema.Struct({
  node: withDefault(
    Schema.String.check(Schema.isMinLength(1), Schema.isPattern(/^\//)).annotate({
      description: "Absolute path of the Node.js that runs the project's tools (default: the server's own)"
    }),
    defaultFeSettings.node
  ),
  defaultStepTimeoutMs: withDefault(
    PositiveInt.annotate({ description: "Timeout of a verify step when the call gives none, in ms (default 300000)" }),
    defaultFeSettings.defaultStepTimeoutMs
  ),
  maxStepTimeoutMs: withDefault(
    PositiveInt.annotate({ description: "Largest step timeout a call may ask for, in ms (default 1800000)" }),
    defaultFeSettings.maxStepTimeoutMs
  ),
  maxOutputBytes: withDefault(
    PositiveInt.annotate({ description: "Output kept per stream of a verify step, in bytes (default 33554432)" }),
    defaultFeSettings.maxOutputBytes
  )
})
