/**
 * The workspace capability through the real codec, with the test kit: a
 * TestClient over an in-memory workspace (the Node workspace on a file system
 * in memory; its parity with the disk is checked in MemoryWorkspace.test.ts),
 * a fresh tree per test. The published tools and their annotations,
 * structured results of read/list/stat, rejected paths mapped to isError
 * results that keep the workspace's suggestion, and the confirmation of write
 * and edit for a client without elicitation.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { WorkspaceCapability } from "../capabilities/workspace/index.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { MemoryWorkspace, type RpcError, TestClient } from "../src/testing.ts"

const tree: Record<string, MemoryWorkspace.Entry> = {
  "README.md": "hello workspace\n",
  "long.txt": "0123456789",
  ".env": "SECRET=1\n",
  "edit.txt": "alpha beta gamma\n",
  "src/a.ts": "export const a = 1\n",
  "src/b.ts": "export const b = 2\n",
  "src/c.ts": "export const c = 3\n"
}

/** A client over a fresh in-memory copy of the tree (plus `extra`), and the workspace. */
const setup = (extra: Record<string, MemoryWorkspace.Entry> = {}) =>
  Effect.gen(function* () {
    const memory = MemoryWorkspace.make({ ...tree, ...extra })
    const client = yield* TestClient.make(WorkspaceCapability.pipe(Layer.provide(memory.layer))).pipe(
      Effect.provide(ServerConfig.layer({ shutdownGraceMs: 0 }))
    )
    return { client, memory, file: (path: string) => Effect.map(memory.files, (files) => files[path]) }
  })

/** The JSON-RPC error a request fails with, as plain data (the test fails if it succeeds). */
const rpcFailure = (effect: Effect.Effect<unknown, RpcError>) =>
  Effect.map(Effect.flip(effect), (error) => ({ code: error.code, message: error.message, data: error.data }))

