/**
 * Adding and removing imports, from the syntax tree: a name is merged into
 * an existing import of the module when there is one, else a new line goes
 * after the last import in the file's quote style; removing a name removes
 * its specifier (the whole declaration when none remains).
 *
 * @since 0.4.0
 */
import {
  type Edit,
  endOfLine,
  eolOf,
  importsOf,
  isIdentifier,
  type Node,
  quoteOf,
  Refusal,
  type Source,
  startOfLine,
  usesSemicolons
} from "./source.ts"

/**
 * What to import: named exports and/or the default export, from a module.
 *
 * **Example**
 *
 * ```ts
 * import type { ImportRequest } from "./capabilities/fe/edit/imports.ts"
 *
 * const request: ImportRequest = { module: "react", names: ["useState"] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ImportRequest {
  readonly module: string
  /** Named imports; `a as b` imports `a` under the local name `b`. */
  readonly names?: ReadonlyArray<string> | undefined
  readonly default?: string | undefined
  readonly typeOnly?: boolean | undefined
}

const importedName = (specifier: Node): string =>
  specifier.type === "ImportDefaultSpecifier"
    ? "default"
    : specifier.type === "ImportNamespaceSpecifier"
      ? "*"
      : (specifier.imported.name ?? specifier.imported.value)

/** `a` or `a as b`, checked. */
const splitName = (name: string): { readonly imported: string; readonly local: string } => {
  const parts = name.trim().split(/\s+as\s+/)
  const imported = parts[0]!.trim()
  const local = (parts[1] ?? imported).trim()
  if (parts.length > 2 || !isIdentifier(local) || !(isIdentifier(imported) || imported === "default")) {
    throw new Refusal(
      "invalid_name",
      `"${name}" is not an importable name (an identifier, or "name as local").`,
      "Pass names such as useState or formatPrice as price."
    )
  }
  return { imported, local }
}

