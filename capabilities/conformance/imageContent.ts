/**
 * `test_image_content`: one image block.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"
import { png } from "./media.ts"

/**
 * Answers a 1×1 PNG image block.
 *
 * **Example**
 *
 * ```ts
 * import { imageContent } from "effect-mcp-runtime/capabilities/conformance/imageContent"
 *
 * imageContent.tool.name // => "image_content"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const imageContent = Tool.make("image_content", {
  description: "Tests image content response",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle(() => Effect.succeed(Tool.image(png, "image/png"))))
