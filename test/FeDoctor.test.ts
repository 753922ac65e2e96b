/**
 * fe_doctor's rules against REAL messages, each produced during the test:
 *
 * - TypeScript: a temporary set of projects with one snippet per code is
 *   checked by two real compilers — this repository's own TypeScript 7
 *   (`node_modules/typescript`) and TypeScript 6 (the broken fixture's
 *   install, what most projects run) — their `--pretty false` output parsed
 *   as fe_verify parses it; every snippet's code must be produced by both,
 *   and get a known diagnosis through the real engine (`diagnose` over a
 *   NodeWorkspace on the temporary root, which reads the source, the
 *   imported module or the import's directory), with the exact edit or
 *   command where the rule computes one.
 * - Lint: ESLint 10 with the Vite template's configuration (typescript-eslint,
 *   react-hooks 7, react-refresh; the broken fixture's install) and a few
 *   more rules switched on, and Biome 2 (the Biome fixture's install), both
 *   through their JSON output and fe_verify's parsers. Only react/jsx-key's
 *   message is copied (eslint-plugin-react is not installed here): "Missing
 *   \"key\" prop for element in iterator", as its ESLint users see it.
 * - Tests: Vitest 5 (the broken fixture's) and Jest 30 (the Biome fixture's)
 *   run failing tests of each kind, read through fe_verify's report parser.
 *
 * The tool itself is called through the test kit: no problem, the last
 * verify's problems (real ones, over the real workspace), a problem, pasted
 * tsc and ESLint output, an unknown code.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll } from "vitest"
import { diagnose, diagnosisOf, problemsInText, ruleFor } from "../capabilities/fe/diagnosis/diagnose.ts"
import { computedSteps, diagnosisId, isDiagnosisId } from "../capabilities/fe/diagnosis/id.ts"
import { lintRules } from "../capabilities/fe/diagnosis/lint.ts"
import type { Diagnosis } from "../capabilities/fe/diagnosis/model.ts"
import { typescriptRules } from "../capabilities/fe/diagnosis/typescript.ts"
import { doctor } from "../capabilities/fe/doctor.ts"
import type { ProblemInput } from "../capabilities/fe/problem.ts"
import type { ProjectInfo } from "../capabilities/fe/project.ts"
import { FeState } from "../capabilities/fe/state.ts"
import { parseBiomeJson, parseEslintJson, parseTestJson, parseTsc } from "../capabilities/fe/verify/parse.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import { MemoryWorkspace, TestClient } from "../src/testing.ts"
import { fixtureDir } from "./support/feFixtures.ts"

/** What a snippet must get: the first fix step's operation and line, and its exact before/after or command. */
interface Expected {
  readonly step?: number
  readonly operation?: string
  readonly file?: string
  readonly line?: number
  readonly before?: string
  readonly after?: string
  readonly command?: string
  readonly title?: string
  /** Text the root cause must contain. */
  readonly cause?: string
}

interface Snippet {
  readonly code: string
  readonly file: string
  readonly text: string
  readonly expected?: Expected
}

/**
 * One snippet (or more) per code. The directory is the project: s/ (strict), syntax/ (syntax errors stop tsc
 * before the semantic checks), vms/ (verbatimModuleSyntax, noImplicitReturns, noUnusedParameters), jsx/ (jsx: preserve, legacy module
 * detection), nn/ (nodenext, an ESM package).
 */
