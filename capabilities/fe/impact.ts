/**
 * `fe_impact`: before changing files or exported symbols, who depends on
 * them — direct importers (with the names each uses), transitive importers
 * with their depth, the tests that cover them — a risk level, and what to
 * re-check with `fe_verify` afterwards. Read from the capability's cached
 * import graph (`graph/cache.ts`), brought up to date on each call.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "../workspace/errors.ts"
import { FeGraph } from "./graph/cache.ts"
import type { ImportGraph, ImportKind } from "./graph/graph.ts"

/**
 * The default and the bounds of `budget`, in characters of the result's JSON.
 *
 * @category constants
 * @since 0.4.0
 */
export const impactBudgets = { default: 16_000, minimum: 1000, maximum: 400_000 } as const

/**
 * The risk thresholds: `high` from `high.direct` direct importers or
 * `high.transitive` importers in all; `medium` from `medium.direct` or
 * `medium.transitive`, or any importer without a covering test; else `low`.
 *
 * @category constants
 * @since 0.4.0
 */
export const riskThresholds = {
  high: { direct: 10, transitive: 25 },
  medium: { direct: 3, transitive: 8 }
} as const

/** Beyond this many affected files, the next step says to edit and re-check them as one change. */
const manyFiles = 10

/**
 * Whether a path is a test file: `*.test.*`, `*.spec.*`, or under a
 * `__tests__` directory.
 *
 * **Example**
 *
 * ```ts
 * import { isTestFile } from "./capabilities/fe/impact.ts"
 *
 * isTestFile("src/utils/format.test.ts") // => true
 * isTestFile("src/__tests__/App.tsx") // => true
 * isTestFile("src/utils/format.ts") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isTestFile = (path: string): boolean => {
  const segments = path.split("/")
  const name = segments.pop() ?? ""
  return name.includes(".test.") || name.includes(".spec.") || segments.includes("__tests__")
}

const Importer = Schema.Struct({
  path: Schema.String,
  names: Schema.Array(Schema.String).annotate({
    description:
      "The names it imports from the target (default, * for a namespace or export *); empty for a side-effect or dynamic import."
  }),
  typeOnly: Schema.Boolean.annotate({ description: "Every import of the target is type-only." }),
  kinds: Schema.Array(Schema.Literals(["import", "reexport", "dynamic"])),
  mayUse: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "For a symbol: the file takes the whole module (namespace, export * or dynamic import), so it may use it."
    })
  )
})

const Verify = Schema.Struct({
  steps: Schema.Array(Schema.Literals(["typecheck", "lint", "test"])).annotate({
    description: "The fe_verify steps to run again: typecheck always, lint, and test when tests cover the target."
  }),
  lint: Schema.Array(Schema.String).annotate({
    description: "The files to lint: the changed ones and their direct importers."
  }),
  tests: Schema.Array(Schema.String).annotate({ description: "The test files that cover the target." }),
  files: Schema.Array(Schema.String).annotate({
    description: "Every file to re-check: the targets and their importers."
  })
})

const Target = Schema.Struct({
  target: Schema.String.annotate({ description: "The file, or file#Symbol." }),
  file: Schema.String,
  symbol: Schema.optionalKey(Schema.String),
  importers: Schema.Array(Importer).annotate({ description: "Direct importers." }),
  transitive: Schema.Array(Schema.Struct({ path: Schema.String, depth: Schema.Int })).annotate({
    description: "Every importer, direct (depth 1) or through others, nearest first, each once (cycles included)."
  }),
  tests: Schema.Array(Schema.String).annotate({
    description: "Test files importing the target directly or transitively (whatever maxDepth)."
  }),
  cycle: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "The files of the import cycle the target is part of." })
  ),
  risk: Schema.Struct({
    level: Schema.Literals(["low", "medium", "high"]),
    direct: Schema.Int,
    transitive: Schema.Int,
    tests: Schema.Int,
    reason: Schema.String
  }),
  verify: Verify,
  omitted: Schema.optionalKey(
    Schema.Struct({ importers: Schema.Int, transitive: Schema.Int, tests: Schema.Int, files: Schema.Int }).annotate({
      description: "Entries of the lists left out to fit in budget (the counts in risk are complete)."
    })
  )
})

/**
 * The `fe_impact` result's Schema.
 *
 * @category schemas
 * @since 0.4.0
 */
