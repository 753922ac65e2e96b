/**
 * Static analysis of the code an agent sends in code mode, before anything
 * runs. The code is the body of an async function (top-level `await` and
 * `return` allowed) that calls MCP tools as `await mcp.<namespace>.<tool>(…)`;
 * it is parsed with oxc, wrapped as `(async () => {\n…\n})`, and walked once:
 *
 * - every tool it calls is found: `mcp.ns.tool(…)`, `mcp.ns["tool-name"](…)`,
 *   `mcp["ns"].tool(…)` (string literals and template literals without
 *   substitutions), optional chaining allowed, through parentheses and
 *   TypeScript's `as` / `satisfies` / `!` / `<T>x`;
 * - refused, so that no tool can be reached that was not found: a computed
 *   name (`mcp[x]`, `mcp.ns[x]`), any other use of `mcp` (stored, passed,
 *   assigned, `mcp.ns` or `mcp.ns.tool` used as a value, `globalThis.mcp`,
 *   `this.mcp` and `arguments` outside functions), `eval` and `Function(…)`
 *   (they run code that is not checked); a declaration of `mcp` anywhere
 *   (the name is reserved); modules (`import`, `export`, `import(…)`,
 *   `require(…)`, `import.meta`). This is best effort, not a proof (code can
 *   still build code, e.g. through `(() => {}).constructor`): the runtime
 *   should still refuse a call to a tool that was not found.
 *
 * TypeScript is stripped by blanking, as ts-blank-space does: the text of
 * every type-only construct is replaced with spaces (line breaks kept), so the
 * JavaScript has the same length and lines as the source and positions in
 * runtime errors stay right. Where blanking alone would change the meaning, a
 * `;` starts the blank (a blanked statement or class member, a blanked
 * `as T` / `!` / `: T` ending a statement without a semicolon: `let x = a as
 * T⏎(b)` must not become a call), and an arrow function's `)` moves to the
 * end of a return type when a line break separates them (a line break before
 * `=>` is a syntax error). What has no erasable form is refused: `enum`,
 * namespaces (the parser refuses them in a function anyway), parameter
 * properties, decorators, `import x = …`.
 *
 * Positions are 1-based lines and columns of the agent's source (columns in
 * UTF-16 code units, as the parser counts).
 *
 * @internal
 */
import { createRequire } from "node:module"
import type * as Oxc from "oxc-parser"
import { ParserUnavailable } from "./optionalParser.ts"

/** A tool the code calls, at its first call (the position of `mcp`). */
export interface Reference {
  readonly namespace: string
  readonly name: string
  readonly line: number
  readonly column: number
}

/** Why the code is refused, and where. */
export interface Problem {
  readonly kind: "syntax" | "computed" | "escape" | "import" | "typescript" | "shadow"
  readonly message: string
  readonly line: number
  readonly column: number
}

/**
 * The outcome of {@link analyze}: the JavaScript to run (the body again, types
 * blanked) and the tools it calls (each once, in source order), or the
 * problems (in source order).
 */
export type Analysis =
  | { readonly _tag: "Ok"; readonly javascript: string; readonly references: ReadonlyArray<Reference> }
  | { readonly _tag: "Refused"; readonly problems: ReadonlyArray<Problem> }

// -- the parser ----------------------------------------------------------------------

let oxc: typeof Oxc | undefined

// A native module, loaded on first use (synchronously: `require` of an ES module) so that merely importing this
// module costs nothing.
// An optional peer dependency: when it is missing, `ParserUnavailable` says how to install it.
const parser = (): typeof Oxc => {
  if (oxc === undefined) {
    try {
      oxc = createRequire(import.meta.url)("oxc-parser") as typeof Oxc
    } catch (cause) {
      throw new ParserUnavailable(cause)
    }
  }
  return oxc
}

let raw: boolean | undefined

const rawTransfer = (): boolean => (raw ??= parser().rawTransferSupported())

/** A node of oxc's ESTree-compatible tree, read generically. */
interface Node {
  readonly type: string
  readonly start: number
  readonly end: number
  readonly [key: string]: unknown
}

const PREFIX = "(async () => {\n"
const SUFFIX = "\n})"

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"

const child = (node: Node, key: string): Node | undefined => {
  const value = node[key]
  return isNode(value) ? value : undefined
}

const children = (node: Node, key: string): ReadonlyArray<Node | null> => {
  const value = node[key]
  return Array.isArray(value) ? (value as ReadonlyArray<Node | null>) : []
}

