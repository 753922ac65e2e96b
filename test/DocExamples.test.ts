/**
 * Every ```ts block of README.md and docs/**\/*.md, typechecked against this package: if this file fails, a page
 * shows code that does not compile.
 *
 * How: each block becomes a module of its own in a temporary directory (under the OS temp dir), and one `tsc -p`
 * checks them all in one program (a few seconds). That directory's `node_modules` holds a symlink to each package of
 * this repository's `node_modules`, and `effect-mcp-runtime` as a symlink to this repository: an import of
 * `effect-mcp-runtime/Tool` resolves as it does in a consumer's project, through the package's `exports` (so
 * `effect-mcp-runtime/internal/*` stays unreachable), to the built package's declarations (`dist/lib`, the `types`
 * condition: what a consumer compiles against; `npm test` builds before it runs the tests). The compiler options are this repository's
 * (`strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`, ...) less the unused-name checks, since an
 * example may declare a name only to show it.
 *
 * Each page has a directory of its own. A block whose first line names its file (`// capabilities/notes/read.ts`) is
 * written at that path, so the blocks of a multi-file example import one another as they say (`examplesOf`); a
 * relative import that names no block of the page goes to another page's block, else to this repository's file
 * (`resolveImports`). Errors in files other than the examples (in `src/` while it is being edited) are left to
 * `npm run typecheck`; a syntax error there hides the examples' type errors until it is fixed.
 *
 * Markers, on the last non-blank line before a block's opening fence:
 * - `<!-- doc-example: continues -->` — the block goes on from the previous ```ts block of the same page: the two
 *   are checked as one module (the earlier block first), so a page can introduce a program in steps.
 * - `<!-- doc-example: skip REASON -->` — a fragment on purpose (a signature, a sketch inside a larger program):
 *   not checked. Use it sparingly.
 *
 * `notChecked` below lists the pages not checked yet, with the reason. The blocks marked `skip` today: the method
 * table excerpt in docs/architecture.md, the `Server` shape in docs/adr/0005-core-split.md, and a program for
 * `code_run` in docs/capabilities/code.md (`mcp` is the sandbox's global).
 */
import { execFile } from "node:child_process"
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
import { dirname, join, posix, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const root = fileURLToPath(new URL("..", import.meta.url))

/** Pages whose examples are not checked yet (by path from the repository root), each with the reason. */
const notChecked: ReadonlyMap<string, string> = new Map<string, string>([])

/** One line of a generated module: its text, and where it comes from in a page (1-based line). */
interface SourceLine {
  readonly text: string
  readonly line: number
}

/** A ```ts block of a page: the line of its opening fence, its marker (if any) and its lines. */
interface Block {
  readonly fence: number
  readonly marker: "continues" | "skip" | undefined
  readonly lines: ReadonlyArray<SourceLine>
}

/** A module to check: a file name in the temporary directory, its page and its lines. */
interface Example {
  readonly file: string
  readonly page: string
  readonly fence: number
  readonly lines: ReadonlyArray<SourceLine>
}

const markerPattern = /^<!--\s*doc-example:\s*(continues|skip)\b.*-->$/

/** The ```ts blocks of a page, indented ones (inside a list) included, their indentation removed. */
const blocksOf = (text: string): ReadonlyArray<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  let index = 0
  while (index < lines.length) {
    const open = /^(\s*)```(ts|typescript)(\s.*)?$/.exec(lines[index]!)
    if (open === null) {
      index++
      continue
    }
    const indent = open[1]!.length
    const fence = index + 1
    let previous = index - 1
    while (previous >= 0 && lines[previous]!.trim() === "") previous--
    const marker = previous >= 0 ? markerPattern.exec(lines[previous]!.trim())?.[1] : undefined
    const body: Array<SourceLine> = []
    index++
    while (index < lines.length && !/^\s*```\s*$/.test(lines[index]!)) {
      body.push({ text: lines[index]!.slice(Math.min(indent, lines[index]!.search(/\S|$/))), line: index + 1 })
      index++
    }
    index++
    blocks.push({ fence, marker: marker as Block["marker"], lines: body })
  }
  return blocks
}

/**
 * The modules of a page: a block alone, or after the blocks it continues; skipped blocks left out. A block whose
 * first line names its file (`// capabilities/notes/read.ts`) is written at that path in the page's own directory, so
 * the blocks of a multi-file example import one another as they say; the others get a name from their line.
 */
const examplesOf = (page: string, text: string): ReadonlyArray<Example> => {
  const examples: Array<Example> = []
  const taken = new Set<string>()
  const dir = page.replaceAll("/", "__").replace(/\.md$/, "")
  let chain: Array<SourceLine> = []
  for (const block of blocksOf(text)) {
    if (block.marker === "skip") continue
    chain = block.marker === "continues" ? [...chain, ...block.lines] : [...block.lines]
    const named = /^\/\/ ((?:[\w.-]+\/)*[\w.-]+\.ts)\b/.exec(block.lines[0]?.text ?? "")?.[1]
    const path =
      named === undefined
        ? `L${block.fence}.ts`
        : taken.has(named)
          ? named.replace(/\.ts$/, `.L${block.fence}.ts`)
          : named
    taken.add(path)
    examples.push({ file: `${dir}/${path}`, page, fence: block.fence, lines: chain })
  }
  return examples
}

/** README.md and every page under docs/, by path from the repository root, sorted. */
const pages = (): ReadonlyArray<string> => {
  const found: Array<string> = ["README.md"]
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".md")) found.push(path)
    }
  }
  walk("docs")
  return found.sort()
}

