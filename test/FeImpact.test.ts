/**
 * fe_impact through the test kit over the real Node workspace: on
 * `test/fixtures/fe/graph-app` and `react-app`, every file's direct and
 * transitive importers against a brute-force scan; symbols (named,
 * namespace and `export *` imports, default exports); the tests covering a
 * file; the cycle; errors (unknown file or symbol with the nearest names,
 * paths outside the root); the cache (a copy changed between calls: only
 * the changed or added file parsed again); the budget; and a generated
 * 2,000-file project, checked for correctness only.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join, posix } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import { impact, isTestFile } from "../capabilities/fe/impact.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import { TestClient } from "../src/testing.ts"

const fixtures = join(import.meta.dirname, "fixtures", "fe")
const graphApp = join(fixtures, "graph-app")
const reactApp = join(fixtures, "react-app")

const temps: Array<string> = []
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-impact-")))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const setup = (root: string) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [impact] })).pipe(
      Layer.provide(FeGraph.layer),
      Layer.provide(NodeWorkspace.layer({ root }))
    )
  )

const call = (client: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(client.callToolStructured("fe_impact", args), (result) => result as any)

const errorText = (result: { readonly content: ReadonlyArray<any> }) =>
  result.content.map((c: any) => (typeof c.text === "string" ? c.text : "")).join("\n")

// -- brute force ------------------------------------------------------------------

const sourceExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte"]
const tryExtensions = [...sourceExtensions, ".json"]

/** The project's source files (node_modules and dist left out), root-relative. */
const sourcesOf = (root: string): Array<string> =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      posix.relative(root.split("\\").join("/"), join(entry.parentPath, entry.name).split("\\").join("/"))
    )
    .filter(
      (path) => !path.startsWith("node_modules/") && !path.includes("/node_modules/") && !path.startsWith("dist/")
    )
    .filter((path) => sourceExtensions.some((ext) => path.endsWith(ext)) && !path.endsWith(".d.ts"))
    .sort()

/** A specifier resolved by trying every candidate: aliases as the fixture's tsconfig and workspace package define them. */
const bruteResolve = (files: ReadonlySet<string>, from: string, specifier: string): string | undefined => {
  const aliases: Record<string, ReadonlyArray<string>> = {
    "@graph/ui": ["packages/ui/src/index.ts"],
    "@graph/ui/button": ["packages/ui/src/Button.tsx"]
  }
  let bases: ReadonlyArray<string>
  if (aliases[specifier] !== undefined) bases = aliases[specifier]
  else if (specifier.startsWith("@graph/ui/icons/")) bases = [`packages/ui/src/icons/${specifier.slice(16)}.tsx`]
  else if (specifier.startsWith("@/")) bases = [`src/${specifier.slice(2)}`]
  else if (specifier.startsWith("@lib/"))
    bases = [`src/lib/${specifier.slice(5)}`, `src/lib/fallback/${specifier.slice(5)}`]
  else if (specifier.startsWith(".")) bases = [posix.join(posix.dirname(from), specifier)]
  else return undefined
  for (const base of bases) {
    const stem = base.replace(/\.(m?js)$/, "")
    const candidates = [
      base,
      ...(stem !== base
        ? tryExtensions.map((ext) => stem + ext.replace(/^\.ts$/, base.endsWith(".mjs") ? ".mts" : ".ts"))
        : []),
      ...tryExtensions.map((ext) => base + ext),
      ...tryExtensions.map((ext) => `${base}/index${ext}`)
    ]
    const found = candidates.find((candidate) => files.has(candidate))
    if (found !== undefined) return found
  }
  return undefined
}

/** Every file's direct importers, from a regular-expression scan of the texts. */
const bruteImporters = (root: string): Map<string, Set<string>> => {
  const files = sourcesOf(root)
  const all = new Set(
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => posix.relative(root, join(entry.parentPath, entry.name)))
  )
  const importers = new Map<string, Set<string>>(files.map((file) => [file, new Set()]))
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8")
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)) {
      const target = bruteResolve(all, file, match[1]!)
      if (target !== undefined && target !== file) {
        const set = importers.get(target) ?? new Set()
        set.add(file)
        importers.set(target, set)
      }
    }
  }
  return importers
}

