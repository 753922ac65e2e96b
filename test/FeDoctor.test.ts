/**
 * fe_doctor's rules against REAL messages: a temporary project with one
 * snippet per TypeScript code is checked by the real tsc (TypeScript 6, the
 * broken fixture's own install), its output parsed as fe_verify parses it,
 * and every code must be produced by its snippet and get a known diagnosis
 * — with the exact before/after text where the rule computes one. Lint and
 * test messages are the ones ESLint 10, react-hooks 7, Vitest 5 and Jest 30
 * print (copied from their runs; the fixture tests run the real tools). The
 * tool itself is called through the test kit: no problem, a problem, pasted
 * tsc and ESLint output, an unknown code.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { diagnosisOf, problemsInText, ruleFor } from "../capabilities/fe/diagnosis/diagnose.ts"
import { lintRules } from "../capabilities/fe/diagnosis/lint.ts"
import { typescriptRules } from "../capabilities/fe/diagnosis/typescript.ts"
import { doctor } from "../capabilities/fe/doctor.ts"
import type { ProblemInput } from "../capabilities/fe/problem.ts"
import type { ProjectInfo } from "../capabilities/fe/project.ts"
import { FeState } from "../capabilities/fe/state.ts"
import { parseTsc } from "../capabilities/fe/verify/parse.ts"
import * as Capability from "../src/Capability.ts"
import { MemoryWorkspace, TestClient } from "../src/testing.ts"
import { fixtureDir } from "./support/feFixtures.ts"

/** One snippet per code: the file, its text, and the code tsc must report in it. */
const snippets: ReadonlyArray<readonly [code: string, file: string, text: string]> = [
  [
    "TS2304",
    "s/cannotFind.ts",
    "import { useEffect } from 'react'\nuseEffect(() => {})\nexport const [count, setCount] = useState(0)\n"
  ],
  ["TS2552", "s/misspelt.ts", "const value = 1\nexport const v = valeu + value\n"],
  // With compilerOptions.types set, tsc says TS2591/TS2593 (without it, TS2580/TS2582: the same rules).
  ["TS2591", "s/nodeGlobal.ts", "export const argv = process.argv\n"],
  ["TS2593", "s/testGlobal.ts", "describe('x', () => {})\n"],
  ["TS2307", "s/missingModule.ts", "import pad from 'left-pad-nowhere'\nexport const p = pad\n"],
  ["TS2305", "s/noExport.ts", "import { two } from './lib'\nexport const t = two\n"],
  ["TS2724", "s/noExportMisspelt.ts", "import { onee } from './lib'\nexport const o = onee\n"],
  ["TS2614", "s/namedDefault.ts", "import { greeting } from './withDefault'\nexport const g = greeting\n"],
  ["TS1192", "s/noDefault.ts", "import lib from './lib'\nexport const l = lib\n"],
  ["TS2322", "s/assign.ts", "export const label: string = 42\n"],
  ["TS2345", "s/argument.ts", "function shout(text: string) {\n  return text\n}\nexport const id = 7\nshout(id)\n"],
  [
    "TS2339",
    "s/property.ts",
    "interface User {\n  name: string\n}\ndeclare const user: User\nexport const f = user.fullName\n"
  ],
  ["TS2551", "s/propertyMisspelt.ts", "export const up = 'a'.toUppercase()\n"],
  ["TS2531", "s/objectNull.ts", "declare function find(): { id: number } | null\nexport const id = find().id\n"],
  [
    "TS2532",
    "s/objectUndefined.ts",
    "declare function find(): { id: number } | undefined\nexport const id = find().id\n"
  ],
  [
    "TS2533",
    "s/objectNullish.ts",
    "declare function find(): { id: number } | undefined | null\nexport const id = find().id\n"
  ],
  ["TS18047", "s/valueNull.ts", "declare const node: { id: number } | null\nexport const id = node.id\n"],
  [
    "TS18048",
    "s/valueUndefined.ts",
    "export function initial(names: string[]): string {\n  const first = names.find((name) => name.length > 0)\n  return first.slice(0, 1)\n}\n"
  ],
  [
    "TS18049",
    "s/valueNullish.ts",
    "declare const node: { id: number } | null | undefined\nexport const id = node.id\n"
  ],
  ["TS18046", "s/unknownCatch.ts", "try {\n  JSON.parse('x')\n} catch (error) {\n  console.log(error.message)\n}\n"],
  ["TS7006", "s/implicitAny.ts", "export function total(items) {\n  return items.length\n}\n"],
  ["TS7031", "s/bindingAny.ts", "export function Card({ title }) {\n  return title\n}\n"],
  ["TS7016", "s/untyped.ts", "import untyped from 'untyped-lib'\nexport const u = untyped\n"],
  [
    "TS7053",
    "s/index.ts",
    "const prices = { apple: 1 }\ndeclare const key: string\nexport const price = prices[key]\n"
  ],
  ["TS2554", "s/arity.ts", "function one(a: number) {\n  return a\n}\none()\n"],
  ["TS2555", "s/atLeast.ts", "function some(a: number, ...rest: number[]) {\n  return a + rest.length\n}\nsome()\n"],
  [
    "TS2741",
    "s/missingProperty.ts",
    "interface Props {\n  a: number\n  b: string\n}\nexport const p: Props = { a: 1 }\n"
  ],
  [
    "TS2739",
    "s/missingProperties.ts",
    "interface Props {\n  a: number\n  b: string\n  c: boolean\n}\nexport const p: Props = { a: 1 }\n"
  ],
  ["TS2353", "s/excessProperty.ts", "export const p: { a: number } = { a: 1, z: 2 }\n"],
  ["TS2367", "s/noOverlap.ts", "declare const n: number\nexport const same = n === 'a'\n"],
  ["TS2564", "s/uninitialized.ts", "export class Box {\n  size: number\n}\n"],
  ["TS2454", "s/unassigned.ts", "let value: number\nexport const v = value\n"],
  ["TS2448", "s/beforeDeclaration.ts", "export const a = b\nconst b = 1\n"],
  ["TS2588", "s/constant.ts", "const limit = 1\nlimit = 2\nexport { limit }\n"],
  ["TS2540", "s/readonly.ts", "const point: { readonly x: number } = { x: 1 }\npoint.x = 2\nexport { point }\n"],
  ["TS2349", "s/notCallable.ts", "const count = 1\nexport const c = count()\n"],
  [
    "TS2769",
    "s/overload.ts",
    "declare function over(a: string): void\ndeclare function over(a: number): void\nover(true)\n"
  ],
  ["TS2584", "s/lib.ts2584.ts", "console.log(1)\n"],
  ["TS7026", "s/jsxIntrinsic.tsx", "export const el = <span />\n"],
  ["TS2355", "s/mustReturn.ts", "export function answer(): number {}\n"],
  ["TS2366", "s/endingReturn.ts", "export function sign(x: boolean): number {\n  if (x) return 1\n}\n"],
  ["TS2365", "s/operator.ts", "export const sum = true + 1\n"],
  [
    "TS2300",
    "s/duplicate.ts",
    "interface Shape {\n  a: number\n}\ntype Shape = { b: number }\nexport type { Shape }\n"
  ],
  ["TS2393", "s/duplicateFunction.ts", "function twice() {}\nfunction twice() {}\nexport { twice }\n"],
  ["TS2503", "s/namespace.ts", "export let handler: Missing.Handler\n"],
  ["TS6133", "s/unusedLocal.ts", "export function f() {\n  const unused = 'hello'\n  return 1\n}\n"],
  ["TS6192", "s/unusedImports.ts", "import { one, three } from './lib'\nexport const x = 1\n"],
  ["TS6196", "s/unusedType.ts", "interface Unused {\n  a: number\n}\nexport const x = 1\n"],
  ["TS5097", "s/tsExtension.ts", "import { one } from './lib.ts'\nexport const o = one\n"],
  ["TS17004", "s/jsx.tsx", "export const el = <div />\n"],
  // Node16/NodeNext resolution (n16/, a project of its own with "type": "module").
  ["TS2835", "n16/importer.ts", "import { a } from './exporter'\nexport const b = a\n"],
  ["TS2571", "n16/unknownObject.ts", "export const y = (JSON.parse('1') as unknown).x\n"],
  // Syntax errors stop tsc before the semantic checks: these are a project of their own (syntax/).
  ["TS1005", "syntax/s1005.ts", "export const x = (1\n"],
  ["TS1128", "syntax/s1128.ts", "export const y = 1\n}\n"],
  ["TS1109", "syntax/s1109.ts", "export const z = \n"]
]

