/**
 * The request front: the server lists exactly one tool, `request`, and every
 * published tool (a capability's, an upstream server's, a learned one) is a
 * verb of it under its public name. One call runs one verb, several verbs in
 * parallel, or a chain whose steps feed each other (`$prev`), written in a
 * small language (see `RequestDsl` and `docs/request.md`) or as JSON.
 *
 * Every op is a nested call through the whole `tools/call` pipeline (see
 * `NestedCall`): the gate decides per verb, each op is audited with a
 * correlation id of its own under the request's (`<request>/<n>`), its
 * tool's limits apply, and it takes a server-wide concurrency slot as a
 * `tools/call` would (the request itself takes none). The destructive ops of
 * a request are confirmed once, together, before anything runs. Cancelling
 * the call interrupts every op.
 *
 * The answer is always the same envelope:
 * `{"results":[…],"summary":{"total","succeeded","failed","aborted"}}`, one
 * result per op, in the order the request wrote them.
 *
 * Install it with {@link methods}: `McpServer.make({ methods })`, or
 * `mcp-runtime serve --front request`.
 *
 * @since 0.4.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { AuditLog } from "./AuditLog.ts"
import { Client } from "./Client.ts"
import * as Confirmation from "./Confirmation.ts"
import * as Elicitation from "./Elicitation.ts"
import { Gate } from "./Gate.ts"
import type { CompiledTool } from "./internal/compileTool.ts"
import { editDistance } from "./internal/editDistance.ts"
import * as Modern from "./internal/modern.ts"
import { utf8Length } from "./internal/utf8.ts"
import { Kernel } from "./Kernel.ts"
import { InvalidParams } from "./McpError.ts"
import { type CallToolResult, CallToolParams, errorMetaKey, PaginatedParams } from "./McpSchema.ts"
import * as Method from "./Method.ts"
import { defaultMethods } from "./methods/index.ts"
import { toolsCall } from "./methods/toolsCall.ts"
import { toolsList } from "./methods/toolsList.ts"
import * as NestedCall from "./NestedCall.ts"
import * as Presentation from "./Presentation.ts"
import * as Progress from "./Progress.ts"
import * as ProtocolVersion from "./ProtocolVersion.ts"
import { RequestContext } from "./RequestContext.ts"
import * as RequestDsl from "./RequestDsl.ts"

/**
 * The front's limits: the most ops one request may hold, and how deeply its
 * argument values may nest. Configuration: `request.maxOps`,
 * `request.maxDepth`.
 *
 * **Example**
 *
 * ```ts
 * import type { Settings } from "effect-mcp-runtime/RequestFront"
 *
 * const generous: Settings = { maxOps: 256, maxDepth: 32 }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Settings {
  readonly maxOps: number
  readonly maxDepth: number
}

/**
 * The front's settings in force (default: 64 ops, depth 32).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as RequestFront from "effect-mcp-runtime/RequestFront"
 *
 * const program = Effect.void.pipe(Effect.provideService(RequestFront.Settings, { maxOps: 16, maxDepth: 8 }))
 * ```
 *
 * @category services
 * @since 0.4.0
 */
export const Settings = Context.Reference<Settings>("effect-mcp-runtime/RequestFront/Settings", {
  defaultValue: () => ({ maxOps: RequestDsl.defaultLimits.maxOps, maxDepth: RequestDsl.defaultLimits.maxDepth })
})

