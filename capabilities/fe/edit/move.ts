/**
 * Moving an exported top-level declaration to another file: the
 * declaration (with its leading comments) leaves its file, the new file
 * (created when missing) gets it with the imports it needs, the old file
 * imports it back when it still uses it, and every importer is rewritten to
 * import it from the new file (`export *` barrels get an explicit
 * re-export).
 *
 * @since 0.4.0
 */
import * as Path from "node:path"
import type { ImportView } from "./view.ts"
import { addImportEdits, removeImportEdits } from "./imports.ts"
import { isScript } from "./rename.ts"
import type { Binding, Occurrence, Scope } from "./scope.ts"
import {
  allExportNames,
  applyEdits,
  declaredNames,
  type Edit,
  endOfLine,
  eolOf,
  exportNamesOf,
  importsOf,
  nearestNames,
  type Node,
  quoteOf,
  Refusal,
  type Source,
  startOfLine,
  usesSemicolons
} from "./source.ts"

/**
 * What a move reads and writes: sources from the overlay (undefined for a
 * file that does not exist), and the import graph.
 *
 * **Example**
 *
 * ```ts
 * import type { MoveContext } from "./capabilities/fe/edit/move.ts"
 *
 * declare const context: MoveContext
 * context.parse("src/a.ts", "export const a = 1\n")
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface MoveContext {
  readonly text: (path: string) => string | undefined
  readonly parse: (path: string, text: string) => Source
  readonly graph: ImportView
  /** How the project writes relative specifiers (`./x`, `./x.js`), for a file that has no relative import itself. */
  readonly relativeStyle?: string | undefined
}

const sourceExtension = /\.(?:tsx?|mts|cts|jsx?|mjs|cjs)$/

const stem = (path: string) => path.replace(sourceExtension, "")

/**
 * The specifier `importer` should use for `target`, written as it wrote `previous` for `old`: relative (with no extension, the file's own, or `.js` for `.ts`), or the same alias prefix when `target` is under the directory the alias names.
 *
 * **Example**
 *
 * ```ts
 * import { specifierFor } from "./capabilities/fe/edit/move.ts"
 *
 * specifierFor("src/a.ts", "./lib/util.js", "src/lib/util.ts", "src/lib/x.ts") // => "./lib/x.js"
 * ```
 *
 * @category helpers
 * @since 0.4.0
 */
export const specifierFor = (importer: string, previous: string, old: string, target: string): string => {
  if (!previous.startsWith(".")) {
    // An alias (`@/lib/format` for src/lib/format.ts): the same prefix, when the new file is under the same directory.
    const written = previous.replace(sourceExtension, "")
    const oldStem = stem(old)
    let common = 0
    while (
      common < written.length &&
      common < oldStem.length &&
      written[written.length - 1 - common] === oldStem[oldStem.length - 1 - common]
    )
      common++
    const aliasPrefix = written.slice(0, written.length - common)
    const pathPrefix = oldStem.slice(0, oldStem.length - common)
    if (common > 0 && stem(target).startsWith(pathPrefix)) return aliasPrefix + stem(target).slice(pathPrefix.length)
  }
  let relative = Path.posix.relative(Path.posix.dirname(importer), target)
  if (!relative.startsWith(".")) relative = `./${relative}`
  const previousExtension = /\.[cm]?[jt]sx?$/.exec(previous)?.[0]
  if (previousExtension === undefined) return stem(relative)
  const oldExtension = /\.[cm]?[jt]sx?$/.exec(old)?.[0]
  if (previousExtension === oldExtension) return relative
  // `.js` written for a `.ts` file (NodeNext): the new file's own JavaScript name.
  const targetExtension = /\.[cm]?[jt]sx?$/.exec(target)?.[0] ?? ""
  const js = targetExtension.replace("ts", "js")
  return stem(relative) + js
}

/**
 * The comments just before a statement (only whitespace between), for moving them with it: only those that start a
 * line (a trailing comment of the line before belongs to that line).
 */
