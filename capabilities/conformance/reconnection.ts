/**
 * `test_reconnection`: closes its SSE stream mid-call (SSE polling).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { RequestContext } from "../../src/RequestContext.ts"
import { Session } from "../../src/Session.ts"
import * as Tool from "../../src/Tool.ts"

/**
 * Asks the transport to close the connection carrying this call
 * (`Session.detach`), waits 100 ms, then answers: over Streamable HTTP the
 * client must reconnect with `Last-Event-ID` to get the result. Over stdio it
 * simply answers.
 *
 * **Example**
 *
 * ```ts
 * import { reconnection } from "effect-mcp-runtime/capabilities/conformance/reconnection"
 *
 * reconnection.tool.name // => "reconnection"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const reconnection = Tool.make("reconnection", {
  description:
    "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call " +
    "and send the result after client reconnects.",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      const request = yield* RequestContext
      const session = yield* Session
      yield* session.detach(request.requestId)
      yield* Effect.sleep("100 millis")
      return (
        "Reconnection test completed successfully. If you received this, the client properly reconnected " +
        "after stream closure."
      )
    })
  )
)
