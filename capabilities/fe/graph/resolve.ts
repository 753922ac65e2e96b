/**
 * Module resolution for the fe import graph, without I/O: a specifier
 * written in a project file is resolved against the project's files (a set
 * the caller lists), its tsconfig (`baseUrl`, `paths`, `moduleResolution`)
 * and the `package.json` of its local and workspace packages (given as
 * data), the way TypeScript and bundlers do — relative paths with or
 * without extensions, directory index files, `.js` specifiers that name
 * `.ts` sources, `paths` patterns, and package `exports`. A bare specifier
 * of a dependency that is not one of the project's own packages is an
 * external module, not followed.
 *
 * @since 0.4.0
 */
import { builtinModules } from "node:module"
import { parseJsonc } from "../jsonc.ts"

/**
 * How the project resolves modules: what the resolver reads of a tsconfig.
 * Every path is root-relative and posix ("" is the root).
 *
 * @category models
 * @since 0.4.0
 */
export interface ResolverConfig {
  /** The directory non-relative specifiers resolve against (tsconfig `baseUrl`), if any. */
  readonly baseUrl?: string | undefined
  /** tsconfig `paths`, in their order: each pattern (at most one `*`) with its substitutions. */
  readonly paths: ReadonlyArray<{ readonly pattern: string; readonly substitutions: ReadonlyArray<string> }>
  /** The directory `paths` substitutions are relative to: `baseUrl`, else the directory of the tsconfig that set them. */
  readonly pathsBase: string
  /** tsconfig `moduleResolution`, lower-cased ("bundler" when not set); `node10` and `classic` ignore package `exports`. */
  readonly moduleResolution: string
}

/**
 * One of the project's own packages (a workspace package or a local one):
 * its name, its directory and the entry fields of its `package.json`.
 *
 * @category models
 * @since 0.4.0
 */
export interface PackageInfo {
  readonly name: string
  /** The package's directory, root-relative. */
  readonly dir: string
  readonly exports?: unknown
  readonly main?: string | undefined
  readonly module?: string | undefined
  readonly types?: string | undefined
}

/**
 * Everything a resolution looks at: the configuration, the project's files
 * and its own packages by name.
 *
 * @category models
 * @since 0.4.0
 */
export interface ResolveContext {
  readonly config: ResolverConfig
  readonly files: { readonly has: (path: string) => boolean }
  readonly packages: ReadonlyMap<string, PackageInfo>
}

/**
 * What a specifier resolves to: a project file, an external module (a
 * dependency or a Node builtin, not followed), or nothing, with the reason.
 *
 * @category models
 * @since 0.4.0
 */
export type Resolution =
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "External"; readonly package: string }
  | { readonly _tag: "Unresolved"; readonly reason: string }

/**
 * The extensions tried, in order, after a specifier without one.
 *
 * @category constants
 * @since 0.4.0
 */
export const resolvedExtensions: ReadonlyArray<string> = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".d.ts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
  ".vue",
  ".svelte",
  ".astro",
  ".json"
]

/**
 * The default configuration: no `baseUrl`, no `paths`, bundler resolution.
 *
 * **Example**
 *
 * ```ts
 * import { defaultConfig } from "./capabilities/fe/graph/resolve.ts"
 *
 * defaultConfig.moduleResolution // => "bundler"
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const defaultConfig: ResolverConfig = { paths: [], pathsBase: "", moduleResolution: "bundler" }

// -- paths ----------------------------------------------------------------------

/** The directory of a root-relative path ("" for a file at the root). */
const dirOf = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "")

/**
 * A relative path joined to a root-relative directory, `.` and `..`
 * resolved; `undefined` when it leaves the root.
 *
 * **Example**
 *
 * ```ts
 * import { joinPath } from "./capabilities/fe/graph/resolve.ts"
 *
 * joinPath("src/components", "../lib/./format") // => "src/lib/format"
 * joinPath("", "../outside") // => undefined
 * ```
 *
 * @category paths
 * @since 0.4.0
 */
export const joinPath = (dir: string, relative: string): string | undefined => {
  const out: Array<string> = relative.startsWith("/") ? [] : dir.split("/").filter((s) => s !== "" && s !== ".")
  for (const segment of relative.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (out.length === 0) return undefined
      out.pop()
    } else out.push(segment)
  }
  return out.join("/")
}