const leadingStart = (source: Source, statement: Node): number => {
  let start = statement.start
  const comments = [...source.comments].sort((a, b) => b.start - a.start)
  for (const comment of comments) {
    if (comment.end > start) continue
    if (source.text.slice(comment.end, start).trim() !== "") break
    const lineStart = startOfLine(source.text, comment.start)
    if (lineStart === comment.start && comment.start > 0 && source.text[comment.start - 1] !== "\n") break
    start = comment.start
  }
  return startOfLine(source.text, start)
}

/**
 * How a file writes relative specifiers: `./x.js`, `./x.ts` or `./x` (the first relative import's extension), or
 * the project's way when it has none.
 */
const relativeStyle = (source: Source, project = "./x"): string => {
  for (const declaration of importsOf(source)) {
    const value: string = declaration.source.value
    if (!value.startsWith(".")) continue
    const extension = /\.[cm]?[jt]sx?$/.exec(value)?.[0]
    return extension === undefined ? "./x" : `./x${extension}`
  }
  return project
}

interface Dependency {
  readonly binding: Binding
  readonly typeOnly: boolean
}

/**
 * The new texts of every file a move changes, by path (`created` lists the
 * files that did not exist).
 *
 * **Example**
 *
 * ```ts
 * import { moveExport, type MoveContext } from "./capabilities/fe/edit/move.ts"
 *
 * declare const context: MoveContext
 * moveExport(context, "src/utils.ts", "formatPrice", "src/lib/price.ts").texts.size
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const moveExport = (
  context: MoveContext,
  file: string,
  symbol: string,
  to: string
): {
  readonly texts: ReadonlyMap<string, string>
  readonly created: boolean
  readonly importers: number
  /** Set when the move leaves the two files importing each other. */
  readonly cycle?: string | undefined
} => {
  if (file === to) throw new Refusal("same_file", `${symbol} is already in ${to}.`, "Pass another file in to.")
  if (!sourceExtension.test(to)) {
    throw new Refusal(
      "unsupported_file",
      `${to} is not a TypeScript or JavaScript file.`,
      "Pass a .ts, .tsx, .js… path."
    )
  }
  const oldText = context.text(file)!
  const source = context.parse(file, oldText)
  const body = source.program.body as ReadonlyArray<Node>
  const statement = body.find(
    (s) => s.type === "ExportNamedDeclaration" && s.declaration != null && declaredNames(s.declaration).includes(symbol)
  )
  if (statement === undefined) {
    const exported = [...allExportNames(source)]
    throw new Refusal(
      "symbol_not_found",
      `${file} has no exported declaration of ${symbol} (export const/function/class/type/interface ${symbol}).`,
      `Its exports: ${nearestNames(symbol, exported).join(", ") || "none"}. A symbol exported by an export { } list must be written export <declaration> first.`
    )
  }
  if (declaredNames(statement.declaration).length > 1) {
    throw new Refusal(
      "shared_declaration",
      `${symbol} is declared together with ${declaredNames(statement.declaration)
        .filter((n) => n !== symbol)
        .join(", ")} in one statement.`,
      "Split the declaration first (replace_text), then move it."
    )
  }
  const moduleBindings = source.analysis.scopes[0]!.bindings
  const own = moduleBindings.get(symbol)!
  const start = leadingStart(source, statement)
  let removeStart = start
  let end = endOfLine(source.text, statement.end)
  // No double blank line left behind: a blank line after it goes when one (or the file's start) is before it.
  const blankBefore = start === 0 || /\r?\n\r?\n$/.test(source.text.slice(Math.max(0, start - 4), start))
  if (blankBefore && end !== statement.end) end = endOfLine(source.text, end)
  if (source.text.slice(end).trim() === "") {
    // The last statement: the blank lines before it go too, the line before keeps its line break.
    let last = start
    while (last > 0 && /\s/.test(source.text[last - 1]!)) last--
    const lineBreak = source.text.indexOf("\n", last)
    if (last > 0 && lineBreak !== -1 && lineBreak < start) removeStart = lineBreak + 1
    end = source.text.length
  }
  const inside = (offset: number) => offset >= statement.start && offset < statement.end
  // What the declaration uses from the file's top level.
  const dependencies: Array<Dependency> = []
  for (const binding of moduleBindings.values()) {
    if (binding === own || !binding.references.some((r) => inside(r.start))) continue
    let typeOnly = binding.kind === "type"
    if (binding.imported !== undefined) {
      const declaration = importsOf(source).find((d) =>
        (d.specifiers ?? []).some((s: Node) => s.local.name === binding.name)
      )
      const specifier = (declaration?.specifiers ?? []).find((s: Node) => s.local.name === binding.name)
      typeOnly = declaration?.importKind === "type" || specifier?.importKind === "type"
    }
    dependencies.push({ binding, typeOnly })
  }
  // The target: refuse a conflict, else its text grows by the declaration.
  const targetText = context.text(to)
  const eol = eolOf(oldText)
  // The target's line ending (for a new file, or one without a line break: the source's).
  const targetEol = targetText !== undefined && targetText.includes("\n") ? eolOf(targetText) : eol
  const moved = oldText.slice(start, end).replace(/\s*$/, "").replace(/\r?\n/g, targetEol) + targetEol
  let newText: string
  if (targetText !== undefined) {
    const target = context.parse(to, targetText)
    const clash = target.analysis.scopes[0]!.bindings.get(symbol)
    if (clash !== undefined && clash.imported === undefined) {
      throw new Refusal(
        "name_conflict",
        `${to} already declares ${symbol} (line ${target.lineOf(clash.declarations[0]?.start ?? 0)}).`,
        "Rename one of them first (rename), or move it to another file."
      )
    }
    const fromOld = (module: string) =>
      context.graph
        .importsOf(to)
        .some((edge) => edge.specifier === module && edge.resolution._tag === "File" && edge.resolution.path === file)
    const alias = [...target.analysis.scopes[0]!.bindings.values()].find(
      (b) => b.imported?.name === symbol && b.name !== symbol && fromOld(b.imported.module)
    )
    if (alias !== undefined) {
      throw new Refusal(
        "aliased_import",
        `${to} imports ${symbol} from ${file} as ${alias.name} (line ${target.lineOf(alias.declarations[0]?.start ?? 0)}), which the move cannot rewrite into a declaration of ${symbol}.`,
        `Import it as ${symbol} in ${to} first (replace_text on the import and ${alias.name}'s uses), then move it.`
      )
    }
    let base = targetText
    if (clash !== undefined) {
      // The target imported it from the old file: that import goes.
      base = applyEdits(targetText, removeImportEdits(target, clash.imported!.module, [symbol]).edits).replace(
        /^(?:\r?\n)+/,
        ""
      )
    }
    // Before the first top-level statement that uses it (a const or class read before its declaration throws),
    // which comes after the imports; at the end when none does.
    const parsedBase = context.parse(to, base)
    const uses = parsedBase.analysis.unresolved.filter((occurrence) => occurrence.name === symbol)
    const user = (parsedBase.program.body as ReadonlyArray<Node>).find(
      (s) => s.type !== "ImportDeclaration" && uses.some((use) => use.start >= s.start && use.start < s.end)
    )
    if (user !== undefined) {
      const at = leadingStart(parsedBase, user)
      // A blank line before it, unless the file's start or a blank line is there.
      const before = at === 0 || /\n[ \t]*\r?\n$/.test(base.slice(0, at)) ? "" : targetEol
      newText = `${base.slice(0, at)}${before}${moved}${targetEol}${base.slice(at)}`
    } else newText = base.trim().length === 0 ? moved : `${base.replace(/\s*$/, "")}${targetEol}${targetEol}${moved}`
  } else newText = moved
  // Old file: the declaration leaves; locals it uses get exported; imports only it used go.
  const oldEdits: Array<Edit> = [{ start: removeStart, end, text: "" }]
  const localImports: Array<string> = []
  for (const dependency of dependencies) {
    const binding = dependency.binding
    if (binding.imported !== undefined) {
      if (binding.references.every((r) => inside(r.start))) {
        oldEdits.push(...removeImportEdits(source, binding.imported.module, [binding.name]).edits)
      }
      continue
    }
    localImports.push(binding.name)
    if (!exportNamesOf(source, binding.name).includes(binding.name)) {
      const declaration = body.find(
        (s) =>
          s.type !== "ExportNamedDeclaration" &&
          s.type !== "ImportDeclaration" &&
          declaredNames(s).includes(binding.name)
      )
      if (declaration === undefined) {
        throw new Refusal(
          "dependency_not_exportable",
          `${symbol} uses ${binding.name}, which ${file} neither exports nor declares in a statement that can be exported.`,
          `Move ${binding.name} first, or export it.`
        )
      }
      oldEdits.push({ start: declaration.start, end: declaration.start, text: "export " })
    }
  }
  let oldAfter = applyEdits(oldText, oldEdits)
  const stillUsed = own.references.some((r) => !inside(r.start))
  if (stillUsed) {
    const oldSource = context.parse(file, oldAfter)
    const specifier = specifierFor(file, relativeStyle(source, context.relativeStyle), file, to)
    oldAfter = applyEdits(
      oldAfter,
      addImportEdits(oldSource, { module: specifier, names: [symbol], typeOnly: own.kind === "type" })
    )
  }
  // New file: the imports the declaration needs.
  const quote = quoteOf(source)
  const resolvesTo = (specifier: string, path: string) =>
    context.graph
      .importsOf(file)
      .some((edge) => edge.specifier === specifier && edge.resolution._tag === "File" && edge.resolution.path === path)
  for (const dependency of dependencies) {
    const binding = dependency.binding
    // Imported from the target itself: declared there, nothing to import.
    if (binding.imported !== undefined && resolvesTo(binding.imported.module, to)) continue
    let module: string
    let name: string
    if (binding.imported !== undefined) {
      module = binding.imported.module.startsWith(".")
        ? specifierFor(
            to,
            binding.imported.module,
            Path.posix.join(Path.posix.dirname(file), binding.imported.module),
            Path.posix.join(Path.posix.dirname(file), binding.imported.module)
          )
        : binding.imported.module
      name = binding.imported.name
    } else {
      module = specifierFor(to, relativeStyle(source, context.relativeStyle), file, file)
      name = binding.name
    }
    if (name === "*") {
      const target = context.parse(to, newText)
      const line = `import ${dependency.typeOnly ? "type " : ""}* as ${binding.name} from ${quote}${module}${quote}${usesSemicolons(source) ? ";" : ""}`
      const last = importsOf(target).at(-1)
      newText =
        last === undefined
          ? `${line}${targetEol}${newText}`
          : `${newText.slice(0, last.end)}${targetEol}${line}${newText.slice(last.end)}`
      continue
    }
    const target = context.parse(to, newText)
    const request =
      name === "default"
        ? { module, default: binding.name, typeOnly: dependency.typeOnly }
        : {
            module,
            names: [name === binding.name ? name : `${name} as ${binding.name}`],
            typeOnly: dependency.typeOnly
          }
    const edits = addImportEdits(
      target,
      request,
      targetText === undefined ? { quote, semicolons: usesSemicolons(source) } : undefined
    )
    newText = applyEdits(newText, edits)
  }
  if (targetText === undefined) {
    // A created file: a blank line between its imports and the declaration.
    const lastImport = importsOf(context.parse(to, newText)).at(-1)
    if (lastImport !== undefined) {
      const after = endOfLine(newText, lastImport.end)
      if (!newText.startsWith(targetEol, after)) {
        newText = `${newText.slice(0, after)}${targetEol}${newText.slice(after)}`
      }
    }
  }
  const texts = new Map<string, string>([
    [file, oldAfter],
    [to, newText]
  ])
  // Importers: take it from the new file.
  let importers = 0
  for (const importer of context.graph.importersOf(file)) {
    if (importer === file) continue
    const specifiers = new Set(
      context.graph
        .importsOf(importer)
        .filter((edge) => edge.resolution._tag === "File" && edge.resolution.path === file)
        .map((edge) => edge.specifier)
    )
    if (specifiers.size === 0) continue
    if (!isScript(importer)) {
      const uses = context.graph
        .importsOf(importer)
        .some((edge) => edge.resolution._tag === "File" && edge.resolution.path === file && edge.names.includes(symbol))
      if (uses) {
        throw new Refusal(
          "unsupported_importer",
          `${importer} imports ${symbol} from ${file}, and fe_surgeon edits only TypeScript and JavaScript files.`,
          `Move it by hand, or change ${importer}'s import first.`
        )
      }
      continue
    }
    const text = texts.get(importer) ?? context.text(importer)
    if (text === undefined) continue
    const rewritten = rewriteImporter(context, importer, text, specifiers, file, to, symbol)
    if (rewritten !== text) {
      texts.set(importer, rewritten)
      importers++
    }
  }
  // The old file importing the new one and the new one the old: a cycle, which can throw at load time.
  const oldImportsNew =
    stillUsed ||
    dependencies.some(
      (d) =>
        d.binding.imported !== undefined &&
        !d.binding.references.every((r) => inside(r.start)) &&
        resolvesTo(d.binding.imported.module, to)
    ) ||
    context.graph
      .importsOf(file)
      .some((edge) => edge.resolution._tag === "File" && edge.resolution.path === to && !edge.typeOnly)
  const valueLocals = dependencies.filter((d) => d.binding.imported === undefined && !d.typeOnly)
  // Refused when, after the move, the target reads a value of the old file while it loads (the moved declaration,
  // or the target's own code) and the old file reads a value of the target while it loads (the moved one, or what it
  // imported from the target already): whichever file loads first, the other's value is read before it is
  // initialized.
  const atLoadIn =
    (scopes: ReadonlyArray<Scope>) =>
    (occurrence: Occurrence): boolean => {
      if (occurrence.meaning === "type" || occurrence.kind === "export") return false
      for (let current = occurrence.scope; current > 0; current = scopes[current]!.parent) {
        if (scopes[current]!.function) return false
      }
      return true
    }
  const atLoad = atLoadIn(source.analysis.scopes)
  const read = valueLocals.find((d) => d.binding.references.some((r) => inside(r.start) && atLoad(r)))
  let targetReads =
    read === undefined
      ? undefined
      : `${symbol}'s ${statement.declaration.type === "VariableDeclaration" ? "initializer" : "declaration"} reads ${read.binding.name} of ${file}`
  if (targetReads === undefined && targetText !== undefined) {
    const target = context.parse(to, targetText)
    const fromOld = new Set(
      context.graph
        .importsOf(to)
        .filter((edge) => edge.resolution._tag === "File" && edge.resolution.path === file)
        .map((edge) => edge.specifier)
    )
    const targetAtLoad = atLoadIn(target.analysis.scopes)
    for (const binding of target.analysis.scopes[0]!.bindings.values()) {
      if (binding.imported === undefined || binding.imported.name === symbol || !fromOld.has(binding.imported.module))
        continue
      const use = binding.references.find(targetAtLoad)
      if (use !== undefined) {
        targetReads = `${to}:${target.lineOf(use.start)} reads ${binding.name} of ${file}`
        break
      }
    }
  }
  const back = own.references.find((r) => !inside(r.start) && atLoad(r))
  let oldReads = back === undefined ? undefined : `${file}:${source.lineOf(back.start)} reads ${symbol}`
  if (oldReads === undefined && targetReads !== undefined) {
    for (const binding of moduleBindings.values()) {
      if (binding.imported === undefined || !resolvesTo(binding.imported.module, to)) continue
      const use = binding.references.find((r) => !inside(r.start) && atLoad(r))
      if (use !== undefined) {
        oldReads = `${file}:${source.lineOf(use.start)} reads ${binding.name} of ${to}`
        break
      }
    }
  }
  if (targetReads !== undefined && oldReads !== undefined) {
    throw new Refusal(
      "import_cycle",
      `Moving ${symbol} to ${to} would make ${file} and ${to} import each other, both reading the other's value while loading: ${targetReads}, and ${oldReads}. Whichever loads first, the other throws "Cannot access '…' before initialization".`,
      read !== undefined
        ? `Move ${read.binding.name} to ${to} too (move_export it first, in the same call), or move both to a third file.`
        : `Move ${symbol} to a third file, or first move what ${file} and ${to} read of each other into one of them.`
    )
  }
  let cycle: string | undefined
  if (oldImportsNew && valueLocals.length > 0) {
    cycle = `${file} and ${to} now import each other (${symbol} uses ${valueLocals.map((d) => d.binding.name).join(", ")} of ${file}): a cycle can throw at run time ("Cannot access … before initialization") when a top-level initializer reads the other file's value; consider moving ${valueLocals.map((d) => d.binding.name).join(", ")} too.`
  }
  return { texts, created: targetText === undefined, importers, ...(cycle !== undefined ? { cycle } : {}) }
}

