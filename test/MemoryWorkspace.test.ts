/**
 * The test kit's in-memory workspace against the Node workspace on a real
 * temporary directory holding the same tree: one sequence of operations
 * (reads, listings, path attacks, symlinks, writes, edits, search with
 * .gitignore, patches), once with the default options and once with a deny
 * list and limits of its own, must give the same results and the same errors.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { WorkspaceCapability } from "../capabilities/workspace/index.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { Confirmation } from "../src/Confirmation.ts"
import { MemoryWorkspace, TestClient } from "../src/testing.ts"
import { Workspace } from "../src/Workspace.ts"

const tree: Record<string, MemoryWorkspace.Entry> = {
  "src/a.ts": "export const hello = 'hello'\nexport const world = 1\n",
  "src/b.ts": "// TODO: hello again\n",
  "README.md": "# Project\nhello readme\n",
  ".env": "SECRET=1\n",
  ".gitignore": "ignored/\n*.log\n",
  "ignored/hidden.ts": "hello hidden\n",
  "debug.log": "hello log\n",
  "bin.dat": new Uint8Array([0, 1, 2, 3, 104, 101, 108, 108, 111]),
  "link-inside": { symlink: "src/a.ts" },
  escape: { symlink: "/etc/hostname" },
  loop: { symlink: "loop" },
  "pkg/.gitignore": "dist/\n",
  "pkg/index.ts": "export {}\n",
  "pkg/dist/out.js": "export {} // built\n",
  "pkg/twice.txt": "same same\n",
  ".git/config": "export {} in git\n",
  "secrets/key.pem": "PRIVATE\n"
}

/** The tree in a fresh temporary directory (one per test: the scenario writes, and tests run concurrently). */
const directories: Array<string> = []
const onDisk = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "memory-parity-")))
  directories.push(dir)
  for (const [path, entry] of Object.entries(tree)) {
    const absolute = join(dir, path)
    mkdirSync(dirname(absolute), { recursive: true })
    if (typeof entry === "object" && "symlink" in entry) symlinkSync(entry.symlink, absolute)
    else writeFileSync(absolute, entry)
  }
  return dir
}
afterAll(() => {
  for (const dir of directories) rmSync(dir, { recursive: true, force: true })
})

const patch = `--- a/src/a.ts
+++ b/src/a.ts
@@ -1,2 +1,2 @@
 export const hello = 'hello'
-export const world = 1
+export const world = 2
--- /dev/null
+++ b/notes/c.txt
@@ -0,0 +1 @@
+new file
`

/** The same operations, in order; each outcome as plain data with the root replaced by <root>. */
const scenario = (rootPath: string, extra: boolean = true) =>
  Effect.gen(function* () {
    const ws = yield* Workspace
    const outcomes: Array<unknown> = []
    const record = <A>(label: string, effect: Effect.Effect<A, unknown>) =>
      Effect.gen(function* () {
        const exit = yield* Effect.result(effect)
        const value =
          exit._tag === "Success"
            ? { ok: exit.success }
            : { error: { ...(exit.failure as object), _tag: (exit.failure as { _tag: string })._tag } }
        const text = JSON.stringify(value, (key, v) =>
          key === "modifiedMs" ? undefined : v instanceof Uint8Array ? [...v] : v
        )
          .split(rootPath)
          .join("<root>")
        outcomes.push([label, JSON.parse(text)])
      })
    yield* record("read", ws.read("src/a.ts"))
    yield* record("read slice", ws.read("src/a.ts", { offset: 7, length: 5 }))
    yield* record("read missing", ws.read("src/nope.ts"))
    yield* record("read denied", ws.read(".env"))
    yield* record("read ..", ws.read("../outside"))
    yield* record("read absolute", ws.read("/etc/passwd"))
    yield* record("read percent", ws.read("src/%2e%2e/%2e%2e/x"))
    yield* record("read NUL", ws.read("src/a.ts\0.png"))
    yield* record("read dir", ws.read("src"))
    yield* record("read link inside", ws.read("link-inside"))
    yield* record("read link escaping", ws.read("escape"))
    yield* record("read loop", ws.read("loop"))
    yield* record("read binary", ws.read("bin.dat"))
    yield* record("bytes", ws.readBytes("bin.dat", { offset: 4 }))
    yield* record("list root", ws.list(""))
    yield* record("list paged", ws.list("src", { limit: 1 }))
    yield* record("stat file", ws.stat("src/a.ts"))
    yield* record("stat dir", ws.stat("src"))
    yield* record("files", ws.listFiles(""))
    yield* record("search", ws.search({ query: "hello" }))
    yield* record("search regex", ws.search({ query: "^export const (\\w+)", regex: true, include: "**/*.ts" }))
    yield* record("search ignored too", ws.search({ query: "hello", includeIgnored: true }))
    yield* record("search bad regex", ws.search({ query: "(", regex: true }))
    yield* record("write", ws.write("new/b.txt", "fresh\n"))
    yield* record("write denied", ws.write(".env.local", "x"))
    yield* record("write through escaping link", ws.write("escape", "x"))
    yield* record("edit", ws.edit("src/b.ts", { oldText: "again", newText: "once more" }))
    yield* record("edit mismatch", ws.edit("src/b.ts", { oldText: "absent", newText: "x" }))
    yield* record("patch", ws.applyPatch(patch))
    yield* record("patch again (no longer applies)", ws.applyPatch(patch))
    yield* record("read after", ws.read("notes/c.txt"))
    yield* record("files after", ws.listFiles(""))
    if (!extra) return outcomes
    yield* record("resolve", ws.resolve("src/a.ts"))
    yield* record("resolve escaping", ws.resolve("src/../../x"))
    yield* record("bytes slice", ws.readBytes("bin.dat", { offset: 1, length: 3 }))
    yield* record("bytes denied", ws.readBytes(".env"))
    yield* record("stat link", ws.stat("link-inside"))
    yield* record("stat escaping link", ws.stat("escape"))
    yield* record("list a file", ws.list("README.md"))
    yield* record("list missing", ws.list("nope"))
    yield* record("files paged", ws.listFiles("", { limit: 2 }))
    yield* record("files of pkg (nested .gitignore)", ws.listFiles("pkg"))
    yield* record("search nested .gitignore and .git", ws.search({ query: "export {}" }))
    yield* record("search in pkg, ignored included", ws.search({ query: "export", path: "pkg", includeIgnored: true }))
    yield* record("search missing path", ws.search({ query: "x", path: "nope" }))
    yield* record("edit twice-present text", ws.edit("pkg/twice.txt", { oldText: "same", newText: "x" }))
    yield* record("write over a directory", ws.write("src", "x"))
    yield* record("write under a file", ws.write("README.md/x", "x"))
    yield* record("patch denied", ws.applyPatch("--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=1\n+SECRET=2\n"))
    yield* record("patch garbage", ws.applyPatch("not a patch"))
    return outcomes
  })

