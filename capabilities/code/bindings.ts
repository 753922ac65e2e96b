/**
 * TypeScript declarations for code mode: agents write code that calls the
 * server's tools as `await mcp.<namespace>.<tool>(args)`, and read this
 * `.d.ts` text to write it typed. Each tool becomes a method whose argument
 * type comes from its input JSON Schema and whose result type comes from its
 * output JSON Schema (or is the text or content blocks of a result without
 * one).
 *
 * The JSON Schema → TypeScript conversion is bounded (a nesting depth, a
 * size budget per schema, at most two expansions of a recursive `$ref`), so
 * a hostile schema costs little and ends in `unknown`; descriptions become
 * doc comments that cannot be closed early, and names that are not
 * identifiers are quoted, so neither can inject code. The output is
 * deterministic (namespaces and tools sorted) so it can be compared and
 * cached.
 *
 * @since 0.3.0
 */

/**
 * A tool as code mode shows it: `mcp.<namespace>.<name>(args)`, with its
 * description, its input and output JSON Schemas, and whether it needs the
 * user's confirmation.
 *
 * **Example**
 *
 * ```ts
 * import type { BindingTool } from "./capabilities/code/bindings.ts"
 *
 * const verify: BindingTool = {
 *   namespace: "fe",
 *   name: "verify",
 *   description: "Typechecks, lints and tests the project.",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } } },
 *   outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface BindingTool {
  /** The namespace: a capability's id (`fe`) or a learned capability's namespace. */
  readonly namespace: string
  /** The bare tool name, without the namespace: quoted in the output when it is not an identifier. */
  readonly name: string
  readonly description: string
  /** The JSON Schema (2020-12 or draft-07 flavoured) of the arguments object. */
  readonly inputSchema: { readonly [key: string]: unknown }
  /** The JSON Schema of the structured result, when the tool has one. */
  readonly outputSchema?: { readonly [key: string]: unknown } | undefined
  /** Whether a call needs the user's confirmation (`confirm: true` only after the user agreed). */
  readonly destructive?: boolean | undefined
}

/**
 * What {@link typeOfSchema} renders: argument types are `readonly`
 * throughout (properties, index signatures, arrays and tuples), so an agent
 * may pass readonly values; results are mutable.
 *
 * **Example**
 *
 * ```ts
 * import type { TypeOptions } from "./capabilities/code/bindings.ts"
 *
 * const options: TypeOptions = { readonly: true, indent: "    " }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface TypeOptions {
  /** Whether properties, index signatures and arrays are `readonly` (default false). */
  readonly readonly?: boolean | undefined
  /** The indentation of the line the type starts on; members are indented two more spaces (default none). */
  readonly indent?: string | undefined
}

/**
 * The limits of the JSON Schema → TypeScript conversion: beyond them a type
 * is `unknown` (and an object whose properties were cut short gets a
 * `[key: string]: unknown` index signature, so the rest can still be
 * passed).
 *
 * **Example**
 *
 * ```ts
 * import { limits } from "./capabilities/code/bindings.ts"
 *
 * limits.maxDepth // => 8: objects, arrays and tuples nested deeper are unknown
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const limits = {
  /** Objects, arrays and tuples nested deeper than this are `unknown`. */
  maxDepth: 8,
  /** The most nested schemas (combinators and `$ref`s included) followed on one path. */
  maxFrames: 64,
  /** The size budget of one schema, roughly in characters of output. */
  budget: 20_000,
  /** How often one `$ref` target may be expanded inside itself before it is `unknown`. */
  maxRefExpansions: 2,
  /** The most elements of a tuple; a longer tuple is an array of `unknown`. */
  maxTupleElements: 32,
  /** Property names longer than this are left out (an index signature takes them). */
  maxNameLength: 256,
  /** Tool descriptions are cut to this many characters. */
  maxToolDescription: 4_000,
  /** Property descriptions are cut to this many characters. */
  maxPropertyDescription: 1_000
} as const