/** The transitive importers of a file by breadth-first search over the brute-force edges. */
const bruteTransitive = (importers: ReadonlyMap<string, ReadonlySet<string>>, file: string): Map<string, number> => {
  const depths = new Map<string, number>()
  let frontier = [file]
  for (let depth = 1; frontier.length > 0; depth++) {
    const next: Array<string> = []
    for (const current of frontier) {
      for (const importer of importers.get(current) ?? []) {
        if (importer === file || depths.has(importer)) continue
        depths.set(importer, depth)
        next.push(importer)
      }
    }
    frontier = next
  }
  return depths
}

const checkAgainstBruteForce = (root: string) =>
  Effect.gen(function* () {
    const client = yield* setup(root)
    const brute = bruteImporters(root)
    const files = sourcesOf(root)
    const result = yield* call(client, { files, budget: 400_000 })
    assert.isFalse(result.truncated)
    assert.strictEqual(result.targets.length, files.length)
    for (const target of result.targets) {
      const expected = [...(brute.get(target.file) ?? [])].sort()
      assert.deepStrictEqual(
        target.importers.map((i: any) => i.path),
        expected,
        `direct importers of ${target.file}`
      )
      const transitive = bruteTransitive(brute, target.file)
      assert.deepStrictEqual(
        Object.fromEntries(target.transitive.map((t: any) => [t.path, t.depth])),
        Object.fromEntries([...transitive].sort(([a], [b]) => (a < b ? -1 : 1))),
        `transitive importers of ${target.file}`
      )
      assert.deepStrictEqual(target.tests, [...transitive.keys()].filter(isTestFile).sort())
    }
    return result
  })

// -- the fixtures -----------------------------------------------------------------

