/**
 * `SKILL.md` frontmatter: the YAML block between the `---` lines at the top
 * of the file, parsed with the `yaml` package's defaults (YAML 1.2, core
 * schema: what the conformance suite and most clients use, so `version: 1.0`
 * is the number 1 on both sides), and checked against the Agent Skills
 * rules. Every way a skill can be unservable is a {@link SkillProblem} with
 * a code, a message that says what to fix, and a line and column when the
 * YAML itself is broken.
 *
 * @since 0.2.0
 */
import * as Result from "effect/Result"
import type { parseDocument } from "yaml"

/**
 * The YAML parser (the `yaml` package's `parseDocument`). The package is
 * loaded when the skills capability is built, not when the binary starts.
 *
 * **Example**
 *
 * ```ts
 * import type { ParseYaml } from "./capabilities/skills/frontmatter.ts"
 *
 * const load = (): Promise<ParseYaml> => import("yaml").then((yaml) => yaml.parseDocument)
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type ParseYaml = typeof parseDocument

/**
 * Why a skill is not served.
 *
 * **Example**
 *
 * ```ts
 * import type { ProblemCode } from "./capabilities/skills/frontmatter.ts"
 *
 * const code: ProblemCode = "name_mismatch"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type ProblemCode =
  | "no_skill_md"
  | "no_frontmatter"
  | "invalid_yaml"
  | "frontmatter_not_mapping"
  | "missing_field"
  | "invalid_name"
  | "name_mismatch"
  | "reserved_metadata"
  | "not_json"
  | "too_many_files"
  | "too_large"
  | "refused"
  | "unreadable"

/**
 * What is wrong with a skill: a code, a message naming the problem and how
 * to fix it, and where (`path` within the skill; `line` and `column`,
 * 1-based, in `SKILL.md` for broken YAML).
 *
 * **Example**
 *
 * ```ts
 * import type { SkillProblem } from "./capabilities/skills/frontmatter.ts"
 *
 * const problem: SkillProblem = {
 *   code: "invalid_yaml",
 *   message: "The frontmatter of SKILL.md is not valid YAML (line 3, column 7): ...",
 *   path: "SKILL.md",
 *   line: 3,
 *   column: 7
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillProblem {
  readonly code: ProblemCode
  readonly message: string
  readonly path?: string | undefined
  readonly line?: number | undefined
  readonly column?: number | undefined
}

/**
 * A skill's frontmatter as JSON: at least `name` and `description`, and
 * whatever else the file has, verbatim.
 *
 * **Example**
 *
 * ```ts
 * import type { Frontmatter } from "./capabilities/skills/frontmatter.ts"
 *
 * const frontmatter: Frontmatter = { name: "pdf-processing", description: "Extract text from PDFs", license: "MIT" }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Frontmatter {
  readonly name: string
  readonly description: string
  readonly [key: string]: unknown
}

/**
 * The Agent Skills naming rule: 1 to 64 characters, lowercase letters,
 * digits and hyphens, no hyphen first, last or twice in a row.
 *
 * **Example**
 *
 * ```ts
 * import { namePattern } from "./capabilities/skills/frontmatter.ts"
 *
 * namePattern.test("pdf-processing") // => true
 * namePattern.test("PDF--tools") // => false
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const namePattern = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/

/**
 * The frontmatter `metadata` key prefix the Skills extension reserves.
 *
 * **Example**
 *
 * ```ts
 * import { reservedMetadataPrefix } from "./capabilities/skills/frontmatter.ts"
 *
 * "io.modelcontextprotocol/trust".startsWith(reservedMetadataPrefix) // => true
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const reservedMetadataPrefix = "io.modelcontextprotocol/"

// The frontmatter block, as the conformance suite finds it: `---`, the YAML, `---` on a line of its own.
const block = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

const quoteHint = 'Quote a value that contains ": " or " #", or that starts with one of [ { * & ! | > % @ ` \' ".'

const problem = (code: ProblemCode, message: string, extra: Partial<SkillProblem> = {}): SkillProblem => ({
  code,
  message,
  path: "SKILL.md",
  ...extra
})

const kindOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "a mapping" : typeof value

// The first key path holding a value JSON cannot carry (.inf, .nan), if any.
const nonJson = (value: unknown, at: string): string | undefined => {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : at
  if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") return at
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = nonJson(value[index], `${at}[${index}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const found = nonJson(inner, at === "" ? key : `${at}.${key}`)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/**
 * Parses and checks the frontmatter of a `SKILL.md` whose skill lives in the
 * directory `directoryName`: the block must be there, be valid YAML, be a
 * mapping with non-empty string `name` and `description`, the name must
 * follow {@link namePattern} and equal the directory's name, and no
 * `metadata` key may start with {@link reservedMetadataPrefix}.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import { parseDocument } from "yaml"
 * import { parseFrontmatter } from "./capabilities/skills/frontmatter.ts"
 *
 * const parsed = parseFrontmatter("---\nname: notes\ndescription: Take notes\n---\n# Notes\n", "notes", parseDocument)
 * Result.isSuccess(parsed) // => true
 * const broken = parseFrontmatter("---\nname: [notes\n---\n", "notes", parseDocument)
 * Result.isFailure(broken) // => true (invalid_yaml, with its line and column)
 * ```
 *
 * @category parsing
 * @since 0.2.0
 */
