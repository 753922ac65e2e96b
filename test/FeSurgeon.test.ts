/**
 * fe_surgeon through the test kit over the real Node workspace, on real
 * files checked by the real `tsc`: a rename across a generated project of
 * more than ten files (named, aliased and namespace imports, a barrel, a
 * re-export chain, shorthand properties, a shadowing local, property keys,
 * type and JSX uses, a cycle) typechecked before and after and compared
 * with the expected texts; refusals (a name in use, a denied file, a stale
 * file) leaving every byte as it was; dryRun; each other operation on its
 * normal case and an edge case; apply_diagnosis after a real fe_verify on a
 * copy of broken-app.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { diagnosisId } from "../capabilities/fe/diagnosis/id.ts"
import { plan } from "../capabilities/fe/edit/plan.ts"
import { doctor } from "../capabilities/fe/doctor.ts"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import { defaultFeSettings, FeSettings } from "../capabilities/fe/settings.ts"
import * as FeState from "../capabilities/fe/state.ts"
import { surgeon } from "../capabilities/fe/surgeon.ts"
import { prepare } from "../capabilities/fe/transaction.ts"
import { makeVerify } from "../capabilities/fe/verify.ts"
import { FeBuildLogs } from "../capabilities/fe/verify/logs.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { fixtureDir } from "./support/feFixtures.ts"

const repoRoot = join(import.meta.dirname, "..")
const tscBin = join(repoRoot, "node_modules", "typescript", "bin", "tsc")

const temps: Array<string> = []
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "fe-surgeon-")))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const writeProject = (files: Readonly<Record<string, string>>): string => {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

/** Every file's bytes, to compare before and after a refused call. */
const snapshot = (root: string): Map<string, string> =>
  new Map(
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !join(e.parentPath, e.name).includes("node_modules"))
      .map((e) => {
        const path = join(e.parentPath, e.name)
        return [path.slice(root.length + 1), readFileSync(path).toString("base64")] as const
      })
  )

