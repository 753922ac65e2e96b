/**
 * The test-failure rules of `fe_doctor`: a failing assertion (the values
 * compared, the assertion's line, the function under test and where it is
 * declared), and the usual ways a test or a test file fails without one.
 *
 * @since 0.1.0
 */
import { at, step } from "./fix.ts"
import type { Rule, RuleAnswer, RuleInput } from "./model.ts"
import { bracketed, declarationLine, findLine, findWord, identifierAt } from "./source.ts"

/** The function called inside expect(…) on the assertion line, e.g. "add" in expect(add(2, 3)).toBe(5). */
const subjectOf = (line: string): { readonly call: string; readonly name: string } | undefined => {
  const start = line.indexOf("expect(")
  if (start === -1) return undefined
  const group = bracketed(line, start + "expect".length)
  if (group === undefined) return undefined
  let call = group.inner.trim()
  // expect(() => parse('x')).toThrow(): the function under test is the one the arrow calls.
  const arrow = call.indexOf("=>")
  if (
    arrow !== -1 &&
    (call.startsWith("(") || identifierAt(call, 1).length === arrow - 1 || call.startsWith("async"))
  ) {
    call = call.slice(arrow + 2).trim()
    if (call.startsWith("{")) return undefined
  }
  const name = identifierAt(call, 1)
  return name === "" || name === "await" || name === "new" ? undefined : { call, name }
}

/** Where the function under test is declared, among the modules the test file imports. */
const declarationOf = (
  input: RuleInput,
  name: string
): { readonly file: string; readonly line: number } | undefined => {
  for (const [file, lines] of input.related) {
    const line = declarationLine(lines, name)
    if (line > 0) return { file, line }
  }
  const local = declarationLine(input.lines, name)
  return local > 0 ? { file: input.problem.file, line: local } : undefined
}

/** The first lines of a declaration (up to its end or 8 lines), as in the file. */
const bodyOf = (input: RuleInput, declared: { readonly file: string; readonly line: number }): string => {
  const lines =
    input.related.get(declared.file) ?? (declared.file === input.problem.file ? input.lines : undefined) ?? []
  const out: Array<string> = []
  for (let n = declared.line; n <= lines.length && out.length < 8; n++) {
    out.push(`${n} | ${lines[n - 1]}`)
    if (/^\}/.test(lines[n - 1]!) || (n > declared.line && lines[n - 1]!.trim() === "")) break
  }
  return out.join("\n")
}

/** A hint from the two values when they are simple: an array missing its last element, a sign, an off-by-one. */
const comparisonHint = (expected: string, actual: string): string => {
  const asNumber = (text: string) => (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : undefined)
  const e = asNumber(expected)
  const a = asNumber(actual)
  if (e !== undefined && a !== undefined) {
    if (Math.abs(e - a) === 1) return " The values differ by one: look for an off-by-one (< versus <=, a start index)."
    if (e === -a) return " The values have opposite signs: look for a swapped subtraction or a sign."
    return ""
  }
  const items = (text: string) =>
    text.trim().startsWith("[") && text.trim().endsWith("]")
      ? text
          .trim()
          .slice(1, -1)
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part !== "")
      : undefined
  const ei = items(expected)
  const ai = items(actual)
  if (ei !== undefined && ai !== undefined) {
    if (ai.length === ei.length - 1 && ai.every((item, i) => item === ei[i])) {
      return ` The result lacks the last expected element (${ei[ei.length - 1]}): look for a loop or range that stops one early (< versus <=).`
    }
    if (ai.length === ei.length + 1 && ei.every((item, i) => item === ai[i])) {
      return ` The result has one element too many at the end (${ai[ai.length - 1]}): look for a loop that runs once too often.`
    }
    if (ai.length !== ei.length) return ` The result has ${ai.length} elements, the expectation ${ei.length}.`
  }
  return ""
}

/**
 * The changed lines of a Jest/Vitest diff ("- Expected  - 1 / + Received  + 0", then the values with - and +
 * lines), joined: `-   3,` for an element the result lacks. "" when the message has no diff.
 */
const diffLines = (message: string): string => {
  const lines = message.split("\n")
  const header = lines.findIndex((line) => /^\+ Received/.test(line.trim()))
  if (header === -1) return ""
  return lines
    .slice(header + 1)
    .filter((line) => /^[-+] /.test(line) || /^[-+]\s{2,}/.test(line))
    .slice(0, 8)
    .map((line) => line.trim().replace(/\s+/g, " "))
    .join("; ")
}

