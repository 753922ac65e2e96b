/**
 * `fe_diff`: a semantic diff between the working tree and a git ref (or
 * between two refs) — per changed source file, what changed in its API:
 * exports added, removed or changed (kind and signature before → after),
 * component props, imports, and files added, deleted or renamed (git's
 * rename detection, plus a moved file git does not track yet) — not lines.
 * A file whose API did not change gets a one-line note. The files are
 * ranked (removed and changed exports first: they break importers, whose
 * number the working tree's import graph gives) and cut to a token budget.
 * Git runs through the `CommandRunner` (`diff/git.ts`); the working tree is
 * read through the `Workspace`, whose deny list is respected.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "../workspace/errors.ts"
import { type ApiDiff, diffApi, type FileApi, fileApi, isApiSource } from "./diff/api.ts"
import { type Change, type ChangeStatus, makeGit } from "./diff/git.ts"
import { FeGraph } from "./graph/cache.ts"
import type { ImportGraph } from "./graph/graph.ts"
import { loadParserForTool, type Parse } from "./skeleton/extract.ts"
import { estimateTokens } from "./skeleton/render.ts"
import { skippedDirs } from "./skeleton.ts"

/**
 * The default and the bounds of `budget`, in estimated tokens (4
 * characters a token) of the result's JSON.
 *
 * **Example**
 *
 * ```ts
 * import { diffBudgets } from "./capabilities/fe/diff.ts"
 *
 * diffBudgets.default // => 2000
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const diffBudgets = { default: 2000, minimum: 200, maximum: 100_000 } as const

/** The largest file compared (larger ones are counted as unreadable). */
const maxFileBytes = 2 * 1024 * 1024
/** An untracked file this similar (shared lines) to a deleted one is that file moved. */
const renameSimilarity = 0.5
/** At most this many (deleted, untracked) pairs are compared for moves. */
const maxRenamePairs = 10_000

const ExportView = Schema.Struct({
  name: Schema.String.annotate({
    description: "The exported name; a default export shows as default or Name (default)."
  }),
  kind: Schema.String,
  signature: Schema.String,
  importers: Schema.optionalKey(
    Schema.Int.annotate({ description: "Files importing this name (working tree only, from the import graph)." })
  )
})

const Side = Schema.Struct({
  kind: Schema.String,
  signature: Schema.String.annotate({
    description: "The signature, compared whole, shown cut to 160 characters around the change (… where cut)."
  })
})

const ImportView = Schema.Struct({
  from: Schema.String,
  names: Schema.Array(Schema.String),
  module: Schema.Boolean.annotate({ description: "The whole module is new (or gone), not only these names." })
})

const FileDiff = Schema.Struct({
  path: Schema.String,
  status: Schema.Literals(["added", "deleted", "modified", "renamed"]),
  from: Schema.optionalKey(Schema.String.annotate({ description: "A renamed file's old path." })),
  exports: Schema.optionalKey(
    Schema.Struct({
      added: Schema.Array(ExportView),
      removed: Schema.Array(ExportView),
      changed: Schema.Array(
        Schema.Struct({
          name: Schema.String,
          before: Side,
          after: Side,
          members: Schema.optionalKey(
            Schema.Struct({
              added: Schema.Array(Schema.String),
              removed: Schema.Array(Schema.String),
              changed: Schema.Array(Schema.Struct({ name: Schema.String, before: Schema.String, after: Schema.String }))
            }).annotate({
              description:
                "The members that changed: an interface's or object type's, a class's, a function's parameters (param.member for an object-typed one) and (return)."
            })
          ),
          note: Schema.optionalKey(
            Schema.String.annotate({
              description: "An unannotated const whose value changed kind, e.g. value: number → string."
            })
          ),
          importers: Schema.optionalKey(Schema.Int)
        })
      )
    }).annotate({ description: "Present when an export was added, removed or changed." })
  ),
  props: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        component: Schema.String,
        added: Schema.Array(Schema.String),
        removed: Schema.Array(Schema.String),
        changed: Schema.Array(Schema.Struct({ name: Schema.String, before: Schema.String, after: Schema.String }))
      })
    ).annotate({ description: "Components whose props (members as name?: type) changed." })
  ),
  imports: Schema.optionalKey(
    Schema.Struct({ added: Schema.Array(ImportView), removed: Schema.Array(ImportView) }).annotate({
      description: "Present when an import was added or removed."
    })
  ),
  note: Schema.optionalKey(
    Schema.String.annotate({
      description: "implementation changed: N lines when the API did not change; why a file was not compared."
    })
  ),
  omitted: Schema.optionalKey(
    Schema.Int.annotate({ description: "Entries of this file's lists left out to fit in budget." })
  )
})
type FileDiff = typeof FileDiff.Type

