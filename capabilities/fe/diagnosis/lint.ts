/**
 * The lint rules of `fe_doctor`: ESLint's core, typescript-eslint,
 * react-hooks and react-refresh rules, and their Biome equivalents.
 *
 * @since 0.1.0
 */
import { at, lineEdit, step } from "./fix.ts"
import type { FixStep, Rule, RuleAnswer, RuleInput } from "./model.ts"
import {
  bracketed,
  dependencyArray,
  findWord,
  identifierAt,
  isWholeStatement,
  removeImportName,
  replaceAt
} from "./source.ts"

/** The names a react-hooks message lists: "missing dependency: 'a'", "dependencies: 'a', 'b', and 'c'". */
const listedNames = (message: string, after: string): ReadonlyArray<string> => {
  const start = message.indexOf(after)
  if (start === -1) return []
  const rest = message.slice(start + after.length)
  const end = rest.indexOf(". ")
  const names: Array<string> = []
  for (const part of (end === -1 ? rest : rest.slice(0, end)).split(/,|\band\b/)) {
    const name = part.trim().replace(/^'|'$/g, "")
    if (name !== "" && !name.includes(" ")) names.push(name)
  }
  return names
}

const exhaustiveDeps = (input: RuleInput): RuleAnswer => {
  const message = input.problem.message
  const missing = listedNames(message, message.includes("dependencies:") ? "dependencies:" : "dependency:")
  const hook = identifierAt(message.replace("React Hook ", ""), 1) || "The hook"
  // The column points at the dependency array.
  const open = input.line.indexOf("[", Math.max(0, input.problem.column - 1))
  const group = open === -1 ? undefined : bracketed(input.line, open)
  if (message.includes("unnecessary dependenc")) {
    return {
      rootCause: `${hook}'s dependency array lists values that are not used inside it (or are outer-scope values that never change), so the effect re-runs for nothing.`,
      fix: [
        step(input, {
          operation: "replace",
          description: `Remove ${missing.join(", ")} from the dependency array at ${at(input)}.`
        })
      ],
      confidence: "high"
    }
  }
  if (missing.length === 0 || group === undefined) {
    return {
      rootCause: `${hook}'s callback uses values that its dependency array at ${at(input)} does not list, so it sees stale values: ${message}`,
      fix: [
        step(input, {
          operation: "replace",
          description: "List every value the callback reads in the dependency array."
        })
      ],
      confidence: "medium"
    }
  }
  const current = group.inner
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
  const after = `${input.line.slice(0, open)}[${[...current, ...missing].join(", ")}]${input.line.slice(group.end + 1)}`
  return {
    rootCause: `${hook}'s callback reads ${missing.join(", ")}, but its dependency array [${current.join(", ")}] does not list ${missing.length === 1 ? "it" : "them"}: when ${missing.join(" or ")} change${missing.length === 1 ? "s" : ""}, the callback keeps the old value${missing.length === 1 ? "" : "s"}.`,
    fix: [
      ...lineEdit(input, "replace", `Add ${missing.join(", ")} to the dependency array.`, after),
      step(input, {
        operation: "investigate",
        description: `If the effect must not re-run when ${missing.join(", ")} change${missing.length === 1 ? "s" : ""}, read ${missing.length === 1 ? "it" : "them"} through a ref (useRef) or move the logic out of the effect instead of leaving the array incomplete.`
      })
    ],
    confidence: "high"
  }
}

const unusedVariable = (input: RuleInput): RuleAnswer => {
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
              description: `Delete line ${input.problem.line} (the declaration of ${name}), unless the value should be used: then use it.`,
              before: input.line
            })
          ]
        : [
            step(input, {
              operation: "delete",
              description: `Remove ${name} (${at(input)}), or use it where it was meant to be used. A parameter that must stay (before a used one) can only be kept if the rule's options allow it (argsIgnorePattern, e.g. "^_"; the default configuration has none).`
            })
          ]
  return {
    rootCause: `${name} (${at(input)}) is ${input.problem.message.includes("defined but never used") ? "defined" : "assigned"} and never used: dead code, or a value the code forgot to use.`,
    fix,
    confidence: withoutImport !== undefined || declaration ? "high" : "medium"
  }
}

