/**
 * RFC 6570 URI templates, read backwards: a template is parsed once into a
 * matcher that takes a concrete URI and gives the values of its variables,
 * and an expander that does the forward direction.
 *
 * All four levels of the RFC are understood: simple `{x}`, reserved `{+x}`,
 * fragment `{#x}`, label `{.x}`, path segment `{/x}`, path parameter `{;x}`,
 * query `{?x,y}` and continuation `{&x}`, several variables per expression,
 * prefix (`{x:3}`) and explode (`{/x*}`) modifiers. Matching is the usual,
 * lenient reading of a template: a simple value never spans `/`, `?` or `#`
 * (expansion would have percent-encoded them), a reserved or fragment value
 * may; several variables in one expression are split at commas (a single
 * one takes the commas with it); query parameters may come in any order and
 * be absent, and foreign ones are ignored. An exploded variable matches a
 * list. A prefix modifier only shapes expansion: matching takes the whole
 * value. Values are percent-decoded; a URI with a malformed escape matches
 * nothing.
 *
 * @internal
 */

/** The value of one variable: a string, or a list for an exploded variable. */
export type Value = string | ReadonlyArray<string>

interface VarSpec {
  readonly name: string
  readonly explode: boolean
  readonly prefix: number | undefined
}

type Operator = "" | "+" | "#" | "." | "/" | ";" | "?" | "&"

type Part =
  | { readonly _tag: "Literal"; readonly text: string }
  | { readonly _tag: "Expression"; readonly operator: Operator; readonly vars: ReadonlyArray<VarSpec> }

/** A parsed template. */
export interface UriTemplate {
  readonly template: string
  /** The variable names, in order of appearance. */
  readonly variables: ReadonlyArray<string>
  /** The names of the exploded variables (their values are lists). */
  readonly lists: ReadonlySet<string>
  /** The values of the variables in `uri`, or undefined when it does not match. */
  readonly match: (uri: string) => Record<string, Value> | undefined
  /** The URI for these values (a missing variable expands to nothing). */
  readonly expand: (values: { readonly [name: string]: Value | undefined }) => string
}

/** Why a template could not be parsed. */
export class TemplateError {
  readonly _tag = "TemplateError"
  readonly reason: string
  constructor(reason: string) {
    this.reason = reason
  }
}

