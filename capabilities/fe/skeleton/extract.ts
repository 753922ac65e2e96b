/**
 * What `fe_skeleton` knows of one file: its exports (name, kind, signature)
 * and imports, read from the syntax tree of a real parser (oxc, loaded on
 * first use so the server's start does not pay for it). Signatures are
 * printed from the syntax tree: the source text of the nodes that make them
 * (type parameters, parameters, return type, a type's definition…), with the
 * comments the parser found left out, the members of object types and
 * interfaces joined with `; `, and whitespace outside string literals
 * collapsed, so every signature fits on one line. No regular expression
 * reads the code.
 *
 * Besides ES modules: CommonJS (`module.exports = …`, `exports.name = …`,
 * `require(…)`); JSX is allowed in plain JavaScript files.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../../src/Tool.ts"
import { parserUnavailableMessage, parserUnavailableSuggestion } from "../../../src/internal/optionalParser.ts"

/**
 * The kinds of export the skeleton names.
 *
 * @category models
 * @since 0.1.0
 */
export type ExportKind =
  | "component"
  | "hook"
  | "function"
  | "class"
  | "type"
  | "interface"
  | "enum"
  | "const"
  | "reexport"

/**
 * One export of a file.
 *
 * @category models
 * @since 0.1.0
 */
export interface ExportEntry {
  readonly name: string
  readonly kind: ExportKind
  /** The signature on one line: parameters and return type, a type's definition, a class's heritage… ("" when none). */
  readonly signature: string
  /** For a re-export, the module it comes from. */
  readonly from?: string | undefined
  /** The module's default export (its name is the declaration's own, or "default"). */
  readonly isDefault?: boolean | undefined
  /** An `async` function without a declared return type (it returns a promise the signature does not show). */
  readonly async?: boolean | undefined
  /**
   * The 1-based line where the declaration starts (the local declaration an `export { name }` names; the statement
   * of a re-export). Set by {@link extract}; since 0.5.0.
   */
  readonly line?: number | undefined
  /** The 1-based line where it ends (the same as `line` for a one-line declaration). Since 0.5.0. */
  readonly endLine?: number | undefined
}

/**
 * One import of a file: the module and the names taken from it.
 *
 * @category models
 * @since 0.1.0
 */
export interface ImportEntry {
  readonly from: string
  readonly names: ReadonlyArray<string>
}

/**
 * A file's skeleton.
 *
 * @category models
 * @since 0.1.0
 */
export interface FileSkeleton {
  readonly path: string
  readonly exports: ReadonlyArray<ExportEntry>
  readonly imports: ReadonlyArray<ImportEntry>
  /** The parser's first error, when the file does not parse (its exports and imports are then not known). */
  readonly error?: string | undefined
}

/**
 * The language a source is parsed as (by default, the one its file name's
 * extension says).
 *
 * @category models
 * @since 0.1.0
 */
export type Lang = "js" | "jsx" | "ts" | "tsx"

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }
interface Comment {
  readonly start: number
  readonly end: number
}

/**
 * A loaded parser: the syntax tree (ESTree with TypeScript's nodes, offsets
 * in UTF-16 code units), the comments and the errors of one source.
 *
 * @category models
 * @since 0.1.0
 */
export type Parse = (
  filename: string,
  source: string,
  lang?: Lang
) => {
  readonly program: { readonly body: ReadonlyArray<Node> }
  readonly comments: ReadonlyArray<Comment>
  readonly errors: ReadonlyArray<any>
}

let parser: Parse | undefined

