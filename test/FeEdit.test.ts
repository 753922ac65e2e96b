/**
 * The AST edit engine's scope analysis (`capabilities/fe/edit/scope.ts`)
 * against TypeScript's own language service (TypeScript 6, installed in the
 * react-app fixture): for every binding the analysis finds in a file, its
 * declarations and references in that file must be exactly the locations
 * TypeScript's rename finds there. The files: a tricky snippet of scoping
 * rules (hoisting, shadowing in blocks, loops, catch, class and function
 * expression names, destructuring, type parameters, mapped and conditional
 * types, enums, namespaces, labels, JSX) and the real sources of the fe
 * fixtures. Across files: for every export of graph-app's sources (tsconfig
 * paths, a barrel, a cycle), the files and offsets a rename edits are
 * exactly those of TypeScript's rename. Plus unit checks of the helpers.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { renameEdits } from "../capabilities/fe/edit/rename.ts"
import { viewOf } from "../capabilities/fe/edit/view.ts"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import { addImportEdits, removeImportEdits } from "../capabilities/fe/edit/imports.ts"
import { specifierFor } from "../capabilities/fe/edit/move.ts"
import { applyEdits, exportNamesOf, isIdentifier, parseSource, Refusal } from "../capabilities/fe/edit/source.ts"
import { loadParser } from "../capabilities/fe/skeleton/extract.ts"
import { fixtureDir } from "./support/feFixtures.ts"

// TypeScript 6's JavaScript API (the root project's TypeScript 7 has none), untyped here.
const ts: any = createRequire(join(fixtureDir("react-app"), "package.json"))("typescript")

const tricky = `
import { external as ext, type Kind } from "./other"
import * as ns from "./other"
import Default from "./other"

export function hoisted(a: number, b = a + 1, ...rest: Array<number>): number {
  var counter = a
  if (a > 0) {
    var counter = b
    let local = counter
    {
      const local = 2
      counter += local
    }
    counter += local
  }
  for (let i = 0; i < rest.length; i++) counter += rest[i]!
  for (const [k, v] of Object.entries({ x: 1 })) counter += v + k.length
  try {
    counter += later()
  } catch (error) {
    counter += String(error).length
  }
  switch (counter) {
    case 1: {
      const inCase = 1
      counter += inCase
      break
    }
    default:
      counter += 0
  }
  outer: for (const x of rest) {
    if (x) continue outer
  }
  function later(): number {
    return counter
  }
  return counter + ext + Default + ns.value
}

const named = function self(n: number): number {
  return n > 0 ? self(n - 1) : 0
}

const Klass = class Inner {
  static make(): Inner {
    return new Inner()
  }
  field = named(1)
  method({ a, b: renamed = 2, ...others }: { a: number; b?: number; c?: number }): number {
    return a + renamed + Object.keys(others).length
  }
  get value(): number {
    return this.field
  }
}

export const objects = (value: number) => {
  const shorthand = { value, named, [String(value)]: value }
  const { value: copy, named: again = named } = shorthand
  return copy + again(1) + shorthand.value
}

export type Mapped<T> = { [K in keyof T]: T[K] extends infer U ? U : never }
export type Generic<T extends Kind = Kind> = Array<T>
export function identity<T>(value: T): T {
  return value
}
export enum Color {
  Red,
  Green = Red + 1
}
export namespace Space {
  export const inside = 1
  export function get(): number {
    return inside
  }
}
export interface Shape {
  kind: Kind
  area(scale: number): number
}
declare const JSX: unknown
export function Component({ title }: { title: string }) {
  const Local = (props: { n: number }) => <b>{props.n}</b>
  return (
    <div title={title}>
      <Local n={1} />
      <Space.get />
    </div>
  )
}
let assigned = 1
assigned = assigned + Color.Green + Space.inside + identity(2) + new Klass().value
;[assigned] = [2]
;({ assigned } = { assigned: 3 })
export { assigned, assigned as alias }
export default hoisted
`

/** Scoping rules a review found broken: default values, a type shadowing a value, enum members. */
const review = `
const y = 1
export function f(x = y, w = x) {
  const y = 2
  return x + w + y
}
export const g = (a = y, b = a): number => {
  let y = a
  return b + y
}
export function v(p: number) {
  var p = 3
  return p
}
const Foo = 1
export function h() {
  type Foo = string
  const s: Foo = "a"
  return Foo + s.length
}
type Bar = { n: number }
export function k() {
  const Bar = 2
  const made: Bar = { n: Bar }
  return made
}
const foo = 10
export enum E {
  foo = 1,
  bar = foo + 1,
  baz = E.foo
}
export const useFoo = foo + E.bar
export class C implements Shape {
  n = foo
}
interface Shape {
  n: number
}
export default Shape
`