const rewriteImporter = (
  context: MoveContext,
  importer: string,
  text: string,
  specifiers: ReadonlySet<string>,
  old: string,
  to: string,
  symbol: string
): string => {
  const source = context.parse(importer, text)
  const edits: Array<Edit> = []
  const additions: Array<{ module: string; names: Array<string>; typeOnly: boolean }> = []
  const reexports: Array<string> = []
  for (const declaration of importsOf(source)) {
    if (!specifiers.has(declaration.source.value)) continue
    for (const specifier of declaration.specifiers ?? []) {
      if (specifier.type === "ImportNamespaceSpecifier") {
        const binding = source.analysis.scopes[0]!.bindings.get(specifier.local.name)
        const use = binding?.references.find((r) => r.member?.name === symbol)
        if (use !== undefined) {
          throw new Refusal(
            "namespace_use",
            `${importer}:${source.lineOf(use.start)} uses ${specifier.local.name}.${symbol} through a namespace import of ${old}, which the move cannot rewrite.`,
            `Import ${symbol} by name there first, then move it.`
          )
        }
        continue
      }
      if (specifier.type !== "ImportSpecifier" || (specifier.imported.name ?? specifier.imported.value) !== symbol)
        continue
      edits.push(...removeImportEdits(source, declaration.source.value, [specifier.local.name]).edits)
      if (importer === to) continue
      const local = specifier.local.name
      additions.push({
        module: specifierFor(importer, declaration.source.value, old, to),
        names: [local === symbol ? symbol : `${symbol} as ${local}`],
        typeOnly: declaration.importKind === "type" || specifier.importKind === "type"
      })
    }
  }
  const eol = eolOf(text)
  const quote = quoteOf(source)
  const semi = usesSemicolons(source) ? ";" : ""
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    if (statement.type === "ExportNamedDeclaration" && statement.source && specifiers.has(statement.source.value)) {
      const list: ReadonlyArray<Node> = statement.specifiers ?? []
      const index = list.findIndex((s) => (s.local.name ?? s.local.value) === symbol)
      if (index === -1) continue
      const module = specifierFor(importer, statement.source.value, old, to)
      if (list.length === 1) {
        edits.push({ start: statement.source.start, end: statement.source.end, text: `${quote}${module}${quote}` })
      } else {
        const item = list[index]!
        edits.push(
          index < list.length - 1
            ? { start: item.start, end: list[index + 1]!.start, text: "" }
            : { start: list[index - 1]!.end, end: item.end, text: "" }
        )
        reexports.push(
          `export ${statement.exportKind === "type" ? "type " : ""}{ ${text.slice(item.start, item.end)} } from ${quote}${module}${quote}${semi}`
        )
      }
    } else if (
      statement.type === "ExportAllDeclaration" &&
      statement.exported == null &&
      specifiers.has(statement.source.value) &&
      importer !== to &&
      // An explicit export of the name (re-pointed above) wins over export *: no second one.
      !allExportNames(source).has(symbol)
    ) {
      const module = specifierFor(importer, statement.source.value, old, to)
      edits.push({
        start: statement.end,
        end: statement.end,
        text: `${eol}export { ${symbol} } from ${quote}${module}${quote}${semi}`
      })
    }
  }
  let after = applyEdits(text, edits)
  if (reexports.length > 0) after = `${after.replace(/\s*$/, "")}${eol}${reexports.join(eol)}${eol}`
  for (const addition of additions) {
    const parsed = context.parse(importer, after)
    after = applyEdits(
      after,
      addImportEdits(parsed, { module: addition.module, names: addition.names, typeOnly: addition.typeOnly })
    )
  }
  return after
}
