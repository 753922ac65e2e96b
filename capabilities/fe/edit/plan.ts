/**
 * The AST edit engine's entry point: a list of surgeon operations (rename,
 * add/remove an import, a hook dependency, a parameter or prop, moving an
 * export, applying a doctor diagnosis, a plain text replacement) applied in
 * order over an in-memory overlay of the files' texts — each operation sees
 * the previous ones' results — and turned into the file changes of one
 * transaction (`../transaction.ts`), each existing file's carrying the
 * fingerprint of the bytes first read. Nothing is written here. `fe_surgeon`
 * and `fe_batch` are built on {@link plan}.
 *
 * @since 0.4.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../../src/Tool.ts"
import { Workspace } from "../../../src/Workspace.ts"
import { toToolError } from "../../workspace/errors.ts"
import { diagnose } from "../diagnosis/diagnose.ts"
import { computedSteps } from "../diagnosis/id.ts"
import type { FixStep } from "../diagnosis/model.ts"
import { FeGraph } from "../graph/cache.ts"
import type { ImportGraph } from "../graph/graph.ts"
import { loadParserForTool, type Parse } from "../skeleton/extract.ts"
import { FeState } from "../state.ts"
import { type FileChange, fingerprintOf, lineMap } from "../transaction.ts"
import { hookDependencyEdits, jsxAttributeEdits, parameterEdits, propEdits } from "./functions.ts"
import { addImportEdits, removeImportEdits } from "./imports.ts"
import { moveExport } from "./move.ts"
import { isScript, renameEdits, renameScope } from "./rename.ts"
import { type ImportView, resolveRelative, type ViewCacheEntry, viewOf } from "./view.ts"
import type { Binding } from "./scope.ts"
import { applyEdits, type Edit, type Node, parseSource, Refusal, type Source } from "./source.ts"

// ---- the operations ----

const file = Schema.String.annotate({ description: "The file, relative to the workspace root." })
const names = (description: string) => Schema.Array(Schema.String).annotate({ description })

const Rename = Schema.Struct({
  op: Schema.Literal("rename"),
  file: file.annotate({ description: "The file declaring the symbol." }),
  symbol: Schema.String.annotate({ description: "The name to rename, as declared in file." }),
  to: Schema.String.annotate({
    description: "The new name (a valid identifier not declared where the rename reaches)."
  }),
  line: Schema.optionalKey(
    Schema.Int.annotate({
      description:
        "The line of the declaration, to rename a local (a parameter, a variable in a function); default: the top-level one."
    })
  )
}).annotate({
  description:
    "Renames a symbol: its declaration and every reference in its scope (inner bindings of the same name left alone), and for an export every importer, re-export and barrel in the project."
})

const AddImport = Schema.Struct({
  op: Schema.Literal("add_import"),
  file,
  module: Schema.String.annotate({
    description: "The module specifier, as the import should write it (react, ./lib/format)."
  }),
  names: Schema.optionalKey(names('Named imports; "a as b" imports a under the local name b.')),
  default: Schema.optionalKey(Schema.String.annotate({ description: "The local name of the default import." })),
  typeOnly: Schema.optionalKey(Schema.Boolean.annotate({ description: "Import types only (import type)." }))
}).annotate({
  description:
    "Imports names: merged into the file's import of the module when there is one, else a new line after the last import."
})

const RemoveImport = Schema.Struct({
  op: Schema.Literal("remove_import"),
  file,
  module: Schema.String.annotate({ description: "The module specifier as the file writes it." }),
  names: Schema.optionalKey(
    names(
      'The names to remove: local names ("a2" of "a as a2"), "a as a2" exactly, default, or * for a namespace (an imported name alone when no local has it). Default: the whole import.'
    )
  )
}).annotate({ description: "Removes names from the file's import of a module (the declaration when none remains)." })

const AddHookDependency = Schema.Struct({
  op: Schema.Literal("add_hook_dependency"),
  file,
  line: Schema.Int.annotate({ description: "A line of the hook call (useEffect, useMemo, useCallback…)." }),
  names: names("The dependencies to add (identifiers or property paths).").check(Schema.isMinLength(1))
}).annotate({ description: "Adds names to a React hook's dependency array (adds the array when missing)." })

const action = Schema.Literals(["add", "remove", "rename"])

const ChangeParameter = Schema.Struct({
  op: Schema.Literal("change_parameter"),
  file,
  function: Schema.String.annotate({ description: "The top-level function (declaration or const = arrow/function)." }),
  action,
  name: Schema.String.annotate({ description: "The parameter's name." }),
  to: Schema.optionalKey(Schema.String.annotate({ description: "For rename: the new name." })),
  type: Schema.optionalKey(Schema.String.annotate({ description: "For add: its type (TypeScript files)." })),
  default: Schema.optionalKey(Schema.String.annotate({ description: "For add: a default value (source text)." }))
}).annotate({
  description:
    "Adds, removes (when unused) or renames a function's parameter. Callers are not changed: fe_verify shows them."
})

const ChangeProp = Schema.Struct({
  op: Schema.Literal("change_prop"),
  file,
  component: Schema.String.annotate({
    description: "The component: a top-level function whose first parameter is { …props }."
  }),
  action,
  name: Schema.String.annotate({ description: "The prop's name." }),
  to: Schema.optionalKey(Schema.String.annotate({ description: "For rename: the new name." })),
  type: Schema.optionalKey(
    Schema.String.annotate({ description: "For add: its type in the props type (default unknown)." })
  ),
  optional: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "For add: an optional member (default: when default is given)." })
  ),
  default: Schema.optionalKey(Schema.String.annotate({ description: "For add: a default value in the destructuring." }))
}).annotate({
  description:
    "Adds, removes (when unused) or renames a destructured prop of a component and its member in the props type declared in the same file; a rename also renames the attribute at JSX uses in the file and its importers."
})

const MoveExport = Schema.Struct({
  op: Schema.Literal("move_export"),
  file,
  symbol: Schema.String.annotate({ description: "The exported top-level declaration to move." }),
  to: Schema.String.annotate({ description: "The file to move it to (created when missing)." })
}).annotate({
  description:
    "Moves an exported declaration (with its leading comment) to another file, with the imports it needs; every importer then imports it from the new file."
})

const ApplyDiagnosis = Schema.Struct({
  op: Schema.Literal("apply_diagnosis"),
  id: Schema.String.annotate({
    description: "The diagnosis id fe_doctor gave (d + 10 hex digits), from the last fe_verify."
  })
}).annotate({ description: "Applies fe_doctor's computed fix for a problem of the last fe_verify." })

const ReplaceText = Schema.Struct({
  op: Schema.Literal("replace_text"),
  file,
  oldText: Schema.String.annotate({ description: "Text that occurs exactly once in the file." }),
  newText: Schema.String.annotate({ description: "Its replacement." })
}).annotate({ description: "A plain text replacement, as workspace_edit does it." })

/**
 * One surgeon operation, discriminated by `op`.
 *
 * **Example**
 *
 * ```ts
 * import type { SurgeonOperation } from "./capabilities/fe/edit/plan.ts"
 *
 * const ops: ReadonlyArray<SurgeonOperation> = [
 *   { op: "rename", file: "src/lib/format.ts", symbol: "formatPrice", to: "formatAmount" },
 *   { op: "add_import", file: "src/App.tsx", module: "react", names: ["useState"] }
 * ]
 * ```
 *
 * @category schemas
 * @since 0.4.0
 */
