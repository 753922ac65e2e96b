/**
 * Single-file components for `fe_skeleton`: the `<script>` blocks of Vue and
 * Svelte files and the frontmatter of Astro files are located by their tags
 * (the markup itself is not parsed), then parsed like any module. A
 * component file maps to the component (its default export, named after the
 * file) with its props, the exports of its module-level script, and its
 * imports.
 *
 * @since 0.1.0
 */
import { type ExportEntry, extract, type FileSkeleton, type ImportEntry, type Parse } from "./extract.ts"

/**
 * The component file extensions the skeleton maps.
 *
 * **Example**
 *
 * ```ts
 * import { componentExtensions } from "./capabilities/fe/skeleton/components.ts"
 *
 * componentExtensions // => [".vue", ".svelte", ".astro"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const componentExtensions: ReadonlyArray<string> = [".vue", ".svelte", ".astro"]

interface ScriptBlock {
  /** The block's code. */
  readonly code: string
  /** "ts" or "tsx" for TypeScript, else "js". */
  readonly lang: "ts" | "tsx" | "js"
  /** Vue's `<script setup>`, Svelte's instance script, Astro's frontmatter: the component's own scope. */
  readonly instance: boolean
  /** How many lines of the file come before the block's first line (the code's line 1). */
  readonly lineOffset: number
}

/** How many line feeds `text` has before `offset`. */
const lineFeedsBefore = (text: string, offset: number): number => {
  let count = 0
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) count++
  return count
}

const attribute = (tag: string, name: string): string | undefined => {
  const lower = tag.toLowerCase()
  let index = lower.indexOf(name)
  while (index !== -1) {
    const before = lower[index - 1]
    const after = lower.slice(index + name.length).trimStart()
    if ((before === " " || before === "\t" || before === "\n") && after.startsWith("=")) {
      const value = after.slice(1).trimStart()
      const quote = value[0]
      if (quote === '"' || quote === "'") return value.slice(1, value.indexOf(quote, 1))
      return value.split(/[\s>]/)[0]
    }
    if (
      (before === " " || before === "\t" || before === "\n") &&
      /^[\s>/]/.test(after.length === 0 ? ">" : lower[index + name.length]!)
    ) {
      return ""
    }
    index = lower.indexOf(name, index + 1)
  }
  return undefined
}

/** The `<script>` blocks of a Vue or Svelte file (found by their tags; comments in the markup are not special). */
const scriptBlocks = (source: string, flavour: "vue" | "svelte"): Array<ScriptBlock> => {
  const blocks: Array<ScriptBlock> = []
  const lower = source.toLowerCase()
  let from = 0
  while (true) {
    const open = lower.indexOf("<script", from)
    if (open === -1) break
    const tagEnd = lower.indexOf(">", open)
    if (tagEnd === -1) break
    const close = lower.indexOf("</script>", tagEnd)
    if (close === -1) break
    const tag = source.slice(open, tagEnd + 1)
    const lang = (attribute(tag, "lang") ?? "js").toLowerCase()
    const instance =
      flavour === "vue"
        ? attribute(tag, "setup") !== undefined
        : attribute(tag, "context") !== "module" && attribute(tag, "module") === undefined
    blocks.push({
      code: source.slice(tagEnd + 1, close),
      lang: lang === "ts" || lang === "typescript" ? "ts" : lang === "tsx" ? "tsx" : "js",
      instance,
      lineOffset: lineFeedsBefore(source, tagEnd + 1)
    })
    from = close + "</script>".length
  }
  return blocks
}

/** Astro's frontmatter: the code between the first two `---` lines. */
const frontmatter = (source: string): Array<ScriptBlock> => {
  const lines = source.split("\n")
  if (lines[0]?.trim() !== "---") return []
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---")
  return end === -1 ? [] : [{ code: lines.slice(1, end).join("\n"), lang: "ts", instance: true, lineOffset: 1 }]
}

/** `my-button.vue` → `MyButton`. */
const componentName = (path: string): string => {
  const base = path.slice(path.lastIndexOf("/") + 1).replace(/\.(vue|svelte|astro)$/, "")
  const name = base
    .split(/[-_.\s]+/)
    .filter((part) => part !== "")
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("")
  return name === "" ? "Component" : name
}

type Node = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: any }