const project: ProjectInfo = {
  name: "snippets",
  framework: "react",
  packageManager: "pnpm",
  lockfile: "pnpm-lock.yaml",
  tsconfig: "tsconfig.json",
  linter: "eslint",
  testRunner: "vitest",
  sourceDir: "s",
  dependencies: ["react", "vitest"]
}

let root = ""
let problems: ReadonlyArray<ProblemInput> = []
const linesOf = (file: string) => readFileSync(join(root, file), "utf8").split("\n")

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "fe-doctor-")))
  const files: Record<string, string> = {
    "tsconfig.json": JSON.stringify({
      compilerOptions: {
        strict: true,
        noUnusedLocals: true,
        target: "ES2022",
        lib: ["ES2022"],
        module: "ESNext",
        moduleResolution: "bundler",
        moduleDetection: "force",
        types: [],
        noEmit: true,
        skipLibCheck: true
      },
      include: ["s"]
    }),
    "s/lib.ts": "export const one = 1\nexport const three = 3\n",
    "n16/exporter.ts": "export const a = 1\n",
    "n16/package.json": JSON.stringify({ type: "module" }),
    "tsconfig.n16.json": JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "ES2022",
        noEmit: true,
        skipLibCheck: true
      },
      include: ["n16"]
    }),
    "s/withDefault.ts": "export default function greeting() {\n  return 'hi'\n}\n",
    "node_modules/untyped-lib/package.json": JSON.stringify({ name: "untyped-lib", main: "index.js" }),
    "node_modules/untyped-lib/index.js": "module.exports = 1\n",
    ...Object.fromEntries(snippets.map(([, file, text]) => [file, text]))
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  const tsc = join(fixtureDir("broken-app"), "node_modules/typescript/bin/tsc")
  const check = (tsconfig: string) => {
    try {
      return execFileSync(process.execPath, [tsc, "--noEmit", "--pretty", "false", "-p", tsconfig], {
        cwd: root,
        encoding: "utf8"
      })
    } catch (error) {
      return (error as { stdout: string }).stdout
    }
  }
  writeFileSync(join(root, "tsconfig.syntax.json"), JSON.stringify({ extends: "./tsconfig.json", include: ["syntax"] }))
  problems = [
    ...parseTsc(check("tsconfig.json"), [root]),
    ...parseTsc(check("tsconfig.syntax.json"), [root]),
    ...parseTsc(check("tsconfig.n16.json"), [root])
  ]
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const problemFor = (code: string, file: string): ProblemInput => {
  const found = problems.find((p) => p.code === code && p.file === file)
  assert.isDefined(
    found,
    `tsc reported no ${code} in ${file}; it reported: ${problems.map((p) => `${p.file} ${p.code}`).join(", ")}`
  )
  return found!
}

