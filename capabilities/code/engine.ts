/**
 * What `code_run` and every learned capability share: check an agent's code
 * (parse it, strip its types, find every `mcp.<namespace>.<tool>` it calls),
 * resolve each call to a published tool or a learned capability, then run it
 * in a fresh isolate where each call goes through the whole `tools/call`
 * pipeline (`NestedCall`).
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import * as Tracer from "effect/Tracer"
import { analyze, type Problem, type Reference } from "../../src/internal/codeAnalysis.ts"
import { ParserUnavailable, parserUnavailableSuggestion } from "../../src/internal/optionalParser.ts"
import { editDistance } from "../../src/internal/editDistance.ts"
import type { Kernel } from "../../src/Kernel.ts"
import { type CallToolResult, errorMetaKey } from "../../src/McpSchema.ts"
import * as NestedCall from "../../src/NestedCall.ts"
import { Progress } from "../../src/Progress.ts"
import type { RequestContext } from "../../src/RequestContext.ts"
import { CallFailed, type HostCall, type Sandbox, SandboxError } from "../../src/Sandbox.ts"
import * as Tool from "../../src/Tool.ts"
import type { CodeSettingsShape } from "./settings.ts"
import type { Learned } from "./store.ts"

/** The capability id of code mode: its own tools are never callable from code (no recursion through code_run). */
export const codeId = "code"

/**
 * The kinds of source the sandbox takes: JavaScript, or TypeScript whose
 * types are stripped before it runs.
 *
 * @category models
 * @since 0.3.0
 */
export type Language = "javascript" | "typescript"

/** What a reference resolves to: a published tool, or a learned capability (its dynamic tool). */
export interface Target {
  readonly namespace: string
  readonly name: string
  /** The public name the call goes to. */
  readonly tool: string
  readonly learned: boolean
}

/** One call a run made, as the result reports it. */
export interface CallReport {
  readonly tool: string
  readonly outcome: string
  readonly durationMs: number
  readonly error?: string | undefined
}

/** The result of a run. */
export interface RunReport {
  readonly value: unknown
  readonly console: ReadonlyArray<{ readonly level: string; readonly text: string }>
  readonly consoleTruncated: boolean
  readonly calls: ReadonlyArray<CallReport>
}

/** What the engine looks things up in. */
export interface Registry {
  readonly kernel: Kernel["Service"]
  /** Learned capabilities by name (`namespace:action`). */
  readonly learned: () => ReadonlyMap<string, Learned>
}

/** The public name of a learned capability's tool (the kernel puts `app_` in front of `<namespace>_<action>`). */
export const learnedTool = (name: string): string => `app_${name.replace(":", "_")}`

const position = (problem: { readonly line: number; readonly column: number }) =>
  `line ${problem.line}, column ${problem.column}`

const describeProblems = (problems: ReadonlyArray<Problem>): string =>
  problems.map((problem) => `- ${position(problem)}: ${problem.message}`).join("\n")

/** Every name code may call, as `namespace.name`, for suggestions. */
export const callable = (registry: Registry): ReadonlyArray<Target> => {
  const targets: Array<Target> = []
  const learnedTools = new Set<string>()
  for (const name of registry.learned().keys()) learnedTools.add(learnedTool(name))
  for (const name of registry.kernel.toolNames()) {
    const tool = registry.kernel.tool(name)
    if (tool === undefined || tool.capability === codeId || learnedTools.has(name)) continue
    const bare = name.slice(tool.capability.length + 1)
    // An alias (the conformance fixtures' names) has no capability prefix: code calls the tool by its own name.
    if (!name.startsWith(`${tool.capability}_`)) continue
    targets.push({ namespace: tool.capability, name: bare, tool: name, learned: false })
  }
  // A published tool wins over a learned capability of the same name (a capability enabled after it was saved).
  const published = new Set(targets.map((target) => `${target.namespace}\u0000${target.name}`))
  for (const learned of registry.learned().values()) {
    const [namespace, action] = learned.name.split(":") as [string, string]
    if (published.has(`${namespace}\u0000${action}`)) continue
    targets.push({ namespace, name: action, tool: learnedTool(learned.name), learned: true })
  }
  return targets
}

