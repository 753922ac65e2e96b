/**
 * What `fe_scaffold` reads of one existing file of the project to copy its
 * conventions: quotes, semicolons, indentation, the `"use client"`
 * directive, relative import extensions, how its main export is declared
 * (named or default, `function` or arrow, typed `FC`), how its props are
 * typed, how it is styled, and for a test file how it is written — all from
 * the syntax tree (oxc), never from regular expressions over the code. And
 * the votes that turn several files' conventions into one, each with the
 * files it came from.
 *
 * @since 0.4.0
 */
import type { Parse } from "../skeleton/extract.ts"

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }

/**
 * How the main export of a file is declared.
 *
 * **Example**
 *
 * ```ts
 * import type { MainExport } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * // export const Card = ({ title }: Props) => …
 * const card: MainExport = { name: "Card", exportStyle: "named", declaration: "arrow", async: false }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface MainExport {
  readonly name: string
  /** `named`, `default`, or both (`export const X …; export default X`). */
  readonly exportStyle: "named" | "default"
  readonly declaration: "function" | "arrow"
  /** The type annotation of an arrow component (`FC`, `React.FC<Props>` → `React.FC`), when it has one. */
  readonly annotation?: string | undefined
  readonly async: boolean
  /** Its first parameter is typed inline (`props: { name: string }`, `{ name }: { name: string }`). */
  readonly inlineProps?: boolean | undefined
}

/**
 * How a component's props are typed.
 *
 * **Example**
 *
 * ```ts
 * import type { PropsStyle } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * // export interface CardProps { … }
 * const style: PropsStyle = { style: "interface", naming: "ComponentProps", exported: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface PropsStyle {
  readonly style: "interface" | "type"
  /** `Props`, or `<Component>Props`. */
  readonly naming: "Props" | "ComponentProps"
  readonly exported: boolean
}

/**
 * How a test file is written.
 *
 * **Example**
 *
 * ```ts
 * import type { TestStyle } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * // import { describe, expect, it } from "vitest"
 * const style: TestStyle = { imports: "vitest", fn: "it", describe: true, testingLibrary: false }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface TestStyle {
  /** Where `describe`/`it` come from: an import from `vitest` or `@jest/globals`, or globals. */
  readonly imports: "vitest" | "@jest/globals" | "globals"
  readonly fn: "it" | "test"
  readonly describe: boolean
  readonly testingLibrary: boolean
}

/**
 * The conventions read from one file (undefined: the file does not show).
 * Without a `main` name, the main export is the default export, else the
 * first exported function.
 *
 * **Example**
 *
 * ```ts
 * import type { FileStyle } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * declare const style: FileStyle
 * style.quote // "single", "double" or undefined
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface FileStyle {
  readonly path: string
  readonly quote?: "single" | "double" | undefined
  readonly semicolons?: boolean | undefined
  readonly indent?: "2 spaces" | "4 spaces" | "tabs" | undefined
  readonly useClient: boolean
  /** Whether its relative imports of sources keep their extension (`./a.ts`), when it has any. */
  readonly relativeExtensions?: boolean | undefined
  readonly main?: MainExport | undefined
  readonly props?: PropsStyle | undefined
  /** Its stylesheet imports (`.css`, `.scss`, `.sass`, `.less`), with the default import's name if any. */
  readonly stylesheets: ReadonlyArray<{ readonly specifier: string; readonly local?: string | undefined }>
  /** It imports `styled-components` or `@emotion/styled`. */
  readonly styled: boolean
  /** It has `className="…"` string attributes. */
  readonly classNameStrings: boolean
  /** For a page: `metadata` or `generateMetadata` exported. */
  readonly metadata?: "metadata" | "generateMetadata" | undefined
  /** It awaits `params` (Next.js 15+: params is a Promise). */
  readonly awaitsParams: boolean
  readonly test?: TestStyle | undefined
  /** The names it imports from `react`, and whether it uses the `React.` namespace. */
  readonly reactNamespace: boolean
}

const walk = (node: unknown, visit: (node: Node) => void): void => {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit)
    return
  }
  if (node === null || typeof node !== "object") return
  const n = node as Node
  if (typeof n.type === "string") visit(n)
  for (const key in n) {
    if (key === "parent") continue
    const value = n[key]
    if (value !== null && typeof value === "object") walk(value, visit)
  }
}

const stylesheet = /\.(css|scss|sass|less)$/
const sourceExtension = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/

