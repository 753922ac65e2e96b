/**
 * `fe_budget`'s ranking: the terms of a task (paths, identifiers, words),
 * matched against the import graph's files and exported names, then spread
 * over the graph — a named file's importers and dependencies by distance,
 * with decay, and the tests that cover it. Pure: the graph in, scores out.
 *
 * @since 0.4.0
 */
import { type ImportGraph, parsedExtensions } from "../graph/graph.ts"
import { isTestFile } from "../impact.ts"

/**
 * The terms read from a task: path-like tokens, identifiers, and the
 * lower-case words of both (camelCase, snake_case and kebab-case split).
 *
 * @category models
 * @since 0.4.0
 */
export interface TaskTerms {
  readonly paths: ReadonlyArray<string>
  readonly identifiers: ReadonlyArray<string>
  readonly words: ReadonlyArray<string>
  /** Two or three plain words in a row, in lower case ("the Site Header" → `site header`): a name in prose. */
  readonly phrases: ReadonlyArray<string>
}

/**
 * The scores a match or a graph relation gives a file. A file's score is
 * its best contribution plus `others` times the sum of the rest.
 *
 * @category constants
 * @since 0.4.0
 */
export const weights = {
  /** A path named in the task (exactly, by its end, or without its extension). */
  path: 100,
  /** A file under a directory named in the task. */
  directory: 50,
  /** A file declaring an exported symbol named exactly. */
  symbol: 100,
  /** A file re-exporting a symbol named exactly (a barrel). */
  reexport: 40,
  /** A file whose base name (without extension) is a named code-like identifier. */
  stem: 90,
  /** A case-insensitive match of a symbol or base name, for a code-like term (camelCase, digits, _). */
  caseInsensitive: 70,
  /**
   * An exact match of a symbol or base name by a plain word (`header` → `header.ts`): less than a code-like
   * term, as prose uses the word for other things. A framework's conventional file names (`conventionalStems`)
   * and their default exports are matched by no plain word, only by a path (`app/layout.tsx`) or a code-like name.
   */
  plainExact: 55,
  /** A case-insensitive match of a symbol or base name for a plain word. */
  plainWord: 45,
  /** Two or three plain words in a row matching a name (`site header` → `SiteHeader`, `site-header.tsx`). */
  phrase: 80,
  /** Each task word found among a file's path or export-name words, at most `wordCap`. */
  word: 12,
  wordCap: 36,
  /** Seeds from this score on spread over the graph. */
  spreadFrom: 40,
  /** At most this many seeds (the best) spread. */
  maxSpreading: 25,
  /** A direct importer gets the seed's score times this; each further level halves it. */
  importer: 0.6,
  importerDepth: 4,
  /** A direct importer of a symbol's file that imports other names from it gets this share of `importer`. */
  otherNames: 0.5,
  /** A direct dependency gets the seed's score times this; each further level halves it. */
  dependency: 0.5,
  dependencyDepth: 3,
  /**
   * A test file importing the seed directly gets the seed's score times this; one importing it through other
   * files, this times `decay` for each file between (a test of everything is not a test of each file).
   */
  test: 0.55,
  /** Each level further away multiplies by this. */
  decay: 0.5,
  /** The share of a file's other contributions added to its best one. */
  others: 0.1,
  /** When nothing matches, at most this many entry points and most-imported files. */
  fallbackFiles: 30
} as const