/**
 * The name of the front's one tool.
 *
 * **Example**
 *
 * ```ts
 * import { toolName } from "effect-mcp-runtime/RequestFront"
 *
 * toolName // => "request"
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const toolName = "request"

/**
 * How one op ended, as the envelope reports it: its output (presented as
 * the request asked), its error (never transformed), or `aborted` when an
 * earlier step of its chain failed.
 *
 * **Example**
 *
 * ```ts
 * import type { OpResult } from "effect-mcp-runtime/RequestFront"
 *
 * const done: OpResult = { verb: "system_echo", ok: true, output: { text: "hi" } }
 * const stopped: OpResult = { verb: "workspace_write", ok: false, aborted: true }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export type OpResult =
  | { readonly verb: string; readonly ok: true; readonly output: unknown }
  | { readonly verb: string; readonly ok: false; readonly error: OpError }
  | { readonly verb: string; readonly ok: false; readonly aborted: true; readonly error?: OpError | undefined }

/**
 * An op's error: the code of the tool's error result (`invalid_arguments`,
 * `denied`, `timeout`, `write_conflict`, `missing_field`, …), its message
 * and, when the tool gave one, what to do next.
 *
 * **Example**
 *
 * ```ts
 * import type { OpError } from "effect-mcp-runtime/RequestFront"
 *
 * const denied: OpError = { code: "denied", message: "workspace_write is not allowed here." }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface OpError {
  readonly code: string
  readonly message: string
  readonly suggestion?: string | undefined
}

/**
 * The answer to every `request` call: one result per op, in order, and the
 * counts. `results.length === summary.total`, and `total` is the sum of the
 * other three.
 *
 * **Example**
 *
 * ```ts
 * import type { Envelope } from "effect-mcp-runtime/RequestFront"
 *
 * const answer: Envelope = {
 *   results: [{ verb: "system_echo", ok: true, output: { text: "hi" } }],
 *   summary: { total: 1, succeeded: 1, failed: 0, aborted: 0 }
 * }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Envelope {
  readonly results: ReadonlyArray<OpResult>
  readonly summary: {
    readonly total: number
    readonly succeeded: number
    readonly failed: number
    readonly aborted: number
  }
}

// ---------------------------------------------------------------------------
// The tool's definition

const describeVerbs = (names: ReadonlyArray<string>): string => (names.length === 0 ? "none yet" : names.join(", "))

const description = (names: ReadonlyArray<string>): string =>
  "Runs this server's operations (verbs), one or many per call. `ops` is a string: `verb(arg=value, ...)` runs " +
  "one verb; `a(...); b(...)` runs both in parallel; `a(...) | b(x=$prev.field)` runs them in order, a step " +
  "using the previous step's output as `$prev` (`$prev.path.to.field`, `$prev.items[0]`). Values are JSON: " +
  '"strings", numbers, true, false, null, [arrays], {objects}. `ops` may also be JSON: ' +
  '[{"verb":"...","args":{...}}] with `mode` "parallel" (default) or "chain". Call request(help=true) for ' +
  'the verbs with one line each, and ops="verb(help=true)" for a verb\'s arguments and an example (it does ' +
  'not run). The answer is {"results":[...],"summary":{"total","succeeded","failed","aborted"}}, one result ' +
  "per op, in order; a failed op says why and what to do. `presentation`: agent (default: fields that are " +
  'null, false or empty are left out, and arrays of objects are {"$cols":[...],"$rows":[[...]]} tables), ' +
  `verbose or human (each tool's output as it gave it). Verbs: ${describeVerbs(names)}.`

const inputSchema = (confirms: boolean) => ({
  type: "object",
  properties: {
    ops: {
      description:
        "What to run: a string such as 'workspace_read(path=\"a.ts\") | system_echo(text=$prev)', or a JSON " +
        "array of {verb, args}.",
      anyOf: [
        { type: "string" },
        {
          type: "array",
          items: {
            type: "object",
            properties: { verb: { type: "string" }, args: { type: "object" } },
            required: ["verb"],
            additionalProperties: false
          }
        }
      ]
    },
    mode: {
      type: "string",
      enum: ["parallel", "chain"],
      description: "For ops as a JSON array: run them in parallel (default) or as a chain."
    },
    presentation: {
      type: "string",
      enum: Presentation.modes,
      description: "agent: compact output (default); verbose or human: the tools' output as they gave it."
    },
    help: {
      type: "boolean",
      description: "true, without ops: list the verbs, one line each."
    },
    ...(confirms
      ? {
          [Confirmation.argument]: {
            ...Confirmation.argumentSchema,
            description:
              "Some verbs change or delete things. Set to true only after the user agreed to these exact ops; " +
              "not needed when the server can ask the user itself."
          }
        }
      : {})
  },
  additionalProperties: false
})

// The tool's `tools/list` entry per revision family, cached for one registry state.
let cachedKey: string | undefined
let cachedEntries: { readonly legacy: string; readonly full: string } | undefined

const listEntries = (kernel: Kernel["Service"]): { readonly legacy: string; readonly full: string } => {
  const names = kernel.toolNames()
  let confirms = false
  for (const name of names) if (kernel.tool(name)?.confirms === true) confirms = true
  const key = `${confirms}:${names.join(",")}`
  if (cachedKey === key && cachedEntries !== undefined) return cachedEntries
  const definition = { name: toolName, description: description(names), inputSchema: inputSchema(confirms) }
  cachedEntries = {
    legacy: JSON.stringify(definition),
    full: JSON.stringify({ ...definition, title: "Request" })
  }
  cachedKey = key
  return cachedEntries
}

// ---------------------------------------------------------------------------
// Requests

const RequestArguments = Schema.Struct({
  ops: Schema.optionalKey(Schema.Unknown),
  mode: Schema.optionalKey(Schema.Unknown),
  presentation: Schema.optionalKey(Schema.Unknown),
  help: Schema.optionalKey(Schema.Unknown),
  [Confirmation.argument]: Schema.optionalKey(Schema.Unknown)
})
const known = new Set(Object.keys(RequestArguments.fields))

const invalid = (message: string, data?: unknown): InvalidParams =>
  new InvalidParams(data === undefined ? { message } : { message, data })

const dslError = (error: RequestDsl.RequestDslError): InvalidParams =>
  invalid(error.message, {
    reason: error.reason,
    ...(error.position === undefined
      ? {}
      : { line: error.position.line, column: error.position.column, offset: error.position.offset }),
    ...(error.path === undefined ? {} : { path: error.path })
  })

const nearest = (names: ReadonlyArray<string>, wanted: string): ReadonlyArray<string> =>
  names
    .map((name) => ({ name, score: editDistance(wanted.toLowerCase(), name.toLowerCase()) }))
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1))
    .slice(0, 3)
    .map(({ name }) => name)

const where = (op: RequestDsl.Op): string =>
  op.position !== undefined
    ? ` at ${op.position.line}:${op.position.column}`
    : op.path === undefined
      ? ""
      : ` (${op.path})`

// A literal argument tree as plain JSON; undefined when it holds a `$prev`.
const literal = (value: RequestDsl.Value): { readonly value: unknown } | undefined => {
  switch (value._tag) {
    case "Literal":
      return { value: value.value }
    case "Prev":
      return undefined
    case "List": {
      const items: Array<unknown> = []
      for (const item of value.items) {
        const plain = literal(item)
        if (plain === undefined) return undefined
        items.push(plain.value)
      }
      return { value: items }
    }
    case "Record": {
      const out: Record<string, unknown> = {}
      for (const [key, entry] of value.entries) {
        const plain = literal(entry)
        if (plain === undefined) return undefined
        Object.defineProperty(out, key, { value: plain.value, enumerable: true, writable: true, configurable: true })
      }
      return { value: out }
    }
  }
}

const literalArgs = (args: RequestDsl.Op["args"]): Record<string, unknown> | undefined => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of args) {
    const plain = literal(value)
    if (plain === undefined) return undefined
    Object.defineProperty(out, key, { value: plain.value, enumerable: true, writable: true, configurable: true })
  }
  return out
}

const declaresHelp = (tool: CompiledTool): boolean => {
  const entry = JSON.parse(tool.listEntry["2025-06-18"]) as { readonly inputSchema?: { readonly properties?: object } }
  return entry.inputSchema?.properties !== undefined && "help" in entry.inputSchema.properties
}

// `verb(help=true)`: a help op (unless the verb has an argument of that name).
const isHelp = (op: RequestDsl.Op, tool: CompiledTool): boolean =>
  op.args.some(([key, value]) => key === "help" && value._tag === "Literal" && value.value === true) &&
  !declaresHelp(tool)

/** One op, planned: its tool, and what stops it before it runs. */
interface Planned {
  readonly op: RequestDsl.Op
  readonly tool: CompiledTool
  readonly help: boolean
  /** Why it does not run (a conflict, a refused confirmation), decided before anything runs. */
  stopped: OpError | undefined
  /** Not run because another op of the request could not be confirmed: reported aborted, aborting nothing. */
  held: boolean
  confirmed: boolean
}

