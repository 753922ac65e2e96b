/**
 * fe_skeleton's per-server cache, through the test kit over the real Node
 * workspace on real files in a temporary directory (modification times set
 * with fs.utimes, the server's clock a TestClock): a second call on an
 * unchanged tree parses nothing and maps the same; a changed file is parsed
 * alone and its new export shown; new files parsed, deleted files dropped
 * from the map and the cache; a narrower path served from the cache; the
 * racy case (a same-size rewrite within the same modification time, right
 * after a call) caught by not trusting files modified within 2 s of a call;
 * a tree over the old 5,000-file cap mapped whole within a small budget;
 * and the cache's bound (least recently used dropped first; a tree larger
 * than the bound still reuses as many files as fit).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { dirname, join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { skeleton } from "../capabilities/fe/skeleton.ts"
import { FeSkeletons, make as makeCache, racyWindowMs } from "../capabilities/fe/skeleton/cache.ts"
import { layer as stateLayer } from "../capabilities/fe/state.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import { MemoryWorkspace, TestClient } from "../src/testing.ts"

const temps: Array<string> = []
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** Midnight, 1 January 2026 (UTC): the files' modification times. */
const old = Date.UTC(2026, 0, 1)
/** The server's clock in these tests: a day after the files were written. */
const today = Date.UTC(2026, 0, 2)

/** A temporary project on disk whose files were all modified at `old` (plus `offset` ms each, when given). */
const project = (files: Record<string, string>) => {
  const root = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-skeleton-cache-")))
  temps.push(root)
  writeFileSync(join(root, "package.json"), "{}")
  for (const [path, text] of Object.entries(files)) write(root, path, text, old)
  return root
}

const write = (root: string, path: string, text: string, mtimeMs: number) => {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), text)
  utimesSync(join(root, path), new Date(mtimeMs), new Date(mtimeMs))
}

const setup = (root: string, cache = makeCache()) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [skeleton] })).pipe(
      Layer.provide(Layer.merge(stateLayer, Layer.succeed(FeSkeletons, cache))),
      Layer.provide(NodeWorkspace.layer({ root }))
    )
  )

const map = (client: TestClient.TestClient, args: Record<string, unknown> = {}) =>
  Effect.map(client.callToolStructured("fe_skeleton", args), (result) => result as any)

const sources: Record<string, string> = {
  "src/a.ts": "export const alpha = 1\n",
  "src/b.ts": "export function beta(n: number): number {\n  return n\n}\n",
  "src/ui/Card.tsx": "export const Card = ({ title }: { title: string }) => <h1>{title}</h1>\n",
  "lib/util.js": "export const util = () => 1\n"
}