const name = (node: Node | undefined): string | undefined =>
  node !== undefined && node.type === "Identifier" ? (node["name"] as string) : undefined

// -- blanking ------------------------------------------------------------------------

const PLAIN = 0
/** The blank starts with `;`. */
const SEMI = 1
/** The blank ends with `)`. */
const PAREN = 2

const isLineBreak = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029

const isSpace = (c: number) =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** `text` with the ranges (flag, start, end triples, sorted by start) blanked: each UTF-16 unit a space, line breaks kept. */
const applyBlanks = (text: string, ranges: ReadonlyArray<readonly [number, number, number]>): string => {
  const out: Array<string> = []
  let done = 0
  for (const [flag, rangeStart, end] of ranges) {
    const start = Math.max(rangeStart, done)
    if (end <= start) continue
    out.push(text.slice(done, start))
    let blank = ""
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i)
      blank += isLineBreak(c) ? text[i] : " "
    }
    if (flag === SEMI) {
      // On the range's first line: a line break must stay one.
      const first = blank.indexOf(" ")
      if (first >= 0) blank = blank.slice(0, first) + ";" + blank.slice(first + 1)
    } else if (flag === PAREN) blank = blank.slice(0, -1) + ")"
    out.push(blank)
    done = end
  }
  out.push(text.slice(done))
  return out.join("")
}

// -- messages ------------------------------------------------------------------------

const isIdentifierName = (s: string) => /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(s)

/** `mcp.fe.verify`, `mcp.fe["run-tests"]`. */
const pathText = (names: ReadonlyArray<string>) =>
  "mcp" + names.map((n) => (isIdentifierName(n) ? `.${n}` : `[${JSON.stringify(n)}]`)).join("")

const CHECKED = "tool calls are checked before the code runs"

const escapeMessage = (names: ReadonlyArray<string>): string => {
  switch (names.length) {
    case 0:
      return `\`mcp\` can only be used to call a tool, as \`mcp.<namespace>.<tool>(…)\`: ${CHECKED}, and \`mcp\` stored, passed, assigned or inspected would reach tools that were not checked`
    case 1:
      return `\`${pathText(names)}\` can only be used to call one of its tools, as \`${pathText(names)}.<tool>(…)\`: ${CHECKED}, and a namespace stored, passed or inspected would reach tools that were not checked`
    default:
      return `\`${pathText(names)}\` must be called directly, as \`${pathText(names)}(…)\`: ${CHECKED}, and a tool stored, passed, bound or called through \`.call\` / \`.apply\` cannot be checked`
  }
}

const computedMessage = (names: ReadonlyArray<string>): string =>
  names.length === 0
    ? `\`mcp[…]\`: the namespace must be written out, as \`mcp.<namespace>.<tool>(…)\` (or \`mcp["name"]\`): ${CHECKED}, so their names cannot be computed`
    : `\`${pathText(names)}[…]\`: the tool must be written out, as \`${pathText(names)}.<tool>(…)\` (or \`${pathText(names)}["tool-name"](…)\`): ${CHECKED}, so their names cannot be computed`

const SHADOW =
  "`mcp` is a reserved name (it is the object that calls the tools): it cannot be declared in the code; choose another name"

const NO_MODULES = "there are no modules in the sandbox: everything goes through the `mcp.*` tools"

const GLOBALS = new Set(["globalThis", "self", "window", "global"])

/** Modifiers of class members that only TypeScript has. */
const TS_MODIFIERS = new Set(["public", "private", "protected", "readonly", "override", "declare", "abstract"])

/** Keys whose value is a type (never walked, blanked in TypeScript). */
const TYPE_KEYS = new Set(["typeAnnotation", "returnType", "typeParameters", "typeArguments", "superTypeArguments"])

/** The wrappers a path to a tool may go through: parentheses, optional chaining, TypeScript assertions. */
const WRAPPERS = new Set([
  "ParenthesizedExpression",
  "ChainExpression",
  "TSAsExpression",
  "TSSatisfiesExpression",
  "TSNonNullExpression",
  "TSTypeAssertion"
])

const unwrap = (node: Node): Node => {
  let n = node
  while (WRAPPERS.has(n.type)) n = child(n, "expression") ?? n
  return n
}

