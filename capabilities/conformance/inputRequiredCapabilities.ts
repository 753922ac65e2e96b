/**
 * `test_input_required_result_capabilities` (2026-07-28): asks only what the
 * client can answer.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Client from "../../src/Client.ts"
import * as Elicitation from "../../src/Elicitation.ts"
import * as Sampling from "../../src/Sampling.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the user (when the client declared elicitation) and the client's
 * model (when it declared sampling), concurrently: a client with sampling
 * only gets a sampling request and nothing else.
 *
 * **Example**
 *
 * ```ts
 * import { inputRequiredCapabilities } from "effect-mcp-runtime/capabilities/conformance/inputRequiredCapabilities"
 *
 * inputRequiredCapabilities.tool.name // => "input_required_result_capabilities"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const inputRequiredCapabilities = Tool.make("input_required_result_capabilities", {
  description: "Asks the user and the client's model, each only if the client declared it",
  annotations: { readOnlyHint: true, openWorldHint: true }
}).pipe(
  Tool.handle(() =>
    Effect.flatMap(Effect.service(Client.Client), (client) => {
      const canAsk = Elicitation.supportsForm(client)
      const canSample = client.capabilities().sampling !== undefined
      return Effect.all(
        [
          canAsk
            ? Effect.map(Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })), (answer) =>
                answer.action === "accept" ? `name: ${answer.content.name}` : `name: ${answer.action}`
              )
            : Effect.succeed("name: (the client cannot ask its user)"),
          canSample
            ? Effect.map(
                Sampling.createMessage({
                  messages: [{ role: "user", content: { type: "text", text: "Say hello." } }],
                  maxTokens: 20
                }),
                (reply) => `model: ${reply.content.type === "text" ? reply.content.text : reply.content.type}`
              )
            : Effect.succeed("model: (the client has no model for the server)")
        ],
        { concurrency: "unbounded" }
      ).pipe(Effect.map((lines) => lines.join("\n")))
    })
  )
)