describe("workspace capability", () => {
  it.effect("publishes seven tools with their annotations; write, edit and apply_patch gain confirm", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const tools = yield* client.listTools
      const byName = Object.fromEntries(tools.map((tool: any) => [tool.name, tool]))
      assert.deepStrictEqual(Object.keys(byName).sort(), [
        "workspace_apply_patch",
        "workspace_edit",
        "workspace_list",
        "workspace_read",
        "workspace_search",
        "workspace_stat",
        "workspace_write"
      ])
      for (const name of ["workspace_read", "workspace_list", "workspace_stat", "workspace_search"]) {
        assert.strictEqual(byName[name].annotations.readOnlyHint, true)
        assert.isUndefined(byName[name].inputSchema.properties?.confirm)
        assert.isDefined(byName[name].outputSchema)
      }
      assert.deepStrictEqual(byName.workspace_write.annotations, {
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: false
      })
      assert.strictEqual(byName.workspace_edit.annotations.destructiveHint, true)
      assert.strictEqual(byName.workspace_write.inputSchema.properties.confirm.type, "boolean")
      assert.strictEqual(byName.workspace_edit.inputSchema.properties.confirm.type, "boolean")
      assert.deepStrictEqual(byName.workspace_apply_patch.annotations, {
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false
      })
      assert.strictEqual(byName.workspace_apply_patch.inputSchema.properties.confirm.type, "boolean")
      assert.deepStrictEqual(byName.workspace_search.inputSchema.required, ["query"])
    }).pipe(Effect.scoped)
  )

  it.effect("read returns the text, and a truncated read says how to read on", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const whole = yield* client.callTool("workspace_read", { path: "README.md" })
      assert.isUndefined(whole.isError)
      const content = whole.structuredContent as any
      assert.include(content, { path: "README.md", content: "hello workspace\n", truncated: false, size: 16 })
      assert.isUndefined(content.note)
      const part = (yield* client.callTool("workspace_read", { path: "long.txt", offset: 2, length: 4 }))
        .structuredContent as any
      assert.include(part, { content: "2345", truncated: true, nextOffset: 6, size: 10 })
      assert.include(part.note, "offset 6")
      const rest = yield* client.callTool("workspace_read", { path: "long.txt", offset: 6 })
      assert.include(rest.structuredContent, { content: "6789", truncated: false })
    }).pipe(Effect.scoped)
  )

  it.effect("list returns entries with kind and size, paged by cursor; stat returns kind, size, modified", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const top = (yield* client.callTool("workspace_list", {})).structuredContent as any
      const names = top.entries.map((entry: any) => entry.name)
      assert.include(names, "README.md")
      assert.include(names, "src")
      assert.notInclude(names, ".env")
      assert.deepInclude(top.entries, { name: "README.md", path: "README.md", kind: "file", size: 16 })
      assert.strictEqual(top.entries.find((e: any) => e.name === "src").kind, "directory")

      const first = (yield* client.callTool("workspace_list", { path: "src", limit: 2 })).structuredContent as any
      assert.deepStrictEqual(
        first.entries.map((entry: any) => entry.path),
        ["src/a.ts", "src/b.ts"]
      )
      const cursor = first.nextCursor
      assert.isString(cursor)
      const second = (yield* client.callTool("workspace_list", { path: "src", limit: 2, cursor }))
        .structuredContent as any
      assert.deepStrictEqual(
        second.entries.map((entry: any) => entry.path),
        ["src/c.ts"]
      )
      assert.isUndefined(second.nextCursor)

      const stat = (yield* client.callTool("workspace_stat", { path: "src/a.ts" })).structuredContent as any
      assert.include(stat, { path: "src/a.ts", kind: "file", size: 19 })
      assert.isTrue(!Number.isNaN(Date.parse(stat.modified)))
      const dir = (yield* client.callTool("workspace_stat", { path: "src" })).structuredContent as any
      assert.strictEqual(dir.kind, "directory")
    }).pipe(Effect.scoped)
  )

  it.effect("a rejected or missing path is an isError result that keeps the workspace's suggestion", () =>
    Effect.gen(function* () {
      const { client, file } = yield* setup()
      const escape = yield* client.expectToolError("workspace_read", { path: "../x" }, "path_rejected:escapes_root")
      assert.isTrue(escape.isError)
      assert.include(TestClient.text(escape), "Suggestion:")
      assert.include(TestClient.text(escape), "workspace_list")

      const secret = yield* client.expectToolError("workspace_read", { path: ".env" }, "path_rejected:denied")
      assert.isTrue(secret.isError)
      assert.include(TestClient.text(secret), "Suggestion:")

      const missing = yield* client.expectToolError("workspace_stat", { path: "nope.txt" }, "not_found")
      assert.isTrue(missing.isError)
      assert.include(TestClient.text(missing), "workspace_list")

      const deniedWrite = yield* client.callTool("workspace_write", { path: ".env", content: "x", confirm: true })
      assert.isTrue(deniedWrite.isError)
      assert.strictEqual(yield* file(".env"), "SECRET=1\n")
    }).pipe(Effect.scoped)
  )

  it.effect("write needs confirm: true from a client without elicitation, and writes nothing without it", () =>
    Effect.gen(function* () {
      const { client, memory, file } = yield* setup()
      const refused = yield* client.expectToolError(
        "workspace_write",
        { path: "new/unconfirmed.txt", content: "no" },
        "confirmation_required"
      )
      assert.isTrue(refused.isError)
      assert.notProperty(yield* memory.files, "new/unconfirmed.txt")

      const written = yield* client.callTool("workspace_write", {
        path: "new/confirmed.txt",
        content: "yes\n",
        confirm: true
      })
      assert.isUndefined(written.isError)
      assert.deepStrictEqual(written.structuredContent, { path: "new/confirmed.txt", bytesWritten: 4, created: true })
      assert.strictEqual(yield* file("new/confirmed.txt"), "yes\n")
    }).pipe(Effect.scoped)
  )

  it.effect("edit replaces exactly one occurrence, after confirmation", () =>
    Effect.gen(function* () {
      const { client, file } = yield* setup()
      yield* client.expectToolError(
        "workspace_edit",
        { path: "edit.txt", oldText: "beta", newText: "BETA" },
        "confirmation_required"
      )
      assert.strictEqual(yield* file("edit.txt"), "alpha beta gamma\n")

      const edited = yield* client.callTool("workspace_edit", {
        path: "edit.txt",
        oldText: "beta",
        newText: "BETA",
        confirm: true
      })
      assert.isUndefined(edited.isError)
      assert.strictEqual(yield* file("edit.txt"), "alpha BETA gamma\n")

      const mismatch = yield* client.expectToolError(
        "workspace_edit",
        { path: "edit.txt", oldText: "delta", newText: "x", confirm: true },
        "edit_mismatch"
      )
      assert.isTrue(mismatch.isError)
      assert.include(TestClient.text(mismatch), "Suggestion:")
    }).pipe(Effect.scoped)
  )
})

describe("workspace_search", () => {
  it.effect("returns matching lines, and a truncated result says how to continue", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const found = yield* client.callTool("workspace_search", { query: "export const", path: "src" })
      assert.isUndefined(found.isError)
      const content = found.structuredContent as any
      assert.deepStrictEqual(content.matches, [
        { path: "src/a.ts", line: 1, column: 1, text: "export const a = 1" },
        { path: "src/b.ts", line: 1, column: 1, text: "export const b = 2" },
        { path: "src/c.ts", line: 1, column: 1, text: "export const c = 3" }
      ])
      assert.isFalse(content.truncated)
      assert.isUndefined(content.note)

      const first = (yield* client.callTool("workspace_search", { query: "const [a-c]", regex: true, limit: 2 }))
        .structuredContent as any
      assert.isTrue(first.truncated)
      assert.include(first.note, "nextCursor")
      const rest = (yield* client.callTool("workspace_search", {
        query: "const [a-c]",
        regex: true,
        limit: 2,
        cursor: first.nextCursor
      })).structuredContent as any
      assert.deepStrictEqual(
        rest.matches.map((match: any) => match.path),
        ["src/c.ts"]
      )
      assert.isFalse(rest.truncated)

      const secret = (yield* client.callTool("workspace_search", { query: "SECRET" })).structuredContent as any
      assert.deepStrictEqual(secret.matches, [])
    }).pipe(Effect.scoped)
  )

  it.effect("an invalid regular expression or a rejected path is an isError result with a suggestion", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const bad = yield* client.expectToolError(
        "workspace_search",
        { query: "(unclosed", regex: true },
        "invalid_argument"
      )
      assert.isTrue(bad.isError)
      assert.include(TestClient.text(bad), "Suggestion:")
      yield* client.expectToolError("workspace_search", { query: "x", path: "../" }, "path_rejected:escapes_root")
    }).pipe(Effect.scoped)
  )
})

