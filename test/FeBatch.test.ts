/**
 * fe_batch through the test kit over the real Node workspace and command
 * runner, on copies of the fixture projects with their own tsc and ESLint:
 * a batch that breaks the typecheck is rolled back byte for byte (every
 * file of the copy compared with Buffer.equals, nothing created); the same
 * batch with keepIfWorse is kept; the broken app's computed diagnoses
 * applied in one batch by id (fewer errors, none new); a dry run; an
 * operation failing half-way (nothing written); 500 operations applied as
 * one change and 501 refused; `compareVerify` on its own.
 */
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { compareVerify } from "../capabilities/fe/batch.ts"
import { FeCapability } from "../capabilities/fe/index.ts"
import type { VerifyResult } from "../capabilities/fe/verify.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { copyFixture } from "./support/feFixtures.ts"

const temps: Array<string> = []
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** A copy of a fixture (its node_modules too: the project's own tools run from the copy). */
const copyOf = (fixture: "react-app" | "broken-app"): string => {
  const dir = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-batch-")))
  temps.push(dir)
  return copyFixture(fixture, join(dir, fixture))
}

const feOn = (root: string) =>
  TestClient.make(
    FeCapability.pipe(
      Layer.provide(NodeCommandRunner.layer()),
      Layer.provide(NodeWorkspace.layer({ root })),
      Layer.provide(Layer.succeed(WorkspaceRoot, root)),
      Layer.provideMerge(ServerConfig.layer({ shutdownGraceMs: 0 }))
    )
  )

/** Every file of the project but node_modules, with its bytes. */
const snapshot = (root: string): Map<string, Buffer> => {
  const files = new Map<string, Buffer>()
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    if (
      path
        .slice(root.length + 1)
        .split("/")
        .includes("node_modules")
    )
      continue
    files.set(path.slice(root.length + 1), readFileSync(path))
  }
  return files
}

const assertSameBytes = (before: Map<string, Buffer>, after: Map<string, Buffer>) => {
  assert.deepStrictEqual([...after.keys()].sort(), [...before.keys()].sort(), "no file created or deleted")
  for (const [path, bytes] of before) assert.isTrue(bytes.equals(after.get(path)!), `${path} has its exact bytes`)
}

const errorText = (result: { readonly content: ReadonlyArray<any> }) =>
  result.content.map((c: any) => (typeof c.text === "string" ? c.text : "")).join("\n")

// Breaks the typecheck: formatPrice takes a string now, and two files call it with numbers.
const breaking = [
  {
    op: "replace_text",
    file: "src/utils/format.ts",
    oldText: "export function formatPrice(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`",
    newText: "export function formatPrice(cents: string): string {\n  return `$${cents}`"
  },
  { op: "replace_text", file: "src/App.tsx", oldText: "<h1>Shopping list</h1>", newText: "<h1>Groceries</h1>" }
]

