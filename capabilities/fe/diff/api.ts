/**
 * The API of one file before and after a change, compared: its exports
 * (added, removed, or changed in kind or signature, as `skeleton/extract.ts`
 * prints them), the props of its components (the members of the props type
 * of a React component's first parameter, followed through local interfaces,
 * type aliases and intersections; the props a Vue, Svelte or Astro
 * component declares), and its imports (modules and names added or
 * removed). Everything is read from the syntax tree; nothing compares lines.
 *
 * @since 0.4.0
 */
import { extractComponent } from "../skeleton/components.ts"
import { type ExportEntry, extract, type FileSkeleton, type Parse } from "../skeleton/extract.ts"

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }

/**
 * An export as `fe_diff` shows it.
 *
 * **Example**
 *
 * ```ts
 * import type { ExportView } from "./capabilities/fe/diff/api.ts"
 *
 * const view: ExportView = { name: "formatPrice", kind: "function", signature: "(cents: number): string" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ExportView {
  /** The exported name; a default export shows as `default` or `Name (default)`. */
  readonly name: string
  readonly kind: string
  /** The signature (a re-export's module appended as `from "…"`); overloads joined with ` | `. */
  readonly signature: string
}

/**
 * An export whose kind or signature changed.
 *
 * **Example**
 *
 * ```ts
 * import type { ChangedExport } from "./capabilities/fe/diff/api.ts"
 *
 * const changed: ChangedExport = {
 *   name: "formatPrice",
 *   before: { kind: "function", signature: "(cents: number): string" },
 *   after: { kind: "function", signature: "(cents: number, currency: string): string" }
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ChangedExport {
  readonly name: string
  /** The signatures around what changed (at most `shownSignature` characters each, `…` where cut). */
  readonly before: { readonly kind: string; readonly signature: string }
  readonly after: { readonly kind: string; readonly signature: string }
  /**
   * The members that changed, when the signature has some: an interface's or
   * object type's members, a class's public members, a function's parameters
   * (a parameter's object type by member, as `param.member`).
   */
  readonly members?: MemberChanges
  /** An unannotated const whose value changed kind (its inferred type), e.g. `value: number → string`. */
  readonly note?: string
}

/**
 * Members added, removed or changed (as `name?: type`, cut at
 * `shownSignature` characters).
 *
 * **Example**
 *
 * ```ts
 * import type { MemberChanges } from "./capabilities/fe/diff/api.ts"
 *
 * const members: MemberChanges = { added: ["extra: number"], removed: [], changed: [] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface MemberChanges {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly changed: ReadonlyArray<{ readonly name: string; readonly before: string; readonly after: string }>
}

/**
 * The longest signature or member `fe_diff` shows (the comparison reads
 * the whole signature; what is shown is cut around the change).
 *
 * **Example**
 *
 * ```ts
 * import { shownSignature } from "./capabilities/fe/diff/api.ts"
 *
 * shownSignature // => 160
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const shownSignature = 160

/**
 * The props of one component that changed: members as `name?: type`.
 *
 * **Example**
 *
 * ```ts
 * import type { PropsChange } from "./capabilities/fe/diff/api.ts"
 *
 * const change: PropsChange = { component: "Button", added: ["disabled?: boolean"], removed: [], changed: [] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface PropsChange {
  readonly component: string
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly changed: ReadonlyArray<{ readonly name: string; readonly before: string; readonly after: string }>
}

/**
 * Imports of one module added or removed; `module` says the module itself
 * is new (or gone), not only some of its names.
 *
 * **Example**
 *
 * ```ts
 * import type { ImportChange } from "./capabilities/fe/diff/api.ts"
 *
 * const added: ImportChange = { from: "zod", names: ["z"], module: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ImportChange {
  readonly from: string
  readonly names: ReadonlyArray<string>
  readonly module: boolean
}

/**
 * The API of a file: its skeleton and its components' props.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { type FileApi, fileApi } from "./capabilities/fe/diff/api.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const api: Effect.Effect<FileApi, Error> = Effect.map(loadParser, (parse) => fileApi(parse, "a.ts", "export const a = 1"))
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface FileApi {
  readonly skeleton: FileSkeleton
  /** Component export key → props members by name (absent when the props are not known). */
  readonly props: ReadonlyMap<string, ReadonlyMap<string, string>>
  /** The parser that read it (a changed signature's members are read with it). */
  readonly parse?: Parse | undefined
}

