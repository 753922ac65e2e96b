/**
 * The import graph as the operations of one plan see it: the cached graph
 * (the files as they are on disk) corrected for the files earlier
 * operations changed or created in the overlay — their imports read again
 * from their new text, each specifier resolved as the graph resolved it in
 * that file, or (a new relative specifier) against the project's files and
 * the overlay's.
 *
 * @since 0.4.0
 */
import type { ImportEdge, ImportGraph } from "../graph/graph.ts"
import { importsOf } from "../graph/graph.ts"
import type { Resolution } from "../graph/resolve.ts"
import { extract, type Parse } from "../skeleton/extract.ts"

/**
 * What the operations read of the import graph.
 *
 * **Example**
 *
 * ```ts
 * import type { ImportView } from "./capabilities/fe/edit/view.ts"
 *
 * declare const view: ImportView
 * view.importersOf("src/lib/format.ts")
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ImportView {
  readonly importersOf: (path: string) => ReadonlyArray<string>
  readonly importsOf: (path: string) => ReadonlyArray<ImportEdge>
  /** The names a file exports itself (`default` for its default export), and `*` when it has an `export * from`. */
  readonly exportNames: (path: string) => ReadonlyArray<string>
}

const candidates = (base: string): ReadonlyArray<string> => {
  const stem = base.replace(/\.(?:js|jsx|mjs|cjs)$/, "")
  const typed = stem !== base ? [".ts", ".tsx", ".mts", ".cts"].map((e) => stem + e) : []
  return [
    base,
    ...typed,
    ...[".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", ".cts", ".cjs"].map((e) => base + e),
    ...["/index.ts", "/index.tsx", "/index.js", "/index.jsx"].map((e) => base + e)
  ]
}

const join = (dir: string, relative: string): string | undefined => {
  const parts = dir === "" ? [] : dir.split("/")
  for (const segment of relative.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (parts.length === 0) return undefined
      parts.pop()
    } else parts.push(segment)
  }
  return parts.join("/")
}

/**
 * The project file a relative specifier written in `from` names (extension, `.js` for `.ts`, or `index` added as
 * module resolution does), among the files `exists` knows; undefined for a package or alias specifier.
 *
 * **Example**
 *
 * ```ts
 * import { resolveRelative } from "./capabilities/fe/edit/view.ts"
 *
 * resolveRelative("src/app.ts", "./lib/a.js", (path) => path === "src/lib/a.ts") // => "src/lib/a.ts"
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const resolveRelative = (
  from: string,
  specifier: string,
  exists: (path: string) => boolean
): string | undefined => {
  if (!specifier.startsWith(".")) return undefined
  const base = join(from.includes("/") ? from.slice(0, from.lastIndexOf("/")) : "", specifier)
  if (base === undefined) return undefined
  return candidates(base).find(exists)
}

/**
 * What a view read from a changed file's text: its imports (unresolved) and, once asked, its export names.
 *
 * @category models
 * @since 0.4.0
 */
export interface ViewCacheEntry {
  readonly text: string
  readonly imports: ReadonlyArray<Omit<ImportEdge, "resolution">>
  exports: ReadonlyArray<string> | undefined
}