/** tsc --noEmit on a project: its output ("" when it passes). */
const typecheck = (root: string): string => {
  try {
    execFileSync(process.execPath, [tscBin, "--noEmit", "-p", root], { encoding: "utf8", cwd: root })
    return ""
  } catch (error: any) {
    return `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error)
  }
}

const capability = (root: string) =>
  Capability.make(
    { id: "fe", description: "test", version: "0" },
    Effect.succeed({ tools: [surgeon, doctor, makeVerify({ ...defaultFeSettings, defaultStepTimeoutMs: 120_000 })] })
  ).pipe(
    Layer.provide(Layer.mergeAll(FeState.layer, FeGraph.layer, FeBuildLogs.layer)),
    Layer.provide(NodeCommandRunner.layer()),
    Layer.provide(NodeWorkspace.layer({ root })),
    Layer.provide(Layer.succeed(WorkspaceRoot, root)),
    Layer.provide(Layer.succeed(FeSettings, { ...defaultFeSettings, defaultStepTimeoutMs: 120_000 })),
    Layer.provideMerge(
      Layer.mergeAll(
        ServerConfig.layer({ shutdownGraceMs: 0 }),
        Policy.layer({ ...Policy.defaults, progressInterval: 0 })
      )
    )
  )

const client = (root: string) => TestClient.make(capability(root))

const call = (fe: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(fe.callToolStructured("fe_surgeon", { ...args, confirm: true }), (result) => result as any)

const callRaw = (fe: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(fe.callTool("fe_surgeon", { ...args, confirm: true }), (result) => result as any)

const errorText = (result: { readonly content: ReadonlyArray<any> }) =>
  result.content.map((c: any) => (typeof c.text === "string" ? c.text : "")).join("\n")

const read = (root: string, path: string) => readFileSync(join(root, path), "utf8")

// -- the rename project -------------------------------------------------------------

const tsconfig = JSON.stringify({
  compilerOptions: {
    target: "es2022",
    module: "esnext",
    moduleResolution: "bundler",
    jsx: "preserve",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: []
  },
  include: ["src"]
})

const renameProject: Record<string, string> = {
  "tsconfig.json": tsconfig,
  "src/jsx.d.ts":
    "declare namespace JSX {\n  interface Element {}\n  interface IntrinsicElements {\n    [name: string]: unknown\n  }\n}\n",
  "src/lib/price.tsx": [
    "/** Shows a price. */",
    "export function Price(props: { value: number }): JSX.Element {",
    "  return <span>{props.value.toFixed(2)}</span>",
    "}",
    "",
    "export type PriceComponent = typeof Price",
    "",
    "export const registry = { Price, other: 1 }",
    ""
  ].join("\n"),
  "src/lib/index.ts": 'export * from "./price"\n',
  "src/named.tsx": [
    'import { Price } from "./lib/price"',
    "",
    "export const a = <Price value={1} />",
    "export const b = { Price }",
    "export const c = { Price: 2 }.Price",
    "export const d: typeof Price = Price",
    ""
  ].join("\n"),
  "src/aliased.tsx": [
    'import { Price as Cost } from "./lib/price"',
    "",
    "export const e = <Cost value={2} />",
    ""
  ].join("\n"),
  "src/barrel-user.tsx": [
    'import { Price, registry } from "./lib"',
    "",
    "export const f = registry.Price === Price",
    ""
  ].join("\n"),
  "src/shadow.tsx": [
    'import { Price } from "./lib/price"',
    "",
    "export function inner(): number {",
    "  const Price = 3",
    "  return Price",
    "}",
    "",
    "export function param(Price: number): number {",
    "  return Price + 1",
    "}",
    "",
    "export const g = <Price value={inner()} />",
    ""
  ].join("\n"),
  "src/namespace.ts": [
    'import * as lib from "./lib/price"',
    "",
    "export const h: lib.PriceComponent = lib.Price",
    ""
  ].join("\n"),
  "src/reexport.ts": 'export { Price } from "./lib/price"\n',
  "src/reexport-user.tsx": ['import { Price } from "./reexport"', "", "export const i = <Price value={3} />", ""].join(
    "\n"
  ),
  "src/aliased-reexport.ts": 'export { Price as Tag } from "./lib/price"\n',
  "src/aliased-reexport-user.tsx": [
    'import { Tag } from "./aliased-reexport"',
    "",
    "export const j = <Tag value={4} />",
    ""
  ].join("\n"),
  "src/types.ts": [
    'import type { Price } from "./lib/price"',
    "",
    "export type Props = Parameters<typeof Price>[0]",
    "export interface Holder {",
    "  Price: number",
    "}",
    ""
  ].join("\n"),
  "src/cycle/a.tsx": [
    'import { Price } from "../lib/price"',
    'import { b } from "./b"',
    "",
    "export const a = () => <Price value={b()} />",
    ""
  ].join("\n"),
  "src/cycle/b.ts": [
    'import { a } from "./a"',
    "",
    'export const b = (): number => (typeof a === "function" ? 1 : 0)',
    ""
  ].join("\n")
}

const renamedExpected: Record<string, string> = {
  "src/lib/price.tsx": [
    "/** Shows a price. */",
    "export function Amount(props: { value: number }): JSX.Element {",
    "  return <span>{props.value.toFixed(2)}</span>",
    "}",
    "",
    "export type PriceComponent = typeof Amount",
    "",
    "export const registry = { Price: Amount, other: 1 }",
    ""
  ].join("\n"),
  "src/lib/index.ts": 'export * from "./price"\n',
  "src/named.tsx": [
    'import { Amount } from "./lib/price"',
    "",
    "export const a = <Amount value={1} />",
    "export const b = { Price: Amount }",
    "export const c = { Price: 2 }.Price",
    "export const d: typeof Amount = Amount",
    ""
  ].join("\n"),
  "src/aliased.tsx": [
    'import { Amount as Cost } from "./lib/price"',
    "",
    "export const e = <Cost value={2} />",
    ""
  ].join("\n"),
  "src/barrel-user.tsx": [
    'import { Amount, registry } from "./lib"',
    "",
    "export const f = registry.Price === Amount",
    ""
  ].join("\n"),
  "src/shadow.tsx": [
    'import { Amount } from "./lib/price"',
    "",
    "export function inner(): number {",
    "  const Price = 3",
    "  return Price",
    "}",
    "",
    "export function param(Price: number): number {",
    "  return Price + 1",
    "}",
    "",
    "export const g = <Amount value={inner()} />",
    ""
  ].join("\n"),
  "src/namespace.ts": [
    'import * as lib from "./lib/price"',
    "",
    "export const h: lib.PriceComponent = lib.Amount",
    ""
  ].join("\n"),
  "src/reexport.ts": 'export { Amount } from "./lib/price"\n',
  "src/reexport-user.tsx": [
    'import { Amount } from "./reexport"',
    "",
    "export const i = <Amount value={3} />",
    ""
  ].join("\n"),
  "src/aliased-reexport.ts": 'export { Amount as Tag } from "./lib/price"\n',
  "src/aliased-reexport-user.tsx": renameProject["src/aliased-reexport-user.tsx"]!,
  "src/types.ts": [
    'import type { Amount } from "./lib/price"',
    "",
    "export type Props = Parameters<typeof Amount>[0]",
    "export interface Holder {",
    "  Price: number",
    "}",
    ""
  ].join("\n"),
  "src/cycle/a.tsx": [
    'import { Amount } from "../lib/price"',
    'import { b } from "./b"',
    "",
    "export const a = () => <Amount value={b()} />",
    ""
  ].join("\n"),
  "src/cycle/b.ts": renameProject["src/cycle/b.ts"]!
}

describe("fe_surgeon rename", () => {
  it.effect("renames an export used in 13 files; tsc passes before and after; shadowed names and keys stay", () =>
    Effect.gen(function* () {
      const root = writeProject(renameProject)
      assert.strictEqual(typecheck(root), "", "the project typechecks before")
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Amount" }]
      })
      assert.isTrue(result.applied)
      assert.deepStrictEqual(
        result.operations[0].files,
        result.files.map((f: any) => f.path)
      )
      for (const [path, expected] of Object.entries(renamedExpected)) {
        assert.strictEqual(read(root, path), expected, path)
      }
      const changed = result.files.map((f: any) => f.path).sort()
      assert.deepStrictEqual(
        changed,
        Object.keys(renamedExpected)
          .filter((p) => renamedExpected[p] !== renameProject[p])
          .sort()
      )
      assert.isTrue(changed.length >= 10)
      for (const file of result.files) assert.include(file.diff, `+++ b/${file.path}`)
      assert.strictEqual(typecheck(root), "", "the project typechecks after")
      assert.match(result.next, /fe_verify/)
    })
  )

  it.effect("refuses a name already in scope, naming file and line, and writes nothing", () =>
    Effect.gen(function* () {
      const root = writeProject(renameProject)
      const before = snapshot(root)
      const fe = yield* client(root)
      // `registry` is declared in the same file.
      const same = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "registry" }]
      })
      assert.isTrue(same.isError)
      assert.match(errorText(same), /registry is already declared .* src\/lib\/price\.tsx:8/)
      // `Holder` is declared in an importer (src/types.ts): the importer's scope is touched too.
      const importer = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Holder" }]
      })
      assert.isTrue(importer.isError)
      assert.match(errorText(importer), /Holder is already declared in the same scope at src\/types\.ts:4/)
      const lowercase = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "price" }]
      })
      assert.match(errorText(lowercase), /used as a JSX element at src\/.*<price> would be an HTML element/)
      // The barrel src/lib/index.ts would export two `Tag`s: it re-exports one from another module already.
      writeFileSync(join(root, "src/lib/tag.ts"), "export const Tag = 1\n")
      writeFileSync(join(root, "src/lib/index.ts"), 'export * from "./price"\nexport * from "./tag"\n')
      const barrel = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Tag" }]
      })
      assert.match(errorText(barrel), /src\/lib\/index\.ts re-exports Price and already exports a Tag/)
      writeFileSync(join(root, "src/lib/index.ts"), renameProject["src/lib/index.ts"]!)
      rmSync(join(root, "src/lib/tag.ts"))
      const invalid = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "2x" }]
      })
      assert.match(errorText(invalid), /not a valid identifier/)
      const unknown = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Prise", to: "X" }]
      })
      assert.match(errorText(unknown), /Nearest names: Price/)
      // A later operation failing undoes nothing written: the first one's change is not written either.
      const batch = yield* callRaw(fe, {
        operations: [
          { op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Amount" },
          { op: "replace_text", file: "src/named.tsx", oldText: "does not occur", newText: "x" }
        ]
      })
      assert.match(errorText(batch), /Operation 2 \(replace_text\)/)
      assert.deepStrictEqual(snapshot(root), before)
    })
  )

  it.effect("renames a local by line: the parameter, not the import", () =>
    Effect.gen(function* () {
      const root = writeProject(renameProject)
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [{ op: "rename", file: "src/shadow.tsx", symbol: "Price", line: 8, to: "amount" }]
      })
      const text = read(root, "src/shadow.tsx")
      assert.include(text, "export function param(amount: number): number {\n  return amount + 1\n}")
      assert.include(text, 'import { Price } from "./lib/price"')
      assert.include(text, "  const Price = 3\n  return Price")
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("dryRun returns the diffs and writes nothing", () =>
    Effect.gen(function* () {
      const root = writeProject(renameProject)
      const before = snapshot(root)
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Amount" }],
        dryRun: true
      })
      assert.isFalse(result.applied)
      assert.isTrue(result.files.length >= 10)
      assert.include(
        result.files.find((f: any) => f.path === "src/named.tsx").diff,
        "+export const b = { Price: Amount }"
      )
      assert.match(result.next, /without dryRun/)
      assert.deepStrictEqual(snapshot(root), before)
    })
  )
})

describe("fe_surgeon rename, more cases", () => {
  it.effect("a default export's local name, an export list, two renames in a batch, a .vue importer", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/widget.ts": [
          "export default function makeWidget(): number {",
          "  return helper()",
          "}",
          "function helper(): number {",
          "  return 1",
          "}",
          "const listed = 2",
          "export { listed, helper as aliasedHelper }",
          ""
        ].join("\n"),
        "src/use.ts": [
          'import makeWidget, { listed, aliasedHelper } from "./widget"',
          "",
          "export const n = makeWidget() + listed + aliasedHelper()",
          ""
        ].join("\n"),
        "src/other.vue": '<script setup lang="ts">\nimport { n } from "./use"\n</script>\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          { op: "rename", file: "src/widget.ts", symbol: "makeWidget", to: "createWidget" },
          { op: "rename", file: "src/widget.ts", symbol: "helper", to: "assist" },
          { op: "rename", file: "src/widget.ts", symbol: "listed", to: "items" },
          { op: "rename", file: "src/widget.ts", symbol: "items", to: "entries" }
        ]
      })
      assert.strictEqual(
        read(root, "src/widget.ts"),
        [
          "export default function createWidget(): number {",
          "  return assist()",
          "}",
          "function assist(): number {",
          "  return 1",
          "}",
          "const entries = 2",
          "export { entries, assist as aliasedHelper }",
          ""
        ].join("\n")
      )
      // The default import's local name and the aliased export are the importer's own: unchanged.
      assert.strictEqual(
        read(root, "src/use.ts"),
        'import makeWidget, { entries, aliasedHelper } from "./widget"\n\nexport const n = makeWidget() + entries + aliasedHelper()\n'
      )
      assert.strictEqual(typecheck(root), "")
      // A Vue file imports n: fe_surgeon cannot edit it, so the rename is refused.
      const vue = yield* callRaw(fe, { operations: [{ op: "rename", file: "src/use.ts", symbol: "n", to: "total" }] })
      assert.match(errorText(vue), /src\/other\.vue imports n from src\/use\.ts/)
    })
  )

  it.effect("an imported name renamed in its file only gets an alias; a re-exported local keeps its export name", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "src/a.ts": 'import { useState } from "react"\nconst hold = useState\nexport { hold, useState }\n'
      })
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          { op: "rename", file: "src/a.ts", symbol: "useState", to: "useLocal" },
          { op: "rename", file: "src/a.ts", symbol: "hold", to: "keep", line: 2 }
        ]
      })
      assert.strictEqual(
        read(root, "src/a.ts"),
        'import { useState as useLocal } from "react"\nconst keep = useLocal\nexport { keep, useLocal as useState }\n'
      )
    })
  )

  it.effect("more than 100 operations are refused by the input schema", () =>
    Effect.gen(function* () {
      const root = writeProject({ "src/a.ts": "export const a = 1\n" })
      const fe = yield* client(root)
      const ops = Array.from({ length: 101 }, () => ({ op: "add_import", file: "src/a.ts", module: "m", names: ["x"] }))
      const result = yield* callRaw(fe, { operations: ops })
      assert.isTrue(result.isError)
      assert.strictEqual(read(root, "src/a.ts"), "export const a = 1\n")
    })
  )
})

describe("fe_surgeon refusals", () => {
  it.effect("a denied file and a path outside the root are refused", () =>
    Effect.gen(function* () {
      const root = writeProject({
        ...renameProject,
        ".env": "SECRET=1\n",
        ".gitignore": "generated/\n",
        "generated/api.ts": "export const api = 1\n"
      })
      const before = snapshot(root)
      const fe = yield* client(root)
      const env = yield* callRaw(fe, { operations: [{ op: "replace_text", file: ".env", oldText: "1", newText: "2" }] })
      assert.isTrue(env.isError)
      assert.match(errorText(env), /Operation 1 \(replace_text\)/)
      assert.match(errorText(env), /denied|deny/i)
      const outside = yield* callRaw(fe, {
        operations: [{ op: "add_import", file: "../x.ts", module: "m", names: ["a"] }]
      })
      assert.isTrue(outside.isError)
      const ignored = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "generated/api.ts", symbol: "api", to: "client" }]
      })
      assert.match(
        errorText(ignored),
        /generated\/api\.ts is not one of the project's source files \(ignored by \.gitignore/
      )
      const target = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/lib/price.tsx", symbol: "registry", to: ".env.ts" }]
      })
      assert.isTrue(target.isError)
      assert.deepStrictEqual(snapshot(root), before)
    })
  )

  it.effect("a file changed between plan and commit is refused as stale", () =>
    Effect.gen(function* () {
      const root = writeProject(renameProject)
      const layer = Layer.mergeAll(FeState.layer, FeGraph.layer).pipe(Layer.provideMerge(NodeWorkspace.layer({ root })))
      const exit = yield* Effect.gen(function* () {
        const planned = yield* plan([{ op: "rename", file: "src/lib/price.tsx", symbol: "Price", to: "Amount" }])
        assert.isTrue(planned.changes.every((c) => "create" in c || c.expected !== undefined))
        writeFileSync(join(root, "src/named.tsx"), read(root, "src/named.tsx") + "// changed\n")
        return yield* Effect.exit(prepare(planned.changes))
      }).pipe(Effect.provide(layer))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = exit.cause.reasons[0] as any
        assert.strictEqual(error.error.reason, "stale")
        assert.strictEqual(error.error.path, "src/named.tsx")
      }
      assert.strictEqual(read(root, "src/lib/price.tsx"), renameProject["src/lib/price.tsx"])
    })
  )
})

describe("fe_surgeon imports", () => {
  it.effect("add_import merges, adds a line in the file's quote style, skips duplicates, refuses a conflict", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "src/a.ts": "import { a } from 'm';\nimport x from 'n';\n\nexport const y = a + x;\n",
        "src/b.ts": '"use client"\nexport const b = 1\n',
        "src/c.ts": "const taken = 1\nexport { taken }\n"
      })
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          { op: "add_import", file: "src/a.ts", module: "m", names: ["b", "a"] },
          { op: "add_import", file: "src/a.ts", module: "n", names: ["z"] },
          { op: "add_import", file: "src/a.ts", module: "o", names: ["T"], typeOnly: true },
          { op: "add_import", file: "src/b.ts", module: "react", default: "React", names: ["useState"] }
        ]
      })
      assert.strictEqual(
        read(root, "src/a.ts"),
        "import { a, b } from 'm';\nimport x, { z } from 'n';\nimport type { T } from 'o';\n\nexport const y = a + x;\n"
      )
      assert.strictEqual(
        read(root, "src/b.ts"),
        '"use client"\nimport React, { useState } from "react"\nexport const b = 1\n'
      )
      const conflict = yield* callRaw(fe, {
        operations: [{ op: "add_import", file: "src/c.ts", module: "m", names: ["taken"] }]
      })
      assert.match(errorText(conflict), /taken is already declared in src\/c\.ts:1/)
      const again = yield* call(fe, { operations: [{ op: "add_import", file: "src/a.ts", module: "m", names: ["a"] }] })
      assert.strictEqual(again.files.length, 0)
    })
  )

  it.effect("remove_import removes names, then the declaration; unknown names are refused", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "src/a.ts":
          'import D, { a, b, c } from "m"\nimport { only } from "n"\nimport "side"\n\nexport const y = D + a\n'
      })
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "remove_import", file: "src/a.ts", module: "m", names: ["b", "c"] },
          { op: "remove_import", file: "src/a.ts", module: "n" },
          { op: "remove_import", file: "src/a.ts", module: "m", names: ["D"] }
        ]
      })
      assert.strictEqual(read(root, "src/a.ts"), 'import { a } from "m"\nimport "side"\n\nexport const y = D + a\n')
      assert.match(result.operations[2].summary, /Still referenced in the file: D/)
      const missing = yield* callRaw(fe, {
        operations: [{ op: "remove_import", file: "src/a.ts", module: "m", names: ["zz"] }]
      })
      assert.match(errorText(missing), /does not import zz from m/)
      const none = yield* callRaw(fe, { operations: [{ op: "remove_import", file: "src/a.ts", module: "q" }] })
      assert.match(errorText(none), /does not import q/)
    })
  )
})

describe("fe_surgeon functions", () => {
  it.effect("add_hook_dependency adds to the array, adds a missing array, skips present names", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "src/C.tsx": [
          'import { useEffect, useMemo } from "react"',
          "export function C({ a, b }: { a: number; b: number }) {",
          "  useEffect(() => {",
          "    console.log(a, b)",
          "  }, [a])",
          "  const m = useMemo(() => a * b)",
          "  return m",
          "}",
          ""
        ].join("\n")
      })
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          { op: "add_hook_dependency", file: "src/C.tsx", line: 4, names: ["b", "a"] },
          { op: "add_hook_dependency", file: "src/C.tsx", line: 6, names: ["a", "b"] }
        ]
      })
      const text = read(root, "src/C.tsx")
      assert.include(text, "  }, [a, b])")
      assert.include(text, "useMemo(() => a * b, [a, b])")
      const none = yield* callRaw(fe, {
        operations: [{ op: "add_hook_dependency", file: "src/C.tsx", line: 1, names: ["a"] }]
      })
      assert.match(errorText(none), /No useEffect/)
    })
  )

  it.effect("change_parameter adds, renames and removes (refusing a used one); tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/f.ts": [
          "export function total(items: Array<number>, rate: number): number {",
          "  const sum = items.reduce((a, b) => a + b, 0)",
          "  return { sum }.sum * rate",
          "}",
          "export const noArgs = () => 1",
          "export const one = (x: number) => x",
          ""
        ].join("\n"),
        "src/use.ts": 'import { total } from "./f"\nexport const t = total([1], 2)\n',
        "src/g.js": "export const twice = x => x * 2\nexport const later = async y => y\n"
      })
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          {
            op: "change_parameter",
            file: "src/f.ts",
            function: "total",
            action: "add",
            name: "tax",
            type: "number",
            default: "0"
          },
          {
            op: "change_parameter",
            file: "src/f.ts",
            function: "total",
            action: "rename",
            name: "items",
            to: "values"
          },
          {
            op: "change_parameter",
            file: "src/f.ts",
            function: "noArgs",
            action: "add",
            name: "n",
            type: "number",
            default: "1"
          },
          { op: "change_parameter", file: "src/f.ts", function: "total", action: "rename", name: "tax", to: "fee" }
        ]
      })
      const text = read(root, "src/f.ts")
      assert.include(text, "export function total(values: Array<number>, rate: number, fee: number = 0): number {")
      assert.include(text, "const sum = values.reduce")
      assert.include(text, "export const noArgs = (n: number = 1) => 1")
      assert.strictEqual(typecheck(root), "")
      const used = yield* callRaw(fe, {
        operations: [{ op: "change_parameter", file: "src/f.ts", function: "total", action: "remove", name: "rate" }]
      })
      assert.match(errorText(used), /rate is still used in total \(src\/f\.ts:3\)/)
      const conflict = yield* callRaw(fe, {
        operations: [
          { op: "change_parameter", file: "src/f.ts", function: "total", action: "rename", name: "rate", to: "sum" }
        ]
      })
      assert.match(errorText(conflict), /sum/)
      yield* call(fe, {
        operations: [
          { op: "change_parameter", file: "src/f.ts", function: "total", action: "remove", name: "fee" },
          // A JavaScript arrow with a bare parameter gets parentheses (and no type).
          { op: "change_parameter", file: "src/g.js", function: "twice", action: "add", name: "k", type: "number" },
          { op: "change_parameter", file: "src/g.js", function: "later", action: "add", name: "k", default: "1" }
        ]
      })
      assert.strictEqual(
        read(root, "src/g.js"),
        "export const twice = (x, k) => x * 2\nexport const later = async (y, k = 1) => y\n"
      )
      assert.include(read(root, "src/f.ts"), "export function total(values: Array<number>, rate: number): number {")
    })
  )

  it.effect("change_prop adds, renames (with JSX uses in importers) and removes a prop and its type member", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/jsx.d.ts": renameProject["src/jsx.d.ts"]!,
        "src/Button.tsx": [
          "interface ButtonProps {",
          "  label: string",
          "  size: number",
          "}",
          "",
          "export function Button({ label, size }: ButtonProps): JSX.Element {",
          "  return <button data-size={size}>{label}</button>",
          "}",
          "",
          'export const Primary = () => <Button label="ok" size={1} />',
          ""
        ].join("\n"),
        "src/App.tsx": [
          'import { Button } from "./Button"',
          "",
          'export const App = () => <Button label="go" size={2} />',
          ""
        ].join("\n")
      })
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [
          {
            op: "change_prop",
            file: "src/Button.tsx",
            component: "Button",
            action: "rename",
            name: "label",
            to: "title"
          },
          {
            op: "change_prop",
            file: "src/Button.tsx",
            component: "Button",
            action: "add",
            name: "tone",
            type: '"a" | "b"',
            default: '"a"'
          }
        ]
      })
      const button = read(root, "src/Button.tsx")
      assert.include(button, 'interface ButtonProps {\n  title: string\n  size: number\n  tone?: "a" | "b"\n}')
      assert.include(button, 'export function Button({ title, size, tone = "a" }: ButtonProps): JSX.Element {')
      assert.include(button, "{title}</button>")
      assert.include(button, '<Button title="ok" size={1} />')
      assert.include(read(root, "src/App.tsx"), '<Button title="go" size={2} />')
      assert.strictEqual(typecheck(root), "")
      const used = yield* callRaw(fe, {
        operations: [{ op: "change_prop", file: "src/Button.tsx", component: "Button", action: "remove", name: "size" }]
      })
      assert.match(errorText(used), /size is still used/)
      yield* call(fe, {
        operations: [{ op: "change_prop", file: "src/Button.tsx", component: "Button", action: "remove", name: "tone" }]
      })
      assert.include(read(root, "src/Button.tsx"), "interface ButtonProps {\n  title: string\n  size: number\n}")
      assert.include(read(root, "src/Button.tsx"), "export function Button({ title, size }: ButtonProps)")
      assert.strictEqual(typecheck(root), "")
    })
  )
})

describe("fe_surgeon move_export", () => {
  it.effect("moves a declaration with its comment and imports; importers and barrels follow; tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/lib/util.ts": [
          'import { helper } from "./helper"',
          "",
          "const rate = 2",
          "",
          "/** Doubles and helps. */",
          "export function scale(n: number): number {",
          "  return helper(n) * rate",
          "}",
          "",
          "export const keep = scale(1)",
          ""
        ].join("\n"),
        "src/lib/helper.ts": "export const helper = (n: number): number => n + 1\n",
        "src/lib/index.ts": 'export * from "./util"\n',
        "src/a.ts": 'import { scale, keep } from "./lib/util"\nexport const a = scale(keep)\n',
        "src/b.ts": 'import { scale as s } from "./lib"\nexport const b = s(2)\n',
        "src/c.ts": 'export { scale } from "./lib/util"\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [{ op: "move_export", file: "src/lib/util.ts", symbol: "scale", to: "src/lib/math/scale.ts" }]
      })
      assert.strictEqual(result.files.find((f: any) => f.path === "src/lib/math/scale.ts").status, "created")
      assert.strictEqual(
        read(root, "src/lib/math/scale.ts"),
        [
          'import { helper } from "../helper"',
          'import { rate } from "../util"',
          "",
          "/** Doubles and helps. */",
          "export function scale(n: number): number {",
          "  return helper(n) * rate",
          "}",
          ""
        ].join("\n")
      )
      const util = read(root, "src/lib/util.ts")
      assert.include(util, "export const rate = 2")
      assert.include(util, 'import { scale } from "./math/scale"')
      assert.notInclude(util, "helper")
      assert.include(read(root, "src/a.ts"), 'import { scale } from "./lib/math/scale"')
      assert.include(read(root, "src/a.ts"), 'import { keep } from "./lib/util"')
      assert.include(read(root, "src/c.ts"), 'export { scale } from "./lib/math/scale"')
      assert.include(read(root, "src/lib/index.ts"), 'export { scale } from "./math/scale"')
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("moves an interface: type-only imports stay type-only; tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: "esnext",
            moduleResolution: "bundler",
            verbatimModuleSyntax: true
          },
          include: ["src"]
        }),
        "src/ids.ts": "export type Id = string;\n",
        "src/model.ts": [
          'import type { Id } from "./ids";',
          "",
          "// A user of the app.",
          "export interface User {",
          "  id: Id;",
          "  name: string;",
          "}",
          "",
          'export const makeUser = (id: Id): User => ({ id, name: "" });',
          ""
        ].join("\n"),
        "src/view.ts":
          'import type { User } from "./model";\nimport { makeUser } from "./model";\n\nexport const u: User = makeUser("1");\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [{ op: "move_export", file: "src/model.ts", symbol: "User", to: "src/types/user.ts" }]
      })
      assert.strictEqual(
        read(root, "src/types/user.ts"),
        'import type { Id } from "../ids";\n\n// A user of the app.\nexport interface User {\n  id: Id;\n  name: string;\n}\n'
      )
      assert.strictEqual(
        read(root, "src/model.ts"),
        'import type { Id } from "./ids";\nimport type { User } from "./types/user";\n\nexport const makeUser = (id: Id): User => ({ id, name: "" });\n'
      )
      assert.strictEqual(
        read(root, "src/view.ts"),
        'import { makeUser } from "./model";\nimport type { User } from "./types/user";\n\nexport const u: User = makeUser("1");\n'
      )
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("a rename after a move in the same batch follows the new imports", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/util.ts": "export const scale = (n: number): number => n * 2\nexport const keep = 1\n",
        "src/a.ts": 'import { scale, keep } from "./util"\nexport const a = scale(keep)\n',
        "src/b.ts": 'import { scale } from "./util"\nexport const b = scale(2)\n'
      })
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "move_export", file: "src/util.ts", symbol: "scale", to: "src/scale.ts" },
          { op: "rename", file: "src/scale.ts", symbol: "scale", to: "resize" }
        ]
      })
      assert.deepStrictEqual(result.operations[1].files, ["src/a.ts", "src/b.ts", "src/scale.ts"])
      assert.strictEqual(read(root, "src/scale.ts"), "export const resize = (n: number): number => n * 2\n")
      assert.strictEqual(read(root, "src/util.ts"), "export const keep = 1\n")
      assert.strictEqual(
        read(root, "src/a.ts"),
        'import { keep } from "./util"\nimport { resize } from "./scale"\nexport const a = resize(keep)\n'
      )
      assert.strictEqual(read(root, "src/b.ts"), 'import { resize } from "./scale"\nexport const b = resize(2)\n')
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("refuses a move onto a file that declares the name, and an unknown symbol", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "src/a.ts": "export const x = 1\nexport const y = 2, z = 3\n",
        "src/b.ts": "export const x = 2\n"
      })
      const before = snapshot(root)
      const fe = yield* client(root)
      const clash = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "x", to: "src/b.ts" }]
      })
      assert.match(errorText(clash), /src\/b\.ts already declares x/)
      const shared = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "y", to: "src/c.ts" }]
      })
      assert.match(errorText(shared), /declared together with z/)
      const unknown = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "w", to: "src/c.ts" }]
      })
      assert.match(errorText(unknown), /no exported declaration of w/)
      assert.deepStrictEqual(snapshot(root), before)
    })
  )
})

describe("fe_surgeon apply_diagnosis on broken-app", () => {
  it.effect(
    "applies the computed fixes of fe_doctor's diagnoses after a real fe_verify; refuses unknown and guidance-only ids",
    () =>
      Effect.gen(function* () {
        const root = tempDir()
        const source = fixtureDir("broken-app")
        for (const entry of readdirSync(source)) {
          // node_modules hard-linked (fast; the workspace does not follow a symlinked one).
          if (entry === "node_modules") execFileSync("cp", ["-al", join(source, entry), join(root, entry)])
          else cpSync(join(source, entry), join(root, entry), { recursive: true })
        }
        const fe = yield* client(root)
        const none = yield* callRaw(fe, { operations: [{ op: "apply_diagnosis", id: "d0123456789" }] })
        assert.match(errorText(none), /No fe_verify ran/)
        const verified = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck", "lint"] })) as any
        assert.isTrue(verified.problems.length > 0)
        const doctored = (yield* fe.callToolStructured("fe_doctor", { limit: 20 })) as any
        const diagnoses: ReadonlyArray<any> = doctored.diagnoses
        const find = (code: string) => diagnoses.find((d) => d.problem.code === code)
        // fe_doctor gives each diagnosis its id (diagnosisId of its problem).
        for (const d of diagnoses) assert.strictEqual(d.id, diagnosisId(d.problem))
        const idOf = (d: any): string => d.id
        const useState = { id: idOf(find("TS2304")) }
        const preferConst = { id: idOf(find("prefer-const")) }
        const result = yield* call(fe, {
          operations: [
            { op: "apply_diagnosis", id: useState.id },
            { op: "apply_diagnosis", id: preferConst.id }
          ]
        })
        assert.deepStrictEqual(result.files.map((f: any) => f.path).sort(), [
          "src/api.ts",
          "src/components/Counter.tsx"
        ])
        assert.include(read(root, "src/components/Counter.tsx"), "import { useEffect, useState } from 'react'")
        assert.include(read(root, "src/api.ts"), "  const url = `/api/users/${id}`")
        // Applied again: the rule finds nothing to compute on the fixed line.
        const again = yield* callRaw(fe, { operations: [{ op: "apply_diagnosis", id: preferConst.id }] })
        assert.match(errorText(again), /no computed fix .* already fixed/)
        // An earlier operation of the batch changed the line: stale, nothing written.
        const beforeStale = snapshot(root)
        const stale = yield* callRaw(fe, {
          operations: [
            {
              op: "replace_text",
              file: "src/api.ts",
              oldText: "  const unused = 'hello'",
              newText: "  const unused = 'bye'"
            },
            { op: "apply_diagnosis", id: idOf(find("TS6133")) }
          ]
        })
        assert.match(errorText(stale), /Operation 2 \(apply_diagnosis\).*was changed by an earlier operation/)
        assert.deepStrictEqual(snapshot(root), beforeStale)
        const unknown = yield* callRaw(fe, { operations: [{ op: "apply_diagnosis", id: "d0123456789" }] })
        assert.match(errorText(unknown), /No problem of this session's fe_verify runs/)
        const guidance = diagnoses.find((d) => d.problem.code === "TS2339")
        if (guidance !== undefined && guidance.confidence === "low") {
          const refused = yield* callRaw(fe, { operations: [{ op: "apply_diagnosis", id: idOf(guidance) }] })
          assert.match(errorText(refused), /no computed fix/)
        }
        // The hook dependency the lint warning asks for, and the misspelt method, in one call.
        yield* call(fe, {
          operations: [
            { op: "add_hook_dependency", file: "src/components/Counter.tsx", line: 11, names: ["count"] },
            { op: "apply_diagnosis", id: idOf(find("TS2551")) }
          ]
        })
        assert.include(read(root, "src/components/Counter.tsx"), "}, [label, count])")
        // fe_verify again: exactly those problems are gone, none is new.
        const key = (p: any) => `${p.code} ${p.file}:${p.line}`
        const after = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck", "lint"] })) as any
        const fixed = ["TS2304", "prefer-const", "TS2551", "react-hooks/exhaustive-deps"]
        assert.deepStrictEqual(
          after.problems.map(key).sort(),
          verified.problems
            .filter((p: any) => !fixed.includes(p.code))
            .map(key)
            .sort()
        )
        assert.isTrue(verified.problems.some((p: any) => p.code === "react-hooks/exhaustive-deps"))
        const beforeMoved = snapshot(root)
        // Lines moved by an earlier operation are followed; the same fix reported twice (tsc's TS6133 and ESLint's
        // no-unused-vars on one unused variable) is applied once.
        const moved = (yield* call(fe, {
          operations: [
            {
              op: "replace_text",
              file: "src/api.ts",
              oldText: "export interface User {",
              newText: "// moved down\nexport interface User {"
            },
            { op: "apply_diagnosis", id: idOf(find("TS6133")) },
            { op: "apply_diagnosis", id: idOf(find("@typescript-eslint/no-unused-vars")) }
          ]
        })) as any
        assert.match(moved.operations[2].summary, /already applied by operation 2/)
        const api = read(root, "src/api.ts")
        assert.notInclude(api, "const unused")
        assert.include(api, "// moved down\nexport interface User {")
        assert.strictEqual(
          api.split("\n").length,
          Buffer.from(beforeMoved.get("src/api.ts")!, "base64").toString("utf8").split("\n").length,
          "one line added, one deleted"
        )
      }),
    120_000
  )
})

describe("fe_surgeon review fixes", () => {
  it.effect(
    "a rename over 300 files answers with bounded diffs, says the files were changed, and tsc passes",
    () =>
      Effect.gen(function* () {
        const files: Record<string, string> = { "tsconfig.json": tsconfig, "src/lib.ts": "export const foo = 1\n" }
        for (let i = 0; i < 300; i++) {
          files[`src/use${i}.ts`] =
            `import { foo } from "./lib"\n` +
            Array.from({ length: 20 }, (_, j) => `export const v${j} = foo + ${j} // padding padding padding\n`).join(
              ""
            )
        }
        const root = writeProject(files)
        const fe = yield* client(root)
        const dry = yield* call(fe, {
          operations: [{ op: "rename", file: "src/lib.ts", symbol: "foo", to: "bar" }],
          dryRun: true
        })
        assert.strictEqual(dry.files.length, 301)
        assert.isAbove(dry.diffsOmitted, 0)
        assert.match(dry.summary, /narrow the operations/)
        const result = yield* call(fe, { operations: [{ op: "rename", file: "src/lib.ts", symbol: "foo", to: "bar" }] })
        assert.isTrue(result.applied)
        const shown = result.files.filter((f: any) => f.diffOmitted !== true)
        assert.isAtMost(
          shown.reduce((n: number, f: any) => n + f.diff.length, 0),
          60_000
        )
        assert.strictEqual(result.diffsOmitted, result.files.length - shown.length)
        assert.isTrue(result.files.every((f: any) => (f.diffOmitted === true ? f.diff === "" : f.diff.length > 0)))
        assert.match(result.summary, /WERE changed/)
        assert.isBelow(JSON.stringify(result).length, 120_000)
        assert.include(read(root, "src/use299.ts"), "bar + 19")
        assert.strictEqual(typecheck(root), "")
      }),
    120_000
  )
})

