/**
 * The confirmation gate for destructive tools. A tool annotated
 * `destructiveHint: true`, or made with `confirm: true`, runs only once the
 * user agreed:
 *
 * - when the client supports elicitation (form mode), the server asks the
 *   user directly, and runs the tool only if they accept and confirm;
 * - otherwise the call must carry `confirm: true` — an argument the runtime
 *   adds to the tool's input schema, with a description saying so — and
 *   without it the call gets a result explaining how to confirm.
 *
 * Configuration can pre-approve tools (by public-name glob) with
 * {@link Confirmation}.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Confirmation from "effect-mcp-runtime/Confirmation"
 *
 * // The operator trusts the agent with workspace writes in this deployment.
 * const Trusted = Layer.succeed(Confirmation.Confirmation, { preApproved: ["workspace_write"] })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Client } from "./Client.ts"
import * as Elicitation from "./Elicitation.ts"
import { globToRegExp } from "./Gate.ts"
import type { CallToolResult } from "./McpSchema.ts"
import { failureResult } from "./internal/compileTool.ts"

/**
 * The confirmation settings: the tools that need no confirmation, by
 * public-name glob. Default: none. A glob that matches no published tool
 * name when the server starts is reported in a warning with the nearest
 * name (run-time `app_` names, registered later, excepted).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Confirmation } from "effect-mcp-runtime/Confirmation"
 *
 * const settings = Effect.provideService(Effect.void, Confirmation, { preApproved: ["exec_*"] })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export const Confirmation = Context.Reference<{ readonly preApproved: ReadonlyArray<string> }>(
  "effect-mcp-runtime/Confirmation",
  { defaultValue: () => ({ preApproved: [] }) }
)

export {
  /**
   * The argument added to a confirmed tool's input schema: `"confirm"`.
   *
   * @since 0.1.0
   */
  argument,
  /**
   * The JSON Schema of the added argument (a described boolean).
   *
   * @since 0.1.0
   */
  argumentSchema,
  /**
   * Whether a tool needs confirmation: annotated destructive, or made with `confirm: true`.
   *
   * @since 0.1.0
   */
  needsConfirmation
} from "./internal/confirm.ts"
import { argument } from "./internal/confirm.ts"

// A coded error result, as a typed tool failure is rendered (`failureResult`).
const result = (message: string, code: string, suggestion: string): CallToolResult =>
  failureResult({ message, code, suggestion })

// The pre-approval globs, compiled once per settings object.
const compiled = new WeakMap<object, ReadonlyArray<RegExp>>()
const preApproved = (settings: { readonly preApproved: ReadonlyArray<string> }, tool: string): boolean => {
  let patterns = compiled.get(settings)
  if (patterns === undefined) {
    patterns = settings.preApproved.map(globToRegExp)
    compiled.set(settings, patterns)
  }
  return patterns.some((pattern) => pattern.test(tool))
}

const Answer = Schema.Struct({
  confirm: Schema.Boolean.annotate({ title: "Yes, run it", description: "Leave unchecked to refuse." })
})

/**
 * What {@link decide} concludes.
 *
 * **Example**
 *
 * ```ts
 * import type { Decision } from "effect-mcp-runtime/Confirmation"
 *
 * const go: Decision = { _tag: "Go", args: { path: "a.txt" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Decision =
  | { readonly _tag: "Go"; readonly args: Record<string, unknown> | undefined }
  | { readonly _tag: "Stop"; readonly result: CallToolResult }

/**
 * Decides whether a call of a tool that needs confirmation may run: `Go`
 * with the arguments (without `confirm`), or `Stop` with the result to send.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Confirmation from "effect-mcp-runtime/Confirmation"
 *
 * const decision = Confirmation.decide("workspace_write", "Writes a file.", { path: "a.txt", confirm: true })
 * // Effect<Decision, never, Client> — Go with { path: "a.txt" } when confirmed
 * ```
 *
 * @category gate
 * @since 0.1.0
 */
