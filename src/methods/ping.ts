/**
 * `ping`: liveness, allowed at any time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Method from "../Method.ts"

/**
 * Answers `{}`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { ping } from "effect-mcp-runtime/methods/ping"
 *
 * Effect.runSync(ping.handler({})) // => {}
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const ping = Method.request("ping", {
  params: Schema.Struct({}),
  beforeInitialize: true,
  // 2026-07-28 has no ping.
  revisions: "legacy",
  handler: () => Effect.succeed({})
})
