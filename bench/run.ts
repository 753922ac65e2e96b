/**
 * `npm run bench`: this server against the official SDK's `McpServer`, both
 * child processes on stdio, driven by the raw client of `bench/client.ts`.
 * Rounds alternate between the two (A/B, then B/A) so machine noise hits both.
 *
 * Ours is bundled like the binary (esbuild, minified ESM) into
 * `bench/.out/effect-server.js`; the SDK server runs unbundled
 * (`bench/sdk-server.ts`). Both run on this runner's node (`process.execPath`).
 * Results: a table on stdout and `bench/.out/results.json`. Targets are a
 * report: the exit code is 0 whether they pass or not, and 1 only when the
 * bench itself fails (a server error, a wrong answer, a timeout).
 *
 * With one call in flight, wall-clock figures depend on whether the scheduler
 * puts client and server on the same CPU; `taskset -c 1 npm run bench` pins
 * all processes to one CPU for steadier (but different) figures. The "server
 * CPU per call" rows depend least on the machine's other work.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bundle } from "../scripts/bundle.ts"
import { Peer, type Response } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const ourBundle = path.join(out, "effect-server.js")
const sdkServer = path.join(root, "bench", "sdk-server.ts")
const binary = path.join(root, "dist", "mcp-runtime.js")

// -- settings ------------------------------------------------------------------

const settings = {
  coldStartSpawns: 20,
  warmupCalls: 10_000,
  sequentialCalls: 4000,
  pipelined: [
    { inFlight: 1, calls: 5000 },
    { inFlight: 16, calls: 40_000 },
    { inFlight: 256, calls: 40_000 }
  ],
  /** Each measurement is split in this many rounds per side, alternating A/B, B/A. */
  rounds: 10,
  listTools: 1000,
  listCalls: 100,
  rssEchoCalls: 20
} as const

// -- build ---------------------------------------------------------------------

mkdirSync(out, { recursive: true })
await bundle(path.join(root, "bench", "effect-server.ts"), ourBundle)

// -- servers -------------------------------------------------------------------

type Side = "ours" | "sdk"

interface ServerSpec {
  readonly label: string
  readonly args: ReadonlyArray<string>
  readonly echo: string
}

const specs = {
  ours: { label: "ours (bench bundle)", args: [ourBundle], echo: "bench_echo" },
  sdk: { label: "SDK McpServer", args: [sdkServer], echo: "bench_echo" },
  binary: {
    label: "ours (dist/mcp-runtime.js)",
    args: [binary, "serve", "--capabilities", "system"],
    echo: "system_echo"
  }
} satisfies Record<string, ServerSpec>

const start = async (spec: ServerSpec, tools = 0): Promise<Peer> => {
  const peer = new Peer(spec.label, spec.args, { BENCH_TOOLS: String(tools) })
  await peer.initialize()
  return peer
}

// -- measuring -------------------------------------------------------------------

const check = (peer: Peer, ok: boolean, what: string, response: unknown): void => {
  if (!ok) throw new Error(`${peer.label}: ${what}; got ${JSON.stringify(response).slice(0, 500)}\n${peer.stderr}`)
}

const checkEcho = (peer: Peer, response: Response, text: string): void => {
  const result = response.result
  check(
    peer,
    result !== undefined &&
      result.isError !== true &&
      result.structuredContent?.text === text &&
      result.content?.[0]?.type === "text" &&
      result.content[0].text === JSON.stringify({ text }),
    `echo of ${JSON.stringify(text)} is wrong`,
    response
  )
}

/**
 * Calls the echo tool `calls` times keeping `inFlight` requests outstanding.
 * Returns the elapsed ms; pushes each call's latency into `latencies` if given.
 */
const echoLoop = (
  peer: Peer,
  tool: string,
  calls: number,
  inFlight: number,
  latencies?: Array<number>
): Promise<number> =>
  new Promise((resolve, reject) => {
    let sent = 0
    let done = 0
    let failed = false
    const timer = setTimeout(() => {
      failed = true
      reject(
        new Error(`${peer.label}: ${calls} calls at ${inFlight} in flight timed out (${done} done)\n${peer.stderr}`)
      )
    }, 60_000)
    const began = performance.now()
    const next = (): void => {
      const text = `bench-${sent++}`
      const t0 = performance.now()
      peer.send("tools/call", { name: tool, arguments: { text } }, (response) => {
        if (failed) return
        if (latencies !== undefined) latencies.push(performance.now() - t0)
        try {
          checkEcho(peer, response, text)
        } catch (error) {
          failed = true
          clearTimeout(timer)
          reject(error)
          return
        }
        done++
        if (done === calls) {
          clearTimeout(timer)
          resolve(performance.now() - began)
        } else if (sent < calls) next()
      })
    }
    peer.batch(() => {
      for (let i = 0; i < Math.min(inFlight, calls); i++) next()
    })
  })

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index]!
}
const median = (values: ReadonlyArray<number>): number => quantile(values, 0.5)

