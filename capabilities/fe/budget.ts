/**
 * `fe_budget`: given a task in free text and a token budget, the context to
 * read — which files whole, which as skeletons (their exports and
 * signatures, inline), which to skip — ranked by the files and symbols the
 * task names and by the import graph around them (`budget/rank.ts`), packed
 * greedily into the budget.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { rank, type Ranked, termsOf } from "./budget/rank.ts"
import { FeGraph } from "./graph/cache.ts"
import { componentExtensions, extractComponent } from "./skeleton/components.ts"
import { extract, type FileSkeleton, loadParserForTool, type Parse } from "./skeleton/extract.ts"
import { estimateTokens, renderFile } from "./skeleton/render.ts"

/**
 * The default and the bounds of `budget`, in estimated tokens of the whole
 * result (its JSON) and the whole files it names for reading.
 *
 * @category constants
 * @since 0.4.0
 */
export const contextBudgets = { default: 8000, minimum: 200, maximum: 200_000 } as const

/**
 * The packing's limits: files ranked at least `wholeShare` of the best
 * score are read whole, in rank order, until one does not fit (those after
 * it, and the files ranked lower, get skeletons, unless a file is no larger
 * than its skeleton). Whole files fit within `wholeBudgetShare` of the
 * budget, leaving the rest to skeletons, except the best-ranked ones (from
 * `topShare` of the best score: the files the task names), which may take
 * it all. At most `maxRead` files are read per call; `skipShown` skipped
 * files are listed (3 under a budget of 2,000); a task has at most
 * `maxTaskLength` characters. The envelope (lists, counts, next step) is
 * set aside first, its lists shortened while it takes more than
 * `envelopeShare` of the budget.
 *
 * @category constants
 * @since 0.4.0
 */
export const packing = {
  wholeShare: 0.3,
  topShare: 0.9,
  wholeBudgetShare: 0.7,
  maxRead: 400,
  skipShown: 8,
  maxTaskLength: 4000,
  envelopeShare: 0.5
} as const

const Entry = {
  path: Schema.String,
  tokens: Schema.Int.annotate({ description: "Its cost: estimated tokens of the text (whole) or of the skeleton." }),
  score: Schema.Number,
  why: Schema.String.annotate({ description: "Why it ranks here: its best reasons, the first the strongest." })
}

/**
 * The `fe_budget` result's Schema.
 *
 * @category schemas
 * @since 0.4.0
 */
export const BudgetResult = Schema.Struct({
  whole: Schema.Array(
    Schema.Struct({
      ...Entry,
      content: Schema.optionalKey(Schema.String.annotate({ description: "The file's text, with inline: true." }))
    })
  ).annotate({
    description: "The files to read whole (with workspace_read, or inline with inline: true), best first."
  }),
  skeleton: Schema.Array(Schema.Struct({ ...Entry, text: Schema.String })).annotate({
    description: "The files given as skeletons: their exports and signatures, inline in text."
  }),
  skip: Schema.Struct({
    count: Schema.Int.annotate({ description: "Source files left out (ranked or not)." }),
    ranked: Schema.Int.annotate({ description: "Of those, the ones related to the task that did not fit." }),
    top: Schema.Array(Schema.Struct(Entry)).annotate({
      description: "The best-ranked files left out, with their whole-file cost."
    })
  }),
  matched: Schema.Struct({
    files: Schema.Array(Schema.String).annotate({ description: "Files the task names (by path or base name)." }),
    symbols: Schema.Array(Schema.Struct({ name: Schema.String, file: Schema.String })).annotate({
      description: "Exported symbols the task names exactly, with their declaring files."
    })
  }),
  unmatched: Schema.Array(Schema.String).annotate({
    description: "Paths and identifiers of the task that matched no file, exported symbol or word of the project."
  }),
  fallback: Schema.Boolean.annotate({
    description: "Nothing matched: the files are the project's entry points and most-imported files."
  }),
  tokens: Schema.Int.annotate({
    description:
      "The estimated tokens of this context (at most budget): this result's JSON (skeletons, entries, lists, next) plus the whole files it names for workspace_read."
  }),
  overhead: Schema.Int.annotate({
    description:
      "Of tokens, those besides the files' and skeletons' own text: the entries (path, score, why) and the envelope (matched, unmatched, skip, stats, next)."
  }),
  budget: Schema.Int,
  stats: Schema.Struct({
    files: Schema.Int.annotate({ description: "Source files in the import graph." }),
    ranked: Schema.Int.annotate({ description: "Files related to the task." }),
    read: Schema.Int.annotate({ description: "Files read by this call to cost them." }),
    ms: Schema.Int
  }),
  scanLimited: Schema.Boolean,
  next: Schema.String
})
type BudgetResult = typeof BudgetResult.Type

