/**
 * The warm daemon with real processes and a real socket: `daemon
 * start|status|stop`, `serve --daemon auto` driven by the SDK client (a
 * second session reusing the warm server), the fallbacks (a daemon of
 * another version, a daemon killed mid-session, a daemon stopped
 * mid-session, a directory others can enter), a stale socket, a stale pid
 * file naming another process, the idle exit (not while a connection is in
 * its handshake), and settings taken from each session's own environment.
 *
 * Each test has its own daemon directory (MCP_RUNTIME_DAEMON_DIR) and root,
 * and kills the daemon it started, by the pid in its pid file.
 */
import { spawn, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { packageVersion } from "../../src/ServerConfig.ts"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

beforeAll(assertBuilt)

const requestOptions = { timeout: 10_000 }
const made: Array<string> = []

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A daemon directory and a root of the test's own, and the environment that points the binary at them. */
const setup = () => {
  // Short: a Unix socket path must stay under ~107 bytes.
  const dir = mkdtempSync(join(tmpdir(), "mcpd-"))
  const root = mkdtempSync(join(tmpdir(), "mcpd-root-"))
  made.push(dir, root)
  const env: Record<string, string> = {
    MCP_RUNTIME_DAEMON_DIR: dir,
    // A daemon left behind by a failed test goes away on its own.
    MCP_RUNTIME_DAEMON_IDLE_MS: "60000",
    XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? join(tmpdir(), "mcp-runtime-test-state")
  }
  return { dir, root, env, socket: join(dir, "daemon.sock"), pidFile: join(dir, "daemon.pid") }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const readPid = (pidFile: string): number | undefined => {
  if (!existsSync(pidFile)) return undefined
  const pid = Number.parseInt(readFileSync(pidFile, "utf8"), 10)
  return Number.isInteger(pid) ? pid : undefined
}

/** Kills the daemon of a test's directory (by the pid its pid file names), if one runs. */
const killDaemon = (pidFile: string, pid = readPid(pidFile)) => {
  if (pid !== undefined && pid !== process.pid && isAlive(pid)) process.kill(pid, "SIGKILL")
}

const until = async <A>(what: string, check: () => A | undefined, timeoutMs = 10_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = check()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
}

const cli = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const result = spawnSync(process.execPath, [binaryPath, ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

const statusOf = (env: Record<string, string>) => {
  const result = cli(["daemon", "status", "--json"], env)
  return { code: result.code, status: JSON.parse(result.stdout) }
}

/** `serve --daemon auto` (plus `args`) driven by the SDK client. */
const withSession = async <A>(
  options: {
    readonly root: string
    readonly env: Record<string, string>
    readonly args?: ReadonlyArray<string>
    readonly cwd?: string
  },
  body: (client: Client, stderr: () => string) => Promise<A>
): Promise<A> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--daemon", "auto", "--root", options.root, ...(options.args ?? [])],
    env: options.env,
    stderr: "pipe",
    ...(options.cwd === undefined ? {} : { cwd: options.cwd })
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  const client = new Client({ name: "daemon-test", version: "1.0.0" })
  try {
    await client.connect(transport, requestOptions)
    return await body(client, () => stderr.join(""))
  } catch (error) {
    if (error instanceof Error) error.message += `\nserve's stderr:\n${stderr.join("")}`
    throw error
  } finally {
    await client.close()
  }
}

const echo = async (client: Client, text: string) => {
  const result: any = await client.callTool({ name: "system_echo", arguments: { text } }, undefined, requestOptions)
  assert.notStrictEqual(result.isError, true, JSON.stringify(result))
  assert.deepStrictEqual(result.structuredContent, { text })
}

const toolNames = async (client: Client) =>
  (await client.listTools(undefined, requestOptions)).tools.map((tool) => tool.name).sort()

describe("mcp-runtime daemon start | status | stop", () => {
  it("starts a daemon in a private directory, reports it, and stops it", async () => {
    const { dir, env, pidFile, socket } = setup()
    try {
      const notYet = cli(["daemon", "status"], env)
      assert.strictEqual(notYet.code, 1)
      assert.strictEqual(notYet.stdout, "daemon not running\n")

      const started = cli(["daemon", "start", "--idle-ms", "60000"], env)
      assert.strictEqual(started.code, 0, started.stderr)
      const pid = readPid(pidFile)!
      assert.strictEqual(started.stdout, `daemon started (pid ${pid}, socket ${socket})\n`)
      assert.isTrue(isAlive(pid))
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
      assert.isTrue(statSync(socket).isSocket())
      assert.strictEqual(statSync(socket).mode & 0o777, 0o600)
      assert.strictEqual(statSync(pidFile).mode & 0o777, 0o600)

      const { code, status } = statusOf(env)
      assert.strictEqual(code, 0)
      assert.include(status, {
        running: true,
        compatible: true,
        pid,
        version: packageVersion,
        socket,
        idleMs: 60000,
        sessions: 0
      })
      assert.match(status.build, /^[0-9a-f]{16}$/)
      assert.deepStrictEqual(status.warm, [])
      const readable = cli(["daemon", "status"], env)
      assert.include(readable.stdout, `mcp-runtime daemon running (pid ${pid})`)
      assert.include(readable.stdout, "sessions: 0 open")

      // A second start finds it running and says so.
      const again = cli(["daemon", "start"], env)
      assert.strictEqual(again.code, 0)
      assert.include(again.stdout, `(pid ${pid})`)

      const stopped = cli(["daemon", "stop"], env)
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.strictEqual(stopped.stdout, "daemon stopped\n")
      assert.isFalse(isAlive(pid))
      assert.isFalse(existsSync(socket), "the socket is removed")
      assert.isFalse(existsSync(pidFile), "the pid file is removed")
      assert.strictEqual(cli(["daemon", "stop"], env).stdout, "daemon not running\n")
      assert.include(readFileSync(join(dir, "daemon.log"), "utf8"), "mcp-runtime daemon listening")
    } finally {
      killDaemon(pidFile)
    }
  })

  it("recovers from a stale socket file left by a killed daemon", async () => {
    const { env, pidFile, socket } = setup()
    // A process that listens on the socket and is killed leaves the file behind.
    const squatter = spawn(
      process.execPath,
      ["-e", `require("net").createServer().listen(${JSON.stringify(socket)}, () => console.log("up"))`],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    try {
      await new Promise<void>((resolve) => squatter.stdout!.once("data", () => resolve()))
      squatter.kill("SIGKILL")
      await new Promise((resolve) => squatter.once("exit", resolve))
      assert.isTrue(statSync(socket).isSocket(), "the stale socket is there")
      assert.strictEqual(cli(["daemon", "status"], env).code, 1)
      const started = cli(["daemon", "start"], env)
      assert.strictEqual(started.code, 0, started.stderr)
      assert.include(started.stdout, "daemon started")
      assert.strictEqual(statusOf(env).status.pid, readPid(pidFile))
    } finally {
      killDaemon(pidFile)
    }
  })

  it("exits on its own after --idle-ms without a session", async () => {
    const { env, pidFile, socket } = setup()
    try {
      const started = cli(["daemon", "start", "--idle-ms", "500"], env)
      assert.strictEqual(started.code, 0, started.stderr)
      const pid = readPid(pidFile)!
      await until("the idle daemon to exit", () => (isAlive(pid) ? undefined : true), 10_000)
      await until("its socket to go", () => (existsSync(socket) ? undefined : true), 2000)
      assert.strictEqual(cli(["daemon", "status"], env).code, 1)
    } finally {
      killDaemon(pidFile)
    }
  })

  it("does not go idle while a connection is in its handshake", async () => {
    const { env, pidFile, socket } = setup()
    try {
      const started = cli(["daemon", "start", "--idle-ms", "500"], env)
      assert.strictEqual(started.code, 0, started.stderr)
      const pid = readPid(pidFile)!
      // A client that connects and takes its time to say what it wants.
      const client = Net.createConnection({ path: socket })
      let answer = ""
      client.on("data", (chunk) => {
        answer += chunk.toString("utf8")
      })
      await new Promise((resolve) => client.once("connect", resolve))
      await new Promise((resolve) => setTimeout(resolve, 1500))
      assert.isTrue(isAlive(pid), "still running well past its idle time")
      client.write('{"mcpRuntimeDaemon":1,"type":"status"}\n')
      const line = await until("the status", () => (answer.includes("\n") ? answer : undefined))
      assert.include(JSON.parse(line), { ok: true, pid })
      client.destroy()
      // Once it is closed, the idle time has long passed: the daemon goes at once.
      await until("the idle daemon to exit", () => (isAlive(pid) ? undefined : true), 5000)
    } finally {
      killDaemon(pidFile)
    }
  })

  it("does not signal the process a stale pid file names", async () => {
    const { env, pidFile } = setup()
    const unrelated = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" })
    try {
      writeFileSync(pidFile, `${unrelated.pid}\n`)
      const stopped = cli(["daemon", "stop"], env)
      assert.strictEqual(stopped.code, 0, stopped.stderr)
      assert.strictEqual(stopped.stdout, "daemon not running\n")
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.strictEqual(unrelated.exitCode, null)
      assert.isNull(unrelated.signalCode, "not signalled")
    } finally {
      unrelated.kill("SIGKILL")
    }
  })
})

describe("serve --daemon auto", () => {
  it("starts the daemon, serves the session through it, and a second session reuses the warm server", async () => {
    const { env, pidFile, root } = setup()
    try {
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client, stderr) => {
        assert.deepStrictEqual(await toolNames(client), ["system_echo", "system_info", "system_time"])
        await echo(client, "first")
        const pid = readPid(pidFile)!
        // stderr is written apart from stdout (by the log writer's thread): wait for the line.
        await until("the forwarding line", () =>
          stderr().includes(`forwarding the session to the daemon (pid ${pid})`) ? true : undefined
        )
      })
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client) => {
        await echo(client, "second")
        const { status } = statusOf(env)
        assert.strictEqual(status.totalSessions, 2)
        assert.strictEqual(status.warm.length, 1, "one warm server for one root and settings")
        assert.strictEqual(status.warm[0].root, root)
        assert.strictEqual(status.warm[0].totalSessions, 2)
        assert.strictEqual(status.warm[0].sessions, 1)
      })
    } finally {
      killDaemon(pidFile)
    }
  })

  it("keeps each session's settings from its own environment and directory: two warm servers, two tool sets", async () => {
    const { env, pidFile, root } = setup()
    mkdirSync(join(root, "conf"))
    writeFileSync(join(root, "conf", "system.json"), JSON.stringify({ capabilities: ["system"] }))
    try {
      // A configuration file named relative to the session's directory (which the daemon it starts is not in).
      const system = await withSession(
        { root: ".", cwd: root, env: { ...env, MCP_RUNTIME_CONFIG: "conf/system.json" } },
        (client) => toolNames(client)
      )
      const withWorkspace = await withSession(
        { root, env: { ...env, MCP_RUNTIME_CAPABILITIES: "system,workspace" } },
        (client) => toolNames(client)
      )
      assert.deepStrictEqual(system, ["system_echo", "system_info", "system_time"])
      assert.includeMembers(withWorkspace, ["system_echo", "workspace_read"])
      const { status } = statusOf(env)
      assert.strictEqual(status.totalSessions, 2, "both went through the daemon")
      assert.deepStrictEqual(status.warm.map((warm: any) => warm.capabilities.join(",")).sort(), [
        "system",
        "system,workspace"
      ])
    } finally {
      killDaemon(pidFile)
    }
  })

  it("falls back to serving in process when the daemon is another version", async () => {
    const { env, pidFile, root, socket } = setup()
    const hellos: Array<any> = []
    // A fake daemon of another version: it reads the handshake and refuses it.
    const fake = Net.createServer((connection) => {
      let text = ""
      connection.on("data", (chunk) => {
        text += chunk.toString("utf8")
        if (!text.includes("\n")) return
        hellos.push(JSON.parse(text.slice(0, text.indexOf("\n"))))
        connection.end(
          `${JSON.stringify({ ok: false, reason: "version_mismatch", message: "the daemon runs mcp-runtime 0.0.1 (build 0000000000000000)" })}\n`
        )
      })
    })
    await new Promise<void>((resolve) => fake.listen(socket, resolve))
    try {
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client, stderr) => {
        await echo(client, "in process")
        await until("the fallback line", () =>
          stderr().includes("Serving it in this process instead") ? true : undefined
        )
        assert.include(stderr(), "version_mismatch")
        assert.include(stderr(), "mcp-runtime daemon stop")
        assert.include(stderr(), "Serving it in this process instead")
      })
      assert.strictEqual(hellos.length, 1)
      assert.include(hellos[0], { mcpRuntimeDaemon: 1, type: "session", version: packageVersion, root })
      assert.strictEqual(hellos[0].flags.capabilities, "system")
      assert.strictEqual(hellos[0].flags.root, root)
      assert.strictEqual(hellos[0].env.MCP_RUNTIME_DAEMON_DIR, env.MCP_RUNTIME_DAEMON_DIR)
      assert.isUndefined(hellos[0].env.PATH, "only what settings resolution reads is sent")
    } finally {
      await new Promise((resolve) => fake.close(resolve))
      killDaemon(pidFile)
    }
  })

  it("carries on in process when the daemon is killed mid-session", async () => {
    const { env, pidFile, root } = setup()
    try {
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client, stderr) => {
        await echo(client, "before")
        const pid = readPid(pidFile)!
        process.kill(pid, "SIGKILL")
        await until("serve to notice the daemon is gone", () =>
          stderr().includes("lost the connection to the daemon") ? true : undefined
        )
        await echo(client, "after")
        assert.deepStrictEqual(await toolNames(client), ["system_echo", "system_info", "system_time"])
      })
    } finally {
      killDaemon(pidFile)
    }
  })

  it("carries the session on in process when the daemon is stopped mid-session, without an error", async () => {
    const { env, pidFile, root } = setup()
    try {
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client, stderr) => {
        await echo(client, "before")
        const stopped = cli(["daemon", "stop"], env)
        assert.strictEqual(stopped.code, 0, stopped.stderr)
        await until("serve to hear the daemon is draining", () =>
          stderr().includes("is shutting down: it answers the requests it has read") ? true : undefined
        )
        await echo(client, "after")
        assert.deepStrictEqual(await toolNames(client), ["system_echo", "system_info", "system_time"])
        assert.notInclude(stderr(), "lost the connection to the daemon")
      })
    } finally {
      killDaemon(pidFile)
    }
  })

  it("serves in process, sending nothing, when the daemon's directory is open to others", async () => {
    const { dir, env, pidFile, root, socket } = setup()
    chmodSync(dir, 0o755)
    let connections = 0
    // Someone else's listener in a directory they could have made.
    const squatter = Net.createServer((connection) => {
      connections++
      connection.destroy()
    })
    await new Promise<void>((resolve) => squatter.listen(socket, resolve))
    try {
      await withSession({ root, env, args: ["--capabilities", "system"] }, async (client, stderr) => {
        await echo(client, "in process")
        await until("the fallback line", () =>
          stderr().includes("Serving it in this process instead") ? true : undefined
        )
        assert.include(stderr(), "the daemon cannot serve this session (directory)")
        assert.include(stderr(), "mode 0755")
        assert.include(stderr(), "Serving it in this process instead")
      })
      assert.strictEqual(connections, 0, "the session's hello went nowhere")
      assert.strictEqual(statSync(dir).mode & 0o777, 0o755, "the directory is not repaired")
      assert.isFalse(existsSync(pidFile), "no daemon was started there")
      const status = cli(["daemon", "status"], env)
      assert.strictEqual(status.code, 1)
      assert.include(status.stderr, "not safe to use")
    } finally {
      await new Promise((resolve) => squatter.close(resolve))
      killDaemon(pidFile)
    }
  })

  it("is a usage error with --transport http", () => {
    const { env, root } = setup()
    const result = cli(["serve", "--daemon", "auto", "--transport", "http", "--root", root], env)
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "--daemon auto applies to --transport stdio only")
  })
})