const assertionFailure = (input: RuleInput): RuleAnswer => {
  const test = input.problem.test
  const name = test?.name ?? "the test"
  const expected = test?.expected
  const actual = test?.actual
  const subject = subjectOf(input.line)
  const declared = subject === undefined ? undefined : declarationOf(input, subject.name)
  const diff = diffLines(input.problem.message)
  const compared =
    expected !== undefined && actual !== undefined
      ? `expected ${expected} but got ${actual}`
      : diff !== ""
        ? `the values differ (- expected, + received: ${diff})`
        : input.problem.message.split("\n")[0]
  const hint = expected !== undefined && actual !== undefined ? comparisonHint(expected, actual) : ""
  return {
    title: "Failing assertion",
    rootCause:
      `"${name}" fails at ${at(input)}: ${compared}` +
      (subject !== undefined ? `, for ${subject.call}` : "") +
      `. Either the code under test is wrong, or the expectation is.` +
      hint,
    fix: [
      ...(declared !== undefined && subject !== undefined
        ? [
            step(input, {
              operation: "update_test_or_code",
              file: declared.file,
              line: declared.line,
              description:
                `Fix ${subject.name} (${declared.file}:${declared.line}) so that ${subject.call} gives ${expected ?? "the expected value"}, if the test states the intended behaviour. ` +
                `It reads:\n${bodyOf(input, declared)}`
            })
          ]
        : [
            step(input, {
              operation: "investigate",
              description: `Read the code the assertion at ${at(input)} exercises (its imports name the module) and find why it gives ${actual ?? "another value"}.`
            })
          ]),
      step(input, {
        operation: "update_test_or_code",
        description: `Or, if the code's result is the intended behaviour, update the expectation on line ${input.problem.line} to ${actual ?? "the new value"}.`
      })
    ],
    confidence: declared !== undefined ? "high" : "medium"
  }
}

const timedOut = (input: RuleInput): RuleAnswer => ({
  title: "Test timed out",
  rootCause: `"${input.problem.test?.name ?? "The test"}" did not finish in time: a promise that never settles, a missing await or done(), or fake timers that were not advanced.`,
  fix: [
    step(input, {
      operation: "investigate",
      description:
        "Check that every promise in the test is awaited and settles (mocked fetches resolve), and that fake timers are advanced; raise the timeout only for genuinely slow tests."
    })
  ],
  confidence: "medium"
})

