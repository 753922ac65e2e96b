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
 * resources, and for a URI nothing serves −32002 (resource not found;
 * `resources/read` answers it as −32602 with `data.uri` under 2026-07-28,
 * SEP-2164). Records the resource's name on the request (for logs and
 * spans).
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
      if (found === undefined) {
        return Effect.fail(
          new ResourceNotFound({
            uri,
            message:
              `Resource not found: ${uri}. Call resources/list for the resources and ` +
              `resources/templates/list for the URI templates this server serves.`
          })
        )
      }
      const record = Context.get(context, RequestContext).record
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
    Effect.flatMap(Effect.service(RequestContext), (request) => {
      const modern = ProtocolVersion.isModern(request.protocolVersion)
      const read = Effect.flatMap(resourceAt(params.uri, "resources/read"), ({ params: decoded, resource }) =>
        guard(resource, "resources/read", `resources/read of ${params.uri}`, resource.read(params.uri, decoded))
      )
      return !modern
        ? read
        : read.pipe(
            // 2026-07-28: a URI nothing serves (or whose handler says NotFound) is −32602 (SEP-2164), and a
            // read is not to be reused (ttlMs 0): its contents may change, and depend on who asks (private).
            Effect.map((result) => ({ ...result, ttlMs: 0, cacheScope: "private" as const })),
            Effect.catchTag("ResourceNotFound", (error) =>
              Effect.fail(new InvalidParams({ message: error.message, data: { uri: error.uri } }))
            )
          )
    })
})