describe("fe_impact on the fixtures", () => {
  it.effect("graph-app: every file's importers and transitive importers equal a brute-force scan", () =>
    Effect.gen(function* () {
      const result = yield* checkAgainstBruteForce(graphApp)
      const format = result.targets.find((t: any) => t.file === "src/lib/format.ts")
      assert.deepStrictEqual(
        format.importers.map((i: any) => [i.path, i.names]),
        [
          ["src/components/Badge.svelte", ["formatName"]],
          ["src/components/CartItem.tsx", ["formatPrice"]],
          ["src/components/Header.tsx", ["formatName"]],
          ["src/components/Widget.vue", ["formatPrice"]],
          ["src/server/config.mts", ["formatName"]]
        ]
      )
      const types = result.targets.find((t: any) => t.file === "src/types.ts")
      assert.isTrue(types.importers.every((i: any) => i.typeOnly))
      assert.strictEqual(result.stats.parsed, result.stats.files - 6) // every source; not the json, css, tsconfigs and manifests
    })
  )

  it.effect("react-app: importers equal a brute-force scan; tests covering a file directly and transitively", () =>
    Effect.gen(function* () {
      yield* checkAgainstBruteForce(reactApp)
      const client = yield* setup(reactApp)
      const result = yield* call(client, { files: ["src/utils/format.ts", "src/hooks/useItems.ts", "src/App.tsx"] })
      const [format, useItems, app] = result.targets
      assert.deepStrictEqual(format.tests, ["src/utils/format.test.ts"])
      assert.deepStrictEqual(format.verify.steps, ["typecheck", "lint", "test"])
      assert.deepStrictEqual(format.verify.lint, ["src/utils/format.ts", "src/App.tsx", "src/components/ItemList.tsx"])
      assert.deepStrictEqual(useItems.tests, ["src/utils/format.test.ts"])
      assert.deepStrictEqual(
        useItems.importers.map((i: any) => [i.path, i.names, i.typeOnly]),
        [
          ["src/App.tsx", ["useItems"], false],
          ["src/components/ItemList.tsx", ["Item"], true],
          ["src/utils/format.test.ts", ["nextId"], false]
        ]
      )
      assert.deepStrictEqual(app.tests, [])
      assert.deepStrictEqual(app.transitive, [{ path: "src/main.tsx", depth: 1 }])
      assert.deepStrictEqual(app.risk, {
        level: "medium",
        direct: 1,
        transitive: 1,
        tests: 0,
        reason: "1 importers and no test covers it"
      })
      assert.deepStrictEqual(result.verify.tests, ["src/utils/format.test.ts"])
      assert.include(result.next, "fe_verify")
    })
  )

  it.effect("symbols: named imports, namespace and export * as may-use, default exports, maxDepth", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const named = yield* call(client, { symbols: ["formatName"] })
      assert.strictEqual(named.targets.length, 1)
      assert.strictEqual(named.targets[0].target, "src/lib/format.ts#formatName")
      assert.deepStrictEqual(
        named.targets[0].importers.map((i: any) => i.path),
        ["src/components/Badge.svelte", "src/components/Header.tsx", "src/server/config.mts"]
      )
      const star = yield* call(client, { symbols: ["packages/ui/src/icons/Star.tsx#Star"] })
      assert.deepStrictEqual(
        star.targets[0].importers.map((i: any) => [i.path, i.names, i.mayUse ?? false]),
        [
          ["packages/ui/src/index.ts", ["*"], true],
          ["src/App.tsx", ["Star"], false]
        ]
      )
      const cart = yield* call(client, { symbols: ["src/components/Cart.tsx#Cart"] })
      assert.deepStrictEqual(
        cart.targets[0].importers.map((i: any) => [i.path, i.mayUse ?? false]),
        [["src/components/index.ts", true]]
      )
      assert.deepStrictEqual(
        cart.targets[0].transitive.map((t: any) => [t.path, t.depth]),
        [
          ["src/components/index.ts", 1],
          ["src/App.tsx", 2],
          ["src/main.tsx", 3]
        ]
      )
      const shallow = yield* call(client, { symbols: ["src/components/Cart.tsx#Cart"], maxDepth: 2 })
      assert.deepStrictEqual(
        shallow.targets[0].transitive.map((t: any) => t.path),
        ["src/components/index.ts", "src/App.tsx"]
      )
      assert.strictEqual(shallow.targets[0].risk.transitive, 3)
      // A default export by its declaration's name: importers name it `default`.
      const settings = yield* call(client, { symbols: ["src/pages/Settings.tsx#Settings"] })
      assert.deepStrictEqual(
        settings.targets[0].importers.map((i: any) => [i.path, i.kinds, i.mayUse ?? false]),
        [["src/App.tsx", ["dynamic"], true]]
      )
      const app = yield* call(client, { symbols: ["src/App.tsx#default"] })
      assert.deepStrictEqual(
        app.targets[0].importers.map((i: any) => [i.path, i.names]),
        [["src/main.tsx", ["default"]]]
      )
    })
  )

  it.effect("a cycle: its files reported once, and the cycle named", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const result = yield* call(client, { files: ["src/cycle/a.ts", "src/cycle/b.ts", "src/cycle/c.ts"] })
      const [a, b, c] = result.targets
      assert.deepStrictEqual(a.transitive, [
        { path: "src/cycle/b.ts", depth: 1 },
        { path: "src/cycle/c.ts", depth: 1 }
      ])
      assert.deepStrictEqual(a.cycle, ["src/cycle/a.ts", "src/cycle/b.ts"])
      assert.deepStrictEqual(b.transitive, [
        { path: "src/cycle/a.ts", depth: 1 },
        { path: "src/cycle/c.ts", depth: 2 }
      ])
      assert.deepStrictEqual(b.cycle, ["src/cycle/a.ts", "src/cycle/b.ts"])
      assert.isUndefined(c.cycle)
      assert.deepStrictEqual(result.verify.files, ["src/cycle/a.ts", "src/cycle/b.ts", "src/cycle/c.ts"])
    })
  )

  it.effect("errors: no target, unknown file or symbol with the nearest names, paths outside the root", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      yield* client.expectToolError("fe_impact", {}, "no_target")
      const file = yield* client.expectToolError("fe_impact", { files: ["src/lib/formt.ts"] }, "unknown_file")
      assert.include(errorText(file), "src/lib/format.ts")
      const manifest = yield* client.expectToolError("fe_impact", { files: ["package.json"] }, "unknown_file")
      assert.include(errorText(manifest), "not a source file")
      // A file that is not a source but is imported (a stylesheet) has its importers; it is not linted.
      const css = yield* call(client, { files: ["src/styles.css"] })
      assert.deepStrictEqual(css.targets[0].verify.lint, ["src/main.tsx"])
      const symbol = yield* client.expectToolError(
        "fe_impact",
        { symbols: ["src/lib/format.ts#formatPrise"] },
        "unknown_symbol"
      )
      assert.include(errorText(symbol), "formatPrice")
      const bare = yield* client.expectToolError("fe_impact", { symbols: ["useCrat"] }, "unknown_symbol")
      assert.include(errorText(bare), "src/hooks/useCart.ts#useCart")
      yield* client.expectToolError("fe_impact", { files: ["../react-app/src/App.tsx"] }, "path_rejected:escapes_root")
      yield* client.expectToolError("fe_impact", { files: [".env"] }, "path_rejected:denied")
    })
  )

  it.effect("the budget shortens the lists and keeps the counts", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const full = yield* call(client, { files: ["src/lib/api.ts"] })
      const small = yield* call(client, { files: ["src/lib/api.ts"], budget: 1000 })
      assert.isFalse(full.truncated)
      assert.isTrue(small.truncated)
      assert.isAtMost(JSON.stringify(small).length, 1000)
      assert.deepStrictEqual(small.targets[0].risk, full.targets[0].risk)
      assert.isAbove(small.targets[0].omitted.transitive, 0)
    })
  )
})

