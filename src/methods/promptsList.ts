/**
 * `prompts/list`: the registered prompts, paginated, each entry serialized
 * once per protocol era.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { MethodNotFound } from "../McpError.ts"
import { PaginatedParams } from "../McpSchema.ts"
import * as Modern from "../internal/modern.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * Answers one page of prompts; an unknown cursor is −32602.
 *
 * **Example**
 *
 * ```ts
 * import { promptsList } from "effect-mcp-runtime/methods/promptsList"
 *
 * promptsList.decode({})._tag // => "Success"
 * promptsList.decode({ cursor: 1 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const promptsList = Method.request("prompts/list", {
  params: PaginatedParams,
  handler: Effect.fnUntraced(function* (params) {
    const kernel = yield* Kernel
    // Only a server with prompts offers them.
    if (kernel.promptCount() === 0) return yield* new MethodNotFound({ method: "prompts/list" })
    const request = yield* RequestContext
    const page = yield* kernel.promptsPage(request.protocolVersion, params.cursor)
    // 2026-07-28: with resultType and the caching hints.
    return yield* Modern.listPage(page)
  })
})