/** A language service over in-memory files. */
const languageService = (files: ReadonlyMap<string, string>) => {
  const host = {
    getCompilationSettings: () => ({
      jsx: ts.JsxEmit.Preserve,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      noLib: true,
      allowJs: true,
      types: []
    }),
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: () => "1",
    getScriptSnapshot: (name: string) => {
      const text = files.get(name)
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
    },
    getCurrentDirectory: () => "/",
    getDefaultLibFileName: () => "lib.d.ts",
    fileExists: (name: string) => files.has(name),
    readFile: (name: string) => files.get(name)
  }
  return ts.createLanguageService(host, ts.createDocumentRegistry())
}

const sourcesOf = (dir: string, prefix: string): Array<[string, string]> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:tsx?|jsx?)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .filter((e) => !join(e.parentPath, e.name).includes("node_modules"))
    .map((e) => {
      const path = join(e.parentPath, e.name)
      return [`/${prefix}/${path.slice(dir.length + 1)}`, readFileSync(path, "utf8")] as [string, string]
    })

describe("scope analysis", () => {
  it.effect("finds exactly TypeScript's rename locations for every binding of each file", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const files = new Map<string, string>([
        ["/tricky/main.tsx", tricky],
        ["/tricky/review.ts", review],
        [
          "/tricky/other.ts",
          "export const external = 1\nexport const value = 2\nexport type Kind = string\nexport default 3\n"
        ],
        ...sourcesOf(join(fixtureDir("react-app"), "src"), "react"),
        ...sourcesOf(join(import.meta.dirname, "fixtures", "fe", "graph-app", "src"), "graph")
      ])
      const service = languageService(files)
      let compared = 0
      const mismatches: Array<string> = []
      for (const [path, text] of files) {
        const source = parseSource(parse, path.slice(1), text)
        for (const scope of source.analysis.scopes) {
          for (const binding of scope.bindings.values()) {
            const first = binding.declarations[0]!
            const locations = service.findRenameLocations(path, first.start, false, false, {
              providePrefixAndSuffixTextForRename: true
            })
            if (locations === undefined) continue
            const theirs = (locations as ReadonlyArray<any>)
              .filter((l) => l.fileName === path)
              .map((l): number => l.textSpan.start)
              .sort((a, b) => a - b)
            const ours = [...binding.declarations, ...binding.references].map((o) => o.start).sort((a, b) => a - b)
            compared++
            if (JSON.stringify(theirs) !== JSON.stringify([...new Set(ours)])) {
              const show = (list: ReadonlyArray<number>) => list.map((o) => source.lineOf(o)).join(",")
              mismatches.push(`${path} ${binding.name}: ours lines ${show(ours)}, TypeScript's ${show(theirs)}`)
            }
          }
        }
      }
      assert.deepStrictEqual(mismatches, [])
      assert.isAbove(compared, 100)
    })
  )
})

