/**
 * The texts `fe_scaffold` writes, from the conventions it decided: each
 * template is written once with two-space indentation, `§` where a
 * statement ends and `‹…›` around string literals, then put in the project's
 * format (its quotes, semicolons, indentation).
 *
 * @since 0.4.0
 */

/**
 * The project's format.
 *
 * **Example**
 *
 * ```ts
 * import type { Format } from "./capabilities/fe/scaffold/render.ts"
 *
 * const prettierDefaults: Format = { quote: "double", semicolons: true, indent: "2 spaces" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Format {
  readonly quote: "single" | "double"
  readonly semicolons: boolean
  readonly indent: "2 spaces" | "4 spaces" | "tabs"
}

/**
 * A template in the project's format: `§` becomes `;` or nothing, `‹text›`
 * a string literal in the project's quotes, each leading two spaces the
 * project's indentation unit.
 *
 * **Example**
 *
 * ```ts
 * import { formatted } from "./capabilities/fe/scaffold/render.ts"
 *
 * formatted("import a from ‹a›§\n", { quote: "single", semicolons: false, indent: "2 spaces" }) // "import a from 'a'\n"
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const formatted = (template: string, format: Format): string => {
  const quote = format.quote === "single" ? "'" : '"'
  const unit = format.indent === "tabs" ? "\t" : format.indent === "4 spaces" ? "    " : "  "
  return template
    .replace(
      /‹([^›]*)›/g,
      (_, text: string) => quote + text.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`) + quote
    )
    .replaceAll("§", format.semicolons ? ";" : "")
    .split("\n")
    .map((line) => {
      const match = /^((?: {2})+)/.exec(line)
      return match === null ? line : unit.repeat(match[1]!.length / 2) + line.slice(match[1]!.length)
    })
    .join("\n")
}

/**
 * One prop (or parameter) asked for.
 *
 * **Example**
 *
 * ```ts
 * import type { PropSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * const title: PropSpec = { name: "title", type: "string", optional: false }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface PropSpec {
  readonly name: string
  readonly type: string
  readonly optional: boolean
}

/**
 * One import the file needs.
 *
 * **Example**
 *
 * ```ts
 * import type { ImportSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * const post: ImportSpec = { from: "@/lib/posts", names: ["Post"], typeOnly: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ImportSpec {
  readonly from: string
  readonly names: ReadonlyArray<string>
  readonly typeOnly: boolean
  /** A default import's local name. */
  readonly defaultName?: string | undefined
}

/**
 * How a component is styled.
 *
 * **Example**
 *
 * ```ts
 * import type { CssSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * const module: CssSpec = { kind: "module", specifier: "./Card.module.css", local: "styles", className: "card" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type CssSpec =
  | { readonly kind: "module"; readonly specifier: string; readonly local: string; readonly className: string }
  | { readonly kind: "plain"; readonly specifier: string; readonly className: string }
  | { readonly kind: "tailwind" }
  | { readonly kind: "styled"; readonly from: string }
  | { readonly kind: "none" }

/**
 * Everything a component's text depends on.
 *
 * **Example**
 *
 * ```ts
 * import type { ComponentSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * declare const spec: ComponentSpec
 * spec.exportStyle // "named" or "default"
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface ComponentSpec {
  readonly name: string
  readonly props: ReadonlyArray<PropSpec>
  readonly exportStyle: "named" | "default"
  readonly declaration: "function" | "arrow"
  readonly annotation?: string | undefined
  /** `inline`: the parameter's own type literal (`{ title }: { title: string }`), no named type. */
  readonly propsStyle: "interface" | "type" | "inline"
  readonly propsName: string
  readonly propsExported: boolean
  readonly css: CssSpec
  readonly imports: ReadonlyArray<ImportSpec>
  readonly useClient: boolean
  /** The root element (`div`, `main` for a page). */
  readonly element: string
  /** The heading text, or the expression (in braces) shown. */
  readonly heading?: string | undefined
  /** TypeScript (`.tsx`): typed props; JavaScript (`.jsx`): props destructured without types. */
  readonly typescript: boolean
}

const renderableType =
  /^(string|number|bigint|ReactNode|React\.ReactNode|ReactElement|React\.ReactElement|JSX\.Element|null|undefined|\s|\||'[^']*'|"[^"]*"|\d+)+$/

