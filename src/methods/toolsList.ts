/**
 * `tools/list`: the registered tools, one cached page at a time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { PaginatedParams } from "../McpSchema.ts"
import * as Modern from "../internal/modern.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * Serves a page of tool definitions shaped for the session's protocol
 * revision. Pages are serialized once and reused until the registry changes.
 *
 * **Example**
 *
 * ```ts
 * import { toolsList } from "effect-mcp-runtime/methods/toolsList"
 *
 * toolsList.decode({ cursor: "bzox" })._tag // => "Success"
 * toolsList.decode({ cursor: 1 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const toolsList = Method.request("tools/list", {
  params: PaginatedParams,
  handler: Effect.fnUntraced(function* (params) {
    const kernel = yield* Kernel
    const request = yield* RequestContext
    const page = yield* kernel.toolsPage(request.protocolVersion, params.cursor)
    // 2026-07-28: with resultType and the caching hints.
    return yield* Modern.listPage(page)
  })
})
