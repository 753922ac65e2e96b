/**
 * fe_budget through the test kit over the real Node workspace: on
 * `test/fixtures/fe/graph-app` and `react-app`, and on a generated
 * 500-file project. The graph relations the ranking uses are checked
 * against an independent resolver: `tsc --explainFiles` (TypeScript's own
 * module resolution, which shares nothing with the fe graph), from which
 * the test computes each file's expected score by breadth-first search.
 * The packing is checked against the files themselves: every cost
 * recomputed from the file or skeleton text, the total within the budget
 * for several budgets.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join, posix } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { budget, contextBudgets } from "../capabilities/fe/budget.ts"
import { isCodeLike, termsOf, weights, wordsOf } from "../capabilities/fe/budget/rank.ts"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import { isTestFile } from "../capabilities/fe/impact.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import { TestClient } from "../src/testing.ts"

const fixtures = join(import.meta.dirname, "fixtures", "fe")
const graphApp = join(fixtures, "graph-app")
const reactApp = join(fixtures, "react-app")
const tsc = join(import.meta.dirname, "..", "node_modules", ".bin", "tsc")

const temps: Array<string> = []
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const setup = (root: string) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [budget] })).pipe(
      Layer.provide(FeGraph.layer),
      Layer.provide(NodeWorkspace.layer({ root }))
    )
  )

const call = (client: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(client.callToolStructured("fe_budget", args), (result) => result as any)

interface Entry {
  readonly path: string
  readonly tokens: number
  readonly score: number
  readonly why: string
}

/** Every entry of a result, chosen or skipped, in the order the tool ranked them. */
const entries = (result: any): Array<Entry> =>
  [...result.whole, ...result.skeleton, ...result.skip.top].sort(
    (a: Entry, b: Entry) => b.score - a.score || (a.path < b.path ? -1 : 1)
  )
const scoreOf = (result: any, path: string): number | undefined => entries(result).find((e) => e.path === path)?.score

/** The checks every result passes: within budget, costs as the texts say, each file once. */
const checkPacking = (root: string, result: any, budgetTokens: number) => {
  const chosen = [...result.whole, ...result.skeleton]
  assert.isAtMost(result.tokens, budgetTokens)
  assert.strictEqual(
    result.tokens,
    chosen.reduce((sum: number, e: Entry) => sum + e.tokens, result.overhead)
  )
  // The whole response (its JSON, envelope included) and the whole files it names (read later, unless inline) are the
  // cost: exactly tokens, within the budget.
  const wholeNamed = result.whole.reduce((sum: number, e: any) => sum + (e.content === undefined ? e.tokens : 0), 0)
  assert.strictEqual(Math.ceil(JSON.stringify(result).length / 4) + wholeNamed, result.tokens)
  assert.isAtMost(Math.ceil(JSON.stringify(result).length / 4), budgetTokens)
  assert.strictEqual(new Set(chosen.map((e: Entry) => e.path)).size, chosen.length)
  for (const entry of result.whole) {
    assert.strictEqual(entry.tokens, Math.ceil(readFileSync(join(root, entry.path), "utf8").length / 4), entry.path)
  }
  for (const entry of result.skeleton) {
    assert.strictEqual(entry.tokens, Math.ceil(entry.text.length / 4), entry.path)
    assert.isTrue(entry.text.startsWith(entry.path), entry.path)
    // A skeleton is chosen only when it is smaller than the file.
    assert.isBelow(entry.tokens, Math.ceil(readFileSync(join(root, entry.path), "utf8").length / 4), entry.path)
  }
  assert.strictEqual(result.whole.length + result.skeleton.length + result.skip.ranked, result.stats.ranked)
  assert.strictEqual(result.skip.count, result.stats.files - chosen.length)
}

// -- the independent resolver -------------------------------------------------------