describe("fe_surgeon review fixes: renames", () => {
  it.effect("an import-then-export barrel's importers follow; tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/x.ts": "export const foo = 1\n",
        "src/barrel.ts": 'import { foo } from "./x"\nexport { foo }\nexport const twice = foo * 2\n',
        "src/use.ts": 'import { foo } from "./barrel"\nexport const three = foo + 2\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      const result = yield* call(fe, { operations: [{ op: "rename", file: "src/x.ts", symbol: "foo", to: "bar" }] })
      assert.sameMembers(result.operations[0].files, ["src/barrel.ts", "src/use.ts", "src/x.ts"])
      assert.strictEqual(read(root, "src/use.ts"), 'import { bar } from "./barrel"\nexport const three = bar + 2\n')
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect('an import("…") type naming the symbol is refused with file:line; a replace_text before it fixes it', () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": "export const foo = 1\n",
        "src/t.ts": 'export type Foo = typeof import("./a").foo\nexport const n: Foo = 1\n'
      })
      const before = snapshot(root)
      const fe = yield* client(root)
      const refused = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/a.ts", symbol: "foo", to: "bar" }]
      })
      assert.isTrue(refused.isError)
      assert.match(errorText(refused), /src\/t\.ts:1 names foo of src\/a\.ts through an import\("…"\) type/)
      assert.deepStrictEqual(snapshot(root), before)
      yield* call(fe, {
        operations: [
          { op: "replace_text", file: "src/t.ts", oldText: '("./a").foo', newText: '("./a").bar' },
          { op: "rename", file: "src/a.ts", symbol: "foo", to: "bar" }
        ]
      })
      assert.strictEqual(read(root, "src/a.ts"), "export const bar = 1\n")
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("a namespace re-export or a dynamic import naming the symbol is refused with its file:line", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/c.ts": "export const helper = 1\nexport const other = 2\n",
        "src/ns.ts": 'export * as ns from "./c"\n',
        "src/use.ts": 'import { ns } from "./ns"\nexport const h = ns.helper\n',
        "src/lazy.ts": 'export const load = async () => (await import("./c")).other\n'
      })
      const before = snapshot(root)
      const fe = yield* client(root)
      const namespaced = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/c.ts", symbol: "helper", to: "assist" }]
      })
      assert.isTrue(namespaced.isError)
      assert.match(errorText(namespaced), /src\/ns\.ts:1 re-exports the module as a namespace/)
      const dynamic = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/c.ts", symbol: "other", to: "another" }]
      })
      assert.isTrue(dynamic.isError)
      assert.match(errorText(dynamic), /src\/lazy\.ts:1 imports src\/c\.ts dynamically/)
      assert.deepStrictEqual(snapshot(root), before)
    })
  )
})