/**
 * The file names frameworks give by convention (Next's `page`, `layout`,
 * `route`…, SvelteKit's `+page`, Remix's `root`, entry files): a plain word
 * of a task ("the layout", "every page") does not name them; a path or a
 * code-like name does.
 *
 * **Example**
 *
 * ```ts
 * import { conventionalStems } from "./capabilities/fe/budget/rank.ts"
 *
 * conventionalStems.has("layout") // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const conventionalStems: ReadonlySet<string> = new Set([
  "page",
  "layout",
  "route",
  "loading",
  "error",
  "global-error",
  "template",
  "default",
  "not-found",
  "middleware",
  "instrumentation",
  "head",
  "index",
  "main",
  "app",
  "_app",
  "_document",
  "_error",
  "root",
  "entry.client",
  "entry.server",
  "+page",
  "+layout",
  "+error",
  "+server",
  "+page.server",
  "+layout.server",
  "+page.svelte",
  "hooks.server",
  "hooks.client"
])

/** Words of a task that name no code: English function words and the verbs of coding tasks. */
const stopWords = new Set(
  (
    "a an the and or but not no nor so to of in on at by for with from into onto as is are was were be been being it " +
    "its this that these those there their them they we our you your i me my he she his her which who whom what when " +
    "where why how all any each every some such than then too very can could should would will shall may might must do " +
    "does did done has have had having if else also just only both either via per new old instead using use uses used " +
    "rename renamed add adds added remove removes removed delete deleted fix fixes fixed update updates updated change " +
    "changes changed make makes made show shows move moves moved create creates created refactor implement implements " +
    "replace replaces replaced support supports handle handles let lets get gets set sets keep need needs want wants " +
    "file files code function functions component components call calls called everywhere across whole project app " +
    "please now same other one two first last out up down over under about like " +
    // Structural path words: in nearly every path, they tell nothing.
    "src index packages package tsx jsx mts cts mjs cjs"
  ).split(" ")
)

// What a task may name as a file: the sources the graph parses, and the files they import (stylesheets, JSON).
const extensions = [...parsedExtensions, ".css", ".scss", ".json"]

const isIdentifierStart = (c: string): boolean =>
  (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c === "$"
const isDigit = (c: string): boolean => c >= "0" && c <= "9"
const isIdentifierPart = (c: string): boolean => isIdentifierStart(c) || isDigit(c)
const isIdentifier = (s: string): boolean =>
  s.length > 0 && isIdentifierStart(s[0]!) && [...s].every((c) => isIdentifierPart(c))
const isUpper = (c: string): boolean => c >= "A" && c <= "Z"

/**
 * Whether an identifier looks like code rather than an English word: an
 * upper-case letter after the first, a digit, `_` or `$`.
 *
 * **Example**
 *
 * ```ts
 * import { isCodeLike } from "./capabilities/fe/budget/rank.ts"
 *
 * isCodeLike("formatPrice") // => true
 * isCodeLike("price") // => false
 * ```
 *
 * @category terms
 * @since 0.4.0
 */
export const isCodeLike = (term: string): boolean =>
  [...term.slice(1)].some(isUpper) || [...term].some((c) => isDigit(c) || c === "_" || c === "$")

/**
 * The lower-case words of a name: split at case changes, digits, `_`, `-`,
 * `.` and `/`; words shorter than 3 letters, numbers and stop words left
 * out; a plural's final `s` dropped.
 *
 * **Example**
 *
 * ```ts
 * import { wordsOf } from "./capabilities/fe/budget/rank.ts"
 *
 * wordsOf("CartSummary") // => ["cart", "summary"]
 * wordsOf("src/lib/format-prices.ts") // => ["lib", "format", "price"]
 * ```
 *
 * @category terms
 * @since 0.4.0
 */
export const wordsOf = (name: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let current = ""
  const flush = () => {
    const word = normalWord(current)
    if (word !== undefined && !out.includes(word)) out.push(word)
    current = ""
  }
  const chars = [...name]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!
    if (!(isIdentifierStart(c) && c !== "_" && c !== "$")) {
      flush()
      continue
    }
    // A boundary before an upper-case letter that follows a lower-case one, or that starts a word after capitals
    // (`HTMLParser` → html, parser).
    const previous = chars[i - 1]
    const following = chars[i + 1]
    if (
      isUpper(c) &&
      current !== "" &&
      (!isUpper(previous ?? "") || (following !== undefined && following >= "a" && following <= "z"))
    ) {
      flush()
    }
    current += c
  }
  flush()
  return out
}

const extensionOf = (path: string): string => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? "" : name.slice(dot)
}

/** A file's base name without its extension(s) that name the language (`a.test.ts` → `a.test`). */
const stemOf = (path: string): string => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  const ext = extensionOf(name)
  return ext === "" ? name : name.slice(0, -ext.length)
}

const normalWord = (raw: string): string | undefined => {
  const word = raw.toLowerCase()
  if (word.length < 3 || stopWords.has(word)) return undefined
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word
}

/** Characters that end a token of the task (besides white space). */
const separators = new Set([..."\"'`,;:()[]{}<>!?|=+*&^%~"])