/** A compiler diagnostic, placed in its page. */
interface Problem {
  readonly page: string
  readonly line: number
  readonly message: string
}

const compilerOptions = {
  ...(JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")) as { compilerOptions: Record<string, unknown> })
    .compilerOptions,
  noUnusedLocals: false,
  noUnusedParameters: false,
  noEmit: true,
  rewriteRelativeImportExtensions: false,
  moduleDetection: "force"
}

/**
 * A line of the module at `file` (a path in the examples directory: the page's directory, then the path) with its
 * relative imports that name no example of the page resolved elsewhere: to the same path in another page (the notes
 * example of capabilities.md goes on in resources-and-prompts.md), else to a file of this repository, the page's
 * directory standing for the repository root (the pages for contributors show files of this repository:
 * `./capabilities/code/index.ts` from the root, `../src/Policy.ts` from `test/`).
 */
const resolveImports = (file: string, line: string, files: ReadonlySet<string>, dir: string) =>
  line.replace(/(from |import\()"(\.{1,2}\/[^"]+)"/g, (whole, head: string, specifier: string) => {
    const [page, ...rest] = file.split("/")
    const target = posix.normalize(posix.join(posix.dirname(rest.join("/")), specifier))
    if (files.has(`${page}/${target}`) || target.startsWith("..")) return whole
    const elsewhere = [...files].find((other) => other.slice(other.indexOf("/") + 1) === target)
    if (elsewhere !== undefined) return `${head}"${join(dir, "examples", elsewhere)}"`
    return existsSync(join(root, target)) ? `${head}"${join(root, target)}"` : whole
  })

/** Writes every example into a fresh temporary project, runs `tsc -p` on it once, and places each error in its page. */
const check = (examples: ReadonlyArray<Example>): Promise<ReadonlyArray<Problem>> => {
  const dir = mkdtempSync(join(tmpdir(), "doc-examples-"))
  // The examples compile against the built declarations: without a build, say so rather than report every import.
  if (!existsSync(join(root, "dist", "lib", "src", "index.d.ts"))) {
    throw new Error("The package is not built (dist/lib): run `npm run build` first (npm test does).")
  }
  const modules = join(dir, "node_modules")
  mkdirSync(modules)
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (!entry.startsWith(".")) symlinkSync(join(root, "node_modules", entry), join(modules, entry))
  }
  symlinkSync(root, join(modules, "effect-mcp-runtime"))
  mkdirSync(join(dir, "examples"))
  const byFile = new Map(examples.map((example) => [example.file, example]))
  const files = new Set(byFile.keys())
  for (const example of examples) {
    const text = example.lines.map((line) => resolveImports(example.file, line.text, files, dir)).join("\n")
    mkdirSync(dirname(join(dir, "examples", example.file)), { recursive: true })
    writeFileSync(join(dir, "examples", example.file), text + "\n")
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "doc-examples", type: "module", private: true }))
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["examples"] }, null, 2))
  return new Promise<ReadonlyArray<Problem>>((resolve, reject) => {
    execFile(
      join(root, "node_modules", ".bin", "tsc"),
      ["-p", "tsconfig.json", "--pretty", "false"],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true })
        if (error !== null && stdout.trim() === "") return reject(new Error(`tsc failed: ${error.message}\n${stderr}`))
        const problems: Array<Problem> = []
        for (const line of stdout.split("\n")) {
          const match = /^(.*?)\((\d+),(\d+)\): (error .*)$/.exec(line)
          if (match === null) {
            // A continuation line of the previous diagnostic (an elaboration of a type error).
            const last = problems.at(-1)
            if (last !== undefined && line.trim() !== "")
              problems[problems.length - 1] = { ...last, message: `${last.message}\n  ${line.trim()}` }
            continue
          }
          const example = byFile.get(relative(join(dir, "examples"), join(dir, match[1]!)))
          if (example === undefined) {
            // An error outside the examples (in src/ while someone edits it): not this test's business.
            problems.push({ page: relative(dir, match[1]!), line: Number(match[2]), message: `(outside) ${match[4]}` })
            continue
          }
          const source = example.lines[Number(match[2]) - 1]
          problems.push({ page: example.page, line: source?.line ?? example.fence, message: match[4]! })
        }
        resolve(problems)
      }
    )
  })
}

const all = pages()
  .filter((page) => !notChecked.has(page))
  .map((page) => ({ page, examples: examplesOf(page, readFileSync(join(root, page), "utf8")) }))

let compiled: Promise<ReadonlyArray<Problem>> | undefined
const problems = () => Effect.promise(() => (compiled ??= check(all.flatMap((entry) => entry.examples))))

describe("doc examples", () => {
  it("finds the examples, the marked ones aside", () => {
    const count = all.reduce((sum, entry) => sum + entry.examples.length, 0)
    assert.isAbove(count, 50, `only ${count} examples found: is the block pattern right?`)
    for (const page of notChecked.keys()) assert.include(pages(), page, `notChecked names a missing page: ${page}`)
  })

  for (const { page, examples } of all.filter((entry) => entry.examples.length > 0)) {
    it.effect(
      `${page}: its ${examples.length} examples compile`,
      () =>
        Effect.gen(function* () {
          const found = (yield* problems()).filter((problem) => problem.page === page)
          assert.deepStrictEqual(
            found.map((problem) => `${problem.page}:${problem.line}: ${problem.message}`),
            []
          )
        }),
      120_000
    )
  }
})