const explicitAny = (input: RuleInput): RuleAnswer => {
  const column = input.line.slice(input.problem.column - 1).startsWith("any")
    ? input.problem.column
    : findWord(input.line, "any", Math.max(1, input.problem.column - 3))
  return {
    rootCause: `At ${at(input)} a type is written as any, which switches type checking off for everything that flows from it.`,
    fix: lineEdit(
      input,
      "replace",
      "Use unknown (and narrow it where it is used) or the real type; for parsed JSON, describe its shape with an interface or a schema.",
      column > 0 ? replaceAt(input.line, column, 3, "unknown") : undefined
    ),
    confidence: "high"
  }
}

const preferConst = (input: RuleInput): RuleAnswer => {
  const column = findWord(input.line, "let")
  // ESLint quotes the name; Biome points at the let and names nothing.
  const declared = column > 0 ? identifierAt(input.line.slice(column + 2).trimStart(), 1) : ""
  const name = input.quoted[0] ?? (declared !== "" ? declared : identifierAt(input.line, input.problem.column))
  // A destructuring let may hold other names that are reassigned: then only a split declaration is right.
  const destructuring = /\blet\s*[{[]/.test(input.line)
  return {
    rootCause: `${name} is declared with let at ${at(input)} but never reassigned.`,
    fix: lineEdit(
      input,
      "replace",
      destructuring
        ? `Declare ${name} with const: if the other names of this destructuring are reassigned, split it into a const and a let declaration.`
        : `Declare ${name} with const.`,
      column > 0 && !destructuring ? replaceAt(input.line, column, 3, "const") : undefined
    ),
    confidence: "high"
  }
}

/** The name a Biome message ends with: "…its dependency on count." → count. */
const lastWord = (message: string, after: string): string | undefined => {
  const start = message.indexOf(after)
  if (start === -1) return undefined
  const name = message
    .slice(start + after.length)
    .trim()
    .replace(/\.$/, "")
  return name === "" || name.includes(" ") ? undefined : name
}

// Biome reports at the hook call, one diagnostic per dependency: "This hook does not specify its dependency on count."
// or "This hook specifies more dependencies than necessary: count."
const biomeDependencies = (input: RuleInput): RuleAnswer => {
  const message = input.problem.message
  const missing = lastWord(message, "its dependency on")
  const extra = lastWord(message, "more dependencies than necessary:")
  const hook = identifierAt(input.line, input.problem.column) || "The hook"
  const array = dependencyArray(input.lines, input.problem.line, input.problem.column)
  const name = missing ?? extra
  if (array === undefined || name === undefined) {
    return {
      rootCause: `${hook} at ${at(input)}: ${message} Its dependency array must list exactly the values its callback reads, else the callback sees stale values or re-runs for nothing.`,
      fix: [
        step(input, {
          operation: "replace",
          description: "Add the values Biome names to the dependency array, or remove the ones it says are unnecessary."
        })
      ],
      confidence: "medium"
    }
  }
  const items = missing !== undefined ? [...array.items, name] : array.items.filter((item) => item !== name)
  const after = `${array.text.slice(0, array.open)}[${items.join(", ")}]${array.text.slice(array.close + 1)}`
  return {
    rootCause:
      missing !== undefined
        ? `${hook}'s callback (${at(input)}) reads ${name}, but its dependency array [${array.items.join(", ")}] on line ${array.line} does not list it: when ${name} changes, the callback keeps the old value.`
        : `${hook}'s dependency array [${array.items.join(", ")}] on line ${array.line} lists ${name}, which its callback does not read: the hook re-runs for nothing when ${name} changes.`,
    fix: [
      step(input, {
        operation: "replace",
        line: array.line,
        description:
          missing !== undefined ? `Add ${name} to the dependency array.` : `Remove ${name} from the dependency array.`,
        before: array.text,
        after
      })
    ],
    confidence: "high"
  }
}

/** A line that is a single call on the global logging object and nothing else (its `.log(x)`, `.warn(x);`…). */
const isConsoleStatement = (line: string): boolean => {
  const trimmed = line.trim().replace(/;$/, "")
  const open = trimmed.indexOf("(")
  return trimmed.startsWith("console.") && open !== -1 && bracketed(trimmed, open)?.end === trimmed.length - 1
}

const simple =
  (
    rootCause: (input: RuleInput) => string,
    description: (input: RuleInput) => string,
    operation: FixStep["operation"] = "replace",
    confidence: RuleAnswer["confidence"] = "high",
    edit?: (input: RuleInput) => string | undefined
  ) =>
  (input: RuleInput): RuleAnswer => ({
    rootCause: rootCause(input),
    fix:
      edit === undefined
        ? [step(input, { operation, description: description(input) })]
        : lineEdit(input, operation, description(input), edit(input)),
    confidence
  })

const eqeqeq: Rule = {
  title: "Loose equality",
  diagnose: simple(
    (i) => `At ${at(i)} == or != compares with type coercion (0 == "" is true).`,
    (i) => `Use ${i.quoted[0] ?? "==="} instead.`,
    "replace",
    "high",
    (i) => {
      const wanted = i.quoted[0] ?? "==="
      const found = i.quoted[1] ?? (wanted === "===" ? "==" : "!=")
      return i.line.slice(i.problem.column - 1).startsWith(found)
        ? replaceAt(i.line, i.problem.column, found.length, wanted)
        : undefined
    }
  )
}

const noConsole: Rule = {
  title: "console call left in the code",
  diagnose: (input) => ({
    rootCause: `A console call at ${at(input)}: debugging output the lint configuration forbids in this code.`,
    fix: [
      step(input, {
        operation: "delete",
        description: `Remove it${isConsoleStatement(input.line) ? ` (line ${input.problem.line} is only this call)` : ""}, or use the project's logger (or console.warn/console.error if the configuration allows them).`,
        ...(isConsoleStatement(input.line) ? { before: input.line } : {})
      })
    ],
    confidence: "high"
  })
}

const nonNullAssertion: Rule = {
  title: "Non-null assertion",
  diagnose: simple(
    (i) => `The ! at ${at(i)} tells TypeScript a value cannot be null or undefined without checking it.`,
    () => "Check the value (if (!value) …, or ?? a default) instead of asserting.",
    "add_null_check"
  )
}

const debuggerStatement: Rule = {
  title: "debugger statement",
  diagnose: (input) => ({
    rootCause: `A debugger statement is left at ${at(input)}.`,
    fix: [
      step(input, {
        operation: "delete",
        description: `Delete line ${input.problem.line}.`,
        ...(input.line !== "" ? { before: input.line } : {})
      })
    ],
    confidence: "high"
  })
}

const rules: Record<string, Rule> = {
  "react-hooks/exhaustive-deps": { title: "Hook dependency array is incomplete", diagnose: exhaustiveDeps },
  "react-hooks/rules-of-hooks": {
    title: "Hook called conditionally or outside a component",
    diagnose: simple(
      (i) =>
        `${i.quoted[0] ?? "A hook"} at ${at(i)} is not called at the top level of a component or custom hook (${i.problem.message}); React relies on hooks being called in the same order on every render.`,
      () =>
        "Move the hook call to the top of the component (before any early return, outside conditions and loops); put the condition inside the hook's callback instead.",
      "replace",
      "high"
    )
  },
  "react-refresh/only-export-components": {
    title: "File exports components and other values",
    diagnose: simple(
      (i) =>
        `${i.problem.file} exports something that is not a component next to its components, so Fast Refresh reloads the whole page when it changes.`,
      (i) =>
        `Move the non-component exports (constants, hooks, helpers) at ${at(i)} to their own module and import them.`,
      "investigate",
      "high"
    )
  },
  "no-unused-vars": { title: "Unused variable", diagnose: unusedVariable },
  "@typescript-eslint/no-unused-vars": { title: "Unused variable", diagnose: unusedVariable },
  "@typescript-eslint/no-explicit-any": { title: "Explicit any", diagnose: explicitAny },
  "prefer-const": { title: "let that is never reassigned", diagnose: preferConst },
  "no-undef": {
    title: "Undefined variable",
    diagnose: simple(
      (i) =>
        `${i.quoted[0]} is used at ${at(i)} but not declared or imported (or is a global the lint configuration does not know).`,
      (i) =>
        `Import or declare ${i.quoted[0]}; if it is a browser or Node global, add the right globals to the ESLint configuration's languageOptions.globals.`,
      "add_import",
      "medium"
    )
  },
  eqeqeq,
  "no-console": noConsole,
  "no-debugger": debuggerStatement,
  "no-empty": {
    title: "Empty block",
    diagnose: simple(
      (i) => `The block at ${at(i)} is empty: an error swallowed silently, or unfinished code.`,
      () => "Handle the case (log or rethrow the error), or write a comment saying why nothing is done.",
      "insert"
    )
  },
  "@typescript-eslint/ban-ts-comment": {
    title: "TypeScript directive comment",
    diagnose: simple(
      (i) => `A @ts-ignore or @ts-nocheck at ${at(i)} hides type errors.`,
      () =>
        "Fix the error the comment hides (run fe_verify without it); if it must stay, use @ts-expect-error with a description.",
      "replace",
      "high",
      (i) => (i.line.includes("@ts-ignore") ? i.line.replace("@ts-ignore", "@ts-expect-error: <why>") : undefined)
    )
  },
  "@typescript-eslint/no-non-null-assertion": nonNullAssertion,
  "@typescript-eslint/no-empty-object-type": {
    title: "Empty object type",
    diagnose: simple(
      (i) =>
        `The type {} (or an empty interface) at ${at(i)} accepts any value except null and undefined, rarely what is meant.`,
      () =>
        "Use object, unknown, or Record<string, never>, or give the interface members (or make it a type alias of what it extends).",
      "replace",
      "medium"
    )
  },
  "react/jsx-key": {
    title: "Missing key in a list",
    diagnose: simple(
      (i) =>
        `An element created in a loop (map) at ${at(i)} has no key prop, so React cannot track items between renders.`,
      () =>
        "Add key={item.id} (a stable, unique value of the item; not the index when the list can change order) to the element returned by map.",
      "add_property"
    )
  },
  "parse-error": {
    title: "Syntax error",
    diagnose: simple(
      (i) => `The linter could not parse ${i.problem.file}: ${i.problem.message}`,
      () =>
        "Fix the syntax at the location (fe_verify's typecheck step usually reports the same error with a TS code).",
      "investigate",
      "medium"
    )
  },
  // Biome's categories for the same problems.
  "lint/correctness/useExhaustiveDependencies": {
    title: "Hook dependency array is incomplete",
    diagnose: biomeDependencies
  },
  "lint/correctness/noUnusedVariables": { title: "Unused variable", diagnose: unusedVariable },
  "lint/correctness/noUnusedImports": {
    title: "Unused import",
    diagnose: (input) => ({
      rootCause: `The import at ${at(input)} is not used in ${input.problem.file}.`,
      fix: [
        step(input, {
          operation: "delete",
          description: "Remove the unused name from the import (the whole line if it is the only one).",
          ...(input.line !== "" ? { before: input.line } : {})
        })
      ],
      confidence: "high"
    })
  },
  "lint/suspicious/noExplicitAny": { title: "Explicit any", diagnose: explicitAny },
  "lint/style/useConst": { title: "let that is never reassigned", diagnose: preferConst },
  "lint/suspicious/noDoubleEquals": eqeqeq,
  "lint/suspicious/noConsole": noConsole,
  "lint/suspicious/noConsoleLog": noConsole,
  "lint/suspicious/noDebugger": debuggerStatement,
  "lint/style/noNonNullAssertion": nonNullAssertion
}

/**
 * The lint rules, by ESLint rule id or Biome category.
 *
 * **Example**
 *
 * ```ts
 * import { lintRules } from "./capabilities/fe/diagnosis/lint.ts"
 *
 * lintRules["react-hooks/exhaustive-deps"]?.title // => "Hook dependency array is incomplete"
 * ```
 *
 * @category rules
 * @since 0.1.0
 */
export const lintRules: Readonly<Record<string, Rule>> = rules
