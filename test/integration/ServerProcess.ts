/**
 * The built `mcp-runtime` binary as a real subprocess, with a raw NDJSON
 * client: bytes go to its stdin exactly as given, and every stdout line is
 * kept as it came. Each test starts its own process through
 * {@link withServer}, which always kills it, so tests stay independent and
 * can run concurrently.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
export const binaryPath = resolve(repoRoot, "dist/mcp-runtime.js")

/** Every revision the server implements, oldest first. */
export const revisions = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const

/** How long to wait for one line of output before failing the test. */
export const lineTimeoutMs = 5_000

/** Fails with a clear message when the binary has not been built. */
export const assertBuilt = (): void => {
  if (!existsSync(binaryPath)) {
    throw new Error(
      `${binaryPath} is missing: the integration tests run the built binary. ` +
        `Run \`npm run build\` first (\`npm test\` does it for you).`
    )
  }
}

/** The arguments of `mcp-runtime serve`, with `--root` set to the repository. */
export const serveArgs = (extra: ReadonlyArray<string> = []): Array<string> => [
  binaryPath,
  "serve",
  "--root",
  repoRoot,
  "--capabilities",
  "system",
  ...extra
]

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams
  /** Writes raw text to stdin, exactly as given. */
  readonly write: (text: string | Uint8Array) => Promise<void>
  /** Writes one message as a JSON line. */
  readonly send: (message: unknown) => Promise<void>
  /** The next stdout line, raw. */
  readonly nextLine: (timeoutMs?: number) => Promise<string>
  /** The next stdout line, parsed. */
  readonly next: (timeoutMs?: number) => Promise<any>
  /** Sends a request with a fresh numeric id and returns the next line, parsed. */
  readonly request: (method: string, params?: unknown) => Promise<any>
  /** `initialize` with the given version, then `notifications/initialized`; returns the result. */
  readonly initialize: (protocolVersion: string) => Promise<any>
  /** Sends a ping and asserts that the very next line is its `{}` result. */
  readonly expectPing: () => Promise<void>
  /** Closes stdin (EOF). */
  readonly closeStdin: () => void
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>
  /** Waits for the exit, failing after `timeoutMs`. */
  readonly waitForExit: (timeoutMs: number) => Promise<Exit>
  /** Every stdout line so far, raw, including the unread ones. */
  readonly stdoutLines: () => ReadonlyArray<string>
  /** Every complete stderr line so far. */
  readonly stderrLines: () => ReadonlyArray<string>
}

const timeout = <A>(promise: Promise<A>, ms: number, what: () => string): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(what())), ms)
    })
  ]).finally(() => clearTimeout(timer))
}

const start = (args: ReadonlyArray<string>): ServerProcess => {
  const child = spawn(process.execPath, serveArgs(args), { stdio: ["pipe", "pipe", "pipe"] })
  const allStdout: Array<string> = []
  const unread: Array<string> = []
  const waiters: Array<(line: string | undefined) => void> = []
  const stderr: Array<string> = []
  let stdoutTail = Buffer.alloc(0)
  let stderrTail = ""
  let ended = false

  child.stdout.on("data", (chunk: Buffer) => {
    let buffer = Buffer.concat([stdoutTail, chunk])
    let nl: number
    while ((nl = buffer.indexOf(0x0a)) !== -1) {
      const line = buffer.subarray(0, nl).toString("utf8")
      buffer = buffer.subarray(nl + 1)
      allStdout.push(line)
      const waiter = waiters.shift()
      if (waiter === undefined) unread.push(line)
      else waiter(line)
    }
    stdoutTail = buffer
  })
  child.stdout.on("end", () => {
    if (stdoutTail.length > 0) allStdout.push(`${stdoutTail.toString("utf8")} <no trailing newline>`)
    ended = true
    for (const waiter of waiters.splice(0)) waiter(undefined)
  })
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    const parts = (stderrTail + chunk).split("\n")
    stderrTail = parts.pop()!
    stderr.push(...parts)
  })
  // EPIPE after the server exits is the test's business, not an unhandled error.
  child.stdin.on("error", () => {})

  const exited = new Promise<Exit>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }))
  })

  const context = () =>
    `\nstdout so far:\n${allStdout.join("\n") || "(nothing)"}\nstderr so far:\n${stderr.join("\n") || "(nothing)"}`

  const nextLine = (timeoutMs = lineTimeoutMs): Promise<string> => {
    const line = unread.shift()
    if (line !== undefined) return Promise.resolve(line)
    if (ended) return Promise.reject(new Error(`stdout ended while a line was expected${context()}`))
    let waiter!: (line: string | undefined) => void
    const promise = new Promise<string>((resolve, reject) => {
      waiter = (line) =>
        line === undefined ? reject(new Error(`stdout ended while a line was expected${context()}`)) : resolve(line)
      waiters.push(waiter)
    })
    return timeout(promise, timeoutMs, () => {
      const index = waiters.indexOf(waiter)
      if (index !== -1) waiters.splice(index, 1)
      return `no stdout line within ${timeoutMs} ms${context()}`
    })
  }

  const next = async (timeoutMs?: number): Promise<any> => {
    const line = await nextLine(timeoutMs)
    try {
      return JSON.parse(line)
    } catch {
      throw new Error(`stdout line is not JSON: ${JSON.stringify(line)}`)
    }
  }

  const write = (text: string | Uint8Array): Promise<void> =>
    new Promise((resolve, reject) => {
      child.stdin.write(text, (error) => (error ? reject(error) : resolve()))
    })

  const send = (message: unknown): Promise<void> => write(`${JSON.stringify(message)}\n`)

  let ids = 0
  const request = async (method: string, params?: unknown): Promise<any> => {
    const id = ++ids
    await send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params })
    const response = await next()
    if (typeof response !== "object" || response === null || response.id !== id) {
      throw new Error(`expected the response to request ${id} (${method}), got ${JSON.stringify(response)}`)
    }
    return response
  }

  const initialize = async (protocolVersion: string): Promise<any> => {
    const response = await request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "raw-stdio-test", version: "1.0.0" }
    })
    if (response.result === undefined) throw new Error(`initialize failed: ${JSON.stringify(response)}`)
    await send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return response.result
  }

  const expectPing = async (): Promise<void> => {
    const id = `ping-${++ids}`
    await send({ jsonrpc: "2.0", id, method: "ping" })
    const line = await nextLine()
    const expected = JSON.stringify({ jsonrpc: "2.0", id, result: {} })
    if (JSON.stringify(JSON.parse(line)) !== expected) {
      throw new Error(`expected the ping response ${expected} as the next line, got ${line}`)
    }
  }

  return {
    child,
    write,
    send,
    nextLine,
    next,
    request,
    initialize,
    expectPing,
    closeStdin: () => child.stdin.end(),
    exited,
    waitForExit: (ms) => timeout(exited, ms, () => `the server did not exit within ${ms} ms${context()}`),
    stdoutLines: () => allStdout,
    stderrLines: () => stderr
  }
}

/**
 * Runs `body` against a fresh server process started with `args` (after
 * `serve --root <repo> --capabilities system`), and kills the process
 * afterwards whatever happened.
 */
export const withServer = async <A>(
  args: ReadonlyArray<string>,
  body: (server: ServerProcess) => Promise<A>
): Promise<A> => {
  const server = start(args)
  try {
    return await body(server)
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL")
      await timeout(server.exited, 5_000, () => "the server did not die after SIGKILL").catch(() => undefined)
    }
  }
}
