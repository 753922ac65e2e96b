/**
 * The workspace: a path-attack corpus against real files in a temporary
 * directory (real symlinks, a real FIFO, links to /etc/passwd and /dev/null,
 * a link chain, dangling links, a link loop), each asserting the exact
 * rejection reason; then reads, listings, stats, writes and edits inside the
 * root, and writes that try to leave it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import {
  checkPath,
  defaultDeny,
  defaultMaxReadBytes,
  isDenied,
  type RejectionReason,
  Workspace,
  type WorkspaceError
} from "../src/Workspace.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

// One fixture for the read-only tests, built once; tests that write get their own directory.
const base = mkdtempSync(join(tmpdir(), "workspace-"))
const root = join(base, "root")
const outside = join(base, "outside")
const file = (relative: string, content: string | Buffer) => {
  mkdirSync(join(root, relative, ".."), { recursive: true })
  writeFileSync(join(root, relative), content)
}
const link = (relative: string, target: string) => symlinkSync(target, join(root, relative))

mkdirSync(outside, { recursive: true })
writeFileSync(join(outside, "secret.txt"), "TOP SECRET\n")
file("README.md", "hello workspace\n")
file("src/a.ts", "export const a = 1\n")
file("src/b.ts", "export const b = 2\n")
file("big.txt", Buffer.alloc(defaultMaxReadBytes + 4096, "x"))
file("unicode.txt", "héllo ✓\n")
for (let i = 0; i < 25; i++) file(`many/f${String(i).padStart(2, "0")}.txt`, `file ${i}\n`)
file(".env", "API_KEY=hunter2\n")
file(".env.local", "API_KEY=hunter3\n")
file(".git/config", "[core]\n")
file(".git/HEAD", "ref: refs/heads/main\n")
file("sub/.git/HEAD", "ref: refs/heads/main\n")
file("id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
file("key.pem", "-----BEGIN PRIVATE KEY-----\n")
file("keys/server.key", "-----BEGIN PRIVATE KEY-----\n")
link("link-passwd", "/etc/passwd")
link("link-dev-null", "/dev/null")
link("link-outside-dir", "../outside")
link("chain1", "chain2")
link("chain2", "chain3")
link("chain3", "/etc")
link("dangling-out", "/nonexistent-workspace-test/file")
link("dangling-in", "missing.txt")
link("loop1", "loop2")
link("loop2", "loop1")
link("env-alias", ".env")
link("readme-link", "README.md")
link("src-link", join(root, "src"))
execFileSync("mkfifo", [join(root, "fifo")])

afterAll(() => rmSync(base, { recursive: true, force: true }))

const workspace = NodeWorkspace.make({ root })

const rejection = (effect: Effect.Effect<unknown, WorkspaceError>) =>
  Effect.map(Effect.flip(effect), (error) => (error._tag === "PathRejected" ? error.reason : error._tag))

// [label, path, reason]: each is read through the workspace and must fail with exactly this reason.
const corpus: ReadonlyArray<readonly [string, string, RejectionReason | "NotFound"]> = [
  ["parent escape", "../outside/secret.txt", "escapes_root"],
  ["parent escape after a subdirectory", "src/../../outside/secret.txt", "escapes_root"],
  ["deep parent escape", "a/b/../../../etc/passwd", "escapes_root"],
  ["bare ..", "..", "escapes_root"],
  ["backslash parent escape", "..\\outside\\secret.txt", "backslash"],
  ["backslash in a name", "src\\a.ts", "backslash"],
  ["UNC path", "\\\\server\\share\\file", "backslash"],
  ["percent-encoded dots", "%2e%2e/outside/secret.txt", "percent_encoded"],
  ["percent-encoded dots deeper", "a/%2e%2e/%2e%2e/outside/secret.txt", "percent_encoded"],
  ["percent-encoded upper case", "%2E%2E/outside", "percent_encoded"],
  ["percent-encoded slash", "..%2foutside%2fsecret.txt", "percent_encoded"],
  ["percent-encoded backslash", "..%5coutside", "percent_encoded"],
  ["percent-encoded NUL", "README.md%00.txt", "percent_encoded"],
  ["double percent-encoding", "%252e%252e/outside", "percent_encoded"],
  ["absolute path outside the root", "/etc/passwd", "outside_root"],
  ["double slash absolute", "//etc", "outside_root"],
  ["absolute device path", "/dev/null", "outside_root"],
  ["absolute path through the root with ..", `${root}/../outside/secret.txt`, "outside_root"],
  ["sibling directory with the root as prefix", `${root}-other/file`, "outside_root"],
  ["NUL byte", "README.md\0.png", "nul_byte"],
  ["newline", "README.md\n", "control_character"],
  ["escape character", "\u001b[2Jfile", "control_character"],
  ["very long path", "a/".repeat(2100) + "b", "too_long"],
  ["very long segment", "x".repeat(300), "too_long"],
  ["home directory", "~", "home_directory"],
  ["home directory file", "~/.ssh/id_rsa", "home_directory"],
  ["other user's home", "~root/.bashrc", "home_directory"],
  ["Windows drive", "C:\\Windows\\win.ini", "drive_letter"],
  ["Windows drive with slashes", "c:/Windows/win.ini", "drive_letter"],
  ["file URL", "file:///etc/passwd", "url"],
  ["http URL", "http://example.com/x", "url"],
  [".env", ".env", "denied"],
  [".env.local", ".env.local", "denied"],
  [".env in other case", ".ENV", "denied"],
  [".env with a trailing dot", ".env.", "denied"],
  [".git/config", ".git/config", "denied"],
  [".git directory", ".git", "denied"],
  ["nested .git", "sub/.git/HEAD", "denied"],
  [".git reached through ..", "src/../.git/config", "denied"],
  ["id_rsa", "id_rsa", "denied"],
  ["id_ed25519 anywhere", "deploy/id_ed25519.pub", "denied"],
  ["*.pem", "key.pem", "denied"],
  ["*.key in a subdirectory", "keys/server.key", "denied"],
  ["symlink to a denied file", "env-alias", "denied"],
  ["symlink to /etc/passwd", "link-passwd", "symlink_escape"],
  ["symlink to /dev/null", "link-dev-null", "symlink_escape"],
  ["file under a symlinked directory outside", "link-outside-dir/secret.txt", "symlink_escape"],
  ["symlinked directory outside", "link-outside-dir", "symlink_escape"],
  ["symlink chain leaving the root", "chain1", "symlink_escape"],
  ["symlink chain leaving the root, deeper", "chain1/passwd", "symlink_escape"],
  ["dangling symlink pointing outside", "dangling-out", "symlink_escape"],
  ["dangling symlink inside", "dangling-in", "dangling_symlink"],
  ["symlink loop", "loop1", "symlink_loop"],
  ["FIFO", "fifo", "special_file"],
  ["fullwidth dots are a literal name, not ..", "\uff0e\uff0e/outside/secret.txt", "NotFound"],
  ["one-dot leaders are a literal name", "\u2024\u2024/outside/secret.txt", "NotFound"],
  ["division slash is not a separator", "..\u2215outside\u2215secret.txt", "NotFound"]
]

describe("path-attack corpus (read)", () => {
  it("has at least 30 cases", () => {
    assert.isAtLeast(corpus.length, 30)
  })
  for (const [label, path, reason] of corpus) {
    it.effect(`${label}: ${JSON.stringify(path.length > 60 ? path.slice(0, 60) + "…" : path)} → ${reason}`, () =>
      Effect.gen(function* () {
        const ws = yield* workspace
        assert.strictEqual(yield* rejection(ws.read(path)), reason)
      })
    )
  }

  it.effect("the FIFO is rejected by stat and list too, and the read does not block", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      assert.strictEqual(yield* rejection(ws.stat("fifo")), "special_file")
      assert.strictEqual(yield* rejection(ws.list("fifo")), "special_file")
    })
  )

  it.effect("every rejection carries a message and a suggestion", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const error = yield* Effect.flip(ws.read("../outside/secret.txt"))
      assert.strictEqual(error._tag, "PathRejected")
      assert.include(error.message, "root")
      assert.include(error.suggestion, "workspace_list")
    })
  )
})

describe("checkPath and the deny list (pure)", () => {
  it("normalizes . and inner .. and accepts absolute paths under the root", () => {
    const ok = (path: string) => {
      const result = checkPath(path, ["/srv/project"])
      return Result.isSuccess(result) ? result.success : `rejected: ${result.failure.reason}`
    }
    assert.strictEqual(ok("./src/../README.md"), "README.md")
    assert.strictEqual(ok(""), "")
    assert.strictEqual(ok("."), "")
    assert.strictEqual(ok("/srv/project"), "")
    assert.strictEqual(ok("/srv/project/src//a.ts"), "src/a.ts")
    assert.strictEqual(ok("100%.txt"), "100%.txt")
    assert.strictEqual(ok("./~backup"), "~backup")
    assert.strictEqual(ok("a%41.txt"), "a%41.txt")
    assert.strictEqual(ok("/srv/projectile/a"), "rejected: outside_root")
  })

  it("matches deny patterns by segment, by path, case-insensitively", () => {
    assert.isTrue(isDenied("a/b/.env.production", defaultDeny))
    assert.isTrue(isDenied(".git", defaultDeny))
    assert.isFalse(isDenied("src/env.ts", defaultDeny))
    assert.isFalse(isDenied("docs/keynote.md", defaultDeny))
    assert.isTrue(isDenied("build/out/x.js", ["build/**"]))
    assert.isTrue(isDenied("dist/a.js", ["dist/"]))
    assert.isFalse(isDenied("src/dist.ts", ["dist/"]))
    assert.isTrue(isDenied("config/prod/secrets.yaml", ["config/*/secrets.yaml"]))
  })
})