/**
 * The parser, loaded once (a native module: its load is what the first
 * call pays). It parses on the calling thread: oxc's `parseSync` with raw
 * transfer, measured faster here than its thread-pool `parse` (the syntax
 * tree is rebuilt on the main thread either way).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const count = Effect.map(loadParser, (parse) => parse("a.ts", "export const a = 1").program.body.length) // 1
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const loadParser: Effect.Effect<Parse, Error> = Effect.suspend(() =>
  parser !== undefined
    ? Effect.succeed(parser)
    : Effect.tryPromise({
        try: () => import("oxc-parser"),
        catch: (cause) => new Error(parserUnavailableMessage(cause))
      }).pipe(
        Effect.map((module) => {
          // Raw transfer builds the JS syntax tree straight from the parser's memory, several times faster than the
          // JSON the default mode goes through; it needs a 64-bit little-endian platform, which rawTransferSupported says.
          const raw = module.rawTransferSupported()
          parser = (filename, source, lang) =>
            module.parseSync(filename, source, {
              sourceType: filename.endsWith(".cjs") || filename.endsWith(".cts") ? "commonjs" : "module",
              ...(lang !== undefined ? { lang } : {}),
              ...(raw ? { experimentalRawTransfer: true } : {})
            }) as unknown as ReturnType<Parse>
          return parser
        })
      )
)

/**
 * {@link loadParser} for a tool's handler: a parser that cannot be loaded is
 * the tool's error `parser_unavailable`, saying how to fix it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { loadParserForTool } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const count = Effect.map(loadParserForTool, (parse) => parse("a.ts", "export {}").program.body.length)
 * // Effect<number, ToolError>
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const loadParserForTool: Effect.Effect<Parse, Tool.ToolError> = Effect.mapError(
  loadParser,
  (error) =>
    new Tool.ToolError({
      message: error.message,
      code: "parser_unavailable",
      suggestion: parserUnavailableSuggestion
    })
)

// -- printing nodes on one line --------------------------------------------------

const maxSignature = 160

/** One line of output: whitespace runs collapsed to one space (none inside brackets that a line break opened). */
class Line {
  text = ""
  private space = false
  private newline = false
  readonly max: number
  constructor(max: number) {
    this.max = max
  }
  get full(): boolean {
    return this.text.length > this.max
  }
  /** Source text outside literals: its whitespace is collapsed. */
  code(text: string): void {
    let i = 0
    while (i < text.length && !this.full) {
      const c = text[i]!
      if (c === " " || c === "\t" || c === "\r" || c === "\n") {
        this.space = true
        if (c === "\n") this.newline = true
        i++
        continue
      }
      // A run of other characters: the first through put (it settles the pending space), the rest appended at once.
      let end = i + 1
      while (end < text.length) {
        const d = text[end]
        if (d === " " || d === "\t" || d === "\r" || d === "\n") break
        end++
      }
      this.put(c)
      if (end > i + 1) this.text += text.slice(i + 1, end)
      i = end
    }
  }
  /** Text kept as it is (a string literal). */
  verbatim(text: string): void {
    if (text === "" || this.full) return
    this.put(text[0]!)
    this.text += text.slice(1)
  }
  /** Drops a trailing separator (`;` or `,`) the source had after a member. */
  dropSeparator(): void {
    const last = this.text[this.text.length - 1]
    if (last === ";" || last === ",") this.text = this.text.slice(0, -1)
    this.space = this.newline = false
  }
  private put(c: string): void {
    if (this.space && this.text !== "") {
      const last = this.text[this.text.length - 1]!
      if (this.newline && last === "," && (c === ")" || c === "]" || c === ">" || c === "}")) {
        // A trailing comma before a closing bracket on its own line.
        this.text = this.text.slice(0, -1) + (c === "}" ? " " : "")
      } else if (!(this.newline && ("([<".includes(last) || c === ")" || c === "]" || c === ">"))) {
        this.text += " "
      }
    }
    this.space = this.newline = false
    this.text += c
  }
  result(): string {
    const text = this.text.trim()
    return text.length <= this.max ? text : `${text.slice(0, this.max - 1)}…`
  }
}

/** A text cut at `max` characters with an ellipsis. */
const ellipsize = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

const isNode = (value: unknown): value is Node =>
  value !== null && typeof value === "object" && typeof (value as Node).type === "string"

