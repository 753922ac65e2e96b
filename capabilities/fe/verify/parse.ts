/**
 * Parsers for what the typecheck, the linters and the test runners print:
 * `tsc --pretty false` lines, ESLint's JSON formatter, Biome's JSON reporter,
 * and the JSON reports of Vitest and Jest (the same shape). Each returns
 * problems in one shape (`ProblemInput`), paths relative to the root.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as NodePath from "node:path"
import type { ProblemInput, ProblemSource } from "../problem.ts"

/**
 * A path as the problems give it: relative to the root and `/`-separated
 * when it is under the root, else as the tool printed it.
 *
 * **Example**
 *
 * ```ts
 * import { relativePath } from "./capabilities/fe/verify/parse.ts"
 *
 * relativePath("/srv/app/src/a.ts", ["/srv/app"]) // => "src/a.ts"
 * relativePath("src\\a.ts", ["/srv/app"]) // => "src/a.ts"
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const relativePath = (file: string, roots: ReadonlyArray<string>): string => {
  const slashed = file.replaceAll("\\", "/")
  if (!NodePath.isAbsolute(slashed)) return NodePath.posix.normalize(slashed).replace(/^\.\//, "")
  for (const root of roots) {
    const relative = NodePath.relative(root, slashed)
    if (relative !== ".." && !relative.startsWith(`..${NodePath.sep}`) && !NodePath.isAbsolute(relative)) {
      return relative.split(NodePath.sep).join("/")
    }
  }
  return slashed
}

// `src/App.tsx(12,7): error TS2322: Type 'number' is not assignable to type 'string'.`
// and the global form `error TS18003: No inputs were found in config file 'tsconfig.json'.`
const tscLine = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/
const tscGlobal = /^(error|warning|message) (TS\d+): (.*)$/

/**
 * The diagnostics of `tsc --noEmit --pretty false`: one per line that
 * starts a diagnostic, with the indented lines that follow it (the rest of a
 * message chain) joined to its message.
 *
 * **Example**
 *
 * ```ts
 * import { parseTsc } from "./capabilities/fe/verify/parse.ts"
 *
 * parseTsc("src/a.ts(3,5): error TS2322: Type 'number' is not assignable to type 'string'.\n", ["/srv/app"])[0]?.code
 * // => "TS2322"
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseTsc = (output: string, roots: ReadonlyArray<string>): Array<ProblemInput> => {
  const problems: Array<ProblemInput> = []
  let current: { -readonly [K in keyof ProblemInput]: ProblemInput[K] } | undefined
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.trimEnd()
    const located = tscLine.exec(line)
    const global = located === null ? tscGlobal.exec(line) : null
    if (located !== null) {
      current = {
        source: "typescript",
        kind: "type",
        file: relativePath(located[1]!, roots),
        line: Number(located[2]),
        column: Number(located[3]),
        code: located[5]!,
        message: located[6]!,
        severity: located[4] === "error" ? "error" : "warning"
      }
      problems.push(current)
    } else if (global !== null) {
      current = {
        source: "typescript",
        kind: "type",
        file: "",
        line: 0,
        column: 0,
        code: global[2]!,
        message: global[3]!,
        severity: global[1] === "error" ? "error" : "warning"
      }
      problems.push(current)
    } else if (current !== undefined && /^\s/.test(raw) && line.trim() !== "") {
      current.message += "\n" + line.trim()
      problems[problems.length - 1] = current
    } else {
      current = undefined
    }
  }
  return problems
}

/**
 * Finds the JSON document in a tool's standard output: the whole output when
 * it parses, else from the first line that opens an object or an array (a
 * tool or a config may print a banner first). `undefined` when there is none.
 *
 * **Example**
 *
 * ```ts
 * import { findJson } from "./capabilities/fe/verify/parse.ts"
 *
 * findJson('Browserslist: caniuse-lite is outdated\n[{"filePath":"/a.js","messages":[]}]') // => [{ filePath: "/a.js", messages: [] }]
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const findJson = (output: string): unknown => {
  const attempt = (text: string): unknown => {
    try {
      return JSON.parse(text)
    } catch {
      return undefined
    }
  }
  const whole = attempt(output)
  if (whole !== undefined) return whole
  const lines = output.split("\n")
  // A few candidate starts at most: a pretty-printed report has many lines that open an object.
  let attempts = 0
  for (let i = 0; i < lines.length && attempts < 5; i++) {
    const first = lines[i]!.trimStart()[0]
    if (first === "{" || first === "[") {
      attempts++
      const parsed = attempt(lines.slice(i).join("\n"))
      if (parsed !== undefined) return parsed
      // A report on one line followed by other output.
      const single = attempt(lines[i]!)
      if (single !== undefined) return single
    }
  }
  return undefined
}

const int = (value: unknown, fallback = 0): number =>
  typeof value === "number" && Number.isInteger(value) ? value : fallback

/**
 * The problems in ESLint's JSON formatter output (`eslint --format json`):
 * one per message, the rule id as the code (`parse-error` for a fatal
 * parsing error), severity 2 as error and 1 as warning. `undefined` when the
 * output is not such a report.
 *
 * **Example**
 *
 * ```ts
 * import { parseEslintJson } from "./capabilities/fe/verify/parse.ts"
 *
 * const report = [{ filePath: "/srv/app/src/a.ts", messages: [{ ruleId: "prefer-const", severity: 2, message: "'x' is never reassigned. Use 'const' instead.", line: 1, column: 5 }] }]
 * parseEslintJson(JSON.stringify(report), ["/srv/app"])?.[0]?.file // => "src/a.ts"
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseEslintJson = (output: string, roots: ReadonlyArray<string>): Array<ProblemInput> | undefined => {
  const report = findJson(output)
  if (!Array.isArray(report)) return undefined
  const problems: Array<ProblemInput> = []
  for (const result of report) {
    if (!Predicate.isObject(result) || typeof result.filePath !== "string" || !Array.isArray(result.messages))
      return undefined
    const file = relativePath(result.filePath, roots)
    for (const message of result.messages) {
      if (!Predicate.isObject(message)) continue
      const code =
        typeof message.ruleId === "string" ? message.ruleId : message.fatal === true ? "parse-error" : "eslint"
      problems.push({
        source: "eslint",
        kind: "lint",
        file,
        line: int(message.line),
        column: int(message.column),
        ...(typeof message.endLine === "number" ? { endLine: int(message.endLine) } : {}),
        ...(typeof message.endColumn === "number" ? { endColumn: int(message.endColumn) } : {}),
        code,
        message: typeof message.message === "string" ? message.message : String(message.message),
        severity: message.severity === 1 ? "warning" : "error"
      })
    }
  }
  return problems
}

/**
 * Line and column (1-based) of a UTF-16 offset in a text.
 *
 * **Example**
 *
 * ```ts
 * import { lineColumnAt } from "./capabilities/fe/verify/parse.ts"
 *
 * lineColumnAt("ab\ncd", 4) // => { line: 2, column: 2 }
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const lineColumnAt = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  let line = 1
  let start = 0
  const end = Math.min(Math.max(offset, 0), text.length)
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      start = i + 1
    }
  }
  return { line, column: end - start + 1 }
}

const utf8 = new TextEncoder()

// Biome's spans are byte offsets into the file's UTF-8 text.
const byteToCharOffset = (text: string, byteOffset: number): number => {
  if (utf8.encode(text).length === text.length) return byteOffset
  let bytes = 0
  let i = 0
  while (i < text.length && bytes < byteOffset) {
    const code = text.codePointAt(i)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
    i += code >= 0x10000 ? 2 : 1
  }
  return i
}

const biomeMessage = (value: unknown): string => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.map(biomeMessage).join("")
  if (Predicate.isObject(value) && typeof value.content === "string") return value.content
  return ""
}

/**
 * The problems in Biome's JSON reporter output (`biome lint --reporter=json`,
 * `biome check --reporter=json`): one per error or warning diagnostic, its
 * category (`lint/suspicious/noExplicitAny`) as the code, its location as
 * Biome 2 gives it (start line and column), or as Biome 1 did (a byte span,
 * turned into a line and a column with the file's text, which `sourceOf`
 * gives). `undefined` when the output is not such a report.
 *
 * **Example**
 *
 * ```ts
 * import { parseBiomeJson } from "./capabilities/fe/verify/parse.ts"
 *
 * const report = { diagnostics: [{ category: "lint/suspicious/noExplicitAny", severity: "warning", message: "Unexpected any. Specify a different type.", location: { path: "src/cart.ts", start: { line: 11, column: 38 }, end: { line: 11, column: 41 } } }] }
 * parseBiomeJson(JSON.stringify(report), ["/srv/app"], () => undefined)?.[0]?.line // => 11
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseBiomeJson = (
  output: string,
  roots: ReadonlyArray<string>,
  sourceOf: (file: string) => string | undefined
): Array<ProblemInput> | undefined => {
  const report = findJson(output)
  if (!Predicate.isObject(report) || !Array.isArray(report.diagnostics)) return undefined
  const problems: Array<ProblemInput> = []
  for (const diagnostic of report.diagnostics) {
    if (!Predicate.isObject(diagnostic)) continue
    const location = Predicate.isObject(diagnostic.location) ? diagnostic.location : {}
    const pathValue = Predicate.isObject(location.path) ? location.path.file : location.path
    const file = typeof pathValue === "string" ? relativePath(pathValue, roots) : ""
    let line = 0
    let column = 0
    let end: { readonly line: number; readonly column: number } | undefined
    if (Predicate.isObject(location.start)) {
      // Biome 2: { start: { line, column }, end: { line, column } }, 1-based.
      line = int(location.start.line)
      column = int(location.start.column)
      if (Predicate.isObject(location.end)) end = { line: int(location.end.line), column: int(location.end.column) }
    } else if (Array.isArray(location.span)) {
      // Biome 1: a span of UTF-8 byte offsets, turned into lines and columns with the file's text.
      const span = location.span
      const source = file === "" ? undefined : sourceOf(file)
      if (source !== undefined) {
        ;({ line, column } = lineColumnAt(source, byteToCharOffset(source, int(span[0]))))
        end = lineColumnAt(source, byteToCharOffset(source, int(span[1], int(span[0]))))
      }
    }
    const severity = diagnostic.severity
    // Information and hints (a deprecated configuration field, say) are not problems of the code.
    if (severity === "information" || severity === "info" || severity === "hint") continue
    problems.push({
      source: "biome",
      kind: "lint",
      file,
      line,
      column,
      ...(end !== undefined ? { endLine: end.line, endColumn: end.column } : {}),
      code: typeof diagnostic.category === "string" ? diagnostic.category : "biome",
      message:
        typeof diagnostic.description === "string" && diagnostic.description !== ""
          ? diagnostic.description
          : biomeMessage(diagnostic.message),
      severity: severity === "warning" ? "warning" : "error"
    })
  }
  return problems
}

/**
 * A test report's counts.
 *
 * @category models
 * @since 0.1.0
 */
