/**
 * Reading the source around a problem: the names a message quotes, the
 * identifier or expression at a column, a numbered excerpt, small edits of
 * one line (the `before`/`after` of a fix step).
 *
 * @since 0.1.0
 */

import { editDistance as sharedEditDistance } from "../../../src/internal/editDistance.ts"

/**
 * The names a message quotes: `'x'`, `"x"` or `` `x` ``, in order.
 *
 * **Example**
 *
 * ```ts
 * import { quotedNames } from "./capabilities/fe/diagnosis/source.ts"
 *
 * quotedNames("Property 'toUppercase' does not exist on type 'string'. Did you mean 'toUpperCase'?")
 * // => ["toUppercase", "string", "toUpperCase"]
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const quotedNames = (message: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  let i = 0
  while (i < message.length) {
    const quote = message[i]!
    // An apostrophe inside a word (don't, can't) opens nothing.
    const opens = (quote === "'" || quote === '"' || quote === "`") && (i === 0 || !/[A-Za-z0-9]/.test(message[i - 1]!))
    if (opens) {
      const end = message.indexOf(quote, i + 1)
      if (end > i) {
        names.push(message.slice(i + 1, end))
        i = end + 1
        continue
      }
    }
    i++
  }
  return names
}

const isIdentifierChar = (char: string | undefined): boolean => char !== undefined && /[A-Za-z0-9_$]/.test(char)

/**
 * The identifier at a 1-based column (the one the column is in or starts).
 *
 * **Example**
 *
 * ```ts
 * import { identifierAt } from "./capabilities/fe/diagnosis/source.ts"
 *
 * identifierAt("  return first.slice(0, 1)", 10) // => "first"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const identifierAt = (line: string, column: number): string => {
  let start = Math.max(0, column - 1)
  if (!isIdentifierChar(line[start]) && isIdentifierChar(line[start - 1])) start--
  while (start > 0 && isIdentifierChar(line[start - 1])) start--
  let end = start
  while (end < line.length && isIdentifierChar(line[end])) end++
  return line.slice(start, end)
}

/**
 * The indentation of a line.
 *
 * @category source
 * @since 0.1.0
 */
export const indentOf = (line: string): string => line.slice(0, line.length - line.trimStart().length)

/**
 * The line with `length` characters at a 1-based column replaced by `text`.
 *
 * **Example**
 *
 * ```ts
 * import { replaceAt } from "./capabilities/fe/diagnosis/source.ts"
 *
 * replaceAt("const data: any = 1", 13, 3, "unknown") // => "const data: unknown = 1"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const replaceAt = (line: string, column: number, length: number, text: string): string =>
  line.slice(0, column - 1) + text + line.slice(column - 1 + length)

/**
 * The first occurrence of `word` as a whole identifier in a line, at or
 * after a 1-based column: its 1-based column, or 0.
 *
 * **Example**
 *
 * ```ts
 * import { findWord } from "./capabilities/fe/diagnosis/source.ts"
 *
 * findWord("  let url = `/api/${id}`", "let") // => 3
 * findWord("  outlet = 1", "let") // => 0
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const findWord = (line: string, word: string, from = 1): number => {
  let index = line.indexOf(word, Math.max(0, from - 1))
  while (index !== -1) {
    if (!isIdentifierChar(line[index - 1]) && !isIdentifierChar(line[index + word.length])) return index + 1
    index = line.indexOf(word, index + 1)
  }
  return 0
}

/**
 * The 1-based number of the first line matching `predicate`, or 0.
 *
 * @category source
 * @since 0.1.0
 */
export const findLine = (
  lines: ReadonlyArray<string> | undefined,
  predicate: (line: string) => boolean,
  from = 1
): number => {
  if (lines === undefined) return 0
  for (let i = Math.max(0, from - 1); i < lines.length; i++) if (predicate(lines[i]!)) return i + 1
  return 0
}

