/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) at run
 * time: starting a tool's work as a task, the `Client` a task asks the
 * client through (its requests become the task's `inputRequests`, answered
 * with `tasks/update`), cancellation, and the end of a task (its result, or
 * its error).
 *
 * The store (`TaskStore`) keeps what a client can see; the runner keeps what
 * only this instance has: the fibers doing the work and the answers they
 * wait for. A task's work runs in the server's scope, detached from the
 * request that created it, under the tool's execution policy (its slot, its
 * timeout).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { Client, ClientRequestFailed, InputKey } from "../Client.ts"
import { ClientLog } from "../ClientLog.ts"
import {
  InternalError,
  InvalidParams,
  isMcpError,
  MethodNotFound,
  MissingRequiredClientCapability,
  type RequestFailed,
  toJsonRpcError
} from "../McpError.ts"
import type { CallToolResult, ClientCapabilities } from "../McpSchema.ts"
import type { ProtocolVersion } from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import { disabled as disabledProgress, Progress } from "../Progress.ts"
import { isTerminal, type Task, type TaskStore } from "../TaskStore.ts"
import type { Durability } from "../Tool.ts"
import type * as Durable from "./durable.ts"
import { answerProblem, numbered, questionOf } from "./mrtr.ts"

/** The extension's identifier. */
export const extensionId = "io.modelcontextprotocol/tasks"

/** How long a task is kept, from its creation: one hour, and at least that long after it ended. */
const defaultTtlMs = 60 * 60 * 1000

/** How often a client may usefully poll a task. */
const pollIntervalMs = 500

/** Whether the client of a request declared the tasks extension. */
export const declared = (capabilities: ClientCapabilities): boolean => {
  const extensions = capabilities.extensions
  return typeof extensions === "object" && extensions !== null && extensionId in extensions
}

/** The −32021 of a request that needs the tasks extension its client did not declare. */
export const missingExtension = (what: string): MissingRequiredClientCapability =>
  new MissingRequiredClientCapability({
    message:
      `${what} needs the tasks extension: declare capabilities.extensions["${extensionId}"] ` +
      `in the request's _meta client capabilities.`,
    requiredCapabilities: { extensions: { [extensionId]: {} } }
  })

const notFound = (taskId: string) =>
  new InvalidParams({
    message: `Unknown task ${JSON.stringify(taskId)}: it never existed, or it was dropped once its ttlMs (counted from its creation) ran out.`,
    data: { taskId }
  })

/** The part of a running task only this instance has. */
interface Running {
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  /** The input requests waiting for an answer, by key. */
  readonly waiting: Map<string, Deferred.Deferred<Record<string, unknown>>>
}

/** What a task's work needs besides the work itself. */
export interface StartOptions {
  readonly capabilities: ClientCapabilities
  /** The revision of the request that created the task (what its work's `Client` says it speaks). */
  readonly protocolVersion: ProtocolVersion
  readonly tool: string
  /** The services the work runs with (the handler's): the task's own replace the request's. */
  readonly context: Context.Context<never>
  /** The call's params, as a durable store keeps them to run the tool again elsewhere (name, arguments, `_meta`). */
  readonly params?: Record<string, unknown> | undefined
  /** Who called, when the transport identified the caller. */
  readonly principal?: string | undefined
}

