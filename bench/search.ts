/**
 * `npm run bench` (search): `workspace_search` end to end against ripgrep
 * and `grep -r` on a generated tree of 50,000 small files (deterministic:
 * the same tree every run, kept in the temporary directory between runs),
 * and with `--large`, also on 200,000 files.
 *
 * - ours: the built binary (`dist/mcp-runtime.js serve --root <tree>
 *   --capabilities workspace`) over stdio, called with the MCP SDK's
 *   `Client` and `StdioClientTransport`, timed from `callTool` to its
 *   result (the server started once, before the runs);
 * - rg: `rg --no-config -n` spawned on the tree, timed from spawn to exit
 *   (when `rg` is installed); grep: `grep -rn`, the same.
 *
 * Queries: a string only in the last file (every file read, one match), a
 * string in every file (ours stops at its default limit of 100 matches;
 * rg and grep are piped to `head -n 100`, so they stop early too), a regular
 * expression found only in the last file (every file matched). Each result
 * is checked (the unique string is found, in the last file, and not cut
 * short). The runs are interleaved (ours, rg, grep, ours, …) so that a busy
 * machine slows all three alike; the median of `runs` runs after one
 * warm-up. Also `listFiles` of the Node workspace, in process: every page
 * (1,000 files each) of 5,000 and 50,000 files.
 *
 * Results on stdout (a table with ratios) and in bench/.out/search.json.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"

const runs = 7
const large = process.argv.includes("--large")
const repoRoot = path.resolve(import.meta.dirname, "..")
const binary = path.join(repoRoot, "dist", "mcp-runtime.js")
const outDir = path.join(repoRoot, "bench", ".out")

const progress = (message: string) => process.stderr.write(`[search] ${message}\n`)

// -- the trees: directories of 100 files under 10 subdirectories each ----------------------------------------------

const unique = "needle_unique_marker"
const treeOf = (count: number): string => {
  const root = path.join(os.tmpdir(), `mcp-runtime-bench-search-${count}`)
  const complete = `${root}.complete`
  if (existsSync(complete)) return root
  progress(`generating ${count} files in ${root}`)
  rmSync(root, { recursive: true, force: true })
  let n = 0
  for (let a = 0; n < count; a++) {
    for (let b = 0; b < 10 && n < count; b++) {
      const dir = path.join(root, `d${String(a).padStart(4, "0")}`, `s${String(b).padStart(2, "0")}`)
      mkdirSync(dir, { recursive: true })
      for (let c = 0; c < 100 && n < count; c++, n++) {
        const last = n === count - 1
        writeFileSync(
          path.join(dir, `f${String(c).padStart(3, "0")}.ts`),
          `// file ${n}\nexport const value${n} = ${n}\nfunction compute${n}(x: number) {\n  return x * ${n} // common\n}\n` +
            (last ? `const ${unique} = 1\n` : "")
        )
      }
    }
  }
  writeFileSync(complete, "")
  return root
}

// -- timing ---------------------------------------------------------------------------------------------------------

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

const timeCommand = (command: string, args: ReadonlyArray<string>): Promise<{ ms: number; lines: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] })
    let lines = 0
    child.stdout.on("data", (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++
    })
    child.on("error", reject)
    child.on("close", () => resolve({ ms: performance.now() - started, lines }))
  })

const hasRg = spawnSync("rg", ["--version"]).status === 0

interface Query {
  readonly label: string
  readonly args: { readonly query: string; readonly regex?: boolean }
  readonly rg: ReadonlyArray<string>
  readonly grep: ReadonlyArray<string>
  readonly head: boolean
  readonly check: (result: any, count: number) => string | undefined
}

const queries: ReadonlyArray<Query> = [
  {
    label: "string only in the last file",
    args: { query: unique },
    rg: ["-F", unique],
    grep: ["-F", unique],
    head: false,
    check: (result, count) =>
      result.matches.length === 1 && result.truncated === false && result.filesScanned === count
        ? undefined
        : `expected the one match in the last file, got ${JSON.stringify({ ...result, matches: result.matches.length })}`
  },
  {
    label: "string in every file (limit 100)",
    args: { query: "common" },
    rg: ["-F", "common"],
    grep: ["-F", "common"],
    head: true,
    check: (result) =>
      result.matches.length === 100 && result.stoppedBy === "limit" ? undefined : "expected 100 matches and the limit"
  },
  {
    label: "regex only in the last file",
    args: { query: "needle_[a-z]+_marker = \\d", regex: true },
    rg: ["-e", "needle_[a-z]+_marker = [0-9]"],
    grep: ["-E", "needle_[a-z]+_marker = [0-9]"],
    head: false,
    check: (result, count) =>
      result.matches.length === 1 && result.truncated === false && result.filesScanned === count
        ? undefined
        : `expected the one match, got ${JSON.stringify({ ...result, matches: result.matches.length })}`
  }
]

const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`

const benchTree = async (count: number) => {
  const root = treeOf(count)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binary, "serve", "--root", root, "--capabilities", "workspace", "--audit-log", "off", "--store", "memory"],
    stderr: "ignore"
  })
  const client = new Client({ name: "bench-search", version: "0.0.0" })
  await client.connect(transport)
  const rows: Array<Record<string, unknown>> = []
  for (const query of queries) {
    const ours: Array<number> = []
    const rg: Array<number> = []
    const grep: Array<number> = []
    const pipe = (tool: string, args: ReadonlyArray<string>) =>
      query.head
        ? timeCommand("sh", ["-c", `${tool} ${args.map(shellQuote).join(" ")} ${shellQuote(root)} | head -n 100`])
        : timeCommand(tool, [...args, root])
    for (let run = 0; run <= runs; run++) {
      const started = performance.now()
      const result = await client.callTool({ name: "workspace_search", arguments: query.args }, undefined, {
        timeout: 600_000
      })
      const ms = performance.now() - started
      if (result.isError === true) throw new Error(`${query.label}: ${JSON.stringify(result.content)}`)
      const problem = query.check(result.structuredContent, count)
      if (problem !== undefined) throw new Error(`${query.label} (${count} files): ${problem}`)
      if (run > 0) ours.push(ms)
      if (hasRg) {
        const timed = await pipe("rg", ["--no-config", "-n", ...query.rg])
        if (run > 0) rg.push(timed.ms)
      }
      const timed = await pipe("grep", ["-rn", ...query.grep])
      if (run > 0) grep.push(timed.ms)
    }
    const row = {
      tree: count,
      query: query.label,
      oursMs: Math.round(median(ours)),
      rgMs: hasRg ? Math.round(median(rg)) : null,
      grepMs: Math.round(median(grep)),
      oursOverRg: hasRg ? Number((median(ours) / median(rg)).toFixed(2)) : null,
      oursOverGrep: Number((median(ours) / median(grep)).toFixed(2))
    }
    progress(JSON.stringify(row))
    rows.push(row)
  }
  await client.close()
  return rows
}

const listing = (count: number) =>
  Effect.gen(function* () {
    const root = treeOf(count)
    const ws = yield* NodeWorkspace.make({ root })
    const times: Array<number> = []
    for (let run = 0; run <= runs; run++) {
      const started = performance.now()
      let cursor: string | undefined
      let files = 0
      do {
        const page = yield* ws.listFiles("", { limit: 1000, ...(cursor === undefined ? {} : { cursor }) })
        files += page.files.length
        cursor = page.nextCursor
      } while (cursor !== undefined)
      if (files !== count) return yield* Effect.die(new Error(`listFiles found ${files} of ${count} files`))
      if (run > 0) times.push(performance.now() - started)
    }
    return { files: count, ms: Math.round(median(times)) }
  })

if (!existsSync(binary)) {
  process.stderr.write("dist/mcp-runtime.js is missing: run npm run build first\n")
  process.exit(1)
}
if (!hasRg) progress("rg is not installed: comparing with grep -r only")

const searchRows = [...(await benchTree(50_000)), ...(large ? await benchTree(200_000) : [])]
const listRows = [await Effect.runPromise(listing(5_000)), await Effect.runPromise(listing(50_000))]

const pad = (text: string, width: number) => text.padEnd(width)
console.log(`\nworkspace_search end to end (median of ${runs}; ${os.availableParallelism()} CPUs)\n`)
console.log(
  `${pad("files", 8)}${pad("query", 36)}${pad("ours ms", 9)}${pad("rg ms", 8)}${pad("grep ms", 9)}${pad("ours/rg", 9)}ours/grep`
)
for (const row of searchRows) {
  console.log(
    `${pad(String(row.tree), 8)}${pad(String(row.query), 36)}${pad(String(row.oursMs), 9)}${pad(String(row.rgMs ?? "-"), 8)}` +
      `${pad(String(row.grepMs), 9)}${pad(String(row.oursOverRg ?? "-"), 9)}${row.oursOverGrep}`
  )
}
console.log(`\nlistFiles, every page of 1,000 (in process, median of ${runs})\n`)
for (const row of listRows) console.log(`${pad(String(row.files), 8)}${row.ms} ms`)

mkdirSync(outDir, { recursive: true })
writeFileSync(
  path.join(outDir, "search.json"),
  JSON.stringify(
    { runs, cpus: os.availableParallelism(), rg: hasRg, search: searchRows, listFiles: listRows },
    null,
    2
  ) + "\n"
)