const snippets: ReadonlyArray<Snippet> = [
  {
    code: "TS2304",
    file: "s/cannotFind.ts",
    text: "import { useEffect } from 'react'\nuseEffect(() => {})\nexport const [count, setCount] = useState(0)\n",
    expected: {
      operation: "add_import",
      line: 1,
      before: "import { useEffect } from 'react'",
      after: "import { useEffect, useState } from 'react'"
    }
  },
  {
    code: "TS2552",
    file: "s/misspelt.ts",
    text: "const value = 1\nexport const v = valeu + value\n",
    expected: {
      operation: "replace",
      line: 2,
      before: "export const v = valeu + value",
      after: "export const v = value + value"
    }
  },
  // With compilerOptions.types set (TypeScript 6 and 7 default it to []), tsc says TS2591/TS2593, not TS2580/TS2582.
  {
    code: "TS2591",
    file: "s/nodeGlobal.ts",
    text: "export const argv = process.argv\n",
    expected: { operation: "install_package", command: "pnpm add -D @types/node" }
  },
  {
    code: "TS2593",
    file: "s/testGlobal.ts",
    text: "describe('x', () => {})\n",
    // A test global in a Vitest project is imported from vitest.
    expected: { operation: "add_import", line: 1, after: 'import { describe } from "vitest"' }
  },
  {
    code: "TS2307",
    file: "s/missingModule.ts",
    text: "import pad from 'left-pad-nowhere'\nexport const p = pad\n",
    expected: { operation: "install_package", command: "pnpm add left-pad-nowhere" }
  },
  {
    code: "TS2307",
    file: "s/relativeTypo.ts",
    text: "import { one } from './lbi'\nexport const o = one\n",
    expected: {
      title: "The import path ./lbi is misspelt",
      operation: "replace",
      line: 1,
      before: "import { one } from './lbi'",
      after: "import { one } from './lib'",
      cause: "s has no lbi; it has ./lib"
    }
  },
  {
    code: "TS2307",
    file: "s/relativeCase.ts",
    text: "import { one } from './Lib.js'\nexport const o = one\n",
    expected: { operation: "replace", line: 1, after: "import { one } from './lib.js'" }
  },
  {
    code: "TS2307",
    file: "s/relativeGone.ts",
    text: "import { Button } from './widgets/Button'\nexport const b = Button\n",
    expected: {
      title: "The directory of ./widgets/Button does not exist",
      operation: "investigate",
      cause: "(s/widgets) does not exist"
    }
  },
  {
    code: "TS2305",
    file: "s/noExport.ts",
    text: "import { two } from './lib'\nexport const t = two\n",
    expected: { cause: "./lib exports nothing named two" }
  },
  {
    code: "TS2724",
    file: "s/noExportMisspelt.ts",
    text: "import { onee } from './lib'\nexport const o = onee\n",
    expected: {
      operation: "replace",
      line: 1,
      before: "import { onee } from './lib'",
      after: "import { one } from './lib'"
    }
  },
  {
    code: "TS2614",
    file: "s/namedDefault.ts",
    text: "import { greeting } from './withDefault'\nexport const g = greeting\n",
    expected: {
      operation: "replace",
      line: 1,
      before: "import { greeting } from './withDefault'",
      after: "import greeting from './withDefault'"
    }
  },
  {
    code: "TS1192",
    file: "s/noDefault.ts",
    text: "import lib from './lib'\nexport const l = lib\n",
    expected: { cause: "./lib has no default export" }
  },
  {
    code: "TS2459",
    file: "s/notExported.ts",
    text: "import { secretValue } from './internal'\nexport const s = secretValue\n",
    expected: {
      operation: "replace",
      file: "s/internal.ts",
      line: 1,
      before: "const secretValue = 1",
      after: "export const secretValue = 1",
      cause: "./internal declares secretValue (s/internal.ts:1) but does not export it"
    }
  },
  {
    code: "TS2460",
    file: "s/renamedImport.ts",
    text: "import { hidden } from './renamed'\nexport const h = hidden\n",
    expected: { operation: "replace", line: 1, after: "import { visible as hidden } from './renamed'" }
  },
  {
    code: "TS2322",
    file: "s/assign.ts",
    text: "export const label: string = 42\n",
    expected: {
      operation: "replace",
      line: 1,
      before: "export const label: string = 42",
      after: "export const label: string = String(42)"
    }
  },
  {
    code: "TS2345",
    file: "s/argument.ts",
    text: "function shout(text: string) {\n  return text\n}\nexport const id = 7\nshout(id)\n",
    expected: { operation: "replace", line: 5, before: "shout(id)", after: "shout(String(id))" }
  },
  {
    code: "TS2339",
    file: "s/property.ts",
    text: "interface User {\n  name: string\n}\ndeclare const user: User\nexport const f = user.fullName\n",
    expected: { step: 1, operation: "add_property", line: 1, cause: "User is declared on line 1" }
  },
  {
    code: "TS2551",
    file: "s/propertyMisspelt.ts",
    text: "export const up = 'a'.toUppercase()\n",
    expected: {
      operation: "replace",
      line: 1,
      before: "export const up = 'a'.toUppercase()",
      after: "export const up = 'a'.toUpperCase()"
    }
  },
  {
    code: "TS2531",
    file: "s/objectNull.ts",
    text: "declare function find(): { id: number } | null\nexport const id = find().id\n",
    expected: { step: 1, operation: "replace", line: 2, after: "export const id = find()?.id", cause: "find() at" }
  },
  {
    code: "TS2532",
    file: "s/objectUndefined.ts",
    text: "declare const items: Array<{ name: string } | undefined>\nexport const first = items[0].name\n",
    expected: { step: 1, after: "export const first = items[0]?.name", cause: "items[0] at s/objectUndefined.ts:2" }
  },
  {
    code: "TS2533",
    file: "s/objectNullish.ts",
    text: "declare function find(): { id: number } | undefined | null\nexport const id = find().id\n"
  },
  {
    code: "TS18047",
    file: "s/valueNull.ts",
    text: "declare const node: { id: number } | null\nexport const id = node.id\n",
    expected: {
      step: 1,
      operation: "replace",
      line: 2,
      before: "export const id = node.id",
      after: "export const id = node?.id"
    }
  },
  {
    code: "TS18048",
    file: "s/valueUndefined.ts",
    text: "export function initial(names: string[]): string {\n  const first = names.find((name) => name.length > 0)\n  return first.slice(0, 1)\n}\n",
    expected: {
      operation: "add_null_check",
      line: 3,
      after: "  if (first === undefined) {\n    // handle the missing value: return, throw, or use a default\n  }"
    }
  },
  {
    code: "TS18049",
    file: "s/valueNullish.ts",
    text: "declare const node: { id: number } | null | undefined\nexport const id = node.id\n",
    expected: { step: 1, after: "export const id = node?.id" }
  },
  {
    code: "TS18046",
    file: "s/unknownCatch.ts",
    text: "try {\n  JSON.parse('x')\n} catch (error) {\n  console.log(error.message)\n}\n"
  },
  {
    code: "TS7006",
    file: "s/implicitAny.ts",
    text: "export function total(items) {\n  return items.length\n}\n",
    expected: {
      operation: "add_type_annotation",
      line: 1,
      before: "export function total(items) {",
      after: "export function total(items: unknown) {"
    }
  },
  { code: "TS7031", file: "s/bindingAny.ts", text: "export function Card({ title }) {\n  return title\n}\n" },
  {
    code: "TS7016",
    file: "s/untyped.ts",
    text: "import untyped from 'untyped-lib'\nexport const u = untyped\n",
    expected: { command: "pnpm add -D @types/untyped-lib" }
  },
  {
    code: "TS7053",
    file: "s/index.ts",
    text: "const prices = { apple: 1 }\ndeclare const key: string\nexport const price = prices[key]\n"
  },
  {
    code: "TS7034",
    file: "s/implicitVar.ts",
    text: "export function f(flag: boolean) {\n  let value\n  if (flag) value = 1\n  return () => value\n}\n"
  },
  {
    code: "TS7005",
    file: "s/implicitVar.ts",
    text: "",
    expected: { operation: "add_type_annotation", line: 2, cause: "its declaration (line 2) has no type" }
  },
  { code: "TS2554", file: "s/arity.ts", text: "function one(a: number) {\n  return a\n}\none()\n" },
  {
    code: "TS2555",
    file: "s/atLeast.ts",
    text: "function some(a: number, ...rest: number[]) {\n  return a + rest.length\n}\nsome()\n"
  },
  {
    code: "TS2741",
    file: "s/missingProperty.ts",
    text: "interface Props {\n  a: number\n  b: string\n}\nexport const p: Props = { a: 1 }\n"
  },
  {
    code: "TS2739",
    file: "s/missingProperties.ts",
    text: "interface Props {\n  a: number\n  b: string\n  c: boolean\n}\nexport const p: Props = { a: 1 }\n"
  },
  { code: "TS2353", file: "s/excessProperty.ts", text: "export const p: { a: number } = { a: 1, z: 2 }\n" },
  {
    code: "TS2559",
    file: "s/noCommon.ts",
    text: "interface Options {\n  a?: number\n}\nexport const o: Options = { z: 1 } as { z: number }\n"
  },
  { code: "TS2367", file: "s/noOverlap.ts", text: "declare const n: number\nexport const same = n === 'a'\n" },
  { code: "TS2564", file: "s/uninitialized.ts", text: "export class Box {\n  size: number\n}\n" },
  { code: "TS2454", file: "s/unassigned.ts", text: "let value: number\nexport const v = value\n" },
  { code: "TS2448", file: "s/beforeDeclaration.ts", text: "export const a = b\nconst b = 1\n" },
  {
    code: "TS2588",
    file: "s/constant.ts",
    text: "const limit = 1\nlimit = 2\nexport { limit }\n",
    expected: { operation: "replace", line: 1, before: "const limit = 1", after: "let limit = 1" }
  },
  {
    code: "TS2540",
    file: "s/readonly.ts",
    text: "const point: { readonly x: number } = { x: 1 }\npoint.x = 2\nexport { point }\n"
  },
  { code: "TS2349", file: "s/notCallable.ts", text: "const count = 1\nexport const c = count()\n" },
  {
    code: "TS2769",
    file: "s/overload.ts",
    text: "declare function over(a: string): void\ndeclare function over(a: number): void\nover(true)\n"
  },
  {
    code: "TS2774",
    file: "s/alwaysTrue.ts",
    text: "declare function isReady(): boolean\nexport function go() {\n  if (isReady) {\n    return 1\n  }\n  return 0\n}\n",
    expected: { operation: "replace", line: 3, before: "  if (isReady) {", after: "  if (isReady()) {" }
  },
  {
    code: "TS2801",
    file: "s/promiseCondition.ts",
    text: "declare function check(): Promise<boolean>\nexport async function go() {\n  if (check()) {\n    return 1\n  }\n  return 0\n}\n",
    expected: { operation: "replace", line: 3, before: "  if (check()) {", after: "  if (await check()) {" }
  },
  {
    code: "TS1308",
    file: "s/awaitFunction.ts",
    text: "declare function load(): Promise<number>\nexport function run() {\n  if (load) {\n    const v = await load()\n    return v\n  }\n  return 0\n}\n",
    expected: {
      operation: "replace",
      line: 2,
      before: "export function run() {",
      after: "export async function run() {"
    }
  },
  {
    code: "TS1308",
    file: "s/awaitArrow.ts",
    text: "declare function load(): Promise<number>\nexport const run = (id: number) => {\n  const v = await load()\n  return v + id\n}\n",
    expected: {
      operation: "replace",
      line: 2,
      before: "export const run = (id: number) => {",
      after: "export const run = async (id: number) => {"
    }
  },
  {
    code: "TS1308",
    file: "s/awaitEffect.ts",
    text: "declare function useEffect(effect: () => void, deps: unknown[]): void\ndeclare function load(): Promise<number>\nuseEffect(() => {\n  const v = await load()\n  void v\n}, [])\n",
    expected: { title: "await in an effect callback", operation: "insert", line: 4 }
  },
  {
    code: "TS2352",
    file: "s/conversion.ts",
    text: "export const n = 'text' as number\n",
    expected: { step: 1, operation: "replace", line: 1, after: "export const n = 'text' as unknown as number" }
  },
  {
    code: "TS2362",
    file: "s/arithmeticLeft.ts",
    text: "declare const s: string\nexport const half = s / 2\n",
    expected: { operation: "replace", line: 2, after: "export const half = Number(s) / 2" }
  },
  {
    code: "TS2363",
    file: "s/arithmeticRight.ts",
    text: "declare const s: string\nexport const twice = 2 * s\n",
    expected: { operation: "replace", line: 2, after: "export const twice = 2 * Number(s)" }
  },
  {
    code: "TS2341",
    file: "s/private.ts",
    text: "import { Account } from './account'\nexport const s = new Account().secret\n",
    expected: { cause: "secret is private to the class Account" }
  },
  {
    code: "TS2445",
    file: "s/protected.ts",
    text: "import { Account } from './account'\nexport const g = new Account().guarded\n",
    expected: { cause: "guarded is protected in Account" }
  },
  {
    code: "TS1361",
    file: "s/typeImportValue.ts",
    text: "import type { Account } from './account'\nexport const a = new Account()\n",
    expected: { operation: "replace", line: 1, after: "import { Account } from './account'" }
  },
  {
    code: "TS2683",
    file: "s/thisAny.ts",
    text: "export function handler() {\n  return this.value\n}\n",
    expected: { operation: "add_type_annotation", line: 1, cause: "inside a function (line 1)" }
  },
  {
    code: "TS2488",
    file: "s/iterator.ts",
    text: "declare const count: number\nexport const all = [...count]\n",
    expected: { cause: "a value of type number is spread or iterated" }
  },
  {
    code: "TS2698",
    file: "s/spread.ts",
    text: "declare const n: number\nexport const o = { ...n }\n"
  },
  {
    code: "TS2420",
    file: "s/implements.ts",
    text: "interface Named {\n  name: string\n}\nexport class Dog implements Named {}\n",
    expected: { cause: "Property 'name' is missing in type 'Dog' but required in type 'Named'." }
  },
  {
    code: "TS2344",
    file: "s/constraint.ts",
    text: "function keys<T extends object>(x: T) {\n  return x\n}\nexport const k = keys<string>('a')\n"
  },
  {
    code: "TS2538",
    file: "s/indexType.ts",
    text: "declare const o: { a: number }\ndeclare const k: boolean\nexport const v = o[k]\n"
  },
  {
    code: "TS2693",
    file: "s/typeAsValue.ts",
    text: "import type { Shape } from './shapes'\nexport const s = Shape\n"
  },
  {
    code: "TS2749",
    file: "s/valueAsType.ts",
    text: "import { one } from './lib'\nexport let x: one\n",
    expected: { operation: "replace", line: 2, before: "export let x: one", after: "export let x: typeof one" }
  },
  { code: "TS18004", file: "s/shorthand.ts", text: "export const o = { missingName }\n" },
  { code: "TS2584", file: "s/lib.ts2584.ts", text: "console.log(1)\n" },
  { code: "TS7026", file: "s/jsxIntrinsic.tsx", text: "export const el = <span />\n" },
  { code: "TS2355", file: "s/mustReturn.ts", text: "export function answer(): number {}\n" },
  {
    code: "TS2366",
    file: "s/endingReturn.ts",
    text: "export function sign(x: boolean): number {\n  if (x) return 1\n}\n"
  },
  { code: "TS2365", file: "s/operator.ts", text: "export const sum = true + 1\n" },
  {
    code: "TS2300",
    file: "s/duplicate.ts",
    text: "interface Shape {\n  a: number\n}\ntype Shape = { b: number }\nexport type { Shape }\n"
  },
  {
    code: "TS2393",
    file: "s/duplicateFunction.ts",
    text: "function twice() {}\nfunction twice() {}\nexport { twice }\n"
  },
  { code: "TS2503", file: "s/namespace.ts", text: "export let handler: Missing.Handler\n" },
  {
    code: "TS6133",
    file: "s/unusedLocal.ts",
    text: "export function f() {\n  const unused = 'hello'\n  return 1\n}\n",
    expected: { operation: "delete", line: 2, before: "  const unused = 'hello'" }
  },
  {
    code: "TS6133",
    file: "s/unusedImportName.ts",
    text: "import { one, three } from './lib'\nexport const x = three\n",
    expected: { operation: "replace", line: 1, after: "import { three } from './lib'" }
  },
  {
    code: "TS6133",
    file: "vms/unusedParameter.ts",
    text: "export function f(used: number, extra: string) {\n  return used\n}\n",
    expected: { operation: "rename", line: 1, after: "export function f(used: number, _extra: string) {" }
  },
  {
    code: "TS6192",
    file: "s/unusedImports.ts",
    text: "import { one, three } from './lib'\nexport const x = 1\n",
    expected: { operation: "delete", line: 1, before: "import { one, three } from './lib'" }
  },
  {
    code: "TS6196",
    file: "s/unusedType.ts",
    text: "interface Unused {\n  a: number\n}\nexport const x = 1\n",
    expected: { operation: "delete", line: 1, cause: "Unused is declared at s/unusedType.ts:1" }
  },
  {
    code: "TS6198",
    file: "s/destructuredUnused.ts",
    text: "export function f(p: { a: number; b: number }) {\n  const { a, b } = p\n  return 1\n}\n",
    expected: { operation: "delete", line: 2, before: "  const { a, b } = p" }
  },
  { code: "TS5097", file: "s/tsExtension.ts", text: "import { one } from './lib.ts'\nexport const o = one\n" },
  { code: "TS17004", file: "s/jsx.tsx", text: "export const el = <div />\n" },
  { code: "TS1005", file: "syntax/s1005.ts", text: "export const x = (1\n" },
  { code: "TS1128", file: "syntax/s1128.ts", text: "export const y = 1\n}\n" },
  { code: "TS1109", file: "syntax/s1109.ts", text: "export const z = \n" },
  {
    code: "TS1484",
    file: "vms/use.ts",
    text: "import { Shape } from './shapes'\nexport const s: Shape = { a: 1 }\n",
    expected: {
      operation: "replace",
      line: 1,
      before: "import { Shape } from './shapes'",
      after: "import type { Shape } from './shapes'"
    }
  },
  {
    code: "TS1484",
    file: "vms/useMixed.ts",
    text: "import { Shape, makeShape } from './shapes'\nexport const s: Shape = makeShape()\n",
    expected: { operation: "replace", line: 1, after: "import { type Shape, makeShape } from './shapes'" }
  },
  {
    code: "TS7030",
    file: "vms/implicitReturn.ts",
    text: "export function f(x: number) {\n  if (x > 0) {\n    return 1\n  }\n}\n"
  },
  {
    code: "TS2786",
    file: "jsx/component.tsx",
    text: "declare global {\n  namespace JSX {\n    interface Element {\n      kind: 'element'\n    }\n    interface IntrinsicElements {\n      div: {}\n    }\n  }\n}\nfunction Broken() {\n  return 42\n}\nexport const el = <Broken />\n"
  },
  {
    code: "TS2306",
    file: "jsx/useScript.ts",
    text: "import { a } from './script'\nexport const x = a\n",
    expected: {
      operation: "replace",
      file: "jsx/script.ts",
      line: 1,
      before: "const a = 1",
      after: "export const a = 1",
      cause: "./script has no import or export"
    }
  },
  {
    code: "TS2835",
    file: "nn/a.ts",
    text: "import { b } from './b'\nexport const a = b\n",
    expected: { operation: "replace", line: 1, before: "import { b } from './b'", after: "import { b } from './b.js'" }
  }
]

