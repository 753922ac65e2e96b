/**
 * fe_verify on the real fixture projects (installed from the registry by
 * the global set-up, test/support/feFixtures.ts), with their own tsc 6,
 * ESLint 10 and Vitest 5, through the real NodeCommandRunner and Node
 * workspace: the clean Vite + React app passes every step; the broken app
 * gives exactly its known type errors, lint findings and failing tests.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { fixtureDir } from "./support/feFixtures.ts"

const feOn = (root: string) =>
  TestClient.make(
    FeCapability.pipe(
      Layer.provide(NodeCommandRunner.layer()),
      Layer.provide(NodeWorkspace.layer({ root })),
      Layer.provide(Layer.succeed(WorkspaceRoot, root)),
      Layer.provideMerge(ServerConfig.layer({ shutdownGraceMs: 0 }))
    )
  )

/** A problem as a compact line: where, which code, what message. */
const line = (p: any) => `${p.file}:${p.line}:${p.column} ${p.severity} ${p.code} ${p.message}`

/** The known problems of test/fixtures/fe/broken-app, as its tools print them (see its README). */
export const brokenAppTypeErrors = [
  "src/api.ts:1:21 error TS2307 Cannot find module 'left-pad-nowhere' or its corresponding type declarations.",
  "src/api.ts:16:15 error TS2339 Property 'fullName' does not exist on type 'User'.",
  "src/api.ts:20:9 error TS6133 'unused' is declared but its value is never read.",
  "src/api.ts:21:29 error TS2345 Argument of type 'number' is not assignable to parameter of type 'string'.",
  "src/components/Counter.tsx:9:29 error TS2304 Cannot find name 'useState'.",
  "src/components/Counter.tsx:17:14 error TS2551 Property 'toUppercase' does not exist on type 'string'. Did you mean 'toUpperCase'?",
  "src/utils/format.ts:2:9 error TS2322 Type 'number' is not assignable to type 'string'.",
  "src/utils/format.ts:6:23 error TS7006 Parameter 'items' implicitly has an 'any' type.",
  "src/utils/format.ts:12:10 error TS18048 'first' is possibly 'undefined'."
]

export const brokenAppLintProblems = [
  "src/api.ts:9:7 error prefer-const 'url' is never reassigned. Use 'const' instead.",
  "src/api.ts:11:15 error @typescript-eslint/no-explicit-any Unexpected any. Specify a different type.",
  "src/api.ts:20:9 error @typescript-eslint/no-unused-vars 'unused' is assigned a value but never used.",
  "src/components/Counter.tsx:13:6 warning react-hooks/exhaustive-deps React Hook useEffect has a missing dependency: 'count'. Either include it or remove the dependency array."
]

export const brokenAppTestFailures = [
  "src/utils/math.test.ts:6:23 error test-failure AssertionError: expected -1 to be 5 // Object.is equality",
  "src/utils/math.test.ts:12:25 error test-failure AssertionError: expected [ 1, 2 ] to deeply equal [ 1, 2, 3 ]"
]