describe("reads", () => {
  it.effect("reads a whole small file", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const result = yield* ws.read("README.md")
      assert.deepStrictEqual(result, {
        path: "README.md",
        content: "hello workspace\n",
        offset: 0,
        bytesRead: 16,
        size: 16,
        truncated: false,
        binary: false
      })
    })
  )

  it.effect("reads a slice with offset and length, flagged truncated with the next offset", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const result = yield* ws.read("README.md", { offset: 6, length: 5 })
      assert.strictEqual(result.content, "works")
      assert.strictEqual(result.truncated, true)
      assert.strictEqual(result.nextOffset, 11)
      const tail = yield* ws.read("README.md", { offset: 11 })
      assert.strictEqual(tail.content, "pace\n")
      assert.strictEqual(tail.truncated, false)
      const past = yield* ws.read("README.md", { offset: 100 })
      assert.strictEqual(past.bytesRead, 0)
    })
  )

  it.effect("caps a read at 1 MiB by default, even when asked for more", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const result = yield* ws.read("big.txt", { length: 10 * 1024 * 1024 })
      assert.strictEqual(result.bytesRead, defaultMaxReadBytes)
      assert.strictEqual(result.size, defaultMaxReadBytes + 4096)
      assert.strictEqual(result.truncated, true)
      assert.strictEqual(result.nextOffset, defaultMaxReadBytes)
    })
  )

  it.effect("honours a configured cap", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root, maxReadBytes: 4 })
      const result = yield* ws.read("README.md")
      assert.strictEqual(result.content, "hell")
      assert.strictEqual(result.truncated, true)
    })
  )

  it.effect("follows a symlink that stays inside the root, and accepts absolute paths under the root", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const viaLink = yield* ws.read("readme-link")
      assert.strictEqual(viaLink.path, "README.md")
      assert.strictEqual(viaLink.content, "hello workspace\n")
      assert.strictEqual((yield* ws.read(join(root, "src/a.ts"))).path, "src/a.ts")
      assert.strictEqual((yield* ws.read("src-link/b.ts")).path, "src/b.ts")
      assert.strictEqual((yield* ws.read("unicode.txt")).content, "héllo ✓\n")
    })
  )

  it.effect("fails with the right kind of error for directories, missing files and bad ranges", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      assert.strictEqual(yield* rejection(ws.read("src")), "WrongKind")
      assert.strictEqual(yield* rejection(ws.read("nope.txt")), "NotFound")
      assert.strictEqual(yield* rejection(ws.read("README.md/x")), "NotFound")
      assert.strictEqual(yield* rejection(ws.read("README.md", { offset: -1 })), "InvalidArgument")
      assert.strictEqual(yield* rejection(ws.read("README.md", { length: 0 })), "InvalidArgument")
      const missing = yield* Effect.flip(ws.read("nope.txt"))
      assert.include(missing.suggestion, "workspace_list")
    })
  )
})

