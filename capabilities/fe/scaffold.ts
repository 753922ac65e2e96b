/**
 * `fe_scaffold`: the files for a new component, hook, page, test or utility,
 * modelled on the project's own closest existing examples — their folder,
 * file naming, export style, props typing, styling, test style, quotes and
 * semicolons — returned for review, or created (through the file
 * transaction) when `write` is true.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { mapWorkspaceError } from "../workspace/errors.ts"
import { FeGraph } from "./graph/cache.ts"
import type { ImportGraph } from "./graph/graph.ts"
import { isTestFile } from "./impact.ts"
import type { ProjectInfo } from "./project.ts"
import { type Decided, type FileStyle, styleOf, vote } from "./scaffold/conventions.ts"
import {
  type Alias,
  aliasOf,
  baseOf,
  camel,
  dirOf,
  extOf,
  joinRelative,
  kebab,
  namingOf,
  pascal,
  relativeSpecifier,
  stemOf
} from "./scaffold/examples.ts"
import {
  componentTemplate,
  type CssSpec,
  type Format,
  formatted,
  hookTemplate,
  type ImportSpec,
  nextPageTemplate,
  type PropSpec,
  routeParams,
  testTemplate,
  utilTemplate
} from "./scaffold/render.ts"
import { extract, loadParserForTool, type Parse } from "./skeleton/extract.ts"
import { FeState } from "./state.ts"
import { commit, prepare, toToolError } from "./transaction.ts"

/**
 * The kinds `fe_scaffold` makes.
 *
 * **Example**
 *
 * ```ts
 * import { scaffoldKinds } from "./capabilities/fe/scaffold.ts"
 *
 * scaffoldKinds.includes("component") // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const scaffoldKinds = ["component", "hook", "page", "test", "util"] as const

type Kind = (typeof scaffoldKinds)[number]

/** The most example files read for one call. */
const maxExamples = 40

const Convention = Schema.Struct({
  value: Schema.String,
  from: Schema.Array(Schema.String).annotate({
    description: "The project files that show it; empty when no file did and the value is a default."
  })
})

const ScaffoldFile = Schema.Struct({
  path: Schema.String.annotate({ description: "Root-relative path of the file to create." }),
  content: Schema.String,
  basedOn: Schema.Array(Schema.String).annotate({
    description: "The existing files it is modelled on; empty when the project had none of its kind (a default)."
  })
})

/**
 * The `fe_scaffold` result's Schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ScaffoldResult } from "./capabilities/fe/scaffold.ts"
 *
 * const decode = Schema.decodeUnknownSync(ScaffoldResult)
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const ScaffoldResult = Schema.Struct({
  kind: Schema.String,
  framework: Schema.String,
  files: Schema.Array(ScaffoldFile),
  conventions: Schema.Record(Schema.String, Convention).annotate({
    description: "Each convention followed (folder, naming, export style, props, CSS, quotes…) and where it came from."
  }),
  notes: Schema.Array(Schema.String).annotate({ description: "What was a default, ambiguous or left to do." }),
  written: Schema.Boolean.annotate({ description: "True when the files were created (write: true)." }),
  next: Schema.String
})
type ScaffoldResult = typeof ScaffoldResult.Type

interface Planned {
  readonly files: Array<{ path: string; content: string; basedOn: ReadonlyArray<string> }>
  readonly conventions: Record<string, { value: string; from: ReadonlyArray<string> }>
  readonly notes: Array<string>
  readonly next?: string | undefined
}

interface Example {
  readonly path: string
  readonly text: string
  readonly style: FileStyle
  readonly weight: number
}

interface Context {
  readonly graph: ImportGraph
  readonly parse: Parse
  readonly info: ProjectInfo
  readonly read: (path: string) => Effect.Effect<string | undefined>
  readonly target: string | undefined
  readonly targetIsFile: boolean
  readonly name: string
  readonly props: ReadonlyArray<PropSpec>
}

const fail = (code: string, message: string, suggestion: string) =>
  Effect.fail(new Tool.ToolError({ code, message, suggestion }))

const show = (decided: Decided<unknown>): { value: string; from: ReadonlyArray<string> } => ({
  value: String(decided.value),
  from: decided.from
})

const codeExtensions = [".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", ".cts", ".cjs"]
const isCode = (path: string) => codeExtensions.includes(extOf(path)) && !/\.d\.[mc]?ts$/.test(path)
const isStory = (path: string) => /\.stories?\./.test(baseOf(path))
const nextSpecialFiles = new Set([
  "page",
  "layout",
  "loading",
  "error",
  "not-found",
  "template",
  "default",
  "global-error",
  "route",
  "forbidden",
  "unauthorized"
])

/** Whether the project is written in TypeScript (a tsconfig, or typescript among its dependencies). */
const usesTypeScript = (context: Context): boolean =>
  context.info.tsconfig !== null || context.info.dependencies.includes("typescript")

/** The project's code root: `src` when the project has one, else the root. */
const codeRoot = (graph: ImportGraph): string => (graph.files().some((p) => p.startsWith("src/")) ? "src" : "")

/** The weighted examples: read and analysed, nearest the chosen home first, at most {@link maxExamples}. */
const readExamples = (
  context: Context,
  candidates: ReadonlyArray<{ readonly path: string; readonly main?: string | undefined; readonly home: string }>,
  home: string
) =>
  Effect.gen(function* () {
    const ordered = [...candidates].sort(
      (a, b) => Number(b.home === home) - Number(a.home === home) || (a.path < b.path ? -1 : 1)
    )
    const out: Array<Example & { readonly home: string }> = []
    for (const candidate of ordered.slice(0, maxExamples)) {
      const text = yield* context.read(candidate.path)
      if (text === undefined) continue
      out.push({
        path: candidate.path,
        text,
        style: styleOf(context.parse, candidate.path, text, candidate.main),
        weight: candidate.home === home ? 3 : 1,
        home: candidate.home
      })
    }
    return out
  })

/** The home most candidates share; ties go to a directory named like `preferred`, then the shorter path. */
const commonHome = (homes: ReadonlyArray<string>, preferred: RegExp): Decided<string> | undefined => {
  if (homes.length === 0) return undefined
  const counts = new Map<string, number>()
  for (const home of homes) counts.set(home, (counts.get(home) ?? 0) + 1)
  const best = [...counts].sort(
    (a, b) =>
      b[1] - a[1] ||
      Number(preferred.test(b[0])) - Number(preferred.test(a[0])) ||
      a[0].length - b[0].length ||
      (a[0] < b[0] ? -1 : 1)
  )[0]!
  return { value: best[0], from: [] }
}

/** Quotes, semicolons, indentation and relative import extensions: from the examples, else from any sources. */
const formatOf = (context: Context, examples: ReadonlyArray<Example>) =>
  Effect.gen(function* () {
    // Any of the project's sources, for what the examples do not show.
    const others: Array<Example> = []
    for (const path of context.graph
      .files()
      .filter((p) => isCode(p) && !p.includes(".config."))
      .slice(0, 10)) {
      const text = yield* context.read(path)
      if (text !== undefined) others.push({ path, text, style: styleOf(context.parse, path, text), weight: 1 })
    }
    const decide = <A>(f: (style: FileStyle) => A | undefined, fallback: A): Decided<A> => {
      const own = vote(
        examples.map((e) => ({ path: e.path, weight: e.weight, value: f(e.style) })),
        fallback
      )
      return own.from.length > 0
        ? own
        : vote(
            others.map((e) => ({ path: e.path, weight: 1, value: f(e.style) })),
            fallback
          )
    }
    const quote = decide((s) => s.quote, "double" as const)
    const semicolons = decide((s) => s.semicolons, true)
    const indent = decide((s) => s.indent, "2 spaces" as const)
    const extensions = decide((s) => s.relativeExtensions, false)
    const format: Format = { quote: quote.value, semicolons: semicolons.value, indent: indent.value }
    return {
      format,
      keepExtensions: extensions.value,
      conventions: {
        quotes: show(quote),
        semicolons: show(semicolons),
        indent: show(indent),
        relativeImportExtensions: show(extensions)
      }
    }
  })

