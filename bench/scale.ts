/**
 * Scale-out figures (`node bench/scale.ts`, issue 18): the built binary
 * (`mcp-runtime serve --transport http --capabilities conformance`) as one
 * process on each task store, then as 1, 2 and 4 instances on one
 * PostgreSQL, all spoken to as a 2026-07-28 client speaks (no session, `_meta`
 * and the routing headers on every request).
 *
 * 1. Requests/s of a plain tool call (`test_simple_text`), 64 requests kept in
 *    flight for 5 s after a 1.5 s warm-up. The client spreads the requests
 *    over the instances itself, round-robin (no proxy in between: on a small
 *    machine an in-process front would take CPU from the instances).
 * 2. Task start-to-result latency: `slow_compute` with `seconds: 0` (a task
 *    all the same), then `tasks/get` every 10 ms until it is `completed`;
 *    the time from sending the `tools/call` to the answer that says
 *    `completed`, one task at a time, each request to the next instance.
 * 3. Store round trips per task on PostgreSQL: each PostgreSQL configuration
 *    has a database of its own on one throwaway cluster; the database's
 *    `xact_commit + xact_rollback` (`pg_stat_database`) and the statements
 *    the server logs with `log_statement = all` for that database, counted
 *    over an idle window and then over a window of the same length in which
 *    tasks are created and each read once when completed. (The idle window's
 *    count — the cluster's polls — is subtracted; a window lasts longer than
 *    the 10 s for which a backend may hold its statistics before it reports
 *    them.)
 *
 * Results: a markdown table on stdout and `bench/.out/scale.json`. Every
 * process it starts (the instances, PostgreSQL) is stopped by its pid, on
 * failure too.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { binDir } from "../test/support/postgres.ts"
import { connectable, freePort } from "../test/support/ports.ts"
import { procCpuMs } from "./client.ts"

const root = path.resolve(import.meta.dirname, "..")
const out = path.join(root, "bench", ".out")
const binary = path.join(root, "dist", "mcp-runtime.js")

const settings = {
  inFlight: 64,
  warmupMs: 1500,
  measureMs: 5000,
  /** Tasks timed one after the other, per configuration. */
  latencyTasks: 40,
  pollMs: 10,
  /** Tasks created in the store window, per PostgreSQL configuration. */
  storeTasks: 40,
  /** The idle window and the task window, each. */
  storeWindowMs: 12_000,
  /**
   * Before the idle window: a backend reports its statistics at most once a
   * second, and an idle one up to 10 s later (PostgreSQL's
   * PGSTAT_IDLE_INTERVAL), so the load of the earlier measurements must have
   * been reported before the idle window opens.
   */
  storeSettleMs: 11_000
} as const

const progress = (message: string): void => {
  process.stderr.write(`[scale] ${message}\n`)
}

// -- processes -----------------------------------------------------------------

/** Every child started here, stopped by pid in `stopAll`. */
const children = new Set<ChildProcess>()

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

/** Sends `signal`, then SIGKILL after `graceMs` if the process still runs. */
const stop = async (child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 8000): Promise<void> => {
  if (child.exitCode === null && child.signalCode === null) {
    const done = exited(child)
    child.kill(signal)
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await done
    clearTimeout(timer)
  }
  children.delete(child)
}

const stopAll = async (): Promise<void> => {
  await Promise.all([...children].map((child) => stop(child)))
}

// -- PostgreSQL ----------------------------------------------------------------

/**
 * A throwaway cluster as in `test/support/postgres.ts` (same settings), but
 * its log is read here: `log_line_prefix` names the database, so the
 * statements one database ran can be counted once `log_statement` is `all`.
 */
interface Cluster {
  readonly port: number
  readonly url: (database: string) => string
  readonly sql: (query: string) => string
  /** Statements logged for `database` so far (with `log_statement = all`). */
  readonly statements: (database: string) => number
  /** Statements logged for `database` so far, by their first words. */
  readonly kinds: (database: string) => ReadonlyMap<string, number>
  readonly stop: () => Promise<void>
}