/** The project's import edges as `tsc --explainFiles` reports them: importer → imported, project files only. */
const tscEdges = (root: string, project: string): Array<readonly [string, string]> => {
  const run = spawnSync(tsc, ["--noEmit", "--explainFiles", "-p", project], { cwd: root, encoding: "utf8" })
  const edges: Array<readonly [string, string]> = []
  let current: string | undefined
  const inProject = (path: string) => !path.startsWith("/") && !path.includes("node_modules") && !path.startsWith("..")
  for (const line of run.stdout.split("\n")) {
    if (line.trim() === "") continue
    if (!line.startsWith(" ")) {
      current = line.trim()
      continue
    }
    const match = /^\s*Imported via (['"])(.*?)\1 from file '(.*?)'/.exec(line)
    if (match !== null && current !== undefined && inProject(current) && inProject(match[3]!)) {
      edges.push([match[3]!, current])
    }
  }
  assert.isAbove(edges.length, 0, `tsc --explainFiles reported no edges: ${run.stdout.slice(0, 500)} ${run.stderr}`)
  return edges
}

/** Breadth-first distances from `start` over `next`, up to `maxDepth` (the start itself left out). */
const distances = (
  start: string,
  next: (path: string) => Iterable<string>,
  maxDepth = Number.POSITIVE_INFINITY
): Map<string, number> => {
  const out = new Map<string, number>([[start, 0]])
  let frontier = [start]
  for (let depth = 1; frontier.length > 0 && depth <= maxDepth; depth++) {
    const following: Array<string> = []
    for (const path of frontier) {
      for (const other of next(path)) {
        if (out.has(other)) continue
        out.set(other, depth)
        following.push(other)
      }
    }
    frontier = following
  }
  out.delete(start)
  return out
}

/**
 * The expected scores of a task naming one symbol declared in `declaring` (and nothing else: no word of the task
 * is in the project's names), every importer taking that symbol: from the independent edges, by the documented
 * weights.
 */
const expectedScores = (edges: ReadonlyArray<readonly [string, string]>, declaring: string): Map<string, number> => {
  const importers = new Map<string, Set<string>>()
  const dependencies = new Map<string, Set<string>>()
  for (const [from, to] of edges) {
    if (from === to) continue
    if (!importers.has(to)) importers.set(to, new Set())
    importers.get(to)!.add(from)
    if (!dependencies.has(from)) dependencies.set(from, new Set())
    dependencies.get(from)!.add(to)
  }
  const contributions = new Map<string, Array<number>>([[declaring, [weights.symbol]]])
  const add = (path: string, score: number) => contributions.set(path, [...(contributions.get(path) ?? []), score])
  const seed = weights.symbol
  for (const [path, depth] of distances(declaring, (p) => importers.get(p) ?? [])) {
    if (depth <= weights.importerDepth) add(path, seed * weights.importer * weights.decay ** (depth - 1))
    if (isTestFile(path)) add(path, seed * weights.test * weights.decay ** (depth - 1))
  }
  for (const [path, depth] of distances(declaring, (p) => dependencies.get(p) ?? [], weights.dependencyDepth)) {
    add(path, seed * weights.dependency * weights.decay ** (depth - 1))
  }
  const out = new Map<string, number>()
  for (const [path, list] of contributions) {
    const sorted = [...list].sort((a, b) => b - a)
    const rest = sorted.slice(1).reduce((sum, s) => sum + s, 0)
    out.set(path, Math.round((sorted[0]! + weights.others * rest) * 10) / 10)
  }
  return out
}

// -- a generated project ------------------------------------------------------------

/** A deterministic pseudo-random sequence (a linear congruential generator). */
const random = (seed: number) => {
  let state = seed
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n
  }
}

const relative = (from: string, to: string): string => {
  const path = posix.relative(posix.dirname(from), to)
  return path.startsWith(".") ? path : `./${path}`
}

/**
 * About 500 files: 50 core modules, 420 feature modules importing one to three earlier modules (extensionless
 * specifiers, some through a directory's index barrel), and 30 tests. Each module exports one function `fnN`,
 * whose name has no word the ranking reads (words of fewer than 3 letters are ignored), so only the named symbol
 * and the graph decide. `src/core/c7.ts` carries a long comment: too large to be read whole in a small budget.
 */
const generate = (): { root: string; files: Array<string> } => {
  const root = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-budget-")))
  temps.push(root)
  const files: Array<string> = []
  const write = (path: string, text: string) => {
    mkdirSync(join(root, posix.dirname(path)), { recursive: true })
    writeFileSync(join(root, path), text)
    files.push(path)
  }
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "generated", private: true }))
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "es2022", module: "esnext", moduleResolution: "bundler", noEmit: true, types: [] },
      include: ["src"]
    })
  )
  const next = random(42)
  const modules: Array<string> = []
  const barrelled = new Set([0, 1, 2])
  const pathOf = (i: number) => (i < 50 ? `src/core/c${i}.ts` : `src/features/f${i % 20}/w${i}.ts`)
  for (let i = 0; i < 470; i++) {
    const path = pathOf(i)
    const count = i === 0 ? 0 : i < 50 ? 1 + next(2) : 1 + next(3)
    const picked = [...new Set(Array.from({ length: count }, () => next(i)))].sort((a, b) => a - b)
    const lines = picked.map((j) => {
      // Through the barrel of a group when there is one and it is not the importer's own group.
      const viaBarrel = j >= 50 && barrelled.has(j % 20) && (i < 50 || i % 20 !== j % 20)
      const target = viaBarrel ? `src/features/f${j % 20}` : pathOf(j).slice(0, -3)
      return `import { fn${j} } from "${relative(path, target)}"`
    })
    const body = picked.length === 0 ? "n" : picked.map((j) => `fn${j}(n)`).join(" + ")
    const comment = i === 7 ? `/*\n${"  A long explanation of this module's behaviour.\n".repeat(80)}*/\n` : ""
    write(path, `${lines.join("\n")}\n${comment}export const fn${i} = (n: number): number => ${body} + ${i}\n`)
    modules.push(path)
  }
  for (const group of barrelled) {
    const members = modules.filter((_, i) => i >= 50 && i % 20 === group)
    write(
      `src/features/f${group}/index.ts`,
      members.map((m) => `export * from "./${posix.basename(m, ".ts")}"`).join("\n") + "\n"
    )
  }
  for (let t = 0; t < 30; t++) {
    const i = 50 + next(420)
    const path = `src/features/f${i % 20}/__tests__/w${i}.${t}.test.ts`
    write(
      path,
      `import { fn${i} } from "${relative(path, pathOf(i).slice(0, -3))}"\nexport const checked${t} = fn${i}(1)\n`
    )
  }
  return { root, files }
}

