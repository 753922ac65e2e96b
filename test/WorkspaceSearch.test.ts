/**
 * `search` on the local disk (the search workers) against ripgrep: a
 * generated tree of a few thousand files — nested `.gitignore` files with
 * negations, ignored directories, secrets on the deny list, binary files,
 * files over the per-file cap, CRLF lines, non-ASCII text, long lines,
 * symlinks — searched for literal text and regular expressions, with and
 * without case, with include globs; every page followed through its cursor.
 * The (path, line) pairs must equal what `rg` reports with the flags that
 * give it our file set. Skipped, saying so, when `rg` is not installed.
 *
 * Also: a tree larger than the old 20,000-file budget is searched in one
 * call; the byte budget truncates with a cursor, and the pages together
 * hold every match exactly once; the 2 GiB file, the symlink loop and files
 * that vanish during a search.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFileSync, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import { requiredLiteral } from "../src/internal/fileWorkspace.ts"
import * as SearchPool from "../src/internal/searchPool.ts"
import { defaultDeny, type SearchMatch, type SearchOptions, type Workspace } from "../src/Workspace.ts"

const hasRg = spawnSync("rg", ["--version"]).status === 0

const base = mkdtempSync(join(tmpdir(), "workspace-search-rg-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

// A small deterministic generator (mulberry32), so every run builds the same tree.
const random = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const words = ["alpha", "needle", "Needle", "NEEDLE", "beta", "été", "ÉTÉ", "gamma", "délta", "x_1", "needle_42"]
const lineOf = (next: () => number, index: number): string => {
  const kind = Math.floor(next() * 10)
  const pick = () => words[Math.floor(next() * words.length)]!
  switch (kind) {
    case 0:
      return `export const v${index} = "${pick()}"`
    case 1:
      return `export function f${index}() { return ${pick()} }`
    case 2:
      return `  abc ${pick()} xyz`
    case 3:
      return `${pick()}${pick()} ${pick()}`
    default:
      return `// ${pick()} ${index}`
  }
}

const tree = join(base, "tree")
const write = (relative: string, content: string | Buffer) => {
  mkdirSync(join(tree, relative, ".."), { recursive: true })
  writeFileSync(join(tree, relative), content)
}
{
  const next = random(42)
  const extensions = ["ts", "md", "txt", "log", "js"]
  for (let i = 0; i < 3000; i++) {
    const dir = ["src", "pkg", "pkg/generated", "docs", "build", "src/deep/er", "notes", ".hidden"][i % 8]!
    const extension = extensions[Math.floor(next() * extensions.length)]!
    const crlf = next() < 0.2
    const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, k) => lineOf(next, k))
    if (next() < 0.05) lines.push("y".repeat(3000) + " needle " + "z".repeat(500))
    if (crlf) lines.push("abc needle xyz")
    write(`${dir}/f${i}.${extension}`, lines.join(crlf ? "\r\n" : "\n") + (next() < 0.8 ? (crlf ? "\r\n" : "\n") : ""))
  }
  write(".gitignore", "*.log\n!keep.log\nbuild/\n")
  write("keep.log", "needle in a kept log\n")
  write("pkg/.gitignore", "generated/\n/local.txt\n")
  write("pkg/local.txt", "needle local\n")
  write("src/local.txt", "needle local but not ignored here\n")
  write(".env", "needle=secret\n")
  write("config/.env.production", "needle=secret\n")
  write("keys/server.key", "needle key\n")
  write("cert.pem", "needle cert\n")
  write("bin/blob.bin", Buffer.concat([Buffer.from([0]), Buffer.from("needle binary\n")]))
  write("big/large.txt", "needle\n" + "q".repeat(1024 * 1024 + 100))
  write("src/unicode.md", "Ünïcödé ÉTÉ needle\nété\n")
  symlinkSync(join(tree, "src"), join(tree, "src-link"))
  symlinkSync("f0.ts", join(tree, "src/file-link.ts"))
}

// ripgrep with our file set: .gitignore files only (no global, .ignore, .rgignore, exclude or parent files), no git
// repository needed, hidden files searched, no symlinks followed, the deny list as negated globs, files over 1 MiB
// skipped (binary files: a NUL in the first bytes, where rg stops too). --crlf: `$` before \r\n, as we drop the \r.
const rgFlags = [
  "--json",
  "--no-config",
  "--no-require-git",
  "--hidden",
  "--no-ignore-global",
  "--no-ignore-parent",
  "--no-ignore-exclude",
  "--no-ignore-dot",
  "--crlf",
  "--max-filesize",
  "1M",
  ...defaultDeny.flatMap((pattern) => ["--glob", `!${pattern.replace(/\/$/, "")}`])
]

const rgPairs = (query: SearchOptions): Array<string> => {
  const args = [...rgFlags]
  if (query.regex !== true) args.push("--fixed-strings")
  if (query.caseSensitive === false) args.push("--ignore-case")
  else args.push("--case-sensitive")
  if (query.include !== undefined) args.push("--glob", query.include)
  args.push("--regexp", query.query, ".")
  const output = execFileSync("rg", args, { cwd: tree, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  const pairs: Array<string> = []
  for (const line of output.split("\n")) {
    if (line === "") continue
    const event = JSON.parse(line)
    if (event.type !== "match") continue
    pairs.push(`${String(event.data.path.text).replace(/^\.\//, "")}:${event.data.line_number}`)
  }
  return pairs.sort()
}

// Every page, through the cursors.
const allMatches = (ws: Workspace["Service"], query: SearchOptions) =>
  Effect.gen(function* () {
    const matches: Array<SearchMatch> = []
    let cursor: string | undefined
    do {
      const page = yield* ws.search({ ...query, limit: 1000, ...(cursor === undefined ? {} : { cursor }) })
      matches.push(...page.matches)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return matches
  })

const queries: ReadonlyArray<SearchOptions> = [
  { query: "needle" },
  { query: "Needle", caseSensitive: false },
  { query: "été", caseSensitive: false },
  { query: "ÉTÉ" },
  { query: "needle_[0-9]+", regex: true },
  { query: "f[0-9]+\\(\\) \\{ return", regex: true },
  { query: 'v[0-9]+ = "needle"', regex: true },
  { query: "^export (const|function) ", regex: true },
  { query: "xyz$", regex: true },
  { query: "a[bc]+ [NE]", regex: true, caseSensitive: false },
  { query: "needle", include: "*.ts" },
  { query: "needle", include: "src/**/*.md" },
  { query: "return", include: "*.{js,md}" }
]