const startCluster = async (): Promise<Cluster> => {
  const bin = binDir()
  if (bin === undefined) throw new Error("PostgreSQL is not installed: `apt-get install -y postgresql`")
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-pg-"))
  const data = path.join(dir, "data")
  const ids = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  if (process.getuid?.() === 0) chownSync(dir, 65534, 65534)
  execFileSync(
    path.join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
    { ...ids, stdio: "ignore", cwd: dir }
  )
  const port = await freePort()
  const settingsArgs = [
    "listen_addresses=127.0.0.1",
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "max_connections=200",
    "log_line_prefix=@%d@ "
  ].flatMap((setting) => ["-c", setting])
  const child = spawn(path.join(bin, "postgres"), ["-D", data, "-p", String(port), "-k", dir, ...settingsArgs], {
    ...ids,
    stdio: ["ignore", "ignore", "pipe"],
    cwd: dir
  })
  children.add(child)
  const counts = new Map<string, number>()
  const kinds = new Map<string, Map<string, number>>()
  /** The database of a statement whose text starts on the next line. */
  let pending: string | undefined
  const count = (database: string, text: string): void => {
    counts.set(database, (counts.get(database) ?? 0) + 1)
    // The statement's first words, enough to tell what it does (its parameters are $n).
    const kind = text.slice(0, 70)
    const byKind = kinds.get(database) ?? new Map<string, number>()
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1)
    kinds.set(database, byKind)
  }
  let tail = ""
  let log = ""
  child.stderr!.setEncoding("utf8")
  child.stderr!.on("data", (chunk: string) => {
    if (log.length < 8000) log += chunk
    const lines = (tail + chunk).split("\n")
    tail = lines.pop()!
    for (const line of lines) {
      // A statement that begins with a line break goes on in tab-indented lines: its kind is its first words there.
      if (pending !== undefined) {
        const text = line.startsWith("\t") ? line.replace(/\s+/g, " ").trim() : ""
        if (text !== "" || !line.startsWith("\t")) {
          count(pending, text === "" ? "(multi-line)" : text)
          pending = undefined
        }
        if (line.startsWith("\t")) continue
      }
      const match = /^@([^@]*)@ LOG: {2}(?:statement|execute [^:]*): (.*)$/.exec(line)
      if (match === null) continue
      const text = match[2]!.replace(/\s+/g, " ").trim()
      if (text === "") pending = match[1]!
      else count(match[1]!, text)
    }
  })
  let ready = false
  for (let i = 0; i < 200 && !ready; i++) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}):\n${log}`)
    ready = await connectable(port)
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (!ready) throw new Error(`postgres did not listen on ${port}:\n${log}`)
  const sql = (query: string): string =>
    execFileSync(
      path.join(bin, "psql"),
      ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-Atc", query],
      {
        encoding: "utf8"
      }
    ).trim()
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    sql,
    statements: (database) => counts.get(database) ?? 0,
    kinds: (database) => kinds.get(database) ?? new Map(),
    stop: async () => {
      await stop(child, "SIGINT")
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

// -- instances -----------------------------------------------------------------

interface Instance {
  readonly child: ChildProcess
  readonly url: URL
  /** The last few KiB of its stderr (one JSON line per request: drained, not kept). */
  readonly stderr: () => string
}

const startInstance = (args: ReadonlyArray<string>): Promise<Instance> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [binary, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, XDG_STATE_HOME: out }
    })
    children.add(child)
    let kept = ""
    let tail = ""
    let found = false
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      kept = (kept + chunk).slice(-4000)
      if (found) return
      const lines = (tail + chunk).split("\n")
      tail = lines.pop()!
      for (const line of lines) {
        let parsed: any
        try {
          parsed = JSON.parse(line)
        } catch {
          continue
        }
        const url: unknown = parsed?.annotations?.url ?? (parsed?.event === "listening" ? parsed.url : undefined)
        if (typeof url === "string") {
          found = true
          clearTimeout(timer)
          resolve({ child, url: new URL(url), stderr: () => kept })
          return
        }
      }
    })
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${kept}`)), 20_000)
    child.once("exit", (code) => {
      if (!found) {
        clearTimeout(timer)
        reject(new Error(`the instance exited (${code}) before listening:\n${kept}`))
      }
    })
  })

// -- the 2026-07-28 client -----------------------------------------------------

const meta = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  "io.modelcontextprotocol/clientInfo": { name: "bench-scale", version: "1.0.0" }
})
const agent = new http.Agent({ keepAlive: true, maxSockets: settings.inFlight })
let nextId = 1

