/**
 * Where learned capabilities are kept: snippets of code saved with
 * `code_save` under `namespace:action`, with a description and the JSON
 * Schema of their input. A service, so a store can live in a directory (the
 * binary's: one JSON file per capability, under the state directory) or in
 * memory (tests, the test kit).
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"

/**
 * The pattern of a learned capability's namespace and action: a letter, then
 * letters, digits and underscores (lower case for the namespace, as a
 * capability id).
 *
 * **Example**
 *
 * ```ts
 * import { namePattern } from "./capabilities/code/store.ts"
 *
 * namePattern.test("github:open_issues") // => true
 * namePattern.test("GitHub:open") // => false
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const namePattern = /^([a-z][a-z0-9_]{0,29}):([A-Za-z][A-Za-z0-9_]{0,29})$/

/**
 * A learned capability as stored.
 *
 * **Example**
 *
 * ```ts
 * import type { Learned } from "./capabilities/code/store.ts"
 *
 * const learned: Learned = {
 *   name: "notes:count",
 *   description: "Counts the notes.",
 *   inputSchema: { type: "object", properties: {} },
 *   code: "const listed = await mcp.workspace.list({ path: 'notes' }); return listed.entries.length",
 *   language: "typescript",
 *   references: ["workspace_list"],
 *   savedAt: "2026-11-25T12:00:00.000Z"
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface Learned {
  /** `namespace:action`. */
  readonly name: string
  readonly description: string
  /** The JSON Schema (an object) of its input, which the code reads as `input`. */
  readonly inputSchema: { readonly [key: string]: unknown }
  readonly code: string
  readonly language: "javascript" | "typescript"
  /** The public names of the tools the code calls, found when it was saved. */
  readonly references: ReadonlyArray<string>
  readonly savedAt: string
}

const LearnedSchema = Schema.Struct({
  name: Schema.String.check(Schema.isPattern(namePattern)),
  description: Schema.String,
  inputSchema: Schema.Record(Schema.String, Schema.Unknown),
  code: Schema.String,
  language: Schema.Literals(["javascript", "typescript"]),
  references: Schema.Array(Schema.String),
  savedAt: Schema.String
})
const decodeLearned = Schema.decodeUnknownExit(Schema.fromJsonString(LearnedSchema))

/**
 * The store could not be read or written.
 *
 * **Example**
 *
 * ```ts
 * import { StoreError } from "./capabilities/code/store.ts"
 *
 * new StoreError({ message: "Cannot write /state/code/notes.count.json: EACCES" })
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String
}) {}

/**
 * The store of learned capabilities.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { LearnedStore } from "./capabilities/code/store.ts"
 *
 * const names = Effect.gen(function* () {
 *   const store = yield* LearnedStore
 *   return (yield* store.list).map((learned) => learned.name)
 * })
 * ```
 *
 * @category services
 * @since 0.3.0
 */
export class LearnedStore extends Context.Service<
  LearnedStore,
  {
    /** Every learned capability, by name. An unreadable entry is skipped (and logged), never fatal. */
    readonly list: Effect.Effect<ReadonlyArray<Learned>, StoreError>
    readonly get: (name: string) => Effect.Effect<Learned | undefined, StoreError>
    /** Saves (or replaces) a learned capability. */
    readonly put: (learned: Learned) => Effect.Effect<void, StoreError>
    /** Removes one; `false` when there was none. */
    readonly remove: (name: string) => Effect.Effect<boolean, StoreError>
    /** Where it keeps them, for messages (`code_list` says it; `memory` for an in-memory store). */
    readonly location: string
  }
>()("effect-mcp-runtime/capabilities/code/LearnedStore") {}

/**
 * A store in memory: nothing survives the process.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { LearnedStore, memory } from "./capabilities/code/store.ts"
 *
 * const count = Effect.gen(function* () {
 *   const store = yield* LearnedStore
 *   return (yield* store.list).length
 * }).pipe(Effect.provide(memory))
 * ```
 *
 * @category layers
 * @since 0.3.0
 */
export const memory: Layer.Layer<LearnedStore> = Layer.sync(LearnedStore, () => {
  const entries = new Map<string, Learned>()
  return LearnedStore.of({
    list: Effect.sync(() => [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : 1))),
    get: (name) => Effect.sync(() => entries.get(name)),
    put: (learned) => Effect.sync(() => void entries.set(learned.name, learned)),
    remove: (name) => Effect.sync(() => entries.delete(name)),
    location: "memory"
  })
})

// One file per learned capability: `<namespace>.<action>.json` (neither part has a ".").
const fileName = (name: string): string => `${name.replace(":", ".")}.json`
const filePattern = /^[a-z][a-z0-9_]*\.[A-Za-z][A-Za-z0-9_]*\.json$/

/**
 * A store in a directory, created when first written: one JSON file per
 * learned capability, each written to a temporary file and renamed, so a
 * crash never leaves half a file.
 *
 * **Example**
 *
 * ```ts
 * import { directory } from "./capabilities/code/store.ts"
 *
 * const Store = directory("/home/me/.local/state/mcp-runtime/code/project-0123456789ab")
 * ```
 *
 * @category layers
 * @since 0.3.0
 */
export const directory = (root: string): Layer.Layer<LearnedStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    LearnedStore,
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const failed = (what: string) => (error: { readonly message: string }) =>
        new StoreError({ message: `Cannot ${what}: ${error.message}` })
      const read = (file: string): Effect.Effect<Learned | undefined, StoreError> =>
        fs.readFileString(path.join(root, file)).pipe(
          Effect.map((text) => {
            const decoded = decodeLearned(text)
            return decoded._tag === "Success" && fileName(decoded.value.name) === file ? decoded.value : undefined
          }),
          Effect.tap((learned) =>
            learned === undefined
              ? Effect.logWarning("skipped an unreadable learned capability", { file: path.join(root, file) })
              : Effect.void
          ),
          Effect.catchTag("PlatformError", (error) =>
            error.reason._tag === "NotFound" ? Effect.succeed(undefined) : Effect.fail(failed(`read ${file}`)(error))
          )
        )
      const list = Effect.gen(function* () {
        const exists = yield* fs.exists(root).pipe(Effect.mapError(failed(`read ${root}`)))
        if (!exists) return []
        const files = (yield* fs.readDirectory(root).pipe(Effect.mapError(failed(`read ${root}`))))
          .filter((file) => filePattern.test(file))
          .sort()
        const all = yield* Effect.forEach(files, read, { concurrency: 8 })
        return all.filter((learned): learned is Learned => learned !== undefined)
      })
      return LearnedStore.of({
        list,
        get: (name) => (namePattern.test(name) ? read(fileName(name)) : Effect.succeed(undefined)),
        put: (learned) =>
          Effect.gen(function* () {
            const target = path.join(root, fileName(learned.name))
            const temporary = `${target}.${Math.random().toString(36).slice(2)}.tmp`
            yield* fs.makeDirectory(root, { recursive: true })
            yield* fs.writeFileString(temporary, `${JSON.stringify(learned, null, 2)}\n`)
            yield* fs.rename(temporary, target)
          }).pipe(Effect.mapError(failed(`save ${learned.name} in ${root}`))),
        remove: (name) =>
          fs.remove(path.join(root, fileName(name))).pipe(
            Effect.as(true),
            Effect.catchTag("PlatformError", (error) =>
              error.reason._tag === "NotFound" ? Effect.succeed(false) : Effect.fail(failed(`delete ${name}`)(error))
            )
          ),
        location: root
      })
    })
  )