/** Rules no snippet can produce with TypeScript 6 and 7, and why (kept for the older compilers projects run). */
const unreproduced: Record<string, string> = {
  TS2580: "TypeScript 6 and 7 default compilerOptions.types to [] and say TS2591 instead",
  TS2582: "TypeScript 6 and 7 default compilerOptions.types to [] and say TS2593 instead",
  TS2571: "TypeScript 5+ says TS18046 ('x' is of type 'unknown') where older versions said TS2571"
}

const otherFiles: Record<string, string> = {
  "s/lib.ts": "export const one = 1\nexport const three = 3\n",
  "s/withDefault.ts": "export default function greeting() {\n  return 'hi'\n}\n",
  "s/internal.ts": "const secretValue = 1\nexport const used = secretValue\n",
  "s/renamed.ts": "const hidden = 2\nexport { hidden as visible }\n",
  "s/shapes.ts": "export interface Shape {\n  a: number\n}\n",
  "s/account.ts":
    "export class Account {\n  private secret = 1\n  protected guarded = 2\n  total() {\n    return this.secret + this.guarded\n  }\n}\n",
  "vms/shapes.ts":
    "export interface Shape {\n  a: number\n}\nexport function makeShape(): Shape {\n  return { a: 1 }\n}\n",
  "jsx/script.ts": "const a = 1\n",
  "nn/b.ts": "export const b = 1\n",
  "nn/package.json": JSON.stringify({ type: "module" }),
  "node_modules/untyped-lib/package.json": JSON.stringify({ name: "untyped-lib", main: "index.js" }),
  "node_modules/untyped-lib/index.js": "module.exports = 1\n"
}

