/**
 * Calling a published tool from inside a request, through the whole
 * `tools/call` pipeline: the gate, confirmation, the execution policy
 * (concurrency slot, timeout, result size limit), the audit log and a span of
 * its own, a child of the caller's. What code mode (`code_run`) does for each
 * `mcp.<namespace>.<tool>()` of an agent's code, and what any handler may do to
 * compose tools without going back to the client.
 *
 * The nested call is a request of its own to every policy: it has its own
 * record (its tool, its outcome), its own correlation id (the caller's, a
 * slash, and a number), and it never becomes a task. It reports no progress
 * of its own: the caller's progress token is the caller's. It takes no
 * server-wide concurrency slot (its caller holds one: taking another could
 * wait forever once every slot is taken by callers) unless asked to (the
 * `slot` option, for a caller that holds none), but the tool's own limit,
 * timeout and result size apply. Under 2026-07-28 it may
 * not ask the client for input: an input-required round would make the
 * client run the caller again from the start, repeating every call made
 * before it; a question (a confirmation, say) fails instead, and the tool
 * answers with its error result.
 *
 * @since 0.3.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { Client, ClientRequestFailed } from "./Client.ts"
import { Executor } from "./Executor.ts"
import { failureResult } from "./internal/compileTool.ts"
import { extensionId as tasksExtension } from "./internal/tasks.ts"
import type { CallToolResult, ClientCapabilities } from "./McpSchema.ts"
import { toolsCall } from "./methods/toolsCall.ts"
import * as Progress from "./Progress.ts"
import * as ProtocolVersion from "./ProtocolVersion.ts"
import { RequestContext, type RequestRecord } from "./RequestContext.ts"

/**
 * How one nested call ended: the tool's result (an `isError` one for every
 * failure: unknown tool, gate, confirmation, policy, the tool's own error),
 * the outcome the audit log and the request log name it by (`ok`, `denied`,
 * `timeout`, `tool_error`, …), its correlation id and how long it took.
 *
 * **Example**
 *
 * ```ts
 * import type { Outcome } from "effect-mcp-runtime/NestedCall"
 *
 * const done: Outcome = {
 *   tool: "system_echo",
 *   result: { content: [{ type: "text", text: "hi" }] },
 *   outcome: "ok",
 *   correlationId: "c1/1",
 *   durationMs: 0.4
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface Outcome {
  readonly tool: string
  readonly result: CallToolResult
  readonly outcome: string
  readonly correlationId: string
  readonly durationMs: number
}

/**
 * How a nested call differs from the default.
 *
 * - `confirmed`: the user already agreed to this call (the request front
 *   asks once for every destructive op of a request): the tool's own
 *   confirmation is skipped. It applies to this call only, never to the
 *   calls the tool makes in turn.
 * - `slot`: the call takes a server-wide concurrency slot, as a `tools/call`
 *   does: for a caller that holds none itself (the request front's ops).
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/NestedCall"
 *
 * const op: Options = { confirmed: true, slot: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Options {
  readonly confirmed?: boolean | undefined
  readonly slot?: boolean | undefined
}

// The client's capabilities without the tasks extension: a nested call is answered, never turned into a task.
const withoutTasks = (capabilities: ClientCapabilities): ClientCapabilities => {
  const extensions = capabilities.extensions
  if (typeof extensions !== "object" || extensions === null || !(tasksExtension in extensions)) return capabilities
  const { [tasksExtension]: _, ...rest } = extensions as Record<string, unknown>
  return { ...capabilities, extensions: rest }
}

// Under 2026-07-28 a nested call may not start an input-required round (see the module's comment).
const noRounds = (client: Client["Service"]): Client["Service"] => ({
  ...client,
  request: (method) =>
    Effect.fail(
      new ClientRequestFailed({
        method,
        message:
          `A tool called from inside another request cannot ask the client (${method}) under protocol revision ` +
          `2026-07-28: call the tool directly with tools/call.`
      })
    )
})

const nestedExecutors = new WeakMap<Executor["Service"], Executor["Service"]>()
const nestedExecutor = (executor: Executor["Service"]): Executor["Service"] => {
  let nested = nestedExecutors.get(executor)
  if (nested === undefined) {
    nested = { ...executor, run: (target, effect, waited) => executor.run(target, effect, waited, { nested: true }) }
    nestedExecutors.set(executor, nested)
  }
  return nested
}

// The result as the pipeline serialized it, back to an object; a 2026-07-28 result loses the fields that only
// the wire needs (`resultType`, the server's identity).
const parse = (json: string): CallToolResult => {
  const { resultType: _, ...result } = JSON.parse(json) as CallToolResult & { resultType?: unknown }
  const meta = result._meta
  if (meta !== undefined) {
    const { "io.modelcontextprotocol/serverInfo": _info, ...rest } = meta as Record<string, unknown>
    return Object.keys(rest).length === 0
      ? {
          content: result.content,
          ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
          ...(result.isError === true ? { isError: true } : {})
        }
      : { ...result, _meta: rest }
  }
  return result
}

/**
 * Calls the tool with that public name, with those arguments, through the
 * whole `tools/call` pipeline, as part of the request in progress. Every
 * failure is an `isError` result (an unknown tool included), so the caller
 * decides what a failed call means. Interrupting the caller interrupts the
 * call and everything it started.
 *
 * Runs only inside a request served by `McpServer` (a tool handler, say):
 * it takes the kernel, the executor, the gate, the audit log and the client
 * from the request's context; elsewhere it dies.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NestedCall from "effect-mcp-runtime/NestedCall"
 *
 * // inside a tool handler: echo twice, each call gated, confirmed, limited and audited
 * const twice = Effect.gen(function* () {
 *   const first = yield* NestedCall.call("system_echo", { text: "one" }, 1)
 *   const second = yield* NestedCall.call("system_echo", { text: "two" }, 2)
 *   return [first.outcome, second.outcome] // ["ok", "ok"]
 * })
 * ```
 *
 * @category constructors
 * @since 0.3.0
 */