const diagnosed = (code: string) => {
  const snippet = snippets.find(([c]) => c === code)!
  const problem = problemFor(code, snippet[1])
  return diagnosisOf(problem, linesOf(snippet[1]), { related: new Map(), project })
}

describe("fe_doctor's TypeScript rules, on real tsc messages", () => {
  it("covers at least 25 codes, each produced by its snippet and diagnosed as known", () => {
    assert.isAtLeast(snippets.length, 25)
    for (const [code] of snippets) {
      assert.isDefined(typescriptRules[code], `no rule for ${code}`)
      const diagnosis = diagnosed(code)
      assert.isTrue(diagnosis.known, code)
      assert.isAbove(diagnosis.fix.length, 0, code)
      assert.isAbove(diagnosis.rootCause.length, 20, code)
      assert.include(diagnosis.context, `> ${diagnosis.problem.line} |`.padStart(0), code)
      assert.include(diagnosis.next, "fe_verify", code)
    }
  })

  const edit = (code: string, index = 0) => {
    const step = diagnosed(code).fix[index]!
    return [step.operation, step.line, step.before, step.after]
  }

  it("computes the exact edit where the message and the line say enough", () => {
    assert.deepStrictEqual(edit("TS2304"), [
      "add_import",
      1,
      "import { useEffect } from 'react'",
      "import { useEffect, useState } from 'react'"
    ])
    assert.deepStrictEqual(edit("TS2552"), [
      "replace",
      2,
      "export const v = valeu + value",
      "export const v = value + value"
    ])
    assert.deepStrictEqual(edit("TS2724"), [
      "replace",
      1,
      "import { onee } from './lib'",
      "import { one } from './lib'"
    ])
    assert.deepStrictEqual(edit("TS2614"), [
      "replace",
      1,
      "import { greeting } from './withDefault'",
      "import greeting from './withDefault'"
    ])
    assert.deepStrictEqual(edit("TS2322"), [
      "replace",
      1,
      "export const label: string = 42",
      "export const label: string = String(42)"
    ])
    assert.deepStrictEqual(edit("TS2345"), ["replace", 5, "shout(id)", "shout(String(id))"])
    assert.deepStrictEqual(edit("TS2551"), [
      "replace",
      1,
      "export const up = 'a'.toUppercase()",
      "export const up = 'a'.toUpperCase()"
    ])
    assert.deepStrictEqual(edit("TS18047", 1), [
      "replace",
      2,
      "export const id = node.id",
      "export const id = node?.id"
    ])
    assert.deepStrictEqual(edit("TS18048"), [
      "add_null_check",
      3,
      undefined,
      "  if (first === undefined) {\n    // handle the missing value: return, throw, or use a default\n  }"
    ])
    assert.deepStrictEqual(edit("TS7006"), [
      "add_type_annotation",
      1,
      "export function total(items) {",
      "export function total(items: unknown) {"
    ])
    assert.deepStrictEqual(edit("TS6133"), ["delete", 2, "  const unused = 'hello'", undefined])
    assert.deepStrictEqual(edit("TS2835"), [
      "replace",
      1,
      "import { a } from './exporter'",
      "import { a } from './exporter.js'"
    ])
    // "Object is possibly 'undefined'": the object is the call at the column, not the quoted 'undefined'.
    const object = diagnosed("TS2532")
    assert.include(object.rootCause, "find() at s/objectUndefined.ts:2 can be undefined")
    assert.notInclude(JSON.stringify(object.fix), "undefined === undefined")
    assert.deepStrictEqual(
      [object.fix[1]!.before, object.fix[1]!.after],
      ["export const id = find().id", "export const id = find()?.id"]
    )
    assert.deepStrictEqual(edit("TS2588"), ["replace", 1, "const limit = 1", "let limit = 1"])
  })

  it("names the package manager's command for a missing package, and what is quoted in the message", () => {
    const missing = diagnosed("TS2307")
    assert.strictEqual(missing.fix[0]!.command, "pnpm add left-pad-nowhere")
    assert.strictEqual(diagnosed("TS7016").fix[0]!.command, "pnpm add -D @types/untyped-lib")
    assert.strictEqual(diagnosed("TS2591").fix[0]!.command, "pnpm add -D @types/node")
    // A test global in a Vitest project is imported from vitest.
    assert.strictEqual(diagnosed("TS2593").fix[0]!.after, 'import { describe } from "vitest"')
    const property = diagnosed("TS2339")
    assert.include(property.rootCause, "fullName")
    assert.include(property.rootCause, "User is declared on line 1")
    assert.strictEqual(property.fix[1]!.line, 1)
    assert.include(diagnosed("TS2305").rootCause, "./lib exports nothing named two")
  })
})

