/**
 * `tools/call`: runs one tool.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import { AuditLog, type Call } from "../AuditLog.ts"
import { isoTime } from "../internal/isoTime.ts"
import type { Client } from "../Client.ts"
import * as Confirmation from "../Confirmation.ts"
import * as Deferred from "effect/Deferred"
import { Gate } from "../Gate.ts"
import * as OutputBarrier from "../internal/outputBarrier.ts"
import * as Tasks from "../internal/tasks.ts"
import type * as TaskStore from "../TaskStore.ts"
import type { CompiledTool } from "../internal/compileTool.ts"
import { downgradeContent } from "../internal/content.ts"
import { exceedsUtf8, utf8Length } from "../internal/utf8.ts"
import { Kernel } from "../Kernel.ts"
import { InvalidParams, type MissingRequiredClientCapability, type RequestFailed } from "../McpError.ts"
import { Executor, type Overloaded, type TimedOut, timedOut } from "../Executor.ts"
import { type CallToolResult, CallToolParams, errorMetaKey } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import type * as Policy from "../Policy.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { metaKey } from "../internal/meta.ts"
import { serverInfoOf } from "../internal/modern.ts"
import { RequestContext } from "../RequestContext.ts"
import { ServerConfig } from "../ServerConfig.ts"

const shapeFor = (result: CallToolResult, version: ProtocolVersion.ProtocolVersion): CallToolResult => {
  if (ProtocolVersion.hasStructuredContent(version)) return result
  const content = result.content.map((block) => downgradeContent(block, version))
  return {
    content,
    ...(result.isError === true ? { isError: true } : {}),
    ...(result._meta === undefined ? {} : { _meta: result._meta })
  }
}

const errorResult = (
  text: string,
  code: string,
  suggestion: string,
  details?: { readonly [key: string]: unknown }
): CallToolResult => ({
  content: [{ type: "text", text: `${text}\nSuggestion: ${suggestion}` }],
  isError: true,
  _meta: { [errorMetaKey]: details === undefined ? { code, suggestion } : { code, suggestion, ...details } }
})

// A count or a duration as JSON carries it: a limit that is off (Infinity) is null.
const finite = (value: number): number | null => (Number.isFinite(value) ? value : null)
const millis = (value: number): number | null => finite(Math.round(value * 1000) / 1000)

// The policy's error results carry what their text says as data: for a timeout the timeout that applied (and where
// it came from) and how long the call ran; for an overload which limit was full, how many calls held it, how many
// waited, and the queue's bounds.
const policyResult = (error: Overloaded | TimedOut): CallToolResult =>
  error._tag === "TimedOut"
    ? errorResult(
        error.message,
        "timeout",
        `Retry with less work per call (fewer files, a narrower query), or ask the operator to raise the ` +
          `timeout of ${error.tool}.`,
        {
          timeoutMs: finite(error.timeoutMs),
          source: error.source,
          elapsedMs: millis(error.elapsedMs ?? error.timeoutMs)
        }
      )
    : errorResult(
        error.message,
        "overloaded",
        `Wait for the calls in progress to finish, then retry ${error.tool}; make fewer calls in parallel.`,
        {
          ...(error.reason === undefined ? {} : { reason: error.reason }),
          ...(error.scope === undefined ? {} : { scope: error.scope }),
          maxConcurrent: finite(error.limit),
          inFlight: error.active,
          ...(error.queued === undefined ? {} : { queued: error.queued }),
          ...(error.maxQueued === undefined ? {} : { maxQueued: finite(error.maxQueued) }),
          ...(error.queueTimeoutMs === undefined ? {} : { queueTimeoutMs: finite(error.queueTimeoutMs) }),
          waitedMs: millis(error.waitedMs)
        }
      )

const tooLarge = (tool: string, bytes: number, limit: Policy.Resolved<number>): CallToolResult =>
  errorResult(
    `The result of ${tool} was ${bytes} bytes, over the limit of ${limit.value} bytes (${limit.source}); ` +
      `it was discarded.`,
    "result_too_large",
    `Call ${tool} again asking for less: a narrower range, a smaller page, or a filter.`
  )

// A task's result over the size limit is replaced, as `respond` does for a call's.
const limitedResult = (result: CallToolResult, limit: Policy.Resolved<number>, tool: string): CallToolResult => {
  if (!Number.isFinite(limit.value)) return result
  const json = JSON.stringify(result)
  return exceedsUtf8(json, limit.value) ? tooLarge(tool, utf8Length(json), limit) : result
}

// 2026-07-28 results carry `resultType` and the server's identity; earlier
// revisions get the result as the tool made it (downgraded for the oldest).
const modernResult = (result: CallToolResult, serverInfo: object): object => ({
  resultType: "complete",
  ...result,
  _meta: { ...result._meta, [metaKey.serverInfo]: serverInfo }
})

// Serializes the result once (the response splices it in as is), replacing it
// when it is over the size limit.
const respond = (
  result: CallToolResult,
  answering: Answering,
  limit?: Policy.Resolved<number>,
  tool?: string
): Method.RawJson => {
  const version = answering.request.protocolVersion
  const record = answering.request.record
  let shaped = shapeFor(result, version)
  let json = JSON.stringify(shaped)
  if (limit !== undefined && Number.isFinite(limit.value) && exceedsUtf8(json, limit.value)) {
    shaped = tooLarge(tool!, utf8Length(json), limit)
    json = JSON.stringify(shaped)
  }
  record.outcome = outcomeOf(shaped)
  if (shaped.isError === true) record.error = errorTextOf(shaped)
  // 2026-07-28: the stateless path's shaping puts `resultType` and the server's identity in front of the JSON;
  // a result with a `_meta` of its own is merged here instead.
  if (answering.serverInfo !== undefined && shaped._meta !== undefined) {
    json = JSON.stringify(modernResult(shaped, answering.serverInfo))
  }
  return new Method.RawJson(json)
}

// The request a result answers, and the server's identity when its revision
// puts it on results (2026-07-28).
interface Answering {
  readonly request: RequestContext["Service"]
  readonly serverInfo: object | undefined
}

// What an error result says, for the request's log line: its first text, without the suggestion that follows it,
// at most 1,000 characters; else its code.
const errorTextOf = (result: CallToolResult): string => {
  for (const block of result.content) {
    if (block.type === "text") {
      const text = (block as { readonly text: string }).text
      const at = text.indexOf("\nSuggestion: ")
      const message = at === -1 ? text : text.slice(0, at)
      return message.length > 1000 ? `${message.slice(0, 999)}…` : message
    }
  }
  return outcomeOf(result)
}

const outcomeOf = (result: CallToolResult): string => {
  if (result.isError !== true) return "ok"
  const details = result._meta?.[errorMetaKey] as { readonly code?: unknown } | undefined
  return typeof details?.code === "string" ? details.code : "tool_error"
}

// A call that may become a task: the handler runs, under the policy, until it
// hands its work to `Task.background`; the task is created then (written to the
// store first) and the call is answered with it, while the work goes on under
// the tool's policy in the server's scope.
const asTask = (
  tool: CompiledTool,
  prepared: Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>,
  answering: Answering,
  executor: Executor["Service"],
  limit: Policy.Resolved<number>,
  runner: Tasks.Runner,
  settled: (
    effect: Effect.Effect<CallToolResult, MissingRequiredClientCapability | Overloaded | TimedOut, RequestContext>
  ) => Effect.Effect<Method.RawJson, MissingRequiredClientCapability, RequestContext>,
  audit: Option.Option<AuditLog["Service"]>,
  params: { readonly name: string; readonly arguments?: unknown }
): Effect.Effect<Method.RawJson, MissingRequiredClientCapability, RequestContext> => {
  const request = answering.request
  const created = Deferred.makeUnsafe<TaskStore.Task, RequestFailed>()
  // The call is audited when it is answered (outcome "task"); the task's end is a second entry, with the same
  // correlation id and the task's id: how its work ended (the result's outcome, cancelled, failed).
  const auditEnd =
    (started: number, taskId: () => string | undefined) =>
    <E>(exit: Exit.Exit<CallToolResult, E>) =>
      audit._tag === "None"
        ? Effect.void
        : auditRecord(
            audit.value,
            request,
            tool.name,
            params,
            started,
            exit._tag === "Success"
              ? outcomeOf(exit.value)
              : Cause.hasInterruptsOnly(exit.cause)
                ? "cancelled"
                : "failed",
            taskId(),
            exit._tag === "Success" ? utf8Length(JSON.stringify(exit.value)) : undefined
          )
  const call: Tasks.TaskCall = {
    start: (work) =>
      Effect.withFiber((fiber) => {
        let taskId: string | undefined
        const started = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
        const body = executor.run(tool.target, tool.finish(work as Effect.Effect<unknown, unknown, never>)).pipe(
          // The task's result is held to the tool's size limit, as the call's result would have been.
          Effect.map((result) => limitedResult(result, limit, tool.name)),
          Effect.catchTag(["Overloaded", "TimedOut"], (error) => Effect.succeed(policyResult(error))),
          Effect.onExit(auditEnd(started, () => taskId))
        )
        return runner
          .start(body, {
            capabilities: request.clientCapabilities,
            protocolVersion: request.protocolVersion,
            tool: tool.name,
            context: fiber.context,
            // What a durable store keeps to run the call again on another instance.
            params: {
              name: params.name,
              ...(params.arguments === undefined ? {} : { arguments: params.arguments }),
              ...request.record.inputs,
              _meta: {
                [metaKey.protocolVersion]: request.protocolVersion,
                [metaKey.clientCapabilities]: request.clientCapabilities,
                ...(request.clientInfo === undefined ? {} : { [metaKey.clientInfo]: request.clientInfo })
              }
            },
            principal: request.principal === undefined ? undefined : JSON.stringify(request.principal)
          })
          .pipe(
            Effect.matchEffect({
              onFailure: (error) => Deferred.fail(created, error),
              onSuccess: (task) => {
                taskId = task.taskId
                return Deferred.succeed(created, task)
              }
            }),
            Effect.andThen(Effect.never)
          )
      })
  }
  // What runs before Task.background (checking the arguments, asking the user) takes no concurrency slot: the
  // task's work takes one, so a call is answered with its task at once even while other tasks hold every slot
  // (its work waits, the task "working"). It keeps the tool's timeout.
  const timeout = executor.limits(tool.target).timeoutMs
  const prelude = Effect.provideService(prepared, Tasks.CurrentTaskCall, call)
  return Effect.raceFirst(
    settled(
      Number.isFinite(timeout.value)
        ? Effect.timeoutOrElse(prelude, {
            duration: timeout.value,
            orElse: () => Effect.fail(timedOut(tool.target, timeout))
          })
        : prelude
    ),
    Deferred.await(created).pipe(
      Effect.map((task) => {
        request.record.outcome = "task"
        return new Method.RawJson(
          JSON.stringify({
            resultType: "task",
            ...task,
            ...(answering.serverInfo === undefined ? {} : { _meta: { [metaKey.serverInfo]: answering.serverInfo } })
          })
        )
      }),
      // A durable store that cannot be reached: no task was created, and the call says so.
      Effect.catch((error) =>
        Effect.succeed(
          respond(
            errorResult(
              error.message,
              "task_store_unavailable",
              `Retry ${tool.name} in a few seconds, or call it without the tasks extension to get its result inline.`
            ),
            answering
          )
        )
      )
    )
  )
}

// Outcomes a call ends with when the protocol, not the tool, answered it (no result was sent).
const protocolOutcomes = new Set(["input_required", "input_response_malformed", "missing_client_capability"])

// One audit record: of a call, or (with `taskId`) of the end of the task it created. Built field by field, in the
// record's order: this runs for every call.
const callRecord = (
  request: RequestContext["Service"],
  tool: string,
  params: { readonly arguments?: unknown },
  started: number | undefined,
  now: number,
  outcome: string,
  taskId: string | undefined,
  bytesOut: number | undefined
): Call => {
  const args = params.arguments ?? {}
  const call: { -readonly [K in keyof Call]: Call[K] } = {
    time: isoTime(now),
    correlationId: request.correlationId,
    tool,
    arguments: args,
    outcome,
    durationMs: started === undefined ? 0 : now - started,
    bytesIn: utf8Length(JSON.stringify(args))
  }
  // Who called, when the transport authenticated the caller.
  if (request.principal !== undefined) call.principal = request.principal.subject
  if (taskId !== undefined) call.taskId = taskId
  if (bytesOut !== undefined) call.bytesOut = bytesOut
  return call
}

const auditRecord = (
  audit: AuditLog["Service"],
  request: RequestContext["Service"],
  tool: string,
  params: { readonly arguments?: unknown },
  started: number | undefined,
  outcome: string,
  taskId: string | undefined,
  bytesOut: number | undefined
): Effect.Effect<void> =>
  Effect.withFiber((fiber) =>
    audit.record(
      callRecord(
        request,
        tool,
        params,
        started,
        fiber.getRef(Clock.Clock).currentTimeMillisUnsafe(),
        outcome,
        taskId,
        bytesOut
      )
    )
  )

// The outcome of a call's record; `answer` is undefined when the call was cancelled or the protocol answered it.
const answerOutcome = (request: RequestContext["Service"], answer: Method.RawJson | undefined): string => {
  const recorded = request.record.outcome
  return answer === undefined
    ? recorded !== undefined && protocolOutcomes.has(recorded)
      ? recorded
      : "cancelled"
    : (recorded ?? "ok")
}

// The audit record of one call the protocol answered before it ran (refused, declined), then the answer.
const audited = (
  audit: AuditLog["Service"],
  params: { readonly name: string; readonly arguments?: unknown },
  request: RequestContext["Service"],
  answer: Method.RawJson | undefined
): Effect.Effect<Method.RawJson> =>
  Effect.as(
    auditRecord(
      audit,
      request,
      request.record.tool ?? params.name,
      params,
      undefined,
      answerOutcome(request, answer),
      undefined,
      answer === undefined ? undefined : utf8Length(answer.json)
    ),
    answer as Method.RawJson
  )

/**
 * Decodes the arguments with the tool's input Schema and runs it under the
 * execution policy (concurrency slot, timeout, result size limit). An unknown
 * tool is a −32602 protocol error; everything that goes wrong inside the
 * tool, and every policy limit hit, is an `isError: true` result. Under
 * 2026-07-28 a capability the client did not declare (a question the tool
 * asks, or the tasks extension for a `task: "required"` tool) is a −32021
 * protocol error instead, a question is an input-required round, and a tool
 * that supports tasks is answered with its task when the client declared the
 * extension.
 *
 * **Example**
 *
 * ```ts
 * import { toolsCall } from "effect-mcp-runtime/methods/toolsCall"
 *
 * toolsCall.decode({ name: "system_echo", arguments: { text: "hi" } })._tag // => "Success"
 * toolsCall.decode({ name: 42 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const toolsCall = Method.request("tools/call", {
  params: CallToolParams,
  inputRequests: true,
  routingName: (params) => (typeof params.name === "string" ? params.name : undefined),
  accepts: (params) =>
    typeof params.name === "string" &&
    (params.arguments === undefined ||
      (typeof params.arguments === "object" && params.arguments !== null && !Array.isArray(params.arguments))),
  // The hot path of the server: written without a generator.
  handler: (params) =>
    Effect.flatMap(
      Effect.context<Kernel | RequestContext | Executor>(),
      (
        context
      ): Effect.Effect<Method.RawJson, InvalidParams | MissingRequiredClientCapability, RequestContext | Client> => {
        const kernel = Context.get(context, Kernel)
        const tool = kernel.tool(params.name)
        if (tool === undefined) {
          const capability = kernel.withheld(params.name)
          return Effect.fail(
            capability === undefined
              ? new InvalidParams({
                  message: `Unknown tool: ${params.name}. Call tools/list to see the available tools.`,
                  data: { tool: params.name }
                })
              : new InvalidParams({
                  message:
                    `${params.name} is an experimental tool of the ${capability} capability, not enabled on this ` +
                    `server. Start the server with --experimental (or "experimental": true in its configuration ` +
                    `file) to use it; call tools/list to see the tools it has.`,
                  data: { tool: params.name, experimental: true }
                })
          )
        }
        const request = Context.get(context, RequestContext)
        const record = request.record
        record.tool = tool.name
        record.capability = tool.capability
        // Every call is audited when an AuditLog is installed, and gated when a Gate is (both optional).
        const audit = Context.getOption(context as unknown as Context.Context<AuditLog>, AuditLog)
        // A tool that only runs as a task, for a 2026-07-28 client without the tasks extension: −32021.
        if (
          tool.task === "required" &&
          ProtocolVersion.isModern(request.protocolVersion) &&
          !Tasks.declared(request.clientCapabilities)
        ) {
          record.outcome = "missing_client_capability"
          const refused = Effect.fail(Tasks.missingExtension(`The tool ${tool.name}`))
          return audit._tag === "None"
            ? refused
            : Effect.andThen(audited(audit.value, params, request, undefined), refused)
        }
        const answering: Answering = {
          request,
          serverInfo: ProtocolVersion.isModern(request.protocolVersion)
            ? serverInfoOf(Context.get(context as unknown as Context.Context<never>, ServerConfig))
            : undefined
        }
        const gate = Context.getOption(context as unknown as Context.Context<Gate>, Gate)
        if (gate._tag === "Some") {
          return gate.value
            .check(
              request.principal === undefined
                ? { method: "tools/call", name: tool.name }
                : { method: "tools/call", name: tool.name, principal: request.principal.subject }
            )
            .pipe(
              Effect.matchEffect({
                onFailure: (denied) => {
                  const answer = respond(
                    errorResult(
                      denied.message,
                      "denied",
                      `Do not retry ${tool.name}: the server's operator has not allowed it. Call tools/list and use ` +
                        `another tool, or ask the user to have it allowed.`
                    ),
                    answering
                  )
                  return audit._tag === "None" ? Effect.succeed(answer) : audited(audit.value, params, request, answer)
                },
                onSuccess: () => confirmed(tool, params, answering, context, audit)
              })
            )
        }
        return confirmed(tool, params, answering, context, audit)
      }
    )
})

// A tool that needs confirmation runs only once the user agreed (see Confirmation).
const confirmed = (
  tool: CompiledTool,
  params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
  answering: Answering,
  context: Context.Context<Kernel | RequestContext | Executor>,
  audit: Option.Option<AuditLog["Service"]>
): Effect.Effect<Method.RawJson, MissingRequiredClientCapability, RequestContext | Client> => {
  const request = answering.request
  if (!tool.confirms) return call(tool, params, answering, context, audit)
  // The request front asked the user once for the whole request (see NestedCall's `confirmed`); a call the
  // tool's `confirmWhen` exempts (a preview) is not asked about either.
  // A durable task run again was confirmed when it was created.
  const resumed = Tasks.resumptionOf(context as unknown as Context.Context<never>, request.requestId) !== undefined
  if (request.confirmed === true || resumed || !tool.confirmsCall(params.arguments)) {
    if (params.arguments === undefined || !(Confirmation.argument in params.arguments)) {
      return call(tool, params, answering, context, audit)
    }
    const { [Confirmation.argument]: _, ...rest } = params.arguments
    return call(tool, { name: params.name, arguments: rest }, answering, context, audit)
  }
  // Invalid arguments are answered before anyone is asked to confirm the call.
  if (params.arguments !== undefined) {
    const { [Confirmation.argument]: _, ...rest } = params.arguments
    if (!Effect.isEffect(tool.prepare(rest)))
      return call(tool, { name: params.name, arguments: rest }, answering, context, audit)
  }
  return Effect.flatMap(Confirmation.decide(tool.name, tool.description, params.arguments), (decision) => {
    if (decision._tag === "Go") {
      return call(
        tool,
        decision.args === undefined ? { name: params.name } : { name: params.name, arguments: decision.args },
        answering,
        context,
        audit
      )
    }
    const answer = respond(decision.result, answering)
    return audit._tag === "None" ? Effect.succeed(answer) : audited(audit.value, params, request, answer)
  })
}

// A call the gate let through and the user confirmed: prepare, run under the policy, respond, audit.
const call = (
  tool: CompiledTool,
  params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
  answering: Answering,
  context: Context.Context<Kernel | RequestContext | Executor>,
  audit: Option.Option<AuditLog["Service"]>
): Effect.Effect<Method.RawJson, MissingRequiredClientCapability, RequestContext> => {
  const request = answering.request
  const record = request.record
  const prepared = tool.prepare(params.arguments)
  // Invalid arguments are answered at once, without waiting for a slot.
  if (!Effect.isEffect(prepared)) {
    const answer = respond(prepared, answering)
    return audit._tag === "None" ? Effect.succeed(answer) : audited(audit.value, params, request, answer)
  }
  const executor = Context.get(context, Executor)
  const limit = executor.limits(tool.target).maxResultBytes
  const settled = (
    effect: Effect.Effect<CallToolResult, MissingRequiredClientCapability | Overloaded | TimedOut, RequestContext>
  ) =>
    effect.pipe(
      Effect.map((result) => respond(result, answering, limit, tool.name)),
      // The runtime's own error results are small and never checked against the limit.
      Effect.catchTag(["Overloaded", "TimedOut"], (error) => Effect.succeed(respond(policyResult(error), answering)))
    )
  // A durable task run again on this instance (a takeover, or a task created through another instance): its
  // Task.background runs the work here, as the task's.
  const resumption = Tasks.resumptionOf(context as unknown as Context.Context<never>, request.requestId)?.runner
  const runner = resumption ?? Context.get(context as unknown as Context.Context<never>, Tasks.TaskRunner)
  const run =
    tool.task !== undefined &&
    runner !== undefined &&
    (resumption !== undefined ||
      (ProtocolVersion.isModern(request.protocolVersion) && Tasks.declared(request.clientCapabilities)))
      ? asTask(tool, prepared, answering, executor, limit, runner, settled, audit, params)
      : settled(executor.run(tool.target, prepared, record))
  if (audit._tag === "None") return run
  const store = audit.value
  const atEnd = record.atEnd
  if (
    atEnd !== undefined &&
    store.enqueue !== undefined &&
    Context.get(context as unknown as Context.Context<never>, OutputBarrier.Covered)
  ) {
    // Served from a transport that writes the queued records before each of its writes: the record is queued when
    // the request ends (before its answer is handed to the transport), with no effect run and nothing waiting.
    const clock = Context.get(context as unknown as Context.Context<never>, Clock.Clock)
    const started = clock.currentTimeMillisUnsafe()
    let answer: Method.RawJson | undefined
    atEnd.push(() =>
      store.enqueue!(
        callRecord(
          request,
          record.tool ?? params.name,
          params,
          started,
          clock.currentTimeMillisUnsafe(),
          answerOutcome(request, answer),
          undefined,
          answer === undefined ? undefined : utf8Length(answer.json)
        )
      )
    )
    return Effect.map(run, (answered) => (answer = answered))
  }
  return Effect.withFiber((fiber) => {
    const started = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
    // The record is written before the answer leaves: `record` completes once the record is in the store.
    return Effect.onExit(run, (exit) => {
      const answer = exit._tag === "Success" ? exit.value : undefined
      return audit.value.record(
        callRecord(
          request,
          request.record.tool ?? params.name,
          params,
          started,
          fiber.getRef(Clock.Clock).currentTimeMillisUnsafe(),
          answerOutcome(request, answer),
          undefined,
          answer === undefined ? undefined : utf8Length(answer.json)
        )
      )
    })
  })
}