/**
 * The line declaring `name` (`interface`, `type`, `class`, `enum`,
 * `function`, `const`/`let`/`var`), or 0.
 *
 * **Example**
 *
 * ```ts
 * import { declarationLine } from "./capabilities/fe/diagnosis/source.ts"
 *
 * declarationLine(["import x from 'y'", "", "export interface User {"], "User") // => 3
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const declarationLine = (lines: ReadonlyArray<string> | undefined, name: string): number =>
  findLine(lines, (line) => {
    const words = line
      .trim()
      .split(/[\s<({=:]+/)
      .filter((word) => word !== "")
    for (let i = 0; i < words.length - 1; i++) {
      const keyword = words[i]!
      if (
        ["interface", "type", "class", "enum", "function", "function*", "const", "let", "var"].includes(keyword) &&
        words[i + 1] === name
      ) {
        return true
      }
      if (!["export", "default", "declare", "async", "abstract"].includes(keyword)) return false
    }
    return false
  })

/**
 * Numbered lines around a 1-based line, the line itself marked with `>`.
 *
 * **Example**
 *
 * ```ts
 * import { excerpt } from "./capabilities/fe/diagnosis/source.ts"
 *
 * excerpt(["a", "b", "c"], 2, 1) // => "  1 | a\n> 2 | b\n  3 | c"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const excerpt = (lines: ReadonlyArray<string> | undefined, line: number, radius = 3): string => {
  if (lines === undefined || line < 1 || line > lines.length) return ""
  const first = Math.max(1, line - radius)
  const last = Math.min(lines.length, line + radius)
  const width = String(last).length
  const out: Array<string> = []
  for (let n = first; n <= last; n++) {
    out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${lines[n - 1]}`)
  }
  return out.join("\n")
}

/**
 * The text between the bracket that opens at a 0-based index and the one
 * that closes it (strings skipped), or undefined.
 *
 * **Example**
 *
 * ```ts
 * import { bracketed } from "./capabilities/fe/diagnosis/source.ts"
 *
 * bracketed("expect(add(2, 3)).toBe(5)", 6) // => { inner: "add(2, 3)", end: 16 }
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const bracketed = (text: string, open: number): { readonly inner: string; readonly end: number } | undefined => {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" }
  const closing = pairs[text[open] ?? ""]
  if (closing === undefined) return undefined
  const stack: Array<string> = [closing]
  let i = open + 1
  while (i < text.length) {
    const char = text[i]!
    if (char === "'" || char === '"' || char === "`") {
      const end = text.indexOf(char, i + 1)
      if (end === -1) return undefined
      i = end + 1
      continue
    }
    if (pairs[char] !== undefined) stack.push(pairs[char]!)
    else if (char === stack[stack.length - 1]) {
      stack.pop()
      if (stack.length === 0) return { inner: text.slice(open + 1, i), end: i }
    }
    i++
  }
  return undefined
}

/**
 * A named import line with one more name: `import { a } from 'm'` →
 * `import { a, b } from 'm'`; undefined when the line is not such an import.
 *
 * **Example**
 *
 * ```ts
 * import { addNamedImport } from "./capabilities/fe/diagnosis/source.ts"
 *
 * addNamedImport("import { useEffect } from 'react'", "useState") // => "import { useEffect, useState } from 'react'"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const addNamedImport = (line: string, name: string): string | undefined => {
  const open = line.indexOf("{")
  if (!line.trimStart().startsWith("import") || open === -1) return undefined
  const group = bracketed(line, open)
  if (group === undefined) return undefined
  const names = group.inner
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
  if (names.includes(name)) return line
  return `${line.slice(0, open)}{ ${[...names, name].join(", ")} }${line.slice(group.end + 1)}`
}

/**
 * The import line of a module in a file (`from 'react'` or `from "react"`):
 * its 1-based number, or 0.
 *
 * @category source
 * @since 0.1.0
 */
export const importLineOf = (lines: ReadonlyArray<string> | undefined, module: string): number =>
  findLine(
    lines,
    (line) => line.trimStart().startsWith("import") && (line.includes(`'${module}'`) || line.includes(`"${module}"`))
  )

/**
 * The quote style a file's imports use (single quotes when its first import
 * does), for the lines a fix inserts.
 *
 * @category source
 * @since 0.1.0
 */
export const quoteStyle = (lines: ReadonlyArray<string> | undefined): string => {
  const first = lines?.find((line) => line.trimStart().startsWith("import ") && line.includes(" from "))
  return first !== undefined && first.includes("'") ? "'" : '"'
}