describe("search against ripgrep", () => {
  it.effect.skipIf(!hasRg)("reports the same (path, line) pairs as rg for literal and regex queries", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: tree })
      for (const query of queries) {
        const ours = (yield* allMatches(ws, query)).map((match) => `${match.path}:${match.line}`)
        const expected = rgPairs(query)
        assert.isAbove(expected.length, 0, `rg finds ${JSON.stringify(query)}`)
        assert.strictEqual(new Set(ours).size, ours.length, `each line once for ${JSON.stringify(query)}`)
        assert.deepStrictEqual([...ours].sort(), expected, JSON.stringify(query))
      }
    })
  )

  it.effect.skipIf(hasRg)("(rg is not installed: the comparison with ripgrep is skipped)", () =>
    Effect.sync(() => assert.isFalse(hasRg, "install ripgrep (apt-get install ripgrep) to compare with it"))
  )

  it.effect("skips what rg skips: ignored, denied, binary, too large, symlinked; and counts the skipped", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: tree })
      const matches = yield* allMatches(ws, { query: "needle" })
      const paths = new Set(matches.map((match) => match.path))
      for (const skipped of [
        ".env",
        "config/.env.production",
        "keys/server.key",
        "cert.pem",
        "pkg/local.txt",
        "bin/blob.bin",
        "big/large.txt"
      ]) {
        assert.isFalse(paths.has(skipped), skipped)
      }
      assert.isTrue(paths.has("keep.log"))
      assert.isTrue(paths.has("src/local.txt"))
      assert.isFalse([...paths].some((path) => path.startsWith("build/") || path.startsWith("pkg/generated/")))
      assert.isFalse([...paths].some((path) => path.startsWith("src-link/") || path === "src/file-link.ts"))
      assert.isTrue([...paths].some((path) => path.startsWith(".hidden/")))
      const first = yield* ws.search({ query: "needle", limit: 1000 })
      assert.isAtLeast(first.skipped.binary, 1)
      assert.isAtLeast(first.skipped.tooLarge, 1)
    })
  )
})

