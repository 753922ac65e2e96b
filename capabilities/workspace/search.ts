/**
 * `workspace_search`: finds lines matching text or a regular expression in
 * the workspace's files.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { searchLimits, Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "./errors.ts"

/**
 * The `search` tool, published as `workspace_search`: the lines of the
 * workspace's text files that contain `query` (literal text, or a
 * JavaScript regular expression with `regex: true`), each with its path,
 * line, column and text, at most `limit` (default 100, at most 1000). Files
 * ignored by `.gitignore`, secrets on the deny list, binary files and files
 * over 1 MiB are skipped. When `truncated`, `nextCursor` continues the same
 * search and `note` says so in words.
 *
 * **Example**
 *
 * ```ts
 * import { search } from "./capabilities/workspace/search.ts"
 *
 * search.tool.annotations?.readOnlyHint // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const search = Tool.make("search", {
  title: "Search files",
  description:
    "Searches the text of the workspace's files and returns the matching lines, each with its path, line number " +
    "(1-based), column and the line's text. By default query is literal text matched case-sensitively; set " +
    "regex true for a JavaScript regular expression (e.g. 'function\\s+\\w+Handler') and caseSensitive false to " +
    "ignore case. Narrow the search with path (a directory or one file) and include (a glob on the file path, " +
    "e.g. '*.ts', '**/*.{ts,tsx}', 'src/**/test_*.py'). Files ignored by .gitignore are skipped unless " +
    "includeIgnored is true; secrets, binary files and files over 1 MiB are always skipped. One line is reported " +
    "once, at its first match. Each call is bounded by the bytes it reads and its time (by default " +
    `${searchLimits.maxBytes / 1024 / 1024} MiB and ${searchLimits.maxMillis / 1000} s), however many files there are. ` +
    "When truncated is true there may be more matches (stoppedBy says why): call workspace_search again " +
    "with the same arguments and cursor set to nextCursor, or narrow the search. Then call workspace_read with " +
    "the path (and an offset) to see the surrounding code.",
  input: Schema.Struct({
    query: Schema.String.annotate({
      description: "The text to find, or a regular expression when regex is true."
    }),
    regex: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Treat query as a JavaScript regular expression (default false)." })
    ),
    caseSensitive: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Match upper and lower case exactly (default true)." })
    ),
    path: Schema.optionalKey(
      Schema.String.annotate({
        description: 'A directory to search under, or a single file, relative to the workspace root (default ".").'
      })
    ),
    include: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "Only files matching this glob: without a / it matches the file name at any depth ('*.md'); with a / the " +
          "path ('src/**/*.ts'). Supports *, ?, **, [abc] and {a,b}."
      })
    ),
    includeIgnored: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Also search files that .gitignore excludes (default false)." })
    ),
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: searchLimits.max })).annotate({
        description: `At most this many matching lines (1-${searchLimits.max}, default ${searchLimits.default}).`
      })
    ),
    cursor: Schema.optionalKey(
      Schema.String.annotate({ description: "The nextCursor of the previous result of the same search." })
    )
  }),
  output: Schema.Struct({
    matches: Schema.Array(
      Schema.Struct({
        path: Schema.String.annotate({ description: "The file, relative to the workspace root." }),
        line: Schema.Int.annotate({ description: "The line number, 1-based." }),
        column: Schema.Int.annotate({ description: "Where the first match on the line starts, 1-based." }),
        text: Schema.String.annotate({
          description: `The line, cut to ${searchLimits.maxTextChars} characters around the match (… marks a cut).`
        })
      })
    ),
    truncated: Schema.Boolean.annotate({ description: "True when there may be more matches than those returned." }),
    stoppedBy: Schema.optionalKey(
      Schema.Literals(["limit", "scan_budget", "time_budget"]).annotate({
        description: "Why it stopped, when truncated: the match limit, the byte budget of one call, or its time budget."
      })
    ),
    nextCursor: Schema.optionalKey(
      Schema.String.annotate({ description: "Present when truncated: pass it as cursor, with the same arguments." })
    ),
    lastPath: Schema.optionalKey(
      Schema.String.annotate({ description: "When truncated: the last file reached; the next call starts there." })
    ),
    pendingPath: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "When the time budget ran out while a file was still being matched: that file (with a regular expression, " +
          "a sign that it backtracks catastrophically on that file's lines)."
      })
    ),
    filesScanned: Schema.Int.annotate({ description: "How many files this call read." }),
    skippedBinary: Schema.Int.annotate({ description: "Files skipped because they are binary." }),
    skippedTooLarge: Schema.Int.annotate({ description: "Files skipped because they are larger than the cap." }),
    note: Schema.optionalKey(Schema.String.annotate({ description: "What to do next, when truncated." }))
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* (input) {
      const workspace = yield* Workspace
      const result = yield* mapWorkspaceError(workspace.search(input))
      const base = {
        matches: result.matches.map((match) => ({
          path: match.path,
          line: match.line,
          column: match.column,
          text: match.text
        })),
        truncated: result.truncated,
        filesScanned: result.filesScanned,
        skippedBinary: result.skipped.binary,
        skippedTooLarge: result.skipped.tooLarge
      }
      if (!result.truncated) return base
      const more = result.nextCursor === undefined ? {} : { nextCursor: result.nextCursor }
      const continueHow =
        result.nextCursor === undefined
          ? "Call workspace_search again with the same arguments"
          : "Call workspace_search with the same arguments and cursor set to nextCursor"
      const reached = result.lastPath === undefined ? "" : ` (up to ${result.lastPath})`
      return {
        ...base,
        ...(result.stoppedBy === undefined ? {} : { stoppedBy: result.stoppedBy }),
        ...more,
        ...(result.lastPath === undefined ? {} : { lastPath: result.lastPath }),
        ...(result.pendingPath === undefined ? {} : { pendingPath: result.pendingPath }),
        note:
          result.stoppedBy === "limit"
            ? `Stopped at ${result.matches.length} matches; there may be more. ${continueHow} for the next ones, ` +
              "or narrow the search with path, include or a more specific query."
            : result.stoppedBy === "time_budget"
              ? result.pendingPath !== undefined && input.regex === true
                ? `Stopped when the time budget of one call ran out, after searching ${result.filesScanned} files` +
                  `${reached}, while the regular expression was still being matched against ${result.pendingPath}: ` +
                  "it probably backtracks catastrophically on that file's lines. Simplify the regular expression " +
                  "(avoid alternatives or repeated groups that can match the same text in several ways, like " +
                  "(a|a)* or \\w*\\w*), or leave that file out with path or include."
                : `Stopped when the time budget of one call ran out, after searching ${result.filesScanned} files` +
                  `${reached}; the rest of the workspace was not searched yet. ${continueHow} to continue, or ` +
                  "narrow the search with path or include."
              : `Stopped after reading ${result.filesScanned} files${reached} (the byte budget of one call); the ` +
                `rest of the workspace was not searched yet. ${continueHow} to continue, or narrow the search with ` +
                "path or include."
      }
    })
  )
)
