/**
 * A scope analysis of one parsed file, good enough for renames: the scopes
 * (module, function, block, class, catch, type parameters), the bindings
 * each declares (variables, functions, classes, imports, parameters, types,
 * interfaces, enums, namespaces), and every identifier that refers to a
 * binding, resolved through the scope chain (hoisting included, shadowing
 * respected). Property keys, member names, labels, JSX attribute names and
 * import/export names are not references. A `const X` and a `type X` in
 * the same scope are one binding (a rename renames them together), but a
 * lookup keeps the meanings apart: a type declaration shadows only type
 * references, a value declaration only value references. A function's
 * parameters have their own scope between the outer one and the body's (a
 * default value sees the outer names, not the body's); an enum's members
 * are a scope of their own.
 *
 * Offsets are oxc's: UTF-16 code units, the JavaScript string's own.
 *
 * @since 0.4.0
 */

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }

/**
 * How an identifier occurrence is written, which decides what a rename
 * writes there: `plain` (the name alone), `shorthand` (a `{ name }`
 * property or pattern: the key stays), `import` (`import { name }`, the
 * imported and local names in one) or `export` (`export { name }`, the
 * local and exported names in one) or `member` (a namespace's export used
 * as `Space.name` outside the namespace).
 *
 * **Example**
 *
 * ```ts
 * import type { OccurrenceKind } from "./capabilities/fe/edit/scope.ts"
 *
 * const kind: OccurrenceKind = "shorthand"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type OccurrenceKind = "plain" | "shorthand" | "import" | "export" | "member"

/**
 * One identifier in the source: a binding's declaration or a reference.
 *
 * **Example**
 *
 * ```ts
 * import type { Occurrence } from "./capabilities/fe/edit/scope.ts"
 *
 * const occurrence: Occurrence = { name: "total", start: 6, end: 11, kind: "plain", scope: 0 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Occurrence {
  readonly name: string
  readonly start: number
  readonly end: number
  readonly kind: OccurrenceKind
  /** The index of the scope it is in. */
  readonly scope: number
  /** For a reference used as `name.member` (or `name.Member` in a type): the member's identifier. */
  member?: { readonly name: string; readonly start: number; readonly end: number } | undefined
  /** For a reference naming a JSX element: the element's opening tag (undefined for a closing tag). */
  jsx?: Node | undefined
  /** A reference that is a JSX element's name (`<Price />`, `</Price>`). */
  jsxName?: boolean | undefined
  /** For a reference: whether it names a value or a type (undefined: either, as `export { X }`). */
  meaning?: "value" | "type" | undefined
}

/**
 * A binding: a name declared in a scope, with its declarations (several
 * for overloads, merged interfaces, or a value and a type of one name).
 *
 * **Example**
 *
 * ```ts
 * import type { Binding } from "./capabilities/fe/edit/scope.ts"
 *
 * declare const binding: Binding
 * binding.declarations.length // 1 for a plain const
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Binding {
  readonly name: string
  readonly scope: number
  readonly kind:
    | "var"
    | "let"
    | "const"
    | "function"
    | "class"
    | "param"
    | "import"
    | "type"
    | "enum"
    | "enumMember"
    | "namespace"
  readonly declarations: Array<Occurrence>
  readonly references: Array<Occurrence>
  /** For an import: the module, and the name imported (`default`, `*`, or an export's name). */
  readonly imported?: { readonly module: string; readonly name: string } | undefined
  /** Every kind of its declarations, when they differ (a `const X` and a `type X`). */
  kinds?: Set<Binding["kind"]> | undefined
}

/**
 * One scope: its parent (-1 for the module), its range and its bindings by name.
 *
 * **Example**
 *
 * ```ts
 * import type { Scope } from "./capabilities/fe/edit/scope.ts"
 *
 * declare const scope: Scope
 * scope.bindings.has("count")
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Scope {
  readonly index: number
  readonly parent: number
  readonly start: number
  readonly end: number
  readonly function: boolean
  readonly bindings: Map<string, Binding>
  /** For a function's parameter scope: the index of its body's scope (a block body). */
  body?: number | undefined
}

