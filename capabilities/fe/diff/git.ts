/**
 * `fe_diff`'s access to git: every command run through the `CommandRunner`
 * (no shell) as `git -C <root> …`, with the refs checked first (one starting
 * with `-` refused, the others resolved with `rev-parse --verify --quiet
 * --end-of-options`) and only the resolved commit ids passed on, paths given
 * as literal pathspecs after `--`, and git kept read-only (no optional
 * locks, no external diff or textconv). Its failures become `ToolError`s
 * saying what to do: git not installed, not a repository, an unknown ref.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import { CommandRunner, type Result as RunResult } from "../../../src/CommandRunner.ts"
import * as Tool from "../../../src/Tool.ts"

/**
 * How a file changed between the two sides, as git's `--name-status` says
 * (a copy counts as added, a type change as modified).
 *
 * **Example**
 *
 * ```ts
 * import type { ChangeStatus } from "./capabilities/fe/diff/git.ts"
 *
 * const status: ChangeStatus = "renamed"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type ChangeStatus = "added" | "deleted" | "modified" | "renamed"

/**
 * One changed path: its status, its old path when renamed, and the lines
 * added and removed (from `--numstat`; undefined for a binary file or when
 * git did not count them).
 *
 * **Example**
 *
 * ```ts
 * import type { Change } from "./capabilities/fe/diff/git.ts"
 *
 * const change: Change = { path: "src/new.ts", status: "renamed", from: "src/old.ts", lines: { added: 1, removed: 0 } }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Change {
  readonly path: string
  readonly status: ChangeStatus
  readonly from?: string | undefined
  readonly lines?: { readonly added: number; readonly removed: number } | undefined
}

/**
 * The git calls `fe_diff` makes, bound to one workspace root.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { type Git, makeGit } from "./capabilities/fe/diff/git.ts"
 *
 * const untracked = Effect.flatMap(makeGit("/srv/project"), (git: Git) => git.untracked(["src"]))
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Git {
  /** Runs git with these arguments (after `-C <root>` and read-only options); a failed start is a ToolError. */
  readonly run: (
    args: ReadonlyArray<string>,
    maxOutputBytes?: number,
    stdin?: string
  ) => Effect.Effect<RunResult, Tool.ToolError>
  /** Fails with `not_a_git_repository` unless the root is inside a git work tree. */
  readonly ensureRepository: Effect.Effect<void, Tool.ToolError>
  /** The commit id a ref names, or an `invalid_ref` / `unknown_ref` / `no_commits` ToolError. */
  readonly resolveRef: (ref: string, field: string) => Effect.Effect<string, Tool.ToolError>
  /** The changes from `base` to `head` (the working tree when undefined), limited to `paths` (root-relative). */
  readonly changes: (
    base: string,
    head: string | undefined,
    paths: ReadonlyArray<string>
  ) => Effect.Effect<Array<Change>, Tool.ToolError>
  /** The files git does not track and does not ignore, under `paths`. */
  readonly untracked: (paths: ReadonlyArray<string>) => Effect.Effect<Array<string>, Tool.ToolError>
  /** A file's content at a commit, or undefined when it is not there or larger than `maxBytes`. */
  readonly show: (commit: string, path: string, maxBytes: number) => Effect.Effect<string | undefined, Tool.ToolError>
  /**
   * Several files' contents at a commit through one `git cat-file --batch`
   * (each `show` on its own where the batch's output cannot be read), by path.
   */
  readonly showMany: (
    commit: string,
    paths: ReadonlyArray<string>,
    maxBytes: number
  ) => Effect.Effect<Map<string, string | undefined>, Tool.ToolError>
}

