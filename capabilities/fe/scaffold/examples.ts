/**
 * Path helpers for `fe_scaffold`: name styles (PascalCase, camelCase,
 * kebab-case), directories, relative import specifiers, the import alias
 * the project uses (from its import graph), and the file naming an example
 * shows.
 *
 * @since 0.4.0
 */
import type { ImportGraph } from "../graph/graph.ts"

/**
 * `UserCard` → `user-card`; `useToggle` → `use-toggle`.
 *
 * **Example**
 *
 * ```ts
 * import { kebab } from "./capabilities/fe/scaffold/examples.ts"
 *
 * kebab("UserCard") // "user-card"
 * ```
 *
 * @category naming
 * @since 0.4.0
 */
export const kebab = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase()

/**
 * `user-card` or `user_card` → `UserCard`.
 *
 * **Example**
 *
 * ```ts
 * import { pascal } from "./capabilities/fe/scaffold/examples.ts"
 *
 * pascal("user-card") // "UserCard"
 * ```
 *
 * @category naming
 * @since 0.4.0
 */
export const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")

/**
 * `UserCard` → `userCard`.
 *
 * **Example**
 *
 * ```ts
 * import { camel } from "./capabilities/fe/scaffold/examples.ts"
 *
 * camel("UserCard") // "userCard"
 * ```
 *
 * @category naming
 * @since 0.4.0
 */
export const camel = (name: string): string => {
  const p = pascal(name)
  return p.charAt(0).toLowerCase() + p.slice(1)
}

/**
 * The directory of a root-relative path (`""` for the root).
 *
 * **Example**
 *
 * ```ts
 * import { dirOf } from "./capabilities/fe/scaffold/examples.ts"
 *
 * dirOf("src/a/b.ts") // "src/a"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const dirOf = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "")

/**
 * The file name of a path.
 *
 * **Example**
 *
 * ```ts
 * import { baseOf } from "./capabilities/fe/scaffold/examples.ts"
 *
 * baseOf("src/a/b.ts") // "b.ts"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const baseOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/**
 * A file name without its extension(s) of code: `Button.tsx` → `Button`,
 * `format.test.ts` → `format.test`.
 *
 * **Example**
 *
 * ```ts
 * import { stemOf } from "./capabilities/fe/scaffold/examples.ts"
 *
 * stemOf("src/components/Button.tsx") // "Button"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const stemOf = (path: string): string => baseOf(path).replace(/\.(d\.)?[mc]?[jt]sx?$|\.(vue|svelte|astro)$/, "")

/**
 * The extension of a path (`.tsx`), or `""`.
 *
 * **Example**
 *
 * ```ts
 * import { extOf } from "./capabilities/fe/scaffold/examples.ts"
 *
 * extOf("src/components/Button.module.css") // ".css"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const extOf = (path: string): string => {
  const base = baseOf(path)
  return base.includes(".") ? base.slice(base.lastIndexOf(".")) : ""
}

/**
 * Joins root-relative segments: empty ones and `.` skipped, `..` going up
 * (never above the root).
 *
 * **Example**
 *
 * ```ts
 * import { joinRelative } from "./capabilities/fe/scaffold/examples.ts"
 *
 * joinRelative("app/dashboard", "../page.module.css") // "app/page.module.css"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const joinRelative = (...parts: ReadonlyArray<string>): string => {
  const out: Array<string> = []
  for (const segment of parts.flatMap((part) => part.split("/"))) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") out.pop()
    else out.push(segment)
  }
  return out.join("/")
}

/**
 * The relative import specifier from a file's directory to a target path
 * (`./x`, `../a/x`), with the target's extension kept or dropped.
 *
 * **Example**
 *
 * ```ts
 * import { relativeSpecifier } from "./capabilities/fe/scaffold/examples.ts"
 *
 * relativeSpecifier("src/components", "src/lib/format.ts", false) // "../lib/format"
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const relativeSpecifier = (fromDir: string, target: string, keepExtension: boolean): string => {
  const from = fromDir === "" ? [] : fromDir.split("/")
  const to = target.split("/")
  let common = 0
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++
  const up = from.length - common
  const rest = to.slice(common).join("/")
  const withoutExtension = keepExtension ? rest : rest.replace(/\.(d\.)?[mc]?[jt]sx?$/, "").replace(/\/index$/, "")
  return (up === 0 ? "./" : "../".repeat(up)) + withoutExtension
}

/**
 * An import alias of the project: specifiers starting with `prefix` name
 * files under `base` (`@/` → `""`, `~/` → `src/`).
 *
 * **Example**
 *
 * ```ts
 * import type { Alias } from "./capabilities/fe/scaffold/examples.ts"
 *
 * const at: Alias = { prefix: "@/", base: "", from: ["app/page.tsx"], aliased: 7, relativeAcross: 2 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Alias {
  readonly prefix: string
  readonly base: string
  /** Files that use it (up to three). */
  readonly from: ReadonlyArray<string>
  /** How many imports of the project's own files use it, and how many go relative across directories. */
  readonly aliased: number
  readonly relativeAcross: number
}