const errorOf = (result: CallToolResult): OpError => {
  const details = result._meta?.[errorMetaKey] as { readonly code?: unknown; readonly suggestion?: unknown } | undefined
  const text = result.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { readonly text: string }).text)
    .join("\n")
  const suggestion = typeof details?.suggestion === "string" ? details.suggestion : undefined
  // The runtime's error texts end with the suggestion; it is given on its own.
  const marker = suggestion === undefined ? -1 : text.lastIndexOf(`\nSuggestion: ${suggestion}`)
  return {
    code: typeof details?.code === "string" ? details.code : "tool_error",
    message: marker === -1 ? text : text.slice(0, marker),
    ...(suggestion === undefined ? {} : { suggestion })
  }
}

// ---------------------------------------------------------------------------
// Help

// The first sentence: up to the first `.`, `!` or `?` before a space or the end, "e.g." and "i.e." not counted.
const firstSentence = (text: string): string => {
  const end = /[.!?](?=\s|$)/g
  let sentence = text
  for (let match = end.exec(text); match !== null; match = end.exec(text)) {
    if (/(?:^|[\s(])(?:e\.g|i\.e)$/i.test(text.slice(0, match.index))) continue
    sentence = text.slice(0, match.index + 1)
    break
  }
  const line = sentence.replace(/\s+/g, " ").trim()
  return line.length > 160 ? `${line.slice(0, 159)}…` : line
}

const placeholder = (name: string, schema: Record<string, unknown>): unknown => {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if ("const" in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case "string":
      return `<${name}>`
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1
    case "boolean":
      return true
    case "array":
      return []
    case "object":
      return {}
    default:
      return `<${name}>`
  }
}

/** A verb's help: what it does, its input schema and an example call with its required arguments. */
const verbHelp = (tool: CompiledTool) => {
  const entry = JSON.parse(tool.listEntry["2025-06-18"]) as {
    readonly inputSchema: {
      readonly properties?: Record<string, Record<string, unknown>>
      readonly required?: ReadonlyArray<string>
    }
    readonly outputSchema?: unknown
  }
  const properties = entry.inputSchema.properties ?? {}
  const required = (entry.inputSchema.required ?? []).filter((name) => name !== Confirmation.argument)
  const args = required
    .map((name) => `${formatKey(name)}=${RequestDsl.formatValue(placeholder(name, properties[name] ?? {}))}`)
    .join(", ")
  return {
    verb: tool.name,
    description: tool.description,
    inputSchema: entry.inputSchema,
    ...(entry.outputSchema === undefined ? {} : { outputSchema: entry.outputSchema }),
    example: `${tool.name}(${args})`,
    ...(tool.confirms ? { confirms: true } : {})
  }
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/
const formatKey = (key: string): string => (identifier.test(key) ? key : JSON.stringify(key))

const verbList = (kernel: Kernel["Service"], mode: Presentation.Mode): CallToolResult => {
  const verbs = kernel.toolNames().flatMap((name) => {
    const tool = kernel.tool(name)
    return tool === undefined ? [] : [{ verb: name, description: firstSentence(tool.description) }]
  })
  if (mode === "agent") {
    return {
      content: [
        {
          type: "text",
          text:
            `${verbs.length} verbs. ops="verb(help=true)" shows one's arguments.\n` +
            verbs.map((verb) => `${verb.verb}: ${verb.description}`).join("\n")
        }
      ]
    }
  }
  const structured = { verbs }
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured }
}

// ---------------------------------------------------------------------------
// Running

const summaryOf = (results: ReadonlyArray<OpResult>): Envelope["summary"] => {
  let succeeded = 0
  let failed = 0
  let aborted = 0
  for (const result of results) {
    if (result.ok) succeeded++
    else if ("aborted" in result) aborted++
    else failed++
  }
  return { total: results.length, succeeded, failed, aborted }
}

const conflictError = (verb: string, key: string, others: ReadonlyArray<string>): OpError => ({
  code: "write_conflict",
  message: `${verb} was not run: it writes ${key}, which ${others.join(", ")} in this request also ${
    others.length === 1 ? "writes" : "write"
  } at the same time.`,
  suggestion:
    "Put the ops that write the same thing in one chain (a | b), which runs them in order, or send them in " +
    "separate requests."
})

const missingFieldError = (error: RequestDsl.MissingField): OpError => ({
  code: "missing_field",
  message: error.message,
  suggestion: "Use one of the fields the previous step's output has, or change the previous step."
})

const abortedBy = (verb: string): OpError => ({
  code: "aborted",
  message: `Not run: ${verb}, an earlier step of this chain, failed.`
})

// The error codes of ops that ended without their tool running: their write keys are not written.
const notRun = new Set([
  "write_conflict",
  "missing_field",
  "aborted",
  "not_confirmed",
  "confirmation_required",
  "confirmation_failed",
  "denied",
  "invalid_arguments",
  "unknown_tool"
])

const internalError = (correlationId: string): OpError => ({
  code: "internal_error",
  message:
    `Internal error while running the op (correlation id ${correlationId}). The server log has the details; ` +
    `retrying will not help until the server is fixed.`
})

/**
 * Runs a planned request: each pipeline on its own fiber, its steps in
 * order; a step that fails aborts the steps after it. Every op the front
 * stops itself (a conflict, a refused confirmation, a missing field, an
 * aborted step) is audited here; the ops that run are audited by the
 * pipeline they run through.
 */
const runPlan = (
  planned: ReadonlyArray<Planned>,
  program: RequestDsl.Program,
  mode: Presentation.Mode,
  audited: (index: number, args: unknown, outcome: string) => Effect.Effect<void>
): Effect.Effect<ReadonlyArray<OpResult>, never, RequestContext | Progress.Progress> => {
  const results: Array<OpResult | undefined> = planned.map(() => undefined)
  // Each op's end is a progress report to a client that asked for progress: "<n> of <total>: <verb> ok".
  let done = 0
  const settle = (index: number, result: OpResult) =>
    Effect.suspend(() => {
      results[index] = result
      done += 1
      return Progress.report({
        progress: done,
        total: planned.length,
        message: `${result.verb} ${result.ok ? "ok" : "aborted" in result ? "aborted" : result.error.code}`
      })
    })
  // Write keys claimed, by op index: static ones now, the ones that depend on `$prev` when their step runs.
  const claims = new Map<string, Array<number>>()
  const claim = (key: string, index: number) => {
    const list = claims.get(key)
    if (list === undefined) claims.set(key, [index])
    else if (!list.includes(index)) list.push(index)
  }
  for (const entry of planned) {
    if (entry.stopped !== undefined || entry.help) continue
    const args = literalArgs(entry.op.args)
    if (args === undefined) continue
    for (const key of entry.tool.writeKeys(args)) claim(key, entry.op.index)
  }
  // A claim counts while its op may still write: pending, running, or run (not ended without running).
  const live = (index: number): boolean => {
    const result = results[index]
    if (result === undefined || result.ok) return true
    return !("aborted" in result) && !notRun.has(result.error.code)
  }
  const runPipeline = (
    indices: ReadonlyArray<number>
  ): Effect.Effect<void, never, RequestContext | Progress.Progress> =>
    Effect.gen(function* () {
      let prev: unknown = undefined
      let failedVerb: string | undefined
      const stop = (index: number, args: unknown, result: OpResult & { readonly ok: false }) =>
        Effect.andThen(settle(index, result), audited(index, args, "aborted" in result ? "aborted" : result.error.code))
      for (const index of indices) {
        const entry = planned[index]!
        const verb = entry.tool.name
        const written = literalArgs(entry.op.args) ?? {}
        if (failedVerb !== undefined) {
          yield* stop(index, written, { verb, ok: false, aborted: true, error: abortedBy(failedVerb) })
          continue
        }
        if (entry.held) {
          // Every op of the request is held: each reports its own reason, none aborts the next.
          yield* stop(index, written, { verb, ok: false, aborted: true, error: entry.stopped! })
          continue
        }
        if (entry.stopped !== undefined) {
          yield* stop(index, written, { verb, ok: false, error: entry.stopped })
          failedVerb = verb
          continue
        }
        const resolved =
          entry.op.step === 0 ? literalResult(entry.op.args) : RequestDsl.resolveArgs(entry.op.args, prev)
        if (Result.isFailure(resolved)) {
          yield* stop(index, written, { verb, ok: false, error: missingFieldError(resolved.failure) })
          failedVerb = verb
          continue
        }
        const args = resolved.success
        if (entry.help) {
          const help = verbHelp(entry.tool)
          yield* settle(index, { verb, ok: true, output: help })
          prev = help
          continue
        }
        // Keys known only now: a live claim of another pipeline is a conflict.
        if (literalArgs(entry.op.args) === undefined) {
          const keys = entry.tool.writeKeys(args)
          let conflict: { readonly key: string; readonly other: number } | undefined
          for (const key of keys) {
            const other = claims
              .get(key)
              ?.find((claimant) => planned[claimant]!.op.pipeline !== entry.op.pipeline && live(claimant))
            if (other !== undefined) {
              conflict = { key, other }
              break
            }
          }
          if (conflict !== undefined) {
            yield* stop(index, args, {
              verb,
              ok: false,
              error: conflictError(verb, conflict.key, [planned[conflict.other]!.tool.name])
            })
            failedVerb = verb
            continue
          }
          for (const key of keys) claim(key, index)
        }
        const outcome = yield* NestedCall.call(verb, args, index + 1, { confirmed: entry.confirmed, slot: true }).pipe(
          // A defect outside the tool (its result is made by the pipeline): this op's, never its siblings'.
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.failCause(cause)
              : Effect.flatMap(Effect.service(RequestContext), (request) =>
                  Effect.as(
                    Effect.logError("request: an op failed with a defect", {
                      verb,
                      correlation_id: `${request.correlationId}/${index + 1}`,
                      cause: Cause.pretty(cause)
                    }),
                    { defect: internalError(`${request.correlationId}/${index + 1}`) }
                  )
                )
          )
        )
        if ("defect" in outcome) {
          yield* settle(index, { verb, ok: false, error: outcome.defect })
          failedVerb = verb
          continue
        }
        if (outcome.result.isError === true) {
          yield* settle(index, { verb, ok: false, error: errorOf(outcome.result) })
          failedVerb = verb
          continue
        }
        const output = Presentation.canonical(outcome.result)
        yield* settle(index, { verb, ok: true, output: Presentation.present(output, mode, entry.tool.presentation) })
        prev = output
      }
    })
  return Effect.as(
    Effect.forEach(program.pipelines, runPipeline, { concurrency: "unbounded", discard: true }),
    results as ReadonlyArray<OpResult>
  )
}

