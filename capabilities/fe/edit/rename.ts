/**
 * Renaming a symbol across the project, from syntax trees and scopes: the
 * declaration and every reference in its scope (an inner binding of the
 * same name left alone, property keys left alone, a shorthand `{ name }`
 * written `{ name: to }`), and for a symbol its file exports under its own
 * name, every importer found through the import graph: named imports (and
 * their local uses, unless aliased), namespace imports' `ns.name`,
 * re-exports `export { name } from` (followed to their own importers),
 * `export *` barrels and barrels that import the name and export it again.
 * A namespace re-export (`export * as ns from`) and a dynamic `import()` of
 * the module by a file that mentions the name are refused (their uses are
 * not followed), as are enum members. Conflicts are refused before anything
 * is computed.
 *
 * @since 0.4.0
 */
import { exportsName, type ImportView } from "./view.ts"
import { type Binding, isIntrinsicJsxName, type Occurrence } from "./scope.ts"
import {
  allExportNames,
  type Edit,
  exportNamesOf,
  importsOf,
  isIdentifier,
  nearestNames,
  type Node,
  Refusal,
  type Source
} from "./source.ts"

/**
 * What a rename reads: a file's parsed source (from the operation's
 * overlay) and the project's import graph.
 *
 * **Example**
 *
 * ```ts
 * import type { RenameContext } from "./capabilities/fe/edit/rename.ts"
 *
 * declare const context: RenameContext
 * context.source("src/a.ts").program
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface RenameContext {
  readonly source: (path: string) => Source
  readonly graph: ImportView
}

/**
 * The edits of a rename, by file, with a one-line summary.
 *
 * @category models
 * @since 0.4.0
 */
export interface RenameResult {
  readonly edits: ReadonlyMap<string, ReadonlyArray<Edit>>
  readonly summary: string
}

/** `project`: the exported name changes too; `local`: import/export names stay (aliases are written). */
type Mode = "project" | "local"

const occurrenceText = (occurrence: Occurrence, to: string, mode: Mode): string => {
  switch (occurrence.kind) {
    case "shorthand":
      return `${occurrence.name}: ${to}`
    case "import":
      return mode === "project" ? to : `${occurrence.name} as ${to}`
    case "export":
      return mode === "project" ? to : `${to} as ${occurrence.name}`
    default:
      return to
  }
}

const where = (source: Source, offset: number) => `${source.path}:${source.lineOf(offset)}`

/** Refuses a rename of `binding` to `to` that would clash with or capture another name in `source`. */
const checkConflicts = (source: Source, binding: Binding, to: string) => {
  const { scopes, unresolved, within } = source.analysis
  const conflict = (message: string) => {
    throw new Refusal(
      "name_conflict",
      `Cannot rename ${binding.name} to ${to}: ${message}.`,
      `Pick another name, or rename the other ${to} first (a rename operation with its file and line).`
    )
  }
  const tag = binding.references.find((r) => r.jsxName === true)
  if (tag !== undefined && isIntrinsicJsxName(to)) {
    throw new Refusal(
      "jsx_intrinsic",
      `Cannot rename ${binding.name} to ${to}: it is used as a JSX element at ${where(source, tag.start)}, and <${to}> would be an HTML element, not the component.`,
      "Pick a name starting with an uppercase letter."
    )
  }
  // A parameter's neighbours include the body's declarations, and a body's the parameters
  // (`function f(to) { let to }` does not parse).
  const body = scopes[binding.scope]!.body
  const parent = scopes[binding.scope]!.parent
  const own =
    scopes[binding.scope]!.bindings.get(to) ??
    (body === undefined ? undefined : scopes[body]!.bindings.get(to)) ??
    (parent >= 0 && scopes[parent]!.body === binding.scope ? scopes[parent]!.bindings.get(to) : undefined)
  if (own !== undefined) {
    conflict(`${to} is already declared in the same scope at ${where(source, own.declarations[0]?.start ?? 0)}`)
  }
  for (const reference of [...binding.references, ...binding.declarations]) {
    if (reference.kind === "member") continue
    let current = reference.scope
    while (current !== binding.scope && current >= 0) {
      const shadow = scopes[current]!.bindings.get(to)
      if (shadow !== undefined) {
        conflict(
          `${to} is declared at ${where(source, shadow.declarations[0]?.start ?? 0)}, in a scope where ${binding.name} is used (${where(source, reference.start)})`
        )
      }
      current = scopes[current]!.parent
    }
  }
  for (const free of unresolved) {
    if (free.name === to && within(free.scope, binding.scope)) {
      conflict(`${to} is used at ${where(source, free.start)} as a global, which the new name would hide`)
    }
  }
  // A use of an outer `to` inside the binding's scope would be captured.
  for (const scope of scopes) {
    for (const other of scope.bindings.values()) {
      if (other.name !== to || other === binding) continue
      if (within(binding.scope, other.scope) && other.scope !== binding.scope) {
        const captured = other.references.find((r) => within(r.scope, binding.scope))
        if (captured !== undefined) {
          conflict(`${to} at ${where(source, captured.start)} refers to an outer ${to} the new name would hide`)
        }
      }
    }
  }
}

