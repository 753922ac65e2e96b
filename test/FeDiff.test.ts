/**
 * fe_diff through the test kit over the real Node workspace, command runner
 * and git, on small repositories made in temp directories: each kind of
 * change (export added, removed, signature changed, a prop added, a body
 * changed, imports added and removed, a file renamed with git and moved
 * without it, deleted, untracked, denied, non-source) reported exactly and
 * nothing for an untouched file; two refs; the budget cut; and the errors
 * (unknown ref, a ref that is an option, no commits, not a repository, a
 * path outside the root).
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { dirname, join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { diff } from "../capabilities/fe/diff.ts"
import { impact } from "../capabilities/fe/impact.ts"
import { diffApi, fileApi } from "../capabilities/fe/diff/api.ts"
import { isSafeRef, parseBatch, parseNameStatus, parseNumstat } from "../capabilities/fe/diff/git.ts"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import { loadParser } from "../capabilities/fe/skeleton/extract.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import { CommandNotFound, CommandRunner } from "../src/CommandRunner.ts"
import { TestClient } from "../src/testing.ts"
import { defaultDeny } from "../src/Workspace.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const temps: Array<string> = []
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-diff-")))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null"
}
const git = (root: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", ...args], {
    cwd: root,
    env: gitEnv,
    encoding: "utf8"
  })

const write = (root: string, files: Record<string, string>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

const setup = (root: string) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [diff, impact] })).pipe(
      Layer.provide(FeGraph.layer),
      Layer.provide(NodeCommandRunner.layer()),
      Layer.provide(NodeWorkspace.layer({ root, deny: [...defaultDeny, "secret*"] })),
      Layer.provide(Layer.succeed(WorkspaceRoot, root))
    )
  )

const call = (client: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(client.callToolStructured("fe_diff", args), (result) => result as any)

const errorText = (result: { readonly content: ReadonlyArray<any> }) =>
  result.content.map((c: any) => (typeof c.text === "string" ? c.text : "")).join("\n")

const expectError = (client: TestClient.TestClient, args: Record<string, unknown>, code: string) =>
  Effect.map(client.expectToolError("fe_diff", args, code), errorText)

const original: Record<string, string> = {
  "package.json": `{ "name": "diff-app", "type": "module" }\n`,
  "README.md": "# app\n",
  "src/format.ts": [
    "export function formatPrice(value: number): string {",
    "  return value.toFixed(2)",
    "}",
    "export const TAX = 0.2",
    "export function oldHelper(): void {}",
    ""
  ].join("\n"),
  "src/Button.tsx": [
    "interface ButtonProps {",
    "  label: string",
    "  onClick?: () => void",
    "}",
    "export function Button({ label, onClick }: ButtonProps) {",
    "  return <button onClick={onClick}>{label}</button>",
    "}",
    ""
  ].join("\n"),
  "src/body.ts": ["export function compute(a: number): number {", "  return a + 1", "}", ""].join("\n"),
  "src/deps.ts": [
    'import { formatPrice } from "./format"',
    'import { join } from "node:path"',
    "export const price = formatPrice(1)",
    'export const joined = join("a", "b")',
    ""
  ].join("\n"),
  "src/old-name.ts": "export const renamed = 1\n",
  "src/moved.ts": [
    "export function movedA(): number {",
    "  return 1",
    "}",
    "export function movedB(): number {",
    "  return 2",
    "}",
    ""
  ].join("\n"),
  "src/gone.ts": "export function goneFn(x: string): string {\n  return x\n}\n",
  "src/untouched.ts": "export const untouched = true\n",
  "src/secret.ts": "export const key = 1\n",
  "src/app.ts": [
    'import { formatPrice, oldHelper } from "./format"',
    'import { Button } from "./Button"',
    "export const app = [formatPrice(2), oldHelper(), Button]",
    ""
  ].join("\n")
}

/** A committed copy of `original`, then changed: one change of each kind. */
const changedRepo = () => {
  const root = tempDir()
  write(root, original)
  git(root, "init", "-q")
  git(root, "add", "-A")
  git(root, "commit", "-q", "-m", "initial")
  write(root, {
    "README.md": "# app\n\nmore\n",
    "src/format.ts": [
      "export function formatPrice(value: number, currency: string): string {",
      "  return value.toFixed(2) + currency",
      "}",
      "export const TAX = 0.2",
      "export function formatDate(date: Date): string {",
      "  return date.toISOString()",
      "}",
      ""
    ].join("\n"),
    "src/Button.tsx": original["src/Button.tsx"]!.replace(
      "  onClick?: () => void\n",
      "  onClick?: () => void\n  disabled?: boolean\n"
    ),
    "src/body.ts": original["src/body.ts"]!.replace("a + 1", "a + 2"),
    "src/deps.ts": [
      'import { formatPrice, TAX } from "./format"',
      'import { z } from "zod"',
      "export const price = formatPrice(1) * TAX",
      "export const joined = z",
      ""
    ].join("\n"),
    "src/fresh.ts": "export const fresh = (n: number): number => n\n",
    "src/secret.ts": "export const key = 2\n"
  })
  git(root, "mv", "src/old-name.ts", "src/new-name.ts")
  renameSync(join(root, "src/moved.ts"), join(root, "src/moved-here.ts"))
  // Moved and changed a little: still the same file (6 of its 7 lines unchanged).
  write(root, {
    "src/moved-here.ts": original["src/moved.ts"]!.replace("movedB(): number", "movedB(x: number): number")
  })
  rmSync(join(root, "src/gone.ts"))
  return root
}