/** One 2026-07-28 request, with the headers of the scale-out test's `rpc`; resolves with the JSON-RPC response. */
const rpc = (url: URL, method: string, params: Record<string, unknown>, name?: string): Promise<any> =>
  new Promise((resolve, reject) => {
    const json = JSON.stringify(params)
    const body = `{"jsonrpc":"2.0","id":${nextId++},"method":"${method}","params":${
      json === "{}" ? `{"_meta":${meta}}` : `${json.slice(0, -1)},"_meta":${meta}}`
    }}`
    const request = http.request({
      agent,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": Buffer.byteLength(body),
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(name === undefined ? {} : { "mcp-name": name })
      }
    })
    request.once("error", reject)
    // A server that stops answering fails the bench instead of hanging it.
    request.setTimeout(30_000, () => request.destroy(new Error(`${method}: no answer within 30 s`)))
    request.once("response", (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.once("end", () => {
        try {
          const parsed = response.headers["content-type"]?.startsWith("text/event-stream")
            ? text
                .split("\n")
                .filter((line) => line.startsWith("data:") && line.length > 6)
                .map((line) => JSON.parse(line.slice(5)))
                .at(-1)
            : JSON.parse(text)
          if (response.statusCode !== 200) reject(new Error(`${method}: status ${response.statusCode}: ${text}`))
          else resolve(parsed)
        } catch {
          reject(new Error(`${method}: a body that does not parse (status ${response.statusCode}): ${text}`))
        }
      })
    })
    request.end(body)
  })

/** Round-robin over the instances. */
const spread = (instances: ReadonlyArray<Instance>) => {
  let next = 0
  return () => instances[next++ % instances.length]!.url
}

const callSimpleText = async (url: URL): Promise<void> => {
  const response = await rpc(url, "tools/call", { name: "test_simple_text", arguments: {} }, "test_simple_text")
  const result = response.result
  if (result?.isError === true || result?.content?.[0]?.type !== "text") {
    throw new Error(`test_simple_text: ${JSON.stringify(response).slice(0, 500)}`)
  }
}

/** Calls `test_simple_text` with `inFlight` requests outstanding for `ms`; returns the calls completed. */
const load = async (instances: ReadonlyArray<Instance>, ms: number): Promise<number> => {
  const target = spread(instances)
  const deadline = performance.now() + ms
  let done = 0
  const worker = async () => {
    while (performance.now() < deadline) {
      await callSimpleText(target())
      done++
    }
  }
  await Promise.all(Array.from({ length: settings.inFlight }, worker))
  return done
}

const createTask = async (url: URL, label: string): Promise<string> => {
  const response = await rpc(
    url,
    "tools/call",
    { name: "slow_compute", arguments: { seconds: 0, label } },
    "slow_compute"
  )
  if (response.result?.resultType !== "task" || typeof response.result.taskId !== "string") {
    throw new Error(`slow_compute did not create a task: ${JSON.stringify(response).slice(0, 500)}`)
  }
  return response.result.taskId
}

/** `tasks/get`: the task's status, and its `lastUpdatedAt − createdAt` in ms (what the server recorded). */
const getTask = async (url: URL, taskId: string): Promise<{ readonly status: string; readonly recordedMs: number }> => {
  const response = await rpc(url, "tasks/get", { taskId }, taskId)
  const status = response.result?.status
  if (typeof status !== "string") throw new Error(`tasks/get: ${JSON.stringify(response).slice(0, 500)}`)
  if (status === "failed" || status === "cancelled") {
    throw new Error(`task ${taskId} ended ${status}: ${JSON.stringify(response.result).slice(0, 500)}`)
  }
  return { status, recordedMs: Date.parse(response.result.lastUpdatedAt) - Date.parse(response.result.createdAt) }
}

const taskStatus = async (url: URL, taskId: string): Promise<string> => (await getTask(url, taskId)).status

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Latencies {
  /** Send of the `tools/call` → the `tasks/get` answer that says `completed`, ms. */
  readonly observed: Array<number>
  /** The completed task's `lastUpdatedAt − createdAt`, ms (the server's clock, ms resolution). */
  readonly recorded: Array<number>
}