/**
 * The TypeScript type of a JSON Schema, for one value: `type` (a name or an
 * array of names), `enum`, `const`, `anyOf`/`oneOf` (unions), `allOf`
 * (intersections), `$ref` to `#/$defs/…`, `#/definitions/…` or any local
 * JSON pointer (inlined), `nullable: true` (OpenAPI), objects (`properties`,
 * `required`, `additionalProperties`, `patternProperties`) and arrays
 * (`items`, `prefixItems`, draft-07 tuple `items` with `additionalItems`,
 * `minItems`/`maxItems`); anything else is `unknown`. Property descriptions
 * become doc comments. Object types span several lines, indented from
 * `options.indent`.
 *
 * **Example**
 *
 * ```ts
 * import { typeOfSchema } from "./capabilities/code/bindings.ts"
 *
 * typeOfSchema({ type: ["string", "null"] }) // => "string | null"
 * typeOfSchema({ type: "array", items: { enum: ["a", "b"] } }, { readonly: true }) // => 'readonly ("a" | "b")[]'
 * typeOfSchema({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }) // => "{\n  ok: boolean\n}"
 * ```
 *
 * @category rendering
 * @since 0.3.0
 */
export const typeOfSchema = (schema: unknown, options: TypeOptions = {}): string =>
  render(schema, 0, options.indent ?? "", newWalk(schema, options.readonly === true)).text

/**
 * The `.d.ts` text code mode gives the agent: a `ContentBlock` type, the
 * `ToolError` a failed call rejects with, `declare const mcp` with one
 * readonly member per namespace (sorted) holding one method per tool (sorted
 * by name; a repeated namespace and name keeps the first), and
 * `declare const input: unknown`. A method's `args` is optional when its
 * input schema requires nothing; it resolves to the output schema's type, or,
 * without one, to `string | ContentBlock[]` (a text-only result's text,
 * otherwise its blocks). The tool's description is the method's doc comment,
 * with a line saying when it needs the user's confirmation.
 *
 * **Example**
 *
 * ```ts
 * import { declarations } from "./capabilities/code/bindings.ts"
 *
 * const text = declarations([
 *   {
 *     namespace: "fe",
 *     name: "verify",
 *     description: "Typechecks, lints and tests the project.",
 *     inputSchema: { type: "object", properties: { path: { type: "string" } } },
 *     outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
 *   }
 * ])
 * text.includes("verify(args?: {") // => true (nothing is required)
 * text.includes("}): Promise<{\n      ok: boolean\n    }>") // => true
 * ```
 *
 * @category rendering
 * @since 0.3.0
 */
export const declarations = (tools: ReadonlyArray<BindingTool>): string => {
  const byNamespace = new Map<string, Map<string, BindingTool>>()
  for (const tool of tools) {
    let namespace = byNamespace.get(tool.namespace)
    if (namespace === undefined) {
      namespace = new Map()
      byNamespace.set(tool.namespace, namespace)
    }
    if (!namespace.has(tool.name)) namespace.set(tool.name, tool)
  }
  const lines: Array<string> = [preamble]
  if (byNamespace.size === 0) {
    lines.push("declare const mcp: {}")
  } else {
    lines.push("declare const mcp: {")
    for (const namespace of [...byNamespace.keys()].sort(byCodeUnits)) {
      lines.push(`  readonly ${propertyKey(namespace)}: {`)
      const namespaceTools = byNamespace.get(namespace)!
      for (const name of [...namespaceTools.keys()].sort(byCodeUnits)) {
        lines.push(...method(namespaceTools.get(name)!, "    "))
      }
      lines.push("  }")
    }
    lines.push("}")
  }
  lines.push("declare const input: unknown", "")
  return lines.join("\n")
}

// -- the fixed part -------------------------------------------------------------

const preamble = [
  "/** Content blocks of a tool result without structured output. */",
  'type ContentBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | ' +
    '{ type: "audio"; data: string; mimeType: string } | ' +
    '{ type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } } | ' +
    '{ type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string }',
  "/** Thrown (rejected) by a call whose tool answered with an error: `message` is the tool's error text; " +
    "`code` and `suggestion` when the server gave them. */",
  "interface ToolError extends Error { readonly code?: string; readonly suggestion?: string }",
  "/** The server's tools, by namespace: `await mcp.<namespace>.<tool>(args)`; a tool's error rejects with a " +
    "ToolError. */"
].join("\n")