/** A node's child nodes, in source order (a node that covers another at the same start first). */
const childrenOf = (node: Node): Array<Node> => {
  const children: Array<Node> = []
  for (const key in node) {
    if (key === "type" || key === "start" || key === "end" || key === "range" || key === "parent") continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item)
    } else if (isNode(value)) children.push(value)
  }
  return children.sort((a, b) => a.start - b.start || b.end - a.end)
}

/** What printing needs of a file: its source and its comments (sorted by position, as the parser gives them). */
interface Source {
  readonly text: string
  readonly comments: ReadonlyArray<Comment>
  /** Replaces every cut's own limit (`extract`'s `maxSignature` option); undefined: each cut's default. */
  readonly limit?: number | undefined
}

/** A text cut at `max` characters, or at the source's own limit when one is set. */
const cut = (source: Source, text: string, max: number): string => ellipsize(text, source.limit ?? max)

/** The source between two offsets without its comments. */
const gap = (source: Source, from: number, to: number, line: Line): void => {
  const comments = source.comments
  for (let i = firstCommentAfter(comments, from); i < comments.length && comments[i]!.start < to; i++) {
    line.code(source.text.slice(from, comments[i]!.start))
    line.code(" ")
    from = comments[i]!.end
  }
  if (from < to) line.code(source.text.slice(from, to))
}

/** The members of an object type or an interface: `{ a: string; b?: number }`. */
const printMembers = (source: Source, members: ReadonlyArray<Node>, line: Line): void => {
  if (members.length === 0) return line.code("{}")
  line.code("{ ")
  members.forEach((member, i) => {
    if (i > 0) line.code("; ")
    printNode(source, member, line)
    line.dropSeparator()
  })
  line.code(" }")
}

/** The first comment that ends after `from` (binary search). */
const firstCommentAfter = (comments: ReadonlyArray<Comment>, from: number): number => {
  let low = 0
  let high = comments.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (comments[middle]!.end <= from) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * Whether a node's text is printed as it is, whitespace collapsed: one line, no comment, no string or template
 * literal (whose spaces are kept), no leading union operator. Most parameters and types are.
 */
const isPlain = (source: Source, node: Node): boolean => {
  if (node.end - node.start > 400) return false // printed piece by piece, stopping at the line's limit
  const first = source.comments[firstCommentAfter(source.comments, node.start)]
  if (first !== undefined && first.start < node.end) return false
  const text = source.text
  if (text[node.start] === "|" || text[node.start] === "&") return false
  for (let i = node.start; i < node.end; i++) {
    const c = text[i]
    if (c === "\n" || c === "'" || c === '"' || c === "`") return false
  }
  return true
}

const printNode = (source: Source, node: Node, line: Line): void => {
  if (line.full) return
  if (node.type === "Literal") return line.verbatim(source.text.slice(node.start, node.end))
  if (isPlain(source, node)) return line.code(source.text.slice(node.start, node.end))
  if (node.type === "TSTypeLiteral") return printMembers(source, node.members, line)
  if (node.type === "TSInterfaceBody") return printMembers(source, node.body, line)
  let cursor = node.start
  // A union or intersection written with a leading operator (`| "a" | "b"`) starts at its first member.
  let skipFirstGap = node.type === "TSUnionType" || node.type === "TSIntersectionType"
  for (const child of childrenOf(node)) {
    if (child.start < cursor) continue // a shorthand property's key and value are the same text
    if (!skipFirstGap) gap(source, cursor, child.start, line)
    skipFirstGap = false
    printNode(source, child, line)
    cursor = child.end
  }
  gap(source, cursor, node.end, line)
}

/** A node's text on one line, at most `max` characters. */
const print = (source: Source, node: Node | null | undefined, max = maxSignature): string => {
  if (node === null || node === undefined) return ""
  const line = new Line(source.limit ?? max)
  printNode(source, node, line)
  return line.result()
}

// -- kinds ----------------------------------------------------------------------

const isUpper = (c: string | undefined) => c !== undefined && c >= "A" && c <= "Z"
const isPascal = (name: string) => isUpper(name[0])
const isHook = (name: string) =>
  name.startsWith("use") && (isUpper(name[3]) || (name[3] !== undefined && name[3] >= "0" && name[3] <= "9"))

/** Whether a node's subtree holds JSX (a component returns some), looking a bounded number of nodes deep. */
const containsJsx = (node: unknown, budget = { left: 4000 }): boolean => {
  if (budget.left-- <= 0 || node === null || typeof node !== "object") return false
  if (Array.isArray(node)) return node.some((child) => containsJsx(child, budget))
  const typed = node as Node
  if (typed.type === "JSXElement" || typed.type === "JSXFragment") return true
  for (const key in typed) {
    if (key === "type" || key === "start" || key === "end") continue
    const value = typed[key]
    if (value !== null && typeof value === "object" && containsJsx(value, budget)) return true
  }
  return false
}

/** What one file's extraction needs. */
interface File extends Source {
  /** Whether JSX parses in this file (.jsx, .tsx and plain JavaScript): components are looked for only there. */
  readonly jsx: boolean
  /** The file's top-level declarations by name (a variable declaration with several declarators split). */
  readonly locals: Map<string, Node>
  /** The offset where each line starts (line 1 at index 0). */
  readonly lineStarts: ReadonlyArray<number>
}

/** The offsets where the lines of a text start: 0, then one past each line feed. */
const lineStartsOf = (text: string): Array<number> => {
  const starts = [0]
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) starts.push(index + 1)
  return starts
}

