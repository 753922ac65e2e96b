/**
 * The daemon's client side with a real file system, sockets and processes:
 * nothing is sent to a socket before its directory and the socket pass
 * their checks (a link, another user's directory or socket, a directory
 * others can enter or an ancestor others can change are refused, never
 * repaired); the log and the pid file are never followed through a link;
 * the log rotates while the daemon runs; `stop` signals only a process that
 * is verifiably this daemon, and a stale socket is removed only when no
 * live daemon owns it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync
} from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as DaemonClient from "../src/internal/daemonClient.ts"
import * as Protocol from "../src/internal/daemonProtocol.ts"

const made: Array<string> = []
const children: Array<ChildProcess> = []

afterAll(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL")
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const uid = process.getuid?.() ?? -1
const isRoot = uid === 0

/** A private directory of the test's own (0700, under the system's sticky tmp directory). */
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpd-cl-"))
  made.push(dir)
  return dir
}

/** A fake daemon socket at `path`: counts the connections it gets. */
const fakeDaemon = (path: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly connections: () => number }>((resume) => {
      let connections = 0
      const server = Net.createServer((socket) => {
        connections++
        socket.on("error", () => {})
        socket.resume()
        socket.end(`${JSON.stringify({ ok: true, pid: 1, warm: false })}\n`)
      })
      server.listen(path, () => resume(Effect.succeed({ connections: () => connections, server })))
    }),
    (fake) => Effect.callback<void>((resume) => (fake as any).server.close(() => resume(Effect.void)))
  )

const hello: Protocol.SessionHello = {
  mcpRuntimeDaemon: 1,
  type: "session",
  version: "0.0.0",
  build: "0000000000000000",
  cwd: "/",
  root: "/",
  flags: {},
  env: { MCP_RUNTIME_STATE_KEY: "a secret that must not leave" }
}

const options = { idleMs: 60_000, dirVariable: "MCP_RUNTIME_DAEMON_DIR" }

/** A process that just sleeps, with the given arguments after its script (to look like `daemon run`). */
const sleeper = (args: ReadonlyArray<string> = []) => {
  const dir = scratch()
  const script = join(dir, "sleeper.js")
  writeFileSync(script, "setTimeout(() => {}, 60_000)\n")
  const child = spawn(process.execPath, [script, ...args], { stdio: "ignore" })
  children.push(child)
  return { child, pid: child.pid!, script }
}

const alive = (pid: number) => DaemonClient.processState(pid) === "alive"