const destructiveNote =
  "Destructive: needs the user's confirmation. Pass `confirm: true` only after the user agreed to this exact call."

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const method = (tool: BindingTool, indent: string): Array<string> => {
  const doc = commentText(tool.description, limits.maxToolDescription)
  if (tool.destructive === true) doc.push(...(doc.length > 0 ? ["", destructiveNote] : [destructiveNote]))
  const lines =
    doc.length > 0 ? [`${indent}/**`, ...doc.map((line) => `${indent} *${prefixed(line)}`), `${indent} */`] : []
  const args = render(tool.inputSchema, 0, indent, newWalk(tool.inputSchema, true)).text
  const optional = requiresNothing(tool.inputSchema) ? "?" : ""
  const result =
    tool.outputSchema === undefined
      ? "string | ContentBlock[]"
      : render(tool.outputSchema, 0, indent, newWalk(tool.outputSchema, false)).text
  // `new(...)` in a type literal would be a construct signature, not a method.
  const name = tool.name === "new" ? '"new"' : propertyKey(tool.name)
  lines.push(`${indent}${name}(args${optional}: ${args}): Promise<${result}>`)
  return lines
}

const prefixed = (line: string): string => (line === "" ? "" : ` ${line}`)

// `args` may be left out when the input schema (or an `allOf` part of it, or its `$ref` target) requires no
// property; past 8 hops or 256 schemas, it may.
const requiresNothing = (root: unknown): boolean => {
  let visits = 0
  const check = (schema: unknown, hops: number): boolean => {
    if (!isRecord(schema) || hops > 8 || ++visits > 256) return true
    const required = own(schema, "required")
    if (Array.isArray(required) && required.length > 0) return false
    const ref = own(schema, "$ref")
    if (typeof ref === "string" && !check(resolvePointer(ref, root), hops + 1)) return false
    const allOf = own(schema, "allOf")
    return !Array.isArray(allOf) || allOf.every((part) => check(part, hops + 1))
  }
  return check(root, 0)
}

// -- doc comments ---------------------------------------------------------------

// A description as comment lines: cut to `max` characters, line breaks normalized, other control characters
// made spaces, `*/` escaped, trailing spaces and surrounding blank lines dropped.
const commentText = (text: unknown, max: number): Array<string> => {
  if (typeof text !== "string") return []
  let clipped = text
  if (clipped.length > max) {
    const code = clipped.charCodeAt(max - 1)
    clipped = `${clipped.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)}…`
  }
  const lines = clipped
    .replace(/\r\n?|[\u2028\u2029]/g, "\n")
    .replace(controlCharacters, " ")
    .replaceAll("*/", "*\\/")
    .split("\n")
    .map((line) => line.trimEnd())
  while (lines.length > 0 && lines[0] === "") lines.shift()
  while (lines.length > 0 && lines.at(-1) === "") lines.pop()
  return lines
}

// C0 controls but tab and line feed, and DEL.
// oxlint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f]/g

const docComment = (lines: ReadonlyArray<string>, indent: string): string =>
  lines.length === 0
    ? ""
    : lines.length === 1
      ? `${indent}/** ${lines[0]} */\n`
      : `${indent}/**\n${lines.map((line) => `${indent} *${prefixed(line)}\n`).join("")}${indent} */\n`

// -- JSON Schema → TypeScript ----------------------------------------------------

type JsonObject = { readonly [key: string]: unknown }

const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Own keys only: `#/$defs/constructor` must not find Object.prototype.constructor.
const own = (object: JsonObject, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined)

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/

const propertyKey = (name: string): string => (identifier.test(name) ? name : JSON.stringify(name))

// How tightly a rendered type binds: a union member, an intersection member, `readonly T[]`, or a type that can
// take `[]` after it.
const Union = 0
const Intersection = 1
const Operator = 2
const Primary = 3

interface Rendered {
  readonly text: string
  readonly precedence: number
}

const primary = (text: string): Rendered => ({ text, precedence: Primary })
const unknownType = primary("unknown")
const neverType = primary("never")

interface Walk {
  readonly root: unknown
  readonly readonly: boolean
  budget: number
  frames: number
  // The `$ref` targets being expanded on the current path.
  readonly expanding: Array<unknown>
  // The keys of the objects seen, listed once: an object reached many times through $refs costs its size once.
  readonly keys: Map<object, ReadonlyArray<string>>
}

const newWalk = (root: unknown, readonly: boolean): Walk => ({
  root,
  readonly,
  budget: limits.budget,
  frames: 0,
  expanding: [],
  keys: new Map()
})

const keysOf = (object: object, walk: Walk): ReadonlyArray<string> => {
  let keys = walk.keys.get(object)
  if (keys === undefined) {
    keys = Object.keys(object)
    walk.keys.set(object, keys)
  }
  return keys
}