export const decide = (
  tool: string,
  description: string,
  args: Record<string, unknown> | undefined
): Effect.Effect<Decision, never, Client> =>
  Effect.flatMap(Effect.service(Confirmation), (settings): Effect.Effect<Decision, never, Client> => {
    const given = args?.[argument]
    let rest = args
    if (args !== undefined && argument in args) {
      const { [argument]: _, ...others } = args
      rest = others
    }
    const go = Effect.succeed<Decision>({ _tag: "Go", args: rest })
    if (preApproved(settings, tool)) return go
    return Effect.flatMap(Effect.service(Client), (client): Effect.Effect<Decision, never, Client> => {
      // A client that can ask its user is always asked: the model cannot confirm for the user by adding
      // `confirm: true`. Without elicitation, the argument is the only way, and the model is told to ask first.
      const canAsk = Elicitation.supportsForm(client)
      if (!canAsk && given === true) return go
      return ask(tool, description, rest)
    })
  })

// Characters that change how text is displayed without being seen: C1 controls, bidirectional overrides and
// isolates, zero-width characters, the BOM. JSON.stringify already escapes the C0 controls.
const invisible = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g

/**
 * The most characters of a call's arguments the confirmation message shows;
 * beyond it, the message says how many are not shown.
 *
 * **Example**
 *
 * ```ts
 * import { maxShownArguments } from "effect-mcp-runtime/Confirmation"
 *
 * maxShownArguments // => 4000
 * ```
 *
 * @category gate
 * @since 0.1.0
 */
export const maxShownArguments = 4000

/**
 * The message the user is asked to confirm: the tool, then the call's
 * arguments exactly (pretty JSON, invisible and direction-changing
 * characters escaped, never cut without saying so), then what the tool does.
 *
 * **Example**
 *
 * ```ts
 * import { confirmationMessage } from "effect-mcp-runtime/Confirmation"
 *
 * confirmationMessage("exec_run", "Runs a command.", { command: "git", args: ["push"] })
 * // => 'Allow exec_run to run? It changes or deletes things.\nArguments:\n{\n  "command": "git", …'
 * ```
 *
 * @category gate
 * @since 0.1.0
 */
export const confirmationMessage = (
  tool: string,
  description: string,
  args: Record<string, unknown> | undefined
): string => {
  const json = JSON.stringify(args ?? {}, null, 2).replace(
    invisible,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )
  const shown =
    json.length <= maxShownArguments
      ? json
      : `${json.slice(0, maxShownArguments)}\n[… ${json.length - maxShownArguments} more characters not shown: decline unless you know what they are]`
  const about = /^[^.!?]*[.!?]/.exec(description)?.[0] ?? description
  return `Allow ${tool} to run? It changes or deletes things.\nArguments:\n${shown}\n(${tool}: ${
    about.length > 200 ? `${about.slice(0, 200)}…` : about
  })`
}

const ask = (
  tool: string,
  description: string,
  rest: Record<string, unknown> | undefined
): Effect.Effect<Decision, never, Client> => {
  return Elicitation.form(confirmationMessage(tool, description, rest), Answer).pipe(
    Effect.map((answer): Decision =>
      answer.action === "accept" && answer.content.confirm
        ? { _tag: "Go", args: rest }
        : {
            _tag: "Stop",
            result: result(
              `The user did not allow ${tool} to run (${answer.action === "accept" ? "not confirmed" : answer.action}).`,
              "not_confirmed",
              `Do not retry ${tool} unless the user asks for it again; tell them it was not run.`
            )
          }
    ),
    Effect.catchTag("ClientCapabilityMissing", () =>
      Effect.succeed<Decision>({
        _tag: "Stop",
        result: result(
          `${tool} changes or deletes things and needs the user's confirmation, and this client cannot ask ` +
            `the user itself.`,
          "confirmation_required",
          `Ask the user whether to run ${tool} with these arguments; if they agree, call it again with the same ` +
            `arguments and "confirm": true.`
        )
      })
    ),
    Effect.catch((error) =>
      Effect.succeed<Decision>({
        _tag: "Stop",
        result: result(
          `${tool} was not run: asking the user for confirmation failed (${error.message}).`,
          "confirmation_failed",
          `Tell the user that ${tool} was not run because the confirmation dialog failed; call it again only ` +
            `if they ask for it.`
        )
      })
    )
  )
}

