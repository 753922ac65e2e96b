/**
 * `.gitignore` matching, checked against git itself: each scenario is a real
 * repository in a temporary directory (`git init`, `.gitignore` files at
 * several depths, files with awkward names), and the set of ignored files
 * the matcher computes must equal what `git ls-files --others --ignored
 * --exclude-standard` reports; the Workspace's recursive listing must equal
 * `git ls-files --others --exclude-standard`. Then a few `wildmatch` cases
 * from git's own test suite (t3070), and `git check-ignore` on directories.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import * as Effect from "effect/Effect"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import { decide, parse, type Pattern, wildmatch } from "../src/internal/gitignore.ts"

const base = mkdtempSync(join(tmpdir(), "gitignore-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: base,
  XDG_CONFIG_HOME: join(base, "xdg")
}
const git = (cwd: string, args: ReadonlyArray<string>) =>
  execFileSync("git", ["-c", "core.quotePath=false", ...args], { cwd, env: gitEnv, encoding: "utf8" })

interface Scenario {
  readonly name: string
  /** `.gitignore` files by path (any depth). */
  readonly ignores: Readonly<Record<string, string>>
  /** Plain files to create (directories are implied). */
  readonly files: ReadonlyArray<string>
}

const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "basename patterns, extensions, directories only, anchoring",
    ignores: { ".gitignore": "*.log\nbuild/\n/root-only.txt\n# a comment\n\nnode_modules\n" },
    files: [
      "a.log",
      "src/b.log",
      "src/deep/c.log",
      "log.txt",
      "build/out.js",
      "src/build/x.js",
      "build.txt",
      "root-only.txt",
      "src/root-only.txt",
      "node_modules/pkg/index.js",
      "src/node_modules/dep.js",
      "# a comment",
      "keep.ts"
    ]
  },
  {
    name: "a directory-only pattern does not match a file of that name",
    ignores: { ".gitignore": "out/\ncache/\n" },
    files: ["out", "src/out", "cache/data.bin", "src/cache/x", "other/cache.txt"]
  },
  {
    name: "patterns with a slash in the middle are anchored to their .gitignore",
    ignores: { ".gitignore": "doc/*.txt\nsrc/gen\na/*/c\n", "sub/.gitignore": "x/y\n/z\n" },
    files: [
      "doc/a.txt",
      "doc/sub/b.txt",
      "other/doc/c.txt",
      "src/gen/file.ts",
      "lib/src/gen/file.ts",
      "a/b/c",
      "a/b/d/c",
      "a/c",
      "sub/x/y",
      "sub/q/x/y",
      "x/y",
      "sub/z",
      "sub/deeper/z",
      "z"
    ]
  },
  {
    name: "double stars: leading, trailing, inner, and plain",
    ignores: { ".gitignore": "**/foo\nabc/**\na/**/b\nx**y\nlib/**/*.tmp\n***/triple\n" },
    files: [
      "foo",
      "deep/er/foo",
      "foo.txt",
      "abc/one",
      "abc/two/three",
      "abc.d",
      "zabc/one",
      "a/b",
      "a/x/b",
      "a/x/y/b",
      "ab",
      "xzzy",
      "x/y",
      "xq/qy",
      "lib/a.tmp",
      "lib/p/q/b.tmp",
      "lib.tmp",
      "triple",
      "p/triple"
    ]
  },
  {
    name: "negation, last match wins, no re-inclusion under an ignored directory",
    ignores: { ".gitignore": "*.log\n!important.log\nlogs/\n!logs/keep.log\ncache/*\n!cache/keep.txt\n" },
    files: [
      "a.log",
      "important.log",
      "src/important.log",
      "logs/keep.log",
      "logs/other.log",
      "cache/keep.txt",
      "cache/drop.txt",
      "cache/sub/keep.txt"
    ]
  },
  {
    name: "nested .gitignore files override their parents",
    ignores: {
      ".gitignore": "*.tmp\n!keep.tmp\n*.gen\n",
      "pkg/.gitignore": "!*.tmp\nlocal/\n",
      "pkg/inner/.gitignore": "*.tmp\n!*.gen\n",
      "other/.gitignore": "*\n!.gitignore\n!*/\n!*.md\n"
    },
    files: [
      "a.tmp",
      "keep.tmp",
      "a.gen",
      "pkg/b.tmp",
      "pkg/b.gen",
      "pkg/local/x.txt",
      "pkg/inner/c.tmp",
      "pkg/inner/c.gen",
      "other/readme.md",
      "other/data.json",
      "other/sub/notes.md",
      "other/sub/x.bin",
      "local/y.txt"
    ]
  },
  {
    name: "character classes, ranges, negated sets and single-character wildcards",
    ignores: {
      ".gitignore": "[abc].txt\n*.[oa]\n[!x]y.z\n[^q]r.s\n[a-c]-range\n[[:digit:]]*.num\n?.q\n[[:upper:]][[:lower:]]\n"
    },
    files: [
      "a.txt",
      "d.txt",
      "main.o",
      "lib.a",
      "main.c",
      "ay.z",
      "xy.z",
      "ar.s",
      "qr.s",
      "b-range",
      "d-range",
      "1abc.num",
      "abc.num",
      "x.q",
      "xx.q",
      "Ab",
      "ab",
      "AB"
    ]
  },
  {
    name: "escapes, trailing spaces, comments and hashes",
    ignores: { ".gitignore": "\\#hash\n\\!bang\ntrailing   \nescaped\\ \n  leading\n*.\\*\nq\\?\n" },
    files: [
      "#hash",
      "!bang",
      "trailing",
      "trailing   ",
      "escaped ",
      "escaped",
      "  leading",
      "leading",
      "x.*",
      "x.y",
      "q?",
      "qa"
    ]
  },
  {
    name: "CRLF line endings and a byte order mark",
    ignores: { ".gitignore": "\uFEFFfirst.txt\r\n*.bak\r\n!keep.bak\r\n" },
    files: ["first.txt", "a.bak", "keep.bak", "b.txt"]
  },
  {
    name: "a nested .gitignore in an ignored directory is never read",
    ignores: { ".gitignore": "vendor/\n", "vendor/.gitignore": "!*\n", "src/.gitignore": "/*.js\n!/keep.js\n" },
    files: ["vendor/lib.js", "vendor/sub/x.js", "src/a.js", "src/keep.js", "src/sub/b.js", "a.js"]
  },
  {
    name: "non-ASCII names and wildcards over multi-byte characters",
    ignores: { ".gitignore": "résumé.*\nnaïve?.txt\n日本/\n*é\n" },
    files: ["résumé.pdf", "resume.pdf", "naïve1.txt", "naïve.txt", "日本/語.txt", "café", "cafe"]
  },
  {
    name: "a star matches nothing across slashes; a single star pattern ignores everything",
    ignores: { "only/.gitignore": "*\n", ".gitignore": "dir*/file\n" },
    files: ["only/a", "only/b/c", "dirx/file", "dir/file", "dirx/y/file", "file"]
  },
  {
    name: "literal prefix before a double star (git's prefix quirk)",
    ignores: { ".gitignore": "foo**/bar\nbaz/**qux\n" },
    files: ["foo/bar", "foox/bar", "foo/a/bar", "foox/a/bar", "baz/qux", "baz/aqux", "baz/a/qux"]
  },
  {
    name: "unclosed brackets, trailing backslashes, unknown classes",
    ignores: { ".gitignore": "a[\nb\\\nc[x\n[[:nope:]]z\nd[[:alpha:]\nsure.txt\n" },
    files: ["sure.txt", "a[", "b\\", "b", "c[x", "cx", "nz", "[[:nope:]]z", "dq", "d[[:alpha:]"]
  },
  {
    name: "patterns ending in a slash after a star, and an empty negation",
    ignores: { ".gitignore": "*/\n!\n!/top/\n" },
    files: ["top/a", "mid/b", "plain"]
  }
]

