/**
 * `completion/complete`: suggestions for a prompt argument's value while the
 * user types it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Kernel } from "../Kernel.ts"
import { InvalidParams, MethodNotFound } from "../McpError.ts"
import * as Method from "../Method.ts"
import { promptNamed } from "./promptsGet.ts"

/**
 * The params of `completion/complete`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { CompleteParams } from "effect-mcp-runtime/methods/completionComplete"
 *
 * Schema.decodeUnknownSync(CompleteParams)({
 *   ref: { type: "ref/prompt", name: "notes_summarize" },
 *   argument: { name: "topic", value: "ef" }
 * })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const CompleteParams = Schema.Struct({
  ref: Schema.Union([
    Schema.Struct({ type: Schema.Literal("ref/prompt"), name: Schema.String }),
    Schema.Struct({ type: Schema.Literal("ref/resource"), uri: Schema.String })
  ]),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  context: Schema.optionalKey(
    Schema.Struct({ arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)) })
  )
})

/**
 * Answers the completer's candidates for a prompt argument (at most 100,
 * with `total` and `hasMore` when there are more), or no values for an
 * argument without a completer. An unknown prompt is −32602; so is a
 * resource reference, as no resource template is registered.
 *
 * **Example**
 *
 * ```ts
 * import { completionComplete } from "effect-mcp-runtime/methods/completionComplete"
 *
 * completionComplete.decode({ ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "" } })._tag
 * // => "Success"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const completionComplete = Method.request("completion/complete", {
  params: CompleteParams,
  handler: (params) =>
    Effect.flatMap(Effect.service(Kernel), (kernel) => {
      // Only a server with completers offers completions.
      if (!kernel.completes()) return Effect.fail(new MethodNotFound({ method: "completion/complete" }))
      const ref = params.ref
      if (ref.type === "ref/resource") {
        const template = kernel.template(ref.uri)
        if (template === undefined) {
          return Effect.fail(
            new InvalidParams({
              message: `No resource template ${ref.uri}: pass a uriTemplate exactly as resources/templates/list gives it.`,
              data: { uri: ref.uri }
            })
          )
        }
        return Effect.map(
          template.complete(params.argument.name, params.argument.value, params.context?.arguments ?? {}),
          (completion) => ({ completion })
        )
      }
      return Effect.map(
        Effect.flatMap(promptNamed(ref.name, "completion/complete"), (prompt) =>
          prompt.complete(params.argument.name, params.argument.value, params.context?.arguments ?? {})
        ),
        (completion) => ({ completion })
      )
    })
})
