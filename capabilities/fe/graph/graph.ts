/**
 * The import graph of a project: for each source file its imports (static
 * imports, re-exports, `require`, dynamic `import("…")` with a literal), each
 * resolved to a project file, an external module or nothing (see
 * `resolve.ts`), and the reverse edges (who imports a file). The specifiers
 * come from the skeleton's extraction (`extract`), dynamic imports from the
 * same parser's syntax tree; Vue and Svelte `<script>` blocks and Astro's
 * frontmatter are parsed as modules. The graph is kept up to date
 * incrementally: given the project's listing again, only the files whose
 * size or modification time changed are parsed again, and the resolutions
 * are redone when files were added or removed.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import { extract, type FileSkeleton, loadParser, type Parse } from "../skeleton/extract.ts"
import { type PackageInfo, type Resolution, resolve, type ResolveContext, type ResolverConfig } from "./resolve.ts"

/**
 * A file of the project's listing, with what tells whether it changed.
 *
 * @category models
 * @since 0.4.0
 */
export interface ListedFile {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
}

/**
 * How an import is written: `import` (a static import, `import x =
 * require(…)` or a `require(…)` call), `reexport` (`export … from`) or
 * `dynamic` (`import("…")` with a literal).
 *
 * @category models
 * @since 0.4.0
 */
export type ImportKind = "import" | "reexport" | "dynamic"

/**
 * One import of a file, resolved.
 *
 * @category models
 * @since 0.4.0
 */
export interface ImportEdge {
  readonly specifier: string
  readonly kind: ImportKind
  /** The names taken from the module (`default`, `*`, or an export's name); empty for a side-effect or dynamic import. */
  readonly names: ReadonlyArray<string>
  /** Every name is imported with `type` (`import type …`, `export type … from`). */
  readonly typeOnly: boolean
  readonly resolution: Resolution
}

/**
 * A parsed file of the graph.
 *
 * @category models
 * @since 0.4.0
 */
export interface GraphFile {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
  readonly imports: ReadonlyArray<ImportEdge>
  /** The parser's first error, when the file (or one of its scripts) does not parse. */
  readonly error?: string | undefined
}

/**
 * One name a file exports: `*` for an `export * from`, the default export
 * flagged (its name is its declaration's, or `default`).
 *
 * @category models
 * @since 0.4.0
 */
export interface ExportName {
  readonly name: string
  readonly isDefault: boolean
}

/**
 * What building and updating the graph needs: the parser, how to read a
 * file's text, the resolver's configuration and the project's own packages.
 *
 * @category models
 * @since 0.4.0
 */
export interface GraphOptions {
  readonly parse: Parse
  /** A file's text; `undefined` when it cannot be read (the file is then in the graph without imports). */
  readonly read: (path: string) => string | undefined
  readonly config: ResolverConfig
  readonly packages?: ReadonlyArray<PackageInfo> | undefined
}

/**
 * What an update did: the files parsed again (added or changed), the files
 * removed, and the files whose imports were resolved again.
 *
 * @category models
 * @since 0.4.0
 */
export interface UpdateResult {
  readonly parsed: number
  readonly removed: number
  readonly resolved: number
}

/**
 * An unresolved import: the file, its specifier and why.
 *
 * @category models
 * @since 0.4.0
 */
export interface UnresolvedImport {
  readonly file: string
  readonly specifier: string
  readonly reason: string
}

/**
 * The extensions of the files the graph parses.
 *
 * @category constants
 * @since 0.4.0
 */
export const parsedExtensions: ReadonlyArray<string> = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".vue",
  ".svelte",
  ".astro"
]

const isParsed = (path: string): boolean => parsedExtensions.some((ext) => path.endsWith(ext))

// -- reading a file's imports ---------------------------------------------------

type Node = { readonly type: string; readonly [key: string]: any }

interface RawImport {
  readonly specifier: string
  readonly kind: ImportKind
  readonly names: ReadonlyArray<string>
  readonly typeOnly: boolean
}

