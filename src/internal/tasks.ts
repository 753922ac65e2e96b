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
import * as Stream from "effect/Stream"
import { Client, ClientRequestFailed, InputKey } from "../Client.ts"
import { ClientLog } from "../ClientLog.ts"
import {
  InternalError,
  InvalidParams,
  isMcpError,
  MethodNotFound,
  MissingRequiredClientCapability,
  toJsonRpcError
} from "../McpError.ts"
import type { CallToolResult, ClientCapabilities } from "../McpSchema.ts"
import type { ProtocolVersion } from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import { disabled as disabledProgress, Progress } from "../Progress.ts"
import { isTerminal, type Task, type TaskStore } from "../TaskStore.ts"
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
  fiber: Fiber.Fiber<void> | undefined
  /** The input requests waiting for an answer, by key. */
  readonly waiting: Map<string, Deferred.Deferred<Record<string, unknown>>>
}

/** The tasks of one server. */
export interface Runner {
  readonly store: TaskStore["Service"]
  /**
   * Creates a task for `work` (a tool call's outcome, with everything it
   * needs provided), writes it to the store, and starts the work in the
   * server's scope. Returns the task as created.
   */
  readonly start: (
    work: Effect.Effect<CallToolResult, MissingRequiredClientCapability, any>,
    options: {
      readonly capabilities: ClientCapabilities
      /** The revision of the request that created the task (what its work's `Client` says it speaks). */
      readonly protocolVersion: ProtocolVersion
      readonly tool: string
      /** The services the work runs with (the handler's): the task's own replace the request's. */
      readonly context: Context.Context<never>
    }
  ) => Effect.Effect<Task>
  /** The task, or −32602 when there is none. */
  readonly get: (taskId: string) => Effect.Effect<Task, InvalidParams>
  /** Gives a task the client's answers to its input requests (unknown keys are ignored). */
  readonly answer: (taskId: string, responses: Record<string, unknown>) => Effect.Effect<void, InvalidParams>
  /** Cancels a task (an ended one stays as it is), interrupting its work and everything it started. */
  readonly cancel: (taskId: string) => Effect.Effect<void, InvalidParams>
}

/** Builds the runner of a server, its work forked with `fork`. */
export const make = (options: {
  readonly store: TaskStore["Service"]
  readonly fork: <A>(effect: Effect.Effect<A>) => Fiber.Fiber<A>
}): Effect.Effect<Runner> =>
  Effect.gen(function* () {
    const { fork, store } = options
    const clock = yield* Clock.Clock
    const running = new Map<string, Running>()
    const now = () => new Date(clock.currentTimeMillisUnsafe()).toISOString()

    // The end of a task's work, however it ended. A cancelled (terminal) task is never changed. `ttlMs` counts
    // from the creation: a task that ran longer than most of it is kept `defaultTtlMs` past its end, so that its
    // result is not dropped the moment it is there.
    const settle = (taskId: string, outcome: Partial<Task> & { readonly status: Task["status"] }) =>
      store.update(taskId, (task) => {
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
            return store
              .update(taskId, (task) => ({
                ...task,
                status: "input_required",
                inputRequests: { ...task.inputRequests, [key]: { method, params } },
                lastUpdatedAt: now()
              }))
              .pipe(
                Effect.andThen(Deferred.await(answer)),
                Effect.ensuring(Effect.sync(() => state.waiting.delete(key)))
              )
          })
      })
    }

    const start: Runner["start"] = (work, { capabilities, context, protocolVersion, tool }) =>
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
        yield* store.create(task)
        const state: Running = { fiber: undefined, waiting: new Map() }
        running.set(taskId, state)
        const started = clock.currentTimeMillisUnsafe()
        const body = work.pipe(
          Effect.provideContext(
            Context.add(detached(context), Client, clientFor(taskId, state, capabilities, protocolVersion))
          ),
          Effect.matchCauseEffect({
            onSuccess: (result) =>
              settle(taskId, { status: "completed", result: { resultType: "complete", ...result } }),
            onFailure: (cause) => {
              if (Cause.hasInterruptsOnly(cause)) {
                return settle(taskId, {
                  status: "failed",
                  statusMessage: "The task's work interrupted itself.",
                  error: { code: -32603, message: "The task's work interrupted itself before it ended." }
                })
              }
              const failure = Cause.findErrorOption(cause)
              if (Option.isSome(failure) && isMcpError(failure.value) && !Cause.hasDies(cause)) {
                const error = toJsonRpcError(failure.value)
                return settle(taskId, { status: "failed", statusMessage: error.message, error })
              }
              const internal = new InternalError({ correlationId: `task-${taskId}` })
              return Effect.andThen(
                Effect.logError("task failed with a defect", { task: taskId, tool, cause: Cause.pretty(cause) }),
                settle(taskId, { status: "failed", statusMessage: internal.message, error: toJsonRpcError(internal) })
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
          // it), one cut off by the server's end is settled here, so a store that outlives the process does not
          // keep it working for ever.
          Effect.onInterrupt(() =>
            settle(taskId, {
              status: "failed",
              statusMessage: "The task's work was interrupted: the server shut down before it ended.",
              error: { code: -32603, message: "The server shut down before the task ended." }
            })
          ),
          Effect.ensuring(Effect.sync(() => running.delete(taskId)))
        )
        state.fiber = fork(body as Effect.Effect<void>)
        return task
      })

    const get: Runner["get"] = (taskId) =>
      Effect.flatMap(store.get(taskId), (task) =>
        task === undefined ? Effect.fail(notFound(taskId)) : Effect.succeed(task)
      )

    const answer: Runner["answer"] = (taskId, responses) =>
      Effect.flatMap(get(taskId), (task): Effect.Effect<void, InvalidParams> => {
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
        return Effect.flatMap(
          store.update(taskId, (current) => {
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
          }),
          () =>
            Effect.sync(() => {
              const state = running.get(taskId)
              if (state === undefined) return
              for (const key of given) {
                const waiter = state.waiting.get(key)
                if (waiter !== undefined)
                  Deferred.doneUnsafe(waiter, Effect.succeed(responses[key] as Record<string, unknown>))
              }
            })
        )
      })

    const cancel: Runner["cancel"] = (taskId) =>
      Effect.flatMap(get(taskId), (task) => {
        if (isTerminal(task.status)) return Effect.void
        return Effect.flatMap(
          settle(taskId, { status: "cancelled", statusMessage: "Cancelled by the client (tasks/cancel)." }),
          () =>
            Effect.sync(() => {
              // The work stops, with everything it started (child processes included).
              running.get(taskId)?.fiber?.interruptUnsafe()
            })
        )
      })

    // A task cancelled through another instance that shares the store: its work stops here too. (Answers given
    // to another instance, tasks/update, do not reach the work: a shared store carries statuses, not answers.)
    fork(
      Stream.runForEach(store.changes, (task) =>
        task.status === "cancelled"
          ? Effect.sync(() => running.get(task.taskId)?.fiber?.interruptUnsafe())
          : Effect.void
      )
    )

    return { store, start, get, answer, cancel }
  })

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
    Context.add(CurrentTaskCall, undefined)
  ) as Context.Context<never>
