import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { defaultCodeSettings } from "../capabilities/code/settings.ts"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ExecSettingsSchema } from "../capabilities/exec/settings.ts"
import { defaultFeSettings } from "../capabilities/fe/settings.ts"
import * as ConfigFile from "../src/cli/ConfigFile.ts"
import * as Settings from "../src/cli/settings.ts"

const noFlags: Settings.Flags = {
  capabilities: Option.none(),
  maxMessageBytes: Option.none(),
  shutdownGraceMs: Option.none(),
  timeoutMs: Option.none(),
  maxConcurrent: Option.none(),
  maxQueued: Option.none(),
  queueTimeoutMs: Option.none(),
  onOverload: Option.none(),
  maxResultBytes: Option.none(),
  transport: Option.none(),
  port: Option.none(),
  host: Option.none(),
  allowedHosts: Option.none(),
  allowedOrigins: Option.none(),
  sessionIdleMs: Option.none(),
  resumeGraceMs: Option.none(),
  auditLog: Option.none(),
  front: Option.none(),
  daemon: Option.none()
}

const problemsOf = (text: string) =>
  ConfigFile.parse("cfg.json", text).pipe(
    Effect.flip,
    Effect.map((error) => error.problems)
  )

describe("ConfigFile.parse", () => {
  it.effect("decodes a full file", () =>
    Effect.gen(function* () {
      const config = yield* ConfigFile.parse(
        "cfg.json",
        JSON.stringify({
          capabilities: ["system", "exec"],
          limits: { timeoutMs: 1000, tools: { exec_run: { timeoutMs: 0, maxConcurrent: 2 } } },
          gate: { default: "deny", rules: [{ effect: "allow", names: ["system_*"], methods: ["tools/call"] }] },
          audit: { path: "audit.jsonl", arguments: "redacted", redact: ["token"] },
          confirmation: { preApproved: ["workspace_write"] },
          logging: { level: "debug" }
        })
      )
      assert.deepStrictEqual(config.capabilities, ["system", "exec"])
      assert.strictEqual(config.gate?.rules?.[0]?.names[0], "system_*")
    })
  )

  it.effect("reports every problem with its JSON path, including unknown keys", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(
        JSON.stringify({
          gate: { rules: [{ effect: "alow", names: ["x"] }] },
          limits: { timeoutMs: -1, tools: { "exec-run": { maxConcurrent: "2" } } },
          audit: { path: "" },
          tyop: 1
        })
      )
      const paths = problems.map((p) => p.path)
      assert.includeMembers(paths, [
        "$.gate.rules[0].effect",
        "$.limits.timeoutMs",
        '$.limits.tools["exec-run"].maxConcurrent',
        "$.audit.path",
        "$.tyop"
      ])
      for (const problem of problems) assert.isAbove(problem.message.length, 0)
    })
  )

  it.effect("the fe section decodes to whole settings, and refuses a relative node and unknown keys", () =>
    Effect.gen(function* () {
      const config = yield* ConfigFile.parse("cfg.json", JSON.stringify({ fe: { defaultStepTimeoutMs: 60000 } }))
      assert.deepStrictEqual(config.fe, { ...defaultFeSettings, defaultStepTimeoutMs: 60000 })
      const problems = yield* problemsOf(JSON.stringify({ fe: { node: "node", stepTimeout: 1 } }))
      assert.deepStrictEqual(problems.map((p) => p.path).sort(), ["$.fe.node", "$.fe.stepTimeout"])
    })
  )

  it.effect("not JSON is one problem at $", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf("{ capabilities: [")
      assert.strictEqual(problems.length, 1)
      assert.strictEqual(problems[0]!.path, "$")
      assert.include(problems[0]!.message, "not valid JSON")
    })
  )
})

