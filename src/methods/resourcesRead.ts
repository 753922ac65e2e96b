/**
 * `resources/read`: the contents of a resource, by URI.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { CompiledResource, CompiledTemplate } from "../internal/compileResource.ts"
import { guard } from "../internal/guard.ts"
import { Kernel } from "../Kernel.ts"
import { InvalidParams, MethodNotFound, ResourceNotFound } from "../McpError.ts"
import * as Method from "../Method.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"

/**
 * The params of `resources/read` (and of `resources/subscribe` and
 * `resources/unsubscribe`).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { UriParams } from "effect-mcp-runtime/methods/resourcesRead"
 *
 * Schema.decodeUnknownSync(UriParams)({ uri: "notes://readme" }) // => { uri: "notes://readme" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const UriParams = Schema.Struct({ uri: Schema.String })

/**
 * Finds the resource a URI names, or fails: −32601 on a server without
 * resources, and for a URI nothing serves −32002 (resource not found), or
 * under 2026-07-28 −32602 with `data.uri` (SEP-2164). Records the resource's
 * name on the request (for logs and spans).
 *
 * **Example**
 *
 * ```ts
 * import { resourceAt } from "effect-mcp-runtime/methods/resourcesRead"
 *
 * const found = resourceAt("notes://readme", "resources/read")
 * ```
 *
 * @category lookups
 * @since 0.1.0
 */
export const resourceAt = (
  uri: string,
  method: string
): Effect.Effect<
  { readonly resource: CompiledResource | CompiledTemplate; readonly params: unknown },
  MethodNotFound | ResourceNotFound | InvalidParams,
  Kernel | RequestContext
> =>
  Effect.flatMap(
    Effect.context<Kernel | RequestContext>(),
    (
      context
    ): Effect.Effect<
      { readonly resource: CompiledResource | CompiledTemplate; readonly params: unknown },
      MethodNotFound | ResourceNotFound | InvalidParams
    > => {
      const kernel = Context.get(context, Kernel)
      if (kernel.resourceCount() === 0) return Effect.fail(new MethodNotFound({ method }))
      const found = kernel.resolve(uri)
      const request = Context.get(context, RequestContext)
      if (found === undefined) {
        const message =
          `Resource not found: ${uri}. Call resources/list for the resources and ` +
          `resources/templates/list for the URI templates this server serves.`
        return Effect.fail(
          ProtocolVersion.isModern(request.protocolVersion)
            ? new InvalidParams({ message, data: { uri } })
            : new ResourceNotFound({ uri, message })
        )
      }
      const record = request.record
      record.tool = found.resource.name
      record.capability = found.resource.capability
      return Effect.succeed(found)
    }
  )

/**
 * Reads a resource: a static one by its exact URI, else through the first
 * template that matches the URI and whose parameters decode. Runs under the
 * execution policy (slots, timeout), like a tool call.
 *
 * **Example**
 *
 * ```ts
 * import { resourcesRead } from "effect-mcp-runtime/methods/resourcesRead"
 *
 * resourcesRead.decode({ uri: "notes://readme" })._tag // => "Success"
 * resourcesRead.decode({})._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesRead = Method.request("resources/read", {
  params: UriParams,
  inputRequests: true,
  routingName: (params) => (typeof params.uri === "string" ? params.uri : undefined),
  handler: (params) =>
    Effect.flatMap(resourceAt(params.uri, "resources/read"), ({ params: decoded, resource }) =>
      Effect.flatMap(
        guard(resource, "resources/read", `resources/read of ${params.uri}`, resource.read(params.uri, decoded)).pipe(
          // A resource that says its URI names nothing (its handler's NotFound): −32602 under 2026-07-28.
          Effect.catchTag("ResourceNotFound", (error) =>
            Effect.flatMap(Effect.service(RequestContext), (request) =>
              Effect.fail(
                ProtocolVersion.isModern(request.protocolVersion)
                  ? new InvalidParams({ message: error.message, data: { uri: error.uri } })
                  : error
              )
            )
          )
        ),
        (result) =>
          // 2026-07-28: a read is cacheable; its contents may depend on who asks, so privately.
          Effect.map(Effect.service(RequestContext), (request) =>
            ProtocolVersion.isModern(request.protocolVersion) ? { ...result, ttlMs: 0, cacheScope: "private" } : result
          )
      )
    )
})
