/**
 * `npm run bench` (fe part): the later fe tools on a generated project of
 * 2,000 TypeScript/React files (deterministic: the same tree every run),
 * each through the real codec (the test kit's in-memory client) over the
 * real Node workspace, as an agent calls them:
 *
 * - fe_impact on an exported symbol used by about 600 files: the first call
 *   (the import graph built: list, read, parse every file) and later calls
 *   with nothing changed (the graph brought up to date by size and mtime);
 * - the same after one file changed (only that file parsed again);
 * - fe_budget for a task naming the symbol, fe_surgeon renaming it (dry run:
 *   the plan and the diffs of every file it touches, nothing written) and
 *   fe_diff against HEAD after 20 files changed (the tree is a git repository).
 *
 * Median of 7 runs after one warm-up (the first impact call is measured once,
 * on a fresh server). Results on stdout and in bench/.out/fe.json.
 */
import { execFileSync } from "node:child_process"
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const files = 2000
const runs = 7
const repoRoot = path.resolve(import.meta.dirname, "..")

// -- the tree ------------------------------------------------------------------

const tree = realpathSync(mkdtempSync(path.join(os.tmpdir(), "fe-bench-")))
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(tree, file)), { recursive: true })
  writeFileSync(path.join(tree, file), text)
}
write("package.json", JSON.stringify({ name: "fe-bench", private: true, type: "module" }))
write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, jsx: "react-jsx", noEmit: true } }))
for (let i = 0; i < 50; i++) {
  write(
    `src/utils/format${i}.ts`,
    `export function format${i}(cents: number): string {\n  return \`$\${(cents / 100).toFixed(2)}\`\n}\n\n` +
      `export const LIMIT_${i} = ${i}\n`
  )
}
write("src/utils/index.ts", Array.from({ length: 50 }, (_, i) => `export * from "./format${i}"\n`).join(""))
let count = 52
for (let i = 0; count < files; i++, count++) {
  const area = `src/features/area${i % 20}`
  // A third import the symbol through the barrel, a third directly, a third something else.
  const direct = i % 3 === 0
  const barrel = i % 3 === 1
  const lines = [
    direct
      ? `import { format7 } from "../../../utils/format7"`
      : barrel
        ? `import { format7, LIMIT_3 } from "../../../utils"`
        : `import { format${i % 50} as format7 } from "../../../utils/format${i % 50}"`,
    "",
    `export interface Widget${i}Props {`,
    "  price: number",
    "  label?: string",
    "}",
    "",
    `export function Widget${i}({ price, label = "Widget${i}" }: Widget${i}Props) {`,
    "  const shown = format7(price)",
    "  return (",
    "    <p>",
    "      {label}: {shown}",
    "    </p>",
    "  )",
    "}",
    ""
  ]
  write(`${area}/components/Widget${i}.tsx`, lines.join("\n"))
}
const git = (...args: ReadonlyArray<string>) =>
  execFileSync("git", ["-C", tree, ...args], {
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "bench",
      GIT_AUTHOR_EMAIL: "bench@example.com",
      GIT_COMMITTER_NAME: "bench",
      GIT_COMMITTER_EMAIL: "bench@example.com"
    },
    stdio: "ignore"
  })
git("init", "-q")
git("add", "-A")
git("commit", "-qm", "tree")

// -- measuring -----------------------------------------------------------------

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const server = TestClient.make(
  FeCapability.pipe(
    Layer.provide(NodeCommandRunner.layer()),
    Layer.provide(NodeWorkspace.layer({ root: tree })),
    Layer.provide(Layer.succeed(WorkspaceRoot, tree)),
    Layer.provideMerge(ServerConfig.layer({ shutdownGraceMs: 0 }))
  )
)

const time = <A>(effect: Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    const start = performance.now()
    const value = yield* effect
    return { ms: performance.now() - start, value }
  })

const repeat = <A>(effect: Effect.Effect<A, unknown>) =>
  Effect.gen(function* () {
    yield* effect
    const times: Array<number> = []
    let last: A | undefined
    for (let i = 0; i < runs; i++) {
      const { ms, value } = yield* time(effect)
      times.push(ms)
      last = value
    }
    return { ms: median(times), value: last as A }
  })

const program = Effect.gen(function* () {
  const fe = yield* server
  const call = (name: string, args: Record<string, unknown>) =>
    Effect.map(fe.callToolStructured(name, args), (result) => result as any)
  const impactArgs = { symbols: ["src/utils/format7.ts#format7"], budget: 4000 }
  const cold = yield* time(call("fe_impact", impactArgs))
  const warm = yield* repeat(call("fe_impact", impactArgs))
  // One file changed between calls: only it is parsed again.
  let edits = 0
  const changed = yield* repeat(
    Effect.andThen(
      Effect.sync(() =>
        appendFileSync(path.join(tree, "src/features/area0/components/Widget0.tsx"), `// ${++edits}\n`)
      ),
      call("fe_impact", impactArgs)
    )
  )
  const budget = yield* repeat(call("fe_budget", { task: "show the currency in format7 for every widget" }))
  const surgeon = yield* repeat(
    call("fe_surgeon", {
      operations: [{ op: "rename", file: "src/utils/format7.ts", symbol: "format7", to: "formatSeven" }],
      dryRun: true
    })
  )
  for (let i = 0; i < 20; i++) {
    appendFileSync(path.join(tree, `src/utils/format${i}.ts`), `export const EXTRA_${i} = ${i}\n`)
  }
  const diff = yield* repeat(call("fe_diff", {}))
  return {
    files,
    impactImporters: warm.value.targets[0].risk.transitive,
    impactColdMs: cold.ms,
    impactParsedCold: cold.value.stats.parsed,
    impactWarmMs: warm.ms,
    impactParsedWarm: warm.value.stats.parsed,
    impactOneChangedMs: changed.ms,
    impactParsedOneChanged: changed.value.stats.parsed,
    budgetMs: budget.ms,
    budgetTokens: budget.value.tokens,
    surgeonDryRunMs: surgeon.ms,
    surgeonFiles: surgeon.value.files.length,
    diffMs: diff.ms,
    diffFiles: diff.value.files.length
  }
})

const result = await Effect.runPromise(Effect.scoped(program))
rmSync(tree, { recursive: true, force: true })
const out = path.join(repoRoot, "bench", ".out")
mkdirSync(out, { recursive: true })
writeFileSync(path.join(out, "fe.json"), JSON.stringify(result, null, 2))
const row = (what: string, ms: number, note: string) =>
  console.log(`| ${what.padEnd(44)} | ${ms.toFixed(0).padStart(6)} ms | ${note}`)
console.log(`\nfe tools on ${files} generated files (median of ${runs}, in process through the codec)\n`)
console.log(`| ${"call".padEnd(44)} | ${"time".padStart(9)} | notes`)
row("fe_impact, first call (graph built)", result.impactColdMs, `${result.impactParsedCold} files parsed`)
row(
  "fe_impact, nothing changed",
  result.impactWarmMs,
  `${result.impactParsedWarm} parsed; ${result.impactImporters} importers (target: under 1 s)`
)
row("fe_impact, one file changed", result.impactOneChangedMs, `${result.impactParsedOneChanged} parsed`)
row("fe_budget, task naming the symbol", result.budgetMs, `${result.budgetTokens} tokens chosen`)
row("fe_surgeon rename, dry run", result.surgeonDryRunMs, `${result.surgeonFiles} files in the plan`)
row("fe_diff against HEAD (20 files changed)", result.diffMs, `${result.diffFiles} files reported`)