/** The name a member expression reads when it is written out (`.x`, `["x"]`, `` [`x`] ``), else undefined. */
const literalKey = (member: Node): string | undefined => {
  const property = child(member, "property")
  if (property === undefined) return undefined
  if (member["computed"] !== true) return property.type === "Identifier" ? (property["name"] as string) : undefined
  if (property.type === "Literal") return typeof property["value"] === "string" ? property["value"] : undefined
  if (property.type === "TemplateLiteral" && children(property, "expressions").length === 0) {
    const quasi = children(property, "quasis")[0]
    const cooked = quasi ? (quasi["value"] as { cooked?: unknown }).cooked : undefined
    return typeof cooked === "string" ? cooked : undefined
  }
  return undefined
}

/** A path from `mcp`: `mcp` (no names), `mcp.ns`, `mcp.ns.tool` (every key written out). */
interface McpPath {
  readonly root: Node
  readonly names: ReadonlyArray<string>
}

const mcpPath = (node: Node): McpPath | undefined => {
  const n = unwrap(node)
  if (n.type === "Identifier") return n["name"] === "mcp" ? { root: n, names: [] } : undefined
  if (n.type !== "MemberExpression") return undefined
  const key = literalKey(n)
  const object = child(n, "object")
  if (key === undefined || object === undefined) return undefined
  const inner = mcpPath(object)
  return inner !== undefined && inner.names.length < 2 ? { root: inner.root, names: [...inner.names, key] } : undefined
}

// -- the walk ------------------------------------------------------------------------

interface Found {
  readonly kind: Problem["kind"]
  readonly message: string
  /** Offset in the wrapped text. */
  readonly at: number
  /** The end of the construct refused, for a module (the parser's own errors inside it are dropped). */
  readonly until?: number
}

interface Call {
  readonly namespace: string
  readonly name: string
  readonly at: number
}

/** Is this statement type-only (nothing left once types are erased)? */
const typeOnlyStatement = (node: Node): boolean => {
  switch (node.type) {
    case "TSInterfaceDeclaration":
    case "TSTypeAliasDeclaration":
    case "TSDeclareFunction":
    case "EmptyStatement":
      return true
    case "VariableDeclaration":
    case "ClassDeclaration":
    case "TSEnumDeclaration":
    case "TSModuleDeclaration":
      return node["declare"] === true
    case "TSImportEqualsDeclaration":
      return node["importKind"] === "type"
    case "ExportNamedDeclaration": {
      const declaration = child(node, "declaration")
      return node["exportKind"] === "type" || (declaration !== undefined && typeOnlyStatement(declaration))
    }
    case "ExportAllDeclaration":
      return node["exportKind"] === "type"
    default:
      return false
  }
}

const typeOnlyImport = (node: Node): boolean => {
  if (node["importKind"] === "type") return true
  const specifiers = children(node, "specifiers")
  return specifiers.length > 0 && specifiers.every((s) => s?.type === "ImportSpecifier" && s["importKind"] === "type")
}

class Walker {
  readonly problems: Array<Found> = []
  readonly calls: Array<Call> = []
  readonly blanks: Array<readonly [number, number, number]> = []
  /** Ends of statements and class fields without a `;`: a blank ending there starts with one. */
  private readonly openEnds = new Set<number>()
  private readonly commentStarts = new Map<number, number>()
  private readonly commentEnds = new Map<number, number>()
  /** `this` is the top level's (not inside a non-arrow function or a class). */
  private topThis = true
  private readonly text: string
  private readonly ts: boolean
  private readonly visitorKeys: Record<string, ReadonlyArray<string>>

  constructor(
    text: string,
    ts: boolean,
    comments: ReadonlyArray<Oxc.Comment>,
    visitorKeys: Record<string, ReadonlyArray<string>>
  ) {
    this.text = text
    this.ts = ts
    this.visitorKeys = visitorKeys
    for (const c of comments) {
      this.commentStarts.set(c.start, c.end)
      this.commentEnds.set(c.end, c.start)
    }
  }

  private problem(kind: Problem["kind"], at: number, message: string): void {
    this.problems.push({ kind, message, at })
  }

  private module(node: Node, message: string): void {
    this.problems.push({ kind: "import", message: `${message}: ${NO_MODULES}`, at: node.start, until: node.end })
  }

  // -- positions in the text

  /** The first position from `pos` that is not whitespace or a comment. */
  private skipForward(pos: number): number {
    let p = pos
    for (;;) {
      const comment = this.commentStarts.get(p)
      if (comment !== undefined) p = comment
      else if (p < this.text.length && isSpace(this.text.charCodeAt(p))) p++
      else return p
    }
  }