/** The call, above the assertion, that hands the mock to the code under test: `notify(callback)` → notify. */
const receiverOf = (input: RuleInput, mock: string): { readonly call: string; readonly name: string } | undefined => {
  for (let n = input.problem.line - 1; n >= Math.max(1, input.problem.line - 30); n--) {
    const line = input.lines?.[n - 1] ?? ""
    const trimmed = line.trim()
    if (findWord(line, mock) === 0 || trimmed.includes("expect(") || /^(const|let|var)\s/.test(trimmed)) continue
    const name = identifierAt(trimmed.replace(/^(?:await|return|void)\s+/, ""), 1)
    const open = trimmed.indexOf("(")
    if (name !== "" && name !== mock && open !== -1) return { call: trimmed.replace(/;$/, ""), name }
    if (/^(it|test|describe)\(/.test(trimmed)) break
  }
  return undefined
}

const notCalled = (input: RuleInput): RuleAnswer => {
  const message = input.problem.message
  const withArguments = /called with|toHaveBeenCalledWith|toHaveBeenLastCalledWith|toHaveBeenNthCalledWith/.test(
    message
  )
  const subject = subjectOf(input.line)
  const mock = subject?.call !== undefined && identifierAt(subject.call, 1) === subject.call ? subject.call : undefined
  const receiver = mock === undefined ? undefined : receiverOf(input, mock)
  const declared = receiver === undefined ? undefined : declarationOf(input, receiver.name)
  return {
    title: withArguments ? "Mock called with other arguments" : "Mock not called as expected",
    rootCause:
      (withArguments
        ? `At ${at(input)} the mock${mock === undefined ? "" : ` ${mock}`} was called, but not with the arguments the test expects (the message shows the calls it received)`
        : `At ${at(input)} the mock${mock === undefined ? "" : ` ${mock}`} was not called (or not as often as expected)`) +
      (receiver !== undefined
        ? `: it is passed to ${receiver.name} in ${receiver.call}${declared !== undefined ? ` (${declared.file}:${declared.line})` : ""}, which ${withArguments ? "calls it differently" : "does not call it"}.`
        : withArguments
          ? "."
          : ": the code path that should call it did not run, or the mock is not the function the code uses."),
    fix: [
      ...(declared !== undefined && receiver !== undefined
        ? [
            step(input, {
              operation: "update_test_or_code",
              file: declared.file,
              line: declared.line,
              description: `Make ${receiver.name} call the function it is given${withArguments ? " with the expected arguments" : ""}, if the test states the intended behaviour. It reads:\n${bodyOf(input, declared)}`
            })
          ]
        : []),
      step(input, {
        operation: declared !== undefined ? "update_test_or_code" : "investigate",
        description:
          declared !== undefined
            ? `Or, if ${receiver!.name} is right, change the expectation on line ${input.problem.line}.`
            : "Check that the code under test receives the mock (injected, or the module mocked with vi.mock/jest.mock before the import), and that the action that triggers the call is awaited."
      })
    ],
    confidence: declared !== undefined ? "high" : "medium"
  }
}

const notThrown = (input: RuleInput): RuleAnswer => {
  const message = input.problem.message
  // Vitest: "expected [Function] to throw error including 'bang' but got 'boom'"; Jest: "Received message: …".
  const other = / but got |Received message:|Received value:/.test(message)
  const subject = subjectOf(input.line)
  const declared = subject === undefined ? undefined : declarationOf(input, subject.name)
  return {
    title: other ? "A different error was thrown" : "Expected error not thrown",
    rootCause:
      `"${input.problem.test?.name ?? "The test"}" expects ${subject?.call ?? "the function"} to throw at ${at(input)}, but ` +
      (other
        ? `it threw another error than the one expected (${message.split("\n")[0]}).`
        : "it returned normally: the code under test does not check the case the test gives it."),
    fix: [
      ...(declared !== undefined && subject !== undefined
        ? [
            step(input, {
              operation: "update_test_or_code",
              file: declared.file,
              line: declared.line,
              description: `${other ? "Throw the expected error" : "Throw an error"} from ${subject.name} (${declared.file}:${declared.line}) for this input, if the test states the intended behaviour. It reads:\n${bodyOf(input, declared)}`
            })
          ]
        : []),
      step(input, {
        operation: "update_test_or_code",
        description: `Or, if the code is right, change the expectation on line ${input.problem.line} (not.toThrow, or the error it does throw).`
      })
    ],
    confidence: declared !== undefined ? "high" : "medium"
  }
}

const thrown = (input: RuleInput, kind: string): RuleAnswer => ({
  title: `The test threw a ${kind}`,
  rootCause: `"${input.problem.test?.name ?? "The test"}" threw instead of asserting: ${input.problem.message.split("\n")[0]} at ${at(input)} — the code under test (or the test's set-up) uses a value that is not what it expects.`,
  fix: [
    step(input, {
      operation: "investigate",
      description: `Read the line in the stack (${at(input)}) and the value it uses; a TypeError on undefined usually means missing test data or a mock returning nothing.`
    })
  ],
  confidence: "medium"
})

const snapshot = (input: RuleInput): RuleAnswer => ({
  title: "Snapshot mismatch",
  rootCause: `The rendered output at ${at(input)} differs from the stored snapshot.`,
  fix: [
    step(input, {
      operation: "update_test_or_code",
      description:
        "If the change is intended, update the snapshot (vitest run -u, or jest -u, with exec_run); if not, the code's output regressed: compare the diff in the message."
    })
  ],
  confidence: "medium"
})

/**
 * The test rules: `test-failure` (chosen by the failure's message) and
 * `test-file-failure`.
 *
 * **Example**
 *
 * ```ts
 * import { testRules } from "./capabilities/fe/diagnosis/tests.ts"
 *
 * Object.keys(testRules) // => ["test-failure", "test-file-failure"]
 * ```
 *
 * @category rules
 * @since 0.1.0
 */
export const testRules: Readonly<Record<string, Rule>> = {
  "test-failure": {
    title: "Failing test",
    diagnose: (input) => {
      const message = input.problem.message
      if (/timed out in \d+ ?ms|Exceeded timeout/i.test(message)) return timedOut(input)
      if (/snapshot/i.test(message) && /mismatch|obsolete|doesn't match|does not match/i.test(message))
        return snapshot(input)
      if (/to have been called|toHaveBeenCalled|to be called/i.test(message)) return notCalled(input)
      if (/to not throw|\.not\.toThrow/.test(message)) return thrown(input, "error")
      if (/to throw|\.toThrow|Received function did not throw/.test(message)) return notThrown(input)
      if (/^TypeError/.test(message)) return thrown(input, "TypeError")
      if (/^ReferenceError/.test(message)) return thrown(input, "ReferenceError")
      return assertionFailure(input)
    }
  },
  "test-file-failure": {
    title: "Test file failed to run",
    diagnose: (input) => {
      const module =
        /Cannot find (?:module|package) '([^']+)'|Failed to (?:resolve|load) (?:import|url) "([^"]+)"/.exec(
          input.problem.message
        )
      const imported = module?.[1] ?? module?.[2]
      const line = imported === undefined ? 0 : findLine(input.lines, (l) => l.includes(imported))
      return {
        rootCause:
          imported !== undefined
            ? `${input.problem.file} could not be loaded: it imports ${imported}, which does not resolve — none of its tests ran.`
            : `${input.problem.file} failed before its tests ran (a syntax error, an import that fails, or a failing beforeAll): ${input.problem.message.split("\n")[0]}`,
        fix: [
          step(input, {
            operation: "investigate",
            line: line > 0 ? line : input.problem.line,
            description:
              imported !== undefined
                ? `Fix the import of ${imported} (the path, or install the package), then call fe_verify with this file.`
                : "Fix the error at the location the message names; fe_verify's typecheck usually reports the same problem with a TS code."
          })
        ],
        confidence: imported !== undefined ? "high" : "medium"
      }
    }
  }
}
