/**
 * `fe_doctor`'s engine: picks the rule for a problem's code, reads the
 * source it needs through the Workspace, and builds the diagnosis; reads
 * problems out of pasted tool output.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Workspace } from "../../../src/Workspace.ts"
import type { ProblemInput } from "../problem.ts"
import type { ProjectInfo } from "../project.ts"
import { parseTsc, relativePath } from "../verify/parse.ts"
import { lintRules } from "./lint.ts"
import { computedSteps, diagnosisId } from "./id.ts"
import type { Diagnosis, Neighbours, Rule, RuleInput } from "./model.ts"
import { excerpt, importSpecifier, quotedNames, unquote } from "./source.ts"
import { testRules } from "./tests.ts"
import { typescriptRules } from "./typescript.ts"

/**
 * The rule for a problem: by its TypeScript code, lint rule or test code;
 * undefined when none covers it.
 *
 * **Example**
 *
 * ```ts
 * import { ruleFor } from "./capabilities/fe/diagnosis/diagnose.ts"
 *
 * ruleFor({ kind: "type", code: "TS2322" })?.title // => "Type is not assignable"
 * ruleFor({ kind: "type", code: "TS9999" }) // => undefined
 * ```
 *
 * @category rules
 * @since 0.1.0
 */
export const ruleFor = (problem: Pick<ProblemInput, "kind" | "code">): Rule | undefined =>
  problem.kind === "type"
    ? typescriptRules[problem.code.toUpperCase()]
    : problem.kind === "lint"
      ? lintRules[problem.code]
      : testRules[problem.code]

const verifyAfter = (problem: ProblemInput): string =>
  problem.kind === "test"
    ? `fe_verify with steps ["test"] and files ["${problem.file}"]`
    : `fe_verify${problem.kind === "lint" ? ' with steps ["lint"]' : ""}`

const surgeonNext = (problem: ProblemInput, id: string): string =>
  `Apply the fix in one call: fe_surgeon with operations [{ "op": "apply_diagnosis", "id": "${id}" }] (or ` +
  `workspace_edit with before/after, which are exact text), then call ${verifyAfter(problem)} to check it.`

const nextStep = (problem: ProblemInput): string =>
  problem.kind === "test"
    ? `Apply the fix with workspace_edit (before/after are exact text), then call fe_verify with steps ["test"] and files ["${problem.file}"].`
    : `Apply the fix with workspace_edit (before/after are exact text), then call fe_verify${problem.kind === "lint" ? ' with steps ["lint"]' : ""} to check it.`

/**
 * The diagnosis of a problem from what the rule sees (pure): the known
 * rule's answer, or a generic one that says no rule covers the code.
 *
 * **Example**
 *
 * ```ts
 * import { diagnosisOf } from "./capabilities/fe/diagnosis/diagnose.ts"
 *
 * const problem = { source: "typescript", kind: "type", file: "a.ts", line: 1, column: 7, code: "TS6133", message: "'x' is declared but its value is never read.", severity: "error" } as const
 * diagnosisOf(problem, ["const x = 1"], { related: new Map(), project: undefined }).fix[0]?.operation // => "delete"
 * ```
 *
 * @category diagnosis
 * @since 0.1.0
 */