// -- the cache --------------------------------------------------------------------

describe("fe_impact's cache", () => {
  it.effect("a second call parses nothing; a changed or added file is the only one parsed again", () =>
    Effect.gen(function* () {
      const root = tempDir()
      cpSync(graphApp, root, { recursive: true })
      const client = yield* setup(root)
      const first = yield* call(client, { files: ["src/lib/format.ts"] })
      assert.strictEqual(first.stats.parsed, first.stats.files - 6)
      assert.notInclude(
        first.targets[0].importers.map((i: any) => i.path),
        "src/pages/Settings.tsx"
      )
      const second = yield* call(client, { files: ["src/lib/format.ts"] })
      assert.strictEqual(second.stats.parsed, 0)
      assert.deepStrictEqual(second.targets, first.targets)

      writeFileSync(
        join(root, "src/pages/Settings.tsx"),
        'import { Header } from "../components/Header"\nimport { formatPrice } from "../lib/format"\n\nexport default function Settings() {\n  return <Header title={formatPrice(1)} />\n}\n'
      )
      const changed = yield* call(client, { files: ["src/lib/format.ts"] })
      assert.strictEqual(changed.stats.parsed, 1)
      assert.deepStrictEqual(
        changed.targets[0].importers.find((i: any) => i.path === "src/pages/Settings.tsx")?.names,
        ["formatPrice"]
      )

      writeFileSync(join(root, "src/lib/format.spec.ts"), 'import { formatName } from "./format"\nformatName("x")\n')
      const added = yield* call(client, { files: ["src/lib/format.ts"] })
      assert.strictEqual(added.stats.parsed, 1)
      assert.deepStrictEqual(added.targets[0].tests, ["src/lib/format.spec.ts"])
      assert.strictEqual(added.stats.files, first.stats.files + 1)
    })
  )

  it.effect("a tsconfig created after the first call is read: its paths resolve on the next call", () =>
    Effect.gen(function* () {
      const root = tempDir()
      mkdirSync(join(root, "src/lib"), { recursive: true })
      writeFileSync(join(root, "src/lib/util.ts"), "export const util = 1\n")
      writeFileSync(join(root, "src/main.ts"), 'import { util } from "@/lib/util"\nexport const main = util\n')
      const client = yield* setup(root)
      const before = yield* call(client, { files: ["src/lib/util.ts"] })
      assert.deepStrictEqual(before.targets[0].importers, [])
      writeFileSync(
        join(root, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@/*": ["src/*"] } } })
      )
      const after = yield* call(client, { files: ["src/lib/util.ts"] })
      assert.deepStrictEqual(
        after.targets[0].importers.map((i: any) => i.path),
        ["src/main.ts"]
      )
    })
  )

  it.effect("a generated 2,000-file project: importers, tests and risk are right", () =>
    Effect.gen(function* () {
      const root = tempDir()
      const write = (path: string, text: string) => {
        mkdirSync(join(root, posix.dirname(path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      write("package.json", JSON.stringify({ name: "generated", dependencies: { react: "19.0.0" } }))
      write(".gitignore", "node_modules/\ndist/\n")
      write("node_modules/react/index.js", "export const useState = () => {}\n")
      write("dist/bundle.js", 'import "../src/utils/format0.ts"\n')
      for (let i = 0; i < 50; i++) {
        write(`src/types/types${i}.ts`, `export interface Item${i} { id: number; price: number }\n`)
        write(
          `src/utils/format${i}.ts`,
          `import type { Item${i} } from '../types/types${i}.ts'\nexport const format${i} = (item: Item${i}): string => String(item.price)\n`
        )
      }
      let count = 100
      const widgetsOf0: Array<string> = []
      for (let i = 0; count < 2000; i++, count++) {
        const path = `src/features/area${i % 20}/components/Widget${i}.tsx`
        if (i % 50 === 0) widgetsOf0.push(path)
        write(
          path,
          [
            "import { useState } from 'react'",
            `import { format${i % 50} } from '../../../utils/format${i % 50}.ts'`,
            `import type { Item${i % 50} } from '../../../types/types${i % 50}.ts'`,
            `export function Widget${i}({ item }: { item: Item${i % 50} }) {`,
            "  const [open] = useState(false)",
            `  return <p>{open ? format${i % 50}(item) : null}</p>`,
            "}"
          ].join("\n")
        )
      }
      write(
        "src/utils/format0.test.ts",
        "import { Widget0 } from '../features/area0/components/Widget0.tsx'\nWidget0\n"
      )
      const client = yield* setup(root)
      const cold = yield* call(client, { files: ["src/utils/format0.ts", "src/types/types0.ts"], budget: 400_000 })
      assert.strictEqual(cold.stats.parsed, 2001)
      const [format0, types0] = cold.targets
      assert.deepStrictEqual(
        format0.importers.map((i: any) => i.path),
        [...widgetsOf0].sort()
      )
      assert.deepStrictEqual(format0.tests, ["src/utils/format0.test.ts"])
      assert.strictEqual(format0.risk.level, "high")
      assert.strictEqual(types0.importers.length, widgetsOf0.length + 1)
      assert.isTrue(types0.importers.every((i: any) => i.typeOnly))
      assert.strictEqual(types0.risk.transitive, widgetsOf0.length + 2)
      assert.include(cold.next, "files are affected")
      assert.include(cold.next, "fe_batch")
      const warm = yield* call(client, { files: ["src/utils/format0.ts", "src/types/types0.ts"], budget: 400_000 })
      assert.strictEqual(warm.stats.parsed, 0)
      assert.deepStrictEqual(warm.targets, cold.targets)
    })
  )
})
