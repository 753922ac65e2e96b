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
 *
 * Then the cache, on a tree of 5,000 files generated the same way (every
 * file's modification time set an hour back, as in a checkout that has not
 * just been written), with the default budget as an agent calls it:
 *
 * - the first call: a fresh server each run (cold cache), so every file is
 *   listed, read and parsed;
 * - the second call: the same server again on the unchanged tree (every
 *   skeleton from the cache: listing and rendering only), and its ratio to
 *   the first (the target is at most 0.10);
 * - a call after one file changed (new content, a new modification time):
 *   that file alone read and parsed;
 * - what the second call is made of: listing the tree as the tool does
 *   (`listProjectFiles` through the Node workspace) and rendering the map
 *   alone.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import { listProjectFiles } from "../capabilities/fe/skeleton.ts"
import { extract, type FileSkeleton, loadParser } from "../capabilities/fe/skeleton/extract.ts"
import { renderMap } from "../capabilities/fe/skeleton/render.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { Workspace } from "../src/Workspace.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const files = 2000
/** The tree of the cache's measurements. */
const cacheFiles = 5000
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

/** A generated tree of `count` files (the same sequence of files for every count, so 2,000 is 5,000's start). */
const makeTree = (count: number) => {
  seed = 42
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "skeleton-bench-")))
  const written: Array<{ readonly path: string; readonly text: string }> = []
  const add = (file: string, text: string) => {
    written.push({ path: file, text })
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  for (let i = 0; i < 50; i++) add(`src/types/types${i}.ts`, types(i))
  for (let i = 0; i < 50; i++) add(`src/utils/format${i}.ts`, utility(i))
  for (let i = 0; written.length < count; i++) {
    const area = `src/features/area${i % 20}`
    if (i % 3 === 0) add(`${area}/lib/util${i}.ts`, utility(i))
    else add(`${area}/components/Widget${i}.tsx`, component(`Widget${i}`, i))
  }
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "bench-tree", dependencies: { react: "19.0.0" } })
  )
  writeFileSync(path.join(dir, ".gitignore"), "node_modules/\ndist/\n")
  return { dir, sources: written }
}
const { dir: tree, sources } = makeTree(files)
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

const layerFor = (root: string) =>
  FeCapability.pipe(
    Layer.provide(NodeCommandRunner.layer()),
    Layer.provide(NodeWorkspace.layer({ root })),
    Layer.provide(Layer.succeed(WorkspaceRoot, root)),
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

interface Called {
  readonly ms: number
  readonly filesScanned: number
  readonly filesParsed: number
  readonly filesReused: number
}

/** One fe_skeleton call through the client, timed. */
const call = (client: TestClient.TestClient, args: Record<string, unknown>): Promise<Called> => {
  const start = performance.now()
  return Effect.runPromise(
    Effect.map(client.callToolStructured("fe_skeleton", args), (result: any) => ({
      ms: performance.now() - start,
      filesScanned: result.filesScanned,
      filesParsed: result.filesParsed,
      filesReused: result.filesReused
    }))
  )
}

/** `fn` on a fresh server (a new client over a new build of the capability: an empty cache). */
const withServer = <A>(root: string, fn: (client: TestClient.TestClient) => Promise<A>): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(TestClient.make(layerFor(root)), (client) => Effect.promise(() => fn(client))))
  )

/** The median of `runs` measurements after a warm-up, each checked. */
const medianOf = async (measure: () => Promise<Called>, check: (called: Called) => void): Promise<number> => {
  check(await measure())
  const ms: Array<number> = []
  for (let r = 0; r < runs; r++) {
    const called = await measure()
    check(called)
    ms.push(called.ms)
  }
  return median(ms)
}

const expect = (what: string, actual: number, expected: number) => {
  if (actual !== expected) throw new Error(`${what}: ${actual}, not ${expected}`)
}

// The whole tool as before the cache: every run lists, reads and parses every file (a fresh server each run).
const toolMs = await medianOf(
  () => withServer(tree, (client) => call(client, { budget: 100_000 })),
  (called) => {
    expect("fe_skeleton mapped", called.filesScanned, files)
    expect("fe_skeleton parsed", called.filesParsed, files)
  }
)
rmSync(tree, { recursive: true, force: true })

// -- the cache, on 5,000 files -----------------------------------------------------