describe("ConfigFile.load", () => {
  it.effect("reads mcp-runtime.json from the root, and nothing when there is none", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "cfg-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const none = yield* ConfigFile.load({ root, file: undefined })
      assert.deepStrictEqual(none, { file: undefined, config: {}, fromRoot: false })
      writeFileSync(join(root, "mcp-runtime.json"), '{ "capabilities": ["system"] }')
      const found = yield* ConfigFile.load({ root, file: undefined })
      assert.strictEqual(found.file, join(root, "mcp-runtime.json"))
      assert.deepStrictEqual(found.config.capabilities, ["system"])
      assert.isTrue(found.fromRoot)
      // An explicit file must exist.
      const missing = yield* Effect.flip(ConfigFile.load({ root, file: join(root, "other.json") }))
      assert.include(missing.message, "cannot be read")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

describe("settings.resolve", () => {
  it.effect("flags win over the file, the file over the defaults", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        config: {
          capabilities: ["system"],
          limits: { timeoutMs: 1000, maxConcurrent: 0, tools: { exec_run: { timeoutMs: 0 } } },
          audit: { path: "logs/audit.jsonl" },
          logging: { level: "warning" }
        },
        flags: { ...noFlags, timeoutMs: Option.some(5000) },
        env: {}
      })
      assert.deepStrictEqual(settings.capabilities, ["system"])
      assert.strictEqual(settings.policy.timeout, 5000)
      assert.strictEqual(settings.policy.maxConcurrent, Infinity)
      assert.deepStrictEqual(settings.policy.tools, { exec_run: { timeout: Infinity } })
      assert.strictEqual(settings.audit?.path, "/srv/p/logs/audit.jsonl")
      assert.strictEqual(settings.logLevel, "Warn")
      assert.strictEqual(settings.gate, undefined)
    })
  )

  it.effect("the audit log defaults to the state directory, outside the root, and can be switched off", () =>
    Effect.gen(function* () {
      const on = yield* Settings.resolve({
        root: "/srv/p",
        configFile: undefined,
        config: {},
        flags: noFlags,
        env: { XDG_STATE_HOME: "/state" }
      })
      assert.match(on.audit!.path, /^\/state\/mcp-runtime\/audit\/p-[0-9a-f]{12}\.jsonl$/)
      const off = yield* Settings.resolve({
        root: "/srv/p",
        configFile: undefined,
        config: {},
        flags: { ...noFlags, auditLog: Option.some("off") },
        env: {}
      })
      assert.strictEqual(off.audit, undefined)
    })
  )

  it.effect("an unknown capability in the file names the file and the key", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Settings.resolve({
          root: "/srv/p",
          configFile: "/srv/p/mcp-runtime.json",
          config: { capabilities: ["nope"] },
          flags: noFlags,
          env: {}
        })
      )
      assert.include(error.message, "/srv/p/mcp-runtime.json: $.capabilities")
      assert.include(error.message, "nope")
    })
  )
})

describe("settings.resolve: the audit file inside the root", () => {
  it.effect("is denied to the workspace tools, with its rotated copies", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        config: { audit: { path: "logs/audit.jsonl" } },
        flags: noFlags,
        env: {}
      })
      assert.include(settings.workspace.deny ?? [], "logs/audit.jsonl*")
      const outside = yield* Settings.resolve({
        root: "/srv/p",
        configFile: undefined,
        config: { audit: { path: "../audit.jsonl" } },
        flags: noFlags,
        env: {}
      })
      assert.notInclude(outside.workspace.deny?.join(" ") ?? "", "audit")
    })
  )
})

describe("settings.resolve: the code store", () => {
  it.effect(
    "defaults to a directory per root under the state directory; inside the root it is denied; the root itself is refused",
    () =>
      Effect.gen(function* () {
        const resolve = (config: Parameters<typeof Settings.resolve>[0]["config"], env = {}) =>
          Settings.resolve({ root: "/srv/p", configFile: undefined, config, flags: noFlags, env })
        const defaulted = yield* resolve({}, { XDG_STATE_HOME: "/state" })
        assert.match(defaulted.code.storePath, /^\/state\/mcp-runtime\/code\/p-[0-9a-f]{12}$/)
        assert.isUndefined(defaulted.code.settings)
        const inside = yield* resolve({ code: { ...defaultCodeSettings, storePath: ".learned", maxCalls: 10 } })
        assert.strictEqual(inside.code.storePath, "/srv/p/.learned")
        assert.include(inside.workspace.deny ?? [], ".learned/")
        assert.strictEqual(inside.code.settings?.maxCalls, 10)
        assert.notProperty(inside.code.settings ?? {}, "storePath")
        const root = yield* Effect.flip(resolve({ code: { ...defaultCodeSettings, storePath: "." } }))
        assert.include(root.message, "$.code.storePath")
      })
  )
})