/** The 1-based line of an offset (binary search over the line starts). */
const lineAt = (file: File, offset: number): number => {
  let low = 0
  let high = file.lineStarts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (file.lineStarts[middle]! <= offset) low = middle
    else high = middle - 1
  }
  return low + 1
}

/** The entries with the lines of `node` where they have none yet. */
const located = (file: File, entries: Array<ExportEntry>, node: Node): Array<ExportEntry> => {
  if (entries.every((entry) => entry.line !== undefined)) return entries
  const line = lineAt(file, node.start)
  // The end offset is one past the node's last character.
  const endLine = lineAt(file, Math.max(node.start, node.end - 1))
  return entries.map((entry) => (entry.line !== undefined ? entry : { ...entry, line, endLine }))
}

const functionKind = (file: File, name: string, fn: Node): ExportKind =>
  isHook(name)
    ? "hook"
    : (isPascal(name) || name === "default") && file.jsx && containsJsx(fn.body)
      ? "component"
      : "function"

const isFunctionExpression = (node: Node | null | undefined): boolean =>
  node?.type === "ArrowFunctionExpression" || node?.type === "FunctionExpression"

/** An expression without the parentheses, `as` and `satisfies` around it. */
const unwrap = (node: Node | null | undefined): Node | null | undefined => {
  let current = node
  while (
    current?.type === "ParenthesizedExpression" ||
    current?.type === "TSAsExpression" ||
    current?.type === "TSSatisfiesExpression" ||
    current?.type === "TSNonNullExpression"
  )
    current = current.expression
  return current
}

/** `<T>(a: number, b = 2): number` of a function, from its nodes. */
const functionSignature = (file: File, fn: Node): string => {
  const typeParameters = print(file, fn.typeParameters)
  const parameters = (fn.params ?? []).map((parameter: Node) => print(file, parameter)).join(", ")
  return cut(file, `${typeParameters}(${parameters})${print(file, fn.returnType)}`, maxSignature)
}

const functionEntry = (file: File, name: string, fn: Node, kindName = name): ExportEntry => ({
  name,
  kind: functionKind(file, kindName, fn),
  signature: functionSignature(file, fn),
  ...(fn.async === true && (fn.returnType === null || fn.returnType === undefined) ? { async: true } : {})
})

const memberName = (file: File, member: Node): string =>
  member.computed === true ? `[${print(file, member.key, 60)}]` : print(file, member.key, 60)