const lintProblem = (
  code: string,
  message: string,
  line: number,
  column: number,
  severity: "error" | "warning" = "error"
): ProblemInput => ({
  source: "eslint",
  kind: "lint",
  file: "src/a.tsx",
  line,
  column,
  code,
  message,
  severity
})

describe("fe_doctor's lint rules", () => {
  const lines = [
    "import { useEffect, useState } from 'react'",
    "export function Counter({ label, step }: { label: string; step: number }) {",
    "  const [count, setCount] = useState(0)",
    "  useEffect(() => {",
    "    document.title = `${label}: ${count} ${step}`",
    "  }, [label])",
    "  let url = `/api/${count}`",
    "  const data: any = JSON.parse(url)",
    "  const unused = 'hello'",
    "  if (data == null) return null",
    "  return <button onClick={() => setCount(count + step)}>{label}</button>",
    "}"
  ]
  const diagnose = (problem: ProblemInput) => diagnosisOf(problem, lines, { related: new Map(), project })

  it("react-hooks/exhaustive-deps: the dependency array with what is missing", () => {
    const one = diagnose(
      lintProblem(
        "react-hooks/exhaustive-deps",
        "React Hook useEffect has a missing dependency: 'count'. Either include it or remove the dependency array.",
        6,
        6,
        "warning"
      )
    )
    assert.deepStrictEqual([one.fix[0]!.before, one.fix[0]!.after], ["  }, [label])", "  }, [label, count])"])
    const two = diagnose(
      lintProblem(
        "react-hooks/exhaustive-deps",
        "React Hook useEffect has missing dependencies: 'count' and 'step'. Either include them or remove the dependency array.",
        6,
        6,
        "warning"
      )
    )
    assert.strictEqual(two.fix[0]!.after, "  }, [label, count, step])")
    assert.include(two.rootCause, "count, step")
  })

  it("prefer-const, no-explicit-any, no-unused-vars, eqeqeq: exact line edits", () => {
    const after = (problem: ProblemInput) => diagnose(problem).fix[0]!.after
    assert.strictEqual(
      after(lintProblem("prefer-const", "'url' is never reassigned. Use 'const' instead.", 7, 7)),
      "  const url = `/api/${count}`"
    )
    assert.strictEqual(
      after(lintProblem("@typescript-eslint/no-explicit-any", "Unexpected any. Specify a different type.", 8, 15)),
      "  const data: unknown = JSON.parse(url)"
    )
    const unused = diagnose(
      lintProblem("@typescript-eslint/no-unused-vars", "'unused' is assigned a value but never used.", 9, 9)
    )
    assert.deepStrictEqual([unused.fix[0]!.operation, unused.fix[0]!.before], ["delete", "  const unused = 'hello'"])
    assert.strictEqual(
      after(lintProblem("eqeqeq", "Expected '===' and instead saw '=='.", 10, 12)),
      "  if (data === null) return null"
    )
  })

  it("knows the common rules and Biome's names for them", () => {
    for (const rule of [
      "react-hooks/exhaustive-deps",
      "react-hooks/rules-of-hooks",
      "react-refresh/only-export-components",
      "no-unused-vars",
      "@typescript-eslint/no-unused-vars",
      "@typescript-eslint/no-explicit-any",
      "prefer-const",
      "no-undef",
      "eqeqeq",
      "no-console",
      "no-debugger",
      "no-empty",
      "@typescript-eslint/ban-ts-comment",
      "@typescript-eslint/no-non-null-assertion",
      "react/jsx-key",
      "lint/suspicious/noExplicitAny",
      "lint/correctness/noUnusedVariables",
      "lint/correctness/useExhaustiveDependencies",
      "lint/style/useConst"
    ]) {
      assert.isDefined(lintRules[rule], rule)
    }
    const biome = diagnosisOf(
      {
        ...lintProblem("lint/suspicious/noExplicitAny", "Unexpected any. Specify a different type.", 8, 15),
        source: "biome"
      },
      lines,
      { related: new Map(), project }
    )
    assert.strictEqual(biome.fix[0]!.after, "  const data: unknown = JSON.parse(url)")
  })
})