describe("fe_surgeon review fixes: change_prop", () => {
  it.effect("a default-exported component, one reached through a barrel, and an FC<P & {…}> props type", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/jsx.d.ts": renameProject["src/jsx.d.ts"]!,
        "src/Button.tsx":
          "export default function Button({ label }: { label: string }): JSX.Element {\n  return <b>{label}</b>\n}\n",
        "src/Card.tsx":
          "interface CardProps {\n  title: string\n}\nexport function Card({ title }: CardProps): JSX.Element {\n  return <h1>{title}</h1>\n}\n",
        "src/components/index.ts": 'export { Card } from "../Card"\nexport { default as Btn } from "../Button"\n',
        "src/Chip.tsx": [
          "type FC<P> = (props: P) => JSX.Element",
          "interface ChipProps {",
          "  id: string",
          "  label: string",
          "}",
          "export const Chip: FC<ChipProps & { extra?: boolean }> = ({ id, label, extra }) => (",
          "  <i>",
          "    {id}",
          "    {label}",
          "    {String(extra)}",
          "  </i>",
          ")",
          ""
        ].join("\n"),
        "src/App.tsx": [
          'import Button from "./Button"',
          'import { Card, Btn } from "./components"',
          'import { Chip } from "./Chip"',
          "",
          "export const App = () => (",
          "  <div>",
          '    <Button label="go" />',
          '    <Btn label="again" />',
          '    <Card title="t" />',
          '    <Chip id="1" label="l" extra />',
          "  </div>",
          ")",
          ""
        ].join("\n")
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          {
            op: "change_prop",
            file: "src/Button.tsx",
            component: "Button",
            action: "rename",
            name: "label",
            to: "text"
          },
          {
            op: "change_prop",
            file: "src/Card.tsx",
            component: "Card",
            action: "rename",
            name: "title",
            to: "heading"
          },
          { op: "change_prop", file: "src/Chip.tsx", component: "Chip", action: "rename", name: "label", to: "text" },
          { op: "change_prop", file: "src/Chip.tsx", component: "Chip", action: "rename", name: "extra", to: "more" }
        ]
      })
      assert.isTrue(result.applied)
      const app = read(root, "src/App.tsx")
      assert.include(app, '<Button text="go" />')
      assert.include(app, '<Btn text="again" />')
      assert.include(app, '<Card heading="t" />')
      assert.include(app, '<Chip id="1" text="l" more />')
      assert.include(read(root, "src/Chip.tsx"), "  text: string")
      assert.include(read(root, "src/Chip.tsx"), "{ more?: boolean }")
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("a props type from another module is named in the summary as not updated", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/jsx.d.ts": renameProject["src/jsx.d.ts"]!,
        "src/types.ts": "export interface TagProps {\n  label: string\n}\n",
        "src/Tag.tsx":
          'import type { TagProps } from "./types"\nexport function Tag({ label }: TagProps): JSX.Element {\n  return <u>{label}</u>\n}\n'
      })
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "change_prop", file: "src/Tag.tsx", component: "Tag", action: "rename", name: "label", to: "text" }
        ],
        dryRun: true
      })
      assert.match(
        result.operations[0].summary,
        /TagProps is not \(wholly\) declared in src\/Tag\.tsx, so it was NOT updated/
      )
    })
  )
})