/** The three callable names nearest to `namespace.name`, written as code calls them. */
export const nearest = (targets: ReadonlyArray<Target>, namespace: string, name: string): ReadonlyArray<string> => {
  const wanted = `${namespace}.${name}`.toLowerCase()
  return targets
    .map((target) => ({ target, score: editDistance(wanted, `${target.namespace}.${target.name}`.toLowerCase()) }))
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map(({ target }) => `mcp.${target.namespace}.${accessor(target.name)}`)
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/
/** How code writes a name after `mcp.<namespace>`: `.name`, or `["get-x"]` for one that is not an identifier. */
export const accessor = (name: string): string => (identifier.test(name) ? name : `[${JSON.stringify(name)}]`)

/** The source checked, with what each call resolves to, or the problems found, as one message for the agent. */
export type Checked =
  | {
      readonly _tag: "Ok"
      readonly javascript: string
      readonly targets: ReadonlyMap<string, Target>
    }
  | { readonly _tag: "Refused"; readonly message: string; readonly code: string; readonly suggestion: string }

/**
 * Checks a source: it parses, uses `mcp` only as `mcp.<namespace>.<tool>(…)`,
 * and every tool it calls exists. `allowLearned` is false for a learned
 * capability's own code: a learned capability may call tools, never another
 * learned capability.
 */
export const check = (
  source: string,
  language: Language,
  registry: Registry,
  options: { readonly allowLearned: boolean; readonly maxCodeBytes: number }
): Checked => {
  const bytes = Buffer.byteLength(source, "utf8")
  if (bytes > options.maxCodeBytes) {
    return {
      _tag: "Refused",
      message: `The code is ${bytes} bytes, over the limit of ${options.maxCodeBytes} bytes.`,
      code: "code_too_large",
      suggestion: "Send less code: move the repetitive part into a loop, or save parts with code_save."
    }
  }
  let analysis: ReturnType<typeof analyze>
  try {
    analysis = analyze(source, { language })
  } catch (error) {
    if (!(error instanceof ParserUnavailable)) throw error
    return { _tag: "Refused", message: error.message, code: error.code, suggestion: parserUnavailableSuggestion }
  }
  if (analysis._tag === "Refused") {
    return {
      _tag: "Refused",
      message: `The code was not run:\n${describeProblems(analysis.problems)}`,
      code: analysis.problems.some((problem) => problem.kind === "syntax") ? "syntax_error" : "code_refused",
      suggestion:
        "Fix the code and send it again. Call tools only as `await mcp.<namespace>.<tool>({ … })`; call code_types " +
        "for every tool's typed signature."
    }
  }
  const all = callable(registry)
  const byName = new Map(all.map((target) => [`${target.namespace}\u0000${target.name}`, target] as const))
  const targets = new Map<string, Target>()
  const problems: Array<string> = []
  const refused = (reference: Reference, message: string) => problems.push(`- ${position(reference)}: ${message}`)
  for (const reference of analysis.references) {
    const written = `mcp.${reference.namespace}.${accessor(reference.name)}`
    if (reference.namespace === codeId) {
      refused(reference, `${written}: code mode's own tools cannot be called from code.`)
      continue
    }
    const target = byName.get(`${reference.namespace}\u0000${reference.name}`)
    if (target === undefined) {
      const near = nearest(all, reference.namespace, reference.name)
      refused(reference, `${written} is not a tool.${near.length === 0 ? "" : ` Nearest: ${near.join(", ")}.`}`)
      continue
    }
    if (target.learned && !options.allowLearned) {
      refused(
        reference,
        `${written} is a learned capability; a learned capability may call tools but not another learned ` +
          `capability.`
      )
      continue
    }
    targets.set(`${reference.namespace}\u0000${reference.name}`, target)
  }
  if (problems.length > 0) {
    return {
      _tag: "Refused",
      message: `The code was not run:\n${problems.join("\n")}`,
      code: "unknown_tool",
      suggestion: "Call code_types for every callable tool and its typed signature, then fix the calls."
    }
  }
  return { _tag: "Ok", javascript: analysis.javascript, targets }
}

// What a call's result becomes in the sandbox: the structured value when the tool gives one, the text of a
// text-only result, else the content blocks.
const valueOf = (result: CallToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const blocks = result.content
  if (blocks.length > 0 && blocks.every((block) => block.type === "text")) {
    return blocks.map((block) => (block as { readonly text: string }).text).join("\n")
  }
  return blocks
}

// A learned capability answers with its value as JSON text (and as structured content when it is an object):
// the caller's code gets the value itself, a number or a list included.
const learnedValue = (result: CallToolResult): unknown => {
  if (result.structuredContent !== undefined) return result.structuredContent
  const text = valueOf(result)
  if (typeof text !== "string") return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const errorText = (result: CallToolResult): string =>
  result.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { readonly text: string }).text)
    .join("\n")