const reasons = (ranked: Ranked): string => ranked.why.slice(0, 3).join("; ")

const skeletonOf = (parse: Parse, path: string, text: string): FileSkeleton =>
  Result.getOrElse(
    Result.try(() =>
      componentExtensions.some((ext) => path.endsWith(ext))
        ? extractComponent(parse, path, text)
        : extract(parse, path, text)
    ),
    (cause): FileSkeleton => ({
      path,
      exports: [],
      imports: [],
      error: `could not be mapped: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  )

/**
 * How much of the envelope a result keeps: 0 all of it (lists of up to 20,
 * the whole next step), 1 lists of 3 and a short next step, 2 no lists.
 */
type Level = 0 | 1 | 2
const listShown = [20, 3, 0] as const

/** The whole files read later (not inline): they cost what their text does, besides the result. */
const laterReads = (result: BudgetResult): number =>
  result.whole.reduce((sum, entry) => sum + (entry.content === undefined ? entry.tokens : 0), 0)

const entriesTokens = (result: BudgetResult): number =>
  result.whole.reduce((sum, entry) => sum + entry.tokens, 0) +
  result.skeleton.reduce((sum, entry) => sum + entry.tokens, 0)

/**
 * The result with its cost in `tokens` (its JSON, plus the whole files read
 * later) and `overhead` (tokens less the entries' own): measured with the
 * budget in their place, then the counts that are the cost of the result
 * carrying them looked for next to that; the upper bound stays when none is.
 */
const withCost = (draft: BudgetResult): BudgetResult => {
  const cost = (result: BudgetResult) => estimateTokens(JSON.stringify(result)) + laterReads(result)
  const upper = cost(draft)
  const entries = entriesTokens(draft)
  for (const tokens of [upper, upper - 1, upper - 2]) {
    const candidate = { ...draft, tokens, overhead: tokens - entries }
    if (cost(candidate) === tokens) return candidate
  }
  return { ...draft, tokens: upper, overhead: upper - entries }
}

const list = (paths: ReadonlyArray<string>, max = 12): string =>
  paths.length <= max ? paths.join(", ") : `${paths.slice(0, max).join(", ")} and ${paths.length - max} more`

/**
 * The `budget` tool, published as `fe_budget`: for a task described in
 * free text, the files to read whole, the files to read as skeletons
 * (inline) and those to skip, within a token budget, ranked by what the
 * task names and by the import graph. Read-only.
 *
 * **Example**
 *
 * ```ts
 * import { budget } from "./capabilities/fe/budget.ts"
 *
 * budget.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const budget = Tool.make("budget", {
  // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
  experimental: true,
  title: "What to read for a task",
  description:
    "Given a task in plain words (e.g. 'rename formatPrice to formatMoney and show currency in CartSummary') and a " +
    "token budget, returns the context to read: the files to read whole, the files given as skeletons (exports and " +
    "signatures, inline), and how many to skip — ranked by the files and exported symbols the task names (paths, " +
    "base names, identifiers, then words of names) and by the import graph around them (importers and dependencies " +
    "by distance, the tests that cover them). Each entry says why and what it costs. Name files by path and symbols " +
    "as they are spelled in code for the best ranking. Then read the whole files with workspace_read (or pass " +
    "inline: true), and call fe_impact before changing exported symbols.",
  input: Schema.Struct({
    task: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(packing.maxTaskLength)).annotate({
      description: "What you are about to do, in plain words; name files (src/lib/price.ts) and symbols (formatPrice)."
    }),
    budget: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: contextBudgets.minimum, maximum: contextBudgets.maximum })).annotate(
        {
          description: `The estimated tokens to spend (default ${contextBudgets.default}): the whole result (skeletons, entries, lists) and the whole files it names; lists are cut to fit.`
        }
      )
    ),
    inline: Schema.optionalKey(
      Schema.Boolean.annotate({
        description: "Include the whole files' text in the result (default false: read them with workspace_read)."
      })
    )
  }),
  output: BudgetResult,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ budget = contextBudgets.default, inline = false, task }) {
      if (task.trim() === "") {
        return yield* Effect.fail(
          new Tool.ToolError({
            message: "The task is empty.",
            code: "empty_task",
            suggestion:
              'Call fe_budget with task describing the change, e.g. "rename formatPrice in src/lib/format.ts", or call fe_skeleton for a map of the project.'
          })
        )
      }
      const started = performance.now()
      const snapshot = yield* Effect.flatMap(Effect.service(FeGraph), (cache) => cache.current)
      const graph = snapshot.graph
      const workspace = yield* Workspace
      const parse = yield* loadParserForTool
      const ranking = rank(graph, termsOf(task))
      const best = ranking.ranked[0]?.score ?? 0
      const files = graph.files().length
      const symbols = [...new Set(ranking.matched.symbols.map((s) => s.name))]
      const top = ranking.ranked[0]?.path

      type Whole = BudgetResult["whole"][number]
      type Skeleton = BudgetResult["skeleton"][number]
      type Skipped = BudgetResult["skip"]["top"][number]

      /** The next step, shorter at each level (and the lists it mentions, cut: say so). */
      const nextText = (
        whole: ReadonlyArray<Whole>,
        skeleton: ReadonlyArray<Skeleton>,
        skipped: number,
        level: Level
      ): string => {
        const topSkeleton = top !== undefined && skeleton.some((entry) => entry.path === top)
        if (level >= 2) {
          return [
            `Budget ${budget} is too small for the lists (matched, unmatched, skip.top: cut) and the next steps; raise budget.`,
            topSkeleton ? `The best-ranked file, ${top}, did not fit whole: its skeleton is inline.` : ""
          ]
            .filter((part) => part !== "")
            .join(" ")
        }
        const unmatchedNote =
          ranking.unmatched.length === 0 ? "" : ` Not found in the project: ${list(ranking.unmatched, 8)}.`
        if (ranking.fallback) {
          return level === 0
            ? `Nothing in the task named a file, exported symbol or word of the project's names${unmatchedNote === "" ? "." : ` (${list(ranking.unmatched, 8)}).`} These are the project's entry points and most-imported files. Call fe_skeleton for a map of the whole project, or call fe_budget again naming files (e.g. src/lib/format.ts) or exported symbols as spelled in code.`
            : "Nothing in the task named the project's files or symbols: these are its entry points. Call fe_skeleton for a map (lists cut to fit)."
        }
        if (level === 1) {
          return [
            topSkeleton ? `The best-ranked file, ${top}, did not fit whole: its skeleton is inline.` : "",
            symbols.length > 0
              ? `Call fe_impact with symbols ${JSON.stringify(symbols.slice(0, 2))} before changing them.`
              : "",
            "Lists cut to fit in budget."
          ]
            .filter((part) => part !== "")
            .join(" ")
        }
        return [
          whole.length > 0
            ? inline
              ? "The whole files' text is in whole[].content; the skeletons are in skeleton[].text."
              : "Read the whole files (whole[].path) with workspace_read; the skeletons are inline in skeleton[].text."
            : `No file fit whole in ${budget} tokens: the skeletons are inline in skeleton[].text; read a file with workspace_read when you need its body.`,
          topSkeleton
            ? `The best-ranked file, ${top}, did not fit whole in ${budget} tokens: its skeleton is inline; read it with workspace_read (with offset and length for a part) or raise budget.`
            : "",
          skipped > 0
            ? `${skipped} related file${skipped === 1 ? "" : "s"} did not fit (skip.top): raise budget to include them.`
            : "",
          symbols.length > 0
            ? `Before changing ${list(symbols, 5)}, call fe_impact with symbols ${JSON.stringify(symbols.slice(0, 5))} to see every importer; after the change, call fe_verify.`
            : "After the change, call fe_verify.",
          unmatchedNote.trim()
        ]
          .filter((part) => part !== "")
          .join(" ")
      }

      /** The result for a packing at an envelope level, `tokens` and `overhead` its own cost. */
      const assemble = (
        whole: ReadonlyArray<Whole>,
        skeleton: ReadonlyArray<Skeleton>,
        skipped: ReadonlyArray<Skipped>,
        read: number,
        level: Level,
        skipShown: number,
        ms: number
      ): BudgetResult => {
        const shown = listShown[level]
        const draft: BudgetResult = {
          whole,
          skeleton,
          skip: {
            count: files - whole.length - skeleton.length,
            ranked: skipped.length,
            top: skipped.slice(0, skipShown)
          },
          matched: { files: ranking.matched.files.slice(0, shown), symbols: ranking.matched.symbols.slice(0, shown) },
          unmatched: ranking.unmatched.slice(0, shown),
          fallback: ranking.fallback,
          // Measured with the budget in their place (an upper bound: the counts written afterwards have no more digits).
          tokens: budget,
          overhead: budget,
          budget,
          stats: { files, ranked: ranking.ranked.length, read, ms },
          scanLimited: snapshot.scanLimited,
          next: nextText(whole, skeleton, skipped.length, level)
        }
        return withCost(draft)
      }

      // The envelope (everything but the entries) is reserved first, at the fullest level that leaves half the budget.
      const empty = (level: Level) => assemble([], [], [], 0, level, 0, 0).tokens
      let level: Level = 0
      while (level < 2 && empty(level) > budget * packing.envelopeShare) level = (level + 1) as Level
      const available = budget - empty(level) - (level === 0 ? 60 : 0)

      const whole: Array<Whole> = []
      const skeleton: Array<Skeleton> = []
      const skipped: Array<Skipped> = []
      let remaining = available
      let read = 0
      let wholePhase = true
      for (const ranked of ranking.ranked) {
        const base = { path: ranked.path, score: ranked.score, why: reasons(ranked) }
        const sizeTokens = Math.ceil((graph.file(ranked.path)?.size ?? 0) / 4)
        // The entry itself (path, score, why, tokens) is read too: it counts.
        const meta = estimateTokens(JSON.stringify({ ...base, tokens: sizeTokens })) + 1
        // Nothing more can fit, or enough files were read: the rest skipped.
        if (remaining < meta + 8 || read >= packing.maxRead) {
          skipped.push({ ...base, tokens: sizeTokens })
          continue
        }
        read++
        const text = yield* workspace.read(ranked.path).pipe(
          Effect.map((result) => (result.truncated || result.binary ? undefined : result.content)),
          Effect.orElseSucceed(() => undefined)
        )
        if (text === undefined) {
          skipped.push({ ...base, tokens: sizeTokens, why: `${base.why}; not readable whole (too large or binary)` })
          continue
        }
        const wholeTokens = estimateTokens(text)
        // What taking it whole costs: the text read (or inline, escaped as JSON) and its entry.
        const wholeCost = inline ? estimateTokens(JSON.stringify(text)) + 3 + meta : wholeTokens + meta
        const takeWhole = () => {
          whole.push({ ...base, tokens: wholeTokens, ...(inline ? { content: text } : {}) })
          remaining -= wholeCost
        }
        if (wholePhase && ranked.score >= best * packing.wholeShare) {
          // The best-ranked files may take the whole budget; the others leave a share of it to skeletons.
          const limit = ranked.score >= best * packing.topShare ? available : available * packing.wholeBudgetShare
          if (wholeCost <= remaining && available - remaining + wholeCost <= limit) {
            takeWhole()
            continue
          }
          // The first file that does not fit whole ends the whole files: those after it get skeletons.
          wholePhase = false
        }
        const rendered = renderFile(skeletonOf(parse, ranked.path, text), "signatures")
        const skeletonTokens = estimateTokens(rendered)
        // The skeleton's text as JSON (escaped) and its entry.
        const skeletonCost = estimateTokens(JSON.stringify(rendered)) + 2 + meta
        if (skeletonTokens < wholeTokens && skeletonCost <= remaining) {
          skeleton.push({ ...base, tokens: skeletonTokens, text: rendered })
          remaining -= skeletonCost
        } else if (wholeTokens <= skeletonTokens && wholeCost <= remaining) {
          // A file no larger than its skeleton is given whole.
          takeWhole()
        } else {
          skipped.push({ ...base, tokens: wholeTokens })
        }
      }

      // The whole result measured; over the budget, cut in this order: skip.top, the lists (a shorter level), the
      // lowest-ranked entries chosen. A budget too small for even the shortest envelope gets it, and next says so.
      const ms = Math.round(performance.now() - started)
      let skipShown = level === 0 ? (budget < 2000 ? 3 : packing.skipShown) : level === 1 ? 1 : 0
      let result = assemble(whole, skeleton, skipped, read, level, skipShown, ms)
      while (result.tokens > budget) {
        if (skipShown > 0 && result.skip.top.length > 0) skipShown--
        else if (level < 2) level = (level + 1) as Level
        else if (whole.length + skeleton.length > 0) {
          // The lowest-ranked entry chosen, given up: counted among the skipped.
          const lastWhole = whole[whole.length - 1]
          const lastSkeleton = skeleton[skeleton.length - 1]
          const dropWhole =
            lastSkeleton === undefined || (lastWhole !== undefined && lastWhole.score < lastSkeleton.score)
          const dropped = dropWhole ? whole.pop()! : skeleton.pop()!
          skipped.push({ path: dropped.path, score: dropped.score, why: dropped.why, tokens: dropped.tokens })
        } else {
          return {
            ...result,
            next: `Budget ${budget} is too small for even this result's counts (${result.tokens} tokens): call fe_budget with a larger budget.`
          }
        }
        result = assemble(whole, skeleton, skipped, read, level, skipShown, ms)
      }
      return result
    })
  )
)