describe("the literal a regular expression requires (files without it are not decoded)", () => {
  it("takes the longest literal run at the top level, none after an alternation", () => {
    const cases: Array<[string, string | undefined]> = [
      ["needle_[a-z]+_marker = \\d", "_marker = "],
      ["needle_[0-9]+", "needle_"],
      ["^export (const|function) ", "export "],
      ["abc|xyz", undefined],
      ["a[bc]+ [NE]", undefined],
      ["xyz$", "xyz"],
      ["colou?r", "colo"],
      ["\\u0041BC", undefined],
      ["\\u0041BCD", "BCD"],
      ["foo\\.bar", "foo.bar"],
      ["foo\\.?bar", "foo"],
      ["(ab)?cde", "cde"],
      ["\\x41\\x42abcd", "abcd"],
      ["\\p{L}+hello", "hello"],
      ["(?<name>x)\\k<name>abcd", "abcd"],
      ["ab{2}cd", undefined],
      ["abc{2,}def", "def"],
      ["\\bword\\b", "word"],
      ["a.b.c", undefined],
      ["été+s", undefined],
      ["éééé+s", "ééé"],
      ["a{b}cde", "cde"]
    ]
    for (const [source, expected] of cases) assert.strictEqual(requiredLiteral(source), expected, source)
  })
})

describe("search budgets", () => {
  const wide = join(base, "wide")
  const files = 25_000
  {
    for (let d = 0; d < files / 250; d++) {
      const dir = join(wide, `d${String(d).padStart(3, "0")}`)
      mkdirSync(dir, { recursive: true })
      for (let f = 0; f < 250; f++) {
        const n = d * 250 + f
        writeFileSync(join(dir, `f${String(f).padStart(3, "0")}.txt`), `file ${n}\n${n % 500 === 0 ? "marker\n" : ""}`)
      }
    }
    writeFileSync(join(wide, "d099", "last.txt"), "only in the last file\n")
  }

  it.effect("searches more than 20,000 files in one call, to the last file", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: wide })
      const result = yield* ws.search({ query: "only in the last file" })
      assert.strictEqual(result.truncated, false)
      assert.strictEqual(result.filesScanned, files + 1)
      assert.deepStrictEqual(
        result.matches.map((match) => match.path),
        ["d099/last.txt"]
      )
    })
  )

  it.effect("the byte budget truncates with a cursor, lastPath and bytesScanned; the pages hold every match once", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: wide, maxSearchBytes: 40_000 })
      const seen: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* ws.search({ query: "marker", ...(cursor === undefined ? {} : { cursor }) })
        pages++
        if (page.nextCursor !== undefined) {
          assert.strictEqual(page.stoppedBy, "scan_budget")
          assert.isDefined(page.lastPath)
          assert.isAtLeast(page.bytesScanned ?? 0, 40_000)
        }
        seen.push(...page.matches.map((match) => `${match.path}:${match.line}`))
        cursor = page.nextCursor
      } while (cursor !== undefined && pages < 100)
      assert.isAbove(pages, 5)
      assert.strictEqual(seen.length, files / 500)
      assert.strictEqual(new Set(seen).size, seen.length)
      assert.deepStrictEqual(
        seen,
        Array.from({ length: files / 500 }, (_, i) => {
          const n = i * 500
          return `d${String(Math.floor(n / 250)).padStart(3, "0")}/f${String(n % 250).padStart(3, "0")}.txt:2`
        })
      )
    })
  )
})