/**
 * The analysis of one file.
 *
 * **Example**
 *
 * ```ts
 * import type { Analysis } from "./capabilities/fe/edit/scope.ts"
 *
 * declare const analysis: Analysis
 * analysis.scopes[0]!.bindings.get("App")?.references.length
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Analysis {
  readonly scopes: ReadonlyArray<Scope>
  /** References that resolve to no binding (globals, undeclared names). */
  readonly unresolved: ReadonlyArray<Occurrence>
  /** The binding a scope chain lookup finds for `name` from a scope (of that meaning when given), or undefined. */
  readonly lookup: (scope: number, name: string, meaning?: "value" | "type") => Binding | undefined
  /** Whether scope `inner` is `outer` or inside it. */
  readonly within: (inner: number, outer: number) => boolean
}

const functionTypes = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "TSDeclareFunction",
  "TSEmptyBodyFunctionExpression"
])

/** TypeScript signature nodes whose parameters are names of their own (not references). */
const signatureTypes = new Set([
  "TSFunctionType",
  "TSConstructorType",
  "TSMethodSignature",
  "TSCallSignatureDeclaration",
  "TSConstructSignatureDeclaration"
])

/**
 * Whether a JSX tag name is an intrinsic element (`div`, `my-element`) rather
 * than a reference to a component: it starts with a lowercase ASCII letter
 * or has a dash, as TypeScript decides.
 *
 * **Example**
 *
 * ```ts
 * import { isIntrinsicJsxName } from "./capabilities/fe/edit/scope.ts"
 *
 * isIntrinsicJsxName("div") // => true
 * isIntrinsicJsxName("Price") // => false
 * ```
 *
 * @category predicates
 * @since 0.4.0
 */
export const isIntrinsicJsxName = (name: string): boolean => /^[a-z]/.test(name) || name.includes("-")

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && typeof (value as any).type === "string"

const skippedKeys = new Set(["type", "start", "end", "range", "loc", "parent"])

const valueOnly = new Set<Binding["kind"]>(["var", "let", "const", "function", "param", "enumMember"])

/** Whether a binding (any of its declarations) has a meaning: a type alias or interface is no value, a variable no type. */
const hasMeaning = (binding: Binding, meaning: "value" | "type"): boolean =>
  binding.kinds === undefined
    ? meaning === "value"
      ? binding.kind !== "type"
      : !valueOnly.has(binding.kind)
    : [...binding.kinds].some((kind) => (meaning === "value" ? kind !== "type" : !valueOnly.has(kind)))

/**
 * Analyses a parsed program.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { analyse } from "./capabilities/fe/edit/scope.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const references = Effect.map(loadParser, (parse) => {
 *   const analysis = analyse(parse("a.ts", "const a = 1\nconsole.log(a)").program as any)
 *   return analysis.scopes[0]!.bindings.get("a")!.references.length // 1
 * })
 * ```
 *
 * @category analysis
 * @since 0.4.0
 */