const literalResult = (args: RequestDsl.Op["args"]): Result.Result<Record<string, unknown>, RequestDsl.MissingField> =>
  Result.succeed(literalArgs(args) ?? {})

// ---------------------------------------------------------------------------
// The methods

interface Parsed {
  readonly program: RequestDsl.Program | undefined
  readonly help: boolean
  readonly presentation: Presentation.Mode
  readonly confirm: boolean
}

const parseArguments = (
  args: Record<string, unknown> | undefined,
  settings: Settings
): Result.Result<Parsed, InvalidParams> => {
  const given = args ?? {}
  for (const key of Object.keys(given)) {
    if (!known.has(key)) {
      return Result.fail(
        invalid(
          `Unknown argument of request: ${JSON.stringify(key)}. Its arguments are ops, mode, presentation, help` +
            ` and ${Confirmation.argument}; a verb's arguments go inside ops: ops="verb(${key}=...)".`,
          { argument: key }
        )
      )
    }
  }
  const presentation = given.presentation ?? "agent"
  if (typeof presentation !== "string" || !(Presentation.modes as ReadonlyArray<string>).includes(presentation)) {
    return Result.fail(
      invalid(`request: presentation must be one of agent, verbose, human; got ${JSON.stringify(presentation)}.`)
    )
  }
  if (given.help !== undefined && typeof given.help !== "boolean") {
    return Result.fail(invalid(`request: help must be true or false; got ${JSON.stringify(given.help)}.`))
  }
  const confirm = given[Confirmation.argument]
  if (confirm !== undefined && typeof confirm !== "boolean") {
    return Result.fail(
      invalid(`request: ${Confirmation.argument} must be true or false; got ${JSON.stringify(confirm)}.`)
    )
  }
  const help = given.help === true
  const base = { help, presentation: presentation as Presentation.Mode, confirm: confirm === true }
  if (given.ops === undefined) {
    if (help) return Result.succeed({ ...base, program: undefined })
    return Result.fail(
      invalid(
        'request needs ops: e.g. ops="system_echo(text=\\"hi\\")". Call request with help=true to list the verbs.'
      )
    )
  }
  if (help) {
    return Result.fail(
      invalid('request: help=true lists the verbs and takes no ops; for one verb\'s help use ops="verb(help=true)".')
    )
  }
  const limits = { maxOps: settings.maxOps, maxDepth: settings.maxDepth }
  if (typeof given.ops === "string") {
    if (given.mode !== undefined) {
      return Result.fail(
        invalid(
          "request: mode applies to ops given as a JSON array; in the ops string, `;` runs ops in parallel and `|` " +
            "chains them."
        )
      )
    }
    const program = RequestDsl.parse(given.ops, limits)
    return Result.isFailure(program)
      ? Result.fail(dslError(program.failure))
      : Result.succeed({ ...base, program: program.success })
  }
  const program = RequestDsl.fromJson(given.ops, given.mode, limits)
  return Result.isFailure(program)
    ? Result.fail(dslError(program.failure))
    : Result.succeed({ ...base, program: program.success })
}

