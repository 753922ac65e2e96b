/**
 * The workspace capability through the real codec, over a NodeWorkspace on a
 * temporary directory with real files: the published tools and their
 * annotations, structured results of read/list/stat, rejected paths mapped
 * to isError results that keep the workspace's suggestion, and the
 * confirmation of write and edit for a client without elicitation.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { WorkspaceCapability } from "../capabilities/workspace/index.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { start } from "./support/memory.ts"

const root = mkdtempSync(join(tmpdir(), "workspace-capability-"))
writeFileSync(join(root, "README.md"), "hello workspace\n")
writeFileSync(join(root, "long.txt"), "0123456789")
writeFileSync(join(root, ".env"), "SECRET=1\n")
writeFileSync(join(root, "edit.txt"), "alpha beta gamma\n")
mkdirSync(join(root, "src"))
writeFileSync(join(root, "src", "a.ts"), "export const a = 1\n")
writeFileSync(join(root, "src", "b.ts"), "export const b = 2\n")
writeFileSync(join(root, "src", "c.ts"), "export const c = 3\n")

afterAll(() => rmSync(root, { recursive: true, force: true }))

const setup = Effect.gen(function* () {
  const client = yield* start(WorkspaceCapability.pipe(Layer.provide(NodeWorkspace.layer({ root })))).pipe(
    Effect.provide(ServerConfig.layer({ shutdownGraceMs: 0 }))
  )
  yield* client.initialize()
  return client
})

const call = (client: Effect.Success<typeof setup>, name: string, args: Record<string, unknown>) =>
  client.request("tools/call", { name, arguments: args })

const code = (response: any) => response.result._meta?.["effect-mcp-runtime/error"]?.code

describe("workspace capability", () => {
  it.effect("publishes seven tools with their annotations; write, edit and apply_patch gain confirm", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const listed = yield* client.request("tools/list")
      const byName = Object.fromEntries(listed.result.tools.map((tool: any) => [tool.name, tool]))
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
    })
  )

  it.effect("read returns the text, and a truncated read says how to read on", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const whole = yield* call(client, "workspace_read", { path: "README.md" })
      assert.isUndefined(whole.result.isError)
      assert.include(whole.result.structuredContent, {
        path: "README.md",
        content: "hello workspace\n",
        truncated: false,
        size: 16
      })
      assert.isUndefined(whole.result.structuredContent.note)
      const part = yield* call(client, "workspace_read", { path: "long.txt", offset: 2, length: 4 })
      assert.include(part.result.structuredContent, { content: "2345", truncated: true, nextOffset: 6, size: 10 })
      assert.include(part.result.structuredContent.note, "offset 6")
      const rest = yield* call(client, "workspace_read", { path: "long.txt", offset: 6 })
      assert.include(rest.result.structuredContent, { content: "6789", truncated: false })
    })
  )

  it.effect("list returns entries with kind and size, paged by cursor; stat returns kind, size, modified", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const top = yield* call(client, "workspace_list", {})
      const names = top.result.structuredContent.entries.map((entry: any) => entry.name)
      assert.include(names, "README.md")
      assert.include(names, "src")
      assert.notInclude(names, ".env")
      assert.deepInclude(top.result.structuredContent.entries, {
        name: "README.md",
        path: "README.md",
        kind: "file",
        size: 16
      })
      assert.strictEqual(top.result.structuredContent.entries.find((e: any) => e.name === "src").kind, "directory")

      const first = yield* call(client, "workspace_list", { path: "src", limit: 2 })
      assert.deepStrictEqual(
        first.result.structuredContent.entries.map((entry: any) => entry.path),
        ["src/a.ts", "src/b.ts"]
      )
      const cursor = first.result.structuredContent.nextCursor
      assert.isString(cursor)
      const second = yield* call(client, "workspace_list", { path: "src", limit: 2, cursor })
      assert.deepStrictEqual(
        second.result.structuredContent.entries.map((entry: any) => entry.path),
        ["src/c.ts"]
      )
      assert.isUndefined(second.result.structuredContent.nextCursor)

      const stat = yield* call(client, "workspace_stat", { path: "src/a.ts" })
      assert.include(stat.result.structuredContent, { path: "src/a.ts", kind: "file", size: 19 })
      assert.isTrue(!Number.isNaN(Date.parse(stat.result.structuredContent.modified)))
      const dir = yield* call(client, "workspace_stat", { path: "src" })
      assert.strictEqual(dir.result.structuredContent.kind, "directory")
    })
  )

  it.effect("a rejected or missing path is an isError result that keeps the workspace's suggestion", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const escape = yield* call(client, "workspace_read", { path: "../x" })
      assert.isTrue(escape.result.isError)
      assert.strictEqual(code(escape), "path_rejected:escapes_root")
      assert.include(escape.result.content[0].text, "Suggestion:")
      assert.include(escape.result.content[0].text, "workspace_list")

      const secret = yield* call(client, "workspace_read", { path: ".env" })
      assert.isTrue(secret.result.isError)
      assert.strictEqual(code(secret), "path_rejected:denied")
      assert.include(secret.result.content[0].text, "Suggestion:")

      const missing = yield* call(client, "workspace_stat", { path: "nope.txt" })
      assert.isTrue(missing.result.isError)
      assert.strictEqual(code(missing), "not_found")
      assert.include(missing.result.content[0].text, "workspace_list")

      const deniedWrite = yield* call(client, "workspace_write", { path: ".env", content: "x", confirm: true })
      assert.isTrue(deniedWrite.result.isError)
      assert.strictEqual(readFileSync(join(root, ".env"), "utf8"), "SECRET=1\n")
    })
  )

  it.effect("write needs confirm: true from a client without elicitation, and writes nothing without it", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const refused = yield* call(client, "workspace_write", { path: "new/unconfirmed.txt", content: "no" })
      assert.isTrue(refused.result.isError)
      assert.strictEqual(code(refused), "confirmation_required")
      assert.isFalse(existsSync(join(root, "new", "unconfirmed.txt")))

      const written = yield* call(client, "workspace_write", {
        path: "new/confirmed.txt",
        content: "yes\n",
        confirm: true
      })
      assert.isUndefined(written.result.isError)
      assert.deepStrictEqual(written.result.structuredContent, {
        path: "new/confirmed.txt",
        bytesWritten: 4,
        created: true
      })
      assert.strictEqual(readFileSync(join(root, "new", "confirmed.txt"), "utf8"), "yes\n")
    })
  )

  it.effect("edit replaces exactly one occurrence, after confirmation", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const refused = yield* call(client, "workspace_edit", { path: "edit.txt", oldText: "beta", newText: "BETA" })
      assert.strictEqual(code(refused), "confirmation_required")
      assert.strictEqual(readFileSync(join(root, "edit.txt"), "utf8"), "alpha beta gamma\n")

      const edited = yield* call(client, "workspace_edit", {
        path: "edit.txt",
        oldText: "beta",
        newText: "BETA",
        confirm: true
      })
      assert.isUndefined(edited.result.isError)
      assert.strictEqual(readFileSync(join(root, "edit.txt"), "utf8"), "alpha BETA gamma\n")

      const mismatch = yield* call(client, "workspace_edit", {
        path: "edit.txt",
        oldText: "delta",
        newText: "x",
        confirm: true
      })
      assert.isTrue(mismatch.result.isError)
      assert.strictEqual(code(mismatch), "edit_mismatch")
      assert.include(mismatch.result.content[0].text, "Suggestion:")
    })
  )
})

describe("workspace_search", () => {
  it.effect("returns matching lines, and a truncated result says how to continue", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const found = yield* call(client, "workspace_search", { query: "export const", path: "src" })
      assert.isUndefined(found.result.isError)
      assert.deepStrictEqual(found.result.structuredContent.matches, [
        { path: "src/a.ts", line: 1, column: 1, text: "export const a = 1" },
        { path: "src/b.ts", line: 1, column: 1, text: "export const b = 2" },
        { path: "src/c.ts", line: 1, column: 1, text: "export const c = 3" }
      ])
      assert.isFalse(found.result.structuredContent.truncated)
      assert.isUndefined(found.result.structuredContent.note)

      const first = yield* call(client, "workspace_search", { query: "const [a-c]", regex: true, limit: 2 })
      assert.isTrue(first.result.structuredContent.truncated)
      assert.include(first.result.structuredContent.note, "nextCursor")
      const rest = yield* call(client, "workspace_search", {
        query: "const [a-c]",
        regex: true,
        limit: 2,
        cursor: first.result.structuredContent.nextCursor
      })
      assert.deepStrictEqual(
        rest.result.structuredContent.matches.map((match: any) => match.path),
        ["src/c.ts"]
      )
      assert.isFalse(rest.result.structuredContent.truncated)

      const secret = yield* call(client, "workspace_search", { query: "SECRET" })
      assert.deepStrictEqual(secret.result.structuredContent.matches, [])
    })
  )

  it.effect("an invalid regular expression or a rejected path is an isError result with a suggestion", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const bad = yield* call(client, "workspace_search", { query: "(unclosed", regex: true })
      assert.isTrue(bad.result.isError)
      assert.strictEqual(code(bad), "invalid_argument")
      assert.include(bad.result.content[0].text, "Suggestion:")
      const escape = yield* call(client, "workspace_search", { query: "x", path: "../" })
      assert.strictEqual(code(escape), "path_rejected:escapes_root")
    })
  )
})

describe("workspace_apply_patch", () => {
  it.effect("needs confirmation, then applies all hunks; a mismatch names the hunk and suggests workspace_read", () =>
    Effect.gen(function* () {
      const client = yield* setup
      writeFileSync(join(root, "patch-me.txt"), "one\ntwo\nthree\n")
      const patch = "--- a/patch-me.txt\n+++ b/patch-me.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
      const refused = yield* call(client, "workspace_apply_patch", { patch })
      assert.strictEqual(code(refused), "confirmation_required")
      assert.strictEqual(readFileSync(join(root, "patch-me.txt"), "utf8"), "one\ntwo\nthree\n")

      const done = yield* call(client, "workspace_apply_patch", { patch, confirm: true })
      assert.isUndefined(done.result.isError)
      assert.deepStrictEqual(done.result.structuredContent, {
        files: [{ path: "patch-me.txt", status: "modified", hunks: 1, linesAdded: 1, linesRemoved: 1 }]
      })
      assert.strictEqual(readFileSync(join(root, "patch-me.txt"), "utf8"), "one\nTWO\nthree\n")

      const again = yield* call(client, "workspace_apply_patch", { patch, confirm: true })
      assert.isTrue(again.result.isError)
      assert.strictEqual(code(again), "edit_mismatch")
      assert.include(again.result.content[0].text, "Hunk 1 of patch-me.txt")
      assert.include(again.result.content[0].text, "workspace_read")

      const created = yield* call(client, "workspace_apply_patch", {
        patch: "--- /dev/null\n+++ b/made/by-patch.md\n@@ -0,0 +1,2 @@\n+# Made\n+by a patch\n",
        confirm: true
      })
      assert.strictEqual(created.result.structuredContent.files[0].status, "created")
      assert.strictEqual(readFileSync(join(root, "made", "by-patch.md"), "utf8"), "# Made\nby a patch\n")

      const denied = yield* call(client, "workspace_apply_patch", {
        patch: "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=1\n+SECRET=2\n",
        confirm: true
      })
      assert.strictEqual(code(denied), "path_rejected:denied")
      assert.strictEqual(readFileSync(join(root, ".env"), "utf8"), "SECRET=1\n")
    })
  )
})

describe("workspace:// resources", () => {
  it.effect("the template is published, and resources/list pages through the files (no secrets)", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const templates = yield* client.request("resources/templates/list")
      const template = templates.result.resourceTemplates.find((t: any) => t.name === "workspace_file")
      assert.strictEqual(template.uriTemplate, "workspace://{+path}")
      const uris: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* client.request("resources/list", cursor === undefined ? {} : { cursor })
        assert.isUndefined(page.error)
        uris.push(...page.result.resources.map((resource: any) => resource.uri))
        cursor = page.result.nextCursor
        pages++
      } while (cursor !== undefined && pages < 100)
      assert.includeMembers(uris, ["workspace://README.md", "workspace://src/a.ts", "workspace://edit.txt"])
      assert.notInclude(uris, "workspace://.env")
      const first = yield* client.request("resources/list")
      const readme = first.result.resources.find((resource: any) => resource.uri === "workspace://README.md")
      assert.include(readme, { name: "README.md", mimeType: "text/markdown", size: 16 })
    })
  )

  it.effect("reads text with a MIME type, binary as a blob, and refuses directories, escapes and secrets", () =>
    Effect.gen(function* () {
      const client = yield* setup
      mkdirSync(join(root, "assets"), { recursive: true })
      writeFileSync(join(root, "assets", "pixel.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
      writeFileSync(join(root, "assets", "name with space.txt"), "spaced\n")
      const text = yield* client.request("resources/read", { uri: "workspace://src/a.ts" })
      assert.deepStrictEqual(text.result.contents, [
        { uri: "workspace://src/a.ts", mimeType: "text/x-typescript", text: "export const a = 1\n" }
      ])
      const binary = yield* client.request("resources/read", { uri: "workspace://assets/pixel.png" })
      assert.deepStrictEqual(binary.result.contents, [
        { uri: "workspace://assets/pixel.png", mimeType: "image/png", blob: "iVBORw0KGgo=" }
      ])
      const spaced = yield* client.request("resources/read", { uri: "workspace://assets/name%20with%20space.txt" })
      assert.strictEqual(spaced.result.contents[0].text, "spaced\n")

      const directory = yield* client.request("resources/read", { uri: "workspace://src" })
      assert.strictEqual(directory.error.code, -32002)
      const missing = yield* client.request("resources/read", { uri: "workspace://nope.txt" })
      assert.strictEqual(missing.error.code, -32002)
      for (const uri of ["workspace://../etc/passwd", "workspace://%2e%2e/etc/passwd", "workspace:///etc/passwd"]) {
        const escape = yield* client.request("resources/read", { uri })
        assert.isDefined(escape.error, uri)
        assert.notInclude(JSON.stringify(escape), "root:", uri)
      }
      const secret = yield* client.request("resources/read", { uri: "workspace://.env" })
      assert.isDefined(secret.error)
      assert.include(secret.error.message, "deny list")
      assert.notInclude(JSON.stringify(secret), "SECRET=1")
    })
  )
})
