/**
 * The locked-surface contract: the repository's `surface.json` is the public
 * surface (tools, resources, templates, prompts, server capabilities) of the
 * default capabilities, checked with the built binary's `surface --check`;
 * a changed surface fails with a readable diff and the command that updates
 * the file. The diff itself is unit-tested on `lineDiff`.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { lineDiff } from "../src/cli/surface.ts"
import { makeTempDirs, runCli } from "./integration/CliProcess.ts"
import { assertBuilt, repoRoot } from "./integration/ServerProcess.ts"

beforeAll(assertBuilt)
const temp = makeTempDirs()
afterAll(temp.removeAll)

describe("surface.json", () => {
  it("is the surface of the default capabilities (system, workspace, exec, fe, code)", () => {
    const result = runCli(["surface", "--check", join(repoRoot, "surface.json")])
    assert.strictEqual(
      result.code,
      0,
      "The public surface changed. If that is intended, run " +
        "`npm run build && node dist/mcp-runtime.js surface --write surface.json` and commit the file.\n" +
        result.stdout +
        result.stderr
    )
    assert.include(result.stdout, "surface unchanged")
    const locked = JSON.parse(readFileSync(join(repoRoot, "surface.json"), "utf8"))
    assert.deepStrictEqual(
      locked.capabilities.map((c: { id: string }) => c.id),
      ["code", "exec", "fe", "system", "workspace"]
    )
  })
})

describe("mcp-runtime surface", () => {
  it("--check on a changed surface: exit 1, a readable diff and how to update", () => {
    const locked = readFileSync(join(repoRoot, "surface.json"), "utf8").replace(
      '"name": "system_echo"',
      '"name": "system_ping"'
    )
    const dir = temp.make({ "old.json": locked })
    const result = runCli(["surface", "--check", join(dir, "old.json")])
    assert.strictEqual(result.code, 1)
    assert.include(result.stdout, '-      "name": "system_ping"')
    assert.include(result.stdout, '+      "name": "system_echo"')
    assert.match(result.stdout, /@@ -\d+,\d+ \+\d+,\d+ @@/)
    assert.include(result.stderr, "mcp-runtime surface --write")
  })

  it("--write then --check round-trips; the surface does not depend on the root's files", () => {
    const dir = temp.make({ "a.txt": "x" })
    assert.strictEqual(runCli(["surface", "--root", dir, "--write", join(dir, "s.json")]).code, 0)
    assert.strictEqual(runCli(["surface", "--check", join(dir, "s.json")]).code, 0)
  })

  it("prints sorted, two-space JSON; --capabilities narrows it; --check with --write is a usage error", () => {
    const result = runCli(["surface", "--capabilities", "system"])
    assert.strictEqual(result.code, 0, result.stderr)
    const surface = JSON.parse(result.stdout)
    assert.deepStrictEqual(Object.keys(surface), [...Object.keys(surface)].sort())
    assert.deepStrictEqual(
      surface.tools.map((t: { name: string }) => t.name),
      ["system_echo", "system_info", "system_time"]
    )
    assert.include(result.stdout, '\n  "tools": [\n')
    const both = runCli(["surface", "--check", "a.json", "--write", "b.json"])
    assert.strictEqual(both.code, 2)
    assert.include(both.stderr, "--check and --write")
  })
})

describe("lineDiff", () => {
  it("is empty for equal texts", () => {
    assert.strictEqual(lineDiff("a\nb\n", "a\nb\n"), "")
  })

  it("shows removed and added lines with context, in unified hunks", () => {
    assert.strictEqual(lineDiff("a\nb\nc\n", "a\nB\nc\n", 1), "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n")
    const after = before.replace("line 2", "line two").replace("line 17", "line seventeen")
    const diff = lineDiff(before, after, 2)
    assert.strictEqual(diff.match(/^@@/gm)?.length, 2)
    assert.include(diff, "-line 2\n+line two\n")
    assert.include(diff, "-line 17\n+line seventeen\n")
  })
})