const majority = <A>(values: ReadonlyArray<A>): A | undefined => {
  const counts = new Map<A, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  let best: A | undefined
  let bestCount = 0
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value
      bestCount = count
    }
  }
  return best
}

const indentOf = (text: string): FileStyle["indent"] => {
  const widths: Array<number> = []
  for (const line of text.split("\n")) {
    if (line.startsWith("\t")) return "tabs"
    const match = /^( +)\S/.exec(line)
    if (match !== null) widths.push(match[1]!.length)
  }
  if (widths.length === 0) return undefined
  const smallest = Math.min(...widths)
  return smallest >= 4 && smallest % 4 === 0 ? "4 spaces" : "2 spaces"
}

/** The declaration of `name` at the top level (a function, or a variable's declarator), exported or not. */
const findLocal = (body: ReadonlyArray<Node>, name: string): Node | undefined => {
  for (const statement of body) {
    const declaration =
      statement.type === "ExportNamedDeclaration" && statement.declaration ? statement.declaration : statement
    if (declaration.type === "FunctionDeclaration" && declaration.id?.name === name) return declaration
    if (declaration.type === "VariableDeclaration") {
      for (const declarator of declaration.declarations) {
        if (declarator.id?.type === "Identifier" && declarator.id.name === name) return declarator
      }
    }
  }
  return undefined
}

/** Whether a function's first parameter has an inline object type (`{ … }`). */
const inlineFirstParam = (fn: Node | undefined): boolean => {
  const first = fn?.params?.[0]
  const pattern = first?.type === "TSParameterProperty" ? first.parameter : first
  return pattern?.typeAnnotation?.typeAnnotation?.type === "TSTypeLiteral"
}

const describeDeclaration = (
  text: string,
  node: Node | undefined
): Pick<MainExport, "declaration" | "annotation" | "async" | "inlineProps"> | undefined => {
  if (node === undefined) return undefined
  if (node.type === "FunctionDeclaration" || node.type === "FunctionExpression") {
    return { declaration: "function", async: node.async === true, inlineProps: inlineFirstParam(node) }
  }
  if (node.type === "VariableDeclarator") {
    const init = node.init
    if (init?.type !== "ArrowFunctionExpression" && init?.type !== "FunctionExpression") return undefined
    const annotation = node.id?.typeAnnotation?.typeAnnotation
    let name: string | undefined
    if (annotation?.type === "TSTypeReference") {
      const typeName = text.slice(annotation.typeName.start, annotation.typeName.end)
      name = typeName
    }
    return {
      declaration: init.type === "ArrowFunctionExpression" ? "arrow" : "function",
      async: init.async === true,
      inlineProps: inlineFirstParam(init),
      ...(name !== undefined ? { annotation: name } : {})
    }
  }
  if (node.type === "ArrowFunctionExpression") {
    return { declaration: "arrow", async: node.async === true, inlineProps: inlineFirstParam(node) }
  }
  return undefined
}

/** The main export: the one named `wanted` (or, without it, the first exported function, component or hook). */
const mainExport = (text: string, body: ReadonlyArray<Node>, wanted: string | undefined): MainExport | undefined => {
  const candidates: Array<MainExport> = []
  const named = new Set<string>()
  let defaultName: string | undefined
  for (const statement of body) {
    if (statement.type === "ExportNamedDeclaration") {
      if (statement.declaration) {
        const declaration = statement.declaration
        if (declaration.type === "FunctionDeclaration" && declaration.id) {
          named.add(declaration.id.name)
          const described = describeDeclaration(text, declaration)!
          candidates.push({ name: declaration.id.name, exportStyle: "named", ...described })
        } else if (declaration.type === "VariableDeclaration") {
          for (const declarator of declaration.declarations) {
            if (declarator.id?.type !== "Identifier") continue
            named.add(declarator.id.name)
            const described = describeDeclaration(text, declarator)
            if (described !== undefined) {
              candidates.push({ name: declarator.id.name, exportStyle: "named", ...described })
            }
          }
        }
      } else if (statement.source == null) {
        for (const specifier of statement.specifiers ?? []) {
          const exported = specifier.exported?.name ?? specifier.exported?.value
          const local = specifier.local?.name
          if (exported === "default" && local !== undefined) defaultName = local
          else if (local !== undefined) {
            named.add(exported)
            const described = describeDeclaration(text, findLocal(body, local))
            if (described !== undefined) candidates.push({ name: exported, exportStyle: "named", ...described })
          }
        }
      }
    } else if (statement.type === "ExportDefaultDeclaration") {
      const declaration = statement.declaration
      if (declaration.type === "FunctionDeclaration" || declaration.type === "FunctionExpression") {
        const name = declaration.id?.name ?? "default"
        candidates.push({ name, exportStyle: "default", ...describeDeclaration(text, declaration)! })
      } else if (declaration.type === "ArrowFunctionExpression") {
        candidates.push({ name: "default", exportStyle: "default", ...describeDeclaration(text, declaration)! })
      } else if (declaration.type === "Identifier") {
        defaultName = declaration.name
      }
    }
  }
  if (defaultName !== undefined && !named.has(defaultName)) {
    const described = describeDeclaration(text, findLocal(body, defaultName))
    if (described !== undefined) candidates.push({ name: defaultName, exportStyle: "default", ...described })
  }
  if (wanted !== undefined) return candidates.find((candidate) => candidate.name === wanted)
  return candidates.find((candidate) => candidate.exportStyle === "default") ?? candidates[0]
}