  /** The position after the last character before `pos` that is not whitespace or a comment. */
  private skipBackward(pos: number): number {
    let p = pos
    for (;;) {
      const comment = this.commentEnds.get(p)
      if (comment !== undefined) p = comment
      else if (p > 0 && isSpace(this.text.charCodeAt(p - 1))) p--
      else return p
    }
  }

  // -- blanking

  private blank(start: number, end: number, flag = PLAIN): void {
    if (!this.ts || end <= start) return
    this.blanks.push([flag === PLAIN && this.openEnds.has(end) ? SEMI : flag, start, end])
  }

  private blankType(node: Node | undefined): void {
    if (node !== undefined) this.blank(node.start, node.end)
  }

  /** A whole statement or class member: `;` first, so that what precedes it cannot run on into what follows. */
  private blankStatement(node: Node): void {
    this.blank(node.start, node.end, SEMI)
  }

  /** The `?` or `!` just before `pos` (before a type annotation). */
  private blankMarkBefore(pos: number, mark: string): void {
    const p = this.skipBackward(pos) - 1
    if (this.text[p] === mark) this.blank(p, p + 1)
  }

  /** The `?` or `!` at `pos` or after whitespace and comments. */
  private blankMarkAt(pos: number, mark: string): void {
    const p = this.skipForward(pos)
    if (this.text[p] === mark) this.blank(p, p + 1)
  }

  private openEnd(node: Node): void {
    if (this.text[node.end - 1] !== ";") this.openEnds.add(node.end)
  }

  // -- statements and expressions

  statements(list: ReadonlyArray<Node | null>): void {
    for (const s of list) if (s !== null) this.visit(s)
  }

  visit(node: Node): void {
    switch (node.type) {
      case "Identifier":
      case "MemberExpression":
      case "ParenthesizedExpression":
      case "ChainExpression":
      case "TSAsExpression":
      case "TSSatisfiesExpression":
      case "TSNonNullExpression":
      case "TSTypeAssertion": {
        const path = mcpPath(node)
        if (path !== undefined) {
          this.problem("escape", path.root.start, escapeMessage(path.names))
          this.wrappers(node)
          return
        }
        return this.expression(node)
      }
      case "CallExpression":
        return this.call(node)
      case "NewExpression": {
        const callee = child(node, "callee")
        if (callee !== undefined && name(unwrap(callee)) === "Function")
          this.problem("escape", node.start, "`new Function(…)` builds code that is not checked before it runs")
        return this.generic(node)
      }
      case "ImportExpression":
        return this.module(node, "`import(…)`")
      case "MetaProperty":
        if (name(child(node, "meta")) === "import") this.module(node, "`import.meta`")
        return
      case "AssignmentExpression":
        this.pattern(child(node, "left"), false)
        return this.optional(child(node, "right"))
      case "Property":
        if (node["computed"] === true) this.optional(child(node, "key"))
        return this.optional(child(node, "value"))
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
        return this.fn(node)
      case "ClassDeclaration":
      case "ClassExpression":
        return this.cls(node)
      case "ThisExpression":
      case "Literal":
      case "TemplateElement":
      case "Super":
      case "PrivateIdentifier":
        return

      // statements
      case "ExpressionStatement":
      case "ReturnStatement":
      case "ThrowStatement":
        this.openEnd(node)
        return this.generic(node)
      case "VariableDeclaration":
        if (node["declare"] === true) return this.blankStatement(node)
        this.openEnd(node)
        return this.declarations(node)
      case "ForStatement": {
        const init = child(node, "init")
        if (init?.type === "VariableDeclaration") this.declarations(init)
        else this.optional(init)
        this.optional(child(node, "test"))
        this.optional(child(node, "update"))
        return this.optional(child(node, "body"))
      }
      case "ForInStatement":
      case "ForOfStatement": {
        const left = child(node, "left")
        if (left?.type === "VariableDeclaration") this.declarations(left)
        else this.pattern(left, false)
        this.optional(child(node, "right"))
        return this.optional(child(node, "body"))
      }
      case "CatchClause":
        this.pattern(child(node, "param"), true)
        return this.optional(child(node, "body"))
      case "LabeledStatement":
        return this.optional(child(node, "body"))
      case "BreakStatement":
      case "ContinueStatement":
      case "EmptyStatement":
      case "DebuggerStatement":
        return

      // TypeScript
      case "TSTypeAliasDeclaration":
      case "TSInterfaceDeclaration":
      case "TSDeclareFunction":
        return this.blankStatement(node)
      case "TSEnumDeclaration":
        if (node["declare"] === true) return this.blankStatement(node)
        return this.problem(
          "typescript",
          node.start,
          '`enum` is not supported (it is not erasable TypeScript): use an object, e.g. `const Color = { Red: "red", Green: "green" } as const`'
        )
      case "TSModuleDeclaration":
        // The parser refuses them in a function already (the code is a function's body).
        if (node["declare"] === true) return this.blankStatement(node)
        return this.problem(
          "typescript",
          node.start,
          "`namespace` is not supported (it is not erasable TypeScript): use an object or plain declarations"
        )
      case "TSImportEqualsDeclaration":
        if (node["importKind"] === "type") return this.blankStatement(node)
        if (child(node, "moduleReference")?.type === "TSExternalModuleReference")
          return this.module(node, "`import … = require(…)`")
        return this.problem(
          "typescript",
          node.start,
          "`import … = …` is not supported (it is not erasable TypeScript): use `const`"
        )
      case "TSExportAssignment":
      case "TSNamespaceExportDeclaration":
      case "ExportDefaultDeclaration":
        return this.module(node, "`export` (`return` the result instead)")
      case "ImportDeclaration":
        if (this.ts && typeOnlyImport(node)) return this.blankStatement(node)
        return this.module(node, "`import … from`")
      case "ExportNamedDeclaration":
      case "ExportAllDeclaration":
        if (this.ts && typeOnlyStatement(node)) return this.blankStatement(node)
        return this.module(node, "`export` (`return` the result instead)")
      case "TSInstantiationExpression":
        this.optional(child(node, "expression"))
        return this.blankType(child(node, "typeArguments"))
      default:
        // Other TypeScript nodes are types: nothing to run, nothing to find.
        if (node.type.startsWith("TS")) return
        return this.generic(node)
    }
  }

