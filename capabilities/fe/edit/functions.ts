/**
 * Edits of functions and React code from the syntax tree: a React hook's
 * dependency array, a function's parameters, a component's destructured
 * props (and the props type's member when declared in the same file).
 *
 * @since 0.4.0
 */
import { type Analysis, analyse, type Binding, isIntrinsicJsxName } from "./scope.ts"
import { type Edit, isIdentifier, nearestNames, type Node, Refusal, type Source } from "./source.ts"

/** The hooks with a dependency array, and the index of that array among their arguments. */
const hookDependencyIndex: Readonly<Record<string, number>> = {
  useEffect: 1,
  useLayoutEffect: 1,
  useInsertionEffect: 1,
  useMemo: 1,
  useCallback: 1,
  useImperativeHandle: 2
}

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as any).type === "string"

/** Every node of a tree, depth first, with `visit` deciding whether to go into it. */
const walk = (node: Node, visit: (node: Node) => boolean | void): void => {
  if (visit(node) === false) return
  for (const key in node) {
    if (key === "type" || key === "start" || key === "end") continue
    const value = node[key]
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) walk(item, visit)
    } else if (isNode(value)) walk(value, visit)
  }
}

const hookName = (callee: Node): string | undefined =>
  callee.type === "Identifier"
    ? callee.name
    : callee.type === "MemberExpression" && !callee.computed && callee.property?.type === "Identifier"
      ? callee.property.name
      : undefined

/**
 * The edits adding `names` to the dependency array of the hook call at (or
 * enclosing) `line`; the array is added when missing.
 *
 * **Example**
 *
 * ```ts
 * import { hookDependencyEdits } from "./capabilities/fe/edit/functions.ts"
 * import type { Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * hookDependencyEdits(source, 12, ["count"])
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const hookDependencyEdits = (
  source: Source,
  line: number,
  names: ReadonlyArray<string>
): { readonly edits: ReadonlyArray<Edit>; readonly hook: string; readonly added: ReadonlyArray<string> } => {
  for (const name of names) {
    if (!name.split(".").every((part) => isIdentifier(part) || part === "current")) {
      throw new Refusal(
        "invalid_name",
        `"${name}" is not a dependency (an identifier or a property path such as user.id).`,
        "Pass names such as count or props.id."
      )
    }
  }
  const lineStart = source.lineStart(line)
  const lineEnd = source.lineStart(line + 1)
  let best: Node | undefined
  walk(source.program, (node) => {
    if (node.end < lineStart || node.start > lineEnd) return false
    if (node.type === "CallExpression") {
      const name = hookName(node.callee)
      if (name !== undefined && name in hookDependencyIndex) {
        const startsOnLine = node.start >= lineStart && node.start < lineEnd
        const encloses = node.start <= lineStart && node.end >= lineStart
        if (startsOnLine || encloses) {
          if (best === undefined || node.start >= best.start) best = node
        }
      }
    }
    return true
  })
  if (best === undefined) {
    throw new Refusal(
      "hook_not_found",
      `No ${Object.keys(hookDependencyIndex).join("/")} call at or around ${source.path}:${line}.`,
      "Pass the line of the hook call (fe_doctor's react-hooks/exhaustive-deps diagnosis gives it)."
    )
  }
  const call = best
  const hook = hookName(call.callee)!
  const index = hookDependencyIndex[hook]!
  const args: ReadonlyArray<Node> = call.arguments
  const array = args[index]
  if (array === undefined) {
    const last = args.at(-1)
    if (last === undefined || args.length < index) {
      throw new Refusal(
        "hook_arguments",
        `The ${hook} call at ${source.path}:${source.lineOf(call.start)} has ${args.length} argument(s); its dependency array would be argument ${index + 1}.`,
        "Write the hook's callback first."
      )
    }
    return { edits: [{ start: last.end, end: last.end, text: `, [${names.join(", ")}]` }], hook, added: names }
  }
  if (array.type !== "ArrayExpression") {
    throw new Refusal(
      "hook_arguments",
      `The dependencies of the ${hook} call at ${source.path}:${source.lineOf(call.start)} are not an array literal.`,
      "Edit it with replace_text."
    )
  }
  const present = new Set(
    (array.elements as ReadonlyArray<Node | null>).flatMap((e) =>
      e === null ? [] : [source.text.slice(e.start, e.end).replace(/\s+/g, "")]
    )
  )
  const added = [...new Set(names)].filter((name) => !present.has(name))
  if (added.length === 0) return { edits: [], hook, added }
  const elements = (array.elements as ReadonlyArray<Node | null>).filter((e): e is Node => e !== null)
  const last = elements.at(-1)
  const edits: Array<Edit> =
    last === undefined
      ? [{ start: array.start + 1, end: array.end - 1, text: added.join(", ") }]
      : [{ start: last.end, end: last.end, text: `, ${added.join(", ")}` }]
  return { edits, hook, added }
}

/** A top-level function by name: a declaration, or a variable initialised with a function (or `memo(fn)`…). */
/** A `const C: FC<Props> = (…) => …` function's declared type (the declarator's annotation), by function node. */
const declaredTypes = new WeakMap<Node, Node>()
/** The top-level statement declaring a function found by findFunction. */
const statements = new WeakMap<Node, Node>()