const until = async (what: string, check: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe("daemon client: the directory", () => {
  it.live("is missing, or private and this user's", () =>
    Effect.gen(function* () {
      const dir = scratch()
      assert.strictEqual(yield* DaemonClient.checkDirectory(join(dir, "nope")), "missing")
      chmodSync(dir, 0o700)
      assert.strictEqual(yield* DaemonClient.checkDirectory(dir), "ok")
    })
  )

  it.live("is refused, not repaired, when others have access to it", () =>
    Effect.gen(function* () {
      const dir = scratch()
      chmodSync(dir, 0o755)
      const error = yield* Effect.flip(DaemonClient.ensureDirectory(dir, "MCP_RUNTIME_DAEMON_DIR"))
      assert.strictEqual(error.reason, "directory")
      assert.include(error.message, "mode 0755")
      assert.include(error.message, `chmod 700 ${dir}`)
      assert.include(error.message, "$XDG_RUNTIME_DIR")
      assert.notInclude(error.message, "=/tmp/")
      assert.strictEqual(statSync(dir).mode & 0o777, 0o755, "its mode is left as it was")
    })
  )

  it.live("is refused when it is a symbolic link, even to a private directory of this user's", () =>
    Effect.gen(function* () {
      const target = scratch()
      const link = join(scratch(), "link")
      symlinkSync(target, link)
      const error = yield* Effect.flip(DaemonClient.checkDirectory(link))
      assert.strictEqual(error.reason, "directory")
      assert.include(error.message, "symbolic link")
    })
  )

  it.live("is refused when an ancestor can be changed by others (not sticky)", () =>
    Effect.gen(function* () {
      const open = join(scratch(), "open")
      mkdirSync(open)
      chmodSync(open, 0o777)
      const dir = join(open, "daemon")
      mkdirSync(dir, { mode: 0o700 })
      const error = yield* Effect.flip(DaemonClient.checkDirectory(dir))
      assert.include(error.message, `${open} can be written by other users (mode 0777, not sticky)`)
      chmodSync(open, 0o1777)
      assert.strictEqual(yield* DaemonClient.checkDirectory(dir), "ok", "sticky, as /tmp is: fine")
    })
  )

  it.live.skipIf(!isRoot)("is refused when it belongs to another user", () =>
    Effect.gen(function* () {
      const dir = scratch()
      chownSync(dir, 4242, 4242)
      const error = yield* Effect.flip(DaemonClient.checkDirectory(dir))
      assert.include(error.message, "belongs to another user (uid 4242")
    })
  )

  it.live("is created with mode 0700 when missing", () =>
    Effect.gen(function* () {
      const dir = join(scratch(), "a", "b")
      yield* DaemonClient.ensureDirectory(dir)
      assert.strictEqual(lstatSync(dir).mode & 0o777, 0o700)
    })
  )
})

describe("daemon client: nothing is sent to a socket that fails its checks", () => {
  it.live("a session, a status request and a stop are refused in a directory others can enter", () =>
    Effect.gen(function* () {
      const dir = scratch()
      chmodSync(dir, 0o755)
      const paths = Protocol.pathsIn(dir)
      const fake = yield* fakeDaemon(paths.socket)
      const outcome = yield* DaemonClient.openSession(paths, hello, options)
      assert.strictEqual(outcome._tag, "Unavailable")
      assert.strictEqual((outcome as { reason: string }).reason, "directory")
      assert.strictEqual((yield* Effect.flip(DaemonClient.status(paths))).reason, "directory")
      assert.strictEqual((yield* Effect.flip(DaemonClient.stop(paths, 1000))).reason, "directory")
      assert.strictEqual((yield* Effect.flip(DaemonClient.start(paths, options))).reason, "directory")
      assert.strictEqual((yield* Effect.flip(DaemonClient.removeStaleSocket(paths))).reason, "directory")
      assert.strictEqual(fake.connections(), 0, "no connection was made")
      assert.strictEqual(statSync(dir).mode & 0o777, 0o755)
    }).pipe(Effect.scoped)
  )

  it.live("the same through a symbolic link to a directory with a listener", () =>
    Effect.gen(function* () {
      const target = scratch()
      const link = join(scratch(), "d")
      symlinkSync(target, link)
      const fake = yield* fakeDaemon(join(target, "daemon.sock"))
      const outcome = yield* DaemonClient.openSession(Protocol.pathsIn(link), hello, options)
      assert.strictEqual((outcome as { reason: string }).reason, "directory")
      assert.strictEqual(fake.connections(), 0)
    }).pipe(Effect.scoped)
  )

  it.live("a private directory with a listener is used (the checks pass)", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const fake = yield* fakeDaemon(paths.socket)
      const outcome = yield* DaemonClient.openSession(paths, hello, options)
      assert.strictEqual(outcome._tag, "Connected")
      if (outcome._tag === "Connected") yield* outcome.connection.destroy
      assert.strictEqual(fake.connections(), 1)
    }).pipe(Effect.scoped)
  )

  it.live.skipIf(!isRoot)("a socket of another user's is refused", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const fake = yield* fakeDaemon(paths.socket)
      chownSync(paths.socket, 4242, 4242)
      const outcome = yield* DaemonClient.openSession(paths, hello, options)
      assert.strictEqual((outcome as { reason: string }).reason, "socket")
      assert.include((outcome as { message: string }).message, "belongs to another user (uid 4242")
      assert.strictEqual(fake.connections(), 0)
    }).pipe(Effect.scoped)
  )

  it.live("a daemon.sock that is not a socket is refused", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      writeFileSync(paths.socket, "")
      const error = yield* Effect.flip(DaemonClient.status(paths))
      assert.strictEqual(error.reason, "socket")
      assert.include(error.message, "is not a socket")
    })
  )
})