/** A file's diff with every list present (the result leaves the empty ones out). */
interface FullFile extends FileDiff {
  readonly exports: NonNullable<FileDiff["exports"]>
  readonly imports: NonNullable<FileDiff["imports"]>
}

/** The file as the result shows it: `exports` and `imports` only when they have entries. */
const present = (file: FullFile): FileDiff => {
  const { exports, imports, ...rest } = file
  const hasExports = exports.added.length + exports.removed.length + exports.changed.length > 0
  const hasImports = imports.added.length + imports.removed.length > 0
  return {
    path: rest.path,
    status: rest.status,
    ...(rest.from !== undefined ? { from: rest.from } : {}),
    ...(hasExports ? { exports } : {}),
    ...(rest.props !== undefined ? { props: rest.props } : {}),
    ...(hasImports ? { imports } : {}),
    ...(rest.note !== undefined ? { note: rest.note } : {}),
    ...(rest.omitted !== undefined ? { omitted: rest.omitted } : {})
  }
}

const Counts = Schema.Struct({ added: Schema.Int, removed: Schema.Int, changed: Schema.Int })

/**
 * The `fe_diff` result's Schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { DiffResult } from "./capabilities/fe/diff.ts"
 *
 * const isDiff = Schema.is(DiffResult)
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const DiffResult = Schema.Struct({
  base: Schema.String.annotate({ description: "The base ref and its commit." }),
  head: Schema.String.annotate({ description: "The head ref and its commit, or working tree." }),
  files: Schema.Array(FileDiff).annotate({ description: "Changed source files, breaking changes first." }),
  summary: Schema.Struct({
    text: Schema.String,
    files: Schema.Int.annotate({ description: "Changed source files (shown or omitted)." }),
    added: Schema.Int,
    deleted: Schema.Int,
    renamed: Schema.Int,
    modified: Schema.Int,
    exports: Counts,
    props: Schema.Int.annotate({ description: "Components whose props changed." }),
    imports: Schema.Struct({ added: Schema.Int, removed: Schema.Int }),
    bodyOnly: Schema.Int.annotate({ description: "Files changed without a change to their exports or props." }),
    skipped: Schema.Struct({
      denied: Schema.Int.annotate({ description: "Files on the workspace's deny list: not read." }),
      other: Schema.Int.annotate({
        description:
          "Changed files not compared: not TypeScript/JavaScript/Vue/Svelte/Astro, or untracked under node_modules, dist, build…"
      }),
      unreadable: Schema.Int.annotate({ description: "Files too large, binary, or not readable." })
    })
  }),
  truncated: Schema.Boolean,
  omitted: Schema.Struct({
    files: Schema.Int,
    entries: Schema.Int.annotate({ description: "Export, prop and import entries in the omitted files and lists." }),
    paths: Schema.Array(Schema.String).annotate({ description: "The first omitted files (pass them as paths)." })
  }),
  budget: Schema.Int,
  tokens: Schema.Int.annotate({ description: "The result's estimated tokens." }),
  ms: Schema.Int,
  next: Schema.String
})
type DiffResult = typeof DiffResult.Type

// -- reading both sides -------------------------------------------------------------

interface Compared {
  readonly change: Change
  readonly diff: ApiDiff | undefined
  readonly note?: string | undefined
  readonly bodyOnly: boolean
}

/** Lines added and removed between two texts, counted as multisets of lines (for files git did not count). */
const lineCounts = (before: string, after: string): { added: number; removed: number } => {
  const counts = new Map<string, number>()
  const oldLines = before === "" ? [] : before.split("\n")
  const newLines = after === "" ? [] : after.split("\n")
  for (const line of oldLines) counts.set(line, (counts.get(line) ?? 0) + 1)
  let added = 0
  for (const line of newLines) {
    const left = counts.get(line) ?? 0
    if (left > 0) counts.set(line, left - 1)
    else added++
  }
  let removed = 0
  for (const left of counts.values()) removed += left
  return { added, removed }
}