/** A class's type parameters, heritage and public members (methods with their signatures, properties with their types). */
const classSignature = (file: File, node: Node): string => {
  const heritage =
    node.superClass !== null && node.superClass !== undefined
      ? ` extends ${print(file, node.superClass, 60)}${print(file, node.superTypeArguments, 80)}`
      : ""
  const implemented =
    Array.isArray(node.implements) && node.implements.length > 0
      ? ` implements ${node.implements.map((i: Node) => print(file, i, 80)).join(", ")}`
      : ""
  const members: Array<string> = []
  for (const member of node.body?.body ?? []) {
    if (member.accessibility === "private" || member.accessibility === "protected") continue
    if (member.key?.type === "PrivateIdentifier" || member.type === "StaticBlock") continue
    const modifiers = `${member.static === true ? "static " : ""}${member.type.startsWith("TSAbstract") ? "abstract " : ""}`
    if (member.type === "TSIndexSignature") members.push(print(file, member, 80))
    else if (member.type === "MethodDefinition" || member.type === "TSAbstractMethodDefinition") {
      const accessor = member.kind === "get" ? "get " : member.kind === "set" ? "set " : ""
      const name = member.kind === "constructor" ? "constructor" : memberName(file, member)
      members.push(
        `${modifiers}${accessor}${name}${member.optional === true ? "?" : ""}${functionSignature(file, member.value)}`
      )
    } else {
      const readonly = member.readonly === true ? "readonly " : ""
      members.push(
        `${modifiers}${readonly}${memberName(file, member)}${member.optional === true ? "?" : ""}${print(file, member.typeAnnotation, 80)}`
      )
    }
  }
  return cut(
    file,
    `${print(file, node.typeParameters)}${heritage}${implemented}${members.length > 0 ? ` { ${members.join("; ")} }` : ""}`.trim(),
    240
  )
}

/** The names a destructuring pattern binds: `{ a: b, c = 1, ...rest }` binds b, c and rest. */
const boundNames = (pattern: Node | null | undefined): Array<string> => {
  if (pattern === null || pattern === undefined) return []
  switch (pattern.type) {
    case "Identifier":
      return [pattern.name]
    case "ObjectPattern":
      return pattern.properties.flatMap((p: Node) => boundNames(p.type === "RestElement" ? p.argument : p.value))
    case "ArrayPattern":
      return pattern.elements.flatMap((e: Node | null) => boundNames(e))
    case "AssignmentPattern":
      return boundNames(pattern.left)
    case "RestElement":
      return boundNames(pattern.argument)
    default:
      return []
  }
}

/** The entry of `name = value` (a variable, a CommonJS export, an export default expression). */
const valueEntry = (file: File, name: string, init: Node | null | undefined, annotation?: Node | null): ExportEntry => {
  const value = unwrap(init)
  if (value?.type === "ClassExpression") return { name, kind: "class", signature: classSignature(file, value) }
  const typed = annotation !== null && annotation !== undefined ? print(file, annotation) : undefined
  if (value !== null && value !== undefined && isFunctionExpression(value)) {
    const entry = functionEntry(file, name, value)
    return typed === undefined ? entry : { name, kind: entry.kind, signature: typed }
  }
  // memo((props: P) => …), forwardRef<R, P>(function X(…) {…}), styled(…)
  const wrapped = value?.type === "CallExpression" && isFunctionExpression(value.arguments?.[0]) ? value : undefined
  if (wrapped !== undefined) {
    const fn = wrapped.arguments[0]
    const signature = `${print(file, wrapped.callee, 40)}${print(file, wrapped.typeArguments, 80)}(${functionSignature(file, fn)})`
    return { name, kind: functionKind(file, name, fn), signature: typed ?? cut(file, signature, maxSignature) }
  }
  return {
    name,
    kind: isHook(name) ? "hook" : "const",
    signature: typed ?? (init === null || init === undefined ? "" : `= ${print(file, init, 60)}`)
  }
}

/**
 * The exports one declaration makes (a `const a = 1, b = 2` makes two), with its lines (each declarator's own);
 * `asName` renames a single one.
 */
