/**
 * Turns file skeletons into the map `fe_skeleton` returns, within a token
 * budget: the most detail that fits for every file (signatures and imports,
 * then signatures only, then export names only), and when even names do not
 * fit, as many files as fit with the rest counted by directory.
 *
 * @since 0.1.0
 */
import type { ExportEntry, FileSkeleton } from "./extract.ts"

/**
 * How much of each file the map shows.
 *
 * @category models
 * @since 0.1.0
 */
export type Detail = "full" | "signatures" | "names"

/**
 * The estimated tokens of a text: one per 4 characters, rounded up — the
 * usual rule of thumb for English and code with the tokenizers of current
 * models (within about 20% for source code).
 *
 * **Example**
 *
 * ```ts
 * import { estimateTokens } from "./capabilities/fe/skeleton/render.ts"
 *
 * estimateTokens("export function sum(a: number, b: number): number") // => 13
 * ```
 *
 * @category budget
 * @since 0.1.0
 */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

/** `L12` or `L12-20` before an export (a declaration over several lines shows its last); "" without lines. */
const lines = (entry: ExportEntry): string =>
  entry.line === undefined
    ? ""
    : entry.endLine === undefined || entry.endLine <= entry.line
      ? `L${entry.line} `
      : `L${entry.line}-${entry.endLine} `

/**
 * One file as the map shows it, at a level of detail. Each export starts
 * with its lines when the skeleton has them: `L12-20` (`L12` for one line)
 * in full and signatures detail, ` L12` after the name in names detail.
 *
 * **Example**
 *
 * ```ts
 * import { renderFile } from "./capabilities/fe/skeleton/render.ts"
 *
 * renderFile({ path: "src/sum.ts", exports: [{ name: "sum", kind: "function", signature: "(a: number): number", line: 3, endLine: 5 }], imports: [] }, "full")
 * // => "src/sum.ts\n  L3-5 function sum(a: number): number"
 * ```
 *
 * @category rendering
 * @since 0.1.0
 */
export const renderFile = (file: FileSkeleton, detail: Detail): string => {
  if (detail === "names") {
    // A value and a type of the same name (`const Problem` and `type Problem`), or overloads, once: at the first line.
    const byName = new Map<string, string>()
    for (const e of file.exports) {
      const name = e.kind === "reexport" ? `${e.signature || e.name} from ${e.from}` : e.name
      const line = e.line === undefined ? "" : ` L${e.line}`
      const shown =
        e.kind !== "reexport" && e.isDefault === true && e.name !== "default"
          ? `${name}${line} (default)`
          : `${name}${line}`
      const key = e.kind !== "reexport" && e.isDefault === true && e.name !== "default" ? `${name} (default)` : name
      if (!byName.has(key)) byName.set(key, shown)
    }
    const unique = [...byName.values()]
    return `${file.path}: ${unique.length === 0 ? "(no exports)" : unique.join(", ")}${file.error !== undefined ? " (does not parse)" : ""}`
  }
  const out = [file.path]
  if (file.error !== undefined) out.push(`  ! does not parse: ${file.error}`)
  if (detail === "full" && file.imports.length > 0) {
    out.push(
      `  imports: ${file.imports.map((i) => (i.names.length === 0 ? i.from : `${i.from} {${i.names.join(", ")}}`)).join("; ")}`
    )
  }
  for (const entry of file.exports) {
    if (entry.kind === "reexport") {
      out.push(`  ${lines(entry)}export ${entry.signature || entry.name} from ${entry.from}`)
    } else {
      // `(params)`, `<T>(params)` and `: Type` follow the name; `= value`, `{ members }`, `extends …` after a space.
      const first = entry.signature[0]
      const separator = first === undefined || first === "(" || first === "<" || first === ":" ? "" : " "
      out.push(
        `  ${lines(entry)}${entry.kind} ${entry.name}${separator}${entry.signature}${entry.async === true ? " (async)" : ""}${entry.isDefault === true && entry.name !== "default" ? " (default export)" : ""}`
      )
    }
  }
  if (file.exports.length === 0) out.push("  (no exports)")
  return out.join("\n")
}

/**
 * A map within a budget.
 *
 * @category models
 * @since 0.1.0
 */