const collapse = (text: string, max = 160): string => {
  const one = text.replace(/\s+/g, " ").trim()
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`
}

/** The props an instance script declares: Vue's defineProps, Svelte 5's $props(), Svelte 4's `export let`, Astro's Props. */
const propsOf = (parse: Parse, block: ScriptBlock, flavour: "vue" | "svelte" | "astro"): string | undefined => {
  const body = parse(`component.${block.lang}`, block.code).program.body as ReadonlyArray<Node>
  const text = (node: Node) => block.code.slice(node.start, node.end)
  const callOf = (node: Node | undefined, name: string): Node | undefined => {
    if (node === undefined || node === null) return undefined
    if (node.type === "CallExpression" && node.callee?.type === "Identifier" && node.callee.name === name) return node
    // withDefaults(defineProps<…>(), {…})
    if (node.type === "CallExpression" && node.callee?.name === "withDefaults") return callOf(node.arguments?.[0], name)
    return undefined
  }
  const svelteLets: Array<string> = []
  for (const statement of body) {
    const expressions: Array<{ readonly init: Node | undefined; readonly id: Node | undefined }> =
      statement.type === "VariableDeclaration"
        ? statement.declarations.map((d: Node) => ({ init: d.init ?? undefined, id: d.id }))
        : statement.type === "ExpressionStatement"
          ? [{ init: statement.expression, id: undefined }]
          : []
    for (const { id, init } of expressions) {
      if (flavour === "vue") {
        const call = callOf(init, "defineProps")
        if (call !== undefined) {
          const typeArgument = call.typeArguments?.params?.[0] ?? call.typeParameters?.params?.[0]
          if (typeArgument) return collapse(text(typeArgument))
          if (call.arguments?.[0]) return collapse(text(call.arguments[0]))
          return "{}"
        }
      }
      if (flavour === "svelte" && callOf(init, "$props") !== undefined && id) {
        // let { a, b }: Props = $props(): the type when there is one, else the names.
        return collapse(id.typeAnnotation?.typeAnnotation ? text(id.typeAnnotation.typeAnnotation) : text(id))
      }
    }
    if (
      flavour === "svelte" &&
      statement.type === "ExportNamedDeclaration" &&
      statement.declaration?.type === "VariableDeclaration"
    ) {
      for (const declarator of statement.declaration.declarations) svelteLets.push(collapse(text(declarator.id)))
    }
    if (flavour === "astro") {
      const declaration = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement
      if (
        (declaration?.type === "TSInterfaceDeclaration" || declaration?.type === "TSTypeAliasDeclaration") &&
        declaration.id?.name === "Props"
      ) {
        return "Props"
      }
    }
  }
  return svelteLets.length > 0 ? `{ ${svelteLets.join("; ")} }` : undefined
}

/**
 * The skeleton of a Vue, Svelte or Astro component file: the component (the
 * file's default export, named after the file, with its props when its
 * script declares them), the exports of its module-level script (Vue's plain
 * `<script>`, Svelte's `context="module"` script), and the imports of all
 * its scripts. A script that does not parse is reported as the file's error.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { extractComponent } from "./capabilities/fe/skeleton/components.ts"
 * import { loadParser } from "./capabilities/fe/skeleton/extract.ts"
 *
 * const vue = `<script setup lang="ts">\ndefineProps<{ title: string }>()\n</script>\n<template><h1>{{ title }}</h1></template>`
 * const skeleton = Effect.map(loadParser, (parse) => extractComponent(parse, "src/PageTitle.vue", vue))
 * // exports: [{ name: "PageTitle", kind: "component", signature: "(props: { title: string })", isDefault: true }]
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const extractComponent = (parse: Parse, path: string, source: string): FileSkeleton => {
  const flavour = path.endsWith(".vue") ? "vue" : path.endsWith(".svelte") ? "svelte" : "astro"
  const blocks = flavour === "astro" ? frontmatter(source) : scriptBlocks(source, flavour)
  const exports: Array<ExportEntry> = []
  const imports: Array<ImportEntry> = []
  let props: string | undefined
  let error: string | undefined
  for (const block of blocks) {
    const skeleton = extract(parse, `${path}.${block.lang}`, block.code)
    if (skeleton.error !== undefined) {
      error ??= skeleton.error
      continue
    }
    imports.push(...skeleton.imports)
    // The block's lines are the file's from its first line on.
    const shifted = skeleton.exports.map((entry) => ({
      ...entry,
      ...(entry.line === undefined ? {} : { line: entry.line + block.lineOffset }),
      ...(entry.endLine === undefined ? {} : { endLine: entry.endLine + block.lineOffset })
    }))
    if (block.instance) {
      props ??= propsOf(parse, block, flavour)
      // Svelte 4's `export let` are props (above), not module exports; Astro's `export interface Props` is listed.
      if (flavour === "astro") exports.push(...shifted)
    } else {
      exports.push(...shifted)
    }
  }
  // The component is the whole file.
  const component: ExportEntry = {
    name: componentName(path),
    kind: "component",
    signature: props === undefined ? "" : `(props: ${props})`,
    isDefault: true,
    line: 1,
    endLine: lineFeedsBefore(source, source.endsWith("\n") ? source.length - 1 : source.length) + 1
  }
  return { path, exports: [component, ...exports], imports, ...(error !== undefined ? { error } : {}) }
}