/**
 * The edits that import `request` into a file; none when everything is
 * already imported. Refuses a local name already declared otherwise in the
 * file's module scope.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { addImportEdits } from "./capabilities/fe/edit/imports.ts"
 * import { applyEdits, parseSource } from "./capabilities/fe/edit/source.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const text = Effect.map(loadParser, (parse) => {
 *   const source = parseSource(parse, "a.ts", 'import { a } from "m"\n')
 *   return applyEdits(source.text, addImportEdits(source, { module: "m", names: ["b"] })) // import { a, b } from "m"
 * })
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const addImportEdits = (
  source: Source,
  request: ImportRequest,
  /** The quote and semicolons to write when the file has no statement to learn them from (a new file). */
  style?: { readonly quote: string; readonly semicolons: boolean }
): ReadonlyArray<Edit> => {
  const wanted: Array<{ readonly imported: string; readonly local: string }> = []
  for (const name of (request.names ?? []).map(splitName)) {
    const same = wanted.find((w) => w.local === name.local)
    if (same === undefined) wanted.push(name)
    else if (same.imported !== name.imported) {
      throw new Refusal(
        "name_conflict",
        `names import two things under the local name ${name.local} (${same.imported} and ${name.imported}).`,
        `Give one of them another local name ("${name.imported} as other").`
      )
    }
  }
  if (request.default !== undefined && wanted.some((w) => w.local === request.default)) {
    throw new Refusal(
      "name_conflict",
      `The default import and a named import are both called ${request.default}.`,
      "Give one of them another local name."
    )
  }
  if (request.default !== undefined && !isIdentifier(request.default)) {
    throw new Refusal(
      "invalid_name",
      `"${request.default}" is not a valid identifier for a default import.`,
      "Pass a name such as React."
    )
  }
  if (wanted.length === 0 && request.default === undefined) {
    throw new Refusal("nothing_to_import", "add_import needs names or default.", "Pass names, default, or both.")
  }
  const declarations = importsOf(source).filter((d) => d.source.value === request.module)
  const module = source.analysis.scopes[0]!.bindings
  // What is already imported from the module.
  const present = new Map<string, string>() // local → imported
  for (const declaration of declarations) {
    for (const specifier of declaration.specifiers ?? []) present.set(specifier.local.name, importedName(specifier))
  }
  const check = (local: string, imported: string) => {
    if (present.get(local) === imported) return false
    const binding = module.get(local)
    if (binding !== undefined) {
      const at = binding.declarations[0]
      throw new Refusal(
        "name_conflict",
        `${local} is already declared in ${source.path}${at ? `:${source.lineOf(at.start)}` : ""}${
          binding.imported ? ` (imported from ${binding.imported.module})` : ""
        }.`,
        `Import it under another name ("${imported} as other"), or rename the existing ${local} first (rename).`
      )
    }
    return true
  }
  const named = wanted.filter((n) => check(n.local, n.imported))
  const defaultName = request.default !== undefined && check(request.default, "default") ? request.default : undefined
  if (named.length === 0 && defaultName === undefined) return []
  const specifierText = (n: { readonly imported: string; readonly local: string }, inlineType: boolean) =>
    `${inlineType ? "type " : ""}${n.imported === n.local ? n.local : `${n.imported} as ${n.local}`}`
  const edits: Array<Edit> = []
  // Merge into an existing declaration: one with named specifiers (or only a default) of a compatible kind.
  const typeOnly = request.typeOnly === true
  const candidate = declarations.find(
    (d) =>
      !(d.specifiers ?? []).some((s: Node) => s.type === "ImportNamespaceSpecifier") &&
      (d.specifiers ?? []).length > 0 &&
      (d.importKind === "type" ? typeOnly : true)
  )
  let remainingNamed = named
  let remainingDefault = defaultName
  if (candidate !== undefined) {
    const specifiers: ReadonlyArray<Node> = candidate.specifiers
    const namedSpecifiers = specifiers.filter((s) => s.type === "ImportSpecifier")
    const hasDefault = specifiers.some((s) => s.type === "ImportDefaultSpecifier")
    const inlineType = typeOnly && candidate.importKind !== "type"
    if (named.length > 0) {
      const list = named.map((n) => specifierText(n, inlineType)).join(", ")
      if (namedSpecifiers.length > 0) {
        edits.push({ start: namedSpecifiers.at(-1)!.end, end: namedSpecifiers.at(-1)!.end, text: `, ${list}` })
      } else {
        // Only a default: `import React from "react"` → `import React, { useState } from "react"`.
        const last = specifiers.at(-1)!
        edits.push({ start: last.end, end: last.end, text: `, { ${list} }` })
      }
      remainingNamed = []
    }
    if (defaultName !== undefined && !hasDefault && candidate.importKind !== "type") {
      const first = specifiers[0]!
      const brace = source.text.lastIndexOf("{", first.start)
      const at = brace > candidate.start ? brace : first.start
      edits.push({ start: at, end: at, text: `${defaultName}, ` })
      remainingDefault = undefined
    }
  }
  if (remainingNamed.length === 0 && remainingDefault === undefined) return edits
  const learned = style !== undefined && importsOf(source).length === 0
  const quote = learned ? style.quote : quoteOf(source)
  const semi = (learned ? style.semicolons : usesSemicolons(source)) ? ";" : ""
  const eol = eolOf(source.text)
  const clause = [
    ...(remainingDefault !== undefined ? [remainingDefault] : []),
    ...(remainingNamed.length > 0 ? [`{ ${remainingNamed.map((n) => specifierText(n, false)).join(", ")} }`] : [])
  ].join(", ")
  const specifier = `${quote}${request.module.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`)}${quote}`
  const line = `import ${typeOnly ? "type " : ""}${clause} from ${specifier}${semi}`
  const last = importsOf(source).at(-1)
  if (last !== undefined) {
    edits.push({ start: last.end, end: last.end, text: `${eol}${line}` })
    return edits
  }
  // No import yet: after the directives ("use client"), else at the top.
  const body = source.program.body as ReadonlyArray<Node>
  const directives = body.filter((s, i) => s.type === "ExpressionStatement" && s.directive && i === body.indexOf(s))
  const lastDirective = directives.at(-1)
  if (lastDirective !== undefined) {
    edits.push({ start: lastDirective.end, end: lastDirective.end, text: `${eol}${line}` })
  } else {
    // After a byte order mark and a `#!` line, which must stay first.
    const text = source.text
    let at = text.startsWith("\uFEFF") ? 1 : 0
    if (text.startsWith("#!", at)) {
      const newline = text.indexOf("\n", at)
      if (newline === -1) {
        edits.push({ start: text.length, end: text.length, text: `${eol}${line}${eol}` })
        return edits
      }
      at = newline + 1
    }
    edits.push({ start: at, end: at, text: `${line}${eol}` })
  }
  return edits
}