describe("daemon client: the log and the pid file", () => {
  it.live("a log that is a symbolic link is refused, and its target left alone", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const target = join(scratch(), "elsewhere")
      writeFileSync(target, "theirs\n")
      symlinkSync(target, paths.log)
      const error = yield* Effect.flip(DaemonClient.openLog(paths))
      assert.strictEqual(error.reason, "log")
      assert.include(error.message, "symbolic link")
      assert.strictEqual(readFileSync(target, "utf8"), "theirs\n")
    })
  )

  it.live("the log is opened for appending, mode 0600, and rotated at the start when too large", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      writeFileSync(paths.log, "x".repeat(100))
      const fd = yield* DaemonClient.openLog(paths, 50)
      writeSync(fd, "new\n")
      assert.strictEqual(readFileSync(`${paths.log}.1`, "utf8"), "x".repeat(100))
      assert.strictEqual(readFileSync(paths.log, "utf8"), "new\n")
      assert.strictEqual(statSync(paths.log).mode & 0o777, 0o600)
    })
  )

  it.live("the log rotates while the daemon writes to it (copied, then truncated; writes go on at its start)", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const fd = yield* DaemonClient.openLog(paths)
      writeSync(fd, "a".repeat(40))
      assert.isFalse(DaemonClient.rotateLog(paths, fd, 50), "not over the limit yet")
      writeSync(fd, "b".repeat(40))
      assert.isTrue(DaemonClient.rotateLog(paths, fd, 50))
      assert.strictEqual(readFileSync(`${paths.log}.1`, "utf8"), "a".repeat(40) + "b".repeat(40))
      writeSync(fd, "after\n")
      assert.strictEqual(readFileSync(paths.log, "utf8"), "after\n")
      // A descriptor that does not write to the log (a service manager's stderr) is left alone.
      const other = Protocol.pathsIn(scratch())
      writeFileSync(other.log, "z".repeat(100))
      assert.isFalse(DaemonClient.rotateLog(other, fd, 1))
    })
  )

  it.live("the pid file is created exclusively and read without following a link", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      yield* DaemonClient.createPidFile(paths, 4242)
      assert.strictEqual(yield* DaemonClient.readPidFile(paths), 4242)
      assert.strictEqual(statSync(paths.pid).mode & 0o777, 0o600)
      assert.strictEqual((yield* Effect.flip(DaemonClient.createPidFile(paths, 1))).reason, "exists")
      rmSync(paths.pid)
      const target = join(scratch(), "pid")
      writeFileSync(target, "1\n")
      symlinkSync(target, paths.pid)
      const read = yield* Effect.flip(DaemonClient.readPidFile(paths))
      assert.strictEqual(read.reason, "pid_file")
      assert.include(read.message, "symbolic link")
      assert.strictEqual((yield* Effect.flip(DaemonClient.createPidFile(paths, 7))).reason, "exists")
      assert.strictEqual(readFileSync(target, "utf8"), "1\n", "the link's target is not written")
    })
  )
})

