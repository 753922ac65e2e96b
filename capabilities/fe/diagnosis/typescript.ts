/**
 * The TypeScript rules of `fe_doctor`: one entry per diagnostic code, from
 * the message's quoted names and the source line to the cause and a
 * concrete fix.
 *
 * @since 0.1.0
 */
import { builtinModules } from "node:module"
import { installCommand } from "../project.ts"
import { at, lineEdit, step } from "./fix.ts"
import type { FixStep, Rule, RuleAnswer, RuleInput } from "./model.ts"
import {
  addNamedImport,
  bracketed,
  declarationLine,
  editDistance,
  enclosingFunctionLine,
  expressionAt,
  findLine,
  findWord,
  identifierAt,
  importLineOf,
  importSpecifier,
  indentOf,
  objectAt,
  openingBracket,
  quoteStyle,
  removeImportName,
  replaceAt,
  unquote
} from "./source.ts"

const reactNames = new Set([
  "useState",
  "useEffect",
  "useLayoutEffect",
  "useRef",
  "useMemo",
  "useCallback",
  "useContext",
  "useReducer",
  "useId",
  "useTransition",
  "useDeferredValue",
  "useSyncExternalStore",
  "useImperativeHandle",
  "useOptimistic",
  "useActionState",
  "use",
  "createContext",
  "forwardRef",
  "memo",
  "lazy",
  "Suspense",
  "Fragment",
  "StrictMode",
  "startTransition"
])
const testNames = new Set([
  "describe",
  "it",
  "test",
  "expect",
  "vi",
  "beforeEach",
  "afterEach",
  "beforeAll",
  "afterAll"
])
const nodeNames = new Set(["process", "Buffer", "require", "module", "__dirname", "__filename", "global"])

/** An import of `name` from `module` added to the file: into its import of the module, else as a first line. */
const importFix = (input: RuleInput, name: string, module: string, typeOnly = false): FixStep => {
  const existing = importLineOf(input.lines, module)
  if (existing > 0) {
    const line = input.lines![existing - 1]!
    const after = addNamedImport(line, name)
    if (after !== undefined) {
      return step(input, {
        operation: "add_import",
        line: existing,
        description: `Add ${name} to the import from ${module} on line ${existing}.`,
        before: line,
        after
      })
    }
  }
  const q = quoteStyle(input.lines)
  return step(input, {
    operation: "add_import",
    line: 1,
    description: `Import ${name} from ${module} at the top of the file.`,
    after: `import ${typeOnly ? "type " : ""}{ ${name} } from ${q}${module}${q}`
  })
}

const cannotFindName = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const react = input.project.dependencies.includes("react") || input.project.dependencies.includes("preact")
  if (reactNames.has(name) && react) {
    return {
      title: `${name} is used without being imported`,
      rootCause: `${name} is React's, but ${input.problem.file} does not import it, so TypeScript knows no ${name} in scope at ${at(input)}.`,
      fix: [importFix(input, name, "react")],
      confidence: "high"
    }
  }
  if (testNames.has(name)) {
    const vitest = input.project.testRunner === "vitest"
    return {
      title: `The test function ${name} is not declared`,
      rootCause: vitest
        ? `${name} comes from Vitest, which does not declare globals unless configured: ${input.problem.file} must import it.`
        : `${name} is a test global whose type definitions are not installed or not in the tsconfig's "types".`,
      fix: vitest
        ? [importFix(input, name, "vitest")]
        : [
            step(input, {
              operation: "install_package",
              line: 0,
              description:
                'Install Jest\'s type definitions, and add "jest" to compilerOptions.types if the tsconfig lists types.',
              command: installCommand(input.project.packageManager, "@types/jest", true)
            })
          ],
      confidence: "high"
    }
  }
  if (nodeNames.has(name)) {
    return {
      title: `The Node.js global ${name} has no type definitions`,
      rootCause: `${name} is a Node.js global; its types come from @types/node, which is not installed or not in the tsconfig's "types".`,
      fix: [
        step(input, {
          operation: "install_package",
          line: 0,
          description: 'Install @types/node (and add "node" to compilerOptions.types when the tsconfig lists types).',
          command: installCommand(input.project.packageManager, "@types/node", true)
        })
      ],
      confidence: "high"
    }
  }
  return {
    title: `${name} is not declared`,
    rootCause: `Nothing named ${name} is declared or imported in ${input.problem.file}: a typo, a missing import, or a declaration that was removed or renamed.`,
    fix: [
      step(input, {
        operation: "investigate",
        description: `Find where ${name} is defined: workspace_search for "export function ${name}", "export const ${name}" or "${name} =". Then import it from that module, or fix the spelling at ${at(input)}.`
      })
    ],
    confidence: "medium"
  }
}

const didYouMean = (input: RuleInput, wrong: string, right: string, what: string): RuleAnswer => {
  const column = findWord(input.line, wrong, Math.max(1, input.problem.column - wrong.length))
  return {
    rootCause: `${wrong} is not ${what}; TypeScript suggests ${right}, which differs only in spelling.`,
    fix: lineEdit(
      input,
      "replace",
      `Replace ${wrong} with ${right} at ${at(input)}.`,
      column > 0 ? replaceAt(input.line, column, wrong.length, right) : undefined
    ),
    confidence: "high"
  }
}

const conversions: Record<string, Record<string, (expression: string) => string>> = {
  string: { number: (e) => `String(${e})`, boolean: (e) => `String(${e})` },
  number: { string: (e) => `Number(${e})` },
  boolean: { string: (e) => `Boolean(${e})`, number: (e) => `${e} !== 0` }
}

/** The initializer of a `name: Type = value` declaration on the line, when it is one. */
const initializer = (line: string): { readonly start: number; readonly text: string } | undefined => {
  const equals = line.indexOf(" = ")
  if (equals === -1) return undefined
  const text = line.slice(equals + 3).replace(/[;,]?\s*$/, "")
  return text === "" ? undefined : { start: equals + 3, text }
}

const notAssignable = (input: RuleInput): RuleAnswer => {
  const [from = "?", to = "?"] = input.quoted
  const optional = from.includes("undefined") && !to.includes("undefined")
  const nullable = from.includes("null") && !to.includes("null")
  if (optional || nullable) {
    const missing = optional ? "undefined" : "null"
    return {
      title: `A value that may be ${missing} where ${to} is required`,
      rootCause: `The value at ${at(input)} is ${from}: it can be ${missing}, and ${to} does not allow that.`,
      fix: [
        step(input, {
          operation: "add_null_check",
          description: `Handle the ${missing} case before this line (an early return or a thrown error), or give a fallback with ?? (e.g. value ?? ${to === "string" ? "''" : to === "number" ? "0" : "a default"}).`
        })
      ],
      confidence: "medium"
    }
  }
  const init = initializer(input.line)
  // Only when tsc points at the declared name: an error inside the initializer (a property of an object literal)
  // is about a part of the value, not the whole of it.
  const convert = init !== undefined && input.problem.column - 1 < init.start ? conversions[to]?.[from] : undefined
  if (init !== undefined && convert !== undefined) {
    return {
      title: `A ${from} assigned where a ${to} is declared`,
      rootCause: `At ${at(input)} the declared type is ${to}, but the value ${init.text} is a ${from}.`,
      fix: [
        ...lineEdit(
          input,
          "replace",
          `Convert the value to a ${to}, if a ${to} is what the code needs.`,
          input.line.slice(0, init.start) + convert(init.text) + input.line.slice(init.start + init.text.length)
        ),
        step(input, {
          operation: "replace",
          description: `Or, if the value is right, change the declared type ${to} to ${from} (and what uses it).`
        })
      ],
      confidence: "high"
    }
  }
  return {
    title: `Type ${from} is not assignable to ${to}`,
    rootCause: `At ${at(input)} a value of type ${from} is used where ${to} is required${input.problem.message.includes("\n") ? ` (${input.problem.message.split("\n").slice(1).join(" ")})` : ""}.`,
    fix: [
      step(input, {
        operation: "replace",
        description: `Either change the value to a ${to}, or change the declared type to accept ${from}. Read the declaration of the target with workspace_read.`
      })
    ],
    confidence: "medium"
  }
}