/** Options both workspaces get in the second run: a deny list of their own and small limits. */
const options = { deny: ["secrets/**", "*.md"], maxReadBytes: 8, maxSearchFiles: 3 }

describe("MemoryWorkspace", () => {
  it.effect("gives the same results and errors as the Node workspace on disk", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make(tree)
      const inMemory = yield* scenario(MemoryWorkspace.root).pipe(Effect.provide(memory.layer))
      const dir = onDisk()
      const real = yield* scenario(dir).pipe(Effect.provide(NodeWorkspace.layer({ root: dir })))
      assert.strictEqual(inMemory.length, real.length)
      for (let i = 0; i < real.length; i++) assert.deepStrictEqual(inMemory[i], real[i])
      // The sequence really exercises both sides (not errors all along).
      const byLabel = Object.fromEntries(inMemory as Array<[string, any]>)
      assert.include(byLabel.read.ok.content, "export const hello")
      assert.strictEqual(byLabel["read denied"].error.reason, "denied")
      assert.strictEqual(byLabel["read link escaping"].error.reason, "symlink_escape")
      assert.deepStrictEqual(
        byLabel.search.ok.matches.map((m: { path: string }) => m.path),
        ["README.md", "src/a.ts", "src/b.ts"]
      )
      assert.isTrue(byLabel["search ignored too"].ok.matches.some((m: { path: string }) => m.path === "debug.log"))
      assert.strictEqual(byLabel.patch.ok.files.length, 2)
      assert.strictEqual(byLabel["patch again (no longer applies)"].error._tag, "EditMismatch")
      assert.deepStrictEqual(
        byLabel["search nested .gitignore and .git"].ok.matches.map((m: { path: string }) => m.path),
        ["pkg/index.ts"]
      )
      assert.deepStrictEqual(
        byLabel["files of pkg (nested .gitignore)"].ok.files.map((f: { path: string }) => f.path),
        ["pkg/.gitignore", "pkg/index.ts", "pkg/twice.txt"]
      )
      assert.deepStrictEqual(byLabel["bytes slice"].ok.bytes, [1, 2, 3])
      assert.strictEqual(byLabel["write under a file"].error._tag, "IoFailure")
      const files = yield* memory.files
      assert.strictEqual(files["notes/c.txt"], "new file\n")
      assert.strictEqual(files["src/b.ts"], "// TODO: hello once more\n")
    })
  )

  it.effect("with the same options (deny list, read and search limits): the same results and errors", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make(tree, options)
      const inMemory = yield* scenario(MemoryWorkspace.root, false).pipe(Effect.provide(memory.layer))
      const dir = onDisk()
      const real = yield* scenario(dir, false).pipe(Effect.provide(NodeWorkspace.layer({ ...options, root: dir })))
      for (let i = 0; i < real.length; i++) assert.deepStrictEqual(inMemory[i], real[i])
      const byLabel = Object.fromEntries(inMemory as Array<[string, any]>)
      assert.strictEqual(byLabel.read.ok.content, "export c")
      assert.isTrue(byLabel.read.ok.truncated)
    })
  )

  it.effect("behind the workspace capability, through TestClient", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make({ "README.md": "# Hello\n", ".env": "SECRET=1\n" })
      const client = yield* TestClient.make(WorkspaceCapability.pipe(Layer.provide(memory.layer)))
      const read = yield* client.callTool("workspace_read", { path: "README.md" })
      assert.include(TestClient.text(read), "# Hello")
      yield* client.expectToolError("workspace_read", { path: ".env" }, "path_rejected:denied")
      yield* client.callTool("workspace_write", { path: "docs/new.md", content: "written" })
      assert.strictEqual((yield* memory.files)["docs/new.md"], "written")
    }).pipe(
      Effect.scoped,
      Effect.provide(
        Layer.merge(ServerConfig.layer({ shutdownGraceMs: 0 }), Layer.succeed(Confirmation, { preApproved: ["*"] }))
      )
    )
  )
})
