/**
 * Workspace.applyPatch against real diffs: patches made by `git diff` (with
 * renames, creations, deletions, missing final newlines, CRLF, names with
 * spaces and non-ASCII letters) and by `diff -ruN`, applied to the "before"
 * tree and compared file by file with the "after" tree; `git apply --check`
 * agrees on which patches apply. Then the all-or-nothing rule (a failing
 * hunk in the last file leaves the first untouched), hunks found at an
 * offset, the error messages, and hostile paths inside patches.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import type { WorkspaceError } from "../src/Workspace.ts"

const base = mkdtempSync(join(tmpdir(), "apply-patch-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))
let counter = 0
const freshDir = () => {
  const dir = join(base, `d${counter++}`)
  mkdirSync(dir, { recursive: true })
  return dir
}

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: base,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com"
}
const git = (cwd: string, args: ReadonlyArray<string>) =>
  execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" })
const gitApplies = (cwd: string, patch: string) => {
  try {
    execFileSync("git", ["apply", "--check", "-"], { cwd, env: gitEnv, input: patch, stdio: "pipe" })
    return true
  } catch {
    return false
  }
}

type Tree = Readonly<Record<string, string>>

const writeTree = (root: string, tree: Tree) => {
  for (const [path, content] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

const readTree = (root: string, relative = ""): Record<string, string> =>
  Object.assign(
    {},
    ...readdirSync(join(root, relative), { withFileTypes: true })
      .filter((entry) => entry.name !== ".git")
      .map((entry) => {
        const path = relative === "" ? entry.name : `${relative}/${entry.name}`
        return entry.isDirectory() ? readTree(root, path) : { [path]: readFileSync(join(root, path), "utf8") }
      })
  )

const numbered = (n: number, prefix = "line") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join("")

const before: Tree = {
  "src/main.ts": numbered(60),
  "src/util.ts": "export const a = 1\nexport const b = 2\nexport const c = 3\n",
  "docs/no-eol.txt": "first\nsecond\nlast without newline",
  "docs/gains-eol.txt": "alpha\nomega",
  "crlf.txt": "one\r\ntwo\r\nthree\r\n",
  "name with spaces.md": "# Title\n\nBody\n",
  "données/café.txt": "crème\nbrûlée\n",
  "old-name.ts": numbered(20, "rename"),
  "to-delete.txt": "bye\nbye\n",
  "empty-to-delete.txt": ""
}

const after: Tree = {
  "src/main.ts": numbered(60)
    .replace("line 3\n", "line three\n")
    .replace("line 30\n", "line 30\ninserted after 30\n")
    .replace("line 58\nline 59\n", "line 59\n"),
  "src/util.ts": "export const a = 1\nexport const b = 20\nexport const c = 3\nexport const d = 4\n",
  "docs/no-eol.txt": "first\nsecond changed\nlast without newline, still",
  "docs/gains-eol.txt": "alpha\nomega\n",
  "crlf.txt": "one\r\nTWO\r\nthree\r\n",
  "name with spaces.md": "# Title\n\nBody, edited\n",
  "données/café.txt": "crème\nbrûlée\nsucre\n",
  "new-name.ts": numbered(20, "rename").replace("rename 10\n", "renamed 10\n"),
  "new/dir/created.ts": "export const created = true\n",
  "new/no-eol.txt": "no newline here"
}

const applied = (root: string, patch: string, strip?: number) =>
  Effect.flatMap(NodeWorkspace.make({ root }), (workspace) =>
    workspace.applyPatch(patch, strip === undefined ? undefined : { strip })
  )

const failure = (effect: Effect.Effect<unknown, WorkspaceError>) => Effect.flip(effect)

describe("patches made by git diff", () => {
  it.effect(
    "a multi-file git diff (modify, create, delete, rename, no-eol, CRLF, odd names) gives the after tree",
    () =>
      Effect.gen(function* () {
        const root = freshDir()
        git(root, ["init", "-q"])
        writeTree(root, before)
        git(root, ["add", "-A"])
        git(root, ["commit", "-q", "-m", "before"])
        for (const path of Object.keys(before)) rmSync(join(root, path))
        writeTree(root, after)
        git(root, ["add", "-A"])
        const patch = git(root, ["-c", "core.quotePath=true", "diff", "--cached", "-M"])
        assert.include(patch, "rename from old-name.ts")
        assert.include(patch, "\\ No newline at end of file")
        assert.include(patch, '"a/donn\\303\\251es/caf\\303\\251.txt"')
        git(root, ["reset", "-q", "--hard", "HEAD"])
        assert.deepStrictEqual(readTree(root), before)
        assert.isTrue(gitApplies(root, patch))

        const result = yield* applied(root, patch)
        assert.deepStrictEqual(readTree(root), after)
        const byPath = Object.fromEntries(result.files.map((file) => [file.path, file]))
        assert.strictEqual(byPath["src/main.ts"]?.status, "modified")
        assert.strictEqual(byPath["src/main.ts"]?.hunks, 3)
        assert.strictEqual(byPath["new/dir/created.ts"]?.status, "created")
        assert.strictEqual(byPath["to-delete.txt"]?.status, "deleted")
        assert.strictEqual(byPath["empty-to-delete.txt"]?.status, "deleted")
        assert.deepStrictEqual(
          { status: byPath["new-name.ts"]?.status, from: byPath["new-name.ts"]?.from },
          { status: "renamed", from: "old-name.ts" }
        )
        assert.strictEqual(byPath["données/café.txt"]?.linesAdded, 1)
      })
  )

  it.effect("the same patch does not apply twice, and git apply agrees", () =>
    Effect.gen(function* () {
      const root = freshDir()
      git(root, ["init", "-q"])
      writeTree(root, { "a.txt": numbered(10) })
      git(root, ["add", "-A"])
      git(root, ["commit", "-q", "-m", "before"])
      writeFileSync(join(root, "a.txt"), numbered(10).replace("line 5\n", "line five\n"))
      const patch = git(root, ["diff"])
      git(root, ["checkout", "-q", "--", "a.txt"])
      yield* applied(root, patch)
      assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), numbered(10).replace("line 5\n", "line five\n"))
      assert.isFalse(gitApplies(root, patch))
      const error = yield* failure(applied(root, patch))
      assert.strictEqual(error._tag, "EditMismatch")
      assert.include(error.message, "Hunk 1 of a.txt (@@ -2,7 +2,7 @@)")
      assert.include(error.message, 'line 5 is "line five" where the hunk expects "line 5"')
      assert.include(error.suggestion, "workspace_read")
    })
  )

  it.effect("zero-context diffs (git diff -U0) apply too", () =>
    Effect.gen(function* () {
      const root = freshDir()
      git(root, ["init", "-q"])
      writeTree(root, { "a.txt": numbered(30) })
      git(root, ["add", "-A"])
      git(root, ["commit", "-q", "-m", "before"])
      const target = numbered(30).replace("line 1\n", "").replace("line 15\n", "line 15\nextra\n") + "tail\n"
      writeFileSync(join(root, "a.txt"), target)
      const patch = git(root, ["diff", "-U0"])
      git(root, ["checkout", "-q", "--", "a.txt"])
      yield* applied(root, patch)
      assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), target)
    })
  )
})

describe("patches made by diff -u", () => {
  it.effect("diff -ruN of two trees applies with strip 1 (new files from empty, without /dev/null)", () =>
    Effect.gen(function* () {
      const dir = freshDir()
      const old = { "a.txt": numbered(12), "sub/b.txt": "x\ny\nz\n" }
      const neu = {
        "a.txt": numbered(12).replace("line 7\n", "line 7\nline 7½\n"),
        "sub/b.txt": "x\nY\nz\n",
        "sub/c.txt": "new\n"
      }
      writeTree(join(dir, "before"), old)
      writeTree(join(dir, "after"), neu)
      let patch = ""
      try {
        execFileSync("diff", ["-ruN", "before", "after"], { cwd: dir, encoding: "utf8" })
      } catch (error) {
        patch = (error as { stdout: string }).stdout
      }
      assert.include(patch, "--- before/a.txt\t")
      const root = join(dir, "before")
      yield* applied(root, patch, 1)
      assert.deepStrictEqual(readTree(root), neu)
    })
  )

  it.effect("a plain diff -u of one file, names without prefixes", () =>
    Effect.gen(function* () {
      const root = freshDir()
      writeTree(root, { "notes.md": "a\nb\nc\n" })
      const patch =
        "--- notes.md\t2024-01-01 00:00:00\n+++ notes.md\t2024-01-02 00:00:00\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
      const result = yield* applied(root, patch)
      assert.strictEqual(readFileSync(join(root, "notes.md"), "utf8"), "a\nB\nc\n")
      assert.deepStrictEqual(result.files, [
        { path: "notes.md", status: "modified", hunks: 1, linesAdded: 1, linesRemoved: 1 }
      ])
    })
  )
})

describe("how hunks are matched", () => {
  it.effect("a hunk whose lines moved is found at an offset, and later hunks follow the shift", () =>
    Effect.gen(function* () {
      const root = freshDir()
      writeTree(root, { "a.txt": "new top 1\nnew top 2\nnew top 3\n" + numbered(40) })
      const patch = [
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -4,3 +4,3 @@",
        " line 4",
        "-line 5",
        "+line FIVE",
        " line 6",
        "@@ -30,3 +30,3 @@",
        " line 30",
        "-line 31",
        "+line THIRTY-ONE",
        " line 32",
        ""
      ].join("\n")
      yield* applied(root, patch)
      const text = readFileSync(join(root, "a.txt"), "utf8")
      assert.include(text, "line 4\nline FIVE\nline 6\n")
      assert.include(text, "line 30\nline THIRTY-ONE\nline 32\n")
      assert.isTrue(text.startsWith("new top 1\n"))
    })
  )

  it.effect("all or nothing: a bad hunk in the second file leaves the first file and new files unwritten", () =>
    Effect.gen(function* () {
      const root = freshDir()
      writeTree(root, { "one.txt": "a\nb\nc\n", "two.txt": "x\ny\nz\n" })
      const patch = [
        "--- a/one.txt",
        "+++ b/one.txt",
        "@@ -1,3 +1,3 @@",
        " a",
        "-b",
        "+B",
        " c",
        "--- /dev/null",
        "+++ b/created.txt",
        "@@ -0,0 +1 @@",
        "+hello",
        "--- a/two.txt",
        "+++ b/two.txt",
        "@@ -1,3 +1,3 @@",
        " x",
        "-not y",
        "+Y",
        " z",
        ""
      ].join("\n")
      const error = yield* failure(applied(root, patch))
      assert.strictEqual(error._tag, "EditMismatch")
      assert.include(error.message, "Hunk 1 of two.txt")
      assert.include(error.message, "Nothing was changed")
      assert.strictEqual(readFileSync(join(root, "one.txt"), "utf8"), "a\nb\nc\n")
      assert.isFalse(existsSync(join(root, "created.txt")))
    })
  )

  it.effect("whitespace differences are named in the message", () =>
    Effect.gen(function* () {
      const root = freshDir()
      writeTree(root, { "a.py": "def f():\n    return 1\n" })
      const patch = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def f():\n-  return 1\n+  return 2\n"
      const error = yield* failure(applied(root, patch))
      assert.include(error.message, "differ only in whitespace")
    })
  )

  it.effect("several patches of one file in one patch apply in sequence", () =>
    Effect.gen(function* () {
      const root = freshDir()
      writeTree(root, { "a.txt": "1\n2\n3\n" })
      const patch =
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+one\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-2\n+two\n"
      yield* applied(root, patch)
      assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), "one\ntwo\n3\n")
    })
  )
})

describe("refusals", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ["not a patch", "hello world\n", "InvalidArgument"],
    ["a hunk that ends early", "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n", "InvalidArgument"],
    ["a malformed hunk header", "--- a/a.txt\n+++ b/a.txt\n@@ -x +y @@\n", "InvalidArgument"],
    [
      "a binary patch",
      "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 1\n",
      "InvalidArgument"
    ],
    ["creating a file that exists", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n", "InvalidArgument"],
    ["changing a missing file", "--- a/missing.txt\n+++ b/missing.txt\n@@ -1 +1 @@\n-x\n+y\n", "NotFound"],
    ["deleting only part of a file", "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", "EditMismatch"]
  ]
  for (const [label, patch, tag] of cases) {
    it.effect(`${label} → ${tag}`, () =>
      Effect.gen(function* () {
        const root = freshDir()
        writeTree(root, { "a.txt": "a\nb\nc\n" })
        const error = yield* failure(applied(root, patch))
        assert.strictEqual(error._tag, tag)
        assert.isNotEmpty(error.suggestion)
        assert.strictEqual(readFileSync(join(root, "a.txt"), "utf8"), "a\nb\nc\n")
      })
    )
  }
})

describe("hostile paths in patches", () => {
  const setup = () => {
    const dir = freshDir()
    const root = join(dir, "root")
    const outside = join(dir, "outside")
    mkdirSync(root)
    mkdirSync(outside)
    writeTree(root, { "ok.txt": "a\n", ".env": "SECRET=1\n" })
    writeFileSync(join(outside, "target.txt"), "outside\n")
    symlinkSync(outside, join(root, "escape-dir"))
    symlinkSync(join(outside, "target.txt"), join(root, "file-link-out"))
    return { root, outside }
  }
  const modify = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-outside\n+pwned\n`
  const create = (path: string) => `--- /dev/null\n+++ ${path}\n@@ -0,0 +1 @@\n+pwned\n`
  const okFirst = "--- a/ok.txt\n+++ b/ok.txt\n@@ -1 +1 @@\n-a\n+changed\n"
  const cases = (outside: string): ReadonlyArray<readonly [string, string, string]> => [
    ["../ in a created file", create("b/../outside/new.txt"), "escapes_root"],
    ["../ with a prefix stripped", modify("../outside/target.txt"), "escapes_root"],
    ["absolute path outside", create(join(outside, "abs.txt")), "outside_root"],
    [
      "absolute path with strip 0",
      `--- ${outside}/target.txt\n+++ ${outside}/target.txt\n@@ -1 +1 @@\n-outside\n+pwned\n`,
      "outside_root"
    ],
    ["a new file through a symlinked directory", create("b/escape-dir/new.txt"), "symlink_escape"],
    ["a file symlinked outside", modify("file-link-out"), "symlink_escape"],
    ["the .env secret", "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-SECRET=1\n+SECRET=2\n", "denied"],
    ["a git hook", create("b/.git/hooks/pre-commit"), "denied"],
    [
      "a rename onto .env",
      "diff --git a/ok.txt b/.env.prod\nsimilarity index 100%\nrename from ok.txt\nrename to .env.prod\n",
      "denied"
    ],
    ["a percent-encoded escape", create("b/%2e%2e/outside/x"), "percent_encoded"],
    ["a backslash escape", create("b/..\\outside\\x"), "backslash"]
  ]
  it.effect("every hostile path is refused with its reason, and nothing is written anywhere", () =>
    Effect.gen(function* () {
      const { outside, root } = setup()
      for (const [label, patch, reason] of cases(outside)) {
        const error = yield* failure(applied(root, okFirst + patch))
        assert.strictEqual(error._tag === "PathRejected" ? error.reason : error._tag, reason, label)
        assert.isNotEmpty(error.suggestion)
      }
      assert.strictEqual(readFileSync(join(root, "ok.txt"), "utf8"), "a\n")
      assert.strictEqual(readFileSync(join(outside, "target.txt"), "utf8"), "outside\n")
      assert.deepStrictEqual(readdirSync(outside), ["target.txt"])
      assert.strictEqual(readFileSync(join(root, ".env"), "utf8"), "SECRET=1\n")
      assert.isFalse(existsSync(join(root, ".git")))
    })
  )
})
