/**
 * The fe capability's project detection: the pure `detect` over every
 * framework, package manager, linter and test runner it names; JSONC as
 * tsconfig files are written; and the state over a workspace (the Node
 * workspace on the test kit's in-memory file system): detected once, the
 * cached answer kept while package.json and the lockfiles are unchanged,
 * detected again when one changes, a broken package.json reported.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { parseJsonc, stripJsonc } from "../capabilities/fe/jsonc.ts"
import { detect, installCommand } from "../capabilities/fe/project.ts"
import { FeState, layer as stateLayer } from "../capabilities/fe/state.ts"
import { MemoryWorkspace } from "../src/testing.ts"
import { Workspace } from "../src/Workspace.ts"

const detectWith = (packageJson: unknown, files: ReadonlyArray<string>) =>
  detect({ packageJson, exists: (path) => files.includes(path) })

describe("detect", () => {
  it("names the framework, meta-frameworks before their base", () => {
    const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ react: "19.0.0", "react-dom": "19.0.0" }, "react"],
      [{ next: "15.0.0", react: "19.0.0" }, "next"],
      [{ vue: "3.5.0" }, "vue"],
      [{ nuxt: "3.0.0", vue: "3.5.0" }, "nuxt"],
      [{ svelte: "5.0.0" }, "svelte"],
      [{ "@sveltejs/kit": "2.0.0", svelte: "5.0.0" }, "sveltekit"],
      [{ astro: "5.0.0", react: "19.0.0" }, "astro"],
      [{ lodash: "4.17.21" }, "none"]
    ]
    for (const [dependencies, framework] of cases) {
      assert.strictEqual(detectWith({ dependencies }, []).framework, framework, JSON.stringify(dependencies))
    }
    // Dev and peer dependencies count too.
    assert.strictEqual(detectWith({ peerDependencies: { react: "*" } }, []).framework, "react")
  })

  it("names the package manager from the lockfile, then packageManager, then npm", () => {
    assert.strictEqual(detectWith({}, ["pnpm-lock.yaml"]).packageManager, "pnpm")
    assert.strictEqual(detectWith({}, ["yarn.lock"]).packageManager, "yarn")
    assert.strictEqual(detectWith({}, ["bun.lock"]).packageManager, "bun")
    assert.strictEqual(detectWith({}, ["bun.lockb"]).packageManager, "bun")
    assert.strictEqual(detectWith({}, ["package-lock.json"]).packageManager, "npm")
    assert.strictEqual(detectWith({}, ["package-lock.json"]).lockfile, "package-lock.json")
    // A lockfile wins over the declared manager; without one the declaration is used.
    assert.strictEqual(detectWith({ packageManager: "pnpm@9.12.0" }, ["yarn.lock"]).packageManager, "yarn")
    assert.strictEqual(detectWith({ packageManager: "pnpm@9.12.0" }, []).packageManager, "pnpm")
    assert.strictEqual(detectWith({ packageManager: "corepack-thing@1" }, []).packageManager, "npm")
    assert.strictEqual(detectWith({}, []).lockfile, null)
  })

  it("names the linter from its configuration file, then from the dependencies", () => {
    assert.strictEqual(detectWith({}, ["eslint.config.js"]).linter, "eslint")
    assert.strictEqual(detectWith({}, [".eslintrc.cjs"]).linter, "eslint")
    assert.strictEqual(detectWith({}, ["biome.json"]).linter, "biome")
    assert.strictEqual(detectWith({ devDependencies: { "@biomejs/biome": "2.0.0" } }, []).linter, "biome")
    assert.strictEqual(detectWith({ devDependencies: { eslint: "9.0.0" } }, []).linter, "eslint")
    // Biome's configuration file beats an ESLint that is only a (transitive-looking) dependency.
    assert.strictEqual(detectWith({ devDependencies: { eslint: "9.0.0" } }, ["biome.jsonc"]).linter, "biome")
    assert.strictEqual(detectWith({}, []).linter, "none")
  })

  it("names the test runner: Vitest, then Jest, then Playwright", () => {
    assert.strictEqual(detectWith({ devDependencies: { vitest: "4.0.0" } }, []).testRunner, "vitest")
    assert.strictEqual(detectWith({}, ["vitest.config.ts"]).testRunner, "vitest")
    assert.strictEqual(detectWith({ devDependencies: { jest: "30.0.0" } }, []).testRunner, "jest")
    assert.strictEqual(detectWith({}, ["jest.config.js"]).testRunner, "jest")
    assert.strictEqual(detectWith({ jest: { testEnvironment: "node" } }, []).testRunner, "jest")
    assert.strictEqual(detectWith({ devDependencies: { "@playwright/test": "1.50.0" } }, []).testRunner, "playwright")
    assert.strictEqual(
      detectWith({ devDependencies: { "@playwright/test": "1.50.0", vitest: "4.0.0" } }, []).testRunner,
      "vitest"
    )
    assert.strictEqual(detectWith({}, []).testRunner, "none")
  })

  it("finds the tsconfig and the source directory", () => {
    assert.strictEqual(detectWith({}, ["tsconfig.json", "src"]).tsconfig, "tsconfig.json")
    assert.strictEqual(detectWith({}, ["jsconfig.json"]).tsconfig, "jsconfig.json")
    assert.strictEqual(detectWith({}, []).tsconfig, null)
    assert.strictEqual(detectWith({}, ["src"]).sourceDir, "src")
    assert.strictEqual(detectWith({}, ["app", "components"]).sourceDir, "app")
    assert.strictEqual(detectWith({}, []).sourceDir, ".")
  })

  it("lists the dependencies once, sorted, and the package's name", () => {
    const info = detectWith(
      { name: "web", dependencies: { react: "1", b: "1" }, devDependencies: { a: "1", react: "1" } },
      []
    )
    assert.deepStrictEqual(info.dependencies, ["a", "b", "react"])
    assert.strictEqual(info.name, "web")
    assert.strictEqual(detectWith(undefined, []).name, null)
  })

  it("writes the install command of each package manager", () => {
    assert.strictEqual(installCommand("npm", "zod", false), "npm install zod")
    assert.strictEqual(installCommand("npm", "@types/react", true), "npm install -D @types/react")
    assert.strictEqual(installCommand("pnpm", "zod", true), "pnpm add -D zod")
    assert.strictEqual(installCommand("yarn", "zod", false), "yarn add zod")
    assert.strictEqual(installCommand("bun", "zod", false), "bun add zod")
  })
})

describe("JSONC", () => {
  it("reads tsconfig files as create-vite writes them", () => {
    const text = `{
  "compilerOptions": {
    "target": "ES2022",
    /* Bundler mode */
    "moduleResolution": "bundler", // resolution
    "paths": { "@/*": ["./src/*"], },
  },
  "include": ["src", "a//b", "c/*d*/e"],
}`
    assert.deepStrictEqual(parseJsonc(text), {
      compilerOptions: { target: "ES2022", moduleResolution: "bundler", paths: { "@/*": ["./src/*"] } },
      include: ["src", "a//b", "c/*d*/e"]
    })
  })

  it("keeps line breaks, escaped quotes and commas inside strings", () => {
    assert.strictEqual(stripJsonc('{"a": "x\\",}" /* c\n d */}').split("\n").length, 2)
    assert.deepStrictEqual(parseJsonc('{"a": "x\\",}"}'), { a: 'x",}' })
    assert.deepStrictEqual(parseJsonc('\uFEFF{"a": [1, 2,],}'), { a: [1, 2] })
    assert.strictEqual(parseJsonc("{ nope"), undefined)
  })
})

const projectOf = Effect.flatMap(Effect.service(FeState), (state) => state.project)

describe("FeState over a workspace", () => {
  it.effect("detects once, keeps the answer while nothing changed, detects again when package.json changes", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make({
        "package.json": JSON.stringify({ name: "app", dependencies: { react: "19.0.0" } }),
        "package-lock.json": "{}",
        "tsconfig.json": "{ /* strict */ }",
        "eslint.config.js": "export default []\n",
        "src/main.tsx": "export {}\n"
      })
      const layer = stateLayer.pipe(Layer.provideMerge(memory.layer))
      yield* Effect.gen(function* () {
        const first = yield* projectOf
        assert.strictEqual(first.framework, "react")
        assert.strictEqual(first.packageManager, "npm")
        assert.strictEqual(first.linter, "eslint")
        assert.strictEqual(first.tsconfig, "tsconfig.json")
        assert.strictEqual(first.sourceDir, "src")
        // Nothing changed: the same object, not a new detection.
        assert.strictEqual(yield* projectOf, first)
        // A source file changing is not a reason to detect again.
        const workspace = yield* Workspace
        yield* workspace.write("src/main.tsx", "export const changed = 1\n")
        assert.strictEqual(yield* projectOf, first)

        yield* workspace.write(
          "package.json",
          JSON.stringify({
            name: "app",
            dependencies: { next: "15.0.0", react: "19.0.0" },
            devDependencies: { vitest: "4" }
          })
        )
        const second = yield* projectOf
        assert.notStrictEqual(second, first)
        assert.strictEqual(second.framework, "next")
        assert.strictEqual(second.testRunner, "vitest")

        // A new lockfile changes the package manager.
        yield* workspace.write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
        assert.strictEqual((yield* projectOf).packageManager, "pnpm")
      }).pipe(Effect.provide(layer))
    })
  )

  it.effect("reports a package.json that is not JSON, and works without one", () =>
    Effect.gen(function* () {
      const broken = MemoryWorkspace.make({ "package.json": "{ name: oops" })
      const error = yield* projectOf.pipe(Effect.flip, Effect.provide(stateLayer.pipe(Layer.provide(broken.layer))))
      assert.strictEqual(error.code, "package_json_invalid")
      assert.include(error.suggestion ?? "", "workspace_edit")

      const empty = MemoryWorkspace.make({ "index.js": "console.log(1)\n" })
      const info = yield* projectOf.pipe(Effect.provide(stateLayer.pipe(Layer.provide(empty.layer))))
      assert.deepStrictEqual(
        [info.framework, info.packageManager, info.tsconfig, info.linter, info.testRunner, info.sourceDir],
        ["none", "npm", null, "none", "none", "."]
      )
    })
  )

  it.effect("remembers the last verify's problems", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make({})
      yield* Effect.gen(function* () {
        const state = yield* FeState
        assert.strictEqual(yield* state.lastVerify, undefined)
        const problem = {
          source: "typescript" as const,
          kind: "type" as const,
          file: "src/a.ts",
          line: 1,
          column: 1,
          code: "TS2322",
          message: "Type 'number' is not assignable to type 'string'.",
          severity: "error" as const,
          suggestion: "Call fe_doctor."
        }
        yield* state.setLastVerify([problem])
        assert.deepStrictEqual(yield* state.lastVerify, [problem])
      }).pipe(Effect.provide(stateLayer.pipe(Layer.provide(memory.layer))))
    })
  )
})