const bindingEdits = (binding: Binding, to: string, mode: Mode): Array<Edit> =>
  [...binding.declarations, ...binding.references].map((occurrence) => ({
    start: occurrence.start,
    end: occurrence.end,
    text: occurrenceText(occurrence, to, mode)
  }))

/** Finds the binding to rename: a top-level one, or with `line`, one declared on that line (any scope). */
const findBinding = (source: Source, symbol: string, line: number | undefined): Binding => {
  const { scopes } = source.analysis
  if (line === undefined) {
    const found = scopes[0]!.bindings.get(symbol)
    if (found !== undefined) return found
  } else {
    for (const scope of scopes) {
      const found = scope.bindings.get(symbol)
      if (found !== undefined && found.declarations.some((d) => source.lineOf(d.start) === line)) {
        if (found.kind === "enumMember") {
          throw new Refusal(
            "unsupported_symbol",
            `${symbol} on line ${line} of ${source.path} is an enum member: its uses elsewhere (Enum.${symbol}) are member accesses fe_surgeon does not follow.`,
            "Rename it with replace_text in each file that uses it (fe_impact lists them), then call fe_verify."
          )
        }
        return found
      }
    }
  }
  const names =
    line === undefined
      ? [...scopes[0]!.bindings.keys()]
      : scopes.flatMap((s) =>
          [...s.bindings.values()]
            .filter((b) => b.declarations.some((d) => source.lineOf(d.start) === line))
            .map((b) => b.name)
        )
  const inner = line === undefined && scopes.some((s) => s.index > 0 && s.bindings.has(symbol))
  throw new Refusal(
    "symbol_not_found",
    `${source.path} declares no ${line === undefined ? "top-level " : ""}${symbol}${line === undefined ? "" : ` on line ${line}`}.`,
    inner
      ? `${symbol} is declared in an inner scope: pass line (the line of its declaration) to rename that one.`
      : `Nearest names${line === undefined ? "" : ` on line ${line}`}: ${nearestNames(symbol, names).join(", ") || "none"}. ` +
          "(rename takes variables, functions, classes, types, enums, imports and parameters; not object properties or class members.)"
  )
}