describe("fe_budget", () => {
  it("reads the task's terms", () => {
    const terms = termsOf("Rename formatPrice to formatMoney in src/lib/format.ts, and show currency in CartSummary.")
    assert.deepStrictEqual(terms.paths, ["src/lib/format.ts"])
    assert.deepStrictEqual(terms.identifiers, ["formatPrice", "formatMoney", "currency", "CartSummary"])
    // The doc comments' examples.
    assert.deepStrictEqual(termsOf("rename formatPrice in src/lib/format.ts"), {
      paths: ["src/lib/format.ts"],
      identifiers: ["formatPrice"],
      words: ["format", "price"],
      phrases: []
    })
    assert.deepStrictEqual(termsOf("show the site header").phrases, ["site header"])
    assert.deepStrictEqual(termsOf("The Site Header menu. Cart").phrases, [
      "site header",
      "header menu",
      "site header menu"
    ])
    assert.deepStrictEqual(wordsOf("CartSummary"), ["cart", "summary"])
    assert.deepStrictEqual(wordsOf("src/lib/format-prices.ts"), ["lib", "format", "price"])
    assert.isTrue(isCodeLike("formatPrice"))
    assert.isFalse(isCodeLike("price"))
    assert.deepStrictEqual(wordsOf("HTMLParser_v2"), ["html", "parser"])
    assert.deepStrictEqual(wordsOf("src/components/cart-items.tsx"), ["cart", "item"])
    assert.deepStrictEqual(termsOf("in src/hooks/useCart.ts#useCart").identifiers, ["useCart"])
  })

  it.effect("a named symbol: its declaring file first, the importers that use it next", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const result = yield* call(client, {
        task: "rename formatPrice to formatMoney and show currency in CartSummary"
      })
      checkPacking(graphApp, result, contextBudgets.default)
      assert.strictEqual(result.whole[0].path, "src/lib/format.ts")
      assert.include(result.whole[0].why, "exports formatPrice (named)")
      assert.deepStrictEqual(result.matched.symbols, [{ name: "formatPrice", file: "src/lib/format.ts" }])
      assert.deepStrictEqual(result.unmatched, ["formatMoney", "CartSummary", "currency"])
      // The importers taking formatPrice, then those taking other names of the file (formatName).
      const users = ["src/components/CartItem.tsx", "src/components/Widget.vue"]
      const others = ["src/components/Header.tsx", "src/components/Badge.svelte", "src/server/config.mts"]
      const ranked = entries(result)
      assert.deepStrictEqual(
        ranked
          .slice(1, 3)
          .map((e) => e.path)
          .sort(),
        users
      )
      for (const user of users)
        for (const other of others) assert.isAbove(scoreOf(result, user)!, scoreOf(result, other)!)
      assert.include(ranked.find((e) => e.path === "src/components/Header.tsx")!.why, "(not formatPrice)")
      assert.include(result.next, "fe_impact")
      assert.isFalse(result.fallback)
    })
  )

  it.effect("a named path: the file first, its importers and dependencies next, farther files after", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const result = yield* call(client, { task: "Fix the empty state in src/components/Cart.tsx" })
      checkPacking(graphApp, result, contextBudgets.default)
      assert.deepStrictEqual(result.matched.files, ["src/components/Cart.tsx"])
      assert.strictEqual(result.whole[0].path, "src/components/Cart.tsx")
      const near = ["src/components/index.ts", "src/components/CartItem.tsx", "src/types.ts"]
      const ranked = entries(result).map((e) => e.path)
      assert.deepStrictEqual(ranked.slice(1, 4).sort(), [...near].sort())
      // The barrel imports Cart.tsx: it ranks above the dependencies.
      assert.strictEqual(ranked[1], "src/components/index.ts")
      assert.isAbove(scoreOf(result, "src/types.ts")!, scoreOf(result, "src/App.tsx")!)
      assert.isAbove(scoreOf(result, "src/App.tsx")!, scoreOf(result, "src/main.tsx")!)
      // A stylesheet is not parsed: the files importing it rank first.
      const css = yield* call(client, { task: "change the colours in src/styles.css" })
      assert.deepStrictEqual(css.matched.files, ["src/styles.css"])
      assert.strictEqual(entries(css)[0]!.path, "src/main.tsx")
      assert.include(entries(css)[0]!.why, "imports src/styles.css (named)")
      // A base name alone names the file too.
      const byName = yield* call(client, { task: "the CartItem price is wrong" })
      assert.deepStrictEqual(byName.matched.files, ["src/components/CartItem.tsx"])
      assert.strictEqual(entries(byName)[0]!.path, "src/components/CartItem.tsx")
    })
  )

  it.effect("nothing matched: says so and falls back to the entry points and most-imported files", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const result = yield* call(client, { task: "make the zorbulator quuxify faster" })
      assert.isTrue(result.fallback)
      assert.deepStrictEqual(result.unmatched, ["zorbulator", "quuxify", "faster"])
      assert.strictEqual(entries(result)[0]!.path, "src/main.tsx")
      assert.include(result.next, "fe_skeleton")
      assert.include(result.next, "zorbulator")
      checkPacking(graphApp, result, contextBudgets.default)
    })
  )

  it.effect("inline: true gives the whole files' text", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const result = yield* call(client, { task: "formatPrice", inline: true })
      assert.isAbove(result.whole.length, 0)
      for (const entry of result.whole) {
        assert.strictEqual(entry.content, readFileSync(join(graphApp, entry.path), "utf8"))
      }
      const plain = yield* call(client, { task: "formatPrice" })
      assert.isUndefined(plain.whole[0].content)
    })
  )

  it.effect("bad input: an empty task, a budget out of range", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      const blank = yield* client.expectToolError("fe_budget", { task: "  \n " }, "empty_task")
      assert.include(JSON.stringify(blank), "fe_skeleton")
      yield* client.expectToolError("fe_budget", { task: "" }, "invalid_arguments")
      yield* client.expectToolError("fe_budget", { task: "x", budget: contextBudgets.minimum - 1 }, "invalid_arguments")
      yield* client.expectToolError("fe_budget", { task: "x", budget: contextBudgets.maximum + 1 }, "invalid_arguments")
      yield* client.expectToolError("fe_budget", { task: "x".repeat(5000) }, "invalid_arguments")
    })
  )

  it.effect("react-app: the ranking agrees with tsc's own resolution", () =>
    Effect.gen(function* () {
      const edges = tscEdges(reactApp, "tsconfig.app.json")
      const declaring = "src/utils/format.ts"
      const direct = [...new Set(edges.filter(([, to]) => to === declaring).map(([from]) => from))].sort()
      assert.deepStrictEqual(direct, ["src/App.tsx", "src/components/ItemList.tsx", "src/utils/format.test.ts"])
      const client = yield* setup(reactApp)
      const result = yield* call(client, { task: "formatPrice rounds wrongly" })
      checkPacking(reactApp, result, contextBudgets.default)
      const ranked = entries(result)
      assert.strictEqual(ranked[0]!.path, declaring)
      assert.deepStrictEqual(
        ranked
          .slice(1, 1 + direct.length)
          .map((e) => e.path)
          .sort(),
        direct
      )
      assert.include(ranked.find((e) => e.path === "src/utils/format.test.ts")!.why, "test of src/utils/format.ts")
      // "rounds" is a plain word: unmatched as no file or export name has the word "round".
      assert.deepStrictEqual(result.unmatched, ["rounds", "wrongly"])
    })
  )

  it.effect("plain words do not name a framework's conventional files; words in a row name a PascalCase file", () =>
    Effect.gen(function* () {
      const root = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-budget-next-")))
      temps.push(root)
      const files: Record<string, string> = {
        "package.json": JSON.stringify({ name: "next-site", private: true, dependencies: { next: "15.0.0" } }),
        "app/layout.tsx": [
          'import { SiteHeader } from "../components/SiteHeader"',
          "export default function RootLayout({ children }: { children: React.ReactNode }) {",
          "  return <html><body><SiteHeader />{children}</body></html>",
          "}",
          ""
        ].join("\n"),
        "app/page.tsx": "export default function Page() {\n  return <main>Home</main>\n}\n",
        "app/about/page.tsx": "export default function Page() {\n  return <main>About</main>\n}\n",
        "app/blog/page.tsx": "export default function BlogPage() {\n  return <main>Blog</main>\n}\n",
        "app/blog/loading.tsx": "export default function Loading() {\n  return <p>Loading</p>\n}\n",
        "components/SiteHeader.tsx": [
          'import { Logo } from "./Logo"',
          "export function SiteHeader() {",
          "  return <header><Logo /></header>",
          "}",
          ""
        ].join("\n"),
        "components/Logo.tsx": "export function Logo() {\n  return <span>Logo</span>\n}\n",
        "components/Footer.tsx": "export function Footer() {\n  return <footer />\n}\n"
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(root, posix.dirname(path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      const client = yield* setup(root)
      const result = yield* call(client, { task: "the layout should show the site header on every page" })
      checkPacking(root, result, contextBudgets.default)
      const ranked = entries(result)
      assert.strictEqual(ranked[0]!.path, "components/SiteHeader.tsx", JSON.stringify(ranked))
      assert.include(ranked[0]!.why, 'matches "site header"')
      // No conventional file is named by a plain word, nor by its default export (Page, Loading).
      for (const entry of ranked) {
        if (entry.path.startsWith("app/")) assert.notInclude(entry.why, "named", entry.path)
      }
      assert.deepStrictEqual(result.matched.files, [])
      // "layout" and "page" name conventional files only: not reported as missing either.
      assert.deepStrictEqual(result.unmatched, [])
      for (const page of ["app/page.tsx", "app/about/page.tsx", "app/blog/loading.tsx"]) {
        assert.isUndefined(scoreOf(result, page), page)
      }
      // The layout imports the header: it ranks next, below it.
      assert.strictEqual(ranked[1]!.path, "app/layout.tsx")
      // A path still names a conventional file; a code-like name its default export.
      const byPath = yield* call(client, { task: "fix app/layout.tsx" })
      assert.deepStrictEqual(byPath.matched.files, ["app/layout.tsx"])
      assert.strictEqual(entries(byPath)[0]!.path, "app/layout.tsx")
      const bySymbol = yield* call(client, { task: "change BlogPage" })
      assert.strictEqual(entries(bySymbol)[0]!.path, "app/blog/page.tsx")
      // A plain word weighs less than the same name written as code.
      const plain = yield* call(client, { task: "the footer" })
      const code = yield* call(client, { task: "the Footer component" })
      assert.strictEqual(entries(plain)[0]!.path, "components/Footer.tsx")
      assert.isBelow(entries(plain)[0]!.score, weights.symbol)
      assert.isBelow(scoreOf(plain, "components/Footer.tsx")!, scoreOf(code, "components/Footer.tsx")!)
    })
  )

  it.effect("a test importing a file through others counts less, by distance", () =>
    Effect.gen(function* () {
      const root = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-budget-tests-")))
      temps.push(root)
      const files: Record<string, string> = {
        "package.json": JSON.stringify({ name: "tests", private: true }),
        "src/dep.ts": "export const depValue = 1\n",
        "src/target.ts": 'import { depValue } from "./dep"\nexport const fnQ = (): number => depValue\n',
        "src/middle.ts": 'import { fnQ } from "./target"\nexport const middleFn = (): number => fnQ()\n',
        "src/outer.ts": 'import { middleFn } from "./middle"\nexport const outerFn = (): number => middleFn()\n',
        "src/target.test.ts": 'import { fnQ } from "./target"\nexport const checkTarget = fnQ()\n',
        "src/outer.test.ts": 'import { outerFn } from "./outer"\nexport const checkOuter = outerFn()\n'
      }
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(root, posix.dirname(path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      const client = yield* setup(root)
      const result = yield* call(client, { task: "change fnQ" })
      checkPacking(root, result, contextBudgets.default)
      const seed = weights.symbol
      assert.strictEqual(scoreOf(result, "src/target.test.ts"), seed * weights.importer + seed * weights.test * 0.1)
      // outer.test.ts imports target.ts through two files: the test share decays twice, below a direct dependency.
      const outerTest =
        seed * weights.importer * weights.decay ** 2 + weights.others * seed * weights.test * weights.decay ** 2
      assert.strictEqual(scoreOf(result, "src/outer.test.ts"), Math.round(outerTest * 10) / 10)
      assert.include(
        entries(result).find((e) => e.path === "src/outer.test.ts")!.why,
        "test of src/target.ts through 2 files"
      )
      assert.isBelow(scoreOf(result, "src/outer.test.ts")!, scoreOf(result, "src/dep.ts")!)
    })
  )

  it.effect("the whole response stays within every budget: envelope, lists, next and inline text counted", () =>
    Effect.gen(function* () {
      const client = yield* setup(graphApp)
      // Many names the project does not have: a long unmatched list and next step.
      const unknown = Array.from({ length: 40 }, (_, i) => `missingSymbolNumber${i}`).join(" ")
      const tasks = [
        `rename formatPrice and formatName, show useCart in CartItem and Header; ${unknown}`,
        "Fix the empty state in src/components/Cart.tsx",
        "make the zorbulator quuxify faster"
      ]
      for (const task of tasks) {
        for (const size of [200, 230, 300, 500, 1000, 3000, 50_000]) {
          for (const inline of [false, true]) {
            const result = yield* call(client, { task, budget: size, inline })
            checkPacking(graphApp, result, size)
            assert.isAtMost(Math.ceil(JSON.stringify(result).length / 4), size, `${task} ${size} ${inline}`)
          }
        }
      }
      const small = yield* call(client, { task: tasks[0], budget: 200 })
      assert.include(small.next, "too small")
    })
  )

  it.effect("a generated 500-file project: scores match a brute force over tsc's edges; every budget is kept", () =>
    Effect.gen(function* () {
      const { files, root } = generate()
      assert.isAtLeast(files.length, 500)
      const edges = tscEdges(root, "tsconfig.json")
      const client = yield* setup(root)
      // A core module, and the most-imported feature module of a group with a barrel (its importers go through it).
      const importedCount = (path: string) => edges.filter(([, to]) => to === path).length
      const feature = files
        .filter((f) => /^src\/features\/f[012]\/w\d+\.ts$/.test(f))
        .sort((a, b) => importedCount(b) - importedCount(a) || (a < b ? -1 : 1))[0]!
      const featureSymbol = `fn${posix.basename(feature, ".ts").slice(1)}`
      for (const [symbol, declaring] of [
        ["fn7", "src/core/c7.ts"],
        [featureSymbol, feature]
      ] as const) {
        const expected = expectedScores(edges, declaring)
        const result = yield* call(client, { task: `change ${symbol}`, budget: contextBudgets.maximum })
        checkPacking(root, result, contextBudgets.maximum)
        assert.strictEqual(result.stats.files, files.length)
        assert.deepStrictEqual(result.matched.symbols, [{ name: symbol, file: declaring }])
        assert.strictEqual(result.stats.ranked, expected.size, symbol)
        const got = entries(result)
        assert.strictEqual(got[0]!.path, declaring)
        for (const entry of got) assert.strictEqual(entry.score, expected.get(entry.path), `${symbol}: ${entry.path}`)
        // Everything related fits in the largest budget: all of it is chosen, nothing ranked is skipped.
        assert.strictEqual(result.skip.ranked, 0)
        assert.strictEqual(result.whole.length + result.skeleton.length, expected.size)
        // The direct importers follow the declaring file.
        const direct = new Set(edges.filter(([, to]) => to === declaring).map(([from]) => from))
        assert.isAbove(direct.size, 0)
        for (const entry of got.slice(1, 1 + direct.size)) assert.isTrue(direct.has(entry.path), entry.path)
      }
      // Several budgets: never over, the declaring file always first; the smallest gets its skeleton only.
      for (const size of [200, 350, 1000, 2500, 8000, 30_000]) {
        const result = yield* call(client, { task: "change fn7", budget: size })
        checkPacking(root, result, size)
        assert.strictEqual(entries(result)[0]!.path, "src/core/c7.ts")
        if (size === 200) {
          // Only files no larger than their skeletons (a few tokens) are whole after the first that did not fit.
          for (const entry of result.whole) assert.isAtMost(entry.tokens, 20, entry.path)
          assert.strictEqual(result.skeleton[0].path, "src/core/c7.ts")
          assert.include(result.skeleton[0].text, "fn7(n: number): number")
          assert.isAbove(result.skip.ranked, 0)
          assert.include(result.next, "src/core/c7.ts, did not fit whole")
        }
        if (size >= 8000) assert.strictEqual(result.whole[0].path, "src/core/c7.ts")
      }
    })
  )
})