// Unknown verbs are refused before anything runs, naming the nearest ones.
const planOps = (
  kernel: Kernel["Service"],
  program: RequestDsl.Program
): Result.Result<Array<Planned>, InvalidParams> => {
  const planned: Array<Planned> = []
  for (const op of program.ops) {
    const tool = kernel.tool(op.verb)
    if (tool === undefined) {
      const near = nearest(kernel.toolNames(), op.verb)
      return Result.fail(
        invalid(
          `Unknown verb${where(op)}: ${op.verb}.${near.length === 0 ? "" : ` Nearest: ${near.join(", ")}.`} ` +
            `Call request with help=true to list the verbs. Nothing was run.`,
          {
            verb: op.verb,
            nearest: near,
            ...(op.position === undefined ? {} : { line: op.position.line, column: op.position.column })
          }
        )
      )
    }
    planned.push({ op, tool, help: isHelp(op, tool), stopped: undefined, held: false, confirmed: false })
  }
  // Ops of different pipelines (they run at the same time) that write the same key.
  const writers = new Map<string, Array<Planned>>()
  for (const entry of planned) {
    if (entry.help) continue
    const args = literalArgs(entry.op.args)
    if (args === undefined) continue
    for (const key of entry.tool.writeKeys(args)) {
      const list = writers.get(key)
      if (list === undefined) writers.set(key, [entry])
      else if (!list.includes(entry)) list.push(entry)
    }
  }
  for (const [key, list] of writers) {
    const pipelines = new Set(list.map((entry) => entry.op.pipeline))
    if (pipelines.size < 2) continue
    for (const entry of list) {
      if (entry.stopped !== undefined) continue
      const others = list.filter((other) => other.op.pipeline !== entry.op.pipeline).map((other) => other.tool.name)
      entry.stopped = conflictError(entry.tool.name, key, [...new Set(others)])
    }
  }
  return Result.succeed(planned)
}