const propsStyleOf = (body: ReadonlyArray<Node>, component: string | undefined): PropsStyle | undefined => {
  for (const statement of body) {
    const exported = statement.type === "ExportNamedDeclaration" && statement.declaration != null
    const declaration = exported ? statement.declaration : statement
    if (declaration.type !== "TSInterfaceDeclaration" && declaration.type !== "TSTypeAliasDeclaration") continue
    const name: string = declaration.id?.name ?? ""
    if (name !== "Props" && !(name.endsWith("Props") && (component === undefined || name === `${component}Props`))) {
      continue
    }
    return {
      style: declaration.type === "TSInterfaceDeclaration" ? "interface" : "type",
      naming: name === "Props" ? "Props" : "ComponentProps",
      exported
    }
  }
  return undefined
}

/**
 * Reads the conventions of one file from its syntax tree. `main` names the
 * export to describe (a component, hook or function); without it, the
 * first exported function.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { styleOf } from "./capabilities/fe/scaffold/conventions.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const quote = Effect.map(loadParser, (parse) => styleOf(parse, "a.ts", "import { b } from './b'\n").quote) // "single"
 * ```
 *
 * @category analysis
 * @since 0.4.0
 */
export const styleOf = (parse: Parse, path: string, text: string, main?: string): FileStyle => {
  let program: { readonly body: ReadonlyArray<Node> }
  try {
    program = parse(path, text).program as { readonly body: ReadonlyArray<Node> }
  } catch {
    return {
      path,
      useClient: false,
      stylesheets: [],
      styled: false,
      classNameStrings: false,
      awaitsParams: false,
      reactNamespace: false
    }
  }
  const body = program.body
  const quotes: Array<"single" | "double"> = []
  const semicolons: Array<boolean> = []
  const extensions: Array<boolean> = []
  const stylesheets: Array<{ specifier: string; local?: string | undefined }> = []
  const testImports: Array<string> = []
  let styled = false
  let testingLibrary = false
  let useClient = false
  let metadata: FileStyle["metadata"]
  for (const statement of body) {
    if (statement.type === "ExpressionStatement" && statement.directive === "use client") useClient = true
    if (
      [
        "ImportDeclaration",
        "ExportNamedDeclaration",
        "ExportDefaultDeclaration",
        "ExportAllDeclaration",
        "VariableDeclaration",
        "ExpressionStatement",
        "TSTypeAliasDeclaration",
        "ReturnStatement"
      ].includes(statement.type)
    ) {
      const declaration = statement.declaration
      // A function, class or interface declaration never ends with a semicolon: it says nothing.
      const bodied =
        declaration != null &&
        ["FunctionDeclaration", "ClassDeclaration", "TSInterfaceDeclaration", "TSEnumDeclaration"].includes(
          declaration.type
        )
      if (!bodied) semicolons.push(text.charAt(statement.end - 1) === ";")
    }
    if (statement.type === "ImportDeclaration" || (statement.type.startsWith("Export") && statement.source)) {
      const source = statement.source
      const raw = text.slice(source.start, source.end)
      quotes.push(raw.startsWith("'") ? "single" : "double")
      const specifier: string = source.value
      if (statement.type === "ImportDeclaration") {
        if (stylesheet.test(specifier)) {
          const local = (statement.specifiers ?? []).find(
            (s: Node) => s.type === "ImportDefaultSpecifier" || s.type === "ImportNamespaceSpecifier"
          )?.local?.name
          stylesheets.push({ specifier, ...(local !== undefined ? { local } : {}) })
        } else if (specifier.startsWith(".") && !specifier.endsWith(".json") && !specifier.endsWith(".svg")) {
          extensions.push(sourceExtension.test(specifier))
        }
        if (specifier === "styled-components" || specifier === "@emotion/styled") styled = true
        if (specifier.startsWith("@testing-library/")) testingLibrary = true
        if (specifier === "vitest" || specifier === "@jest/globals") {
          testImports.push(specifier)
        }
      }
    }
    if (statement.type === "ExportNamedDeclaration" && statement.declaration) {
      const declaration = statement.declaration
      if (declaration.type === "FunctionDeclaration" && declaration.id?.name === "generateMetadata") {
        metadata = "generateMetadata"
      }
      if (declaration.type === "VariableDeclaration") {
        for (const declarator of declaration.declarations) {
          if (declarator.id?.name === "metadata" && metadata === undefined) metadata = "metadata"
          if (declarator.id?.name === "generateMetadata") metadata = "generateMetadata"
        }
      }
    }
  }
  let classNameStrings = false
  let awaitsParams = false
  let reactNamespace = false
  const calls: Array<"it" | "test"> = []
  let describes = false
  walk(body, (node) => {
    if (
      node.type === "JSXAttribute" &&
      node.name?.name === "className" &&
      (node.value?.type === "Literal" || node.value?.type === "StringLiteral")
    ) {
      classNameStrings = true
    }
    if (node.type === "AwaitExpression" && node.argument?.type === "Identifier" && node.argument.name === "params") {
      awaitsParams = true
    }
    if (
      (node.type === "TSQualifiedName" && node.left?.name === "React") ||
      (node.type === "MemberExpression" && node.object?.type === "Identifier" && node.object.name === "React")
    ) {
      reactNamespace = true
    }
    if (node.type === "CallExpression") {
      const callee = node.callee?.type === "MemberExpression" ? node.callee.object : node.callee
      if (callee?.type === "Identifier") {
        if (callee.name === "it" || callee.name === "test") calls.push(callee.name)
        if (callee.name === "describe") describes = true
      }
    }
  })
  const main0 = mainExport(text, body, main)
  const isTest = calls.length > 0
  return {
    path,
    quote: majority(quotes),
    semicolons: majority(semicolons),
    indent: indentOf(text),
    useClient,
    relativeExtensions: majority(extensions),
    main: main0,
    props: propsStyleOf(body, main0?.name),
    stylesheets,
    styled,
    classNameStrings,
    metadata,
    awaitsParams,
    reactNamespace,
    ...(isTest
      ? {
          test: {
            imports: (majority(testImports) ?? "globals") as TestStyle["imports"],
            fn: majority(calls)!,
            describe: describes,
            testingLibrary
          }
        }
      : {})
  }
}