describe("fe_surgeon review fixes: other operations", () => {
  it.effect("change_parameter on x => 1, add_import after a BOM and a shebang, remove_import by local name", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/lib.ts": "export const a = 1\nexport const b = 2\n",
        "src/arrow.ts": "export const one = (x: number) => 1\nexport const bare = x => 1\n",
        "src/cli.ts": "#!/usr/bin/env node\nexport const main = () => a\n",
        "src/bom.ts": "\uFEFFexport const main = () => b\n",
        "src/both.ts": 'import { a } from "./lib"\nimport { a as a2, b } from "./lib"\nexport const s = a + b\n'
      })
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "change_parameter", file: "src/arrow.ts", function: "bare", action: "remove", name: "x" },
          { op: "add_import", file: "src/cli.ts", module: "./lib", names: ["a", "a"] },
          { op: "add_import", file: "src/bom.ts", module: "./lib", names: ["b"] },
          { op: "remove_import", file: "src/both.ts", module: "./lib", names: ["a2"] }
        ]
      })
      assert.isTrue(result.applied)
      assert.include(read(root, "src/arrow.ts"), "export const bare = () => 1\n")
      assert.strictEqual(
        read(root, "src/cli.ts"),
        '#!/usr/bin/env node\nimport { a } from "./lib"\nexport const main = () => a\n'
      )
      assert.strictEqual(read(root, "src/bom.ts"), '\uFEFFimport { b } from "./lib"\nexport const main = () => b\n')
      assert.strictEqual(
        read(root, "src/both.ts"),
        'import { a } from "./lib"\nimport { b } from "./lib"\nexport const s = a + b\n'
      )
      // "a" names the local a, not a2 (whose imported name is a too).
      const again = yield* call(fe, {
        operations: [{ op: "remove_import", file: "src/both.ts", module: "./lib", names: ["a"] }],
        dryRun: true
      })
      assert.notInclude(again.files[0].diff, "-import { b }")
      const clash = yield* callRaw(fe, {
        operations: [{ op: "add_import", file: "src/arrow.ts", module: "./lib", names: ["a", "b as a"] }]
      })
      assert.isTrue(clash.isError)
      assert.match(errorText(clash), /two things under the local name a/)
      assert.strictEqual(typecheck(root).includes("src/cli.ts"), false)
      assert.strictEqual(typecheck(root).includes("src/bom.ts"), false)
      assert.strictEqual(typecheck(root).includes("src/both.ts"), false)
    })
  )

  it.effect("add_import and replace_text refuse an ignored file; replace_text says when CRLF is the reason", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        ".gitignore": "generated/\n",
        "generated/out.ts": "export const x = 1\n",
        "src/crlf.ts": "export const a = 1\r\nexport const b = 2\r\n"
      })
      const fe = yield* client(root)
      for (const op of [
        { op: "add_import", file: "generated/out.ts", module: "react", names: ["useState"] },
        { op: "replace_text", file: "generated/out.ts", oldText: "1", newText: "2" }
      ]) {
        const refused = yield* callRaw(fe, { operations: [op] })
        assert.isTrue(refused.isError)
        assert.match(errorText(refused), /not one of the project's source files/)
      }
      const crlf = yield* callRaw(fe, {
        operations: [{ op: "replace_text", file: "src/crlf.ts", oldText: "a = 1\nexport", newText: "a = 3\nexport" }]
      })
      assert.match(errorText(crlf), /CRLF line endings/)
      const earlier = yield* callRaw(fe, {
        operations: [
          { op: "replace_text", file: "src/crlf.ts", oldText: "a = 1", newText: "a = 3" },
          { op: "replace_text", file: "src/crlf.ts", oldText: "a = 1", newText: "a = 4" }
        ]
      })
      assert.match(errorText(earlier), /an earlier operation of this call \(1\) changed it/)
    })
  )

  it.effect("move_export: the project's .js style, a dependency from the target, a load-time cycle refused", () =>
    Effect.gen(function* () {
      const nodeNext = JSON.stringify({
        compilerOptions: { target: "es2022", module: "nodenext", strict: true, noEmit: true, types: [] },
        include: ["src"]
      })
      const root = writeProject({
        "tsconfig.json": nodeNext,
        "package.json": '{ "type": "module" }',
        "src/rates.ts": "const base = 2\nexport const RATE = base * 2\n",
        "src/use.ts": 'import { RATE } from "./rates.js"\nexport const x = RATE\n',
        "src/b.ts": "export const limit = 10\n",
        "src/a.ts": 'import { limit } from "./b.js"\nexport const capped = (n: number) => Math.min(n, limit)\n',
        "src/c.ts": "export const RATE = 2\nexport const DOUBLE = RATE * 2\nexport const QUAD = DOUBLE * 2\n"
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "move_export", file: "src/rates.ts", symbol: "RATE", to: "src/lib/rate.ts" },
          { op: "move_export", file: "src/a.ts", symbol: "capped", to: "src/b.ts" }
        ]
      })
      assert.isTrue(result.applied)
      // rates.ts has no relative import: the project's .js style, not "./rates" (which NodeNext refuses).
      assert.include(read(root, "src/lib/rate.ts"), 'from "../rates.js"')
      assert.notInclude(read(root, "src/b.ts"), "import")
      assert.strictEqual(typecheck(root), "")
      const cycle = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/c.ts", symbol: "DOUBLE", to: "src/d.ts" }]
      })
      assert.isTrue(cycle.isError)
      assert.match(errorText(cycle), /import each other/)
      // A function reading the old file's value only when called: moved, with a warning about the cycle.
      writeFileSync(
        join(root, "src/e.ts"),
        "export const RATE = 2\nexport function double() {\n  return RATE * 2\n}\nexport const use = () => double()\n"
      )
      const warned = yield* call(fe, {
        operations: [{ op: "move_export", file: "src/e.ts", symbol: "double", to: "src/f.ts" }]
      })
      assert.match(warned.operations[0].summary, /Warning: src\/e\.ts and src\/f\.ts now import each other/)
      assert.strictEqual(typecheck(root), "")
    })
  )
})