/** The code blocks of a file: a module's whole text, a component's scripts (Astro: the frontmatter). */
const codeBlocks = (path: string, text: string): Array<{ readonly name: string; readonly code: string }> => {
  if (path.endsWith(".astro")) {
    const lines = text.split("\n")
    if (lines[0]?.trim() !== "---") return []
    const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---")
    return end === -1 ? [] : [{ name: `${path}.ts`, code: lines.slice(1, end).join("\n") }]
  }
  if (!path.endsWith(".vue") && !path.endsWith(".svelte")) return [{ name: path, code: text }]
  const blocks: Array<{ readonly name: string; readonly code: string }> = []
  const lower = text.toLowerCase()
  let from = 0
  while (true) {
    const open = lower.indexOf("<script", from)
    if (open === -1) break
    const tagEnd = lower.indexOf(">", open)
    const close = tagEnd === -1 ? -1 : lower.indexOf("</script>", tagEnd)
    if (close === -1) break
    const tag = lower.slice(open, tagEnd)
    const lang = /\blang\s*=\s*["']?(tsx|ts|typescript)\b/.exec(tag)?.[1]
    blocks.push({
      name: `${path}.${lang === undefined ? "js" : lang === "tsx" ? "tsx" : "ts"}`,
      code: text.slice(tagEnd + 1, close)
    })
    from = close + "</script>".length
  }
  return blocks
}

/** `type Foo as Bar` → { name: "Foo", type: true }; `default as X` → default; `* as ns` → *. */
const importedName = (entry: string): { readonly name: string; readonly type: boolean } => {
  const type = entry.startsWith("type ")
  const rest = type ? entry.slice(5) : entry
  return { name: rest.split(" as ")[0]!, type }
}

const langOf = (name: string): "ts" | "tsx" | "jsx" =>
  name.endsWith(".tsx") ? "tsx" : name.endsWith(".ts") || name.endsWith(".mts") || name.endsWith(".cts") ? "ts" : "jsx"

/** The literal specifiers of `import("…")` expressions anywhere in a syntax tree. */
const dynamicImports = (node: unknown, out: Array<string>): void => {
  if (Array.isArray(node)) {
    for (const item of node) dynamicImports(item, out)
    return
  }
  if (node === null || typeof node !== "object") return
  const n = node as Node
  if (n.type === "ImportExpression") {
    const source = n.source
    if (source?.type === "Literal" && typeof source.value === "string") out.push(source.value)
    else if (source?.type === "TemplateLiteral" && source.expressions?.length === 0) {
      out.push(source.quasis?.[0]?.value?.cooked ?? "")
    }
  }
  for (const key in n) {
    if (key === "type" || key === "start" || key === "end" || key === "range" || key === "parent") continue
    const value = n[key]
    if (value !== null && typeof value === "object") dynamicImports(value, out)
  }
}

/** A code block's imports: the skeleton's imports and re-exports, and the dynamic imports. */
const blockImports = (
  parse: Parse,
  name: string,
  code: string
): { imports: Array<RawImport>; exports: Array<ExportName>; error?: string } => {
  const skeleton: FileSkeleton = extract(parse, name, code)
  const exports: Array<ExportName> = skeleton.exports.map((entry) => ({
    name: entry.name,
    isDefault: entry.isDefault === true
  }))
  const imports: Array<RawImport> = skeleton.imports.map((entry) => {
    const names = entry.names.map(importedName)
    return {
      specifier: entry.from,
      kind: "import",
      names: names.map((n) => n.name),
      typeOnly: names.length > 0 && names.every((n) => n.type)
    }
  })
  // Re-exports from one module grouped into one edge, the type-only ones (`export type … from`) apart.
  const reexports = new Map<
    string,
    { readonly specifier: string; readonly type: boolean; readonly names: Array<string> }
  >()
  for (const entry of skeleton.exports) {
    if (entry.kind !== "reexport" || entry.from === undefined) continue
    const signature = entry.signature
    const type = signature.startsWith("type ")
    const name =
      entry.name === "*" || signature.startsWith("* as")
        ? "*"
        : signature === ""
          ? entry.name
          : importedName(signature).name
    const key = `${type ? "type" : "value"}:${entry.from}`
    const group = reexports.get(key) ?? { specifier: entry.from, type, names: [] }
    group.names.push(name)
    reexports.set(key, group)
  }
  for (const group of reexports.values()) {
    imports.push({ specifier: group.specifier, kind: "reexport", names: group.names, typeOnly: group.type })
  }
  if (code.includes("import(")) {
    const found: Array<string> = []
    dynamicImports(parse(name, code, langOf(name)).program.body, found)
    for (const specifier of found) imports.push({ specifier, kind: "dynamic", names: [], typeOnly: false })
  }
  return skeleton.error !== undefined ? { imports, exports, error: skeleton.error } : { imports, exports }
}

/**
 * The imports a file's text makes, unresolved: its static imports,
 * `require` calls, re-exports and dynamic imports (for Vue, Svelte and
 * Astro files, those of their scripts).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 * import { importsOf } from "./capabilities/fe/graph/graph.ts"
 *
 * const specifiers = Effect.map(loadParser, (parse) =>
 *   importsOf(parse, "src/a.ts", "export * from './b'\nconst c = () => import('./c')").imports.map((i) => i.specifier)
 * ) // ["./b", "./c"]
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const importsOf = (
  parse: Parse,
  path: string,
  text: string
): {
  readonly imports: ReadonlyArray<Omit<ImportEdge, "resolution">>
  readonly error?: string | undefined
} => {
  const read = readModule(parse, path, text)
  return read.error !== undefined ? { imports: read.imports, error: read.error } : { imports: read.imports }
}

/** A file's imports and exports, from all its code blocks. */
const readModule = (
  parse: Parse,
  path: string,
  text: string
): { readonly imports: Array<RawImport>; readonly exports: Array<ExportName>; readonly error?: string | undefined } => {
  const imports: Array<RawImport> = []
  const exports: Array<ExportName> = []
  let error: string | undefined
  for (const block of codeBlocks(path, text)) {
    try {
      const found = blockImports(parse, block.name, block.code)
      imports.push(...found.imports)
      exports.push(...found.exports)
      error ??= found.error
    } catch (cause) {
      error ??= `could not be read: ${cause instanceof Error ? cause.message : String(cause)}`
    }
  }
  return error !== undefined ? { imports, exports, error } : { imports, exports }
}

// -- the graph ------------------------------------------------------------------

interface Entry {
  size: number
  mtimeMs: number
  raw: ReadonlyArray<RawImport>
  exports: ReadonlyArray<ExportName>
  imports: ReadonlyArray<ImportEdge>
  error?: string | undefined
}

/**
 * A project's import graph, mutable through `update`.
 *
 * **Example**
 *
 * ```ts
 * import { ImportGraph } from "./capabilities/fe/graph/graph.ts"
 *
 * declare const graph: ImportGraph
 * graph.importersOf("src/lib/format.ts") // the files that import it directly
 * graph.transitiveImporters("src/lib/format.ts") // with their depth
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export class ImportGraph {
  private readonly listing = new Map<string, ListedFile>()
  private readonly entries = new Map<string, Entry>()
  private readonly importers = new Map<string, Set<string>>()
  private readonly context: ResolveContext
  private readonly options: GraphOptions

  constructor(options: GraphOptions) {
    this.options = options
    this.context = {
      config: options.config,
      files: { has: (path) => this.listing.has(path) },
      packages: new Map((options.packages ?? []).map((p) => [p.name, p]))
    }
  }

  /** Sets a file's resolved imports, fixing the reverse edges of its old and new targets. */
  private setImports(path: string, entry: Entry, imports: ReadonlyArray<ImportEdge>): void {
    for (const edge of entry.imports) {
      if (edge.resolution._tag === "File") this.importers.get(edge.resolution.path)?.delete(path)
    }
    entry.imports = imports
    for (const edge of imports) {
      if (edge.resolution._tag !== "File") continue
      let set = this.importers.get(edge.resolution.path)
      if (set === undefined) this.importers.set(edge.resolution.path, (set = new Set()))
      set.add(path)
    }
  }

  private resolveEntry(path: string, entry: Entry): void {
    this.setImports(
      path,
      entry,
      entry.raw.map((raw) => ({ ...raw, resolution: resolve(path, raw.specifier, this.context) }))
    )
  }

  private parseFile(file: ListedFile): Entry {
    const text = this.options.read(file.path)
    const read: {
      readonly imports: ReadonlyArray<RawImport>
      readonly exports: ReadonlyArray<ExportName>
      readonly error?: string | undefined
    } = text === undefined ? { imports: [], exports: [] } : readModule(this.options.parse, file.path, text)
    return {
      size: file.size,
      mtimeMs: file.mtimeMs,
      raw: read.imports,
      exports: read.exports,
      imports: [],
      ...(read.error !== undefined ? { error: read.error } : {})
    }
  }

  /**
   * Brings the graph to a new listing of the project (every file, sources
   * and others, that imports may name): files added, or whose size or
   * modification time changed, are parsed again; removed ones dropped; when
   * files were added or removed every import is resolved again (an import
   * that did not resolve may now, one that did may now name another file),
   * else only those of the files parsed again.
   */
  update(files: ReadonlyArray<ListedFile>): UpdateResult {
    const next = new Map(files.map((file) => [file.path, file]))
    let setChanged = false
    let removed = 0
    for (const path of [...this.listing.keys()]) {
      if (next.has(path)) continue
      setChanged = true
      this.listing.delete(path)
      const entry = this.entries.get(path)
      if (entry !== undefined) {
        this.setImports(path, entry, [])
        this.entries.delete(path)
        removed++
      }
    }
    const parsed: Array<string> = []
    for (const file of files) {
      const old = this.listing.get(file.path)
      if (old === undefined) setChanged = true
      this.listing.set(file.path, file)
      if (!isParsed(file.path)) continue
      const entry = this.entries.get(file.path)
      if (entry !== undefined && entry.size === file.size && entry.mtimeMs === file.mtimeMs) continue
      const fresh = this.parseFile(file)
      if (entry !== undefined) this.setImports(file.path, entry, [])
      this.entries.set(file.path, fresh)
      parsed.push(file.path)
    }
    const toResolve = setChanged ? [...this.entries.keys()] : parsed
    for (const path of toResolve) this.resolveEntry(path, this.entries.get(path)!)
    for (const [path, set] of this.importers) if (set.size === 0) this.importers.delete(path)
    return { parsed: parsed.length, removed, resolved: toResolve.length }
  }

  /** The parsed files, sorted. */
  files(): ReadonlyArray<string> {
    return [...this.entries.keys()].sort()
  }

  /** A parsed file with its resolved imports, or `undefined`. */
  file(path: string): GraphFile | undefined {
    const entry = this.entries.get(path)
    return entry === undefined
      ? undefined
      : {
          path,
          size: entry.size,
          mtimeMs: entry.mtimeMs,
          imports: entry.imports,
          ...(entry.error !== undefined ? { error: entry.error } : {})
        }
  }

  /**
   * The names a parsed file exports (`*` for an `export * from`; a default
   * export flagged, with its declaration's name or `default`), or
   * `undefined` for a file not in the graph.
   */
  exportsOf(path: string): ReadonlyArray<ExportName> | undefined {
    return this.entries.get(path)?.exports
  }

  /** The files that import `path` directly, sorted. */
  importersOf(path: string): ReadonlyArray<string> {
    return [...(this.importers.get(path) ?? [])].sort()
  }

  /**
   * The files that import `path` directly or through others, each with its
   * distance (1: a direct importer), nearest first; `path` itself is left
   * out even when a cycle leads back to it. `maxDepth` bounds the distance.
   * `direct` are the importers to start from (default: all of them; fewer
   * for the importers of one export).
   */
  transitiveImporters(
    path: string,
    maxDepth = Number.POSITIVE_INFINITY,
    direct: ReadonlyArray<string> = this.importersOf(path)
  ): ReadonlyArray<{ readonly path: string; readonly depth: number }> {
    const seen = new Set([path, ...direct])
    const out: Array<{ readonly path: string; readonly depth: number }> = []
    if (maxDepth < 1) return out
    for (const importer of new Set(direct)) if (importer !== path) out.push({ path: importer, depth: 1 })
    let frontier = out.map((entry) => entry.path)
    for (let depth = 2; frontier.length > 0 && depth <= maxDepth; depth++) {
      const next: Array<string> = []
      for (const current of frontier) {
        for (const importer of this.importersOf(current)) {
          if (seen.has(importer)) continue
          seen.add(importer)
          next.push(importer)
          out.push({ path: importer, depth })
        }
      }
      frontier = next
    }
    return out
  }

  /** The project files `path` imports directly, sorted (each once). */
  dependenciesOf(path: string): ReadonlyArray<string> {
    const targets = new Set<string>()
    for (const edge of this.entries.get(path)?.imports ?? []) {
      if (edge.resolution._tag === "File") targets.add(edge.resolution.path)
    }
    return [...targets].sort()
  }

  /** Every import that did not resolve, by file then specifier. */
  unresolved(): ReadonlyArray<UnresolvedImport> {
    const out: Array<UnresolvedImport> = []
    for (const path of this.files()) {
      for (const edge of this.entries.get(path)!.imports) {
        if (edge.resolution._tag === "Unresolved") {
          out.push({ file: path, specifier: edge.specifier, reason: edge.resolution.reason })
        }
      }
    }
    return out
  }
}