export const ImpactResult = Schema.Struct({
  targets: Schema.Array(Target),
  verify: Verify.annotate({ description: "What to re-check for all the targets together." }),
  truncated: Schema.Boolean.annotate({
    description: "Lists were shortened to fit in budget (see each target's omitted)."
  }),
  budget: Schema.Int,
  stats: Schema.Struct({
    files: Schema.Int.annotate({ description: "Files in the project's listing." }),
    parsed: Schema.Int.annotate({ description: "Files parsed by this call (the others came from the cache)." }),
    ms: Schema.Int
  }),
  scanLimited: Schema.Boolean,
  next: Schema.String
})
type ImpactResult = typeof ImpactResult.Type
type TargetResult = typeof Target.Type
type ImporterResult = typeof Importer.Type

// -- suggestions ------------------------------------------------------------------

const distance = (a: string, b: string): number => {
  if (a === b) return 0
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

// Suggestions are bounded work: a name compared by at most its first 200 characters, with at most 5,000 candidates
// (those sharing the wanted base name's first letter first).
const maxCompared = 200
const maxCandidates = 5000

/** The `count` candidates nearest to `wanted` (by whole path and by last segment). */
const nearest = (wantedText: string, all: ReadonlyArray<string>, count = 3): ReadonlyArray<string> => {
  const wanted = wantedText.slice(0, maxCompared)
  let candidates = all
  if (candidates.length > maxCandidates) {
    const first = baseName(wanted).charAt(0).toLowerCase()
    const alike = candidates.filter((candidate) => baseName(candidate).charAt(0).toLowerCase() === first)
    candidates = (alike.length > 0 ? alike : candidates).slice(0, maxCandidates)
  }
  return candidates
    .map((full) => ({ full, candidate: full.slice(0, maxCompared) }))
    .map(({ candidate, full }) => ({
      full,
      candidate,
      score: Math.min(distance(wanted, candidate), distance(baseName(wanted), baseName(candidate)) + 1)
    }))
    .sort((a, b) => a.score - b.score || (a.full < b.full ? -1 : 1))
    .slice(0, count)
    .map((s) => s.full)
}

// -- the analysis -----------------------------------------------------------------

interface Resolved {
  readonly file: string
  readonly symbol?: string | undefined
}

/** The names an importer's edge must name to use `symbol` of `file`: itself, and `default` for the default export. */
const namesFor = (graph: ImportGraph, file: string, symbol: string): ReadonlySet<string> => {
  const names = new Set([symbol])
  if ((graph.exportsOf(file) ?? []).some((e) => e.isDefault && (e.name === symbol || symbol === "default"))) {
    names.add("default")
  }
  return names
}

const directImporters = (graph: ImportGraph, target: Resolved): Array<ImporterResult> => {
  const symbolNames = target.symbol === undefined ? undefined : namesFor(graph, target.file, target.symbol)
  const out: Array<ImporterResult> = []
  for (const path of graph.importersOf(target.file)) {
    const edges = (graph.file(path)?.imports ?? []).filter(
      (edge) => edge.resolution._tag === "File" && edge.resolution.path === target.file
    )
    const names = [...new Set(edges.flatMap((edge) => edge.names))].sort()
    const kinds = [...new Set(edges.map((edge) => edge.kind))].sort() as Array<ImportKind>
    const typeOnly = edges.length > 0 && edges.every((edge) => edge.typeOnly)
    if (symbolNames === undefined) {
      out.push({ path, names, typeOnly, kinds })
      continue
    }
    const uses = names.some((name) => symbolNames.has(name))
    const whole = names.includes("*") || kinds.includes("dynamic")
    if (!uses && !whole) continue
    const typeOnlyUse = edges
      .filter((edge) => edge.names.some((name) => symbolNames.has(name) || name === "*"))
      .every((edge) => edge.typeOnly)
    out.push({
      path,
      names: names.filter((name) => symbolNames.has(name) || name === "*"),
      typeOnly: typeOnlyUse && !kinds.includes("dynamic"),
      kinds,
      ...(uses ? {} : { mayUse: true })
    })
  }
  return out
}

/** The files of the cycle through `file`: those it reaches through its imports that also import it. */
const cycleOf = (graph: ImportGraph, file: string, importers: ReadonlySet<string>): ReadonlyArray<string> => {
  const reached = new Set<string>()
  let frontier = [file]
  while (frontier.length > 0) {
    const next: Array<string> = []
    for (const current of frontier) {
      for (const dependency of graph.dependenciesOf(current)) {
        if (reached.has(dependency)) continue
        reached.add(dependency)
        next.push(dependency)
      }
    }
    frontier = next
  }
  const members = [...reached].filter((path) => path !== file && importers.has(path))
  return members.length === 0 ? [] : [file, ...members].sort()
}

const riskOf = (direct: number, transitive: number, tests: number): TargetResult["risk"] => {
  const { high, medium } = riskThresholds
  if (direct >= high.direct || transitive >= high.transitive) {
    return {
      level: "high",
      direct,
      transitive,
      tests,
      reason: `${direct} direct and ${transitive} importers in all (high from ${high.direct} direct or ${high.transitive} in all)`
    }
  }
  if (direct >= medium.direct || transitive >= medium.transitive) {
    return {
      level: "medium",
      direct,
      transitive,
      tests,
      reason: `${direct} direct and ${transitive} importers in all (medium from ${medium.direct} direct or ${medium.transitive} in all)`
    }
  }
  if (transitive > 0 && tests === 0) {
    return { level: "medium", direct, transitive, tests, reason: `${transitive} importers and no test covers it` }
  }
  return {
    level: "low",
    direct,
    transitive,
    tests,
    reason: transitive === 0 ? "nothing imports it" : `${transitive} importers, covered by ${tests} test files`
  }
}

const analyse = (graph: ImportGraph, target: Resolved, maxDepth: number): TargetResult => {
  const importers = directImporters(graph, target)
  const all = graph.transitiveImporters(
    target.file,
    Number.POSITIVE_INFINITY,
    importers.map((i) => i.path)
  )
  const tests = all
    .map((entry) => entry.path)
    .filter(isTestFile)
    .sort()
  const cycle = cycleOf(graph, target.file, new Set(all.map((entry) => entry.path)))
  const transitive = all.filter((entry) => entry.depth <= maxDepth)
  // Linted: the parsed sources among the target and its direct importers (a stylesheet or JSON target is not).
  const lint = [target.file, ...importers.map((i) => i.path).filter((path) => !isTestFile(path))].filter(
    (path) => graph.file(path) !== undefined
  )
  return {
    target: target.symbol === undefined ? target.file : `${target.file}#${target.symbol}`,
    file: target.file,
    ...(target.symbol !== undefined ? { symbol: target.symbol } : {}),
    importers,
    transitive,
    tests,
    ...(cycle.length > 0 ? { cycle } : {}),
    risk: riskOf(importers.length, all.length, tests.length),
    verify: {
      steps: tests.length > 0 ? ["typecheck", "lint", "test"] : ["typecheck", "lint"],
      lint,
      tests,
      files: [target.file, ...transitive.map((entry) => entry.path)]
    }
  }
}

const union = (lists: ReadonlyArray<ReadonlyArray<string>>): Array<string> => [...new Set(lists.flat())]

/** The targets with every list cut to `limit` entries, the cut counted in `omitted`. */
const cut = (targets: ReadonlyArray<TargetResult>, limit: number): Array<TargetResult> =>
  targets.map((target) => {
    const omitted = {
      importers: Math.max(0, target.importers.length - limit),
      transitive: Math.max(0, target.transitive.length - limit),
      tests: Math.max(0, target.tests.length - limit),
      files: Math.max(0, target.verify.files.length - limit)
    }
    if (omitted.importers + omitted.transitive + omitted.tests + omitted.files === 0) return target
    return {
      ...target,
      importers: target.importers.slice(0, limit),
      transitive: target.transitive.slice(0, limit),
      tests: target.tests.slice(0, limit),
      verify: {
        ...target.verify,
        lint: target.verify.lint.slice(0, limit),
        tests: target.verify.tests.slice(0, limit),
        files: target.verify.files.slice(0, limit)
      },
      omitted
    }
  })

const fitting = (result: ImpactResult, budget: number): ImpactResult => {
  if (JSON.stringify(result).length <= budget) return result
  const longest = Math.max(
    0,
    ...result.targets.flatMap((t) => [t.importers.length, t.transitive.length, t.tests.length, t.verify.files.length])
  )
  const verifyCut = (limit: number) => ({
    ...result.verify,
    lint: result.verify.lint.slice(0, limit),
    tests: result.verify.tests.slice(0, limit),
    files: result.verify.files.slice(0, limit)
  })
  let low = 0
  let high = longest
  // The largest limit that fits (binary search); at 0 only the counts are left.
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    const candidate = { ...result, targets: cut(result.targets, mid), verify: verifyCut(mid * 2), truncated: true }
    if (JSON.stringify(candidate).length <= budget) low = mid
    else high = mid - 1
  }
  return { ...result, targets: cut(result.targets, low), verify: verifyCut(low * 2), truncated: true }
}

