/**
 * `prompts/get`: one prompt's messages for the given arguments.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Kernel } from "../Kernel.ts"
import { InvalidParams, MethodNotFound } from "../McpError.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * The params of `prompts/get`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { GetPromptParams } from "effect-mcp-runtime/methods/promptsGet"
 *
 * Schema.decodeUnknownSync(GetPromptParams)({ name: "notes_summary", arguments: { topic: "effect" } })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const GetPromptParams = Schema.Struct({
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})

/**
 * Decodes the arguments with the prompt's Schema and runs its handler. An
 * unknown prompt, a missing or invalid argument, and a typed failure of the
 * handler are −32602; a defect is −32603 with a correlation id.
 *
 * **Example**
 *
 * ```ts
 * import { promptsGet } from "effect-mcp-runtime/methods/promptsGet"
 *
 * promptsGet.decode({ name: "notes_summary" })._tag // => "Success"
 * promptsGet.decode({ name: "notes_summary", arguments: { n: 3 } })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const promptsGet = Method.request("prompts/get", {
  params: GetPromptParams,
  handler: (params) =>
    Effect.flatMap(Effect.service(Kernel), (kernel) => {
      // Only a server with prompts offers them.
      if (kernel.promptCount() === 0) return Effect.fail(new MethodNotFound({ method: "prompts/get" }))
      const prompt = kernel.prompt(params.name)
      if (prompt === undefined) {
        return Effect.fail(
          new InvalidParams({
            message: `Unknown prompt: ${params.name}. Call prompts/list to see the available prompts.`,
            data: { prompt: params.name }
          })
        )
      }
      return Effect.flatMap(Effect.service(RequestContext), (request) => {
        request.record.tool = prompt.name
        request.record.capability = prompt.capability
        return prompt.get(params.arguments, request.protocolVersion)
      })
    })
})
