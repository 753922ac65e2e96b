/**
 * `resources/list`: one page of the static resources, paginated, each entry serialized once
 * per protocol era; then the resources of the listing templates (`Resource.list`), one
 * lister page at a time.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Gate } from "../Gate.ts"
import type { CompiledTemplate, ListedPage } from "../internal/compileResource.ts"
import { guard } from "../internal/guard.ts"
import { Kernel } from "../Kernel.ts"
import { type McpError, MethodNotFound } from "../McpError.ts"
import { PaginatedParams } from "../McpSchema.ts"
import * as Modern from "../internal/modern.ts"
import * as Method from "../Method.ts"
import { RequestContext } from "../RequestContext.ts"

// A lister runs as a read of its template does: the gate first (a template the
// gate does not let the caller read is not listed either: it is skipped), then
// the execution policy (the template's slot, the timeout).
const guardListing = (template: CompiledTemplate, listing: Effect.Effect<ListedPage, McpError, RequestContext>) =>
  Effect.flatMap(Effect.context<never>(), (context) => {
    const gate = Context.getOption(context as Context.Context<Gate>, Gate)
    const run = guard(template, "resources/read", `resources/list of ${template.name}`, listing)
    if (gate._tag === "None") return run
    const caller = Context.getOption(context as Context.Context<RequestContext>, RequestContext)
    const principal = caller._tag === "Some" ? caller.value.principal?.subject : undefined
    return gate.value
      .check(
        principal === undefined
          ? { method: "resources/read", name: template.name }
          : { method: "resources/read", name: template.name, principal }
      )
      .pipe(
        Effect.matchEffect({
          onFailure: () => Effect.succeed(undefined),
          onSuccess: () => run
        })
      )
  })

/**
 * Answers one page of `resources/list`: the static resources first, then each
 * listing template's resources, a page of its lister per response. An unknown
 * cursor is −32602, a lister that fails is −32603, and a server without
 * resources answers −32601.
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
    // Only a server with resources (static ones or templates) offers them.
    if (kernel.resourceCount() === 0) return yield* new MethodNotFound({ method: "resources/list" })
    const request = yield* RequestContext
    const page = yield* kernel.resourcesPage(request.protocolVersion, params.cursor, guardListing)
    // 2026-07-28: with resultType and the caching hints.
    return yield* Modern.listPage(page)
  })
})
