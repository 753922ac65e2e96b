/**
 * CPU profile of a bench server under echo load:
 *
 *   node bench/profile.ts [ours|sdk] [inFlight=16] [calls=60000]
 *
 * Runs the server from source (`bench/effect-server.ts`, unbundled, so the
 * profile names real files and functions) with `--cpu-prof`, warms it up,
 * drives `calls` echo calls at `inFlight` in flight with the bench client,
 * closes stdin so the profile is written, then prints the top self-time
 * functions and files. The profile stays in `bench/.out/prof/`.
 *
 * With `BENCH_TRANSPORT=http` the server serves Streamable HTTP and is driven
 * by the HTTP client of `bench/http-client.ts` (one session, `inFlight`
 * keep-alive connections), then stopped with SIGTERM; `BENCH_JSON_RESPONSE=1`
 * makes the SDK's server answer with JSON instead of SSE; `BENCH_MODERN=1`
 * speaks MCP 2026-07-28 to ours (no session; `_meta` and routing headers on
 * every request).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as path from "node:path"
import { Peer } from "./client.ts"
import { HttpPeer } from "./http-client.ts"

const [which = "ours", inFlightArg = "16", callsArg = "60000"] = process.argv.slice(2)
const inFlight = Number(inFlightArg)
const calls = Number(callsArg)
const root = path.resolve(import.meta.dirname, "..")
const dir = path.join(root, "bench", ".out", "prof")
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })

// `binary`: the binary's own entry from source, `serve` with its defaults (default capabilities, the audit log in a
// state directory under bench/.out/prof); extra `serve` flags in BENCH_SERVE_ARGS (e.g. "--audit-log off").
const binary = which === "binary"
const entry = path.join(
  root,
  binary ? "src/cli/main.ts" : which === "sdk" ? "bench/sdk-server.ts" : "bench/effect-server.ts"
)
const args = [
  "--cpu-prof",
  "--cpu-prof-dir",
  dir,
  // The sampling interval in µs (Node's default: 1000); BENCH_PROF_INTERVAL=100 for finer profiles.
  ...(process.env.BENCH_PROF_INTERVAL === undefined ? [] : [`--cpu-prof-interval=${process.env.BENCH_PROF_INTERVAL}`]),
  entry,
  ...(binary
    ? ["serve", "--root", root, ...(process.env.BENCH_SERVE_ARGS ?? "").split(" ").filter((a) => a !== "")]
    : [])
]
const echoTool = binary ? "system_echo" : "bench_echo"
const http = process.env.BENCH_TRANSPORT === "http"
const peer = http
  ? new HttpPeer(
      which,
      args,
      {},
      {
        answers: which === "sdk" && process.env.BENCH_JSON_RESPONSE !== "1" ? "text/event-stream" : "application/json",
        maxSockets: inFlight,
        modern: process.env.BENCH_MODERN === "1"
      }
    )
  : new Peer(which, args, binary ? { XDG_STATE_HOME: path.join(dir, "state") } : {})
await peer.initialize()

const run = (count: number): Promise<number> =>
  new Promise((resolve, reject) => {
    let sent = 0
    let done = 0
    const t0 = performance.now()
    const next = (): void => {
      const text = `p-${sent++}`
      peer.send("tools/call", { name: echoTool, arguments: { text } }, (response) => {
        if (response.result?.structuredContent?.text !== text) {
          reject(new Error(`bad response ${JSON.stringify(response)}\n${peer.stderr}`))
          return
        }
        if (++done === count) resolve(performance.now() - t0)
        else if (sent < count) next()
      })
    }
    peer.batch(() => {
      for (let i = 0; i < Math.min(inFlight, count); i++) next()
    })
  })

await run(10_000)
const ms = await run(calls)
await peer.close(10_000)
console.log(
  `${which}${http ? " (HTTP)" : ""}: ${calls} calls at ${inFlight} in flight: ${Math.round(calls / (ms / 1000))} calls/s (profiled)`
)

// -- summary -------------------------------------------------------------------

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  readonly hitCount?: number
}
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`)
const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as {
  nodes: Array<ProfileNode>
  samples: Array<number>
  timeDeltas: Array<number>
}
const total = profile.samples.length
const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, "")
    .replace(`${root}/node_modules/`, "")
    .replace(`${root}/`, "")
const byFunction = new Map<string, number>()
const byFile = new Map<string, number>()
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0
  if (hits === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const where = url === "" ? "" : `${shortUrl(url)}:${lineNumber + 1}`
  const key = `${functionName || "(anonymous)"} ${where}`.trim()
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits)
  const fileKey = url === "" ? functionName : shortUrl(url)
  byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + hits)
}
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, hits]) => `${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`)
console.log(`\ntop self time by function (${total} samples):`)
for (const l of top(byFunction, 30)) console.log(l)
console.log(`\ntop self time by file:`)
for (const l of top(byFile, 20)) console.log(l)
console.log(`\nprofile: ${path.join(dir, file)}`)