/** How the markup shows a prop: as it is, a boolean as a condition, a callback on a button, other data as JSON. */
const propUse = (prop: PropSpec): "render" | "boolean" | "callback" | "data" => {
  const type = prop.type.trim()
  if (prop.name === "children") return "render"
  if (renderableType.test(type)) return "render"
  if (type === "boolean") return "boolean"
  if (/^\(\s*\)\s*=>\s*(void|unknown|undefined|Promise<void>)$/.test(type)) return "callback"
  return "data"
}

const importLine = (spec: ImportSpec): string => {
  const names = spec.names.length > 0 ? `{ ${spec.names.join(", ")} }` : ""
  const what = [spec.defaultName, names].filter((part) => part !== undefined && part !== "").join(", ")
  return what === "" ? `import ‹${spec.from}›§` : `import ${spec.typeOnly ? "type " : ""}${what} from ‹${spec.from}›§`
}

const importBlock = (imports: ReadonlyArray<ImportSpec>): string =>
  imports.length === 0 ? "" : imports.map(importLine).join("\n") + "\n\n"

/**
 * A component's text (before {@link formatted}).
 *
 * **Example**
 *
 * ```ts
 * import { componentTemplate } from "./capabilities/fe/scaffold/render.ts"
 *
 * const text = componentTemplate({
 *   name: "Badge",
 *   props: [],
 *   exportStyle: "named",
 *   declaration: "function",
 *   propsStyle: "interface",
 *   propsName: "BadgeProps",
 *   propsExported: true,
 *   css: { kind: "none" },
 *   imports: [],
 *   useClient: false,
 *   element: "div",
 *   typescript: true
 * })
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const componentTemplate = (spec: ComponentSpec): string => {
  const parts: Array<string> = []
  if (spec.useClient) parts.push("‹use client›§\n\n")
  // JavaScript has no types: no type-only imports, props interface or annotation.
  const imports = spec.typescript ? [...spec.imports] : spec.imports.filter((i) => !i.typeOnly)
  if (spec.css.kind === "module") {
    imports.push({ from: spec.css.specifier, names: [], typeOnly: false, defaultName: spec.css.local })
  } else if (spec.css.kind === "plain") {
    imports.push({ from: spec.css.specifier, names: [], typeOnly: false })
  } else if (spec.css.kind === "styled") {
    imports.push({ from: spec.css.from, names: [], typeOnly: false, defaultName: "styled" })
  }
  parts.push(importBlock(imports))
  if (spec.css.kind === "styled") parts.push("const Root = styled.div`\n  display: block;\n`§\n\n")
  const hasProps = spec.props.length > 0
  const inline = `{ ${spec.props.map((prop) => `${prop.name}${prop.optional ? "?" : ""}: ${prop.type}`).join("; ")} }`
  const propsType = spec.propsStyle === "inline" ? inline : spec.propsName
  if (hasProps && spec.typescript && spec.propsStyle !== "inline") {
    const members = spec.props.map((prop) => `  ${prop.name}${prop.optional ? "?" : ""}: ${prop.type}§`).join("\n")
    const exported = spec.propsExported ? "export " : ""
    parts.push(
      spec.propsStyle === "interface"
        ? `${exported}interface ${spec.propsName} {\n${members}\n}\n\n`
        : `${exported}type ${spec.propsName} = {\n${members}\n}§\n\n`
    )
  }
  const used = spec.props
  const destructured = used.length > 0 ? `{ ${used.map((prop) => prop.name).join(", ")} }` : ""
  const attributes =
    spec.css.kind === "module"
      ? ` className={${spec.css.local}.${spec.css.className}}`
      : spec.css.kind === "plain"
        ? ` className="${spec.css.className}"`
        : spec.css.kind === "tailwind"
          ? ` className="flex flex-col gap-2"`
          : ""
  const element = spec.css.kind === "styled" ? "Root" : spec.element
  // A page starts with its heading; a component shows its props (or its name).
  const inner: Array<string> = spec.element === "main" ? [`<h1>${spec.heading ?? spec.name}</h1>`] : []
  for (const prop of used) {
    const use = propUse(prop)
    if (prop.name === "children") inner.push("{children}")
    else if (use === "render") inner.push(`<p>{${prop.name}}</p>`)
    else if (use === "boolean") inner.push(`{${prop.name} ? <p>${prop.name}</p> : null}`)
    else if (use === "callback") {
      inner.push(
        `<button type="button" onClick={() => ${prop.name}${prop.optional ? "?." : ""}()}>\n  ${prop.name}\n</button>`
      )
    } else inner.push(`<pre>{JSON.stringify(${prop.name}, null, 2)}</pre>`)
  }
  if (inner.length === 0) inner.push(spec.name)
  const markup = `(\n    <${element}${attributes}>\n${inner
    .map((line) =>
      line
        .split("\n")
        .map((l) => `      ${l}`)
        .join("\n")
    )
    .join("\n")}\n    </${element}>\n  )`
  const parameter =
    destructured === ""
      ? ""
      : spec.annotation !== undefined || !spec.typescript
        ? destructured
        : `${destructured}: ${propsType}`
  const annotation =
    spec.annotation === undefined || !spec.typescript ? "" : `: ${spec.annotation}${hasProps ? `<${propsType}>` : ""}`
  const exportNamed = spec.exportStyle === "named" ? "export " : ""
  if (spec.declaration === "function") {
    const head =
      spec.exportStyle === "default"
        ? `export default function ${spec.name}(${parameter})`
        : `export function ${spec.name}(${parameter})`
    parts.push(`${head} {\n  return ${markup}§\n}\n`)
  } else {
    parts.push(`${exportNamed}const ${spec.name}${annotation} = (${parameter}) => {\n  return ${markup}§\n}§\n`)
    if (spec.exportStyle === "default") parts.push(`\nexport default ${spec.name}§\n`)
  }
  return parts.join("")
}

/**
 * Everything a hook's text depends on.
 *
 * **Example**
 *
 * ```ts
 * import type { HookSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * const hook: HookSpec = { name: "useToggle", exportStyle: "named", declaration: "arrow", useClient: true, tsx: false, typescript: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface HookSpec {
  readonly name: string
  readonly exportStyle: "named" | "default"
  readonly declaration: "function" | "arrow"
  readonly useClient: boolean
  readonly tsx: boolean
  readonly typescript: boolean
}

/**
 * A hook's text (before {@link formatted}): state with an initial value.
 *
 * **Example**
 *
 * ```ts
 * import { hookTemplate } from "./capabilities/fe/scaffold/render.ts"
 *
 * hookTemplate({ name: "useToggle", exportStyle: "named", declaration: "function", useClient: false, tsx: false, typescript: true })
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const hookTemplate = (spec: HookSpec): string => {
  const generic = spec.typescript ? (spec.tsx && spec.declaration === "arrow" ? "<T,>" : "<T>") : ""
  const parameter = spec.typescript ? "initial: T" : "initial"
  const body = "  const [value, setValue] = useState(initial)§\n  return { value, setValue }§\n"
  const head = spec.useClient ? "‹use client›§\n\n" : ""
  const imports = "import { useState } from ‹react›§\n\n"
  if (spec.declaration === "function") {
    const exported = spec.exportStyle === "default" ? "export default function" : "export function"
    return `${head}${imports}${exported} ${spec.name}${generic}(${parameter}) {\n${body}}\n`
  }
  const exported = spec.exportStyle === "named" ? "export " : ""
  const tail = spec.exportStyle === "default" ? `\nexport default ${spec.name}§\n` : ""
  return `${head}${imports}${exported}const ${spec.name} = ${generic}(${parameter}) => {\n${body}}§\n${tail}`
}

/**
 * A utility function's text (before {@link formatted}).
 *
 * **Example**
 *
 * ```ts
 * import { utilTemplate } from "./capabilities/fe/scaffold/render.ts"
 *
 * utilTemplate({ name: "clamp", exportStyle: "named", declaration: "arrow", typescript: true })
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const utilTemplate = (spec: {
  readonly name: string
  readonly exportStyle: "named" | "default"
  readonly declaration: "function" | "arrow"
  readonly typescript: boolean
}): string => {
  const parameter = spec.typescript ? "value: string" : "value"
  const returns = spec.typescript ? ": string" : ""
  if (spec.declaration === "function") {
    const exported = spec.exportStyle === "default" ? "export default function" : "export function"
    return `${exported} ${spec.name}(${parameter})${returns} {\n  return value.trim()§\n}\n`
  }
  const exported = spec.exportStyle === "named" ? "export " : ""
  const tail = spec.exportStyle === "default" ? `\nexport default ${spec.name}§\n` : ""
  return `${exported}const ${spec.name} = (${parameter})${returns} => value.trim()§\n${tail}`
}

/**
 * Everything a test's text depends on.
 *
 * **Example**
 *
 * ```ts
 * import type { TestSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * const test: TestSpec = { imports: "vitest", fn: "it", describe: true, module: "./format", named: ["formatDate"] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface TestSpec {
  readonly imports: "vitest" | "@jest/globals" | "globals"
  readonly fn: "it" | "test"
  readonly describe: boolean
  readonly module: string
  readonly named: ReadonlyArray<string>
  readonly defaultName?: string | undefined
  /** Components without props, rendered with Testing Library (`@testing-library/react`'s `render`). */
  readonly render?: ReadonlyArray<string> | undefined
}

