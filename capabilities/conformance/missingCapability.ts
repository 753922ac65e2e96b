/**
 * `test_missing_capability` (2026-07-28): a tool that cannot run without the
 * client's model.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Sampling from "../../src/Sampling.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the client's model for a word and answers with it. It does not handle
 * `ClientCapabilityMissing`: a 2026-07-28 client that did not declare
 * `sampling` gets −32021 (MissingRequiredClientCapability) with
 * `requiredCapabilities: { sampling: {} }`, an earlier one a tool error.
 *
 * **Example**
 *
 * ```ts
 * import { missingCapability } from "effect-mcp-runtime/capabilities/conformance/missingCapability"
 *
 * missingCapability.tool.name // => "missing_capability"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const missingCapability = Tool.make("missing_capability", {
  description: "Needs the client's sampling capability: a client without it gets MissingRequiredClientCapability",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Effect.map(
      Sampling.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "Say one word." } }],
        maxTokens: 10
      }),
      (reply) => `The model said: ${reply.content.type === "text" ? reply.content.text : reply.content.type}`
    )
  )
)
