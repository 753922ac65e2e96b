/**
 * `test_trigger_tool_change`: changes the tool list, so that subscribers hear
 * of it.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../../src/Kernel.ts"
import * as Tool from "../../src/Tool.ts"

const probe = Tool.make("conformance_tool_probe", {
  description: "Registered and removed by test_trigger_tool_change",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle(() => Effect.succeed("probe")))

/**
 * Registers the dynamic tool `app_conformance_tool_probe`, or removes it when it is
 * there: each call changes the tool list, and `subscriptions/listen` streams
 * that asked for `toolsListChanged` (and legacy sessions told `listChanged`)
 * get `notifications/tools/list_changed`.
 *
 * **Example**
 *
 * ```ts
 * import { triggerToolChange } from "effect-mcp-runtime/capabilities/conformance/triggerToolChange"
 *
 * triggerToolChange.tool.name // => "trigger_tool_change"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const triggerToolChange = Tool.make("trigger_tool_change", {
  description: "Adds or removes the tool app_conformance_tool_probe, changing the tool list",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.flatMap(Effect.service(Kernel), (kernel) =>
      kernel.tool("app_conformance_tool_probe") === undefined
        ? Effect.as(Effect.orDie(kernel.registerDynamic(probe)), "Added app_conformance_tool_probe")
        : Effect.as(kernel.unregisterDynamic("app_conformance_tool_probe"), "Removed app_conformance_tool_probe")
    )
  )
)