/**
 * A test's text (before {@link formatted}): one check per runtime export.
 *
 * **Example**
 *
 * ```ts
 * import { testTemplate } from "./capabilities/fe/scaffold/render.ts"
 *
 * testTemplate({ imports: "vitest", fn: "it", describe: true, module: "./format", named: ["formatDate"] })
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const testTemplate = (spec: TestSpec): string => {
  const lines: Array<string> = []
  const runnerNames = [...(spec.describe ? ["describe"] : []), "expect", spec.fn].sort()
  const rendered = new Set(spec.render ?? [])
  if (spec.imports !== "globals") lines.push(`import { ${runnerNames.join(", ")} } from ‹${spec.imports}›§`)
  if (rendered.size > 0) lines.push("import { render } from ‹@testing-library/react›§")
  lines.push(
    importLine({
      from: spec.module,
      names: [...spec.named].sort(),
      typeOnly: false,
      ...(spec.defaultName !== undefined ? { defaultName: spec.defaultName } : {})
    })
  )
  const subjects = [...(spec.defaultName !== undefined ? [spec.defaultName] : []), ...spec.named]
  const blocks = subjects.map((name) => {
    const check = rendered.has(name)
      ? `${spec.fn}(‹renders›, () => {\n  const { container } = render(<${name} />)§\n  expect(container.firstChild).not.toBeNull()§\n})§`
      : `${spec.fn}(‹is exported›, () => {\n  expect(${name}).toBeDefined()§\n})§`
    return spec.describe
      ? `describe(‹${name}›, () => {\n${check
          .split("\n")
          .map((l) => `  ${l}`)
          .join("\n")}\n})§`
      : check.replace("‹is exported›", `‹${name} is exported›`).replace("‹renders›", `‹${name} renders›`)
  })
  return `${lines.join("\n")}\n\n${blocks.join("\n\n")}\n`
}

/**
 * A route segment's parameter: `[id]`, `[...slug]`, `[[...slug]]`.
 *
 * **Example**
 *
 * ```ts
 * import type { RouteParam } from "./capabilities/fe/scaffold/render.ts"
 *
 * const slug: RouteParam = { name: "slug", catchAll: true, optional: false } // [...slug]
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface RouteParam {
  readonly name: string
  readonly catchAll: boolean
  readonly optional: boolean
}

/**
 * The parameters of a route (`blog/[slug]` → slug).
 *
 * **Example**
 *
 * ```ts
 * import { routeParams } from "./capabilities/fe/scaffold/render.ts"
 *
 * routeParams("shop/[category]/[[...filters]]").map((p) => p.name) // ["category", "filters"]
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const routeParams = (route: string): ReadonlyArray<RouteParam> =>
  route.split("/").flatMap((segment): Array<RouteParam> => {
    const optional = /^\[\[\.\.\.(\w+)\]\]$/.exec(segment)
    if (optional !== null) return [{ name: optional[1]!, catchAll: true, optional: true }]
    const catchAll = /^\[\.\.\.(\w+)\]$/.exec(segment)
    if (catchAll !== null) return [{ name: catchAll[1]!, catchAll: true, optional: false }]
    const one = /^\[(\w+)\]$/.exec(segment)
    return one !== null ? [{ name: one[1]!, catchAll: false, optional: false }] : []
  })

/**
 * Everything a Next.js app router page's text depends on.
 *
 * **Example**
 *
 * ```ts
 * import type { NextPageSpec } from "./capabilities/fe/scaffold/render.ts"
 *
 * declare const spec: NextPageSpec
 * spec.paramsPromise // true since Next.js 15
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface NextPageSpec {
  readonly name: string
  readonly title: string
  readonly params: ReadonlyArray<RouteParam>
  readonly paramsPromise: boolean
  readonly metadata: "metadata" | "generateMetadata" | "none"
  readonly declaration: "function" | "arrow"
  readonly propsStyle: "interface" | "type"
  readonly stylesheet?: { readonly specifier: string; readonly local: string; readonly className: string } | undefined
}

/**
 * A Next.js app router `page.tsx` (before {@link formatted}): a default
 * export, metadata as the project's pages have it, `params` (a Promise since
 * Next.js 15) for a dynamic route.
 *
 * **Example**
 *
 * ```ts
 * import { nextPageTemplate } from "./capabilities/fe/scaffold/render.ts"
 *
 * nextPageTemplate({ name: "SettingsPage", title: "Settings", params: [], paramsPromise: true, metadata: "metadata", declaration: "function", propsStyle: "type" })
 * ```
 *
 * @category rendering
 * @since 0.4.0
 */