const unknownFile = (graph: ImportGraph, path: string, exists: boolean) =>
  new Tool.ToolError({
    message: exists
      ? `${path} is not a source file of the import graph (not a TypeScript/JavaScript/Vue/Svelte/Astro file, or ignored, or under a skipped directory such as node_modules or dist).`
      : `No source file ${path} in the project.`,
    code: "unknown_file",
    suggestion: `Nearest source files: ${nearest(path, graph.files()).join(", ") || "none"}. Call fe_skeleton to see the project's files.`
  })

/** A file target checked: a rejected path is the workspace's error; one not in the graph, `unknown_file`. */
const resolveFile = (graph: ImportGraph, path: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const resolved = yield* mapWorkspaceError(workspace.resolve(path))
    const file = resolved.relative
    if (graph.file(file) === undefined && graph.importersOf(file).length === 0) {
      return yield* Effect.fail(unknownFile(graph, path, resolved.exists))
    }
    return file
  })

const resolveSymbol = (graph: ImportGraph, spec: string) =>
  Effect.gen(function* () {
    const hash = spec.lastIndexOf("#")
    if (hash !== -1) {
      const file = yield* resolveFile(graph, spec.slice(0, hash))
      const symbol = spec.slice(hash + 1)
      const exports = graph.exportsOf(file) ?? []
      const known =
        symbol === "default"
          ? exports.some((e) => e.isDefault)
          : exports.some((e) => e.name === symbol) ||
            // Through an `export * from`, or imported by name from it all the same.
            exports.some((e) => e.name === "*") ||
            graph
              .importersOf(file)
              .some((importer) =>
                (graph.file(importer)?.imports ?? []).some(
                  (edge) =>
                    edge.resolution._tag === "File" && edge.resolution.path === file && edge.names.includes(symbol)
                )
              )
      if (!known) {
        const names = [...new Set(exports.map((e) => e.name).filter((n) => n !== "*"))]
        return yield* Effect.fail(
          new Tool.ToolError({
            message: `${file} does not export ${symbol}.`,
            code: "unknown_symbol",
            suggestion:
              names.length === 0
                ? `${file} has no named exports; call fe_skeleton with path ${file} to see it.`
                : `Nearest exports of ${file}: ${nearest(symbol, names).join(", ")}. Call fe_skeleton with path ${file} to see them all.`
          })
        )
      }
      return [{ file, symbol }] satisfies ReadonlyArray<Resolved>
    }
    const found: Array<Resolved> = []
    const all: Array<string> = []
    for (const file of graph.files()) {
      for (const entry of graph.exportsOf(file) ?? []) {
        if (entry.name === "*") continue
        all.push(`${file}#${entry.name}`)
        // A re-export by name is the same symbol again: its definition and each barrel are targets of their own.
        if (entry.name === spec) found.push({ file, symbol: spec })
      }
    }
    if (found.length === 0) {
      const names = [...new Set(all.map((s) => s.slice(s.lastIndexOf("#") + 1)))]
      const near = nearest(spec, names)
      return yield* Effect.fail(
        new Tool.ToolError({
          message: `No file exports ${spec}.`,
          code: "unknown_symbol",
          suggestion: `Nearest exports: ${
            near.map((name) => all.find((s) => s.endsWith(`#${name}`))!).join(", ") || "none"
          }. Name a symbol as it is exported, or as file#Symbol; call fe_skeleton to see the exports.`
        })
      )
    }
    return [...new Map(found.map((r) => [`${r.file}#${r.symbol}`, r])).values()]
  })