describe("listing", () => {
  it.effect("pages through a directory in a stable order with an opaque cursor", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const seen: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* ws.list("many", { limit: 10, cursor })
        seen.push(...page.entries.map((entry) => entry.path))
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined)
      assert.strictEqual(pages, 3)
      assert.deepStrictEqual(
        seen,
        Array.from({ length: 25 }, (_, i) => `many/f${String(i).padStart(2, "0")}.txt`)
      )
      const again = yield* ws.list("many", { limit: 10 })
      const second = yield* ws.list("many", { limit: 10, cursor: again.nextCursor })
      assert.strictEqual(second.entries[0]?.name, "f10.txt")
    })
  )

  it.effect("lists the root without the denied entries, reporting symlinks and special files as such", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const page = yield* ws.list("", { limit: 1000 })
      const byName = new Map(page.entries.map((entry) => [entry.name, entry.type]))
      for (const hidden of [".env", ".env.local", ".git", "id_rsa", "key.pem"]) assert.isFalse(byName.has(hidden))
      assert.strictEqual(byName.get("README.md"), "file")
      assert.strictEqual(byName.get("src"), "directory")
      assert.strictEqual(byName.get("link-passwd"), "symlink")
      assert.strictEqual(byName.get("fifo"), "other")
      assert.isUndefined(page.nextCursor)
    })
  )

  it.effect("rejects a forged cursor, a bad limit, and listing a file", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      assert.strictEqual(yield* rejection(ws.list("many", { cursor: "not a cursor!" })), "InvalidArgument")
      assert.strictEqual(yield* rejection(ws.list("many", { limit: 0 })), "InvalidArgument")
      assert.strictEqual(yield* rejection(ws.list("many", { limit: 5000 })), "InvalidArgument")
      assert.strictEqual(yield* rejection(ws.list("README.md")), "WrongKind")
      assert.strictEqual(yield* rejection(ws.list("link-outside-dir")), "symlink_escape")
    })
  )
})