const exportsOf = (file: File, node: Node, asName?: string): Array<ExportEntry> =>
  located(file, declarationExports(file, node, asName), node)

const declarationExports = (file: File, node: Node, asName?: string): Array<ExportEntry> => {
  switch (node.type) {
    case "FunctionDeclaration":
    case "TSDeclareFunction": {
      const own = node.id?.name ?? "default"
      return [functionEntry(file, asName ?? own, node, own)]
    }
    case "ClassDeclaration":
    case "ClassExpression":
      return [{ name: asName ?? node.id?.name ?? "default", kind: "class", signature: classSignature(file, node) }]
    case "TSInterfaceDeclaration": {
      const heritage =
        Array.isArray(node.extends) && node.extends.length > 0
          ? ` extends ${node.extends.map((e: Node) => print(file, e, 80)).join(", ")}`
          : ""
      return [
        {
          name: asName ?? node.id.name,
          kind: "interface",
          signature: cut(
            file,
            `${print(file, node.typeParameters)}${heritage} ${print(file, node.body, 200)}`.trim(),
            200
          )
        }
      ]
    }
    case "TSTypeAliasDeclaration":
      return [
        {
          name: asName ?? node.id.name,
          kind: "type",
          signature: cut(
            file,
            `${print(file, node.typeParameters)} = ${print(file, node.typeAnnotation, 200)}`.trim(),
            200
          )
        }
      ]
    case "TSEnumDeclaration": {
      const members: ReadonlyArray<Node> = node.body?.members ?? node.members ?? []
      return [
        {
          name: asName ?? node.id.name,
          kind: "enum",
          signature: cut(file, `{ ${members.map((m) => print(file, m, 60)).join(", ")} }`, 200)
        }
      ]
    }
    case "VariableDeclaration":
      return node.declarations.flatMap((declarator: Node) =>
        located(
          file,
          declarator.id?.type === "Identifier"
            ? [valueEntry(file, asName ?? declarator.id.name, declarator.init, declarator.id.typeAnnotation)]
            : // Destructuring: every bound name, without a signature.
              boundNames(declarator.id).map((name) => ({ name, kind: "const" as const, signature: "" })),
          declarator
        )
      )
    case "TSModuleDeclaration":
      return [{ name: asName ?? print(file, node.id, 80), kind: "type", signature: "namespace" }]
    default:
      // export default <expression>
      return [valueEntry(file, asName ?? "default", node)]
  }
}

const nameOf = (node: Node | null | undefined): string =>
  node === null || node === undefined ? "" : node.type === "Identifier" ? node.name : String(node.value ?? "")

/** The module a `require("…")` call loads, if the node is one. */
const requiredModule = (node: Node | null | undefined): string | undefined =>
  node?.type === "CallExpression" &&
  node.callee?.type === "Identifier" &&
  node.callee.name === "require" &&
  node.arguments?.length === 1 &&
  node.arguments[0].type === "Literal" &&
  typeof node.arguments[0].value === "string"
    ? node.arguments[0].value
    : undefined

const isMember = (node: Node | null | undefined, object: string, property: string): boolean =>
  node?.type === "MemberExpression" &&
  node.computed !== true &&
  node.object?.type === "Identifier" &&
  node.object.name === object &&
  nameOf(node.property) === property

/** `module.exports` (the default export) or `exports.name` / `module.exports.name` (a named one). */
const commonJsTarget = (left: Node): { readonly name: string } | "default" | undefined => {
  if (isMember(left, "module", "exports")) return "default"
  if (left.type !== "MemberExpression" || left.computed === true) return undefined
  if (left.object?.type === "Identifier" && left.object.name === "exports") return { name: nameOf(left.property) }
  if (isMember(left.object, "module", "exports")) return { name: nameOf(left.property) }
  return undefined
}