  private optional(node: Node | undefined): void {
    if (node !== undefined) this.visit(node)
  }

  /** Every child, types blanked. */
  private generic(node: Node): void {
    for (const key of this.visitorKeys[node.type] ?? []) {
      if (TYPE_KEYS.has(key)) {
        this.blankType(child(node, key))
        continue
      }
      if (key === "decorators") {
        this.decorators(node)
        continue
      }
      const value = node[key]
      if (Array.isArray(value)) this.statements(value as ReadonlyArray<Node | null>)
      else if (isNode(value)) this.visit(value)
    }
  }

  /** An expression that is not a path from `mcp` (those were handled by {@link visit}). */
  private expression(node: Node): void {
    switch (node.type) {
      case "Identifier":
        if (node["name"] === "eval")
          this.problem("escape", node.start, "`eval` runs code that is not checked before it runs")
        else if (node["name"] === "arguments" && this.topThis)
          // Outside functions, `arguments` is the runtime's (the function the code runs in may receive `mcp`).
          this.problem("escape", node.start, "`arguments` outside a function would reach the runtime's own arguments")
        return
      case "MemberExpression":
        return this.member(node)
      case "TSAsExpression":
      case "TSSatisfiesExpression":
      case "TSNonNullExpression":
      case "TSTypeAssertion":
        this.assertion(node)
        return this.optional(child(node, "expression"))
      default:
        return this.optional(child(node, "expression"))
    }
  }

  /** The TypeScript of an assertion, blanked. */
  private assertion(node: Node): void {
    const expression = child(node, "expression")
    switch (node.type) {
      case "TSAsExpression":
      case "TSSatisfiesExpression":
        if (expression !== undefined) this.blank(expression.end, node.end)
        return
      case "TSNonNullExpression":
        if (this.text[node.end - 1] === "!") this.blank(node.end - 1, node.end)
        return
      case "TSTypeAssertion": {
        const type = child(node, "typeAnnotation")
        if (type === undefined) return
        const close = this.skipForward(type.end)
        if (this.text[close] === ">") this.blank(node.start, close + 1)
        return
      }
    }
  }

  /** The wrappers and members of a path from `mcp`: only their TypeScript is blanked. */
  private wrappers(node: Node): void {
    this.assertion(node)
    const inner = child(node, node.type === "MemberExpression" ? "object" : "expression")
    if (inner !== undefined) this.wrappers(inner)
  }

