/**
 * `greet` (the tasks scenarios' synchronous tool; capability `tasks`, published
 * under the suite's name through the kernel's alias for `tasks_greet`).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"

/**
 * Answers `Hello, <name>!`, always at once: it never runs as a task, even for
 * a client with the tasks extension.
 *
 * **Example**
 *
 * ```ts
 * import { greet } from "effect-mcp-runtime/capabilities/conformance/greet"
 *
 * greet.tool.name // => "greet"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const greet = Tool.make("greet", {
  description: "Greets someone (never a task)",
  input: Schema.Struct({ name: Schema.String.annotate({ description: "Who to greet" }) }),
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle(({ name }) => Effect.succeed(`Hello, ${name}!`)))