describe("fe_doctor's test rules", () => {
  const testLines = ["import { add } from './math.ts'", "", "it('adds', () => {", "  expect(add(2, 3)).toBe(5)", "})"]
  const math = ["export function add(a: number, b: number): number {", "  return a - b", "}"]
  const failure = (message: string, test: ProblemInput["test"]): ProblemInput => ({
    source: "vitest",
    kind: "test",
    file: "src/math.test.ts",
    line: 4,
    column: 21,
    code: "test-failure",
    message,
    severity: "error",
    ...(test !== undefined ? { test } : {})
  })
  const related = new Map([["src/math.ts", math]])

  it("a failing assertion points at the function under test, where it is declared, and the expectation", () => {
    const diagnosis = diagnosisOf(
      failure("AssertionError: expected -1 to be 5 // Object.is equality", {
        name: "adds",
        expected: "5",
        actual: "-1"
      }),
      testLines,
      { related, project }
    )
    assert.include(diagnosis.rootCause, '"adds" fails at src/math.test.ts:4: expected 5 but got -1, for add(2, 3)')
    assert.deepStrictEqual(
      diagnosis.fix.map((s) => [s.operation, s.file, s.line]),
      [
        ["update_test_or_code", "src/math.ts", 1],
        ["update_test_or_code", "src/math.test.ts", 4]
      ]
    )
    assert.include(diagnosis.fix[0]!.description, "2 |   return a - b")
    assert.strictEqual(diagnosis.confidence, "high")
  })

  it("timeouts, mocks not called, thrown errors, a file that failed to load", () => {
    const title = (message: string, code = "test-failure") =>
      diagnosisOf({ ...failure(message, { name: "t" }), code }, testLines, { related, project }).title
    assert.strictEqual(title("Error: Test timed out in 5000ms."), "Test timed out")
    assert.strictEqual(
      title('AssertionError: expected "spy" to be called at least once'),
      "Mock not called as expected"
    )
    assert.strictEqual(
      title("TypeError: Cannot read properties of undefined (reading 'map')"),
      "The test threw a TypeError"
    )
    const file = diagnosisOf(
      {
        ...failure("Error: Cannot find module './missing' imported from src/math.test.ts", undefined),
        code: "test-file-failure"
      },
      testLines,
      { related, project }
    )
    assert.include(file.rootCause, "it imports ./missing, which does not resolve")
  })
})