// `$prev`, and what it stands for: the step before, as written.
const describeOp = (op: RequestDsl.Op, program: RequestDsl.Program): string => {
  const text = RequestDsl.format(op)
  if (op.step === 0 || literalArgs(op.args) !== undefined) return text
  const before = program.pipelines[op.pipeline]![op.step - 1]!
  return `${text}   ($prev: the output of ${RequestDsl.format(program.ops[before]!)})`
}

/**
 * The destructive ops are confirmed together, before any op runs: one
 * question listing each of them. An op whose arguments come from `$prev`
 * is asked about when it runs instead, with its real arguments, when the
 * client can be asked then (a legacy session with elicitation); otherwise
 * it is in the question, with the step `$prev` stands for. An op the gate
 * denies is left out (it will be denied). When the client cannot ask and
 * the request has no `confirm: true`, nothing runs.
 */
const confirmAll = (
  planned: ReadonlyArray<Planned>,
  program: RequestDsl.Program,
  given: boolean
): Effect.Effect<void, never, Client | RequestContext> =>
  Effect.gen(function* () {
    const request = yield* RequestContext
    const client = yield* Effect.service(Client)
    const gate = yield* Effect.serviceOption(Gate)
    const askLater = !ProtocolVersion.isModern(request.protocolVersion) && Elicitation.supportsForm(client)
    const needing: Array<Planned> = []
    for (const entry of planned) {
      if (!entry.tool.confirms || entry.help || entry.stopped !== undefined) continue
      // An op whose arguments are known and that the tool's confirmWhen exempts (a preview) is not asked about.
      const literal = literalArgs(entry.op.args)
      if (literal !== undefined && !entry.tool.confirmsCall(literal)) continue
      if (yield* Confirmation.isPreApproved(entry.tool.name)) continue
      if (askLater && literalArgs(entry.op.args) === undefined) continue
      if (gate._tag === "Some") {
        const allowed = yield* Effect.isSuccess(
          gate.value.check(
            request.principal === undefined
              ? { method: "tools/call", name: entry.tool.name }
              : { method: "tools/call", name: entry.tool.name, principal: request.principal.subject }
          )
        )
        if (!allowed) continue
      }
      needing.push(entry)
    }
    if (needing.length === 0) return
    const decision = yield* Confirmation.decideMany(
      toolName,
      needing.map((entry) => describeOp(entry.op, program)),
      given
    )
    if (decision._tag === "Go") {
      for (const entry of needing) entry.confirmed = true
      return
    }
    const error = errorOf(decision.result)
    for (const entry of needing) entry.stopped = error
    // Without a way to ask, the agent must come back with `confirm: true`: nothing runs now, or it would run twice.
    if (error.code === "confirmation_required") {
      const notRunYet: OpError = {
        code: "confirmation_required",
        message: `Not run: this request needs the user's confirmation first (for ${needing
          .map((entry) => entry.tool.name)
          .join(", ")}).`,
        suggestion: error.suggestion
      }
      for (const entry of planned) {
        if (entry.stopped === undefined) {
          entry.stopped = notRunYet
          entry.held = true
        }
      }
    }
  })