describe("stat", () => {
  it.effect("reports files and directories", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const readme = yield* ws.stat("README.md")
      assert.strictEqual(readme.type, "file")
      assert.strictEqual(readme.size, 16)
      assert.isAbove(readme.modifiedMs, 0)
      assert.strictEqual((yield* ws.stat(".")).type, "directory")
      assert.strictEqual(yield* rejection(ws.stat("link-passwd")), "symlink_escape")
    })
  )
})

describe("writes", () => {
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), "workspace-write-"))
    mkdirSync(join(dir, "root"))
    mkdirSync(join(dir, "outside"))
    return { dir, root: join(dir, "root"), outside: join(dir, "outside") }
  }
  const withScratch = <A, E>(body: (paths: ReturnType<typeof scratch>) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(Effect.sync(scratch), body, (paths) =>
      Effect.sync(() => rmSync(paths.dir, { recursive: true, force: true }))
    )

  it.effect("creates files and parent directories inside the root, then replaces them", () =>
    withScratch((paths) =>
      Effect.gen(function* () {
        const ws = yield* NodeWorkspace.make({ root: paths.root })
        const created = yield* ws.write("notes/today.md", "first\n")
        assert.deepStrictEqual(created, { path: "notes/today.md", bytesWritten: 6, created: true })
        const replaced = yield* ws.write("notes/today.md", "second ✓\n")
        assert.deepStrictEqual(replaced, { path: "notes/today.md", bytesWritten: 11, created: false })
        assert.strictEqual(readFileSync(join(paths.root, "notes/today.md"), "utf8"), "second ✓\n")
      })
    )
  )

  it.effect("edits one occurrence, and refuses none or several", () =>
    withScratch((paths) =>
      Effect.gen(function* () {
        const ws = yield* NodeWorkspace.make({ root: paths.root })
        yield* ws.write("a.ts", "const x = 1\nconst y = 1\n")
        yield* ws.edit("a.ts", { oldText: "x = 1", newText: "x = 2" })
        assert.strictEqual(readFileSync(join(paths.root, "a.ts"), "utf8"), "const x = 2\nconst y = 1\n")
        const none = yield* Effect.flip(ws.edit("a.ts", { oldText: "z", newText: "w" }))
        assert.strictEqual(none._tag, "EditMismatch")
        const several = yield* Effect.flip(ws.edit("a.ts", { oldText: "const", newText: "let" }))
        assert.strictEqual(several._tag === "EditMismatch" ? several.occurrences : -1, 2)
      })
    )
  )

  it.effect("refuses writes that would leave the root or touch secrets, and creates nothing outside", () =>
    withScratch((paths) =>
      Effect.gen(function* () {
        symlinkSync(paths.outside, join(paths.root, "escape-dir"))
        symlinkSync(join(paths.outside, "created-by-link.txt"), join(paths.root, "dangling-out"))
        symlinkSync(join(paths.outside, "target.txt"), join(paths.root, "file-link-out"))
        writeFileSync(join(paths.outside, "target.txt"), "untouched\n")
        execFileSync("mkfifo", [join(paths.root, "fifo")])
        const ws = yield* NodeWorkspace.make({ root: paths.root })
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["escape-dir/new.txt", "symlink_escape"],
          ["escape-dir/deep/er/new.txt", "symlink_escape"],
          ["dangling-out", "symlink_escape"],
          ["file-link-out", "symlink_escape"],
          ["new/../../outside/x.txt", "escapes_root"],
          [join(paths.outside, "abs.txt"), "outside_root"],
          [".env", "denied"],
          [".git/hooks/pre-commit", "denied"],
          ["fifo", "special_file"],
          ["", "WrongKind"]
        ]
        for (const [path, reason] of cases) {
          assert.strictEqual(yield* rejection(ws.write(path, "pwned\n")), reason, path)
        }
        assert.isFalse(existsSync(join(paths.outside, "new.txt")))
        assert.isFalse(existsSync(join(paths.outside, "deep")))
        assert.isFalse(existsSync(join(paths.outside, "created-by-link.txt")))
        assert.isFalse(existsSync(join(paths.outside, "x.txt")))
        assert.isFalse(existsSync(join(paths.outside, "abs.txt")))
        assert.strictEqual(readFileSync(join(paths.outside, "target.txt"), "utf8"), "untouched\n")
        assert.isFalse(existsSync(join(paths.root, ".env")))
      })
    )
  )
})