/**
 * What one run and every learned capability it calls share: the calls left,
 * the CPU time left for the learned capabilities' isolates, and how many of
 * those may exist at once. A learned capability runs in an isolate of its
 * own, with limits of its own; without a shared budget, one run calling one
 * 1,000 times in parallel would hold 1,000 isolates and 1,000 CPU budgets.
 */
interface Budget {
  calls: number
  cpuMs: number
  readonly isolates: Semaphore.Semaphore
}

class RunBudget extends Context.Service<RunBudget, Budget>()("effect-mcp-runtime/capabilities/code/RunBudget") {}

/** How many learned capabilities' isolates one run may have at once (each has its own memory). */
export const nestedIsolates = 4

/**
 * Runs checked code in a fresh isolate. Each `mcp.*` call is a nested
 * `tools/call` (gate, confirmation, policy, audit, span); a failed one
 * rejects in the code with the tool's error text, `code` and `suggestion`.
 */
export const run = (
  sandbox: Sandbox["Service"],
  checked: Extract<Checked, { readonly _tag: "Ok" }>,
  input: unknown,
  settings: CodeSettingsShape
): Effect.Effect<RunReport, SandboxError, RequestContext> =>
  Effect.withFiber((fiber) => {
    const shared = Context.getOption(fiber.context as Context.Context<RunBudget>, RunBudget)
    const nested = shared._tag === "Some"
    const budget: Budget = nested
      ? shared.value
      : { calls: settings.maxCalls, cpuMs: settings.cpuMs, isolates: Semaphore.makeUnsafe(nestedIsolates) }
    const calls: Array<CallReport> = []
    let sequence = 0
    const bindings = new Map<string, Array<string>>()
    for (const target of checked.targets.values()) {
      const names = bindings.get(target.namespace) ?? []
      names.push(target.name)
      bindings.set(target.namespace, names)
    }
    const call = (host: HostCall): Effect.Effect<unknown, CallFailed, RequestContext> => {
      const target = checked.targets.get(`${host.namespace}\u0000${host.name}`)
      if (target === undefined) {
        return Effect.fail(new CallFailed({ message: `mcp.${host.namespace}.${host.name} is not bound.` }))
      }
      if (
        host.args !== undefined &&
        (typeof host.args !== "object" || host.args === null || Array.isArray(host.args))
      ) {
        return Effect.fail(
          new CallFailed({
            message: `mcp.${host.namespace}.${accessor(host.name)} takes one object of arguments.`,
            code: "invalid_arguments"
          })
        )
      }
      if (budget.calls <= 0) {
        return Effect.fail(
          new CallFailed({
            message:
              `The run has made ${settings.maxCalls} calls, its learned capabilities' calls included: its limit. ` +
              `This call was not made.`,
            code: "code_calls",
            suggestion: "Make fewer calls per run: batch the work, or split it across several runs."
          })
        )
      }
      budget.calls -= 1
      sequence += 1
      return Effect.flatMap(
        NestedCall.call(target.tool, host.args as Record<string, unknown> | undefined, sequence),
        (outcome) => {
          const failed = outcome.result.isError === true
          const text = failed ? errorText(outcome.result) : undefined
          calls.push({
            tool: outcome.tool,
            outcome: outcome.outcome,
            durationMs: Math.round(outcome.durationMs * 1000) / 1000,
            ...(text === undefined ? {} : { error: text.length > 500 ? `${text.slice(0, 500)}…` : text })
          })
          // A client that asked for progress hears of each call as it ends.
          const progress = Effect.flatMap(Effect.serviceOption(Progress), (service) =>
            service._tag === "Some" && service.value.enabled
              ? service.value.report({ progress: calls.length, message: `${outcome.tool}: ${outcome.outcome}` })
              : Effect.void
          )
          if (!failed)
            return Effect.as(progress, target.learned ? learnedValue(outcome.result) : valueOf(outcome.result))
          const details = outcome.result._meta?.[errorMetaKey] as
            | { readonly code?: unknown; readonly suggestion?: unknown }
            | undefined
          return Effect.andThen(
            progress,
            Effect.fail(
              new CallFailed({
                message: text ?? `${outcome.tool} failed`,
                ...(typeof details?.code === "string" ? { code: details.code } : {}),
                ...(typeof details?.suggestion === "string" ? { suggestion: details.suggestion } : {})
              })
            )
          )
        }
      )
    }
    // The calls run in the context of the run's own span (captured inside it), so each call's span is its child.
    let usedCpu = 0
    const ran = Effect.withFiber((inside) => {
      const context = inside.context as never
      return sandbox
        .run({
          code: checked.javascript,
          bindings,
          input,
          call: (host: HostCall) => Effect.provideContext(call(host), Context.add(context, RunBudget, budget)),
          limits: {
            memoryBytes: settings.memoryBytes,
            stackBytes: settings.stackBytes,
            cpuMs: nested ? Math.min(settings.cpuMs, budget.cpuMs) : settings.cpuMs,
            maxCalls: nested ? Math.max(0, budget.calls) : settings.maxCalls,
            maxConsoleBytes: settings.maxConsoleBytes,
            maxResultBytes: settings.maxResultBytes
          }
        })
        .pipe(
          Effect.map((output): RunReport => {
            usedCpu = output.cpuMs
            return {
              value: output.value,
              console: output.console,
              consoleTruncated: output.consoleTruncated,
              calls
            }
          }),
          Effect.mapError((error) => {
            usedCpu = error.cpuMs ?? 0
            return Object.assign(error, { calls })
          }),
          // A learned capability's isolate: one of the run's few at once, its CPU time taken from the run's budget.
          (self) =>
            nested
              ? Semaphore.withPermits(
                  budget.isolates,
                  1
                )(
                  Effect.suspend(() =>
                    budget.cpuMs <= 0
                      ? Effect.fail(
                          Object.assign(
                            new SandboxError({
                              reason: "cpu",
                              message:
                                `The learned capabilities this run called have used its CPU budget ` +
                                `(${settings.cpuMs} ms), and this one was not started. Call fewer learned ` +
                                `capabilities per run, or let tools do the heavy work.`,
                              console: []
                            }),
                            { calls }
                          )
                        )
                      : Effect.ensuring(
                          self,
                          Effect.sync(() => {
                            budget.cpuMs -= usedCpu
                          })
                        )
                  )
                )
              : self
        )
    })
    return fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? ran
      : Effect.withSpan(ran, "code.run", {
          attributes: { "mcp.code.calls.bound": checked.targets.size },
          captureStackTrace: false
        })
  })

