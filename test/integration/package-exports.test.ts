/**
 * The test kit as a consumer gets it: `effect-mcp-runtime/testing` through
 * the package's `exports` map (the built `dist/lib`), imported at run time by
 * Node and type-checked by `tsc` as a consumer's file would be.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { repoRoot } from "./ServerProcess.ts"

const built = resolve(repoRoot, "dist/lib/src/testing.js")
const assertBuilt = () => {
  if (!existsSync(built)) {
    throw new Error(`${built} is missing: run \`npm run build\` first (\`npm test\` does it for you).`)
  }
}

/** A consumer's file; inside the repository (`.tmp/`, ignored by git), so the package resolves itself by name. */
const consumer = `import * as Effect from "effect/Effect"
import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
import { FakeCommandRunner, MemoryWorkspace, RpcError, TestClient } from "effect-mcp-runtime/testing"

export const program: Effect.Effect<string, unknown> = Effect.gen(function* () {
  const client: TestClient.TestClient = yield* TestClient.make(SystemCapability)
  const result = yield* client.callTool("system_echo", { text: "from a consumer" })
  const fake: FakeCommandRunner.FakeCommandRunner = FakeCommandRunner.make([{ command: "git" }])
  const memory: MemoryWorkspace.MemoryWorkspace = MemoryWorkspace.make({ "a.txt": "a" })
  const error: RpcError = new RpcError({ code: -32601, message: "nope", data: undefined })
  return [TestClient.text(result), typeof fake.layer, typeof memory.layer, error.code].join(" ")
}).pipe(Effect.scoped)
`

mkdirSync(join(repoRoot, ".tmp"), { recursive: true })
const dir = mkdtempSync(join(repoRoot, ".tmp", "package-consumer-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("effect-mcp-runtime/testing, as the package exports it", () => {
  it("imports and runs at run time", () => {
    assertBuilt()
    const script = join(dir, "run.mjs")
    writeFileSync(
      script,
      `import * as Effect from "effect/Effect"
import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
import { TestClient } from "effect-mcp-runtime/testing"
const text = await Effect.runPromise(
  Effect.gen(function* () {
    const client = yield* TestClient.make(SystemCapability)
    return TestClient.text(yield* client.callTool("system_echo", { text: "hi" }))
  }).pipe(Effect.scoped)
)
process.stdout.write(text)
`
    )
    const out = execFileSync(process.execPath, [script], { cwd: repoRoot, encoding: "utf8" })
    assert.strictEqual(out, JSON.stringify({ text: "hi" }))
  })

  it("type-checks in a consumer's file", () => {
    assertBuilt()
    const file = join(dir, "consumer.ts")
    writeFileSync(file, consumer)
    const tsc = resolve(repoRoot, "node_modules/.bin/tsc")
    const args = [
      "--ignoreConfig",
      "--noEmit",
      "--strict",
      "--exactOptionalPropertyTypes",
      "--skipLibCheck",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--target",
      "es2022",
      "--types",
      "node",
      file
    ]
    let output = ""
    try {
      execFileSync(tsc, args, { cwd: repoRoot, encoding: "utf8", stdio: "pipe" })
    } catch (error) {
      output = String((error as { stdout?: unknown }).stdout ?? error)
    }
    assert.strictEqual(output, "", "tsc reports no error")
  })
})
