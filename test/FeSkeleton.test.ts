/**
 * fe_skeleton through the test kit, over the Node workspace on the kit's
 * in-memory file system: the map of a small React + TypeScript tree (every
 * kind of export, signatures, imports, default exports, overloads,
 * re-exports), .gitignore, the deny list and dependency/build directories
 * left out, files that do not parse, the budget (less detail, then files
 * counted by directory, never over), path narrowing and its errors; and the
 * extraction alone on harder sources: signatures printed from the syntax
 * tree (comments left out, members joined, literals kept), CommonJS, JSX in
 * .js files.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { skeleton } from "../capabilities/fe/skeleton.ts"
import { FeSkeletons } from "../capabilities/fe/skeleton/cache.ts"
import { extract, loadParser } from "../capabilities/fe/skeleton/extract.ts"
import { estimateTokens, renderFile } from "../capabilities/fe/skeleton/render.ts"
import { layer as stateLayer } from "../capabilities/fe/state.ts"
import * as Capability from "../src/Capability.ts"
import { MemoryWorkspace, TestClient } from "../src/testing.ts"

const tree: Record<string, string> = {
  "package.json": JSON.stringify({ name: "shop", dependencies: { react: "19.0.0" } }),
  ".gitignore": "generated/\n*.local.ts\n",
  "src/App.tsx": [
    "import { useState } from 'react'",
    "import { Cart, type CartProps } from './components/Cart.tsx'",
    "",
    "export default function App() {",
    "  const [open, setOpen] = useState(false)",
    "  return <main onClick={() => setOpen(!open)}><Cart items={[]} /></main>",
    "}"
  ].join("\n"),
  "src/components/Cart.tsx": [
    "import { memo } from 'react'",
    "import type { Item } from '../types.ts'",
    "",
    "export interface CartProps {",
    "  items: readonly Item[]",
    "  onCheckout?: () => void",
    "}",
    "",
    "export const Cart = ({ items }: CartProps) => <ul>{items.map((i) => <li key={i.id}>{i.name}</li>)}</ul>",
    "export const CartBadge = memo(({ count }: { count: number }) => <span>{count}</span>)",
    "export const MAX_ITEMS = 50"
  ].join("\n"),
  "src/hooks/useCart.ts": [
    "import { useState } from 'react'",
    "import type { Item } from '../types.ts'",
    "",
    "export function useCart(initial: readonly Item[] = []) {",
    "  const [items, setItems] = useState(initial)",
    "  return { items, add: (item: Item) => setItems([...items, item]) }",
    "}"
  ].join("\n"),
  "src/types.ts": [
    "export interface Item {",
    "  id: number",
    "  name: string",
    "}",
    "export type ItemId = Item['id']",
    "export enum Status { Open, Paid = 'paid' }",
    "export class Ledger extends Map<number, Item> implements Iterable<[number, Item]> {",
    "  private secret = 1",
    "  total(): number {",
    "    return this.size",
    "  }",
    "}"
  ].join("\n"),
  "src/lib/format.ts": [
    "export function format(value: number): string",
    "export function format(value: string): string",
    "export function format(value: unknown): string {",
    "  return String(value)",
    "}",
    "const internal = 1",
    "export { internal as exposed }"
  ].join("\n"),
  "src/index.ts": "export * from './types.ts'\nexport { useCart as useBasket } from './hooks/useCart.ts'\n",
  "src/broken.ts": "export const ok = 1\nexport function broken( {\n",
  "src/env.d.ts": "declare const VERSION: string\n",
  "src/styles.css": "body {}\n",
  "generated/api.ts": "export const generated = 1\n",
  "src/config.local.ts": "export const local = 1\n",
  "vite.config.local.ts": "export const rootLocal = 1\n",
  ".env.ts": "export const secret = 'x'\n",
  "node_modules/react/index.js": "module.exports = {}\n",
  "dist/app.js": "export const built = 1\n"
}

const setup = (files: Record<string, string> = tree) =>
  Effect.gen(function* () {
    const memory = MemoryWorkspace.make(files)
    return yield* TestClient.make(
      Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [skeleton] })).pipe(
        Layer.provide(Layer.merge(stateLayer, FeSkeletons.layer)),
        Layer.provide(memory.layer)
      )
    )
  })

const map = (client: TestClient.TestClient, args: Record<string, unknown> = {}) =>
  Effect.map(client.callToolStructured("fe_skeleton", args), (result) => result as any)

describe("fe_skeleton", () => {
  it.effect("maps every file's imports and exports, with kinds and signatures", () =>
    Effect.gen(function* () {
      const result = yield* map(yield* setup())
      assert.strictEqual(
        result.map,
        [
          "# 7 source files under the root (react project, source in src)",
          "src/App.tsx",
          "  imports: react {useState}; ./components/Cart.tsx {Cart, type CartProps}",
          "  L4-7 component App() (default export)",
          "src/broken.ts",
          "  ! does not parse: Expected `}` but found `EOF`",
          "  (no exports)",
          "src/index.ts",
          "  L1 export * from ./types.ts",
          "  L2 export useCart as useBasket from ./hooks/useCart.ts",
          "src/types.ts",
          "  L1-4 interface Item { id: number; name: string }",
          "  L5 type ItemId = Item['id']",
          "  L6 enum Status { Open, Paid = 'paid' }",
          "  L7-12 class Ledger extends Map<number, Item> implements Iterable<[number, Item]> { total(): number }",
          "src/components/Cart.tsx",
          "  imports: react {memo}; ../types.ts {type Item}",
          "  L4-7 interface CartProps { items: readonly Item[]; onCheckout?: () => void }",
          "  L9 component Cart({ items }: CartProps)",
          "  L10 component CartBadge memo(({ count }: { count: number }))",
          "  L11 const MAX_ITEMS = 50",
          "src/hooks/useCart.ts",
          "  imports: react {useState}; ../types.ts {type Item}",
          "  L4-7 hook useCart(initial: readonly Item[] = [])",
          "src/lib/format.ts",
          "  L1 function format(value: number): string",
          "  L2 function format(value: string): string",
          "  L6 const exposed = 1"
        ].join("\n")
      )
      assert.strictEqual(result.detail, "full")
      assert.strictEqual(result.filesScanned, 7)
      assert.strictEqual(result.tokens, estimateTokens(result.map))
      assert.include(result.next, "workspace_read")
    })
  )

  it.effect("leaves out .gitignored, denied, dependency and build files, declarations and non-source files", () =>
    Effect.gen(function* () {
      const text: string = (yield* map(yield* setup())).map
      // vite.config.local.ts: a file of the root itself that the root's .gitignore names.
      for (const absent of ["generated/", "config.local", ".env", "node_modules", "dist/", "env.d.ts", "styles.css"]) {
        assert.notInclude(text, absent)
      }
    })
  )

  it.effect("a file that does not parse is reported with the parser's message, and the others are mapped", () =>
    Effect.gen(function* () {
      const result = yield* map(yield* setup())
      assert.lengthOf(result.parseErrors, 1)
      assert.strictEqual(result.parseErrors[0].file, "src/broken.ts")
      assert.include(result.map, "src/broken.ts\n  ! does not parse: ")
    })
  )

  it.effect("the budget bounds the map: less detail first, then files counted by directory", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const full = yield* map(client)
      // Just under what the full map needs: imports are dropped, signatures kept.
      const signatures = yield* map(client, { budget: full.tokens - 1 })
      assert.strictEqual(signatures.detail, "signatures")
      assert.notInclude(signatures.map, "imports:")
      assert.include(signatures.map, "L4-7 hook useCart(initial: readonly Item[] = [])")
      assert.isAtMost(signatures.tokens, full.tokens - 1)

      const names = yield* map(client, { budget: 200 })
      assert.strictEqual(names.detail, "names")
      assert.include(names.map, "src/types.ts: Item L1, ItemId L5, Status L6, Ledger L7")
      assert.include(names.map, "src/App.tsx: App L4 (default)")
      assert.isAtMost(names.tokens, 200)
      assert.include(names.next, "export names only")

      // A larger tree than the smallest budget: files that do not fit are counted by directory, never over budget.
      const many: Record<string, string> = { "package.json": "{}" }
      for (let i = 0; i < 300; i++) many[`src/area${i % 3}/module${i}.ts`] = `export const value${i} = ${i}\n`
      const crowded = yield* map(yield* setup(many), { budget: 200 })
      assert.isAtMost(crowded.tokens, 200)
      assert.isBelow(crowded.filesShown, 300)
      assert.strictEqual(crowded.filesScanned, 300)
      assert.strictEqual(
        crowded.omitted.reduce((sum: number, o: { files: number }) => sum + o.files, 0),
        300 - crowded.filesShown
      )
      assert.include(crowded.map, "more files: ")
      assert.include(crowded.next, "path set to one of the omitted directories")
    })
  )

  it.effect("monorepos with many omitted directories and very long names stay within the budget", () =>
    Effect.gen(function* () {
      const wide: Record<string, string> = { "package.json": "{}" }
      for (let p = 0; p < 60; p++) {
        for (let f = 0; f < 30; f++)
          wide[`packages/package-number-${p}/src/file${f}.ts`] = `export const v${f} = ${f}\n`
      }
      const long = "a-rather-deep-directory/".repeat(30).slice(0, -1)
      wide[`${long}/a.ts`] = "export const a = 1\n"
      wide[`${long}/b.ts`] = "export const b = 1\n"
      const client = yield* setup(wide)
      for (const budget of [200, 1000, 4000]) {
        const result = yield* map(client, { budget })
        assert.isAtMost(result.tokens, budget, `budget ${budget}`)
        assert.strictEqual(result.filesScanned, 1802)
        assert.include(result.map, "more files")
        assert.isAbove(result.omitted.length, 20)
      }
      // A path so long that the header alone is over the budget.
      const narrow = yield* map(client, { path: long, budget: 200 })
      assert.isAtMost(narrow.tokens, 200)
    })
  )

  it.effect("code comes before its tests and stories; what is left out is counted in at most 40 directories", () =>
    Effect.gen(function* () {
      const result = yield* map(
        yield* setup({
          "package.json": JSON.stringify({ dependencies: { react: "19.0.0" } }),
          "src/Button.test.tsx": "import { Button } from './Button.tsx'\n",
          "src/Button.stories.tsx": "export default { title: 'Button' }\n",
          "src/Button.tsx": "export const Button = () => <button />\n",
          "src/__tests__/format.ts": "export const sample = 1\n",
          "src/lib/format.ts": "export type Format = 'a'\nexport const Format = 'a'\n"
        })
      )
      assert.strictEqual(
        result.map,
        [
          "# 5 source files under the root (react project, source in src)",
          "src/Button.tsx",
          "  L1 component Button()",
          "src/lib/format.ts",
          "  L1 type Format = 'a'",
          "  L2 const Format = 'a'",
          "src/Button.stories.tsx",
          "  L1 const default = { title: 'Button' }",
          "src/Button.test.tsx",
          "  imports: ./Button.tsx {Button}",
          "  (no exports)",
          "src/__tests__/format.ts",
          "  L1 const sample = 1"
        ].join("\n")
      )

      const wide: Record<string, string> = { "package.json": "{}" }
      for (let i = 0; i < 120; i++) wide[`area${String(i).padStart(3, "0")}/index.ts`] = `export const v${i} = ${i}\n`
      const crowded = yield* map(yield* setup(wide), { budget: 200 })
      assert.lengthOf(crowded.omitted, 40)
      assert.strictEqual(crowded.omitted[39].path, "(other directories)")
      assert.strictEqual(
        crowded.omitted.reduce((sum: number, o: { files: number }) => sum + o.files, 0),
        120 - crowded.filesShown
      )
    })
  )

  it.effect("path narrows to a directory or a file; a missing or hostile path is an error", () =>
    Effect.gen(function* () {
      const client = yield* setup()
      const hooks = yield* map(client, { path: "src/hooks" })
      assert.strictEqual(hooks.filesScanned, 1)
      assert.include(hooks.map, "# 1 source file under src/hooks")
      const one = yield* map(client, { path: "src/types.ts" })
      assert.strictEqual(one.filesScanned, 1)
      yield* client.expectToolError("fe_skeleton", { path: "src/nowhere" }, "not_found")
      yield* client.expectToolError("fe_skeleton", { path: "../etc" }, "path_rejected:escapes_root")
    })
  )

  it.effect("Vue, Svelte and Astro components: the component with its props, module exports, imports", () =>
    Effect.gen(function* () {
      const files = {
        "package.json": JSON.stringify({ dependencies: { vue: "3.5.0" } }),
        "src/components/item-list.vue": [
          '<script lang="ts">',
          "export const TITLE_MAX = 40",
          "</script>",
          '<script setup lang="ts">',
          "import { computed } from 'vue'",
          "import type { Item } from '../types'",
          "const props = withDefaults(defineProps<{ items: Item[]; title?: string }>(), { title: 'List' })",
          "const count = computed(() => props.items.length)",
          "</script>",
          "<template><h1>{{ title }} ({{ count }})</h1></template>"
        ].join("\n"),
        "src/Button.svelte": [
          '<script lang="ts">',
          "  import type { Snippet } from 'svelte'",
          "  let { label, children }: { label: string; children: Snippet } = $props()",
          "</script>",
          "<button>{label}{@render children()}</button>"
        ].join("\n"),
        "src/Greeting.svelte": [
          '<script context="module" lang="ts">',
          "  export const preload = () => 1",
          "</script>",
          '<script lang="ts">',
          "  export let name: string",
          "</script>",
          "<p>Hello {name}</p>"
        ].join("\n"),
        "src/pages/index.astro": [
          "---",
          "import Layout from '../layouts/Layout.astro'",
          "export interface Props { title: string }",
          "const { title } = Astro.props",
          "---",
          "<Layout>{title}</Layout>"
        ].join("\n"),
        "src/Broken.vue": '<script setup lang="ts">\nconst = 1\n</script>\n'
      }
      const result = yield* map(yield* setup(files))
      assert.strictEqual(
        result.map,
        [
          "# 5 source files under the root (vue project, source in src)",
          "src/Broken.vue",
          result.map.split("\n")[2],
          "  L1-3 component Broken (default export)",
          "src/Button.svelte",
          "  imports: svelte {type Snippet}",
          "  L1-5 component Button(props: { label: string; children: Snippet }) (default export)",
          "src/Greeting.svelte",
          "  L1-7 component Greeting(props: { name: string }) (default export)",
          "  L2 function preload()",
          "src/components/item-list.vue",
          "  imports: vue {computed}; ../types {type Item}",
          "  L1-10 component ItemList(props: { items: Item[]; title?: string }) (default export)",
          "  L2 const TITLE_MAX = 40",
          "src/pages/index.astro",
          "  imports: ../layouts/Layout.astro {default as Layout}",
          "  L1-6 component Index(props: Props) (default export)",
          "  L3 interface Props { title: string }"
        ].join("\n")
      )
      assert.match(result.map.split("\n")[2], /^ {2}! does not parse: /)
      assert.deepStrictEqual(
        result.parseErrors.map((e: { file: string }) => e.file),
        ["src/Broken.vue"]
      )
    })
  )

  it.effect("a destructuring export lists the names it binds, not its keys or defaults", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const skeleton = extract(
        parse,
        "src/config.ts",
        "declare const obj: any\nexport const { a: x, b = fallback, ...rest } = obj\nexport const [first, , third] = [1, 2, 3]\n"
      )
      assert.deepStrictEqual(
        skeleton.exports.map((e) => e.name),
        ["x", "b", "rest", "first", "third"]
      )
    })
  )

  it.effect("maxFiles stops the scan and says so", () =>
    Effect.gen(function* () {
      const result = yield* map(yield* setup(), { maxFiles: 2 })
      assert.strictEqual(result.filesScanned, 2)
      assert.isTrue(result.scanLimited)
    })
  )
})

/** The map of one file's source, at full detail. */
const mapOf = (path: string, source: string) =>
  Effect.map(loadParser, (parse) => renderFile(extract(parse, path, source), "full"))