describe("layer", () => {
  it.effect("is rooted at the WorkspaceRoot reference by default, and honours a configured deny list", () =>
    Effect.gen(function* () {
      const ws = yield* Workspace
      assert.strictEqual((yield* ws.read("README.md")).content, "hello workspace\n")
      const custom = yield* NodeWorkspace.make({ root, deny: ["src/"] })
      assert.strictEqual(yield* rejection(custom.read("src/a.ts")), "denied")
      assert.strictEqual((yield* custom.read(".env")).content, "API_KEY=hunter2\n")
    }).pipe(Effect.provide(NodeWorkspace.layer().pipe(Layer.provide(Layer.succeed(WorkspaceRoot, root)))))
  )

  it.effect("fails to build when the root does not exist", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(NodeWorkspace.make({ root: join(base, "missing") }))
      assert.strictEqual(error._tag, "NotFound")
    })
  )
})

describe("path-attack corpus (search, listFiles, readBytes)", () => {
  for (const [label, path, reason] of corpus) {
    it.effect(`${label} → ${reason} for search, listFiles and readBytes`, () =>
      Effect.gen(function* () {
        const ws = yield* workspace
        assert.strictEqual(yield* rejection(ws.search({ query: "x", path })), reason, "search")
        assert.strictEqual(yield* rejection(ws.listFiles(path)), reason, "listFiles")
        assert.strictEqual(yield* rejection(ws.readBytes(path)), reason, "readBytes")
      })
    )
  }

  it.effect("a search of the whole root never reads secrets, .git, symlinked files or the FIFO", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      for (const query of ["hunter", "TOP SECRET", "BEGIN", "[core]", "refs/heads", "root:"]) {
        const result = yield* ws.search({ query, limit: 1000 })
        assert.deepStrictEqual(result.matches, [], query)
      }
      const everything = yield* ws.search({ query: "", regex: false }).pipe(Effect.flip)
      assert.strictEqual(everything._tag, "InvalidArgument")
      const hello = yield* ws.search({ query: "hello" })
      assert.deepStrictEqual(
        hello.matches.map((match) => match.path),
        ["README.md"]
      )
    })
  )

  it.effect("the recursive listing leaves out secrets, .git, symlinks and special files", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const page = yield* ws.listFiles("", { limit: 1000 })
      const paths = page.files.map((file) => file.path)
      assert.includeMembers(paths, ["README.md", "src/a.ts", "src/b.ts", "many/f00.txt", "big.txt"])
      for (const hidden of [
        ".env",
        ".env.local",
        ".git/HEAD",
        "sub/.git/HEAD",
        "id_rsa",
        "key.pem",
        "keys/server.key"
      ]) {
        assert.notInclude(paths, hidden)
      }
      for (const link of ["link-passwd", "readme-link", "src-link/b.ts", "link-outside-dir/secret.txt", "fifo"]) {
        assert.notInclude(paths, link)
      }
      assert.strictEqual(page.files.find((file) => file.path === "README.md")?.size, 16)
    })
  )
})