const compilerOptions = {
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
}

const tsconfigs: Record<string, unknown> = {
  "tsconfig.json": { compilerOptions, include: ["s"] },
  "tsconfig.syntax.json": { extends: "./tsconfig.json", include: ["syntax"] },
  "tsconfig.vms.json": {
    extends: "./tsconfig.json",
    compilerOptions: { verbatimModuleSyntax: true, noImplicitReturns: true, noUnusedParameters: true },
    include: ["vms"]
  },
  "tsconfig.jsx.json": {
    extends: "./tsconfig.json",
    compilerOptions: { jsx: "preserve", moduleDetection: "legacy" },
    include: ["jsx"]
  },
  "tsconfig.nn.json": {
    extends: "./tsconfig.json",
    compilerOptions: { module: "nodenext", moduleResolution: "nodenext" },
    include: ["nn"]
  }
}

/** ESLint's input: the Vite template's configuration (the broken fixture's), with a few more rules on. */
const eslintSource = [
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
  "  console.log(data)",
  "  debugger",
  "  try { JSON.parse(url) } catch {}",
  "  // @ts-ignore",
  "  const n = (data as { a?: number }).a!",
  "  if (label) {",
  "    const [x] = useState(n)",
  "    void x",
  "  }",
  "  void undeclaredThing",
  "  return <button onClick={() => setCount(count + step)}>{label}</button>",
  "}",
  "export const helper = 1",
  "export interface Empty {}",
  "export function withParameter(used: number, unusedParameter: string) { return used }",
  ""
].join("\n")

/** Biome's input, with the rules its recommended set leaves off switched on. */
const biomeSource = [
  "import { useEffect, useState } from 'react'",
  "import { useMemo } from 'react'",
  "export function Counter({ label, step }: { label: string; step: number }) {",
  "  const [count, setCount] = useState(0)",
  "  useEffect(() => {",
  "    document.title = `${label}: ${count} ${step}`",
  "  }, [label])",
  "  let url = `/api/${count}`",
  "  const data: any = JSON.parse(url)",
  "  const unused = 'hello'",
  "  if (data == 0) return null",
  "  console.log(data)",
  "  debugger",
  "  const n = (data as { a?: number }).a!",
  "  void n",
  "  return <p onClick={() => setCount(count + step)}>{label}</p>",
  "}",
  "export function Extra({ label }: { label: string }) {",
  "  const [count] = useState(0)",
  "  useEffect(() => {",
  "    document.title = label",
  "  }, [label, count])",
  "  return <p>{label}</p>",
  "}",
  ""
].join("\n")

const biomeConfig = {
  files: { includes: ["src/**"] },
  linter: {
    enabled: true,
    rules: {
      recommended: true,
      suspicious: { noExplicitAny: "error", noDoubleEquals: "error", noConsole: "error", noDebugger: "error" },
      correctness: { noUnusedVariables: "error", noUnusedImports: "error", useExhaustiveDependencies: "error" },
      style: { useConst: "error", noNonNullAssertion: "error" }
    }
  }
}

/** The code under test, shared by the Vitest and Jest runs. */
const mathSource = [
  "export function add(a: number, b: number): number {",
  "  return a - b",
  "}",
  "export function range(start: number, end: number): number[] {",
  "  const out: number[] = []",
  "  for (let i = start; i < end; i++) out.push(i)",
  "  return out",
  "}",
  "export function parse(text: string): number {",
  "  return Number(text)",
  "}",
  "export function notify(callback: () => void): void {",
  "  void callback",
  "}",
  "export function label(n: number): string {",
  "  return `n=${n}`",
  "}",
  ""
].join("\n")

/** Vitest's failing tests (globals on: nothing to resolve from the temporary directory). */
const vitestSource = [
  "import { add, label, notify, parse, range } from './math'",
  "",
  "describe('math', () => {",
  "  it('adds', () => {",
  "    expect(add(2, 3)).toBe(5)",
  "  })",
  "  it('ranges', () => {",
  "    expect(range(1, 3)).toEqual([1, 2, 3])",
  "  })",
  "  it('throws', () => {",
  "    expect(() => parse('x')).toThrow()",
  "  })",
  "  it('throws a message', () => {",
  "    expect(() => { throw new Error('boom') }).toThrow('bang')",
  "  })",
  "  it('calls back', () => {",
  "    const callback = vi.fn()",
  "    notify(callback)",
  "    expect(callback).toHaveBeenCalled()",
  "  })",
  "  it('calls back with', () => {",
  "    const callback = vi.fn()",
  "    callback(1)",
  "    expect(callback).toHaveBeenCalledWith(2)",
  "  })",
  "  it('waits', async () => {",
  "    await new Promise(() => {})",
  "  }, 200)",
  "  it('reads', () => {",
  "    const user = undefined as unknown as { names: string[] }",
  "    expect(user.names.map((n) => n)).toEqual([])",
  "  })",
  "  it('snapshots', () => {",
  '    expect(label(1)).toMatchInlineSnapshot(`"n=2"`)',
  "  })",
  "})",
  ""
].join("\n")