const operators = new Set<string>(["+", "#", ".", "/", ";", "?", "&"])
const varName = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Parses a template; a malformed one is a `TemplateError` naming the problem. */
export const parse = (template: string): UriTemplate | TemplateError => {
  const parts: Array<Part> = []
  let index = 0
  while (index < template.length) {
    const open = template.indexOf("{", index)
    const close = template.indexOf("}", index)
    if (close !== -1 && (open === -1 || close < open)) {
      return new TemplateError(`unmatched "}" at position ${close}`)
    }
    if (open === -1) {
      parts.push({ _tag: "Literal", text: template.slice(index) })
      break
    }
    if (open > index) parts.push({ _tag: "Literal", text: template.slice(index, open) })
    const end = template.indexOf("}", open)
    if (end === -1) return new TemplateError(`unclosed "{" at position ${open}`)
    let body = template.slice(open + 1, end)
    let operator: Operator = ""
    if (body.length > 0 && operators.has(body[0]!)) {
      operator = body[0] as Operator
      body = body.slice(1)
    } else if (body.length > 0 && "=,!@|".includes(body[0]!)) {
      return new TemplateError(`operator "${body[0]}" is reserved by RFC 6570 and not supported`)
    }
    if (body.length === 0) return new TemplateError(`empty expression at position ${open}`)
    const vars: Array<VarSpec> = []
    for (const spec of body.split(",")) {
      let name = spec
      let explode = false
      let prefix: number | undefined
      if (name.endsWith("*")) {
        explode = true
        name = name.slice(0, -1)
      } else {
        const colon = name.indexOf(":")
        if (colon !== -1) {
          const digits = name.slice(colon + 1)
          if (!/^[1-9][0-9]{0,3}$/.test(digits)) return new TemplateError(`bad prefix modifier in "{${body}}"`)
          prefix = Number(digits)
          name = name.slice(0, colon)
        }
      }
      if (!varName.test(name)) return new TemplateError(`bad variable name ${JSON.stringify(name)}`)
      vars.push({ name, explode, prefix })
    }
    parts.push({ _tag: "Expression", operator, vars })
    index = end + 1
  }

  const variables: Array<string> = []
  const lists = new Set<string>()
  for (const part of parts) {
    if (part._tag !== "Expression") continue
    for (const v of part.vars) {
      if (variables.includes(v.name)) return new TemplateError(`variable "${v.name}" appears twice`)
      variables.push(v.name)
      if (v.explode) lists.add(v.name)
    }
  }

  // One regular expression for the whole template. Each expression becomes
  // one capture group; its content is split into variables afterwards.
  let source = "^"
  const groups: Array<Part & { _tag: "Expression" }> = []
  for (const part of parts) {
    if (part._tag === "Literal") {
      source += escapeRegExp(part.text)
      continue
    }
    groups.push(part)
    switch (part.operator) {
      case "":
        source += "([^/?#]*?)"
        break
      case "+":
        source += "(.*?)"
        break
      case "#":
        source += "(?:#(.*?))?"
        break
      case ".":
        source += "((?:\\.[^/?#.]*)*?)"
        break
      case "/":
        source += "((?:/[^/?#]*)*?)"
        break
      case ";":
        source += "((?:;[^/?#;]*)*?)"
        break
      case "?":
        source += "(?:\\?([^#]*?))?"
        break
      case "&":
        source += "((?:&[^#]*?)?)"
        break
    }
  }
  const regex = new RegExp(`${source}$`, "s")

  const decode = (text: string): string | undefined => {
    try {
      return decodeURIComponent(text)
    } catch {
      return undefined
    }
  }

  // The values of one expression's text, or undefined when it cannot be read.
  const read = (part: Part & { _tag: "Expression" }, text: string, out: Record<string, Value>): boolean => {
    const { operator, vars } = part
    switch (operator) {
      case "":
      case "+":
      case "#": {
        if (text === "") return true
        // One variable takes the whole text; several are split at commas.
        if (vars.length === 1) {
          const v = vars[0]!
          const value = v.explode ? text.split(",").map(decode) : decode(text)
          if (value === undefined || (Array.isArray(value) && value.includes(undefined))) return false
          out[v.name] = value as Value
          return true
        }
        const pieces = text.split(",")
        if (pieces.length > vars.length) return false
        for (let i = 0; i < pieces.length; i++) {
          const value = decode(pieces[i]!)
          if (value === undefined) return false
          out[vars[i]!.name] = value
        }
        return true
      }
      case ".":
      case "/": {
        if (text === "") return true
        const pieces = text.slice(1).split(operator)
        // An exploded last variable takes the rest as a list.
        let i = 0
        for (const v of vars) {
          if (i >= pieces.length) break
          if (v.explode) {
            const rest = pieces.slice(i).map(decode)
            if (rest.includes(undefined)) return false
            out[v.name] = rest as Array<string>
            i = pieces.length
            break
          }
          const value = decode(pieces[i++]!)
          if (value === undefined) return false
          out[v.name] = value
        }
        return i === pieces.length
      }
      case ";":
      case "?":
      case "&": {
        const body = operator === "&" ? text.slice(1) : operator === ";" ? text.slice(1) : text
        if (body === "") return true
        const known = new Map(vars.map((v) => [v.name, v]))
        for (const pair of body.split(operator === ";" ? ";" : "&")) {
          const eq = pair.indexOf("=")
          const name = decode(eq === -1 ? pair : pair.slice(0, eq))
          const raw = eq === -1 ? "" : pair.slice(eq + 1)
          if (name === undefined) return false
          const v = known.get(name)
          // Other parameters may follow in the query; they are not ours.
          if (v === undefined) {
            if (operator === ";") return false
            continue
          }
          const value = decode(raw)
          if (value === undefined) return false
          if (v.explode) {
            const previous = out[name]
            out[name] = [...(Array.isArray(previous) ? previous : []), value]
          } else {
            out[name] = value
          }
        }
        return true
      }
    }
  }

  const match = (uri: string): Record<string, Value> | undefined => {
    const found = regex.exec(uri)
    if (found === null) return undefined
    const out: Record<string, Value> = {}
    for (let i = 0; i < groups.length; i++) {
      if (!read(groups[i]!, found[i + 1] ?? "", out)) return undefined
    }
    return out
  }

  const unreserved = (text: string): string =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  const reserved = (text: string): string => encodeURI(text).replace(/%25([0-9A-Fa-f]{2})/g, "%$1")

  const expand = (values: { readonly [name: string]: Value | undefined }): string => {
    let out = ""
    for (const part of parts) {
      if (part._tag === "Literal") {
        out += part.text
        continue
      }
      const { operator, vars } = part
      const encode = operator === "+" || operator === "#" ? reserved : unreserved
      const first =
        operator === "" || operator === "+" ? "" : operator === "?" ? "?" : operator === "&" ? "&" : operator
      const separator =
        operator === "" || operator === "+" || operator === "#" ? "," : operator === "?" ? "&" : operator
      const named = operator === ";" || operator === "?" || operator === "&"
      const pieces: Array<string> = []
      for (const v of vars) {
        const value = values[v.name]
        if (value === undefined) continue
        if (typeof value === "string") {
          const text = encode(v.prefix === undefined ? value : value.slice(0, v.prefix))
          pieces.push(named ? (text === "" && operator === ";" ? v.name : `${v.name}=${text}`) : text)
        } else if (value.length > 0) {
          if (v.explode) {
            for (const item of value) pieces.push(named ? `${v.name}=${encode(item)}` : encode(item))
          } else {
            const text = value.map(encode).join(",")
            pieces.push(named ? `${v.name}=${text}` : text)
          }
        }
      }
      if (pieces.length > 0) out += (operator === "#" ? "#" : first) + pieces.join(separator)
    }
    return out
  }

  return { template, variables, lists, match, expand }
}
