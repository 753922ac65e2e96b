/**
 * `completion/complete` for one prompt or resource template: runs the
 * completer of an argument (a prompt argument, a template variable) in its
 * capability's context and shapes the answer.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { InternalError, InvalidParams, type McpError } from "../McpError.ts"
import { RequestContext } from "../RequestContext.ts"

/** The `completion` of a `completion/complete` result. */
export interface Completion {
  readonly values: ReadonlyArray<string>
  readonly total?: number
  readonly hasMore?: boolean
}

/** The most values one completion result may carry. */
export const maxCompletionValues = 100

/** A completer, as `Prompt.completions` and `Resource.completions` take them. */
export type Completer = (
  value: string,
  context: { readonly arguments: { readonly [name: string]: string } }
) => Effect.Effect<ReadonlyArray<string>, never, any>

/** Completes an argument's value: candidates (at most 100, with the total when more). */
export type Complete = (
  argument: string,
  value: string,
  context: { readonly [name: string]: string }
) => Effect.Effect<Completion, McpError, RequestContext>

/**
 * Builds the `complete` of one prompt or template. `what` names it in errors
 * and logs ("prompt notes_brief", "resource template notes_note"), `kind` is
 * what its arguments are called, `list` the method that lists them.
 */
export const makeComplete = (options: {
  readonly what: string
  readonly kind: "argument" | "variable"
  readonly list: string
  readonly names: ReadonlySet<string>
  readonly completers: { readonly [name: string]: Completer }
  readonly overlay: (context: Context.Context<any>) => Context.Context<any>
  readonly data: Record<string, unknown>
}): Complete => {
  const { completers, kind, names, overlay, what } = options
  return (argument, value, context) => {
    if (!names.has(argument)) {
      return Effect.fail(
        new InvalidParams({
          message: `The ${what} has no ${kind} ${JSON.stringify(argument)}. Call ${options.list} to see its ${kind}s.`,
          data: { ...options.data, argument }
        })
      )
    }
    const completer = Object.hasOwn(completers, argument) ? completers[argument] : undefined
    // An argument without a completer has no suggestions.
    if (completer === undefined) return Effect.succeed({ values: [] })
    return Effect.suspend(() => completer(value, { arguments: context })).pipe(
      Effect.updateContext(overlay),
      Effect.map((values): Completion => {
        const strings = values.filter((v) => typeof v === "string")
        return strings.length <= maxCompletionValues
          ? { values: strings }
          : { values: strings.slice(0, maxCompletionValues), total: strings.length, hasMore: true }
      }),
      Effect.catchDefect((defect) =>
        Effect.flatMap(Effect.service(RequestContext), (request) =>
          Effect.andThen(
            Effect.logError(`completion of the ${what} failed with a defect`, {
              ...options.data,
              argument,
              correlation_id: request.correlationId,
              cause: Cause.pretty(Cause.die(defect))
            }),
            Effect.fail(new InternalError({ correlationId: request.correlationId }))
          )
        )
      )
    ) as Effect.Effect<Completion, McpError, RequestContext>
  }
}
