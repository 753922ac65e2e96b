/**
 * What `fe_skeleton` knows of one file: its exports (name, kind, signature)
 * and imports, read from the syntax tree of a real parser (oxc, loaded on
 * first use so the server's start does not pay for it). Signatures are cut
 * from the source by the nodes' spans and collapsed to one line.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

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

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }
export type Parse = (
  filename: string,
  source: string
) => { program: { body: ReadonlyArray<Node> }; errors: ReadonlyArray<any> }

let parser: Parse | undefined

/**
 * The parser, loaded once (a native module: its load is what the first
 * call pays).
 *
 * @category parsing
 * @since 0.1.0
 */
export const loadParser: Effect.Effect<Parse, Error> = Effect.suspend(() =>
  parser !== undefined
    ? Effect.succeed(parser)
    : Effect.tryPromise({
        try: () => import("oxc-parser"),
        catch: (cause) => new Error(`The parser (oxc-parser) could not be loaded: ${String(cause)}`)
      }).pipe(
        Effect.map((module) => {
          // Raw transfer builds the JS syntax tree straight from the parser's memory, several times faster than the
          // JSON the default mode goes through; it needs a 64-bit little-endian platform, which rawTransferSupported says.
          const raw = module.rawTransferSupported()
          parser = (filename, source) =>
            module.parseSync(filename, source, {
              sourceType: "module",
              ...(raw ? { experimentalRawTransfer: true } : {})
            }) as unknown as ReturnType<Parse>
          return parser
        })
      )
)

const maxSignature = 160

/** Source text on one line: whitespace runs collapsed, cut at `max` characters with an ellipsis. */
const oneLine = (text: string, max = maxSignature): string => {
  // Members on lines of their own (interface and object type bodies) get the "; " their line breaks stood for.
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("//"))
  let joined = lines[0] ?? ""
  for (const line of lines.slice(1)) {
    const last = joined[joined.length - 1] ?? ""
    const member = /[\w)\]>'"`?]/.test(last) && /^[\w[('"`]/.test(line) && !/^(extends|implements)\b/.test(line)
    joined += member ? `; ${line}` : ` ${line}`
  }
  const collapsed = joined.replace(/\s+/g, " ").trim()
  return collapsed.length <= max ? collapsed : `${collapsed.slice(0, max - 1)}…`
}

const isPascal = (name: string) => /^[A-Z]/.test(name)
const isHook = (name: string) => /^use[A-Z0-9]/.test(name)

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

const functionKind = (name: string, fn: Node, jsxFile: boolean): ExportKind =>
  isHook(name)
    ? "hook"
    : // JSX only parses in .jsx/.tsx files (and plain .js), so the walk is skipped elsewhere.
      isPascal(name) && jsxFile && containsJsx(fn.body)
      ? "component"
      : "function"

/** `(a: number, b = 2): number` of a function: from its type parameters or parameters to its body. */
const functionSignature = (source: string, fn: Node): string => {
  const start = fn.typeParameters?.start ?? (fn.id !== null && fn.id !== undefined ? fn.id.end : fn.start)
  const end = fn.body !== null && fn.body !== undefined ? fn.body.start : fn.end
  let text = source.slice(start, end).trim()
  if (fn.type === "ArrowFunctionExpression") text = text.replace(/=>\s*$/, "").trim()
  if (text.endsWith(";")) text = text.slice(0, -1)
  return oneLine(text)
}