describe("fe_surgeon review fixes: scopes", () => {
  it.effect("default values, a type shadowing a value, enum members: renames leave tsc passing", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": [
          "const y = 1",
          "export function f(x = y) {",
          "  const y = 2",
          "  return x + y",
          "}",
          "const Foo = 1",
          "export function h() {",
          "  type Foo = string",
          '  const s: Foo = "a"',
          "  return Foo + s.length",
          "}",
          "const foo = 10",
          "export enum E {",
          "  foo = 1,",
          "  bar = foo + 1",
          "}",
          "export const sum = foo + E.bar",
          "export function g(unused: number, z: number) {",
          "  const w = z",
          "  return w",
          "}",
          ""
        ].join("\n")
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      const result = yield* call(fe, {
        operations: [
          { op: "rename", file: "src/a.ts", symbol: "y", to: "z" },
          { op: "rename", file: "src/a.ts", symbol: "Foo", to: "Bar" },
          { op: "rename", file: "src/a.ts", symbol: "foo", to: "qux" }
        ]
      })
      assert.isTrue(result.applied)
      const text = read(root, "src/a.ts")
      assert.include(text, "export function f(x = z) {\n  const y = 2")
      assert.include(text, "  type Foo = string\n")
      assert.include(text, "  return Bar + s.length")
      assert.include(text, "  bar = foo + 1")
      assert.include(text, "export const sum = qux + E.bar")
      assert.strictEqual(typecheck(root), "")
      // A body's local renamed to an (unused) parameter's name would not parse: refused.
      const clash = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/a.ts", symbol: "w", to: "unused", line: 19 }]
      })
      assert.isTrue(clash.isError)
      assert.match(errorText(clash), /already declared in the same scope/)
      const member = yield* callRaw(fe, {
        operations: [{ op: "rename", file: "src/a.ts", symbol: "bar", to: "baz", line: 15 }]
      })
      assert.match(errorText(member), /enum member/)
    })
  )
})