/** Start-to-result latency of `count` tasks, one after the other, each request to the next instance. */
const taskLatencies = async (instances: ReadonlyArray<Instance>, count: number): Promise<Latencies> => {
  const target = spread(instances)
  const latencies: Latencies = { observed: [], recorded: [] }
  for (let i = 0; i < count; i++) {
    const began = performance.now()
    const taskId = await createTask(target(), `latency-${i}`)
    const deadline = began + 30_000
    let task = await getTask(target(), taskId)
    while (task.status !== "completed") {
      if (performance.now() > deadline) throw new Error(`task ${taskId} did not complete within 30 s`)
      await sleep(settings.pollMs)
      task = await getTask(target(), taskId)
    }
    latencies.observed.push(performance.now() - began)
    latencies.recorded.push(task.recordedMs)
  }
  return latencies
}

// -- statistics ----------------------------------------------------------------

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

interface StoreCounts {
  readonly transactions: number
  readonly rows: number
  readonly statements: number
}

const storeCounts = (cluster: Cluster, database: string): StoreCounts => {
  const [transactions, rows] = cluster
    .sql(
      `SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted ` +
        `FROM pg_stat_database WHERE datname = '${database}'`
    )
    .split("|")
    .map(Number)
  return { transactions: transactions!, rows: rows!, statements: cluster.statements(database) }
}

const minus = (a: StoreCounts, b: StoreCounts): StoreCounts => ({
  transactions: a.transactions - b.transactions,
  rows: a.rows - b.rows,
  statements: a.statements - b.statements
})

interface StorePerTask extends StoreCounts {
  /** CPU time of one instance while idle (the cluster's polls), ms per second, averaged over the instances. */
  readonly idleCpuMsPerSecond: number
  /** The statements per task by their first words (busy − idle, as the totals), most frequent first. */
  readonly statementKinds: ReadonlyArray<readonly [string, number]>
  readonly idle: StoreCounts
  readonly busy: StoreCounts
  readonly windowMs: number
  readonly tasks: number
}

/**
 * An idle window, then a window of the same length in which `storeTasks`
 * tasks are created (one after the other) and each read once with
 * `tasks/get` after they all completed; (busy − idle) / tasks.
 */
const storeRoundTrips = async (
  cluster: Cluster,
  database: string,
  instances: ReadonlyArray<Instance>
): Promise<StorePerTask> => {
  const windowMs = settings.storeWindowMs
  await sleep(settings.storeSettleMs)
  const cpu = () => instances.reduce((sum, instance) => sum + procCpuMs(instance.child.pid!), 0)
  const a = storeCounts(cluster, database)
  const kindsA = new Map(cluster.kinds(database))
  const cpuBefore = cpu()
  await sleep(windowMs)
  const b = storeCounts(cluster, database)
  const idleCpuMsPerSecond = (cpu() - cpuBefore) / instances.length / (windowMs / 1000)
  const kindsB = new Map(cluster.kinds(database))
  const began = performance.now()
  const target = spread(instances)
  const ids: Array<string> = []
  for (let i = 0; i < settings.storeTasks; i++) ids.push(await createTask(target(), `store-${i}`))
  // Let them all end (seconds: 0), then read each once: a client's minimum, one tasks/get that finds the result.
  await sleep(1500)
  for (const taskId of ids) {
    let status = await taskStatus(target(), taskId)
    for (let wait = 0; status !== "completed" && wait < 100; wait++) {
      await sleep(100)
      status = await taskStatus(target(), taskId)
    }
    if (status !== "completed") throw new Error(`store window: task ${taskId} is still ${status}`)
  }
  const left = windowMs - (performance.now() - began)
  if (left < 10_000) progress(`store window: the tasks took ${((windowMs - left) / 1000).toFixed(1)} s of the window`)
  await sleep(Math.max(0, left))
  const c = storeCounts(cluster, database)
  const idle = minus(b, a)
  const busy = minus(c, b)
  const kindsC = cluster.kinds(database)
  const statementKinds = [...kindsC.keys()]
    .map((kind) => {
      const at = (kinds: ReadonlyMap<string, number>) => kinds.get(kind) ?? 0
      const busyCount = at(kindsC) - at(kindsB)
      const idleCount = at(kindsB) - at(kindsA)
      return [kind, (busyCount - idleCount) / settings.storeTasks] as const
    })
    .filter(([, count]) => Math.abs(count) >= 0.05)
    .sort((x, y) => y[1] - x[1])
  const per = (key: keyof StoreCounts) => (busy[key] - idle[key]) / settings.storeTasks
  return {
    transactions: per("transactions"),
    rows: per("rows"),
    statements: per("statements"),
    idleCpuMsPerSecond,
    statementKinds,
    idle,
    busy,
    windowMs,
    tasks: settings.storeTasks
  }
}

