/**
 * The package as a library user gets it: `npm pack` of this checkout (the
 * build `npm test` made), installed into a fresh project with npm and no
 * optional dependency, then used from plain JavaScript on this Node. It
 * checks what the tarball holds (no source map over 1 MB, no parser), that
 * the core imports and serves a tool through the test kit, and that code
 * mode without the optional parser answers a clear error saying how to
 * install it.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { oxcParserVersion } from "../../src/internal/optionalParser.ts"

const root = resolve(import.meta.dirname, "../..")

interface Packed {
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<{ readonly path: string; readonly size: number }>
}

// What the consumer runs: a capability of its own through the test kit, and code mode without the parser.
const consumer = `
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Capability, Tool } from "effect-mcp-runtime"
import { TestClient } from "effect-mcp-runtime/testing"
import { CodeCapability, memory } from "effect-mcp-runtime/capabilities/code"
import * as QuickJsSandbox from "effect-mcp-runtime/layers/QuickJsSandbox"

const add = Tool.make("add", {
  description: "Adds two numbers.",
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  output: Schema.Struct({ sum: Schema.Number })
}).pipe(Tool.handle(({ a, b }) => Effect.succeed({ sum: a + b })))

const Math = Capability.make({ id: "math", description: "Arithmetic", version: "1.0.0" }, Effect.succeed({ tools: [add] }))
const Code = CodeCapability.pipe(Layer.provide([QuickJsSandbox.layer, memory]))

const program = Effect.gen(function* () {
  const client = yield* TestClient.make(Layer.mergeAll(Math, Code))
  const tools = (yield* client.listTools).map((tool) => tool.name)
  const sum = yield* client.callTool("math_add", { a: 2, b: 3 })
  const code = yield* client.callTool("code_run", { code: "return await mcp.math.add({ a: 1, b: 1 })" })
  return { tools, sum: sum.structuredContent, code: { isError: code.isError, text: TestClient.text(code), errorCode: TestClient.errorCode(code) } }
}).pipe(Effect.scoped)

process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
`

describe("the package in a fresh project", { concurrent: false }, () => {
  it(
    "packs lean, installs without the parser, imports and serves; code mode says how to get the parser",
    { timeout: 240_000 },
    () => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-runtime-package-"))
      try {
        // The build `npm test` made (no prepack: it would build again under the other tests' feet).
        const [packed] = JSON.parse(
          execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
            cwd: root,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"]
          })
        ) as ReadonlyArray<Packed>
        assert.isDefined(packed)
        const bigMaps = packed!.files.filter((file) => file.path.endsWith(".map") && file.size > 1024 * 1024)
        assert.deepStrictEqual(bigMaps, [], "no source map over 1 MB in the tarball")
        assert.isTrue(
          packed!.files.some((file) => file.path === "dist/lib/src/index.js"),
          "the built library is in the tarball"
        )
        assert.isTrue(
          packed!.files.some((file) => file.path === "dist/mcp-runtime.js"),
          "the binary is in the tarball"
        )

        const project = join(dir, "consumer")
        mkdirSync(project)
        writeFileSync(
          join(project, "package.json"),
          JSON.stringify({ name: "consumer", private: true, type: "module" })
        )
        execFileSync(
          "npm",
          ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", join(dir, packed!.filename)],
          { cwd: project, stdio: ["ignore", "pipe", "pipe"] }
        )
        assert.isTrue(existsSync(join(project, "node_modules", "effect-mcp-runtime", "package.json")))
        assert.isFalse(existsSync(join(project, "node_modules", "oxc-parser")), "the optional parser is not installed")

        writeFileSync(join(project, "check.mjs"), consumer)
        const out = JSON.parse(
          execFileSync(process.execPath, ["check.mjs"], {
            cwd: project,
            encoding: "utf8",
            stdio: ["ignore", "pipe", "pipe"]
          })
        )
        assert.includeMembers(out.tools, ["math_add", "code_run"])
        assert.deepStrictEqual(out.sum, { sum: 5 })
        assert.strictEqual(out.code.isError, true)
        assert.strictEqual(out.code.errorCode, "parser_unavailable")
        assert.include(out.code.text, `npm install oxc-parser@${oxcParserVersion}`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it("the parser version the errors name is the one the project is built with", () => {
    const pkg = JSON.parse(
      execFileSync(process.execPath, ["-p", "JSON.stringify(require('./package.json'))"], {
        cwd: root,
        encoding: "utf8"
      })
    )
    assert.strictEqual(pkg.devDependencies["oxc-parser"], oxcParserVersion)
    assert.strictEqual(pkg.peerDependencies["oxc-parser"], oxcParserVersion)
    assert.strictEqual(pkg.peerDependenciesMeta["oxc-parser"].optional, true)
    assert.isUndefined(pkg.dependencies["oxc-parser"])
  })
})
