/**
 * The fe import graph: module resolution case by case (relative paths and
 * extensions, index files, `.js` naming `.ts`, tsconfig `paths` and
 * `baseUrl`, package `exports`, builtins), the tsconfig reader, the graph of
 * `test/fixtures/fe/graph-app` and of `react-app`'s sources checked against
 * a brute-force scan, importers with cycles, and incremental updates that
 * must equal a full rebuild while parsing only what changed.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, posix } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { build, type ImportGraph, importsOf, type ListedFile } from "../capabilities/fe/graph/graph.ts"
import {
  defaultConfig,
  joinPath,
  type PackageInfo,
  readPackageInfo,
  readResolverConfig,
  type Resolution,
  resolve,
  type ResolveContext,
  type ResolverConfig
} from "../capabilities/fe/graph/resolve.ts"
import { loadParser, type Parse } from "../capabilities/fe/skeleton/extract.ts"

const fixtures = join(import.meta.dirname, "fixtures", "fe")

const contextOf = (
  files: ReadonlyArray<string>,
  config: Partial<ResolverConfig> = {},
  packages: ReadonlyArray<PackageInfo> = []
): ResolveContext => ({
  config: { ...defaultConfig, ...config },
  files: new Set(files),
  packages: new Map(packages.map((p) => [p.name, p]))
})

const file = (path: string): Resolution => ({ _tag: "File", path })

// -- resolution -----------------------------------------------------------------

describe("resolve", () => {
  it("relative specifiers with and without extensions, in the extension order", () => {
    const context = contextOf([
      "src/a.ts",
      "src/b.tsx",
      "src/c.mts",
      "src/d.cts",
      "src/e.jsx",
      "src/f.vue",
      "src/g.svelte",
      "src/h.astro",
      "src/i.json",
      "src/both.ts",
      "src/both.tsx",
      "src/plain.js",
      "src/styles.css"
    ])
    const from = "src/main.ts"
    assert.deepStrictEqual(resolve(from, "./a", context), file("src/a.ts"))
    assert.deepStrictEqual(resolve(from, "./a.ts", context), file("src/a.ts"))
    assert.deepStrictEqual(resolve(from, "./b", context), file("src/b.tsx"))
    assert.deepStrictEqual(resolve(from, "./c", context), file("src/c.mts"))
    assert.deepStrictEqual(resolve(from, "./d", context), file("src/d.cts"))
    assert.deepStrictEqual(resolve(from, "./e", context), file("src/e.jsx"))
    assert.deepStrictEqual(resolve(from, "./f.vue", context), file("src/f.vue"))
    assert.deepStrictEqual(resolve(from, "./f", context), file("src/f.vue"))
    assert.deepStrictEqual(resolve(from, "./g.svelte", context), file("src/g.svelte"))
    assert.deepStrictEqual(resolve(from, "./h.astro", context), file("src/h.astro"))
    assert.deepStrictEqual(resolve(from, "./i.json", context), file("src/i.json"))
    assert.deepStrictEqual(resolve(from, "./both", context), file("src/both.ts"))
    assert.deepStrictEqual(resolve(from, "./plain.js", context), file("src/plain.js"))
    assert.deepStrictEqual(resolve(from, "./plain", context), file("src/plain.js"))
    assert.deepStrictEqual(resolve(from, "./styles.css", context), file("src/styles.css"))
    assert.deepStrictEqual(resolve("src/deep/x.ts", "../a", context), file("src/a.ts"))
    assert.deepStrictEqual(resolve(from, "./a?raw", context), file("src/a.ts"))
  })

  it("directory index files", () => {
    const context = contextOf(["src/ui/index.tsx", "src/lib/index.js", "src/both/index.ts", "src/both.tsx", "index.ts"])
    assert.deepStrictEqual(resolve("src/main.ts", "./ui", context), file("src/ui/index.tsx"))
    assert.deepStrictEqual(resolve("src/main.ts", "./ui/", context), file("src/ui/index.tsx"))
    assert.deepStrictEqual(resolve("src/main.ts", "./lib", context), file("src/lib/index.js"))
    // A file wins over a directory of the same name.
    assert.deepStrictEqual(resolve("src/main.ts", "./both", context), file("src/both.tsx"))
    assert.deepStrictEqual(resolve("src/main.ts", "..", context), file("index.ts"))
  })

  it(".js, .jsx, .mjs and .cjs specifiers naming TypeScript sources (NodeNext)", () => {
    const context = contextOf(["src/a.ts", "src/b.tsx", "src/c.mts", "src/d.cts", "src/e.js", "src/e.ts", "src/f.tsx"])
    assert.deepStrictEqual(resolve("src/x.ts", "./a.js", context), file("src/a.ts"))
    assert.deepStrictEqual(resolve("src/x.ts", "./b.js", context), file("src/b.tsx"))
    assert.deepStrictEqual(resolve("src/x.ts", "./c.mjs", context), file("src/c.mts"))
    assert.deepStrictEqual(resolve("src/x.ts", "./d.cjs", context), file("src/d.cts"))
    assert.deepStrictEqual(resolve("src/x.ts", "./f.jsx", context), file("src/f.tsx"))
    // The TypeScript source before the JavaScript one, as tsc does.
    assert.deepStrictEqual(resolve("src/x.ts", "./e.js", context), file("src/e.ts"))
  })

  it("unresolved relative specifiers say why", () => {
    const context = contextOf(["src/a.ts"])
    const missing = resolve("src/x.ts", "./nope", context)
    assert.strictEqual(missing._tag, "Unresolved")
    assert.include(missing._tag === "Unresolved" ? missing.reason : "", "src/nope")
    const outside = resolve("a.ts", "../../etc/passwd", context)
    assert.strictEqual(outside._tag, "Unresolved")
    assert.include(outside._tag === "Unresolved" ? outside.reason : "", "root")
  })

  it("tsconfig paths: exact pattern, longest prefix, substitutions in order, then baseUrl and packages", () => {
    const context = contextOf(["src/a.ts", "src/components/Button.tsx", "gen/components/Card.tsx", "src/env.ts"], {
      pathsBase: "",
      paths: [
        { pattern: "@/*", substitutions: ["./src/*"] },
        { pattern: "@/components/*", substitutions: ["./src/components/*", "./gen/components/*"] },
        { pattern: "env", substitutions: ["./src/env.ts"] },
        { pattern: "*.generated", substitutions: ["./gen/*"] }
      ]
    })
    assert.deepStrictEqual(resolve("src/x.ts", "@/a", context), file("src/a.ts"))
    assert.deepStrictEqual(resolve("src/x.ts", "@/components/Button", context), file("src/components/Button.tsx"))
    // Only the longest-prefix pattern's substitutions apply: "@/*" would give src/components/Card, which does not exist.
    assert.deepStrictEqual(resolve("src/x.ts", "@/components/Card", context), file("gen/components/Card.tsx"))
    assert.deepStrictEqual(resolve("src/x.ts", "env", context), file("src/env.ts"))
    const unmapped = resolve("src/x.ts", "@/missing", context)
    assert.strictEqual(unmapped._tag, "Unresolved")
    assert.include(unmapped._tag === "Unresolved" ? unmapped.reason : "", "./src/*")
    assert.deepStrictEqual(resolve("src/x.ts", "react", context), { _tag: "External", package: "react" })
  })

  it("baseUrl, and paths relative to it", () => {
    const context = contextOf(["src/lib/format.ts", "src/app/util.ts"], {
      baseUrl: "src",
      pathsBase: "src",
      paths: [{ pattern: "~/*", substitutions: ["app/*"] }]
    })
    assert.deepStrictEqual(resolve("src/x.ts", "lib/format", context), file("src/lib/format.ts"))
    assert.deepStrictEqual(resolve("src/x.ts", "~/util", context), file("src/app/util.ts"))
    assert.deepStrictEqual(resolve("src/x.ts", "lodash/fp", context), { _tag: "External", package: "lodash" })
  })

  it("builtins and other packages are external", () => {
    const context = contextOf([])
    assert.deepStrictEqual(resolve("a.ts", "node:fs", context), { _tag: "External", package: "node:fs" })
    assert.deepStrictEqual(resolve("a.ts", "node:fs/promises", context), {
      _tag: "External",
      package: "node:fs/promises"
    })
    assert.deepStrictEqual(resolve("a.ts", "fs", context), { _tag: "External", package: "node:fs" })
    assert.deepStrictEqual(resolve("a.ts", "path/posix", context), { _tag: "External", package: "node:path" })
    assert.deepStrictEqual(resolve("a.ts", "@tanstack/react-query/devtools", context), {
      _tag: "External",
      package: "@tanstack/react-query"
    })
  })

  it("the project's own packages through exports: string, conditions, subpath patterns", () => {
    const files = [
      "packages/ui/src/index.ts",
      "packages/ui/src/Button.tsx",
      "packages/ui/src/icons/Star.tsx",
      "packages/ui/src/icons/nested/Moon.tsx",
      "packages/core/lib/main.ts",
      "packages/legacy/lib/entry.js",
      "packages/legacy/lib/extra.ts",
      "packages/types-only/src/index.ts"
    ]
    const packages: ReadonlyArray<PackageInfo> = [
      {
        name: "@app/ui",
        dir: "packages/ui",
        exports: {
          ".": { types: "./dist/index.d.ts", import: "./src/index.ts", default: "./dist/index.js" },
          "./button": "./src/Button.tsx",
          "./icons/*": { import: "./src/icons/*.tsx" },
          "./icons/nested/*": "./src/icons/nested/*.tsx",
          "./internal/*": null
        }
      },
      { name: "core", dir: "packages/core", exports: "./lib/main.js" },
      { name: "legacy", dir: "packages/legacy", main: "./lib/entry.js", exports: { ".": "./nowhere.js" } },
      { name: "types-only", dir: "packages/types-only", types: "./src/index.ts" }
    ]
    const context = contextOf(files, {}, packages)
    assert.deepStrictEqual(resolve("src/a.ts", "@app/ui", context), file("packages/ui/src/index.ts"))
    assert.deepStrictEqual(resolve("src/a.ts", "@app/ui/button", context), file("packages/ui/src/Button.tsx"))
    assert.deepStrictEqual(resolve("src/a.ts", "@app/ui/icons/Star", context), file("packages/ui/src/icons/Star.tsx"))
    // The longest pattern prefix wins.
    assert.deepStrictEqual(
      resolve("src/a.ts", "@app/ui/icons/nested/Moon", context),
      file("packages/ui/src/icons/nested/Moon.tsx")
    )
    assert.deepStrictEqual(resolve("src/a.ts", "core", context), file("packages/core/lib/main.ts"))
    const hidden = resolve("src/a.ts", "@app/ui/src/Button.tsx", context)
    assert.strictEqual(hidden._tag, "Unresolved")
    assert.include(hidden._tag === "Unresolved" ? hidden.reason : "", "does not export")
    assert.strictEqual(resolve("src/a.ts", "@app/ui/internal/x", context)._tag, "Unresolved")
    assert.strictEqual(resolve("src/a.ts", "legacy", context)._tag, "Unresolved")
    assert.deepStrictEqual(resolve("src/a.ts", "types-only", context), file("packages/types-only/src/index.ts"))
    // node10 resolution ignores exports: main, and subpaths as files.
    const node10 = contextOf(files, { moduleResolution: "node10" }, packages)
    assert.deepStrictEqual(resolve("src/a.ts", "legacy", node10), file("packages/legacy/lib/entry.js"))
    assert.deepStrictEqual(resolve("src/a.ts", "legacy/lib/extra", node10), file("packages/legacy/lib/extra.ts"))
  })

  it("reads the resolver configuration from tsconfig text with comments and extends", () => {
    const texts: Record<string, string> = {
      "configs/base.json": `{
        // base
        "compilerOptions": { "baseUrl": "../src", "moduleResolution": "NodeNext", "paths": { "#/*": ["./*"] } },
      }`,
      "app/tsconfig.paths.json": `{ "compilerOptions": { "paths": { "@/*": ["./src/*"], }, } }`
    }
    const read = (path: string) => texts[path]
    const fromBase = readResolverConfig("app/tsconfig.json", `{ "extends": "../configs/base" }`, read)
    assert.deepStrictEqual(fromBase, {
      baseUrl: "src",
      paths: [{ pattern: "#/*", substitutions: ["./*"] }],
      pathsBase: "src",
      moduleResolution: "nodenext"
    })
    // Without baseUrl, paths are relative to the tsconfig that sets them; the later extends overrides.
    const own = readResolverConfig(
      "app/tsconfig.json",
      `/* app */ { "extends": ["./tsconfig.paths.json"], "compilerOptions": { "moduleResolution": "bundler" } }`,
      read
    )
    assert.deepStrictEqual(own, {
      paths: [{ pattern: "@/*", substitutions: ["./src/*"] }],
      pathsBase: "app",
      moduleResolution: "bundler"
    })
    assert.deepStrictEqual(readResolverConfig("tsconfig.json", "not json", read), defaultConfig)
    assert.deepStrictEqual(readPackageInfo("packages/x", `{ "name": "x", "main": "./i.js" }`), {
      name: "x",
      dir: "packages/x",
      exports: undefined,
      main: "./i.js",
      module: undefined,
      types: undefined
    })
    assert.strictEqual(joinPath("a/b", "../../.."), undefined)
  })
})

// -- fixtures -------------------------------------------------------------------

interface Project {
  readonly texts: Map<string, string>
  readonly listing: Map<string, ListedFile>
}

const loadProject = (dir: string, keep: (path: string) => boolean = () => true): Project => {
  const texts = new Map<string, string>()
  const listing = new Map<string, ListedFile>()
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = posix.relative(dir.split("\\").join("/"), join(entry.parentPath, entry.name).split("\\").join("/"))
    if (path.split("/").includes("node_modules") || !keep(path)) continue
    const text = readFileSync(join(dir, path), "utf8")
    texts.set(path, text)
    listing.set(path, { path, size: text.length, mtimeMs: 1 })
  }
  return { texts, listing }
}

const graphOf = (parse: Parse, project: Project, config: ResolverConfig, packages: ReadonlyArray<PackageInfo> = []) =>
  build({ parse, read: (path) => project.texts.get(path), config, packages }, [...project.listing.values()])

/** The graph as plain data: each file's imports and importers. */
const snapshot = (graph: ImportGraph) =>
  graph.files().map((path) => ({
    path,
    imports: graph.file(path)!.imports,
    importers: graph.importersOf(path),
    error: graph.file(path)!.error
  }))

const bruteExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".json"]

/** A resolution of a relative specifier written independently of resolve.ts: exact, TS source for .js, extensions, index. */
const bruteResolve = (files: ReadonlySet<string>, from: string, specifier: string): string | undefined => {
  const base = posix.join(posix.dirname(from), specifier)
  const candidates = [
    ...(base.endsWith(".js") ? [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx")] : []),
    ...(base.endsWith(".mjs") ? [base.replace(/\.mjs$/, ".mts")] : []),
    base,
    ...bruteExtensions.map((ext) => base + ext),
    ...bruteExtensions.map((ext) => `${base}/index${ext}`)
  ]
  return candidates.find((candidate) => files.has(candidate) && /\.[a-z]+$/.test(candidate))
}

const specifierPattern =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g

/** Every relative specifier a file writes, found by a regular expression (independent of the parser). */
const scanRelative = (text: string): Array<string> =>
  [...text.matchAll(specifierPattern)]
    .map((m) => m[1] ?? m[2] ?? m[3]!)
    .filter((s) => s.startsWith("./") || s.startsWith("../"))

/** The graph's relative edges must be exactly those the scan finds, each resolved as the brute force resolves it. */
const checkAgainstBruteForce = (graph: ImportGraph, project: Project): number => {
  const files = new Set(project.listing.keys())
  let checked = 0
  for (const path of graph.files()) {
    const expected = scanRelative(project.texts.get(path)!).map(
      (specifier) => `${specifier} -> ${bruteResolve(files, path, specifier) ?? "unresolved"}`
    )
    const unique = (list: Array<string>) => [...new Set(list)].sort()
    const actual = graph
      .file(path)!
      .imports.filter((edge) => edge.specifier.startsWith("./") || edge.specifier.startsWith("../"))
      .map((edge) => `${edge.specifier} -> ${edge.resolution._tag === "File" ? edge.resolution.path : "unresolved"}`)
    // The graph groups re-exports of one module (value and type ones apart): compared as sets.
    assert.deepStrictEqual(unique(actual), unique(expected), path)
    checked += expected.length
  }
  return checked
}

const graphApp = join(fixtures, "graph-app")

const graphAppSetup = (project: Project) => {
  const config = readResolverConfig("tsconfig.json", project.texts.get("tsconfig.json")!, (path) =>
    project.texts.get(path)
  )
  const packages = [readPackageInfo("packages/ui", project.texts.get("packages/ui/package.json")!)!]
  return { config, packages }
}

const targetOf = (graph: ImportGraph, from: string, specifier: string) =>
  graph.file(from)?.imports.find((edge) => edge.specifier === specifier)

describe("ImportGraph on graph-app", () => {
  it.effect("resolves every kind of import of the fixture", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const project = loadProject(graphApp)
      const { config, packages } = graphAppSetup(project)
      assert.deepStrictEqual(
        config.paths.map((p) => p.pattern),
        ["@/*", "@lib/*"]
      )
      assert.strictEqual(config.moduleResolution, "bundler")
      const graph = graphOf(parse, project, config, packages)
      assert.isAtLeast(graph.files().length, 20)
      const expectFile = (from: string, specifier: string, path: string) =>
        assert.deepStrictEqual(targetOf(graph, from, specifier)?.resolution, file(path), `${from}: ${specifier}`)
      expectFile("src/main.tsx", "./App", "src/App.tsx")
      expectFile("src/main.tsx", "./styles.css", "src/styles.css")
      expectFile("src/App.tsx", "@graph/ui", "packages/ui/src/index.ts")
      expectFile("src/App.tsx", "@graph/ui/button", "packages/ui/src/Button.tsx")
      expectFile("src/App.tsx", "@graph/ui/icons/Star", "packages/ui/src/icons/Star.tsx")
      expectFile("src/App.tsx", "@/components", "src/components/index.ts")
      expectFile("src/App.tsx", "@/hooks/useCart", "src/hooks/useCart.ts")
      expectFile("src/App.tsx", "./data/settings.json", "src/data/settings.json")
      expectFile("src/App.tsx", "./pages/Settings", "src/pages/Settings.tsx")
      expectFile("src/components/Header.tsx", "../lib/format.js", "src/lib/format.ts")
      expectFile("src/components/CartItem.tsx", "@lib/format", "src/lib/format.ts")
      expectFile("src/components/CartItem.tsx", "@lib/round", "src/lib/fallback/round.ts")
      expectFile("src/server/config.mts", "../lib/dates.mjs", "src/lib/dates.mts")
      expectFile("src/components/Widget.vue", "@/hooks/useCart", "src/hooks/useCart.ts")
      expectFile("src/components/Badge.svelte", "../lib/format", "src/lib/format.ts")
      expectFile("packages/ui/src/index.ts", "./Button.tsx", "packages/ui/src/Button.tsx")
      assert.deepStrictEqual(targetOf(graph, "src/server/config.mts", "node:path")?.resolution, {
        _tag: "External",
        package: "node:path"
      })
      assert.deepStrictEqual(targetOf(graph, "src/server/config.mts", "fs")?.resolution, {
        _tag: "External",
        package: "node:fs"
      })
      assert.deepStrictEqual(targetOf(graph, "src/components/Widget.vue", "vue")?.resolution, {
        _tag: "External",
        package: "vue"
      })
      // Kinds, names and type-only imports.
      const dynamic = targetOf(graph, "src/App.tsx", "./pages/Settings")!
      assert.strictEqual(dynamic.kind, "dynamic")
      const barrel = graph.file("src/components/index.ts")!.imports
      assert.deepStrictEqual(
        barrel.map((e) => [e.specifier, e.kind, e.names, e.typeOnly]),
        [
          ["./Header", "reexport", ["Header"], false],
          ["./Cart", "reexport", ["*"], false],
          ["./Cart", "reexport", ["CartProps"], true]
        ]
      )
      const cart = targetOf(graph, "src/components/Cart.tsx", "@/types")!
      assert.deepStrictEqual([cart.names, cart.typeOnly, cart.resolution], [["Item"], true, file("src/types.ts")])
      const app = targetOf(graph, "src/main.tsx", "./App")!
      assert.deepStrictEqual([app.kind, app.names, app.typeOnly], ["import", ["default"], false])
      const renamed = targetOf(graph, "src/App.tsx", "@graph/ui/button")!
      assert.deepStrictEqual(renamed.names, ["Button"])
      // The one import that does not resolve.
      assert.deepStrictEqual(
        graph.unresolved().map((u) => [u.file, u.specifier]),
        [["src/lib/api.ts", "./cache"]]
      )
      assert.isAbove(checkAgainstBruteForce(graph, project), 15)
    })
  )

  it.effect("importers, dependencies and transitive importers through a cycle", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const project = loadProject(graphApp)
      const { config, packages } = graphAppSetup(project)
      const graph = graphOf(parse, project, config, packages)
      assert.deepStrictEqual(graph.importersOf("src/lib/format.ts"), [
        "src/components/Badge.svelte",
        "src/components/CartItem.tsx",
        "src/components/Header.tsx",
        "src/components/Widget.vue",
        "src/server/config.mts"
      ])
      assert.deepStrictEqual(graph.importersOf("src/cycle/a.ts"), ["src/cycle/b.ts", "src/cycle/c.ts"])
      assert.deepStrictEqual(graph.transitiveImporters("src/cycle/a.ts"), [
        { path: "src/cycle/b.ts", depth: 1 },
        { path: "src/cycle/c.ts", depth: 1 }
      ])
      assert.deepStrictEqual(graph.transitiveImporters("src/cycle/b.ts"), [
        { path: "src/cycle/a.ts", depth: 1 },
        { path: "src/cycle/c.ts", depth: 2 }
      ])
      assert.deepStrictEqual(graph.dependenciesOf("src/cycle/a.ts"), ["src/cycle/b.ts"])
      assert.deepStrictEqual(graph.dependenciesOf("src/hooks/useCart.ts"), ["src/hooks/useUser.ts", "src/types.ts"])
      const fromApi = graph.transitiveImporters("src/lib/api.ts")
      assert.deepStrictEqual(
        fromApi.filter((i) => i.depth <= 2),
        [
          { path: "src/hooks/useUser.ts", depth: 1 },
          { path: "src/components/Header.tsx", depth: 2 },
          { path: "src/hooks/useCart.ts", depth: 2 }
        ]
      )
      const depths = new Map(fromApi.map((i) => [i.path, i.depth]))
      // Header ← Settings (dynamic) ← App ← main: App at depth 4 through useCart (useUser ← useCart ← App is 3).
      assert.strictEqual(depths.get("src/App.tsx"), 3)
      assert.strictEqual(depths.get("src/main.tsx"), 4)
      assert.strictEqual(depths.has("src/lib/api.ts"), false)
      assert.deepStrictEqual(graph.transitiveImporters("src/lib/api.ts", 1), [
        { path: "src/hooks/useUser.ts", depth: 1 }
      ])
      assert.deepStrictEqual(graph.importersOf("src/main.tsx"), [])
      assert.deepStrictEqual(graph.transitiveImporters("nowhere.ts"), [])
    })
  )

  it.effect("incremental updates equal a full rebuild and parse only what changed", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const project = loadProject(graphApp)
      const { config, packages } = graphAppSetup(project)
      const graph = graphOf(parse, project, config, packages)
      const rebuild = () => snapshot(graphOf(parse, project, config, packages))
      const put = (path: string, text: string, mtimeMs: number) => {
        project.texts.set(path, text)
        project.listing.set(path, { path, size: text.length, mtimeMs })
      }
      const listing = () => [...project.listing.values()]

      assert.deepStrictEqual(graph.update(listing()), { parsed: 0, removed: 0, resolved: 0 })

      // Header drops its import of format.
      put(
        "src/components/Header.tsx",
        project.texts.get("src/components/Header.tsx")!.replace(/import \{ formatName \}.*\n/, ""),
        2
      )
      assert.deepStrictEqual(graph.update(listing()), { parsed: 1, removed: 0, resolved: 1 })
      assert.notInclude(graph.importersOf("src/lib/format.ts"), "src/components/Header.tsx")
      assert.deepStrictEqual(snapshot(graph), rebuild())

      // A new file that the unresolved import now names.
      put("src/lib/cache.ts", "export const cache = new Map<string, { name: string }>()\n", 3)
      const added = graph.update(listing())
      assert.strictEqual(added.parsed, 1)
      assert.deepStrictEqual(graph.unresolved(), [])
      assert.deepStrictEqual(graph.importersOf("src/lib/cache.ts"), ["src/lib/api.ts"])
      assert.deepStrictEqual(snapshot(graph), rebuild())

      // A file deleted: its importer's import no longer resolves, and its own edges are gone.
      project.texts.delete("src/cycle/b.ts")
      project.listing.delete("src/cycle/b.ts")
      assert.deepStrictEqual(graph.update(listing()).parsed, 0)
      assert.deepStrictEqual(graph.importersOf("src/cycle/a.ts"), ["src/cycle/c.ts"])
      assert.deepStrictEqual(
        graph.unresolved().map((u) => [u.file, u.specifier]),
        [["src/cycle/a.ts", "./b"]]
      )
      assert.strictEqual(graph.file("src/cycle/b.ts"), undefined)
      assert.deepStrictEqual(snapshot(graph), rebuild())

      // A same-size edit caught by its modification time; a non-source file added is not parsed.
      put("src/cycle/c.ts", project.texts.get("src/cycle/c.ts")!.replace("fromA", "viaAA"), 5)
      put("src/data/more.json", "{}", 5)
      assert.deepStrictEqual(graph.update(listing()).parsed, 1)
      assert.deepStrictEqual(snapshot(graph), rebuild())
      assert.strictEqual(checkAgainstBruteForce(graph, project) > 0, true)
    })
  )

  it.effect("component scripts, parse errors and unreadable files", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const vue = `<template><p/></template>\n<script lang="ts">\nexport { x } from "./x"\n</script>\n<script setup>\nimport Y from "./y.vue"\nconst z = import("./z")\n</script>`
      assert.deepStrictEqual(
        importsOf(parse, "src/A.vue", vue).imports.map((i) => [i.specifier, i.kind]),
        [
          ["./x", "reexport"],
          ["./y.vue", "import"],
          ["./z", "dynamic"]
        ]
      )
      const astro = `---\nimport Layout from "../layouts/Layout.astro"\n---\n<Layout><p>import "nothing"</p></Layout>`
      assert.deepStrictEqual(
        importsOf(parse, "src/pages/index.astro", astro).imports.map((i) => i.specifier),
        ["../layouts/Layout.astro"]
      )
      const texts: Record<string, string> = {
        "a.ts": "import { b } from './b'\nconst = ;",
        "b.ts": "export const b = 1"
      }
      const graph = build({ parse, read: (path) => texts[path], config: defaultConfig }, [
        { path: "a.ts", size: 1, mtimeMs: 0 },
        { path: "b.ts", size: 1, mtimeMs: 0 },
        { path: "c.ts", size: 1, mtimeMs: 0 }
      ])
      assert.isString(graph.file("a.ts")!.error)
      assert.deepStrictEqual(graph.file("c.ts")!.imports, [])
    })
  )
})

describe("ImportGraph on react-app", () => {
  it.effect("agrees with a brute-force scan of src/", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const project = loadProject(join(fixtures, "react-app"), (path) => path.startsWith("src/"))
      const graph = graphOf(parse, project, defaultConfig)
      assert.isAtLeast(graph.files().length, 5)
      assert.isAtLeast(checkAgainstBruteForce(graph, project), 5)
      assert.deepStrictEqual(graph.importersOf("src/utils/format.ts"), [
        "src/App.tsx",
        "src/components/ItemList.tsx",
        "src/utils/format.test.ts"
      ])
      assert.deepStrictEqual(graph.transitiveImporters("src/hooks/useItems.ts"), [
        { path: "src/App.tsx", depth: 1 },
        { path: "src/components/ItemList.tsx", depth: 1 },
        { path: "src/utils/format.test.ts", depth: 1 },
        { path: "src/main.tsx", depth: 2 }
      ])
      const typeOnly = graph.file("src/components/ItemList.tsx")!.imports[0]!
      assert.deepStrictEqual([typeOnly.specifier, typeOnly.typeOnly], ["../hooks/useItems.ts", true])
      assert.deepStrictEqual(graph.unresolved(), [])
    })
  )
})