const propertyMissing = (input: RuleInput): RuleAnswer => {
  const [property = "?", type = "?"] = input.quoted
  const declared = declarationLine(input.lines, type)
  return {
    title: `${type} has no property ${property}`,
    rootCause: `${property} is read at ${at(input)}, but the type ${type} declares no such property${declared > 0 ? ` (${type} is declared on line ${declared})` : ""}: a misspelt name, or a property the type lacks.`,
    fix: [
      step(input, {
        operation: "investigate",
        description: `Check the properties ${type} has${declared > 0 ? ` (line ${declared} of ${input.problem.file})` : " (workspace_search for its declaration)"}: use the right name at ${at(input)}.`
      }),
      step(input, {
        operation: "add_property",
        line: declared > 0 ? declared : input.problem.line,
        description: `Or, if objects of ${type} really have it, declare it: add "${property}: <type>" to ${type}.`
      })
    ],
    confidence: "medium"
  }
}

const argumentType = (input: RuleInput): RuleAnswer => {
  const [from = "?", to = "?"] = input.quoted
  const argument = identifierAt(input.line, input.problem.column)
  const column = input.problem.column
  // The argument expression: the identifier chain at the column (e.g. user.id).
  const expression = expressionAt(input.line, column)
  const length = expression.length
  // The chain is the whole argument only when a comma or the closing parenthesis follows it (not a call, an operator).
  const whole = /^\s*[,)]/.test(input.line.slice(column - 1 + length))
  const convert = whole ? conversions[to]?.[from] : undefined
  return {
    title: `An argument of type ${from} where ${to} is expected`,
    rootCause: `At ${at(input)} the argument ${expression || argument} is a ${from}, but the function's parameter is a ${to}.`,
    fix: [
      ...(convert !== undefined && expression !== ""
        ? lineEdit(
            input,
            "replace",
            `Pass a ${to}: convert the argument, if the function is right.`,
            replaceAt(input.line, column, length, convert(expression))
          )
        : [step(input, { operation: "replace", description: `Pass a value of type ${to}.` })]),
      step(input, {
        operation: "investigate",
        description: `Or the wrong thing is passed (another property or variable holds the ${to}), or the function should accept ${from}: read its declaration.`
      })
    ],
    confidence: convert !== undefined ? "high" : "medium"
  }
}