/**
 * What changed in one file's API.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { type ApiDiff, diffApi, fileApi } from "./capabilities/fe/diff/api.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const added: Effect.Effect<ApiDiff, Error> = Effect.map(loadParser, (parse) =>
 *   diffApi(undefined, fileApi(parse, "a.ts", "export const a = 1"))
 * )
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ApiDiff {
  readonly exports: {
    readonly added: ReadonlyArray<ExportView>
    readonly removed: ReadonlyArray<ExportView>
    readonly changed: ReadonlyArray<ChangedExport>
  }
  readonly props: ReadonlyArray<PropsChange>
  readonly imports: { readonly added: ReadonlyArray<ImportChange>; readonly removed: ReadonlyArray<ImportChange> }
  /** The export keys removed or changed (what importers may use), with `default` for the default export. */
  readonly breaking: ReadonlyArray<{ readonly name: string; readonly key: string }>
}

/** Files `fe_diff` reads as scripts. */
const scriptExtensions = [".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs"]
/** Files read through `skeleton/components.ts`. */
const componentFileExtensions = [".vue", ".svelte", ".astro"]

/**
 * Whether `fe_diff` compares a file's API: a script or a Vue, Svelte or
 * Astro component.
 *
 * **Example**
 *
 * ```ts
 * import { isApiSource } from "./capabilities/fe/diff/api.ts"
 *
 * isApiSource("src/Button.tsx") // => true
 * isApiSource("src/styles.css") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isApiSource = (path: string): boolean =>
  [...scriptExtensions, ...componentFileExtensions].some((ext) => path.endsWith(ext))

const collapse = (text: string): string => text.replace(/\s+/g, " ").trim()

const slice = (text: string, node: Node | null | undefined): string =>
  node === null || node === undefined ? "" : collapse(text.slice(node.start, node.end))

/** The key an export is compared by: `default` for the default export, `* from "m"` for `export *`. */
const keyOf = (entry: ExportEntry): string =>
  entry.isDefault === true ? "default" : entry.name === "*" ? `* from ${entry.from ?? ""}` : entry.name

const displayName = (entry: ExportEntry): string =>
  entry.isDefault === true
    ? entry.name === "default"
      ? "default"
      : `${entry.name} (default)`
    : entry.name === "*"
      ? `* from "${entry.from ?? ""}"`
      : entry.name

const signatureOf = (entry: ExportEntry): string => {
  const base = entry.async === true ? `async ${entry.signature}` : entry.signature
  return entry.kind === "reexport" && entry.name !== "*" && entry.from !== undefined
    ? `${base}${base === "" ? "" : " "}from "${entry.from}"`
    : base
}

/**
 * The kind of an unannotated const's value when it is a literal (what its
 * inferred type is made of): number, string, boolean… undefined otherwise.
 */