const textResult = (value: unknown, mode: Presentation.Mode, isError: boolean): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  ...(mode === "agent" ? {} : { structuredContent: value as Record<string, unknown> }),
  ...(isError ? { isError: true } : {})
})

// The result as the session's revision takes it (no structured content before 2025-06-18).
const answer = (result: CallToolResult, version: ProtocolVersion.ProtocolVersion): Method.RawJson => {
  if (ProtocolVersion.hasStructuredContent(version) || result.structuredContent === undefined) {
    return new Method.RawJson(JSON.stringify(result))
  }
  const { structuredContent: _, ...rest } = result
  return new Method.RawJson(JSON.stringify(rest))
}

const unknownTool = (name: string): InvalidParams =>
  invalid(
    `Unknown tool: ${name}. This server has one tool, request, and every operation is a verb of it: call request ` +
      `with ops="${/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name) ? name : "verb"}(...)". request with help=true lists the verbs.`,
    { tool: name }
  )

/**
 * `tools/list` under the front: the one tool, `request`, whose description
 * names every verb.
 *
 * **Example**
 *
 * ```ts
 * import { frontToolsList } from "effect-mcp-runtime/RequestFront"
 *
 * frontToolsList.name // => "tools/list"
 * ```
 *
 * @category methods
 * @since 0.4.0
 */
export const frontToolsList = Method.request("tools/list", {
  params: PaginatedParams,
  handler: Effect.fnUntraced(function* (params) {
    const kernel = yield* Kernel
    const request = yield* RequestContext
    if (params.cursor !== undefined) {
      return yield* invalid(`Invalid cursor for tools/list: ${JSON.stringify(params.cursor)}. The list has one page.`)
    }
    const entries = listEntries(kernel)
    const entry = ProtocolVersion.hasStructuredContent(request.protocolVersion) ? entries.full : entries.legacy
    return yield* Modern.listPage(`{"tools":[${entry}]}`)
  })
})