const similarity = (before: string, after: string): number => {
  const { added, removed } = lineCounts(before, after)
  const total = Math.max(before.split("\n").length, after.split("\n").length)
  return total === 0 ? 1 : 1 - Math.max(added, removed) / total
}

const safeApi = (parse: Parse, path: string, text: string): FileApi | string => {
  try {
    const api = fileApi(parse, path, text)
    return api.skeleton.error !== undefined ? `does not parse: ${api.skeleton.error}` : api
  } catch (cause) {
    return `could not be read: ${String(cause)}`
  }
}

const compare = (
  parse: Parse,
  change: Change,
  before: string | undefined,
  after: string | undefined
): Compared | undefined => {
  if (change.status === "modified" && before === after) return undefined
  const oldApi = before === undefined ? undefined : safeApi(parse, change.from ?? change.path, before)
  const newApi = after === undefined ? undefined : safeApi(parse, change.path, after)
  const lines = change.lines ?? lineCounts(before ?? "", after ?? "")
  const changedLines = lines.added + lines.removed
  if (typeof oldApi === "string" || typeof newApi === "string") {
    const which = typeof newApi === "string" ? `after: ${newApi}` : `before: ${oldApi as string}`
    return {
      change,
      diff: undefined,
      note: `API not compared (${which.slice(0, 200)}); ${changedLines} lines changed`,
      bodyOnly: false
    }
  }
  const diff = diffApi(oldApi, newApi)
  const apiChanged =
    diff.exports.added.length + diff.exports.removed.length + diff.exports.changed.length + diff.props.length > 0
  const noted = change.status !== "added" && change.status !== "deleted" && !apiChanged
  const bodyOnly =
    noted && change.status === "modified" && diff.imports.added.length + diff.imports.removed.length === 0
  return {
    change,
    diff,
    ...(noted
      ? {
          note:
            changedLines === 0
              ? "moved without a change"
              : `implementation changed: ${changedLines} lines (+${lines.added} -${lines.removed})`
        }
      : {}),
    bodyOnly
  }
}

// -- importers from the graph ---------------------------------------------------------

const importersUsing = (graph: ImportGraph, file: string, key: string): number => {
  if (graph.file(file) === undefined) return 0
  const name = key.startsWith("* from ") ? "*" : key
  let count = 0
  for (const importer of graph.importersOf(file)) {
    const edges = (graph.file(importer)?.imports ?? []).filter(
      (edge) => edge.resolution._tag === "File" && edge.resolution.path === file
    )
    if (edges.some((edge) => edge.names.includes(name) || edge.names.includes("*") || edge.kind === "dynamic")) {
      count++
    }
  }
  return count
}

// -- ranking and the budget -----------------------------------------------------------

const membersCount = (file: FullFile): number =>
  file.exports.changed.reduce(
    (n, e) =>
      n + (e.members === undefined ? 0 : e.members.added.length + e.members.removed.length + e.members.changed.length),
    0
  )

const entriesOf = (file: FullFile): number =>
  file.exports.added.length +
  file.exports.removed.length +
  file.exports.changed.length +
  membersCount(file) +
  (file.props ?? []).reduce((n, p) => n + p.added.length + p.removed.length + p.changed.length, 0) +
  file.imports.added.length +
  file.imports.removed.length

