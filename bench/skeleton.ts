/**
 * `npm run bench` (last part): fe_skeleton's speed on a generated tree of
 * 2,000 TypeScript/React files (deterministic: the same tree every run), in
 * files per second:
 *
 * - the whole tool, as an agent calls it: fe_skeleton through the real codec
 *   (the test kit's in-memory client) over the real Node workspace —
 *   listing with .gitignore, reading, parsing, rendering the budgeted map;
 * - the workspace alone: listing the tree (.gitignore applied) and reading
 *   every file through the Node workspace's checked reads, as the tool does
 *   (16 at once), without parsing — where the rest of the tool's time goes;
 * - the parser with the extraction (oxc-parser's parseSync with raw
 *   transfer, what the tool uses) on the same sources, already in memory;
 * - the same through oxc's thread-pool `parse` (all files at once), to
 *   check that the synchronous parser is the faster choice here;
 * - for reference, the TypeScript compiler API's createSourceFile on the
 *   same sources (the typescript 6 that the fe fixtures install; skipped
 *   when they are not installed).
 *
 * Median of 7 runs each after one warm-up. Results on stdout and in
 * bench/.out/skeleton.json.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import { extract, loadParser } from "../capabilities/fe/skeleton/extract.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { Workspace } from "../src/Workspace.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const files = 2000
const runs = 7
const repoRoot = path.resolve(import.meta.dirname, "..")

// -- the tree ------------------------------------------------------------------

let seed = 42
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

const component = (name: string, i: number): string => {
  const lines = [
    "import { useEffect, useMemo, useState } from 'react'",
    `import { format${i % 50} } from '../utils/format${i % 50}.ts'`,
    `import type { Item${i % 50} } from '../types/types${i % 50}.ts'`,
    "",
    `export interface ${name}Props {`,
    `  items: readonly Item${i % 50}[]`,
    "  title?: string",
    "  onSelect: (id: number) => void",
    "}",
    "",
    `export function ${name}({ items, title = '${name}', onSelect }: ${name}Props) {`,
    "  const [query, setQuery] = useState('')",
    "  const visible = useMemo(() => items.filter((item) => item.name.includes(query)), [items, query])",
    "  useEffect(() => {",
    "    document.title = `${title} (${visible.length})`",
    "  }, [title, visible.length])",
    "  return (",
    "    <section>",
    "      <h2>{title}</h2>",
    "      <input value={query} onChange={(event) => setQuery(event.target.value)} />",
    "      <ul>"
  ]
  const rows = 5 + Math.floor(random() * 60)
  for (let r = 0; r < rows; r++) {
    lines.push(
      `        {visible.length > ${r} && <li onClick={() => onSelect(visible[${r}]!.id)}>{format${i % 50}(visible[${r}]!.price)}</li>}`
    )
  }
  lines.push("      </ul>", "    </section>", "  )", "}", "")
  lines.push(`export const use${name}Count = (items: readonly unknown[]): number => items.length`, "")
  return lines.join("\n")
}

const utility = (i: number): string => {
  const lines = [`import type { Item${i % 50} } from '../types/types${i % 50}.ts'`, ""]
  const functions = 3 + Math.floor(random() * 15)
  for (let f = 0; f < functions; f++) {
    const kind = pick(["function", "arrow", "const"])
    if (kind === "function") {
      lines.push(
        `export function helper${i}_${f}(items: readonly Item${i % 50}[], limit = ${f}): number {`,
        "  let total = 0",
        "  for (const item of items) {",
        "    if (item.price > limit) total += item.price",
        "  }",
        "  return total",
        "}",
        ""
      )
    } else if (kind === "arrow") {
      lines.push(
        `export const map${i}_${f} = <T,>(values: readonly T[], fn: (value: T) => T): T[] => values.map(fn)`,
        ""
      )
    } else {
      lines.push(`export const LIMIT_${i}_${f} = ${f * 10}`, "")
    }
  }
  lines.push(`export function format${i}(cents: number): string {`, "  return `$${(cents / 100).toFixed(2)}`", "}", "")
  return lines.join("\n")
}

const types = (i: number): string =>
  [
    `export interface Item${i} {`,
    "  id: number",
    "  name: string",
    "  price: number",
    "  tags?: string[]",
    "}",
    "",
    `export type Id${i} = Item${i}['id']`,
    `export enum Status${i} { Draft, Published = 'published', Archived = 'archived' }`,
    `export class Store${i} {`,
    `  private readonly items = new Map<number, Item${i}>()`,
    `  get(id: number): Item${i} | undefined {`,
    "    return this.items.get(id)",
    "  }",
    `  set(item: Item${i}): void {`,
    "    this.items.set(item.id, item)",
    "  }",
    "}",
    ""
  ].join("\n")

const tree = realpathSync(mkdtempSync(path.join(os.tmpdir(), "skeleton-bench-")))
const sources: Array<{ readonly path: string; readonly text: string }> = []
const add = (file: string, text: string) => {
  sources.push({ path: file, text })
  mkdirSync(path.dirname(path.join(tree, file)), { recursive: true })
  writeFileSync(path.join(tree, file), text)
}
for (let i = 0; i < 50; i++) add(`src/types/types${i}.ts`, types(i))
for (let i = 0; i < 50; i++) add(`src/utils/format${i}.ts`, utility(i))
for (let i = 0; sources.length < files; i++) {
  const area = `src/features/area${i % 20}`
  if (i % 3 === 0) add(`${area}/lib/util${i}.ts`, utility(i))
  else add(`${area}/components/Widget${i}.tsx`, component(`Widget${i}`, i))
}
writeFileSync(
  path.join(tree, "package.json"),
  JSON.stringify({ name: "bench-tree", dependencies: { react: "19.0.0" } })
)
writeFileSync(path.join(tree, ".gitignore"), "node_modules/\ndist/\n")
const totalBytes = sources.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0)

// -- measurements --------------------------------------------------------------

const median = (values: ReadonlyArray<number>): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const timed = async (fn: () => Promise<unknown> | unknown): Promise<number> => {
  await fn()
  const ms: Array<number> = []
  for (let r = 0; r < runs; r++) {
    const start = performance.now()
    await fn()
    ms.push(performance.now() - start)
  }
  return median(ms)
}

const parse = await Effect.runPromise(loadParser)
const oxcMs = await timed(() => {
  for (const source of sources) extract(parse, source.path, source.text)
})

// oxc's thread-pool parse, all files in flight, then the same extraction on the main thread.
const oxc = await import("oxc-parser")
const asyncOptions = { sourceType: "module", experimentalRawTransfer: oxc.rawTransferSupported() } as const
const oxcAsyncMs = await timed(async () => {
  const results = await Promise.all(
    sources.map((source) => oxc.parse(source.path, source.text, asyncOptions as Parameters<typeof oxc.parse>[2]))
  )
  results.forEach((result, i) =>
    extract(() => result as unknown as ReturnType<typeof parse>, sources[i]!.path, sources[i]!.text)
  )
})

let typescriptMs: number | undefined
let typescriptVersion: string | undefined
try {
  const require = createRequire(path.join(repoRoot, "test/fixtures/fe/broken-app/package.json"))
  // The fixture's TypeScript 6 (the repository's own TypeScript 7 has no JavaScript compiler API).
  const ts = require("typescript") as {
    readonly version: string
    readonly createSourceFile: (
      name: string,
      text: string,
      target: number,
      setParents: boolean,
      kind: number
    ) => unknown
    readonly ScriptTarget: { readonly Latest: number }
    readonly ScriptKind: { readonly TS: number; readonly TSX: number }
  }
  typescriptVersion = ts.version
  typescriptMs = await timed(() => {
    for (const source of sources) {
      ts.createSourceFile(
        source.path,
        source.text,
        ts.ScriptTarget.Latest,
        false,
        source.path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
      )
    }
  })
} catch {
  typescriptMs = undefined
}

const layer = FeCapability.pipe(
  Layer.provide(NodeCommandRunner.layer()),
  Layer.provide(NodeWorkspace.layer({ root: tree })),
  Layer.provide(Layer.succeed(WorkspaceRoot, tree)),
  Layer.provideMerge(ServerConfig.layer({ shutdownGraceMs: 0 }))
)
// The workspace alone: list the tree and read every file, as the tool does, without parsing.
const workspaceMs = await Effect.runPromise(
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const listAndRead = Effect.gen(function* () {
      const paths: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* workspace.listFiles("src", { cursor, limit: 1000 })
        for (const file of page.files) paths.push(file.path)
        cursor = page.nextCursor
      } while (cursor !== undefined)
      yield* Effect.forEach(paths, (file) => workspace.read(file), { concurrency: 16, discard: true })
    })
    return yield* Effect.promise(() => timed(() => Effect.runPromise(listAndRead)))
  }).pipe(Effect.provide(NodeWorkspace.layer({ root: tree })))
)

let mapped = 0
const toolMs = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* TestClient.make(layer)
      return yield* Effect.promise(() =>
        timed(() =>
          Effect.runPromise(
            Effect.map(client.callToolStructured("fe_skeleton", { budget: 100_000 }), (result: any) => {
              mapped = result.filesScanned
            })
          )
        )
      )
    })
  ).pipe(Effect.provide(Layer.empty))
)
rmSync(tree, { recursive: true, force: true })
if (mapped !== files) throw new Error(`fe_skeleton mapped ${mapped} files, not ${files}`)

const perSecond = (ms: number) => Math.round((files / ms) * 1000)
const results = {
  files,
  megabytes: Math.round((totalBytes / 1024 / 1024) * 10) / 10,
  tool: { ms: Math.round(toolMs), filesPerSecond: perSecond(toolMs) },
  workspaceListRead: { ms: Math.round(workspaceMs), filesPerSecond: perSecond(workspaceMs) },
  oxcParse: { ms: Math.round(oxcMs), filesPerSecond: perSecond(oxcMs) },
  oxcAsyncParse: { ms: Math.round(oxcAsyncMs), filesPerSecond: perSecond(oxcAsyncMs) },
  typescriptParse:
    typescriptMs === undefined
      ? null
      : { version: typescriptVersion, ms: Math.round(typescriptMs), filesPerSecond: perSecond(typescriptMs) }
}
mkdirSync(path.join(repoRoot, "bench", ".out"), { recursive: true })
writeFileSync(path.join(repoRoot, "bench", ".out", "skeleton.json"), JSON.stringify(results, null, 2))
process.stdout.write(
  `\nfe_skeleton on ${files} generated files (${results.megabytes} MB), median of ${runs} runs\n` +
    `  whole tool (list, read, parse, render; through the codec)  ${results.tool.filesPerSecond} files/s (${results.tool.ms} ms)\n` +
    `  workspace only (list with .gitignore, checked reads)       ${results.workspaceListRead.filesPerSecond} files/s (${results.workspaceListRead.ms} ms)\n` +
    `  oxc parseSync + extract only (what the tool does)          ${results.oxcParse.filesPerSecond} files/s (${results.oxcParse.ms} ms)\n` +
    `  oxc thread-pool parse + extract (for comparison)           ${results.oxcAsyncParse.filesPerSecond} files/s (${results.oxcAsyncParse.ms} ms)\n` +
    (results.typescriptParse === null
      ? "  TypeScript createSourceFile: skipped (the fe fixtures are not installed)\n"
      : `  TypeScript ${results.typescriptParse.version} createSourceFile only (reference)      ${results.typescriptParse.filesPerSecond} files/s (${results.typescriptParse.ms} ms)\n`)
)