// -- configurations ------------------------------------------------------------

interface Result {
  readonly configuration: string
  readonly instances: number
  readonly requestsPerSecond: number
  /** CPU time (user + system) of all the instances per call, in µs, during the req/s run. */
  readonly serverCpuUs: number
  /** This process's (the client's) CPU time per call, in µs. */
  readonly clientCpuUs: number
  readonly taskP50: number
  readonly taskP95: number
  readonly recordedP50: number
  readonly recordedP95: number
  readonly latencies: Latencies
  readonly store: StorePerTask | undefined
  readonly startMs: number
}

const serveArgs = (work: string, store: string, extra: ReadonlyArray<string> = []): Array<string> => [
  "serve",
  "--root",
  work,
  "--capabilities",
  "conformance",
  "--transport",
  "http",
  "--port",
  "0",
  "--audit-log",
  "off",
  "--store",
  store,
  ...extra
]

const measure = async (
  configuration: string,
  instances: ReadonlyArray<Instance>,
  startMs: number,
  store?: () => Promise<StorePerTask>
): Promise<Result> => {
  progress(
    `${configuration}: warm-up ${settings.warmupMs} ms, then ${settings.measureMs} ms at ${settings.inFlight} in flight`
  )
  await load(instances, settings.warmupMs)
  await taskLatencies(instances, 3)
  const serverCpu = () => instances.reduce((sum, instance) => sum + procCpuMs(instance.child.pid!), 0)
  const cpuBefore = serverCpu()
  const clientBefore = process.cpuUsage()
  const began = performance.now()
  const calls = await load(instances, settings.measureMs)
  const requestsPerSecond = calls / ((performance.now() - began) / 1000)
  const serverCpuUs = ((serverCpu() - cpuBefore) * 1000) / calls
  const client = process.cpuUsage(clientBefore)
  const clientCpuUs = (client.user + client.system) / calls
  progress(`${configuration}: ${Math.round(requestsPerSecond)} req/s; ${settings.latencyTasks} tasks one at a time`)
  const latencies = await taskLatencies(instances, settings.latencyTasks)
  let storeResult: StorePerTask | undefined
  if (store !== undefined) {
    progress(`${configuration}: store round trips (two windows of ${settings.storeWindowMs / 1000} s)`)
    storeResult = await store()
  }
  return {
    configuration,
    instances: instances.length,
    requestsPerSecond,
    serverCpuUs,
    clientCpuUs,
    taskP50: quantile(latencies.observed, 0.5),
    taskP95: quantile(latencies.observed, 0.95),
    recordedP50: quantile(latencies.recorded, 0.5),
    recordedP95: quantile(latencies.recorded, 0.95),
    latencies,
    store: storeResult,
    startMs
  }
}

if (!existsSync(binary)) {
  console.error(`${binary} is missing: run \`npm run build\` first`)
  process.exit(1)
}
mkdirSync(out, { recursive: true })
const work = mkdtempSync(path.join(os.tmpdir(), "bench-scale-"))
const results: Array<Result> = []
const began = performance.now()
const loadBefore = os.loadavg()[0]!
let cluster: Cluster | undefined
let failed = false

const single = async (configuration: string, store: string): Promise<void> => {
  const t0 = performance.now()
  const instance = await startInstance(serveArgs(work, store))
  try {
    results.push(await measure(configuration, [instance], performance.now() - t0))
  } finally {
    await stop(instance.child)
  }
}

const onPostgres = async (count: number): Promise<void> => {
  const database = `scale_${count}`
  cluster!.sql(`CREATE DATABASE ${database}`)
  const t0 = performance.now()
  const instances: Array<Instance> = []
  try {
    // One after the other: the first migrates the store.
    for (let i = 0; i < count; i++) {
      const runnerPort = await freePort()
      instances.push(
        await startInstance(serveArgs(work, cluster!.url(database), ["--runner-port", String(runnerPort)]))
      )
    }
    const label = `postgres, ${count} instance${count === 1 ? "" : "s"}`
    results.push(
      await measure(label, instances, performance.now() - t0, async () => {
        cluster!.sql("ALTER SYSTEM SET log_statement = 'all'")
        cluster!.sql("SELECT pg_reload_conf()")
        await sleep(300)
        try {
          return await storeRoundTrips(cluster!, database, instances)
        } finally {
          cluster!.sql("ALTER SYSTEM SET log_statement = 'none'")
          cluster!.sql("SELECT pg_reload_conf()")
        }
      })
    )
  } finally {
    await Promise.all(instances.map((instance) => stop(instance.child)))
  }
}