/** The tasks of one server. */
export interface Runner {
  readonly store: TaskStore["Service"]
  /**
   * Creates a task for `work` (a tool call's outcome, with everything it
   * needs provided), writes it to the store, and starts the work (in the
   * server's scope, or as a durable workflow). Returns the task as created;
   * fails when a durable store is unreachable.
   */
  readonly start: (
    work: Effect.Effect<CallToolResult, MissingRequiredClientCapability, any>,
    options: StartOptions
  ) => Effect.Effect<Task, RequestFailed>
  /** The task, or −32602 when there is none. */
  readonly get: (taskId: string) => Effect.Effect<Task, InvalidParams | RequestFailed>
  /** Gives a task the client's answers to its input requests (unknown keys are ignored). */
  readonly answer: (
    taskId: string,
    responses: Record<string, unknown>
  ) => Effect.Effect<void, InvalidParams | RequestFailed>
  /** Cancels a task (an ended one stays as it is), interrupting its work and everything it started. */
  readonly cancel: (taskId: string) => Effect.Effect<void, InvalidParams | RequestFailed>
  /**
   * Runs a durable task's work on this instance, when its workflow's
   * activity starts here: the work registered by `start` in this process,
   * or the tool run again through `resume` (a takeover, or a task created
   * through another instance). Undefined without a durable store.
   */
  readonly activity:
    | ((
        payload: Durable.Payload,
        resume: (payload: Durable.Payload, resumption: Resumption) => Effect.Effect<void>
      ) => Effect.Effect<void>)
    | undefined
}

/**
 * A running durable task's work, resumed through the server: the call's
 * handler runs again and hands its work to `Task.background`, which runs it
 * here, inline, as the task's work.
 */
export const CurrentResumption = Context.Reference<Resumption | undefined>("effect-mcp-runtime/internal/Resumption", {
  defaultValue: () => undefined
})

/** A durable task run again: its id (the call served again has the request id `task-<id>`) and its runner. */
export interface Resumption {
  readonly taskId: string
  readonly runner: Runner
}

/** The resumption of the call being served, when it is the call a durable task runs again (not a nested call). */
export const resumptionOf = (context: Context.Context<never>, requestId: string | number): Resumption | undefined => {
  const resumption = Context.get(context, CurrentResumption)
  return resumption !== undefined && requestId === `task-${resumption.taskId}` ? resumption : undefined
}