/**
 * A module name as TypeScript quotes it in messages (`'"./a"'`), without
 * its inner quotes.
 *
 * **Example**
 *
 * ```ts
 * import { unquote } from "./capabilities/fe/diagnosis/source.ts"
 *
 * unquote('"./a"') // => "./a"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const unquote = (name: string): string =>
  name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name

/**
 * The identifier chain at a 1-based column (`user.profile.name`, optional
 * chaining included), or "".
 *
 * **Example**
 *
 * ```ts
 * import { expressionAt } from "./capabilities/fe/diagnosis/source.ts"
 *
 * expressionAt("  return shout(user.id)", 16) // => "user.id"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const expressionAt = (line: string, column: number): string => {
  const rest = line.slice(Math.max(0, column - 1))
  let length = 0
  while (length < rest.length) {
    const char = rest[length]!
    if (isIdentifierChar(char)) length++
    else if (char === "." && isIdentifierChar(rest[length + 1])) length++
    else if (char === "?" && rest[length + 1] === "." && isIdentifierChar(rest[length + 2])) length += 2
    else break
  }
  return rest.slice(0, length)
}

/**
 * The edit distance between two names (insertions, deletions,
 * substitutions and swaps of neighbouring characters each count one).
 *
 * **Example**
 *
 * ```ts
 * import { editDistance } from "./capabilities/fe/diagnosis/source.ts"
 *
 * editDistance("lbi", "lib") // => 1
 * editDistance("Button", "button") // => 1
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const editDistance: (a: string, b: string) => number = sharedEditDistance

/** The characters of a line outside string literals and a trailing // comment. */
const codeOf = (line: string): string => {
  let out = ""
  let i = 0
  while (i < line.length) {
    const char = line[i]!
    if (char === "/" && line[i + 1] === "/") break
    if (char === "'" || char === '"' || char === "`") {
      const end = line.indexOf(char, i + 1)
      if (end === -1) break
      out += char + char
      i = end + 1
      continue
    }
    out += char
    i++
  }
  return out
}

const blockKeywords = new Set(["if", "else", "for", "while", "do", "switch", "try", "catch", "finally", "return"])

/** Whether a line that opens a block starts a function: `function`, an arrow, or a method `name(…) {`. */
const opensFunction = (line: string): boolean => {
  const code = codeOf(line)
  if (findWord(code, "function") > 0 || code.includes("=>")) return true
  const trimmed = code.trim()
  const first = identifierAt(trimmed.replace(/^(?:(?:public|private|protected|static|async|get|set)\s+)+/, ""), 1)
  const afterName = trimmed.slice(trimmed.indexOf(first) + first.length).trimStart()
  return first !== "" && !blockKeywords.has(first) && afterName.startsWith("(") && trimmed.endsWith("{")
}