const possibly = (input: RuleInput, what: "null" | "undefined" | "null or undefined"): RuleAnswer => {
  const column = input.problem.column
  // TS18047-9 quote the expression ('first'); TS2531-3 ("Object is possibly 'null'") quote only the type: the object
  // is the expression at the column, up to the member access that uses it.
  const named = input.problem.message.startsWith("Object is") ? undefined : input.quoted[0]
  const expression = named ?? (objectAt(input.line, column) || identifierAt(input.line, column))
  const after = input.line.slice(column - 1 + expression.length)
  // Not on the target of an assignment: `items[0]?.count = 1` is not valid.
  const assigned = /^\.?[\w$]*\s*(=[^=>]|\+=|-=|\*=|\/=)/.test(after)
  const hasAccess = input.line.slice(column - 1).startsWith(expression) && /^(\.|\[|\()/.test(after) && !assigned
  const isCall = expression.includes("(")
  const check =
    what === "null"
      ? `${expression} === null`
      : what === "undefined"
        ? `${expression} === undefined`
        : `${expression} == null`
  const indent = indentOf(input.line)
  const guard = `${indent}if (${check}) {\n${indent}  // handle the missing value: return, throw, or use a default\n${indent}}`
  return {
    rootCause: `${expression} at ${at(input)} can be ${what} at this point (its type includes ${what}), and the code uses it as if it could not.`,
    fix: [
      isCall
        ? step(input, {
            operation: "add_null_check",
            description: `Store the result of ${expression} in a constant before line ${input.problem.line}, handle the ${what} case (return early, throw, or pick a default), then use the constant.`
          })
        : step(input, {
            operation: "add_null_check",
            description: `Handle the ${what} case before line ${input.problem.line} (return early, throw, or pick a default), so ${expression} is narrowed below it.`,
            after: guard
          }),
      ...(hasAccess
        ? lineEdit(
            input,
            "replace",
            `Or use optional chaining where the value may be missing (the expression's result then may be undefined too).`,
            replaceAt(input.line, column + expression.length, after.startsWith(".") ? 1 : 0, "?.")
          )
        : [])
    ],
    confidence: "high"
  }
}

const implicitAny = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const column = findWord(input.line, name, input.problem.column)
  const next = column > 0 ? input.line.slice(column - 1 + name.length) : ""
  const bareArrow = column > 0 && input.line[column - 2] !== "(" && /^\s*=>/.test(next)
  const after =
    column === 0 || next.startsWith(":")
      ? undefined
      : bareArrow
        ? replaceAt(input.line, column, name.length, `(${name}: unknown)`)
        : next.startsWith("?")
          ? replaceAt(input.line, column, name.length + 1, `${name}?: unknown`)
          : replaceAt(input.line, column, name.length, `${name}: unknown`)
  return {
    rootCause: `The parameter ${name} at ${at(input)} has no type annotation and none can be inferred, so it is implicitly any, which strict mode (noImplicitAny) forbids.`,
    fix: lineEdit(
      input,
      "add_type_annotation",
      `Annotate ${name} with the type its callers pass; "unknown" below is a placeholder to replace (workspace_search for the calls shows what they pass).`,
      after
    ),
    confidence: "high"
  }
}

const assetExtensions = /\.(svg|png|jpe?g|gif|webp|avif|ico|css|scss|sass|less|wasm|txt|md|html?)(\?.*)?$/i

const moduleNotFound = (input: RuleInput): RuleAnswer => {
  const module = input.quoted[0] ?? "?"
  const bare = module.startsWith("node:") ? module.slice(5) : module
  if (module.startsWith("node:") || builtinModules.includes(bare.split("/")[0]!)) {
    return {
      title: `Node.js's ${bare} module has no type definitions`,
      rootCause: `${module} is built into Node.js; TypeScript finds no types for it because @types/node is not installed or not in the tsconfig's "types".`,
      fix: [
        step(input, {
          operation: "install_package",
          line: 0,
          description:
            'Install @types/node (and add "node" to compilerOptions.types when the tsconfig lists types). Do not install a package of that name.',
          command: installCommand(input.project.packageManager, "@types/node", true)
        })
      ],
      confidence: "high"
    }
  }
  if (assetExtensions.test(module)) {
    return {
      title: `No module declaration for ${module.slice(module.lastIndexOf("."))} files`,
      rootCause: `${module} is not code: TypeScript needs a declaration saying what importing such a file gives (bundlers provide one, e.g. vite/client), and none is in effect${module.startsWith(".") ? " — or the file is missing" : ""}.`,
      fix: [
        step(input, {
          operation: "edit_config",
          file: input.project.tsconfig ?? "tsconfig.json",
          line: 0,
          description: `With Vite, add "vite/client" to compilerOptions.types (or a /// <reference types="vite/client" /> line in a .d.ts file); otherwise declare it in a .d.ts file: declare module '*${module.slice(module.lastIndexOf("."))}'. Check with workspace_stat that the file exists.`
        })
      ],
      confidence: "medium"
    }
  }
  if (module.startsWith(".") || module.startsWith("/")) return relativeModuleNotFound(input, module)
  if (module.startsWith("@/") || module.startsWith("~/")) {
    return {
      title: `The path alias ${module.split("/")[0]} is not configured`,
      rootCause: `${module} uses a path alias that the tsconfig's compilerOptions.paths does not map (or the file is missing).`,
      fix: [
        step(input, {
          operation: "edit_config",
          file: input.project.tsconfig ?? "tsconfig.json",
          line: 0,
          description: `Add "paths": { "${module.split("/")[0]}/*": ["./${input.project.sourceDir}/*"] } to compilerOptions (and the same alias in the bundler's configuration), or use a relative import.`
        })
      ],
      confidence: "medium"
    }
  }
  const packageName = module.startsWith("@") ? module.split("/").slice(0, 2).join("/") : module.split("/")[0]!
  const declared = input.project.dependencies.includes(packageName)
  return {
    title: `The package ${packageName} is not installed`,
    rootCause: declared
      ? `${packageName} is in package.json but not installed in node_modules (or has no types for ${module}).`
      : `${input.problem.file} imports ${module}, but ${packageName} is not a dependency of the project: a missing install, or a misspelt package name.`,
    fix: [
      step(input, {
        operation: "install_package",
        line: 0,
        description: declared
          ? "Install the dependencies."
          : `Install ${packageName} if it is the right package (check the name on the registry first), or fix the import at ${at(input)}.`,
        command: declared
          ? `${input.project.packageManager} install`
          : installCommand(input.project.packageManager, packageName, false)
      })
    ],
    confidence: declared ? "high" : "medium"
  }
}

const codeExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", ".vue", ".svelte"]

/** A file name without its code extension (`Button.tsx` → `Button`); directories and other files as they are. */
const stemOf = (name: string): string => {
  const extension = codeExtensions.filter((e) => name.endsWith(e)).sort((a, b) => b.length - a.length)[0]
  return extension === undefined ? name : name.slice(0, -extension.length)
}

/** The files or directories of the import's directory whose name is closest to the one imported. */
const closestNames = (wanted: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const scored = names
    .filter((name) => !name.startsWith(".") && (stemOf(name) !== name || !name.includes(".")))
    .map((name) => {
      const stem = stemOf(name)
      const distance = stem.toLowerCase() === wanted.toLowerCase() ? 0 : editDistance(stem, wanted)
      return { name, stem, distance }
    })
    .filter((entry) => entry.distance <= Math.min(2, Math.floor(wanted.length / 2)))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
  const best = scored[0]
  if (best === undefined) return []
  return [...new Set(scored.filter((entry) => entry.distance === best.distance).map((entry) => entry.stem))]
}

const relativeModuleNotFound = (input: RuleInput, module: string): RuleAnswer => {
  const slash = module.lastIndexOf("/")
  const prefix = module.slice(0, slash + 1)
  const last = module.slice(slash + 1)
  const writtenExtension = [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"].find((e) => last.endsWith(e))
  const wanted = writtenExtension === undefined ? last : last.slice(0, -writtenExtension.length)
  const neighbours = input.neighbours
  const directory =
    neighbours === undefined ? undefined : neighbours.directory === "" ? "the root" : neighbours.directory
  if (neighbours !== undefined && neighbours.names === undefined) {
    return {
      title: `The directory of ${module} does not exist`,
      rootCause: `${input.problem.file} imports ${module}, but the directory it points into (${directory}) does not exist: a wrong number of ../, or a moved directory.`,
      fix: [
        step(input, {
          operation: "investigate",
          description: `Find the module's real location with workspace_search (its exported names) or fe_skeleton, then fix the path at ${at(input)}.`
        })
      ],
      confidence: "medium"
    }
  }
  const close = neighbours?.names === undefined || wanted === "" ? [] : closestNames(wanted, neighbours.names)
  const replacement = close[0]
  if (replacement !== undefined && replacement !== wanted) {
    const corrected = `${prefix}${replacement}${writtenExtension ?? ""}`
    const column = input.line.indexOf(module)
    const quoted = column > 0 && ["'", '"'].includes(input.line[column - 1]!) ? column : -1
    return {
      title: `The import path ${module} is misspelt`,
      rootCause: `${input.problem.file} imports ${module}, but ${directory} has no ${wanted}; it has ${close.map((name) => `${prefix}${name}`).join(" and ")}, whose name is ${editDistance(replacement, wanted) <= 1 || replacement.toLowerCase() === wanted.toLowerCase() ? "one letter or the case" : "a few letters"} away${close.length > 1 ? " (more than one candidate: pick the right one)" : ""}.`,
      fix: lineEdit(
        input,
        "replace",
        `Import ${corrected} instead of ${module}.`,
        quoted > 0 ? replaceAt(input.line, quoted + 1, module.length, corrected) : undefined
      ),
      confidence: close.length === 1 ? "high" : "medium"
    }
  }
  const same = (neighbours?.names ?? []).find((name) => stemOf(name) === wanted && name !== wanted)
  if (same !== undefined) {
    return {
      title: `${module} exists but does not resolve`,
      rootCause: `${directory} has ${same}, but the import ${module} does not resolve to it: the written extension${writtenExtension === undefined ? " is missing" : ` (${writtenExtension}) is not one the tsconfig's moduleResolution maps to ${same}`}, or the file type has no declarations (a .vue or .svelte file needs a shim).`,
      fix: [
        step(input, {
          operation: "investigate",
          description: `Write the import as the tsconfig's moduleResolution expects (nodenext: the .js extension of the .ts file; bundler: no extension), or check compilerOptions.allowImportingTsExtensions.`
        })
      ],
      confidence: "medium"
    }
  }
  const listed = (neighbours?.names ?? []).filter((name) => stemOf(name) !== name).slice(0, 12)
  return {
    title: `The file ${module} does not exist`,
    rootCause:
      `${input.problem.file} imports ${module}, but no file resolves from that path (a moved, renamed or deleted file, a wrong extension, or a wrong number of ../)` +
      (neighbours === undefined
        ? "."
        : listed.length === 0
          ? `; ${directory} has no source files.`
          : `; ${directory} has ${listed.join(", ")}, none named like ${wanted}.`),
    fix: [
      step(input, {
        operation: "investigate",
        description: `Find where the module went (workspace_search for a name it exports, or fe_skeleton), then fix the import at ${at(input)}; if it was deleted, restore it or remove the import and its uses.`
      })
    ],
    confidence: "medium"
  }
}

/** The module an import problem names, as the import writes it (some messages give its absolute path instead). */
const moduleOf = (input: RuleInput): string => {
  const quoted = unquote(input.quoted[0] ?? "")
  const absolute = quoted.startsWith("/") || /^[A-Za-z]:[\\/]/.test(quoted)
  return (
    (absolute || quoted === "" ? importSpecifier(input.line) : undefined) ?? (quoted === "" ? "the module" : quoted)
  )
}

/** The module's text, when the engine could read it (a relative import). */
const moduleSource = (input: RuleInput): readonly [string, ReadonlyArray<string>] | undefined => {
  const first = input.related.entries().next()
  return first.done === true ? undefined : first.value
}

/** The import line that names `name`, from the problem's line upwards (the problem's line when it is one). */
const importLineNaming = (input: RuleInput, name: string): number =>
  findLine(
    input.lines,
    (line) => line.trimStart().startsWith("import") && findWord(line, name) > 0 && line.includes(" from ")
  )

/** The names in an import line's braces, or undefined. */
const importedNames = (
  line: string
): { readonly names: ReadonlyArray<string>; readonly open: number; readonly end: number } | undefined => {
  const open = line.indexOf("{")
  const group = open === -1 ? undefined : bracketed(line, open)
  if (group === undefined) return undefined
  return {
    names: group.inner
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== ""),
    open,
    end: group.end
  }
}

const typeOnlyImport = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const lineNumber = input.line.trimStart().startsWith("import") ? input.problem.line : importLineNaming(input, name)
  const line = lineNumber > 0 ? input.lines![lineNumber - 1]! : ""
  const group = importedNames(line)
  const only = group !== undefined && group.names.length === 1 && !line.includes(",")
  const column = findWord(line, name, group === undefined ? 1 : group.open + 1)
  const after =
    line === ""
      ? undefined
      : only || (group === undefined && line.trimStart().startsWith("import ") && !line.includes("import type"))
        ? line.replace("import ", "import type ")
        : column > 0
          ? replaceAt(line, column, name.length, `type ${name}`)
          : undefined
  return {
    rootCause: `${name} is only a type, and with verbatimModuleSyntax the import at ${input.problem.file}:${lineNumber || input.problem.line} is kept in the JavaScript output as it is written, where ${name} does not exist: type imports must say so.`,
    fix: [
      lineNumber > 0 && after !== undefined && after !== line
        ? step(input, {
            operation: "replace",
            line: lineNumber,
            description: `Import ${name} as a type.`,
            before: line,
            after
          })
        : step(input, {
            operation: "replace",
            description: `Write the import of ${name} as import type { ${name} } (or { type ${name} }).`
          })
    ],
    confidence: "high"
  }
}