describe("readBytes", () => {
  it.effect("returns the bytes unchanged, in slices", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "workspace-bytes-"))
      const bytes = Buffer.from([0, 1, 2, 255, 254, 0x80, 10])
      writeFileSync(join(dir, "blob.bin"), bytes)
      const ws = yield* NodeWorkspace.make({ root: dir })
      const whole = yield* ws.readBytes("blob.bin")
      assert.deepStrictEqual([...whole.bytes], [...bytes])
      assert.isFalse(whole.truncated)
      const slice = yield* ws.readBytes("blob.bin", { offset: 3, length: 2 })
      assert.deepStrictEqual([...slice.bytes], [255, 254])
      assert.strictEqual(slice.nextOffset, 5)
      rmSync(dir, { recursive: true, force: true })
    })
  )
})

describe("search", () => {
  const searchRoot = mkdtempSync(join(tmpdir(), "workspace-search-"))
  const put = (relative: string, content: string | Buffer) => {
    mkdirSync(join(searchRoot, relative, ".."), { recursive: true })
    writeFileSync(join(searchRoot, relative), content)
  }
  put("src/app.ts", "import { thing } from './thing'\nexport const handler = () => thing()\n// TODO(ann): rename\n")
  put("src/thing.ts", "export const thing = () => 'Thing'\n")
  put("src/deep/nested.tsx", "export const View = () => <div>thing</div>\n")
  put("docs/guide.md", "# Guide\n\nCall the thing.\r\nTODO(bob): write more\n")
  put("README.md", "A thing-finder.\n")
  put("dist/bundle.js", "const thing = 1\n")
  put("logs/today.log", "thing happened\n")
  put("pkg/.gitignore", "*.gen.ts\n!keep.gen.ts\n")
  put("pkg/out.gen.ts", "export const thing = 'generated'\n")
  put("pkg/keep.gen.ts", "export const thing = 'kept'\n")
  put("image.png", Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), Buffer.from("thing")]))
  put("long.txt", "x".repeat(1000) + "needle" + "y".repeat(1000) + "\n")
  put("very-long.txt", "z".repeat(5000) + "needle\n")
  put("case.txt", "Needle\nNEEDLE\nneedle\n")
  put("many/matches.txt", Array.from({ length: 30 }, (_, i) => `hit ${i}\n`).join(""))
  put("many/more.txt", "hit again\nhit twice\n")
  put(".gitignore", "dist/\n*.log\n")
  put(".env", "thing=secret\n")
  afterAll(() => rmSync(searchRoot, { recursive: true, force: true }))
  const searchWorkspace = NodeWorkspace.make({ root: searchRoot })

  it.effect(
    "finds literal text with path, line, column and text; respects .gitignore, the deny list and binaries",
    () =>
      Effect.gen(function* () {
        const ws = yield* searchWorkspace
        const result = yield* ws.search({ query: "thing" })
        const paths = [...new Set(result.matches.map((match) => match.path))]
        assert.deepStrictEqual(paths, [
          "README.md",
          "docs/guide.md",
          "pkg/keep.gen.ts",
          "src/app.ts",
          "src/deep/nested.tsx",
          "src/thing.ts"
        ])
        assert.deepStrictEqual(result.matches[0], { path: "README.md", line: 1, column: 3, text: "A thing-finder." })
        assert.deepInclude(result.matches, {
          path: "docs/guide.md",
          line: 3,
          column: 10,
          text: "Call the thing."
        })
        assert.isFalse(result.truncated)
        assert.isUndefined(result.nextCursor)
        assert.strictEqual(result.skipped.binary, 1)
      })
  )

  it.effect("includeIgnored searches .gitignored files too (never denied ones)", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const result = yield* ws.search({ query: "thing", includeIgnored: true })
      const paths = new Set(result.matches.map((match) => match.path))
      for (const path of ["dist/bundle.js", "logs/today.log", "pkg/out.gen.ts"]) assert.isTrue(paths.has(path), path)
      assert.isFalse(paths.has(".env"))
    })
  )

  it.effect("case-insensitive search, and regular expressions", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const exact = yield* ws.search({ query: "needle", path: "case.txt" })
      assert.deepStrictEqual(
        exact.matches.map((match) => match.line),
        [3]
      )
      const loose = yield* ws.search({ query: "needle", path: "case.txt", caseSensitive: false })
      assert.deepStrictEqual(
        loose.matches.map((match) => match.line),
        [1, 2, 3]
      )
      const todos = yield* ws.search({ query: "TODO\\((\\w+)\\)", regex: true })
      assert.deepStrictEqual(
        todos.matches.map((match) => `${match.path}:${match.line}:${match.column}`),
        ["docs/guide.md:4:1", "src/app.ts:3:4"]
      )
      const literalParens = yield* ws.search({ query: "TODO(ann)" })
      assert.strictEqual(literalParens.matches.length, 1)
    })
  )

  it.effect("a directory that .gitignore ignores has nothing to walk, even when named as the path (as git says)", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      assert.deepStrictEqual((yield* ws.listFiles("dist")).files, [])
      assert.deepStrictEqual((yield* ws.search({ query: "thing", path: "dist" })).matches, [])
      // includeIgnored walks it.
      assert.deepStrictEqual(
        (yield* ws.search({ query: "thing", path: "dist", includeIgnored: true })).matches.map((m) => m.path),
        ["dist/bundle.js"]
      )
      // A file named directly is still listed (the caller asked for it).
      assert.deepStrictEqual((yield* ws.listFiles("dist/bundle.js")).files.length, 1)
    })
  )

  it.effect("narrows by path (a directory or a file) and by include glob, braces included", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const paths = (result: { readonly matches: ReadonlyArray<{ readonly path: string }> }) => [
        ...new Set(result.matches.map((match) => match.path))
      ]
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", path: "src" })), [
        "src/app.ts",
        "src/deep/nested.tsx",
        "src/thing.ts"
      ])
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", path: "src/thing.ts" })), ["src/thing.ts"])
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", include: "*.md" })), [
        "README.md",
        "docs/guide.md"
      ])
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", include: "**/*.{tsx,md}" })), [
        "README.md",
        "docs/guide.md",
        "src/deep/nested.tsx"
      ])
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", include: "src/**/*.ts" })), [
        "src/app.ts",
        "src/thing.ts"
      ])
      assert.deepStrictEqual(paths(yield* ws.search({ query: "thing", path: "src", include: "deep/*" })), [
        "src/deep/nested.tsx"
      ])
    })
  )

  it.effect("cuts long lines around the match, and only tries the first 4096 characters of a line", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const result = yield* ws.search({ query: "needle", include: "*long.txt" })
      assert.strictEqual(result.matches.length, 1)
      const match = result.matches[0]!
      assert.strictEqual(match.path, "long.txt")
      assert.strictEqual(match.column, 1001)
      assert.include(match.text, "needle")
      assert.isTrue(match.text.startsWith("…") && match.text.endsWith("…"))
      assert.isAtMost(match.text.length, 302)
    })
  )

  it.effect("pages with a cursor: the pages together are exactly the unlimited result", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const all = yield* ws.search({ query: "hit", limit: 1000 })
      assert.strictEqual(all.matches.length, 32)
      const pages: Array<ReadonlyArray<unknown>> = []
      let cursor: string | undefined
      do {
        const page = yield* ws.search({ query: "hit", limit: 10, cursor })
        pages.push(page.matches)
        cursor = page.nextCursor
        if (cursor !== undefined) {
          assert.isTrue(page.truncated)
          assert.strictEqual(page.stoppedBy, "limit")
        }
      } while (cursor !== undefined)
      assert.deepStrictEqual(
        pages.map((page) => page.length),
        [10, 10, 10, 2]
      )
      assert.deepStrictEqual(pages.flat(), [...all.matches])
    })
  )

  it.effect("stops at the scan budget with a cursor that continues where it stopped", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: searchRoot, maxSearchFiles: 3 })
      const full = yield* searchWorkspace.pipe(Effect.flatMap((w) => w.search({ query: "thing" })))
      const seen: Array<unknown> = []
      let cursor: string | undefined
      let calls = 0
      do {
        const page = yield* ws.search({ query: "thing", cursor })
        assert.isAtMost(page.filesScanned, 3)
        if (page.nextCursor !== undefined) assert.strictEqual(page.stoppedBy, "scan_budget")
        seen.push(...page.matches)
        cursor = page.nextCursor
        calls++
      } while (cursor !== undefined && calls < 50)
      assert.isAbove(calls, 2)
      assert.deepStrictEqual(seen, [...full.matches])
    })
  )

  it.effect("skips files over the per-file cap, and counts them", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: searchRoot, maxSearchFileBytes: 1500 })
      const result = yield* ws.search({ query: "needle" })
      assert.deepStrictEqual(
        result.matches.map((match) => match.path),
        ["case.txt"]
      )
      assert.strictEqual(result.skipped.tooLarge, 2)
    })
  )

  it.effect("refuses bad arguments with a suggestion: invalid or catastrophic regex, limits, foreign cursors", () =>
    Effect.gen(function* () {
      const ws = yield* searchWorkspace
      const cases: ReadonlyArray<readonly [string, Effect.Effect<unknown, WorkspaceError>]> = [
        ["unclosed group", ws.search({ query: "(abc", regex: true })],
        ["nested quantifier", ws.search({ query: "(a+)+$", regex: true })],
        ["nested star", ws.search({ query: "(\\w*\\s?)*x", regex: true })],
        ["nested brace", ws.search({ query: "(?:x+y){2,}", regex: true })],
        ["limit 0", ws.search({ query: "a", limit: 0 })],
        ["limit too high", ws.search({ query: "a", limit: 5000 })],
        ["too long a query", ws.search({ query: "q".repeat(2000) })],
        ["forged cursor", ws.search({ query: "hit", cursor: "bm90IGEgY3Vyc29y" })]
      ]
      for (const [label, effect] of cases) {
        const error = yield* Effect.flip(effect)
        assert.strictEqual(error._tag, "InvalidArgument", label)
        assert.isNotEmpty(error.suggestion, label)
      }
      const first = yield* ws.search({ query: "hit", limit: 5 })
      const other = yield* Effect.flip(ws.search({ query: "hat", limit: 5, cursor: first.nextCursor }))
      assert.include(other.message, "different search")
      // Bounded quantifiers and plain alternation are fine.
      assert.isFalse((yield* ws.search({ query: "(ab)+|x{1,3}", regex: true })).truncated)
    })
  )

  it.live("is interruptible between files", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "workspace-interrupt-"))
      for (let i = 0; i < 2000; i++) writeFileSync(join(dir, `f${i}.txt`), "nothing to see\n".repeat(20))
      const ws = yield* NodeWorkspace.make({ root: dir })
      const outcome = yield* Effect.timeoutOption(ws.search({ query: "absent", limit: 10 }), "5 millis")
      assert.isTrue(outcome._tag === "None")
      rmSync(dir, { recursive: true, force: true })
    })
  )
})