describe("workspace_apply_patch", () => {
  it.effect("needs confirmation, then applies all hunks; a mismatch names the hunk and suggests workspace_read", () =>
    Effect.gen(function* () {
      const { client, file } = yield* setup({ "patch-me.txt": "one\ntwo\nthree\n" })
      const patch = "--- a/patch-me.txt\n+++ b/patch-me.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
      yield* client.expectToolError("workspace_apply_patch", { patch }, "confirmation_required")
      assert.strictEqual(yield* file("patch-me.txt"), "one\ntwo\nthree\n")

      const done = yield* client.callTool("workspace_apply_patch", { patch, confirm: true })
      assert.isUndefined(done.isError)
      assert.deepStrictEqual(done.structuredContent, {
        files: [{ path: "patch-me.txt", status: "modified", hunks: 1, linesAdded: 1, linesRemoved: 1 }]
      })
      assert.strictEqual(yield* file("patch-me.txt"), "one\nTWO\nthree\n")

      const again = yield* client.expectToolError("workspace_apply_patch", { patch, confirm: true }, "edit_mismatch")
      assert.isTrue(again.isError)
      assert.include(TestClient.text(again), "Hunk 1 of patch-me.txt")
      assert.include(TestClient.text(again), "workspace_read")

      const created = yield* client.callTool("workspace_apply_patch", {
        patch: "--- /dev/null\n+++ b/made/by-patch.md\n@@ -0,0 +1,2 @@\n+# Made\n+by a patch\n",
        confirm: true
      })
      assert.strictEqual((created.structuredContent as any).files[0].status, "created")
      assert.strictEqual(yield* file("made/by-patch.md"), "# Made\nby a patch\n")

      yield* client.expectToolError(
        "workspace_apply_patch",
        { patch: "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=1\n+SECRET=2\n", confirm: true },
        "path_rejected:denied"
      )
      assert.strictEqual(yield* file(".env"), "SECRET=1\n")
    }).pipe(Effect.scoped)
  )
})

describe("workspace:// resources", () => {
  it.effect("the template is published, and resources/list pages through the files (no secrets)", () =>
    Effect.gen(function* () {
      const { client } = yield* setup()
      const templates = yield* client.listResourceTemplates
      const template = templates.find((t: any) => t.name === "workspace_file")
      assert.strictEqual(template.uriTemplate, "workspace://{+path}")
      // Every page (the client follows nextCursor; an error response fails the test).
      const uris = (yield* client.listResources).map((resource: any) => resource.uri)
      assert.includeMembers(uris, ["workspace://README.md", "workspace://src/a.ts", "workspace://edit.txt"])
      assert.notInclude(uris, "workspace://.env")
      const first = yield* client.request("resources/list")
      const readme = first.resources.find((resource: any) => resource.uri === "workspace://README.md")
      assert.include(readme, { name: "README.md", mimeType: "text/markdown", size: 16 })
    }).pipe(Effect.scoped)
  )

  it.effect("reads text with a MIME type, binary as a blob, and refuses directories, escapes and secrets", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({
        "assets/pixel.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        "assets/name with space.txt": "spaced\n"
      })
      const text = yield* client.readResource("workspace://src/a.ts")
      assert.deepStrictEqual(text, [
        { uri: "workspace://src/a.ts", mimeType: "text/x-typescript", text: "export const a = 1\n" }
      ])
      const binary = yield* client.readResource("workspace://assets/pixel.png")
      assert.deepStrictEqual(binary, [
        { uri: "workspace://assets/pixel.png", mimeType: "image/png", blob: "iVBORw0KGgo=" }
      ])
      const spaced = yield* client.readResource("workspace://assets/name%20with%20space.txt")
      assert.strictEqual(spaced[0].text, "spaced\n")

      const directory = yield* rpcFailure(client.readResource("workspace://src"))
      assert.strictEqual(directory.code, -32002)
      const missing = yield* rpcFailure(client.readResource("workspace://nope.txt"))
      assert.strictEqual(missing.code, -32002)
      for (const uri of ["workspace://../etc/passwd", "workspace://%2e%2e/etc/passwd", "workspace:///etc/passwd"]) {
        const escape = yield* rpcFailure(client.readResource(uri))
        assert.isDefined(escape, uri)
        assert.notInclude(JSON.stringify(escape), "root:", uri)
      }
      const secret = yield* rpcFailure(client.readResource("workspace://.env"))
      assert.isDefined(secret)
      assert.include(secret.message, "deny list")
      assert.notInclude(JSON.stringify(secret), "SECRET=1")
    }).pipe(Effect.scoped)
  )
})
