/**
 * A throwaway PostgreSQL cluster for the tests: Debian's `postgresql`
 * package (installed by `.ci/run` and the README's commands), `initdb` into
 * a temporary directory, `postgres` started on a free loopback port with a
 * socket directory of its own, as an unprivileged user when the tests run
 * as root (PostgreSQL refuses to run as root). Stopped (SIGINT: a fast
 * shutdown) and removed by `stop`. `fsync` is off (a killed server loses
 * nothing the operating system holds); commits stay synchronous, so a
 * SIGKILL (`kill`) loses no acknowledged transaction.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { connectable, freePort } from "./ports.ts"

/** A running cluster. */
export interface Postgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication: no password). */
  readonly url: string
  readonly port: number
  /** Stops the server and removes its files. */
  readonly stop: () => Promise<void>
  /** Stops the server abruptly (SIGKILL), keeping its files: the store "lost" mid-run. Resolves once it is gone. */
  readonly kill: () => Promise<void>
  /** Starts it again on the same port and files, after `kill`. */
  readonly restart: () => Promise<void>
}

/** Where Debian puts the server's binaries: the newest `/usr/lib/postgresql/<version>/bin`, else the PATH. */
export const binDir = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  try {
    const versions = NodeFs.readdirSync(root)
      .filter((name) => NodeFs.existsSync(NodePath.join(root, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0] !== undefined) return NodePath.join(root, versions[0], "bin")
  } catch {
    // Not Debian's layout.
  }
  try {
    return NodePath.dirname(execFileSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).trim())
  } catch {
    return undefined
  }
}

/** Whether PostgreSQL is installed here. */
export const available = (): boolean => binDir() !== undefined

/** Starts a cluster (about half a second). */
export const start = async (): Promise<Postgres> => {
  const bin = binDir()
  if (bin === undefined) {
    throw new Error(
      "PostgreSQL is not installed: `apt-get update && apt-get install -y postgresql` (the README's test command does it)"
    )
  }
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "pg-"))
  const data = NodePath.join(dir, "data")
  // PostgreSQL will not run as root: as root, the cluster belongs to nobody (65534).
  const asRoot = process.getuid?.() === 0
  const ids = asRoot ? { uid: 65534, gid: 65534 } : {}
  if (asRoot) NodeFs.chownSync(dir, 65534, 65534)
  execFileSync(
    NodePath.join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
    { ...ids, stdio: "ignore", cwd: dir }
  )
  const port = await freePort()
  let server: ChildProcess | undefined
  const launch = async () => {
    const child = spawn(
      NodePath.join(bin, "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=200"
      ],
      { ...ids, stdio: ["ignore", "ignore", "pipe"], cwd: dir }
    )
    let log = ""
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString()
    })
    server = child
    // Listening is not ready: a connection made while the server is still starting up (or recovering after a
    // kill) is refused with "the database system is starting up". Its log says when it accepts connections.
    for (let i = 0; i < 600; i++) {
      if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}):\n${log}`)
      if (log.includes("ready to accept connections") && (await connectable(port))) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`postgres did not get ready on ${port}:\n${log}`)
  }
  await launch()
  const exited = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    kill: async () => {
      if (server === undefined) return
      const done = exited(server)
      server.kill("SIGKILL")
      await done
    },
    restart: async () => {
      if (server !== undefined) await exited(server)
      // A killed postmaster leaves its pid file; the next start checks it is stale.
      await launch()
    },
    stop: async () => {
      if (server !== undefined && server.exitCode === null && server.signalCode === null) {
        const done = exited(server)
        server.kill("SIGINT")
        await done
      }
      NodeFs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
