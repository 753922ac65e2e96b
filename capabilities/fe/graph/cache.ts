/**
 * The fe capability's cached import graph of the workspace root: the
 * project's files listed through the `Workspace` (`.gitignore` and the deny
 * list respected, dependency and build directories skipped), the resolver's
 * configuration read from `tsconfig.json` (and the relative configurations
 * it extends) and the project's own packages (`workspaces` of the root
 * `package.json`, and `packages/*`). The graph is built on the first call;
 * later calls list the files again (the walk gives each one's size and
 * modification time) and parse only those whose size or modification time
 * changed. A changed tsconfig or package manifest builds
 * it again.
 *
 * @since 0.4.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type * as Tool from "../../../src/Tool.ts"
import { Workspace } from "../../../src/Workspace.ts"
import { parseJsonc } from "../jsonc.ts"
import { listProjectFiles, maxFileBytes } from "../skeleton.ts"
import { loadParserForTool, type Parse } from "../skeleton/extract.ts"
import { ImportGraph, type ListedFile, parsedExtensions } from "./graph.ts"
import { defaultConfig, type PackageInfo, readPackageInfo, readResolverConfig, type ResolverConfig } from "./resolve.ts"

/**
 * The graph as of one call, with what bringing it up to date took.
 *
 * @category models
 * @since 0.4.0
 */
export interface GraphSnapshot {
  readonly graph: ImportGraph
  /** Files listed (sources and the others imports may name). */
  readonly files: number
  /** Files parsed by this call (all of them on the first). */
  readonly parsed: number
  /** Milliseconds this call spent listing, reading and parsing. */
  readonly ms: number
  /** True when the listing stopped at the file limit. */
  readonly scanLimited: boolean
}

/**
 * The cached graph of the workspace root.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FeGraph } from "./capabilities/fe/graph/cache.ts"
 *
 * const importers = Effect.map(Effect.flatMap(Effect.service(FeGraph), (g) => g.current), (s) =>
 *   s.graph.importersOf("src/lib/format.ts")
 * )
 * ```
 *
 * @category services
 * @since 0.4.0
 */
export class FeGraph extends Context.Service<
  FeGraph,
  {
    /** The graph brought up to date with the files as they are now. */
    readonly current: Effect.Effect<GraphSnapshot, Tool.ToolError>
  }
>()("effect-mcp-runtime/capabilities/fe/FeGraph") {}

/**
 * The most files listed; past it the graph is built from the first ones and
 * says so.
 *
 * @category constants
 * @since 0.4.0
 */
export const maxListedFiles = 50_000

const isParsedSource = (path: string): boolean => parsedExtensions.some((ext) => path.endsWith(ext))

