/**
 * The small language of the `request` tool: a request is a list of calls of
 * published tools (`workspace_read(path="a.ts")`), grouped in pipelines. The
 * pipelines of a request (separated by `;`) run in parallel; the steps of one
 * pipeline (separated by `|`) run in order, and a later step can use `$prev`,
 * the previous step's output (`workspace_list(path="src") | workspace_read(path=$prev.entries[0].path)`).
 *
 * This module is the pure front half of the tool: {@link parse} reads the
 * text form, {@link fromJson} the JSON form (`{"ops": [...], "mode": "chain"}`),
 * both into the same {@link Program}; {@link resolve} and {@link resolveArgs}
 * put a previous step's output in place of the `$prev` references, and
 * {@link format} prints an op back. Every failure is a value (a `Result`),
 * with a message written for the agent that sent the request: what was
 * expected, what was found, where (`line:column` and the line with a caret
 * under the spot). The grammar is in `docs/request.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const program = RequestDsl.parse(`workspace_list(path="src") | workspace_read(path=$prev.entries[0].path); system_time()`)
 * if (Result.isSuccess(program)) {
 *   program.success.pipelines // [[0, 1], [2]]
 * }
 * ```
 *
 * @since 0.4.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { editDistance } from "./internal/editDistance.ts"

// ---------------------------------------------------------------------------
// models
// ---------------------------------------------------------------------------

/**
 * A place in the request text: `offset` is the 0-based index (in UTF-16 code
 * units), `line` and `column` are 1-based (only a line feed starts a new
 * line; a column counts UTF-16 code units).
 *
 * **Example**
 *
 * ```ts
 * import type { Position } from "effect-mcp-runtime/RequestDsl"
 *
 * const start: Position = { offset: 0, line: 1, column: 1 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Position {
  readonly offset: number
  readonly line: number
  readonly column: number
}

/**
 * An argument's value: a literal (string, number, boolean, `null`), a list,
 * a record (its entries in source order) or a reference to the previous
 * step's output (`$prev`, with a path of field names and indices, `text`
 * as written, and where it was written: `undefined` in the JSON form).
 *
 * **Example**
 *
 * ```ts
 * import type { Value } from "effect-mcp-runtime/RequestDsl"
 *
 * const value: Value = {
 *   _tag: "List",
 *   items: [
 *     { _tag: "Literal", value: "a.txt" },
 *     { _tag: "Prev", path: ["files", 0, "path"], text: "$prev.files[0].path", position: undefined }
 *   ]
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Value =
  | { readonly _tag: "Literal"; readonly value: null | boolean | number | string }
  | { readonly _tag: "List"; readonly items: ReadonlyArray<Value> }
  | { readonly _tag: "Record"; readonly entries: ReadonlyArray<readonly [string, Value]> }
  | {
      readonly _tag: "Prev"
      readonly path: ReadonlyArray<string | number>
      readonly text: string
      readonly position: Position | undefined
    }

/**
 * One call of a request: its place (`index` in the whole request, in source
 * order; its `pipeline` and its `step` in that pipeline, all 0-based), the
 * verb (a published tool's public name), its arguments in source order, and
 * where it came from: `position` of the verb in the text form, `path`
 * (`"ops[2]"`) in the JSON form.
 *
 * **Example**
 *
 * ```ts
 * import type { Op } from "effect-mcp-runtime/RequestDsl"
 *
 * const op: Op = {
 *   index: 0,
 *   pipeline: 0,
 *   step: 0,
 *   verb: "workspace_read",
 *   args: [["path", { _tag: "Literal", value: "a.ts" }]],
 *   position: { offset: 0, line: 1, column: 1 },
 *   path: undefined
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Op {
  readonly index: number
  readonly pipeline: number
  readonly step: number
  readonly verb: string
  readonly args: ReadonlyArray<readonly [string, Value]>
  readonly position: Position | undefined
  readonly path: string | undefined
}

/**
 * A parsed request: every op in source order, and the ops of each pipeline
 * (their indices, in order). Pipelines run in parallel, the ops of one
 * pipeline in order.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const program = Result.getOrThrow(RequestDsl.parse("a() | b(x=$prev); c()"))
 * program.pipelines // [[0, 1], [2]]
 * program.ops.map((op) => op.verb) // ["a", "b", "c"]
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Program {
  readonly ops: ReadonlyArray<Op>
  readonly pipelines: ReadonlyArray<ReadonlyArray<number>>
}

/**
 * The caps on one request: how many ops it may hold (`maxOps`) and how deep
 * its arrays and objects may nest (`maxDepth`, counted from an argument's
 * value: `x=[1]` has depth 1, `x=[[1]]` depth 2).
 *
 * **Example**
 *
 * ```ts
 * import type { Limits } from "effect-mcp-runtime/RequestDsl"
 *
 * const strict: Limits = { maxOps: 8, maxDepth: 4 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Limits {
  readonly maxOps: number
  readonly maxDepth: number
}

/**
 * The default caps: 64 ops per request, values nested 32 deep (the server's
 * `request.maxOps` and `request.maxDepth`).
 *
 * **Example**
 *
 * ```ts
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * RequestDsl.defaultLimits.maxOps // 64
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const defaultLimits: Limits = { maxOps: 64, maxDepth: 32 }

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

/**
 * Why a request was refused:
 *
 * - `empty`: no op at all (an empty or blank text, an empty `ops` array);
 * - `unexpected_character`: a character that has no place outside a string
 *   (a control character, `@`, `#`, a non-ASCII letter, …) or a raw control
 *   character other than tab, line feed and carriage return inside one;
 * - `unexpected_token`: something valid in the wrong place (a missing `=`,
 *   two separators in a row, an unquoted word as a value, …);
 * - `unexpected_end`: the text ends before the request does (a missing `)`);
 * - `unterminated_string`, `invalid_escape`, `invalid_number`: a bad literal;
 * - `invalid_reference`: a malformed `$prev` reference, or `$` followed by
 *   anything but `prev`;
 * - `duplicate_argument`, `duplicate_key`: a name given twice in one call or
 *   one object;
 * - `too_many_ops`, `too_deep`: over the {@link Limits};
 * - `prev_in_first_step`: `$prev` in the first step of a pipeline;
 * - `invalid_json_form`: a JSON form that is not `{ ops: [{ verb, args }], mode }`.
 *
 * **Example**
 *
 * ```ts
 * import type { Reason } from "effect-mcp-runtime/RequestDsl"
 *
 * const reason: Reason = "prev_in_first_step"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Reason =
  | "empty"
  | "unexpected_character"
  | "unexpected_token"
  | "unexpected_end"
  | "unterminated_string"
  | "invalid_escape"
  | "invalid_number"
  | "invalid_reference"
  | "duplicate_argument"
  | "duplicate_key"
  | "too_many_ops"
  | "too_deep"
  | "prev_in_first_step"
  | "invalid_json_form"

/**
 * A request that cannot be run as written. `message` says what was expected
 * and what was found; for the text form it gives `line:column` and the line
 * with a caret under `position`, for the JSON form it names `path`
 * (`ops[2].args.path`).
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const result = RequestDsl.parse(`workspace_read(path="src/a.ts, length=200)`)
 * if (Result.isFailure(result)) {
 *   result.failure.reason // "unterminated_string"
 *   result.failure.message
 *   // Invalid request at 1:21: unterminated string (it starts here and is never closed).
 *   //   workspace_read(path="src/a.ts, length=200)
 *   //                       ^
 * }
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class RequestDslError extends Data.TaggedError("RequestDslError")<{
  readonly message: string
  readonly position: Position | undefined
  readonly path: string | undefined
  readonly reason: Reason
}> {}

/**
 * A `$prev` reference whose path does not exist in the previous step's
 * output. `reference` is the reference as written; `available` lists the
 * fields that do exist where the path broke off (sorted; empty when that
 * value is an array or has no fields), and `message` says it all in one line.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const ref: RequestDsl.Value = { _tag: "Prev", path: ["nme"], text: "$prev.nme", position: undefined }
 * const result = RequestDsl.resolve(ref, { name: "a", size: 1 })
 * if (Result.isFailure(result)) {
 *   result.failure.message
 *   // $prev.nme: the previous step's output has no field "nme" at $prev; it has: name, size
 * }
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class MissingField extends Data.TaggedError("MissingField")<{
  readonly message: string
  readonly reference: string
  readonly available: ReadonlyArray<string>
}> {}

// ---------------------------------------------------------------------------
// characters
// ---------------------------------------------------------------------------

const TAB = 9
const LF = 10
const CR = 13
const SPACE = 32
const DQUOTE = 34
const DOLLAR = 36
const SQUOTE = 39
const LPAREN = 40
const RPAREN = 41
const PLUS = 43
const COMMA = 44
const MINUS = 45
const DOT = 46
const ZERO = 48
const NINE = 57
const COLON = 58
const SEMI = 59
const EQUALS = 61
const LBRACKET = 91
const BACKSLASH = 92
const RBRACKET = 93
const UNDERSCORE = 95
const LBRACE = 123
const PIPE = 124
const RBRACE = 125

const isWhitespace = (c: number): boolean => c === SPACE || c === TAB || c === LF || c === CR
const isDigit = (c: number): boolean => c >= ZERO && c <= NINE
const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isIdentStart = (c: number): boolean => isLetter(c) || c === UNDERSCORE
const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c)
const isVerbPart = (c: number): boolean => isIdentPart(c) || c === DOT || c === MINUS
const isHex = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
// The characters that start or are a token of the language (outside strings).
const isTokenCharacter = (c: number): boolean =>
  isIdentPart(c) ||
  c === DQUOTE ||
  c === SQUOTE ||
  c === DOLLAR ||
  c === MINUS ||
  c === PLUS ||
  c === DOT ||
  c === LPAREN ||
  c === RPAREN ||
  c === LBRACKET ||
  c === RBRACKET ||
  c === LBRACE ||
  c === RBRACE ||
  c === COMMA ||
  c === SEMI ||
  c === PIPE ||
  c === EQUALS ||
  c === COLON

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/
const verbPattern = /^[A-Za-z_][A-Za-z0-9_.-]*$/
const isIdentifier = (s: string): boolean => identifierPattern.test(s)

const hex4 = (c: number): string => c.toString(16).toUpperCase().padStart(4, "0")

const describeCharacter = (text: string, at: number): string => {
  const c = text.charCodeAt(at)
  if (c < 0x20 || c === 0x7f) return `the control character U+${hex4(c)}`
  const point = text.codePointAt(at) ?? c
  return `the character ${JSON.stringify(String.fromCodePoint(point))} (U+${hex4(point)})`
}

// ---------------------------------------------------------------------------
// positions and excerpts
// ---------------------------------------------------------------------------

const excerptWidth = 60

// The line of `position`, cut to about 60 characters around it, and a caret under it.
const excerpt = (text: string, position: Position): string => {
  const lineStart = position.offset - (position.column - 1)
  let lineEnd = text.indexOf("\n", position.offset)
  if (lineEnd === -1) lineEnd = text.length
  if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === CR && lineEnd - 1 >= position.offset) lineEnd--
  const at = position.offset - lineStart
  const lineLength = lineEnd - lineStart
  let from = 0
  let to = lineLength
  if (lineLength > excerptWidth + 12) {
    from = Math.max(0, at - excerptWidth / 2)
    to = Math.min(lineLength, from + excerptWidth)
    from = Math.max(0, to - excerptWidth)
  }
  let shown = ""
  for (let i = lineStart + from; i < lineStart + to; i++) {
    const c = text.charCodeAt(i)
    shown += c === TAB ? " " : c < 0x20 ? String.fromCharCode(0x2400 + c) : c === 0x7f ? "\u2421" : text[i]
  }
  const before = from > 0 ? "…" : ""
  const after = to < lineLength ? "…" : ""
  return `  ${before}${shown}${after}\n  ${" ".repeat(before.length + at - from)}^`
}

const makePositions = (text: string): ((offset: number) => Position) => {
  let lineStarts: Array<number> | undefined
  return (offset) => {
    if (lineStarts === undefined) {
      lineStarts = [0]
      for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1)
    }
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (lineStarts[middle]! <= offset) low = middle
      else high = middle - 1
    }
    return { offset, line: low + 1, column: offset - lineStarts[low]! + 1 }
  }
}

// ---------------------------------------------------------------------------
// $prev paths (shared by both forms)
// ---------------------------------------------------------------------------

type PrevScan =
  | { readonly _tag: "Path"; readonly path: Array<string | number>; readonly end: number }
  | { readonly _tag: "Bad"; readonly at: number; readonly detail: string }

// Reads the path of a reference from `from` (just after "$prev"), as far as it goes.
const scanPrevPath = (s: string, from: number): PrevScan => {
  const path: Array<string | number> = []
  let i = from
  for (;;) {
    const c = s.charCodeAt(i)
    if (c === DOT) {
      const j = i + 1
      const d = s.charCodeAt(j)
      if (isIdentStart(d)) {
        let k = j + 1
        while (isIdentPart(s.charCodeAt(k))) k++
        path.push(s.slice(j, k))
        i = k
      } else if (isDigit(d)) {
        let k = j + 1
        while (isDigit(s.charCodeAt(k))) k++
        if (isIdentPart(s.charCodeAt(k)))
          return {
            _tag: "Bad",
            at: j,
            detail: `a segment of a $prev path is a field name or an index, not both ("${s.slice(j, k + 1)}…"); quote nothing, write $prev.name or $prev[0]`
          }
        const index = Number(s.slice(j, k))
        if (!Number.isSafeInteger(index))
          return { _tag: "Bad", at: j, detail: `the index ${s.slice(j, k)} is too large` }
        path.push(index)
        i = k
      } else {
        return {
          _tag: "Bad",
          at: i,
          detail: `"." in a $prev path must be followed by a field name (letters, digits, "_") or an index, e.g. $prev.items.0 or $prev.name`
        }
      }
    } else if (c === LBRACKET) {
      const j = i + 1
      if (!isDigit(s.charCodeAt(j)))
        return {
          _tag: "Bad",
          at: i,
          detail: `"[" in a $prev path must hold an index (digits), e.g. $prev[0]; field names are written $prev.name`
        }
      let k = j + 1
      while (isDigit(s.charCodeAt(k))) k++
      if (s.charCodeAt(k) !== RBRACKET)
        return { _tag: "Bad", at: k, detail: `expected "]" to close the index of a $prev path` }
      const index = Number(s.slice(j, k))
      if (!Number.isSafeInteger(index)) return { _tag: "Bad", at: j, detail: `the index ${s.slice(j, k)} is too large` }
      path.push(index)
      i = k + 1
    } else {
      return { _tag: "Path", path, end: i }
    }
  }
}

const renderPath = (path: ReadonlyArray<string | number>): string => {
  let out = "$prev"
  for (const segment of path) {
    out +=
      typeof segment === "number"
        ? `[${segment}]`
        : isIdentifier(segment)
          ? `.${segment}`
          : `[${JSON.stringify(segment)}]`
  }
  return out
}

// ---------------------------------------------------------------------------
// the text form
// ---------------------------------------------------------------------------

const valuePhrase = `a value (a string, a number, true, false, null, [ … ], { … } or $prev)`
const namedHint = `arguments are written name=value`
const numberHint = `numbers use JSON syntax (42, -1.5, 6.02e23): no leading zeros or "+", no hex, no NaN or Infinity`
const prevFirstStep = (pipeline: number): string =>
  `$prev is used in the first step of pipeline ${pipeline + 1}, where there is no previous step: ` +
  `$prev only works after "|", in a later step of a chain, e.g. a() | b(x=$prev)`

type Frame =
  | {
      readonly kind: "List"
      readonly open: number
      readonly items: Array<Value>
    }
  | {
      readonly kind: "Record"
      readonly open: number
      readonly entries: Array<readonly [string, Value]>
      readonly keys: Map<string, number>
      key: string
    }

/**
 * Reads a request in the text form: calls (`verb(name=value, …)`) chained
 * with `|` into pipelines, pipelines separated by `;`. Fails with a
 * {@link RequestDslError} at the first mistake (or as soon as the request
 * holds more than `maxOps` ops, or a value nests deeper than `maxDepth`).
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const result = RequestDsl.parse(`workspace_read(path="a.ts", length=200) | system_echo(text=$prev.content)`)
 * if (Result.isSuccess(result)) {
 *   const [read, echo] = result.success.ops
 *   read.args // [["path", { _tag: "Literal", value: "a.ts" }], ["length", { _tag: "Literal", value: 200 }]]
 *   echo.step // 1
 * }
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const parse = (text: string, limits?: Partial<Limits>): Result.Result<Program, RequestDslError> => {
  const maxOps = limits?.maxOps ?? defaultLimits.maxOps
  const maxDepth = limits?.maxDepth ?? defaultLimits.maxDepth
  const length = text.length
  const positionOf = makePositions(text)
  let pos = 0

  const skip = (): void => {
    while (pos < length && isWhitespace(text.charCodeAt(pos))) pos++
  }

  const error = (at: number, reason: Reason, detail: string): RequestDslError => {
    const position = positionOf(at)
    return new RequestDslError({
      message: `Invalid request at ${position.line}:${position.column}: ${detail}.\n${excerpt(text, position)}`,
      position,
      path: undefined,
      reason
    })
  }

  // A bare run of characters at `at` (up to a separator), for messages.
  const bareRun = (at: number): string => {
    let end = at
    while (end < length && end - at < 40) {
      const c = text.charCodeAt(end)
      if (
        isWhitespace(c) ||
        c === COMMA ||
        c === RPAREN ||
        c === RBRACKET ||
        c === RBRACE ||
        c === SEMI ||
        c === PIPE ||
        c === LPAREN ||
        c === EQUALS ||
        c === COLON
      )
        break
      end++
    }
    return text.slice(at, Math.max(end, at + 1))
  }

  // "expected …, found …" at `at`, with the reason what is found there calls for.
  const unexpected = (expected: string, at: number, hint?: string): RequestDslError => {
    const tail = hint === undefined ? "" : `; ${hint}`
    if (at >= length) {
      let end = length
      while (end > 0 && isWhitespace(text.charCodeAt(end - 1))) end--
      return error(end, "unexpected_end", `expected ${expected}, found the end of the request${tail}`)
    }
    const c = text.charCodeAt(at)
    if (!isTokenCharacter(c))
      return error(at, "unexpected_character", `expected ${expected}, found ${describeCharacter(text, at)}${tail}`)
    let found: string
    if (c === DQUOTE || c === SQUOTE) found = "a string"
    else if (isDigit(c) || c === MINUS || c === PLUS || c === DOLLAR || isIdentStart(c))
      found = JSON.stringify(bareRun(at))
    else found = JSON.stringify(text[at])
    return error(at, "unexpected_token", `expected ${expected}, found ${found}${tail}`)
  }

  const readString = (): string | RequestDslError => {
    const start = pos
    const quote = text.charCodeAt(pos)
    let i = pos + 1
    let run = i
    let out = ""
    for (;;) {
      if (i >= length)
        return error(start, "unterminated_string", "unterminated string (it starts here and is never closed)")
      const c = text.charCodeAt(i)
      if (c === quote) {
        out += text.slice(run, i)
        pos = i + 1
        return out
      }
      if (c === BACKSLASH) {
        out += text.slice(run, i)
        if (i + 1 >= length)
          return error(start, "unterminated_string", "unterminated string (it starts here and is never closed)")
        const e = text.charCodeAt(i + 1)
        let width = 2
        switch (e) {
          case DQUOTE:
            out += '"'
            break
          case BACKSLASH:
            out += "\\"
            break
          case 47:
            out += "/"
            break
          case 98:
            out += "\b"
            break
          case 102:
            out += "\f"
            break
          case 110:
            out += "\n"
            break
          case 114:
            out += "\r"
            break
          case 116:
            out += "\t"
            break
          case 117: {
            for (let k = i + 2; k < i + 6; k++) {
              if (k >= length || !isHex(text.charCodeAt(k)))
                return error(
                  i,
                  "invalid_escape",
                  `invalid escape "${text.slice(i, Math.min(k + 1, length))}" in a string: \\u takes exactly four hexadecimal digits, e.g. \\u00e9`
                )
            }
            out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16))
            width = 6
            break
          }
          default:
            if (e === SQUOTE && quote === SQUOTE) {
              out += "'"
              break
            }
            return error(
              i,
              "invalid_escape",
              `invalid escape "${text.slice(i, i + 2)}" in a string: the escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX` +
                (quote === SQUOTE
                  ? `, and \\' in a single-quoted string`
                  : ` (a ' needs no escape in a double-quoted string)`)
            )
        }
        i += width
        run = i
        continue
      }
      if (c < 0x20 && c !== TAB && c !== LF && c !== CR)
        return error(
          i,
          "unexpected_character",
          `${describeCharacter(text, i)} inside a string: write it as an escape, \\u${hex4(c)}`
        )
      i++
    }
  }

  const readNumber = (): number | RequestDslError => {
    const start = pos
    let i = pos
    const bad = (): RequestDslError => {
      let end = start + 1
      while (end < length && end - start < 40) {
        const c = text.charCodeAt(end)
        if (!(isIdentPart(c) || c === DOT || c === PLUS || c === MINUS)) break
        end++
      }
      return error(start, "invalid_number", `invalid number ${JSON.stringify(text.slice(start, end))}: ${numberHint}`)
    }
    if (text.charCodeAt(i) === MINUS) i++
    const first = text.charCodeAt(i)
    if (first === ZERO) i++
    else if (isDigit(first)) while (isDigit(text.charCodeAt(i))) i++
    else return bad()
    if (text.charCodeAt(i) === DOT) {
      i++
      if (!isDigit(text.charCodeAt(i))) return bad()
      while (isDigit(text.charCodeAt(i))) i++
    }
    const e = text.charCodeAt(i)
    if (e === 101 || e === 69) {
      i++
      const sign = text.charCodeAt(i)
      if (sign === PLUS || sign === MINUS) i++
      if (!isDigit(text.charCodeAt(i))) return bad()
      while (isDigit(text.charCodeAt(i))) i++
    }
    const next = text.charCodeAt(i)
    if (isIdentPart(next) || next === DOT || next === PLUS || next === MINUS) return bad()
    const literal = text.slice(start, i)
    const value = Number(literal)
    if (!Number.isFinite(value))
      return error(start, "invalid_number", `the number ${literal} is too large (it overflows to Infinity)`)
    pos = i
    return value
  }

  // `$prev` and its path; `pos` is at the "$".
  const readPrev = (firstStep: boolean, pipeline: number): Value | RequestDslError => {
    const start = pos
    if (!text.startsWith("$prev", pos) || isIdentPart(text.charCodeAt(pos + 5))) {
      return error(
        start,
        "invalid_reference",
        `${JSON.stringify(bareRun(start))} is not a reference: the only reference is $prev (the previous step's output), ` +
          `e.g. $prev, $prev.name, $prev.items[0]; a string that starts with "$" is quoted`
      )
    }
    const scan = scanPrevPath(text, pos + 5)
    if (scan._tag === "Bad") return error(scan.at, "invalid_reference", scan.detail)
    if (firstStep) return error(start, "prev_in_first_step", prevFirstStep(pipeline))
    pos = scan.end
    return { _tag: "Prev", path: scan.path, text: text.slice(start, scan.end), position: positionOf(start) }
  }

  // A string, number, keyword or reference; `pos` is at its first character.
  const readScalar = (firstStep: boolean, pipeline: number): Value | RequestDslError => {
    const c = text.charCodeAt(pos)
    if (c === DQUOTE || c === SQUOTE) {
      const s = readString()
      return typeof s === "string" ? { _tag: "Literal", value: s } : s
    }
    if (c === MINUS || isDigit(c)) {
      const n = readNumber()
      return typeof n === "number" ? { _tag: "Literal", value: n } : n
    }
    if (c === PLUS || (c === DOT && isDigit(text.charCodeAt(pos + 1)))) {
      return error(pos, "invalid_number", `invalid number ${JSON.stringify(bareRun(pos))}: ${numberHint}`)
    }
    if (c === DOLLAR) return readPrev(firstStep, pipeline)
    if (isIdentStart(c)) {
      let end = pos + 1
      while (isIdentPart(text.charCodeAt(end))) end++
      const word = text.slice(pos, end)
      if (!isVerbPart(text.charCodeAt(end)) && text.charCodeAt(end) !== DOLLAR) {
        if (word === "true" || word === "false" || word === "null") {
          pos = end
          return { _tag: "Literal", value: word === "null" ? null : word === "true" }
        }
        if (word === "NaN" || word === "Infinity")
          return error(pos, "invalid_number", `invalid number ${JSON.stringify(word)}: ${numberHint}`)
      }
      const bare = bareRun(pos)
      return error(
        pos,
        "unexpected_token",
        `expected ${valuePhrase}, found ${JSON.stringify(bare)}; strings must be quoted: ${JSON.stringify(bare)}`
      )
    }
    return unexpected(valuePhrase, pos)
  }

  // A key of an argument or an object: an identifier or a string.
  const readKey = (expected: string, hint?: string): string | RequestDslError => {
    const c = text.charCodeAt(pos)
    if (c === DQUOTE || c === SQUOTE) return readString()
    if (isIdentStart(c)) {
      const start = pos
      while (isIdentPart(text.charCodeAt(pos))) pos++
      return text.slice(start, pos)
    }
    return unexpected(expected, pos, hint)
  }

  // A value, iteratively: arrays and objects are frames on an explicit stack.
  const readValue = (firstStep: boolean, pipeline: number): Value | RequestDslError => {
    const stack: Array<Frame> = []
    for (;;) {
      // expecting a value
      skip()
      let value: Value
      const c = text.charCodeAt(pos)
      if (c === LBRACKET || c === LBRACE) {
        if (stack.length + 1 > maxDepth)
          return error(
            pos,
            "too_deep",
            `arrays and objects nest deeper here than the limit of ${maxDepth} levels (request.maxDepth); flatten the value`
          )
        const open = pos
        pos++
        skip()
        if (c === LBRACKET) {
          if (text.charCodeAt(pos) !== RBRACKET) {
            stack.push({ kind: "List", open, items: [] })
            continue
          }
          pos++
          value = { _tag: "List", items: [] }
        } else {
          if (text.charCodeAt(pos) !== RBRACE) {
            const frame: Frame = { kind: "Record", open, entries: [], keys: new Map(), key: "" }
            const key = readObjectKey(frame)
            if (key instanceof RequestDslError) return key
            stack.push(frame)
            continue
          }
          pos++
          value = { _tag: "Record", entries: [] }
        }
      } else {
        const scalar = readScalar(firstStep, pipeline)
        if (scalar instanceof RequestDslError) return scalar
        value = scalar
      }
      // after a value: add it to the innermost frame, close frames as they end
      let expectValue = false
      while (!expectValue) {
        const frame = stack[stack.length - 1]
        if (frame === undefined) return value
        if (frame.kind === "List") frame.items.push(value)
        else frame.entries.push([frame.key, value])
        skip()
        const closing = frame.kind === "List" ? RBRACKET : RBRACE
        const d = text.charCodeAt(pos)
        if (d === COMMA) {
          pos++
          skip()
          if (text.charCodeAt(pos) !== closing) {
            if (frame.kind === "Record") {
              const key = readObjectKey(frame)
              if (key instanceof RequestDslError) return key
            }
            expectValue = true
            continue
          }
        } else if (d !== closing) {
          return frame.kind === "List"
            ? unexpected(`"," or "]" after an item of the array opened at ${lineColumn(frame.open)}`, pos)
            : unexpected(
                `"," or "}" after the value of ${JSON.stringify(frame.key)} in the object opened at ${lineColumn(frame.open)}`,
                pos
              )
        }
        pos++
        stack.pop()
        value =
          frame.kind === "List" ? { _tag: "List", items: frame.items } : { _tag: "Record", entries: frame.entries }
      }
    }
  }

  const lineColumn = (open: number): string => {
    const position = positionOf(open)
    return `${position.line}:${position.column}`
  }

  // The key of an object's entry and its ":"; `pos` is at the key.
  const readObjectKey = (frame: Frame & { readonly kind: "Record" }): RequestDslError | undefined => {
    const start = pos
    const key = readKey(`a key (a name or a string) or "}"`)
    if (key instanceof RequestDslError) return key
    const first = frame.keys.get(key)
    if (first !== undefined)
      return error(
        start,
        "duplicate_key",
        `the key ${JSON.stringify(key)} appears twice in this object (first at ${lineColumn(first)}); give each key once`
      )
    frame.keys.set(key, start)
    frame.key = key
    skip()
    if (text.charCodeAt(pos) !== COLON)
      return unexpected(`":" after the key ${JSON.stringify(key)}`, pos, `objects are written { key: value }`)
    pos++
    return undefined
  }

  const ops: Array<Op> = []
  const pipelines: Array<Array<number>> = []

  // One call; `pos` is at its verb.
  const readCall = (pipeline: number, step: number, expected: string): Op | RequestDslError => {
    const start = pos
    if (!isIdentStart(text.charCodeAt(pos))) return unexpected(expected, pos)
    pos++
    while (isVerbPart(text.charCodeAt(pos))) pos++
    const verb = text.slice(start, pos)
    if (ops.length >= maxOps)
      return error(
        start,
        "too_many_ops",
        `too many operations: a request holds at most ${maxOps} ops (request.maxOps); split the work into several requests`
      )
    skip()
    if (text.charCodeAt(pos) !== LPAREN)
      return unexpected(
        `"(" after the verb ${JSON.stringify(verb)}`,
        pos,
        `a call always has parentheses, even without arguments: ${verb}()`
      )
    pos++
    skip()
    const args: Array<readonly [string, Value]> = []
    const seen = new Map<string, number>()
    if (text.charCodeAt(pos) === RPAREN) pos++
    else {
      for (;;) {
        const keyStart = pos
        const key = readKey(`an argument name or ")"`, namedHint)
        if (key instanceof RequestDslError) return key
        const first = seen.get(key)
        if (first !== undefined)
          return error(
            keyStart,
            "duplicate_argument",
            `the argument ${JSON.stringify(key)} is given twice in this call of ${verb} (first at ${lineColumn(first)}); give each argument once`
          )
        seen.set(key, keyStart)
        skip()
        if (text.charCodeAt(pos) !== EQUALS) {
          const c = text.charCodeAt(pos)
          return unexpected(
            `"=" after the argument name ${JSON.stringify(key)}`,
            pos,
            c === MINUS || c === DOT
              ? `quote a name with other characters than letters, digits and "_": "${key}${bareRun(pos)}"=value`
              : namedHint
          )
        }
        pos++
        const value = readValue(step === 0, pipeline)
        if (value instanceof RequestDslError) return value
        args.push([key, value])
        skip()
        const c = text.charCodeAt(pos)
        if (c === COMMA) {
          pos++
          skip()
          if (text.charCodeAt(pos) === RPAREN) {
            pos++
            break
          }
          continue
        }
        if (c === RPAREN) {
          pos++
          break
        }
        return unexpected(`"," or ")" after the value of the argument ${JSON.stringify(key)}`, pos)
      }
    }
    return { index: ops.length, pipeline, step, verb, args, position: positionOf(start), path: undefined }
  }

  skip()
  if (pos >= length)
    return Result.fail(
      new RequestDslError({
        message: `Invalid request: it is empty; give at least one call, e.g. system_echo(text="hi").`,
        position: { offset: 0, line: 1, column: 1 },
        path: undefined,
        reason: "empty"
      })
    )
  let expected = `a call, e.g. tool_name(arg="value")`
  for (;;) {
    const pipeline: Array<number> = []
    const pipelineIndex = pipelines.length
    pipelines.push(pipeline)
    for (let step = 0; ; step++) {
      skip()
      const op = readCall(pipelineIndex, step, expected)
      if (op instanceof RequestDslError) return Result.fail(op)
      ops.push(op)
      pipeline.push(op.index)
      skip()
      if (pos >= length) return Result.succeed({ ops, pipelines })
      const c = text.charCodeAt(pos)
      if (c === PIPE) {
        pos++
        expected = `the next step of the chain (a call) after "|"`
        continue
      }
      if (c === SEMI) {
        pos++
        skip()
        if (pos >= length) return Result.succeed({ ops, pipelines })
        expected = `a call after ";"`
        break
      }
      return Result.fail(
        unexpected(
          `";" (another pipeline), "|" (a next step that gets this one's output) or the end of the request after the call of ${op.verb}`,
          pos
        )
      )
    }
  }
}

// ---------------------------------------------------------------------------
// the JSON form
// ---------------------------------------------------------------------------

const jsonError = (path: string, reason: Reason, detail: string): RequestDslError =>
  new RequestDslError({ message: `Invalid request at ${path}: ${detail}.`, position: undefined, path, reason })

const isPlainObject = (x: unknown): x is Record<string, unknown> => {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false
  const proto = Object.getPrototypeOf(x)
  return proto === Object.prototype || proto === null
}

const preview = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)

const describeJson = (x: unknown): string => {
  if (x === null) return "null"
  if (x === undefined) return "nothing (undefined)"
  if (typeof x === "string") return `a string (${preview(x)})`
  if (typeof x === "number" || typeof x === "boolean") return `a ${typeof x} (${String(x)})`
  if (Array.isArray(x)) return "an array"
  if (typeof x === "object") return isPlainObject(x) ? "an object" : "a non-JSON object"
  return `a ${typeof x}`
}

const member = (base: string, key: string): string =>
  isIdentifier(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`

const escapedPrev = /^\$\$+prev/

/**
 * Reads a request in the JSON form, `{"ops": [{"verb": "…", "args": {…}}, …],
 * "mode": "parallel" | "chain"}` (the caller passes the two fields; `mode`
 * left out is `"parallel"`). In parallel mode every op is a pipeline of its
 * own; in chain mode the ops are the steps of one pipeline. A string argument
 * value that is `$prev`, or starts with `$prev.` or `$prev[`, is a reference
 * (same paths as the text form); a string that starts with `$$prev` (or more
 * `$`) is the literal string with one `$` less. Errors name the field at fault
 * in `path` (`ops[2].verb`).
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const result = RequestDsl.fromJson(
 *   [
 *     { verb: "workspace_list", args: { path: "src" } },
 *     { verb: "workspace_read", args: { path: "$prev.entries[0].path", note: "$$prev is literal" } }
 *   ],
 *   "chain"
 * )
 * if (Result.isSuccess(result)) {
 *   result.success.pipelines // [[0, 1]]
 *   result.success.ops[1].args[1] // ["note", { _tag: "Literal", value: "$prev is literal" }]
 * }
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const fromJson = (
  ops: unknown,
  mode: unknown,
  limits?: Partial<Limits>
): Result.Result<Program, RequestDslError> => {
  const maxOps = limits?.maxOps ?? defaultLimits.maxOps
  const maxDepth = limits?.maxDepth ?? defaultLimits.maxDepth
  if (!Array.isArray(ops))
    return Result.fail(
      jsonError(
        "ops",
        "invalid_json_form",
        `expected an array of ops [{"verb": "…", "args": {…}}], found ${describeJson(ops)}`
      )
    )
  if (ops.length === 0)
    return Result.fail(
      jsonError(
        "ops",
        "empty",
        `the request is empty; give at least one op, e.g. {"verb": "system_echo", "args": {"text": "hi"}}`
      )
    )
  if (ops.length > maxOps)
    return Result.fail(
      jsonError(
        "ops",
        "too_many_ops",
        `too many operations: ${ops.length} ops, and a request holds at most ${maxOps} (request.maxOps); split the work into several requests`
      )
    )
  if (mode !== undefined && mode !== "parallel" && mode !== "chain")
    return Result.fail(
      jsonError(
        "mode",
        "invalid_json_form",
        `expected "parallel" (the default) or "chain", found ${describeJson(mode)}`
      )
    )
  const chain = mode === "chain"

  // An argument value; recursion is bounded by maxDepth.
  const toValue = (x: unknown, path: string, depth: number, firstStep: boolean): Value | RequestDslError => {
    if (typeof x === "string") {
      if (x === "$prev" || x.startsWith("$prev.") || x.startsWith("$prev[")) {
        const scan = scanPrevPath(x, 5)
        if (scan._tag === "Bad")
          return jsonError(
            path,
            "invalid_reference",
            `the reference ${preview(x)} is malformed at character ${scan.at + 1}: ${scan.detail}`
          )
        if (scan.end !== x.length)
          return jsonError(
            path,
            "invalid_reference",
            `the reference ${preview(x)} is malformed at character ${scan.end + 1}: a $prev path is made of .name, .0 and [0] segments only` +
              ` (to pass the text itself, write it with one more "$": ${preview(`$${x}`)})`
          )
        if (firstStep)
          return jsonError(
            path,
            "prev_in_first_step",
            chain
              ? `$prev is used in the first op of the chain, where there is no previous step: $prev only works from the second op on`
              : `$prev is used in parallel mode, where every op is the first of its own pipeline and there is no previous step: ` +
                  `send "mode": "chain" to run the ops in order, each getting the previous one's output`
          )
        return { _tag: "Prev", path: scan.path, text: x, position: undefined }
      }
      return { _tag: "Literal", value: escapedPrev.test(x) ? x.slice(1) : x }
    }
    if (typeof x === "number") {
      if (!Number.isFinite(x))
        return jsonError(path, "invalid_json_form", `expected a JSON value, found the number ${x}`)
      return { _tag: "Literal", value: x }
    }
    if (typeof x === "boolean" || x === null) return { _tag: "Literal", value: x }
    if (Array.isArray(x) || isPlainObject(x)) {
      if (depth + 1 > maxDepth)
        return jsonError(
          path,
          "too_deep",
          `arrays and objects nest deeper here than the limit of ${maxDepth} levels (request.maxDepth); flatten the value`
        )
      if (Array.isArray(x)) {
        const items: Array<Value> = []
        for (let i = 0; i < x.length; i++) {
          const item = toValue(x[i], `${path}[${i}]`, depth + 1, firstStep)
          if (item instanceof RequestDslError) return item
          items.push(item)
        }
        return { _tag: "List", items }
      }
      const entries: Array<readonly [string, Value]> = []
      for (const key of Object.keys(x)) {
        const item = toValue(x[key], member(path, key), depth + 1, firstStep)
        if (item instanceof RequestDslError) return item
        entries.push([key, item])
      }
      return { _tag: "Record", entries }
    }
    return jsonError(path, "invalid_json_form", `expected a JSON value, found ${describeJson(x)}`)
  }

  const program: Array<Op> = []
  for (let index = 0; index < ops.length; index++) {
    const path = `ops[${index}]`
    const op: unknown = ops[index]
    if (!isPlainObject(op))
      return Result.fail(
        jsonError(path, "invalid_json_form", `expected an op, {"verb": "…", "args": {…}}, found ${describeJson(op)}`)
      )
    for (const key of Object.keys(op)) {
      if (key !== "verb" && key !== "args") {
        const near = ["verb", "args"].find((known) => editDistance(key.toLowerCase(), known) <= 2)
        return Result.fail(
          jsonError(
            member(path, key),
            "invalid_json_form",
            `unknown field ${JSON.stringify(key)}: an op has only "verb" and "args"${near === undefined ? "" : ` (did you mean "${near}"?)`}`
          )
        )
      }
    }
    const verb = op.verb
    if (typeof verb !== "string")
      return Result.fail(
        jsonError(
          `${path}.verb`,
          "invalid_json_form",
          verb === undefined
            ? `the op has no verb: give the name of a tool, e.g. {"verb": "system_echo", "args": {"text": "hi"}}`
            : `expected a string (the name of a tool), found ${describeJson(verb)}`
        )
      )
    if (!verbPattern.test(verb))
      return Result.fail(
        jsonError(
          `${path}.verb`,
          "invalid_json_form",
          `${preview(verb)} is not a verb: a verb is a tool's name, a letter or "_" then letters, digits, "_", "." or "-"`
        )
      )
    const rawArgs = op.args
    const args: Array<readonly [string, Value]> = []
    if (rawArgs !== undefined) {
      if (!isPlainObject(rawArgs))
        return Result.fail(
          jsonError(
            `${path}.args`,
            "invalid_json_form",
            `expected an object of named arguments ({"name": value}), found ${describeJson(rawArgs)}; leave "args" out for none`
          )
        )
      const firstStep = !chain || index === 0
      for (const key of Object.keys(rawArgs)) {
        const value = toValue(rawArgs[key], member(`${path}.args`, key), 0, firstStep)
        if (value instanceof RequestDslError) return Result.fail(value)
        args.push([key, value])
      }
    }
    program.push({
      index,
      pipeline: chain ? 0 : index,
      step: chain ? index : 0,
      verb,
      args,
      position: undefined,
      path
    })
  }
  return Result.succeed({
    ops: program,
    pipelines: chain ? [program.map((op) => op.index)] : program.map((op) => [op.index])
  })
}

// ---------------------------------------------------------------------------
// resolving references
// ---------------------------------------------------------------------------

const maxListed = 30

const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

const describeScalar = (x: unknown): string => {
  if (x === null) return "null"
  if (x === undefined) return "empty (no value)"
  if (typeof x === "string") return `a string (${preview(x)})`
  if (typeof x === "number" || typeof x === "boolean") return `a ${typeof x} (${String(x)})`
  return `a ${typeof x}`
}

const lookup = (ref: Value & { readonly _tag: "Prev" }, prev: unknown): Result.Result<unknown, MissingField> => {
  const text = ref.text === "" ? renderPath(ref.path) : ref.text
  let current = prev
  for (let i = 0; i < ref.path.length; i++) {
    const segment = ref.path[i]!
    const at = (): string => renderPath(ref.path.slice(0, i))
    if (Array.isArray(current)) {
      if (typeof segment === "number" && segment < current.length) {
        current = current[segment]
        continue
      }
      const size =
        current.length === 0 ? "an empty array" : `an array of ${current.length} item${current.length === 1 ? "" : "s"}`
      return Result.fail(
        new MissingField({
          message:
            typeof segment === "number"
              ? `${text}: the previous step's output at ${at()} is ${size}; there is no index ${segment}` +
                (current.length === 0 ? "" : ` (valid indices: 0 to ${current.length - 1})`)
              : `${text}: the previous step's output at ${at()} is ${size}, which has no field ${JSON.stringify(segment)}` +
                (current.length === 0 ? "" : `; pick an item by index, e.g. ${at()}[0]`),
          reference: text,
          available: []
        })
      )
    }
    if (typeof current === "object" && current !== null) {
      const key = String(segment)
      if (Object.prototype.propertyIsEnumerable.call(current, key)) {
        current = (current as Record<string, unknown>)[key]
        continue
      }
      const available = Object.keys(current).sort()
      const listed =
        available.length === 0
          ? "it has no fields"
          : `it has: ${available.slice(0, maxListed).join(", ")}` +
            (available.length > maxListed ? `, and ${available.length - maxListed} more` : "")
      return Result.fail(
        new MissingField({
          message: `${text}: the previous step's output has no field ${JSON.stringify(key)} at ${at()}; ${listed}`,
          reference: text,
          available
        })
      )
    }
    return Result.fail(
      new MissingField({
        message: `${text}: the previous step's output at ${at()} is ${describeScalar(current)}, which has no fields`,
        reference: text,
        available: []
      })
    )
  }
  return Result.succeed(current)
}

/**
 * The plain value of an argument, with every `$prev` reference in it
 * replaced by the part of `prev` (the previous step's output, a JSON value)
 * it names. Follows own enumerable fields only (never the prototype:
 * `$prev.constructor` of an object is missing); fails with
 * {@link MissingField} when a path does not exist.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const value: RequestDsl.Value = {
 *   _tag: "List",
 *   items: [{ _tag: "Prev", path: ["files", 0, "name"], text: "$prev.files[0].name", position: undefined }]
 * }
 * RequestDsl.resolve(value, { files: [{ name: "a.ts" }] }) // Result.succeed(["a.ts"])
 * ```
 *
 * @category combinators
 * @since 0.4.0
 */
