/**
 * `test_multiple_content_types`: text, image and resource blocks in one result.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"
import { png } from "./media.ts"

/**
 * Answers three blocks: a text, a PNG image and an embedded JSON resource.
 *
 * **Example**
 *
 * ```ts
 * import { multipleContentTypes } from "effect-mcp-runtime/capabilities/conformance/multipleContentTypes"
 *
 * multipleContentTypes.tool.name // => "multiple_content_types"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const multipleContentTypes = Tool.make("multiple_content_types", {
  description: "Tests response with multiple content types (text, image, resource)",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.succeed([
      Tool.text("Multiple content types test:"),
      Tool.image(png, "image/png"),
      Tool.resource({
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: JSON.stringify({ test: "data", value: 123 })
      })
    ])
  )
)
