/**
 * The result fields of MCP 2026-07-28 for methods that build their result as
 * serialized JSON (the list pages, `tools/call`): `resultType`, the caching
 * hints of cacheable results, and the server's identity in `_meta`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { RawJson } from "../Method.ts"
import type { Implementation } from "../McpSchema.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import { ServerConfig, type ServerConfigShape } from "../ServerConfig.ts"
import { metaKey } from "./meta.ts"

/** The `_meta` of every 2026-07-28 result: the server's identity. */
export const serverInfoOf = (config: ServerConfigShape): Implementation => {
  let info = infos.get(config)
  if (info === undefined) {
    info =
      config.title === undefined
        ? { name: config.name, version: config.version }
        : { name: config.name, version: config.version, title: config.title }
    infos.set(config, info)
  }
  return info
}
// One object per configuration: callers may cache what they derive from it.
const infos = new WeakMap<ServerConfigShape, Implementation>()

/** Who may keep a cached result: anyone (`public`), or the same authorization context (`private`). */
export type CacheScope = "public" | "private"

/** `"_meta":{"io.modelcontextprotocol/serverInfo":…}`, serialized once per server identity. */
export const serverInfoMember = (serverInfo: Implementation): string => {
  let member = members.get(serverInfo)
  if (member === undefined) {
    member = `"_meta":${JSON.stringify({ [metaKey.serverInfo]: serverInfo })}`
    members.set(serverInfo, member)
  }
  return member
}
const members = new WeakMap<Implementation, string>()
const metaMember = (config: ServerConfigShape): string => serverInfoMember(serverInfoOf(config))

/**
 * A serialized result (an object's JSON) as the request's revision wants it:
 * as it is for the legacy revisions; with `resultType`, the caching hints
 * (when given) and the server's identity in `_meta` for 2026-07-28. The JSON
 * must not have a top-level `_meta` of its own.
 */
export const raw = (
  json: string,
  cache?: { readonly ttlMs: number; readonly scope: CacheScope } | undefined
): Effect.Effect<RawJson, never, RequestContext> =>
  Effect.flatMap(Effect.service(RequestContext), (request) => {
    if (!ProtocolVersion.isModern(request.protocolVersion)) return Effect.succeed(new RawJson(json))
    return Effect.map(Effect.service(ServerConfig), (config) => {
      const hints =
        cache === undefined ? "" : `"ttlMs":${Math.max(0, Math.round(cache.ttlMs))},"cacheScope":"${cache.scope}",`
      const head = `{"resultType":"complete",${hints}${metaMember(config)}`
      return new RawJson(json === "{}" ? `${head}}` : `${head},${json.slice(1)}`)
    })
  })

/** A list page (`tools/list` …): public, for the configured `listTtlMs`. */
export const listPage = (json: string): Effect.Effect<RawJson, never, RequestContext> =>
  Effect.flatMap(Effect.service(ServerConfig), (config) => raw(json, { ttlMs: config.listTtlMs, scope: "public" }))
