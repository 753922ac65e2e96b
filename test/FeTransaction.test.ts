/**
 * The fe file transaction on the real Node workspace over a temporary
 * directory (real files): several files edited together, every refusal
 * (overlapping edits, stale files, denied paths, too many operations, files
 * that are not UTF-8 text, bad edits) leaving every file as it was, create +
 * delete + edit rolled back byte for byte (CRLF, BOM, non-ASCII), a failure
 * in the middle of commit restoring every file, and the unified diffs
 * (exact output, and applied back through the workspace's patch engine).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  boundedDiffs,
  lineMap,
  commit,
  type FileChange,
  fingerprintOf,
  prepare,
  type TextEdit,
  unifiedDiff
} from "../capabilities/fe/transaction.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as UnifiedDiff from "../src/internal/unifiedDiff.ts"
import { Workspace } from "../src/Workspace.ts"

const base = mkdtempSync(join(tmpdir(), "fe-transaction-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
let counter = 0

/** A fresh root holding `files` (strings written as UTF-8, buffers as they are). */
const makeRoot = (files: Record<string, string | Buffer>) => {
  const root = join(base, `t${counter++}`)
  mkdirSync(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const bytes = (root: string, path: string) => readFileSync(join(root, path))
const text = (root: string, path: string) => readFileSync(join(root, path), "utf8")

/** Runs `effect` with the Node workspace on `root`. */
const onRoot =
  (root: string) =>
  <A, E>(effect: Effect.Effect<A, E, Workspace>) =>
    Effect.flatMap(NodeWorkspace.make({ root }), (workspace) => Effect.provideService(effect, Workspace, workspace))

/** Snapshots every file's bytes, to compare after a refusal or a rollback. */
const snapshot = (root: string, paths: ReadonlyArray<string>) => new Map(paths.map((p) => [p, bytes(root, p)]))
const assertUnchanged = (root: string, before: Map<string, Buffer>) => {
  for (const [path, original] of before) {
    assert.isTrue(bytes(root, path).equals(original), `${path} is not byte-for-byte as before`)
  }
}

// A file with a BOM, CRLF line breaks and non-ASCII text (2-, 3- and 4-byte UTF-8), no final line break.
const crlf = "\uFEFFconst café = 'naïve'\r\n// 日本語 🎉\r\nexport default café"
const crlfBytes = Buffer.from(crlf, "utf8")

describe("fe transaction", () => {
  it.effect("applies edits to several files together, with a diff per file", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "src/a.ts": "export const a = 1\nexport const b = 2\n",
        "src/b.ts": crlfBytes
      })
      const aText = text(root, "src/a.ts")
      const prepared = yield* onRoot(root)(
        prepare([
          {
            path: "src/a.ts",
            edits: [
              { start: 13, end: 14, text: "alpha" },
              { start: 17, end: 18, text: "10" },
              { start: aText.length, end: aText.length, text: "export const c = 3\n" }
            ]
          },
          { path: "./src/b.ts", edits: [{ start: 7, end: 11, text: "coffee" }], expected: fingerprintOf(crlf) }
        ])
      )
      assert.deepStrictEqual(
        prepared.files.map((file) => [file.path, file.status]),
        [
          ["src/a.ts", "modified"],
          ["src/b.ts", "modified"]
        ]
      )
      assert.strictEqual(prepared.operations, 4)
      assert.strictEqual(
        prepared.files[0]!.diff,
        "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,3 @@\n-export const a = 1\n+export const alpha = 10\n" +
          " export const b = 2\n+export const c = 3\n"
      )
      // Nothing is written by prepare.
      assert.strictEqual(text(root, "src/a.ts"), aText)
      const committed = yield* onRoot(root)(commit(prepared))
      assert.strictEqual(text(root, "src/a.ts"), "export const alpha = 10\nexport const b = 2\nexport const c = 3\n")
      assert.isTrue(
        bytes(root, "src/b.ts").equals(Buffer.from(crlf.replace("const café", "const coffee"), "utf8")),
        "the BOM, CRLF and the rest of b.ts are kept"
      )
      assert.strictEqual(committed.files.length, 2)
    })
  )

  it.effect("refuses overlapping edits, naming both ranges, with nothing written", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "0123456789\n", "b.txt": "abcdefghij\n" })
      const before = snapshot(root, ["a.txt", "b.txt"])
      const error = yield* Effect.flip(
        onRoot(root)(
          prepare([
            { path: "a.txt", edits: [{ start: 0, end: 1, text: "X" }] },
            {
              path: "b.txt",
              edits: [
                { start: 2, end: 5, text: "Y" },
                { start: 4, end: 6, text: "Z" }
              ]
            }
          ])
        )
      )
      assert.strictEqual(error._tag, "TransactionRefused")
      assert.strictEqual(error._tag === "TransactionRefused" && error.reason, "overlapping_edits")
      assert.include(error.message, "[2, 5)")
      assert.include(error.message, "[4, 6)")
      assert.include(error.message, "b.txt")
      assertUnchanged(root, before)
    })
  )

  it.effect("refuses edits out of bounds, unsorted, or cutting a character in two", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "ab🎉\n" })
      const reasonOf = (edits: ReadonlyArray<TextEdit>) =>
        Effect.map(Effect.flip(onRoot(root)(prepare([{ path: "a.txt", edits }]))), (error) =>
          error._tag === "TransactionRefused" ? error.reason : error._tag
        )
      assert.strictEqual(yield* reasonOf([{ start: 0, end: 6, text: "" }]), "out_of_bounds")
      assert.strictEqual(yield* reasonOf([{ start: 2, end: 1, text: "" }]), "out_of_bounds")
      assert.strictEqual(yield* reasonOf([{ start: 0.5, end: 1, text: "" }]), "out_of_bounds")
      assert.strictEqual(
        yield* reasonOf([
          { start: 3, end: 4, text: "" },
          { start: 0, end: 1, text: "" }
        ]),
        "unsorted_edits"
      )
      assert.strictEqual(yield* reasonOf([{ start: 3, end: 4, text: "" }]), "split_character")
      // The whole file (5 UTF-16 code units) is in bounds.
      const prepared = yield* onRoot(root)(prepare([{ path: "a.txt", edits: [{ start: 0, end: 5, text: "" }] }]))
      assert.strictEqual(prepared.files[0]!.after, "")
      assert.strictEqual(text(root, "a.txt"), "ab🎉\n")
    })
  )

  it.effect("refuses a stale file (sha256, or size and mtime) with nothing written", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "one\n", "b.txt": "two\n" })
      const before = snapshot(root, ["a.txt", "b.txt"])
      const seenA = fingerprintOf("one\n")
      const stale = yield* Effect.flip(
        onRoot(root)(
          prepare([
            { path: "a.txt", content: "ONE\n", expected: seenA },
            { path: "b.txt", content: "TWO\n", expected: fingerprintOf("two, as read earlier\n") }
          ])
        )
      )
      assert.strictEqual(stale._tag === "TransactionRefused" && stale.reason, "stale")
      assert.strictEqual(stale._tag === "TransactionRefused" && stale.path, "b.txt")
      assert.include(stale.message, "b.txt")
      assertUnchanged(root, before)

      utimesSync(join(root, "a.txt"), new Date(1_700_000_000_000), new Date(1_700_000_000_000))
      const stat = { size: 4, modifiedMs: 1_700_000_000_000 }
      const byTime = yield* Effect.flip(
        onRoot(root)(prepare([{ path: "a.txt", delete: true, expected: { ...stat, modifiedMs: stat.modifiedMs - 1 } }]))
      )
      assert.strictEqual(byTime._tag === "TransactionRefused" && byTime.reason, "stale")
      assertUnchanged(root, before)

      // The right fingerprints are accepted.
      const prepared = yield* onRoot(root)(
        prepare([
          { path: "a.txt", delete: true, expected: stat },
          { path: "b.txt", content: "TWO\n", expected: fingerprintOf(Buffer.from("two\n")) }
        ])
      )
      assert.deepStrictEqual(
        prepared.files.map((file) => file.status),
        ["deleted", "modified"]
      )
    })
  )

  it.effect("refuses denied and outside paths with the workspace's errors, nothing written", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "a\n", ".env": "SECRET=1\n" })
      const before = snapshot(root, ["a.txt", ".env"])
      const denied = yield* Effect.flip(
        onRoot(root)(
          prepare([
            { path: "a.txt", content: "changed\n" },
            { path: ".env", content: "SECRET=2\n" }
          ])
        )
      )
      assert.strictEqual(denied._tag, "PathRejected")
      assert.strictEqual(denied._tag === "PathRejected" && denied.reason, "denied")
      const outside = yield* Effect.flip(onRoot(root)(prepare([{ path: "../escape.txt", create: "x" }])))
      assert.strictEqual(outside._tag === "PathRejected" && outside.reason, "escapes_root")
      const missing = yield* Effect.flip(onRoot(root)(prepare([{ path: "nope.txt", content: "x" }])))
      assert.strictEqual(missing._tag, "NotFound")
      assertUnchanged(root, before)
      assert.isFalse(existsSync(join(base, "escape.txt")))
    })
  )

  it.effect("refuses creating an existing file, changing a file twice, and files that are not UTF-8 text", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "a.txt": "a\n",
        "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
        "nul.bin": Buffer.from([0x61, 0x00, 0x62])
      })
      const before = snapshot(root, ["a.txt", "latin1.txt", "nul.bin"])
      const reasonOf = (changes: ReadonlyArray<FileChange>) =>
        Effect.map(Effect.flip(onRoot(root)(prepare(changes))), (error) =>
          error._tag === "TransactionRefused" ? error.reason : error._tag
        )
      assert.strictEqual(yield* reasonOf([{ path: "a.txt", create: "x" }]), "exists")
      assert.strictEqual(
        yield* reasonOf([
          { path: "a.txt", content: "x" },
          { path: "./a.txt", delete: true }
        ]),
        "duplicate_path"
      )
      assert.strictEqual(yield* reasonOf([{ path: "latin1.txt", content: "x" }]), "not_text")
      assert.strictEqual(yield* reasonOf([{ path: "nul.bin", delete: true }]), "not_text")
      assertUnchanged(root, before)
    })
  )

  it.effect("creates, deletes and edits in one transaction; rollback restores every byte", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "crlf.ts": crlfBytes,
        "gone.txt": Buffer.from("\uFEFFbye\r\nwörld\r\n", "utf8"),
        "plain.txt": "keep\nme"
      })
      const before = snapshot(root, ["crlf.ts", "gone.txt", "plain.txt"])
      const committed = yield* onRoot(root)(
        Effect.flatMap(
          prepare([
            { path: "crlf.ts", edits: [{ start: crlf.indexOf("日本語"), end: crlf.indexOf("日本語") + 3, text: "x" }] },
            { path: "new/dir/fresh.ts", create: "export const fresh = true\n" },
            { path: "gone.txt", delete: true },
            { path: "plain.txt", content: "replaced\n" }
          ]),
          commit
        )
      )
      assert.strictEqual(text(root, "crlf.ts"), crlf.replace("日本語", "x"))
      assert.strictEqual(text(root, "new/dir/fresh.ts"), "export const fresh = true\n")
      assert.isFalse(existsSync(join(root, "gone.txt")))
      assert.strictEqual(text(root, "plain.txt"), "replaced\n")

      yield* committed.rollback
      assertUnchanged(root, before)
      assert.isFalse(existsSync(join(root, "new/dir/fresh.ts")))
      // Again: nothing more to do.
      yield* committed.rollback
      assertUnchanged(root, before)
    })
  )

  it.effect("rollback leaves a file changed after the commit as it is, restores the others, and says so", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "a\n", "b.txt": "b\n" })
      const committed = yield* onRoot(root)(
        Effect.flatMap(
          prepare([
            { path: "a.txt", content: "A\n" },
            { path: "b.txt", content: "B\n" }
          ]),
          commit
        )
      )
      // Someone edits a.txt after the transaction wrote it.
      writeFileSync(join(root, "a.txt"), "edited later\n")
      const failed = yield* Effect.flip(committed.rollback)
      assert.deepStrictEqual(failed.notRestored, ["a.txt"])
      assert.strictEqual(text(root, "a.txt"), "edited later\n")
      assert.strictEqual(text(root, "b.txt"), "b\n")
    })
  )

  it.effect("a write failing in the middle of commit leaves every file as before", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "crlf.ts": crlfBytes, "gone.txt": "bye\n", "last.txt": "last\n" })
      const before = snapshot(root, ["crlf.ts", "gone.txt", "last.txt"])
      const error = yield* onRoot(root)(
        Effect.gen(function* () {
          const prepared = yield* prepare([
            { path: "crlf.ts", content: "rewritten\n" },
            { path: "created.txt", create: "new\n" },
            { path: "gone.txt", delete: true },
            { path: "sub/blocked.txt", create: "cannot be written\n" },
            { path: "last.txt", content: "never written\n" }
          ])
          // After prepare, `sub` becomes a regular file: creating sub/blocked.txt fails (mkdir) on the real disk.
          writeFileSync(join(root, "sub"), "in the way\n")
          return yield* Effect.flip(commit(prepared))
        })
      )
      assert.strictEqual(error._tag, "CommitFailed")
      assert.strictEqual(error.path, "sub/blocked.txt")
      assert.deepStrictEqual(error.notRestored, [])
      assert.sameMembers([...error.restored], ["crlf.ts", "created.txt", "gone.txt", "sub/blocked.txt"])
      assert.include(error.message, "Writing sub/blocked.txt failed")
      assert.include(error.message, "Everything was restored")
      assertUnchanged(root, before)
      assert.isFalse(existsSync(join(root, "created.txt")))
      assert.strictEqual(text(root, "sub"), "in the way\n")
    })
  )

  it.effect("a target replaced by a directory after prepare fails the commit, every file restored", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "a.txt": "a\r\n", "b.txt": "b\n", "c.txt": "c\n" })
      const before = snapshot(root, ["a.txt", "c.txt"])
      const error = yield* onRoot(root)(
        Effect.gen(function* () {
          const prepared = yield* prepare([
            { path: "a.txt", content: "A\n" },
            { path: "b.txt", content: "B\n" },
            { path: "c.txt", content: "C\n" }
          ])
          rmSync(join(root, "b.txt"))
          mkdirSync(join(root, "b.txt"))
          return yield* Effect.flip(commit(prepared))
        })
      )
      assert.strictEqual(error._tag, "CommitFailed")
      assert.strictEqual(error.path, "b.txt")
      assert.include(error.message, "changed since the transaction was prepared")
      assert.deepStrictEqual([...error.restored], ["a.txt"])
      assertUnchanged(root, before)
    })
  )

  it.effect("takes 500 operations and refuses 501 with nothing written", () =>
    Effect.gen(function* () {
      const original = "x".repeat(500)
      const root = makeRoot({ "many.txt": original })
      const edits = Array.from({ length: 500 }, (_, i) => ({ start: i, end: i + 1, text: String(i % 10) }))
      const refused = yield* Effect.flip(
        onRoot(root)(
          prepare([
            { path: "many.txt", edits },
            { path: "one-more.txt", create: "1\n" }
          ])
        )
      )
      assert.strictEqual(refused._tag === "TransactionRefused" && refused.reason, "too_many")
      assert.include(refused.message, "501")
      assert.strictEqual(text(root, "many.txt"), original)
      assert.isFalse(existsSync(join(root, "one-more.txt")))

      const prepared = yield* onRoot(root)(prepare([{ path: "many.txt", edits }]))
      assert.strictEqual(prepared.operations, 500)
      yield* onRoot(root)(commit(prepared))
      assert.strictEqual(text(root, "many.txt"), edits.map((edit) => edit.text).join(""))

      const lower = yield* Effect.flip(onRoot(root)(prepare([{ path: "many.txt", content: "" }], { maxOperations: 0 })))
      assert.strictEqual(lower._tag === "TransactionRefused" && lower.reason, "too_many")
    })
  )
})