describe("fe_skeleton's cache", () => {
  it.effect("a second call on an unchanged tree parses nothing; a changed file is parsed alone", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(today)
      const root = project(sources)
      const cache = makeCache()
      const client = yield* setup(root, cache)
      const first = yield* map(client)
      assert.strictEqual(first.filesParsed, 4)
      assert.strictEqual(first.filesReused, 0)
      assert.strictEqual(first.filesScanned, 4)

      const second = yield* map(client)
      assert.strictEqual(second.filesParsed, 0)
      assert.strictEqual(second.filesReused, 4)
      assert.strictEqual(second.map, first.map)
      // The cached skeletons carry their exports' lines.
      assert.include(second.map, "src/b.ts\n  L1-3 function beta(n: number): number")

      // New content, and a modification time still a day old: the size changed. The lines are the new file's.
      write(root, "src/b.ts", "\n\nexport function gamma(s: string): string {\n  return s\n}\n", old + 5000)
      const third = yield* map(client)
      assert.strictEqual(third.filesParsed, 1)
      assert.strictEqual(third.filesReused, 3)
      assert.include(third.map, "L3-5 function gamma(s: string): string")
      assert.notInclude(third.map, "beta")
      // Without lines, from the same cache: nothing parsed, the cached entries keep theirs for the next call.
      const bare = yield* map(client, { lines: false })
      assert.strictEqual(bare.filesParsed, 0)
      assert.include(bare.map, "src/b.ts\n  function gamma(s: string): string")
      assert.notMatch(bare.map, /\bL\d/)
      assert.strictEqual((yield* map(client)).map, third.map)

      // The same size, a new modification time.
      write(root, "src/a.ts", "export const omega = 1\n", old + 10_000)
      const fourth = yield* map(client)
      assert.strictEqual(fourth.filesParsed, 1)
      assert.include(fourth.map, "const omega = 1")
      assert.notInclude(fourth.map, "alpha")

      // A new file is parsed; a deleted one leaves the map and the cache.
      write(root, "src/new.ts", "export type Added = string\n", old)
      unlinkSync(join(root, "lib/util.js"))
      const fifth = yield* map(client)
      assert.strictEqual(fifth.filesParsed, 1)
      assert.strictEqual(fifth.filesReused, 3)
      assert.include(fifth.map, "type Added = string")
      assert.notInclude(fifth.map, "lib/util.js")
      assert.strictEqual(cache.stats().entries, 4)

      // A narrower path is served from the same entries.
      const narrow = yield* map(client, { path: "src/ui" })
      assert.strictEqual(narrow.filesParsed, 0)
      assert.strictEqual(narrow.filesReused, 1)
      assert.include(narrow.map, "component Card({ title }: { title: string })")
      const one = yield* map(client, { path: "src/new.ts" })
      assert.strictEqual(one.filesParsed, 0)
      assert.include(one.map, "type Added = string")
    })
  )

  it.effect("each server has its own cache: a fresh server parses every file", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(today)
      const root = project(sources)
      assert.strictEqual((yield* map(yield* setup(root))).filesParsed, 4)
      assert.strictEqual((yield* map(yield* setup(root))).filesParsed, 4)
    })
  )

  it.effect("a file modified within 2 s of a call is not trusted: a same-size rewrite in the same tick is seen", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(today)
      // Modified half a second before the call: the file could still change within the same timestamp.
      const mtime = today - 500
      const root = project({})
      write(root, "src/racy.ts", "export const aa = 1\n", mtime)
      const client = yield* setup(root)
      const first = yield* map(client)
      assert.strictEqual(first.filesParsed, 1)
      assert.include(first.map, "const aa = 1")

      // Rewritten with the same size and the same modification time: only the content tells.
      write(root, "src/racy.ts", "export const bb = 2\n", mtime)
      const second = yield* map(client)
      assert.strictEqual(second.filesParsed, 1)
      assert.include(second.map, "const bb = 2")

      // Once the file is older than the window when a call begins, its entry is trusted from that call on.
      yield* TestClock.adjust(racyWindowMs)
      assert.strictEqual((yield* map(client)).filesParsed, 1)
      assert.strictEqual((yield* map(client)).filesParsed, 0)

      // A modification time in the future (by the server's clock) is never trusted.
      write(root, "src/racy.ts", "export const cc = 3\n", today + 3_600_000)
      assert.strictEqual((yield* map(client)).filesParsed, 1)
      assert.strictEqual((yield* map(client)).filesParsed, 1)
    })
  )

  it.effect("more files than the old 5,000 cap: all mapped, the map still within a small budget", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(today)
      const files: Record<string, string> = { "package.json": "{}" }
      for (let i = 0; i < 6000; i++) files[`src/area${i % 60}/m${i}.ts`] = `export const v${i} = ${i}\n`
      const client = yield* TestClient.make(
        Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [skeleton] })).pipe(
          Layer.provide(Layer.merge(stateLayer, FeSkeletons.layer)),
          Layer.provide(MemoryWorkspace.make(files).layer)
        )
      )
      for (const budget of [300, 4000]) {
        const result = yield* map(client, { budget })
        assert.strictEqual(result.filesScanned, 6000)
        assert.isFalse(result.scanLimited)
        assert.isAtMost(result.tokens, budget)
        assert.isAbove(result.omitted.length, 0)
        assert.strictEqual(
          result.omitted.reduce((sum: number, o: { files: number }) => sum + o.files, 0),
          6000 - result.filesShown
        )
      }
      // The in-memory files were modified a day before the test clock's now: the second call took them all from
      // the cache.
      const again = yield* map(client, { budget: 300 })
      assert.strictEqual(again.filesParsed, 0)
      assert.strictEqual(again.filesReused, 6000)
      const capped = yield* map(client, { maxFiles: 100_000 })
      assert.strictEqual(capped.filesScanned, 6000)
    })
  )
})

