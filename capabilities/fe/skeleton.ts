/**
 * `fe_skeleton`: a token-budgeted map of the codebase — per file its
 * exports with signatures and its imports — so an agent understands a
 * project before changing it.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { type FileEntry, Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "../workspace/errors.ts"
import { componentExtensions, extractComponent } from "./skeleton/components.ts"
import { FeSkeletons } from "./skeleton/cache.ts"
import { extract, type FileSkeleton, loadParserForTool, type Parse } from "./skeleton/extract.ts"
import { renderMap } from "./skeleton/render.ts"
import { FeState } from "./state.ts"

const sourceExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ...componentExtensions]
/**
 * Directories never mapped, even without a .gitignore that says so:
 * dependencies, build output, caches (also skipped by the import graph).
 *
 * @category constants
 * @since 0.4.0
 */
export const skippedDirs: ReadonlyArray<string> = [
  "node_modules",
  "dist",
  "build",
  "out",
  "coverage",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".output",
  ".turbo",
  ".cache",
  ".vite",
  ".vercel"
]
/**
 * Source files larger than this (generated, bundled) are not parsed.
 *
 * @category constants
 * @since 0.4.0
 */
export const maxFileBytes = 512 * 1024

/**
 * The files under `path` as fe walks a project — `.gitignore` and the deny
 * list as the workspace applies them, {@link skippedDirs} never entered —
 * those `keep` accepts, at most `max` of them (`limited` when there were
 * more). Shared by `fe_skeleton` and the import graph.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Workspace } from "effect-mcp-runtime/Workspace"
 * import { listProjectFiles } from "./capabilities/fe/skeleton.ts"
 *
 * const sources = Effect.flatMap(Effect.service(Workspace), (workspace) =>
 *   listProjectFiles(workspace, "src", { max: 5000, keep: (path) => path.endsWith(".ts") })
 * )
 * ```
 *
 * @category listing
 * @since 0.4.0
 */
export const listProjectFiles = (
  workspace: Workspace["Service"],
  path: string,
  options: { readonly max: number; readonly keep?: ((path: string) => boolean) | undefined }
): Effect.Effect<{ readonly files: ReadonlyArray<FileEntry>; readonly limited: boolean }, Tool.ToolError> =>
  Effect.gen(function* () {
    const files: Array<FileEntry> = []
    let limited = false
    let cursor: string | undefined
    do {
      const page = yield* mapWorkspaceError(
        workspace.listFiles(path, { cursor, limit: 1000, skipDirectories: skippedDirs })
      )
      for (const file of page.files) {
        if (options.keep !== undefined && !options.keep(file.path)) continue
        if (files.length >= options.max) {
          limited = true
          break
        }
        files.push(file)
      }
      cursor = limited ? undefined : page.nextCursor
    } while (cursor !== undefined)
    return { files, limited }
  })

