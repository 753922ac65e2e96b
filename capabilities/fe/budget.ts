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
import { extract, type FileSkeleton, loadParser, type Parse } from "./skeleton/extract.ts"
import { estimateTokens, renderFile } from "./skeleton/render.ts"

/**
 * The default and the bounds of `budget`, in estimated tokens of the files
 * and skeletons chosen.
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
 * `maxTaskLength` characters.
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
  maxTaskLength: 4000
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
      "The estimated tokens of everything chosen: the whole files, the skeletons and their entries (at most budget)."
  }),
  overhead: Schema.Int.annotate({
    description: "Of tokens, those of the entries themselves (path, score, why), counted in the budget."
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
          description: `The estimated tokens to spend (default ${contextBudgets.default}): the whole files, the skeletons and the entries listing them.`
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
      const parse = yield* loadParser.pipe(
        Effect.mapError(
          (error) =>
            new Tool.ToolError({
              message: error.message,
              code: "parser_unavailable",
              suggestion: "Reinstall the server's dependencies (oxc-parser ships a native binding per platform)."
            })
        )
      )
      const ranking = rank(graph, termsOf(task))
      const best = ranking.ranked[0]?.score ?? 0

      const whole: Array<BudgetResult["whole"][number]> = []
      const skeleton: Array<BudgetResult["skeleton"][number]> = []
      const skipped: Array<BudgetResult["skip"]["top"][number]> = []
      let remaining = budget
      let read = 0
      let wholePhase = true
      let overhead = 0
      for (const ranked of ranking.ranked) {
        const base = { path: ranked.path, score: ranked.score, why: reasons(ranked) }
        const sizeTokens = Math.ceil((graph.file(ranked.path)?.size ?? 0) / 4)
        // The entry itself (path, score, why, tokens) is read too: it counts.
        const meta = estimateTokens(JSON.stringify({ ...base, tokens: sizeTokens })) + 2
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
        const takeWhole = () => {
          whole.push({ ...base, tokens: wholeTokens, ...(inline ? { content: text } : {}) })
          remaining -= wholeTokens + meta
          overhead += meta
        }
        if (wholePhase && ranked.score >= best * packing.wholeShare) {
          // The best-ranked files may take the whole budget; the others leave a share of it to skeletons.
          const limit = ranked.score >= best * packing.topShare ? budget : budget * packing.wholeBudgetShare
          if (wholeTokens + meta <= remaining && budget - remaining + wholeTokens + meta <= limit) {
            takeWhole()
            continue
          }
          // The first file that does not fit whole ends the whole files: those after it get skeletons.
          wholePhase = false
        }
        const rendered = renderFile(skeletonOf(parse, ranked.path, text), "signatures")
        const skeletonTokens = estimateTokens(rendered)
        if (skeletonTokens < wholeTokens && skeletonTokens + meta <= remaining) {
          skeleton.push({ ...base, tokens: skeletonTokens, text: rendered })
          remaining -= skeletonTokens + meta
          overhead += meta
        } else if (wholeTokens <= skeletonTokens && wholeTokens + meta <= remaining) {
          // A file no larger than its skeleton is given whole.
          takeWhole()
        } else {
          skipped.push({ ...base, tokens: wholeTokens })
        }
      }

      const files = graph.files().length
      const chosen = whole.length + skeleton.length
      const tokens = budget - remaining
      const symbols = [...new Set(ranking.matched.symbols.map((s) => s.name))]
      const unmatchedNote =
        ranking.unmatched.length === 0 ? "" : ` Not found in the project: ${list(ranking.unmatched, 8)}.`
      const top = ranking.ranked[0]?.path
      const next = ranking.fallback
        ? `Nothing in the task named a file, exported symbol or word of the project's names${unmatchedNote === "" ? "." : ` (${list(ranking.unmatched, 8)}).`} These are the project's entry points and most-imported files. Call fe_skeleton for a map of the whole project, or call fe_budget again naming files (e.g. src/lib/format.ts) or exported symbols as spelled in code.`
        : [
            whole.length > 0
              ? inline
                ? "The whole files' text is in whole[].content; the skeletons are in skeleton[].text."
                : `Read the whole files with workspace_read: ${list(whole.map((w) => w.path))}; the skeletons are inline in skeleton[].text.`
              : `No file fit whole in ${budget} tokens: the skeletons are inline in skeleton[].text; read a file with workspace_read when you need its body.`,
            top !== undefined && skeleton.some((entry) => entry.path === top)
              ? `The best-ranked file, ${top}, did not fit whole in ${budget} tokens: its skeleton is inline; read it with workspace_read (with offset and length for a part) or raise budget.`
              : "",
            skipped.length > 0
              ? `${skipped.length} related file${skipped.length === 1 ? "" : "s"} did not fit (skip.top): raise budget to include them.`
              : "",
            symbols.length > 0
              ? `Before changing ${list(symbols, 5)}, call fe_impact with symbols ${JSON.stringify(symbols.slice(0, 5))} to see every importer; after the change, call fe_verify.`
              : "After the change, call fe_verify.",
            unmatchedNote.trim()
          ]
            .filter((s) => s !== "")
            .join(" ")
      const result: BudgetResult = {
        whole,
        skeleton,
        skip: {
          count: files - chosen,
          ranked: skipped.length,
          top: skipped.slice(0, budget < 2000 ? 3 : packing.skipShown)
        },
        matched: ranking.matched,
        unmatched: ranking.unmatched,
        fallback: ranking.fallback,
        tokens,
        overhead,
        budget,
        stats: { files, ranked: ranking.ranked.length, read, ms: Math.round(performance.now() - started) },
        scanLimited: snapshot.scanLimited,
        next
      }
      return result
    })
  )
)