/** Runs `fn` for both sides, `rounds` times, alternating which goes first. */
const interleave = async (rounds: number, fn: (side: Side, round: number) => Promise<void>): Promise<void> => {
  for (let round = 0; round < rounds; round++) {
    const order: Array<Side> = round % 2 === 0 ? ["ours", "sdk"] : ["sdk", "ours"]
    for (const side of order) await fn(side, round)
  }
}

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`)
}

// -- results -------------------------------------------------------------------

interface Row {
  readonly metric: string
  readonly unit: string
  readonly ours: number
  readonly sdk: number
  readonly ratio: number
  /** Direction of the target on the ratio: at most ("<=") or at least (">="). */
  readonly target: { readonly op: "<=" | ">="; readonly value: number } | undefined
  readonly pass: boolean | undefined
  readonly details?: unknown
}

const rows: Array<Row> = []
const row = (
  metric: string,
  unit: string,
  ours: number,
  sdk: number,
  target: Row["target"],
  details?: unknown
): void => {
  const ratio = ours / sdk
  const pass = target === undefined ? undefined : target.op === "<=" ? ratio <= target.value : ratio >= target.value
  rows.push({ metric, unit, ours, sdk, ratio, target, pass, details })
}

const began = performance.now()
const loadBefore = os.loadavg()[0]!

// -- 1. cold start and RSS -----------------------------------------------------

progress(`cold start + RSS: ${settings.coldStartSpawns} spawns of each server, interleaved`)
const coldSpecs = ["binary", "ours", "sdk"] as const
const cold: Record<(typeof coldSpecs)[number], { ms: Array<number>; rssKiB: Array<number> }> = {
  binary: { ms: [], rssKiB: [] },
  ours: { ms: [], rssKiB: [] },
  sdk: { ms: [], rssKiB: [] }
}
for (let i = 0; i < settings.coldStartSpawns; i++) {
  for (let k = 0; k < coldSpecs.length; k++) {
    const which = coldSpecs[(i + k) % coldSpecs.length]!
    const spec = specs[which]
    const peer = new Peer(spec.label, spec.args, { BENCH_TOOLS: "0" })
    cold[which].ms.push(await peer.initialize())
    await echoLoop(peer, spec.echo, settings.rssEchoCalls, 1)
    cold[which].rssKiB.push(peer.rssKiB())
    await peer.close()
  }
}
row(
  "cold start: spawn → initialize response",
  "ms",
  median(cold.binary.ms),
  median(cold.sdk.ms),
  { op: "<=", value: 1 },
  {
    ours: "dist/mcp-runtime.js serve --capabilities system (bundled)",
    sdk: "bench/sdk-server.ts (unbundled)",
    spawns: settings.coldStartSpawns,
    oursMs: cold.binary.ms,
    sdkMs: cold.sdk.ms
  }
)
row("cold start, bench bundle (info)", "ms", median(cold.ours.ms), median(cold.sdk.ms), undefined, {
  oursMs: cold.ours.ms
})

// -- 2. steady state: latency and throughput ----------------------------------

progress("steady state: starting both servers (BENCH_TOOLS=0)")
const peers: Record<Side, Peer> = { ours: await start(specs.ours), sdk: await start(specs.sdk) }

progress(`warm-up: ${settings.warmupCalls} calls at 16 in flight + 1000 sequential, each`)
await interleave(1, async (side) => {
  await echoLoop(peers[side], specs[side].echo, settings.warmupCalls, 16)
  await echoLoop(peers[side], specs[side].echo, 1000, 1)
})

progress(`sequential latency: ${settings.sequentialCalls} calls each in ${settings.rounds} rounds`)
const latencies: Record<Side, Array<number>> = { ours: [], sdk: [] }
await interleave(settings.rounds, async (side) => {
  await echoLoop(peers[side], specs[side].echo, settings.sequentialCalls / settings.rounds, 1, latencies[side])
})
row("sequential echo latency p50", "ms", quantile(latencies.ours, 0.5), quantile(latencies.sdk, 0.5), {
  op: "<=",
  value: 1
})
row("sequential echo latency p99", "ms", quantile(latencies.ours, 0.99), quantile(latencies.sdk, 0.99), undefined)

const cpuRows: Array<Parameters<typeof row>> = []
for (const { inFlight, calls } of settings.pipelined) {
  progress(`throughput: ${calls} calls each at ${inFlight} in flight, ${settings.rounds} rounds`)
  const elapsed: Record<Side, Array<number>> = { ours: [], sdk: [] }
  const cpuMs: Record<Side, number> = { ours: 0, sdk: 0 }
  await interleave(settings.rounds, async (side) => {
    const cpuBefore = peers[side].cpuMs()
    elapsed[side].push(await echoLoop(peers[side], specs[side].echo, calls / settings.rounds, inFlight))
    cpuMs[side] += peers[side].cpuMs() - cpuBefore
  })
  // The median round: a burst of noise from elsewhere on the machine spoils a round, not the figure.
  const rates = (side: Side) => elapsed[side].map((ms) => calls / settings.rounds / (ms / 1000))
  const overall = (side: Side) => calls / (elapsed[side].reduce((a, b) => a + b, 0) / 1000)
  row(
    `throughput, ${inFlight} in flight`,
    "calls/s",
    median(rates("ours")),
    median(rates("sdk")),
    inFlight >= 16 ? { op: ">=", value: 1 } : undefined,
    {
      statistic: "median of the rounds' calls/s",
      overall: { ours: overall("ours"), sdk: overall("sdk") },
      rounds: { ours: rates("ours"), sdk: rates("sdk") }
    }
  )
  // CPU time per call barely depends on what else the machine is doing: the steadier figure.
  cpuRows.push([
    `server CPU per call, ${inFlight} in flight (info)`,
    "µs",
    (cpuMs.ours * 1000) / calls,
    (cpuMs.sdk * 1000) / calls,
    undefined
  ])
}
for (const args of cpuRows) row(...args)
await Promise.all([peers.ours.close(), peers.sdk.close()])

// -- 3. tools/list with many tools --------------------------------------------

progress(`tools/list: starting both servers with BENCH_TOOLS=${settings.listTools}`)
const listPeers: Record<Side, Peer> = {
  ours: await start(specs.ours, settings.listTools),
  sdk: await start(specs.sdk, settings.listTools)
}
const expectedNames = ["bench_echo", ...Array.from({ length: settings.listTools }, (_, i) => `bench_dummy_${i}`)]

/** Lists every tool, following `nextCursor`; returns the tools, pages and bytes. */
const listAll = async (peer: Peer): Promise<{ tools: Array<any>; pages: number }> => {
  const tools: Array<any> = []
  let cursor: string | undefined
  let pages = 0
  do {
    const response = await peer.request("tools/list", cursor === undefined ? {} : { cursor })
    check(peer, Array.isArray(response.result?.tools), "tools/list failed", response)
    tools.push(...response.result.tools)
    cursor = response.result.nextCursor
    pages++
  } while (cursor !== undefined)
  return { tools, pages }
}

const listShape: Record<Side, { pages: number; bytes: number }> = {
  ours: { pages: 0, bytes: 0 },
  sdk: { pages: 0, bytes: 0 }
}
for (const side of ["ours", "sdk"] as const) {
  const peer = listPeers[side]
  const { tools, pages } = await listAll(peer)
  const names = tools.map((t) => t.name).sort()
  check(
    peer,
    names.length === expectedNames.length && JSON.stringify(names) === JSON.stringify([...expectedNames].sort()),
    `tools/list should return exactly ${expectedNames.length} tools named bench_echo, bench_dummy_0..`,
    names.slice(0, 5)
  )
  check(
    peer,
    tools.every((t) => t.inputSchema?.type === "object" && t.outputSchema?.type === "object"),
    "every tool should have an object inputSchema and outputSchema",
    tools.find((t) => t.inputSchema?.type !== "object" || t.outputSchema?.type !== "object")
  )
  listShape[side] = { pages, bytes: tools.reduce((n, t) => n + JSON.stringify(t).length, 0) }
  // A call on the big server still works.
  await echoLoop(peer, "bench_echo", 10, 1)
}

progress(`tools/list: ${settings.listCalls} full listings each, interleaved`)
const listMs: Record<Side, Array<number>> = { ours: [], sdk: [] }
await interleave(1, async (side) => {
  for (let i = 0; i < 5; i++) await listAll(listPeers[side]) // warm-up
})
await interleave(settings.rounds, async (side) => {
  for (let i = 0; i < settings.listCalls / settings.rounds; i++) {
    const t0 = performance.now()
    await listAll(listPeers[side])
    listMs[side].push(performance.now() - t0)
  }
})
row(
  `tools/list, ${settings.listTools + 1} tools (all pages)`,
  "ms",
  median(listMs.ours),
  median(listMs.sdk),
  { op: "<=", value: 0.3 },
  {
    pages: { ours: listShape.ours.pages, sdk: listShape.sdk.pages },
    toolJsonBytes: { ours: listShape.ours.bytes, sdk: listShape.sdk.bytes }
  }
)
const listRss = { ours: listPeers.ours.rssKiB(), sdk: listPeers.sdk.rssKiB() }
await Promise.all([listPeers.ours.close(), listPeers.sdk.close()])

row(
  "RSS after initialize + 20 calls, N=0",
  "MiB",
  median(cold.ours.rssKiB) / 1024,
  median(cold.sdk.rssKiB) / 1024,
  { op: "<=", value: 1 },
  { oursKiB: cold.ours.rssKiB, sdkKiB: cold.sdk.rssKiB }
)
row(
  "RSS, dist/mcp-runtime.js (info)",
  "MiB",
  median(cold.binary.rssKiB) / 1024,
  median(cold.sdk.rssKiB) / 1024,
  undefined
)
row(
  `RSS after the tools/list runs, N=${settings.listTools} (info)`,
  "MiB",
  listRss.ours / 1024,
  listRss.sdk / 1024,
  undefined
)

// -- report --------------------------------------------------------------------

const seconds = (performance.now() - began) / 1000
const loadAfter = os.loadavg()[0]!
const format = (value: number, unit: string): string =>
  unit === "calls/s"
    ? Math.round(value).toLocaleString("en-US")
    : value.toFixed(unit === "MiB" || unit === "µs" ? 1 : 3)

const table = [
  ["metric", "unit", "ours", "SDK", "ratio", "target", "result"],
  ...rows.map((r) => [
    r.metric,
    r.unit,
    format(r.ours, r.unit),
    format(r.sdk, r.unit),
    `${r.ratio.toFixed(2)}×`,
    r.target === undefined ? "—" : `${r.target.op} ${r.target.value.toFixed(1)}×`,
    r.pass === undefined ? "info" : r.pass ? "PASS" : "FAIL"
  ])
]
const widths = table[0]!.map((_, c) => Math.max(...table.map((cells) => cells[c]!.length)))
const line = (cells: ReadonlyArray<string>) =>
  cells.map((cell, c) => (c >= 2 && c <= 4 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  ")

const cpu = os.cpus()[0]?.model ?? "unknown cpu"
console.log("")
console.log(
  `effect-mcp-runtime vs @modelcontextprotocol/sdk McpServer — node ${process.version}, ${os.cpus().length} × ${cpu}`
)
console.log(`ratio = ours / SDK (times and RSS: lower is better; throughput: higher is better)`)
console.log("")
console.log(line(table[0]!))
console.log(widths.map((w) => "-".repeat(w)).join("  "))
for (const cells of table.slice(1)) console.log(line(cells))
const failed = rows.filter((r) => r.pass === false)
console.log("")
console.log(
  failed.length === 0
    ? `ALL TARGETS MET (${rows.filter((r) => r.pass).length}/${rows.filter((r) => r.pass !== undefined).length})`
    : `TARGETS MISSED: ${failed.map((r) => r.metric).join("; ")}`
)
console.log(
  `cold start: ours is the bundled binary; the SDK server runs unbundled. ` +
    `tools/list pages: ours ${listShape.ours.pages}, SDK ${listShape.sdk.pages}. Took ${seconds.toFixed(0)} s.`
)
console.log(
  `load average (1 min) before/after: ${loadBefore.toFixed(2)}/${loadAfter.toFixed(2)} on ${os.cpus().length} cpus` +
    (loadBefore > 1 ? " — other work was running; figures are noisier" : "")
)

writeFileSync(
  path.join(out, "results.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpu,
      loadAverage: { before: loadBefore, after: loadAfter },
      settings,
      seconds,
      rows
    },
    null,
    2
  ) + "\n"
)
console.log(`results: ${path.relative(process.cwd(), path.join(out, "results.json"))}`)