const big = makeTree(cacheFiles)
// An hour old: files just written are not trusted by the cache (modified within 2 s of a call).
const anHourAgo = Date.now() - 3_600_000
for (const source of big.sources) {
  utimesSync(path.join(big.dir, source.path), new Date(anHourAgo), new Date(anHourAgo))
}
const firstMs = await medianOf(
  () => withServer(big.dir, (client) => call(client, {})),
  (called) => expect("first call parsed", called.filesParsed, cacheFiles)
)
// The listing as the tool does it, over a workspace of its own: what the second call cannot avoid.
const bigWorkspace = await Effect.runPromise(
  Effect.provide(Effect.service(Workspace), NodeWorkspace.layer({ root: big.dir }))
)
const listing = (): Promise<Called> => {
  const start = performance.now()
  return Effect.runPromise(
    Effect.map(listProjectFiles(bigWorkspace, "", { max: 50_000 }), (listed) => ({
      ms: performance.now() - start,
      filesScanned: listed.files.length,
      filesParsed: 0,
      filesReused: 0
    }))
  )
}
let secondMs = 0
let listingMs = 0
let changedMs = 0
await withServer(big.dir, async (client) => {
  expect("first call parsed", (await call(client, {})).filesParsed, cacheFiles)
  // The second call and the listing alone, one after the other in each run, so that both see the same load.
  const listed: Array<number> = []
  secondMs = await medianOf(
    async () => {
      const called = await call(client, {})
      const list = await listing()
      expect("listed", list.filesScanned, cacheFiles + 2) // and package.json, .gitignore
      listed.push(list.ms)
      return called
    },
    (called) => {
      expect("second call parsed", called.filesParsed, 0)
      expect("second call reused", called.filesReused, cacheFiles)
    }
  )
  listingMs = median(listed.slice(1))
  // One file changed before each call: new content (an export more) and a new modification time.
  let edit = 0
  const changed = big.sources[cacheFiles - 1]!
  changedMs = await medianOf(
    () => {
      edit++
      const file = path.join(big.dir, changed.path)
      writeFileSync(file, `${changed.text}\nexport const edit${edit} = ${edit}\n`)
      utimesSync(file, new Date(anHourAgo + edit * 1000), new Date(anHourAgo + edit * 1000))
      return call(client, {})
    },
    (called) => {
      expect("changed-file call parsed", called.filesParsed, 1)
      expect("changed-file call reused", called.filesReused, cacheFiles - 1)
    }
  )
})
// The rendering of the map alone (default budget), from the skeletons in memory.
const bigSkeletons: Array<FileSkeleton> = big.sources.map((source) => extract(parse, source.path, source.text))
const renderMs = await timed(() => renderMap(bigSkeletons, 4000, "# header"))
rmSync(big.dir, { recursive: true, force: true })

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
      : { version: typescriptVersion, ms: Math.round(typescriptMs), filesPerSecond: perSecond(typescriptMs) },
  cache: {
    files: cacheFiles,
    firstCallMs: Math.round(firstMs),
    secondCallMs: Math.round(secondMs),
    secondToFirst: Math.round((secondMs / firstMs) * 1000) / 1000,
    changedFileCallMs: Math.round(changedMs),
    listingMs: Math.round(listingMs),
    listingShareOfSecond: Math.round((listingMs / secondMs) * 100) / 100,
    renderMs: Math.round(renderMs)
  }
}
mkdirSync(path.join(repoRoot, "bench", ".out"), { recursive: true })
writeFileSync(path.join(repoRoot, "bench", ".out", "skeleton.json"), JSON.stringify(results, null, 2))
process.stdout.write(
  `\nfe_skeleton on ${files} generated files (${results.megabytes} MB), median of ${runs} runs\n` +
    `  whole tool, cold (list, read, parse, render; the codec)    ${results.tool.filesPerSecond} files/s (${results.tool.ms} ms)\n` +
    `  workspace only (list with .gitignore, checked reads)       ${results.workspaceListRead.filesPerSecond} files/s (${results.workspaceListRead.ms} ms)\n` +
    `  oxc parseSync + extract only (what the tool does)          ${results.oxcParse.filesPerSecond} files/s (${results.oxcParse.ms} ms)\n` +
    `  oxc thread-pool parse + extract (for comparison)           ${results.oxcAsyncParse.filesPerSecond} files/s (${results.oxcAsyncParse.ms} ms)\n` +
    (results.typescriptParse === null
      ? "  TypeScript createSourceFile: skipped (the fe fixtures are not installed)\n"
      : `  TypeScript ${results.typescriptParse.version} createSourceFile only (reference)      ${results.typescriptParse.filesPerSecond} files/s (${results.typescriptParse.ms} ms)\n`) +
    `\nfe_skeleton's cache on ${cacheFiles} generated files (default budget), median of ${runs} runs\n` +
    `  first call (a fresh server: every file read and parsed)    ${results.cache.firstCallMs} ms\n` +
    `  second call (the same server, the tree unchanged)          ${results.cache.secondCallMs} ms (${results.cache.secondToFirst} of the first; target <= 0.10)\n` +
    `  after one file changed (that file read and parsed)         ${results.cache.changedFileCallMs} ms\n` +
    `  of the second call: listing the tree alone                 ${results.cache.listingMs} ms (${Math.round(results.cache.listingShareOfSecond * 100)} %)\n` +
    `  of the second call: rendering the map alone                ${results.cache.renderMs} ms\n`
)