/**
 * One convention decided by the examples: its value and the files that show
 * it (empty when no example did and the value is a default).
 *
 * **Example**
 *
 * ```ts
 * import type { Decided } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * const quotes: Decided<string> = { value: "single", from: ["src/App.tsx"] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Decided<A> {
  readonly value: A
  readonly from: ReadonlyArray<string>
}

/**
 * The value most (weighted) examples show, with up to three of those
 * examples (the heaviest first), or `fallback` with no example.
 *
 * **Example**
 *
 * ```ts
 * import { vote } from "./capabilities/fe/scaffold/conventions.ts"
 *
 * vote([{ path: "a.ts", weight: 1, value: "single" }, { path: "b.ts", weight: 2, value: "double" }], "double")
 * // => { value: "double", from: ["b.ts"] }
 * ```
 *
 * @category analysis
 * @since 0.4.0
 */
export const vote = <A>(
  entries: ReadonlyArray<{ readonly path: string; readonly weight: number; readonly value: A | undefined }>,
  fallback: A
): Decided<A> => {
  const totals = new Map<A, number>()
  for (const entry of entries) {
    if (entry.value === undefined) continue
    totals.set(entry.value, (totals.get(entry.value) ?? 0) + entry.weight)
  }
  let best: A | undefined
  let bestTotal = 0
  for (const [value, total] of totals) {
    if (total > bestTotal) {
      best = value
      bestTotal = total
    }
  }
  if (best === undefined) return { value: fallback, from: [] }
  const from = entries
    .filter((entry) => entry.value === best)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, 3)
    .map((entry) => entry.path)
  return { value: best, from }
}
