/**
 * `resources/list`: one page of the static resources, paginated, each entry serialized once
 * per protocol era.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { MethodNotFound } from "../McpError.ts"
import { PaginatedParams } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * Answers one page of the static resources; an unknown cursor is −32602, and a server
 * without resources answers −32601.
 *
 * **Example**
 *
 * ```ts
 * import { resourcesList } from "effect-mcp-runtime/methods/resourcesList"
 *
 * resourcesList.decode({})._tag // => "Success"
 * resourcesList.decode({ cursor: 1 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesList = Method.request("resources/list", {
  params: PaginatedParams,
  handler: Effect.fnUntraced(function* (params) {
    const kernel = yield* Kernel
    // Only a server with resources offers them.
    if (kernel.resourceCount() === 0) return yield* new MethodNotFound({ method: "resources/list" })
    const request = yield* RequestContext
    const page = yield* kernel.resourcesPage(request.protocolVersion, params.cursor)
    return new Method.RawJson(page)
  })
})