describe("fe_skeleton's extraction", () => {
  it.effect("prints signatures from the syntax tree: comments left out, members joined, literals kept", () =>
    Effect.gen(function* () {
      const source = [
        "export interface Props {",
        "  id: number // the id",
        "  /** Shown as is. */",
        "  label: 'two  spaces';",
        "  nested: { a: string",
        "    b: number },",
        "  onPick(id: number): void",
        "}",
        "export type Handler = (",
        "  event: string, // first",
        "  detail?: unknown,",
        ") => void",
        "export type Size =",
        "  | 'small'",
        "  | 'large'",
        "export type Mixed = (A | B) & C",
        "export function find<T extends object>(items: T[] /* all */, key?: string): T | undefined {",
        "  return items[0]",
        "}",
        "export const load = async (url: string) => fetch(url)",
        "export const save = async (url: string): Promise<void> => {}",
        "export const { a: renamed, b = fallback, ...rest } = source",
        "export const [first, , third] = list",
        "export const settings = { retries: 3 } satisfies Settings",
        "export abstract class Repo<T> {",
        "  abstract get(id: string): Promise<T>",
        "  protected cache = new Map()",
        "  #secret = 1",
        "  readonly name?: string",
        "  static create(): void {}",
        "  constructor(public readonly url: string) {}",
        "}",
        "export const Client = class { send(body: string): void {} }",
        "export type { Item } from './item.ts'",
        "export { default as Legacy } from './legacy.ts'"
      ].join("\n")
      assert.strictEqual(
        yield* mapOf("src/api.ts", source),
        [
          "src/api.ts",
          "  L1-8 interface Props { id: number; label: 'two  spaces'; nested: { a: string; b: number }; onPick(id: number): void }",
          "  L9-12 type Handler = (event: string, detail?: unknown) => void",
          "  L13-15 type Size = 'small' | 'large'",
          "  L16 type Mixed = (A | B) & C",
          "  L17-19 function find<T extends object>(items: T[], key?: string): T | undefined",
          "  L20 function load(url: string) (async)",
          "  L21 function save(url: string): Promise<void>",
          "  L22 const renamed",
          "  L22 const b",
          "  L22 const rest",
          "  L23 const first",
          "  L23 const third",
          "  L24 const settings = { retries: 3 } satisfies Settings",
          "  L25-32 class Repo<T> { abstract get(id: string): Promise<T>; readonly name?: string; static create(): void; constructor(public readonly url: string) }",
          "  L33 class Client { send(body: string): void }",
          "  L34 export type Item from ./item.ts",
          "  L35 export default as Legacy from ./legacy.ts"
        ].join("\n")
      )
    })
  )

  it.effect("components: default exports, wrappers, JSX in .js files", () =>
    Effect.gen(function* () {
      const tsx = [
        "export const Field = forwardRef<HTMLInputElement, FieldProps>(function Field(props, ref) {",
        "  return <input ref={ref} {...props} />",
        "})",
        "export const Button: React.FC<ButtonProps> = ({ children }) => <button>{children}</button>",
        "export default () => <main />"
      ].join("\n")
      assert.strictEqual(
        yield* mapOf("src/Field.tsx", tsx),
        [
          "src/Field.tsx",
          "  L1-3 component Field forwardRef<HTMLInputElement, FieldProps>((props, ref))",
          "  L4 component Button: React.FC<ButtonProps>",
          "  L5 component default()"
        ].join("\n")
      )
      const js = "const App = ({ title }) => <h1>{title}</h1>\nexport { App as default }\n"
      assert.strictEqual(yield* mapOf("src/App.js", js), "src/App.js\n  L1 component App({ title }) (default export)")
    })
  )

  it.effect("names only: a value and a type of the same name, or overloads, once", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const source =
        "export type Format = 'a'\nexport const Format = 'a'\nexport function f(a: 1): 1\nexport function f(a: 2): 2\n"
      assert.strictEqual(renderFile(extract(parse, "src/format.ts", source), "names"), "src/format.ts: Format L1, f L3")
    })
  )

  it.effect("CommonJS: require imports, module.exports and exports.name", () =>
    Effect.gen(function* () {
      const source = [
        "const fs = require('node:fs')",
        "const { join, resolve: resolvePath } = require('node:path')",
        "require('dotenv/config')",
        "function build(entry, options = {}) {}",
        "module.exports = { build, version: '1.0.0', watch(dir) {} }",
        "exports.clean = async function (dir) {}"
      ].join("\n")
      assert.strictEqual(
        yield* mapOf("scripts/build.cjs", source),
        [
          "scripts/build.cjs",
          "  imports: node:fs {* as fs}; node:path {join, resolve as resolvePath}; dotenv/config",
          "  L4 function build(entry, options = {})",
          "  L5 const version = '1.0.0'",
          "  L5 function watch(dir)",
          "  L6 function clean(dir) (async)"
        ].join("\n")
      )
    })
  )
})