export const analyse = (program: Node): Analysis => {
  const scopes: Array<Scope> = []
  /** Namespace (and enum) scopes: the namespace's name, and the names they export (an enum's members). */
  const namespaces = new Map<number, { readonly name: string; readonly exported: Set<string> }>()
  const pending: Array<Occurrence> = []
  const unresolved: Array<Occurrence> = []

  const newScope = (parent: number, node: Node, isFunction: boolean): number => {
    const index = scopes.length
    scopes.push({ index, parent, start: node.start, end: node.end, function: isFunction, bindings: new Map() })
    return index
  }

  const functionScopeOf = (scope: number): number => {
    let current = scope
    while (current > 0 && !scopes[current]!.function) current = scopes[current]!.parent
    return current
  }

  const declare = (
    scope: number,
    id: Node,
    kind: Binding["kind"],
    occurrenceKind: OccurrenceKind = "plain",
    imported?: Binding["imported"]
  ) => {
    if (id.type !== "Identifier" && id.type !== "JSXIdentifier") return
    let target = kind === "var" ? functionScopeOf(scope) : scope
    // `var x` in a body redeclares the parameter x: the same variable.
    const parent = scopes[target]!.parent
    if (kind === "var" && parent >= 0 && scopes[parent]!.body === target && scopes[parent]!.bindings.has(id.name)) {
      target = parent
    }
    const bindings = scopes[target]!.bindings
    let binding = bindings.get(id.name)
    if (binding === undefined) {
      binding = { name: id.name, scope: target, kind, declarations: [], references: [], imported }
      bindings.set(id.name, binding)
    } else if (binding.kind !== kind) {
      binding.kinds ??= new Set([binding.kind])
      binding.kinds.add(kind)
    }
    // An identifier's span includes its type annotation (`x: number`) and `?`: the name is its first characters.
    binding.declarations.push({
      name: id.name,
      start: id.start,
      end: id.start + id.name.length,
      kind: occurrenceKind,
      scope
    })
  }

  const reference = (
    scope: number,
    id: Node,
    kind: OccurrenceKind = "plain",
    meaning: "value" | "type" | "either" = kind === "export" ? "either" : "value"
  ): Occurrence => {
    const occurrence: Occurrence = { name: id.name, start: id.start, end: id.start + id.name.length, kind, scope }
    if (meaning !== "either") occurrence.meaning = meaning
    pending.push(occurrence)
    return occurrence
  }

  /** A binding pattern: declares its names (or refers to them, in an assignment when `kind` is undefined). */
  const pattern = (node: Node | null | undefined, scope: number, kind: Binding["kind"] | undefined): void => {
    if (!isNode(node)) return
    switch (node.type) {
      case "Identifier":
        if (kind === undefined) reference(scope, node)
        else declare(scope, node, kind)
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        for (const decorator of node.decorators ?? []) visit(decorator, scope)
        return
      case "ObjectPattern":
        for (const property of node.properties) {
          if (property.type === "RestElement") {
            pattern(property.argument, scope, kind)
            continue
          }
          if (property.computed) visit(property.key, scope)
          const value = property.value
          const shorthand = property.shorthand === true
          const target = value?.type === "AssignmentPattern" ? value.left : value
          if (shorthand && target?.type === "Identifier") {
            if (kind === undefined) reference(scope, target, "shorthand")
            else declare(scope, target, kind, "shorthand")
            if (value.type === "AssignmentPattern") visit(value.right, scope)
          } else pattern(value, scope, kind)
        }
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "ArrayPattern":
        for (const element of node.elements) pattern(element, scope, kind)
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "AssignmentPattern":
        pattern(node.left, scope, kind)
        visit(node.right, scope)
        return
      case "RestElement":
        pattern(node.argument, scope, kind)
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "TSParameterProperty":
        pattern(node.parameter, scope, kind)
        return
      default:
        // A member expression as an assignment target, or anything else: an expression.
        visit(node, scope)
    }
  }

  /** Declares the hoisted names of a statement list (functions, vars, classes, lets…) before visiting it. */
  const hoist = (statements: ReadonlyArray<Node>, scope: number) => {
    const namespace = namespaces.get(scope)
    for (const raw of statements) {
      if (namespace !== undefined && raw.type === "ExportNamedDeclaration" && isNode(raw.declaration)) {
        for (const name of namesOf(raw.declaration)) namespace.exported.add(name)
      }
      const statement =
        (raw.type === "ExportNamedDeclaration" || raw.type === "ExportDefaultDeclaration") && isNode(raw.declaration)
          ? raw.declaration
          : raw
      declareStatement(statement, scope)
    }
  }

  const declareStatement = (statement: Node, scope: number) => {
    switch (statement.type) {
      case "FunctionDeclaration":
      case "TSDeclareFunction":
        if (statement.id) declare(scope, statement.id, "function")
        return
      case "ClassDeclaration":
        if (statement.id) declare(scope, statement.id, "class")
        return
      case "VariableDeclaration":
        for (const declarator of statement.declarations) {
          const kind = statement.kind === "var" ? "var" : statement.kind === "let" ? "let" : "const"
          collectPatternNames(declarator.id, (id, shorthand) =>
            declare(scope, id, kind, shorthand ? "shorthand" : "plain")
          )
        }
        return
      case "TSTypeAliasDeclaration":
      case "TSInterfaceDeclaration":
        declare(scope, statement.id, "type")
        return
      case "TSEnumDeclaration":
        declare(scope, statement.id, "enum")
        return
      case "TSModuleDeclaration":
        if (statement.id?.type === "Identifier") declare(scope, statement.id, "namespace")
        return
      case "TSImportEqualsDeclaration":
        declare(scope, statement.id, "import")
        return
      case "ImportDeclaration":
        for (const specifier of statement.specifiers ?? []) {
          const imported =
            specifier.type === "ImportDefaultSpecifier"
              ? "default"
              : specifier.type === "ImportNamespaceSpecifier"
                ? "*"
                : (specifier.imported.name ?? specifier.imported.value)
          const same = specifier.type === "ImportSpecifier" && specifier.imported.start === specifier.local.start
          declare(scope, specifier.local, "import", same ? "import" : "plain", {
            module: statement.source.value,
            name: imported
          })
        }
        return
      default:
        return
    }
  }

  const namesOf = (declaration: Node): Array<string> => {
    const names: Array<string> = []
    if (declaration.type === "VariableDeclaration") {
      for (const declarator of declaration.declarations) collectPatternNames(declarator.id, (id) => names.push(id.name))
    } else if (declaration.id?.type === "Identifier") names.push(declaration.id.name)
    return names
  }

  /** The identifiers a declaration pattern binds (for hoisting; the pattern is visited later for its defaults). */
  const collectPatternNames = (node: Node | null | undefined, found: (id: Node, shorthand: boolean) => void) => {
    if (!isNode(node)) return
    switch (node.type) {
      case "Identifier":
        found(node, false)
        return
      case "ObjectPattern":
        for (const property of node.properties) {
          if (property.type === "RestElement") collectPatternNames(property.argument, found)
          else {
            const target = property.value?.type === "AssignmentPattern" ? property.value.left : property.value
            if (property.shorthand && target?.type === "Identifier") found(target, true)
            else collectPatternNames(property.value, found)
          }
        }
        return
      case "ArrayPattern":
        for (const element of node.elements) collectPatternNames(element, found)
        return
      case "AssignmentPattern":
        collectPatternNames(node.left, found)
        return
      case "RestElement":
        collectPatternNames(node.argument, found)
        return
    }
  }

  /** A declaration pattern already declared by `hoist`: only its defaults, computed keys and types are visited. */
  const declaredPattern = (node: Node | null | undefined, scope: number): void => {
    if (!isNode(node)) return
    switch (node.type) {
      case "Identifier":
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "ObjectPattern":
        for (const property of node.properties) {
          if (property.type === "RestElement") declaredPattern(property.argument, scope)
          else {
            if (property.computed) visit(property.key, scope)
            declaredPattern(property.value, scope)
          }
        }
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "ArrayPattern":
        for (const element of node.elements) declaredPattern(element, scope)
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
      case "AssignmentPattern":
        declaredPattern(node.left, scope)
        visit(node.right, scope)
        return
      case "RestElement":
        declaredPattern(node.argument, scope)
        if (node.typeAnnotation) visit(node.typeAnnotation, scope)
        return
    }
  }

  const typeParameters = (node: Node, scope: number) => {
    const declaration = node.typeParameters
    if (!isNode(declaration)) return
    for (const parameter of declaration.params ?? []) {
      if (isNode(parameter.name)) declare(scope, parameter.name, "type")
    }
    for (const parameter of declaration.params ?? []) {
      if (parameter.constraint) visit(parameter.constraint, scope)
      if (parameter.default) visit(parameter.default, scope)
    }
  }

  const statements = (body: ReadonlyArray<Node>, scope: number) => {
    hoist(body, scope)
    for (const statement of body) visit(statement, scope)
  }

  const functionLike = (node: Node, scope: number) => {
    // A function declaration's name is declared by hoist; an expression's name is its own scope's.
    // The parameters have a scope of their own: a default value does not see the body's declarations.
    const inner = newScope(scope, node, true)
    if (node.type === "FunctionExpression" && node.id) declare(inner, node.id, "function")
    typeParameters(node, inner)
    const body = node.body
    if (isNode(body) && body.type === "BlockStatement") {
      // Declared before the defaults are visited (a default may refer to another parameter).
      for (const param of node.params ?? []) {
        collectPatternNames(param.type === "TSParameterProperty" ? param.parameter : param, (id, shorthand) =>
          declare(inner, id, "param", shorthand ? "shorthand" : "plain")
        )
      }
      for (const param of node.params ?? []) {
        declaredPattern(param.type === "TSParameterProperty" ? param.parameter : param, inner)
        for (const decorator of param.decorators ?? []) visit(decorator, inner)
      }
      if (node.returnType) visit(node.returnType, inner)
      const bodyScope = newScope(inner, body, true)
      scopes[inner]!.body = bodyScope
      statements(body.body, bodyScope)
      return
    }
    for (const param of node.params ?? []) pattern(param, inner, "param")
    if (node.returnType) visit(node.returnType, inner)
    if (isNode(body)) visit(body, inner)
  }

  const classLike = (node: Node, scope: number) => {
    for (const decorator of node.decorators ?? []) visit(decorator, scope)
    const inner = newScope(scope, node, false)
    if (node.type === "ClassExpression" && node.id) declare(inner, node.id, "class")
    typeParameters(node, inner)
    if (node.superClass) visit(node.superClass, inner)
    if (node.superTypeArguments) visit(node.superTypeArguments, inner)
    for (const heritage of node.implements ?? []) visit(heritage, inner)
    for (const member of node.body?.body ?? []) visit(member, inner)
  }

  const children = (node: Node, scope: number) => {
    for (const key in node) {
      if (skippedKeys.has(key)) continue
      const value = node[key]
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item, scope)
      } else if (isNode(value)) visit(value, scope)
    }
  }

  const visit = (node: Node | null | undefined, scope: number): void => {
    if (!isNode(node)) return
    switch (node.type) {
      case "Identifier":
        reference(scope, node)
        return
      case "JSXIdentifier":
        return
      case "Program":
        statements(node.body, scope)
        return
      case "BlockStatement":
      case "StaticBlock":
        statements(node.body, newScope(scope, node, false))
        return
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression":
      case "TSDeclareFunction":
      case "TSEmptyBodyFunctionExpression":
        for (const decorator of node.decorators ?? []) visit(decorator, scope)
        functionLike(node, scope)
        return
      case "ClassDeclaration":
      case "ClassExpression":
        classLike(node, scope)
        return
      case "VariableDeclaration":
        for (const declarator of node.declarations) {
          declaredPattern(declarator.id, scope)
          visit(declarator.init, scope)
        }
        return
      case "ForStatement":
      case "ForInStatement":
      case "ForOfStatement": {
        const inner = newScope(scope, node, false)
        const init = node.init ?? node.left
        if (isNode(init) && init.type === "VariableDeclaration") hoist([init], inner)
        if (isNode(node.init)) visit(node.init, inner)
        if (isNode(node.left)) {
          if (node.left.type === "VariableDeclaration") visit(node.left, inner)
          else pattern(node.left, inner, undefined)
        }
        visit(node.test, inner)
        visit(node.update, inner)
        visit(node.right, inner)
        visit(node.body, inner)
        return
      }
      case "SwitchStatement": {
        visit(node.discriminant, scope)
        const inner = newScope(scope, node, false)
        hoist(
          node.cases.flatMap((c: Node) => c.consequent),
          inner
        )
        for (const c of node.cases) {
          visit(c.test, inner)
          for (const statement of c.consequent) visit(statement, inner)
        }
        return
      }
      case "CatchClause": {
        const inner = newScope(scope, node, false)
        if (node.param) pattern(node.param, inner, "let")
        if (isNode(node.body)) statements(node.body.body, inner)
        return
      }
      case "AssignmentExpression":
        pattern(node.left, scope, undefined)
        visit(node.right, scope)
        return
      case "ObjectPattern":
      case "ArrayPattern":
        pattern(node, scope, undefined)
        return
      case "Property": {
        if (node.computed) visit(node.key, scope)
        if (node.shorthand && node.value?.type === "Identifier") {
          reference(scope, node.value, "shorthand")
          return
        }
        if (node.shorthand && node.value?.type === "AssignmentPattern" && node.value.left?.type === "Identifier") {
          reference(scope, node.value.left, "shorthand")
          visit(node.value.right, scope)
          return
        }
        visit(node.value, scope)
        return
      }
      case "MethodDefinition":
      case "PropertyDefinition":
      case "AccessorProperty":
      case "TSAbstractMethodDefinition":
      case "TSAbstractPropertyDefinition":
      case "TSAbstractAccessorProperty":
      case "TSPropertySignature":
        for (const decorator of node.decorators ?? []) visit(decorator, scope)
        if (node.computed) visit(node.key, scope)
        visit(node.value, scope)
        visit(node.typeAnnotation, scope)
        return
      case "MemberExpression": {
        if (node.computed) {
          visit(node.object, scope)
          visit(node.property, scope)
          return
        }
        if (node.object?.type === "Identifier") {
          const occurrence = reference(scope, node.object)
          if (node.property?.type === "Identifier") {
            occurrence.member = { name: node.property.name, start: node.property.start, end: node.property.end }
          }
        } else visit(node.object, scope)
        return
      }
      case "TSTypeReference":
      case "TSClassImplements":
      case "TSInterfaceHeritage": {
        // A type position: the name (or a qualified name's first part) is looked up among types.
        const name = node.typeName ?? node.expression
        if (name?.type === "Identifier") reference(scope, name, "plain", "type")
        else visit(name, scope)
        visit(node.typeArguments ?? node.typeParameters, scope)
        return
      }
      case "TSQualifiedName":
        if (node.left?.type === "Identifier") {
          const occurrence = reference(scope, node.left, "plain", "either")
          occurrence.member = { name: node.right.name, start: node.right.start, end: node.right.end }
        } else visit(node.left, scope)
        return
      case "LabeledStatement":
        visit(node.body, scope)
        return
      case "BreakStatement":
      case "ContinueStatement":
      case "MetaProperty":
      case "Super":
      case "ThisExpression":
        return
      case "ImportDeclaration":
        // Declared by hoist; the names are not references.
        return
      case "ImportExpression":
        visit(node.source, scope)
        visit(node.options, scope)
        return
      case "ExportNamedDeclaration":
        if (isNode(node.declaration)) {
          visit(node.declaration, scope)
          return
        }
        if (node.source) return
        for (const specifier of node.specifiers ?? []) {
          if (specifier.local?.type === "Identifier") {
            reference(scope, specifier.local, specifier.local.start === specifier.exported.start ? "export" : "plain")
          }
        }
        return
      case "ExportDefaultDeclaration":
        // `export default Name` may name a value or a type (an interface).
        if (node.declaration?.type === "Identifier") reference(scope, node.declaration, "plain", "either")
        else visit(node.declaration, scope)
        return
      case "ExportAllDeclaration":
        return
      case "TSTypeAliasDeclaration": {
        const inner = newScope(scope, node, false)
        typeParameters(node, inner)
        visit(node.typeAnnotation, inner)
        return
      }
      case "TSInterfaceDeclaration": {
        const inner = newScope(scope, node, false)
        typeParameters(node, inner)
        for (const heritage of node.extends ?? []) visit(heritage, inner)
        visit(node.body, inner)
        return
      }
      case "TSEnumDeclaration": {
        // The members are names inside the enum's body (`bar = foo + 1` refers to the member foo).
        const members: ReadonlyArray<Node> = node.body?.members ?? node.members ?? []
        const inner = newScope(scope, node.body ?? node, false)
        if (node.id?.type === "Identifier") {
          const names = new Set(members.flatMap((m) => (m.id?.type === "Identifier" ? [m.id.name as string] : [])))
          namespaces.set(inner, { name: node.id.name, exported: names })
        }
        for (const member of members) if (member.id?.type === "Identifier") declare(inner, member.id, "enumMember")
        for (const member of members) visit(member.initializer, inner)
        return
      }
      case "TSEnumMember":
        visit(node.initializer, scope)
        return
      case "TSModuleDeclaration": {
        if (!isNode(node.body)) return
        const inner = newScope(scope, node, true)
        if (node.id?.type === "Identifier") namespaces.set(inner, { name: node.id.name, exported: new Set() })
        const body = node.body.type === "TSModuleBlock" ? node.body.body : [node.body]
        statements(body, inner)
        return
      }
      case "TSImportEqualsDeclaration":
        if (node.moduleReference?.type !== "TSExternalModuleReference") visit(node.moduleReference, scope)
        return
      case "TSImportType":
        visit(node.typeArguments, scope)
        return
      case "TSMappedType": {
        const inner = newScope(scope, node, false)
        const key = node.key ?? node.typeParameter?.name
        if (isNode(key)) declare(inner, key, "type")
        visit(node.constraint ?? node.typeParameter?.constraint, inner)
        visit(node.nameType, inner)
        visit(node.typeAnnotation, inner)
        return
      }
      case "TSInferType":
        if (isNode(node.typeParameter?.name)) declare(scope, node.typeParameter.name, "type")
        return
      case "TSIndexSignature":
        for (const parameter of node.parameters ?? []) visit(parameter.typeAnnotation, scope)
        visit(node.typeAnnotation, scope)
        return
      case "TSTypePredicate":
        if (node.parameterName?.type === "Identifier") reference(scope, node.parameterName)
        visit(node.typeAnnotation, scope)
        return
      case "JSXElement": {
        const opening = node.openingElement
        jsxName(opening.name, scope, opening)
        for (const attribute of opening.attributes ?? []) {
          if (attribute.type === "JSXSpreadAttribute") visit(attribute.argument, scope)
          else visit(attribute.value, scope)
        }
        visit(opening.typeArguments, scope)
        for (const child of node.children ?? []) visit(child, scope)
        if (node.closingElement) jsxName(node.closingElement.name, scope, undefined)
        return
      }
      default:
        if (signatureTypes.has(node.type)) {
          const inner = newScope(scope, node, false)
          typeParameters(node, inner)
          for (const param of node.params ?? []) pattern(param, inner, "param")
          visit(node.returnType, inner)
          if (node.type === "TSMethodSignature" && node.computed) visit(node.key, scope)
          return
        }
        if (functionTypes.has(node.type)) {
          functionLike(node, scope)
          return
        }
        children(node, scope)
    }
  }

  const jsxName = (name: Node, scope: number, opening: Node | undefined) => {
    if (name.type === "JSXIdentifier") {
      // As TypeScript decides: a name starting with a-z, or with a dash, is an intrinsic element (<div>).
      if (!isIntrinsicJsxName(name.name)) {
        const occurrence = reference(scope, name)
        occurrence.jsxName = true
        if (opening !== undefined) occurrence.jsx = opening
      }
      return
    }
    if (name.type === "JSXMemberExpression") {
      let object = name.object
      let property = name.property
      while (object.type === "JSXMemberExpression") {
        property = object.property
        object = object.object
      }
      if (object.type === "JSXIdentifier") {
        const occurrence = reference(scope, object)
        occurrence.member = { name: property.name, start: property.start, end: property.end }
      }
    }
  }

  const module = newScope(-1, program, true)
  visit(program, module)

  const lookup = (scope: number, name: string, meaning?: "value" | "type"): Binding | undefined => {
    let current = scope
    while (current >= 0) {
      const found = scopes[current]!.bindings.get(name)
      if (found !== undefined && (meaning === undefined || hasMeaning(found, meaning))) return found
      current = scopes[current]!.parent
    }
    return undefined
  }
  for (const occurrence of pending) {
    const binding = lookup(occurrence.scope, occurrence.name, occurrence.meaning)
    if (binding === undefined) unresolved.push(occurrence)
    else if (!binding.declarations.some((d) => d.start === occurrence.start)) binding.references.push(occurrence)
  }
  // A namespace's exports (an enum's members) used from outside as `Space.name`: references of the exported binding.
  for (const [index, namespace] of namespaces) {
    const binding = lookup(scopes[index]!.parent, namespace.name)
    for (const reference of binding?.references ?? []) {
      const member = reference.member
      if (member === undefined || !namespace.exported.has(member.name)) continue
      scopes[index]!.bindings.get(member.name)?.references.push({
        name: member.name,
        start: member.start,
        end: member.end,
        kind: "member",
        scope: reference.scope
      })
    }
  }
  const within = (inner: number, outer: number): boolean => {
    let current = inner
    while (current >= 0) {
      if (current === outer) return true
      current = scopes[current]!.parent
    }
    return false
  }
  return { scopes, unresolved, lookup, within }
}