export const resolve = (value: Value, prev: unknown): Result.Result<unknown, MissingField> => {
  switch (value._tag) {
    case "Literal":
      return Result.succeed(value.value)
    case "Prev":
      return lookup(value, prev)
    case "List": {
      const items: Array<unknown> = []
      for (const item of value.items) {
        const resolved = resolve(item, prev)
        if (Result.isFailure(resolved)) return resolved
        items.push(resolved.success)
      }
      return Result.succeed(items)
    }
    case "Record": {
      const out: Record<string, unknown> = {}
      for (const [key, item] of value.entries) {
        const resolved = resolve(item, prev)
        if (Result.isFailure(resolved)) return resolved
        setOwn(out, key, resolved.success)
      }
      return Result.succeed(out)
    }
  }
}

/**
 * The arguments of an op as a plain object (what a tool is called with),
 * with every `$prev` reference replaced by the part of the previous step's
 * output it names; fails with {@link MissingField} at the first one that
 * does not exist.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const program = Result.getOrThrow(RequestDsl.parse(`workspace_list(path="src") | workspace_read(path=$prev.entries[0].path)`))
 * RequestDsl.resolveArgs(program.ops[1].args, { entries: [{ path: "src/a.ts" }] })
 * // Result.succeed({ path: "src/a.ts" })
 * ```
 *
 * @category combinators
 * @since 0.4.0
 */