const render = (schema: unknown, depth: number, indent: string, walk: Walk): Rendered => {
  if (schema === false) return neverType
  if (!isRecord(schema) || walk.budget <= 0 || walk.frames >= limits.maxFrames) return unknownType
  walk.budget -= 2
  walk.frames++
  try {
    const parts: Array<Rendered> = []
    const ref = own(schema, "$ref")
    if (typeof ref === "string") parts.push(renderRef(ref, depth, indent, walk))
    if (Object.hasOwn(schema, "const")) {
      parts.push(literal(schema.const, depth, indent, walk))
    } else if (Array.isArray(own(schema, "enum"))) {
      parts.push(
        union(each(own(schema, "enum") as ReadonlyArray<unknown>, walk, (value) => literal(value, depth, indent, walk)))
      )
    } else {
      const types = typeNames(schema)
      if (types.length > 0) parts.push(union(each(types, walk, (type) => typed(type, schema, depth, indent, walk))))
    }
    for (const key of ["anyOf", "oneOf"]) {
      const members = own(schema, key)
      if (Array.isArray(members))
        parts.push(union(each(members, walk, (member) => render(member, depth, indent, walk))))
    }
    const allOf = own(schema, "allOf")
    if (Array.isArray(allOf))
      parts.push(intersection(each(allOf, walk, (member) => render(member, depth, indent, walk), false)))
    const type = intersection(parts)
    return own(schema, "nullable") === true ? union([type, primary("null")]) : type
  } finally {
    walk.frames--
  }
}

// The `type` names, or the one that the keywords imply when there is no `type`.
const typeNames = (schema: JsonObject): ReadonlyArray<string> => {
  const type = own(schema, "type")
  if (typeof type === "string") return [type]
  if (Array.isArray(type)) return type.slice(0, 8).filter((name): name is string => typeof name === "string")
  if (["properties", "additionalProperties", "patternProperties"].some((key) => Object.hasOwn(schema, key))) {
    return ["object"]
  }
  if (["items", "prefixItems"].some((key) => Object.hasOwn(schema, key))) return ["array"]
  return []
}

// Renders the items of a list in order while the budget lasts, each costing at least 1, so a long list, or one
// reached many times through $refs, costs no more than the budget. Past the budget the last one is `unknown`
// (which a union takes whole and an intersection drops); for a union, the first `unknown` ends the list.
const each = <A>(list: ReadonlyArray<A>, walk: Walk, f: (item: A) => Rendered, forUnion = true): Array<Rendered> => {
  const rendered: Array<Rendered> = []
  for (const item of list) {
    if (walk.budget <= 0) {
      rendered.push(unknownType)
      break
    }
    walk.budget -= 1
    const type = f(item)
    rendered.push(type)
    if (forUnion && type.text === "unknown") break
  }
  return rendered
}

const typed = (type: string, schema: JsonObject, depth: number, indent: string, walk: Walk): Rendered => {
  switch (type) {
    case "string":
    case "number":
    case "boolean":
    case "null":
      return primary(type)
    case "integer":
      return primary("number")
    case "array":
      return array(schema, depth, indent, walk)
    case "object":
      return object(schema, depth, indent, walk)
    default:
      return unknownType
  }
}

const renderRef = (ref: string, depth: number, indent: string, walk: Walk): Rendered => {
  const target = resolvePointer(ref, walk.root)
  if (target === undefined) return unknownType
  if (walk.expanding.filter((expanding) => expanding === target).length >= limits.maxRefExpansions) return unknownType
  walk.expanding.push(target)
  try {
    return render(target, depth, indent, walk)
  } finally {
    walk.expanding.pop()
  }
}

// A local JSON pointer (`#`, `#/$defs/X`, `#/definitions/X`, `#/properties/a~1b`), through own keys only.
const resolvePointer = (ref: string, root: unknown): unknown => {
  if (ref === "#") return root
  if (!ref.startsWith("#/") || ref.length > 1_024) return undefined
  const segments = ref.slice(2).split("/")
  if (segments.length > 32) return undefined
  let at: unknown = root
  for (const segment of segments) {
    let key: string
    try {
      key = decodeURIComponent(segment).replaceAll("~1", "/").replaceAll("~0", "~")
    } catch {
      return undefined
    }
    if (Array.isArray(at)) {
      at = /^(0|[1-9][0-9]*)$/.test(key) ? at[Number(key)] : undefined
    } else if (isRecord(at)) {
      at = own(at, key)
    } else {
      return undefined
    }
    if (at === undefined) return undefined
  }
  return at
}

