/**
 * Makes an arbitrary value safe to serialize as JSON.
 *
 * @internal
 */

/**
 * `value` itself when `JSON.stringify` takes it; otherwise a copy where
 * bigints become strings, cycles become `"[Circular]"` and errors become
 * `{ name, message }`.
 */
export const jsonSafe = (value: unknown): unknown => {
  try {
    JSON.stringify(value)
    return value
  } catch {
    return JSON.parse(JSON.stringify(value, safeReplacer()))
  }
}

/**
 * A `JSON.stringify` replacer for values JSON cannot carry as they are. Only
 * true cycles (an object inside itself) are cut; an object that appears twice
 * side by side is written twice.
 */
export const safeReplacer = () => {
  const ancestors: Array<unknown> = []
  return function (this: unknown, _key: string, value: unknown): unknown {
    // `this` is the object holding `value`: drop the ancestors we have left.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop()
    if (typeof value === "bigint") return value.toString()
    if (typeof value === "symbol" || typeof value === "function") return String(value)
    if (value instanceof Error) return { name: value.name, message: value.message }
    if (typeof value === "object" && value !== null) {
      if (ancestors.includes(value)) return "[Circular]"
      ancestors.push(value)
    }
    return value
  }
}