/**
 * Builds the import graph of a listing: every source file parsed, every
 * import resolved.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { build } from "./capabilities/fe/graph/graph.ts"
 * import { defaultConfig } from "./capabilities/fe/graph/resolve.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const texts: Record<string, string> = { "src/a.ts": "import { b } from './b'", "src/b.ts": "export const b = 1" }
 * const graph = Effect.map(loadParser, (parse) =>
 *   build({ parse, read: (path) => texts[path], config: defaultConfig }, [
 *     { path: "src/a.ts", size: 23, mtimeMs: 0 },
 *     { path: "src/b.ts", size: 18, mtimeMs: 0 }
 *   ])
 * )
 * // graph.importersOf("src/b.ts") => ["src/a.ts"]
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const build = (options: GraphOptions, files: ReadonlyArray<ListedFile>): ImportGraph => {
  const graph = new ImportGraph(options)
  graph.update(files)
  return graph
}

/**
 * `build` with the parser loaded first (once per process).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { make } from "./capabilities/fe/graph/graph.ts"
 * import { defaultConfig } from "./capabilities/fe/graph/resolve.ts"
 *
 * const graph = make({ read: () => "export {}", config: defaultConfig }, [{ path: "a.ts", size: 9, mtimeMs: 0 }])
 * // Effect<ImportGraph, Error>
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const make = (
  options: Omit<GraphOptions, "parse">,
  files: ReadonlyArray<ListedFile>
): Effect.Effect<ImportGraph, Error> => Effect.map(loadParser, (parse) => build({ ...options, parse }, files))
