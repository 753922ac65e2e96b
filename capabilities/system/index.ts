/**
 * The `system` capability: small, dependency-free tools every deployment
 * can offer — `system_info`, `system_time`, `system_echo`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Capability from "../../src/Capability.ts"
import { echo } from "./echo.ts"
import { info } from "./info.ts"
import { time } from "./time.ts"

/**
 * The capability layer.
 *
 * **Example**
 *
 * ```ts
 * import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
 * // provide it, with a Kernel, to McpServer.serve()
 * ```
 *
 * @category capabilities
 * @since 0.1.0
 */
export const SystemCapability = Capability.make(
  {
    id: "system",
    description: "Server information, the current time, and an echo for connectivity checks",
    version: "0.1.0"
  },
  Effect.succeed({ tools: [info, time, echo] })
)