/**
 * The terms of a task description: tokens with a `/` or a known file
 * extension are paths (`file#Symbol` gives both), identifiers that are not
 * stop words (or that look like code) are identifiers, and the words of
 * both are the words.
 *
 * **Example**
 *
 * ```ts
 * import { termsOf } from "./capabilities/fe/budget/rank.ts"
 *
 * termsOf("rename formatPrice in src/lib/format.ts")
 * // => { paths: ["src/lib/format.ts"], identifiers: ["formatPrice"], words: ["format", "price"], phrases: [] }
 * termsOf("show the site header").phrases // => ["site header"]
 * ```
 *
 * @category terms
 * @since 0.4.0
 */
export const termsOf = (task: string): TaskTerms => {
  const paths: Array<string> = []
  const identifiers: Array<string> = []
  const words: Array<string> = []
  const phrases: Array<string> = []
  /** The plain words read in a row so far (a path, a code-like or a stop word ends the run). */
  let run: Array<string> = []
  const endRun = () => {
    for (let length = 2; length <= 3; length++) {
      for (let i = 0; i + length <= run.length; i++) {
        const phrase = run.slice(i, i + length).join(" ")
        if (!phrases.includes(phrase)) phrases.push(phrase)
      }
    }
    run = []
  }
  const addWords = (name: string) => {
    for (const word of wordsOf(name)) if (!words.includes(word)) words.push(word)
  }
  const addIdentifier = (name: string) => {
    if (!isIdentifier(name)) return
    if (!isCodeLike(name) && (name.length < 3 || stopWords.has(name.toLowerCase()))) return
    if (!identifiers.includes(name)) identifiers.push(name)
    addWords(name)
  }
  let token = ""
  const tokens: Array<string> = []
  for (const c of task) {
    if (c.trim() === "" || separators.has(c)) {
      if (token !== "") tokens.push(token)
      token = ""
    } else token += c
  }
  if (token !== "") tokens.push(token)
  for (const raw of tokens) {
    // Sentence punctuation and a leading ./ or / off.
    let text = raw
    while (text.endsWith(".") || text.endsWith("/")) text = text.slice(0, -1)
    while (text.startsWith("./")) text = text.slice(2)
    while (text.startsWith("/") || text.startsWith(".")) text = text.slice(1)
    if (text === "") continue
    if (isIdentifier(text) && !isCodeLike(text) && !stopWords.has(text.toLowerCase())) {
      run.push(text.toLowerCase())
      // A sentence ends the run.
      if (raw.endsWith(".")) endRun()
    } else endRun()
    const hash = text.indexOf("#")
    const symbol = hash === -1 ? undefined : text.slice(hash + 1)
    const base = hash === -1 ? text : text.slice(0, hash)
    if (base.includes("/") || extensions.includes(extensionOf(base))) {
      if (!paths.includes(base)) paths.push(base)
      // The base name's words only: the directories' (src, components…) would match half the project.
      addWords(stemOf(base))
    } else {
      // `cart-summary`, `utils.format` and the like: each part an identifier of its own.
      for (const part of base.split(/[-.@]/)) addIdentifier(part)
    }
    if (symbol !== undefined) addIdentifier(symbol)
  }
  endRun()
  return { paths, identifiers, words, phrases }
}

/**
 * One reason a file scored, and what it gave.
 *
 * @category models
 * @since 0.4.0
 */
export interface Contribution {
  readonly score: number
  readonly why: string
}

/**
 * A ranked file: its score, and why (its best contributions first).
 *
 * @category models
 * @since 0.4.0
 */
export interface Ranked {
  readonly path: string
  readonly score: number
  readonly why: ReadonlyArray<string>
}

/**
 * What the task's terms matched.
 *
 * @category models
 * @since 0.4.0
 */
export interface Ranking {
  readonly ranked: ReadonlyArray<Ranked>
  readonly matched: {
    readonly files: ReadonlyArray<string>
    readonly symbols: ReadonlyArray<{ readonly name: string; readonly file: string }>
  }
  readonly unmatched: ReadonlyArray<string>
  /** Nothing matched: the ranking is the project's entry points and most-imported files. */
  readonly fallback: boolean
}

const round = (n: number): number => Math.round(n * 10) / 10

/** The score of a file from its contributions: the best, plus a share of the others. */
const combine = (contributions: ReadonlyArray<Contribution>): number => {
  const sorted = [...contributions].sort((a, b) => b.score - a.score)
  const rest = sorted.slice(1).reduce((sum, c) => sum + c.score, 0)
  return round(sorted[0]!.score + weights.others * rest)
}