/**
 * The source with the scope analysis of the function's statement alone (names from outside it are unresolved
 * there): what the parameter and prop operations need, at a fraction of a whole large file's analysis.
 */
const functionOnly = (source: Source, fn: Node): Source => {
  const statement = statements.get(fn)
  if (statement === undefined) return source
  let analysis: Analysis | undefined
  return {
    path: source.path,
    text: source.text,
    program: source.program,
    comments: source.comments,
    lineOf: source.lineOf,
    lineStart: source.lineStart,
    get analysis() {
      analysis ??= analyse({ type: "Program", start: statement.start, end: statement.end, body: [statement] })
      return analysis
    }
  }
}

const findFunction = (source: Source, name: string): Node => {
  const names: Array<string> = []
  for (const raw of source.program.body as ReadonlyArray<Node>) {
    const statement =
      (raw.type === "ExportNamedDeclaration" || raw.type === "ExportDefaultDeclaration") && isNode(raw.declaration)
        ? raw.declaration
        : raw
    if (statement.type === "FunctionDeclaration" && statement.id) {
      names.push(statement.id.name)
      if (statement.id.name === name && statement.body) {
        statements.set(statement, raw)
        return statement
      }
    }
    if (statement.type === "VariableDeclaration") {
      for (const declarator of statement.declarations) {
        if (declarator.id?.type !== "Identifier") continue
        names.push(declarator.id.name)
        if (declarator.id.name !== name) continue
        let init: Node | null = declarator.init
        while (init !== null && (init.type === "CallExpression" || init.type === "TSAsExpression")) {
          init = init.type === "CallExpression" ? (init.arguments[0] ?? null) : init.expression
        }
        if (init !== null && (init.type === "ArrowFunctionExpression" || init.type === "FunctionExpression")) {
          const declared = declarator.id.typeAnnotation?.typeAnnotation
          if (isNode(declared)) declaredTypes.set(init, declared)
          statements.set(init, raw)
          return init
        }
      }
    }
  }
  throw new Refusal(
    "function_not_found",
    `${source.path} has no top-level function ${name}.`,
    `Nearest: ${nearestNames(name, names).join(", ") || "none"}.`
  )
}

const paramName = (param: Node): string | undefined => {
  const inner = param.type === "TSParameterProperty" ? param.parameter : param
  const target = inner.type === "AssignmentPattern" ? inner.left : inner.type === "RestElement" ? inner.argument : inner
  return target.type === "Identifier" ? target.name : undefined
}