describe("daemon client: which process is the daemon", () => {
  it.skipIf(process.platform !== "linux")("is told by its command line: this script's `daemon run`", () => {
    const daemon = sleeper(["daemon", "run", "--idle-ms", "1000"])
    const plain = sleeper()
    return until("the processes to start", () => existsSync(`/proc/${daemon.pid}/cmdline`)).then(async () => {
      await until("their command lines", () => readFileSync(`/proc/${daemon.pid}/cmdline`, "utf8").includes("run"))
      assert.strictEqual(DaemonClient.identifyProcess(daemon.pid, daemon.script), "daemon")
      assert.strictEqual(DaemonClient.identifyProcess(daemon.pid, plain.script), "other_daemon")
      await until("the plain one", () => readFileSync(`/proc/${plain.pid}/cmdline`, "utf8").includes("sleeper"))
      assert.strictEqual(DaemonClient.identifyProcess(plain.pid, plain.script), "other")
      assert.strictEqual(DaemonClient.identifyProcess(process.pid), "other")
    })
  })

  it.live.skipIf(process.platform !== "linux")(
    "stop does not signal the unrelated process a stale pid file names: no daemon runs",
    () =>
      Effect.gen(function* () {
        const paths = Protocol.pathsIn(scratch())
        const unrelated = sleeper()
        yield* Effect.promise(() =>
          until("its command line", () => readFileSync(`/proc/${unrelated.pid}/cmdline`, "utf8").includes("sleeper"))
        )
        writeFileSync(paths.pid, `${unrelated.pid}\n`)
        const stopped = yield* DaemonClient.stop(paths, 2000, { script: join(scratch(), "mcp-runtime.js") })
        assert.isUndefined(stopped)
        yield* Effect.sleep(100)
        assert.isTrue(alive(unrelated.pid), "not signalled")
        assert.isFalse(existsSync(paths.pid), "the stale pid file is removed")
      })
  )

  it.live.skipIf(process.platform !== "linux")("stop reports, and does not signal, another installation's daemon", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const foreign = sleeper(["daemon", "run"])
      yield* Effect.promise(() =>
        until("its command line", () => readFileSync(`/proc/${foreign.pid}/cmdline`, "utf8").includes("run"))
      )
      writeFileSync(paths.pid, `${foreign.pid}\n`)
      const error = yield* Effect.flip(DaemonClient.stop(paths, 2000, { script: join(scratch(), "mcp-runtime.js") }))
      assert.strictEqual(error.reason, "stop_failed")
      assert.include(error.message, `kill ${foreign.pid}`)
      yield* Effect.sleep(100)
      assert.isTrue(alive(foreign.pid))
    })
  )

  it.live.skipIf(process.platform !== "linux")("stop signals this daemon when it does not answer", () =>
    Effect.gen(function* () {
      const paths = Protocol.pathsIn(scratch())
      const daemon = sleeper(["daemon", "run"])
      yield* Effect.promise(() =>
        until("its command line", () => readFileSync(`/proc/${daemon.pid}/cmdline`, "utf8").includes("run"))
      )
      writeFileSync(paths.pid, `${daemon.pid}\n`)
      const stopped = yield* DaemonClient.stop(paths, 5000, { script: daemon.script })
      assert.deepStrictEqual(stopped, { pid: daemon.pid, signalled: true })
      assert.isFalse(alive(daemon.pid))
    })
  )

  it.live.skipIf(process.platform !== "linux")(
    "a stale socket is removed only when the pid file names no live daemon",
    () =>
      Effect.gen(function* () {
        const paths = Protocol.pathsIn(scratch())
        // A process that listens on the socket and is killed leaves the file behind.
        const squatter = spawn(
          process.execPath,
          ["-e", `require("net").createServer().listen(${JSON.stringify(paths.socket)}, () => console.log("up"))`],
          { stdio: ["ignore", "pipe", "ignore"] }
        )
        children.push(squatter)
        yield* Effect.promise(() => new Promise<void>((resolve) => squatter.stdout!.once("data", () => resolve())))
        squatter.kill("SIGKILL")
        yield* Effect.promise(() => new Promise((resolve) => squatter.once("exit", resolve)))
        const daemon = sleeper(["daemon", "run"])
        yield* Effect.promise(() =>
          until("its command line", () => readFileSync(`/proc/${daemon.pid}/cmdline`, "utf8").includes("run"))
        )
        writeFileSync(paths.pid, `${daemon.pid}\n`)
        assert.isFalse(yield* DaemonClient.removeStaleSocket(paths, { script: daemon.script }))
        assert.isTrue(lstatSync(paths.socket).isSocket(), "a live daemon's socket is left alone")
        writeFileSync(paths.pid, `${process.pid}0\n`)
        assert.isTrue(yield* DaemonClient.removeStaleSocket(paths, { script: daemon.script }))
        assert.isFalse(existsSync(paths.socket))
      })
  )
})