export const parseFrontmatter = (
  text: string,
  directoryName: string,
  parseDocument: ParseYaml
): Result.Result<Frontmatter, SkillProblem> => {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text
  const found = block.exec(source)
  if (found === null) {
    return Result.fail(
      problem(
        "no_frontmatter",
        /^---\r?\n/.test(source)
          ? "SKILL.md starts a YAML frontmatter block with --- but never closes it: put --- on a line of its own " +
              "after the YAML."
          : "SKILL.md does not begin with YAML frontmatter: its first line must be ---, then the YAML (name: and " +
              "description: at least), then --- on a line of its own.",
        { line: 1, column: 1 }
      )
    )
  }
  const document = parseDocument(found[1]!)
  const error = document.errors[0]
  if (error !== undefined) {
    // The YAML starts on the file's second line.
    const at = error.linePos?.[0]
    const line = at === undefined ? undefined : at.line + 1
    const column = at?.col
    const reason = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")
    return Result.fail(
      problem(
        "invalid_yaml",
        `The frontmatter of SKILL.md is not valid YAML` +
          (line === undefined ? "" : ` (line ${line}, column ${column})`) +
          `: ${reason}. ${error.code === "DUPLICATE_KEY" ? "Keep one of the repeated keys." : quoteHint}`,
        { line, column }
      )
    )
  }
  const converted = Result.try({ try: () => document.toJS() as unknown, catch: (cause) => cause })
  if (Result.isFailure(converted)) {
    const cause = converted.failure
    return Result.fail(
      problem(
        "invalid_yaml",
        `The frontmatter of SKILL.md cannot be read: ${cause instanceof Error ? cause.message : String(cause)}.`
      )
    )
  }
  const value = converted.success
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Result.fail(
      problem(
        "frontmatter_not_mapping",
        `The frontmatter of SKILL.md is ${kindOf(value)}, not a mapping: write it as key: value lines ` +
          `(name: and description: at least).`,
        { line: 2, column: 1 }
      )
    )
  }
  const fields = value as Record<string, unknown>
  for (const field of ["name", "description"] as const) {
    const given = fields[field]
    if (typeof given !== "string" || given.trim() === "") {
      return Result.fail(
        problem(
          "missing_field",
          given === undefined
            ? `The frontmatter of SKILL.md has no ${field}: add a ${field}: line.`
            : `The ${field} in the frontmatter of SKILL.md is ${typeof given === "string" ? "empty" : kindOf(given)}` +
                `, not a non-empty string: write it as text (in quotes if it looks like a number or a list).`
        )
      )
    }
  }
  const name = fields.name as string
  if (!namePattern.test(name)) {
    return Result.fail(
      problem(
        "invalid_name",
        `The skill name ${JSON.stringify(name)} breaks the Agent Skills naming rule: 1 to 64 lowercase letters, ` +
          `digits and hyphens, with no hyphen first, last or twice in a row (e.g. pdf-processing).`
      )
    )
  }
  if (name !== directoryName) {
    return Result.fail(
      problem(
        "name_mismatch",
        `The skill name ${JSON.stringify(name)} differs from its directory's name ${JSON.stringify(directoryName)}: ` +
          `rename one so that they are equal (the skill's URI is skill://<directory name>/SKILL.md).`
      )
    )
  }
  const metadata = fields.metadata
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
    const reserved = Object.keys(metadata).filter((key) => key.startsWith(reservedMetadataPrefix))
    if (reserved.length > 0) {
      return Result.fail(
        problem(
          "reserved_metadata",
          `The frontmatter's metadata uses the reserved prefix ${reservedMetadataPrefix} (${reserved.join(", ")}): ` +
            `MCP keeps those keys for its extensions; use a prefix of your own.`
        )
      )
    }
  }
  const unrepresentable = nonJson(fields, "")
  if (unrepresentable !== undefined) {
    return Result.fail(
      problem(
        "not_json",
        `The frontmatter value at ${unrepresentable} is not a finite number (.inf or .nan), which JSON cannot ` +
          `carry: quote it to make it text.`
      )
    )
  }
  return Result.succeed(fields as Frontmatter)
}
