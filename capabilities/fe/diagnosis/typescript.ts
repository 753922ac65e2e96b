/**
 * The TypeScript rules of `fe_doctor`: one entry per diagnostic code, from
 * the message's quoted names and the source line to the cause and a
 * concrete fix.
 *
 * @since 0.1.0
 */
import { builtinModules } from "node:module"
import { installCommand } from "../project.ts"
import type { FixStep, Rule, RuleAnswer, RuleInput } from "./model.ts"
import {
  addNamedImport,
  declarationLine,
  findWord,
  bracketed,
  identifierAt,
  importLineOf,
  isWholeStatement,
  removeImportName,
  indentOf,
  quoteStyle,
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

const step = (
  input: RuleInput,
  fields: Omit<FixStep, "file" | "line"> & { line?: number; file?: string }
): FixStep => ({
  file: fields.file ?? input.problem.file,
  line: fields.line ?? input.problem.line,
  ...fields
})

/** A fix that rewrites the problem's line; none when the line is unknown or unchanged. */
const lineEdit = (
  input: RuleInput,
  operation: FixStep["operation"],
  description: string,
  after: string | undefined
): ReadonlyArray<FixStep> =>
  input.line === "" || after === undefined || after === input.line
    ? [step(input, { operation, description })]
    : [step(input, { operation, description, before: input.line, after })]

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

const at = (input: RuleInput) => `${input.problem.file}:${input.problem.line}`

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
  const convert = conversions[to]?.[from]
  // Only when tsc points at the declared name: an error inside the initializer (a property of an object literal)
  // is about a part of the value, not the whole of it.
  if (init !== undefined && convert !== undefined && input.problem.column - 1 < init.start) {
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
  const rest = input.line.slice(column - 1)
  // The argument expression: the identifier chain at the column (e.g. user.id).
  let length = 0
  while (length < rest.length && /[A-Za-z0-9_$.]/.test(rest[length]!)) length++
  const expression = rest.slice(0, length)
  // The chain is the whole argument only when a comma or the closing parenthesis follows it (not a call, an operator).
  const whole = /^\s*[,)]/.test(rest.slice(length))
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

/** The object expression at a column: an identifier chain with calls and indexes, without its last property access. */
const objectAt = (line: string, column: number): string => {
  let i = column - 1
  let last = -1
  while (i < line.length) {
    const char = line[i]!
    if (/[A-Za-z0-9_$]/.test(char)) i++
    else if (char === "(" || char === "[") {
      const group = bracketed(line, i)
      if (group === undefined) break
      i = group.end + 1
    } else if (char === "." || (char === "?" && line[i + 1] === ".")) {
      last = i
      i += char === "?" ? 2 : 1
    } else break
  }
  return line.slice(column - 1, last === -1 ? i : last)
}

const possibly = (input: RuleInput, what: "null" | "undefined" | "null or undefined"): RuleAnswer => {
  // TS18047/18048/18049 quote the value ('first'); TS2531/2532/2533 say "Object" and quote only null/undefined.
  const namesValue = !input.problem.message.startsWith("Object is possibly")
  const expression =
    (namesValue ? input.quoted[0] : undefined) ?? (objectAt(input.line, input.problem.column) || "the value")
  const column = input.problem.column
  const afterAccess = input.line.slice(column - 1 + expression.length + 1)
  const assigned = /^[\w$]*\s*(=[^=]|\+=|-=|\*=|\/=)/.test(afterAccess)
  const hasAccess = input.line.slice(column - 1).startsWith(`${expression}.`) && !assigned
  const called = expression.includes("(")
  const check =
    what === "null"
      ? `${expression} === null`
      : what === "undefined"
        ? `${expression} === undefined`
        : `${expression} == null`
  const guard = `${indentOf(input.line)}if (${check}) {\n${indentOf(input.line)}  // handle the missing value: return, throw, or use a default\n${indentOf(input.line)}}`
  return {
    rootCause: `${expression} at ${at(input)} can be ${what} at this point (its type includes ${what}), and the code uses it as if it could not.`,
    fix: [
      called
        ? step(input, {
            operation: "add_null_check",
            description: `Store the result of ${expression} in a constant before line ${input.problem.line}, handle its ${what} case (return early, throw, or pick a default), then use the constant.`
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
            replaceAt(input.line, column, expression.length + 1, `${expression}?.`)
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

const assetExtensions = /\.(svg|png|jpe?g|gif|webp|avif|ico|css|scss|sass|less|module\.css|wasm|txt|md|html?)(\?.*)?$/i

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
  if (module.startsWith(".") || module.startsWith("/")) {
    return {
      title: `The file ${module} does not exist`,
      rootCause: `${input.problem.file} imports ${module}, but no file resolves from that path (a moved or renamed file, a wrong extension, or a wrong number of ../).`,
      fix: [
        step(input, {
          operation: "investigate",
          description: `List the directory with workspace_list (or fe_skeleton) to find the file's real name and path, then fix the import at ${at(input)}.`
        })
      ],
      confidence: "medium"
    }
  }
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

const unused = (input: RuleInput): RuleAnswer => {
  const name = input.quoted[0] ?? identifierAt(input.line, input.problem.column)
  const trimmed = input.line.trim()
  const declaration =
    /^(export\s+)?(const|let|var)\s/.test(trimmed) &&
    !trimmed.includes(",") &&
    findWord(trimmed.split("=")[0]!, name) > 0 &&
    isWholeStatement(input.line)
  const withoutImport = removeImportName(input.line, name)
  const fix: ReadonlyArray<FixStep> =
    withoutImport !== undefined
      ? [
          withoutImport === ""
            ? step(input, {
                operation: "delete",
                description: `Delete the import on line ${input.problem.line}: ${name} is its only name.`,
                before: input.line
              })
            : step(input, {
                operation: "replace",
                description: `Remove ${name} from the import on line ${input.problem.line}.`,
                before: input.line,
                after: withoutImport
              })
        ]
      : declaration
        ? [
            step(input, {
              operation: "delete",
              description: `Delete the declaration of ${name} (line ${input.problem.line}), unless the value was meant to be used: then use it.`,
              before: input.line
            })
          ]
        : [
            step(input, {
              operation: "delete",
              description: `Remove ${name} (declared at ${at(input)}) with what only it uses, or use it where it was meant to be used; for a parameter that must stay, TypeScript ignores names starting with an underscore (_${name}).`
            })
          ]
  return {
    rootCause: `${name} is declared at ${at(input)} and never used afterwards: leftover code, or code that should use it and does not.`,
    fix,
    confidence: withoutImport !== undefined || declaration ? "high" : "medium"
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
      (i) => `${unquote(i.quoted[0] ?? "?")} has no default export, so "import x from" gets nothing.`,
      (i) =>
        `Import the named export instead (import { name } from '${unquote(i.quoted[0] ?? "?")}'); fe_skeleton lists what it exports.`
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
      (i) => `At ${at(i)} ${i.problem.message}`,
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
      // "… Did you mean './a.js'?": the suggestion is the last quoted name; the wrong path is the string at the column.
      const right = input.quoted[input.quoted.length - 1] ?? "?"
      const quote = input.line[input.problem.column - 1]
      const end = quote === "'" || quote === '"' ? input.line.indexOf(quote, input.problem.column) : -1
      const wrong = end === -1 ? undefined : input.line.slice(input.problem.column, end)
      return {
        rootCause: `With node16/nodenext module resolution, relative imports must name the file's extension; ${wrong ?? "this import"} has none.`,
        fix: lineEdit(
          input,
          "replace",
          `Import ${right}.`,
          wrong === undefined ? undefined : replaceAt(input.line, input.problem.column + 1, wrong.length, right)
        ),
        confidence: "high"
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