export const resolveArgs = (args: Op["args"], prev: unknown): Result.Result<Record<string, unknown>, MissingField> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of args) {
    const resolved = resolve(value, prev)
    if (Result.isFailure(resolved)) return Result.fail(resolved.failure)
    setOwn(out, key, resolved.success)
  }
  return Result.succeed(out)
}

// ---------------------------------------------------------------------------
// formatting
// ---------------------------------------------------------------------------

const formatKey = (key: string): string => (isIdentifier(key) ? key : JSON.stringify(key))

const formatNumber = (n: number): string => (Number.isFinite(n) ? (Object.is(n, -0) ? "-0" : String(n)) : "null")

const formatAst = (value: Value): string => {
  switch (value._tag) {
    case "Literal":
      return typeof value.value === "number" ? formatNumber(value.value) : JSON.stringify(value.value)
    case "Prev":
      return value.text === "" ? renderPath(value.path) : value.text
    case "List":
      return `[${value.items.map(formatAst).join(", ")}]`
    case "Record":
      return `{${value.entries.map(([key, item]) => `${formatKey(key)}: ${formatAst(item)}`).join(", ")}}`
  }
}

/**
 * An op as text of the request language: `verb(name=value, …)`, strings in
 * double quotes with JSON escapes, names that are not identifiers quoted,
 * `$prev` references as written. `parse(format(op))` reads the op back.
 *
 * **Example**
 *
 * ```ts
 * import * as Result from "effect/Result"
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * const [op] = Result.getOrThrow(RequestDsl.parse(`workspace_write( path='a.txt',content="hi", )`)).ops
 * RequestDsl.format(op) // `workspace_write(path="a.txt", content="hi")`
 * ```
 *
 * @category mapping
 * @since 0.4.0
 */
