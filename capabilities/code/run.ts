/**
 * `code_run`: runs an agent's JavaScript or TypeScript in a fresh isolate,
 * where `await mcp.<namespace>.<tool>(args)` calls a published tool (local or
 * upstream) or a learned capability.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import * as Engine from "./engine.ts"
import type { Code } from "./learned.ts"

const CallSchema = Schema.Struct({
  tool: Schema.String.annotate({ description: "The public name of the tool called." }),
  outcome: Schema.String.annotate({
    description: "ok, or why it failed: tool_error, invalid_arguments, denied, timeout, confirmation_required…"
  }),
  durationMs: Schema.Number,
  error: Schema.optionalKey(Schema.String.annotate({ description: "The tool's error text, when it failed." }))
})

/**
 * The tool's description: what the agent needs to write code for it.
 *
 * @category constants
 * @since 0.3.0
 */
export const description =
  "Runs JavaScript or TypeScript (types are stripped) in a sandbox where every tool of this server is a function: " +
  "`await mcp.<namespace>.<tool>({ ...args })`, e.g. `await mcp.system.echo({ text: 'hi' })` for system_echo; " +
  'a name that is not an identifier is written `mcp.ns["get-x"]({})`. Write the body of an async function: use ' +
  "await, and `return` the value you want back (JSON). A call resolves to the tool's structured output when it " +
  "declares one, else to its text (or its content blocks), and rejects with an Error (message, code, " +
  "suggestion) when the tool fails. Learned capabilities (code_list) are called the same way. Calls are checked " +
  "before the code runs: an unknown tool, or `mcp` used any other way (mcp[x], const m = mcp), is refused. The " +
  "sandbox has no Node APIs, no timers, no network or files except through tools, and limits on CPU time, " +
  "memory and calls; console.log output comes back with the result. Call code_types first for every tool's " +
  "TypeScript signature. Use it to chain many calls in one round trip: loops, filtering, aggregating."

/**
 * `code_run`.
 *
 * **Example**
 *
 * ```ts
 * // arguments an agent sends
 * const args = {
 *   code: "const files = await mcp.workspace.list({ path: 'src' })\nreturn files.entries.length",
 *   language: "typescript"
 * }
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const runTool = (code: Code) =>
  Tool.make("run", {
    title: "Run code",
    description,
    input: Schema.Struct({
      code: Schema.String.annotate({
        description: "The body of an async function: statements using await mcp.<namespace>.<tool>(…), then return."
      }),
      language: Schema.optionalKey(
        Schema.Literals(["typescript", "javascript"]).annotate({
          description: "typescript (the default: types are stripped before it runs) or javascript"
        })
      ),
      input: Schema.optionalKey(
        Schema.Unknown.annotate({ description: "A JSON value the code reads as the constant `input`." })
      )
    }),
    output: Schema.Struct({
      value: Schema.Unknown.annotate({ description: "What the code returned (JSON); null when it returned nothing." }),
      console: Schema.Array(Schema.Struct({ level: Schema.String, text: Schema.String })),
      consoleTruncated: Schema.Boolean,
      calls: Schema.Array(CallSchema)
    }),
    annotations: { openWorldHint: true }
  }).pipe(
    Tool.handle(({ code: source, input, language }) =>
      Effect.gen(function* () {
        const checked = Engine.check(source, language ?? "typescript", code.registry, {
          allowLearned: true,
          maxCodeBytes: code.settings.maxCodeBytes
        })
        if (checked._tag === "Refused") {
          return yield* new Tool.ToolError({
            message: checked.message,
            code: checked.code,
            suggestion: checked.suggestion
          })
        }
        const report = yield* Engine.run(code.sandbox, checked, input, code.settings).pipe(
          Effect.mapError(Engine.runFailure)
        )
        return {
          value: report.value === undefined ? null : report.value,
          console: report.console.map((line) => ({ level: line.level, text: line.text })),
          consoleTruncated: report.consoleTruncated,
          calls: report.calls.map((call) => ({
            tool: call.tool,
            outcome: call.outcome,
            durationMs: call.durationMs,
            ...(call.error === undefined ? {} : { error: call.error })
          }))
        }
      })
    )
  )