export const nextPageTemplate = (spec: NextPageSpec): string => {
  const dynamic = spec.params.length > 0
  const imports: Array<string> = []
  const metadata = dynamic && spec.metadata === "metadata" ? "generateMetadata" : spec.metadata
  if (metadata !== "none") imports.push("import type { Metadata } from ‹next›§")
  if (spec.stylesheet !== undefined)
    imports.push(`import ${spec.stylesheet.local} from ‹${spec.stylesheet.specifier}›§`)
  const parts: Array<string> = [imports.length > 0 ? imports.join("\n") + "\n\n" : ""]
  const paramsType = `{ ${spec.params
    .map((p) => `${p.name}${p.optional ? "?" : ""}: ${p.catchAll ? "string[]" : "string"}`)
    .join("; ")} }`
  if (dynamic) {
    const type = spec.paramsPromise ? `Promise<${paramsType}>` : paramsType
    parts.push(
      spec.propsStyle === "interface"
        ? `interface Props {\n  params: ${type}§\n}\n\n`
        : `type Props = {\n  params: ${type}§\n}§\n\n`
    )
  }
  const names = spec.params.map((p) => p.name).join(", ")
  const read = spec.paramsPromise ? `  const { ${names} } = await params§\n` : `  const { ${names} } = params§\n`
  // The metadata shows the first parameter only: it destructures only that one (no unused bindings).
  const firstName = spec.params[0]?.name ?? ""
  const readFirst = spec.paramsPromise
    ? `  const { ${firstName} } = await params§\n`
    : `  const { ${firstName} } = params§\n`
  const shown = (p: RouteParam) =>
    p.catchAll ? (p.optional ? `{${p.name}?.join(‹/›)}` : `{${p.name}.join(‹/›)}`) : `{${p.name}}`
  const first = spec.params[0]
  const titleExpression =
    first === undefined
      ? `‹${spec.title}›`
      : first.catchAll
        ? first.optional
          ? `${first.name}?.join(‹/›) ?? ‹${spec.title}›`
          : `${first.name}.join(‹/›)`
        : first.name
  if (metadata === "metadata") parts.push(`export const metadata: Metadata = {\n  title: ‹${spec.title}›,\n}§\n\n`)
  if (metadata === "generateMetadata") {
    parts.push(
      dynamic
        ? `export ${spec.paramsPromise ? "async " : ""}function generateMetadata({ params }: Props): ${
            spec.paramsPromise ? "Promise<Metadata>" : "Metadata"
          } {\n${readFirst}  return { title: ${titleExpression} }§\n}\n\n`
        : `export function generateMetadata(): Metadata {\n  return { title: ‹${spec.title}› }§\n}\n\n`
    )
  }
  const attributes =
    spec.stylesheet !== undefined ? ` className={${spec.stylesheet.local}.${spec.stylesheet.className}}` : ""
  const heading = dynamic ? spec.params.map(shown).join(" ") : spec.title
  const markup = `(\n    <main${attributes}>\n      <h1>${heading}</h1>\n    </main>\n  )`
  const asyncKeyword = dynamic && spec.paramsPromise ? "async " : ""
  const parameter = dynamic ? "{ params }: Props" : ""
  const body = `${dynamic ? read + "\n" : ""}  return ${markup}§\n`
  if (spec.declaration === "function") {
    parts.push(`export default ${asyncKeyword}function ${spec.name}(${parameter}) {\n${body}}\n`)
  } else {
    parts.push(`const ${spec.name} = ${asyncKeyword}(${parameter}) => {\n${body}}§\n\nexport default ${spec.name}§\n`)
  }
  return parts.join("")
}