const classSignature = (source: string, node: Node): string => {
  const heritage =
    node.superClass !== null && node.superClass !== undefined
      ? ` extends ${source.slice(node.superClass.start, (node.superTypeArguments ?? node.superClass).end)}`
      : ""
  const implemented =
    Array.isArray(node.implements) && node.implements.length > 0
      ? ` implements ${node.implements.map((i: Node) => source.slice(i.start, i.end)).join(", ")}`
      : ""
  const members = (node.body?.body ?? [])
    .filter(
      (m: Node) =>
        m.accessibility !== "private" && m.accessibility !== "protected" && m.key?.type !== "PrivateIdentifier"
    )
    .map((m: Node) => {
      const name = m.key?.name ?? (m.key ? source.slice(m.key.start, m.key.end) : "")
      const prefix = m.static === true ? "static " : ""
      if (m.type === "MethodDefinition") {
        return m.kind === "constructor"
          ? `constructor${functionSignature(source, { ...m.value, id: null, start: m.value.start })}`
          : `${prefix}${m.kind === "get" ? "get " : m.kind === "set" ? "set " : ""}${name}${functionSignature(source, { ...m.value, id: null })}`
      }
      return `${prefix}${name}${m.typeAnnotation ? source.slice(m.typeAnnotation.start, m.typeAnnotation.end) : ""}`
    })
  const typeParameters = node.typeParameters ? source.slice(node.typeParameters.start, node.typeParameters.end) : ""
  return oneLine(
    `${typeParameters}${heritage}${implemented}${members.length > 0 ? ` { ${members.join("; ")} }` : ""}`,
    240
  )
}

/** The declaration's own text without `export`/`declare` and its name: a type's definition, an enum's members. */
const declarationText = (source: string, node: Node): string => {
  const after = source.slice(node.id.end, node.end).trim()
  return oneLine(after.endsWith(";") ? after.slice(0, -1) : after, 200)
}