  private member(node: Node): void {
    const object = child(node, "object")
    const property = child(node, "property")
    if (object === undefined || property === undefined) return
    const key = literalKey(node)
    if (node["computed"] === true && key === undefined) {
      const path = mcpPath(object)
      if (path !== undefined && path.names.length < 2) {
        this.problem("computed", property.start, computedMessage(path.names))
        this.wrappers(object)
        return this.visit(property)
      }
    }
    if (key === "mcp") {
      const target = unwrap(object)
      if (
        (target.type === "Identifier" && GLOBALS.has(target["name"] as string)) ||
        (target.type === "ThisExpression" && this.topThis)
      )
        this.problem(
          "escape",
          node.start,
          "`mcp` reached through the global object would bypass the checks: call tools as `mcp.<namespace>.<tool>(…)`"
        )
    }
    this.visit(object)
    if (node["computed"] === true) this.visit(property)
  }

  private call(node: Node): void {
    const callee = child(node, "callee")
    if (callee === undefined) return
    const path = mcpPath(callee)
    if (path !== undefined && path.names.length === 2) {
      this.calls.push({ namespace: path.names[0]!, name: path.names[1]!, at: path.root.start })
      this.wrappers(callee)
    } else {
      const target = name(unwrap(callee))
      if (target === "require") this.module(node, "`require(…)`")
      else if (target === "Function")
        this.problem("escape", node.start, "`Function(…)` builds code that is not checked before it runs")
      this.visit(callee)
    }
    this.blankType(child(node, "typeArguments"))
    this.statements(children(node, "arguments"))
  }

  private decorators(node: Node): void {
    const first = children(node, "decorators")[0]
    if (first)
      this.problem(
        this.ts ? "typescript" : "syntax",
        first.start,
        "decorators are not supported: call the function on the class or method instead"
      )
  }

  // -- declarations

  private declarations(node: Node): void {
    for (const d of children(node, "declarations")) {
      if (d === null) continue
      const id = child(d, "id")
      this.pattern(id, true)
      const type = id !== undefined ? child(id, "typeAnnotation") : undefined
      if (d["definite"] === true && type !== undefined) this.blankMarkBefore(type.start, "!")
      this.optional(child(d, "init"))
    }
  }

  /** A binding (`declaring`: a declaration, a parameter, a catch clause) or an assignment target. */
  private pattern(node: Node | undefined, declaring: boolean): void {
    if (node === undefined) return
    const type = child(node, "typeAnnotation")
    if (node["optional"] === true && (node.type.endsWith("Pattern") || node.type === "Identifier")) {
      if (type !== undefined) this.blankMarkBefore(type.start, "?")
      else this.blankMarkBefore(node.end, "?")
    }
    switch (node.type) {
      case "Identifier":
        if (!declaring) return this.visit(node)
        if (node["name"] === "mcp") this.problem("shadow", node.start, SHADOW)
        this.decorators(node)
        return this.blankType(type)
      case "ObjectPattern":
        for (const p of children(node, "properties")) {
          if (p === null) continue
          if (p.type === "Property") {
            if (p["computed"] === true) this.optional(child(p, "key"))
            this.pattern(child(p, "value"), declaring)
          } else this.pattern(p, declaring)
        }
        this.decorators(node)
        return this.blankType(type)
      case "ArrayPattern":
        for (const e of children(node, "elements")) if (e !== null) this.pattern(e, declaring)
        this.decorators(node)
        return this.blankType(type)
      case "AssignmentPattern":
        this.pattern(child(node, "left"), declaring)
        this.optional(child(node, "right"))
        this.decorators(node)
        return this.blankType(type)
      case "RestElement":
        this.pattern(child(node, "argument"), declaring)
        this.decorators(node)
        return this.blankType(type)
      case "TSParameterProperty":
        this.problem(
          "typescript",
          node.start,
          "parameter properties (`constructor(private x: T)`) are not supported (they are not erasable TypeScript): declare the field and assign it in the constructor"
        )
        this.decorators(node)
        return this.pattern(child(node, "parameter"), declaring)
      default:
        return this.visit(node)
    }
  }

  // -- functions and classes

  private fn(node: Node): void {
    const arrow = node.type === "ArrowFunctionExpression"
    this.pattern(child(node, "id"), true)
    this.blankType(child(node, "typeParameters"))
    const outer = this.topThis
    if (!arrow) this.topThis = false
    children(node, "params").forEach((p, i) => {
      if (p === null) return
      if (i === 0 && p.type === "Identifier" && p["name"] === "this") {
        // `this: T` is a type only, with its comma.
        const after = this.skipForward(p.end)
        this.blank(p.start, this.text[after] === "," ? after + 1 : p.end)
      } else this.pattern(p, true)
    })
    const returnType = child(node, "returnType")
    if (arrow && returnType !== undefined) this.arrowReturnType(returnType)
    else this.blankType(returnType)
    this.optional(child(node, "body"))
    this.topThis = outer
  }