/** The entries of an exported value: a local declaration's own when the value names one. */
const exportedValue = (file: File, name: string, value: Node): Array<ExportEntry> => {
  const local = value.type === "Identifier" ? file.locals.get(value.name) : undefined
  return local !== undefined ? exportsOf(file, local, name) : [valueEntry(file, name, value)]
}

/** The language of a file: by its extension, with JSX allowed in plain JavaScript (React code often has it there). */
const langOf = (path: string): Lang =>
  path.endsWith(".tsx") ? "tsx" : path.endsWith(".ts") || path.endsWith(".mts") || path.endsWith(".cts") ? "ts" : "jsx"

/**
 * The skeleton of one file's source: its exports (functions, components,
 * hooks, classes, types, interfaces, enums, consts and re-exports, in source
 * order, an overloaded function once per signature) and its imports (Vue,
 * Svelte and Astro files: see `components.ts`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { extract, loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const skeleton = Effect.map(loadParser, (parse) =>
 *   extract(parse, "src/sum.ts", "export function sum(a: number, b: number): number { return a + b }")
 * )
 * // exports: [{ name: "sum", kind: "function", signature: "(a: number, b: number): number" }]
 * ```
 *
 * Signatures are cut (with `…`) at 160 characters, and names, members and
 * values inside them shorter; `options.maxSignature` replaces every one of
 * those limits (`Infinity`: nothing is cut, as `fe_diff` compares them).
 *
 * @category parsing
 * @since 0.1.0
 */
