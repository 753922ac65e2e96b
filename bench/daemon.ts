/**
 * The warm daemon (`npm run bench`, after bench/code.ts): the time from
 * spawning `mcp-runtime serve` to the first `fe_skeleton` result on a small
 * project (`test/fixtures/fe/react-app`), as an agent's host starts a
 * session and asks for the map first — spawn, `initialize`,
 * `notifications/initialized`, `tools/call fe_skeleton` — with the default
 * capabilities:
 *
 * 1. in process (`serve`, no daemon);
 * 2. `serve --daemon auto` with no daemon running (a cold daemon: the serve
 *    process starts it, the daemon builds the server, then serves);
 * 3. `serve --daemon auto` with a warm daemon (the server for the root and
 *    settings already built, its caches filled by an earlier session).
 *
 * Median of several runs each, interleaved (in process, warm, in process,
 * warm…; the cold runs stop the daemon first). Both sides run the same
 * binary on this machine in the same run; the ratio is the figure. Results on
 * stdout and in bench/.out/daemon.json.
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Peer } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const binary = path.join(root, "dist", "mcp-runtime.js")
const project = path.join(root, "test", "fixtures", "fe", "react-app")
mkdirSync(out, { recursive: true })
// A short directory of its own (a Unix socket path is limited to ~107 bytes).
const daemonDir = mkdtempSync(path.join(os.tmpdir(), "bench-daemon-"))
// The default audit log and learned-capability store go under bench/.out, as in bench/run.ts.
const env = { XDG_STATE_HOME: out, MCP_RUNTIME_LOG_LEVEL: "warn", MCP_RUNTIME_DAEMON_DIR: daemonDir }
const runs = { inProcess: 11, warm: 11, cold: 5 } as const

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}
const fmt = (n: number, digits = 0) => n.toFixed(digits)

const daemon = (...args: Array<string>) => {
  const result = spawnSync(process.execPath, [binary, "daemon", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8"
  })
  if (result.status !== 0 && !(args[0] === "status" && result.status === 1)) {
    throw new Error(`daemon ${args.join(" ")} failed (${result.status}): ${result.stderr}`)
  }
  return result.stdout
}

interface Sample {
  /** Spawn → initialize response, ms. */
  readonly initialize: number
  /** Spawn → fe_skeleton result, ms. */
  readonly skeleton: number
}

const session = async (label: string, extra: ReadonlyArray<string>): Promise<Sample> => {
  const peer = new Peer(label, [binary, "serve", "--root", project, ...extra], env)
  try {
    const initialize = await peer.initialize()
    const response = await peer.request("tools/call", { name: "fe_skeleton", arguments: {} }, 60_000)
    const skeleton = performance.now() - peer.spawnedAt
    const result = response.result
    if (response.error !== undefined || result?.isError === true || !(result?.structuredContent?.filesScanned > 0)) {
      throw new Error(`${label}: fe_skeleton failed: ${JSON.stringify(response).slice(0, 800)}\n${peer.stderr}`)
    }
    return { initialize, skeleton }
  } finally {
    await peer.close()
  }
}

const inProcess = () => session("serve (in process)", [])
const viaDaemon = () => session("serve --daemon auto", ["--daemon", "auto"])

const samples = { inProcess: [] as Array<Sample>, cold: [] as Array<Sample>, warm: [] as Array<Sample> }
try {
  daemon("stop")
  // Warm-up: the binary's first start (disk cache), in process.
  await inProcess()
  for (let i = 0; i < runs.cold; i++) {
    daemon("stop")
    samples.cold.push(await viaDaemon())
  }
  // The daemon is warm now (the last cold run built the server for this root).
  await viaDaemon()
  for (let i = 0; i < Math.max(runs.inProcess, runs.warm); i++) {
    if (i < runs.inProcess) samples.inProcess.push(await inProcess())
    if (i < runs.warm) samples.warm.push(await viaDaemon())
  }
} finally {
  daemon("stop")
  rmSync(daemonDir, { recursive: true, force: true })
}

const rows = [
  { mode: "serve (in process)", samples: samples.inProcess },
  { mode: "serve --daemon auto, cold daemon (started by serve)", samples: samples.cold },
  { mode: "serve --daemon auto, warm daemon", samples: samples.warm }
].map((row) => ({
  mode: row.mode,
  runs: row.samples.length,
  initializeMs: median(row.samples.map((s) => s.initialize)),
  callMs: median(row.samples.map((s) => s.skeleton - s.initialize)),
  skeletonMs: median(row.samples.map((s) => s.skeleton))
}))
const speedup = rows[0]!.skeletonMs / rows[2]!.skeletonMs

console.log("\n## Warm daemon: spawn → first fe_skeleton result (test/fixtures/fe/react-app, default capabilities)\n")
console.log("| mode | runs | spawn → initialize | initialize → fe_skeleton result | spawn → fe_skeleton result |")
console.log("|---|---|---|---|---|")
for (const row of rows) {
  console.log(
    `| ${row.mode} | ${row.runs} | ${fmt(row.initializeMs)} ms | ${fmt(row.callMs)} ms | ${fmt(row.skeletonMs)} ms |`
  )
}
console.log("\n(medians; spawn → initialize is mostly node loading the binary, the same on both sides)")
console.log(`\nwarm daemon: ${fmt(speedup, 2)}× faster to the first fe_skeleton result than in process`)
writeFileSync(
  path.join(out, "daemon.json"),
  JSON.stringify({ date: new Date().toISOString(), rows, speedup, samples }, null, 2) + "\n"
)