const jestMath = [
  "function discount(total) {",
  "  return total * 0",
  "}",
  "function items() {",
  "  return [1, 2]",
  "}",
  "module.exports = { discount, items }",
  ""
].join("\n")

const jestSource = [
  "const { discount, items } = require('./cart')",
  "",
  "test('takes ten percent off', () => {",
  "  expect(discount(200)).toBe(180)",
  "})",
  "test('lists items', () => {",
  "  expect(items()).toEqual([1, 2, 3])",
  "})",
  "test('throws', () => {",
  "  expect(() => discount(1)).toThrow()",
  "})",
  "test('calls', () => {",
  "  const fn = jest.fn()",
  "  expect(fn).toHaveBeenCalled()",
  "})",
  "test('waits', async () => {",
  "  await new Promise(() => {})",
  "}, 200)",
  ""
].join("\n")

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

const node = process.execPath
const compilers = {
  "TypeScript 7": fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url)),
  "TypeScript 6": join(fixtureDir("broken-app"), "node_modules/typescript/bin/tsc")
} as const
type Compiler = keyof typeof compilers

let root = ""
const tsProblems: Record<Compiler, ReadonlyArray<ProblemInput>> = { "TypeScript 7": [], "TypeScript 6": [] }
let eslintProblems: ReadonlyArray<ProblemInput> = []
let biomeProblems: ReadonlyArray<ProblemInput> = []
let vitestProblems: ReadonlyArray<ProblemInput> = []
let jestProblems: ReadonlyArray<ProblemInput> = []

const write = (files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

/** A tool's standard output, whatever its exit code (failing checks exit non-zero). */
const output = async (args: ReadonlyArray<string>, cwd: string): Promise<string> => {
  try {
    return (await promisify(execFile)(node, args, { cwd, encoding: "utf8", maxBuffer: 1 << 24 })).stdout
  } catch (error) {
    const stdout = (error as { stdout?: string }).stdout
    if (stdout === undefined) throw error
    return stdout
  }
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "fe-doctor-")))
  write({
    ...Object.fromEntries(snippets.filter((s) => s.text !== "").map((s) => [`ts/${s.file}`, s.text])),
    ...Object.fromEntries(Object.entries(otherFiles).map(([path, text]) => [`ts/${path}`, text])),
    ...Object.fromEntries(Object.entries(tsconfigs).map(([path, config]) => [`ts/${path}`, JSON.stringify(config)])),
    "eslint/src/Counter.tsx": eslintSource,
    "eslint/eslint.config.js": [
      `import config from ${JSON.stringify(join(fixtureDir("broken-app"), "eslint.config.js"))}`,
      "export default [",
      "  ...config,",
      "  {",
      "    files: ['**/*.{ts,tsx}'],",
      "    rules: { eqeqeq: 'error', 'no-console': 'error', 'no-undef': 'error', '@typescript-eslint/no-non-null-assertion': 'error' }",
      "  }",
      "]",
      ""
    ].join("\n"),
    "biome/biome.json": JSON.stringify(biomeConfig),
    "biome/src/Counter.tsx": biomeSource,
    "vitest/src/math.ts": mathSource,
    "vitest/src/math.test.ts": vitestSource,
    "vitest/src/broken.test.ts": "import { gone } from './missing'\nit('x', () => { expect(gone).toBe(1) })\n",
    "jest/package.json": "{}",
    "jest/src/cart.js": jestMath,
    "jest/src/cart.test.js": jestSource,
    "jest/src/broken.test.js": "const { gone } = require('./missing')\ntest('x', () => { expect(gone).toBe(1) })\n"
  })
  const ts = join(root, "ts")
  const check = async (compiler: Compiler) => {
    const outputs = await Promise.all(
      Object.keys(tsconfigs).map((config) =>
        output([compilers[compiler], "--noEmit", "--pretty", "false", "-p", config], ts)
      )
    )
    tsProblems[compiler] = outputs.flatMap((text) => parseTsc(text, [ts]))
  }
  const eslint = async () => {
    const dir = join(root, "eslint")
    const report = await output(
      [join(fixtureDir("broken-app"), "node_modules/eslint/bin/eslint.js"), "--format", "json", "src"],
      dir
    )
    eslintProblems = parseEslintJson(report, [dir]) ?? []
  }
  const biome = async () => {
    const dir = join(root, "biome")
    const binary = join(fixtureDir("biome-jest-app"), "node_modules/@biomejs/biome/bin/biome")
    const report = await output([binary, "lint", "--reporter=json", "--colors=off", "src"], dir)
    biomeProblems = parseBiomeJson(report, [dir], (file) => readFileSync(join(dir, file), "utf8")) ?? []
  }
  const vitest = async () => {
    const dir = join(root, "vitest")
    const report = join(dir, "report.json")
    await output(
      [
        join(fixtureDir("broken-app"), "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        dir,
        "--globals",
        "--reporter=json",
        `--outputFile=${report}`
      ],
      dir
    )
    vitestProblems = parseTestJson(readFileSync(report, "utf8"), [dir], "vitest")?.problems ?? []
  }
  const jest = async () => {
    const dir = join(root, "jest")
    const report = join(dir, "report.json")
    await output(
      [
        join(fixtureDir("biome-jest-app"), "node_modules/jest/bin/jest.js"),
        "--rootDir",
        dir,
        "--json",
        `--outputFile=${report}`
      ],
      dir
    )
    jestProblems = parseTestJson(readFileSync(report, "utf8"), [dir], "jest")?.problems ?? []
  }
  await Promise.all([check("TypeScript 7"), check("TypeScript 6"), eslint(), biome(), vitest(), jest()])
}, 120_000)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const found = (problems: ReadonlyArray<ProblemInput>, code: string, file: string, what: string): ProblemInput => {
  const problem = problems.find((p) => p.code === code && p.file === file)
  assert.isDefined(
    problem,
    `${what} reported no ${code} in ${file}; it reported: ${problems.map((p) => `${p.file} ${p.code}`).join(", ")}`
  )
  return problem!
}

/** The diagnoses of every snippet's problem, by the real engine over the temporary root. */
const diagnoseAll = (compiler: Compiler) =>
  Effect.forEach(snippets, (snippet) =>
    Effect.map(
      diagnose(found(tsProblems[compiler], snippet.code, snippet.file, compiler), project),
      (diagnosis) => [snippet, diagnosis] as const
    )
  ).pipe(Effect.provide(NodeWorkspace.layer({ root: join(root, "ts") })))

const checkExpected = (label: string, diagnosis: Diagnosis, expected: Expected) => {
  const step = diagnosis.fix[expected.step ?? 0]
  assert.isDefined(step, `${label}: no fix step ${expected.step ?? 0}`)
  if (expected.title !== undefined) assert.strictEqual(diagnosis.title, expected.title, label)
  if (expected.operation !== undefined) assert.strictEqual(step!.operation, expected.operation, label)
  if (expected.file !== undefined) assert.strictEqual(step!.file, expected.file, label)
  if (expected.line !== undefined) assert.strictEqual(step!.line, expected.line, label)
  if (expected.before !== undefined) assert.strictEqual(step!.before, expected.before, label)
  if (expected.after !== undefined) assert.strictEqual(step!.after, expected.after, label)
  if (expected.command !== undefined) assert.strictEqual(step!.command, expected.command, label)
  if (expected.cause !== undefined) assert.include(diagnosis.rootCause, expected.cause, label)
}