const byPath = (result: any) => new Map<string, any>(result.files.map((f: any) => [f.path, f]))
const names = (list: ReadonlyArray<any>) => list.map((e: any) => e.name).sort()

describe("fe_diff", () => {
  it("parses git's -z output", () => {
    assert.deepStrictEqual(parseNameStatus("M\0src/a.ts\0R095\0src/old.ts\0src/new.ts\0D\0x.js\0A\0y.ts\0"), [
      { path: "src/a.ts", status: "modified" },
      { path: "src/new.ts", status: "renamed", from: "src/old.ts" },
      { path: "x.js", status: "deleted" },
      { path: "y.ts", status: "added" }
    ])
    const counts = parseNumstat(
      ["3\t1\tsrc/a.ts", "1\t0\t", "src/old.ts", "src/new.ts", "-\t-\tlogo.png", ""].join("\0")
    )
    assert.deepStrictEqual(Object.fromEntries(counts), {
      "src/a.ts": { added: 3, removed: 1 },
      "src/new.ts": { added: 1, removed: 0 }
    })
  })

  it("parses git cat-file --batch output, and gives up where it does not match", () => {
    const oid = "a".repeat(40)
    assert.deepStrictEqual(
      parseBatch(`${oid} blob 3\né!\nHEAD:./x missing\n${oid} blob 5\nlarge\n${oid} tree 0\n\n`, 4, 4),
      ["é!", undefined, undefined, undefined]
    )
    // A size that does not match the decoded bytes (content that was not UTF-8): that one and the rest, null.
    assert.deepStrictEqual(parseBatch(`${oid} blob 1\nx\n${oid} blob 9\nshort\n${oid} blob 1\ny\n`, 3, 100), [
      "x",
      null,
      null
    ])
  })

  it.effect("compares a file that is not UTF-8 (read again on its own)", () =>
    Effect.gen(function* () {
      const root = tempDir()
      write(root, { "src/a.ts": "export const a = 1\n" })
      writeFileSync(join(root, "src/latin.ts"), Buffer.from("// caf\xe9\nexport function f(): void {}\n", "latin1"))
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      writeFileSync(
        join(root, "src/latin.ts"),
        Buffer.from("// caf\xe9\nexport function f(x: number): void {}\n", "latin1")
      )
      write(root, { "src/a.ts": "export const a = 1\nexport const b = 2\n" })
      const result = yield* call(yield* setup(root), {})
      const files = byPath(result)
      assert.deepStrictEqual(names(files.get("src/a.ts").exports.added), ["b"])
      assert.strictEqual(files.get("src/latin.ts").exports.changed[0].after.signature, "(x: number): void")
    })
  )

  it("refuses refs that are options or not refs", () => {
    for (const ref of ["HEAD", "HEAD~1", "main", "v1.0", "a1b2c3d", "origin/main", "HEAD^{tree}"]) {
      assert.isTrue(isSafeRef(ref), ref)
    }
    for (const ref of ["", "-x", "--output=/tmp/x", "a b", "a\nb", "x".repeat(300)]) assert.isFalse(isSafeRef(ref), ref)
  })

  it.effect("reads props through FC, forwardRef, memo, extends, intersections, plain JS and Vue", () =>
    Effect.gen(function* () {
      const parse = yield* loadParser
      const props = (path: string, before: string, after: string) =>
        diffApi(fileApi(parse, path, before), fileApi(parse, path, after)).props
      const card = (member: string) =>
        `import type { FC } from "react"\ntype CardProps = { title: string${member} }\nexport const Card: FC<CardProps> = ({ title }) => <div>{title}</div>\n`
      assert.deepStrictEqual(props("src/Card.tsx", card(""), card("; subtitle?: string")), [
        { component: "Card", added: ["subtitle?: string"], removed: [], changed: [] }
      ])
      const input = (id: string) =>
        `import { forwardRef } from "react"\ninterface BaseProps { id: ${id} }\ninterface InputProps extends BaseProps { value: string }\nexport const Input = forwardRef<HTMLInputElement, InputProps>((props, ref) => <input ref={ref} value={props.value} />)\n`
      assert.deepStrictEqual(props("src/Input.tsx", input("string"), input("number")), [
        {
          component: "Input",
          added: [],
          removed: [],
          changed: [{ name: "id", before: "id: string", after: "id: number" }]
        }
      ])
      const memo = (type: string) =>
        `import { memo } from "react"\nexport const Tag = memo(function Tag({ a }: { a: ${type} }) { return <i>{a}</i> })\n`
      assert.deepStrictEqual(props("src/Tag.tsx", memo("string"), memo("number")), [
        { component: "Tag", added: [], removed: [], changed: [{ name: "a", before: "a: string", after: "a: number" }] }
      ])
      const box = (extra: string) =>
        `type BoxProps = { size: number }\nexport default function Box(props: BoxProps${extra}) { return <div>{props.size}</div> }\n`
      assert.deepStrictEqual(props("src/Box.tsx", box(' & { tone: "a" | "b" }'), box("")), [
        { component: "Box (default)", added: [], removed: ['tone: "a" | "b"'], changed: [] }
      ])
      const plain = (names: string) => `export function Plain({ ${names} }) { return <p>{x}</p> }\n`
      assert.deepStrictEqual(props("src/Plain.jsx", plain("x, y = 1"), plain("x, y = 1, z")), [
        { component: "Plain", added: ["z"], removed: [], changed: [] }
      ])
      const vue = (members: string) =>
        `<script setup lang="ts">\ndefineProps<{ ${members} }>()\n</script>\n<template><h1>{{ title }}</h1></template>\n`
      assert.deepStrictEqual(props("src/PageTitle.vue", vue("title: string"), vue("title: string; count?: number")), [
        { component: "PageTitle (default)", added: ["count?: number"], removed: [], changed: [] }
      ])
      // A body change is no props change.
      assert.deepStrictEqual(props("src/Tag.tsx", memo("string"), memo("string").replace("<i>", "<b>")), [])
    })
  )

  it.effect("reports each kind of change in the working tree, and nothing else", () =>
    Effect.gen(function* () {
      const root = changedRepo()
      // Untracked dependencies nobody ignored: not the change.
      write(root, { "node_modules/pkg/index.js": "export const dependency = 1\n" })
      const client = yield* setup(root)
      const result = yield* call(client, { budget: 20_000 })
      const files = byPath(result)
      assert.deepStrictEqual(
        [...files.keys()].sort(),
        [
          "src/Button.tsx",
          "src/body.ts",
          "src/deps.ts",
          "src/format.ts",
          "src/fresh.ts",
          "src/gone.ts",
          "src/moved-here.ts",
          "src/new-name.ts"
        ],
        JSON.stringify(result, null, 1)
      )
      const format = files.get("src/format.ts")
      assert.strictEqual(format.status, "modified")
      assert.deepStrictEqual(format.exports.added, [
        { name: "formatDate", kind: "function", signature: "(date: Date): string" }
      ])
      assert.deepStrictEqual(format.exports.removed, [
        { name: "oldHelper", kind: "function", signature: "(): void", importers: 1 }
      ])
      assert.deepStrictEqual(format.exports.changed, [
        {
          name: "formatPrice",
          before: { kind: "function", signature: "(value: number): string" },
          after: { kind: "function", signature: "(value: number, currency: string): string" },
          members: { added: ["currency: string"], removed: [], changed: [] },
          importers: 2
        }
      ])
      assert.isUndefined(format.note)
      assert.isUndefined(format.imports)

      const button = files.get("src/Button.tsx")
      assert.isUndefined(button.exports)
      assert.deepStrictEqual(button.props, [
        { component: "Button", added: ["disabled?: boolean"], removed: [], changed: [] }
      ])

      const body = files.get("src/body.ts")
      assert.deepStrictEqual(Object.keys(body).sort(), ["note", "path", "status"])
      assert.strictEqual(body.note, "implementation changed: 2 lines (+1 -1)")

      const deps = files.get("src/deps.ts")
      // price's and joined's initializers changed, not their API: no export is reported.
      assert.isUndefined(deps.exports)
      assert.strictEqual(deps.note, "implementation changed: 8 lines (+4 -4)")
      assert.deepStrictEqual(deps.imports, {
        added: [
          { from: "./format", names: ["TAX"], module: false },
          { from: "zod", names: ["z"], module: true }
        ],
        removed: [{ from: "node:path", names: ["join"], module: true }]
      })

      const renamed = files.get("src/new-name.ts")
      assert.strictEqual(renamed.status, "renamed")
      assert.strictEqual(renamed.from, "src/old-name.ts")
      assert.isUndefined(renamed.exports)
      assert.strictEqual(renamed.note, "moved without a change")
      const moved = files.get("src/moved-here.ts")
      assert.strictEqual(moved.status, "renamed")
      assert.strictEqual(moved.from, "src/moved.ts")
      assert.deepStrictEqual(moved.exports.changed, [
        {
          name: "movedB",
          before: { kind: "function", signature: "(): number" },
          after: { kind: "function", signature: "(x: number): number" },
          members: { added: ["x: number"], removed: [], changed: [] },
          importers: 0
        }
      ])
      assert.isUndefined(moved.note)

      const gone = files.get("src/gone.ts")
      assert.strictEqual(gone.status, "deleted")
      assert.deepStrictEqual(names(gone.exports.removed), ["goneFn"])
      const fresh = files.get("src/fresh.ts")
      assert.strictEqual(fresh.status, "added")
      assert.deepStrictEqual(fresh.exports.added, [
        { name: "fresh", kind: "function", signature: "(n: number): number" }
      ])

      assert.deepStrictEqual(result.summary.skipped, { denied: 1, other: 2, unreadable: 0 })
      assert.deepStrictEqual(result.summary.exports, { added: 2, removed: 2, changed: 2 })
      assert.strictEqual(result.summary.bodyOnly, 1)
      assert.strictEqual(result.head, "working tree")
      assert.isFalse(result.truncated)
      // Breaking first: the files with removed or changed exports, deleted or renamed, before the others.
      const order = result.files.map((f: any) => f.path)
      assert.strictEqual(order[0], "src/format.ts")
      assert.isAbove(order.indexOf("src/body.ts"), order.indexOf("src/fresh.ts"))
      assert.include(result.next, "fe_impact")
      assert.include(result.next, "src/format.ts#formatPrice")

      // paths limits the diff.
      const only = yield* call(client, { paths: ["src/body.ts", "src/Button.tsx"] })
      assert.deepStrictEqual(only.files.map((f: any) => f.path).sort(), ["src/Button.tsx", "src/body.ts"])
      assert.deepStrictEqual(only.summary.skipped, { denied: 0, other: 0, unreadable: 0 })
    })
  )

  it.effect("on graph-app: importers as fe_impact counts them, a Vue component's props, aliases", () =>
    Effect.gen(function* () {
      const root = tempDir()
      cpSync(join(import.meta.dirname, "fixtures", "fe", "graph-app"), root, {
        recursive: true,
        filter: (source) => !source.includes("node_modules")
      })
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      write(root, {
        "src/lib/format.ts":
          'export const formatPrice = (cents: number, currency = "$"): string => `${currency}${cents}`\n',
        "packages/ui/src/Button.tsx": readFileSync(join(root, "packages/ui/src/Button.tsx"), "utf8").replace(
          "{ children: ReactNode }",
          "{ children: ReactNode; tone?: string }"
        ),
        "src/components/Widget.vue": readFileSync(join(root, "src/components/Widget.vue"), "utf8").replace(
          "const cart = useCart()",
          "defineProps<{ compact?: boolean }>()\nconst cart = useCart()"
        )
      })
      const client = yield* setup(root)
      const result = yield* call(client, { budget: 20_000 })
      const files = byPath(result)
      assert.deepStrictEqual([...files.keys()].sort(), [
        "packages/ui/src/Button.tsx",
        "src/components/Widget.vue",
        "src/lib/format.ts"
      ])
      const format = files.get("src/lib/format.ts")
      const expected = (
        (yield* client.callToolStructured("fe_impact", {
          symbols: ["src/lib/format.ts#formatPrice", "src/lib/format.ts#formatName"]
        })) as any
      ).targets.map((t: any) => t.importers.length)
      assert.isTrue(expected.every((n: number) => n > 0))
      assert.strictEqual(format.exports.changed[0].name, "formatPrice")
      assert.strictEqual(format.exports.changed[0].importers, expected[0])
      assert.deepStrictEqual(
        format.exports.removed.map((e: any) => [e.name, e.importers]),
        [["formatName", expected[1]]]
      )
      assert.deepStrictEqual(files.get("packages/ui/src/Button.tsx").props, [
        { component: "Button", added: ["tone?: string"], removed: [], changed: [] }
      ])
      // Widget had no props: now it declares compact.
      const widget = files.get("src/components/Widget.vue")
      assert.deepStrictEqual(widget.exports.changed, [
        {
          name: "Widget (default)",
          before: { kind: "component", signature: "" },
          after: { kind: "component", signature: "(props: { compact?: boolean })" },
          // Nothing imports Widget.vue in the fixture.
          importers: 0
        }
      ])
    })
  )

  it.effect("compares two refs", () =>
    Effect.gen(function* () {
      const root = changedRepo()
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "change")
      const client = yield* setup(root)
      const result = yield* call(client, { base: "HEAD~1", head: "HEAD", budget: 20_000 })
      const files = byPath(result)
      // secret.ts is denied, README.md not a source: the same files as in the working tree.
      assert.deepStrictEqual([...files.keys()].sort(), [
        "src/Button.tsx",
        "src/body.ts",
        "src/deps.ts",
        "src/format.ts",
        "src/fresh.ts",
        "src/gone.ts",
        "src/moved-here.ts",
        "src/new-name.ts"
      ])
      assert.strictEqual(files.get("src/moved-here.ts").status, "renamed")
      assert.deepStrictEqual(names(files.get("src/moved-here.ts").exports.changed), ["movedB"])
      assert.strictEqual(files.get("src/fresh.ts").status, "added")
      const format = files.get("src/format.ts")
      assert.deepStrictEqual(names(format.exports.removed), ["oldHelper"])
      assert.isUndefined(format.exports.removed[0].importers)
      assert.match(result.head, /^HEAD \([0-9a-f]{12}\)$/)
      // The working tree is now clean.
      const clean = yield* call(client, {})
      assert.deepStrictEqual(clean.files, [])
      assert.include(clean.summary.text, "No source file")
    })
  )

  it.effect("cuts to the budget and says what was left out", () =>
    Effect.gen(function* () {
      const root = tempDir()
      const many: Record<string, string> = {}
      for (let i = 0; i < 60; i++) many[`src/m${String(i).padStart(2, "0")}.ts`] = `export const v${i} = ${i}\n`
      write(root, many)
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      const changed: Record<string, string> = {}
      for (let i = 0; i < 60; i++) {
        changed[`src/m${String(i).padStart(2, "0")}.ts`] =
          `export function f${i}(value: number, other: string): string {\n  return other + value\n}\n`
      }
      write(root, changed)
      const client = yield* setup(root)
      const full = yield* call(client, { budget: 100_000 })
      assert.strictEqual(full.files.length, 60)
      assert.isFalse(full.truncated)
      const cut = yield* call(client, { budget: 400 })
      assert.isTrue(cut.truncated)
      assert.isAtMost(cut.tokens, 400)
      assert.isAbove(cut.files.length, 0)
      assert.strictEqual(cut.files.length + cut.omitted.files, 60)
      assert.strictEqual(cut.omitted.entries, 2 * cut.omitted.files)
      assert.strictEqual(cut.summary.files, 60)
      assert.deepStrictEqual(
        cut.omitted.paths,
        full.files.slice(cut.files.length, cut.files.length + 10).map((f: any) => f.path)
      )
      assert.include(cut.next, "paths")
      assert.include(cut.next, cut.omitted.paths[0])
    })
  )

  it.effect("cuts the first file's lists when even it does not fit", () =>
    Effect.gen(function* () {
      const root = tempDir()
      write(root, { "src/keep.ts": "export const keep = 1\n" })
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      const exports = Array.from(
        { length: 80 },
        (_, i) => `export function generated${i}(first: number, second: string): string { return second }`
      )
      write(root, { "src/big.ts": exports.join("\n") + "\n" })
      const client = yield* setup(root)
      const result = yield* call(client, { budget: 300 })
      assert.isTrue(result.truncated)
      assert.isAtMost(result.tokens, 300)
      assert.strictEqual(result.files.length, 1)
      const big = result.files[0]
      assert.strictEqual(big.path, "src/big.ts")
      assert.isAbove(big.exports.added.length, 0)
      assert.strictEqual(big.exports.added.length + big.omitted, 80)
      assert.strictEqual(result.omitted.entries, big.omitted)
      assert.include(result.next, "src/big.ts")
    })
  )

  it.effect("compares whole signatures: a change after 160 characters is seen, shown by member", () =>
    Effect.gen(function* () {
      const root = tempDir()
      const fields = Array.from({ length: 20 }, (_, i) => `  field${i}: string`)
      const options = Array.from({ length: 12 }, (_, i) => `option${i}: number`).join("; ")
      const before = [
        `export interface Settings {\n${fields.join("\n")}\n}`,
        `export function configure(opts: { ${options} }): void {}`,
        "export const VERSION = 1",
        "export const LABEL = 'a'",
        ""
      ].join("\n")
      write(root, { "src/settings.ts": before })
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      write(root, {
        "src/settings.ts": before
          .replace("  field19: string\n", "  field19: string\n  extra?: number\n")
          .replace(`${options} }`, `${options}; extra: number }`)
          .replace("VERSION = 1", "VERSION = '2'")
          .replace("LABEL = 'a'", "LABEL = 'b'")
      })
      // The signatures are longer than the skeleton's cut: the change is past it.
      const parse = yield* loadParser
      const interfaceSignature = fileApi(parse, "a.ts", before).skeleton.exports[0]!.signature
      assert.isAbove(interfaceSignature.length, 300)
      const client = yield* setup(root)
      const result = yield* call(client, {})
      const file = byPath(result).get("src/settings.ts")
      assert.isUndefined(file.note, JSON.stringify(file))
      const changed = new Map<string, any>(file.exports.changed.map((e: any) => [e.name, e]))
      assert.deepStrictEqual([...changed.keys()].sort(), ["Settings", "VERSION", "configure"])
      assert.deepStrictEqual(changed.get("Settings").members, { added: ["extra?: number"], removed: [], changed: [] })
      assert.deepStrictEqual(changed.get("configure").members, {
        added: ["opts.extra: number"],
        removed: [],
        changed: []
      })
      // Shown bounded, around the change.
      for (const entry of changed.values()) {
        assert.isAtMost(entry.before.signature.length, 160)
        assert.isAtMost(entry.after.signature.length, 160)
      }
      assert.include(changed.get("Settings").after.signature, "extra?: number")
      assert.include(changed.get("configure").after.signature, "extra: number")
      // An unannotated const whose literal changed kind: its inferred type changed; a same-kind value did not.
      assert.strictEqual(changed.get("VERSION").note, "value: number → string")
      assert.include(result.next, "src/settings.ts#Settings")
    })
  )

  it.effect("keeps the whole result within every budget, however many files changed", () =>
    Effect.gen(function* () {
      const root = tempDir()
      const many: Record<string, string> = {}
      const name = (i: number) => `src/feature-${String(i).padStart(3, "0")}/module-with-a-long-name-${i}.ts`
      for (let i = 0; i < 400; i++) many[name(i)] = `export function f${i}(value: number): string { return "" }\n`
      write(root, many)
      git(root, "init", "-q")
      git(root, "add", "-A")
      git(root, "commit", "-q", "-m", "initial")
      const changed: Record<string, string> = {}
      for (let i = 0; i < 400; i++) {
        changed[name(i)] = `export function f${i}(value: number, other: string): string {\n  return other\n}\n`
      }
      write(root, changed)
      const client = yield* setup(root)
      for (const budget of [200, 250, 300, 500, 1000, 3000]) {
        const result = yield* call(client, { budget })
        const size = Math.ceil(JSON.stringify(result).length / 4)
        assert.isAtMost(size, budget, `budget ${budget}`)
        assert.strictEqual(result.tokens, size, `budget ${budget}`)
        assert.strictEqual(result.summary.files, 400)
        assert.strictEqual(result.files.length + result.omitted.files, 400)
        assert.isTrue(result.truncated)
      }
    })
  )

  it.effect("works when the workspace root is a directory inside the repository", () =>
    Effect.gen(function* () {
      const repo = tempDir()
      write(repo, {
        "other.ts": "export const other = 1\n",
        "app/src/a.ts": "export const a = 1\n",
        "app/src/b.ts": "export function b(): void {}\n"
      })
      git(repo, "init", "-q")
      git(repo, "add", "-A")
      git(repo, "commit", "-q", "-m", "initial")
      write(repo, {
        "other.ts": "export const other = 1\nexport const more = 2\n",
        "app/src/a.ts": "export const a = 1\nexport const a2 = 2\n",
        "app/src/b.ts": "export function b(x: number): void {}\n"
      })
      const client = yield* setup(join(repo, "app"))
      const result = yield* call(client, {})
      assert.deepStrictEqual(result.files.map((f: any) => f.path).sort(), ["src/a.ts", "src/b.ts"])
      const b = byPath(result).get("src/b.ts")
      assert.deepStrictEqual(b.exports.changed[0].before, { kind: "function", signature: "(): void" })
      const only = yield* call(client, { paths: ["src"] })
      assert.strictEqual(only.files.length, 2)
    })
  )

  it.effect("answers bad input with clear errors", () =>
    Effect.gen(function* () {
      const root = changedRepo()
      const client = yield* setup(root)
      const unknown = yield* expectError(client, { base: "no-such-branch" }, "unknown_ref")
      assert.include(unknown, "main")
      for (const ref of ["-x", "--output=/tmp/fe-diff-pwned"]) {
        const option = yield* expectError(client, { base: ref }, "invalid_ref")
        assert.include(option, "starts with '-'")
        yield* expectError(client, { head: ref }, "invalid_ref")
      }
      yield* expectError(client, { paths: ["../elsewhere"] }, "path_rejected:escapes_root")
      // A range is two refs: the error says how to split it.
      const range = yield* expectError(client, { base: "HEAD~1..HEAD" }, "invalid_ref")
      assert.include(range, 'base "HEAD~1" and head "HEAD"')
      const threeDots = yield* expectError(client, { base: "main...HEAD" }, "invalid_ref")
      assert.include(threeDots, "merge-base main HEAD")

      const plain = tempDir()
      write(plain, { "src/a.ts": "export const a = 1\n" })
      const notGit = yield* expectError(yield* setup(plain), {}, "not_a_git_repository")
      assert.include(notGit, "git init")

      // No git to run: a runner that finds no such command.
      const noGit = yield* TestClient.make(
        Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [diff] })).pipe(
          Layer.provide(FeGraph.layer),
          Layer.provide(
            Layer.succeed(CommandRunner, {
              run: (request) =>
                Effect.fail(
                  new CommandNotFound({ command: request.command, message: `${request.command}: not found` })
                ),
              output: () => Effect.succeed(undefined),
              runs: Effect.succeed([])
            })
          ),
          Layer.provide(NodeWorkspace.layer({ root: plain }))
        )
      )
      const missing = yield* expectError(noGit, {}, "git_not_found")
      assert.include(missing, "git is not installed")

      const empty = tempDir()
      write(empty, { "src/a.ts": "export const a = 1\n" })
      git(empty, "init", "-q")
      const noCommits = yield* expectError(yield* setup(empty), {}, "no_commits")
      assert.include(noCommits, "git commit")
    })
  )
})