/**
 * `tools/call` under the front: `request` runs its ops; any other name is
 * an unknown tool (−32602) that says how to call it as a verb. Invalid ops
 * (a syntax error, an unknown verb, too many ops, too deep a value) are a
 * −32602 error with the position, and nothing runs.
 *
 * **Example**
 *
 * ```ts
 * import { frontToolsCall } from "effect-mcp-runtime/RequestFront"
 *
 * frontToolsCall.name // => "tools/call"
 * ```
 *
 * @category methods
 * @since 0.4.0
 */
export const frontToolsCall = Method.request("tools/call", {
  params: CallToolParams,
  inputRequests: true,
  routingName: (params) => (typeof params.name === "string" ? params.name : undefined),
  handler: (params) =>
    Effect.gen(function* () {
      if (params.name !== toolName) return yield* unknownTool(params.name)
      const kernel = yield* Kernel
      const request = yield* RequestContext
      const settings = yield* Settings
      const audit = yield* Effect.serviceOption(AuditLog)
      request.record.tool = toolName
      const started = yield* Clock.currentTimeMillis
      const record = (outcome: string, bytesOut: number | undefined) =>
        audit._tag === "None"
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (now) =>
              audit.value.record({
                time: new Date(now).toISOString(),
                correlationId: request.correlationId,
                tool: toolName,
                arguments: params.arguments ?? {},
                outcome,
                durationMs: now - started,
                bytesIn: utf8Length(JSON.stringify(params.arguments ?? {})),
                ...(bytesOut === undefined ? {} : { bytesOut })
              })
            )
      const refuse = (error: InvalidParams) =>
        Effect.andThen(
          Effect.sync(() => {
            request.record.outcome = "invalid_params"
          }),
          Effect.andThen(record("invalid_params", undefined), Effect.fail(error))
        )
      const parsed = parseArguments(params.arguments, settings)
      if (Result.isFailure(parsed)) return yield* refuse(parsed.failure)
      const { confirm, presentation, program } = parsed.success
      let result: CallToolResult
      let outcome: string
      if (program === undefined) {
        result = verbList(kernel, presentation)
        outcome = "ok"
      } else {
        const planned = planOps(kernel, program)
        if (Result.isFailure(planned)) return yield* refuse(planned.failure)
        const ops = planned.success
        // Each op the front stops itself is audited as the pipeline audits the ones that run.
        const audited = (index: number, args: unknown, opOutcome: string) =>
          audit._tag === "None"
            ? Effect.void
            : Effect.flatMap(Clock.currentTimeMillis, (now) =>
                audit.value.record({
                  time: new Date(now).toISOString(),
                  correlationId: `${request.correlationId}/${index + 1}`,
                  tool: ops[index]!.tool.name,
                  arguments: args,
                  outcome: opOutcome,
                  durationMs: 0,
                  bytesIn: utf8Length(JSON.stringify(args))
                })
              )
        const results = yield* Effect.andThen(
          confirmAll(ops, program, confirm),
          runPlan(ops, program, presentation, audited)
        ).pipe(
          Effect.onInterrupt(() =>
            // An input-required round ends the handler by interruption: the retry is the same request.
            request.record.outcome === "input_required"
              ? Effect.void
              : Effect.andThen(
                  Effect.sync(() => {
                    request.record.outcome = "cancelled"
                  }),
                  record("cancelled", undefined)
                )
          )
        )
        const envelope: Envelope = { results, summary: summaryOf(results) }
        outcome = envelope.summary.succeeded === envelope.summary.total ? "ok" : "ops_failed"
        result = textResult(envelope, presentation, envelope.summary.succeeded === 0)
      }
      request.record.outcome = outcome
      const json = answer(result, request.protocolVersion)
      yield* record(outcome, utf8Length(json.json))
      return json
    })
})

/**
 * The server's method table with the request front installed: `tools/list`
 * and `tools/call` replaced by {@link frontToolsList} and
 * {@link frontToolsCall}, every other method as in `defaultMethods`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as McpServer from "effect-mcp-runtime/McpServer"
 * import * as RequestFront from "effect-mcp-runtime/RequestFront"
 * import * as StdioTransport from "effect-mcp-runtime/layers/StdioTransport"
 *
 * const program = McpServer.serve({ methods: RequestFront.methods }).pipe(
 *   Effect.provide([StdioTransport.layer, Kernel.layer()])
 * )
 * ```
 *
 * @category methods
 * @since 0.4.0
 */
export const methods: typeof defaultMethods = defaultMethods.map((method) =>
  method === toolsList ? frontToolsList : method === toolsCall ? frontToolsCall : method
) as typeof defaultMethods