export const SurgeonOperation = Schema.Union([
  Rename,
  AddImport,
  RemoveImport,
  AddHookDependency,
  ChangeParameter,
  ChangeProp,
  MoveExport,
  ApplyDiagnosis,
  ReplaceText
])

/**
 * @category models
 * @since 0.4.0
 */
export type SurgeonOperation = typeof SurgeonOperation.Type

/**
 * What one operation did: its index in the list, its kind, a one-line
 * summary and the files it changed.
 *
 * **Example**
 *
 * ```ts
 * import type { PlannedOperation } from "./capabilities/fe/edit/plan.ts"
 *
 * const done: PlannedOperation = { index: 0, op: "add_import", summary: "Imported useState from react.", files: ["src/App.tsx"] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface PlannedOperation {
  readonly index: number
  readonly op: string
  readonly summary: string
  readonly files: ReadonlyArray<string>
}

/**
 * A plan: one change per touched file, ready for `transaction.prepare`
 * (whole content with the fingerprint of the bytes first read, or a
 * creation), and what each operation did.
 *
 * **Example**
 *
 * ```ts
 * import type { Plan } from "./capabilities/fe/edit/plan.ts"
 *
 * declare const planned: Plan
 * planned.changes.map((change) => change.path)
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Plan {
  readonly changes: ReadonlyArray<FileChange>
  readonly operations: ReadonlyArray<PlannedOperation>
}

// ---- the overlay ----

interface Entry {
  /** The text first read; undefined for a file that did not exist. */
  readonly original: string | undefined
  text: string | undefined
}