const writeTree = (root: string, scenario: Scenario) => {
  for (const file of scenario.files) {
    mkdirSync(dirname(join(root, file)), { recursive: true })
    writeFileSync(join(root, file), `${file}\n`)
  }
  for (const [path, text] of Object.entries(scenario.ignores)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

const gitLines = (root: string, args: ReadonlyArray<string>) =>
  git(root, [...args, "-z"])
    .split("\0")
    .filter((line) => line !== "")
    .sort()

// The matcher's walk: a directory's patterns are its parent's plus its own .gitignore's; ignored directories are not entered.
const matcherIgnored = (root: string): Array<string> => {
  const ignored: Array<string> = []
  const allFiles = (relative: string): Array<string> =>
    readdirSync(join(root, relative), { withFileTypes: true }).flatMap((entry) => {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`
      return entry.isDirectory() ? allFiles(path) : [path]
    })
  const walk = (relative: string, inherited: ReadonlyArray<Pattern>) => {
    const dir = join(root, relative)
    let patterns = inherited
    try {
      patterns = [...inherited, ...parse(readFileSync(join(dir, ".gitignore"), "utf8"), relative)]
    } catch {
      // no .gitignore here
    }
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git") continue
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`
      const isDirectory = entry.isDirectory()
      if (decide(patterns, path, isDirectory)) ignored.push(...(isDirectory ? allFiles(path) : [path]))
      else if (isDirectory) walk(path, patterns)
    }
  }
  walk("", [])
  return ignored.sort()
}

describe("gitignore against git", () => {
  scenarios.forEach((scenario, index) => {
    it.effect(`${scenario.name}`, () =>
      Effect.gen(function* () {
        const root = join(base, `s${index}`)
        mkdirSync(root)
        git(root, ["init", "-q"])
        writeTree(root, scenario)
        const ignoredByGit = gitLines(root, ["ls-files", "--others", "--ignored", "--exclude-standard"])
        const keptByGit = gitLines(root, ["ls-files", "--others", "--exclude-standard"])
        assert.isNotEmpty(ignoredByGit)
        assert.isNotEmpty(keptByGit)
        assert.deepStrictEqual(matcherIgnored(root), ignoredByGit, "ignored files")

        // The Workspace's recursive listing (empty deny list; .git/ is always skipped) lists what git keeps.
        const workspace = yield* NodeWorkspace.make({ root, deny: [] })
        const listed: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* workspace.listFiles("", { cursor, limit: 7 })
          listed.push(...page.files.map((file) => file.path))
          cursor = page.nextCursor
        } while (cursor !== undefined)
        assert.deepStrictEqual([...listed].sort(), keptByGit, "listed files")
      })
    )
  })

  it("git check-ignore agrees on directories and on paths under ignored directories", () => {
    const root = join(base, "check-ignore")
    mkdirSync(root)
    git(root, ["init", "-q"])
    const ignores = "build/\n/dist\n*.cache/\n!keep.cache/\n"
    writeFileSync(join(root, ".gitignore"), ignores)
    const patterns = parse(ignores, "")
    const cases: ReadonlyArray<readonly [string, boolean]> = [
      ["build", true],
      ["src/build", true],
      ["dist", true],
      ["src/dist", true],
      ["x.cache", true],
      ["keep.cache", true],
      ["plain", true]
    ]
    for (const [path, isDirectory] of cases) {
      mkdirSync(join(root, path), { recursive: true })
      let byGit: boolean
      try {
        git(root, ["check-ignore", "-q", path])
        byGit = true
      } catch {
        byGit = false
      }
      assert.strictEqual(decide(patterns, path, isDirectory), byGit, path)
      assert.isTrue(statSync(join(root, path)).isDirectory())
    }
  })
})

describe("wildmatch (cases from git's t3070)", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean]> = [
    ["foo", "foo", true],
    ["bar", "foo", false],
    ["???", "foo", true],
    ["??", "foo", false],
    ["*", "foo", true],
    ["f*", "foo", true],
    ["*f", "foo", false],
    ["*foo*", "foo", true],
    ["*ob*a*r*", "foobar", true],
    ["*ab", "aaaaaaabababab", true],
    ["foo\\*", "foo*", true],
    ["foo\\*bar", "foobar", false],
    ["f\\\\oo", "f\\oo", true],
    ["*[al]?", "ball", true],
    ["[ten]", "ten", false],
    ["**[!te]", "ten", true],
    ["**[!ten]", "ten", false],
    ["t[a-g]n", "ten", true],
    ["t[!a-g]n", "ten", false],
    ["t[!a-g]n", "ton", true],
    ["t[^a-g]n", "ton", true],
    ["a[]]b", "a]b", true],
    ["a[]-]b", "a-b", true],
    ["a[]-]b", "a]b", true],
    ["a[]-]b", "aab", false],
    ["a[]a-]b", "aab", true],
    ["]", "]", true],
    ["foo*bar", "foo/baz/bar", false],
    ["foo**bar", "foo/baz/bar", false],
    ["foo/**/bar", "foo/baz/bar", true],
    ["foo/**/**/bar", "foo/baz/bar", true],
    ["foo/**/bar", "foo/b/a/z/bar", true],
    ["foo/**/bar", "foo/bar", true],
    ["foo?bar", "foo/bar", false],
    ["foo[/]bar", "foo/bar", false],
    ["f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", false],
    ["**/foo", "foo", true],
    ["**/foo", "XXX/foo", true],
    ["**/foo", "bar/baz/foo", true],
    ["*/foo", "bar/baz/foo", false],
    ["**/bar*", "foo/bar/baz", false],
    ["**/bar/*", "deep/foo/bar/baz", true],
    ["**/bar/*", "deep/foo/bar/baz/", false],
    ["**/bar/**", "deep/foo/bar/baz/", true],
    ["**/bar/*", "deep/foo/bar", false],
    ["**/bar/**", "deep/foo/bar/", true],
    ["*/bar/**", "foo/bar/baz/x", true],
    ["**/bar/**/*", "deep/foo/bar/baz/x", true],
    ["[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true],
    ["[[:digit:][:upper:][:space:]]", "a", false],
    ["[[:digit:][:upper:][:space:]]", "A", true],
    ["[[:digit:][:upper:][:space:]]", "1", true],
    ["[[:digit:][:upper:][:spaci:]]", "1", false],
    ["[[:xdigit:]]", "f", true],
    ["[a-c[:digit:]x-z]", "5", true],
    ["[a-c[:digit:]x-z]", "q", false],
    ["-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true],
    ["-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false],
    ["XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true],
    ["**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true],
    ["**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false]
  ]
  for (const [pattern, text, expected] of cases) {
    it(`${JSON.stringify(pattern)} ~ ${JSON.stringify(text)} → ${expected}`, () => {
      assert.strictEqual(wildmatch(pattern, text, true), expected)
    })
  }

  it("parses lines like git: comments, negation, trailing slash, escaped spaces", () => {
    const patterns = parse("# comment\n!keep/\nsp\\ \\ \nplain  \n\n\\#x\n", "sub")
    assert.deepStrictEqual(
      patterns.map((p) => [p.source, p.negative, p.mustBeDirectory, p.noDirectory, p.base]),
      [
        ["!keep/", true, true, true, "sub"],
        ["sp\\ \\ ", false, false, true, "sub"],
        ["plain", false, false, true, "sub"],
        ["\\#x", false, false, true, "sub"]
      ]
    )
  })
})