export const format = (op: Op): string =>
  `${op.verb}(${op.args.map(([key, value]) => `${formatKey(key)}=${formatAst(value)}`).join(", ")})`

/**
 * A plain JSON value written in the request language's value syntax (for
 * examples): strings JSON-quoted, object keys bare when they are identifiers.
 * What JSON cannot hold goes as `JSON.stringify` would have it (`undefined`
 * fields left out, non-finite numbers and `undefined` items as `null`); a
 * cycle is cut with `null`.
 *
 * **Example**
 *
 * ```ts
 * import * as RequestDsl from "effect-mcp-runtime/RequestDsl"
 *
 * RequestDsl.formatValue({ path: "a.ts", lines: [1, 2], "x-y": null }) // `{path: "a.ts", lines: [1, 2], "x-y": null}`
 * ```
 *
 * @category mapping
 * @since 0.4.0
 */
export const formatValue = (value: unknown): string => {
  const open = new Set<object>()
  const go = (x: unknown): string => {
    if (x === null || x === undefined) return "null"
    if (typeof x === "string") return JSON.stringify(x)
    if (typeof x === "number") return formatNumber(x)
    if (typeof x === "boolean") return String(x)
    if (typeof x === "bigint") return x.toString()
    if (typeof x !== "object") return "null"
    if (open.has(x)) return "null"
    const toJSON = (x as { readonly toJSON?: unknown }).toJSON
    if (typeof toJSON === "function") return go(toJSON.call(x))
    open.add(x)
    let out: string
    if (Array.isArray(x)) out = `[${x.map(go).join(", ")}]`
    else {
      const parts: Array<string> = []
      for (const key of Object.keys(x)) {
        const item = (x as Record<string, unknown>)[key]
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue
        parts.push(`${formatKey(key)}: ${go(item)}`)
      }
      out = `{${parts.join(", ")}}`
    }
    open.delete(x)
    return out
  }
  return go(value)
}