describe("settings.resolve: environment variables", () => {
  it.effect("override the file, and a flag overrides them", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.resolve({
        root: "/srv/p",
        configFile: undefined,
        config: { capabilities: ["system"], limits: { timeoutMs: 1000, maxConcurrent: 4 }, logging: { level: "info" } },
        flags: { ...noFlags, maxConcurrent: Option.some(8) },
        env: {
          MCP_RUNTIME_CAPABILITIES: "system,exec",
          MCP_RUNTIME_TIMEOUT_MS: "0",
          MCP_RUNTIME_MAX_CONCURRENT: "2",
          MCP_RUNTIME_AUDIT_LOG: "off",
          MCP_RUNTIME_LOG_LEVEL: "debug",
          MCP_RUNTIME_ON_OVERLOAD: ""
        }
      })
      assert.deepStrictEqual(settings.capabilities, ["system", "exec"])
      assert.strictEqual(settings.policy.timeout, Infinity)
      assert.strictEqual(settings.policy.maxConcurrent, 8)
      assert.strictEqual(settings.policy.onOverload, undefined)
      assert.strictEqual(settings.audit, undefined)
      assert.strictEqual(settings.logLevel, "Debug")
    })
  )

  it.effect("bad values name the variable", () =>
    Effect.gen(function* () {
      const resolveWith = (env: Record<string, string>) =>
        Effect.flip(Settings.resolve({ root: "/srv/p", configFile: undefined, config: {}, flags: noFlags, env }))
      assert.include((yield* resolveWith({ MCP_RUNTIME_TIMEOUT_MS: "5s" })).message, "MCP_RUNTIME_TIMEOUT_MS=5s")
      assert.include((yield* resolveWith({ MCP_RUNTIME_PORT: "3000" })).message, "MCP_RUNTIME_PORT applies to")
      assert.include((yield* resolveWith({ MCP_RUNTIME_TRANSPORT: "tcp" })).message, "expected stdio or http")
      assert.include((yield* resolveWith({ MCP_RUNTIME_LOG_LEVEL: "loud" })).message, "MCP_RUNTIME_LOG_LEVEL=loud")
      assert.include((yield* resolveWith({ MCP_RUNTIME_MAX_MESSAGE_BYTES: "10" })).message, "at least 1024")
    })
  )

  it.effect("MCP_RUNTIME_CONFIG names the file when --config is not given", () =>
    Effect.gen(function* () {
      const root = mkdtempSync(join(tmpdir(), "cfg-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      writeFileSync(join(root, "other.json"), '{ "capabilities": ["exec"] }')
      const found = yield* ConfigFile.load({
        root,
        file: undefined,
        env: { MCP_RUNTIME_CONFIG: join(root, "other.json") }
      })
      assert.deepStrictEqual(found.config.capabilities, ["exec"])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))
  )
})