/**
 * The graph seen through an overlay of changed texts (`text(path)` is the
 * overlay's text, undefined for a file the overlay does not hold, `changed`
 * lists the paths whose text differs from the disk's).
 *
 * **Example**
 *
 * ```ts
 * import type { ImportGraph } from "./capabilities/fe/graph/graph.ts"
 * import type { Parse } from "./capabilities/fe/skeleton/extract.ts"
 * import { viewOf } from "./capabilities/fe/edit/view.ts"
 *
 * declare const graph: ImportGraph
 * declare const parse: Parse
 * const view = viewOf(graph, parse, new Map([["src/a.ts", 'import { b } from "./b"\n']]))
 * view.importsOf("src/a.ts")
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const viewOf = (
  graph: ImportGraph,
  parse: Parse,
  changed: ReadonlyMap<string, string | undefined>,
  /** Kept across views (one plan's operations): a changed file's imports and exports by its text, read once. */
  cache: Map<string, ViewCacheEntry> = new Map()
): ImportView => {
  const graphExports = (path: string) =>
    (graph.exportsOf(path) ?? []).map((entry) => (entry.isDefault ? "default" : entry.name))
  if (changed.size === 0) {
    return {
      importersOf: (path) => graph.importersOf(path),
      importsOf: (path) => graph.file(path)?.imports ?? [],
      exportNames: graphExports
    }
  }
  const exists = (path: string) =>
    changed.has(path) ? changed.get(path) !== undefined : graph.file(path) !== undefined
  const known = (path: string): Resolution | undefined => {
    for (const candidate of candidates(path)) if (exists(candidate)) return { _tag: "File", path: candidate }
    return undefined
  }
  const edges = new Map<string, ReadonlyArray<ImportEdge>>()
  const entryOf = (path: string, text: string): ViewCacheEntry => {
    const hit = cache.get(path)
    if (hit !== undefined && hit.text === text) return hit
    const entry: ViewCacheEntry = { text, imports: importsOf(parse, path, text).imports, exports: undefined }
    cache.set(path, entry)
    return entry
  }
  for (const [path, text] of changed) {
    if (text === undefined) {
      edges.set(path, [])
      continue
    }
    const before = graph.file(path)?.imports ?? []
    const read = entryOf(path, text).imports
    edges.set(
      path,
      read.map((edge) => {
        const same = before.find((b) => b.specifier === edge.specifier)
        let resolution: Resolution | undefined = same?.resolution
        if (resolution === undefined && edge.specifier.startsWith(".")) {
          const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ""
          const base = join(dir, edge.specifier)
          resolution = base === undefined ? undefined : known(base)
        }
        return { ...edge, resolution: resolution ?? { _tag: "Unresolved", reason: "not resolved in the overlay" } }
      })
    )
  }
  const importsOfPath = (path: string) => edges.get(path) ?? graph.file(path)?.imports ?? []
  return {
    importsOf: importsOfPath,
    exportNames: (path) => {
      const text = changed.get(path)
      if (!changed.has(path)) return graphExports(path)
      if (text === undefined) return []
      const entry = entryOf(path, text)
      if (entry.exports !== undefined) return entry.exports
      const skeleton = extract(parse, path, text)
      const names = skeleton.exports.map((e) => (e.isDefault ? "default" : e.name))
      entry.exports = names
      return names
    },
    importersOf: (path) => {
      const out = new Set(graph.importersOf(path).filter((importer) => !changed.has(importer)))
      for (const [importer] of changed) {
        if (importsOfPath(importer).some((e) => e.resolution._tag === "File" && e.resolution.path === path)) {
          out.add(importer)
        }
      }
      return [...out]
    }
  }
}

/**
 * Whether a file exports `name`, itself or through its `export * from`
 * chains (cycles followed once).
 *
 * **Example**
 *
 * ```ts
 * import { exportsName, type ImportView } from "./capabilities/fe/edit/view.ts"
 *
 * declare const view: ImportView
 * exportsName(view, "src/lib/index.ts", "formatPrice")
 * ```
 *
 * @category queries
 * @since 0.4.0
 */
export const exportsName = (view: ImportView, path: string, name: string, seen: Set<string> = new Set()): boolean => {
  if (seen.has(path)) return false
  seen.add(path)
  const names = view.exportNames(path)
  if (names.includes(name)) return true
  if (!names.includes("*")) return false
  return view
    .importsOf(path)
    .some(
      (edge) =>
        edge.kind === "reexport" &&
        edge.names.includes("*") &&
        edge.resolution._tag === "File" &&
        exportsName(view, edge.resolution.path, name, seen)
    )
}