export interface TestCounts {
  readonly total: number
  readonly passed: number
  readonly failed: number
  readonly skipped: number
}

// ANSI colour sequences, which some runners leave in failure messages.
const ansi = new RegExp(String.raw`\u001b\[[0-9;]*m`, "g")
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The first stack frame in `file` (absolute): its line and column. */
const frameIn = (stack: string, absolute: string): { line: number; column: number } | undefined => {
  const match = new RegExp(`${escapeRegExp(absolute)}:(\\d+):(\\d+)`).exec(stack)
  return match === null ? undefined : { line: Number(match[1]), column: Number(match[2]) }
}

/** The first line of a failure message that is not empty, and the message without its stack. */
const messageOf = (failure: string): string => {
  const lines = failure.replace(ansi, "").split("\n")
  const kept: Array<string> = []
  for (const line of lines) {
    if (/^\s+at /.test(line)) break
    kept.push(line)
  }
  return kept.join("\n").trim()
}

// Jest prints "Expected: 4" and "Received: 3" lines.
// Vitest's (chai's) say "expected -1 to be 5 // Object.is equality" on their first line.
const chaiComparison =
  /^(?:AssertionError: )?expected (.+) to (?:be|equal|deeply equal|strictly equal) (.+?)(?: \/\/ .*)?$/m