describe("settings.resolve: request-state keys and list caching (2026-07-28)", () => {
  const long = (tag: string) => `${tag}: a secret of thirty-two characters or more`
  const resolveWith = (config: ConfigFile.Config, env: Record<string, string> = {}) =>
    Settings.resolve({ root: "/srv/p", configFile: undefined, config, flags: noFlags, env })

  it.effect("no keys anywhere: one random key per process (nothing to set)", () =>
    Effect.map(resolveWith({}), (settings) => assert.strictEqual(settings.requestState, undefined))
  )

  it.effect("the file's keys and maxAgeMs, listTtlMs; MCP_RUNTIME_STATE_KEY (comma-separated) wins over the keys", () =>
    Effect.gen(function* () {
      const fromFile = yield* resolveWith({
        requestState: { keys: [long("new"), long("old")], maxAgeMs: 60_000 },
        server: { listTtlMs: 0 }
      })
      assert.deepStrictEqual(fromFile.requestState, { keys: [long("new"), long("old")], maxAgeMs: 60_000 })
      assert.strictEqual(fromFile.server.listTtlMs, 0)
      const fromEnv = yield* resolveWith(
        { requestState: { keys: [long("file")], maxAgeMs: 60_000 } },
        { MCP_RUNTIME_STATE_KEY: `${long("a")}, ${long("b")}` }
      )
      assert.deepStrictEqual(fromEnv.requestState, { keys: [long("a"), long("b")], maxAgeMs: 60_000 })
    })
  )

  it.effect("a short secret is refused, in the file (by JSON path) and in the variable", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(JSON.stringify({ requestState: { keys: [long("ok"), "short"] } }))
      assert.deepStrictEqual(
        problems.map((p) => p.path),
        ["$.requestState.keys[1]"]
      )
      assert.deepStrictEqual(
        (yield* problemsOf(JSON.stringify({ requestState: { keys: [] } }))).map((p) => p.path),
        ["$.requestState.keys"]
      )
      const error = yield* Effect.flip(resolveWith({}, { MCP_RUNTIME_STATE_KEY: `${long("a")},short` }))
      assert.include(error.message, "MCP_RUNTIME_STATE_KEY: secret 2 of 2 is 5 characters long")
    })
  )

  it.effect("skills and conformance together are refused: both serve the Skills extension", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(resolveWith({ capabilities: ["system", "skills", "conformance"] }))
      assert.include(error.message, "skills and conformance cannot be enabled together")
    })
  )

  it.effect("keys in a file found in the root are said at start-up", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        configFromRoot: true,
        config: { requestState: { keys: [long("k")] } },
        flags: noFlags,
        env: {}
      })
      assert.isTrue(settings.warnings.some((warning) => warning.includes("seal input-required states")))
    })
  )
})