const scriptFor: Record<string, ReadonlyArray<string>> = {
  ".js": [".ts", ".tsx", ".d.ts"],
  ".jsx": [".tsx"],
  ".mjs": [".mts", ".d.mts"],
  ".cjs": [".cts", ".d.cts"]
}

/** A file the path names: itself, its TypeScript source (for a .js path), with an extension added, or its index. */
const tryPath = (files: ResolveContext["files"], base: string): string | undefined => {
  const dot = base.lastIndexOf(".")
  const ext = dot > base.lastIndexOf("/") ? base.slice(dot) : ""
  const sources = scriptFor[ext]
  if (sources !== undefined) {
    for (const source of sources) {
      const candidate = base.slice(0, dot) + source
      if (files.has(candidate)) return candidate
    }
  }
  if (ext !== "" && files.has(base)) return base
  for (const extension of resolvedExtensions) if (files.has(base + extension)) return base + extension
  const prefix = base === "" ? "index" : `${base}/index`
  for (const extension of resolvedExtensions) if (files.has(prefix + extension)) return prefix + extension
  return undefined
}

// -- packages -------------------------------------------------------------------

const builtins = new Set(builtinModules)

/** `@scope/name/sub/path` → ["@scope/name", "./sub/path"]; `name` → ["name", "."]. */
const splitPackage = (specifier: string): readonly [string, string] => {
  const parts = specifier.split("/")
  const size = specifier.startsWith("@") ? 2 : 1
  const rest = parts.slice(size).join("/")
  return [parts.slice(0, size).join("/"), rest === "" ? "." : `./${rest}`]
}

const conditions = new Set(["types", "import", "module", "browser", "development", "node", "require", "default"])

/** The files an `exports` target can name (a string, a conditional object, an array of fallbacks), in preference order. */
const targetsOf = (target: unknown, star: string | undefined): Array<string> => {
  if (typeof target === "string") return [star === undefined ? target : target.split("*").join(star)]
  if (Array.isArray(target)) return target.flatMap((t) => targetsOf(t, star))
  if (target !== null && typeof target === "object") {
    return Object.entries(target).flatMap(([key, value]) => (conditions.has(key) ? targetsOf(value, star) : []))
  }
  return []
}

const isSubpathMap = (exports: unknown): exports is Record<string, unknown> =>
  exports !== null &&
  typeof exports === "object" &&
  !Array.isArray(exports) &&
  Object.keys(exports).some((key) => key.startsWith("."))

/** The targets of a subpath in a package's `exports`: its exact key, else the `*` pattern with the longest prefix. */
const exportTargets = (exports: unknown, subpath: string): Array<string> | undefined => {
  if (!isSubpathMap(exports)) return subpath === "." ? targetsOf(exports, undefined) : undefined
  if (Object.hasOwn(exports, subpath)) return targetsOf(exports[subpath], undefined)
  let best: { readonly key: string; readonly star: string } | undefined
  for (const key of Object.keys(exports)) {
    const star = key.indexOf("*")
    if (star === -1) continue
    const prefix = key.slice(0, star)
    const suffix = key.slice(star + 1)
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      if (best === undefined || prefix.length > best.key.indexOf("*")) {
        best = { key, star: subpath.slice(prefix.length, subpath.length - suffix.length) }
      }
    }
  }
  return best === undefined ? undefined : targetsOf(exports[best.key], best.star)
}

const resolvePackage = (context: ResolveContext, info: PackageInfo, subpath: string): Resolution => {
  const useExports =
    info.exports !== undefined && !["node10", "node", "classic"].includes(context.config.moduleResolution)
  if (useExports) {
    const targets = exportTargets(info.exports, subpath)
    if (targets === undefined) {
      return { _tag: "Unresolved", reason: `${info.name} does not export "${subpath}" (package.json "exports")` }
    }
    for (const target of targets) {
      const joined = joinPath(info.dir, target)
      const found = joined === undefined ? undefined : tryPath(context.files, joined)
      if (found !== undefined) return { _tag: "File", path: found }
    }
    return {
      _tag: "Unresolved",
      reason: `${info.name} exports "${subpath}" as ${targets.join(", ") || "nothing"}, which is not a project file`
    }
  }
  const candidates =
    subpath === "."
      ? [info.types, info.module, info.main, "index"].filter((c): c is string => c !== undefined)
      : [subpath]
  for (const candidate of candidates) {
    const joined = joinPath(info.dir, candidate)
    const found = joined === undefined ? undefined : tryPath(context.files, joined)
    if (found !== undefined) return { _tag: "File", path: found }
  }
  return { _tag: "Unresolved", reason: `${info.name}: "${subpath}" names no project file` }
}