export const call = (
  tool: string,
  args: Record<string, unknown> | undefined,
  sequence: number,
  options?: Options | undefined
): Effect.Effect<Outcome, never, RequestContext> =>
  Effect.withFiber((fiber) => {
    const parent = Context.get(fiber.context as Context.Context<RequestContext>, RequestContext)
    const clock = fiber.getRef(Clock.Clock)
    const correlationId = `${parent.correlationId}/${sequence}`
    const record: RequestRecord = {
      tool: undefined,
      capability: undefined,
      queueMs: 0,
      outcome: undefined,
      ended: false
    }
    const request = RequestContext.of({
      requestId: parent.requestId,
      method: "tools/call",
      correlationId,
      // The result never goes on the wire: the caller gets it whole (structured content, every content type)
      // whatever revision its own client speaks.
      protocolVersion: ProtocolVersion.isModern(parent.protocolVersion)
        ? parent.protocolVersion
        : ProtocolVersion.latestLegacy,
      clientCapabilities: withoutTasks(parent.clientCapabilities),
      clientInfo: parent.clientInfo,
      progressToken: undefined,
      record,
      ...(parent.principal === undefined ? {} : { principal: parent.principal }),
      ...(options?.confirmed === true ? { confirmed: true } : {})
    })
    const modern = ProtocolVersion.isModern(parent.protocolVersion)
    const client = Context.getOption(fiber.context as Context.Context<Client>, Client)
    const executor = Context.getOption(fiber.context as Context.Context<Executor>, Executor)
    const started = clock.monotonicTimeNanosUnsafe()
    const handler = toolsCall.handler(
      args === undefined ? { name: tool } : { name: tool, arguments: args }
    ) as unknown as Effect.Effect<{ readonly json: string }, { readonly _tag: string; readonly message: string }>
    const tracing = fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer
    const run = Effect.exit(handler).pipe(
      Effect.flatMap((exit): Effect.Effect<Outcome> => {
        const durationMs = Number(clock.monotonicTimeNanosUnsafe() - started) / 1e6
        let result: CallToolResult
        if (Exit.isSuccess(exit)) {
          result = parse(exit.value.json)
        } else {
          const failure = Cause.findErrorOption(exit.cause)
          // A defect the pipeline did not turn into a result (or an interruption from within): the caller's too.
          if (Option.isNone(failure)) return Effect.failCause(exit.cause as Cause.Cause<never>)
          const error = failure.value
          record.outcome = error._tag === "InvalidParams" ? "unknown_tool" : "missing_client_capability"
          result =
            error._tag === "InvalidParams"
              ? failureResult({
                  message: error.message,
                  code: "unknown_tool",
                  suggestion: "Use one of the tools the server lists."
                })
              : failureResult({
                  message: error.message,
                  code: "missing_client_capability",
                  suggestion: `Call ${tool} directly with tools/call.`
                })
        }
        const outcome = record.outcome ?? "ok"
        const done = Effect.succeed({
          tool: record.tool ?? tool,
          result,
          outcome,
          correlationId,
          durationMs
        })
        return tracing
          ? Effect.andThen(
              Effect.annotateCurrentSpan(
                outcome === "ok" ? { "mcp.outcome": outcome } : { "mcp.outcome": outcome, "error.type": outcome }
              ),
              done
            )
          : done
      }),
      (self) =>
        tracing
          ? Effect.withSpan(self, "tools/call", {
              attributes: { "mcp.tool.name": tool, "mcp.correlation_id": correlationId, "mcp.nested": true },
              captureStackTrace: false
            })
          : self,
      Effect.onExit(() =>
        Effect.sync(() => {
          record.ended = true
        })
      )
    )
    return Effect.updateContext(run, (context: Context.Context<never>) => {
      // The caller's progress is the caller's to report: a nested tool's own reports would break its order.
      let next = Context.add(Context.add(context, RequestContext, request), Progress.Progress, Progress.disabled)
      if (modern && client._tag === "Some") next = Context.add(next, Client, noRounds(client.value))
      // The caller holds a server-wide slot: the call takes none of its own (see Executor.RunOptions), unless
      // its caller holds none (the request front's ops).
      if (executor._tag === "Some" && options?.slot !== true) {
        next = Context.add(next, Executor, nestedExecutor(executor.value))
      }
      return next
    }) as Effect.Effect<Outcome>
  })