describe("settings.resolve: safety of the configuration itself", () => {
  it.effect("the configuration files are denied to the workspace tools", () =>
    Effect.gen(function* () {
      const settings = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/conf/mcp.json",
        config: {},
        flags: noFlags,
        env: {}
      })
      assert.includeMembers([...(settings.workspace.deny ?? [])], ["mcp-runtime.json", "conf/mcp.json"])
    })
  )

  it.effect("a file from the workspace that loosens the controls is reported; the same from --config is not", () =>
    Effect.gen(function* () {
      const config = {
        confirmation: { preApproved: ["exec_run"] },
        audit: { enabled: false },
        exec: Schema.decodeUnknownSync(ExecSettingsSchema)({ additionalCommands: ["bash"], inheritEnv: ["AWS_SECRET"] })
      }
      const fromRoot = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        configFromRoot: true,
        config,
        flags: noFlags,
        env: {}
      })
      const text = fromRoot.warnings.join("\n")
      for (const part of ["exec_run", "audit log off", "AWS_SECRET", "bash"]) assert.include(text, part)
      // Another Node for the project's tools is a loosening too (it runs without confirmation).
      const otherNode = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        configFromRoot: true,
        config: { fe: { ...defaultFeSettings, node: "/srv/p/bin/node" } },
        flags: noFlags,
        env: {}
      })
      assert.include(otherNode.warnings.join("\n"), "runs the project's tools (fe_verify) with /srv/p/bin/node")
      const explicit = yield* Settings.resolve({
        root: "/srv/p",
        configFile: "/etc/mcp.json",
        config,
        flags: noFlags,
        env: {}
      })
      assert.deepStrictEqual(explicit.warnings, [])
    })
  )

  it.effect("upstreams in a file found in the root stop the start, unless the operator allows them", () =>
    Effect.gen(function* () {
      const config = {
        upstreams: {
          notes: { command: "node", args: ["notes.js", "--token", "s3cret"], env: { API: "${NOTES_TOKEN}" } },
          docs: {
            url: "https://me:pw@docs.example.com/mcp?key=k3y",
            headers: { Authorization: "Bearer ${DOCS_TOKEN}" }
          }
        }
      }
      const input = {
        root: "/srv/p",
        configFile: "/srv/p/mcp-runtime.json",
        configFromRoot: true,
        config,
        flags: noFlags
      }
      const env = { NOTES_TOKEN: "n", DOCS_TOKEN: "d" }
      const refused = yield* Effect.flip(Settings.resolve({ ...input, env }))
      assert.strictEqual(refused._tag, "UsageError")
      assert.include(
        refused.message,
        "/srv/p/mcp-runtime.json: $.upstreams (notes, docs): this file was found in the root"
      )
      assert.include(refused.message, "${NAME}")
      assert.include(refused.message, "--config")
      assert.include(refused.message, "MCP_RUNTIME_ALLOW_WORKSPACE_UPSTREAMS=1")
      // Allowed by the operator: it starts, and says what the file does (secrets redacted, the variables it sends).
      const allowed = yield* Settings.resolve({ ...input, env: { ...env, MCP_RUNTIME_ALLOW_WORKSPACE_UPSTREAMS: "1" } })
      assert.deepStrictEqual(Object.keys(allowed.upstreams), ["notes", "docs"])
      const warning = allowed.warnings.find((w) => w.includes("connects to upstream MCP servers"))
      assert.strictEqual(
        warning,
        "/srv/p/mcp-runtime.json connects to upstream MCP servers (notes: runs node notes.js --token ***; " +
          "docs: http https://***@docs.example.com/mcp?key=***) and publishes their tools, sending them the " +
          "server's environment variables NOTES_TOKEN, DOCS_TOKEN (${NAME} in their env or headers)"
      )
      // Named by the operator (--config or MCP_RUNTIME_CONFIG): no opt-in, no warning.
      const explicit = yield* Settings.resolve({ ...input, configFile: "/etc/mcp.json", configFromRoot: false, env })
      assert.deepStrictEqual(Object.keys(explicit.upstreams), ["notes", "docs"])
      assert.deepStrictEqual(explicit.warnings, [])
    })
  )

  it.effect("gate rules with principals are refused: no transport of the binary identifies callers", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Settings.resolve({
          root: "/srv/p",
          configFile: "/srv/p/mcp-runtime.json",
          config: { gate: { rules: [{ effect: "deny", names: ["exec_*"], principals: ["guest-*"] }] } },
          flags: noFlags,
          env: {}
        })
      )
      assert.include(error.message, "$.gate.rules[0].principals")
    })
  )
})