  /** `(a): T => …`: when a line break separates `)` from `=>` once blanked, the `)` moves to the type's end. */
  private arrowReturnType(type: Node): void {
    const paren = this.skipBackward(type.start) - 1
    if (this.text[paren] !== ")") return this.blankType(type)
    for (let i = paren; i < type.end; i++)
      if (isLineBreak(this.text.charCodeAt(i))) return this.blank(paren, type.end, PAREN)
    this.blankType(type)
  }

  private cls(node: Node): void {
    if (node["declare"] === true) return this.blankStatement(node)
    this.decorators(node)
    if (node["abstract"] === true && this.text.startsWith("abstract", node.start))
      this.blank(node.start, node.start + "abstract".length)
    const id = child(node, "id")
    this.pattern(id, true)
    const typeParameters = child(node, "typeParameters")
    this.blankType(typeParameters)
    const superClass = child(node, "superClass")
    this.optional(superClass)
    const superTypeArguments = child(node, "superTypeArguments")
    this.blankType(superTypeArguments)
    const implemented = children(node, "implements")
    const last = implemented[implemented.length - 1]
    if (last) {
      // The `implements` keyword follows the last of the name, the type parameters and the `extends` clause.
      const before = Math.max(
        id?.end ?? node.start + "class".length,
        typeParameters?.end ?? 0,
        superClass?.end ?? 0,
        superTypeArguments?.end ?? 0
      )
      const keyword = this.skipForward(before)
      if (this.text.startsWith("implements", keyword)) this.blank(keyword, last.end)
    }
    const outer = this.topThis
    this.topThis = false
    const body = child(node, "body")
    for (const m of body !== undefined ? children(body, "body") : []) if (m !== null) this.classMember(m)
    this.topThis = outer
  }

  private classMember(node: Node): void {
    switch (node.type) {
      case "TSIndexSignature":
      case "TSAbstractMethodDefinition":
      case "TSAbstractPropertyDefinition":
      case "TSAbstractAccessorProperty":
        return this.blankStatement(node)
      case "MethodDefinition": {
        const value = child(node, "value")
        // An overload (no body).
        if (value === undefined || value.type === "TSEmptyBodyFunctionExpression") return this.blankStatement(node)
        this.memberHead(node)
        if (node["optional"] === true) this.blankMarkBefore(value.start, "?")
        return this.fn(value)
      }
      case "PropertyDefinition":
      case "AccessorProperty": {
        if (node["declare"] === true) return this.blankStatement(node)
        this.openEnd(node)
        this.memberHead(node)
        const type = child(node, "typeAnnotation")
        for (const [flag, mark] of [
          ["optional", "?"],
          ["definite", "!"]
        ] as const) {
          if (node[flag] !== true) continue
          if (type !== undefined) this.blankMarkBefore(type.start, mark)
          else {
            const key = child(node, "key")
            if (key === undefined) continue
            const after = node["computed"] === true ? this.skipForward(key.end) + 1 : key.end
            this.blankMarkAt(after, mark)
          }
        }
        this.blankType(type)
        return this.optional(child(node, "value"))
      }
      default:
        // StaticBlock
        return this.generic(node)
    }
  }

  /** Decorators, TypeScript modifiers (blanked: they come before the key) and a computed key. */
  private memberHead(node: Node): void {
    this.decorators(node)
    const key = child(node, "key")
    if (key === undefined) return
    const decorators = children(node, "decorators")
    const lastDecorator = decorators[decorators.length - 1]
    let p = this.skipForward(lastDecorator ? lastDecorator.end : node.start)
    while (p < key.start) {
      const word = /^[a-z]+/.exec(this.text.slice(p, key.start))?.[0]
      if (word === undefined) {
        if (this.text[p] !== "*") break
        p = this.skipForward(p + 1)
        continue
      }
      if (TS_MODIFIERS.has(word)) this.blank(p, p + word.length)
      p = this.skipForward(p + word.length)
    }
    if (node["computed"] === true) this.visit(key)
  }
}

// -- positions -----------------------------------------------------------------------