const valueKind = (signature: string): string | undefined => {
  const value = signature.slice(2).trim()
  if (/^-?(\d|\.\d)[\d_.eExXa-fA-FoObB]*$/.test(value)) return "number"
  if (/^-?\d[\d_]*n$/.test(value)) return "bigint"
  if (/^["'`]/.test(value)) return "string"
  if (value === "true" || value === "false") return "boolean"
  if (value === "null") return "null"
  if (value === "undefined") return "undefined"
  if (value.startsWith("[")) return "array"
  if (value.startsWith("{")) return "object"
  if (value.startsWith("/") && value.length > 1) return "RegExp"
  return undefined
}

/**
 * What a signature is compared by: an unannotated const's initializer
 * (`= …`) is its value, not its API — only its literal kind (a number
 * becoming a string changes its inferred type); an initializer that is not
 * a literal is not compared.
 */
const comparable = (view: ExportView): string =>
  view.kind === "const" && view.signature.startsWith("= ") ? `= ${valueKind(view.signature) ?? ""}` : view.signature

/** A text cut at `max` characters with an ellipsis. */
const bounded = (text: string, max = shownSignature): string =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`

/** An export as shown: its signature cut (an unannotated const's value at 60 characters, as the skeleton shows it). */
const shown = (view: ExportView): ExportView => ({
  ...view,
  signature: bounded(view.signature, view.kind === "const" && view.signature.startsWith("= ") ? 62 : shownSignature)
})

/**
 * Two signatures as shown: whole when both are short, else each cut to the
 * part around where they differ (the common start and end elided with `…`).
 */
const focus = (before: string, after: string, max = shownSignature): readonly [string, string] => {
  if (before.length <= max && after.length <= max) return [before, after]
  let prefix = 0
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) prefix++
  let suffix = 0
  while (
    suffix < before.length - prefix &&
    suffix < after.length - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  )
    suffix++
  const context = Math.floor(max / 4)
  const show = (text: string): string => {
    if (text.length <= max) return text
    const start = Math.max(0, prefix - context)
    const end = Math.min(text.length, text.length - suffix + context)
    const head = start > 0 ? "…" : ""
    const tail = end < text.length ? "…" : ""
    const room = max - head.length - tail.length
    const middle = text.slice(start, end)
    return middle.length <= room ? `${head}${middle}${tail}` : `${head}${middle.slice(0, room - 1)}…`
  }
  return [show(before), show(after)]
}

/** Exports grouped by key (an overloaded function's signatures together). */
const exportMap = (skeleton: FileSkeleton): Map<string, ExportView> => {
  // Signatures are whole here (`extract` with no cut): shown bounded, compared whole.
  const map = new Map<string, ExportView>()
  for (const entry of skeleton.exports) {
    const key = keyOf(entry)
    const known = map.get(key)
    const view = { name: displayName(entry), kind: entry.kind, signature: signatureOf(entry) }
    map.set(key, known === undefined ? view : { ...known, signature: `${known.signature} | ${view.signature}` })
  }
  return map
}

// -- props ----------------------------------------------------------------------

/** The members of a props type, by name; undefined when the type is not read (an imported or generic type). */
const membersOf = (
  text: string,
  types: ReadonlyMap<string, Node>,
  type: Node | null | undefined,
  depth = 0
): Map<string, string> | undefined => {
  if (type === null || type === undefined || depth > 8) return undefined
  switch (type.type) {
    case "TSTypeLiteral":
      return memberList(text, type.members ?? [])
    case "TSParenthesizedType":
      return membersOf(text, types, type.typeAnnotation, depth + 1)
    case "TSIntersectionType": {
      const all = new Map<string, string>()
      for (const part of type.types ?? []) {
        const members = membersOf(text, types, part, depth + 1)
        if (members === undefined) all.set(`...${slice(text, part)}`, `...${slice(text, part)}`)
        else for (const [name, member] of members) all.set(name, member)
      }
      return all
    }
    case "TSTypeReference": {
      const name = type.typeName?.type === "Identifier" ? type.typeName.name : undefined
      const declaration = name === undefined ? undefined : types.get(name)
      // Readonly<P>, PropsWithChildren<P>: the members of P (and children).
      if (declaration === undefined) {
        const argument = type.typeArguments?.params?.[0]
        const wrapper = name ?? slice(text, type.typeName)
        if (argument !== undefined && /(^|\.)(Readonly|PropsWithChildren)$/.test(wrapper)) {
          const members = membersOf(text, types, argument, depth + 1)
          if (members !== undefined && wrapper.endsWith("PropsWithChildren")) {
            members.set("children", "children?: ReactNode")
          }
          return members
        }
        return undefined
      }
      if (declaration.type === "TSInterfaceDeclaration") {
        const members = new Map<string, string>()
        for (const heritage of declaration.extends ?? []) {
          const inherited = membersOf(
            text,
            types,
            {
              ...heritage,
              type: "TSTypeReference",
              typeName: heritage.expression,
              typeArguments: heritage.typeArguments
            },
            depth + 1
          )
          if (inherited === undefined) members.set(`...${slice(text, heritage)}`, `...${slice(text, heritage)}`)
          else for (const [key, member] of inherited) members.set(key, member)
        }
        for (const [key, member] of memberList(text, declaration.body?.body ?? [])) members.set(key, member)
        return members
      }
      return membersOf(text, types, declaration.typeAnnotation, depth + 1)
    }
    default:
      return undefined
  }
}

const memberList = (text: string, members: ReadonlyArray<Node>): Map<string, string> => {
  const map = new Map<string, string>()
  for (const member of members) {
    const name =
      member.key?.type === "Identifier"
        ? member.key.name
        : member.key?.type === "Literal"
          ? String(member.key.value)
          : slice(text, member.key ?? member)
    map.set(name, slice(text, member).replace(/[;,]$/, ""))
  }
  return map
}

/** The names a destructured props parameter binds, when its type is not written (plain JavaScript). */
const patternMembers = (pattern: Node): Map<string, string> => {
  const map = new Map<string, string>()
  for (const property of pattern.properties ?? []) {
    if (property.type === "RestElement") continue
    const key = property.key?.type === "Identifier" ? property.key.name : undefined
    if (key !== undefined) map.set(key, property.value?.type === "AssignmentPattern" ? `${key}?` : key)
  }
  return map
}

/** The props of a React component from its function (and the variable's annotation, e.g. `FC<P>`). */
const componentProps = (
  text: string,
  types: ReadonlyMap<string, Node>,
  fn: Node,
  propsType: Node | undefined
): Map<string, string> | undefined => {
  if (propsType !== undefined) return membersOf(text, types, propsType)
  let parameter: Node | undefined = fn.params?.[0]
  if (parameter === undefined) return new Map()
  if (parameter.type === "AssignmentPattern") parameter = parameter.left
  const annotation = parameter?.typeAnnotation?.typeAnnotation
  if (annotation !== undefined && annotation !== null) return membersOf(text, types, annotation)
  return parameter?.type === "ObjectPattern" ? patternMembers(parameter) : undefined
}

const isFunction = (node: Node | null | undefined): boolean =>
  node?.type === "ArrowFunctionExpression" || node?.type === "FunctionExpression"

/** The component functions of a file by local name ("default" for an anonymous default export), with a props type from around them. */
const componentFunctions = (body: ReadonlyArray<Node>): Map<string, { fn: Node; propsType?: Node }> => {
  const found = new Map<string, { fn: Node; propsType?: Node }>()
  const declare = (node: Node | null | undefined, defaultName?: string) => {
    if (node === null || node === undefined) return
    if (node.type === "FunctionDeclaration") {
      found.set(node.id?.name ?? defaultName ?? "default", { fn: node })
    } else if (node.type === "VariableDeclaration") {
      for (const declarator of node.declarations ?? []) {
        if (declarator.id?.type !== "Identifier") continue
        let init = declarator.init
        while (init?.type === "TSAsExpression" || init?.type === "TSSatisfiesExpression") init = init.expression
        // const X: FC<P> = (…) => …
        const annotated = declarator.id.typeAnnotation?.typeAnnotation
        const annotatedProps = annotated?.type === "TSTypeReference" ? annotated.typeArguments?.params?.[0] : undefined
        if (isFunction(init)) {
          found.set(declarator.id.name, {
            fn: init,
            ...(annotatedProps !== undefined ? { propsType: annotatedProps } : {})
          })
        } else if (init?.type === "CallExpression" && isFunction(init.arguments?.[0])) {
          // memo((props: P) => …), forwardRef<R, P>((props, ref) => …)
          const callee: string | undefined =
            init.callee?.type === "Identifier"
              ? init.callee.name
              : init.callee?.type === "MemberExpression"
                ? init.callee.property?.name
                : undefined
          const typeArguments = init.typeArguments?.params ?? []
          const propsType =
            callee === "forwardRef" ? typeArguments[1] : callee === "memo" ? typeArguments[0] : undefined
          found.set(declarator.id.name, { fn: init.arguments[0], ...(propsType !== undefined ? { propsType } : {}) })
        }
      }
    } else if (isFunction(node)) {
      found.set(defaultName ?? "default", { fn: node })
    }
  }
  for (const node of body) {
    if (node.type === "ExportNamedDeclaration") declare(node.declaration)
    else if (node.type === "ExportDefaultDeclaration") declare(node.declaration, "default")
    else declare(node)
  }
  return found
}

/** The file's type declarations by name (exported or not). */
const typeDeclarations = (body: ReadonlyArray<Node>): Map<string, Node> => {
  const types = new Map<string, Node>()
  for (const node of body) {
    const declaration = node.type === "ExportNamedDeclaration" ? node.declaration : node
    if (declaration?.type === "TSInterfaceDeclaration" || declaration?.type === "TSTypeAliasDeclaration") {
      if (declaration.id?.name !== undefined) types.set(declaration.id.name, declaration)
    }
  }
  return types
}

/** A member list's entries by name, each cut for display only after comparing. */
const diffMembers = (
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>
): MemberChanges | undefined => {
  const added = [...after].filter(([name]) => !before.has(name)).map(([, member]) => bounded(member))
  const removed = [...before].filter(([name]) => !after.has(name)).map(([, member]) => bounded(member))
  const changed = [...after]
    .filter(([name, member]) => before.has(name) && before.get(name) !== member)
    .map(([name, member]) => {
      const [old, now] = focus(before.get(name)!, member)
      return { name, before: old, after: now }
    })
  return added.length + removed.length + changed.length === 0 ? undefined : { added, removed, changed }
}

/**
 * The members a signature has, read by parsing it again as a declaration:
 * an interface's or object type's members, a class's public members, a
 * function's parameters (an object-typed one by member, `name.member`) and
 * its return type; undefined when it has none the diff can name.
 */
const signatureMembers = (parse: Parse, kind: string, signature: string): Map<string, string> | undefined => {
  const generic = signature.startsWith("<")
  const source =
    kind === "interface"
      ? `interface __X${generic ? "" : " "}${signature}`
      : kind === "type"
        ? `type __X${generic ? "" : " "}${signature}`
        : kind === "class"
          ? `declare class __X${generic ? "" : " "}${signature.startsWith("{") || generic || signature.startsWith("extends") || signature.startsWith("implements") ? signature : `{ ${signature} }`}`
          : (kind === "function" || kind === "component" || kind === "hook") && (generic || signature.startsWith("("))
            ? `function __X${signature} {}`
            : (kind === "const" || kind === "hook") && signature.startsWith(":")
              ? `let __x${signature}`
              : undefined
  if (source === undefined) return undefined
  let parsed: ReturnType<Parse>
  try {
    parsed = parse("signature.ts", source, "ts")
  } catch {
    return undefined
  }
  if (parsed.errors.length > 0) return undefined
  const node = parsed.program.body[0]
  if (node === undefined) return undefined
  const none = new Map<string, Node>()
  switch (node.type) {
    case "TSInterfaceDeclaration":
      return memberList(source, node.body?.body ?? [])
    case "TSTypeAliasDeclaration":
      return membersOf(source, none, node.typeAnnotation)
    case "ClassDeclaration":
      return memberList(source, node.body?.body ?? [])
    case "VariableDeclaration":
      return membersOf(source, none, node.declarations?.[0]?.id?.typeAnnotation?.typeAnnotation)
    case "FunctionDeclaration": {
      const map = new Map<string, string>()
      ;(node.params ?? []).forEach((parameter: Node, i: number) => {
        const target = parameter.type === "AssignmentPattern" ? parameter.left : parameter
        const name = target?.type === "Identifier" ? target.name : `#${i + 1}`
        const members = membersOf(source, none, target?.typeAnnotation?.typeAnnotation)
        if (members !== undefined && members.size > 0) {
          for (const [key, member] of members) map.set(`${name}.${key}`, `${name}.${member}`)
        } else map.set(name, slice(source, parameter))
      })
      if (node.returnType !== null && node.returnType !== undefined) {
        map.set("(return)", `(return)${slice(source, node.returnType)}`)
      }
      return map
    }
    default:
      return undefined
  }
}

