/**
 * The test kit's in-memory workspace against the Node workspace on a real
 * temporary directory holding the same tree: one sequence of operations
 * (reads, listings, path attacks, symlinks, writes, edits, search with
 * .gitignore, patches) must give the same results and the same errors.
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
  loop: { symlink: "loop" }
}

const onDisk = realpathSync(mkdtempSync(join(tmpdir(), "memory-parity-")))
for (const [path, entry] of Object.entries(tree)) {
  const absolute = join(onDisk, path)
  mkdirSync(dirname(absolute), { recursive: true })
  if (typeof entry === "object" && "symlink" in entry) symlinkSync(entry.symlink, absolute)
  else writeFileSync(absolute, entry)
}
afterAll(() => rmSync(onDisk, { recursive: true, force: true }))

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
const scenario = (rootPath: string) =>
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
    return outcomes
  })

describe("MemoryWorkspace", () => {
  it.effect("gives the same results and errors as the Node workspace on disk", () =>
    Effect.gen(function* () {
      const memory = MemoryWorkspace.make(tree)
      const inMemory = yield* scenario(MemoryWorkspace.root).pipe(Effect.provide(memory.layer))
      const real = yield* scenario(onDisk).pipe(Effect.provide(NodeWorkspace.layer({ root: onDisk })))
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
      const files = yield* memory.files
      assert.strictEqual(files["notes/c.txt"], "new file\n")
      assert.strictEqual(files["src/b.ts"], "// TODO: hello once more\n")
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
