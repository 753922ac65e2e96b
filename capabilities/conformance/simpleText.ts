/**
 * `test_simple_text`: one text block.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"

/**
 * Answers one fixed text block; takes no arguments (a call may omit them).
 *
 * **Example**
 *
 * ```ts
 * import { simpleText } from "effect-mcp-runtime/capabilities/conformance/simpleText"
 *
 * simpleText.tool.name // => "simple_text"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const simpleText = Tool.make("simple_text", {
  description: "Tests simple text content response",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle(() => Effect.succeed(Tool.text("This is a simple text response for testing."))))
