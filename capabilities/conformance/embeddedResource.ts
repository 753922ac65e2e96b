/**
 * `test_embedded_resource`: one embedded text resource.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"

/**
 * Answers an embedded resource `test://embedded-resource` with text contents.
 *
 * **Example**
 *
 * ```ts
 * import { embeddedResource } from "effect-mcp-runtime/capabilities/conformance/embeddedResource"
 *
 * embeddedResource.tool.name // => "embedded_resource"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const embeddedResource = Tool.make("embedded_resource", {
  description: "Tests embedded resource content response",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.succeed(
      Tool.resource({
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content."
      })
    )
  )
)