describe("search on hostile trees", () => {
  const hostile = join(base, "hostile")
  mkdirSync(join(hostile, "a"), { recursive: true })
  writeFileSync(join(hostile, "a", "text.txt"), "needle in a\n")
  symlinkSync("..", join(hostile, "a", "loop"))
  symlinkSync("/", join(hostile, "a", "to-root"))
  // A sparse 2 GiB file: skipped by its size, never read.
  writeFileSync(join(hostile, "huge.txt"), "needle\n")
  truncateSync(join(hostile, "huge.txt"), 2 * 1024 * 1024 * 1024)
  writeFileSync(join(hostile, "z.txt"), "needle in z\n")
  // What a directory swapped for a symlink after the walk listed it looks like to a worker.
  const outside = join(base, "outside")
  mkdirSync(outside, { recursive: true })
  writeFileSync(join(outside, "secret.txt"), "needle outside\n")
  symlinkSync(outside, join(hostile, "swapped"))

  it.effect("skips a 2 GiB file unread and never follows a symlink loop", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: hostile })
      const result = yield* ws.search({ query: "needle" })
      assert.deepStrictEqual(
        result.matches.map((match) => match.path),
        ["a/text.txt", "z.txt"]
      )
      assert.strictEqual(result.skipped.tooLarge, 1)
      assert.strictEqual(result.filesScanned, 2)
      assert.strictEqual(result.truncated, false)
      // Only what was read counts: two small files, not 2 GiB.
      assert.isBelow(result.bytesScanned ?? Infinity, 100)
    })
  )

  it.effect(
    "a worker passes over a vanished file, a directory, a symlink, and a path through a symlinked directory",
    () =>
      Effect.gen(function* () {
        const outcomes = yield* Effect.callback<ReadonlyArray<unknown>>((resume) => {
          SearchPool.run(
            {
              root: hostile,
              maxFileBytes: 1024 * 1024,
              query: {
                source: "needle",
                flags: "",
                literal: "needle",
                cap: 10,
                limits: { maxLineChars: 4096, maxTextChars: 300, binaryProbeBytes: 8000 }
              },
              files: [
                [join(hostile, "gone.txt"), 0],
                [join(hostile, "z.txt"), 0],
                [join(hostile, "a"), 0],
                [join(hostile, "a", "loop"), 0],
                [join(hostile, "swapped", "secret.txt"), 0],
                [join(hostile, "a", "loop", "z.txt"), 0]
              ]
            },
            (results) => resume(Effect.succeed(results)),
            (error) => resume(Effect.die(error))
          )
        })
        // gone, matched, a directory (passed over), a symlink (not opened: O_NOFOLLOW), a file through a directory
        // that is a symlink leading outside, and through a symlink loop: never opened.
        assert.deepStrictEqual(outcomes, [[0], [3, 12, [1, 1, "needle in z"]], [0], [0], [0], [0]])
      })
  )

  it.effect("files deleted while a search runs are passed over; the search answers", () =>
    Effect.gen(function* () {
      const churn = join(base, "churn")
      const names = Array.from({ length: 3000 }, (_, i) => join(churn, `d${i % 30}`, `f${i}.txt`))
      for (const name of names) {
        mkdirSync(join(name, ".."), { recursive: true })
        writeFileSync(name, "needle\n")
      }
      const ws = yield* NodeWorkspace.make({ root: churn })
      const deleting = yield* Effect.forkChild(
        Effect.forEach(
          names.filter((_, i) => i % 2 === 1),
          (name) => Effect.sync(() => unlinkSync(name)),
          {
            concurrency: 1
          }
        ).pipe(Effect.andThen(Effect.yieldNow))
      )
      const result = yield* ws.search({ query: "needle", limit: 1000 })
      yield* Fiber.join(deleting)
      const next = yield* allMatches(ws, { query: "needle" })
      // Every reported match is a real line of a file that existed; the even files were never deleted.
      assert.isAtLeast(result.matches.length, 1)
      assert.strictEqual(next.length, 1500)
      for (const match of result.matches) assert.strictEqual(match.text, "needle")
    })
  )
})