// The literal type of a JSON value (`const` and `enum` members): objects and arrays structurally.
const literal = (value: unknown, depth: number, indent: string, walk: Walk): Rendered => {
  if (walk.budget <= 0) return unknownType
  switch (typeof value) {
    case "string": {
      const text = JSON.stringify(value)
      walk.budget -= text.length
      return primary(text)
    }
    case "number": {
      walk.budget -= 8
      if (!Number.isFinite(value)) return primary("number")
      // `-1[]` would not parse: a negative literal is parenthesized where a primary type is needed.
      return value < 0 ? { text: String(value), precedence: Operator } : primary(String(value))
    }
    case "boolean":
      walk.budget -= 5
      return primary(String(value))
    case "object": {
      if (value === null) return primary("null")
      if (depth >= limits.maxDepth) return unknownType
      if (Array.isArray(value)) {
        if (value.length > limits.maxTupleElements) return readonlyArray(unknownType, walk)
        const elements = value.map((element) => literal(element, depth + 1, indent, walk).text)
        return withReadonly(`[${elements.join(", ")}]`, walk)
      }
      const inner = `${indent}  `
      const members: Array<string> = []
      for (const key of keysOf(value, walk)) {
        if (walk.budget <= 0) return unknownType
        walk.budget -= key.length + 4
        const type = literal((value as JsonObject)[key], depth + 1, inner, walk)
        members.push(`${inner}${walk.readonly ? "readonly " : ""}${propertyKey(key)}: ${type.text}`)
      }
      return members.length === 0
        ? primary(`{ ${walk.readonly ? "readonly " : ""}[key: string]: never }`)
        : primary(`{\n${members.map((member) => `${member}\n`).join("")}${indent}}`)
    }
    default:
      return unknownType
  }
}

// `unknown` absorbs a union, `never` drops out of it; repeated members are written once.
const union = (members: ReadonlyArray<Rendered>): Rendered => {
  const texts = new Set<string>()
  let last: Rendered = neverType
  for (const member of members) {
    if (member.text === "unknown") return unknownType
    if (member.text === "never" || texts.has(member.text)) continue
    texts.add(member.text)
    last = member
  }
  return texts.size <= 1 ? last : { text: [...texts].join(" | "), precedence: Union }
}

// `never` absorbs an intersection, `unknown` drops out of it; repeated members are written once.
const intersection = (members: ReadonlyArray<Rendered>): Rendered => {
  const texts = new Set<string>()
  let last: Rendered = unknownType
  for (const member of members) {
    if (member.text === "never") return neverType
    if (member.text === "unknown") continue
    texts.add(member.precedence === Union ? `(${member.text})` : member.text)
    last = member
  }
  return texts.size <= 1 ? last : { text: [...texts].join(" & "), precedence: Intersection }
}

const withReadonly = (text: string, walk: Walk): Rendered =>
  walk.readonly ? { text: `readonly ${text}`, precedence: Operator } : primary(text)

const readonlyArray = (element: Rendered, walk: Walk): Rendered =>
  withReadonly(`${element.precedence === Primary ? element.text : `(${element.text})`}[]`, walk)

const array = (schema: JsonObject, depth: number, indent: string, walk: Walk): Rendered => {
  if (depth >= limits.maxDepth) return unknownType
  const prefixItems = own(schema, "prefixItems")
  const items = own(schema, "items")
  // 2020-12 tuples: prefixItems, then items for the rest; draft-07 tuples: items as an array, then additionalItems.
  const [tuple, rest] = Array.isArray(prefixItems)
    ? [prefixItems, items]
    : Array.isArray(items)
      ? [items, own(schema, "additionalItems")]
      : [undefined, items]
  if (tuple === undefined) {
    if (items === false) return withReadonly("[]", walk)
    return readonlyArray(items === undefined ? unknownType : render(items, depth + 1, indent, walk), walk)
  }
  if (tuple.length > limits.maxTupleElements) return readonlyArray(unknownType, walk)
  const minItems = nonNegativeInteger(own(schema, "minItems")) ?? 0
  const maxItems = nonNegativeInteger(own(schema, "maxItems"))
  const elements = tuple.map((element, index) => {
    const type = render(element, depth + 1, indent, walk)
    const text = type.precedence === Primary ? type.text : `(${type.text})`
    return index < minItems ? type.text : `${text}?`
  })
  if (rest !== false && (maxItems === undefined || maxItems > tuple.length)) {
    const type = rest === undefined || rest === true ? unknownType : render(rest, depth + 1, indent, walk)
    if (type.text !== "never") elements.push(`...${type.precedence === Primary ? type.text : `(${type.text})`}[]`)
  }
  return withReadonly(`[${elements.join(", ")}]`, walk)
}

