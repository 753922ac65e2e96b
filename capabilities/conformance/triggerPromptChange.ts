/**
 * `test_trigger_prompt_change`: changes the prompt list, so that subscribers
 * hear of it.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { Kernel } from "../../src/Kernel.ts"
import * as Prompt from "../../src/Prompt.ts"
import * as Tool from "../../src/Tool.ts"

const probe = Prompt.make("conformance_prompt_probe", {
  description: "Registered and removed by test_trigger_prompt_change"
}).pipe(Prompt.handle(() => Effect.succeed("probe")))

/**
 * Registers the dynamic prompt `app_conformance_prompt_probe`, or removes it when it
 * is there: each call changes the prompt list, and `subscriptions/listen`
 * streams that asked for `promptsListChanged` get
 * `notifications/prompts/list_changed`.
 *
 * **Example**
 *
 * ```ts
 * import { triggerPromptChange } from "effect-mcp-runtime/capabilities/conformance/triggerPromptChange"
 *
 * triggerPromptChange.tool.name // => "trigger_prompt_change"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const triggerPromptChange = Tool.make("trigger_prompt_change", {
  description: "Adds or removes the prompt app_conformance_prompt_probe, changing the prompt list",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.flatMap(Effect.service(Kernel), (kernel) =>
      kernel.prompt("app_conformance_prompt_probe") === undefined
        ? Effect.as(Effect.orDie(kernel.registerDynamicPrompt(probe)), "Added app_conformance_prompt_probe")
        : Effect.as(kernel.unregisterDynamic("app_conformance_prompt_probe"), "Removed app_conformance_prompt_probe")
    )
  )
)