/** The function's own scope (its parameters'), found by its range. */
const functionScope = (source: Source, fn: Node): number =>
  source.analysis.scopes.find((s) => s.start === fn.start && s.end === fn.end && s.function)?.index ?? -1

/** The binding of `name` among a function's parameters or its body's top-level declarations. */
const ownBinding = (source: Source, scope: number, name: string) => {
  if (scope < 0) return undefined
  const params = source.analysis.scopes[scope]!
  return (
    params.bindings.get(name) ??
    (params.body === undefined ? undefined : source.analysis.scopes[params.body]!.bindings.get(name))
  )
}

/** The offset of the `(` opening a function's parameter list. */
const openParen = (source: Source, fn: Node): number => {
  const from = fn.typeParameters?.end ?? fn.id?.end ?? fn.start
  return source.text.indexOf("(", from)
}

/** Edits removing one element of a comma-separated list (with its comma). */
const removeFromList = (list: ReadonlyArray<Node>, index: number): Edit => {
  const item = list[index]!
  if (index < list.length - 1) return { start: item.start, end: list[index + 1]!.start, text: "" }
  if (index > 0) return { start: list[index - 1]!.end, end: item.end, text: "" }
  return { start: item.start, end: item.end, text: "" }
}

const usedIn = (binding: Binding | undefined): number => binding?.references.length ?? 0