// -- resolution -----------------------------------------------------------------

/** The `paths` pattern tsc would pick: the exact one, else the `*` pattern with the longest prefix. */
const matchPaths = (
  config: ResolverConfig,
  specifier: string
): { readonly substitutions: ReadonlyArray<string>; readonly star: string } | undefined => {
  let best:
    | { readonly prefix: number; readonly substitutions: ReadonlyArray<string>; readonly star: string }
    | undefined
  for (const { pattern, substitutions } of config.paths) {
    const star = pattern.indexOf("*")
    if (star === -1) {
      if (pattern === specifier) return { substitutions, star: "" }
      continue
    }
    const prefix = pattern.slice(0, star)
    const suffix = pattern.slice(star + 1)
    if (
      specifier.length >= prefix.length + suffix.length &&
      specifier.startsWith(prefix) &&
      specifier.endsWith(suffix) &&
      (best === undefined || prefix.length > best.prefix)
    ) {
      best = {
        prefix: prefix.length,
        substitutions,
        star: specifier.slice(prefix.length, specifier.length - suffix.length)
      }
    }
  }
  return best
}

/**
 * Resolves the specifier written in a file (root-relative) to a project
 * file, an external module or nothing: relative paths (extension optional,
 * `.js` naming a `.ts` source, directory index files), then for other
 * specifiers tsconfig `paths` (the pattern with the longest prefix, each
 * substitution in order) and `baseUrl`, then the project's own packages
 * (their `exports`, or `types`/`module`/`main`); Node builtins and other
 * packages are external.
 *
 * **Example**
 *
 * ```ts
 * import { defaultConfig, resolve } from "./capabilities/fe/graph/resolve.ts"
 *
 * const context = { config: defaultConfig, files: new Set(["src/a.ts", "src/b/index.tsx"]), packages: new Map() }
 * resolve("src/a.ts", "./b", context) // => { _tag: "File", path: "src/b/index.tsx" }
 * resolve("src/a.ts", "node:fs", context) // => { _tag: "External", package: "node:fs" }
 * ```
 *
 * @category resolution
 * @since 0.4.0
 */
