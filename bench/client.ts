/**
 * A raw newline-delimited JSON-RPC client for the benchmark: it writes
 * requests to a child's stdin, splits its stdout on "\n" and matches responses
 * by id. No SDK, no validation library: the client must not be the
 * bottleneck. Requests queued while handling one stdout chunk leave in one
 * write.
 *
 * The child's stderr is always drained (a server that logs every request
 * would otherwise fill the pipe and block on its next log write): the client
 * keeps the raw chunks of its last few KiB, decoded only when asked for, and
 * counts the bytes. With `BENCH_STDERR=lines` it also decodes every chunk and
 * splits it in lines, as a client that logs its server's stderr line by line
 * does (the lines are counted, in `stderrLines`): the log line's cost then
 * includes what it costs such a client, which shares the machine.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { StringDecoder } from "node:string_decoder"

export interface Response {
  readonly id: number
  readonly result?: any
  readonly error?: { readonly code: number; readonly message: string }
}

type Callback = (response: Response) => void

export const protocolVersion = "2025-11-25"

/** Whether the client reads its children's stderr line by line (`BENCH_STDERR=lines`). */
const stderrByLine = process.env.BENCH_STDERR === "lines"

/** How much of the child's stderr `Peer.stderr` returns, in characters. */
const stderrKeep = 4000

/** Resident set size of a process, in KiB, from /proc/<pid>/status. */
export const procRssKiB = (label: string, pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  if (match === null) throw new Error(`${label}: no VmRSS in /proc/${pid}/status`)
  return Number(match[1])
}

/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (USER_HZ = 100). */
export const procCpuMs = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export class Peer {
  readonly child: ChildProcess
  /** performance.now() just before spawn. */
  readonly spawnedAt: number
  private readonly pending = new Map<number, Callback>()
  private nextId = 1
  private tail = ""
  private outgoing: Array<string> = []
  private inHandler = false
  private stderrChunks: Array<Buffer> = []
  private stderrKept = 0
  /** Bytes the child has written to stderr so far. */
  stderrBytes = 0
  /** Lines read from the child's stderr so far (with `BENCH_STDERR=lines` only). */
  stderrLines = 0
  private readonly stderrDecoder = new StringDecoder("utf8")
  private stderrPartial = ""
  private readonly exited: Promise<number | null>
  /** Set when the child exits with requests pending. */
  failure: Error | undefined
  readonly label: string

  constructor(label: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) {
    this.label = label
    this.spawnedAt = performance.now()
    this.child = spawn(process.execPath, args, {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env }
    })
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)))
    this.child.stdout!.setEncoding("utf8")
    this.child.stdout!.on("data", (chunk: string) => this.onData(chunk))
    this.child.stderr!.on("data", (chunk: Buffer) => this.onStderr(chunk))
    this.child.stdin!.on("error", () => {}) // EPIPE when the child dies; reported via pending requests
    this.child.once("exit", (code, signal) => {
      if (this.pending.size === 0) return
      const message = `${this.label} exited (code ${code}, signal ${signal}) with ${this.pending.size} pending requests`
      this.failure = new Error(message)
      const pending = [...this.pending]
      this.pending.clear()
      for (const [id, callback] of pending) callback({ id, error: { code: -1, message } })
    })
  }

  /** The last `stderrKeep` bytes (at least) the child wrote to stderr. */
  get stderr(): string {
    return Buffer.concat(this.stderrChunks).toString("utf8").slice(-stderrKeep)
  }

  // Called for every chunk under load: no decoding, no copying.
  private onStderr(chunk: Buffer): void {
    this.stderrBytes += chunk.length
    if (stderrByLine) {
      const lines = (this.stderrPartial + this.stderrDecoder.write(chunk)).split("\n")
      this.stderrPartial = lines.pop()!
      this.stderrLines += lines.length
    }
    this.stderrChunks.push(chunk)
    this.stderrKept += chunk.length
    while (this.stderrChunks.length > 1 && this.stderrKept - this.stderrChunks[0]!.length >= stderrKeep) {
      this.stderrKept -= this.stderrChunks.shift()!.length
    }
  }

  private onData(chunk: string): void {
    this.inHandler = true
    let start = 0
    let text = this.tail + chunk
    let nl = text.indexOf("\n", start)
    while (nl !== -1) {
      const line = text.slice(start, nl)
      start = nl + 1
      if (line.length > 0) this.onLine(line)
      nl = text.indexOf("\n", start)
    }
    this.tail = text.slice(start)
    this.inHandler = false
    this.flush()
  }

  private onLine(line: string): void {
    let message: any
    try {
      message = JSON.parse(line)
    } catch {
      throw new Error(`${this.label} wrote a line that is not JSON: ${line.slice(0, 200)}`)
    }
    if (typeof message.id !== "number" || !("result" in message || "error" in message)) return // notification
    const callback = this.pending.get(message.id)
    if (callback === undefined) throw new Error(`${this.label}: response to unknown id ${message.id}`)
    this.pending.delete(message.id)
    callback(message)
  }

  private flush(): void {
    if (this.outgoing.length === 0) return
    const text = this.outgoing.join("")
    this.outgoing = []
    this.child.stdin!.write(text)
  }

  /** Runs `fn`; the requests it sends leave in one write. */
  batch(fn: () => void): void {
    const nested = this.inHandler
    this.inHandler = true
    try {
      fn()
    } finally {
      this.inHandler = nested
      if (!nested) this.flush()
    }
  }

  /** Sends a request; the callback gets the response. */
  send(method: string, params: unknown, callback: Callback): void {
    const id = this.nextId++
    this.pending.set(id, callback)
    this.outgoing.push(
      `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`
    )
    if (!this.inHandler) this.flush()
  }

  notify(method: string, params?: unknown): void {
    this.outgoing.push(
      params === undefined
        ? `{"jsonrpc":"2.0","method":${JSON.stringify(method)}}\n`
        : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`
    )
    if (!this.inHandler) this.flush()
  }

  request(method: string, params: unknown, timeoutMs = 30_000): Promise<Response> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.label}: ${method} timed out after ${timeoutMs} ms\n${this.stderr}`)),
        timeoutMs
      )
      this.send(method, params, (response) => {
        clearTimeout(timer)
        resolve(response)
      })
    })
  }

  /** Sends `initialize` and waits for its response; returns spawn→response in ms. */
  async initialize(): Promise<number> {
    const response = await this.request("initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "bench", version: "0.1.0" }
    })
    const elapsed = performance.now() - this.spawnedAt
    if (response.result?.protocolVersion !== protocolVersion) {
      throw new Error(`${this.label}: bad initialize response ${JSON.stringify(response)}\n${this.stderr}`)
    }
    this.notify("notifications/initialized")
    return elapsed
  }

  /** Resident set size of the child, in KiB, from /proc/<pid>/status. */
  rssKiB(): number {
    return procRssKiB(this.label, this.child.pid!)
  }

  /** CPU time (user + system) the child has used, in ms, from /proc/<pid>/stat (USER_HZ = 100). */
  cpuMs(): number {
    return procCpuMs(this.child.pid!)
  }

  /** Closes stdin and waits for the child to exit (SIGKILL after `graceMs`). */
  async close(graceMs = 3000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    this.child.stdin!.end()
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs)
    await this.exited
    clearTimeout(timer)
  }
}