/**
 * The import alias the project uses most (from its graph: imports that are
 * not relative and resolve to a project file), or undefined when none.
 *
 * **Example**
 *
 * ```ts
 * import { aliasOf } from "./capabilities/fe/scaffold/examples.ts"
 * import type { ImportGraph } from "./capabilities/fe/graph/graph.ts"
 *
 * declare const graph: ImportGraph
 * aliasOf(graph)?.prefix // "@/"
 * ```
 *
 * @category analysis
 * @since 0.4.0
 */
export const aliasOf = (graph: ImportGraph): Alias | undefined => {
  const counts = new Map<string, { prefix: string; base: string; count: number; from: Array<string> }>()
  let relativeAcross = 0
  for (const path of graph.files()) {
    for (const edge of graph.file(path)?.imports ?? []) {
      if (edge.resolution._tag !== "File") continue
      if (edge.specifier.startsWith(".")) {
        if (edge.specifier.startsWith("../")) relativeAcross++
        continue
      }
      const stem = edge.resolution.path.replace(/\.(d\.)?[mc]?[jt]sx?$/, "").replace(/\/index$/, "")
      const specifier = edge.specifier.replace(/\.(d\.)?[mc]?[jt]sx?$/, "").replace(/\/index$/, "")
      // The longest common tail of segments: what the alias maps; the rest is the prefix and its base.
      const a = specifier.split("/")
      const b = stem.split("/")
      let tail = 0
      while (tail < a.length - 1 && tail < b.length && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
      if (tail === 0) continue
      const prefix = a.slice(0, a.length - tail).join("/") + "/"
      const base = b.slice(0, b.length - tail).join("/")
      const key = `${prefix}\u0000${base}`
      const entry = counts.get(key) ?? { prefix, base: base === "" ? "" : `${base}/`, count: 0, from: [] }
      entry.count++
      if (entry.from.length < 3 && !entry.from.includes(path)) entry.from.push(path)
      counts.set(key, entry)
    }
  }
  let best: { prefix: string; base: string; count: number; from: Array<string> } | undefined
  for (const entry of counts.values()) if (best === undefined || entry.count > best.count) best = entry
  return best === undefined
    ? undefined
    : { prefix: best.prefix, base: best.base, from: best.from, aliased: best.count, relativeAcross }
}

/**
 * How a file's name relates to its main export's name: the same
 * (`PascalCase` for a component, `camelCase` for a hook or function),
 * `kebab-case`, `index` (a folder per component), or unknown.
 *
 * **Example**
 *
 * ```ts
 * import { namingOf } from "./capabilities/fe/scaffold/examples.ts"
 *
 * namingOf("src/components/user-card.tsx", "UserCard") // "kebab-case"
 * ```
 *
 * @category analysis
 * @since 0.4.0
 */
export const namingOf = (path: string, name: string): "same" | "kebab-case" | "index" | undefined => {
  const stem = stemOf(path)
  if (stem === name) return kebab(name) === name ? undefined : "same"
  if (stem === kebab(name)) return "kebab-case"
  if (stem === "index") return "index"
  return undefined
}
