/**
 * The binary's launcher (`dist/mcp-runtime.js`, written by `scripts/build.ts`):
 * it turns on Node's compile cache in `$XDG_CACHE_HOME/mcp-runtime/compile-cache`
 * (created 0700) before loading the bundle, so V8's compiled code is kept
 * between starts; it leaves the cache off when asked, and never uses a
 * directory that others can write; it names the bundle's SHA-256, so it
 * changes with every build. Real processes, real directories.
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { assertBuilt, binaryPath, repoRoot } from "./ServerProcess.ts"

const temps: Array<string> = []
beforeAll(() => assertBuilt())
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const home = () => {
  const dir = mkdtempSync(join(tmpdir(), "launcher-"))
  temps.push(dir)
  return dir
}

/** Runs `mcp-runtime --version` with the given cache settings; the environment keeps nothing of the test's own. */
const run = (env: Record<string, string>) =>
  execFileSync(process.execPath, [binaryPath, "--version"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: home(), ...env }
  })

/** Every file under a directory, recursively. */
const filesUnder = (dir: string): Array<string> =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
    : []

describe("the binary's launcher", () => {
  it("keeps V8's compiled code in a 0700 directory of the user's cache, and runs the same", () => {
    const cache = home()
    assert.match(run({ XDG_CACHE_HOME: cache }), /^mcp-runtime v\d+\.\d+\.\d+/)
    const dir = join(cache, "mcp-runtime", "compile-cache")
    assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
    assert.isAbove(filesUnder(dir).length, 0, "the compiled code was written")
    // The second start reads it and answers the same.
    assert.match(run({ XDG_CACHE_HOME: cache }), /^mcp-runtime v\d+\.\d+\.\d+/)
  })

  it("MCP_RUNTIME_COMPILE_CACHE=off leaves the cache off", () => {
    const cache = home()
    run({ XDG_CACHE_HOME: cache, MCP_RUNTIME_COMPILE_CACHE: "off" })
    assert.isFalse(existsSync(join(cache, "mcp-runtime")))
  })

  it("a cache directory others can write is not used", () => {
    const cache = home()
    const dir = join(cache, "mcp-runtime", "compile-cache")
    mkdirSync(dir, { recursive: true })
    chmodSync(dir, 0o777)
    assert.match(run({ XDG_CACHE_HOME: cache }), /^mcp-runtime v/)
    assert.deepStrictEqual(filesUnder(dir), [], "nothing written where others could change it")
  })

  it("names the bundle's SHA-256, so a new build is a new launcher (the warm daemon's build check)", () => {
    const bundle = readFileSync(join(repoRoot, "dist/mcp-runtime.main.js"))
    const digest = createHash("sha256").update(bundle).digest("hex")
    assert.include(readFileSync(binaryPath, "utf8"), `sha256 ${digest}`)
  })
})