const variableSignature = (source: string, declarator: Node): string => {
  const annotation = declarator.id?.typeAnnotation
  if (annotation) return oneLine(source.slice(annotation.start, annotation.end))
  const init = declarator.init
  if (init === null || init === undefined) return ""
  if (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression")
    return functionSignature(source, { ...init, id: null })
  if (
    init.type === "CallExpression" &&
    init.arguments?.[0] &&
    ["ArrowFunctionExpression", "FunctionExpression"].includes(init.arguments[0].type)
  ) {
    // memo((props: P) => …), forwardRef(…), styled(…)
    return `${oneLine(source.slice(init.callee.start, init.callee.end), 40)}(${functionSignature(source, { ...init.arguments[0], id: null })})`
  }
  return `= ${oneLine(source.slice(init.start, init.end), 60)}`
}

const variableKind = (name: string, declarator: Node, jsxFile: boolean): ExportKind => {
  const init = declarator.init
  const fn =
    init?.type === "ArrowFunctionExpression" || init?.type === "FunctionExpression"
      ? init
      : init?.type === "CallExpression" &&
          ["ArrowFunctionExpression", "FunctionExpression"].includes(init.arguments?.[0]?.type)
        ? init.arguments[0]
        : undefined
  return fn === undefined ? (isHook(name) ? "hook" : "const") : functionKind(name, fn, jsxFile)
}

/** The names a destructuring pattern binds: `{ a: x, b = 1, ...rest }` binds x, b and rest. */
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

/** The exports one declaration makes (a `const a = 1, b = 2` makes two). */
const exportsOf = (source: string, node: Node, jsxFile: boolean, asName?: string): Array<ExportEntry> => {
  switch (node.type) {
    case "FunctionDeclaration":
    case "TSDeclareFunction": {
      const name = asName ?? node.id?.name ?? "default"
      return [
        { name, kind: functionKind(node.id?.name ?? name, node, jsxFile), signature: functionSignature(source, node) }
      ]
    }
    case "ClassDeclaration":
      return [{ name: asName ?? node.id?.name ?? "default", kind: "class", signature: classSignature(source, node) }]
    case "TSInterfaceDeclaration":
      return [{ name: asName ?? node.id.name, kind: "interface", signature: declarationText(source, node) }]
    case "TSTypeAliasDeclaration":
      return [{ name: asName ?? node.id.name, kind: "type", signature: declarationText(source, node) }]
    case "TSEnumDeclaration":
      return [{ name: asName ?? node.id.name, kind: "enum", signature: declarationText(source, node) }]
    case "VariableDeclaration":
      return node.declarations.flatMap((declarator: Node) =>
        declarator.id?.type === "Identifier"
          ? [
              {
                name: asName ?? declarator.id.name,
                kind: variableKind(declarator.id.name, declarator, jsxFile),
                signature: variableSignature(source, declarator)
              }
            ]
          : // Destructuring: every bound name, without a signature.
            boundNames(declarator.id).map((name) => ({ name, kind: "const" as const, signature: "" }))
      )
    case "TSModuleDeclaration":
      return [{ name: asName ?? source.slice(node.id.start, node.id.end), kind: "type", signature: "namespace" }]
    default:
      // export default <expression>
      return [
        { name: asName ?? "default", kind: "const", signature: `= ${oneLine(source.slice(node.start, node.end), 60)}` }
      ]
  }
}

const nameOf = (node: Node | null | undefined): string =>
  node === null || node === undefined ? "" : node.type === "Identifier" ? node.name : String(node.value ?? "")

/**
 * The skeleton of one file's source: its exports (functions, components,
 * hooks, classes, types, interfaces, enums, consts and re-exports, in source
 * order, an overloaded function once per signature) and its imports.
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
 * @category parsing
 * @since 0.1.0
 */
export const extract = (parse: Parse, path: string, source: string): FileSkeleton => {
  const result = parse(path, source)
  const jsxFile = /\.([jt]sx|js|mjs|cjs)$/.test(path)
  const exports: Array<ExportEntry> = []
  const imports: Array<ImportEntry> = []
  const locals = new Map<string, Node>()
  const overloaded = new Set<string>()
  for (const node of result.program.body) {
    if (node.type === "FunctionDeclaration" || node.type === "ClassDeclaration" || node.type.startsWith("TS")) {
      if (node.id?.name !== undefined) locals.set(node.id.name, node)
    } else if (node.type === "VariableDeclaration") {
      for (const declarator of node.declarations)
        if (declarator.id?.type === "Identifier")
          locals.set(declarator.id.name, { ...node, declarations: [declarator] })
    }
  }
  for (const node of result.program.body) {
    if (node.type === "ImportDeclaration") {
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
    } else if (node.type === "ExportNamedDeclaration") {
      const declaration = node.declaration
      if (declaration?.type === "TSDeclareFunction") overloaded.add(declaration.id?.name)
      // An overloaded function shows its overloads, not its implementation's signature (as TypeScript does).
      if (declaration && !(declaration.type === "FunctionDeclaration" && overloaded.has(declaration.id?.name))) {
        exports.push(...exportsOf(source, declaration, jsxFile))
      }
      for (const specifier of node.specifiers ?? []) {
        const local = nameOf(specifier.local)
        const exported = nameOf(specifier.exported)
        if (node.source) {
          exports.push({
            name: exported,
            kind: "reexport",
            signature: local === exported ? "" : `${local} as ${exported}`,
            from: node.source.value
          })
        } else {
          const declaration = locals.get(local)
          exports.push(
            ...(declaration !== undefined
              ? exportsOf(source, declaration, jsxFile, exported)
              : [{ name: exported, kind: "const" as const, signature: local === exported ? "" : `= ${local}` }])
          )
        }
      }
    } else if (node.type === "ExportDefaultDeclaration") {
      const declaration = node.declaration
      const local = declaration.type === "Identifier" ? locals.get(declaration.name) : undefined
      const entries = exportsOf(source, local ?? declaration, jsxFile, "default")
      exports.push(
        ...entries.map((entry) => {
          const ownName = declaration.id?.name ?? (declaration.type === "Identifier" ? declaration.name : undefined)
          return ownName === undefined
            ? { ...entry, isDefault: true }
            : {
                ...entry,
                name: ownName,
                isDefault: true,
                kind:
                  ownName !== undefined && entry.kind === "function"
                    ? functionKind(ownName, local ?? declaration, jsxFile)
                    : entry.kind
              }
        })
      )
    } else if (node.type === "ExportAllDeclaration") {
      exports.push({
        name: node.exported ? nameOf(node.exported) : "*",
        kind: "reexport",
        signature: node.exported ? `* as ${nameOf(node.exported)}` : "*",
        from: node.source.value
      })
    } else if (node.type === "TSExportAssignment") {
      exports.push({
        name: "export =",
        kind: "const",
        signature: `= ${oneLine(source.slice(node.expression.start, node.expression.end), 60)}`
      })
    }
  }
  const error = result.errors[0]
  return {
    path,
    exports,
    imports,
    ...(error !== undefined ? { error: String(error.message ?? error) } : {})
  }
}