const expectedActual = (message: string): { expected?: string; actual?: string } => {
  let expected = /^\s*Expected(?: value)?:\s+(.*)$/m.exec(message)?.[1]
  let actual = /^\s*Received(?: value)?:\s+(.*)$/m.exec(message)?.[1]
  if (expected === undefined && actual === undefined) {
    const chai = chaiComparison.exec(message)
    if (chai !== null) {
      actual = chai[1]
      expected = chai[2]
    }
  }
  return { ...(expected !== undefined ? { expected } : {}), ...(actual !== undefined ? { actual } : {}) }
}

/**
 * The failing tests in a Vitest (`--reporter=json`) or Jest (`--json`)
 * report — the same shape — as problems: the test's file, the line of the
 * failing assertion (from the stack, else the test's location), the code
 * `test-failure` (`test-file-failure` when a whole file failed to run, e.g.
 * an import error), the assertion message, and the test's full name. With
 * the counts. `undefined` when the output is not such a report.
 *
 * **Example**
 *
 * ```ts
 * import { parseTestJson } from "./capabilities/fe/verify/parse.ts"
 *
 * const report = { numTotalTests: 1, numPassedTests: 0, numFailedTests: 1, numPendingTests: 0, testResults: [{ name: "/srv/app/src/sum.test.ts", status: "failed", message: "", assertionResults: [{ fullName: "sum adds", title: "adds", ancestorTitles: ["sum"], status: "failed", failureMessages: ["AssertionError: expected 3 to be 4 // Object.is equality\n    at /srv/app/src/sum.test.ts:5:17"] }] }] }
 * parseTestJson(JSON.stringify(report), ["/srv/app"], "vitest")?.problems[0]?.line // => 5
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseTestJson = (
  output: string,
  roots: ReadonlyArray<string>,
  source: Extract<ProblemSource, "vitest" | "jest">
): { readonly problems: Array<ProblemInput>; readonly counts: TestCounts } | undefined => {
  const report = findJson(output)
  if (!Predicate.isObject(report) || !Array.isArray(report.testResults)) return undefined
  const problems: Array<ProblemInput> = []
  for (const result of report.testResults) {
    if (!Predicate.isObject(result)) continue
    const absolute = typeof result.name === "string" ? result.name : ""
    const file = relativePath(absolute, roots)
    const assertions = Array.isArray(result.assertionResults) ? result.assertionResults : []
    const failedAssertions = assertions.filter((a) => Predicate.isObject(a) && a.status === "failed")
    for (const assertion of failedAssertions) {
      if (!Predicate.isObject(assertion)) continue
      const failures = Array.isArray(assertion.failureMessages)
        ? assertion.failureMessages.filter((m): m is string => typeof m === "string")
        : []
      const first = failures[0] ?? ""
      const location = Predicate.isObject(assertion.location) ? assertion.location : undefined
      const frame = frameIn(first.replace(ansi, ""), absolute)
      const message = messageOf(first) || "The test failed without a message."
      const titles = Array.isArray(assertion.ancestorTitles)
        ? assertion.ancestorTitles.filter((t): t is string => typeof t === "string")
        : []
      const title = typeof assertion.title === "string" ? assertion.title : ""
      const name = [...titles, title].filter((part) => part !== "").join(" > ")
      problems.push({
        source,
        kind: "test",
        file,
        line: frame?.line ?? int(location?.line),
        column: frame?.column ?? int(location?.column),
        code: "test-failure",
        message,
        severity: "error",
        test: {
          name: name === "" && typeof assertion.fullName === "string" ? assertion.fullName : name,
          ...expectedActual(message)
        }
      })
    }
    // A file that failed as a whole (a syntax or import error, a failing hook) has a message and no failed test.
    const fileMessage = typeof result.message === "string" ? result.message.replace(ansi, "").trim() : ""
    if (result.status === "failed" && failedAssertions.length === 0 && fileMessage !== "") {
      const frame = frameIn(fileMessage, absolute)
      problems.push({
        source,
        kind: "test",
        file,
        line: frame?.line ?? 0,
        column: frame?.column ?? 0,
        code: "test-file-failure",
        message: messageOf(fileMessage),
        severity: "error",
        test: { name: `${file} (the whole file)` }
      })
    }
  }
  const counts: TestCounts = {
    total: int(report.numTotalTests),
    passed: int(report.numPassedTests),
    failed: int(report.numFailedTests),
    skipped: int(report.numPendingTests) + int(report.numTodoTests)
  }
  return { problems, counts }
}