describe("rename across files", () => {
  it.effect("edits exactly where TypeScript's rename does, for every export of graph-app's sources", () =>
    Effect.gen(function* () {
      const root = join(import.meta.dirname, "fixtures", "fe", "graph-app")
      const parse = yield* loadParser
      const snapshot = yield* Effect.flatMap(Effect.service(FeGraph.FeGraph), (g) => g.current).pipe(
        Effect.provide(FeGraph.layer.pipe(Layer.provide(NodeWorkspace.layer({ root }))))
      )
      const view = viewOf(snapshot.graph, parse, new Map())
      const config = ts.parseJsonConfigFileContent(
        ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile).config,
        ts.sys,
        root
      )
      const texts = new Map<string, string>(
        config.fileNames.map((name: string) => [name, readFileSync(name, "utf8")] as [string, string])
      )
      const service = ts.createLanguageService(
        {
          getCompilationSettings: () => config.options,
          getScriptFileNames: () => [...texts.keys()],
          getScriptVersion: () => "1",
          getScriptSnapshot: (name: string) => {
            const text = texts.get(name) ?? (ts.sys.fileExists(name) ? ts.sys.readFile(name) : undefined)
            return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
          },
          getCurrentDirectory: () => root,
          getDefaultLibFileName: (options: unknown) => ts.getDefaultLibFilePath(options),
          fileExists: ts.sys.fileExists,
          readFile: ts.sys.readFile
        },
        ts.createDocumentRegistry()
      )
      const relative = (name: string) => name.slice(root.length + 1)
      const source = (path: string) => parseSource(parse, path, readFileSync(join(root, path), "utf8"))
      let compared = 0
      let crossFile = 0
      const mismatches: Array<string> = []
      for (const name of texts.keys()) {
        const path = relative(name)
        const own = source(path)
        for (const binding of own.analysis.scopes[0]!.bindings.values()) {
          if (binding.imported !== undefined || !exportNamesOf(own, binding.name).includes(binding.name)) continue
          let ours: Map<string, Array<number>>
          try {
            const result = renameEdits({ source, graph: view }, path, binding.name, `${binding.name}Zq`)
            ours = new Map(
              [...result.edits].map(([file, edits]) => [
                file,
                [...new Set(edits.map((e) => e.start))].sort((a, b) => a - b)
              ])
            )
          } catch (error) {
            if (error instanceof Refusal && error.code === "unsupported_importer") continue
            throw error
          }
          const theirs = new Map<string, Array<number>>()
          for (const location of service.findRenameLocations(name, binding.declarations[0]!.start, false, false, {}) ??
            []) {
            const file = relative(location.fileName)
            theirs.set(
              file,
              [...(theirs.get(file) ?? []), location.textSpan.start].sort((a, b) => a - b)
            )
          }
          compared++
          crossFile += [...ours.keys()].filter((file) => file !== path).length
          const files = [...new Set([...ours.keys(), ...theirs.keys()])].sort()
          for (const file of files) {
            if (JSON.stringify(ours.get(file) ?? []) !== JSON.stringify(theirs.get(file) ?? [])) {
              mismatches.push(
                `${path}#${binding.name} in ${file}: ours ${JSON.stringify(ours.get(file) ?? [])}, TypeScript's ${JSON.stringify(theirs.get(file) ?? [])}`
              )
            }
          }
        }
      }
      assert.deepStrictEqual(mismatches, [])
      assert.isAbove(compared, 10)
      assert.isAbove(crossFile, 10)
    })
  )
})

describe("edit helpers", () => {
  it("isIdentifier", () => {
    assert.isTrue(isIdentifier("formatPrice"))
    assert.isTrue(isIdentifier("$el_2"))
    assert.isTrue(isIdentifier("été"))
    assert.isFalse(isIdentifier("2x"))
    assert.isFalse(isIdentifier("class"))
    assert.isFalse(isIdentifier("a-b"))
    assert.isFalse(isIdentifier(""))
  })

  it("specifierFor keeps the importer's style", () => {
    assert.strictEqual(
      specifierFor("src/a.ts", "./lib/util", "src/lib/util.ts", "src/lib/math/scale.ts"),
      "./lib/math/scale"
    )
    assert.strictEqual(specifierFor("src/a.ts", "./lib/util.js", "src/lib/util.ts", "src/lib/x.tsx"), "./lib/x.jsx")
    assert.strictEqual(specifierFor("src/a.ts", "./lib/util.ts", "src/lib/util.ts", "src/x.ts"), "./x.ts")
    assert.strictEqual(specifierFor("src/deep/a.ts", "@/lib/util", "src/lib/util.ts", "src/other/x.ts"), "@/other/x")
    assert.strictEqual(specifierFor("src/deep/a.ts", "../lib/util", "src/lib/util.ts", "src/x.ts"), "../x")
  })

  it.effect("imports keep UTF-16 offsets right after non-ASCII text and CRLF line breaks", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const text = "// prix en €, 😀\r\nimport { a } from 'm'\r\nexport const é = a\r\n"
      const source = parseSource(parse, "a.ts", text)
      const added = applyEdits(text, addImportEdits(source, { module: "n", names: ["b"] }))
      assert.strictEqual(
        added,
        "// prix en €, 😀\r\nimport { a } from 'm'\r\nimport { b } from 'n'\r\nexport const é = a\r\n"
      )
      const again = parseSource(parse, "a.ts", added)
      const removed = applyEdits(added, removeImportEdits(again, "m", []).edits)
      assert.strictEqual(removed, "// prix en €, 😀\r\nimport { b } from 'n'\r\nexport const é = a\r\n")
    })
  )
})