/**
 * The function that contains a 1-based line: the nearest line above it
 * that opens a block still open at that line (counting braces outside
 * strings) and starts a function (`function`, `=>`, or a method). Its
 * 1-based number, or 0 (top level, or braces this count cannot follow).
 *
 * **Example**
 *
 * ```ts
 * import { enclosingFunctionLine } from "./capabilities/fe/diagnosis/source.ts"
 *
 * enclosingFunctionLine(["export function run() {", "  if (ok) {", "    await load()", "  }", "}"], 3) // => 1
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const enclosingFunctionLine = (lines: ReadonlyArray<string> | undefined, line: number): number => {
  if (lines === undefined) return 0
  let depth = 0
  for (let n = line; n >= 1; n--) {
    const code = codeOf(lines[n - 1] ?? "")
    // On the problem's own line only what comes before matters; a one-line function is its own opener.
    for (let i = code.length - 1; i >= 0; i--) {
      if (code[i] === "}") depth++
      else if (code[i] === "{") depth--
    }
    if (depth < 0) {
      if (opensFunction(lines[n - 1]!)) return n
      depth = 0
    }
  }
  return 0
}

/**
 * The 0-based index of the bracket that opens the one closing at `close`,
 * scanning backwards (strings not skipped), or -1.
 *
 * **Example**
 *
 * ```ts
 * import { openingBracket } from "./capabilities/fe/diagnosis/source.ts"
 *
 * openingBracket("const f = (a, b) => a", 15) // => 10
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const openingBracket = (text: string, close: number): number => {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" }
  const stack: Array<string> = []
  for (let i = close; i >= 0; i--) {
    const char = text[i]!
    if (pairs[char] !== undefined) stack.push(pairs[char]!)
    else if (char === stack[stack.length - 1]) {
      stack.pop()
      if (stack.length === 0) return i
    }
  }
  return -1
}

/**
 * The dependency array of the hook call that starts on a 1-based line (at
 * or after a column): the line it is on, that line, and the 0-based bounds
 * of its brackets in the line; undefined when the call has none, or it
 * spans lines.
 *
 * **Example**
 *
 * ```ts
 * import { dependencyArray } from "./capabilities/fe/diagnosis/source.ts"
 *
 * dependencyArray(["  useEffect(() => {", "    go(a, b)", "  }, [a])"], 1, 3)
 * // => { line: 3, text: "  }, [a])", open: 5, close: 7, items: ["a"] }
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const dependencyArray = (
  lines: ReadonlyArray<string> | undefined,
  line: number,
  column: number
):
  | {
      readonly line: number
      readonly text: string
      readonly open: number
      readonly close: number
      readonly items: ReadonlyArray<string>
    }
  | undefined => {
  if (lines === undefined || line < 1) return undefined
  const chunk = lines.slice(line - 1, line + 199)
  const text = chunk.join("\n")
  const open = text.indexOf("(", Math.max(0, column - 1))
  if (open === -1) return undefined
  const call = bracketed(text, open)
  if (call === undefined) return undefined
  // The last top-level argument, when it is an array literal.
  let depth = 0
  let lastArgument = open + 1
  for (let i = open + 1; i < call.end; i++) {
    const char = text[i]!
    if (char === "'" || char === '"' || char === "`") {
      const end = text.indexOf(char, i + 1)
      if (end === -1) return undefined
      i = end
    } else if (char === "(" || char === "[" || char === "{") depth++
    else if (char === ")" || char === "]" || char === "}") depth--
    else if (char === "," && depth === 0) lastArgument = i + 1
  }
  const start = text.slice(lastArgument, call.end).search(/\S/)
  const arrayOpen = start === -1 ? -1 : lastArgument + start
  if (arrayOpen === -1 || text[arrayOpen] !== "[") return undefined
  const array = bracketed(text, arrayOpen)
  if (array === undefined || array.inner.includes("\n")) return undefined
  const before = text.slice(0, arrayOpen)
  const offset = line - 1 + before.split("\n").length - 1
  const lineStart = before.lastIndexOf("\n") + 1
  return {
    line: offset + 1,
    text: lines[offset]!,
    open: arrayOpen - lineStart,
    close: array.end - lineStart,
    items: array.inner
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "")
  }
}

/**
 * The object of the member access at a 1-based column: the expression
 * starting there (names, calls, indexing, `.member`s) without its last
 * member access — `find()` in `find().id`, `items[0]` in `items[0].name`.
 * "" when the expression has no member access to drop.
 *
 * **Example**
 *
 * ```ts
 * import { objectAt } from "./capabilities/fe/diagnosis/source.ts"
 *
 * objectAt("export const id = find().id", 19) // => "find()"
 * objectAt("  return items[0].name.trim()", 10) // => "items[0].name"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const objectAt = (line: string, column: number): string => {
  const start = column - 1
  const parts: Array<{ readonly start: number; readonly kind: "name" | "member" | "call" }> = []
  let i = start
  while (i < line.length) {
    const char = line[i]!
    if (parts.length === 0 && isIdentifierChar(char)) {
      parts.push({ start: i, kind: "name" })
      while (isIdentifierChar(line[i])) i++
    } else if (parts.length > 0 && (char === "(" || char === "[")) {
      const group = bracketed(line, i)
      if (group === undefined) break
      parts.push({ start: i, kind: "call" })
      i = group.end + 1
    } else if (parts.length > 0 && (char === "." || (char === "?" && line[i + 1] === "."))) {
      const name = char === "." ? i + 1 : i + 2
      if (!isIdentifierChar(line[name])) break
      parts.push({ start: i, kind: "member" })
      i = name
      while (isIdentifierChar(line[i])) i++
    } else break
  }
  // The last member access, followed only by calls (a method call is dropped with its arguments).
  let last = parts.length - 1
  while (last > 0 && parts[last]!.kind === "call") last--
  return last > 0 && parts[last]!.kind === "member" ? line.slice(start, parts[last]!.start) : ""
}

/**
 * The module an import line (`import … from './x'`, `export … from './x'`,
 * `import './x'`) or a `require('./x')` names, or undefined.
 *
 * **Example**
 *
 * ```ts
 * import { importSpecifier } from "./capabilities/fe/diagnosis/source.ts"
 *
 * importSpecifier("import { a } from './lib'") // => "./lib"
 * importSpecifier("const { b } = require('./cart')") // => "./cart"
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const importSpecifier = (line: string): string | undefined => {
  const trimmed = line.trim()
  const from = trimmed.lastIndexOf(" from ")
  const call = trimmed.indexOf("require(")
  const start =
    (trimmed.startsWith("import ") || trimmed.startsWith("export ")) && from !== -1
      ? from + " from ".length
      : trimmed.startsWith("import ")
        ? "import ".length
        : call !== -1
          ? call + "require(".length
          : -1
  const quote = start === -1 ? undefined : trimmed[start]
  if (quote !== "'" && quote !== '"') return undefined
  const end = trimmed.indexOf(quote, start + 1)
  return end === -1 ? undefined : trimmed.slice(start + 1, end)
}

/**
 * An import line without one of its names: `import { a, b } from 'm'` →
 * `import { a } from 'm'`, `import R, { a } from 'm'` without `R` →
 * `import { a } from 'm'`; `""` when it was the only name (the line goes);
 * undefined when the name is not imported on this line.
 *
 * **Example**
 *
 * ```ts
 * import { removeImportName } from "./capabilities/fe/diagnosis/source.ts"
 *
 * removeImportName("import { useState, useEffect } from 'react'", "useEffect") // => "import { useState } from 'react'"
 * removeImportName("import { useEffect } from 'react'", "useEffect") // => ""
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const removeImportName = (line: string, name: string): string | undefined => {
  const trimmed = line.trimStart()
  const from = line.lastIndexOf(" from ")
  if (!trimmed.startsWith("import ") || from === -1) return undefined
  const indent = line.slice(0, line.length - trimmed.length)
  const head = line.slice(line.indexOf("import ") + 7, from).trim()
  const typeOnly = head.startsWith("type ")
  const clause = typeOnly ? head.slice(5).trim() : head
  const open = clause.indexOf("{")
  const defaultPart = (open === -1 ? clause : clause.slice(0, open)).replace(/,\s*$/, "").trim()
  const named =
    open === -1
      ? []
      : (bracketed(clause, open)?.inner ?? "")
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "")
  const localOf = (spec: string) =>
    spec
      .replace(/^type\s+/, "")
      .split(/\s+as\s+/)
      .pop()!
      .trim()
  const keepDefault = defaultPart !== "" && localOf(defaultPart.replace(/^\*\s+as\s+/, "")) !== name
  const keepNamed = named.filter((spec) => localOf(spec) !== name)
  if ((defaultPart === "" || keepDefault) && keepNamed.length === named.length) return undefined
  if (!keepDefault && keepNamed.length === 0) return ""
  const parts = [
    ...(keepDefault ? [defaultPart] : []),
    ...(keepNamed.length > 0 ? [`{ ${keepNamed.join(", ")} }`] : [])
  ]
  return `${indent}import ${typeOnly ? "type " : ""}${parts.join(", ")}${line.slice(from)}`
}

/**
 * Whether a line holds a whole statement: its brackets balance (strings
 * skipped) and it does not end in the middle of an expression.
 *
 * **Example**
 *
 * ```ts
 * import { isWholeStatement } from "./capabilities/fe/diagnosis/source.ts"
 *
 * isWholeStatement("  const unused = 'hello'") // => true
 * isWholeStatement("  const handler = () => {") // => false
 * ```
 *
 * @category source
 * @since 0.1.0
 */
export const isWholeStatement = (line: string): boolean => {
  let depth = 0
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === "'" || char === '"' || char === "`") {
      const end = line.indexOf(char, i + 1)
      if (end === -1) return false
      i = end
    } else if (char === "(" || char === "[" || char === "{") depth++
    else if (char === ")" || char === "]" || char === "}") depth--
    else if (char === "/" && line[i + 1] === "/") break
  }
  const end = line.replace(/\/\/.*$/, "").trimEnd()
  return depth === 0 && !/[=,(+\-*/&|?:]$/.test(end) && !end.endsWith("=>")
}