const nonNegativeInteger = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined

interface Member {
  readonly key: string
  readonly optional: boolean
  readonly type: Rendered
  readonly doc: ReadonlyArray<string>
}

const object = (schema: JsonObject, depth: number, indent: string, walk: Walk): Rendered => {
  if (depth >= limits.maxDepth) return unknownType
  const inner = `${indent}  `
  const properties = isRecord(own(schema, "properties")) ? (own(schema, "properties") as JsonObject) : {}
  const requiredList = own(schema, "required")
  const required = new Set<string>()
  if (Array.isArray(requiredList)) {
    // Every 16 names cost 1: a long list reached many times through $refs stays within the budget.
    const listed = requiredList.slice(0, Math.max(0, walk.budget) * 16)
    for (const name of listed) if (typeof name === "string") required.add(name)
    walk.budget -= Math.ceil(listed.length / 16)
  }
  const additional = own(schema, "additionalProperties")
  const patterns = own(schema, "patternProperties")
  const members: Array<Member> = []
  let truncated = false
  const add = (key: string, propertySchema: unknown) => {
    if (walk.budget <= 0 || key.length > limits.maxNameLength) {
      truncated = true
      return
    }
    const doc = propertyDoc(propertySchema, walk.root)
    walk.budget -= key.length + doc.reduce((size, line) => size + line.length + 4, 0) + 8
    members.push({ key, optional: !required.has(key), type: render(propertySchema, depth + 1, inner, walk), doc })
  }
  const names = keysOf(properties, walk)
  for (const name of names) {
    add(name, properties[name])
    if (truncated && walk.budget <= 0) break
  }
  // Required names without a schema of their own: whatever additionalProperties allows.
  for (const name of required) {
    if (truncated && walk.budget <= 0) break
    if (!Object.hasOwn(properties, name)) add(name, isRecord(additional) ? additional : true)
  }

  const indexTypes: Array<Rendered> = []
  if (isRecord(additional)) indexTypes.push(render(additional, depth + 1, inner, walk))
  else if (additional !== false && names.length === 0 && !isRecord(patterns)) indexTypes.push(unknownType)
  if (isRecord(patterns)) {
    indexTypes.push(
      ...each(keysOf(patterns, walk), walk, (pattern) => render(patterns[pattern], depth + 1, inner, walk))
    )
  }
  if (truncated) indexTypes.push(unknownType)
  let index = indexTypes.length === 0 ? undefined : union(indexTypes)
  if (index !== undefined && index.text !== "unknown" && members.length > 0) {
    // Every property must fit the index signature: widen it by the property types, or give up on it.
    const memberTypes = members.map((member) => member.type)
    const optional = members.some((member) => member.optional) ? [primary("undefined")] : []
    index = memberTypes.some((type) => type.text.includes("\n"))
      ? unknownType
      : union([index, ...memberTypes, ...optional])
  }

  const readonly = walk.readonly ? "readonly " : ""
  if (members.length === 0) {
    const type = index === undefined ? "never" : index.text
    return primary(
      type.includes("\n")
        ? `{\n${inner}${readonly}[key: string]: ${type}\n${indent}}`
        : `{ ${readonly}[key: string]: ${type} }`
    )
  }
  const lines = members.map(
    (member) =>
      `${docComment(member.doc, inner)}${inner}${readonly}${propertyKey(member.key)}${member.optional ? "?" : ""}: ${member.type.text}\n`
  )
  if (index !== undefined) lines.push(`${inner}${readonly}[key: string]: ${index.text}\n`)
  return primary(`{\n${lines.join("")}${indent}}`)
}

// A property's doc comment: its description (or, for a bare `$ref`, the target's), and `@deprecated`.
const propertyDoc = (schema: unknown, root: unknown): ReadonlyArray<string> => {
  if (!isRecord(schema)) return []
  let description = own(schema, "description")
  const ref = own(schema, "$ref")
  if (description === undefined && typeof ref === "string") {
    const target = resolvePointer(ref, root)
    if (isRecord(target)) description = own(target, "description")
  }
  const lines = commentText(description, limits.maxPropertyDescription)
  if (own(schema, "deprecated") === true) lines.push("@deprecated")
  return lines
}
