/**
 * `system_echo`: returns its input. A connectivity check for clients, and the
 * tool the benchmark drives.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"

/**
 * The `echo` tool, published as `system_echo`: returns its `text` unchanged.
 *
 * It is not re-exported by the package; it is reached through `SystemCapability`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { echo } from "./capabilities/system/echo.ts"
 *
 * Effect.runSync(echo.handler({ text: "hi" })) // => { text: "hi" }
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const echo = Tool.make("echo", {
  title: "Echo",
  description:
    "Returns the given text unchanged. Use it to check that the server is reachable and responsive; " +
    "it has no side effects.",
  input: Schema.Struct({
    text: Schema.String.annotate({ description: "The text to send back." })
  }),
  output: Schema.Struct({
    text: Schema.String.annotate({ description: "The same text." })
  }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(Tool.handle(({ text }) => Effect.succeed({ text })))