const fail = (index: number, op: string, code: string, message: string, suggestion: string) =>
  new Tool.ToolError({
    message: `Operation ${index + 1} (${op}): ${message} Nothing was written.`,
    code,
    suggestion
  })

/**
 * Computes the changes of a list of operations, in order, over the current
 * files (read through the Workspace: denied or ignored paths are refused),
 * without writing anything. A failing operation fails the whole plan with a
 * ToolError naming it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { plan } from "./capabilities/fe/edit/plan.ts"
 *
 * const paths = Effect.map(
 *   plan([{ op: "add_import", file: "src/App.tsx", module: "react", names: ["useState"] }]),
 *   (planned) => planned.changes.map((change) => change.path)
 * )
 * ```
 *
 * @category planning
 * @since 0.4.0
 */
export const plan = (
  ops: ReadonlyArray<SurgeonOperation>
): Effect.Effect<Plan, Tool.ToolError, Workspace | FeGraph | FeState> =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const graphService = yield* FeGraph
    const state = yield* FeState
    const parseOnce = yield* loadParserForTool
    // One parse per file text: the edit (parseSource), the import view (imports, exports) and the dynamic imports
    // of a file an operation changed all read the same text — the last parse of each file is kept.
    const lastParse = new Map<string, { readonly text: string; readonly result: ReturnType<Parse> }>()
    const parse: Parse = (filename, text, lang) => {
      const hit = lastParse.get(filename)
      if (hit !== undefined && hit.text === text) return hit.result
      const result = parseOnce(filename, text, lang)
      lastParse.set(filename, { text, result })
      return result
    }
    const overlay = new Map<string, Entry>()
    const parsed = new Map<string, { readonly text: string; readonly source: Source }>()
    let graph: ImportGraph | undefined
    let relativeStyle: string | undefined
    const viewCache = new Map<string, ViewCacheEntry>()
    /** The project's script files that contain `import(` (read once per plan), for `import("./m").Name` types. */
    let typeImporters: Map<string, string> | undefined
    const operations: Array<PlannedOperation> = []
    // The diagnosis steps applied so far, by file, line and edit: the operation that applied each.
    const appliedSteps = new Map<string, number>()

    for (const [index, op] of ops.entries()) {
      const refuse = (code: string, message: string, suggestion: string) =>
        Effect.fail(fail(index, op.op, code, message, suggestion))

      /** The root-relative path of a file, read into the overlay (undefined text: it does not exist). */
      const load = (path: string, mayBeMissing = false) =>
        Effect.gen(function* () {
          const resolved = yield* workspace.resolve(path).pipe(
            Effect.mapError((error) => {
              const tool = toToolError(error)
              return fail(
                index,
                op.op,
                tool.code ?? "path_rejected",
                tool.message,
                tool.suggestion ?? "Pick a file inside the project."
              )
            })
          )
          const relative = resolved.relative
          if (overlay.has(relative)) {
            if (overlay.get(relative)!.text === undefined && !mayBeMissing) {
              return yield* refuse("not_found", `No file ${path} (an earlier operation's result).`, "Check the path.")
            }
            return relative
          }
          if (!resolved.exists) {
            if (!mayBeMissing) {
              return yield* refuse(
                "not_found",
                `No file ${path} in the project.`,
                "Call fe_skeleton or workspace_list to see the files."
              )
            }
            overlay.set(relative, { original: undefined, text: undefined })
            return relative
          }
          const read = yield* workspace.read(relative).pipe(
            Effect.mapError((error) => {
              const tool = toToolError(error)
              return fail(index, op.op, tool.code ?? "unreadable", tool.message, tool.suggestion ?? "Check the file.")
            })
          )
          if (read.truncated || read.binary) {
            return yield* refuse(
              read.binary ? "not_text" : "too_large",
              `${relative} is ${read.binary ? "not a text file" : `larger than the server reads (${read.size} bytes)`}.`,
              "Edit it another way."
            )
          }
          overlay.set(relative, { original: read.content, text: read.content })
          return relative
        })

      const currentGraph = Effect.gen(function* () {
        if (graph !== undefined) return graph
        const snapshot = yield* graphService.current.pipe(
          Effect.mapError((error) =>
            fail(index, op.op, error.code ?? "graph_failed", error.message, error.suggestion ?? "Retry.")
          )
        )
        graph = snapshot.graph
        return graph
      })
      /**
       * How the project writes relative specifiers (the most common way among its files' relative imports; with
       * none, `.js` under tsconfig's module NodeNext/Node16), for a moved declaration's new imports.
       */
      const projectRelativeStyle = Effect.gen(function* () {
        if (relativeStyle !== undefined) return relativeStyle
        const g = yield* currentGraph
        const counts = new Map<string, number>()
        for (const path of g.files().slice(0, 5000)) {
          for (const edge of g.file(path)?.imports ?? []) {
            if (!edge.specifier.startsWith(".")) continue
            const extension = /\.[cm]?[jt]sx?$/.exec(edge.specifier)?.[0]
            const style = extension === undefined ? "./x" : `./x${extension}`
            counts.set(style, (counts.get(style) ?? 0) + 1)
          }
        }
        const best = [...counts].sort((a, b) => b[1] - a[1])[0]
        if (best !== undefined) return (relativeStyle = best[0])
        const tsconfig = yield* workspace.read("tsconfig.json").pipe(Effect.option)
        const nodeNext =
          tsconfig._tag === "Some" && /"module"\s*:\s*"node(?:next|16|18|20)"/i.test(tsconfig.value.content)
        return (relativeStyle = nodeNext ? "./x.js" : "./x")
      })
      /**
       * TypeScript `import("./m").name` types (`typeof import("./a").foo`) naming `name` of `file`, which the import
       * graph does not record: file:line of each. Files are read once per plan (those holding `import(`).
       */
      const typeImportUses = (file: string, name: string) =>
        Effect.gen(function* () {
          const g = yield* currentGraph
          if (typeImporters === undefined) {
            const found = new Map<string, string>()
            yield* Effect.forEach(
              g.files().filter(isScript),
              (path) =>
                workspace.read(path).pipe(
                  Effect.map((read) => {
                    if (!read.binary && read.content.includes("import(")) found.set(path, read.content)
                  }),
                  Effect.ignore
                ),
              { concurrency: 32, discard: true }
            )
            typeImporters = found
          }
          const uses: Array<string> = []
          const exists = (path: string) =>
            overlay.has(path) ? overlay.get(path)!.text !== undefined : g.file(path) !== undefined
          const pattern = /import\(\s*(["'])([^"'\n]+)\1\s*\)\s*\.\s*([\w$]+)/g
          for (const [path, read] of typeImporters) {
            const text = overlay.get(path)?.text ?? read
            for (const match of text.matchAll(pattern)) {
              if (match[3] !== name || resolveRelative(path, match[2]!, exists) !== file) continue
              uses.push(`${path}:${text.slice(0, match.index).split("\n").length}`)
            }
          }
          return uses
        })
      /** Refuses a file the project walk leaves out (.gitignore'd, or under node_modules, dist…) unless created here. */
      const inProject = (path: string) =>
        Effect.gen(function* () {
          const g = yield* currentGraph
          const entry = overlay.get(path)
          if (g.file(path) !== undefined || (entry !== undefined && entry.original === undefined)) return
          return yield* refuse(
            "not_in_project",
            `${path} is not one of the project's source files (ignored by .gitignore, or under a skipped directory such as node_modules or dist), so its importers are not known.`,
            "Edit the project's own sources; call fe_skeleton to see them."
          )
        })
      /** The graph as this operation sees it: corrected for the files earlier ones changed. */
      const currentView = Effect.map(currentGraph, (g) =>
        viewOf(
          g,
          parse,
          new Map(
            [...overlay].filter(([, entry]) => entry.text !== entry.original).map(([path, entry]) => [path, entry.text])
          ),
          viewCache
        )
      )

      const textOf = (path: string): string | undefined => overlay.get(path)?.text
      const sourceOf = (path: string, text = textOf(path)): Source => {
        if (text === undefined) throw new Refusal("not_found", `No file ${path}.`, "Check the path.")
        const cached = parsed.get(path)
        if (cached !== undefined && cached.text === text) return cached.source
        const source = parseSource(parse, path, text)
        parsed.set(path, { text, source })
        return source
      }
      const setText = (path: string, text: string) => {
        const entry = overlay.get(path)!
        entry.text = text
      }
      const editFile = (path: string, edits: ReadonlyArray<Edit>) => {
        if (edits.length > 0) setText(path, applyEdits(textOf(path)!, edits))
      }

      /** Runs the pure part of an operation, a Refusal becoming the operation's ToolError. */
      const run = <A>(body: () => A) =>
        Effect.try({
          try: body,
          catch: (error) =>
            error instanceof Refusal
              ? fail(index, op.op, error.code, error.message, error.suggestion)
              : fail(
                  index,
                  op.op,
                  "internal",
                  `Unexpected failure: ${String(error)}.`,
                  "Report this; edit the file with replace_text meanwhile."
                )
        })

      const before = new Map([...overlay].map(([path, entry]) => [path, entry.text]))
      let summary: string
      switch (op.op) {
        case "rename": {
          const path = yield* load(op.file)
          yield* inProject(path)
          if (op.line === undefined) {
            const typeUses = yield* typeImportUses(path, op.symbol)
            if (typeUses.length > 0) {
              return yield* refuse(
                "unsupported_importer",
                `${typeUses.join(", ")} name${typeUses.length === 1 ? "s" : ""} ${op.symbol} of ${path} through an import("…") type (typeof import("…").${op.symbol}), which the rename does not follow: it would leave ${typeUses.length === 1 ? "it" : "them"} broken.`,
                `Put replace_text operations changing import("…").${op.symbol} to import("…").${op.to} there before the rename, in the same call (each operation sees the previous ones' result).`
              )
            }
          }
          const g = yield* currentView
          yield* Effect.forEach(
            renameScope(g, path, op.symbol).filter((touched) => touched !== path && isScript(touched)),
            (touched) => load(touched),
            { concurrency: 16, discard: true }
          )
          summary = yield* run(() => {
            const result = renameEdits({ source: (p) => sourceOf(p), graph: g }, path, op.symbol, op.to, op.line)
            for (const [p, edits] of result.edits) editFile(p, edits)
            return result.summary
          })
          break
        }
        case "add_import": {
          const path = yield* load(op.file)
          yield* inProject(path)
          summary = yield* run(() => {
            const edits = addImportEdits(sourceOf(path), op)
            editFile(path, edits)
            const what = [...(op.default !== undefined ? [op.default] : []), ...(op.names ?? [])].join(", ")
            return edits.length === 0
              ? `${path} already imports ${what} from ${op.module}.`
              : `Imported ${what} from ${op.module} in ${path}.`
          })
          break
        }
        case "remove_import": {
          const path = yield* load(op.file)
          summary = yield* run(() => {
            const result = removeImportEdits(sourceOf(path), op.module, op.names ?? [])
            editFile(path, result.edits)
            return (
              `Removed ${result.removed.join(", ") || `the import of ${op.module}`} from ${path}.` +
              (result.stillUsed.length > 0
                ? ` Still referenced in the file: ${result.stillUsed.join(", ")} (fe_verify will show it).`
                : "")
            )
          })
          break
        }
        case "add_hook_dependency": {
          const path = yield* load(op.file)
          summary = yield* run(() => {
            const result = hookDependencyEdits(sourceOf(path), op.line, op.names)
            editFile(path, result.edits)
            return result.added.length === 0
              ? `The ${result.hook} call already lists ${op.names.join(", ")}.`
              : `Added ${result.added.join(", ")} to the ${result.hook} dependencies in ${path}.`
          })
          break
        }
        case "change_parameter": {
          const path = yield* load(op.file)
          summary = yield* run(() => {
            const result = parameterEdits(sourceOf(path), op)
            editFile(path, result.edits)
            return result.summary
          })
          break
        }
        case "change_prop": {
          const path = yield* load(op.file)
          let view: ImportView | undefined
          if (op.action === "rename") {
            view = yield* currentView
            // The importers, and through re-exports (barrels) theirs: every file that may use the component.
            const seen = new Set([path])
            let frontier = [path]
            while (frontier.length > 0) {
              const next: Array<string> = []
              for (const from of frontier) {
                for (const importer of view.importersOf(from)) {
                  if (seen.has(importer) || !isScript(importer)) continue
                  seen.add(importer)
                  yield* load(importer)
                  // Followed further only when it passes the module on (a barrel): a re-export, or an imported
                  // name it exports again.
                  const edges = view
                    .importsOf(importer)
                    .filter((edge) => edge.resolution._tag === "File" && edge.resolution.path === from)
                  const exported = view.exportNames(importer)
                  if (
                    edges.some((edge) => edge.kind === "reexport" || edge.names.some((name) => exported.includes(name)))
                  ) {
                    next.push(importer)
                  }
                }
              }
              frontier = next
            }
          }
          summary = yield* run(() => {
            const source = sourceOf(path)
            const result = propEdits(source, op)
            if (op.action === "rename" && op.to !== undefined) {
              const binding = source.analysis.scopes[0]!.bindings.get(op.component)
              const extra = binding === undefined ? [] : jsxAttributeEdits(binding, op.name, op.to)
              editFile(path, [...result.edits, ...extra])
              for (const [importer, locals] of componentUses(
                (p) => (textOf(p) === undefined ? undefined : sourceOf(p)),
                view!,
                path,
                op.component
              )) {
                editFile(
                  importer,
                  locals.flatMap((local) => jsxAttributeEdits(local, op.name, op.to!))
                )
              }
            } else editFile(path, result.edits)
            return result.summary
          })
          break
        }
        case "move_export": {
          const path = yield* load(op.file)
          yield* inProject(path)
          const to = yield* load(op.to, true)
          const g = yield* currentView
          yield* Effect.forEach(g.importersOf(path).filter(isScript), (importer) => load(importer), {
            concurrency: 16,
            discard: true
          })
          const style = yield* projectRelativeStyle
          summary = yield* run(() => {
            const result = moveExport(
              { text: textOf, parse: (p, t) => sourceOf(p, t), graph: g, relativeStyle: style },
              path,
              op.symbol,
              to
            )
            for (const [p, text] of result.texts) setText(p, text)
            return (
              `Moved ${op.symbol} from ${path} to ${to}${result.created ? " (created)" : ""}; ${result.importers} importing file${result.importers === 1 ? "" : "s"} rewritten.` +
              (result.cycle !== undefined ? ` Warning: ${result.cycle}` : "")
            )
          })
          break
        }
        case "apply_diagnosis": {
          const problem = yield* state.problemById(op.id)
          if (problem === undefined) {
            const problems = yield* state.lastVerify
            return yield* problems === undefined
              ? refuse(
                  "no_verify",
                  "No fe_verify ran in this session, so no diagnosis id is known.",
                  "Call fe_verify, then fe_doctor, then apply_diagnosis with a diagnosis's id."
                )
              : refuse(
                  "unknown_diagnosis",
                  `No problem of this session's fe_verify runs has the diagnosis id ${op.id} (the last run has ${problems.length} problems).`,
                  "Call fe_doctor again (the ids change when the code moves), then pass one of its ids."
                )
          }
          const project = yield* state.project.pipe(Effect.option)
          const diagnosis = yield* diagnose(problem, project._tag === "Some" ? project.value : undefined)
          const steps = computedSteps(diagnosis.fix)
          if (steps === undefined) {
            return yield* refuse(
              "no_computed_fix",
              `The diagnosis ${op.id} (${diagnosis.title}, confidence ${diagnosis.confidence}) has no computed fix for ${problem.file} as it is now: its steps say what to do but not the exact text (or the file changed since fe_verify, or it is already fixed).`,
              `Apply it by hand as fe_doctor describes (${diagnosis.fix.map((s) => s.description).join(" ")}), with replace_text or workspace_edit.`
            )
          }
          const path = yield* load(problem.file)
          summary = yield* run(() => {
            // The diagnosis was computed on the file as fe_verify saw it (its text when this plan first read it);
            // earlier operations may have moved its lines: each step's line is mapped through them.
            const entry = overlay.get(path)!
            const original = entry.original ?? ""
            const map = lineMap(original, textOf(path)!)
            const done: Array<string> = []
            const already: Array<number> = []
            // Bottom-up, so an insertion or deletion does not move the lines of the steps still to apply.
            for (const step of [...steps].sort((a, b) => b.line - a.line)) {
              if (step.file !== problem.file && step.file !== path) {
                throw new Refusal(
                  "other_file",
                  `The fix edits ${step.file}, not ${path}.`,
                  "Apply it by hand as fe_doctor describes."
                )
              }
              // The same edit as an earlier operation's (tsc and ESLint both report an unused variable): done.
              const key = JSON.stringify([path, step.line, step.operation, step.before, step.after])
              const earlier = appliedSteps.get(key)
              if (earlier !== undefined) {
                already.push(earlier + 1)
                continue
              }
              if (step.before === undefined && step.operation === "add_import") {
                editFile(path, addImportEdits(sourceOf(path), importFromLine(parse, step.after!)))
              } else {
                const mapped = step.line - 1 < map.length ? map[step.line - 1] : undefined
                if (mapped === undefined) {
                  throw new Refusal(
                    "stale",
                    `${path}:${step.line}, which the diagnosis ${op.id} edits, was changed by an earlier operation (or the file changed since fe_verify).`,
                    "Drop one of the two operations, or apply them in two calls (fe_verify and fe_doctor again in between)."
                  )
                }
                setText(path, applyStep(textOf(path)!, { ...step, line: mapped + 1 }, path, op.id))
              }
              appliedSteps.set(key, index)
              done.push(step.description)
            }
            if (done.length === 0) {
              return `Diagnosis ${op.id} (${diagnosis.title}) was already applied by operation ${[...new Set(already)].join(", ")}: nothing more to change.`
            }
            return `Applied ${op.id} (${diagnosis.title}) in ${path}: ${done.reverse().join(" ")}`
          })
          break
        }
        case "replace_text": {
          const path = yield* load(op.file)
          yield* inProject(path)
          summary = yield* run(() => {
            const text = textOf(path)!
            if (op.oldText === "")
              throw new Refusal("invalid_argument", "oldText is empty.", "Pass text that occurs once in the file.")
            const first = text.indexOf(op.oldText)
            if (first === -1) {
              // Why not, when it can be told: line endings, or an earlier operation of this call.
              const crlf = text.includes("\r\n")
              const lineEndings =
                crlf &&
                !op.oldText.includes("\r\n") &&
                op.oldText.includes("\n") &&
                text.includes(op.oldText.replaceAll("\n", "\r\n"))
                  ? ` ${path} has CRLF line endings and oldText LF ones: write its line breaks as \\r\\n.`
                  : !crlf && op.oldText.includes("\r\n") && text.includes(op.oldText.replaceAll("\r\n", "\n"))
                    ? ` ${path} has LF line endings and oldText CRLF ones: write its line breaks as \\n.`
                    : ""
              const entry = overlay.get(path)!
              const earlier =
                entry.original !== undefined && entry.original !== text && entry.original.includes(op.oldText)
                  ? ` It was in the file before: an earlier operation of this call (${operations
                      .filter((o) => o.files.includes(path))
                      .map((o) => o.index + 1)
                      .join(", ")}) changed it.`
                  : ""
              throw new Refusal(
                "edit_mismatch",
                `oldText does not occur in ${path}.${lineEndings}${earlier}`,
                earlier !== ""
                  ? "Write oldText as the earlier operations leave the file, or reorder the operations."
                  : `Read ${path} again (workspace_read) and copy the exact text.`
              )
            }
            if (text.indexOf(op.oldText, first + 1) !== -1) {
              throw new Refusal(
                "edit_mismatch",
                `oldText occurs more than once in ${path}.`,
                "Include more surrounding text so it occurs exactly once."
              )
            }
            setText(path, text.slice(0, first) + op.newText + text.slice(first + op.oldText.length))
            return `Replaced text in ${path} (line ${text.slice(0, first).split("\n").length}).`
          })
          break
        }
      }
      const files = [...overlay]
        .filter(([path, entry]) => entry.text !== (before.has(path) ? before.get(path) : entry.original))
        .map(([path]) => path)
        .sort()
      operations.push({ index, op: op.op, summary, files })
    }

    const changes: Array<FileChange> = []
    for (const [path, entry] of [...overlay].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (entry.text === entry.original || entry.text === undefined) continue
      changes.push(
        entry.original === undefined
          ? { path, create: entry.text }
          : { path, content: entry.text, expected: fingerprintOf(entry.original) }
      )
    }
    return { changes, operations }
  })

/** The specifiers under which `importer` imports `file`. */
const specifiersOf = (graph: ImportView, importer: string, file: string) =>
  new Set(
    graph
      .importsOf(importer)
      .filter((edge) => edge.resolution._tag === "File" && edge.resolution.path === file)
      .map((edge) => edge.specifier)
  )

/** The names `file` exports its top-level `local` under (`default` for `export default function Button`). */
const exportedAs = (source: Source, local: string): ReadonlyArray<string> => {
  const names: Array<string> = []
  for (const statement of source.program.body as ReadonlyArray<Node>) {
    if (statement.type === "ExportDefaultDeclaration") {
      const declaration = statement.declaration
      if (declaration?.id?.name === local || (declaration?.type === "Identifier" && declaration.name === local)) {
        names.push("default")
      }
    } else if (statement.type === "ExportNamedDeclaration") {
      if (isNodeLike(statement.declaration)) {
        const declaration = statement.declaration
        if (declaration.id?.name === local) names.push(local)
        for (const declarator of declaration.declarations ?? []) if (declarator.id?.name === local) names.push(local)
      } else if (statement.source == null) {
        for (const specifier of statement.specifiers ?? []) {
          if (specifier.local?.name === local) names.push(specifier.exported.name ?? specifier.exported.value)
        }
      }
    }
  }
  return names
}

const isNodeLike = (value: unknown): value is Node => typeof value === "object" && value !== null && "type" in value

/**
 * The local bindings, by file, under which the project uses the component `local` of `file`: its importers'
 * (named or default imports) and, through barrels (`export { X } from`, `export *`, `export { default as X }
 * from`, an import then `export { X }`), their importers'. Files not loaded (sourceOf gives undefined) are skipped.
 */
const componentUses = (
  sourceOf: (path: string) => Source | undefined,
  graph: ImportView,
  file: string,
  local: string
): Map<string, Array<Binding>> => {
  const uses = new Map<string, Array<Binding>>()
  const seen = new Set<string>()
  const queue: Array<readonly [string, string]> = exportedAs(sourceOf(file)!, local).map((name) => [file, name])
  while (queue.length > 0) {
    const [from, name] = queue.shift()!
    const key = `${from}\u0000${name}`
    if (seen.has(key)) continue
    seen.add(key)
    for (const importer of graph.importersOf(from)) {
      if (importer === from || !isScript(importer)) continue
      const specifiers = specifiersOf(graph, importer, from)
      if (specifiers.size === 0) continue
      const target = sourceOf(importer)
      if (target === undefined) continue
      for (const binding of target.analysis.scopes[0]!.bindings.values()) {
        if (binding.imported === undefined || !specifiers.has(binding.imported.module)) continue
        if (binding.imported.name !== name) continue
        uses.set(importer, [...(uses.get(importer) ?? []), binding])
        // Imported, then exported by name: a barrel.
        for (const exported of exportedAs(target, binding.name)) queue.push([importer, exported])
      }
      for (const statement of target.program.body as ReadonlyArray<Node>) {
        if (!isNodeLike(statement.source) || !specifiers.has(statement.source.value)) continue
        if (statement.type === "ExportAllDeclaration" && statement.exported == null && name !== "default") {
          queue.push([importer, name])
        } else if (statement.type === "ExportNamedDeclaration") {
          for (const specifier of statement.specifiers ?? []) {
            if ((specifier.local.name ?? specifier.local.value) === name) {
              queue.push([importer, specifier.exported.name ?? specifier.exported.value])
            }
          }
        }
      }
    }
  }
  return uses
}

/** The module and names of an import line (`import { a } from "m"`), read with the parser. */
const importFromLine = (parse: Parse, line: string) => {
  const source = parseSource(parse, "line.ts", line)
  const declaration = (source.program.body as ReadonlyArray<Node>)[0]
  if (declaration?.type !== "ImportDeclaration") {
    throw new Refusal(
      "no_computed_fix",
      `The fix's import line does not parse as an import: ${line}`,
      "Apply it by hand."
    )
  }
  const named: Array<string> = []
  let defaultName: string | undefined
  for (const specifier of declaration.specifiers ?? []) {
    if (specifier.type === "ImportDefaultSpecifier") defaultName = specifier.local.name
    else if (specifier.type === "ImportSpecifier") {
      const imported = specifier.imported.name ?? specifier.imported.value
      named.push(imported === specifier.local.name ? imported : `${imported} as ${specifier.local.name}`)
    }
  }
  return {
    module: declaration.source.value as string,
    ...(named.length > 0 ? { names: named } : {}),
    ...(defaultName !== undefined ? { default: defaultName } : {}),
    typeOnly: declaration.importKind === "type"
  }
}

/** Applies one computed step at its line: a replacement (before → after), an insertion (after alone) or a deletion. */
const applyStep = (text: string, step: FixStep, path: string, id: string): string => {
  const lines = text.split("\n")
  const index = step.line - 1
  if (step.before === undefined) {
    if (index > lines.length) {
      throw new Refusal("stale", `${path} has no line ${step.line} any more.`, "Call fe_verify and fe_doctor again.")
    }
    const cr = text.includes("\r\n") ? "\r" : ""
    lines.splice(index, 0, step.after! + cr)
    return lines.join("\n")
  }
  const current = lines[index]
  const cr = current?.endsWith("\r") ? "\r" : ""
  if (current === undefined || current.slice(0, current.length - cr.length) !== step.before) {
    throw new Refusal(
      "stale",
      `${path}:${step.line} no longer holds the text the diagnosis ${id} was computed from (expected: ${step.before.trim()}).`,
      "The file changed since fe_verify: call fe_verify and fe_doctor again, then apply the new id."
    )
  }
  if (step.after === undefined) lines.splice(index, 1)
  else lines[index] = step.after + cr
  return lines.join("\n")
}