describe("fe_surgeon move_export: placement, comments, line endings, barrels, cycles", () => {
  it.effect("a moved const goes before the target's first use of it, after its imports; tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": "export const RATE = 2\n",
        "src/b.ts": 'import { RATE } from "./a"\n\nexport const DOUBLE = RATE * 2\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      yield* call(fe, { operations: [{ op: "move_export", file: "src/a.ts", symbol: "RATE", to: "src/b.ts" }] })
      const b = read(root, "src/b.ts")
      assert.isBelow(b.indexOf("export const RATE = 2"), b.indexOf("export const DOUBLE"))
      assert.strictEqual(b, "export const RATE = 2\n\nexport const DOUBLE = RATE * 2\n")
      assert.strictEqual(typecheck(root), "")
      // After the target's other imports, before a function using it and its comment.
      writeFileSync(join(root, "src/x.ts"), "export const x = 1\n")
      writeFileSync(join(root, "src/c.ts"), "export class Box {}\n")
      writeFileSync(
        join(root, "src/d.ts"),
        'import { Box } from "./c"\nimport { x } from "./x"\n// doc\nexport function f() {\n  return new Box()\n}\nexport const b = new Box(), y = x\n'
      )
      yield* call(fe, { operations: [{ op: "move_export", file: "src/c.ts", symbol: "Box", to: "src/d.ts" }] })
      assert.strictEqual(
        read(root, "src/d.ts"),
        'import { x } from "./x"\n\nexport class Box {}\n\n// doc\nexport function f() {\n  return new Box()\n}\nexport const b = new Box(), y = x\n'
      )
      assert.strictEqual(typecheck(root), "")
      // A target importing it under another name is refused.
      writeFileSync(join(root, "src/e.ts"), "export const E = 1\n")
      writeFileSync(join(root, "src/f.ts"), 'import { E as e } from "./e"\nexport const F = e\n')
      const aliased = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/e.ts", symbol: "E", to: "src/f.ts" }]
      })
      assert.isTrue(aliased.isError)
      assert.match(errorText(aliased), /imports E from src\/e\.ts as e/)
    })
  )

  it.effect("a trailing comment of the line before stays; the line before keeps its newline", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": "export const qux = 1 // note\n\n// Doubles.\nexport function bar() {\n  return qux\n}\n"
      })
      const fe = yield* client(root)
      yield* call(fe, { operations: [{ op: "move_export", file: "src/a.ts", symbol: "bar", to: "src/b.ts" }] })
      assert.strictEqual(read(root, "src/a.ts"), "export const qux = 1 // note\n")
      assert.strictEqual(
        read(root, "src/b.ts"),
        'import { qux } from "./a"\n\n// Doubles.\nexport function bar() {\n  return qux\n}\n'
      )
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("a declaration from a CRLF file moved into an LF file gets LF line endings", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": "export const keep = 1\r\n\r\nexport function twice(n: number) {\r\n  return n * 2\r\n}\r\n",
        "src/b.ts": "export const other = 1\n"
      })
      const fe = yield* client(root)
      yield* call(fe, { operations: [{ op: "move_export", file: "src/a.ts", symbol: "twice", to: "src/b.ts" }] })
      assert.strictEqual(
        read(root, "src/b.ts"),
        "export const other = 1\n\nexport function twice(n: number) {\n  return n * 2\n}\n"
      )
      assert.strictEqual(read(root, "src/a.ts"), "export const keep = 1\r\n")
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("a barrel re-exporting the name explicitly and by export * gets no second re-export; tsc passes", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": "export const price = 1\nexport const other = 2\n",
        "src/index.ts": 'export { price } from "./a"\nexport * from "./a"\n',
        "src/use.ts": 'import { price, other } from "./index"\nexport const total = price + other\n'
      })
      assert.strictEqual(typecheck(root), "")
      const fe = yield* client(root)
      yield* call(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "price", to: "src/lib/price.ts" }]
      })
      assert.strictEqual(read(root, "src/index.ts"), 'export { price } from "./lib/price"\nexport * from "./a"\n')
      assert.strictEqual(typecheck(root), "")
    })
  )

  it.effect("refuses a move after which the target reads the source while loading and the source the target", () =>
    Effect.gen(function* () {
      const root = writeProject({
        "tsconfig.json": tsconfig,
        "src/a.ts": 'import { K } from "./y"\nexport const B = 5 + K\nexport const A = B * 2\n',
        "src/y.ts": "export const K = 1\n"
      })
      const before = snapshot(root)
      const fe = yield* client(root)
      const refused = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "A", to: "src/y.ts" }]
      })
      assert.isTrue(refused.isError)
      assert.match(errorText(refused), /import_cycle|import each other/)
      assert.match(errorText(refused), /src\/a\.ts:2 reads K/)
      assert.deepStrictEqual(snapshot(root), before)
      // Only a function reads K: no load-time read of y by a, so the move goes through, with a warning.
      writeFileSync(
        join(root, "src/a.ts"),
        'import { K } from "./y"\nexport const B = () => 5 + K\nexport const A = B\n'
      )
      const moved = yield* call(fe, {
        operations: [{ op: "move_export", file: "src/a.ts", symbol: "A", to: "src/y.ts" }]
      })
      assert.isTrue(moved.applied)
      assert.match(moved.operations[0].summary, /Warning: src\/a\.ts and src\/y\.ts now import each other/)
      assert.strictEqual(typecheck(root), "")
      // The target's own code reading the old file while loading, the old file reading the moved one.
      writeFileSync(join(root, "src/g.ts"), 'import { H } from "./h"\nexport const use = 1\nexport const G = use + 1\n')
      writeFileSync(join(root, "src/h.ts"), 'import { G } from "./g"\nexport const H = 1\nexport const J = G\n')
      const own = yield* callRaw(fe, {
        operations: [{ op: "move_export", file: "src/g.ts", symbol: "use", to: "src/h.ts" }]
      })
      assert.isTrue(own.isError)
      assert.match(errorText(own), /src\/h\.ts:3 reads G of src\/g\.ts, and src\/g\.ts:3 reads use/)
    })
  )
})