/**
 * Whether configuration pre-approves a tool (its public name matches one of
 * the `preApproved` globs): such a tool runs without confirmation.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Confirmation from "effect-mcp-runtime/Confirmation"
 *
 * const trusted = Confirmation.isPreApproved("exec_run").pipe(
 *   Effect.provideService(Confirmation.Confirmation, { preApproved: ["exec_*"] })
 * )
 * // Effect<boolean>: true
 * ```
 *
 * @category gate
 * @since 0.4.0
 */
export const isPreApproved = (tool: string): Effect.Effect<boolean> =>
  Effect.map(Effect.service(Confirmation), (settings) => preApproved(settings, tool))

/**
 * What {@link decideMany} concludes: `Go` (every listed call may run) or
 * `Stop` with the result each of them answers with.
 *
 * **Example**
 *
 * ```ts
 * import type { ManyDecision } from "effect-mcp-runtime/Confirmation"
 *
 * const go: ManyDecision = { _tag: "Go" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type ManyDecision = { readonly _tag: "Go" } | { readonly _tag: "Stop"; readonly result: CallToolResult }

/**
 * Asks once for several calls that need confirmation (the destructive ops of
 * one `request`): the user sees every call, one per line, and agrees to all
 * or none. As for one call, a client that can ask its user is always asked;
 * without elicitation, `given` (the request's `confirm: true`) is the only way.
 * `subject` names what is asked about in the results (`request`).
 *
 * **Example**
 *
 * ```ts
 * import * as Confirmation from "effect-mcp-runtime/Confirmation"
 *
 * const decision = Confirmation.decideMany(
 *   "request",
 *   ['workspace_write(path="a.txt", content="hi")', 'workspace_edit(path="b.txt", oldText="x", newText="y")'],
 *   false
 * )
 * // Effect<ManyDecision, never, Client>
 * ```
 *
 * @category gate
 * @since 0.4.0
 */
export const decideMany = (
  subject: string,
  calls: ReadonlyArray<string>,
  given: boolean
): Effect.Effect<ManyDecision, never, Client> =>
  Effect.flatMap(Effect.service(Client), (client): Effect.Effect<ManyDecision, never, Client> => {
    if (!Elicitation.supportsForm(client) && given) return Effect.succeed({ _tag: "Go" })
    const message = manyMessage(calls)
    return Elicitation.form(message, Answer).pipe(
      Effect.map((answer): ManyDecision =>
        answer.action === "accept" && answer.content.confirm
          ? { _tag: "Go" }
          : {
              _tag: "Stop",
              result: result(
                `The user did not allow these calls to run (${answer.action === "accept" ? "not confirmed" : answer.action}).`,
                "not_confirmed",
                `Do not retry them unless the user asks for it again; tell them they were not run.`
              )
            }
      ),
      Effect.catchTag("ClientCapabilityMissing", () =>
        Effect.succeed<ManyDecision>({
          _tag: "Stop",
          result: result(
            `This call changes or deletes things and needs the user's confirmation, and this client cannot ask ` +
              `the user itself.`,
            "confirmation_required",
            `Ask the user whether to run these calls; if they agree, call ${subject} again with the same ops and ` +
              `"confirm": true.`
          )
        })
      ),
      Effect.catch((error) =>
        Effect.succeed<ManyDecision>({
          _tag: "Stop",
          result: result(
            `Not run: asking the user for confirmation failed (${error.message}).`,
            "confirmation_failed",
            `Tell the user these calls were not run because the confirmation dialog failed; call ${subject} ` +
              `again only if they ask for it.`
          )
        })
      )
    )
  })

// Every call on its own line, escaped as one call's arguments are, never cut without saying so.
const manyMessage = (calls: ReadonlyArray<string>): string => {
  const lines = calls.map(
    (call, i) => `${i + 1}. ${call.replace(invisible, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}`
  )
  const text = lines.join("\n")
  const shown =
    text.length <= maxShownArguments
      ? text
      : `${text.slice(0, maxShownArguments)}\n[… ${text.length - maxShownArguments} more characters not shown: decline unless you know what they are]`
  return `Allow ${calls.length === 1 ? "this call" : `these ${calls.length} calls`} to run? ${
    calls.length === 1 ? "It changes or deletes" : "They change or delete"
  } things.\n${shown}`
}