const rankOf = (file: FullFile): number => {
  const breaking =
    file.status === "deleted" ||
    file.status === "renamed" ||
    file.exports.removed.length + file.exports.changed.length > 0 ||
    (file.props ?? []).some((p) => p.removed.length + p.changed.length > 0)
  if (breaking) return 0
  return file.status === "modified" && entriesOf(file) === 0 ? 2 : 1
}

const importersOfFile = (file: FullFile): number =>
  file.exports.removed.reduce((n, e) => n + (e.importers ?? 0), 0) +
  file.exports.changed.reduce((n, e) => n + (e.importers ?? 0), 0)

const rank = (files: ReadonlyArray<FullFile>): Array<FullFile> =>
  [...files].sort(
    (a, b) =>
      rankOf(a) - rankOf(b) ||
      importersOfFile(b) - importersOfFile(a) ||
      b.exports.removed.length + b.exports.changed.length - (a.exports.removed.length + a.exports.changed.length) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)
  )

/** One file with every list cut to `limit` entries; the cut counted in `omitted`. */
const cutFile = (file: FullFile, limit: number): FullFile => {
  const before = entriesOf(file)
  const cut: FullFile = {
    ...file,
    exports: {
      added: file.exports.added.slice(0, limit),
      removed: file.exports.removed.slice(0, limit),
      changed: file.exports.changed.slice(0, limit).map((e) =>
        e.members === undefined
          ? e
          : {
              ...e,
              members: {
                added: e.members.added.slice(0, limit),
                removed: e.members.removed.slice(0, limit),
                changed: e.members.changed.slice(0, limit)
              }
            }
      )
    },
    ...(file.props !== undefined
      ? {
          props: file.props.slice(0, limit).map((p) => ({
            ...p,
            added: p.added.slice(0, limit),
            removed: p.removed.slice(0, limit),
            changed: p.changed.slice(0, limit)
          }))
        }
      : {}),
    imports: { added: file.imports.added.slice(0, limit), removed: file.imports.removed.slice(0, limit) }
  }
  const omitted = before - entriesOf(cut)
  return omitted > 0 ? { ...cut, omitted } : cut
}

const tokensOf = (result: DiffResult): number => estimateTokens(JSON.stringify(result))

/**
 * The result with its own size in `tokens`. It is measured first with
 * `tokens` as it is (the budget: an upper bound, as the count has no more
 * digits), then the count that is the size of the result carrying it is
 * looked for next to that; the upper bound stays when none is.
 */
const withTokens = (result: DiffResult): DiffResult => {
  const upper = tokensOf(result)
  for (const tokens of [upper, upper - 1]) {
    if (tokensOf({ ...result, tokens }) === tokens) return { ...result, tokens }
  }
  return { ...result, tokens: upper }
}

/**
 * How much of the envelope a result keeps, from 0 (everything: ten omitted
 * paths, the full summary and next step) to 3 (counts only); a smaller
 * budget takes the next level before it gives up files.
 */
type Level = 0 | 1 | 2 | 3
const levels: ReadonlyArray<Level> = [0, 1, 2, 3]
const omittedPathsAt = [10, 3, 0, 0] as const

/**
 * The files that fit in `budget`, best first, the whole result's JSON
 * counted (its envelope too); the first one cut down to fit when even it
 * alone does not; the envelope made shorter (fewer omitted paths, a shorter
 * summary and next step) before no file at all is shown. A budget too small
 * for even the shortest envelope gets that envelope, its `next` saying so.
 */
