/**
 * `server/discover` (2026-07-28): the protocol versions, capabilities,
 * instructions and identity of the server, in one request any client may
 * send first, or never.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Modern from "../internal/modern.ts"
import * as Tasks from "../internal/tasks.ts"
import { Kernel } from "../Kernel.ts"
import type { ServerCapabilities } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { ServerConfig } from "../ServerConfig.ts"

/**
 * The capabilities the server has now, as the given revision names them
 * (default: 2026-07-28; `initialize` asks for the legacy ones): what is
 * registered (tools, prompts, resources, completions from 2025-03-26 on),
 * `logging`, and under 2026-07-28 the extensions of the registered
 * capabilities and the tasks extension when a tool may run as a task. Under
 * 2026-07-28, `listChanged` and `subscribe` are served on
 * `subscriptions/listen` streams.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import { capabilities } from "effect-mcp-runtime/methods/serverDiscover"
 *
 * const advertised = Effect.map(Effect.service(Kernel.Kernel), (kernel) => capabilities(kernel))
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const capabilities = (
  kernel: Kernel["Service"],
  version: ProtocolVersion.ProtocolVersion = ProtocolVersion.latest
): ServerCapabilities => {
  // Extensions are a 2026-07-28 thing (server/discover); `initialize` answers the legacy revisions.
  const extensions = !ProtocolVersion.isModern(version)
    ? []
    : [...kernel.extensions(), ...(kernel.supportsTasks() ? [{ id: Tasks.extensionId, settings: {} }] : [])]
  return {
    // The completions capability exists from 2025-03-26 on (completion/complete is answered in every revision).
    ...(kernel.completes() && ProtocolVersion.hasToolAnnotations(version) ? { completions: {} } : {}),
    logging: {},
    ...(kernel.promptCount() > 0 ? { prompts: { listChanged: true } } : {}),
    ...(kernel.resourceCount() > 0 ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(kernel.toolCount() > 0 ? { tools: { listChanged: true } } : {}),
    ...(extensions.length === 0
      ? {}
      : { extensions: Object.fromEntries(extensions.map(({ id, settings }) => [id, settings])) })
  }
}

/**
 * Answers `server/discover`: every supported protocol version (the legacy
 * ones are reached through `initialize`), the capabilities, the
 * instructions, with the caching hints of a list (`listTtlMs`, public). The
 * request carries only `_meta`.
 *
 * **Example**
 *
 * ```ts
 * import { serverDiscover } from "effect-mcp-runtime/methods/serverDiscover"
 *
 * serverDiscover.decode({})._tag // => "Success"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const serverDiscover = Method.request("server/discover", {
  params: Schema.Struct({}),
  revisions: "modern",
  handler: () =>
    Effect.flatMap(Effect.service(Kernel), (kernel) =>
      Effect.flatMap(Effect.service(ServerConfig), (config) =>
        Modern.listPage(
          JSON.stringify({
            supportedVersions: ProtocolVersion.supported,
            capabilities: capabilities(kernel),
            ...(config.instructions === undefined ? {} : { instructions: config.instructions })
          })
        )
      )
    )
})