describe("fe_verify on the fixture projects", () => {
  it.live(
    "the Vite + React app passes: tsc on both referenced projects, ESLint, Vitest",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("react-app"))
        const result = (yield* fe.callToolStructured("fe_verify", {})) as any
        assert.deepStrictEqual(result.project, {
          framework: "react",
          packageManager: "npm",
          tsconfig: "tsconfig.json",
          linter: "eslint",
          testRunner: "vitest"
        })
        assert.deepStrictEqual(
          result.steps.map((s: any) => [s.step, s.status, s.tool, s.command]),
          [
            [
              "typecheck",
              "passed",
              "tsc 6.0.3",
              "node_modules/typescript/bin/tsc --noEmit --pretty false -p tsconfig.app.json && node_modules/typescript/bin/tsc --noEmit --pretty false -p tsconfig.node.json"
            ],
            ["lint", "passed", "eslint 10.15.0", "node_modules/eslint/bin/eslint.js --format json ."],
            ["test", "passed", "vitest 5.1.1", "node_modules/vitest/vitest.mjs run --reporter=json --passWithNoTests"]
          ]
        )
        assert.deepStrictEqual(result.steps[2].tests, { total: 3, passed: 3, failed: 0, skipped: 0 })
        assert.isTrue(result.ok)
        assert.deepStrictEqual(result.problems, [])
        assert.strictEqual(result.summary, "All checks passed (typecheck passed, lint passed, test passed).")
      }),
    120_000
  )

  it.live(
    "the broken app: exactly its type errors, lint findings and failing tests, each pointing at fe_doctor",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("broken-app"))
        const result = (yield* fe.callToolStructured("fe_verify", {})) as any
        assert.deepStrictEqual(
          result.steps.map((s: any) => [s.step, s.status, s.errors, s.warnings]),
          [
            ["typecheck", "failed", 9, 0],
            ["lint", "failed", 3, 1],
            ["test", "failed", 2, 0]
          ]
        )
        assert.deepStrictEqual(result.steps[2].tests, { total: 3, passed: 1, failed: 2, skipped: 0 })
        assert.isFalse(result.ok)
        assert.strictEqual(result.problemsTotal, 15)
        const byKind = (kind: string) => result.problems.filter((p: any) => p.kind === kind).map(line)
        assert.deepStrictEqual(byKind("type"), brokenAppTypeErrors)
        assert.deepStrictEqual(byKind("lint").sort(), [...brokenAppLintProblems].sort())
        assert.deepStrictEqual(byKind("test"), brokenAppTestFailures)
        // Errors first, warnings last.
        assert.strictEqual(result.problems.at(-1).code, "react-hooks/exhaustive-deps")
        const failing = result.problems.filter((p: any) => p.kind === "test")
        assert.deepStrictEqual(
          failing.map((p: any) => p.test),
          [
            { name: "add > adds two numbers", expected: "5", actual: "-1" },
            { name: "range > includes the end", expected: "[ 1, 2, 3 ]", actual: "[ 1, 2 ]" }
          ]
        )
        for (const problem of result.problems) assert.include(problem.suggestion, "fe_doctor")
        assert.include(result.next, "fe_doctor")
        assert.strictEqual(result.summary, "typecheck failed, lint failed, test failed: 14 errors and 1 warning.")
      }),
    120_000
  )

  it.live(
    "fe_doctor on the broken app's problems: each one's cause and first fix step, exactly",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("broken-app"))
        yield* fe.callToolStructured("fe_verify", {})
        const result = (yield* fe.callToolStructured("fe_doctor", { limit: 20 })) as any
        assert.strictEqual(result.total, 15)
        assert.strictEqual(result.summary, "15 of 15 problems diagnosed.")
        const rows = result.diagnoses.map((d: any) => {
          const step = d.fix[0]
          return [
            `${d.problem.file}:${d.problem.line} ${d.problem.code}`,
            d.title,
            d.confidence,
            step.operation,
            `${step.file}:${step.line}`,
            step.before ?? null,
            step.after ?? null,
            step.command ?? null
          ]
        })
        const sortKey = (row: ReadonlyArray<unknown>) => String(row[0])
        assert.deepStrictEqual(
          [...rows].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
          [
            [
              "src/api.ts:1 TS2307",
              "The package left-pad-nowhere is not installed",
              "medium",
              "install_package",
              "src/api.ts:0",
              null,
              null,
              "npm install left-pad-nowhere"
            ],
            [
              "src/api.ts:11 @typescript-eslint/no-explicit-any",
              "Explicit any",
              "high",
              "replace",
              "src/api.ts:11",
              "  const data: any = await response.json()",
              "  const data: unknown = await response.json()",
              null
            ],
            [
              "src/api.ts:16 TS2339",
              "User has no property fullName",
              "medium",
              "investigate",
              "src/api.ts:16",
              null,
              null,
              null
            ],
            [
              "src/api.ts:20 @typescript-eslint/no-unused-vars",
              "Unused variable",
              "high",
              "delete",
              "src/api.ts:20",
              "  const unused = 'hello'",
              null,
              null
            ],
            [
              "src/api.ts:20 TS6133",
              "Declared but never read",
              "high",
              "delete",
              "src/api.ts:20",
              "  const unused = 'hello'",
              null,
              null
            ],
            [
              "src/api.ts:21 TS2345",
              "An argument of type number where string is expected",
              "high",
              "replace",
              "src/api.ts:21",
              "  return 'Hi ' + formatName(user.id)",
              "  return 'Hi ' + formatName(String(user.id))",
              null
            ],
            [
              "src/api.ts:9 prefer-const",
              "let that is never reassigned",
              "high",
              "replace",
              "src/api.ts:9",
              "  let url = `/api/users/${id}`",
              "  const url = `/api/users/${id}`",
              null
            ],
            [
              "src/components/Counter.tsx:13 react-hooks/exhaustive-deps",
              "Hook dependency array is incomplete",
              "high",
              "replace",
              "src/components/Counter.tsx:13",
              "  }, [label])",
              "  }, [label, count])",
              null
            ],
            [
              "src/components/Counter.tsx:17 TS2551",
              "Property does not exist (misspelt)",
              "high",
              "replace",
              "src/components/Counter.tsx:17",
              "      {label.toUppercase()} {count}",
              "      {label.toUpperCase()} {count}",
              null
            ],
            [
              "src/components/Counter.tsx:9 TS2304",
              "useState is used without being imported",
              "high",
              "add_import",
              "src/components/Counter.tsx:1",
              "import { useEffect } from 'react'",
              "import { useEffect, useState } from 'react'",
              null
            ],
            [
              "src/utils/format.ts:12 TS18048",
              "Value is possibly undefined",
              "high",
              "add_null_check",
              "src/utils/format.ts:12",
              null,
              "  if (first === undefined) {\n    // handle the missing value: return, throw, or use a default\n  }",
              null
            ],
            [
              "src/utils/format.ts:2 TS2322",
              "A number assigned where a string is declared",
              "high",
              "replace",
              "src/utils/format.ts:2",
              "  const dollars: string = cents / 100",
              "  const dollars: string = String(cents / 100)",
              null
            ],
            [
              "src/utils/format.ts:6 TS7006",
              "Parameter implicitly has an any type",
              "high",
              "add_type_annotation",
              "src/utils/format.ts:6",
              "export function total(items) {",
              "export function total(items: unknown) {",
              null
            ],
            [
              "src/utils/math.test.ts:12 test-failure",
              "Failing assertion",
              "high",
              "update_test_or_code",
              "src/utils/math.ts:5",
              null,
              null,
              null
            ],
            [
              "src/utils/math.test.ts:6 test-failure",
              "Failing assertion",
              "high",
              "update_test_or_code",
              "src/utils/math.ts:1",
              null,
              null,
              null
            ]
          ]
        )
        // The failing tests point at the code under test, quoted.
        const range = result.diagnoses.find((d: any) => d.problem.line === 12 && d.problem.code === "test-failure")
        assert.include(range.fix[0].description, "7 |   for (let i = start; i < end; i++) out.push(i)")
        assert.include(range.rootCause, "stops one early")
        // Every diagnosis shows the source around its line.
        for (const d of result.diagnoses) assert.include(d.context, `| `, d.problem.code)
      }),
    120_000
  )

  it.live(
    "steps and files narrow the run: the linter and Vitest get the files, the typecheck's report is filtered",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("broken-app"))
        const result = (yield* fe.callToolStructured("fe_verify", {
          steps: ["typecheck", "lint"],
          files: ["src/utils/format.ts"],
          maxProblems: 2
        })) as any
        assert.deepStrictEqual(
          result.steps.map((s: any) => [s.step, s.status, s.errors]),
          [
            ["typecheck", "failed", 3],
            ["lint", "passed", 0]
          ]
        )
        assert.strictEqual(
          result.steps[1].command,
          "node_modules/eslint/bin/eslint.js --format json ./src/utils/format.ts"
        )
        assert.strictEqual(result.problemsTotal, 3)
        assert.deepStrictEqual(result.problems.map(line), brokenAppTypeErrors.slice(6, 8))

        const tests = (yield* fe.callToolStructured("fe_verify", {
          steps: ["test"],
          files: ["src/utils/math.test.ts"]
        })) as any
        assert.strictEqual(
          tests.steps[0].command,
          "node_modules/vitest/vitest.mjs run --reporter=json --passWithNoTests ./src/utils/math.test.ts"
        )
        assert.deepStrictEqual(tests.steps[0].tests, { total: 3, passed: 1, failed: 2, skipped: 0 })
      }),
    120_000
  )

  it.live(
    "files may name a directory; a source file with no test leaves the test step skipped, not passed",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("broken-app"))
        const dir = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck"], files: ["src/utils"] })) as any
        assert.deepStrictEqual(dir.problems.map(line), brokenAppTypeErrors.slice(6))
        const noTest = (yield* fe.callToolStructured("fe_verify", { steps: ["test"], files: ["src/api.ts"] })) as any
        assert.strictEqual(noTest.steps[0].status, "skipped")
        assert.include(noTest.steps[0].detail, "No test file matched src/api.ts")
      }),
    120_000
  )

  it.live(
    "a Biome + Jest project: Biome's JSON reporter and Jest's JSON report, read as the same problems",
    () =>
      Effect.gen(function* () {
        const fe = yield* feOn(fixtureDir("biome-jest-app"))
        const result = (yield* fe.callToolStructured("fe_verify", {})) as any
        assert.deepStrictEqual(result.project, {
          framework: "none",
          packageManager: "npm",
          tsconfig: "tsconfig.json",
          linter: "biome",
          testRunner: "jest"
        })
        assert.deepStrictEqual(
          result.steps.map((s: any) => [s.step, s.status, s.tool, s.command]),
          [
            [
              "typecheck",
              "failed",
              "tsc 6.0.3",
              "node_modules/typescript/bin/tsc --noEmit --pretty false -p tsconfig.json"
            ],
            [
              "lint",
              "passed",
              "biome 2.6.8",
              "node_modules/@biomejs/biome/bin/biome lint --reporter=json --colors=off ."
            ],
            ["test", "failed", "jest 30.5.2", "node_modules/jest/bin/jest.js --json --ci --passWithNoTests"]
          ]
        )
        assert.deepStrictEqual(result.steps[2].tests, { total: 2, passed: 1, failed: 1, skipped: 0 })
        assert.deepStrictEqual(result.problems.map(line), [
          "src/cart.ts:15:14 error TS2322 Type 'number' is not assignable to type 'string'.",
          "src/discount.test.js:4:29 error test-failure Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 180\nReceived: 0",
          "src/cart.ts:11:38 warning lint/suspicious/noExplicitAny Unexpected any. Specify a different type."
        ])
        assert.deepStrictEqual(result.problems[1].test, { name: "takes ten percent off", expected: "180", actual: "0" })
        assert.deepStrictEqual(
          [result.problems[2].source, result.problems[2].endLine, result.problems[2].endColumn],
          ["biome", 11, 41]
        )

        const narrowed = (yield* fe.callToolStructured("fe_verify", {
          steps: ["test"],
          files: ["src/discount.test.js"]
        })) as any
        assert.strictEqual(
          narrowed.steps[0].command,
          "node_modules/jest/bin/jest.js --json --ci --passWithNoTests --runTestsByPath ./src/discount.test.js"
        )
        assert.deepStrictEqual(narrowed.steps[0].tests, { total: 2, passed: 1, failed: 1, skipped: 0 })
      }),
    120_000
  )
})