const fit = (
  result: DiffResult,
  ranked: ReadonlyArray<FullFile>,
  budget: number,
  next: (omitted: ReadonlyArray<string>, level: Level) => string,
  shortText: string
): DiffResult => {
  const build = (files: ReadonlyArray<FullFile>, extraEntries: number, level: Level): DiffResult => {
    const left = ranked.slice(files.length)
    const entries = left.reduce((n, f) => n + entriesOf(f), 0) + extraEntries
    const truncated = left.length > 0 || extraEntries > 0
    const paths = left.slice(0, omittedPathsAt[level]).map((f) => f.path)
    const partial = extraEntries > 0 && files[0] !== undefined ? [files[0].path] : []
    const final: DiffResult = {
      ...result,
      ...(level >= 2 ? { summary: { ...result.summary, text: shortText } } : {}),
      files: files.map(present),
      truncated,
      omitted: { files: left.length, entries, paths },
      next: next(level >= 2 ? [] : [...partial, ...paths], level),
      // Measured with the budget in its place: the count written afterwards has no more digits.
      tokens: budget
    }
    return withTokens(final)
  }
  const fitAt = (level: Level): DiffResult | undefined => {
    let count = 0
    let size = JSON.stringify(build([], 0, level)).length + 600
    while (count < ranked.length) {
      const grown = size + JSON.stringify(present(ranked[count]!)).length + 1
      if (Math.ceil(grown / 4) > budget) break
      size = grown
      count++
    }
    let candidate = build(ranked.slice(0, count), 0, level)
    while (count > 0 && candidate.tokens > budget) {
      count--
      candidate = build(ranked.slice(0, count), 0, level)
    }
    if (count > 0) return candidate
    if (ranked.length === 0) return candidate.tokens <= budget ? candidate : undefined
    // Not even the first file fits: its lists cut to the longest that fits (at 0 only its counts are left).
    const first = ranked[0]!
    let low = 0
    let high = entriesOf(first)
    while (low < high) {
      const mid = Math.ceil((low + high) / 2)
      const cut = cutFile(first, mid)
      if (build([cut], cut.omitted ?? 0, level).tokens <= budget) low = mid
      else high = mid - 1
    }
    const cut = cutFile(first, low)
    const shown = build([cut], cut.omitted ?? 0, level)
    return shown.tokens <= budget ? shown : undefined
  }
  for (const level of levels) {
    const found = fitAt(level)
    if (found !== undefined) return found
  }
  for (const level of levels) {
    const empty = build([], 0, level)
    if (empty.tokens <= budget) return empty
  }
  return build([], 0, 3)
}

/** The file#Symbol targets for fe_impact: removed and changed exports, and components whose props lost or changed one. */
const symbolList = (files: ReadonlyArray<FullFile>): Array<string> => {
  const symbol = (name: string) =>
    name.endsWith(" (default)") || name === "default" ? "default" : name.startsWith("* from") ? "" : name
  const all = files.flatMap((file) =>
    file.status === "deleted"
      ? []
      : [
          ...[...file.exports.removed, ...file.exports.changed].map((e) => symbol(e.name)),
          ...(file.props ?? []).filter((p) => p.removed.length + p.changed.length > 0).map((p) => symbol(p.component))
        ]
          .filter((name) => name !== "")
          .map((name) => `${file.path}#${name}`)
  )
  return [...new Set(all)]
}

// -- the tool -----------------------------------------------------------------------