describe("fe_batch", { timeout: 240_000 }, () => {
  it.live("a batch that makes the typecheck fail is rolled back to the exact previous bytes", () =>
    Effect.gen(function* () {
      const root = copyOf("react-app")
      // Bytes a rollback must keep: a BOM, CRLF line ends and non-ASCII text in a file the batch edits.
      const app = join(root, "src/App.tsx")
      writeFileSync(
        app,
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from(readFileSync(app, "utf8").replace(/\n/g, "\r\n").replace("Shopping list", "Shopping list — café"))
        ])
      )
      const before = snapshot(root)
      const fe = yield* feOn(root)
      const result = (yield* fe.callToolStructured("fe_batch", {
        operations: [
          breaking[0],
          { ...breaking[1], oldText: "<h1>Shopping list — café</h1>", newText: "<h1>Groceries — café</h1>" }
        ],
        confirm: true
      })) as any
      assert.isFalse(result.applied)
      assert.isTrue(result.rolledBack)
      assert.match(result.reason, /new error/)
      assert.strictEqual(result.verify.before.errors, 0)
      assert.isAbove(result.verify.after.errors, 0)
      assert.isTrue(result.verify.newProblems.every((p: any) => p.code.startsWith("TS")))
      assert.includeMembers(
        result.verify.newProblems.map((p: any) => p.file),
        ["src/App.tsx", "src/components/ItemList.tsx"],
        "the importers' errors are found too"
      )
      assert.includeMembers(result.verify.files, ["src/utils/format.ts", "src/App.tsx", "src/components/ItemList.tsx"])
      assert.deepStrictEqual(result.files.map((f: any) => f.path).sort(), ["src/App.tsx", "src/utils/format.ts"])
      assert.include(
        result.files.find((f: any) => f.path === "src/utils/format.ts").diff,
        "+export function formatPrice(cents: string): string {"
      )
      assertSameBytes(before, snapshot(root))
    })
  )

  it.live(
    "an error two importers away, through a barrel, is found (the typecheck covers the project): rolled back",
    () =>
      Effect.gen(function* () {
        const root = copyOf("react-app")
        writeFileSync(join(root, "src/utils/helper.ts"), "export const helper = 1\n")
        writeFileSync(join(root, "src/utils/index.ts"), 'export * from "./helper.ts"\n')
        writeFileSync(
          join(root, "src/utils/use.ts"),
          'import { helper } from "./index.ts"\n\nexport const twice = helper * 2\n'
        )
        const before = snapshot(root)
        const fe = yield* feOn(root)
        const result = (yield* fe.callToolStructured("fe_batch", {
          operations: [{ op: "replace_text", file: "src/utils/helper.ts", oldText: "helper", newText: "assist" }],
          confirm: true
        })) as any
        assert.isTrue(result.rolledBack, result.summary)
        assert.strictEqual(result.verify.typecheck, "project")
        assert.deepInclude(
          result.verify.newProblems.map((p: any) => [p.file, p.code]),
          ["src/utils/use.ts", "TS2305"]
        )
        assert.includeMembers(result.verify.files, ["src/utils/helper.ts", "src/utils/index.ts", "src/utils/use.ts"])
        assertSameBytes(before, snapshot(root))
      })
  )

  it.live("keepIfWorse keeps the change and says it got worse", () =>
    Effect.gen(function* () {
      const root = copyOf("react-app")
      const fe = yield* feOn(root)
      const result = (yield* fe.callToolStructured("fe_batch", {
        operations: breaking,
        keepIfWorse: true,
        steps: ["typecheck"],
        confirm: true
      })) as any
      assert.isTrue(result.applied)
      assert.isFalse(result.rolledBack)
      assert.match(result.reason, /^kept although worse: /)
      assert.include(readFileSync(join(root, "src/utils/format.ts"), "utf8"), "formatPrice(cents: string)")
      assert.include(readFileSync(join(root, "src/App.tsx"), "utf8"), "<h1>Groceries</h1>")
    })
  )

  it.live("the broken app's computed diagnoses, applied in one batch by id: fewer errors, none new", () =>
    Effect.gen(function* () {
      const root = copyOf("broken-app")
      const fe = yield* feOn(root)
      const verified = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck", "lint"] })) as any
      assert.strictEqual(verified.problemsTotal, 13)
      const doctor = (yield* fe.callToolStructured("fe_doctor", { limit: 20 })) as any
      const applicable = doctor.diagnoses.filter((d: any) => d.surgeon !== undefined)
      assert.isAtLeast(
        applicable.length,
        4,
        doctor.diagnoses.map((d: any) => `${d.problem.code} ${d.confidence}`).join(", ")
      )
      for (const d of applicable) assert.deepStrictEqual(d.surgeon, { op: "apply_diagnosis", id: d.id })
      assert.include(doctor.next, "fe_batch")
      const codes = applicable.map((d: any) => d.problem.code)
      assert.includeMembers(codes, ["TS2304", "TS2551", "prefer-const", "@typescript-eslint/no-explicit-any"])
      // All of them: `any` → `unknown` (no-explicit-any, TS7006) makes new errors where the value is used: rolled back.
      const before = snapshot(root)
      const all = (yield* fe.callToolStructured("fe_batch", {
        operations: applicable.map((d: any) => d.surgeon),
        confirm: true
      })) as any
      assert.isTrue(all.rolledBack, all.summary)
      assert.match(all.reason, /new error/)
      assert.isTrue(
        all.verify.newProblems.some((p: any) => p.code === "TS18046"),
        JSON.stringify(all.verify.newProblems)
      )
      assert.include(all.next, "fe_doctor")
      assertSameBytes(before, snapshot(root))
      // Without the fixes that widen to unknown: applied, fewer errors, none new.
      const widening = new Set(["@typescript-eslint/no-explicit-any", "TS7006"])
      const chosen = applicable.filter((d: any) => !widening.has(d.problem.code))
      const result = (yield* fe.callToolStructured("fe_batch", {
        operations: chosen.map((d: any) => d.surgeon),
        confirm: true
      })) as any
      assert.isTrue(result.applied, JSON.stringify(result.verify?.newProblems))
      assert.isFalse(result.rolledBack)
      assert.deepStrictEqual(result.verify.newProblems, [])
      assert.isAtLeast(result.verify.fixed, chosen.length - 1)
      assert.isBelow(result.verify.after.errors, result.verify.before.errors)
      // Each check's step names its whole output, readable as a resource.
      const afterTypecheck = result.verify.after.steps.find((s: any) => s.step === "typecheck")
      assert.match(afterTypecheck.log, /^fe:\/\/build\/[0-9a-f]{8}-typecheck$/)
      assert.notStrictEqual(afterTypecheck.log, result.verify.before.steps[0].log)
      assert.include((yield* fe.readResource(afterTypecheck.log))[0].text, "fe_verify typecheck (run ")
      // tsc's TS6133 and ESLint's no-unused-vars name one edit: applied once.
      assert.isTrue(
        result.operations.some((o: any) => /already applied by operation/.test(o.summary)),
        result.operations.map((o: any) => o.summary).join("\n")
      )
      const counter = readFileSync(join(root, "src/components/Counter.tsx"), "utf8")
      assert.include(counter, "toUpperCase()")
      assert.match(counter, /import \{[^}]*useState[^}]*\} from ['"]react['"]/)
      assert.include(readFileSync(join(root, "src/api.ts"), "utf8"), "const url")
      // The diagnoses are gone from a fresh verify too.
      const again = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck", "lint"] })) as any
      const left = again.problems.map((p: any) => p.code)
      for (const code of ["TS2304", "TS2551", "prefer-const"]) assert.notInclude(left, code)
    })
  )

  it.live("a dry run and an operation failing half-way write nothing", () =>
    Effect.gen(function* () {
      const root = copyOf("react-app")
      const before = snapshot(root)
      const fe = yield* feOn(root)
      const dry = (yield* fe.callToolStructured("fe_batch", {
        operations: breaking,
        dryRun: true,
        confirm: true
      })) as any
      assert.isFalse(dry.applied)
      assert.strictEqual(dry.files.length, 2)
      assert.isUndefined(dry.verify)
      assertSameBytes(before, snapshot(root))
      const failing = yield* fe.callTool("fe_batch", {
        operations: [
          breaking[1],
          { op: "replace_text", file: "src/App.tsx", oldText: "no such text anywhere", newText: "x" },
          breaking[0]
        ],
        confirm: true
      })
      assert.isTrue(failing.isError)
      assert.match(errorText(failing), /no such text anywhere|not found|does not occur/i)
      assertSameBytes(before, snapshot(root))
    })
  )

  it.live("500 operations are one change; 501 are refused with nothing written", () =>
    Effect.gen(function* () {
      const dir = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-batch-many-")))
      temps.push(dir)
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "many", private: true }))
      const lines = Array.from({ length: 501 }, (_, i) => `export const value${i} = ${i}`)
      writeFileSync(join(dir, "values.ts"), lines.join("\n") + "\n")
      const fe = yield* feOn(dir)
      const op = (i: number) => ({
        op: "replace_text",
        file: "values.ts",
        oldText: `value${i} = ${i}\n`,
        newText: `value${i} = ${i * 2}\n`
      })
      const tooMany = yield* fe.callTool("fe_batch", {
        operations: Array.from({ length: 501 }, (_, i) => op(i)),
        confirm: true
      })
      assert.isTrue(tooMany.isError)
      assert.match(errorText(tooMany), /500/)
      assert.strictEqual(readFileSync(join(dir, "values.ts"), "utf8"), lines.join("\n") + "\n")
      const result = (yield* fe.callToolStructured("fe_batch", {
        operations: Array.from({ length: 500 }, (_, i) => op(i)),
        confirm: true
      })) as any
      assert.isTrue(result.applied, result.summary)
      assert.strictEqual(result.operations.length, 500)
      const after = readFileSync(join(dir, "values.ts"), "utf8").split("\n")
      assert.strictEqual(after[499], "export const value499 = 998")
      assert.strictEqual(after[500], "export const value500 = 500")
    })
  )
})

