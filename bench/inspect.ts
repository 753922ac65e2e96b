/**
 * What `serve --inspect` costs: pipelined `system_echo` throughput of the
 * built binary over stdio, without `--inspect`, with `--inspect` and no page
 * open, and with `--inspect` and one page's live feed (an SSE client reading
 * every event) connected. The three servers run side by side and are
 * measured in interleaved rounds (A/B/C, C/B/A, …); each figure is the
 * median round. Prints the ratios and writes `bench/.out/inspect.json`.
 *
 * Run after `npm run build`: `node bench/inspect.ts`.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Peer } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const binary = path.join(root, "dist", "mcp-runtime.js")

const settings = {
  warmupCalls: 10_000,
  inFlight: [16, 256],
  rounds: 10,
  callsPerRound: 4000
} as const

type Side = "off" | "on" | "watched"
const sides: ReadonlyArray<Side> = ["off", "on", "watched"]
const labels: Record<Side, string> = {
  off: "without --inspect",
  on: "--inspect, no page open",
  watched: "--inspect, one page connected"
}

const progress = (message: string): void => {
  process.stderr.write(`[bench] ${message}\n`)
}

const args = (inspect: boolean) => [
  binary,
  "serve",
  "--root",
  root,
  "--capabilities",
  "system",
  "--audit-log",
  "off",
  "--store",
  "memory",
  ...(inspect ? ["--inspect"] : [])
]

const start = async (side: Side): Promise<Peer> => {
  const peer = new Peer(labels[side], args(side !== "off"), { XDG_STATE_HOME: out })
  await peer.initialize()
  return peer
}

const inspectUrl = async (peer: Peer): Promise<string> => {
  for (let i = 0; i < 200; i++) {
    const found = /Inspect: (\S+)/.exec(peer.stderr)
    if (found !== null) return found[1]!
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${peer.label}: no Inspect: line on stderr\n${peer.stderr}`)
}

/** An SSE client reading every event of the page's feed; counts what it read. */
const watch = async (url: string) => {
  const page = new URL(url)
  const controller = new AbortController()
  const response = await fetch(`${page.origin}/events?token=${page.searchParams.get("token")}`, {
    signal: controller.signal
  })
  if (!response.ok || response.body === null) throw new Error(`/events answered ${response.status}`)
  const stats = { bytes: 0, events: 0 }
  const reader = response.body.getReader()
  const reading = (async () => {
    const decoder = new TextDecoder()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        stats.bytes += value.length
        stats.events += decoder.decode(value, { stream: true }).split("\n\n").length - 1
      }
    } catch {
      // aborted
    }
  })()
  return { stats, close: () => (controller.abort(), reading) }
}

const echoLoop = (peer: Peer, calls: number, inFlight: number): Promise<number> =>
  new Promise((resolve, reject) => {
    let sent = 0
    let done = 0
    const began = performance.now()
    const timer = setTimeout(() => reject(new Error(`${peer.label}: timed out (${done} done)\n${peer.stderr}`)), 60_000)
    const next = (): void => {
      const text = `bench-${sent++}`
      peer.send("tools/call", { name: "system_echo", arguments: { text } }, (response) => {
        if (response.result?.structuredContent?.text !== text) {
          clearTimeout(timer)
          reject(new Error(`${peer.label}: bad echo ${JSON.stringify(response).slice(0, 300)}\n${peer.stderr}`))
          return
        }
        if (++done === calls) {
          clearTimeout(timer)
          resolve(performance.now() - began)
        } else if (sent < calls) next()
      })
    }
    peer.batch(() => {
      for (let i = 0; i < Math.min(inFlight, calls); i++) next()
    })
  })

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

mkdirSync(out, { recursive: true })
const peers = {
  off: await start("off"),
  on: await start("on"),
  watched: await start("watched")
} satisfies Record<Side, Peer>
const watcher = await watch(await inspectUrl(peers.watched))

progress(`warm-up: ${settings.warmupCalls} calls each`)
for (const side of sides) await echoLoop(peers[side], settings.warmupCalls, 16)

const results: Array<Record<string, unknown>> = []
for (const inFlight of settings.inFlight) {
  progress(`throughput: ${settings.rounds} rounds of ${settings.callsPerRound} calls at ${inFlight} in flight`)
  const rates: Record<Side, Array<number>> = { off: [], on: [], watched: [] }
  const cpuMs: Record<Side, number> = { off: 0, on: 0, watched: 0 }
  for (let round = 0; round < settings.rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const before = peers[side].cpuMs()
      const ms = await echoLoop(peers[side], settings.callsPerRound, inFlight)
      cpuMs[side] += peers[side].cpuMs() - before
      rates[side].push(settings.callsPerRound / (ms / 1000))
    }
  }
  const calls = settings.rounds * settings.callsPerRound
  const row = {
    inFlight,
    callsPerSecond: { off: median(rates.off), on: median(rates.on), watched: median(rates.watched) },
    cpuUsPerCall: {
      off: (cpuMs.off * 1000) / calls,
      on: (cpuMs.on * 1000) / calls,
      watched: (cpuMs.watched * 1000) / calls
    },
    ratio: { on: median(rates.on) / median(rates.off), watched: median(rates.watched) / median(rates.off) },
    rounds: rates
  }
  results.push(row)
  console.log(`\npipelined system_echo, ${inFlight} in flight (median of ${settings.rounds} rounds):`)
  for (const side of sides) {
    console.log(
      `  ${labels[side].padEnd(32)} ${row.callsPerSecond[side].toFixed(0).padStart(7)} calls/s` +
        `  ${row.cpuUsPerCall[side].toFixed(1).padStart(6)} µs CPU/call` +
        (side === "off" ? "" : `  ×${(row.callsPerSecond[side] / row.callsPerSecond.off).toFixed(3)}`)
    )
  }
}
console.log(`\nthe page's feed carried ${watcher.stats.events} events, ${(watcher.stats.bytes / 1e6).toFixed(1)} MB`)

await watcher.close()
await Promise.all(sides.map((side) => peers[side].close()))
writeFileSync(
  path.join(out, "inspect.json"),
  JSON.stringify({ settings, results, feed: watcher.stats }, null, 2) + "\n"
)
progress(`wrote ${path.join(out, "inspect.json")}`)