const langOf = (path: string): "ts" | "tsx" | "jsx" =>
  path.endsWith(".tsx") ? "tsx" : path.endsWith(".ts") || path.endsWith(".mts") || path.endsWith(".cts") ? "ts" : "jsx"

/**
 * A file's API from its text: its skeleton (`extract`, or
 * `extractComponent` for a Vue, Svelte or Astro file) and the props of its
 * components.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { fileApi } from "./capabilities/fe/diff/api.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const api = Effect.map(loadParser, (parse) =>
 *   fileApi(parse, "src/Title.tsx", "export function Title({ text }: { text: string }) { return <h1>{text}</h1> }")
 * )
 * // props: Title → { text: "text: string" }
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const fileApi = (parse: Parse, path: string, text: string): FileApi => {
  const props = new Map<string, ReadonlyMap<string, string>>()
  if (componentFileExtensions.some((ext) => path.endsWith(ext))) {
    const skeleton = extractComponent(parse, path, text)
    for (const entry of skeleton.exports) {
      if (entry.kind !== "component" || !entry.signature.startsWith("(props: ") || !entry.signature.endsWith(")")) {
        continue
      }
      const typeText = entry.signature.slice("(props: ".length, -1)
      const source = `type __Props = ${typeText}`
      const parsed = parse("props.ts", source, "ts")
      const alias = parsed.program.body[0]
      const members = alias === undefined ? undefined : membersOf(source, new Map(), alias.typeAnnotation)
      if (members !== undefined) props.set(keyOf(entry), members)
    }
    return { skeleton, props, parse }
  }
  const skeleton = extract(parse, path, text, { maxSignature: Number.POSITIVE_INFINITY })
  const components = skeleton.exports.filter((entry) => entry.kind === "component")
  if (components.length === 0) return { skeleton, props, parse }
  const body = parse(path, text, langOf(path)).program.body
  const functions = componentFunctions(body)
  const types = typeDeclarations(body)
  for (const entry of components) {
    const found = functions.get(entry.name)
    if (found === undefined) continue
    const members = componentProps(text, types, found.fn, found.propsType)
    if (members !== undefined) props.set(keyOf(entry), members)
  }
  return { skeleton, props, parse }
}

const importMap = (skeleton: FileSkeleton): Map<string, Set<string>> => {
  const map = new Map<string, Set<string>>()
  for (const entry of skeleton.imports) {
    const names = map.get(entry.from) ?? new Set<string>()
    for (const name of entry.names) names.add(name)
    map.set(entry.from, names)
  }
  return map
}

const importChanges = (
  from: Map<string, Set<string>>,
  to: Map<string, Set<string>>
): Array<{ from: string; names: Array<string>; module: boolean }> => {
  const changes: Array<{ from: string; names: Array<string>; module: boolean }> = []
  for (const [module, names] of to) {
    const before = from.get(module)
    if (before === undefined) changes.push({ from: module, names: [...names], module: true })
    else {
      const added = [...names].filter((name) => !before.has(name))
      if (added.length > 0) changes.push({ from: module, names: added, module: false })
    }
  }
  return changes
}

/**
 * Compares two APIs of a file (`before` undefined for an added file,
 * `after` undefined for a deleted one).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { diffApi, fileApi } from "./capabilities/fe/diff/api.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const diff = Effect.map(loadParser, (parse) =>
 *   diffApi(fileApi(parse, "a.ts", "export const a = 1"), fileApi(parse, "a.ts", "export const b = 1"))
 * )
 * // exports: { added: [b], removed: [a], changed: [] }
 * ```
 *
 * @category comparing
 * @since 0.4.0
 */