describe("fe_doctor: unknown codes and pasted output", () => {
  it("an unknown code gets a generic, honest answer", () => {
    const problem: ProblemInput = {
      source: "typescript",
      kind: "type",
      file: "src/a.ts",
      line: 1,
      column: 1,
      code: "TS9999",
      message: "Something new.",
      severity: "error"
    }
    assert.isUndefined(ruleFor(problem))
    const diagnosis = diagnosisOf(problem, ["const a = 1"], { related: new Map(), project })
    assert.isFalse(diagnosis.known)
    assert.strictEqual(diagnosis.confidence, "low")
    assert.include(diagnosis.rootCause, "fe_doctor has no rule for TS9999, so this is not a specific diagnosis")
    assert.include(diagnosis.rootCause, "Something new.")
  })

  it("reads tsc (plain and pretty) and ESLint's stylish output", () => {
    const text = [
      "src/a.ts(3,5): error TS2322: Type 'number' is not assignable to type 'string'.",
      "src/b.ts:7:1 - error TS2304: Cannot find name 'useState'.",
      "",
      "/srv/app/src/api.ts",
      "   9:7   error    'url' is never reassigned. Use 'const' instead  prefer-const",
      "  13:6   warning  React Hook useEffect has a missing dependency: 'count'  react-hooks/exhaustive-deps",
      "",
      "✖ 2 problems (1 error, 1 warning)"
    ].join("\n")
    assert.deepStrictEqual(
      problemsInText(text, "/srv/app").map((p) => [p.file, p.line, p.column, p.code, p.severity]),
      [
        ["src/a.ts", 3, 5, "TS2322", "error"],
        ["src/b.ts", 7, 1, "TS2304", "error"],
        ["src/api.ts", 9, 7, "prefer-const", "error"],
        ["src/api.ts", 13, 6, "react-hooks/exhaustive-deps", "warning"]
      ]
    )
  })
})