/**
 * The `diff` tool, published as `fe_diff`: the API changes between the
 * working tree (or `head`) and `base` (default `HEAD`), per changed source
 * file, ranked and cut to a token budget. Read-only; needs git.
 *
 * **Example**
 *
 * ```ts
 * import { diff } from "./capabilities/fe/diff.ts"
 *
 * diff.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const diff = Tool.make("diff", {
  // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
  experimental: true,
  title: "What changed in the API since a git ref",
  description:
    "A semantic diff, not lines: between the working tree and a git ref (base, default HEAD), or between two refs " +
    "(base and head), per changed source file (.ts/.tsx/.js/.jsx/.mts/.cts/.mjs/.cjs/.vue/.svelte/.astro) the " +
    "exports added, removed or changed (kind and signature before and after), component props added, removed or " +
    "changed, imports added or removed, and files added, deleted or renamed (untracked files count as added). A file " +
    "whose API did not change gets a note (implementation changed: N lines). Removed and changed exports come first, " +
    "with how many files import them; the result is cut to budget tokens (default 2000) and says what was left out. " +
    "Needs git.",
  input: Schema.Struct({
    base: Schema.optionalKey(
      Schema.String.annotate({ description: "The ref to compare with (branch, tag, commit, HEAD~1…); default HEAD." })
    ),
    head: Schema.optionalKey(
      Schema.String.annotate({ description: "A second ref: compare base with it instead of with the working tree." })
    ),
    paths: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({
        description: "Limit to these files or directories (relative to the workspace root)."
      })
    ),
    budget: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: diffBudgets.minimum, maximum: diffBudgets.maximum })).annotate({
        description: `The result's size limit in estimated tokens (default ${diffBudgets.default}); files that do not fit are counted and named in omitted.`
      })
    )
  }),
  output: DiffResult,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ base = "HEAD", budget = diffBudgets.default, head, paths = [] }) {
      const started = performance.now()
      const workspace = yield* Workspace
      const filters: Array<string> = []
      for (const path of paths) {
        const resolved = yield* mapWorkspaceError(workspace.resolve(path))
        if (resolved.relative === "" || resolved.relative === ".") {
          filters.length = 0
          break
        }
        filters.push(resolved.relative)
      }
      const git = yield* makeGit(workspace.root)
      yield* git.ensureRepository
      const baseCommit = yield* git.resolveRef(base, "base")
      const headCommit = head === undefined ? undefined : yield* git.resolveRef(head, "head")
      const changes = yield* git.changes(baseCommit, headCommit, filters)
      const untracked = new Set<string>()
      let skippedUntracked = 0
      if (headCommit === undefined) {
        const known = new Set(changes.map((c) => c.path))
        for (const path of yield* git.untracked(filters)) {
          if (known.has(path)) continue
          // Dependencies and build output nobody ignored are not the change.
          if (path.split("/").some((segment) => skippedDirs.includes(segment))) {
            skippedUntracked++
            continue
          }
          untracked.add(path)
          changes.push({ path, status: "added" })
        }
      }

      const skipped = { denied: 0, other: skippedUntracked, unreadable: 0 }
      const allowed = (path: string) =>
        workspace.resolve(path).pipe(
          Effect.as(true),
          Effect.catch(() => Effect.succeed(false))
        )
      const sources: Array<Change> = []
      for (const change of changes) {
        if (!isApiSource(change.path) && (change.from === undefined || !isApiSource(change.from))) {
          skipped.other++
          continue
        }
        const ok = (yield* allowed(change.path)) && (change.from === undefined || (yield* allowed(change.from)))
        if (!ok) {
          skipped.denied++
          continue
        }
        sources.push(change)
      }

      // The old contents through one git cat-file --batch; the new ones the same way, or from the working tree.
      const olds = yield* git.showMany(
        baseCommit,
        sources.filter((change) => change.status !== "added").map((change) => change.from ?? change.path),
        maxFileBytes
      )
      const newPaths = sources.filter((change) => change.status !== "deleted").map((change) => change.path)
      const news =
        headCommit !== undefined
          ? yield* git.showMany(headCommit, newPaths, maxFileBytes)
          : new Map(
              yield* Effect.forEach(
                newPaths,
                (path) =>
                  workspace.read(path, { length: maxFileBytes }).pipe(
                    Effect.map((read) => [path, read.truncated || read.binary ? undefined : read.content] as const),
                    Effect.catch(() => Effect.succeed([path, undefined] as const))
                  ),
                { concurrency: 8 }
              )
            )
      const texts = sources.map((change) => ({
        before: change.status === "added" ? undefined : olds.get(change.from ?? change.path),
        after: change.status === "deleted" ? undefined : news.get(change.path)
      }))
      // A file moved without git (deleted here, untracked there) and about the same: one rename.
      const unreadable = (i: number) =>
        (sources[i]!.status !== "added" && texts[i]!.before === undefined) ||
        (sources[i]!.status !== "deleted" && texts[i]!.after === undefined)
      const deleted = sources.flatMap((change, i) => (change.status === "deleted" && !unreadable(i) ? [i] : []))
      const fresh = sources.flatMap((change, i) => (untracked.has(change.path) && !unreadable(i) ? [i] : []))
      const renamedTo = new Map<number, number>()
      const movedAway = new Set<number>()
      if (deleted.length * fresh.length <= maxRenamePairs) {
        for (const i of fresh) {
          const best = deleted
            .filter((j) => !movedAway.has(j))
            .map((j) => ({ j, score: similarity(texts[j]!.before ?? "", texts[i]!.after ?? "") }))
            .filter((m) => m.score >= renameSimilarity)
            .sort((a, b) => b.score - a.score)[0]
          if (best === undefined) continue
          renamedTo.set(i, best.j)
          movedAway.add(best.j)
        }
      }
      const pairs: Array<{ change: Change; before: string | undefined; after: string | undefined }> = []
      sources.forEach((change, i) => {
        if (unreadable(i)) skipped.unreadable++
        else if (movedAway.has(i)) return
        else {
          const j = renamedTo.get(i)
          pairs.push(
            j === undefined
              ? { change, before: texts[i]!.before, after: texts[i]!.after }
              : {
                  change: { path: change.path, status: "renamed", from: sources[j]!.path },
                  before: texts[j]!.before,
                  after: texts[i]!.after
                }
          )
        }
      })

      const parse = yield* loadParserForTool
      const compared = pairs
        .map((p) => compare(parse, p.change, p.before, p.after))
        .filter((c): c is Compared => c !== undefined)

      // Importers of the removed and changed exports, from the working tree's graph.
      const needsGraph = headCommit === undefined && compared.some((c) => (c.diff?.breaking.length ?? 0) > 0)
      const graph = needsGraph
        ? yield* Effect.flatMap(Effect.service(FeGraph), (cache) => cache.current).pipe(
            Effect.map((snapshot) => snapshot.graph),
            Effect.catch(() => Effect.succeed(undefined))
          )
        : undefined

      const files: Array<FullFile> = compared.map(({ change, diff, note }) => {
        const count = (key: string) =>
          graph === undefined || change.status === "deleted"
            ? {}
            : { importers: importersUsing(graph, change.path, key) }
        const keyByName = new Map((diff?.breaking ?? []).map((b) => [b.name, b.key]))
        return {
          path: change.path,
          status: change.status,
          ...(change.from !== undefined ? { from: change.from } : {}),
          exports: {
            added: [...(diff?.exports.added ?? [])],
            removed: (diff?.exports.removed ?? []).map((e) => ({ ...e, ...count(keyByName.get(e.name) ?? e.name) })),
            changed: (diff?.exports.changed ?? []).map((e) => ({ ...e, ...count(keyByName.get(e.name) ?? e.name) }))
          },
          ...(diff !== undefined && diff.props.length > 0 ? { props: diff.props } : {}),
          imports: { added: [...(diff?.imports.added ?? [])], removed: [...(diff?.imports.removed ?? [])] },
          ...(note !== undefined ? { note } : {})
        }
      })
      const ranked = rank(files)

      const statusCount = (status: ChangeStatus) => files.filter((f) => f.status === status).length
      const sum = (pick: (f: FullFile) => number) => files.reduce((n, f) => n + pick(f), 0)
      const exportsCount = {
        added: sum((f) => f.exports.added.length),
        removed: sum((f) => f.exports.removed.length),
        changed: sum((f) => f.exports.changed.length)
      }
      const importsCount = { added: sum((f) => f.imports.added.length), removed: sum((f) => f.imports.removed.length) }
      const propsCount = sum((f) => f.props?.length ?? 0)
      const bodyOnly = compared.filter((c) => c.bodyOnly).length
      const short = (commit: string) => commit.slice(0, 12)
      const baseLabel = `${base} (${short(baseCommit)})`
      const headLabel =
        head === undefined || headCommit === undefined ? "working tree" : `${head} (${short(headCommit)})`
      const skippedText = [
        skipped.denied > 0 ? `${skipped.denied} denied` : "",
        skipped.unreadable > 0 ? `${skipped.unreadable} unreadable` : "",
        skipped.other > 0 ? `${skipped.other} non-source` : ""
      ].filter((s) => s !== "")
      const text =
        files.length === 0
          ? `No source file's API or content changed between ${baseLabel} and the ${headLabel}.`
          : `${files.length} source files changed (${statusCount("added")} added, ${statusCount("deleted")} deleted, ${statusCount("renamed")} renamed, ${statusCount("modified")} modified): exports +${exportsCount.added} -${exportsCount.removed} ~${exportsCount.changed}, props of ${propsCount} components, imports +${importsCount.added} -${importsCount.removed}, ${bodyOnly} body-only.` +
            (skippedText.length > 0 ? ` Skipped: ${skippedText.join(", ")}.` : "")

      const breakingFiles = ranked.filter((f) => rankOf(f) === 0)
      const symbols = symbolList(breakingFiles)
      const moved = breakingFiles.filter((f) => f.status === "deleted" || f.status === "renamed")
      const nextFor = (omitted: ReadonlyArray<string>, level: Level): string => {
        if (level >= 2) {
          const left = files.length > 0 ? "Raise budget, or pass paths, to see the files left out. " : ""
          return level === 3
            ? `Budget ${budget} is too small for this result: only its counts fit. Call fe_diff with a larger budget.`
            : `${left}${symbols.length > 0 ? `Then call fe_impact with symbols ${JSON.stringify(symbols.slice(0, 1))}…` : "Then call fe_verify."}`
        }
        const shown = level === 0 ? 10 : 3
        const parts: Array<string> = []
        if (omitted.length > 0) {
          parts.push(
            `Left out to fit in budget: call fe_diff with paths ${JSON.stringify(omitted.slice(0, shown))} (or a larger budget) to see them.`
          )
        }
        if (files.length === 0) parts.push("Nothing to re-check.")
        else if (symbols.length > 0) {
          parts.push(
            `Call fe_impact with symbols ${JSON.stringify(symbols.slice(0, shown))} to see what the removed or changed exports break, then fe_verify.`
          )
        } else if (moved.length > 0) {
          parts.push(
            `Files were deleted or renamed (${moved
              .slice(0, shown === 10 ? 5 : 2)
              .map((f) => f.from ?? f.path)
              .join(", ")}): call fe_verify (typecheck) to find imports still naming them.`
          )
        } else parts.push("No export was removed or changed: call fe_verify to check the change.")
        if (symbols.length > 0 && moved.length > 0) {
          parts.push(
            `Deleted or renamed: ${moved
              .slice(0, shown === 10 ? 5 : 2)
              .map((f) => f.from ?? f.path)
              .join(", ")} (fe_verify finds their stale imports).`
          )
        }
        return parts.join(" ")
      }

      const result: DiffResult = {
        base: baseLabel,
        head: headLabel,
        files: [],
        summary: {
          text,
          files: files.length,
          added: statusCount("added"),
          deleted: statusCount("deleted"),
          renamed: statusCount("renamed"),
          modified: statusCount("modified"),
          exports: exportsCount,
          props: propsCount,
          imports: importsCount,
          bodyOnly,
          skipped
        },
        truncated: false,
        omitted: { files: 0, entries: 0, paths: [] },
        budget,
        tokens: 0,
        ms: Math.round(performance.now() - started),
        next: ""
      }
      const shortText = `${files.length} source files changed; exports +${exportsCount.added} -${exportsCount.removed} ~${exportsCount.changed}.`
      return fit(result, ranked, budget, nextFor, shortText)
    })
  )
)