const importedAsType = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const lineNumber = findLine(
    input.lines,
    (line) => line.trimStart().startsWith("import") && line.includes("type") && findWord(line, name) > 0
  )
  const line = lineNumber > 0 ? input.lines![lineNumber - 1]! : ""
  const group = importedNames(line)
  let after: string | undefined
  if (line.trimStart().startsWith("import type ") && group !== undefined) {
    // import type { A, B } → import { A, type B }: only the name used as a value loses "type".
    const names = group.names.map((entry) => (identifierAt(entry, 1) === name ? entry : `type ${entry}`))
    after = `${line.slice(0, group.open).replace("import type ", "import ")}{ ${names.join(", ")} }${line.slice(group.end + 1)}`
  } else if (group !== undefined) {
    const column = findWord(line, "type", group.open + 1)
    if (
      column > 0 &&
      line
        .slice(column - 1 + 4)
        .trimStart()
        .startsWith(name)
    ) {
      after = line.slice(0, column - 1) + line.slice(column - 1 + 4).replace(/^\s+/, "")
    }
  }
  return {
    rootCause: `${name} is used as a value at ${at(input)} (called, constructed or read), but ${lineNumber > 0 ? `line ${lineNumber}` : "its import"} imports it with import type, which is erased from the JavaScript output.`,
    fix: [
      lineNumber > 0 && after !== undefined
        ? step(input, {
            operation: "replace",
            line: lineNumber,
            description: `Import ${name} as a value (the other names stay type imports).`,
            before: line,
            after
          })
        : step(input, { operation: "replace", description: `Import ${name} without "type".` })
    ],
    confidence: "high"
  }
}

/** The column where `async` goes for the function that opens on a line: before `function`, or before the arrow's parameters. */
const asyncColumn = (line: string): number => {
  const functionColumn = findWord(line, "function")
  if (functionColumn > 0) return functionColumn
  const arrow = line.indexOf("=>")
  if (arrow !== -1) {
    const before = line.slice(0, arrow).trimEnd()
    if (before.endsWith(")")) {
      const open = openingBracket(line, before.length - 1)
      return open === -1 ? 0 : open + 1
    }
    const parameter = identifierAt(before, before.length)
    return parameter === "" ? 0 : before.length - parameter.length + 1
  }
  // A method: `name(…) {`, after its modifiers.
  const trimmed = line.trimStart()
  const indent = line.length - trimmed.length
  const name = identifierAt(trimmed, 1)
  return name === "" ? 0 : indent + trimmed.indexOf(name) + 1
}

const awaitOutsideAsync = (input: RuleInput): RuleAnswer => {
  const opener = enclosingFunctionLine(input.lines, input.problem.line)
  if (opener === 0) {
    return {
      title: "await outside a function",
      rootCause: `The await at ${at(input)} is at the top level of a file that is not a module, or of a project whose module/target settings do not allow top-level await.`,
      fix: [
        step(input, {
          operation: "investigate",
          description:
            'Move the await into an async function, or allow top-level await: "module": "esnext" (or "nodenext") and "target": "es2017" or later in the tsconfig, in a file with an import or export.'
        })
      ],
      confidence: "medium"
    }
  }
  const line = input.lines![opener - 1]!
  if (line.includes("useEffect(") || line.includes("useLayoutEffect(")) {
    return {
      title: "await in an effect callback",
      rootCause: `The await at ${at(input)} is inside the effect callback that starts on line ${opener}; an effect callback cannot be async (React expects it to return nothing or a cleanup function, not a promise).`,
      fix: [
        step(input, {
          operation: "insert",
          line: opener + 1,
          description:
            "Define an async function inside the effect and call it: const run = async () => { … await … }; run() — with a flag or AbortController to ignore results after cleanup."
        })
      ],
      confidence: "high"
    }
  }
  const column = asyncColumn(line)
  const after = column > 0 && findWord(line, "async") === 0 ? replaceAt(line, column, 0, "async ") : undefined
  return {
    rootCause: `The await at ${at(input)} is inside the function that starts on line ${opener}, which is not declared async.`,
    fix: [
      after !== undefined
        ? step(input, {
            operation: "replace",
            line: opener,
            description: `Make the function on line ${opener} async (its callers then get a promise: await them or handle it).`,
            before: line,
            after
          })
        : step(input, {
            operation: "replace",
            line: opener,
            description: `Declare the function on line ${opener} async.`
          })
    ],
    confidence: after !== undefined ? "high" : "medium"
  }
}

/** The operand at the column converted with `Number(…)`, when it is a name or a property chain. */
const numberOperand = (input: RuleInput, side: "left" | "right"): RuleAnswer => {
  const expression = expressionAt(input.line, input.problem.column)
  return {
    rootCause: `The ${side}-hand operand ${expression || "of the operation"} at ${at(input)} is not a number (nor bigint, any or an enum), so arithmetic on it is an error; a string here would be concatenated or coerced at run time.`,
    fix: lineEdit(
      input,
      "replace",
      `Convert ${expression || "the operand"} to a number where it comes from (a parsed input, a string property), or here with Number(…).`,
      expression === ""
        ? undefined
        : replaceAt(input.line, input.problem.column, expression.length, `Number(${expression})`)
    ),
    confidence: "medium"
  }
}

/** Whether a line closes every bracket it opens (outside strings): a declaration that fits on it. */
const isWholeLine = (line: string): boolean => {
  let depth = 0
  let i = 0
  while (i < line.length) {
    const char = line[i]!
    if (char === "'" || char === '"' || char === "`") {
      const end = line.indexOf(char, i + 1)
      if (end === -1) return false
      i = end + 1
      continue
    }
    if (char === "(" || char === "[" || char === "{") depth++
    else if (char === ")" || char === "]" || char === "}") depth--
    i++
  }
  return depth === 0
}

const declarationKinds = ["interface", "type", "class", "enum", "function", "namespace"]

const unused = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const trimmed = input.line.trim()
  const words = trimmed
    .split(/\s+/)
    .filter((word) => !["export", "declare", "default", "async", "abstract"].includes(word))
  const cause = `${name} is declared at ${at(input)} and never used afterwards: leftover code, or code that should use it and does not.`
  const variable = ["const", "let", "var"].includes(words[0] ?? "") && trimmed.split("=")[0]!.includes(name)
  if (variable && !trimmed.split("=")[0]!.includes(",")) {
    const whole = isWholeLine(input.line)
    return {
      rootCause: cause,
      fix: [
        step(input, {
          operation: "delete",
          description: whole
            ? `Delete the declaration of ${name} (line ${input.problem.line}), unless the value was meant to be used: then use it.`
            : `Delete the declaration of ${name}, which starts on line ${input.problem.line} and goes on below it, unless the value was meant to be used: then use it.`,
          ...(whole ? { before: input.line } : {})
        })
      ],
      confidence: "high"
    }
  }
  if (trimmed.startsWith("import ")) {
    const group = importedNames(input.line)
    const rest = group?.names.filter(
      (entry) => identifierAt(entry.replace(/^type\s+/, ""), 1) !== name && !entry.endsWith(` as ${name}`)
    )
    const after =
      group !== undefined && rest !== undefined && rest.length > 0 && rest.length < group.names.length
        ? `${input.line.slice(0, group.open)}{ ${rest.join(", ")} }${input.line.slice(group.end + 1)}`
        : undefined
    return {
      rootCause: cause,
      fix: [
        after !== undefined
          ? step(input, {
              operation: "replace",
              description: `Remove ${name} from the import on line ${input.problem.line}.`,
              before: input.line,
              after
            })
          : step(input, {
              operation: "delete",
              description: `Delete the import on line ${input.problem.line}${group !== undefined && group.names.length > 1 ? `, or only ${name} from it if other names are used` : ""}.`,
              before: input.line
            })
      ],
      confidence: "high"
    }
  }
  const kind = declarationKinds.find((keyword) => words[0] === keyword && identifierAt(words[1] ?? "", 1) === name)
  if (kind !== undefined) {
    const whole = isWholeLine(input.line)
    return {
      rootCause: cause,
      fix: [
        step(input, {
          operation: "delete",
          description: whole
            ? `Delete the ${kind} ${name} (line ${input.problem.line}), or use it where it was meant to be used.`
            : `Delete the ${kind} ${name}, from line ${input.problem.line} to its closing brace, or use it where it was meant to be used.`,
          ...(whole ? { before: input.line } : {})
        })
      ],
      confidence: "high"
    }
  }
  // A parameter (or a destructured name): an underscore prefix tells TypeScript it is unused on purpose.
  const column = findWord(input.line, name, input.problem.column)
  return {
    rootCause: cause,
    fix: lineEdit(
      input,
      "rename",
      `Remove ${name}; if it must stay (a parameter before one that is used), prefix it with an underscore, which noUnusedParameters accepts.`,
      column > 0 ? replaceAt(input.line, column, name.length, `_${name}`) : undefined
    ),
    confidence: "medium"
  }
}

