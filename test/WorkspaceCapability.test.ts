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
  it.effect("publishes five tools with their annotations; write and edit gain confirm", () =>
    Effect.gen(function* () {
      const client = yield* setup
      const listed = yield* client.request("tools/list")
      const byName = Object.fromEntries(listed.result.tools.map((tool: any) => [tool.name, tool]))
      assert.deepStrictEqual(Object.keys(byName).sort(), [
        "workspace_edit",
        "workspace_list",
        "workspace_read",
        "workspace_stat",
        "workspace_write"
      ])
      for (const name of ["workspace_read", "workspace_list", "workspace_stat"]) {
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