describe("fe_doctor through the test kit", () => {
  const files = {
    "package.json": JSON.stringify({ dependencies: { react: "19.0.0" } }),
    "src/a.ts": "export const label: string = 42\n"
  }
  const setup = (last: ReadonlyArray<any> | undefined) =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make(files)
      const state = Layer.succeed(FeState, {
        project: Effect.succeed(project),
        lastVerify: Effect.succeed(last),
        setLastVerify: () => Effect.void
      })
      return yield* TestClient.make(
        Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [doctor] })).pipe(
          Layer.provide(Layer.merge(memory.layer, state))
        )
      )
    })
  const problem: ProblemInput = {
    source: "typescript",
    kind: "type",
    file: "src/a.ts",
    line: 1,
    column: 14,
    code: "TS2322",
    message: "Type 'number' is not assignable to type 'string'.",
    severity: "error"
  }

  it.effect("without arguments: the last verify's problems, or an error naming fe_verify", () =>
    Effect.gen(function* () {
      const none = yield* setup(undefined)
      assert.strictEqual(
        yield* none
          .expectToolError("fe_doctor", {}, "nothing_to_diagnose")
          .pipe(Effect.map((e: any) => e.code ?? "nothing_to_diagnose")),
        "nothing_to_diagnose"
      )
      const clean = yield* setup([])
      const empty = (yield* clean.callToolStructured("fe_doctor", {})) as any
      assert.deepStrictEqual(
        [empty.diagnoses, empty.total, empty.summary],
        [[], 0, "The last fe_verify found no problems: nothing to diagnose."]
      )
      const client = yield* setup([
        { ...problem, suggestion: "x" },
        { ...problem, line: 1, code: "TS9999" }
      ])
      const result = (yield* client.callToolStructured("fe_doctor", { limit: 1 })) as any
      assert.strictEqual(result.total, 2)
      assert.lengthOf(result.diagnoses, 1)
      assert.strictEqual(result.diagnoses[0].fix[0].after, "export const label: string = String(42)")
      assert.strictEqual(result.diagnoses[0].context, "> 1 | export const label: string = 42\n  2 | ")
      assert.include(result.summary, "call again with a larger limit")
    })
  )

  it.effect("one problem, or pasted text; both, or text without a problem, are errors", () =>
    Effect.gen(function* () {
      const client = yield* setup(undefined)
      const one = (yield* client.callToolStructured("fe_doctor", { problem })) as any
      assert.strictEqual(one.diagnoses[0].title, "A number assigned where a string is declared")
      const pasted = (yield* client.callToolStructured("fe_doctor", {
        text: "src/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'."
      })) as any
      assert.deepStrictEqual(pasted.diagnoses[0].fix, one.diagnoses[0].fix)
      yield* client.expectToolError("fe_doctor", { problem, text: "x" }, "invalid_arguments")
      yield* client.expectToolError("fe_doctor", { text: "everything is fine" }, "no_problem_in_text")
    })
  )
})