/** Builds the runner of a server, its work forked with `fork` (or run by a durable store's workflows). */
export const make = (options: {
  readonly store: TaskStore["Service"]
  readonly fork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>
  /** A durable store: tasks are workflows, their MCP view a projection every instance reads. */
  readonly durable?: Durable.Durable | undefined
  /** What a tool's task does after a takeover (`Tool.make`'s `durable`), by public name. */
  readonly durability?: ((tool: string) => Durability | undefined) | undefined
}): Effect.Effect<Runner> =>
  Effect.gen(function* () {
    const { durable, fork } = options
    const store = durable === undefined ? options.store : durable.store
    const ops: {
      readonly create: (task: Task) => Effect.Effect<void, RequestFailed>
      readonly get: (taskId: string) => Effect.Effect<Task | undefined, RequestFailed>
      readonly update: (
        taskId: string,
        f: (task: Task) => Task | undefined
      ) => Effect.Effect<Task | undefined, RequestFailed>
    } =
      durable === undefined
        ? store
        : { create: durable.store.createOrFail, get: durable.store.getOrFail, update: durable.store.updateOrFail }
    const clock = yield* Clock.Clock
    const running = new Map<string, Running>()
    // Durable, one instance: the work `start` was given, until the task's activity (in this process) takes it.
    const registered = new Map<string, { readonly work: Work; readonly options: StartOptions }>()
    const now = () => new Date(clock.currentTimeMillisUnsafe()).toISOString()

    // The end of a task's work, however it ended. A cancelled (terminal) task is never changed. `ttlMs` counts
    // from the creation: a task that ran longer than most of it is kept `defaultTtlMs` past its end, so that its
    // result is not dropped the moment it is there.
    const settle = (taskId: string, outcome: Partial<Task> & { readonly status: Task["status"] }) =>
      ops.update(taskId, (task) => {
        const endedAt = clock.currentTimeMillisUnsafe()
        const ranMs = Math.max(0, endedAt - Date.parse(task.createdAt))
        return {
          taskId: task.taskId,
          createdAt: task.createdAt,
          ttlMs: task.ttlMs === null ? null : Math.max(task.ttlMs, ranMs + defaultTtlMs),
          pollIntervalMs: task.pollIntervalMs,
          lastUpdatedAt: new Date(endedAt).toISOString(),
          ...outcome
        }
      })
    // The end of a task's work must be written: under a durable store that cannot be reached, it is tried again
    // every two seconds until the store is back (or the work is interrupted: the task is then taken over), so that
    // a task never stays `working` once its work ended.
    const settleLogged = (taskId: string, outcome: Partial<Task> & { readonly status: Task["status"] }) =>
      durable === undefined
        ? Effect.orDie(settle(taskId, outcome))
        : settle(taskId, outcome).pipe(
            Effect.tapError((error) =>
              Effect.logError("task end not stored yet: retrying", { task: taskId, error: error.message })
            ),
            Effect.retry(Schedule.spaced("2 seconds")),
            Effect.orDie
          )

    const clientFor = (
      taskId: string,
      state: Running,
      capabilities: ClientCapabilities,
      protocolVersion: ProtocolVersion
    ): Client["Service"] => {
      const occurrences = new Map<string, number>()
      return Client.of({
        capabilities: () => capabilities,
        protocolVersion: () => protocolVersion,
        // A task sends no notifications (no progress, no log messages).
        notify: () => Effect.void,
        rootsChanged: Stream.empty,
        publishRootsChanged: Effect.void,
        pending: () => state.waiting.size,
        request: (method, params) =>
          Effect.flatMap(Effect.service(InputKey), (chosen) => {
            const question = questionOf(method, params)
            if (question instanceof ClientRequestFailed) return Effect.fail(question)
            // Keys are unique over the task's lifetime: the same question asked again gets a new one.
            const key = numbered(occurrences, chosen ?? question.key)
            const answer = Deferred.makeUnsafe<Record<string, unknown>>()
            state.waiting.set(key, answer)
            return ops
              .update(taskId, (task) => ({
                ...task,
                status: "input_required",
                inputRequests: { ...task.inputRequests, [key]: { method, params } },
                lastUpdatedAt: now()
              }))
              .pipe(
                Effect.mapError((error) => new ClientRequestFailed({ method, message: error.message })),
                Effect.andThen(Deferred.await(answer)),
                Effect.ensuring(Effect.sync(() => state.waiting.delete(key)))
              )
          })
      })
    }

    // A task's work, run to its end in the current fiber, its outcome written to the store.
    const run = (taskId: string, work: Work, { capabilities, context, protocolVersion, tool }: StartOptions) =>
      Effect.withFiber((fiber) => {
        const state: Running = { fiber, waiting: new Map() }
        running.set(taskId, state)
        const started = clock.currentTimeMillisUnsafe()
        return work.pipe(
          Effect.provideContext(
            Context.add(detached(context), Client, clientFor(taskId, state, capabilities, protocolVersion))
          ),
          Effect.matchCauseEffect({
            onSuccess: (result) =>
              settleLogged(taskId, { status: "completed", result: { resultType: "complete", ...result } }),
            onFailure: (cause) => {
              if (Cause.hasInterruptsOnly(cause)) {
                return settleLogged(taskId, {
                  status: "failed",
                  statusMessage: "The task's work interrupted itself.",
                  error: { code: -32603, message: "The task's work interrupted itself before it ended." }
                })
              }
              const failure = Cause.findErrorOption(cause)
              if (Option.isSome(failure) && isMcpError(failure.value) && !Cause.hasDies(cause)) {
                const error = toJsonRpcError(failure.value)
                return settleLogged(taskId, { status: "failed", statusMessage: error.message, error })
              }
              const internal = new InternalError({ correlationId: `task-${taskId}` })
              return Effect.andThen(
                Effect.logError("task failed with a defect", { task: taskId, tool, cause: Cause.pretty(cause) }),
                settleLogged(taskId, {
                  status: "failed",
                  statusMessage: internal.message,
                  error: toJsonRpcError(internal)
                })
              )
            }
          }),
          Effect.flatMap((ended) =>
            Effect.logInfo("task", {
              task: taskId,
              tool,
              status: ended?.status,
              elapsed_ms: clock.currentTimeMillisUnsafe() - started
            })
          ),
          // Interrupted from outside, the work runs no recovery: a cancelled task is already settled (settle leaves
          // it). In memory, one cut off by the server's end is settled here, so that it is not kept working for
          // ever; under a durable store it stays as it is, and is taken over (another instance, or this one when
          // it starts again).
          Effect.onInterrupt(() =>
            durable !== undefined
              ? Effect.void
              : settleLogged(taskId, {
                  status: "failed",
                  statusMessage: "The task's work was interrupted: the server shut down before it ended.",
                  error: { code: -32603, message: "The server shut down before the task ended." }
                })
          ),
          Effect.ensuring(Effect.sync(() => running.delete(taskId)))
        ) as Effect.Effect<void>
      })

    const create = (tool: string) =>
      Effect.gen(function* () {
        const taskId = crypto.randomUUID()
        const createdAt = now()
        const task: Task = {
          taskId,
          status: "working",
          createdAt,
          lastUpdatedAt: createdAt,
          ttlMs: defaultTtlMs,
          pollIntervalMs
        }
        // Written before the call is answered: a tasks/get right after finds it.
        yield* ops.create(task)
        yield* Effect.annotateCurrentSpan({ "mcp.task.id": taskId, "mcp.tool": tool })
        return task
      })

    // Uninterruptible: a task written to the store always gets its work started (or is settled failed).
    const start: Runner["start"] = (work, startOptions) =>
      Effect.uninterruptible(
        Effect.gen(function* () {
          const task = yield* create(startOptions.tool)
          if (durable === undefined) {
            fork(run(task.taskId, work, startOptions))
            return task
          }
          // The work is kept here for the workflow's activity: with one instance it starts here (at once); with
          // several, on the instance that owns the task's shard, which takes it when that is this one and
          // otherwise serves the call again from its params (the entry goes when the task ends).
          registered.set(task.taskId, { work, options: startOptions })
          const payload: Durable.Payload = {
            taskId: task.taskId,
            tool: startOptions.tool,
            params: JSON.stringify(startOptions.params ?? { name: startOptions.tool }),
            ...(startOptions.principal === undefined ? {} : { principal: startOptions.principal })
          }
          return yield* durable.execute(payload).pipe(
            Effect.as(task),
            Effect.tapError((error) => {
              registered.delete(task.taskId)
              return Effect.ignore(
                settle(task.taskId, {
                  status: "failed",
                  statusMessage: error.message,
                  error: { code: -32603, message: error.message }
                })
              )
            })
          )
        })
      )

    const get: Runner["get"] = (taskId) =>
      Effect.flatMap(ops.get(taskId), (task) =>
        task === undefined ? Effect.fail(notFound(taskId)) : Effect.succeed(task)
      )

    // Answers reach the work where it runs: here, directly; elsewhere, through the store.
    const deliver = (taskId: string, responses: Record<string, unknown>): boolean => {
      const state = running.get(taskId)
      if (state === undefined) return false
      for (const [key, value] of Object.entries(responses)) {
        const waiter = state.waiting.get(key)
        if (waiter !== undefined) Deferred.doneUnsafe(waiter, Effect.succeed(value as Record<string, unknown>))
      }
      return true
    }

    const answer: Runner["answer"] = (taskId, responses) =>
      Effect.flatMap(get(taskId), (task): Effect.Effect<void, InvalidParams | RequestFailed> => {
        const outstanding = task.inputRequests ?? {}
        const given = Object.keys(responses).filter((key) => Object.hasOwn(outstanding, key))
        // Checked first, applied all together: a malformed answer applies nothing.
        for (const key of given) {
          const problem = answerProblem(outstanding[key]!.method, responses[key])
          if (problem !== undefined) {
            return Effect.fail(
              new InvalidParams({
                message: `Invalid params: inputResponses.${key} is not a valid answer to ${outstanding[key]!.method}: ${problem}.`,
                data: { reason: "input_response_malformed", key, taskId }
              })
            )
          }
        }
        if (given.length === 0) return Effect.void
        const answered = Object.fromEntries(given.map((key) => [key, responses[key]]))
        // Work running elsewhere gets the answers through the store, stored before the task says it has them: a
        // client whose tasks/update failed sends it again and finds the questions still open.
        const handOver = Effect.suspend(() =>
          durable === undefined || running.has(taskId) ? Effect.void : durable.sendAnswers(taskId, answered)
        )
        return Effect.flatMap(
          Effect.andThen(
            handOver,
            ops.update(taskId, (current) => {
              const left = Object.fromEntries(
                Object.entries(current.inputRequests ?? {}).filter(([key]) => !given.includes(key))
              )
              const waiting = Object.keys(left).length > 0
              return {
                ...current,
                status: waiting ? "input_required" : "working",
                inputRequests: waiting ? left : undefined,
                lastUpdatedAt: now()
              }
            })
          ),
          () => Effect.sync(() => void deliver(taskId, answered))
        )
      })

    const cancel: Runner["cancel"] = (taskId) =>
      Effect.flatMap(get(taskId), (task) => {
        if (isTerminal(task.status)) return Effect.void
        return Effect.flatMap(
          settle(taskId, { status: "cancelled", statusMessage: "Cancelled by the client (tasks/cancel)." }),
          () => {
            // The work stops, with everything it started (child processes included): here, or where it runs.
            running.get(taskId)?.fiber?.interruptUnsafe()
            registered.delete(taskId)
            return durable === undefined ? Effect.void : durable.interrupt(taskId)
          }
        )
      })

    // A task cancelled through another instance that shares the store: its work stops here too.
    fork(
      Stream.runForEach(store.changes, (task) =>
        Effect.sync(() => {
          if (task.status === "cancelled") running.get(task.taskId)?.fiber?.interruptUnsafe()
          // Work kept for an activity that ran on another instance is not needed once the task ended.
          if (isTerminal(task.status)) registered.delete(task.taskId)
        })
      )
    )
    // Answers given through another instance, for work that runs here: when announced, and every few seconds for
    // the tasks that wait for one (an announcement sent while this instance was reconnecting to the store is not
    // heard; the answers wait in the store).
    if (durable !== undefined) {
      const take = (taskId: string) =>
        running.get(taskId)?.waiting.size
          ? Effect.flatMap(
              Effect.orElseSucceed(durable.takeAnswers(taskId), () => ({})),
              (responses) => Effect.sync(() => void deliver(taskId, responses))
            )
          : Effect.void
      fork(Stream.runForEach(durable.answered, take))
      if (!durable.single) {
        fork(
          Effect.forever(
            Effect.andThen(
              Effect.sleep("3 seconds"),
              Effect.suspend(() => Effect.forEach([...running.keys()], take, { discard: true }))
            )
          )
        )
      }
    }

    const runner: Runner = {
      store,
      start,
      get,
      answer,
      cancel,
      activity:
        durable === undefined
          ? undefined
          : (payload, resume) =>
              Effect.gen(function* () {
                const taskId = payload.taskId
                // Counted before the work starts: an attempt that finds one before it was cut off by its instance.
                // Tried until the store answers: the workflow must not complete without the work.
                const attempt = yield* durable.claim(taskId).pipe(
                  Effect.tapError((error) =>
                    Effect.logError("task attempt not counted yet: retrying", { task: taskId, error: error.message })
                  ),
                  Effect.retry(Schedule.spaced("2 seconds")),
                  Effect.orDie
                )
                if (attempt === undefined) {
                  registered.delete(taskId)
                  return
                }
                const local = registered.get(taskId)
                registered.delete(taskId)
                if (local !== undefined && attempt === 1) return yield* run(taskId, local.work, local.options)
                if (attempt > 1 && options.durability?.(payload.tool) !== "rerun") {
                  const message =
                    `The instance running this task stopped before it ended, and ${payload.tool} is not safe to ` +
                    `run twice (durable: "fail"). Call ${payload.tool} again to start over.`
                  yield* Effect.logWarning("task taken over: failed", { task: taskId, tool: payload.tool, attempt })
                  return yield* Effect.asVoid(
                    settleLogged(taskId, { status: "failed", statusMessage: message, error: { code: -32603, message } })
                  )
                }
                if (attempt > 1) {
                  yield* Effect.logWarning("task taken over: run again", { task: taskId, tool: payload.tool, attempt })
                }
                // The tool runs again through the server; its Task.background hands the work to `resumed`, which
                // keeps it: the work runs here once the call is answered (outside the call's own time limit, under
                // the tool's policy as any task's work).
                let reached: { readonly work: Work; readonly options: StartOptions } | undefined
                const resumed: Runner = {
                  ...runner,
                  start: (work, startOptions) =>
                    Effect.suspend(() => {
                      reached = { work, options: startOptions }
                      return Effect.map(ops.get(taskId), (task) => task!)
                    })
                }
                yield* resume(payload, { taskId, runner: resumed })
                if (reached !== undefined) return yield* run(taskId, reached.work, reached.options)
                // The call did not reach its work this time: a handler that answered or asked for input first (its
                // input-required state expired, a tool this instance does not have).
                const message =
                  `The task could not be run again: ${payload.tool}'s handler did not reach its work when it was ` +
                  `served again on this instance (it answered, or asked for input, first; or the tool is not ` +
                  `registered here). Call ${payload.tool} again.`
                yield* Effect.asVoid(
                  settleLogged(taskId, { status: "failed", statusMessage: message, error: { code: -32603, message } })
                )
              })
    }
    return runner
  })