/**
 * The `impact` tool, published as `fe_impact`: for files or exported
 * symbols, their direct importers (with the names each uses, type-only
 * flagged), their transitive importers with depth, the test files that
 * cover them, a risk level, and the `fe_verify` steps and files to re-check
 * after changing them. Read-only.
 *
 * **Example**
 *
 * ```ts
 * import { impact } from "./capabilities/fe/impact.ts"
 *
 * impact.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const impact = Tool.make("impact", {
  // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
  experimental: true,
  title: "What depends on a file or symbol",
  description:
    "Before changing files or exported symbols, shows who depends on them: the direct importers (and the names each " +
    "imports), every transitive importer with its depth, the test files that cover them, a risk level (low, medium, " +
    "high) and what to re-check with fe_verify after the change. files are root-relative paths; symbols are " +
    "exported names, or file#Symbol for one file's. Uses the project's tsconfig paths and workspace packages; the " +
    "import graph is cached and only changed files are parsed again.",
  input: Schema.Struct({
    files: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({ description: "Source files relative to the workspace root." })
    ),
    symbols: Schema.optionalKey(
      Schema.Array(Schema.String).annotate({
        description: "Exported names (every file exporting it), or file#Symbol (e.g. src/lib/format.ts#formatPrice)."
      })
    ),
    maxDepth: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
        description: "How deep to list transitive importers (default: unlimited). Risk and tests ignore it."
      })
    ),
    budget: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: impactBudgets.minimum, maximum: impactBudgets.maximum })).annotate({
        description: `The result's size limit in characters (default ${impactBudgets.default}); longer lists are cut, their counts kept.`
      })
    )
  }),
  output: ImpactResult,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({
      budget = impactBudgets.default,
      files = [],
      maxDepth = Number.POSITIVE_INFINITY,
      symbols = []
    }) {
      if (files.length === 0 && symbols.length === 0) {
        return yield* Effect.fail(
          new Tool.ToolError({
            message: "Name at least one file or symbol.",
            code: "no_target",
            suggestion: 'Call fe_impact with files (e.g. ["src/lib/format.ts"]) or symbols (e.g. ["formatPrice"]).'
          })
        )
      }
      const snapshot = yield* Effect.flatMap(Effect.service(FeGraph), (cache) => cache.current)
      const graph = snapshot.graph
      const targets: Array<Resolved> = []
      for (const path of files) targets.push({ file: yield* resolveFile(graph, path) })
      for (const spec of symbols) targets.push(...(yield* resolveSymbol(graph, spec)))
      const unique = [...new Map(targets.map((t) => [`${t.file}#${t.symbol ?? ""}`, t])).values()]
      const results = unique.map((target) => analyse(graph, target, maxDepth))
      const verify = {
        steps: results.some((r) => r.tests.length > 0)
          ? (["typecheck", "lint", "test"] as const)
          : (["typecheck", "lint"] as const),
        lint: union(results.map((r) => r.verify.lint)),
        tests: union(results.map((r) => r.tests)),
        files: union(results.map((r) => r.verify.files))
      }
      const recheck = union([verify.lint, verify.tests])
      const shown =
        recheck.length > 20
          ? `${recheck.slice(0, 20).join(", ")} and ${recheck.length - 20} more (verify.lint, verify.tests)`
          : recheck.join(", ")
      const next =
        verify.files.length > manyFiles
          ? `${verify.files.length} files are affected: make the change as one — fe_surgeon for a rename, a moved export or a changed prop across them, or fe_batch for several edits, which runs fe_verify before and after and rolls everything back if it gets worse — or edit them all and call fe_verify once with files set to verify.lint plus verify.tests (${shown}); the typecheck covers the whole project.`
          : `After the change, call fe_verify with files ${shown} (the typecheck covers the whole project).`
      return fitting(
        {
          targets: results,
          verify,
          truncated: false,
          budget,
          stats: { files: snapshot.files, parsed: snapshot.parsed, ms: snapshot.ms },
          scanLimited: snapshot.scanLimited,
          next
        },
        budget
      )
    })
  )
)