/**
 * The edits that remove names (local or imported names; `default`, or `*`
 * for a namespace import) from a file's imports of a module — every
 * import of it when `names` is empty — with the names removed and how
 * often each is still referenced in the file.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { removeImportEdits } from "./capabilities/fe/edit/imports.ts"
 * import { applyEdits, parseSource } from "./capabilities/fe/edit/source.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const text = Effect.map(loadParser, (parse) => {
 *   const source = parseSource(parse, "a.ts", 'import { a, b } from "m"\n')
 *   return applyEdits(source.text, removeImportEdits(source, "m", ["b"]).edits) // import { a } from "m"
 * })
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const removeImportEdits = (
  source: Source,
  module: string,
  names: ReadonlyArray<string>
): {
  readonly edits: ReadonlyArray<Edit>
  readonly removed: ReadonlyArray<string>
  readonly stillUsed: ReadonlyArray<string>
} => {
  const declarations = importsOf(source).filter((d) => d.source.value === module)
  if (declarations.length === 0) {
    const modules = [...new Set(importsOf(source).map((d) => d.source.value as string))]
    throw new Refusal(
      "import_not_found",
      `${source.path} does not import ${module}.`,
      `Its imports: ${modules.join(", ") || "none"}.`
    )
  }
  const all = names.length === 0
  // A name is a local name (`a2` of `a as a2`), `imported as local` exactly, default or *; an imported name
  // alone only when no import of the module has that local name (`a` never removes `a as a2` next to `a`).
  const locals = new Set(declarations.flatMap((d) => (d.specifiers ?? []).map((s: Node) => s.local.name as string)))
  const wantedNames = new Set(names.map((name) => name.trim().replace(/\s+as\s+/, " as ")))
  const matches = (specifier: Node) => {
    if (all) return true
    const local: string = specifier.local.name
    const imported = importedName(specifier)
    return (
      wantedNames.has(local) ||
      wantedNames.has(`${imported} as ${local}`) ||
      (imported === "default" || imported === "*" ? wantedNames.has(imported) : false) ||
      (wantedNames.has(imported) && !locals.has(imported))
    )
  }
  const found = new Set<string>()
  const edits: Array<Edit> = []
  const removed: Array<string> = []
  const module0 = source.analysis.scopes[0]!.bindings
  const stillUsed: Array<string> = []
  for (const declaration of declarations) {
    const specifiers: ReadonlyArray<Node> = declaration.specifiers ?? []
    const gone = specifiers.filter(matches)
    for (const specifier of gone) {
      found.add(specifier.local.name)
      found.add(importedName(specifier))
      found.add(`${importedName(specifier)} as ${specifier.local.name}`)
      removed.push(specifier.local.name)
      if ((module0.get(specifier.local.name)?.references.length ?? 0) > 0) stillUsed.push(specifier.local.name)
    }
    if (gone.length === 0 && !(all && specifiers.length === 0)) continue
    const kept = specifiers.filter((s) => !gone.includes(s))
    if (kept.length === 0) {
      const start = startOfLine(source.text, declaration.start)
      const end = endOfLine(source.text, declaration.end)
      edits.push({ start, end: end === declaration.end ? declaration.end : end, text: "" })
      continue
    }
    const keptNamed = kept.filter((s) => s.type === "ImportSpecifier")
    if (keptNamed.length === 0) {
      // Only the default (or namespace) remains: rewrite the clause.
      const first = specifiers[0]!
      const lastSpecifier = specifiers.at(-1)!
      const closing = source.text.indexOf("}", lastSpecifier.end)
      const end = closing !== -1 && closing < declaration.source.start ? closing + 1 : lastSpecifier.end
      edits.push({ start: first.start, end, text: kept.map((s) => source.text.slice(s.start, s.end)).join(", ") })
      continue
    }
    // Remove each named specifier with its comma: up to the next specifier, or from the previous one when last.
    const namedAll = specifiers.filter((s) => s.type === "ImportSpecifier")
    for (const specifier of gone) {
      if (specifier.type !== "ImportSpecifier") {
        // A default next to kept named ones: `D, { a }` → `{ a }`.
        const next = specifiers[specifiers.indexOf(specifier) + 1]
        const brace = next === undefined ? -1 : source.text.lastIndexOf("{", next.start)
        edits.push({ start: specifier.start, end: brace > specifier.end ? brace : specifier.end, text: "" })
        continue
      }
      const index = namedAll.indexOf(specifier)
      const keptAfter = namedAll.slice(index + 1).find((s) => !gone.includes(s))
      if (keptAfter !== undefined) {
        edits.push({ start: specifier.start, end: namedAll[index + 1]!.start, text: "" })
      } else {
        const previousKept = [...namedAll.slice(0, index)].reverse().find((s) => !gone.includes(s))!
        edits.push({ start: previousKept.end, end: specifier.end, text: "" })
      }
    }
  }
  if (!all) {
    const missing = [...wantedNames].filter((name) => !found.has(name))
    if (missing.length > 0) {
      const imported = declarations.flatMap((d) => (d.specifiers ?? []).map((s: Node) => s.local.name as string))
      throw new Refusal(
        "import_not_found",
        `${source.path} does not import ${missing.join(", ")} from ${module}.`,
        `It imports from ${module}: ${imported.join(", ") || "nothing by name (a side-effect import)"}.`
      )
    }
  }
  return { edits: mergeAdjacent(edits), removed, stillUsed }
}

/** Removals that touch (one ending where the next starts) joined, so they do not count as overlapping. */
const mergeAdjacent = (edits: ReadonlyArray<Edit>): ReadonlyArray<Edit> => {
  const sorted = [...edits].sort((a, b) => a.start - b.start)
  const out: Array<Edit> = []
  for (const edit of sorted) {
    const last = out.at(-1)
    if (last !== undefined && last.text === "" && edit.text === "" && edit.start <= last.end) {
      out[out.length - 1] = { start: last.start, end: Math.max(last.end, edit.end), text: "" }
    } else out.push(edit)
  }
  return out
}