export interface RenderedMap {
  readonly text: string
  readonly tokens: number
  readonly detail: Detail
  readonly filesShown: number
  /**
   * The files left out, counted by their top directories (at most two levels): at most 40 entries, the largest, the
   * others summed in a last entry `(other directories)` (the result's JSON is part of what the client reads).
   */
  readonly omitted: ReadonlyArray<{ readonly path: string; readonly files: number }>
}

const dirOf = (path: string): string => {
  const parts = path.split("/")
  return parts.length <= 1 ? "." : parts.slice(0, Math.min(2, parts.length - 1)).join("/")
}

/** At most this many entries in `omitted`. */
const maxOmitted = 40

/** The files left out counted by directory, in order; past 40 directories the largest 39 and the others summed. */
const countByDirectory = (files: ReadonlyArray<FileSkeleton>): Array<{ path: string; files: number }> => {
  const counts = new Map<string, number>()
  for (const file of files) {
    const dir = dirOf(file.path)
    counts.set(dir, (counts.get(dir) ?? 0) + 1)
  }
  const counted = [...counts].map(([path, n]) => ({ path, files: n }))
  if (counted.length <= maxOmitted) return counted
  const kept = new Set(
    [...counted]
      .sort((a, b) => b.files - a.files)
      .slice(0, maxOmitted - 1)
      .map((o) => o.path)
  )
  const rest = counted.filter((o) => !kept.has(o.path)).reduce((sum, o) => sum + o.files, 0)
  return [...counted.filter((o) => kept.has(o.path)), { path: "(other directories)", files: rest }]
}

/**
 * The map of the files within `budget` tokens (a header line counted in).
 *
 * **Example**
 *
 * ```ts
 * import { renderMap } from "./capabilities/fe/skeleton/render.ts"
 *
 * renderMap([{ path: "a.ts", exports: [], imports: [] }], 1000, "# 1 file").detail // => "full"
 * ```
 *
 * @category budget
 * @since 0.1.0
 */
export const renderMap = (files: ReadonlyArray<FileSkeleton>, budget: number, header: string): RenderedMap => {
  // Each detail is tried until its length passes the budget: a large tree costs what the budget holds, not every
  // file rendered three times.
  const limit = budget * 4
  for (const detail of ["full", "signatures", "names"] as const) {
    const blocks: Array<string> = [header]
    let length = header.length
    for (const file of files) {
      if (length > limit) break
      const block = renderFile(file, detail)
      blocks.push(block)
      length += 1 + block.length
    }
    if (length <= limit) {
      const text = blocks.join("\n")
      return { text, tokens: estimateTokens(text), detail, filesShown: files.length, omitted: [] }
    }
  }
  // Not even every name fits: as many files as fit (names only), then the rest counted by directory.
  // The header itself is cut if a long path makes it larger than the budget.
  const clip = (text: string, tokens: number) =>
    estimateTokens(text) <= tokens ? text : `${text.slice(0, Math.max(0, tokens * 4 - 1))}…`
  const reserve = Math.min(60, Math.floor(budget / 3))
  const shown: Array<string> = [clip(header, Math.max(1, budget - reserve - 1))]
  let used = estimateTokens(shown[0]!) + 1
  let index = 0
  for (; index < files.length; index++) {
    const block = renderFile(files[index]!, "names")
    const cost = estimateTokens(block) + 1
    if (used + cost > budget - reserve) break
    shown.push(block)
    used += cost
  }
  const omitted = countByDirectory(files.slice(index))
  // The directories that fit in the reserve, in order; the others are said to exist (`omitted` has up to 40).
  const room = Math.max(0, budget - used) * 4
  const lead = `… ${files.length - index} more files`
  let tail = lead
  for (const [i, o] of omitted.entries()) {
    const next = `${tail}${i === 0 ? ": " : ", "}${o.path} (${o.files})`
    const rest = omitted.length - i - 1
    if ((rest > 0 ? next.length + 12 : next.length) > room) {
      tail = `${tail}${i === 0 ? "" : `, and ${omitted.length - i} more directories`}`
      break
    }
    tail = next
  }
  shown.push(clip(tail, Math.max(0, budget - used)))
  let text = shown.join("\n")
  // The estimates above round up per line; this makes sure of the bound, dropping shown files if it must.
  while (estimateTokens(text) > budget && shown.length > 2) {
    shown.splice(shown.length - 2, 1)
    index--
    text = shown.join("\n")
  }
  if (estimateTokens(text) > budget) text = clip(text, budget)
  return { text, tokens: estimateTokens(text), detail: "names", filesShown: index, omitted }
}