/**
 * The edits adding, removing or renaming a parameter of a top-level
 * function. Removing a parameter still used in the body is refused;
 * callers are not changed (fe_verify shows the calls to update).
 *
 * **Example**
 *
 * ```ts
 * import { parameterEdits } from "./capabilities/fe/edit/functions.ts"
 * import type { Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * parameterEdits(source, { function: "total", action: "add", name: "tax", type: "number", default: "0" })
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const parameterEdits = (
  whole: Source,
  request: {
    readonly function: string
    readonly action: "add" | "remove" | "rename"
    readonly name: string
    readonly to?: string | undefined
    readonly type?: string | undefined
    readonly default?: string | undefined
  }
): { readonly edits: ReadonlyArray<Edit>; readonly summary: string } => {
  const fn = findFunction(whole, request.function)
  const source = functionOnly(whole, fn)
  const params: ReadonlyArray<Node> = fn.params
  const index = params.findIndex((p) => paramName(p) === request.name)
  const scope = functionScope(source, fn)
  const binding = ownBinding(source, scope, request.name)
  const names = params.map(paramName).filter((n): n is string => n !== undefined)
  switch (request.action) {
    case "add": {
      if (!isIdentifier(request.name)) {
        throw new Refusal("invalid_name", `"${request.name}" is not a valid identifier.`, "Pass a parameter name.")
      }
      if (index !== -1 || binding !== undefined) {
        throw new Refusal(
          "name_conflict",
          `${request.function} already has a parameter or local named ${request.name}.`,
          "Pick another name."
        )
      }
      const captured = source.analysis.unresolved.find((u) => u.name === request.name)
      if (captured !== undefined) {
        throw new Refusal(
          "name_conflict",
          `${request.function} uses ${request.name} from outside it (${source.path}:${source.lineOf(captured.start)}), which a parameter of that name would hide.`,
          "Pick another name."
        )
      }
      const rest = params.at(-1)?.type === "RestElement"
      if (rest) {
        throw new Refusal(
          "rest_parameter",
          `${request.function} ends with a rest parameter; a parameter cannot follow it.`,
          "Edit the signature with replace_text."
        )
      }
      const isTs = /\.(?:ts|tsx|mts|cts)$/.test(source.path)
      const text = `${request.name}${request.type !== undefined && isTs ? `: ${request.type}` : ""}${
        request.default !== undefined ? ` = ${request.default}` : ""
      }`
      const last = params.at(-1)
      if (last !== undefined) {
        // `x => …` (or `async x => …`) without parentheses gets them.
        const before = source.text.slice(fn.start, last.start).trim()
        if (fn.type === "ArrowFunctionExpression" && params.length === 1 && (before === "" || before === "async")) {
          return {
            edits: [
              { start: last.start, end: last.end, text: `(${source.text.slice(last.start, last.end)}, ${text})` }
            ],
            summary: `Added the parameter ${request.name} to ${request.function} (callers unchanged).`
          }
        }
        return {
          edits: [{ start: last.end, end: last.end, text: `, ${text}` }],
          summary: `Added the parameter ${request.name} to ${request.function} (callers unchanged).`
        }
      }
      const paren = openParen(source, fn)
      return {
        edits: [{ start: paren + 1, end: paren + 1, text }],
        summary: `Added the parameter ${request.name} to ${request.function} (callers unchanged).`
      }
    }
    case "remove": {
      if (index === -1) {
        throw new Refusal(
          "parameter_not_found",
          `${request.function} has no parameter ${request.name}.`,
          `Its parameters: ${names.join(", ") || "none"}.`
        )
      }
      if (usedIn(binding) > 0) {
        const use = binding!.references[0]!
        throw new Refusal(
          "parameter_in_use",
          `${request.name} is still used in ${request.function} (${source.path}:${source.lineOf(use.start)}).`,
          "Remove its uses first, or keep the parameter."
        )
      }
      // `x => …` (or `async x => …`) without parentheses: `() => …`.
      const only = params[0]!
      const before = source.text.slice(fn.start, only.start).trim()
      const bare = fn.type === "ArrowFunctionExpression" && params.length === 1 && (before === "" || before === "async")
      return {
        edits: [bare ? { start: only.start, end: only.end, text: "()" } : removeFromList(params, index)],
        summary: `Removed the parameter ${request.name} of ${request.function} (callers unchanged: fe_verify shows calls passing it).`
      }
    }
    case "rename": {
      if (index === -1 || binding === undefined) {
        throw new Refusal(
          "parameter_not_found",
          `${request.function} has no parameter ${request.name}.`,
          `Its parameters: ${names.join(", ") || "none"}.`
        )
      }
      if (request.to === undefined) {
        throw new Refusal("missing_to", "rename needs to (the new name).", "Pass to.")
      }
      return {
        edits: localRename(source, binding, request.to),
        summary: `Renamed the parameter ${request.name} of ${request.function} to ${request.to}.`
      }
    }
  }
}

/** A rename of one local binding (checked for conflicts), shorthand properties kept working. */
const localRename = (source: Source, binding: Binding, to: string): ReadonlyArray<Edit> => {
  if (!isIdentifier(to)) {
    throw new Refusal("invalid_name", `"${to}" is not a valid identifier.`, "Pass another name.")
  }
  const { lookup, scopes } = source.analysis
  if (isIntrinsicJsxName(to) && binding.references.some((r) => r.jsxName === true)) {
    throw new Refusal(
      "jsx_intrinsic",
      `${binding.name} is used as a JSX element; <${to}> would be an HTML element.`,
      "Pick a name starting with an uppercase letter."
    )
  }
  const body = scopes[binding.scope]!.body
  if (scopes[binding.scope]!.bindings.has(to) || (body !== undefined && scopes[body]!.bindings.has(to))) {
    throw new Refusal("name_conflict", `${to} is already declared next to ${binding.name}.`, "Pick another name.")
  }
  for (const occurrence of binding.references) {
    const found = lookup(occurrence.scope, to)
    if (found !== undefined && found.scope !== binding.scope && source.analysis.within(found.scope, binding.scope)) {
      throw new Refusal(
        "name_conflict",
        `${to} is declared at ${source.path}:${source.lineOf(found.declarations[0]?.start ?? 0)}, where ${binding.name} is used.`,
        "Pick another name."
      )
    }
  }
  for (const free of source.analysis.unresolved) {
    if (free.name === to && source.analysis.within(free.scope, binding.scope)) {
      throw new Refusal(
        "name_conflict",
        `${to} is used inside the function (${source.path}:${source.lineOf(free.start)}) as a name from outside it, which the new name would hide.`,
        "Pick another name."
      )
    }
  }
  for (const scope of scopes) {
    const outer = scope.bindings.get(to)
    if (outer === undefined || !source.analysis.within(binding.scope, outer.scope)) continue
    if (outer.references.some((r) => source.analysis.within(r.scope, binding.scope))) {
      throw new Refusal("name_conflict", `${to} from an outer scope is used inside the function.`, "Pick another name.")
    }
  }
  return [...binding.declarations, ...binding.references].map((o) => ({
    start: o.start,
    end: o.end,
    text: o.kind === "shorthand" ? `${o.name}: ${to}` : to
  }))
}

