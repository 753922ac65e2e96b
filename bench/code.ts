/**
 * Code mode and upstream servers (`npm run bench`, after bench/run.ts):
 *
 * 1. isolate start: a fresh QuickJS isolate running `return 1`, in process
 *    (target: under 20 ms, median);
 * 2. one `code_run` calling `system_echo` 1,000 times against 1,000
 *    sequential `tools/call` round trips from a client, both against the
 *    binary over stdio in the same run (target: code_run at least 10×
 *    faster end to end);
 * 3. memory per isolate: the process's RSS with 20 runs alive at once
 *    (each waiting on a host call), over 20;
 * 4. the cost an upstream hop adds to a call: `inner_system_echo` (our
 *    binary mounted as an upstream of our binary) less the local
 *    `system_echo` of the same server, 1,000 sequential calls each, against
 *    the local calls (target: under 1.5× a local call). The mounted server
 *    runs without an audit log of its own (the outer one audits the call).
 *
 * Ratios, not absolute times, are the figures: both sides run on this
 * machine in the same run, interleaved.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as QuickJsSandbox from "../layers/QuickJsSandbox.ts"
import { analyze } from "../src/internal/codeAnalysis.ts"
import { Peer } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const binary = path.join(root, "dist", "mcp-runtime.js")
mkdirSync(out, { recursive: true })
const work = mkdtempSync(path.join(os.tmpdir(), "bench-code-"))
// The binary's default audit log and learned-capability store go under bench/.out, as in bench/run.ts.
const env = { XDG_STATE_HOME: out, MCP_RUNTIME_LOG_LEVEL: "warn" }

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
const fmt = (n: number, digits = 1) => n.toFixed(digits)

interface Row {
  readonly metric: string
  readonly value: string
  readonly target: string
  readonly pass: boolean | undefined
}
const rows: Array<Row> = []

// -- 1. isolate start, 3. memory per isolate (in process) ------------------------------------------

const sandbox = await Effect.runPromise(QuickJsSandbox.make.pipe(Effect.scoped))
const noCalls = () => Effect.succeed(null)
for (let i = 0; i < 20; i++) {
  await Effect.runPromise(sandbox.run({ code: "return 1", bindings: new Map(), call: noCalls }))
}
const startMs: Array<number> = []
for (let i = 0; i < 100; i++) {
  const began = performance.now()
  await Effect.runPromise(sandbox.run({ code: "return 1", bindings: new Map(), call: noCalls }))
  startMs.push(performance.now() - began)
}
const isolateStart = median(startMs)
rows.push({
  metric: "isolate start (fresh isolate running `return 1`, median of 100)",
  value: `${fmt(isolateStart, 2)} ms`,
  target: "< 20 ms",
  pass: isolateStart < 20
})

// The check before a run: a 200-line TypeScript program parsed and walked (every mcp.* call found).
{
  const lines: Array<string> = []
  for (let i = 0; i < 40; i++) {
    lines.push(
      `interface R${i} { ok: boolean; files: Array<string> }`,
      `const r${i}: R${i} = (await mcp.fe.verify({ path: "src/${i}.ts", strict: ${i % 2 === 0} })) as R${i}`,
      `if (!r${i}.ok) { const files = r${i}.files.filter((f: string): boolean => f.endsWith(".ts")) }`,
      `for (const f of r${i}.files) await mcp.ws["read-file"]({ path: f } satisfies { path: string })`,
      `const total${i} = [1, 2, 3].map(<T,>(x: T) => x).length // ${i}`
    )
  }
  const source = lines.join("\n")
  const checkMs: Array<number> = []
  for (let i = 0; i < 25; i++) {
    const began = performance.now()
    analyze(source, { language: "typescript" })
    if (i >= 5) checkMs.push(performance.now() - began)
  }
  const check = median(checkMs)
  rows.push({
    metric: "the check of a 200-line TypeScript program before it runs (parse and walk, median of 20)",
    value: `${fmt(check, 2)} ms`,
    target: "< 25 ms",
    pass: check < 25
  })
}

globalThis.gc?.()
const rssBefore = process.memoryUsage().rss
const alive = 20
const blocked = await Promise.all(
  Array.from({ length: alive }, () =>
    Effect.runPromise(
      Effect.forkDetach(
        sandbox.run({
          code: "const data = Array.from({ length: 1000 }, (_, i) => ({ i })); await mcp.t.wait({}); return data.length",
          bindings: new Map([["t", ["wait"]]]),
          call: () => Effect.never
        })
      )
    )
  )
)
await new Promise((resolve) => setTimeout(resolve, 300))
const rssAlive = process.memoryUsage().rss
const perIsolateMiB = (rssAlive - rssBefore) / alive / 1024 / 1024
await Promise.all(blocked.map((fiber) => Effect.runPromise(Fiber.interrupt(fiber))))
rows.push({
  metric: `memory per isolate (RSS growth with ${alive} runs alive, each holding 1,000 small objects)`,
  value: `${fmt(perIsolateMiB, 2)} MiB`,
  target: "(reported)",
  pass: undefined
})

// -- 2. code_run × 1,000 calls against 1,000 round trips -------------------------------------------

const call = async (peer: Peer, name: string, args: Record<string, unknown>): Promise<any> => {
  const response = await peer.request("tools/call", { name, arguments: args }, 120_000)
  if (response.error !== undefined || response.result?.isError === true) {
    throw new Error(`${peer.label}: ${name} failed: ${JSON.stringify(response).slice(0, 800)}\n${peer.stderr}`)
  }
  return response.result
}

const calls = 1000
const codePeer = new Peer(
  "ours (dist/mcp-runtime.js, system + code)",
  [binary, "serve", "--root", work, "--capabilities", "system,code"],
  env
)
await codePeer.initialize()

const roundTrips = async (peer: Peer, tool: string): Promise<number> => {
  const began = performance.now()
  for (let i = 0; i < calls; i++) await call(peer, tool, { text: `x${i}` })
  return performance.now() - began
}
const loop = `let n = 0\nfor (let i = 0; i < ${calls}; i++) { const r = await mcp.system.echo({ text: "x" + i }); n += r.text.length }\nreturn n`
const codeRun = async (): Promise<number> => {
  const began = performance.now()
  const result = await call(codePeer, "code_run", { code: loop, language: "javascript" })
  const elapsed = performance.now() - began
  if (result.structuredContent?.calls?.length !== calls)
    throw new Error(`code_run made ${result.structuredContent?.calls?.length} calls`)
  return elapsed
}
await roundTrips(codePeer, "system_echo")
await codeRun()
const tripsMs: Array<number> = []
const codeMs: Array<number> = []
for (let round = 0; round < 5; round++) {
  tripsMs.push(await roundTrips(codePeer, "system_echo"))
  codeMs.push(await codeRun())
}
await codePeer.close()

// The same 1,000 calls from the official SDK client (what most agents' hosts use), against its own server process.
const { Client } = await import("@modelcontextprotocol/sdk/client/index.js")
const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js")
const sdkClient = new Client({ name: "bench", version: "1" })
await sdkClient.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [binary, "serve", "--root", work, "--capabilities", "system,code"],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "ignore"
  })
)
const sdkTrips = async (): Promise<number> => {
  const began = performance.now()
  for (let i = 0; i < calls; i++) await sdkClient.callTool({ name: "system_echo", arguments: { text: `x${i}` } })
  return performance.now() - began
}
const sdkCode = async (): Promise<number> => {
  const began = performance.now()
  await sdkClient.callTool({ name: "code_run", arguments: { code: loop, language: "javascript" } })
  return performance.now() - began
}
await sdkTrips()
await sdkCode()
const sdkTripsMs: Array<number> = []
const sdkCodeMs: Array<number> = []
for (let round = 0; round < 5; round++) {
  sdkTripsMs.push(await sdkTrips())
  sdkCodeMs.push(await sdkCode())
}
await sdkClient.close()
const sdkSpeedup = median(sdkTripsMs) / median(sdkCodeMs)

const speedup = median(tripsMs) / median(codeMs)
rows.push({
  metric: `${calls} system_echo calls: ${calls} tools/call round trips / one code_run (median of 5)`,
  value: `${fmt(median(tripsMs))} ms / ${fmt(median(codeMs))} ms = ${fmt(speedup)}×`,
  target: "≥ 10×",
  pass: speedup >= 10
})
rows.push({
  metric: `the same from the official SDK client: ${calls} callTool round trips / one code_run (median of 5)`,
  value: `${fmt(median(sdkTripsMs))} ms / ${fmt(median(sdkCodeMs))} ms = ${fmt(sdkSpeedup)}×`,
  target: "(reported)",
  pass: undefined
})

// -- 4. the upstream hop ----------------------------------------------------------------------------

const config = path.join(work, "upstream.json")
writeFileSync(
  config,
  JSON.stringify({
    upstreams: {
      // The outer server audits every call; the mounted one keeps no audit log of its own, as a third-party server
      // would not (with its own audit log on, the hop also pays a second audit write per call).
      inner: {
        command: process.execPath,
        args: [binary, "serve", "--root", work, "--capabilities", "system", "--audit-log", "off"]
      }
    }
  })
)
const outer = new Peer(
  "ours with an upstream",
  [binary, "serve", "--root", work, "--config", config, "--capabilities", "system"],
  env
)
await outer.initialize()
// The upstream connects at startup; wait until its tool answers.
await call(outer, "inner_system_echo", { text: "warm" })
await roundTrips(outer, "system_echo")
await roundTrips(outer, "inner_system_echo")
const localMs: Array<number> = []
const hopMs: Array<number> = []
for (let round = 0; round < 5; round++) {
  localMs.push(await roundTrips(outer, "system_echo"))
  hopMs.push(await roundTrips(outer, "inner_system_echo"))
}
await outer.close()
// The cost the hop adds to a call (the hop's time less the local call's), against a local call.
const added = (median(hopMs) - median(localMs)) / median(localMs)
rows.push({
  metric: `upstream hop: what it adds to a call, (${calls} inner_system_echo − ${calls} local system_echo) / local (median of 5)`,
  value: `(${fmt(median(hopMs))} − ${fmt(median(localMs))}) / ${fmt(median(localMs))} ms = ${fmt(added, 2)}× (a hop call takes ${fmt(median(hopMs) / median(localMs), 2)}× a local one)`,
  target: "< 1.5×",
  pass: added < 1.5
})

rmSync(work, { recursive: true, force: true })

console.log("\n## Code mode and upstream servers\n")
console.log("| metric | value | target | |")
console.log("|---|---|---|---|")
for (const row of rows) {
  console.log(
    `| ${row.metric} | ${row.value} | ${row.target} | ${row.pass === undefined ? "" : row.pass ? "met" : "MISSED"} |`
  )
}
const missed = rows.filter((row) => row.pass === false)
console.log(
  missed.length === 0 ? "\nALL CODE-MODE TARGETS MET" : `\nTARGETS MISSED: ${missed.map((r) => r.metric).join("; ")}`
)
writeFileSync(
  path.join(out, "code-results.json"),
  JSON.stringify({ date: new Date().toISOString(), rows }, null, 2) + "\n"
)
