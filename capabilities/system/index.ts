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
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
 *
 * // the capability registers with the same Kernel the server reads
 * const serveSystem = McpServer.serve().pipe(Effect.provide(SystemCapability.pipe(Layer.provideMerge(Kernel.layer()))))
 * ```
 *
 * @category layers
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

export {
  /**
   * `system_echo`.
   *
   * @since 0.1.0
   */
  echo,
  /**
   * `system_info`.
   *
   * @since 0.1.0
   */
  info,
  /**
   * `system_time`.
   *
   * @since 0.1.0
   */
  time
}
