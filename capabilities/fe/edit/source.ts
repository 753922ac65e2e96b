/**
 * The pieces the edit operations share: a parsed source (syntax tree,
 * comments, scope analysis), text edits applied to a string, the refusal an
 * operation throws, and the file's own conventions (quote style,
 * semicolons, line breaks) read from its syntax tree.
 *
 * @since 0.4.0
 */
import type { Lang, Parse } from "../skeleton/extract.ts"
import { type Analysis, analyse } from "./scope.ts"

/**
 * A syntax tree node as oxc gives it (ESTree with TypeScript's nodes; offsets in UTF-16 code units).
 *
 * **Example**
 *
 * ```ts
 * import type { Node } from "./capabilities/fe/edit/source.ts"
 *
 * declare const node: Node
 * node.type // e.g. "Identifier"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }

/**
 * Why an operation cannot be done: thrown by the operations, turned into a
 * `Tool.ToolError` (naming the operation) by `plan`.
 *
 * **Example**
 *
 * ```ts
 * import { Refusal } from "./capabilities/fe/edit/source.ts"
 *
 * new Refusal("name_conflict", "total is already declared in src/a.ts:3.", "Pick another name.")
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class Refusal extends Error {
  readonly code: string
  readonly suggestion: string
  constructor(code: string, message: string, suggestion: string) {
    super(message)
    this.code = code
    this.suggestion = suggestion
  }
}

/**
 * A replacement of the characters `[start, end)` (UTF-16 offsets) by `text`.
 *
 * **Example**
 *
 * ```ts
 * import type { Edit } from "./capabilities/fe/edit/source.ts"
 *
 * const edit: Edit = { start: 6, end: 11, text: "total" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Edit {
  readonly start: number
  readonly end: number
  readonly text: string
}

/**
 * Applies edits to a text: duplicates (same range and text) are applied
 * once; overlapping ones are refused.
 *
 * **Example**
 *
 * ```ts
 * import { applyEdits } from "./capabilities/fe/edit/source.ts"
 *
 * applyEdits("const a = a0", [{ start: 6, end: 7, text: "b" }]) // => "const b = a0"
 * ```
 *
 * @category edits
 * @since 0.4.0
 */
export const applyEdits = (text: string, edits: ReadonlyArray<Edit>): string => {
  const unique = [...new Map(edits.map((e) => [`${e.start}:${e.end}:${e.text}`, e])).values()].sort(
    (a, b) => a.start - b.start || a.end - b.end
  )
  let out = ""
  let at = 0
  for (const edit of unique) {
    if (edit.start < at) {
      throw new Refusal(
        "overlapping_edits",
        `Two edits of one operation overlap at offset ${edit.start}.`,
        "Split the operation into smaller ones."
      )
    }
    out += text.slice(at, edit.start) + edit.text
    at = edit.end
  }
  return out + text.slice(at)
}

/**
 * A parsed source: its text, syntax tree, comments and scope analysis
 * (computed on first use).
 *
 * **Example**
 *
 * ```ts
 * import type { Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * source.program.body.length
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Source {
  readonly path: string
  readonly text: string
  readonly program: Node
  readonly comments: ReadonlyArray<{ readonly start: number; readonly end: number; readonly type?: string }>
  readonly analysis: Analysis
  /** 1-based line of an offset. */
  readonly lineOf: (offset: number) => number
  /** The offset of the start of a 1-based line. */
  readonly lineStart: (line: number) => number
}

/** The extensions the parser reads as scripts (others: Vue, Svelte, Astro… are refused). */
const langOf = (path: string): Lang | undefined => {
  if (/\.(?:ts|mts|cts)$/.test(path)) return "ts"
  if (path.endsWith(".tsx")) return "tsx"
  if (/\.(?:js|mjs|cjs)$/.test(path)) return "jsx"
  if (path.endsWith(".jsx")) return "jsx"
  return undefined
}