/** `packages/*` → a regular expression on a directory (`*` within a segment, `**` across). */
const globToRegExp = (glob: string): RegExp => {
  const trimmed = glob.replace(/^\.\//, "").replace(/\/+$/, "")
  const body = trimmed
    .split("**")
    .map((part) =>
      part
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*")
    )
    .join(".*")
  return new RegExp(`^${body}$`)
}

const workspacePatterns = (packageJson: unknown): ReadonlyArray<string> => {
  if (packageJson === null || typeof packageJson !== "object" || Array.isArray(packageJson)) return []
  const field = (packageJson as Record<string, unknown>).workspaces
  const list = Array.isArray(field)
    ? field
    : field !== null && typeof field === "object"
      ? (field as any).packages
      : undefined
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string" && !p.startsWith("!")) : []
}

interface Config {
  readonly key: string
  readonly resolver: ResolverConfig
  readonly packages: ReadonlyArray<PackageInfo>
  /** The tsconfig files read (the root's and those it extends). */
  readonly tsconfigs: ReadonlyArray<string>
}

interface Cached {
  readonly config: Config
  readonly graph: ImportGraph
  /** `size:mtime` of each parsed source, as the graph last saw it. */
  readonly stamps: Map<string, string>
  /** The texts the graph may read during the current update. */
  readonly texts: { current: Map<string, string> }
}

/**
 * The live graph over the `Workspace`.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { layer } from "./capabilities/fe/graph/cache.ts"
 *
 * const Graph = layer.pipe(Layer.provide(NodeWorkspace.layer({ root: "/srv/project" })))
 * ```
 *
 * @category layers
 * @since 0.4.0
 */
export const layer: Layer.Layer<FeGraph, never, Workspace> = Layer.effect(
  FeGraph,
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const cache = yield* SynchronizedRef.make<Cached | undefined>(undefined)

    const listAll = listProjectFiles(workspace, "", { max: maxListedFiles })

    /** A file's text, or undefined when it cannot be read whole. */
    const readText = (path: string) =>
      workspace.read(path).pipe(
        Effect.map((read) => (read.truncated || read.binary ? undefined : read.content)),
        Effect.orElseSucceed(() => undefined)
      )

    const stampOf = (path: string) =>
      workspace.stat(path).pipe(
        Effect.map((stat) => `${path}:${stat.size}:${stat.modifiedMs}`),
        Effect.orElseSucceed(() => `${path}:?`)
      )

    /** The key of the configuration files as they are now: what decides whether the configuration is read again. */
    const configKey = (
      paths: ReadonlySet<string>,
      tsconfigs: ReadonlyArray<string>,
      manifests: ReadonlyArray<string>
    ) =>
      Effect.forEach([...new Set([...tsconfigs.filter((p) => paths.has(p)), ...manifests])].sort(), stampOf, {
        concurrency: 16
      }).pipe(Effect.map((parts) => parts.join("|")))

    const manifestsOf = (paths: ReadonlySet<string>): ReadonlyArray<string> =>
      [...paths].filter((p) => p === "package.json" || p.endsWith("/package.json"))

    const readConfig = (paths: ReadonlySet<string>, key: string) =>
      Effect.gen(function* () {
        // tsconfig.json and the relative configurations it extends, read until nothing is missing.
        const root = paths.has("tsconfig.json")
          ? "tsconfig.json"
          : paths.has("jsconfig.json")
            ? "jsconfig.json"
            : undefined
        const texts = new Map<string, string | undefined>()
        let resolver: ResolverConfig = defaultConfig
        if (root !== undefined) {
          texts.set(root, yield* readText(root))
          for (let round = 0; round < 8; round++) {
            const text = texts.get(root)
            if (text === undefined) break
            const missing: Array<string> = []
            resolver = readResolverConfig(root, text, (path) => {
              if (!texts.has(path)) missing.push(path)
              return texts.get(path)
            })
            if (missing.length === 0) break
            for (const path of missing) texts.set(path, yield* readText(path))
          }
        }
        // The project's own packages: the root manifest's workspaces, and packages/*.
        const rootText = paths.has("package.json") ? yield* readText("package.json") : undefined
        const rootJson = rootText === undefined ? undefined : parseJsonc(rootText)
        const patterns = [...workspacePatterns(rootJson), "packages/*"].map(globToRegExp)
        const manifests = manifestsOf(paths).filter(
          (p) => p !== "package.json" && patterns.some((re) => re.test(p.slice(0, p.lastIndexOf("/"))))
        )
        const packages: Array<PackageInfo> = []
        for (const manifest of manifests) {
          const text = yield* readText(manifest)
          const info =
            text === undefined ? undefined : readPackageInfo(manifest.slice(0, manifest.lastIndexOf("/")), text)
          if (info !== undefined) packages.push(info)
        }
        return { key, resolver, packages, tsconfigs: [...texts.keys()] } satisfies Config
      })

    const newEntry = (parse: Parse, config: Config): Cached => {
      const texts = { current: new Map<string, string>() }
      const graph = new ImportGraph({
        parse,
        read: (path) => texts.current.get(path),
        config: config.resolver,
        packages: config.packages
      })
      return { config, graph, stamps: new Map(), texts }
    }

    const refresh = (cached: Cached | undefined) =>
      Effect.gen(function* () {
        const started = performance.now()
        const parse = yield* loadParserForTool
        const { files, limited } = yield* listAll
        const paths = new Set(files.map((f) => f.path))
        const manifests = manifestsOf(paths)
        // tsconfig.json and jsconfig.json always count: one created since the last call changes the key.
        const rootConfigs = ["tsconfig.json", "jsconfig.json"]
        const key = yield* configKey(paths, [...(cached?.config.tsconfigs ?? []), ...rootConfigs], manifests)
        let entry = cached
        if (entry === undefined || entry.config.key !== key) {
          const config = yield* readConfig(paths, key)
          // The key again with the tsconfigs actually read, so the next call compares like with like.
          const fullKey = yield* configKey(paths, [...config.tsconfigs, ...rootConfigs], manifests)
          entry = newEntry(parse, { ...config, key: fullKey })
        }
        // Sources: size and modification time as the walk saw them; those new or changed are read.
        const listing: ReadonlyArray<ListedFile> = files.map((file) => ({
          path: file.path,
          size: file.size,
          mtimeMs: isParsedSource(file.path) ? file.modifiedMs : 0
        }))
        const changed = listing.filter(
          (file) => isParsedSource(file.path) && entry.stamps.get(file.path) !== `${file.size}:${file.mtimeMs}`
        )
        const texts = new Map<string, string>()
        // A file that could not be read this time (being written, a read error) is read again next time: it is
        // given an impossible modification time now and not stamped.
        const unread = new Set<string>()
        yield* Effect.forEach(
          changed,
          (file) =>
            file.size > maxFileBytes
              ? Effect.void
              : Effect.map(readText(file.path), (text) => {
                  if (text !== undefined) texts.set(file.path, text)
                  else unread.add(file.path)
                }),
          { concurrency: 16, discard: true }
        )
        entry.texts.current = texts
        const update = entry.graph.update(
          unread.size === 0 ? listing : listing.map((file) => (unread.has(file.path) ? { ...file, mtimeMs: -1 } : file))
        )
        entry.texts.current = new Map()
        entry.stamps.clear()
        for (const file of listing) {
          if (isParsedSource(file.path) && !unread.has(file.path)) {
            entry.stamps.set(file.path, `${file.size}:${file.mtimeMs}`)
          }
        }
        const snapshot: GraphSnapshot = {
          graph: entry.graph,
          files: listing.length,
          parsed: update.parsed,
          ms: Math.round(performance.now() - started),
          scanLimited: limited
        }
        return [snapshot, entry] as const
      })

    return FeGraph.of({ current: SynchronizedRef.modifyEffect(cache, refresh) })
  })
)
