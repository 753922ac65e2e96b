/**
 * `resources/templates/list`: one page of the resource templates, paginated, each entry serialized once
 * per protocol era.
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
 * Answers one page of the resource templates; an unknown cursor is −32602, and a server
 * without resources answers −32601.
 *
 * **Example**
 *
 * ```ts
 * import { resourcesTemplatesList } from "effect-mcp-runtime/methods/resourcesTemplatesList"
 *
 * resourcesTemplatesList.decode({})._tag // => "Success"
 * resourcesTemplatesList.decode({ cursor: 1 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesTemplatesList = Method.request("resources/templates/list", {
  params: PaginatedParams,
  handler: Effect.fnUntraced(function* (params) {
    const kernel = yield* Kernel
    // Only a server with resources offers them.
    if (kernel.resourceCount() === 0) return yield* new MethodNotFound({ method: "resources/templates/list" })
    const request = yield* RequestContext
    const page = yield* kernel.templatesPage(request.protocolVersion, params.cursor)
    // 2026-07-28: with resultType and the caching hints.
    return yield* Modern.listPage(page)
  })
})