/** A file's skeleton; a syntax tree the extraction did not expect is this file's problem, reported like a parse error. */
const mapFile = (parse: Parse, path: string, content: string): FileSkeleton =>
  Result.getOrElse(
    Result.try(() =>
      componentExtensions.some((ext) => path.endsWith(ext))
        ? extractComponent(parse, path, content)
        : extract(parse, path, content)
    ),
    (cause): FileSkeleton => ({
      path,
      exports: [],
      imports: [],
      error: `could not be mapped: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  )

/** Sources, declaration files (`.d.ts`: generated or ambient, no code of the project's own) and minified bundles left out. */
const isSource = (path: string): boolean =>
  sourceExtensions.some((ext) => path.endsWith(ext)) &&
  ![".d.ts", ".d.mts", ".d.cts", ".min.js", ".min.mjs", ".min.cjs"].some((ext) => path.endsWith(ext))

/** Tests, stories, fixtures and mocks: `*.test.*`, `*.spec.*`, `*.stories.*`, `__tests__/`, `test/`, `fixtures/`… */
const isTestOrStory = (path: string): boolean => {
  const segments = path.split("/")
  const name = segments.pop() ?? ""
  return (
    [".test.", ".spec.", ".stories.", ".story."].some((marker) => name.includes(marker)) ||
    segments.some((segment) =>
      ["__tests__", "__mocks__", "__fixtures__", "test", "tests", "e2e", "fixtures", "stories"].includes(segment)
    )
  )
}

/**
 * The default and the bounds of `budget`, in estimated tokens.
 *
 * @category constants
 * @since 0.1.0
 */
export const budgets = { default: 4000, minimum: 200, maximum: 100_000 } as const

/**
 * The default and the bound of `maxFiles`: 50,000 source files by default
 * (the import graph's own listing bound, the sources of a large monorepo;
 * the map is cut to the budget whatever the count), at most 200,000.
 *
 * @category constants
 * @since 0.5.0
 */
export const fileLimits = { default: 50_000, maximum: 200_000 } as const

/**
 * The `fe_skeleton` result's Schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SkeletonResult = Schema.Struct({
  map: Schema.String.annotate({
    description:
      "One block per file: its path, its imports (module {names}), and each export as `L<line>[-<end line>] <kind> <name><signature>` (1-based lines of its declaration; with detail names, `<name> L<line>`); kinds: component, hook, function, class, interface, type, enum, const, and re-exports."
  }),
  tokens: Schema.Int.annotate({ description: "The map's estimated tokens (4 characters a token), at most budget." }),
  budget: Schema.Int,
  detail: Schema.Literals(["full", "signatures", "names"]).annotate({
    description: "full: signatures and imports; signatures: imports left out to fit; names: export names only."
  }),
  filesScanned: Schema.Int.annotate({
    description:
      "Source files mapped: read and parsed by this call (filesParsed) or taken from the cache (filesReused)."
  }),
  filesShown: Schema.Int,
  omitted: Schema.Array(Schema.Struct({ path: Schema.String, files: Schema.Int })).annotate({
    description: "Directories whose files did not fit in the budget, with their counts: map them with path."
  }),
  parseErrors: Schema.Array(Schema.Struct({ file: Schema.String, message: Schema.String })),
  skipped: Schema.Int.annotate({ description: "Source files not read: over 512 KiB (generated) or unreadable." }),
  scanLimited: Schema.Boolean.annotate({ description: "True when the scan stopped at maxFiles." }),
  filesParsed: Schema.Int.annotate({
    description: "Files this call read and parsed: new, changed, or modified within 2 s of a call (not yet trusted)."
  }),
  filesReused: Schema.Int.annotate({
    description: "Files whose size and modification time had not changed since an earlier call: taken from the cache."
  }),
  next: Schema.String
})

/**
 * The `skeleton` tool, published as `fe_skeleton`: maps the TypeScript and
 * JavaScript files under a directory (the root by default) — each file's
 * imports and exports, with signatures — parsed with a real parser (oxc),
 * `.gitignore` and the workspace's deny list respected, dependencies and
 * build output skipped, and the map kept within `budget` tokens by lowering
 * the detail (signatures without imports, then names) and then counting the
 * files that do not fit by directory. Each file's skeleton is cached per
 * server by its size and modification time (`skeleton/cache.ts`): a later
 * call reads and parses only the files new or changed since.
 *
 * **Example**
 *
 * ```ts
 * import { skeleton } from "./capabilities/fe/skeleton.ts"
 *
 * skeleton.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const skeleton = Tool.make("skeleton", {
  title: "Map the codebase",
  description:
    "Returns a compact map of the project's TypeScript/JavaScript code: for each file, what it imports and what it " +
    "exports (components, hooks, functions with their parameters and return types, classes, interfaces, types, " +
    "enums, constants, re-exports). Call it first to understand a project or a directory before reading or changing " +
    "files. path narrows it to a directory or one file; budget bounds the map in tokens (default 4000): when the " +
    "project does not fit, the map drops imports, then signatures, then lists what is left out by directory — call " +
    "again with path set to one of those directories. Each export starts with its lines (L12-20): read just those " +
    "with workspace_read. .gitignore, node_modules and build output are skipped. Calling " +
    "it again is cheap: only the files changed since are parsed again. Then read files with workspace_read, and " +
    "check changes with fe_verify.",
  input: Schema.Struct({
    path: Schema.optionalKey(
      Schema.String.annotate({ description: "A directory or file relative to the workspace root (default: the root)." })
    ),
    budget: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: budgets.minimum, maximum: budgets.maximum })).annotate({
        description: `The map's size limit in estimated tokens (default ${budgets.default}).`
      })
    ),
    maxFiles: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: fileLimits.maximum })).annotate({
        description: `How many source files to map at most (default ${fileLimits.default}).`
      })
    ),
    lines: Schema.optionalKey(
      Schema.Boolean.annotate({
        description:
          "Whether each export shows its line numbers (default true); false saves about 3-7% of the map's tokens (more when only names fit)."
      })
    )
  }),
  output: SkeletonResult,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ budget = budgets.default, lines = true, maxFiles = fileLimits.default, path = "" }) {
      const workspace = yield* Workspace
      const state = yield* FeState
      const cache = yield* FeSkeletons
      const parse = yield* loadParserForTool
      const startedMs = yield* Clock.currentTimeMillis
      const start = yield* mapWorkspaceError(workspace.stat(path === "" ? "." : path))
      // One walk (a file maps itself): .gitignore and the deny list as the workspace applies them, and the usual
      // dependency and build directories never entered, at any depth, even where no .gitignore names them.
      const { files: found, limited: scanLimited } = yield* listProjectFiles(workspace, start.path, {
        max: maxFiles,
        keep: start.type === "directory" ? isSource : undefined
      })
      // Files whose size and modification time are those the cache saw are not read again; the others are read
      // and parsed, 16 at once, and cached (see skeleton/cache.ts, the racy case included).
      let skipped = 0
      const mapped: Array<FileSkeleton> = []
      const misses: Array<FileEntry> = []
      for (const file of found) {
        if (file.size > maxFileBytes) {
          skipped++
          continue
        }
        const hit = cache.lookup(file.path, file.size, file.modifiedMs)
        if (hit === undefined) misses.push(file)
        else if (hit !== null) mapped.push(hit)
      }
      const filesReused = found.length - skipped - misses.length
      let filesParsed = 0
      yield* Effect.forEach(
        misses,
        (file) =>
          workspace.read(file.path).pipe(
            Effect.map((read) => {
              filesParsed++
              const skeleton = read.binary ? null : mapFile(parse, file.path, read.content)
              cache.store(file.path, file.size, file.modifiedMs, skeleton, startedMs)
              if (skeleton !== null) mapped.push(skeleton)
            }),
            Effect.catch(() =>
              Effect.sync(() => {
                skipped++
              })
            )
          ),
        { concurrency: 16, discard: true }
      )
      // Files no longer listed (deleted, renamed, newly ignored) leave the cache; a listing cut at maxFiles does not
      // say which, so it keeps them (the least recently used go first when the cache is full).
      if (!scanLimited && start.type === "directory") {
        cache.forgetMissing(start.path, new Set(found.map((file) => file.path)))
      }
      // The code before its tests and stories (a tight budget is spent on the code first); then a directory's own
      // files before its subdirectories' (src/App.tsx, then src/components/…). The keys computed once a file.
      const keyed = mapped.map((skeleton) => ({
        skeleton,
        test: isTestOrStory(skeleton.path),
        dir: skeleton.path.includes("/") ? skeleton.path.slice(0, skeleton.path.lastIndexOf("/")) : ""
      }))
      keyed.sort((a, b) => {
        if (a.test !== b.test) return a.test ? 1 : -1
        if (a.dir !== b.dir) return a.dir < b.dir ? -1 : 1
        return a.skeleton.path < b.skeleton.path ? -1 : 1
      })
      // The cached skeletons keep their lines; a map without them is rendered from copies.
      const skeletons = keyed.map((k) =>
        lines
          ? k.skeleton
          : {
              ...k.skeleton,
              exports: k.skeleton.exports.map((entry) => ({ ...entry, line: undefined, endLine: undefined }))
            }
      )
      const project = yield* state.project.pipe(Effect.option)
      const where = start.path === "" ? "the root" : start.path
      const about =
        project._tag === "Some"
          ? ` (${project.value.framework === "none" ? "" : `${project.value.framework} project, `}source in ${project.value.sourceDir})`
          : ""
      const header = `# ${skeletons.length} source file${skeletons.length === 1 ? "" : "s"} under ${where}${about}`
      const rendered = renderMap(skeletons, budget, header)
      const parseErrors = skeletons
        .filter((s) => s.error !== undefined)
        .slice(0, 20)
        .map((s) => ({ file: s.path, message: s.error! }))
      const next =
        rendered.omitted.length > 0
          ? `The map did not fit in ${budget} tokens: call fe_skeleton with path set to one of the omitted directories (or a larger budget). Read files with workspace_read; check changes with fe_verify.`
          : rendered.detail !== "full"
            ? `To fit in ${budget} tokens the map shows ${rendered.detail === "names" ? "export names only" : "no imports"}: narrow it with path, or raise budget, for more. Read files with workspace_read; check changes with fe_verify.`
            : "Read the files you need with workspace_read; after changing code, call fe_verify."
      return {
        map: rendered.text,
        tokens: rendered.tokens,
        budget,
        detail: rendered.detail,
        filesScanned: skeletons.length,
        filesShown: rendered.filesShown,
        omitted: rendered.omitted,
        parseErrors,
        skipped,
        scanLimited,
        filesParsed,
        filesReused,
        next
      }
    })
  )
)
