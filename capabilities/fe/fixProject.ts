/**
 * The prompt `fe_fix_project`: "verify, diagnose and fix this project" —
 * the fe loop as instructions the agent follows with the capability's own
 * tools (`fe_verify` → `fe_doctor` → `fe_impact` → `fe_batch` /
 * `fe_surgeon` → `fe_verify`), optionally focused on files and steps.
 *
 * @since 0.5.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Prompt from "../../src/Prompt.ts"
import { Kernel } from "../../src/Kernel.ts"

const steps = ["typecheck", "lint", "test"] as const

/**
 * An argument of `fe_fix_project` that cannot be used: answered as −32602
 * with its message.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidFixArgument } from "./capabilities/fe/fixProject.ts"
 *
 * new InvalidFixArgument({ message: 'steps: "build" is not a step' }).message // => 'steps: "build" is not a step'
 * ```
 *
 * @category errors
 * @since 0.5.0
 */
export class InvalidFixArgument extends Schema.TaggedError<InvalidFixArgument>()("InvalidFixArgument", {
  message: Schema.String
}) {}

/** A comma-separated list, its items trimmed, the empty ones dropped. */
const items = (text: string | undefined): Array<string> =>
  text === undefined
    ? []
    : text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "")

/**
 * The instructions of `fe_fix_project` for its arguments (after they were
 * checked): the loop, the `fe_verify` arguments to pass, the rules.
 *
 * **Example**
 *
 * ```ts
 * import { fixInstructions } from "./capabilities/fe/fixProject.ts"
 *
 * fixInstructions({ focus: ["src/cart"], steps: ["typecheck"] }).includes('{"steps":["typecheck"],"files":["src/cart"]}')
 * // => true
 * ```
 *
 * @category rendering
 * @since 0.5.0
 */
export const fixInstructions = (options: {
  readonly focus: ReadonlyArray<string>
  readonly steps: ReadonlyArray<string>
  readonly goal?: string | undefined
  /**
   * Whether the server publishes a tool (the experimental fe tools are left out of the loop when it does not;
   * default: every tool is published). Since 0.5.0.
   */
  readonly published?: ((name: string) => boolean) | undefined
}): string => {
  const published = options.published ?? (() => true)
  const verifyArguments = JSON.stringify({
    ...(options.steps.length > 0 ? { steps: options.steps } : {}),
    ...(options.focus.length > 0 ? { files: options.focus } : {})
  })
  const scope =
    options.focus.length > 0
      ? ` Focus on ${options.focus.join(", ")}: the lint and the tests run on those files only, and only their type errors are reported (the typecheck still checks the whole project).`
      : ""
  const goal = options.goal === undefined || options.goal.trim() === "" ? "" : `\n\nThe goal: ${options.goal.trim()}`
  const map =
    options.focus.length === 1
      ? `fe_skeleton with {"path":${JSON.stringify(options.focus[0])}}`
      : "fe_skeleton (with path set to a directory to narrow it)"
  return [
    `Verify, diagnose and fix this project with the fe tools, until its checks pass.${scope}${goal}`,
    "",
    "Work in this loop:",
    `1. Call fe_verify with ${verifyArguments}. It runs the project's own typecheck, linter and tests and returns every problem in one shape. If ok is true, stop: say that every check passes.`,
    "2. A step whose status is error or timed_out did not check anything: read its log (the step's log field, a fe://build/<id> resource, with resources/read) and fix what stopped it (a missing install, the tool's configuration) before anything else.",
    "3. Call fe_doctor with no arguments: the root cause and a concrete fix for each problem of that run (file, line, the exact before/after text or a command), each with a diagnosis id.",
    published("fe_impact")
      ? `4. Before changing an exported symbol, call fe_impact with {"symbols":["<its name>"]} to see who depends on it and which tests cover it. To understand the code around a problem, call ${map}, then read the files you need.`
      : `4. To understand the code around a problem, call ${map}, then read the files you need.`,
    published("fe_batch") && published("fe_surgeon")
      ? '5. Apply the fixes. The diagnoses that name a surgeon operation: all at once with fe_batch ({"operations":[{"op":"apply_diagnosis","id":"d…"}, …]}), which checks the change with fe_verify before and after and restores every file when the project got worse — or one at a time with fe_surgeon. The others: edit the file yourself (workspace_edit with the diagnosis\'s before and after text), or run the command it gives.'
      : "5. Apply the fixes: edit each file yourself (workspace_edit with the diagnosis's before and after text), or run the command the diagnosis gives.",
    `6. Call fe_verify again with ${verifyArguments}. Go back to 3 while problems remain and the last round fixed some; stop when ok is true, or when a round fixed nothing, and explain what is left and why.`,
    "",
    "Rules: fix causes, not symptoms — do not delete, skip or weaken failing tests, do not silence the typecheck with any, @ts-ignore or a non-null assertion, and do not disable lint rules, unless the diagnosis says that is the fix. Keep each change as small as the fix needs. At the end, list the files you changed and quote the summary of the last fe_verify."
  ].join("\n")
}

