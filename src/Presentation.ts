/**
 * How the request front presents a tool's output: its canonical value (what
 * `$prev` refers to), and the compact `agent` form that spends fewer tokens
 * on the same information.
 *
 * The canonical output of a result is its `structuredContent` when it has
 * one; otherwise the text of its content when every block is text (one
 * string, blocks joined with a line break); otherwise its content blocks as
 * they are (images, resources).
 *
 * The `agent` form changes only the layout: object fields whose value is
 * `null`, `false`, `""`, `[]` or `{}` are left out (an absent field reads as
 * empty or false), and an array
 * of two or more objects becomes a table — `{"$cols":[…],"$rows":[[…],…]}`,
 * the keys written once instead of once per item — whenever the table is
 * shorter. Strings, numbers and booleans are never changed.
 *
 * @since 0.4.0
 */
import type { CallToolResult } from "./McpSchema.ts"

/**
 * The presentations a request may ask for: `agent` (compact), `verbose`
 * (canonical), `human` (as `verbose`).
 *
 * **Example**
 *
 * ```ts
 * import type { Mode } from "effect-mcp-runtime/Presentation"
 *
 * const mode: Mode = "agent"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type Mode = "agent" | "verbose" | "human"

/**
 * The presentations, in the order the request tool lists them.
 *
 * **Example**
 *
 * ```ts
 * import { modes } from "effect-mcp-runtime/Presentation"
 *
 * modes // => ["agent", "verbose", "human"]
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const modes: ReadonlyArray<Mode> = ["agent", "verbose", "human"]

/**
 * The canonical output of a tool result: its `structuredContent`, else its
 * text (when every content block is text), else its content blocks.
 *
 * **Example**
 *
 * ```ts
 * import { canonical } from "effect-mcp-runtime/Presentation"
 *
 * canonical({ content: [{ type: "text", text: "{\"a\":1}" }], structuredContent: { a: 1 } }) // => { a: 1 }
 * canonical({ content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] }) // => "one\ntwo"
 * ```
 *
 * @category presentation
 * @since 0.4.0
 */
export const canonical = (result: CallToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const content = result.content
  if (content.every((block) => block.type === "text")) {
    return content.length === 1
      ? (content[0] as { readonly text: string }).text
      : content.map((block) => (block as { readonly text: string }).text).join("\n")
  }
  return content
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isEmpty = (value: unknown): boolean =>
  value === null ||
  value === false ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (isPlainObject(value) && Object.keys(value).length === 0)

// Deep enough for any real output; past it a value is kept as it is.
const maxDepth = 64

const compactValue = (value: unknown, depth: number): unknown => {
  if (depth > maxDepth || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    const items = value.map((item) => compactValue(item, depth + 1))
    return tabulate(items)
  }
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const field = compactValue((value as Record<string, unknown>)[key], depth + 1)
    // defineProperty: a field named `__proto__` stays a field.
    if (!isEmpty(field))
      Object.defineProperty(out, key, { value: field, enumerable: true, writable: true, configurable: true })
  }
  return out
}

// An array of objects as columns and rows, when that is shorter than the objects.
const tabulate = (items: ReadonlyArray<unknown>): unknown => {
  if (items.length < 2 || !items.every(isPlainObject)) return items
  const columns: Array<string> = []
  const seen = new Set<string>()
  for (const item of items as ReadonlyArray<Record<string, unknown>>) {
    for (const key of Object.keys(item)) {
      if (!seen.has(key)) {
        seen.add(key)
        columns.push(key)
      }
    }
  }
  // A table of objects with nothing in common saves nothing and reads worse.
  if (columns.length === 0 || columns.length > 2 * Math.max(...items.map((item) => Object.keys(item).length))) {
    return items
  }
  const rows = (items as ReadonlyArray<Record<string, unknown>>).map((item) =>
    columns.map((column) => (Object.hasOwn(item, column) ? item[column] : null))
  )
  const table = { $cols: columns, $rows: rows }
  return JSON.stringify(table).length < JSON.stringify(items).length ? table : items
}

/**
 * The `agent` form of a canonical output: empty and false fields left out,
 * arrays of objects as tables when that is shorter; every string, number and
 * `true` kept as it is (array items are never left out).
 *
 * **Example**
 *
 * ```ts
 * import { compact } from "effect-mcp-runtime/Presentation"
 *
 * compact({ path: "a.ts", note: null, tags: [], truncated: false }) // => { path: "a.ts" }
 * compact([{ name: "a", size: 1 }, { name: "b", size: 2 }])
 * // => { $cols: ["name", "size"], $rows: [["a", 1], ["b", 2]] }
 * ```
 *
 * @category presentation
 * @since 0.4.0
 */
export const compact = (value: unknown): unknown => compactValue(value, 0)

/**
 * An output as the request asked for it: compacted for `agent` unless the
 * tool is always verbose; as it is for `verbose` and `human`.
 *
 * **Example**
 *
 * ```ts
 * import { present } from "effect-mcp-runtime/Presentation"
 *
 * present({ a: 1, b: null }, "agent", "agent") // => { a: 1 }
 * present({ a: 1, b: null }, "agent", "verbose") // => { a: 1, b: null }
 * present({ a: 1, b: null }, "verbose", "agent") // => { a: 1, b: null }
 * ```
 *
 * @category presentation
 * @since 0.4.0
 */
export const present = (output: unknown, mode: Mode, tool: "agent" | "verbose"): unknown =>
  mode === "agent" && tool === "agent" ? compact(output) : output
