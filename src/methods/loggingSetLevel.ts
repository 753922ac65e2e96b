/**
 * `logging/setLevel`: the client chooses the lowest level of the log
 * messages it wants (`notifications/message`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { SetLevelParams } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import { Session } from "../Session.ts"

/**
 * Records the level for the session and answers `{}`. An unknown level is
 * −32602, naming the levels that exist.
 *
 * **Example**
 *
 * ```ts
 * import { loggingSetLevel } from "effect-mcp-runtime/methods/loggingSetLevel"
 *
 * loggingSetLevel.decode({ level: "warning" })._tag // => "Success"
 * loggingSetLevel.decode({ level: "verbose" })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const loggingSetLevel = Method.request("logging/setLevel", {
  params: SetLevelParams,
  // 2026-07-28 takes the level per request, in `_meta`.
  revisions: "legacy",
  handler: (params) =>
    Effect.map(Effect.service(Session), (session) => {
      session.state.logLevel = params.level
      return {}
    })
})