export const diagnosisOf = (
  problem: ProblemInput,
  lines: ReadonlyArray<string> | undefined,
  options: {
    readonly related: ReadonlyMap<string, ReadonlyArray<string>>
    readonly project: ProjectInfo | undefined
    readonly neighbours?: Neighbours | undefined
  }
): Diagnosis => {
  const project: ProjectInfo = options.project ?? {
    name: null,
    framework: "none",
    packageManager: "npm",
    lockfile: null,
    tsconfig: null,
    linter: "none",
    testRunner: "none",
    sourceDir: ".",
    dependencies: []
  }
  const input: RuleInput = {
    problem,
    lines,
    line: lines?.[problem.line - 1] ?? "",
    quoted: quotedNames(problem.message),
    project,
    related: options.related,
    neighbours: options.neighbours
  }
  const rule = ruleFor(problem)
  const context = excerpt(lines, problem.line)
  const base = {
    id: diagnosisId(problem),
    problem: {
      source: problem.source,
      file: problem.file,
      line: problem.line,
      column: problem.column,
      code: problem.code,
      message: problem.message
    },
    context
  }
  if (rule === undefined) {
    return {
      ...base,
      title: `${problem.code}: no specific rule`,
      rootCause:
        `fe_doctor has no rule for ${problem.code}, so this is not a specific diagnosis. The ${problem.source} message says: ` +
        `${problem.message}${lines === undefined ? "" : ` The source around ${problem.file}:${problem.line} is in context.`}`,
      fix: [
        {
          operation: "investigate",
          file: problem.file,
          line: problem.line,
          description:
            `Read the message and the code at ${problem.file}:${problem.line}${problem.column > 0 ? `:${problem.column}` : ""}` +
            (problem.kind === "type"
              ? `; the TypeScript handbook's explanation of ${problem.code} applies.`
              : problem.kind === "lint"
                ? `; the documentation of the rule ${problem.code} explains what it wants.`
                : ".")
        }
      ],
      confidence: "low",
      known: false,
      next: `Read more of the file with workspace_read if the context is not enough; after a change, call fe_verify.`
    }
  }
  const answer = rule.diagnose(input)
  const applicable = computedSteps(answer.fix) !== undefined
  return {
    ...base,
    title: answer.title ?? rule.title,
    rootCause: answer.rootCause,
    fix: answer.fix,
    confidence: answer.confidence,
    known: true,
    ...(applicable ? { surgeon: { op: "apply_diagnosis" as const, id: base.id } } : {}),
    next: applicable ? surgeonNext(problem, base.id) : nextStep(problem)
  }
}

const splitLines = (text: string): ReadonlyArray<string> => text.replace(/\r\n/g, "\n").split("\n")

const readLines = (path: string) =>
  Effect.gen(function* () {
    if (path === "") return undefined
    const workspace = yield* Workspace
    const read = yield* workspace.read(path).pipe(Effect.option)
    return read._tag === "Some" && !read.value.binary ? splitLines(read.value.content) : undefined
  })

const extensions = ["", ".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", "/index.ts", "/index.tsx", "/index.js"]

const directoryOf = (file: string): string => (file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "")

/** A relative specifier as a path from the root (undefined when it leaves the root). */
const targetOf = (file: string, specifier: string): string | undefined => {
  const dir = directoryOf(file)
  const target = relativePath(dir === "" ? specifier : `${dir}/${specifier}`, [])
  return target.startsWith("..") || target.startsWith("/") ? undefined : target
}

/** The file a relative specifier names, read: the path as written, with an extension, as an index, or with .js written for .ts. */
const readModule = (file: string, specifier: string) =>
  Effect.gen(function* () {
    const base = targetOf(file, specifier)
    if (base === undefined) return undefined
    const stem = base.replace(/\.(?:js|jsx|mjs|cjs)$/, "")
    const candidates = [
      ...extensions.map((extension) => `${base}${extension}`),
      ...(stem !== base ? [".ts", ".tsx", ".mts", ".cts"].map((extension) => `${stem}${extension}`) : [])
    ]
    for (const candidate of candidates) {
      const read = yield* readLines(candidate)
      if (read !== undefined) return [candidate, read] as const
    }
    return undefined
  })

/** The relative modules a test file imports (or requires), read (for the test rules). */
const importedModules = (file: string, lines: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    const related = new Map<string, ReadonlyArray<string>>()
    if (lines === undefined) return related
    for (const line of lines) {
      const specifier = importSpecifier(line)
      if (specifier === undefined || !specifier.startsWith(".")) continue
      const found = yield* readModule(file, specifier)
      if (found !== undefined) related.set(found[0], found[1])
      if (related.size >= 8) break
    }
    return related
  })

// The codes whose message quotes, first, a module the file imports (TypeScript quotes it as '"./lib"').
const importCodes = new Set(["TS2305", "TS2459", "TS2460", "TS2614", "TS2724", "TS1192", "TS2306"])