/**
 * Reads `git cat-file --batch` output for the names asked, in order: each
 * object's content, undefined for a missing one or one over `maxBytes`.
 * Returns undefined for the names from the first one whose output does not
 * read as expected (for example content that is not UTF-8, whose byte count
 * no longer matches once decoded).
 *
 * **Example**
 *
 * ```ts
 * import { parseBatch } from "./capabilities/fe/diff/git.ts"
 *
 * parseBatch(`${"a".repeat(40)} blob 2\nhi\nHEAD:./x missing\n`, 2, 100) // => ["hi", undefined]
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const parseBatch = (output: string, count: number, maxBytes: number): Array<string | undefined | null> => {
  const bytes = Buffer.from(output, "utf8")
  const results: Array<string | undefined | null> = []
  let offset = 0
  while (results.length < count) {
    const end = bytes.indexOf(10, offset)
    if (end === -1) break
    const header = bytes.toString("utf8", offset, end)
    offset = end + 1
    if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
      results.push(undefined)
      continue
    }
    const match = /^[0-9a-f]{40,64} (\w+) (\d+)$/.exec(header)
    if (match === null) break
    const size = Number(match[2])
    if (offset + size >= bytes.length + 1 || bytes[offset + size] !== 10) break
    results.push(match[1] === "blob" && size <= maxBytes ? bytes.toString("utf8", offset, offset + size) : undefined)
    offset += size + 1
  }
  // null: not read from the batch (ask again one by one).
  while (results.length < count) results.push(null)
  return results
}

/** Read-only and predictable: no index lock, no pager, no prompts, paths as they are, C messages. */
const gitEnv: Readonly<Record<string, string>> = {
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PAGER: "cat",
  GIT_LITERAL_PATHSPECS: "1",
  LC_ALL: "C",
  LANGUAGE: "C"
}

const gitTimeoutMs = 60_000

const firstLine = (text: string): string => text.trim().split("\n")[0] ?? ""

const failed = (args: ReadonlyArray<string>, result: RunResult) =>
  new Tool.ToolError({
    message: `git ${args[0] ?? ""} failed (exit ${result.exitCode ?? result.signal}): ${firstLine(result.stderr) || "no message"}`,
    code: "git_failed",
    suggestion: "Check the repository with exec_run git status; call fe_diff again once git works there."
  })

/**
 * Whether a ref is acceptable to pass to git at all: not empty, not an
 * option (`-…`), no whitespace or control characters, at most 256
 * characters. Whether it names a commit is then git's to say.
 *
 * **Example**
 *
 * ```ts
 * import { isSafeRef } from "./capabilities/fe/diff/git.ts"
 *
 * isSafeRef("HEAD~1") // => true
 * isSafeRef("--output=/tmp/x") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isSafeRef = (ref: string): boolean =>
  // oxlint-disable-next-line no-control-regex
  ref.length > 0 && ref.length <= 256 && !ref.startsWith("-") && !/[\s\u0000-\u001f\u007f]/.test(ref)

/**
 * Reads `git diff --name-status -z` output into changes (status letters
 * `A`, `D`, `M`, `T`, `R<score>`, `C<score>`).
 *
 * **Example**
 *
 * ```ts
 * import { parseNameStatus } from "./capabilities/fe/diff/git.ts"
 *
 * parseNameStatus("M\0src/a.ts\0R095\0src/old.ts\0src/new.ts\0")
 * // => [{ path: "src/a.ts", status: "modified" }, { path: "src/new.ts", status: "renamed", from: "src/old.ts" }]
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const parseNameStatus = (output: string): Array<Change> => {
  const fields = output.split("\0")
  const changes: Array<Change> = []
  let i = 0
  while (i < fields.length) {
    const code = fields[i++] ?? ""
    if (code === "") continue
    const letter = code[0]
    if (letter === "R" || letter === "C") {
      const from = fields[i++] ?? ""
      const path = fields[i++] ?? ""
      changes.push(letter === "R" ? { path, status: "renamed", from } : { path, status: "added" })
    } else {
      const path = fields[i++] ?? ""
      changes.push({ path, status: letter === "A" ? "added" : letter === "D" ? "deleted" : "modified" })
    }
  }
  return changes
}

/**
 * Reads `git diff --numstat -z` output: the lines added and removed per
 * (new) path; a binary file (`-`) is left out.
 *
 * **Example**
 *
 * ```ts
 * import { parseNumstat } from "./capabilities/fe/diff/git.ts"
 *
 * parseNumstat("3\t1\tsrc/a.ts\0").get("src/a.ts") // => { added: 3, removed: 1 }
 * ```
 *
 * @category parsing
 * @since 0.4.0
 */
