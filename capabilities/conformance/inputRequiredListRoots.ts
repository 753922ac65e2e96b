/**
 * `test_input_required_result_list_roots` (2026-07-28): asks the client's roots.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Client from "../../src/Client.ts"
import * as Roots from "../../src/Roots.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the client for its roots (input key `client_roots`) and lists them.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredListRoots } from "effect-mcp-runtime/capabilities/conformance/inputRequiredListRoots"
 *
 * inputRequiredListRoots.tool.name // => "input_required_result_list_roots"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredListRoots = Tool.make("input_required_result_list_roots", {
  description: "Asks the client for its roots (an input-required round under 2026-07-28) and lists them",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Roots.list.pipe(
      Client.inputKey("client_roots"),
      Effect.map((roots) => `Roots: ${roots.map((root) => root.uri).join(", ") || "(none)"}`)
    )
  )
)
