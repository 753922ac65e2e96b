/**
 * The code capability's settings: the sandbox's limits for each run, the
 * largest source accepted, and where learned capabilities are kept.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { defaultLimits, type Limits } from "../../src/Sandbox.ts"

/**
 * The code capability's settings: the sandbox's limits for each run
 * (`Sandbox.Limits`), and its own.
 *
 * **Example**
 *
 * ```ts
 * import { type CodeSettingsShape, defaultCodeSettings } from "./capabilities/code/settings.ts"
 *
 * const strict: CodeSettingsShape = { ...defaultCodeSettings, maxCalls: 50, cpuMs: 1000 }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface CodeSettingsShape extends Limits {
  /** The largest source `code_run` and `code_save` accept, in bytes. */
  readonly maxCodeBytes: number
  /** The most learned capabilities the store keeps. */
  readonly maxLearned: number
}

/**
 * The defaults: the sandbox's limits for each run (`Sandbox.defaultLimits`:
 * 64 MiB of memory, 256 KiB of stack, 5 s of CPU time, 1,000 calls, 64 KiB
 * of console output, a 1 MiB result), 100 KiB of source, 500 learned
 * capabilities.
 *
 * **Example**
 *
 * ```ts
 * import { defaultCodeSettings } from "./capabilities/code/settings.ts"
 *
 * defaultCodeSettings.maxCalls // => 1000
 * ```
 *
 * @category defaults
 * @since 0.3.0
 */
export const defaultCodeSettings: CodeSettingsShape = {
  ...defaultLimits,
  maxCodeBytes: 100 * 1024,
  maxLearned: 500
}

/**
 * The settings in force (the defaults unless the composition provides
 * others).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { CodeSettings, defaultCodeSettings } from "./capabilities/code/settings.ts"
 *
 * const strict = Effect.provideService(Effect.void, CodeSettings, { ...defaultCodeSettings, maxCalls: 10 })
 * ```
 *
 * @category services
 * @since 0.3.0
 */
export const CodeSettings = Context.Reference<CodeSettingsShape>("effect-mcp-runtime/capabilities/code/CodeSettings", {
  defaultValue: () => defaultCodeSettings
})

const Int = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum), Schema.isLessThanOrEqualTo(maximum))
const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * The `code` section of the configuration file (the store's path is the
 * binary's: see `code.storePath` in the configuration reference).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { CodeSettingsSchema } from "./capabilities/code/settings.ts"
 *
 * Schema.decodeUnknownSync(CodeSettingsSchema)({ maxCalls: 100 }).cpuMs // => 5000
 * ```
 *
 * @category schemas
 * @since 0.3.0
 */
export const CodeSettingsSchema = Schema.Struct({
  memoryBytes: withDefault(
    Int(1024 * 1024, 4 * 1024 * 1024 * 1024).annotate({ description: "Memory per run's isolate, in bytes" }),
    defaultCodeSettings.memoryBytes
  ),
  stackBytes: withDefault(
    Int(64 * 1024, 64 * 1024 * 1024).annotate({ description: "Stack per run's isolate, in bytes" }),
    defaultCodeSettings.stackBytes
  ),
  cpuMs: withDefault(
    Int(1, 10 * 60 * 1000).annotate({ description: "CPU time a run's own code may take, in ms" }),
    defaultCodeSettings.cpuMs
  ),
  maxCalls: withDefault(
    Int(0, 1_000_000).annotate({ description: "Most mcp.* calls per run" }),
    defaultCodeSettings.maxCalls
  ),
  maxConsoleBytes: withDefault(
    Int(0, 64 * 1024 * 1024).annotate({ description: "Console output kept per run, in bytes" }),
    defaultCodeSettings.maxConsoleBytes
  ),
  maxResultBytes: withDefault(
    Int(1, 256 * 1024 * 1024).annotate({ description: "Largest returned value, serialized, in bytes" }),
    defaultCodeSettings.maxResultBytes
  ),
  maxCodeBytes: withDefault(
    Int(1, 16 * 1024 * 1024).annotate({ description: "Largest source accepted, in bytes" }),
    defaultCodeSettings.maxCodeBytes
  ),
  maxLearned: withDefault(
    Int(0, 100_000).annotate({ description: "Most learned capabilities kept" }),
    defaultCodeSettings.maxLearned
  ),
  storePath: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1)).annotate({
      description:
        "Directory of the learned capabilities (relative to the root); default: a directory per root under " +
        "$XDG_STATE_HOME/mcp-runtime/code"
    })
  )
})