describe("compareVerify", () => {
  const problem = (file: string, line: number, code: string, severity: "error" | "warning" = "error") => ({
    source: "typescript" as const,
    kind: "type" as const,
    file,
    line,
    column: 1,
    code,
    message: `${code} in ${file}`,
    severity,
    suggestion: ""
  })
  const result = (problems: ReadonlyArray<ReturnType<typeof problem>>, status: "passed" | "failed"): VerifyResult => ({
    ok: status === "passed",
    project: { framework: "none", packageManager: "npm", tsconfig: null, linter: "none", testRunner: "none" },
    steps: [
      {
        step: "typecheck",
        tool: "tsc",
        status,
        command: "",
        durationMs: 0,
        errors: problems.filter((p) => p.severity === "error").length,
        warnings: problems.filter((p) => p.severity === "warning").length,
        detail: "",
        runIds: []
      }
    ],
    problems,
    problemsTotal: problems.length,
    summary: "",
    next: ""
  })

  it("a problem that only moved lines is not new; a new one is; fixed ones are counted", () => {
    const before = result([problem("a.ts", 3, "TS1"), problem("b.ts", 1, "TS2")], "failed")
    const moved = compareVerify(before, result([problem("a.ts", 9, "TS1")], "failed"))
    assert.isUndefined(moved.worse)
    assert.strictEqual(moved.fixed, 1)
    const worse = compareVerify(
      before,
      result([problem("a.ts", 3, "TS1"), problem("b.ts", 1, "TS2"), problem("b.ts", 5, "TS2")], "failed")
    )
    assert.match(worse.worse!, /^1 new error \(b\.ts:5 TS2\)$/)
    assert.strictEqual(worse.newProblems.length, 1)
  })

  it("more errors in a step than before is worse even when the lists (cut at maxProblems) show none new", () => {
    const before = result([problem("a.ts", 1, "TS1")], "failed")
    const after = result([problem("a.ts", 1, "TS1")], "failed")
    const more: VerifyResult = { ...after, steps: [{ ...after.steps[0]!, errors: 5 }] }
    assert.strictEqual(compareVerify(before, more).worse, "the typecheck step has more errors (1 → 5)")
  })

  it("a new warning alone is not worse; a step that passed and now errors is", () => {
    const clean = result([], "passed")
    assert.isUndefined(compareVerify(clean, result([problem("a.ts", 1, "W", "warning")], "passed")).worse)
    const broken = result([], "passed")
    const errored: VerifyResult = {
      ...broken,
      steps: [{ ...broken.steps[0]!, status: "error", detail: "tsc crashed" }]
    }
    assert.match(compareVerify(clean, errored).worse!, /typecheck step passed before and is now error: tsc crashed/)
  })
})