/** The import specifier of a project file from a directory: through the alias when the project uses it. */
const specifierOf = (fromDir: string, target: string, alias: Alias | undefined, keepExtensions: boolean): string => {
  const sameTree = dirOf(target) === fromDir || dirOf(target).startsWith(`${fromDir}/`)
  if (alias !== undefined && !sameTree && target.startsWith(alias.base)) {
    const rest = target.slice(alias.base.length)
    const stripped = keepExtensions ? rest : rest.replace(/\.(d\.)?[mc]?[jt]sx?$/, "").replace(/(^|\/)index$/, "")
    return `${alias.prefix}${stripped}`
  }
  return relativeSpecifier(fromDir, target, keepExtensions)
}

const reactTypes = new Set([
  "ReactNode",
  "ReactElement",
  "CSSProperties",
  "ComponentProps",
  "ComponentPropsWithoutRef",
  "PropsWithChildren",
  "MouseEventHandler",
  "ChangeEventHandler",
  "FormEventHandler",
  "KeyboardEventHandler",
  "HTMLAttributes",
  "ButtonHTMLAttributes",
  "InputHTMLAttributes",
  "Ref",
  "RefObject",
  "Dispatch",
  "SetStateAction"
])
const builtinTypes = new Set([
  "Array",
  "ReadonlyArray",
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Pick",
  "Omit",
  "Promise",
  "Date",
  "Map",
  "Set",
  "JSX",
  "React",
  "HTMLElement",
  "HTMLDivElement",
  "HTMLButtonElement",
  "HTMLInputElement",
  "Element",
  "Event",
  "Error"
])

/** The imports the props' types need: React's types from `react`, the project's own exported types from their files. */
const propImports = (context: Context, fromDir: string, alias: Alias | undefined, keepExtensions: boolean) => {
  const notes: Array<string> = []
  const react = new Set<string>()
  const byFile = new Map<string, Set<string>>()
  for (const prop of context.props) {
    for (const match of prop.type.matchAll(/(?<![.\w])([A-Z][A-Za-z0-9_]*)(?![\w.])/g)) {
      const name = match[1]!
      if (reactTypes.has(name)) {
        react.add(name)
        continue
      }
      if (builtinTypes.has(name)) continue
      const files = context.graph
        .files()
        .filter((path) => !isTestFile(path) && (context.graph.exportsOf(path) ?? []).some((e) => e.name === name))
      if (files.length === 0) {
        notes.push(`No project file exports a type ${name}: import it yourself.`)
        continue
      }
      // The definition nearest the new file (fewest differing directories).
      const nearest = [...files].sort(
        (a, b) => relativeSpecifier(fromDir, a, true).length - relativeSpecifier(fromDir, b, true).length
      )[0]!
      const set = byFile.get(nearest) ?? new Set()
      set.add(name)
      byFile.set(nearest, set)
    }
  }
  const imports: Array<ImportSpec> = []
  if (react.size > 0) imports.push({ from: "react", names: [...react].sort(), typeOnly: true })
  for (const [file, names] of [...byFile].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    imports.push({
      from: specifierOf(fromDir, file, alias, keepExtensions),
      names: [...names].sort(),
      typeOnly: true
    })
  }
  return { imports, notes, files: [...byFile.keys()] }
}