type Work = Effect.Effect<CallToolResult, MissingRequiredClientCapability, any>

/**
 * The runner of the server, for a request whose client declared the
 * extension: −32021 when it did not (checked before any task is looked up),
 * −32601 when the server was built without tasks.
 */
export const runnerFor = (
  method: string
): Effect.Effect<Runner, MissingRequiredClientCapability | MethodNotFound, RequestContext> =>
  Effect.flatMap(
    Effect.service(RequestContext),
    (request): Effect.Effect<Runner, MissingRequiredClientCapability | MethodNotFound> =>
      !declared(request.clientCapabilities)
        ? Effect.fail(missingExtension(method))
        : Effect.flatMap(Effect.service(TaskRunner), (runner) =>
            runner === undefined ? Effect.fail(new MethodNotFound({ method })) : Effect.succeed(runner)
          )
  )

/**
 * The runner of the server a request is served by; absent when a server was
 * built without tasks (a test kit's connection without `McpServer.make`).
 */
export const TaskRunner = Context.Reference<Runner | undefined>("effect-mcp-runtime/internal/TaskRunner", {
  defaultValue: () => undefined
})

/**
 * The call being served, when its tool may run as a task and its client
 * declared the extension: `Task.background` hands it the work.
 */
export interface TaskCall {
  /** Starts `work` (the rest of the handler) as a task; the call is then answered with the created task. */
  readonly start: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<never>
}

/** The current call's {@link TaskCall}, when it may start a task. */
export const CurrentTaskCall = Context.Reference<TaskCall | undefined>("effect-mcp-runtime/internal/TaskCall", {
  defaultValue: () => undefined
})

/** The services a task's work runs without: no progress, no log messages to a request that ended. */
const detached = (context: Context.Context<never>): Context.Context<never> =>
  context.pipe(
    Context.add(Progress, disabledProgress),
    Context.add(ClientLog, ClientLog.of({ enabled: () => false, log: () => Effect.void })),
    Context.add(CurrentTaskCall, undefined),
    Context.add(CurrentResumption, undefined)
  ) as Context.Context<never>
