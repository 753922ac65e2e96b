/**
 * The `mcp-runtime` commands other than `serve`, run as the built binary:
 * doctor, capabilities list, surface (print, write, check with a diff), call
 * (results, errors, exit codes, confirmation, progress), help and version.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertBuilt, binaryPath, repoRoot } from "./integration/ServerProcess.ts"

beforeAll(assertBuilt)

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempRoot = (files: Record<string, string> = {}): string => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-cli-"))
  dirs.push(dir)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return dir
}

const run = (args: ReadonlyArray<string>, options: { readonly cwd?: string } = {}) => {
  const result = spawnSync(process.execPath, [binaryPath, ...args], {
    encoding: "utf8",
    cwd: options.cwd ?? repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

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
    assert.include(result.stdout, "workspace_apply_patch")
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
    assert.deepStrictEqual(Object.keys(byId).sort(), ["conformance", "exec", "system", "workspace"])
    assert.isTrue(byId.exec.enabledByDefault)
    assert.isFalse(byId.conformance.enabledByDefault)
    assert.include(byId.exec.capabilities[0].tools, "exec_run")
    assert.deepStrictEqual(byId.conformance.capabilities.map((c: { id: string }) => c.id).sort(), ["json", "test"])
  })
})

describe("mcp-runtime surface", () => {
  it("the repository's surface.json is the surface of the default capabilities", () => {
    const result = run(["surface", "--check", join(repoRoot, "surface.json")])
    assert.strictEqual(
      result.code,
      0,
      `The public surface changed. If that is intended, run \`node dist/mcp-runtime.js surface --write surface.json\`.\n${result.stdout}${result.stderr}`
    )
  })

  it("--check on a changed surface: exit 1, a readable diff and how to update", () => {
    const locked = readFileSync(join(repoRoot, "surface.json"), "utf8").replace(
      '"name": "system_echo"',
      '"name": "system_ping"'
    )
    const dir = tempRoot({ "old.json": locked })
    const result = run(["surface", "--check", join(dir, "old.json")])
    assert.strictEqual(result.code, 1)
    assert.include(result.stdout, '-      "name": "system_ping"')
    assert.include(result.stdout, '+      "name": "system_echo"')
    assert.match(result.stdout, /@@ -\d+,\d+ \+\d+,\d+ @@/)
    assert.include(result.stderr, "mcp-runtime surface --write")
  })

  it("--write then --check round-trips; the surface does not depend on the root's files", () => {
    const dir = tempRoot({ "a.txt": "x" })
    assert.strictEqual(run(["surface", "--root", dir, "--write", join(dir, "s.json")]).code, 0)
    assert.strictEqual(run(["surface", "--check", join(dir, "s.json")]).code, 0)
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

describe("doctor's Node requirement", () => {
  it("is the package's engines.node", async () => {
    const { requiredNode } = await import("../src/cli/doctor.ts")
    const engines = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).engines.node as string
    assert.strictEqual(`>=${requiredNode.replace(/\.0$/, "")}`, engines)
  })
})