/** 1-based line and column of offsets in `source`. */
const locator = (source: string) => {
  const starts = [0]
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 13 && source.charCodeAt(i + 1) === 10) continue
    if (isLineBreak(c)) starts.push(i + 1)
  }
  return (offset: number): { readonly line: number; readonly column: number } => {
    const at = Math.min(Math.max(offset, 0), source.length)
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= at) low = mid
      else high = mid - 1
    }
    return { line: low + 1, column: at - starts[low]! + 1 }
  }
}

/**
 * Where a parser error is: of its labels, the last in the text (the others
 * give context before it: "opened here", "already declared here").
 */
const errorAt = (error: Oxc.OxcError): number | undefined =>
  error.labels.length > 0 ? Math.max(...error.labels.map((l) => l.start)) : undefined

// -- the entry point -----------------------------------------------------------------

/**
 * Analyses the body of an async function written by an agent: the tools it
 * calls, or why it is refused; for TypeScript, the JavaScript with the types
 * blanked (same length, same lines).
 */
export const analyze = (source: string, options: { readonly language: "javascript" | "typescript" }): Analysis => {
  const ts = options.language === "typescript"
  const text = PREFIX + source + SUFFIX
  const oxc = parser()
  const result = oxc.parseSync(ts ? "agent.ts" : "agent.js", text, {
    lang: ts ? "ts" : "js",
    sourceType: "script",
    preserveParens: true,
    showSemanticErrors: true,
    // Builds the JS tree straight from the parser's memory: several times faster than the JSON of the default mode
    // (64-bit little-endian platforms only).
    ...(rawTransfer() ? { experimentalRawTransfer: true } : {})
  })
  const locate = locator(source)
  const at = (offset: number) => locate(offset - PREFIX.length)
  const refuse = (found: ReadonlyArray<Found>): Analysis => ({
    _tag: "Refused",
    problems: [...found].sort((a, b) => a.at - b.at).map((f) => ({ kind: f.kind, message: f.message, ...at(f.at) }))
  })
  const syntax = (errors: ReadonlyArray<Oxc.OxcError>): Analysis =>
    refuse(
      errors.map((e) => ({
        kind: "syntax",
        message: e.helpMessage ? `${e.message} (${e.helpMessage})` : e.message,
        at: errorAt(e) ?? PREFIX.length
      }))
    )

  // The program must be the wrapper, whole: code that closes the function it is in would run outside it.
  const program = result.program as unknown as Node
  const statements = children(program, "body")
  const statement = statements[0]
  const arrow = statement ? child(statement, "expression") : undefined
  const fn = arrow?.type === "ParenthesizedExpression" ? child(arrow, "expression") : undefined
  const body = fn?.type === "ArrowFunctionExpression" ? child(fn, "body") : undefined
  const end = text.length - SUFFIX.length + 2
  if (body === undefined || statements.length !== 1 || body.start !== PREFIX.length - 2 || body.end !== end) {
    if (result.errors.length > 0) return syntax(result.errors)
    const closing = body !== undefined && body.end < end ? body.end - 1 : PREFIX.length
    return refuse([
      {
        kind: "syntax",
        message: "unbalanced braces: this `}` closes the function the code runs in",
        at: closing
      }
    ])
  }

  const walker = new Walker(
    text,
    ts,
    result.comments,
    oxc.visitorKeys as unknown as Record<string, ReadonlyArray<string>>
  )
  walker.statements(children(body, "body"))

  if (result.errors.length > 0) {
    // The parser's semantic checks also refuse modules in a function: those are reported as modules.
    const modules = walker.problems.filter((p) => p.until !== undefined)
    const errors = result.errors.filter((e) => {
      const start = errorAt(e)
      return start === undefined || !modules.some((m) => start >= m.at && start < m.until!)
    })
    if (errors.length > 0) return syntax(errors)
  }
  if (walker.problems.length > 0) return refuse(walker.problems)

  const seen = new Set<string>()
  const references: Array<Reference> = []
  for (const call of [...walker.calls].sort((a, b) => a.at - b.at)) {
    const key = JSON.stringify([call.namespace, call.name])
    if (seen.has(key)) continue
    seen.add(key)
    references.push({ namespace: call.namespace, name: call.name, ...at(call.at) })
  }
  const javascript = ts
    ? applyBlanks(
        text,
        [...walker.blanks].sort((a, b) => a[1] - b[1])
      ).slice(PREFIX.length, PREFIX.length + source.length)
    : source
  return { _tag: "Ok", javascript, references }
}
