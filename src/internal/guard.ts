/**
 * Runs a `prompts/get` or `resources/read` handler under the execution
 * policy, as `tools/call` runs tools: a per-name and a global slot, the
 * timeout. Overload and timeout become JSON-RPC errors (−32603 with a
 * message for the client), as these methods have no error result.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Executor, type Target } from "../Executor.ts"
import { Kernel } from "../Kernel.ts"
import { Gate, type GatedMethod } from "../Gate.ts"
import { InvalidRequest, type McpError, RequestFailed } from "../McpError.ts"
import { RequestContext } from "../RequestContext.ts"

// One target per prompt or resource, so calls share its per-name slot.
const targets = new WeakMap<object, Target>()

/**
 * Runs `effect` for `owner` (a compiled prompt, resource or template) under
 * the policy. `what` names the work in a timeout message ("prompts/get of
 * notes_brief", "resources/read of notes://readme").
 */
export const guard = <A, R>(
  owner: { readonly name: string; readonly capability: string },
  method: GatedMethod,
  what: string,
  effect: Effect.Effect<A, McpError, R>
): Effect.Effect<A, McpError, R | Executor | RequestContext | Kernel> =>
  Effect.flatMap(Effect.context<Executor | RequestContext | Kernel>(), (context) => {
    // The authorization gate first, when one is installed.
    const gate = Context.getOption(context as unknown as Context.Context<Gate>, Gate)
    if (gate._tag === "Some") {
      // The caller, when the transport authenticated it: the gate's `principals` rules see its subject.
      const principal = Context.get(context, RequestContext).principal
      const access =
        principal === undefined
          ? { method, name: owner.name }
          : { method, name: owner.name, principal: principal.subject }
      return gate.value.check(access).pipe(
        Effect.matchEffect({
          onFailure: (denied) => {
            Context.get(context, RequestContext).record.outcome = "denied"
            return Effect.fail(
              new InvalidRequest({
                message: `${denied.message}. Do not retry it; ask the user to have it allowed.`,
                data: { reason: "denied", name: owner.name }
              })
            )
          },
          onSuccess: () => run(owner, what, effect, context)
        })
      )
    }
    return run(owner, what, effect, context)
  })

const run = <A, R>(
  owner: { readonly name: string; readonly capability: string },
  what: string,
  effect: Effect.Effect<A, McpError, R>,
  context: Context.Context<Executor | RequestContext | Kernel>
): Effect.Effect<A, McpError, R> => {
  let target = targets.get(owner)
  if (target === undefined) {
    // The capability's own limits (Capability.make options) apply, as for its tools.
    const info = Context.get(context, Kernel)
      .capabilities()
      .find((summary) => summary.id === owner.capability)
    target = { name: owner.name, capability: owner.capability, capabilityOwn: info }
    targets.set(owner, target)
  }
  const request = Context.get(context, RequestContext)
  const executor = Context.get(context, Executor)
  return executor.run(target, effect, request.record).pipe(
    Effect.catchTags({
      Overloaded: (error) => {
        request.record.outcome = "overloaded"
        return Effect.fail(
          new RequestFailed({
            message: `${error.message.replace(/\.$/, "")}. Wait for the requests in progress to finish, then retry.`,
            // The same numbers a tool's overload result carries in its _meta.
            data: {
              reason: "overloaded",
              name: owner.name,
              why: error.reason,
              scope: error.scope,
              maxConcurrent: error.limit,
              inFlight: error.active,
              queued: error.queued,
              maxQueued: error.maxQueued,
              queueTimeoutMs: error.queueTimeoutMs,
              waitedMs: error.waitedMs
            }
          })
        )
      },
      TimedOut: (error) => {
        request.record.outcome = "timeout"
        return Effect.fail(
          new RequestFailed({
            message: `${what} did not finish within ${error.timeoutMs} ms (${error.source}); it was stopped.`,
            data: {
              reason: "timeout",
              name: owner.name,
              timeoutMs: error.timeoutMs,
              source: error.source,
              elapsedMs: error.elapsedMs
            }
          })
        )
      }
    })
  )
}