const onSignal = () => {
  void stopAll().finally(() => process.exit(130))
}
process.once("SIGINT", onSignal)
process.once("SIGTERM", onSignal)

try {
  await single("memory (one process)", "memory")
  await single("sqlite (one process)", `sqlite:${path.join(work, "tasks.db")}`)
  cluster = await startCluster()
  for (const count of [1, 2, 4]) await onPostgres(count)
} catch (error) {
  failed = true
  console.error(error)
} finally {
  agent.destroy()
  await cluster?.stop()
  await stopAll()
  rmSync(work, { recursive: true, force: true })
}
if (failed) process.exit(1)

// -- report --------------------------------------------------------------------

const seconds = (performance.now() - began) / 1000
const loadAfter = os.loadavg()[0]!
const base = results.find((result) => result.configuration.startsWith("postgres, 1 "))!
const ms = (value: number) => `${value.toFixed(1)} ms`
const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}×`
const fixed = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(1))

console.log(
  `\n## Scale-out: ${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown cpu"}, node ${process.version}, ` +
    `load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}, ${seconds.toFixed(0)} s\n`
)
console.log(
  "| configuration | req/s | vs 1 pg instance | server CPU / call | client CPU / call | task p50 | task p95 | p50 vs 1 pg instance | recorded p50 / p95 | store transactions / task | statements / task | rows written / task | idle CPU / instance |"
)
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for (const result of results) {
  console.log(
    `| ${result.configuration} | ${Math.round(result.requestsPerSecond).toLocaleString("en-US")} | ` +
      `${ratio(result.requestsPerSecond, base.requestsPerSecond)} | ${result.serverCpuUs.toFixed(0)} µs | ` +
      `${result.clientCpuUs.toFixed(0)} µs | ${ms(result.taskP50)} | ${ms(result.taskP95)} | ` +
      `${ratio(result.taskP50, base.taskP50)} | ${result.recordedP50} / ${result.recordedP95} ms | ` +
      `${fixed(result.store?.transactions)} | ${fixed(result.store?.statements)} | ${fixed(result.store?.rows)} | ` +
      `${result.store === undefined ? "—" : `${result.store.idleCpuMsPerSecond.toFixed(1)} ms/s`} |`
  )
}
console.log(
  `\nreq/s: \`test_simple_text\`, ${settings.inFlight} requests in flight for ${settings.measureMs / 1000} s after a ` +
    `${settings.warmupMs / 1000} s warm-up; the client spreads them round-robin over the instances (no proxy) and ` +
    `runs on the same ${os.cpus().length} CPUs; server CPU: all the instances' user + system time per call. ` +
    `Task: \`slow_compute\` with seconds 0, then \`tasks/get\` every ${settings.pollMs} ms until completed, ` +
    `${settings.latencyTasks} tasks one at a time, each request to the next instance; send of the call → the answer ` +
    `saying completed; recorded: the completed task's lastUpdatedAt − createdAt (the server's clock). Store: (count over a ${settings.storeWindowMs / 1000} s window with ${settings.storeTasks} ` +
    `tasks created and each read once when completed − count over an idle window of the same length, opened ` +
    `${settings.storeSettleMs / 1000} s after the load so that every backend has reported its statistics) / ` +
    `${settings.storeTasks}; transactions and rows (inserted + updated + deleted) from pg_stat_database, statements ` +
    `from the server's log with log_statement = all, for this configuration's own database; idle CPU: an ` +
    `instance's user + system time in the idle window (the cluster's polls).`
)
for (const result of results) {
  if (result.store === undefined) continue
  console.log(`\n${result.configuration}: statements per task by kind (task window − idle window):\n`)
  for (const [kind, count] of result.store.statementKinds.slice(0, 16)) {
    console.log(`- ${count.toFixed(2)} × \`${kind}\``)
  }
}
writeFileSync(
  path.join(out, "scale.json"),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, settings, seconds, results }, null, 2) + "\n"
)