const simple =
  (
    rootCause: (input: RuleInput) => string,
    description: (input: RuleInput) => string,
    operation: FixStep["operation"] = "replace",
    confidence: RuleAnswer["confidence"] = "medium"
  ) =>
  (input: RuleInput): RuleAnswer => ({
    rootCause: rootCause(input),
    fix: [step(input, { operation, description: description(input) })],
    confidence
  })

/**
 * The TypeScript rules, by code.
 *
 * **Example**
 *
 * ```ts
 * import { typescriptRules } from "./capabilities/fe/diagnosis/typescript.ts"
 *
 * typescriptRules.TS2304?.title // => "Cannot find name"
 * ```
 *
 * @category rules
 * @since 0.1.0
 */
export const typescriptRules: Readonly<Record<string, Rule>> = {
  TS2304: { title: "Cannot find name", diagnose: cannotFindName },
  TS2552: {
    title: "Cannot find name (misspelt)",
    diagnose: (input) => didYouMean(input, input.quoted[0] ?? "?", input.quoted[1] ?? "?", "declared in this scope")
  },
  TS2580: { title: "Node.js global without type definitions", diagnose: cannotFindName },
  TS2582: { title: "Test global without type definitions", diagnose: cannotFindName },
  TS2591: { title: "Node.js global without type definitions", diagnose: cannotFindName },
  TS2593: { title: "Test global without type definitions", diagnose: cannotFindName },
  TS2584: {
    title: "Global missing from the configured libraries",
    diagnose: (input) => ({
      rootCause: `${input.quoted[0] ?? "The name"} belongs to a library (the DOM's console, document, window…) that the tsconfig's compilerOptions.lib does not include.`,
      fix: [
        {
          operation: "edit_config",
          file: input.project.tsconfig ?? "tsconfig.json",
          line: 0,
          description:
            'Add "DOM" (and "DOM.Iterable") to compilerOptions.lib for browser code; for Node code, install @types/node instead.'
        }
      ],
      confidence: "high"
    })
  },
  TS7026: {
    title: "JSX without React's types",
    diagnose: (input) => ({
      rootCause: `The JSX at ${at(input)} has no JSX.IntrinsicElements type: React's type definitions (@types/react) are missing, or the tsconfig's jsx/jsxImportSource does not point at them.`,
      fix: [
        {
          operation: "install_package",
          file: input.problem.file,
          line: 0,
          description: 'Install @types/react (and set "jsx": "react-jsx" in the tsconfig).',
          command: installCommand(input.project.packageManager, "@types/react", true)
        }
      ],
      confidence: "medium"
    })
  },
  TS2307: { title: "Cannot find module", diagnose: moduleNotFound },
  TS2305: {
    title: "Module has no such export",
    diagnose: simple(
      (i) =>
        `${unquote(i.quoted[0] ?? "?")} exports nothing named ${i.quoted[1]}: the name is misspelt, was renamed, or is a default export.`,
      (i) =>
        `Read ${unquote(i.quoted[0] ?? "?")}'s exports (fe_skeleton or workspace_read) and import the right name at ${at(i)}.`,
      "investigate"
    )
  },
  TS2724: {
    title: "Module has no such export (misspelt)",
    diagnose: (input) =>
      didYouMean(
        input,
        input.quoted[1] ?? "?",
        input.quoted[2] ?? "?",
        `exported by ${unquote(input.quoted[0] ?? "?")}`
      )
  },
  TS2614: {
    title: "Named import of a default export",
    diagnose: (input) => {
      const name = input.quoted[1] ?? "?"
      const module = unquote(input.quoted[0] ?? "?")
      const q = quoteStyle(input.lines)
      return {
        rootCause: `${module} has a default export, not a named export ${name}.`,
        fix: lineEdit(
          input,
          "replace",
          `Import the default export as ${name}.`,
          (() => {
            const rest = removeImportName(input.line, name)
            if (rest === undefined) return undefined
            if (rest === "") return `${indentOf(input.line)}import ${name} from ${q}${module}${q}`
            return rest.replace(
              /import\s+(type\s+)?\{/,
              (_, type: string | undefined) => `import ${type ?? ""}${name}, {`
            )
          })()
        ),
        confidence: "high"
      }
    }
  },
  TS1192: {
    title: "Default import of a module without a default export",
    diagnose: simple(
      (i) => `${moduleOf(i)} has no default export, so the default import at ${at(i)} gets nothing.`,
      (i) =>
        `Import the named export instead (import { name } from '${moduleOf(i)}'); fe_skeleton lists what it exports.`
    )
  },
  TS2322: { title: "Type is not assignable", diagnose: notAssignable },
  TS2345: { title: "Argument type mismatch", diagnose: argumentType },
  TS2339: { title: "Property does not exist on type", diagnose: propertyMissing },
  TS2551: {
    title: "Property does not exist (misspelt)",
    diagnose: (input) =>
      didYouMean(input, input.quoted[0] ?? "?", input.quoted[2] ?? "?", `a property of ${input.quoted[1]}`)
  },
  TS2531: { title: "Object is possibly null", diagnose: (input) => possibly(input, "null") },
  TS2532: { title: "Object is possibly undefined", diagnose: (input) => possibly(input, "undefined") },
  TS2533: { title: "Object is possibly null or undefined", diagnose: (input) => possibly(input, "null or undefined") },
  TS18047: { title: "Value is possibly null", diagnose: (input) => possibly(input, "null") },
  TS18048: { title: "Value is possibly undefined", diagnose: (input) => possibly(input, "undefined") },
  TS18049: { title: "Value is possibly null or undefined", diagnose: (input) => possibly(input, "null or undefined") },
  TS18046: {
    title: "Value is of type unknown",
    diagnose: simple(
      (i) =>
        `${i.quoted[0] ?? "The value"} is unknown (e.g. a caught error or parsed JSON): TypeScript allows nothing on it until it is narrowed.`,
      (i) =>
        `Narrow ${i.quoted[0] ?? "it"} before use: typeof/instanceof checks (e.g. if (${i.quoted[0] ?? "value"} instanceof Error)), or decode it with a schema.`,
      "add_null_check"
    )
  },
  TS2571: {
    title: "Object is of type unknown",
    diagnose: simple(
      (i) => `The value used at ${at(i)} is unknown: TypeScript allows nothing on it until it is narrowed.`,
      () => "Narrow it first (typeof/instanceof checks or a schema), or type its source.",
      "add_null_check"
    )
  },
  TS7006: { title: "Parameter implicitly has an any type", diagnose: implicitAny },
  TS7031: {
    title: "Binding element implicitly has an any type",
    diagnose: simple(
      (i) => `The destructured ${i.quoted[0]} at ${at(i)} has no type: the object it comes from is not typed.`,
      (i) =>
        `Type the destructured parameter as a whole, e.g. ({ ${i.quoted[0]} }: Props) with an interface Props { ${i.quoted[0]}: <type> }.`,
      "add_type_annotation",
      "high"
    )
  },
  TS7016: {
    title: "Module without type declarations",
    diagnose: (input) => {
      const module = input.quoted[0] ?? "?"
      const packageName = module.startsWith("@") ? module.split("/").slice(0, 2).join("/") : module.split("/")[0]!
      const typesName = packageName.startsWith("@")
        ? `@types/${packageName.slice(1).replace("/", "__")}`
        : `@types/${packageName}`
      return {
        rootCause: `${packageName} ships JavaScript without type declarations, so its imports are implicitly any.`,
        fix: [
          step(input, {
            operation: "install_package",
            line: 0,
            description: `Install its community types, if they exist; else declare the module in a .d.ts file (declare module '${module}').`,
            command: installCommand(input.project.packageManager, typesName, true)
          })
        ],
        confidence: "medium"
      }
    }
  },
  TS7053: {
    title: "Element implicitly has an any type (indexing)",
    diagnose: simple(
      (i) =>
        `At ${at(i)} an object is indexed with a key of type ${i.quoted[1] ?? "string"}, but its type ${i.quoted[2] ?? ""} has no index signature for it.`,
      () =>
        "Type the key as keyof typeof the object (or a union of its keys), or give the object an index type (Record<string, T>).",
      "add_type_annotation"
    )
  },
  TS2554: {
    title: "Wrong number of arguments",
    diagnose: simple(
      (i) =>
        `The call at ${at(i)} passes a different number of arguments than the function declares (${i.problem.message}).`,
      () =>
        "Pass the arguments the function declares (read its signature with fe_skeleton or workspace_read), or change the function.",
      "replace",
      "high"
    )
  },
  TS2555: {
    title: "Too few arguments",
    diagnose: simple(
      (i) => `The call at ${at(i)} passes fewer arguments than the function requires.`,
      () => "Add the missing arguments (the function's signature names them).",
      "replace",
      "high"
    )
  },
  TS2741: {
    title: "Required property missing",
    diagnose: simple(
      (i) =>
        `The object (or JSX props) at ${at(i)} has no ${i.quoted[0]}, which ${i.quoted[2] ?? "the target type"} requires.`,
      (i) =>
        `Add ${i.quoted[0]} to the object or the JSX element at ${at(i)}, or make it optional (${i.quoted[0]}?:) in ${i.quoted[2] ?? "the type"}.`,
      "add_property",
      "high"
    )
  },
  TS2739: {
    title: "Required properties missing",
    diagnose: simple(
      (i) =>
        `The value at ${at(i)} lacks properties ${i.quoted[1] ?? "the target"} requires: ${i.problem.message.split(": ").pop()}`,
      () => "Add the listed properties, or make them optional in the type.",
      "add_property",
      "high"
    )
  },
  TS2353: {
    title: "Unknown property in object literal",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} at ${at(i)} is not a property of ${i.quoted[1]}: a typo, or a property the type does not declare.`,
      (i) => `Remove or rename ${i.quoted[0]}, or add it to ${i.quoted[1]}.`,
      "replace",
      "high"
    )
  },
  TS2367: {
    title: "Comparison of types that never overlap",
    diagnose: simple(
      (i) =>
        `At ${at(i)} a ${i.quoted[0]} is compared with a ${i.quoted[1]}: they can never be equal, so the condition is always the same.`,
      () => "Compare values of the same type (convert one side, or compare the right property).",
      "replace",
      "high"
    )
  },
  TS2564: {
    title: "Class property not initialized",
    diagnose: simple(
      (i) => `The property ${i.quoted[0]} is declared without an initializer and the constructor does not assign it.`,
      (i) =>
        `Initialize ${i.quoted[0]} where it is declared or in the constructor, or declare it optional (${i.quoted[0]}?:).`,
      "replace",
      "high"
    )
  },
  TS2454: {
    title: "Variable used before being assigned",
    diagnose: simple(
      (i) => `${i.quoted[0]} is read at ${at(i)} on a path where nothing has assigned it yet.`,
      (i) => `Initialize ${i.quoted[0]} where it is declared, or assign it on every path before this line.`,
      "replace",
      "high"
    )
  },
  TS2448: {
    title: "Variable used before its declaration",
    diagnose: simple(
      (i) => `${i.quoted[0]} is used at ${at(i)} before the line that declares it (let/const are not hoisted).`,
      (i) => `Move the declaration of ${i.quoted[0]} above its first use.`,
      "replace",
      "high"
    )
  },
  TS2588: {
    title: "Assignment to a constant",
    diagnose: (input) => {
      const name = input.quoted[0] ?? "?"
      const declared = declarationLine(input.lines, name)
      const line = declared > 0 ? input.lines![declared - 1]! : ""
      const column = findWord(line, "const")
      return {
        rootCause: `${name} is declared with const, and ${at(input)} assigns it again.`,
        fix:
          declared > 0 && column > 0
            ? [
                step(input, {
                  operation: "replace",
                  line: declared,
                  description: `Declare ${name} with let (line ${declared}), or assign a new variable instead.`,
                  before: line,
                  after: replaceAt(line, column, 5, "let")
                })
              ]
            : [step(input, { operation: "replace", description: `Declare ${name} with let, or use a new variable.` })],
        confidence: "high"
      }
    }
  },
  TS2540: {
    title: "Assignment to a read-only property",
    diagnose: simple(
      (i) => `${i.quoted[0]} is readonly (or a getter), so ${at(i)} cannot assign it.`,
      () =>
        "Build a new object with the changed value ({ ...obj, key: value }), or remove readonly from the type if mutation is intended.",
      "replace",
      "high"
    )
  },
  TS2349: {
    title: "Expression is not callable",
    diagnose: simple(
      (i) =>
        `At ${at(i)} something that is not a function is called (${i.problem.message.split("\n")[1] ?? "its type has no call signature"}).`,
      () =>
        "Check what the expression is (a value, not a function? a missing property access?) and call the right thing.",
      "investigate"
    )
  },
  TS2769: {
    title: "No overload matches the call",
    diagnose: simple(
      (i) =>
        `None of the function's overloads accepts the arguments at ${at(i)}: ${i.problem.message.split("\n").slice(1, 3).join(" ")}`,
      () => "Read the overloads' parameter types in the message and make the arguments match one of them.",
      "replace"
    )
  },
  TS2786: {
    title: "Not a valid JSX component",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} at ${at(i)} cannot be used as a JSX component: it returns something that is not a React node, or its types come from another React version.`,
      () =>
        "Make the component return JSX, a string, null or an array of them; if it does, align @types/react versions.",
      "investigate"
    )
  },
  TS2355: {
    title: "Function must return a value",
    diagnose: simple(
      (i) => `The function at ${at(i)} declares a return type but has paths that return nothing.`,
      () => "Return a value of the declared type on every path, or include undefined in the return type.",
      "insert",
      "high"
    )
  },
  TS2366: {
    title: "Function lacks an ending return",
    diagnose: simple(
      (i) =>
        `Some paths of the function at ${at(i)} reach its end without a return, and its return type excludes undefined.`,
      () => "Add a return (or a throw) at the end of the function, or handle the missing case.",
      "insert",
      "high"
    )
  },
  TS2365: {
    title: "Operator cannot be applied to these types",
    diagnose: simple(
      (i) =>
        i.quoted.length >= 3
          ? `At ${at(i)} the operator ${i.quoted[0]} gets a ${i.quoted[1]} and a ${i.quoted[2]}, a combination it does not accept.`
          : `At ${at(i)}: ${i.problem.message}`,
      () => "Convert the operands to the types the operator works on (Number(), String()), or fix the wrong operand.",
      "replace"
    )
  },
  TS2300: {
    title: "Duplicate identifier",
    diagnose: simple(
      (i) => `${i.quoted[0]} is declared twice in the same scope.`,
      (i) => `Rename or remove one of the declarations of ${i.quoted[0]} (workspace_search finds both).`,
      "rename",
      "high"
    )
  },
  TS2393: {
    title: "Duplicate function implementation",
    diagnose: simple(
      () => "Two functions with the same name have bodies in the same scope.",
      () => "Remove or rename one of them; for overloads, only the last signature has a body.",
      "rename",
      "high"
    )
  },
  TS2503: {
    title: "Cannot find namespace",
    diagnose: simple(
      (i) =>
        `The namespace ${i.quoted[0]} is used in a type at ${at(i)}, but nothing declares or imports it (often React or NodeJS types).`,
      (i) => `Import it (e.g. import type * as ${i.quoted[0]} from '…') or install its type definitions.`,
      "add_import"
    )
  },
  TS1484: { title: "Type imported as a value (verbatimModuleSyntax)", diagnose: typeOnlyImport },
  TS1361: { title: "Type-only import used as a value", diagnose: importedAsType },
  TS1308: { title: "await in a function that is not async", diagnose: awaitOutsideAsync },
  TS2459: {
    title: "Imported name is not exported",
    diagnose: (input) => {
      const module = moduleOf(input)
      const name = input.quoted[1] ?? "?"
      const source = moduleSource(input)
      const declared = source === undefined ? 0 : declarationLine(source[1], name)
      const line = declared > 0 ? source![1][declared - 1]! : ""
      const indent = indentOf(line)
      return {
        rootCause: `${module} declares ${name}${declared > 0 ? ` (${source![0]}:${declared})` : ""} but does not export it, so ${input.problem.file} cannot import it.`,
        fix: [
          declared > 0 && !line.trimStart().startsWith("export ")
            ? step(input, {
                operation: "replace",
                file: source![0],
                line: declared,
                description: `Export ${name} from ${source![0]}, if other modules may use it.`,
                before: line,
                after: `${indent}export ${line.trimStart()}`
              })
            : step(input, {
                operation: "replace",
                description: `Export ${name} from ${module} (add export to its declaration), or stop importing it.`
              }),
          step(input, {
            operation: "investigate",
            description: `Or, if ${name} is private to ${module} on purpose, use what the module exports instead (fe_skeleton lists it).`
          })
        ],
        confidence: declared > 0 ? "high" : "medium"
      }
    }
  },
  TS2460: {
    title: "Imported name is exported under another name",
    diagnose: (input) => {
      const local = input.quoted[1] ?? "?"
      const exported = input.quoted[2] ?? "?"
      const column = findWord(input.line, local, input.problem.column)
      return {
        rootCause: `${moduleOf(input)} declares ${local} but exports it as ${exported}, so the import must use the exported name.`,
        fix: lineEdit(
          input,
          "replace",
          `Import ${exported}, keeping the local name ${local} with "as" (or use ${exported} everywhere).`,
          column > 0 ? replaceAt(input.line, column, local.length, `${exported} as ${local}`) : undefined
        ),
        confidence: "high"
      }
    }
  },
  TS2306: {
    title: "File is not a module",
    diagnose: (input) => {
      const module = moduleOf(input)
      const source = moduleSource(input)
      // The first imported name the module declares: export it, which makes the file a module.
      const names = importedNames(input.line)?.names.map((entry) => identifierAt(entry, 1)) ?? []
      const declared = names
        .map((name) => ({ name, line: source === undefined ? 0 : declarationLine(source[1], name) }))
        .find((entry) => entry.line > 0)
      const line = declared === undefined ? "" : source![1][declared.line - 1]!
      return {
        rootCause: `${module} has no import or export, so it is a script, not a module: nothing can be imported from it.`,
        fix: [
          declared !== undefined && !line.trimStart().startsWith("export ")
            ? step(input, {
                operation: "replace",
                file: source![0],
                line: declared.line,
                description: `Export ${declared.name} from ${source![0]} (and the other names ${input.problem.file} imports).`,
                before: line,
                after: `${indentOf(line)}export ${line.trimStart()}`
              })
            : step(input, {
                operation: "replace",
                description: `Export what ${input.problem.file} imports from ${module} (add export to its declarations).`
              })
        ],
        confidence: declared !== undefined ? "high" : "medium"
      }
    }
  },
  TS2774: {
    title: "Function checked instead of called",
    diagnose: (input) => {
      const expression = expressionAt(input.line, input.problem.column)
      return {
        rootCause: `The condition at ${at(input)} tests ${expression || "a function"} itself, which is always defined, so it is always true: the call's parentheses are missing.`,
        fix: lineEdit(
          input,
          "replace",
          `Call ${expression || "the function"} in the condition (with its arguments, if it takes any).`,
          expression === ""
            ? undefined
            : replaceAt(input.line, input.problem.column, expression.length, `${expression}()`)
        ),
        confidence: "high"
      }
    }
  },
  TS2801: {
    title: "Promise checked instead of awaited",
    diagnose: (input) => {
      const opener = enclosingFunctionLine(input.lines, input.problem.line)
      const isAsync = opener > 0 && findWord(input.lines![opener - 1]!, "async") > 0
      return {
        rootCause: `The condition at ${at(input)} tests a ${input.quoted[0] ?? "Promise"}, which is an object and so always true; the value it resolves to is what the code means to test.`,
        fix: [
          ...lineEdit(
            input,
            "replace",
            `Await the promise in the condition${isAsync ? "" : ` (and make the function${opener > 0 ? ` on line ${opener}` : ""} async)`}.`,
            replaceAt(input.line, input.problem.column, 0, "await ")
          )
        ],
        confidence: isAsync ? "high" : "medium"
      }
    }
  },
  TS2352: {
    title: "Type assertion between unrelated types",
    diagnose: (input) => {
      const [from = "?", to = "?"] = input.quoted
      const assertion = input.line.indexOf(` as ${to}`, input.problem.column - 1)
      return {
        rootCause: `At ${at(input)} a ${from} is asserted to be a ${to}; the types do not overlap, so the assertion is almost certainly wrong: an assertion changes no value.`,
        fix: [
          step(input, {
            operation: "replace",
            description: `Convert the value instead of asserting (e.g. Number(…) or String(…)), or fix the type where the value comes from.`
          }),
          ...(assertion === -1
            ? []
            : lineEdit(
                input,
                "replace",
                "Only if the value really is of that type at run time (the types are wrong): assert through unknown.",
                replaceAt(input.line, assertion + 1, ` as ${to}`.length, ` as unknown as ${to}`)
              ))
        ],
        confidence: "medium"
      }
    }
  },
  TS2362: { title: "Arithmetic on a value that is not a number", diagnose: (input) => numberOperand(input, "left") },
  TS2363: { title: "Arithmetic on a value that is not a number", diagnose: (input) => numberOperand(input, "right") },
  TS2341: {
    title: "Private member used outside its class",
    diagnose: (input) => {
      const [member = "?", owner = "?"] = input.quoted
      const declared = declarationLine(input.lines, owner)
      return {
        rootCause: `${member} is private to the class ${owner}${declared > 0 ? ` (line ${declared})` : ""}, and ${at(input)} is outside it.`,
        fix: [
          step(input, {
            operation: "investigate",
            description: `Use a public method or getter of ${owner} that gives what is needed (fe_skeleton shows its members); if none fits, add one to ${owner}, or make ${member} public if it is part of the class's interface.`
          })
        ],
        confidence: "medium"
      }
    }
  },
  TS2445: {
    title: "Protected member used outside its class hierarchy",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} is protected in ${i.quoted[1]}: only ${i.quoted[1]} and its subclasses may use it, and ${at(i)} is neither.`,
      (i) => `Use a public member of ${i.quoted[1]} instead, or add one that exposes what is needed.`,
      "investigate"
    )
  },
  TS2683: {
    title: "this has no type",
    diagnose: (input) => {
      const opener = enclosingFunctionLine(input.lines, input.problem.line)
      return {
        rootCause: `this is used at ${at(input)} inside a function${opener > 0 ? ` (line ${opener})` : ""} that is not a method, so TypeScript cannot know what it refers to; at run time it is whatever the caller binds, and nothing in strict mode when it binds none.`,
        fix: [
          step(input, {
            operation: "add_type_annotation",
            line: opener > 0 ? opener : input.problem.line,
            description:
              "If the function is a callback that means the surrounding object, write it as an arrow function (which keeps the outer this) or use the object by name; if callers bind this, declare it as the first parameter: function f(this: HTMLElement, …)."
          })
        ],
        confidence: "medium"
      }
    }
  },
  TS2488: {
    title: "Spread or for…of over something that is not iterable",
    diagnose: simple(
      (i) =>
        `At ${at(i)} a value of type ${i.quoted[0]} is spread or iterated, but it is not iterable (no [Symbol.iterator]).`,
      (i) =>
        i.quoted[0] !== undefined && /^\{|Record</.test(i.quoted[0])
          ? "Iterate over Object.keys/values/entries(…) of the object instead."
          : `Iterate over an array (or other iterable) instead: check what the value is; for a number n, use Array.from({ length: n }, (_, i) => i).`,
      "replace"
    )
  },
  TS7030: {
    title: "Not all code paths return a value",
    diagnose: simple(
      (i) =>
        `The function at ${at(i)} returns a value on some paths and falls off its end on others (noImplicitReturns is on).`,
      () => "Return a value (or throw) on every path: add the missing return at the end, or an else branch.",
      "insert",
      "high"
    )
  },
  TS7034: {
    title: "Variable implicitly has an any type",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} is declared at ${at(i)} without a type or an initializer, and is used (e.g. in a closure) where TypeScript cannot follow its assignments.`,
      (i) => `Declare its type: let ${i.quoted[0]}: <the type of what is assigned> | undefined, or initialize it.`,
      "add_type_annotation",
      "high"
    )
  },
  TS7005: {
    title: "Variable implicitly has an any type",
    diagnose: (input) => {
      const name = input.quoted[0] ?? "?"
      const declared = declarationLine(input.lines, name)
      return {
        rootCause: `${name} is used at ${at(input)}, but its declaration${declared > 0 ? ` (line ${declared})` : ""} has no type and TypeScript cannot infer one here.`,
        fix: [
          step(input, {
            operation: "add_type_annotation",
            line: declared > 0 ? declared : input.problem.line,
            description: `Annotate the declaration of ${name} with its type (or initialize it with a value of that type).`
          })
        ],
        confidence: "high"
      }
    }
  },
  TS2559: {
    title: "No properties in common with the target type",
    diagnose: simple(
      (i) =>
        `At ${at(i)} a ${i.quoted[0]} is used as a ${i.quoted[1]}, but they share no property: every property of ${i.quoted[1]} is optional, and none of the value's matches (a misspelt property, or the wrong object).`,
      (i) => `Pass an object with the properties of ${i.quoted[1]} (compare the names), or the right value.`,
      "replace",
      "high"
    )
  },
  TS2698: {
    title: "Spread of a value that is not an object",
    diagnose: simple(
      (i) =>
        `The value spread into an object literal at ${at(i)} is not an object type (a number, a string, a boolean, or an unknown/generic value).`,
      () =>
        "Spread an object (check the value's type; narrow unknown values first), or set the value as a property instead.",
      "replace"
    )
  },
  TS2420: {
    title: "Class does not implement its interface",
    diagnose: (input) => {
      const detail = input.problem.message.split("\n")[1]?.trim()
      return {
        rootCause: `The class ${input.quoted[0]} declares implements ${input.quoted[1]} but does not match it${detail === undefined ? "." : `: ${detail}`}`,
        fix: [
          step(input, {
            operation: "add_property",
            description: `Add the members ${input.quoted[1]} requires to ${input.quoted[0]} (with the interface's types), or fix the ones whose types differ.`
          })
        ],
        confidence: "high"
      }
    }
  },
  TS2344: {
    title: "Type argument does not satisfy the constraint",
    diagnose: simple(
      (i) =>
        `At ${at(i)} the type argument ${i.quoted[0]} does not satisfy the constraint ${i.quoted[1]} of the generic it is passed to.`,
      (i) =>
        `Pass a type that is assignable to ${i.quoted[1]}, or, if the generic should accept it, widen its constraint.`,
      "replace"
    )
  },
  TS2538: {
    title: "Type cannot be used as an index",
    diagnose: simple(
      (i) =>
        `At ${at(i)} a value of type ${i.quoted[0]} is used as a key, but keys must be strings, numbers or symbols (or their literal types).`,
      () => "Index with a string/number key (convert the value, or use the right variable).",
      "replace",
      "high"
    )
  },
  TS2693: {
    title: "Type used as a value",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} is only a type (an interface or type alias) and is erased at run time, but ${at(i)} uses it as a value.`,
      (i) =>
        `Use a value there: a class or a constant that describes ${i.quoted[0]}, a type guard function, or a schema; in a type position write it as a type (x: ${i.quoted[0]}).`,
      "replace"
    )
  },
  TS2749: {
    title: "Value used as a type",
    diagnose: (input) => {
      const name = input.quoted[0] ?? "?"
      const suggestion = input.quoted[1]
      const column = findWord(input.line, name, input.problem.column)
      return {
        rootCause: `${name} is a value (a constant, function or object), not a type, and ${at(input)} uses it as a type.`,
        fix: lineEdit(
          input,
          "replace",
          `Use its type: ${suggestion ?? `typeof ${name}`} (or the type it was meant to be).`,
          suggestion !== undefined && column > 0 ? replaceAt(input.line, column, name.length, suggestion) : undefined
        ),
        confidence: suggestion !== undefined ? "high" : "medium"
      }
    }
  },
  TS18004: {
    title: "Shorthand property without a value in scope",
    diagnose: simple(
      (i) =>
        `The object literal at ${at(i)} writes { ${i.quoted[0]} }, shorthand for ${i.quoted[0]}: ${i.quoted[0]}, but no variable ${i.quoted[0]} is in scope.`,
      (i) =>
        `Give the property a value (${i.quoted[0]}: value), or declare or import ${i.quoted[0]} (a misspelt variable?).`,
      "replace",
      "high"
    )
  },
  TS6198: {
    title: "All destructured elements are unused",
    diagnose: (input) => ({
      rootCause: `None of the names destructured at ${at(input)} is used.`,
      fix: [
        step(input, {
          operation: "delete",
          description: `Delete the destructuring on line ${input.problem.line} (for a parameter, keep the parameter and drop the pattern, or prefix it with _).`,
          ...(input.line !== "" ? { before: input.line } : {})
        })
      ],
      confidence: "high"
    })
  },
  TS6133: { title: "Declared but never read", diagnose: unused },
  TS6192: {
    title: "All imports unused",
    diagnose: (input) => ({
      rootCause: `None of the names imported on line ${input.problem.line} is used in ${input.problem.file}.`,
      fix: [
        step(input, {
          operation: "delete",
          description: `Delete the import on line ${input.problem.line}.`,
          ...(input.line !== "" ? { before: input.line } : {})
        })
      ],
      confidence: "high"
    })
  },
  TS6196: { title: "Declared but never used", diagnose: unused },
  TS5097: {
    title: "Import path ends with .ts",
    diagnose: simple(
      () => "The import names a .ts file, which the tsconfig only allows with allowImportingTsExtensions (and noEmit).",
      (i) =>
        `Set "allowImportingTsExtensions": true in ${i.project.tsconfig ?? "the tsconfig"} (with noEmit or emitDeclarationOnly), or import the .js name.`,
      "edit_config",
      "high"
    )
  },
  TS2835: {
    title: "Relative import needs a file extension",
    diagnose: (input) => {
      // The message quotes the options first and ends with the suggestion: "… Did you mean './b.js'?"
      const right = input.problem.message.includes("Did you mean") ? input.quoted[input.quoted.length - 1] : undefined
      // The column is the specifier's opening quote.
      const quote = input.line[input.problem.column - 1]
      const end = quote === "'" || quote === '"' ? input.line.indexOf(quote, input.problem.column) : -1
      const wrong = end === -1 ? undefined : input.line.slice(input.problem.column, end)
      return {
        rootCause: `With node16/nodenext module resolution, relative imports must name the file's extension, as Node.js resolves them; ${wrong ?? "the import"} at ${at(input)} has none.`,
        fix: lineEdit(
          input,
          "replace",
          right === undefined ? "Add the extension of the compiled file (.js for a .ts file)." : `Import ${right}.`,
          wrong !== undefined && right !== undefined
            ? replaceAt(input.line, input.problem.column + 1, wrong.length, right)
            : undefined
        ),
        confidence: right !== undefined ? "high" : "medium"
      }
    }
  },
  TS17004: {
    title: "JSX without the jsx option",
    diagnose: (input) => ({
      rootCause: `${input.problem.file} contains JSX, but the tsconfig that checks it sets no "jsx" option.`,
      fix: [
        step(input, {
          operation: "edit_config",
          file: input.project.tsconfig ?? "tsconfig.json",
          line: 0,
          description: `Set "jsx": "react-jsx" in compilerOptions (for React 17+; "preserve" when a bundler transforms JSX).`
        })
      ],
      confidence: "high"
    })
  },
  TS1005: {
    title: "Syntax error: a token expected",
    diagnose: simple(
      (i) =>
        `The parser expected ${i.quoted[0] ?? "a token"} at ${at(i)}: usually an unclosed bracket, quote or tag just before it.`,
      () => "Read the lines above the location and close what is open; fix this first, as it can cause other errors.",
      "investigate",
      "medium"
    )
  },
  TS1128: {
    title: "Syntax error: declaration or statement expected",
    diagnose: simple(
      (i) =>
        `The parser found something that cannot start a statement at ${at(i)}: usually an extra closing brace or a broken earlier statement.`,
      () => "Check the braces of the enclosing blocks, and the statement before the location.",
      "investigate"
    )
  },
  TS1109: {
    title: "Syntax error: expression expected",
    diagnose: simple(
      (i) => `An expression is missing at ${at(i)} (e.g. after an operator, a comma or =>).`,
      () => "Complete the expression, or remove the dangling operator.",
      "investigate"
    )
  }
}