export const extract = (
  parse: Parse,
  path: string,
  text: string,
  options?: { readonly maxSignature?: number | undefined }
): FileSkeleton => {
  const lang = langOf(path)
  const result = parse(path, text, lang)
  const file: File = {
    text,
    comments: result.comments,
    jsx: lang === "jsx" || lang === "tsx",
    locals: new Map(),
    limit: options?.maxSignature,
    lineStarts: lineStartsOf(text)
  }
  const exports: Array<ExportEntry> = []
  const imports: Array<ImportEntry> = []
  const overloaded = new Set<string>()
  for (const node of result.program.body) {
    if (node.type === "FunctionDeclaration" || node.type === "ClassDeclaration" || node.type.startsWith("TS")) {
      if (node.id?.name !== undefined) file.locals.set(node.id.name, node)
    } else if (node.type === "VariableDeclaration") {
      for (const declarator of node.declarations)
        if (declarator.id?.type === "Identifier")
          file.locals.set(declarator.id.name, { ...node, declarations: [declarator] })
    }
  }
  for (const node of result.program.body) {
    const first = exports.length
    switch (node.type) {
      case "ImportDeclaration": {
        const names = (node.specifiers ?? []).map((s: Node) =>
          s.type === "ImportDefaultSpecifier"
            ? `default as ${s.local.name}`
            : s.type === "ImportNamespaceSpecifier"
              ? `* as ${s.local.name}`
              : `${s.importKind === "type" ? "type " : ""}${
                  nameOf(s.imported) === s.local.name ? s.local.name : `${nameOf(s.imported)} as ${s.local.name}`
                }`
        )
        imports.push({
          from: node.source.value,
          names: node.importKind === "type" ? names.map((n: string) => `type ${n}`) : names
        })
        break
      }
      case "ExportNamedDeclaration": {
        const declaration = node.declaration
        if (declaration?.type === "TSDeclareFunction") overloaded.add(declaration.id?.name)
        // An overloaded function shows its overloads, not its implementation's signature (as TypeScript does).
        if (declaration && !(declaration.type === "FunctionDeclaration" && overloaded.has(declaration.id?.name))) {
          exports.push(...exportsOf(file, declaration))
        }
        for (const specifier of node.specifiers ?? []) {
          const local = nameOf(specifier.local)
          const exported = nameOf(specifier.exported)
          if (node.source) {
            const type = node.exportKind === "type" || specifier.exportKind === "type" ? "type " : ""
            exports.push(
              ...located(
                file,
                [
                  {
                    name: exported,
                    kind: "reexport",
                    signature:
                      local === exported ? (type === "" ? "" : `type ${local}`) : `${type}${local} as ${exported}`,
                    from: node.source.value
                  }
                ],
                specifier
              )
            )
          } else {
            const declaration = file.locals.get(local)
            exports.push(
              ...(declaration === undefined
                ? located(
                    file,
                    [{ name: exported, kind: "const" as const, signature: local === exported ? "" : `= ${local}` }],
                    specifier
                  )
                : exported === "default"
                  ? // export { App as default }: App, the default export
                    exportsOf(file, declaration).map((entry) => ({ ...entry, isDefault: true }))
                  : exportsOf(file, declaration, exported))
            )
          }
        }
        break
      }
      case "ExportDefaultDeclaration": {
        const declaration = node.declaration
        const local = declaration.type === "Identifier" ? file.locals.get(declaration.name) : undefined
        // `export default App` and `export default function App()` show App; an anonymous one shows "default".
        const entries =
          local !== undefined
            ? exportsOf(file, local)
            : exportsOf(file, declaration, declaration.id?.name !== undefined ? undefined : "default")
        exports.push(...entries.map((entry) => ({ ...entry, isDefault: true })))
        break
      }
      case "ExportAllDeclaration":
        exports.push({
          name: node.exported ? nameOf(node.exported) : "*",
          kind: "reexport",
          signature: node.exported ? `* as ${nameOf(node.exported)}` : "*",
          from: node.source.value
        })
        break
      case "TSExportAssignment":
        exports.push(...exportedValue(file, "export =", node.expression).map((e) => ({ ...e, isDefault: true })))
        break
      case "TSImportEqualsDeclaration":
        // import fs = require("fs")
        if (node.moduleReference?.type === "TSExternalModuleReference") {
          imports.push({ from: node.moduleReference.expression.value, names: [`* as ${node.id.name}`] })
        }
        break
      case "VariableDeclaration":
        // const fs = require("fs"), const { join, resolve: r } = require("path")
        for (const declarator of node.declarations) {
          const from = requiredModule(unwrap(declarator.init))
          if (from === undefined) continue
          const id = declarator.id
          imports.push({
            from,
            names:
              id.type === "Identifier"
                ? [`* as ${id.name}`]
                : id.type === "ObjectPattern"
                  ? id.properties.flatMap((p: Node) =>
                      p.type === "RestElement"
                        ? boundNames(p.argument).map((n) => `* as ${n}`)
                        : p.value?.type === "Identifier" && nameOf(p.key) !== p.value.name
                          ? [`${nameOf(p.key)} as ${p.value.name}`]
                          : [nameOf(p.key)]
                    )
                  : []
          })
        }
        break
      case "ExpressionStatement": {
        const expression = node.expression
        const required = requiredModule(expression)
        if (required !== undefined) {
          imports.push({ from: required, names: [] })
          break
        }
        if (expression?.type !== "AssignmentExpression" || expression.operator !== "=") break
        const target = commonJsTarget(expression.left)
        const value = unwrap(expression.right)
        if (target === undefined || value === null || value === undefined) break
        if (target === "default" && value.type === "ObjectExpression") {
          // module.exports = { a, b: helper, c() {} }: each property is a named export.
          for (const property of value.properties) {
            if (property.type !== "Property" || property.computed === true) continue
            exports.push(...located(file, exportedValue(file, nameOf(property.key), property.value), property))
          }
        } else if (target === "default") {
          const entries = exportedValue(file, "default", value)
          exports.push(...entries.map((e) => ({ ...e, isDefault: true })))
        } else {
          exports.push(...exportedValue(file, target.name, value))
        }
        break
      }
    }
    // What has no lines of its own yet (a re-export of everything, an exported expression) takes the statement's.
    if (exports.length > first)
      exports.splice(first, exports.length - first, ...located(file, exports.slice(first), node))
  }
  const error = result.errors[0]
  return { path, exports, imports, ...(error !== undefined ? { error: String(error.message ?? error) } : {}) }
}