export const parseNumstat = (output: string): Map<string, { readonly added: number; readonly removed: number }> => {
  const fields = output.split("\0")
  const counts = new Map<string, { readonly added: number; readonly removed: number }>()
  let i = 0
  while (i < fields.length) {
    const head = fields[i++] ?? ""
    if (head === "") continue
    const [added = "", removed = "", inline = ""] = head.split("\t")
    let path = inline
    // A rename: "added\tremoved\t" then the old and the new path as fields of their own.
    if (inline === "") {
      i++
      path = fields[i++] ?? ""
    }
    if (added === "-" || removed === "-") continue
    counts.set(path, { added: Number(added), removed: Number(removed) })
  }
  return counts
}

/**
 * The git service of `fe_diff` for a workspace root.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeGit } from "./capabilities/fe/diff/git.ts"
 *
 * const head = Effect.flatMap(makeGit("/srv/project"), (git) => git.resolveRef("HEAD", "base"))
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const makeGit = (root: string): Effect.Effect<Git, never, CommandRunner> =>
  Effect.map(Effect.service(CommandRunner), (runner): Git => {
    const run = (args: ReadonlyArray<string>, maxOutputBytes = 4 * 1024 * 1024, stdin?: string) =>
      runner
        .run({
          command: "git",
          args: ["-C", root, "-c", "core.quotepath=off", ...args],
          env: gitEnv,
          timeout: gitTimeoutMs,
          maxOutputBytes,
          ...(stdin !== undefined ? { stdin } : {})
        })
        .pipe(
          Effect.mapError((error) =>
            error._tag === "CommandNotFound"
              ? new Tool.ToolError({
                  message: "git is not installed (no git on the server's PATH); fe_diff compares through git.",
                  code: "git_not_found",
                  suggestion:
                    "Install git on the machine that runs the server, or compare files with workspace_read instead."
                })
              : error._tag === "TimedOut"
                ? new Tool.ToolError({
                    message: `git ${args[0] ?? ""} did not finish within ${gitTimeoutMs / 1000} s.`,
                    code: "git_timeout",
                    suggestion: "Call fe_diff with paths to compare fewer files."
                  })
                : new Tool.ToolError({
                    message: `git could not run: ${error.message}`,
                    code: "git_failed",
                    suggestion: "Check that git runs with exec_run git --version."
                  })
          )
        )

    const ensureRepository = Effect.gen(function* () {
      const result = yield* run(["rev-parse", "--is-inside-work-tree"])
      if (result.exitCode === 0 && result.stdout.trim() === "true") return
      return yield* Effect.fail(
        new Tool.ToolError({
          message: `The workspace root is not inside a git work tree${
            result.exitCode === 0 ? "" : ` (git: ${firstLine(result.stderr) || "not a git repository"})`
          }; fe_diff compares the files with a git commit.`,
          code: "not_a_git_repository",
          suggestion:
            "Create a repository with exec_run git init and commit the files (git add -A, git commit), then call fe_diff; without git, compare files with workspace_read."
        })
      )
    })

    const someRefs = Effect.map(
      run(["for-each-ref", "--count=10", "--sort=-committerdate", "--format=%(refname:short)"]),
      (result) => (result.exitCode === 0 ? result.stdout.split("\n").filter((line) => line !== "") : [])
    )

    const resolveRef = (ref: string, field: string) =>
      Effect.gen(function* () {
        if (!isSafeRef(ref)) {
          return yield* Effect.fail(
            new Tool.ToolError({
              message: `${field} ${JSON.stringify(ref.slice(0, 80))} is not a git ref: ${
                ref.startsWith("-") ? "it starts with '-' (an option, refused)" : "empty, too long, or with whitespace"
              }.`,
              code: "invalid_ref",
              suggestion: `Give ${field} as a branch, tag or commit (e.g. HEAD, HEAD~1, main, a commit id).`
            })
          )
        }
        // A range (`A..B`, `A...B`) is two refs: base and head.
        const range = /^(.*?[^.])?(\.\.\.?)([^.].*)?$/.exec(ref)
        if (range !== null && ref.includes("..")) {
          const from = range[1] ?? "HEAD"
          const to = range[3] ?? "HEAD"
          return yield* Effect.fail(
            new Tool.ToolError({
              message: `${field} ${JSON.stringify(ref)} is a range of commits; fe_diff takes its two ends separately.`,
              code: "invalid_ref",
              suggestion:
                range[2] === "..."
                  ? `Call fe_diff with base set to the merge base of ${from} and ${to} (exec_run git merge-base ${from} ${to}) and head ${JSON.stringify(to)}.`
                  : `Call fe_diff with base ${JSON.stringify(from)} and head ${JSON.stringify(to)}.`
            })
          )
        }
        const result = yield* run(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`])
        const commit = result.stdout.trim()
        if (result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(commit)) return commit
        const refs = yield* someRefs
        if (refs.length === 0) {
          const head = yield* run(["rev-parse", "--verify", "--quiet", "HEAD"])
          if (head.exitCode !== 0) {
            return yield* Effect.fail(
              new Tool.ToolError({
                message: `The repository has no commits yet, so ${field} ${JSON.stringify(ref)} names nothing to compare with.`,
                code: "no_commits",
                suggestion: "Commit the files first (exec_run git add -A, then git commit), then call fe_diff."
              })
            )
          }
        }
        return yield* Effect.fail(
          new Tool.ToolError({
            message: `${field} ${JSON.stringify(ref)} does not name a commit of this repository.`,
            code: "unknown_ref",
            suggestion: `Some refs: ${refs.length > 0 ? refs.join(", ") : "HEAD"}; also HEAD~N or a commit id. Call fe_diff with one of them.`
          })
        )
      })

    const diffArgs = (format: string, base: string, head: string | undefined, paths: ReadonlyArray<string>) => [
      "diff",
      format,
      "-z",
      "-M",
      "--no-ext-diff",
      "--no-textconv",
      "--no-color",
      "--relative",
      base,
      ...(head !== undefined ? [head] : []),
      "--",
      ...paths
    ]

    const changes = (base: string, head: string | undefined, paths: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const [status, numstat] = yield* Effect.all(
          [
            run(diffArgs("--name-status", base, head, paths), 32 * 1024 * 1024),
            run(diffArgs("--numstat", base, head, paths), 32 * 1024 * 1024)
          ],
          { concurrency: 2 }
        )
        if (status.exitCode !== 0) return yield* Effect.fail(failed(["diff"], status))
        const counts = numstat.exitCode === 0 ? parseNumstat(numstat.stdout) : new Map()
        return parseNameStatus(status.stdout).map((change) => {
          const lines = counts.get(change.path)
          return lines === undefined ? change : { ...change, lines }
        })
      })

    const untracked = (paths: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const result = yield* run(
          ["ls-files", "--others", "--exclude-standard", "-z", "--", ...paths],
          32 * 1024 * 1024
        )
        if (result.exitCode !== 0) return yield* Effect.fail(failed(["ls-files"], result))
        return result.stdout.split("\0").filter((path) => path !== "")
      })

    const show = (commit: string, path: string, maxBytes: number) =>
      Effect.map(run(["cat-file", "blob", `${commit}:./${path}`], maxBytes), (result) =>
        result.exitCode === 0 && !result.stdoutTruncated ? result.stdout : undefined
      )

    // The root's path inside the repository ("" at the top, "app/" below it): batch names are from the top.
    let prefix: string | undefined
    const prefixOf = Effect.suspend(() =>
      prefix !== undefined
        ? Effect.succeed(prefix)
        : Effect.map(run(["rev-parse", "--show-prefix"]), (result) => {
            prefix = result.exitCode === 0 ? result.stdout.trim() : ""
            return prefix
          })
    )

    const showMany = (commit: string, paths: ReadonlyArray<string>, maxBytes: number) =>
      Effect.gen(function* () {
        const contents = new Map<string, string | undefined>()
        const batched = paths.filter((path) => !/[\n\r]/.test(path))
        let read: Array<string | undefined | null> = batched.map(() => null)
        if (batched.length > 0) {
          const top = yield* prefixOf
          const result = yield* run(
            ["cat-file", "--batch"],
            256 * 1024 * 1024,
            batched.map((path) => `${commit}:${top}${path}`).join("\n") + "\n"
          )
          if (result.exitCode === 0) read = parseBatch(result.stdout, batched.length, maxBytes)
        }
        batched.forEach((path, i) => {
          const content = read[i]
          if (content !== null) contents.set(path, content)
        })
        const rest = paths.filter((path) => !contents.has(path))
        const single = yield* Effect.forEach(rest, (path) => show(commit, path, maxBytes), { concurrency: 8 })
        rest.forEach((path, i) => contents.set(path, single[i]))
        return contents
      })

    return { run, ensureRepository, resolveRef, changes, untracked, show, showMany }
  })