/** The members of the props type when declared in the same file: a type literal inline, or a named interface/type. */
interface PropsType {
  /** The type literals or interface bodies holding the props' members (several for an intersection). */
  readonly parts: ReadonlyArray<{ readonly body: Node; readonly members: ReadonlyArray<Node> }>
  /** The props type's text when some part of it is not declared in the file (so not updated). */
  readonly unresolved: string | undefined
}

/**
 * The props type of a component: the destructured parameter's annotation, or else the `P` of the declared
 * `FC<P>` / `FunctionComponent<P>` / `React.FC<P>`; references followed to interfaces and type aliases of the same
 * file, intersections into their parts.
 */
const propsTypeMembers = (source: Source, param: Node, fn: Node): PropsType | undefined => {
  let annotation: Node | undefined = param.typeAnnotation?.typeAnnotation
  if (!isNode(annotation)) {
    const declared = declaredTypes.get(fn)
    const args = declared?.type === "TSTypeReference" ? declared.typeArguments?.params : undefined
    annotation = args?.[0]
  }
  if (!isNode(annotation)) return undefined
  const parts: Array<{ readonly body: Node; readonly members: ReadonlyArray<Node> }> = []
  const missing: Array<string> = []
  const seen = new Set<string>()
  const follow = (type: Node): void => {
    if (type.type === "TSTypeLiteral") parts.push({ body: type, members: type.members })
    else if (type.type === "TSIntersectionType") for (const part of type.types) follow(part)
    else if (type.type === "TSParenthesizedType") follow(type.typeAnnotation)
    else if (type.type === "TSTypeReference" && type.typeName?.type === "Identifier") {
      const name: string = type.typeName.name
      if (seen.has(name)) return
      seen.add(name)
      for (const raw of source.program.body as ReadonlyArray<Node>) {
        const statement = raw.type === "ExportNamedDeclaration" && isNode(raw.declaration) ? raw.declaration : raw
        if (statement.type === "TSInterfaceDeclaration" && statement.id.name === name) {
          parts.push({ body: statement.body, members: statement.body.body })
          return
        }
        if (statement.type === "TSTypeAliasDeclaration" && statement.id.name === name) {
          follow(statement.typeAnnotation)
          return
        }
      }
      missing.push(source.text.slice(type.start, type.end))
    } else missing.push(source.text.slice(type.start, type.end))
  }
  follow(annotation)
  return {
    parts,
    unresolved: missing.length === 0 ? undefined : source.text.slice(annotation.start, annotation.end)
  }
}

const memberName = (member: Node): string | undefined =>
  member.type === "TSPropertySignature" && !member.computed ? (member.key.name ?? member.key.value) : undefined