export const resolve = (from: string, specifier: string, context: ResolveContext): Resolution => {
  const query = specifier.search(/[?#]/)
  const bare = query > 0 ? specifier.slice(0, query) : specifier
  if (bare === "") return { _tag: "Unresolved", reason: "empty specifier" }
  if (bare.startsWith(".") || bare.startsWith("/")) {
    const joined = joinPath(dirOf(from), bare)
    if (joined === undefined) return { _tag: "Unresolved", reason: `${specifier} leaves the project root` }
    const found = tryPath(context.files, joined)
    return found !== undefined
      ? { _tag: "File", path: found }
      : { _tag: "Unresolved", reason: `no file ${joined} (with or without an extension, nor its index)` }
  }
  if (bare.startsWith("node:")) return { _tag: "External", package: bare }
  const { config } = context
  const mapped = matchPaths(config, bare)
  if (mapped !== undefined) {
    for (const substitution of mapped.substitutions) {
      const joined = joinPath(config.pathsBase, substitution.split("*").join(mapped.star))
      const found = joined === undefined ? undefined : tryPath(context.files, joined)
      if (found !== undefined) return { _tag: "File", path: found }
    }
  }
  if (config.baseUrl !== undefined) {
    const joined = joinPath(config.baseUrl, bare)
    const found = joined === undefined ? undefined : tryPath(context.files, joined)
    if (found !== undefined) return { _tag: "File", path: found }
  }
  const [name, subpath] = splitPackage(bare)
  const own = context.packages.get(name)
  if (own !== undefined) return resolvePackage(context, own, subpath)
  if (builtins.has(name)) return { _tag: "External", package: `node:${name}` }
  if (mapped !== undefined) {
    return {
      _tag: "Unresolved",
      reason: `tsconfig paths map ${specifier} to ${mapped.substitutions.join(", ")}, none of which is a project file`
    }
  }
  return { _tag: "External", package: name }
}

// -- configuration --------------------------------------------------------------

/**
 * A package's entry fields read from its `package.json` text; `undefined`
 * when it is not valid or has no name.
 *
 * **Example**
 *
 * ```ts
 * import { readPackageInfo } from "./capabilities/fe/graph/resolve.ts"
 *
 * readPackageInfo("packages/ui", '{ "name": "@app/ui", "exports": "./src/index.ts" }')
 * // => { name: "@app/ui", dir: "packages/ui", exports: "./src/index.ts", … }
 * ```
 *
 * @category configuration
 * @since 0.4.0
 */
export const readPackageInfo = (dir: string, text: string): PackageInfo | undefined => {
  const json = parseJsonc(text)
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined
  const record = json as Record<string, unknown>
  if (typeof record.name !== "string") return undefined
  const field = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : undefined)
  return {
    name: record.name,
    dir,
    exports: record.exports,
    main: field("main"),
    module: field("module"),
    types: field("types") ?? field("typings")
  }
}

interface Collected {
  baseUrl?: string
  paths?: ResolverConfig["paths"]
  pathsBase?: string
  moduleResolution?: string
}

/**
 * The resolver's configuration from a tsconfig's text (JSONC): its
 * `compilerOptions` merged over those of the configurations it `extends`
 * (relative ones, read through `read`, which gets a root-relative path and
 * returns the text or `undefined`), `baseUrl` and `paths` made relative to
 * the root.
 *
 * **Example**
 *
 * ```ts
 * import { readResolverConfig } from "./capabilities/fe/graph/resolve.ts"
 *
 * const config = readResolverConfig(
 *   "tsconfig.json",
 *   '{ "extends": "./tsconfig.base.json", "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }',
 *   (path) => (path === "tsconfig.base.json" ? '{ "compilerOptions": { "moduleResolution": "NodeNext" } }' : undefined)
 * )
 * // => { paths: [{ pattern: "@/*", substitutions: ["./src/*"] }], pathsBase: "", moduleResolution: "nodenext" }
 * ```
 *
 * @category configuration
 * @since 0.4.0
 */
export const readResolverConfig = (
  path: string,
  text: string,
  read: (path: string) => string | undefined
): ResolverConfig => {
  const seen = new Set<string>()
  const collect = (file: string, source: string): Collected => {
    seen.add(file)
    const json = parseJsonc(source)
    if (json === null || typeof json !== "object" || Array.isArray(json)) return {}
    const record = json as Record<string, unknown>
    const dir = dirOf(file)
    let merged: Collected = {}
    const parents =
      typeof record.extends === "string" ? [record.extends] : Array.isArray(record.extends) ? record.extends : []
    for (const parent of parents) {
      if (typeof parent !== "string" || !parent.startsWith(".")) continue
      const withExt = parent.endsWith(".json") ? parent : `${parent}.json`
      const target = joinPath(dir, withExt)
      if (target === undefined || seen.has(target)) continue
      const parentText = read(target)
      if (parentText !== undefined) merged = { ...merged, ...collect(target, parentText) }
    }
    const options = record.compilerOptions
    if (options === null || typeof options !== "object" || Array.isArray(options)) return merged
    const compilerOptions = options as Record<string, unknown>
    const own: Collected = {}
    if (typeof compilerOptions.baseUrl === "string") {
      const baseUrl = joinPath(dir, compilerOptions.baseUrl)
      if (baseUrl !== undefined) own.baseUrl = baseUrl
    }
    if (typeof compilerOptions.moduleResolution === "string") {
      own.moduleResolution = compilerOptions.moduleResolution.toLowerCase()
    }
    const paths = compilerOptions.paths
    if (paths !== null && typeof paths === "object" && !Array.isArray(paths)) {
      own.paths = Object.entries(paths as Record<string, unknown>).map(([pattern, substitutions]) => ({
        pattern,
        substitutions: Array.isArray(substitutions) ? substitutions.filter((s) => typeof s === "string") : []
      }))
      own.pathsBase = dir
    }
    return { ...merged, ...own }
  }
  const collected = collect(path, text)
  const baseUrl = collected.baseUrl
  return {
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    paths: collected.paths ?? [],
    pathsBase: baseUrl ?? collected.pathsBase ?? dirOf(path),
    moduleResolution: collected.moduleResolution ?? "bundler"
  }
}