/** Whether `file` re-exports `name` (a barrel) rather than declaring it. */
const reexports = (graph: ImportGraph, file: string, name: string): boolean =>
  (graph.file(file)?.imports ?? []).some((edge) => edge.kind === "reexport" && edge.names.includes(name))

/**
 * Whether `importer` takes one of `symbols` from `target`: by name, the
 * default export under its declaration's name, or the whole module
 * (namespace, `export *`, dynamic import).
 */
const usesAny = (graph: ImportGraph, importer: string, target: string, symbols: ReadonlySet<string>): boolean => {
  const takesDefault = (graph.exportsOf(target) ?? []).some((e) => e.isDefault && symbols.has(e.name))
  return (graph.file(importer)?.imports ?? []).some(
    (edge) =>
      edge.resolution._tag === "File" &&
      edge.resolution.path === target &&
      (edge.kind === "dynamic" ||
        edge.names.some((name) => name === "*" || symbols.has(name) || (takesDefault && name === "default")))
  )
}

const entryStems = new Set(["main", "index", "App", "app", "server", "entry", "client"])

/**
 * Ranks the graph's files for a task: the files and symbols it names
 * (paths, exported names exactly, then case-insensitively, then words of
 * paths and export names), then spread over the import graph (importers,
 * dependencies, covering tests) with decay. When nothing matches, the
 * project's entry points and most-imported files, with `fallback` set.
 *
 * **Example**
 *
 * ```ts
 * import { rank, termsOf } from "./capabilities/fe/budget/rank.ts"
 * import type { ImportGraph } from "./capabilities/fe/graph/graph.ts"
 *
 * declare const graph: ImportGraph
 * rank(graph, termsOf("rename formatPrice")).ranked[0] // the file declaring formatPrice
 * ```
 *
 * @category ranking
 * @since 0.4.0
 */
