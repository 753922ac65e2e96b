/**
 * Parses JSON with comments and trailing commas (JSONC), the format of
 * `tsconfig.json`, `biome.jsonc` and VS Code settings: a small scanner that
 * drops comments and trailing commas outside strings, then `JSON.parse`.
 *
 * @since 0.1.0
 */

/**
 * The text with `//` and `/* *\/` comments and trailing commas removed
 * (outside strings), ready for `JSON.parse`. Line breaks are kept, so the
 * line numbers of a parse error stay right.
 *
 * **Example**
 *
 * ```ts
 * import { stripJsonc } from "./capabilities/fe/jsonc.ts"
 *
 * JSON.parse(stripJsonc('{ "a": 1, // one\n "b": [2,], }')) // => { a: 1, b: [2] }
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const stripJsonc = (text: string): string => {
  let out = ""
  let i = 0
  const n = text.length
  // Index in `out` of a comma not yet followed by anything but whitespace, or -1.
  let pendingComma = -1
  while (i < n) {
    const c = text[i]!
    if (c === '"') {
      let j = i + 1
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
      pendingComma = -1
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      const stop = end === -1 ? n : end + 2
      out += text.slice(i, stop).replace(/[^\n]/g, "")
      i = stop
    } else if (c === ",") {
      pendingComma = out.length
      out += c
      i++
    } else if (c === "}" || c === "]") {
      if (pendingComma !== -1) out = out.slice(0, pendingComma) + " " + out.slice(pendingComma + 1)
      pendingComma = -1
      out += c
      i++
    } else {
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") pendingComma = -1
      out += c
      i++
    }
  }
  return out
}

/**
 * Parses JSONC; `undefined` when the text is not valid even so.
 *
 * **Example**
 *
 * ```ts
 * import { parseJsonc } from "./capabilities/fe/jsonc.ts"
 *
 * parseJsonc('{ /* bundler *\/ "jsx": "react-jsx", }') // => { jsx: "react-jsx" }
 * parseJsonc("{ nope") // => undefined
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const parseJsonc = (text: string): unknown => {
  try {
    return JSON.parse(stripJsonc(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text))
  } catch {
    return undefined
  }
}