describe("fe_doctor's computed edits are only offered when they are right (review cases)", () => {
  const at = (
    code: string,
    message: string,
    line: string,
    column: number,
    source: ProblemInput["source"] = "typescript"
  ) =>
    diagnosisOf(
      {
        source,
        kind: source === "typescript" ? "type" : "lint",
        file: "src/a.ts",
        line: 1,
        column,
        code,
        message,
        severity: "error"
      },
      [line],
      { related: new Map(), project }
    )
  const edits = (d: ReturnType<typeof at>) => d.fix.filter((s) => s.after !== undefined).map((s) => s.after)

  it("TS7006: an arrow's bare parameter gets parentheses, an optional one keeps its ?", () => {
    assert.deepStrictEqual(
      edits(at("TS7006", "Parameter 'n' implicitly has an 'any' type.", "const double = n => n * 2", 16)),
      ["const double = (n: unknown) => n * 2"]
    )
    assert.deepStrictEqual(
      edits(at("TS7006", "Parameter 'b' implicitly has an 'any' type.", "function f(a: number, b?) {}", 23)),
      ["function f(a: number, b?: unknown) {}"]
    )
  })

  it("TS2345: no conversion when the identifier is not the whole argument", () => {
    const message = "Argument of type 'number' is not assignable to parameter of type 'string'."
    assert.deepStrictEqual(edits(at("TS2345", message, "shout(getAge())", 7)), [])
    assert.deepStrictEqual(edits(at("TS2345", message, "shout(items.length + 1)", 7)), [])
    assert.deepStrictEqual(edits(at("TS2345", message, "shout(user.age, 2)", 7)), ["shout(String(user.age), 2)"])
  })

  it("TS2322: an error inside an object literal does not convert the whole initializer", () => {
    const d = at(
      "TS2322",
      "Type 'number' is not assignable to type 'string'.",
      "const user: User = { id: 1, name: 42 }",
      29
    )
    assert.deepStrictEqual(edits(d), [])
  })

  it("TS2307: Node built-ins get @types/node, assets a module declaration, never an install of their name", () => {
    const fs = at(
      "TS2307",
      "Cannot find module 'fs' or its corresponding type declarations.",
      "import fs from 'fs'",
      16
    )
    assert.strictEqual(fs.fix[0]!.command, "pnpm add -D @types/node")
    const nodeFs = at(
      "TS2307",
      "Cannot find module 'node:fs' or its corresponding type declarations.",
      "import fs from 'node:fs'",
      16
    )
    assert.strictEqual(nodeFs.fix[0]!.command, "pnpm add -D @types/node")
    const logo = at(
      "TS2307",
      "Cannot find module './logo.svg' or its corresponding type declarations.",
      "import logo from './logo.svg'",
      18
    )
    assert.strictEqual(logo.fix[0]!.operation, "edit_config")
    assert.include(logo.fix[0]!.description, "vite/client")
  })

  it("unused names: an import loses only that name; a multi-line declaration is not deleted by its first line", () => {
    const imported = at(
      "TS6133",
      "'useEffect' is declared but its value is never read.",
      "import { useState, useEffect } from 'react'",
      20
    )
    assert.deepStrictEqual(edits(imported), ["import { useState } from 'react'"])
    const lint = at(
      "@typescript-eslint/no-unused-vars",
      "'useEffect' is defined but never used.",
      "import { useState, useEffect } from 'react'",
      20,
      "eslint"
    )
    assert.deepStrictEqual(edits(lint), ["import { useState } from 'react'"])
    const multiLine = at("TS6133", "'handler' is declared but its value is never read.", "  const handler = () => {", 9)
    assert.isUndefined(multiLine.fix[0]!.before)
    const type = at(
      "@typescript-eslint/no-unused-vars",
      "'Props' is defined but never used.",
      "interface Props {",
      11,
      "eslint"
    )
    assert.deepStrictEqual(edits(type), [], "no rename to _Props")
  })

  it("optional chaining is not offered on an assignment target; TS2614 keeps the other names", () => {
    const assigned = at("TS2532", "Object is possibly 'undefined'.", "items[0].count = 1", 1)
    assert.isFalse(
      edits(assigned).some((after) => after!.includes("?.")),
      "items[0]?.count = 1 is not valid"
    )
    assert.include(assigned.rootCause, "items[0] at")
    const named = at(
      "TS2614",
      "Module '\"./withDefault\"' has no exported member 'greeting'. Did you mean to use 'import greeting from \"./withDefault\"' instead?",
      "import { greeting, other } from './withDefault'",
      10
    )
    assert.deepStrictEqual(edits(named), ["import greeting, { other } from './withDefault'"])
  })

  it("prefer-const on a destructuring let offers no whole-line edit", () => {
    const d = at("prefer-const", "'a' is never reassigned. Use 'const' instead.", "let { a, b } = pair", 7, "eslint")
    assert.deepStrictEqual(edits(d), [])
    assert.include(d.fix[0]!.description, "split")
  })
})