describe("settings.resolve: the front and the daemon", () => {
  const resolveWith = (config: ConfigFile.Config, env: Record<string, string>, flags: Partial<Settings.Flags> = {}) =>
    Settings.resolve({
      root: "/srv/p",
      configFile: "/srv/p/mcp-runtime.json",
      config,
      flags: { ...noFlags, ...flags },
      env
    })

  it.effect("defaults: the tools front, the request front's own limits, no daemon (30 minutes idle)", () =>
    Effect.gen(function* () {
      const settings = yield* resolveWith({}, {})
      assert.strictEqual(settings.front, "tools")
      assert.deepStrictEqual(settings.request, { maxOps: 64, maxDepth: 32 })
      assert.deepStrictEqual(settings.daemon, { mode: "off", idleMs: 30 * 60 * 1000 })
    })
  )

  it.effect("the file's keys; a variable wins over them, and a flag over the variable", () =>
    Effect.gen(function* () {
      const config = yield* ConfigFile.parse(
        "cfg.json",
        JSON.stringify({
          front: "request",
          request: { maxOps: 10, maxDepth: 4 },
          daemon: { mode: "auto", idleMs: 5000 }
        })
      )
      const fromFile = yield* resolveWith(config, {})
      assert.strictEqual(fromFile.front, "request")
      assert.deepStrictEqual(fromFile.request, { maxOps: 10, maxDepth: 4 })
      assert.deepStrictEqual(fromFile.daemon, { mode: "auto", idleMs: 5000 })
      const fromEnv = yield* resolveWith(config, {
        MCP_RUNTIME_FRONT: "tools",
        MCP_RUNTIME_DAEMON: "off",
        MCP_RUNTIME_DAEMON_IDLE_MS: "60000"
      })
      assert.strictEqual(fromEnv.front, "tools")
      assert.deepStrictEqual(fromEnv.daemon, { mode: "off", idleMs: 60000 })
      const fromFlags = yield* resolveWith(
        config,
        { MCP_RUNTIME_FRONT: "tools", MCP_RUNTIME_DAEMON: "off" },
        {
          front: Option.some("request"),
          daemon: Option.some("auto")
        }
      )
      assert.strictEqual(fromFlags.front, "request")
      assert.strictEqual(fromFlags.daemon.mode, "auto")
    })
  )

  it.effect("bad values name the key, the variable or the flag", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(
        JSON.stringify({ front: "rpc", request: { maxOps: 0, maxDepth: 1.5 }, daemon: { mode: "on", idleMs: 0 } })
      )
      assert.sameMembers(
        problems.map((p) => p.path),
        ["$.front", "$.request.maxOps", "$.request.maxDepth", "$.daemon.mode", "$.daemon.idleMs"]
      )
      const tooBig = yield* problemsOf(JSON.stringify({ request: { maxOps: 10_001, maxDepth: 257 } }))
      assert.sameMembers(
        tooBig.map((p) => p.path),
        ["$.request.maxOps", "$.request.maxDepth"]
      )
      const bad = (env: Record<string, string>) => Effect.flip(resolveWith({}, env))
      assert.include(
        (yield* bad({ MCP_RUNTIME_FRONT: "rpc" })).message,
        "MCP_RUNTIME_FRONT=rpc: expected tools or request"
      )
      assert.include((yield* bad({ MCP_RUNTIME_DAEMON: "on" })).message, "MCP_RUNTIME_DAEMON=on: expected auto or off")
      assert.include((yield* bad({ MCP_RUNTIME_DAEMON_IDLE_MS: "0" })).message, "MCP_RUNTIME_DAEMON_IDLE_MS=0")
      assert.include((yield* bad({ MCP_RUNTIME_DAEMON_IDLE_MS: "10m" })).message, "MCP_RUNTIME_DAEMON_IDLE_MS=10m")
    })
  )

  it.effect("the daemon serves stdio only: auto with HTTP is a usage error naming where auto came from", () =>
    Effect.gen(function* () {
      const http = { transport: Option.some("http" as const) }
      const flag = yield* Effect.flip(resolveWith({}, {}, { ...http, daemon: Option.some("auto") }))
      assert.include(flag.message, "--daemon auto applies to --transport stdio only")
      const variable = yield* Effect.flip(resolveWith({}, { MCP_RUNTIME_DAEMON: "auto" }, http))
      assert.include(variable.message, "MCP_RUNTIME_DAEMON=auto applies to --transport stdio only")
      const file = yield* Effect.flip(resolveWith({ daemon: { mode: "auto" } }, {}, http))
      assert.include(file.message, '/srv/p/mcp-runtime.json: $.daemon.mode "auto" applies to --transport stdio only')
      // off, explicitly or by default, goes with HTTP.
      assert.strictEqual(
        (yield* resolveWith({ daemon: { mode: "auto" } }, {}, { ...http, daemon: Option.some("off") })).daemon.mode,
        "off"
      )
    })
  )

  it("variablesRead: the MCP_RUNTIME_* variables, the state directory's, and those upstreams name", () => {
    const read = Settings.variablesRead(
      { MCP_RUNTIME_TIMEOUT_MS: "1", HOME: "/home/a", PATH: "/bin", TOKEN: "t", OTHER: "o", XDG_STATE_HOME: "/s" },
      { upstreams: { u: { command: "x", env: { A: "${TOKEN}" } } } }
    )
    assert.deepStrictEqual(read, { MCP_RUNTIME_TIMEOUT_MS: "1", HOME: "/home/a", TOKEN: "t", XDG_STATE_HOME: "/s" })
  })
})