describe("listFiles", () => {
  it.effect("pages through every file in walk order with an opaque cursor, and lists a single file", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const all = yield* ws.listFiles("many", { limit: 1000 })
      assert.strictEqual(all.files.length, 25)
      const seen: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* ws.listFiles("", { limit: 4, cursor })
        seen.push(...page.files.map((file) => file.path))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      const once = yield* ws.listFiles("", { limit: 1000 })
      assert.deepStrictEqual(
        seen,
        once.files.map((file) => file.path)
      )
      const single = (yield* ws.listFiles("README.md")).files
      assert.deepStrictEqual(
        single.map(({ path, size }) => ({ path, size })),
        [{ path: "README.md", size: 16 }]
      )
      assert.strictEqual(single[0]!.modifiedMs, (yield* ws.stat("README.md")).modifiedMs)
      assert.strictEqual(yield* rejection(ws.listFiles("", { cursor: "!!" })), "InvalidArgument")
      assert.strictEqual(yield* rejection(ws.listFiles("", { limit: 0 })), "InvalidArgument")
    })
  )

  it.effect("skipDirectories: directories of those names are never entered, at any depth, across pages", () =>
    Effect.gen(function* () {
      const ws = yield* workspace
      const all = (yield* ws.listFiles("", { limit: 1000 })).files.map((file) => file.path)
      assert.isTrue(all.some((path) => path.startsWith("many/")))
      const kept = all.filter((path) => !path.split("/").slice(0, -1).includes("many"))
      const skipped = (yield* ws.listFiles("", { limit: 1000, skipDirectories: ["many"] })).files.map((f) => f.path)
      assert.deepStrictEqual(skipped, kept)
      const paged: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* ws.listFiles("", { limit: 3, cursor, skipDirectories: ["many"] })
        paged.push(...page.files.map((file) => file.path))
        cursor = page.nextCursor
      } while (cursor !== undefined)
      assert.deepStrictEqual(paged, kept)
    })
  )
})
