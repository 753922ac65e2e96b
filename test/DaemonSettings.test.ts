/**
 * How the daemon resolves a session's settings: from the session's flags,
 * working directory and environment, exactly as its own process would; the
 * key of a warm server; the daemon's directory; the wire protocol's lines.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { loadSettings, noServeFlags } from "../src/cli/compose.ts"
import { daemonPaths, fingerprint, resolveSession, wireFlags } from "../src/cli/daemon.ts"
import * as Protocol from "../src/internal/daemonProtocol.ts"

const hello = (cwd: string, env: Record<string, string> = {}) =>
  ({
    mcpRuntimeDaemon: 1,
    type: "session",
    version: "0.0.0",
    build: "0000000000000000",
    cwd,
    root: cwd,
    flags: wireFlags({ ...noServeFlags, root: Option.none(), config: Option.none() }) as Record<
      string,
      string | number | null
    >,
    env
  }) satisfies Protocol.SessionHello as Protocol.SessionHello & { flags: Record<string, string | number | null> }

const withFlags = (base: ReturnType<typeof hello>, flags: Record<string, string | number | null>) => ({
  ...base,
  flags: { ...base.flags, ...flags }
})

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "daemon-settings-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("daemon: a session's settings", () => {
  it.effect("are resolved from the session's working directory, flags and environment", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      mkdirSync(join(dir, "project"))
      mkdirSync(join(dir, "conf"))
      writeFileSync(
        join(dir, "conf", "a.json"),
        JSON.stringify({ capabilities: ["system"], limits: { timeoutMs: 1234 } })
      )
      const session = withFlags(hello(dir), {
        root: "project",
        config: "conf/a.json",
        auditLog: "logs/audit.jsonl"
      })
      const settings = yield* resolveSession({ ...session, env: { MCP_RUNTIME_MAX_CONCURRENT: "3" } })
      assert.strictEqual(settings.root, join(dir, "project"), "--root relative to the session's directory")
      assert.strictEqual(settings.configFile, join(dir, "conf", "a.json"))
      assert.deepStrictEqual(settings.capabilities, ["system"])
      assert.strictEqual(settings.policy.timeout, 1234)
      assert.strictEqual(settings.policy.maxConcurrent, 3, "the session's MCP_RUNTIME_* variables")
      assert.strictEqual(settings.audit?.path, join(dir, "logs", "audit.jsonl"))
      // MCP_RUNTIME_CONFIG and MCP_RUNTIME_AUDIT_LOG relative to the session's directory too.
      const byEnv = yield* resolveSession({
        ...withFlags(hello(dir), { root: "project" }),
        env: { MCP_RUNTIME_CONFIG: "conf/a.json", MCP_RUNTIME_AUDIT_LOG: "x.jsonl" }
      })
      assert.strictEqual(byEnv.configFile, join(dir, "conf", "a.json"))
      assert.strictEqual(byEnv.audit?.path, join(dir, "x.jsonl"))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.effect("are what the session's own process resolves: the same warm-server key", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      writeFileSync(join(dir, "mcp-runtime.json"), JSON.stringify({ capabilities: ["system", "workspace"] }))
      const inProcess = yield* loadSettings({ root: Option.some(dir), config: Option.none(), flags: noServeFlags })
      const inDaemon = yield* resolveSession({
        ...hello(dir),
        env: Object.fromEntries(
          Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)
        )
      })
      assert.strictEqual(fingerprint(inDaemon), fingerprint(inProcess))
      const other = yield* resolveSession({ ...hello(dir), env: { MCP_RUNTIME_CAPABILITIES: "system" } })
      assert.notStrictEqual(fingerprint(other), fingerprint(inProcess))
      assert.match(fingerprint(other), /^[0-9a-f]{16}$/)
      // The log level and the daemon's own settings do not make another server.
      assert.strictEqual(
        fingerprint({ ...other, logLevel: "Debug", daemon: { mode: "auto", idleMs: 1 } }),
        fingerprint(other)
      )
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )

  it.effect("that do not resolve fail as they would in process", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const missing = yield* Effect.flip(resolveSession(withFlags(hello(dir), { root: "nope" })))
      assert.include(missing.message, "not a directory")
      const bad = yield* Effect.flip(resolveSession({ ...hello(dir), env: { MCP_RUNTIME_TIMEOUT_MS: "soon" } }))
      assert.include(bad.message, "MCP_RUNTIME_TIMEOUT_MS=soon")
      const unknown = yield* Effect.flip(resolveSession(withFlags(hello(dir), { bogus: 1 })))
      assert.include(unknown.message, "the session's flags")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

describe("daemon: its directory and wire protocol", () => {
  it("lives in MCP_RUNTIME_DAEMON_DIR, else under the state directory", () => {
    assert.strictEqual(daemonPaths({ MCP_RUNTIME_DAEMON_DIR: "/tmp/d" }).socket, "/tmp/d/daemon.sock")
    assert.deepStrictEqual(daemonPaths({ XDG_STATE_HOME: "/var/state" }), {
      dir: "/var/state/mcp-runtime/daemon",
      socket: "/var/state/mcp-runtime/daemon/daemon.sock",
      pid: "/var/state/mcp-runtime/daemon/daemon.pid",
      log: "/var/state/mcp-runtime/daemon/daemon.log"
    })
    assert.strictEqual(daemonPaths({ HOME: "/home/ada" }).dir, "/home/ada/.local/state/mcp-runtime/daemon")
  })

  it("refuses a socket path too long to bind, naming the variable", () => {
    assert.isUndefined(Protocol.socketPathProblem(Protocol.pathsIn("/tmp/d"), "MCP_RUNTIME_DAEMON_DIR"))
    const problem = Protocol.socketPathProblem(Protocol.pathsIn(`/tmp/${"x".repeat(120)}`), "MCP_RUNTIME_DAEMON_DIR")
    assert.include(problem, "Unix socket paths are limited")
    assert.include(problem, "MCP_RUNTIME_DAEMON_DIR")
  })

  it.effect("decodes control lines and answers, and refuses others", () =>
    Effect.gen(function* () {
      const stop = yield* Protocol.decodeHello(Protocol.line({ mcpRuntimeDaemon: 1, type: "stop" }).trimEnd())
      assert.strictEqual(stop.type, "stop")
      const wrongVersion = yield* Effect.flip(Protocol.decodeHello('{"mcpRuntimeDaemon":2,"type":"stop"}'))
      assert.strictEqual(wrongVersion._tag, "SchemaError")
      const refusal = yield* Protocol.decodeAnswer(Protocol.line(Protocol.refusal("busy", "full")).trimEnd())
      assert.deepStrictEqual(refusal, { ok: false, reason: "busy", message: "full" })
      const build = yield* Protocol.buildId
      assert.match(build, /^[0-9a-f]{16}$/)
      assert.strictEqual(yield* Protocol.buildId, build, "computed once")
    })
  )
})