/**
 * The `fix_project` prompt, published as `fe_fix_project`: one user message
 * that walks the agent through the fe loop. Arguments, all optional:
 * `focus` (files or directories, comma-separated, passed to `fe_verify` as
 * `files`), `steps` (a comma-separated subset of `typecheck`, `lint`,
 * `test`; completed as typed) and `goal` (what the user wants, in words).
 * An unknown step is −32602.
 *
 * **Example**
 *
 * ```ts
 * import { fixProject } from "./capabilities/fe/fixProject.ts"
 *
 * fixProject.prompt.name // => "fix_project"
 * ```
 *
 * @category prompts
 * @since 0.5.0
 */
export const fixProject = Prompt.make("fix_project", {
  title: "Verify, diagnose and fix this project",
  description:
    "Walks the agent through the fe loop until the project's checks pass: fe_verify (typecheck, lint, tests), " +
    "fe_doctor (the cause and fix of each problem), the fixes applied (with fe_impact, fe_batch and fe_surgeon when " +
    "the server publishes them), then fe_verify again.",
  arguments: Schema.Struct({
    focus: Schema.optionalKey(
      Schema.String.annotate({
        description:
          "Files or directories to focus on, relative to the workspace root, comma-separated (default: the whole project)"
      })
    ),
    steps: Schema.optionalKey(
      Schema.String.annotate({
        description: "The checks to run, comma-separated: typecheck, lint, test (default: all the project has)"
      })
    ),
    goal: Schema.optionalKey(
      Schema.String.annotate({ description: 'What to achieve, in words (e.g. "make the cart tests pass")' })
    )
  })
}).pipe(
  Prompt.handle(({ focus, goal, steps: chosen }) => {
    const stepList = items(chosen)
    const unknown = stepList.filter((step) => !(steps as ReadonlyArray<string>).includes(step))
    if (unknown.length > 0) {
      return Effect.fail(
        new InvalidFixArgument({
          message: `steps: ${unknown.map((step) => JSON.stringify(step)).join(", ")} ${unknown.length === 1 ? "is not a step" : "are not steps"}; the steps are typecheck, lint and test (comma-separated).`
        })
      )
    }
    // The loop names only the tools this server publishes (the experimental ones need serve --experimental).
    return Effect.map(Effect.serviceOption(Kernel), (kernel) => ({
      description: "The fe loop: verify, diagnose, fix, verify again.",
      messages: [
        Prompt.user(
          fixInstructions({
            focus: items(focus),
            steps: [...new Set(stepList)],
            goal,
            published: (name) => kernel._tag === "None" || kernel.value.tool(name) !== undefined
          })
        )
      ]
    }))
  }),
  Prompt.completions({
    // The step being typed after the ones already listed: "typecheck, l" completes to "typecheck, lint".
    steps: (value) => {
      const comma = value.lastIndexOf(",")
      const before = value.slice(0, comma + 1)
      const typed = value.slice(comma + 1).trimStart()
      const spacing = value.slice(comma + 1).length - typed.length
      const taken = new Set(items(before))
      return Effect.succeed(
        steps
          .filter((step) => !taken.has(step) && step.startsWith(typed))
          .map((step) => `${before}${" ".repeat(spacing)}${step}`)
      )
    }
  })
)