describe("fe_doctor's TypeScript rules, on the messages of TypeScript 7 and TypeScript 6", () => {
  it("every rule has a snippet that produces its code (or a stated reason why none can)", () => {
    const covered = new Set(snippets.map((s) => s.code))
    for (const code of Object.keys(typescriptRules)) {
      assert.isTrue(covered.has(code) || unreproduced[code] !== undefined, `no snippet for ${code}`)
    }
    for (const code of covered) assert.isDefined(typescriptRules[code], `a snippet for ${code}, which has no rule`)
    assert.isAtLeast(covered.size, 25)
  })

  for (const compiler of Object.keys(compilers) as ReadonlyArray<Compiler>) {
    it.effect(`${compiler}: each snippet's code is reported and gets a known, specific diagnosis`, () =>
      Effect.gen(function* () {
        // Every snippet is checked, and every failure reported together.
        const failures: Array<string> = []
        for (const [snippet, diagnosis] of yield* diagnoseAll(compiler)) {
          const label = `${compiler} ${snippet.code} ${snippet.file}`
          try {
            assert.isTrue(diagnosis.known, label)
            assert.isAbove(diagnosis.fix.length, 0, label)
            assert.isAbove(diagnosis.rootCause.length, 20, label)
            // A name the message did not quote shows up as "undefined" or "?".
            if (!diagnosis.problem.message.includes("undefined"))
              assert.notInclude(diagnosis.rootCause, "undefined", label)
            assert.notMatch(diagnosis.rootCause, /(^|\s)\?(\s|$|\.)/, label)
            assert.include(diagnosis.context, `> ${diagnosis.problem.line} |`, label)
            assert.include(diagnosis.next, "fe_verify", label)
            // A computed edit is exact: its before text is the file's line.
            for (const step of diagnosis.fix) {
              if (step.before === undefined || step.line === 0) continue
              const lines = readFileSync(join(root, "ts", step.file), "utf8").split("\n")
              assert.strictEqual(lines[step.line - 1], step.before, `${label}: before is line ${step.line}`)
            }
            if (snippet.expected !== undefined) checkExpected(label, diagnosis, snippet.expected)
          } catch (error) {
            failures.push(
              `${(error as Error).message}\n    ${diagnosis.problem.message}\n    ${diagnosis.rootCause}\n    ${JSON.stringify(diagnosis.fix[0])}`
            )
          }
        }
        assert.deepStrictEqual(failures, [])
      })
    )
  }

  it("the two compilers agree on the snippets' codes and locations", () => {
    const key = (p: ProblemInput) => `${p.file}:${p.line} ${p.code}`
    // An unused type-only import is TS6133 ("never read") for TypeScript 6, TS6196 ("never used") for 7; the same rule.
    const lines = (problems: ReadonlyArray<ProblemInput>) =>
      problems.map((p) => key(p.code === "TS6196" ? { ...p, code: "TS6133" } : p)).sort()
    assert.deepStrictEqual(lines(tsProblems["TypeScript 7"]), lines(tsProblems["TypeScript 6"]))
  })
})

describe("fe_doctor's lint rules, on ESLint's and Biome's messages", () => {
  const lines = eslintSource.split("\n")
  const biomeLines = biomeSource.split("\n")
  const lint = (code: string, line: number) => {
    const problem = eslintProblems.find((p) => p.code === code && p.line === line)
    assert.isDefined(
      problem,
      `ESLint reported no ${code} on line ${line}: ${eslintProblems.map((p) => `${p.line} ${p.code}`).join(", ")}`
    )
    return diagnosisOf(problem!, lines, { related: new Map(), project })
  }
  const biome = (code: string, line: number, index = 0) => {
    const problem = biomeProblems.filter((p) => p.code === code && p.line === line)[index]
    assert.isDefined(
      problem,
      `Biome reported no ${code} on line ${line}: ${biomeProblems.map((p) => `${p.line} ${p.code}`).join(", ")}`
    )
    return diagnosisOf(problem!, biomeLines, { related: new Map(), project })
  }
  const first = (diagnosis: Diagnosis) => {
    const step = diagnosis.fix[0]!
    return [step.operation, step.line, step.before, step.after]
  }

  it("every ESLint rule with a rule here is reported by the real ESLint and diagnosed as known", () => {
    const reported = new Set(eslintProblems.map((p) => p.code))
    for (const code of [
      "react-hooks/exhaustive-deps",
      "react-hooks/rules-of-hooks",
      "react-refresh/only-export-components",
      "@typescript-eslint/no-unused-vars",
      "@typescript-eslint/no-explicit-any",
      "@typescript-eslint/ban-ts-comment",
      "@typescript-eslint/no-non-null-assertion",
      "@typescript-eslint/no-empty-object-type",
      "prefer-const",
      "no-undef",
      "eqeqeq",
      "no-console",
      "no-debugger",
      "no-empty"
    ]) {
      assert.isTrue(reported.has(code), `ESLint did not report ${code}`)
    }
    for (const problem of eslintProblems) {
      const diagnosis = diagnosisOf(problem, lines, { related: new Map(), project })
      assert.isTrue(diagnosis.known, problem.code)
      assert.include(diagnosis.next, "fe_verify", problem.code)
    }
  })

  it("computes the exact line edits", () => {
    assert.deepStrictEqual(first(lint("react-hooks/exhaustive-deps", 6)), [
      "replace",
      6,
      "  }, [label])",
      "  }, [label, count, step])"
    ])
    assert.include(lint("react-hooks/exhaustive-deps", 6).rootCause, "reads count, step")
    assert.deepStrictEqual(first(lint("prefer-const", 7)), [
      "replace",
      7,
      "  let url = `/api/${count}`",
      "  const url = `/api/${count}`"
    ])
    assert.deepStrictEqual(first(lint("@typescript-eslint/no-explicit-any", 8)), [
      "replace",
      8,
      "  const data: any = JSON.parse(url)",
      "  const data: unknown = JSON.parse(url)"
    ])
    assert.deepStrictEqual(first(lint("@typescript-eslint/no-unused-vars", 9)), [
      "delete",
      9,
      "  const unused = 'hello'",
      undefined
    ])
    // A parameter: no underscore rename, which the rule's default options (no argsIgnorePattern) still report.
    const parameter = lint("@typescript-eslint/no-unused-vars", 25)
    assert.deepStrictEqual(first(parameter), ["delete", 25, undefined, undefined])
    assert.include(parameter.fix[0]!.description, "argsIgnorePattern")
    assert.deepStrictEqual(first(lint("eqeqeq", 10)), [
      "replace",
      10,
      "  if (data == null) return null",
      "  if (data === null) return null"
    ])
    assert.deepStrictEqual(first(lint("no-console", 11)), ["delete", 11, "  console.log(data)", undefined])
    assert.deepStrictEqual(first(lint("no-debugger", 12)), ["delete", 12, "  debugger", undefined])
    assert.deepStrictEqual(first(lint("@typescript-eslint/ban-ts-comment", 14)), [
      "replace",
      14,
      "  // @ts-ignore",
      "  // @ts-expect-error: <why>"
    ])
    assert.include(lint("react-hooks/rules-of-hooks", 17).rootCause, "useState")
    assert.include(lint("no-undef", 20).rootCause, "undeclaredThing")
  })

  it("Biome's categories: the same fixes, the dependency array found from the hook call", () => {
    const reported = new Set(biomeProblems.map((p) => p.code))
    for (const code of Object.keys(lintRules).filter((code) => code.startsWith("lint/"))) {
      if (code === "lint/suspicious/noConsoleLog") continue // Biome 1's name for noConsole
      assert.isTrue(reported.has(code), `Biome did not report ${code}`)
    }
    // One diagnostic per missing dependency, at the hook call; the array is two lines below.
    assert.deepStrictEqual(first(biome("lint/correctness/useExhaustiveDependencies", 5, 0)), [
      "replace",
      7,
      "  }, [label])",
      "  }, [label, count])"
    ])
    assert.deepStrictEqual(first(biome("lint/correctness/useExhaustiveDependencies", 5, 1)), [
      "replace",
      7,
      "  }, [label])",
      "  }, [label, step])"
    ])
    assert.deepStrictEqual(first(biome("lint/correctness/useExhaustiveDependencies", 20)), [
      "replace",
      22,
      "  }, [label, count])",
      "  }, [label])"
    ])
    assert.deepStrictEqual(first(biome("lint/style/useConst", 8)), [
      "replace",
      8,
      "  let url = `/api/${count}`",
      "  const url = `/api/${count}`"
    ])
    assert.include(biome("lint/style/useConst", 8).rootCause, "url is declared with let")
    assert.deepStrictEqual(first(biome("lint/suspicious/noExplicitAny", 9)), [
      "replace",
      9,
      "  const data: any = JSON.parse(url)",
      "  const data: unknown = JSON.parse(url)"
    ])
    assert.deepStrictEqual(first(biome("lint/correctness/noUnusedVariables", 10)), [
      "delete",
      10,
      "  const unused = 'hello'",
      undefined
    ])
    assert.deepStrictEqual(first(biome("lint/correctness/noUnusedImports", 2)), [
      "delete",
      2,
      "import { useMemo } from 'react'",
      undefined
    ])
    assert.deepStrictEqual(first(biome("lint/suspicious/noDoubleEquals", 11)), [
      "replace",
      11,
      "  if (data == 0) return null",
      "  if (data === 0) return null"
    ])
    for (const problem of biomeProblems.filter((p) => p.code.startsWith("lint/") && lintRules[p.code] !== undefined)) {
      assert.isTrue(diagnosisOf(problem, biomeLines, { related: new Map(), project }).known, problem.code)
    }
  })

  it("react/jsx-key (eslint-plugin-react's message) and the rules' table", () => {
    const lines = [
      "export const List = ({ items }: { items: string[] }) => (",
      "  <ul>{items.map((item) => <li>{item}</li>)}</ul>",
      ")"
    ]
    const diagnosis = diagnosisOf(
      {
        source: "eslint",
        kind: "lint",
        file: "src/List.tsx",
        line: 2,
        column: 29,
        code: "react/jsx-key",
        message: 'Missing "key" prop for element in iterator',
        severity: "error"
      },
      lines,
      { related: new Map(), project }
    )
    assert.strictEqual(diagnosis.title, "Missing key in a list")
    assert.strictEqual(diagnosis.fix[0]!.operation, "add_property")
    assert.isDefined(lintRules["no-unused-vars"])
  })
})