describe("unifiedDiff", () => {
  it("writes hunks with three lines of context, /dev/null sides and no-newline markers", () => {
    assert.strictEqual(unifiedDiff("a.txt", "same\n", "same\n"), "")
    assert.strictEqual(
      unifiedDiff("a.txt", "one\ntwo\n", "one\n2\n"),
      "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    )
    assert.strictEqual(unifiedDiff("n.txt", undefined, "hi\n"), "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+hi\n")
    assert.strictEqual(
      unifiedDiff("d.txt", "x\ny", undefined),
      "--- a/d.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n"
    )
    assert.strictEqual(
      unifiedDiff("e.txt", "a\nb", "a\nb\n"),
      "--- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    )
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`)
    const changed = [...lines]
    changed[1] = "LINE 2\n"
    changed[17] = "LINE 18\n"
    const diff = unifiedDiff("f.txt", lines.join(""), changed.join(""))
    assert.deepStrictEqual(
      diff.split("\n").filter((line) => line.startsWith("@@")),
      ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"]
    )
  })

  it("gives diffs that the workspace's patch engine applies back exactly", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["", "new\n"],
      ["a\nb\nc\n", ""],
      ["a\nb\nc\n", "a\nB\nc\nd"],
      [crlf, crlf.replace("naïve", "näive").replace("🎉", "")],
      ["x\r\n\r\ny\r\n", "x\r\n\r\nz\r\ny\r\n"],
      [
        Array.from({ length: 50 }, (_, i) => `${i}\n`).join(""),
        Array.from({ length: 50 }, (_, i) => (i % 7 === 0 ? `changed ${i}\n` : `${i}\n`)).join("") + "tail"
      ],
      ["one\ntwo\nthree\n", "zero\none\nthree\nfour\n"]
    ]
    for (const [before, after] of cases) {
      const diff = unifiedDiff("f.txt", before, after)
      const parsed = UnifiedDiff.parse(diff)
      assert.strictEqual(parsed._tag, "Ok", diff)
      if (parsed._tag !== "Ok") continue
      const applied = UnifiedDiff.apply(before, parsed.files[0]!.hunks)
      assert.deepStrictEqual(applied, { _tag: "Ok", content: after }, diff)
    }
  })
  it("boundedDiffs keeps whole diffs in order while they fit, and counts the others", () => {
    const files = [
      { path: "a.ts", status: "modified" as const, diff: "x".repeat(40) },
      { path: "b.ts", status: "created" as const, diff: "y".repeat(40) },
      { path: "c.ts", status: "modified" as const, diff: "z".repeat(5) }
    ]
    const { files: shown, omitted } = boundedDiffs(files, 50)
    assert.deepStrictEqual(
      shown.map((file) => [file.path, file.diff.length, file.diffOmitted === true]),
      [
        ["a.ts", 40, false],
        ["b.ts", 0, true],
        ["c.ts", 0, true]
      ]
    )
    assert.strictEqual(omitted, 2)
    assert.strictEqual(boundedDiffs(files).omitted, 0)
  })
  it("lineMap follows each line of an earlier text into the current one", () => {
    assert.deepStrictEqual(lineMap("a\nb\nc\n", "a\nx\nc\n"), [0, undefined, 2, 3])
    assert.deepStrictEqual(lineMap("a\nb\n", "new\na\nb\n"), [1, 2, 3])
    assert.deepStrictEqual(lineMap("a\nb\nc", "a\nc"), [0, undefined, 1])
    assert.deepStrictEqual(lineMap("", "x"), [undefined])
  })
})
