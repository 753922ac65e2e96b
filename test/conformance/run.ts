/**
 * Runs the official MCP conformance suite against this server and reads back
 * every check it made: 0.1.16 (`@modelcontextprotocol/conformance`, protocol
 * 2025-06-18 and 2025-11-25) and the 0.2.0 prerelease that checks 2026-07-28
 * (`conformance-2026`, an npm alias of
 * `@modelcontextprotocol/conformance@0.2.0-alpha.12`).
 *
 * - Over Streamable HTTP the suite talks to a URL, as it is built to.
 * - Over stdio, the suite has no mode of its own: `stdio-hooks.mjs` (loaded
 *   with `node --import`) replaces, for the conformance packages only, the
 *   SDK's Streamable HTTP client transport with a stdio one
 *   (`stdio-transport.mjs`), so every legacy scenario launches the server
 *   command in MCP_STDIO_COMMAND; `stdio-fetch.mjs` answers the 2026-07-28
 *   scenarios' raw `fetch` POSTs from one server child over stdio. The
 *   HTTP-only scenarios and checks cannot apply there and are left out by the
 *   caller.
 *
 * {@link startHttp} starts the built binary serving the fixtures over
 * Streamable HTTP on a free port, and finds its URL in its stderr log.
 *
 * Used by `test/integration/conformance.test.ts`, and runnable by hand:
 *
 *   node test/conformance/run.ts http 2025-11-25
 *   node test/conformance/run.ts stdio
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const cli = resolve(repoRoot, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const cli2026 = resolve(repoRoot, "node_modules/conformance-2026/dist/index.js")
const hooks = resolve(repoRoot, "test/conformance/stdio-hooks.mjs")
const stdioFetch = resolve(repoRoot, "test/conformance/stdio-fetch.mjs")
/** The URL the stdio harness answers (see stdio-fetch.mjs). */
const stdioUrl = "http://stdio.invalid/mcp"
const binary = resolve(repoRoot, "dist/mcp-runtime.js")

/** The scenarios that only make sense over HTTP. */
export const httpOnly = [
  "server-sse-polling",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  "http-header-validation",
  "http-custom-header-server-validation"
] as const

/**
 * The checks of otherwise transport-neutral scenarios that are about HTTP
 * headers (stdio has none): the suite sends a header that contradicts the
 * body and expects −32020.
 */
export const headerChecks = [
  "sep-2575-http-server-header-mismatch-400",
  "tasks-headers-reject-mismatched-method",
  "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get"
] as const

/** One check of one scenario, as the suite records it. */
export interface Check {
  readonly id: string
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED"
  readonly description?: string
  readonly errorMessage?: string
}

/** The outcome of one run: the checks by scenario, the CLI's exit code and output. */
export interface Outcome {
  readonly scenarios: ReadonlyMap<string, ReadonlyArray<Check>>
  readonly exitCode: number | null
  readonly output: string
}

/** The arguments of `mcp-runtime serve` with the conformance fixtures. */
export const serveArgs = (extra: ReadonlyArray<string> = []): Array<string> => [
  binary,
  "serve",
  "--root",
  repoRoot,
  "--capabilities",
  "conformance",
  "--audit-log",
  "off",
  ...extra
]

/**
 * Runs the suite (`--suite all`, optionally filtered by spec version) against
 * `url`, or over stdio when `stdio` gives the server command.
 */