/** For an import problem: the module imported, read (when relative), or the directory a missing one points into. */
const importContext = (problem: ProblemInput, lines: ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    const related = new Map<string, ReadonlyArray<string>>()
    const code = problem.code.toUpperCase()
    const quoted = unquote(quotedNames(problem.message)[0] ?? "")
    // Some messages name the module by its absolute path (TS1192, TS2306): the import line says how it is written.
    const specifier =
      quoted.startsWith("/") || /^[A-Za-z]:[\\/]/.test(quoted)
        ? (importSpecifier(lines?.[problem.line - 1] ?? "") ?? "")
        : quoted
    if (problem.kind !== "type" || !specifier.startsWith(".")) return { related, neighbours: undefined }
    if (importCodes.has(code)) {
      const found = yield* readModule(problem.file, specifier)
      if (found !== undefined) related.set(found[0], found[1])
      return { related, neighbours: undefined }
    }
    if (code !== "TS2307") return { related, neighbours: undefined }
    const target = targetOf(problem.file, specifier)
    if (target === undefined) return { related, neighbours: undefined }
    const directory = directoryOf(target)
    const workspace = yield* Workspace
    const listed = yield* workspace.list(directory, { limit: 1000 }).pipe(Effect.option)
    const neighbours: Neighbours = {
      directory,
      names: listed._tag === "Some" ? listed.value.entries.map((entry) => entry.name) : undefined
    }
    return { related, neighbours }
  })

/**
 * Diagnoses one problem: reads its file (and, for a failing test, the
 * modules the test imports) through the Workspace, then applies the rule.
 *
 * **Example**
 *
 * ```ts
 * import { diagnose } from "./capabilities/fe/diagnosis/diagnose.ts"
 *
 * const one = diagnose(
 *   { source: "typescript", kind: "type", file: "src/a.ts", line: 1, column: 7, code: "TS2304", message: "Cannot find name 'useState'.", severity: "error" },
 *   undefined
 * ) // Effect<Diagnosis, never, Workspace>
 * ```
 *
 * @category diagnosis
 * @since 0.1.0
 */
export const diagnose = (
  problem: ProblemInput,
  project: ProjectInfo | undefined
): Effect.Effect<Diagnosis, never, Workspace> =>
  Effect.gen(function* () {
    const lines = yield* readLines(problem.file)
    if (problem.kind === "test") {
      return diagnosisOf(problem, lines, { related: yield* importedModules(problem.file, lines), project })
    }
    const { neighbours, related } = yield* importContext(problem, lines)
    return diagnosisOf(problem, lines, { related, project, neighbours })
  })

// `src/a.ts:3:5 - error TS2322: …` (tsc --pretty)
const tscPretty = /^(.+?):(\d+):(\d+) - (error|warning) (TS\d+): (.*)$/
// ESLint's stylish formatter: a file line, then `  9:7  error  message  rule-id`.
const stylishEntry = /^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)\s{2,}(\S+)\s*$/
const ansi = new RegExp(String.raw`\u001b\[[0-9;]*m`, "g")

/**
 * The problems in text pasted from a tool: `tsc` output (plain or
 * `--pretty`) and ESLint's default (stylish) output. Paths are made relative
 * to `root` when they are under it.
 *
 * **Example**
 *
 * ```ts
 * import { problemsInText } from "./capabilities/fe/diagnosis/diagnose.ts"
 *
 * problemsInText("src/a.ts:3:5 - error TS2322: Type 'number' is not assignable to type 'string'.", "/srv/app")[0]?.line
 * // => 3
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const problemsInText = (text: string, root: string): Array<ProblemInput> => {
  const clean = text.replace(ansi, "")
  const found: Array<ProblemInput> = [...parseTsc(clean, [root])]
  let file: string | undefined
  for (const raw of clean.split(/\r?\n/)) {
    const pretty = tscPretty.exec(raw.trim())
    if (pretty !== null) {
      found.push({
        source: "typescript",
        kind: "type",
        file: relativePath(pretty[1]!, [root]),
        line: Number(pretty[2]),
        column: Number(pretty[3]),
        code: pretty[5]!,
        message: pretty[6]!,
        severity: pretty[4] === "warning" ? "warning" : "error"
      })
      continue
    }
    const entry = stylishEntry.exec(raw)
    if (entry !== null && file !== undefined) {
      found.push({
        source: "eslint",
        kind: "lint",
        file: relativePath(file, [root]),
        line: Number(entry[1]),
        column: Number(entry[2]),
        code: entry[5]!,
        message: entry[4]!,
        severity: entry[3] === "warning" ? "warning" : "error"
      })
      continue
    }
    const trimmed = raw.trim()
    if (
      trimmed !== "" &&
      !raw.startsWith(" ") &&
      !trimmed.includes(" ") &&
      /\.[cm]?[jt]sx?$|\.vue$|\.svelte$/.test(trimmed)
    ) {
      file = trimmed
    } else if (trimmed === "") {
      file = undefined
    }
  }
  return found
}