/**
 * The edits renaming `symbol` declared in `file` to `to` across the project.
 *
 * **Example**
 *
 * ```ts
 * import { renameEdits, type RenameContext } from "./capabilities/fe/edit/rename.ts"
 *
 * declare const context: RenameContext
 * const result = renameEdits(context, "src/lib/format.ts", "formatPrice", "formatAmount")
 * result.edits.size // the files touched
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const renameEdits = (
  context: RenameContext,
  file: string,
  symbol: string,
  to: string,
  line?: number
): RenameResult => {
  if (!isIdentifier(to)) {
    throw new Refusal(
      "invalid_name",
      `"${to}" is not a valid identifier (or is a reserved word).`,
      "Pass a name made of letters, digits, $ and _, not starting with a digit."
    )
  }
  if (to === symbol) {
    throw new Refusal("same_name", `${symbol} is already called ${to}.`, "Pass a different name in to.")
  }
  const edits = new Map<string, Array<Edit>>()
  const add = (path: string, more: ReadonlyArray<Edit>) => {
    if (more.length === 0) return
    const list = edits.get(path) ?? []
    list.push(...more)
    edits.set(path, list)
  }
  const source = context.source(file)
  const binding = findBinding(source, symbol, line)
  const topLevel = binding.scope === 0
  const exported = topLevel && binding.imported === undefined && exportNamesOf(source, symbol).includes(symbol)
  checkConflicts(source, binding, to)
  if (exported && (allExportNames(source).has(to) || exportsName(context.graph, file, to))) {
    throw new Refusal(
      "name_conflict",
      `Cannot rename ${symbol} to ${to}: ${file} already exports a ${to}.`,
      "Pick another name."
    )
  }
  add(file, bindingEdits(binding, to, exported ? "project" : "local"))
  if (exported) {
    const visited = new Set<string>()
    const propagate = (from: string, name: string) => {
      const key = `${from}\u0000${name}`
      if (visited.has(key)) return
      visited.add(key)
      for (const importer of context.graph.importersOf(from)) {
        if (importer === from) continue
        // Only the imports naming it, or taking the whole module (a namespace, export *).
        const edges = context.graph
          .importsOf(importer)
          .filter(
            (edge) =>
              edge.resolution._tag === "File" &&
              edge.resolution.path === from &&
              (edge.names.includes(name) || edge.names.includes("*"))
          )
        const specifiers = new Set(edges.map((edge) => edge.specifier))
        const dynamic = context.graph
          .importsOf(importer)
          .find((edge) => edge.kind === "dynamic" && edge.resolution._tag === "File" && edge.resolution.path === from)
        if (dynamic !== undefined) {
          // `(await import("./m")).name`: the uses are property accesses on a promise's result, not followed.
          const text = context.source(importer).text
          if (new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`).test(text)) {
            const at = text.indexOf(dynamic.specifier)
            throw new Refusal(
              "unsupported_importer",
              `${importer}:${at === -1 ? 1 : context.source(importer).lineOf(at)} imports ${from} dynamically (import("${dynamic.specifier}")) and mentions ${name}: uses through a dynamic import are not followed, so the rename would leave them broken.`,
              `In ${importer}, rename its uses of ${name} to ${to} with replace_text (or make the import static), then call this rename again.`
            )
          }
        }
        if (specifiers.size === 0) continue
        if (!isScript(importer)) {
          throw new Refusal(
            "unsupported_importer",
            `${importer} imports ${name} from ${from}, and fe_surgeon edits only TypeScript and JavaScript files (not .vue, .svelte or .astro).`,
            `Rename by hand there (workspace_edit), or rename in the script files first and then fix ${importer}.`
          )
        }
        const target = context.source(importer)
        importerEdits(
          target,
          specifiers,
          name,
          to,
          (more) => add(importer, more),
          (next) => {
            if (allExportNames(target).has(to) || exportsName(context.graph, importer, to)) {
              throw new Refusal(
                "name_conflict",
                `Cannot rename ${symbol} to ${to}: ${importer} re-exports ${name} and already exports a ${to}.`,
                "Pick another name."
              )
            }
            propagate(importer, next)
          }
        )
      }
    }
    propagate(file, symbol)
  }
  const occurrences = binding.declarations.length + binding.references.length
  const importers = [...edits.keys()].filter((path) => path !== file).length
  return {
    edits,
    summary:
      `Renamed ${symbol} to ${to} in ${file} (${occurrences} occurrence${occurrences === 1 ? "" : "s"})` +
      (exported ? ` and in ${importers} importing file${importers === 1 ? "" : "s"}` : "") +
      (topLevel ? "" : ` (a local of line ${source.lineOf(binding.declarations[0]!.start)})`) +
      "."
  }
}

/**
 * The files a rename of the export `symbol` of `file` may touch, from the
 * import graph alone (to read only those): the file, the importers taking
 * the name (or the whole module), and through re-exports and `export *`,
 * theirs.
 *
 * **Example**
 *
 * ```ts
 * import type { ImportView } from "./capabilities/fe/edit/view.ts"
 * import { renameScope } from "./capabilities/fe/edit/rename.ts"
 *
 * declare const graph: ImportView
 * renameScope(graph, "src/lib/format.ts", "formatPrice") // ["src/lib/format.ts", "src/App.tsx", …]
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const renameScope = (graph: ImportView, file: string, symbol: string): ReadonlyArray<string> => {
  const files = new Set([file])
  const seen = new Set([file])
  let frontier = [file]
  while (frontier.length > 0) {
    const next: Array<string> = []
    for (const from of frontier) {
      for (const importer of graph.importersOf(from)) {
        const edges = graph
          .importsOf(importer)
          .filter((edge) => edge.resolution._tag === "File" && edge.resolution.path === from)
        if (!edges.some((edge) => edge.names.includes(symbol) || edge.names.includes("*") || edge.kind === "dynamic")) {
          continue
        }
        files.add(importer)
        // Re-exported (`export … from`, or imported and then exported by name): its importers too.
        if (
          !seen.has(importer) &&
          (edges.some((edge) => edge.kind === "reexport") || graph.exportNames(importer).includes(symbol))
        ) {
          seen.add(importer)
          next.push(importer)
        }
      }
    }
    frontier = next
  }
  return [...files]
}

/**
 * Whether the edit engine reads a file: TypeScript or JavaScript, not a Vue, Svelte or Astro component.
 *
 * **Example**
 *
 * ```ts
 * import { isScript } from "./capabilities/fe/edit/rename.ts"
 *
 * isScript("src/App.tsx") // => true
 * isScript("src/App.vue") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isScript = (path: string): boolean => /\.(?:[cm]?[jt]sx?)$/.test(path)

const nameOf = (node: Node): string => node.name ?? node.value

/** One importer's edits for the export `name` of a module it imports with one of `specifiers`. */
const importerEdits = (
  source: Source,
  specifiers: ReadonlySet<string>,
  name: string,
  to: string,
  add: (edits: ReadonlyArray<Edit>) => void,
  reexported: (name: string) => void
) => {
  const moduleScope = source.analysis.scopes[0]!.bindings
  for (const declaration of importsOf(source)) {
    if (!specifiers.has(declaration.source.value)) continue
    for (const specifier of declaration.specifiers ?? []) {
      if (specifier.type === "ImportSpecifier" && nameOf(specifier.imported) === name) {
        if (specifier.imported.start === specifier.local.start) {
          const binding = moduleScope.get(specifier.local.name)
          if (binding === undefined) continue
          checkConflicts(source, binding, to)
          add(bindingEdits(binding, to, "project"))
          // `import { name } from …` then `export { name }`: the file exports it under the new name too.
          if (binding.references.some((r) => r.kind === "export")) reexported(name)
        } else {
          add([{ start: specifier.imported.start, end: specifier.imported.end, text: to }])
        }
      } else if (specifier.type === "ImportNamespaceSpecifier") {
        const binding = moduleScope.get(specifier.local.name)
        for (const reference of binding?.references ?? []) {
          if (reference.member?.name === name) {
            add([{ start: reference.member.start, end: reference.member.end, text: to }])
          }
        }
      }
    }
  }
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    if (statement.type === "ExportNamedDeclaration" && statement.source && specifiers.has(statement.source.value)) {
      for (const specifier of statement.specifiers ?? []) {
        if (nameOf(specifier.local) !== name) continue
        add([{ start: specifier.local.start, end: specifier.local.end, text: to }])
        if (specifier.local.start === specifier.exported.start) reexported(name)
      }
    } else if (
      statement.type === "ExportAllDeclaration" &&
      statement.exported != null &&
      specifiers.has(statement.source.value)
    ) {
      throw new Refusal(
        "unsupported_importer",
        `${source.path}:${source.lineOf(statement.start)} re-exports the module as a namespace (export * as ${nameOf(statement.exported)}), and its importers' ${nameOf(statement.exported)}.${name} uses are not followed.`,
        `Rename by hand (replace_text in each file using ${nameOf(statement.exported)}.${name}; fe_impact lists them), or replace the namespace re-export with named re-exports first.`
      )
    } else if (
      statement.type === "ExportAllDeclaration" &&
      statement.exported == null &&
      specifiers.has(statement.source.value) &&
      !allExportNames(source).has(name)
    ) {
      reexported(name)
    }
  }
}