export const runSuite = (options: {
  readonly url?: string
  readonly stdio?: ReadonlyArray<string>
  /** 0.1.16 (the default), or the prerelease that checks 2026-07-28. */
  readonly release?: "0.1.16" | "2026"
  readonly specVersion?: "2025-06-18" | "2025-11-25"
  /** The prerelease only: run what a revision requires (instead of `--suite all`). */
  readonly requirements?: "2026-07-28"
  readonly timeoutMs?: number
}): Promise<Outcome> => {
  const out = mkdtempSync(join(tmpdir(), "mcp-conformance-"))
  const modern = options.release === "2026"
  const args = [
    ...(options.stdio === undefined ? [] : ["--import", hooks, ...(modern ? ["--import", stdioFetch] : [])]),
    modern ? cli2026 : cli,
    "server",
    "--url",
    options.url ?? stdioUrl,
    ...(options.requirements === undefined ? ["--suite", "all"] : ["--requirements", options.requirements]),
    "-o",
    out,
    ...(options.specVersion === undefined ? [] : ["--spec-version", options.specVersion])
  ]
  const env = { ...process.env }
  if (options.stdio !== undefined) {
    env.MCP_STDIO_COMMAND = JSON.stringify(options.stdio)
    env.MCP_STDIO_URL = stdioUrl
  }
  return new Promise<Outcome>((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the conformance suite did not finish in ${options.timeoutMs} ms:\n${output}`))
    }, options.timeoutMs ?? 120_000)
    child.on("error", reject)
    child.on("exit", (exitCode) => {
      clearTimeout(timer)
      try {
        const scenarios = new Map<string, Array<Check>>()
        for (const entry of readdirSync(out)) {
          // server-<scenario>-<timestamp>
          const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")
          const checks = JSON.parse(readFileSync(join(out, entry, "checks.json"), "utf8")) as Array<Check>
          scenarios.set(scenario, checks)
        }
        resolvePromise({ scenarios, exitCode, output })
      } catch (error) {
        reject(error)
      } finally {
        rmSync(out, { recursive: true, force: true })
      }
    })
  })
}

/** The checks that failed or warned, as readable lines (leaving out the scenarios and checks in `skip`). */
export const problems = (outcome: Outcome, skip: ReadonlyArray<string> = []): Array<string> => {
  const lines: Array<string> = []
  for (const [scenario, checks] of outcome.scenarios) {
    if (skip.includes(scenario)) continue
    for (const check of checks) {
      if (skip.includes(check.id)) continue
      if (check.status === "FAILURE" || check.status === "WARNING") {
        lines.push(`${scenario} / ${check.id}: ${check.status}${check.errorMessage ? ` — ${check.errorMessage}` : ""}`)
      }
    }
  }
  return lines
}

/**
 * The scenarios whose checks all passed without testing anything: no
 * `SUCCESS` other than the suite's message validation (`wire-schema-valid`),
 * so a feature the server does not declare is not counted as passing.
 */
export const vacuous = (outcome: Outcome, skip: ReadonlyArray<string> = []): Array<string> =>
  [...outcome.scenarios]
    .filter(
      ([scenario, checks]) =>
        !skip.includes(scenario) &&
        !checks.some(
          (check) => check.status === "SUCCESS" && check.id !== "wire-schema-valid" && !skip.includes(check.id)
        )
    )
    .map(([scenario]) => scenario)

/** Tallies the checks of the scenarios not skipped. */
export const tally = (outcome: Outcome, skip: ReadonlyArray<string> = []) => {
  let scenarios = 0
  const counts: Record<Check["status"], number> = { SUCCESS: 0, FAILURE: 0, WARNING: 0, INFO: 0, SKIPPED: 0 }
  for (const [scenario, checks] of outcome.scenarios) {
    if (skip.includes(scenario)) continue
    scenarios++
    for (const check of checks) counts[check.status]++
  }
  return { scenarios, ...counts }
}

export interface HttpServer {
  readonly url: string
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

export const startHttp = (extra: ReadonlyArray<string> = [], timeoutMs = 10_000): Promise<HttpServer> =>
  new Promise<HttpServer>((resolve, reject) => {
    const child = spawn(process.execPath, serveArgs(["--transport", "http", "--port", "0", ...extra]), {
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    let found = false
    const exited = new Promise<void>((done) => child.on("exit", () => done()))
    const stop = async () => {
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000)
      await exited
      clearTimeout(timer)
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`the server printed no URL in ${timeoutMs} ms:\n${stderr}`))
    }, timeoutMs)
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk
      const match = /https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+\/[^\s"]*/.exec(stderr)
      if (!found && match !== null) {
        found = true
        clearTimeout(timer)
        resolve({ url: match[0], stderr: () => stderr, stop })
      }
    })
    child.on("exit", (code) => {
      if (!found) {
        clearTimeout(timer)
        reject(new Error(`the server exited (${code}) before printing its URL:\n${stderr}`))
      }
    })
  })

// By hand: node test/conformance/run.ts http [2025-06-18 | 2025-11-25 | 2026-07-28 | 2026-all]
//                                          stdio [2026-07-28 | 2026-all]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2] ?? "stdio"
  const which = process.argv[3]
  const suite =
    which === "2026-07-28"
      ? ({ release: "2026", requirements: "2026-07-28" } as const)
      : which === "2026-all"
        ? ({ release: "2026" } as const)
        : mode === "http"
          ? { specVersion: (which ?? "2025-11-25") as "2025-06-18" | "2025-11-25" }
          : {}
  const report = (outcome: Outcome, skip: ReadonlyArray<string>) => {
    console.log(JSON.stringify(tally(outcome, skip)))
    for (const line of problems(outcome, skip)) console.log(line)
    const empty = vacuous(outcome, skip)
    if (empty.length > 0) console.log(`tested nothing: ${empty.join(", ")}`)
  }
  if (mode === "stdio") {
    report(await runSuite({ ...suite, stdio: [process.execPath, ...serveArgs()] }), [...httpOnly, ...headerChecks])
  } else {
    const server = await startHttp()
    try {
      report(await runSuite({ ...suite, url: server.url }), [])
    } finally {
      await server.stop()
    }
  }
}
