/**
 * Finds a project's own tools: the `bin` entry file of a package installed
 * in the root's `node_modules`, which `fe_verify` runs with Node (never a
 * program found on the PATH).
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Effect from "effect/Effect"
import { Workspace } from "../../../src/Workspace.ts"
import { parseJsonc } from "../jsonc.ts"

/**
 * A tool found in `node_modules`: the package, its version and the
 * absolute path of the entry file.
 *
 * @category models
 * @since 0.1.0
 */
export interface Binary {
  readonly packageName: string
  readonly version: string
  readonly entry: string
}

/**
 * The entry file of `bin` in `node_modules/<packageName>` (a package whose
 * `bin` is a string, or a map holding `binName`), or `undefined` when the
 * package is not installed or has no such bin. Read through the Workspace,
 * so a `node_modules` symlinked out of the root is not followed.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { findBinary } from "./capabilities/fe/verify/binaries.ts"
 *
 * const tsc = findBinary("typescript", "tsc") // Effect<Binary | undefined, never, Workspace>
 * ```
 *
 * @category lookup
 * @since 0.1.0
 */
export const findBinary = (packageName: string, binName: string): Effect.Effect<Binary | undefined, never, Workspace> =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const dir = `node_modules/${packageName}`
    const manifest = yield* workspace.read(`${dir}/package.json`).pipe(Effect.option)
    if (manifest._tag === "None") return undefined
    const parsed = parseJsonc(manifest.value.content)
    if (!Predicate.isObject(parsed)) return undefined
    const bin = parsed.bin
    const relative = typeof bin === "string" ? bin : Predicate.isObject(bin) ? bin[binName] : undefined
    if (typeof relative !== "string") return undefined
    const resolved = yield* workspace.resolve(`${dir}/${relative.replace(/^\.\//, "")}`).pipe(Effect.option)
    if (resolved._tag === "None" || !resolved.value.exists) return undefined
    return {
      packageName,
      version: typeof parsed.version === "string" ? parsed.version : "unknown",
      entry: resolved.value.absolute
    }
  })