describe("the skeleton cache's bound", () => {
  const skeletonOf = (path: string) => ({
    path,
    exports: [{ name: "x".repeat(100), kind: "const" as const, signature: "= 1" }],
    imports: []
  })

  it("drops the least recently used entries past its byte bound", () => {
    const probe = makeCache()
    probe.store("a.ts", 1, old, skeletonOf("a.ts"), today)
    const one = probe.stats().bytes
    // Room for three entries of this size.
    const cache = makeCache({ maxBytes: one * 3 })
    for (const path of ["a.ts", "b.ts", "c.ts"]) cache.store(path, 1, old, skeletonOf(path), today)
    assert.isDefined(cache.lookup("a.ts", 1, old)) // a.ts is now the most recently used
    cache.store("d.ts", 1, old, skeletonOf("d.ts"), today)
    assert.deepStrictEqual(cache.stats(), { entries: 3, bytes: one * 3, maxBytes: one * 3 })
    assert.isUndefined(cache.lookup("b.ts", 1, old))
    assert.isDefined(cache.lookup("a.ts", 1, old))
    assert.isDefined(cache.lookup("c.ts", 1, old))
    assert.isDefined(cache.lookup("d.ts", 1, old))
    // A stamp that differs is a miss; an entry larger than the whole bound is not kept.
    assert.isUndefined(cache.lookup("a.ts", 2, old))
    assert.isUndefined(cache.lookup("a.ts", 1, old + 1))
    cache.store("huge.ts", 1, old, { ...skeletonOf("huge.ts"), error: "e".repeat(one * 3) }, today)
    assert.isUndefined(cache.lookup("huge.ts", 1, old))
    assert.strictEqual(cache.stats().entries, 3)
  })

  it("a tree larger than the bound: each call, looking every file up before storing, reuses as many as fit", () => {
    const probe = makeCache()
    probe.store("f000", 1, old, skeletonOf("f000"), today)
    const cache = makeCache({ maxBytes: probe.stats().bytes * 30 })
    const files = Array.from({ length: 100 }, (_, i) => `f${String(i).padStart(3, "0")}`)
    const call = () => {
      const misses = files.filter((path) => cache.lookup(path, 1, old) === undefined)
      for (const path of misses) cache.store(path, 1, old, skeletonOf(path), today)
      return files.length - misses.length
    }
    assert.deepStrictEqual([call(), call(), call()], [0, 30, 30])
  })

  it("does not keep a file modified within the racy window of the call, or later", () => {
    const cache = makeCache()
    cache.store("recent.ts", 1, today - racyWindowMs, skeletonOf("recent.ts"), today)
    cache.store("future.ts", 1, today + 1000, skeletonOf("future.ts"), today)
    cache.store("settled.ts", 1, today - racyWindowMs - 1, skeletonOf("settled.ts"), today)
    assert.isUndefined(cache.lookup("recent.ts", 1, today - racyWindowMs))
    assert.isUndefined(cache.lookup("future.ts", 1, today + 1000))
    assert.deepStrictEqual(cache.lookup("settled.ts", 1, today - racyWindowMs - 1), skeletonOf("settled.ts"))
    assert.strictEqual(cache.stats().entries, 1)
  })

  it("forgets the entries under a directory that its listing no longer has", () => {
    const cache = makeCache()
    for (const path of ["src/a.ts", "src/b.ts", "srcx/c.ts", "lib/d.ts"]) {
      cache.store(path, 1, old, skeletonOf(path), today)
    }
    assert.strictEqual(cache.forgetMissing("src", new Set(["src/a.ts"])), 1)
    assert.isUndefined(cache.lookup("src/b.ts", 1, old))
    assert.isDefined(cache.lookup("srcx/c.ts", 1, old))
    assert.strictEqual(cache.forgetMissing("", new Set(["src/a.ts"])), 2)
    assert.strictEqual(cache.stats().entries, 1)
  })
})