/**
 * The edits adding, removing or renaming a destructured prop of a component
 * (a function whose first parameter is an object pattern), and its member
 * in the props type when that is declared in the same file. A rename also
 * renames the local binding; removing a prop still used is refused.
 *
 * **Example**
 *
 * ```ts
 * import { propEdits } from "./capabilities/fe/edit/functions.ts"
 * import type { Source } from "./capabilities/fe/edit/source.ts"
 *
 * declare const source: Source
 * propEdits(source, { component: "Button", action: "add", name: "size", type: '"sm" | "lg"', optional: true })
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const propEdits = (
  whole: Source,
  request: {
    readonly component: string
    readonly action: "add" | "remove" | "rename"
    readonly name: string
    readonly to?: string | undefined
    readonly type?: string | undefined
    readonly optional?: boolean | undefined
    readonly default?: string | undefined
  }
): { readonly edits: ReadonlyArray<Edit>; readonly summary: string } => {
  const fn = findFunction(whole, request.component)
  const source = functionOnly(whole, fn)
  const param: Node | undefined = fn.params[0]
  const pattern = param?.type === "AssignmentPattern" ? param.left : param
  if (pattern?.type !== "ObjectPattern") {
    throw new Refusal(
      "not_a_component",
      `${request.component}'s first parameter is not a destructured props object ({ a, b }: Props).`,
      "Use change_parameter for plain parameters."
    )
  }
  const properties: ReadonlyArray<Node> = pattern.properties
  const keyOf = (p: Node) => (p.type === "Property" && !p.computed ? (p.key.name ?? p.key.value) : undefined)
  const index = properties.findIndex((p) => keyOf(p) === request.name)
  const propsType = propsTypeMembers(source, pattern, fn)
  // The part declaring the prop (for an intersection), else the first one (where an added prop goes).
  const type =
    propsType?.parts.find((part) => part.members.some((m) => memberName(m) === request.name)) ?? propsType?.parts[0]
  const memberIndex = type === undefined ? -1 : type.members.findIndex((m) => memberName(m) === request.name)
  /** What the summary says when the props type could not be updated. */
  const typeNote =
    propsType === undefined
      ? ""
      : memberIndex !== -1
        ? ""
        : propsType.unresolved !== undefined
          ? ` The props type ${propsType.unresolved} is not (wholly) declared in ${source.path}, so it was NOT updated: change it by hand (fe_verify shows where).`
          : ""
  const scope = functionScope(source, fn)
  const edits: Array<Edit> = []
  switch (request.action) {
    case "add": {
      if (!isIdentifier(request.name)) {
        throw new Refusal("invalid_name", `"${request.name}" is not a valid identifier.`, "Pass a prop name.")
      }
      if (index !== -1 || ownBinding(source, scope, request.name) !== undefined) {
        throw new Refusal("name_conflict", `${request.component} already has ${request.name}.`, "Pick another name.")
      }
      const text = `${request.name}${request.default !== undefined ? ` = ${request.default}` : ""}`
      const restIndex = properties.findIndex((p) => p.type === "RestElement")
      if (restIndex !== -1)
        edits.push({ start: properties[restIndex]!.start, end: properties[restIndex]!.start, text: `${text}, ` })
      else if (properties.length > 0)
        edits.push({ start: properties.at(-1)!.end, end: properties.at(-1)!.end, text: `, ${text}` })
      else edits.push({ start: pattern.start + 1, end: pattern.start + 1, text: ` ${text} ` })
      if (type !== undefined && memberIndex === -1) {
        const optional = request.optional ?? request.default !== undefined
        const member = `${request.name}${optional ? "?" : ""}: ${request.type ?? "unknown"}`
        const last = type.members.at(-1)
        if (last === undefined)
          edits.push({ start: type.body.start + 1, end: type.body.start + 1, text: ` ${member} ` })
        else {
          const between = source.text.slice(type.body.start, type.body.end)
          if (between.includes("\n")) {
            let lineStart = last.start
            while (lineStart > 0 && source.text[lineStart - 1] !== "\n") lineStart--
            const indent = source.text.slice(lineStart, last.start)
            const separator =
              source.text.charAt(last.end - 1) === ";" ? ";" : source.text.charAt(last.end - 1) === "," ? "," : ""
            edits.push({ start: last.end, end: last.end, text: `\n${indent}${member}${separator}` })
          } else {
            const ends = source.text.charAt(last.end - 1)
            edits.push({
              start: last.end,
              end: last.end,
              text: ends === ";" || ends === "," ? ` ${member}${ends}` : `; ${member}`
            })
          }
        }
      }
      return {
        edits,
        summary:
          `Added the prop ${request.name} to ${request.component}.` +
          (type === undefined && propsType?.unresolved !== undefined ? typeNote : "")
      }
    }
    case "remove": {
      if (index === -1) {
        throw new Refusal(
          "prop_not_found",
          `${request.component} destructures no prop ${request.name}.`,
          `Its props: ${properties.map(keyOf).filter(Boolean).join(", ")}.`
        )
      }
      const binding = ownBinding(source, scope, request.name)
      if (usedIn(binding) > 0) {
        throw new Refusal(
          "prop_in_use",
          `${request.name} is still used in ${request.component} (${source.path}:${source.lineOf(binding!.references[0]!.start)}).`,
          "Remove its uses first."
        )
      }
      edits.push(removeFromList(properties, index))
      if (type !== undefined && memberIndex !== -1) {
        const member = type.members[memberIndex]!
        let start = member.start
        while (start > type.body.start + 1 && /[ \t]/.test(source.text[start - 1]!)) start--
        let end = member.end
        if (source.text[start - 1] === "\n") {
          while (end < type.body.end && /[ \t]/.test(source.text[end]!)) end++
          if (source.text[end] === "\n") end++
        }
        edits.push({ start, end, text: "" })
      }
      return {
        edits,
        summary: `Removed the prop ${request.name} of ${request.component} (JSX call sites unchanged).${typeNote}`
      }
    }
    case "rename": {
      if (index === -1) {
        throw new Refusal(
          "prop_not_found",
          `${request.component} destructures no prop ${request.name}.`,
          `Its props: ${properties.map(keyOf).filter(Boolean).join(", ")}.`
        )
      }
      const to = request.to
      if (to === undefined || !isIdentifier(to)) {
        throw new Refusal("invalid_name", `rename needs to, a valid identifier.`, "Pass to.")
      }
      const property = properties[index]!
      const binding = ownBinding(source, scope, request.name)
      if (property.shorthand && binding !== undefined) {
        // `{ label }` → `{ title }`: the key and the local both.
        for (const o of [...binding.declarations, ...binding.references]) {
          if (o.start === property.key.start) edits.push({ start: o.start, end: o.end, text: to })
        }
        edits.push(...localRename(source, binding, to).filter((e) => e.start !== property.key.start))
      } else edits.push({ start: property.key.start, end: property.key.end, text: to })
      if (type !== undefined && memberIndex !== -1) {
        const key = type.members[memberIndex]!.key
        edits.push({ start: key.start, end: key.end, text: to })
      }
      return { edits, summary: `Renamed the prop ${request.name} of ${request.component} to ${to}.${typeNote}` }
    }
  }
}

/**
 * The edits renaming the attribute `name` to `to` at every JSX use of a
 * component binding (`<Button label="…">` → `<Button title="…">`).
 *
 * **Example**
 *
 * ```ts
 * import { jsxAttributeEdits } from "./capabilities/fe/edit/functions.ts"
 * import type { Binding } from "./capabilities/fe/edit/scope.ts"
 *
 * declare const button: Binding
 * jsxAttributeEdits(button, "label", "title")
 * ```
 *
 * @category operations
 * @since 0.4.0
 */
export const jsxAttributeEdits = (binding: Binding, name: string, to: string): ReadonlyArray<Edit> =>
  binding.references.flatMap((reference) =>
    reference.jsx === undefined
      ? []
      : (reference.jsx.attributes as ReadonlyArray<Node>)
          .filter((a) => a.type === "JSXAttribute" && a.name?.type === "JSXIdentifier" && a.name.name === name)
          .map((a) => ({ start: a.name.start, end: a.name.end, text: to }))
  )