export const diffApi = (before: FileApi | undefined, after: FileApi | undefined): ApiDiff => {
  const old = before === undefined ? new Map<string, ExportView>() : exportMap(before.skeleton)
  const now = after === undefined ? new Map<string, ExportView>() : exportMap(after.skeleton)
  const added: Array<ExportView> = []
  const removed: Array<ExportView> = []
  const changed: Array<ChangedExport> = []
  const breaking: Array<{ name: string; key: string }> = []
  for (const [key, view] of old) {
    const next = now.get(key)
    if (next === undefined) {
      removed.push(shown(view))
      breaking.push({ name: view.name, key })
    } else if (next.kind !== view.kind || comparable(next) !== comparable(view)) {
      const [oldShown, newShown] = focus(view.signature, next.signature)
      const parse = after?.parse ?? before?.parse
      const oldMembers = parse === undefined ? undefined : signatureMembers(parse, view.kind, view.signature)
      const newMembers = parse === undefined ? undefined : signatureMembers(parse, next.kind, next.signature)
      const members =
        oldMembers === undefined || newMembers === undefined ? undefined : diffMembers(oldMembers, newMembers)
      const oldValue = view.kind === "const" && view.signature.startsWith("= ") ? valueKind(view.signature) : undefined
      const newValue = next.kind === "const" && next.signature.startsWith("= ") ? valueKind(next.signature) : undefined
      changed.push({
        name: next.name,
        before: { kind: view.kind, signature: oldShown },
        after: { kind: next.kind, signature: newShown },
        ...(members !== undefined ? { members } : {}),
        ...(oldValue !== undefined && newValue !== undefined ? { note: `value: ${oldValue} → ${newValue}` } : {})
      })
      breaking.push({ name: next.name, key })
    }
  }
  for (const [key, view] of now) if (!old.has(key)) added.push(shown(view))
  const props: Array<PropsChange> = []
  if (before !== undefined && after !== undefined) {
    for (const [key, members] of after.props) {
      const previous = before.props.get(key)
      if (previous === undefined) continue
      const change = {
        component: now.get(key)?.name ?? key,
        added: [...members].filter(([name]) => !previous.has(name)).map(([, member]) => bounded(member)),
        removed: [...previous].filter(([name]) => !members.has(name)).map(([, member]) => bounded(member)),
        changed: [...members]
          .filter(([name, member]) => previous.has(name) && previous.get(name) !== member)
          .map(([name, member]) => {
            const [old, now] = focus(previous.get(name)!, member)
            return { name, before: old, after: now }
          })
      }
      if (change.added.length + change.removed.length + change.changed.length > 0) {
        props.push(change)
        if ((change.removed.length > 0 || change.changed.length > 0) && !breaking.some((b) => b.key === key)) {
          breaking.push({ name: change.component, key })
        }
      }
    }
  }
  const oldImports = before === undefined ? new Map<string, Set<string>>() : importMap(before.skeleton)
  const newImports = after === undefined ? new Map<string, Set<string>>() : importMap(after.skeleton)
  return {
    exports: { added, removed, changed },
    props,
    imports: { added: importChanges(oldImports, newImports), removed: importChanges(newImports, oldImports) },
    breaking
  }
}