/** The first class selector of a stylesheet, or undefined. */
const firstClass = (css: string | undefined): string | undefined =>
  css === undefined ? undefined : /\.(-?[_a-zA-Z][\w-]*)\s*[{,:\s]/.exec(css.replace(/\/\*[\s\S]*?\*\//g, ""))?.[1]

// -- component ----------------------------------------------------------------------

const componentCandidates = (context: Context) => {
  const { graph, info } = context
  const out: Array<{ path: string; main: string; home: string; folder: boolean; folderNaming: string }> = []
  for (const path of graph.files()) {
    const ext = extOf(path)
    if (ext !== ".tsx" && ext !== ".jsx") continue
    if (isTestFile(path) || isStory(path)) continue
    if (info.framework === "next" && /(^|\/)app\//.test(path) && nextSpecialFiles.has(stemOf(path))) continue
    if (info.framework === "next" && /^(src\/)?pages\//.test(path)) continue
    const names = (graph.exportsOf(path) ?? []).map((e) => e.name).filter((n) => /^[A-Z][A-Za-z0-9]*$/.test(n))
    if (names.length === 0) continue
    const stem = stemOf(path)
    const main =
      names.find((n) => n === stem || kebab(n) === stem) ?? names.find((n) => !n.endsWith("Props")) ?? names[0]!
    const parent = baseOf(dirOf(path))
    // A folder per component: named like it (`UserCard/`) or in kebab-case (`user-card/`).
    const kebabFolder = parent !== main && parent === kebab(main)
    const folder = parent === main || kebabFolder || (stem === "index" && /^[A-Z]/.test(parent))
    const folderNaming = kebabFolder ? "kebab-case" : "same"
    out.push({
      path,
      main: folder && stem === "index" && !kebabFolder ? parent : main,
      home: folder ? dirOf(dirOf(path)) : dirOf(path),
      folder,
      folderNaming
    })
  }
  return out
}

const planComponent = (context: Context, asPage?: { readonly dir: string; readonly examples: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const notes: Array<string> = []
    // A page's examples are the other pages (their default export is the component).
    const candidates =
      asPage === undefined
        ? componentCandidates(context)
        : asPage.examples.map((path) => ({
            path,
            main:
              (context.graph.exportsOf(path) ?? []).find((e) => e.isDefault && e.name !== "default")?.name ??
              pascal(stemOf(path)),
            home: dirOf(path),
            folder: false,
            folderNaming: "same"
          }))
    const decidedHome =
      asPage !== undefined
        ? { value: asPage.dir, from: asPage.examples.slice(0, 3) }
        : context.target !== undefined
          ? { value: context.targetIsFile ? dirOf(context.target) : context.target, from: [] }
          : (commonHome(
              candidates.map((c) => c.home),
              /components?$/
            ) ?? { value: joinRelative(codeRoot(context.graph), "components"), from: [] })
    const home = decidedHome.value
    const examples = yield* readExamples(context, candidates, home)
    const byPath = new Map(candidates.map((c) => [c.path, c]))
    const weighted = <A>(f: (e: Example) => A | undefined) =>
      examples.map((e) => ({ path: e.path, weight: e.weight, value: f(e) }))
    const { format, keepExtensions, conventions: formatConventions } = yield* formatOf(context, examples)
    const layout = vote(
      weighted((e) => (byPath.get(e.path)?.folder ? "folder" : "file")),
      "file"
    )
    const folderNaming = vote(
      weighted((e) => {
        const c = byPath.get(e.path)
        return c?.folder ? c.folderNaming : undefined
      }),
      "same"
    )
    const naming = vote(
      weighted((e) => {
        const c = byPath.get(e.path)!
        return c.folder ? (stemOf(e.path) === "index" ? "index" : "same") : namingOf(e.path, c.main)
      }),
      "same"
    )
    const extension = vote(
      weighted((e) => extOf(e.path)),
      usesTypeScript(context) ? ".tsx" : ".jsx"
    )
    const exportStyle = vote(
      weighted((e) => e.style.main?.exportStyle),
      "named" as const
    )
    const declaration = vote(
      weighted((e) => e.style.main?.declaration),
      "function" as const
    )
    const annotation = vote(
      weighted((e) => (e.style.main === undefined ? undefined : (e.style.main.annotation ?? "none"))),
      "none"
    )
    const propsStyle = vote(
      weighted((e) =>
        e.style.props === undefined
          ? e.style.main?.inlineProps === true
            ? "inline"
            : undefined
          : `${e.style.props.style} ${e.style.props.naming === "Props" ? "Props" : "<Name>Props"}${e.style.props.exported ? " exported" : ""}`
      ),
      "interface <Name>Props exported"
    )
    const framework = context.info.framework
    const tailwind = context.info.dependencies.includes("tailwindcss")
    const css = vote(
      weighted((e) => {
        const stem = stemOf(e.path)
        const own = e.style.stylesheets.find(
          (s) => baseOf(s.specifier).startsWith(`${stem}.`) || s.specifier.startsWith("./")
        )
        if (own !== undefined && /\.module\.(css|scss|sass|less)$/.test(own.specifier)) {
          return `module ${own.specifier.slice(own.specifier.lastIndexOf(".module.") + 1)}`
        }
        if (own !== undefined) return `plain ${extOf(own.specifier).slice(1)}`
        if (e.style.styled) return "styled"
        if (tailwind && e.style.classNameStrings) return "tailwind"
        return "none"
      }),
      "none"
    )
    const moduleLocal = vote(
      weighted((e) => e.style.stylesheets.find((s) => s.specifier.includes(".module."))?.local),
      "styles"
    )
    // The class the examples' own CSS modules start with: the component's name, or a fixed one (root, container…).
    const classVotes: Array<{ path: string; weight: number; value: string | undefined }> = []
    for (const e of examples) {
      const own = e.style.stylesheets.find((s) => s.specifier.startsWith("./") && s.specifier.includes(".module."))
      if (own === undefined) continue
      const cssPath = joinRelative(dirOf(e.path), own.specifier)
      const first = firstClass(yield* context.read(cssPath))
      const main = byPath.get(e.path)?.main ?? ""
      classVotes.push({
        path: cssPath,
        weight: e.weight,
        value: first === undefined ? undefined : first === camel(main) || first === kebab(main) ? `<name>` : first
      })
    }
    const className = vote(classVotes, "root")
    // The alias, when the project imports through it at least as often as it goes up with `../`.
    const found = aliasOf(context.graph)
    const alias = found !== undefined && found.aliased >= found.relativeAcross ? found : undefined

    // The new file's path.
    const name = context.name
    const stemName = naming.value === "kebab-case" ? kebab(name) : name
    let path: string
    let folderDir: string
    if (context.targetIsFile && context.target !== undefined) {
      path = context.target
      folderDir = dirOf(path)
    } else if (layout.value === "folder") {
      folderDir = joinRelative(home, folderNaming.value === "kebab-case" ? kebab(name) : stemName)
      path = joinRelative(folderDir, `${naming.value === "index" ? "index" : stemName}${extension.value}`)
    } else {
      folderDir = home
      path = joinRelative(home, `${stemName}${extension.value}`)
    }
    const fileStem = stemOf(path)
    const typescript = [".tsx", ".ts", ".mts", ".cts"].includes(extOf(path))
    if (!typescript && context.props.length > 0) {
      notes.push(`${path} is JavaScript: the props are destructured without types (their types were not written).`)
    }
    const [propsKind, propsNaming, propsExported] = propsStyle.value.split(" ")
    const propsName = propsNaming === "Props" ? "Props" : `${name}Props`
    const imports = propImports(context, folderDir, alias, keepExtensions)
    if (typescript) notes.push(...imports.notes)
    let cssSpec: CssSpec = { kind: "none" }
    const files: Planned["files"] = []
    const cssKind = css.value.split(" ")
    const classFor = (value: string) =>
      value === "<name>" ? (cssKind[0] === "module" ? camel(name) : kebab(name)) : value
    const cssExample = (suffix: string) =>
      examples
        .map((e) => e.style.stylesheets.find((s) => s.specifier.startsWith("./") && s.specifier.endsWith(suffix)))
        .map((s, i) => (s === undefined ? undefined : joinRelative(dirOf(examples[i]!.path), s.specifier)))
        .filter((p): p is string => p !== undefined)
        .slice(0, 1)
    if (cssKind[0] === "module") {
      const cssFile = `${fileStem === "index" ? stemName : fileStem}.${cssKind[1]}`
      cssSpec = {
        kind: "module",
        specifier: `./${cssFile}`,
        local: moduleLocal.value,
        className: classFor(className.value)
      }
      files.push({
        path: joinRelative(folderDir, cssFile),
        content: formatted(`.${cssSpec.className} {\n  display: block;\n}\n`, format),
        basedOn: cssExample(`.${cssKind[1]}`)
      })
    } else if (cssKind[0] === "plain") {
      const cssFile = `${fileStem === "index" ? stemName : fileStem}.${cssKind[1]}`
      cssSpec = {
        kind: "plain",
        specifier: `./${cssFile}`,
        className: classFor(className.value === "root" ? "<name>" : className.value)
      }
      files.push({
        path: joinRelative(folderDir, cssFile),
        content: formatted(`.${cssSpec.className} {\n  display: block;\n}\n`, format),
        basedOn: cssExample(`.${cssKind[1]}`)
      })
    } else if (cssKind[0] === "tailwind") cssSpec = { kind: "tailwind" }
    else if (cssKind[0] === "styled") {
      const from = examples.some((e) => e.text.includes("@emotion/styled")) ? "@emotion/styled" : "styled-components"
      cssSpec = { kind: "styled", from }
    }
    // A prop named like an identifier the component's body refers to would shadow it there.
    const bodyNames = new Map<string, string>([[name, "the component's own name"]])
    if (cssSpec.kind === "module")
      bodyNames.set(cssSpec.local, `the CSS module's import (import ${cssSpec.local} from "${cssSpec.specifier}")`)
    if (cssSpec.kind === "styled") bodyNames.set("Root", "the styled root element")
    bodyNames.set("JSON", "the global JSON the markup uses")
    for (const prop of context.props) {
      const clash = bodyNames.get(prop.name)
      if (clash !== undefined) {
        return yield* fail(
          "invalid_props",
          `The prop "${prop.name}" has the name of ${clash}: inside the component it would hide it, and the file would not compile. Nothing was written.`,
          `Call fe_scaffold again with that prop renamed (e.g. "${prop.name.charAt(0).toLowerCase()}${prop.name.slice(1)}Value").`
        )
      }
    }
    const content = formatted(
      componentTemplate({
        name,
        props: context.props,
        exportStyle: asPage !== undefined && framework === "next" ? "default" : exportStyle.value,
        declaration: declaration.value,
        annotation: annotation.value === "none" ? undefined : annotation.value,
        propsStyle: propsKind === "type" ? "type" : propsKind === "inline" ? "inline" : "interface",
        propsName,
        propsExported: propsExported === "exported",
        css: cssSpec,
        imports: [
          ...(annotation.value !== "none" && !annotation.value.includes(".")
            ? [{ from: "react", names: [annotation.value], typeOnly: true }]
            : []),
          ...imports.imports
        ].reduce<Array<ImportSpec>>((merged, spec) => {
          const same = merged.find((m) => m.from === spec.from && m.typeOnly === spec.typeOnly)
          if (same === undefined) merged.push(spec)
          else merged[merged.indexOf(same)] = { ...same, names: [...new Set([...same.names, ...spec.names])].sort() }
          return merged
        }, []),
        useClient: false,
        typescript,
        element: asPage !== undefined ? "main" : "div",
        heading: asPage !== undefined ? name.replace(/Page$/, "") : undefined
      }),
      format
    )
    const basedOn = examples
      .filter((e) => e.home === home)
      .slice(0, 3)
      .map((e) => e.path)
    files.unshift({ path, content, basedOn: basedOn.length > 0 ? basedOn : examples.slice(0, 3).map((e) => e.path) })
    // A barrel only for a folder of its own: a target file goes where it is named, alone.
    if (layout.value === "folder" && naming.value === "same" && !context.targetIsFile) {
      // A barrel next to it when the examples' folders have one.
      const barrels = examples
        .filter((e) => byPath.get(e.path)?.folder)
        .map((e) => dirOf(e.path))
        .filter(
          (dir) =>
            context.graph.file(`${dir}/index.ts`) !== undefined || context.graph.file(`${dir}/index.js`) !== undefined
        )
      if (barrels.length > 0) {
        const barrelExt = context.graph.file(`${barrels[0]}/index.ts`) !== undefined ? ".ts" : ".js"
        // The example barrel's own form: `export { Name } from` names what it re-exports; else `export *`.
        const exampleBarrel = (yield* context.read(`${barrels[0]}/index${barrelExt}`)) ?? ""
        const namesExports =
          /export\s*\{\s*(?!default\b)[A-Za-z_$][\w$]*(?:\s+as\s+[A-Za-z_$][\w$]*)?\s*\}\s*from/.test(exampleBarrel)
        const specifier = `‹./${stemName}${keepExtensions ? extension.value : ""}›`
        const exported =
          exportStyle.value === "default"
            ? `export { default } from ${specifier}§\n`
            : namesExports
              ? `export { ${name} } from ${specifier}§\n`
              : `export * from ${specifier}§\n`
        files.push({
          path: joinRelative(folderDir, `index${barrelExt}`),
          content: formatted(exported, format),
          basedOn: [`${barrels[0]}/index${barrelExt}`]
        })
      }
    }
    if (examples.length === 0) {
      notes.push(
        `The project has no ${asPage ? "page" : "component"} to model on: a minimal ${framework === "none" ? "React" : framework} default was used.`
      )
    }
    return {
      files,
      notes,
      conventions: {
        folder: { value: home, from: decidedHome.from.length > 0 ? decidedHome.from : basedOn },
        layout: show(layout),
        ...(layout.value === "folder"
          ? {
              folderNaming: show({
                value: folderNaming.value === "same" ? "PascalCase" : folderNaming.value,
                from: folderNaming.from
              })
            }
          : {}),
        fileNaming: show({ value: naming.value === "same" ? "PascalCase" : naming.value, from: naming.from }),
        extension: show(extension),
        exportStyle: show(exportStyle),
        declaration: show(declaration),
        typedAs: show(annotation),
        props: show(propsStyle),
        css: show(css),
        ...(cssKind[0] === "module" ? { cssModuleImport: show(moduleLocal), cssClass: show(className) } : {}),
        ...(found !== undefined
          ? {
              importAlias: {
                value:
                  alias !== undefined
                    ? found.prefix
                    : `relative (${found.relativeAcross} ../ imports against ${found.aliased} through ${found.prefix})`,
                from: found.from
              }
            }
          : {}),
        ...formatConventions
      }
    } satisfies Planned
  })

// -- hook and util --------------------------------------------------------------------

const functionCandidates = (context: Context, kind: "hook" | "util") => {
  const out: Array<{ path: string; main: string; home: string }> = []
  for (const path of context.graph.files()) {
    if (!isCode(path) || isTestFile(path) || isStory(path)) continue
    const names = (context.graph.exportsOf(path) ?? []).map((e) => e.name)
    if (kind === "hook") {
      const hook = names.find((n) => /^use[A-Z0-9]/.test(n))
      if (hook !== undefined) out.push({ path, main: hook, home: dirOf(path) })
    } else {
      if (!/(^|\/)(lib|libs|utils?|helpers|shared)(\/|$)/.test(dirOf(path))) continue
      const fn = names.find((n) => /^[a-z][A-Za-z0-9]*$/.test(n) && !/^use[A-Z]/.test(n))
      if (fn !== undefined) out.push({ path, main: fn, home: dirOf(path) })
    }
  }
  return out
}

const planFunction = (context: Context, kind: "hook" | "util") =>
  Effect.gen(function* () {
    const notes: Array<string> = []
    const candidates = functionCandidates(context, kind)
    const fallbackHome = joinRelative(
      codeRoot(context.graph),
      kind === "hook" ? "hooks" : context.info.framework === "next" ? "lib" : "utils"
    )
    const decidedHome =
      context.target !== undefined
        ? { value: context.targetIsFile ? dirOf(context.target) : context.target, from: [] }
        : (commonHome(
            candidates.map((c) => c.home),
            kind === "hook" ? /hooks?$/ : /(lib|utils?)$/
          ) ?? { value: fallbackHome, from: [] })
    const home = decidedHome.value
    const examples = yield* readExamples(context, candidates, home)
    const byPath = new Map(candidates.map((c) => [c.path, c]))
    const weighted = <A>(f: (e: Example) => A | undefined) =>
      examples.map((e) => ({ path: e.path, weight: e.weight, value: f(e) }))
    const { format, conventions: formatConventions } = yield* formatOf(context, examples)
    const naming = vote(
      weighted((e) => {
        const main = byPath.get(e.path)!.main
        const stem = stemOf(e.path)
        if (stem === main && main !== kebab(main)) return "camelCase"
        if (stem === kebab(main) && main !== kebab(main)) return "kebab-case"
        return undefined
      }),
      "camelCase"
    )
    const typescript = usesTypeScript(context)
    const extension = vote(
      weighted((e) => extOf(e.path)),
      typescript ? ".ts" : ".js"
    )
    const exportStyle = vote(
      weighted((e) => e.style.main?.exportStyle),
      "named" as const
    )
    const declaration = vote(
      weighted((e) => e.style.main?.declaration),
      "function" as const
    )
    const useClient = vote(
      weighted((e) => (e.style.useClient ? "yes" : "no")),
      "no"
    )
    const name = context.name
    const path =
      context.targetIsFile && context.target !== undefined
        ? context.target
        : joinRelative(home, `${naming.value === "kebab-case" ? kebab(name) : name}${extension.value}`)
    const ts = [".ts", ".tsx", ".mts", ".cts"].includes(extOf(path))
    const template =
      kind === "hook"
        ? hookTemplate({
            name,
            exportStyle: exportStyle.value,
            declaration: declaration.value,
            useClient: useClient.value === "yes",
            tsx: extOf(path) === ".tsx",
            typescript: ts
          })
        : utilTemplate({ name, exportStyle: exportStyle.value, declaration: declaration.value, typescript: ts })
    if (examples.length === 0) {
      notes.push(
        `The project has no ${kind === "hook" ? "hook" : "utility module"} to model on: a minimal default was used.`
      )
    }
    if (kind === "util") notes.push("The function body is a placeholder (it trims a string): write the real one.")
    const basedOn = examples
      .filter((e) => e.home === home)
      .slice(0, 3)
      .map((e) => e.path)
    return {
      files: [
        {
          path,
          content: formatted(template, format),
          basedOn: basedOn.length > 0 ? basedOn : examples.slice(0, 3).map((e) => e.path)
        }
      ],
      notes,
      conventions: {
        folder: { value: home, from: basedOn },
        fileNaming: show(naming),
        extension: show(extension),
        exportStyle: show(exportStyle),
        declaration: show(declaration),
        ...(kind === "hook" ? { useClient: show(useClient) } : {}),
        ...formatConventions
      }
    } satisfies Planned
  })

// -- test ---------------------------------------------------------------------------------

/** Where a test lives relative to the file it tests. */
const testRule = (test: string, subject: string): string | undefined => {
  const t = dirOf(test)
  const s = dirOf(subject)
  if (t === s) return "co-located"
  if (t === joinRelative(s, "__tests__")) return "__tests__"
  // A mirrored tree: the common tail of directories is what both share.
  const a = s === "" ? [] : s.split("/")
  const b = t === "" ? [] : t.split("/")
  let tail = 0
  while (tail < a.length && tail < b.length && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  return `mirror ${a.slice(0, a.length - tail).join("/")} -> ${b.slice(0, b.length - tail).join("/")}`
}

const planTest = (context: Context) =>
  Effect.gen(function* () {
    const notes: Array<string> = []
    const graph = context.graph
    const subject = context.name
    const subjectText = yield* context.read(subject)
    if (subjectText === undefined) {
      return yield* fail(
        "unknown_file",
        `${subject} could not be read.`,
        "Call fe_skeleton to see the project's files."
      )
    }
    const skeleton = extract(context.parse, subject, subjectText)
    const runtime = skeleton.exports.filter(
      (e) => !["type", "interface"].includes(e.kind) && e.name !== "*" && e.kind !== "reexport"
    )
    if (runtime.length === 0) {
      return yield* fail(
        "nothing_to_test",
        `${subject} exports no value (only types, or nothing) to test.`,
        "Name a file that exports functions, components or hooks; call fe_skeleton with its path to see its exports."
      )
    }
    const candidates: Array<{ path: string; home: string; subject?: string }> = []
    for (const path of graph.files()) {
      if (!isTestFile(path)) continue
      // End-to-end tests (Playwright, Cypress) are not the model for a unit test.
      const specifiers = (graph.file(path)?.imports ?? []).map((edge) => edge.specifier)
      if (specifiers.some((sp) => sp === "@playwright/test" || sp === "cypress")) continue
      const stem = stemOf(path).replace(/\.(test|spec)$/, "")
      const deps = graph.dependenciesOf(path).filter((d) => !isTestFile(d))
      const own = deps.find((d) => stemOf(d) === stem) ?? deps[0]
      candidates.push({ path, home: dirOf(path), ...(own !== undefined ? { subject: own } : {}) })
    }
    const examples = yield* readExamples(context, candidates, dirOf(subject))
    const subjects = new Map(candidates.map((c) => [c.path, c.subject]))
    const weighted = <A>(f: (e: Example) => A | undefined) =>
      examples.map((e) => ({ path: e.path, weight: e.weight, value: f(e) }))
    const { format, keepExtensions, conventions: formatConventions } = yield* formatOf(context, examples)
    const location = vote(
      weighted((e) => {
        const s = subjects.get(e.path)
        return s === undefined ? undefined : testRule(e.path, s)
      }),
      "co-located"
    )
    const suffix = vote(
      weighted((e) => (baseOf(e.path).includes(".spec.") ? ".spec" : ".test")),
      ".test"
    )
    const family = vote(
      weighted((e) => (/\.[mc]?tsx?$/.test(e.path) ? "ts" : "js")),
      /\.[mc]?tsx?$/.test(subject) ? "ts" : "js"
    )
    const fallbackImports =
      context.info.testRunner === "vitest" ? "vitest" : context.info.testRunner === "jest" ? "globals" : "vitest"
    const imports = vote(
      weighted((e) => e.style.test?.imports),
      fallbackImports as "vitest" | "@jest/globals" | "globals"
    )
    const fn = vote(
      weighted((e) => e.style.test?.fn),
      "it" as const
    )
    const describe = vote(
      weighted((e) => (e.style.test === undefined ? undefined : e.style.test.describe ? "yes" : "no")),
      "yes"
    )
    let dir = dirOf(subject)
    if (context.target !== undefined) dir = context.targetIsFile ? dirOf(context.target) : context.target
    else if (location.value === "__tests__") dir = joinRelative(dir, "__tests__")
    else if (location.value.startsWith("mirror ")) {
      const [from, to] = location.value.slice(7).split(" -> ") as [string, string]
      if (from === "" || dir === from || dir.startsWith(`${from}/`)) dir = joinRelative(to, dir.slice(from.length))
      else notes.push(`${subject} is outside ${from}, the tree the tests mirror: the test is put next to it.`)
    }
    const jsx = /x$/.test(extOf(subject))
    const ext = `.${family.value}${jsx ? "x" : ""}`
    const path =
      context.targetIsFile && context.target !== undefined
        ? context.target
        : joinRelative(dir, `${stemOf(subject)}${suffix.value}${ext}`)
    const keep = keepExtensions && family.value === "ts"
    const module = relativeSpecifier(dirOf(path), subject, keep)
    const defaultExport = runtime.find((e) => e.isDefault)
    const named = runtime.filter((e) => !e.isDefault).map((e) => e.name)
    const defaultName =
      defaultExport === undefined
        ? undefined
        : defaultExport.name === "default"
          ? pascal(stemOf(subject))
          : defaultExport.name
    const testingLibrary = vote(
      weighted((e) => (e.style.test === undefined ? undefined : e.style.test.testingLibrary ? "yes" : "no")),
      "no"
    )
    // With Testing Library, the components that take no props are rendered; the others get a placeholder.
    const render =
      testingLibrary.value === "yes" && jsx
        ? runtime
            .filter((e) => e.kind === "component" && /^\(\s*\)/.test(e.signature))
            .map((e) => (e.isDefault ? defaultName! : e.name))
        : []
    const content = formatted(
      testTemplate({
        imports: imports.value,
        fn: fn.value,
        describe: describe.value === "yes",
        module,
        named,
        ...(defaultName !== undefined ? { defaultName } : {}),
        render
      }),
      format
    )
    notes.push(
      render.length > 0
        ? "Components without props are rendered with Testing Library; the other exports get a placeholder check (toBeDefined): replace them with real assertions."
        : "Each export gets one placeholder check (toBeDefined): replace them with real assertions."
    )
    if (examples.length === 0) notes.push("The project has no test to model on: a minimal default was used.")
    return {
      files: [{ path, content, basedOn: examples.slice(0, 3).map((e) => e.path) }],
      notes,
      conventions: {
        subject: { value: subject, from: [] },
        location: show(location),
        suffix: show(suffix),
        language: show(family),
        runnerImports: show(imports),
        testFunction: show(fn),
        describe: show(describe),
        testingLibrary: show(testingLibrary),
        ...formatConventions
      },
      next: `Fill in the assertions, then call fe_verify with steps ["typecheck", "lint", "test"] and files ["${path}"].`
    } satisfies Planned
  })

// -- page -----------------------------------------------------------------------------------

const planNextAppPage = (context: Context, appDir: string, route: string) =>
  Effect.gen(function* () {
    const notes: Array<string> = []
    const graph = context.graph
    const pages = graph.files().filter((p) => p.startsWith(`${appDir}/`) && stemOf(p) === "page" && isCode(p))
    const candidates = pages.map((path) => ({ path, home: dirOf(path) }))
    const examples = yield* readExamples(context, candidates, appDir)
    const weighted = <A>(f: (e: Example) => A | undefined) =>
      examples.map((e) => ({ path: e.path, weight: 1, value: f(e) }))
    const { format, conventions: formatConventions } = yield* formatOf(context, examples)
    const dynamicExamples = examples.filter((e) => /\[/.test(e.path))
    const declaration = vote(
      weighted((e) => e.style.main?.declaration),
      "function" as const
    )
    const suffix = vote(
      weighted((e) => (e.style.main === undefined ? undefined : e.style.main.name.endsWith("Page") ? "Page" : "none")),
      "Page"
    )
    // Metadata when most pages export some: a constant for a static route (when a page has one), else generated.
    const withMetadata = vote(
      weighted((e) => (e.style.metadata === undefined ? "none" : "exported")),
      "none"
    )
    const params = routeParams(route)
    const metadata = {
      value:
        withMetadata.value === "none"
          ? "none"
          : params.length === 0 && examples.some((e) => e.style.metadata === "metadata")
            ? "metadata"
            : "generateMetadata",
      from: withMetadata.from
    }
    const nextSpec = context.info.dependencies.includes("next")
      ? /(\d+)/.exec((yield* context.read("package.json"))?.match(/"next"\s*:\s*"([^"]+)"/)?.[1] ?? "")?.[1]
      : undefined
    const promiseDefault = nextSpec === undefined || Number(nextSpec) >= 15
    const paramsPromise = vote(
      dynamicExamples.map((e) => ({ path: e.path, weight: 1, value: e.style.awaitsParams ? "Promise" : "object" })),
      promiseDefault ? "Promise" : "object"
    )
    const propsStyle = vote(
      dynamicExamples.map((e) => ({ path: e.path, weight: 1, value: e.style.props?.style })),
      "type" as const
    )
    // A stylesheet the pages share (resolved from each page), or none.
    const sheets = vote(
      examples.map((e) => {
        const module = e.style.stylesheets.find((s) => s.specifier.includes(".module.") && s.local !== undefined)
        return {
          path: e.path,
          weight: 1,
          value: module === undefined ? undefined : `${joinRelative(dirOf(e.path), module.specifier)} ${module.local}`
        }
      }),
      ""
    )
    const segments = route.split("/").filter((s) => s !== "")
    const dir = joinRelative(context.target ?? appDir, ...segments)
    const path = joinRelative(dir, `page${extOf(examples[0]?.path ?? "page.tsx")}`)
    const words = segments.filter((s) => !s.startsWith("(") && !s.startsWith("["))
    const last = words[words.length - 1] ?? "Home"
    const title = pascal(last).replace(/([a-z])([A-Z])/g, "$1 $2")
    const name = `${pascal(words.join("-")) || "Home"}${suffix.value === "Page" ? "Page" : ""}`
    let stylesheet: { specifier: string; local: string; className: string } | undefined
    if (sheets.value !== "" && sheets.from.length >= 2) {
      const [sheetPath, local] = sheets.value.split(" ") as [string, string]
      const className = firstClass(yield* context.read(sheetPath)) ?? "main"
      stylesheet = { specifier: relativeSpecifier(dir, sheetPath, true), local, className }
    }
    const content = formatted(
      nextPageTemplate({
        name,
        title,
        params,
        paramsPromise: paramsPromise.value === "Promise",
        metadata: metadata.value as "metadata" | "generateMetadata" | "none",
        declaration: declaration.value,
        propsStyle: propsStyle.value,
        stylesheet
      }),
      format
    )
    if (examples.length === 0) notes.push("The project has no app router page to model on: a minimal default was used.")
    return {
      files: [{ path, content, basedOn: examples.slice(0, 3).map((e) => e.path) }],
      notes,
      conventions: {
        router: { value: "next app router", from: pages.slice(0, 3) },
        route: { value: `/${segments.join("/")}`, from: [] },
        declaration: show(declaration),
        componentName: show({ value: suffix.value === "Page" ? "<Route>Page" : "<Route>", from: suffix.from }),
        metadata: show(metadata),
        ...(params.length > 0 ? { params: show(paramsPromise), paramsType: show(propsStyle) } : {}),
        stylesheet: show({ value: stylesheet?.specifier ?? "none", from: sheets.from }),
        ...formatConventions
      },
      next: `Call fe_verify with files ["${path}"]; the route is /${segments.join("/")}.`
    } satisfies Planned
  })

const routePattern = /^(\[\[\.\.\.\w+\]\]|\[\.\.\.\w+\]|\[\w+\]|\([a-z0-9-]+\)|[a-z0-9][a-z0-9._-]*)$/

const planPage = (context: Context) =>
  Effect.gen(function* () {
    const { graph, info: project } = context
    const route = context.name.replace(/^\/+|\/+$/g, "")
    const files = graph.files()
    const under = (dir: string) => files.some((p) => p.startsWith(`${dir}/`))
    if (project.framework === "next") {
      const appDir = context.target ?? (under("src/app") ? "src/app" : under("app") ? "app" : undefined)
      const pagesDir = under("src/pages") ? "src/pages" : under("pages") ? "pages" : undefined
      if (appDir !== undefined || pagesDir === undefined) {
        return yield* planNextAppPage({ ...context, target: undefined }, appDir ?? "app", route)
      }
      // The pages router: a default-exported component at pages/<route>.tsx.
      const examples = files.filter(
        (p) => p.startsWith(`${pagesDir}/`) && isCode(p) && !/\/(api\/|_app|_document)/.test(p)
      )
      const planned = yield* planComponent(
        {
          ...context,
          name: `${
            pascal(
              route
                .split("/")
                .filter((s) => !s.startsWith("["))
                .join("-")
            ) || "Home"
          }Page`,
          props: [],
          target: `${joinRelative(pagesDir, route)}${extOf(examples[0] ?? "a.tsx")}`,
          targetIsFile: true
        },
        { dir: dirOf(joinRelative(pagesDir, route)), examples }
      )
      return {
        ...planned,
        conventions: { router: { value: "next pages router", from: examples.slice(0, 3) }, ...planned.conventions }
      }
    }
    if (project.framework === "sveltekit") {
      const routesDir = under("src/routes") ? "src/routes" : "src/routes"
      const examples = files.filter((p) => p.startsWith(`${routesDir}/`) && baseOf(p) === "+page.svelte")
      let typescript = project.tsconfig !== null
      for (const example of examples.slice(0, 5)) {
        const text = yield* context.read(example)
        if (text !== undefined) typescript = text.includes('lang="ts"') || text.includes("lang='ts'")
      }
      const params = routeParams(route)
      const title = pascal(
        route
          .split("/")
          .filter((s) => !s.startsWith("[") && !s.startsWith("("))
          .pop() ?? "Home"
      )
      const script =
        params.length > 0
          ? `<script${typescript ? ' lang="ts"' : ""}>\n  import { page } from '$app/state';\n</script>\n\n<h1>{page.params.${params[0]!.name}}</h1>\n`
          : `<h1>${title}</h1>\n`
      const path = joinRelative(routesDir, route, "+page.svelte")
      return {
        files: [{ path, content: script, basedOn: examples.slice(0, 3) }],
        notes:
          examples.length === 0 ? ["The project has no +page.svelte to model on: a minimal default was used."] : [],
        conventions: {
          router: { value: "sveltekit", from: examples.slice(0, 3) },
          scriptLang: { value: typescript ? "ts" : "js", from: examples.slice(0, 3) }
        }
      } satisfies Planned
    }
    if (project.framework === "nuxt") {
      const examples = files.filter((p) => p.startsWith("pages/") && p.endsWith(".vue"))
      const params = routeParams(route)
      const typescript = project.tsconfig !== null || project.dependencies.includes("typescript")
      const title = pascal(
        route
          .split("/")
          .filter((s) => !s.startsWith("["))
          .pop() ?? "Home"
      )
      const content =
        params.length > 0
          ? `<script setup${typescript ? ' lang="ts"' : ""}>\nconst route = useRoute()\n</script>\n\n<template>\n  <main>\n    <h1>{{ route.params.${params[0]!.name} }}</h1>\n  </main>\n</template>\n`
          : `<template>\n  <main>\n    <h1>${title}</h1>\n  </main>\n</template>\n`
      const path = `${joinRelative("pages", route)}.vue`
      return {
        files: [{ path, content, basedOn: examples.slice(0, 3) }],
        notes: examples.length === 0 ? ["The project has no page to model on: a minimal default was used."] : [],
        conventions: { router: { value: "nuxt pages", from: examples.slice(0, 3) } }
      } satisfies Planned
    }
    if (project.framework === "react") {
      const dirs = ["src/pages", "src/routes", "src/views", "pages", "routes", "views"].filter(under)
      const pagesDir = context.target ?? dirs[0]
      if (pagesDir === undefined) {
        return yield* fail(
          "no_pages_directory",
          "This React project has no pages directory (src/pages, src/routes or src/views), so where a page goes and how it is routed is not known.",
          'Call fe_scaffold with kind "component" and a target directory for the page component, then add its route to the router yourself.'
        )
      }
      const examples = files.filter((p) => p.startsWith(`${pagesDir}/`) && /\.[jt]sx$/.test(p) && !isTestFile(p))
      const words = route.split("/").filter((s) => !s.startsWith("[") && !s.startsWith("("))
      const suffixed = examples.filter((p) => stemOf(p).endsWith("Page")).length * 2 >= examples.length
      const name = `${pascal(words.join("-")) || "Home"}${suffixed ? "Page" : ""}`
      const planned = yield* planComponent(
        { ...context, name, props: [], target: pagesDir, targetIsFile: false },
        { dir: pagesDir, examples }
      )
      return {
        ...planned,
        conventions: {
          router: { value: `pages directory ${pagesDir}`, from: examples.slice(0, 3) },
          ...planned.conventions
        },
        next: `Add the route /${route} → ${name} to the project's router, then call fe_verify with files ["${planned.files[0]!.path}"].`
      }
    }
    return yield* fail(
      "unsupported_framework",
      `fe_scaffold makes pages for Next.js (app and pages routers), SvelteKit, Nuxt and React projects with a pages directory; this project's framework is ${project.framework}.`,
      'Call fe_scaffold with kind "component" for the page component and register it yourself.'
    )
  })

// -- validation -------------------------------------------------------------------------------

/** Letters without their accents (`Ünïcode` → `Unicode`), for a suggestion. */
const ascii = (name: string): string => name.normalize("NFD").replace(/[\u0300-\u036f]/g, "")

/** Why a route cannot be one (duplicate parameter, catch-all not last), or undefined. */
const routeProblem = (segments: ReadonlyArray<string>, framework: string): string | undefined => {
  const params = segments.flatMap((segment) => routeParams(segment).map((p) => ({ segment, ...p })))
  const seen = new Set<string>()
  for (const param of params) {
    if (seen.has(param.name)) {
      return `the parameter "${param.name}" appears twice; each dynamic segment needs its own name, e.g. "shop/[category]/[id]"`
    }
    seen.add(param.name)
  }
  if (framework === "next" || framework === "nuxt") {
    const at = segments.findIndex((segment) => routeParams(segment).some((p) => p.catchAll))
    if (at !== -1 && at !== segments.length - 1) {
      return `the catch-all segment ${segments[at]} must be the last one (nothing can follow it), e.g. "docs/[...slug]"`
    }
  }
  return undefined
}

const nameProblem = (
  kind: Kind,
  name: string,
  framework: string
): { message: string; suggestion: string } | undefined => {
  const valid = (example: string, fixed: string | undefined) => ({
    message: `"${name}" is not a valid ${kind} name: ${example}.`,
    suggestion:
      fixed === undefined || fixed === name
        ? `Call fe_scaffold again with a ${kind} name such as ${example}.`
        : `Call fe_scaffold again with name "${fixed}".`
  })
  // A suggestion only when it is itself valid.
  const checked = (fixed: string, ok: (candidate: string) => boolean) => (ok(fixed) ? fixed : undefined)
  const isComponent = (n: string) => /^[A-Z][A-Za-z0-9]*$/.test(n)
  const isHook = (n: string) => /^use[A-Z0-9][A-Za-z0-9]*$/.test(n)
  const isUtil = (n: string) => /^[a-z][A-Za-z0-9]*$/.test(n) && !reserved.has(n) && !restricted.has(n)
  switch (kind) {
    case "component":
      return isComponent(name)
        ? undefined
        : valid("a PascalCase identifier like UserCard", checked(pascal(ascii(name)), isComponent))
    case "hook":
      return isHook(name)
        ? undefined
        : valid(
            "use followed by a capital, like useToggle",
            checked(`use${pascal(ascii(name).replace(/^use/, ""))}`, isHook)
          )
    case "util":
      return isUtil(name)
        ? undefined
        : valid("a camelCase identifier like formatPrice (not a reserved word)", checked(camel(ascii(name)), isUtil))
    case "page": {
      const trimmed = name.replace(/^\/+|\/+$/g, "")
      const segments = trimmed.split("/")
      if (trimmed === "" || !segments.every((s) => routePattern.test(s))) {
        return {
          message: `"${name}" is not a route: use lowercase segments separated by /, [param], [...rest], [[...optional]] or (group), e.g. "settings/profile" or "blog/[slug]".`,
          suggestion: 'Call fe_scaffold again with kind "page" and a route name such as "settings" or "products/[id]".'
        }
      }
      const problem = routeProblem(segments, framework)
      return problem === undefined
        ? undefined
        : {
            message: `"${name}" is not a valid route: ${problem}.`,
            suggestion:
              'Call fe_scaffold again with kind "page" and a valid route such as "products/[id]" or "docs/[...slug]".'
          }
    }
    case "test":
      return undefined
  }
}

/** Names strict-mode code (every module) cannot bind. */
const restricted = new Set(["eval", "arguments"])

const reserved = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(
    " "
  )
)

/**
 * The `scaffold` tool, published as `fe_scaffold`: the files for a new
 * component, hook, page, test or utility, modelled on the project's closest
 * existing examples; created through the file transaction when `write` is
 * true (destructive: the runtime asks the user to confirm a call with
 * `write: true`; a preview runs without asking).
 *
 * **Example**
 *
 * ```ts
 * import { scaffold } from "./capabilities/fe/scaffold.ts"
 *
 * scaffold.tool.annotations?.destructiveHint // => true
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const scaffold = Tool.make("scaffold", {
  // Published with serve --experimental (Kernel.layer({ experimental })) until it is proven.
  experimental: true,
  title: "New component, hook, page or test in the project's style",
  description:
    "Returns the files for a new component, hook, page (a route of the project's framework), test or util, modelled " +
    "on the project's own closest existing files: the same folder, file naming, export style (named or default, " +
    "function or arrow), props typing, CSS approach (CSS Modules, plain CSS, Tailwind, styled), test location and " +
    "runner imports, quotes and semicolons — each convention with the files it came from. With write: true the " +
    "files are created (never over an existing file).",
  input: Schema.Struct({
    kind: Schema.String.annotate({ description: `One of ${scaffoldKinds.join(", ")}.` }),
    name: Schema.String.annotate({
      description:
        'component: PascalCase (UserCard); hook: useX; util: camelCase; page: the route ("settings", "blog/[slug]"); test: the root-relative path of the file to test.'
    }),
    target: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "Optional root-relative directory (or full file path) to put it in instead of the one the examples suggest; for a page, the routes directory."
      })
    ),
    props: Schema.optionalKey(
      Schema.Array(
        Schema.Struct({
          name: Schema.String,
          type: Schema.optionalKey(Schema.String.annotate({ description: 'A TypeScript type (default "string").' })),
          optional: Schema.optionalKey(Schema.Boolean)
        })
      ).annotate({ description: "A component's props; the project's own types they name are imported." })
    ),
    write: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "Create the files (default false: only return them for review)." })
    )
  }),
  output: ScaffoldResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // Only a call that writes is confirmed: a preview changes nothing.
  confirmWhen: (input) => input.write === true
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ kind: kindInput, name: rawName, props = [], target: rawTarget, write = false }) {
      if (!(scaffoldKinds as ReadonlyArray<string>).includes(kindInput)) {
        return yield* fail(
          "unknown_kind",
          `Unknown kind "${kindInput}". fe_scaffold makes: ${scaffoldKinds.join(", ")}.`,
          `Call fe_scaffold with kind one of ${scaffoldKinds.join(", ")}.`
        )
      }
      const kind = kindInput as Kind
      const name = rawName.trim()
      // A page's route rules depend on the framework: checked once the project is known.
      const problem = kind === "page" ? undefined : nameProblem(kind, name, "")
      if (problem !== undefined) return yield* fail("invalid_name", problem.message, problem.suggestion)
      const propSpecs: Array<PropSpec> = []
      for (const prop of props) {
        const type = (prop.type ?? "string").trim()
        if (propSpecs.some((p) => p.name === prop.name)) {
          return yield* fail(
            "invalid_props",
            `The prop "${prop.name}" is listed twice.`,
            "Call fe_scaffold again with each prop named once."
          )
        }
        if (
          !/^[A-Za-z_$][\w$]*$/.test(prop.name) ||
          reserved.has(prop.name) ||
          restricted.has(prop.name) ||
          type === "" ||
          /[\n;{}`§‹›]/.test(type.replace(/\{[^{}]*\}/g, ""))
        ) {
          return yield* fail(
            "invalid_props",
            reserved.has(prop.name) || restricted.has(prop.name)
              ? `The prop name ${JSON.stringify(prop.name)} is a reserved word or a name strict-mode code cannot bind (eval, arguments): the component could not destructure it.`
              : `The prop ${JSON.stringify(prop.name)} with type ${JSON.stringify(type)} is not valid: a prop needs an identifier name and a one-line TypeScript type.`,
            'Call fe_scaffold again with props such as [{ "name": "title", "type": "string" }].'
          )
        }
        if (prop.name === "key") {
          // React keeps `key` for itself: a component never receives it as a prop (it would always be undefined).
          return yield* fail(
            "invalid_props",
            'The prop name "key" is React\'s own: React uses it to tell list items apart and never passes it to the component.',
            'Call fe_scaffold again with another name, such as "itemKey" or "id".'
          )
        }
        propSpecs.push({ name: prop.name, type, optional: prop.optional === true })
      }
      if (props.length > 0 && kind !== "component") {
        return yield* fail(
          "invalid_props",
          `props are for kind "component"; a ${kind} takes none.`,
          `Call fe_scaffold again without props.`
        )
      }
      const workspace = yield* Workspace
      const project = yield* Effect.flatMap(Effect.service(FeState), (state) => state.project)
      const routeIssue = kind === "page" ? nameProblem(kind, name, project.framework) : undefined
      if (routeIssue !== undefined) return yield* fail("invalid_name", routeIssue.message, routeIssue.suggestion)
      const snapshot = yield* Effect.flatMap(Effect.service(FeGraph), (cache) => cache.current)
      const parse = yield* loadParserForTool
      let target: string | undefined
      let targetIsFile = false
      let targetExists = false
      if (rawTarget !== undefined && rawTarget.trim() !== "") {
        const resolved = yield* mapWorkspaceError(workspace.resolve(rawTarget.trim()))
        target = resolved.relative
        targetExists = resolved.exists
        targetIsFile = /\.[a-z]+$/i.test(baseOf(target)) && codeExtensions.includes(extOf(target))
        if (resolved.exists && !targetIsFile) {
          const stat = yield* mapWorkspaceError(workspace.stat(target))
          if (stat.type !== "directory") {
            return yield* fail(
              "exists",
              `${target} exists and is a file.`,
              "Name a directory, or a path that does not exist yet, as target."
            )
          }
        }
      }
      if (
        kind === "component" &&
        targetIsFile &&
        !targetExists &&
        target !== undefined &&
        ![".tsx", ".jsx"].includes(extOf(target))
      ) {
        const fixed = `${target.slice(0, target.length - extOf(target).length)}${
          project.tsconfig !== null || project.dependencies.includes("typescript") ? ".tsx" : ".jsx"
        }`
        return yield* fail(
          "invalid_target",
          `${target} cannot hold a component: its markup is JSX, which only a .tsx or .jsx file may contain (in a ${extOf(target)} file it does not compile). Nothing was written.`,
          `Call fe_scaffold again with target "${fixed}", or a directory.`
        )
      }
      let subject = name
      if (kind === "test") {
        const resolved = yield* mapWorkspaceError(workspace.resolve(name))
        subject = resolved.relative
        if (snapshot.graph.file(subject) === undefined || isTestFile(subject)) {
          const near = snapshot.graph
            .files()
            .filter((p) => !isTestFile(p) && (stemOf(p) === stemOf(subject) || p.endsWith(subject)))
            .slice(0, 3)
          return yield* fail(
            "unknown_file",
            isTestFile(subject)
              ? `${subject} is a test already; name the file to test.`
              : `${subject} is not a source file of the project.`,
            near.length > 0
              ? `Did you mean ${near.join(", ")}? Call fe_scaffold with kind "test" and name set to the file to test.`
              : 'Call fe_skeleton to see the project\'s files, then fe_scaffold with kind "test" and the file to test as name.'
          )
        }
      }
      const read = (path: string) =>
        workspace.read(path).pipe(
          Effect.map((result) => (result.truncated || result.binary ? undefined : result.content)),
          Effect.orElseSucceed(() => undefined)
        )
      const context: Context = {
        graph: snapshot.graph,
        parse,
        info: project,
        read,
        target,
        targetIsFile,
        name: kind === "test" ? subject : name,
        props: propSpecs
      }
      const planned: Planned =
        kind === "component"
          ? yield* planComponent(context)
          : kind === "hook" || kind === "util"
            ? yield* planFunction(context, kind)
            : kind === "test"
              ? yield* planTest(context)
              : yield* planPage(context)
      // Every path checked by the workspace (root, deny list) and new.
      for (const file of planned.files) {
        const resolved = yield* mapWorkspaceError(workspace.resolve(file.path))
        if (resolved.exists) {
          return yield* fail(
            "exists",
            `${file.path} exists already; fe_scaffold never overwrites a file. Nothing was written.`,
            kind === "page"
              ? "Choose another route, or edit the existing page with workspace_edit."
              : "Choose another name or target, or edit the existing file with workspace_edit."
          )
        }
      }
      const paths = planned.files.map((f) => f.path)
      const codePaths = paths.filter(isCode)
      let written = false
      if (write) {
        const prepared = yield* prepare(planned.files.map((file) => ({ path: file.path, create: file.content }))).pipe(
          Effect.mapError((error) => toToolError(error, "fe_scaffold"))
        )
        yield* commit(prepared).pipe(Effect.mapError((error) => toToolError(error, "fe_scaffold")))
        written = true
      }
      const after = planned.next ?? `Call fe_verify with files ${JSON.stringify(codePaths)} to typecheck and lint them.`
      const next = written
        ? `Created ${paths.join(", ")}. ${after}`
        : `Review the files; to create them call fe_scaffold again with the same arguments and write: true (the user is asked to confirm it). Then: ${after}`
      return {
        kind,
        framework: project.framework,
        files: planned.files,
        conventions: planned.conventions,
        notes: planned.notes,
        written,
        next
      } satisfies ScaffoldResult
    })
  )
)
