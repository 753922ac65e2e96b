/**
 * The request front (`npm run bench`, after bench/code.ts): a 5-step task
 * on a small workspace — list a directory, search it, read the first match,
 * stat the file read, echo its kind — done two ways against the binary over
 * stdio in the same run:
 *
 * - five `tools/call`s, each step's arguments taken from the previous
 *   result by the client (what an agent does without the front);
 * - one `request` chain (`serve --front request`), in the `agent` and the
 *   `verbose` presentation.
 *
 * Reported: round trips, response tokens (the characters of the text the
 * model reads — every text content block of every answer — divided by 4),
 * and the wall time of the whole task (median of 20, interleaved).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Peer } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const binary = path.join(root, "dist", "mcp-runtime.js")
mkdirSync(out, { recursive: true })
const work = mkdtempSync(path.join(os.tmpdir(), "bench-request-"))
mkdirSync(path.join(work, "src"))
for (let i = 0; i < 12; i++) {
  writeFileSync(
    path.join(work, "src", `module${i}.ts`),
    `// module ${i}\n${i % 3 === 0 ? `export const value${i} = ${i}\n` : ""}export function f${i}(x: number): number {\n  return x + ${i}\n}\n`
  )
}
const env = { XDG_STATE_HOME: out, MCP_RUNTIME_LOG_LEVEL: "warn" }

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

const textOf = (result: any): string =>
  (result?.content ?? [])
    .filter((block: any) => block.type === "text")
    .map((block: any) => block.text)
    .join("")

const call = async (peer: Peer, name: string, args: Record<string, unknown>): Promise<any> => {
  const response = await peer.request("tools/call", { name, arguments: args }, 60_000)
  if (response.error !== undefined || response.result?.isError === true) {
    throw new Error(`${peer.label}: ${name} failed: ${JSON.stringify(response).slice(0, 800)}\n${peer.stderr}`)
  }
  return response.result
}

const serve = ["serve", "--root", work, "--capabilities", "system,workspace", "--audit-log", "off"]
const plain = new Peer("tools", [binary, ...serve], env)
const front = new Peer("request front", [binary, ...serve, "--front", "request"], env)
await plain.initialize()
await front.initialize()

interface Run {
  readonly trips: number
  readonly chars: number
  readonly ms: number
}

const fiveCalls = async (): Promise<Run> => {
  const began = performance.now()
  let chars = 0
  const step = async (name: string, args: Record<string, unknown>) => {
    const result = await call(plain, name, args)
    chars += textOf(result).length
    return result.structuredContent
  }
  await step("workspace_list", { path: "src" })
  const found = await step("workspace_search", { query: "export const", path: "src" })
  const read = await step("workspace_read", { path: found.matches[0].path })
  const stat = await step("workspace_stat", { path: read.path })
  const echoed = await step("system_echo", { text: stat.kind })
  if (echoed.text !== "file") throw new Error(`unexpected: ${JSON.stringify(echoed)}`)
  return { trips: 5, chars, ms: performance.now() - began }
}

const chain =
  'workspace_list(path="src") | workspace_search(query="export const", path="src") | ' +
  "workspace_read(path=$prev.matches[0].path) | workspace_stat(path=$prev.path) | system_echo(text=$prev.kind)"

const oneRequest = async (presentation: "agent" | "verbose"): Promise<Run> => {
  const began = performance.now()
  const result = await call(front, "request", { ops: chain, presentation })
  const text = textOf(result)
  const envelope = JSON.parse(text)
  if (envelope.summary.succeeded !== 5) throw new Error(`request: ${text.slice(0, 800)}`)
  return { trips: 1, chars: text.length, ms: performance.now() - began }
}

// Warm both, then interleave.
await fiveCalls()
await oneRequest("agent")
await oneRequest("verbose")
const runs = { five: [] as Array<Run>, agent: [] as Array<Run>, verbose: [] as Array<Run> }
for (let round = 0; round < 20; round++) {
  runs.five.push(await fiveCalls())
  runs.agent.push(await oneRequest("agent"))
  runs.verbose.push(await oneRequest("verbose"))
}
await plain.close()
await front.close()
rmSync(work, { recursive: true, force: true })

const summary = (list: ReadonlyArray<Run>) => ({
  trips: list[0]!.trips,
  tokens: Math.round(list[0]!.chars / 4),
  ms: median(list.map((run) => run.ms))
})
const five = summary(runs.five)
const agent = summary(runs.agent)
const verbose = summary(runs.verbose)
const rows = [
  { way: "five tools/calls", ...five },
  { way: "one request chain, agent", ...agent },
  { way: "one request chain, verbose", ...verbose }
]
console.log("\n## The request front: a 5-step task\n")
console.log(
  "| way | round trips | response tokens (chars/4) | tokens vs five calls | time (median of 20) | time vs five calls |"
)
console.log("|---|---|---|---|---|---|")
for (const row of rows) {
  console.log(
    `| ${row.way} | ${row.trips} | ${row.tokens} | ${(row.tokens / five.tokens).toFixed(2)}× | ${row.ms.toFixed(2)} ms | ${(row.ms / five.ms).toFixed(2)}× |`
  )
}
writeFileSync(
  path.join(out, "request-results.json"),
  JSON.stringify({ date: new Date().toISOString(), rows }, null, 2) + "\n"
)
