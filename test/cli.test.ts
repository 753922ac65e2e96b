/**
 * The `mcp-runtime` commands other than `serve`, run as the built binary:
 * doctor, capabilities list, call (results, errors, exit codes, confirmation,
 * progress, on a pipe and on a terminal), help and version. `surface` has its
 * own file, test/surface.test.ts.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { makeTempDirs, runCli as run } from "./integration/CliProcess.ts"
import { assertBuilt, binaryPath, repoRoot } from "./integration/ServerProcess.ts"

beforeAll(assertBuilt)
const temp = makeTempDirs()
afterAll(temp.removeAll)
const tempRoot = temp.make

describe("mcp-runtime --help and --version", () => {
  it("lists every command, and prints the package version", () => {
    const help = run(["--help"])
    assert.strictEqual(help.code, 0)
    for (const command of ["serve", "doctor", "capabilities", "surface", "call"]) assert.include(help.stdout, command)
    const version = run(["--version"])
    assert.strictEqual(version.code, 0)
    assert.include(version.stdout, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version)
  })
})

describe("mcp-runtime doctor", () => {
  it("on a good root: every section, ✓ marks, client snippets with absolute paths, exit 0", () => {
    const root = tempRoot()
    const result = run(["doctor", "--root", root])
    assert.strictEqual(result.code, 0, result.stdout + result.stderr)
    for (const section of [
      "Runtime",
      "Root and configuration",
      "Capabilities",
      "Host services",
      "Client configuration"
    ]) {
      assert.include(result.stdout, section)
    }
    assert.include(result.stdout, "workspace_write (destructive, asks for confirmation)")
    assert.include(result.stdout, "workspace_read (read-only)")
    assert.include(result.stdout, "resource templates: workspace_file (workspace://{+path})")
    assert.include(result.stdout, "Audit log:")
    assert.include(result.stdout, "allowed: node, npm, npx, pnpm, yarn, git, tsc")
    assert.include(result.stdout, `"command": "${process.execPath}"`)
    assert.include(result.stdout, binaryPath)
    assert.include(result.stdout, "claude mcp add mcp-runtime --")
    assert.include(result.stdout, '"type": "stdio"')
    assert.include(result.stdout, "All checks passed.")
    assert.notInclude(result.stdout, "✗")
  })

  it("with a broken configuration: every problem by JSON path, the rest still checked, exit 1", () => {
    const root = tempRoot({
      "mcp-runtime.json": JSON.stringify({ gate: { rules: [{ effect: "alow", names: ["x"] }] }, tyop: 1 })
    })
    const result = run(["doctor", "--root", root])
    assert.strictEqual(result.code, 1)
    assert.include(result.stdout, "✗ Configuration")
    assert.include(result.stdout, '$.gate.rules[0].effect: Expected "allow" | "deny", got "alow"')
    assert.include(result.stdout, "$.tyop: unknown key")
    assert.include(result.stdout, "system_echo") // the capabilities were still built
    assert.include(result.stdout, "Claude Desktop")
    assert.include(result.stdout, "Some checks failed")
  })

  it("a bad MCP_RUNTIME_* value and an unknown capability are failed checks; the rest is still reported", () => {
    const result = run(["doctor", "--root", tempRoot()], { env: { MCP_RUNTIME_TIMEOUT_MS: "soon" } })
    assert.strictEqual(result.code, 1)
    assert.include(result.stdout, "✗ Settings")
    assert.include(result.stdout, "MCP_RUNTIME_TIMEOUT_MS=soon: expected a whole number")
    assert.include(result.stdout, "exec_run (destructive, asks for confirmation)")
    const unknown = run(["doctor", "--root", tempRoot(), "--capabilities", "system,nope"])
    assert.strictEqual(unknown.code, 1)
    assert.include(unknown.stdout, "unknown capability: nope")
  })

  it("a root that is not a directory, and an audit log that cannot be written: exit 1", () => {
    const missing = run(["doctor", "--root", join(tempRoot(), "nope")])
    assert.strictEqual(missing.code, 1)
    assert.include(missing.stdout, "✗ Root")
    const root = tempRoot({ "file.txt": "x" })
    const audit = run(["doctor", "--root", root, "--audit-log", join(root, "file.txt", "audit.jsonl")])
    assert.strictEqual(audit.code, 1)
    assert.match(audit.stdout, /✗ Audit log: .*audit\.jsonl/)
  })

  it("--json gives the same report as data", () => {
    const result = run(["doctor", "--root", tempRoot(), "--json"])
    assert.strictEqual(result.code, 0)
    const report = JSON.parse(result.stdout)
    assert.isTrue(report.ok)
    assert.includeMembers(
      report.clients.map((c: { client: string }) => c.client),
      ["Claude Desktop", "Claude Code", "Cursor", "VS Code"]
    )
  })
})

describe("mcp-runtime capabilities list", () => {
  it("--json: every bundled capability, whether enabled by default, and what it contributes", () => {
    const result = run(["capabilities", "list", "--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const reports = JSON.parse(result.stdout)
    const byId = Object.fromEntries(reports.map((r: { id: string }) => [r.id, r]))
    assert.deepStrictEqual(Object.keys(byId).sort(), [
      "bridge",
      "code",
      "conformance",
      "exec",
      "fe",
      "skills",
      "system",
      "workspace"
    ])
    assert.isTrue(byId.exec.enabledByDefault)
    assert.isFalse(byId.conformance.enabledByDefault)
    // Listed without taking the bridge's socket (an idle listener): its three tools.
    assert.isFalse(byId.bridge.enabledByDefault)
    assert.deepStrictEqual(byId.bridge.capabilities[0].tools.slice().sort(), [
      "bridge_client_resource",
      "bridge_client_tool",
      "bridge_list_client_tools_and_resources"
    ])
    assert.isTrue(byId.code.enabledByDefault)
    assert.include(byId.code.capabilities[0].tools, "code_run")
    assert.include(byId.exec.capabilities[0].tools, "exec_run")
    assert.deepStrictEqual(byId.workspace.capabilities[0].resources, [])
    assert.deepStrictEqual(byId.workspace.capabilities[0].templates, ["workspace_file"])
    assert.isFalse(byId.skills.enabledByDefault)
    assert.deepStrictEqual(byId.skills.capabilities[0].templates, ["skills_file"])
    assert.deepStrictEqual(byId.conformance.capabilities.map((c: { id: string }) => c.id).sort(), [
      "json",
      "skills",
      "tasks",
      "test"
    ])
  })

  it("as text: each bundle, enabled by default or not, with counts", () => {
    const result = run(["capabilities", "list", "--root", tempRoot()])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stdout, "system (enabled by default)")
    assert.include(result.stdout, "conformance (not enabled by default)")
    assert.include(result.stdout, "tools (2): exec_run, exec_commands")
    assert.include(result.stdout, "resource templates (1): exec_run_log")
    assert.include(result.stdout, "--capabilities system,workspace,exec,fe,skills,code (bridge: ")
  })
})

describe("mcp-runtime call", () => {
  it("prints a tool's structured result, exit 0", () => {
    const result = run(["call", "system_echo", "--args", '{"text":"hi"}'])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), { text: "hi" })
  })

  it("usage errors exit 2: bad JSON, not an object, unknown tool (with the list of tools)", () => {
    const bad = run(["call", "system_echo", "--args", "{bad"])
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "--args is not valid JSON")
    assert.strictEqual(run(["call", "system_echo", "--args", "[1]"]).code, 2)
    const unknown = run(["call", "system_nope"])
    assert.strictEqual(unknown.code, 2)
    assert.include(unknown.stderr, "unknown tool system_nope")
    assert.include(unknown.stderr, "system_echo")
  })

  it("arguments that do not fit the tool's input schema: a usage error, with the schema, exit 2", () => {
    const result = run(["call", "system_echo", "--audit-log", "off", "--args", '{"text":5}'])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "- text: Expected string, got 5")
    assert.include(result.stderr, "The input schema of system_echo:")
    assert.include(result.stderr, '"text": {')
    assert.strictEqual(result.stdout, "")
  })

  it("a tool error: its message and suggestion on stderr, exit 1", () => {
    const result = run(["call", "workspace_read", "--root", tempRoot(), "--args", '{"path":"missing.txt"}'])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "Nothing exists at missing.txt")
    assert.include(result.stderr, "Suggestion:")
    assert.strictEqual(result.stdout, "")
  })

  it("a destructive tool without a terminal: refused unless --yes", () => {
    const root = tempRoot()
    const refused = run(["call", "workspace_write", "--root", root, "--args", '{"path":"a.txt","content":"x"}'])
    assert.strictEqual(refused.code, 1)
    assert.include(refused.stderr, "pass --yes")
    assert.throws(() => readFileSync(join(root, "a.txt")))
    const confirmed = run([
      "call",
      "workspace_write",
      "--root",
      root,
      "--yes",
      "--args",
      '{"path":"a.txt","content":"x"}'
    ])
    assert.strictEqual(confirmed.code, 0, confirmed.stderr)
    assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), "x")
  })

  it("the call is audited like any other; --audit-log off skips it", () => {
    const root = tempRoot()
    const audit = join(tempRoot(), "audit.jsonl")
    const result = run(["call", "system_echo", "--root", root, "--audit-log", audit, "--args", '{"text":"hi"}'])
    assert.strictEqual(result.code, 0, result.stderr)
    const entries = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    assert.isTrue(entries.some((entry) => JSON.stringify(entry).includes("system_echo")))
    // With `off`, nothing is written, not even at the default place (under $XDG_STATE_HOME).
    const state = tempRoot()
    const off = run(["call", "system_echo", "--root", root, "--audit-log", "off", "--args", '{"text":"hi"}'], {
      env: { XDG_STATE_HOME: state }
    })
    assert.strictEqual(off.code, 0, off.stderr)
    assert.deepStrictEqual(readdirSync(state), [])
    const byDefault = run(["call", "system_echo", "--root", root, "--args", '{"text":"hi"}'], {
      env: { XDG_STATE_HOME: state }
    })
    assert.strictEqual(byDefault.code, 0, byDefault.stderr)
    assert.deepStrictEqual(readdirSync(state), ["mcp-runtime"])
  })

  it("progress notifications show on stderr, one line each when it is not a terminal", () => {
    const script =
      "console.log('first'); setTimeout(() => console.log('second'), 300); setTimeout(() => console.log('third'), 600)"
    const result = run([
      "call",
      "exec_run",
      "--root",
      tempRoot(),
      "--yes",
      "--args",
      JSON.stringify({ command: "node", args: ["-e", script] })
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stderr, "progress: $ node -e")
    assert.include(result.stderr, "progress: second")
    assert.include(result.stderr, "progress: third")
    assert.strictEqual(JSON.parse(result.stdout).exitCode, 0)
  })
})

describe("mcp-runtime call on a terminal", () => {
  // util-linux `script` gives the binary a pseudo-terminal; elsewhere (macOS's `script` differs) this is skipped.
  const hasScript = spawnSync("script", ["-qec", "true", "/dev/null"], { stdio: "ignore" }).status === 0
  const onTerminal = (args: ReadonlyArray<string>, input: string) => {
    const quote = (arg: string) => `'${arg.replace(/'/g, "'\\''")}'`
    const command = [process.execPath, binaryPath, ...args].map(quote).join(" ")
    const result = spawnSync("sh", ["-c", `(sleep 1.5; printf '${input}') | script -qec ${quote(command)} /dev/null`], {
      encoding: "utf8",
      cwd: repoRoot,
      timeout: 30_000
    })
    return { code: result.status, output: result.stdout }
  }

  it.skipIf(!hasScript)("a destructive tool asks y/N; n refuses, y runs", () => {
    const root = tempRoot()
    const args = [
      "call",
      "workspace_write",
      "--root",
      root,
      "--audit-log",
      "off",
      "--args",
      '{"path":"a.txt","content":"x"}'
    ]
    const declined = onTerminal(args, "n\\n")
    assert.include(declined.output, "Allow workspace_write to run?")
    assert.include(declined.output, "Run it? [y/N]")
    assert.include(declined.output, "did not allow workspace_write to run")
    assert.isFalse(existsSync(join(root, "a.txt")))
    const accepted = onTerminal(args, "y\\n")
    assert.include(accepted.output, '"created": true')
    assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), "x")
  })

  it.skipIf(!hasScript)("progress is one line redrawn in place", () => {
    const script = "console.log('first'); setTimeout(() => console.log('second'), 300)"
    const result = onTerminal(
      [
        "call",
        "exec_run",
        "--root",
        tempRoot(),
        "--audit-log",
        "off",
        "--yes",
        "--args",
        JSON.stringify({ command: "node", args: ["-e", script] })
      ],
      ""
    )
    assert.include(result.output, "\r\x1b[2K")
    assert.include(result.output, "second")
    assert.notInclude(result.output, "progress: ")
    assert.include(result.output, '"exitCode": 0')
  })
})

describe("doctor's Node requirement", () => {
  it("is the package's engines.node", async () => {
    const { requiredNode } = await import("../src/cli/doctor.ts")
    const engines = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).engines.node as string
    assert.strictEqual(`>=${requiredNode.replace(/\.0$/, "")}`, engines)
  })
})