export const rank = (graph: ImportGraph, terms: TaskTerms): Ranking => {
  const files = graph.files()
  const contributions = new Map<string, Array<Contribution>>()
  const add = (path: string, score: number, why: string) => {
    const list = contributions.get(path)
    if (list === undefined) contributions.set(path, [{ score, why }])
    else list.push({ score, why })
  }
  const matchedFiles = new Set<string>()
  const matchedSymbols = new Map<string, { name: string; file: string }>()
  const unmatched: Array<string> = []
  const matchedTerms = new Set<string>()
  /** The symbols named exactly that each file declares. */
  const symbolsOf = new Map<string, Set<string>>()
  /** The files named by path or base name (and directories' files). */
  const namedFiles = new Set<string>()

  // Paths: exactly, by their end, without the extension, or a directory.
  for (const term of terms.paths) {
    const noExt = extensionOf(term) === "" ? term : term.slice(0, -extensionOf(term).length)
    let found = false
    for (const file of files) {
      const fileNoExt = file.slice(0, file.length - extensionOf(file).length)
      if (
        file === term ||
        file.endsWith(`/${term}`) ||
        (noExt === term && (fileNoExt === term || fileNoExt.endsWith(`/${term}`)))
      ) {
        add(file, weights.path, "named in the task")
        namedFiles.add(file)
        matchedFiles.add(file)
        found = true
      } else if (file.startsWith(`${term}/`) || file.includes(`/${term}/`)) {
        add(file, weights.directory, `under ${term} (named)`)
        namedFiles.add(file)
        found = true
      }
    }
    // A file the graph does not parse (a stylesheet, JSON) that sources import: its importers.
    if (!found && graph.importersOf(term).length > 0) {
      for (const importer of graph.importersOf(term)) {
        add(importer, weights.path * weights.importer, `imports ${term} (named)`)
      }
      matchedFiles.add(term)
      found = true
    }
    if (!found) unmatched.push(term)
  }

  // Identifiers: exported names and base names, exactly, then case-insensitively.
  const exportsByFile = files.map(
    (file) => [file, [...new Set((graph.exportsOf(file) ?? []).map((e) => e.name).filter((n) => n !== "*"))]] as const
  )
  // Every export name and base name by its lower case: a term is looked up, not compared with every file.
  const byLower = new Map<string, Array<{ readonly file: string; readonly name: string; readonly stem: boolean }>>()
  const index = (key: string, entry: { readonly file: string; readonly name: string; readonly stem: boolean }) => {
    const list = byLower.get(key)
    if (list === undefined) byLower.set(key, [entry])
    else list.push(entry)
  }
  for (const [file, names] of exportsByFile) {
    for (const name of names) index(name.toLowerCase(), { file, name, stem: false })
    const stem = stemOf(file)
    if (stem !== "index") index(stem.toLowerCase(), { file, name: stem, stem: true })
  }
  /** What a plain word does not name: a framework's conventional file by its name, or by its default export. */
  const conventional = (c: { readonly file: string; readonly name: string; readonly stem: boolean }): boolean =>
    conventionalStems.has(stemOf(c.file)) &&
    (c.stem || (graph.exportsOf(c.file) ?? []).some((e) => e.isDefault && e.name === c.name))
  for (const term of terms.identifiers) {
    const codeLike = isCodeLike(term)
    const all = byLower.get(term.toLowerCase()) ?? []
    const candidates = all.filter((c) => codeLike || !conventional(c))
    // A word naming only conventional files (the layout, every page) is not reported as unmatched.
    if (all.length > candidates.length) matchedTerms.add(term)
    const score = codeLike ? weights.caseInsensitive : weights.plainWord
    // The files matching exactly; the others may match case-insensitively.
    const exactFiles = new Set(candidates.filter((c) => c.name === term).map((c) => c.file))
    const looseDone = new Set<string>()
    for (const { file, name, stem } of candidates) {
      if (name === term && stem) {
        if (codeLike) {
          add(file, weights.stem, "named in the task")
          namedFiles.add(file)
          matchedFiles.add(file)
        } else add(file, weights.plainExact, `file name is ${term}`)
      } else if (name === term) {
        if (reexports(graph, file, term)) add(file, weights.reexport, `re-exports ${term} (named)`)
        else {
          add(file, codeLike ? weights.symbol : weights.plainExact, `exports ${term} (named)`)
          matchedSymbols.set(`${file}#${term}`, { name: term, file })
          const set = symbolsOf.get(file) ?? new Set<string>()
          set.add(term)
          symbolsOf.set(file, set)
        }
      } else if (!exactFiles.has(file) && !looseDone.has(file)) {
        looseDone.add(file)
        if (stem) add(file, score, `file name matches ${term}`)
        else if (!reexports(graph, file, name)) add(file, score, `exports ${name} (matches ${term})`)
      }
    }
    if (candidates.length > 0) matchedTerms.add(term)
    else if (codeLike) unmatched.push(term)
  }

  // Plain words in a row naming one name: "site header" → SiteHeader, site-header.tsx.
  if (terms.phrases.length > 0) {
    const joined = (name: string) => name.toLowerCase().replace(/[-_.]/g, "")
    const byJoined = new Map<string, Array<{ readonly file: string; readonly name: string; readonly stem: boolean }>>()
    for (const list of byLower.values()) {
      for (const entry of list) {
        const key = joined(entry.name)
        const known = byJoined.get(key)
        if (known === undefined) byJoined.set(key, [entry])
        else known.push(entry)
      }
    }
    for (const phrase of terms.phrases) {
      const done = new Set<string>()
      for (const entry of byJoined.get(phrase.replace(/ /g, "")) ?? []) {
        const { file, name, stem } = entry
        if (done.has(file) || conventional(entry) || (!stem && reexports(graph, file, name))) continue
        done.add(file)
        add(file, weights.phrase, stem ? `file name matches "${phrase}"` : `exports ${name} (matches "${phrase}")`)
      }
    }
  }

  // Words of paths and export names.
  const taskWords = new Set(terms.words)
  const wordHits = new Set<string>()
  if (taskWords.size > 0) {
    for (const [file, names] of exportsByFile) {
      const fileWords = new Set([
        ...wordsOf(file.slice(0, file.length - extensionOf(file).length)),
        ...names.flatMap(wordsOf)
      ])
      // A conventional file's own name (page, layout…) is no word of it: every route has one.
      if (conventionalStems.has(stemOf(file))) for (const word of wordsOf(stemOf(file))) fileWords.delete(word)
      const hits = [...taskWords].filter((word) => fileWords.has(word))
      if (hits.length === 0) continue
      for (const hit of hits) wordHits.add(hit)
      add(file, Math.min(weights.wordCap, weights.word * hits.length), `words match: ${hits.join(", ")}`)
    }
  }
  for (const term of terms.identifiers) {
    if (isCodeLike(term) || matchedTerms.has(term)) continue
    if (!wordsOf(term).some((word) => wordHits.has(word))) unmatched.push(term)
  }

  // Seeds spread: importers and dependencies by distance, the tests that cover them.
  const seeds = [...contributions]
    .map(([path, list]) => ({ path, score: Math.max(...list.map((c) => c.score)) }))
    .filter((seed) => seed.score >= weights.spreadFrom)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
    .slice(0, weights.maxSpreading)
  for (const seed of seeds) {
    const all = graph.transitiveImporters(seed.path, Number.POSITIVE_INFINITY)
    // A file matched by the symbols it declares (not by its path): its importers that take none of them rank lower.
    const symbols = namedFiles.has(seed.path) ? undefined : symbolsOf.get(seed.path)
    for (const { depth, path } of all) {
      if (path === seed.path) continue
      if (depth <= weights.importerDepth) {
        const other = depth === 1 && symbols !== undefined && !usesAny(graph, path, seed.path, symbols)
        add(
          path,
          seed.score * weights.importer * weights.decay ** (depth - 1) * (other ? weights.otherNames : 1),
          depth === 1
            ? `imports ${seed.path}${other ? ` (not ${[...symbols!].join(", ")})` : ""}`
            : `imports ${seed.path} through ${depth - 1} file${depth === 2 ? "" : "s"}`
        )
      }
      if (isTestFile(path)) {
        add(
          path,
          seed.score * weights.test * weights.decay ** (depth - 1),
          depth === 1
            ? `test of ${seed.path}`
            : `test of ${seed.path} through ${depth - 1} file${depth === 2 ? "" : "s"}`
        )
      }
    }
    const seen = new Set([seed.path])
    let frontier = [seed.path]
    for (let depth = 1; depth <= weights.dependencyDepth && frontier.length > 0; depth++) {
      const next: Array<string> = []
      for (const current of frontier) {
        for (const dependency of graph.dependenciesOf(current)) {
          if (seen.has(dependency)) continue
          seen.add(dependency)
          next.push(dependency)
          if (graph.file(dependency) === undefined) continue
          add(
            dependency,
            seed.score * weights.dependency * weights.decay ** (depth - 1),
            depth === 1
              ? `imported by ${seed.path}`
              : `imported by ${seed.path} through ${depth - 1} file${depth === 2 ? "" : "s"}`
          )
        }
      }
      frontier = next
    }
  }

  const fallback = contributions.size === 0
  if (fallback) {
    for (const file of files) {
      if (isTestFile(file) || file.endsWith(".d.ts")) continue
      const importers = graph.importersOf(file).length
      const stem = stemOf(file)
      if (importers === 0 && entryStems.has(stem)) {
        add(file, 30, "entry point (nothing imports it)")
      } else if (importers === 0 && graph.dependenciesOf(file).length > 0) {
        const dependencies = graph.dependenciesOf(file).length
        add(
          file,
          5 + Math.min(9, dependencies),
          `nothing imports it; imports ${dependencies} project file${dependencies === 1 ? "" : "s"}`
        )
      } else if (importers > 0) {
        add(file, Math.min(29, 10 + importers), `imported by ${importers} file${importers === 1 ? "" : "s"}`)
      }
    }
  }

  // The fallback keeps the best few: the entry points and the most-imported files, not the whole project.
  if (fallback) {
    const kept = new Set(
      [...contributions]
        .map(([path, list]) => ({ path, score: list[0]!.score }))
        .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
        .slice(0, weights.fallbackFiles)
        .map((entry) => entry.path)
    )
    for (const path of [...contributions.keys()]) if (!kept.has(path)) contributions.delete(path)
  }

  const ranked = [...contributions]
    .filter(([path]) => graph.file(path) !== undefined)
    .map(([path, list]) => ({
      path,
      score: combine(list),
      why: [...list]
        .sort((a, b) => b.score - a.score)
        .map((c) => c.why)
        .filter((why, index, all) => all.indexOf(why) === index)
    }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1))
  return {
    ranked,
    matched: { files: [...matchedFiles].sort(), symbols: [...matchedSymbols.values()] },
    unmatched,
    fallback
  }
}