/** A failed run as the tool's error: what stopped it, the console up to then, and the calls it made. */
export const runFailure = (error: SandboxError & { readonly calls?: ReadonlyArray<CallReport> }): Tool.ToolError => {
  const calls = error.calls ?? []
  const consoleLines = error.console ?? []
  const parts = [error.message]
  if (consoleLines.length > 0) {
    parts.push(`Console before it stopped:\n${consoleLines.map((line) => `[${line.level}] ${line.text}`).join("\n")}`)
  }
  if (calls.length > 0) {
    const shown = calls.slice(-20)
    parts.push(
      `Calls made (${calls.length}${calls.length > shown.length ? `, the last ${shown.length} shown` : ""}):\n` +
        shown.map((call) => `- ${call.tool}: ${call.outcome} (${call.durationMs} ms)`).join("\n")
    )
  }
  const suggestions: Record<string, string> = {
    syntax: "Fix the syntax and run it again.",
    thrown:
      "Read the error: a failed mcp.* call rejects with the tool's message, code and suggestion; catch it with " +
      "try/catch to handle it in code.",
    cpu: "Do less work per run: fewer iterations, or let the tools do the heavy work.",
    memory: "Build smaller values: process data in pieces and return only what is needed.",
    stack: "Replace deep recursion with a loop.",
    calls: "Make fewer calls per run: batch the work, or split it across several runs.",
    result: "Return less: a summary, a count, or the first items only.",
    unsettled: "Await every promise you create; the sandbox has no timers and no other source of events."
  }
  return new Tool.ToolError({
    message: parts.join("\n\n"),
    code: `code_${error.reason}`,
    suggestion: suggestions[error.reason] ?? "Fix the code and run it again."
  })
}