describe("fe_doctor's test rules, on Vitest's and Jest's reports", () => {
  const diagnosed = (problems: ReadonlyArray<ProblemInput>, name: string, files: Record<string, string>) => {
    const problem = problems.find((p) => p.test?.name === name)
    assert.isDefined(problem, `no failure named ${name}: ${problems.map((p) => p.test?.name).join(", ")}`)
    const related = new Map(
      Object.entries(files)
        .filter(([file]) => file !== problem!.file)
        .map(([file, text]) => [file, text.split("\n")] as const)
    )
    return diagnosisOf(problem!, files[problem!.file]!.split("\n"), { related, project })
  }
  const vitest = (name: string) =>
    diagnosed(vitestProblems, name, {
      "src/math.ts": mathSource,
      "src/math.test.ts": vitestSource,
      "src/broken.test.ts": "import { gone } from './missing'\nit('x', () => { expect(gone).toBe(1) })\n"
    })
  const jest = (name: string) =>
    diagnosed(jestProblems, name, {
      "src/cart.js": jestMath,
      "src/cart.test.js": jestSource,
      "src/broken.test.js": "const { gone } = require('./missing')\ntest('x', () => { expect(gone).toBe(1) })\n"
    })
  const where = (diagnosis: Diagnosis) => diagnosis.fix.map((s) => `${s.operation} ${s.file}:${s.line}`)

  it("Vitest: toBe and toEqual point at the function under test and the expectation", () => {
    const adds = vitest("math > adds")
    assert.strictEqual(adds.title, "Failing assertion")
    assert.include(adds.rootCause, '"math > adds" fails at src/math.test.ts:5: expected 5 but got -1, for add(2, 3)')
    assert.deepStrictEqual(where(adds), ["update_test_or_code src/math.ts:1", "update_test_or_code src/math.test.ts:5"])
    assert.include(adds.fix[0]!.description, "2 |   return a - b")
    const ranges = vitest("math > ranges")
    assert.include(ranges.rootCause, "lacks the last expected element (3)")
    assert.deepStrictEqual(where(ranges), [
      "update_test_or_code src/math.ts:4",
      "update_test_or_code src/math.test.ts:8"
    ])
  })

  it("Vitest: toThrow, toHaveBeenCalled(With), a timeout, a TypeError, a snapshot, a file that does not load", () => {
    const throws = vitest("math > throws")
    assert.strictEqual(throws.title, "Expected error not thrown")
    assert.deepStrictEqual(where(throws)[0], "update_test_or_code src/math.ts:9")
    assert.include(throws.rootCause, "expects parse('x') to throw")
    assert.strictEqual(vitest("math > throws a message").title, "A different error was thrown")
    const called = vitest("math > calls back")
    assert.strictEqual(called.title, "Mock not called as expected")
    assert.include(
      called.rootCause,
      "it is passed to notify in notify(callback) (src/math.ts:12), which does not call it"
    )
    assert.deepStrictEqual(where(called)[0], "update_test_or_code src/math.ts:12")
    const calledWith = vitest("math > calls back with")
    assert.strictEqual(calledWith.title, "Mock called with other arguments")
    assert.include(calledWith.rootCause, "the mock callback was called, but not with the arguments the test expects")
    assert.strictEqual(vitest("math > waits").title, "Test timed out")
    assert.strictEqual(vitest("math > reads").title, "The test threw a TypeError")
    assert.strictEqual(vitest("math > snapshots").title, "Snapshot mismatch")
    const file = vitestProblems.find((p) => p.code === "test-file-failure")!
    const broken = diagnosisOf(file, ["import { gone } from './missing'"], { related: new Map(), project })
    assert.include(broken.rootCause, "it imports ./missing, which does not resolve")
    assert.deepStrictEqual(where(broken), ["investigate src/broken.test.ts:1"])
  })

  it("Jest: the same kinds, from its messages (Expected/Received, did not throw, number of calls, timeout)", () => {
    const discount = jest("takes ten percent off")
    assert.include(discount.rootCause, "expected 180 but got 0, for discount(200)")
    assert.deepStrictEqual(where(discount), [
      "update_test_or_code src/cart.js:1",
      "update_test_or_code src/cart.test.js:4"
    ])
    const items = jest("lists items")
    assert.deepStrictEqual(where(items)[0], "update_test_or_code src/cart.js:4")
    // Jest prints a diff, not Expected/Received lines, for toEqual: its changed lines are quoted.
    assert.include(items.rootCause, "the values differ (- expected, + received: - 3,)")
    assert.strictEqual(jest("throws").title, "Expected error not thrown")
    assert.strictEqual(jest("calls").title, "Mock not called as expected")
    assert.strictEqual(jest("waits").title, "Test timed out")
    const file = jestProblems.find((p) => p.code === "test-file-failure")!
    const broken = diagnosisOf(file, ["const { gone } = require('./missing')"], { related: new Map(), project })
    assert.include(broken.rootCause, "it imports ./missing, which does not resolve")
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
    assert.strictEqual(diagnosis.context, "> 1 | const a = 1")
  })

  it("each diagnosis has a stable id; a computed fix names the fe_surgeon operation that applies it", () => {
    const problem: ProblemInput = {
      source: "eslint",
      kind: "lint",
      file: "src/api.ts",
      line: 1,
      column: 5,
      code: "prefer-const",
      message: "'url' is never reassigned. Use 'const' instead.",
      severity: "error"
    }
    const computed = diagnosisOf(problem, ["let url = '/api'"], { related: new Map(), project })
    assert.match(computed.id, /^d[0-9a-f]{10}$/)
    assert.isTrue(isDiagnosisId(computed.id))
    assert.strictEqual(computed.id, diagnosisOf(problem, ["let url = '/api'"], { related: new Map(), project }).id)
    assert.notStrictEqual(computed.id, diagnosisId({ ...problem, line: 2 }), "another place, another id")
    assert.deepStrictEqual(computed.surgeon, { op: "apply_diagnosis", id: computed.id })
    assert.include(computed.next, `"op": "apply_diagnosis", "id": "${computed.id}"`)
    // Guidance only (no computed edit): no surgeon operation, and the next step says to edit by hand.
    const unknown = diagnosisOf({ ...problem, code: "TS9999", source: "typescript", kind: "type" }, ["let url = 1"], {
      related: new Map(),
      project
    })
    assert.isUndefined(unknown.surgeon)
    assert.notInclude(unknown.next, "fe_surgeon")
  })

  it("computedSteps takes the steps before the first alternative, and only computed ones", () => {
    const at = { file: "a.ts", line: 2 }
    assert.deepStrictEqual(
      computedSteps([
        { ...at, operation: "replace", description: "Use const.", before: "let a = 1", after: "const a = 1" },
        { ...at, operation: "replace", description: "Or, rename it.", before: "let a = 1", after: "let b = 1" }
      ])?.map((step) => step.after),
      ["const a = 1"]
    )
    assert.strictEqual(
      computedSteps([{ ...at, operation: "insert", description: "Import it.", after: "import x" }])?.length,
      1
    )
    assert.isUndefined(computedSteps([{ ...at, operation: "investigate", description: "Read it." }]))
    // Advice next to a computed edit does not stop it (react-hooks/exhaustive-deps' "if the effect must not re-run…").
    assert.deepStrictEqual(
      computedSteps([
        { ...at, operation: "replace", description: "Add count.", before: "}, [a])", after: "}, [a, count])" },
        { ...at, operation: "investigate", description: "If the effect must not re-run, read it." }
      ])?.map((step) => step.operation),
      ["replace"]
    )
    assert.isUndefined(
      computedSteps([{ ...at, operation: "install_package", description: "Install.", command: "npm i x" }])
    )
    assert.isUndefined(
      computedSteps([{ ...at, line: 0, operation: "replace", description: "Whole file.", after: "x" }])
    )
    assert.isUndefined(computedSteps([]))
    // A null check's guard is a template the agent completes: not applied.
    assert.isUndefined(
      computedSteps([
        { ...at, operation: "add_null_check", description: "Handle it.", after: "if (x === undefined) {}" }
      ])
    )
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
  const state = (last: ReadonlyArray<any> | undefined) =>
    Layer.succeed(FeState, {
      project: Effect.succeed(project),
      lastVerify: Effect.succeed(last),
      setLastVerify: () => Effect.void,
      remember: () => Effect.void,
      problemById: () => Effect.succeed(undefined)
    })
  const client = (last: ReadonlyArray<any> | undefined, workspace: Layer.Layer<any, any>) =>
    TestClient.make(
      Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [doctor] })).pipe(
        Layer.provide(Layer.merge(workspace, state(last)))
      )
    )
  const memory = () =>
    MemoryWorkspace.make({
      "package.json": JSON.stringify({ dependencies: { react: "19.0.0" } }),
      "src/a.ts": "export const label: string = 42\n"
    }).layer
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
      const none = yield* client(undefined, memory())
      yield* none.expectToolError("fe_doctor", {}, "nothing_to_diagnose")
      const clean = yield* client([], memory())
      const empty = (yield* clean.callToolStructured("fe_doctor", {})) as any
      assert.deepStrictEqual(
        [empty.diagnoses, empty.total, empty.summary],
        [[], 0, "The last fe_verify found no problems: nothing to diagnose."]
      )
      const two = yield* client(
        [
          { ...problem, suggestion: "x" },
          { ...problem, code: "TS9999" }
        ],
        memory()
      )
      const result = (yield* two.callToolStructured("fe_doctor", { limit: 1 })) as any
      assert.strictEqual(result.total, 2)
      assert.lengthOf(result.diagnoses, 1)
      assert.strictEqual(result.diagnoses[0].fix[0].after, "export const label: string = String(42)")
      assert.strictEqual(result.diagnoses[0].context, "> 1 | export const label: string = 42\n  2 | ")
      assert.include(result.summary, "call again with a larger limit")
      assert.include(result.next, "workspace_edit")
      assert.include(result.next, "fe_verify")
    })
  )

  it.effect("one problem, or pasted text; both, or text without a problem, are errors", () =>
    Effect.gen(function* () {
      const kit = yield* client(undefined, memory())
      const one = (yield* kit.callToolStructured("fe_doctor", { problem })) as any
      assert.strictEqual(one.diagnoses[0].title, "A number assigned where a string is declared")
      const pasted = (yield* kit.callToolStructured("fe_doctor", {
        text: "src/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'."
      })) as any
      assert.deepStrictEqual(pasted.diagnoses[0].fix, one.diagnoses[0].fix)
      yield* kit.expectToolError("fe_doctor", { problem, text: "x" }, "invalid_arguments")
      yield* kit.expectToolError("fe_doctor", { text: "everything is fine" }, "no_problem_in_text")
    })
  )

  it.effect(
    "the real tsc problems as the last verify, over the real workspace: imports checked against the files",
    () =>
      Effect.gen(function* () {
        const problems = tsProblems["TypeScript 7"].filter((p) =>
          ["s/relativeTypo.ts", "s/notExported.ts", "s/relativeGone.ts"].includes(p.file)
        )
        const kit = yield* client(
          problems.map((p) => ({ ...p, suggestion: "Call fe_doctor." })),
          NodeWorkspace.layer({ root: join(root, "ts") })
        )
        const result = (yield* kit.callToolStructured("fe_doctor", { limit: 100 })) as any
        const rows = result.diagnoses.map((d: any) => [
          d.problem.code,
          d.problem.file,
          d.known,
          d.fix[0].file,
          d.fix[0].before ?? null,
          d.fix[0].after ?? null
        ])
        assert.sameDeepMembers(rows, [
          [
            "TS2307",
            "s/relativeTypo.ts",
            true,
            "s/relativeTypo.ts",
            "import { one } from './lbi'",
            "import { one } from './lib'"
          ],
          [
            "TS2459",
            "s/notExported.ts",
            true,
            "s/internal.ts",
            "const secretValue = 1",
            "export const secretValue = 1"
          ],
          ["TS2307", "s/relativeGone.ts", true, "s/relativeGone.ts", null, null]
        ])
        for (const d of result.diagnoses) assert.include(d.context, `> ${d.problem.line} |`)
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