/**
 * Parses a file's text; refuses a file the parser does not read (not a
 * script) or one with syntax errors (an edit computed from a broken tree
 * would be wrong).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { parseSource } from "./capabilities/fe/edit/source.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const lines = Effect.map(loadParser, (parse) => parseSource(parse, "a.ts", "const a = 1\n").lineOf(6)) // 1
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const parseSource = (parse: Parse, path: string, text: string): Source => {
  const lang = langOf(path)
  if (lang === undefined) {
    throw new Refusal(
      "unsupported_file",
      `${path} is not a TypeScript or JavaScript file; fe_surgeon edits .ts, .tsx, .js, .jsx, .mts, .cts, .mjs and .cjs files.`,
      "Edit it with replace_text (a plain text edit) or workspace_edit."
    )
  }
  const result = parse(path, text, lang)
  if (result.errors.length > 0) {
    const first = result.errors[0]
    const message = typeof first?.message === "string" ? first.message : String(first)
    throw new Refusal(
      "syntax_error",
      `${path} does not parse (${message}), so its syntax tree cannot be edited safely.`,
      `Fix the syntax first (fe_verify shows it), or edit ${path} with replace_text.`
    )
  }
  const starts = [0]
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1)
  let analysis: Analysis | undefined
  return {
    path,
    text,
    program: result.program as unknown as Node,
    comments: result.comments,
    get analysis() {
      analysis ??= analyse(result.program as unknown as Node)
      return analysis
    },
    lineOf: (offset) => {
      let low = 0
      let high = starts.length - 1
      while (low < high) {
        const mid = (low + high + 1) >> 1
        if (starts[mid]! <= offset) low = mid
        else high = mid - 1
      }
      return low + 1
    },
    lineStart: (line) => starts[Math.max(0, Math.min(starts.length - 1, line - 1))]!
  }
}

/**
 * Whether a string is a valid JavaScript identifier that is not a reserved word.
 *
 * **Example**
 *
 * ```ts
 * import { isIdentifier } from "./capabilities/fe/edit/source.ts"
 *
 * isIdentifier("formatPrice") // => true
 * isIdentifier("class") // => false
 * isIdentifier("2x") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isIdentifier = (name: string): boolean =>
  /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(name) && !reserved.has(name)

const reserved = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "yield let static implements interface package private protected public await arguments eval undefined"
  ).split(" ")
)

/**
 * The top-level import declarations of a parsed source.
 *
 * **Example**
 *
 * ```ts
 * import { importsOf, type Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * importsOf(source).map((d) => d.source.value) // e.g. ["react", "./lib"]
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const importsOf = (source: Source): ReadonlyArray<Node> =>
  source.program.body.filter((statement: Node) => statement.type === "ImportDeclaration")

/**
 * The quote a file writes module specifiers with: its first import's, else a double quote.
 *
 * **Example**
 *
 * ```ts
 * import { quoteOf, type Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * quoteOf(source) // "'" for a file importing with single quotes
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const quoteOf = (source: Source): string => {
  const first = importsOf(source)[0]
  const raw: string | undefined = first?.source?.raw
  if (raw !== undefined) return raw.charAt(0)
  return '"'
}

/**
 * Whether a file ends its statements with semicolons (the majority of its top-level statements that can).
 *
 * **Example**
 *
 * ```ts
 * import { usesSemicolons, type Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * usesSemicolons(source) // false for a file written without
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const usesSemicolons = (source: Source): boolean => {
  let withSemi = 0
  let without = 0
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    const declaration = statement.declaration
    const counts =
      statement.type === "ImportDeclaration" ||
      statement.type === "ExpressionStatement" ||
      statement.type === "VariableDeclaration" ||
      statement.type === "TSTypeAliasDeclaration" ||
      statement.type === "ExportAllDeclaration" ||
      (statement.type === "ExportNamedDeclaration" &&
        (declaration == null ||
          declaration.type === "VariableDeclaration" ||
          declaration.type === "TSTypeAliasDeclaration")) ||
      (statement.type === "ExportDefaultDeclaration" && !String(declaration?.type).endsWith("Declaration"))
    if (!counts) continue
    if (source.text.charAt(statement.end - 1) === ";") withSemi++
    else without++
  }
  return withSemi > without
}

/**
 * The line break a text uses: CRLF when it has one, else LF.
 *
 * **Example**
 *
 * ```ts
 * import { eolOf } from "./capabilities/fe/edit/source.ts"
 *
 * eolOf("a\r\nb") // => "\r\n"
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const eolOf = (text: string): string => (text.includes("\r\n") ? "\r\n" : "\n")

/**
 * The offset just past the line break after `offset` (spaces and a `;` skipped), for removing whole lines; `offset` itself when something else follows.
 *
 * **Example**
 *
 * ```ts
 * import { endOfLine } from "./capabilities/fe/edit/source.ts"
 *
 * endOfLine("a;\nb", 1) // => 3
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const endOfLine = (text: string, offset: number): number => {
  let at = offset
  while (at < text.length && (text[at] === " " || text[at] === "\t" || text[at] === ";")) at++
  if (text[at] === "\r" && text[at + 1] === "\n") return at + 2
  if (text[at] === "\n") return at + 1
  return offset
}

/**
 * The offset of the start of the line holding `offset` when only spaces precede it there, else `offset`.
 *
 * **Example**
 *
 * ```ts
 * import { startOfLine } from "./capabilities/fe/edit/source.ts"
 *
 * startOfLine("a\n  b", 4) // => 2
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const startOfLine = (text: string, offset: number): number => {
  let at = offset
  while (at > 0 && (text[at - 1] === " " || text[at - 1] === "\t")) at--
  return at === 0 || text[at - 1] === "\n" ? at : offset
}

/**
 * The names a top-level binding is exported under by its own file (`export const x`, `export { x as y }`, `default`).
 *
 * **Example**
 *
 * ```ts
 * import { exportNamesOf, type Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * exportNamesOf(source, "formatPrice") // e.g. ["formatPrice"]
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const exportNamesOf = (source: Source, local: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    if (statement.type === "ExportNamedDeclaration") {
      if (statement.source) continue
      if (statement.declaration) {
        if (declaredNames(statement.declaration).includes(local)) names.push(local)
        continue
      }
      for (const specifier of statement.specifiers ?? []) {
        if (specifier.local?.name === local) names.push(specifier.exported.name ?? specifier.exported.value)
      }
    } else if (statement.type === "ExportDefaultDeclaration") {
      const declaration = statement.declaration
      if (declaration?.id?.name === local || (declaration?.type === "Identifier" && declaration.name === local)) {
        names.push("default")
      }
    }
  }
  return names
}

/**
 * The names a declaration statement declares (every name of a destructuring).
 *
 * **Example**
 *
 * ```ts
 * import { declaredNames, type Node } from "./capabilities/fe/edit/source.ts"
 *
 * declare const statement: Node
 * declaredNames(statement) // e.g. ["a", "b"] for const { a, b } = o
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const declaredNames = (declaration: Node): ReadonlyArray<string> => {
  if (declaration.type === "VariableDeclaration") {
    const names: Array<string> = []
    const collect = (node: Node | null | undefined): void => {
      if (node == null) return
      if (node.type === "Identifier") names.push(node.name)
      else if (node.type === "ObjectPattern")
        for (const p of node.properties) collect(p.type === "RestElement" ? p.argument : p.value)
      else if (node.type === "ArrayPattern") for (const e of node.elements) collect(e)
      else if (node.type === "AssignmentPattern") collect(node.left)
      else if (node.type === "RestElement") collect(node.argument)
    }
    for (const declarator of declaration.declarations) collect(declarator.id)
    return names
  }
  return declaration.id?.type === "Identifier" ? [declaration.id.name] : []
}

/**
 * Every name a file exports itself (not those of its `export *`).
 *
 * **Example**
 *
 * ```ts
 * import { allExportNames, type Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * allExportNames(source).has("default")
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const allExportNames = (source: Source): ReadonlySet<string> => {
  const names = new Set<string>()
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    if (statement.type === "ExportNamedDeclaration") {
      if (statement.declaration) for (const name of declaredNames(statement.declaration)) names.add(name)
      for (const specifier of statement.specifiers ?? []) names.add(specifier.exported.name ?? specifier.exported.value)
    } else if (statement.type === "ExportDefaultDeclaration") names.add("default")
    else if (statement.type === "ExportAllDeclaration" && statement.exported) {
      names.add(statement.exported.name ?? statement.exported.value)
    }
  }
  return names
}

/**
 * The `count` names nearest to `wanted` (edit distance, ignoring case).
 *
 * **Example**
 *
 * ```ts
 * import { nearestNames } from "./capabilities/fe/edit/source.ts"
 *
 * nearestNames("Prise", ["Price", "registry"], 1) // => ["Price"]
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const nearestNames = (wanted: string, names: Iterable<string>, count = 5): ReadonlyArray<string> => {
  const distance = (a: string, b: string): number => {
    let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
    for (let i = 1; i <= a.length; i++) {
      const current = [i]
      for (let j = 1; j <= b.length; j++) {
        current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[b.length]!
  }
  return [...new Set(names)]
    .slice(0, 5000)
    .map((name) => ({ name, score: distance(wanted.toLowerCase(), name.toLowerCase()) }))
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1))
    .slice(0, count)
    .map((entry) => entry.name)
}
