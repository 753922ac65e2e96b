/**
 * Turns a handled tool into what the kernel serves: its `tools/list` entries
 * (serialized once per protocol era) and a `call` function that decodes the
 * arguments, runs the handler in its capability's context and encodes the
 * result. Everything Schema-related is compiled here, once, at registration.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import {
  type CallToolResult,
  type ContentBlock,
  errorMetaKey,
  type JsonSchemaObject,
  type ToolDefinition
} from "../McpSchema.ts"
import type { Target } from "../Executor.ts"
import type * as Policy from "../Policy.ts"
import { MissingRequiredClientCapability } from "../McpError.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import type { Era } from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import * as Confirmation from "./confirm.ts"
import { unlessRoundEnded } from "./mrtr.ts"
import type * as Tool from "../Tool.ts"
import type { HeaderParam } from "./routingHeaders.ts"

/** A tool as the kernel serves it. */
export interface CompiledTool {
  readonly name: string
  readonly capability: string
  /** What the executor needs to apply the policy (one object per tool, shared by its calls). */
  readonly target: Target
  readonly annotations: Tool.Tool["annotations"]
  /** Whether a call needs the user's confirmation (see `Confirmation`); its input schema then has `confirm`. */
  readonly confirms: boolean
  /**
   * Whether this call needs confirmation (with `confirms`): the tool's
   * `confirmWhen` on the decoded arguments (`confirm` left out); true when it
   * has none or the arguments do not decode.
   */
  readonly confirmsCall: (args: unknown) => boolean
  readonly description: string
  /** The `tools/list` entry per era, already serialized. */
  readonly listEntry: Readonly<Record<Era, string>>
  /** The arguments mirrored into `Mcp-Param-*` headers (`x-mcp-header` in the input schema). */
  readonly headerParams: ReadonlyArray<HeaderParam>
  /**
   * Decodes the arguments: a result to answer at once when they are invalid,
   * otherwise the call to run.
   */
  readonly prepare: (
    args: unknown
  ) => CallToolResult | Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>
  /**
   * `prepare`, then run: every outcome as a result, except a capability the
   * client did not declare under 2026-07-28 (a protocol error, −32021).
   */
  readonly call: (args: unknown) => Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>
  /**
   * Turns the outcome of a task's work into the tool's result, as `prepare`
   * does, except that a defect (or an interruption from within) stays one:
   * the task then ends `failed`, not with an internal-error result.
   */
  readonly finish: (
    work: Effect.Effect<unknown, unknown, never>
  ) => Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>
  /** Whether the tool may run as a task (`Tool.make`'s `task`). */
  readonly task: Tool.TaskSupport | undefined
  /** What a durable store does with its task after a takeover (`Tool.make`'s `durable`). */
  readonly durable: Tool.Durability | undefined
  /** The keys a call with these arguments writes (`Tool.make`'s `writeKey`); none when they do not decode. */
  readonly writeKeys: (args: unknown) => ReadonlyArray<string>
  /** How the request front presents the output (`Tool.make`'s `presentation`): `agent` unless the tool says. */
  readonly presentation: "agent" | "verbose"
}

/** Why a tool's Schemas cannot be published. */
export class SchemaProblem {
  readonly reason: string
  constructor(reason: string) {
    this.reason = reason
  }
}

// MCP requires an object root. A non-recursive root is compiled inline rather
// than as a definition; definitions go to `$defs` (JSON Schema 2020-12).
/** A JSON Schema with its `$ref` (`#/$defs/<name>`) replaced by the definition it names, when there is one. */
export const dereference = (
  schema: Record<string, unknown>,
  definitions: Readonly<Record<string, unknown>>
): Record<string, unknown> => {
  if (typeof schema.$ref !== "string") return schema
  const resolved = definitions[schema.$ref.replace(/^#\/\$defs\//, "")]
  if (resolved === undefined) return schema
  // The reference's own keywords (a description next to the `$ref`) win.
  const merged: Record<string, unknown> = { ...(resolved as Record<string, unknown>), ...schema }
  delete merged.$ref
  return merged
}

/** The JSON Schema of a Schema's root, dereferenced, and its definitions. */
export const jsonSchemaRoot = (
  schema: Schema.Top,
  options?: {
    readonly onExcessProperty?: "error" | "ignore"
    readonly includeAnnotationKey?: ((key: string) => boolean) | undefined
  }
): { readonly root: Record<string, unknown>; readonly definitions: Readonly<Record<string, unknown>> } => {
  const document = Schema.toJsonSchemaDocument(schema, options)
  return {
    root: dereference(document.schema as Record<string, unknown>, document.definitions),
    definitions: document.definitions
  }
}

/** Whether a root JSON Schema is that of an empty Struct (any non-null value). */
export const isEmptyStruct = (root: Record<string, unknown>): boolean =>
  root.type === undefined && Object.keys(root).length === 1 && JSON.stringify(root.not) === '{"type":"null"}'

/** The JSON Schema dialect of the schemas the runtime publishes. */
export const jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

/**
 * The annotation that mirrors a tool argument into an HTTP header under MCP
 * 2026-07-28 (`Mcp-Param-<value>`): `Schema.String.annotate({ "x-mcp-header": "Region" })`.
 */
export const headerAnnotation = "x-mcp-header"

// RFC 9110 token characters.
const tokenPattern = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * The arguments of an input schema mirrored into headers, checked against
 * the rules of MCP 2026-07-28: a non-empty token, unique whatever the case,
 * on a string, integer or boolean property reached from the root through
 * `properties` only. Effect files the annotation of a checked field
 * (`Schema.Int`) in an `allOf` next to the check: it is lifted to the
 * property, where it belongs.
 */
const headerParamsOf = (
  root: Record<string, unknown>,
  definitions: Readonly<Record<string, unknown>>
): ReadonlyArray<HeaderParam> | SchemaProblem => {
  const params: Array<HeaderParam> = []
  const seen = new Map<string, string>()
  const walk = (properties: Record<string, unknown>, path: ReadonlyArray<string>): SchemaProblem | undefined => {
    for (const [key, raw] of Object.entries(properties)) {
      if (typeof raw !== "object" || raw === null) continue
      const property = raw as Record<string, unknown>
      if (Array.isArray(property.allOf)) {
        for (const part of property.allOf as Array<Record<string, unknown>>) {
          if (
            typeof part === "object" &&
            part !== null &&
            headerAnnotation in part &&
            !(headerAnnotation in property)
          ) {
            property[headerAnnotation] = part[headerAnnotation]
            delete part[headerAnnotation]
          }
        }
      }
      const at = [...path, key]
      const header = property[headerAnnotation]
      if (header !== undefined) {
        const where = `the property ${at.join(".")}`
        if (typeof header !== "string" || !tokenPattern.test(header)) {
          return new SchemaProblem(
            `${where} has ${headerAnnotation} ${JSON.stringify(header)}, which is not a header name token`
          )
        }
        const type = property.type
        if (type !== "string" && type !== "integer" && type !== "boolean") {
          return new SchemaProblem(
            `${where} has ${headerAnnotation} but its type is ${JSON.stringify(type ?? "not a single type")}: ` +
              `only string, integer and boolean arguments can be mirrored into a header`
          )
        }
        const lower = header.toLowerCase()
        const other = seen.get(lower)
        if (other !== undefined) {
          return new SchemaProblem(
            `${headerAnnotation} ${JSON.stringify(header)} is used by ${other} and ${at.join(".")}`
          )
        }
        seen.set(lower, at.join("."))
        params.push({ path: at, name: header, type })
      }
      if (typeof property.properties === "object" && property.properties !== null) {
        const problem = walk(property.properties as Record<string, unknown>, at)
        if (problem !== undefined) return problem
      }
    }
    return undefined
  }
  const problem =
    typeof root.properties === "object" && root.properties !== null
      ? walk(root.properties as Record<string, unknown>, [])
      : undefined
  if (problem !== undefined) return problem
  const everywhere = JSON.stringify({ root, definitions }).split(`"${headerAnnotation}"`).length - 1
  if (everywhere !== params.length) {
    return new SchemaProblem(
      `${headerAnnotation} is used where no header can mirror it: only on properties reached from the root through ` +
        `properties (not inside arrays, unions, conditions or referenced definitions)`
    )
  }
  return params
}

// An input (or output) JSON Schema the tool gives itself: checked, and its dialect named when it has definitions.
const explicitInput = (
  given: JsonSchemaObject,
  which: "input" | "output" = "input"
): { readonly schema: JsonSchemaObject; readonly headers: ReadonlyArray<HeaderParam> } | SchemaProblem => {
  const copy = JSON.parse(JSON.stringify(given)) as Record<string, unknown>
  if (copy.type !== "object") {
    return new SchemaProblem(
      `${which}JsonSchema must describe a JSON object (type "object"), but its type is ${JSON.stringify(copy.type ?? "not given")}`
    )
  }
  if (which === "output") {
    const schema = (
      copy.$schema === undefined && copy.$defs !== undefined ? { $schema: jsonSchemaDialect, ...copy } : copy
    ) as JsonSchemaObject
    return { schema, headers: [] }
  }
  const definitions = (typeof copy.$defs === "object" && copy.$defs !== null ? copy.$defs : {}) as Record<
    string,
    unknown
  >
  const { $defs: _, ...root } = copy
  const headers = headerParamsOf(root, definitions)
  if (headers instanceof SchemaProblem) return headers
  const schema = (
    copy.$schema === undefined && copy.$defs !== undefined ? { $schema: jsonSchemaDialect, ...copy } : copy
  ) as JsonSchemaObject
  return { schema, headers }
}

// How many fields of an Effect Schema carry the header annotation: a field whose JSON Schema loses it (Schema.Number
// is published as a union with "NaN" and "Infinity") must not be dropped silently.
const countHeaderAnnotations = (ast: SchemaAST.AST, seen: Set<SchemaAST.AST> = new Set()): number => {
  if (seen.has(ast)) return 0
  seen.add(ast)
  let count = ast.annotations?.[headerAnnotation] === undefined ? 0 : 1
  // Schema.Int keeps its annotation on its check.
  const checks: Array<SchemaAST.Check<any>> = [...(ast.checks ?? [])]
  while (checks.length > 0) {
    const check = checks.pop()!
    if (check.annotations?.[headerAnnotation] !== undefined) count++
    if (check._tag === "FilterGroup") checks.push(...check.checks)
  }
  switch (ast._tag) {
    case "Objects":
      for (const property of ast.propertySignatures) count += countHeaderAnnotations(property.type, seen)
      for (const index of ast.indexSignatures) count += countHeaderAnnotations(index.type, seen)
      break
    case "Arrays":
      for (const element of [...ast.elements, ...ast.rest]) count += countHeaderAnnotations(element, seen)
      break
    case "Union":
      for (const member of ast.types) count += countHeaderAnnotations(member, seen)
      break
    case "Suspend":
      count += countHeaderAnnotations(ast.thunk(), seen)
      break
    case "Declaration":
      for (const parameter of ast.typeParameters) count += countHeaderAnnotations(parameter, seen)
      break
  }
  return count
}

const toJsonSchema = (
  schema: Schema.Top,
  which: "input" | "output"
): { readonly schema: JsonSchemaObject; readonly headers: ReadonlyArray<HeaderParam> } | SchemaProblem => {
  const document = jsonSchemaRoot(
    schema,
    which === "input"
      ? { onExcessProperty: "error", includeAnnotationKey: (key) => key === headerAnnotation }
      : { onExcessProperty: "ignore" }
  )
  const top = document.root
  // An empty Struct accepts any non-null value; as a tool schema it means "no arguments".
  if (isEmptyStruct(top)) {
    return { schema: { type: "object", properties: {}, additionalProperties: false }, headers: [] }
  }
  if (top.type !== "object") {
    return new SchemaProblem(
      `the ${which} Schema must describe a JSON object (a Schema.Struct), but its JSON Schema has type ${JSON.stringify(
        top.type ?? top.anyOf ?? "unknown"
      )}`
    )
  }
  const headers = which === "input" ? headerParamsOf(top, document.definitions) : []
  if (headers instanceof SchemaProblem) return headers
  // `>`: an annotation the walk misses (a Schema.Class input, say) must not reject a valid tool.
  if (which === "input" && countHeaderAnnotations(schema.ast) > headers.length) {
    return new SchemaProblem(
      `${headerAnnotation} is on a field whose JSON Schema is not a single string, integer or boolean ` +
        `(Schema.Number is published as a union with "NaN" and "Infinity"): mirror only Schema.String, ` +
        `Schema.Int or Schema.Boolean fields into headers`
    )
  }
  const definitions = Object.keys(document.definitions).length === 0 ? undefined : document.definitions
  // A schema with definitions names its dialect: `$defs` is 2020-12 (the
  // default dialect only from 2025-11-25 on; older clients may assume draft-07).
  return {
    schema: (definitions === undefined
      ? top
      : { $schema: jsonSchemaDialect, ...top, $defs: definitions }) as JsonSchemaObject,
    headers
  }
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) =>
    issue._tag === "UnexpectedKey"
      ? "Unexpected key: it is not in the schema"
      : issue._tag === "MissingKey"
        ? "Missing required key"
        : SchemaIssue.defaultLeafHook(issue)
})

// Messages quote the rejected input (parse option reportInput); keep a huge
// value from flooding the answer.
const maxMessage = 200
const clip = (message: string): string =>
  message.length <= maxMessage ? message : `${message.slice(0, maxMessage)}… (${message.length} characters)`

const formatPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined): string => {
  if (path === undefined || path.length === 0) return "(arguments)"
  let out = ""
  for (const segment of path) {
    const key = typeof segment === "object" ? segment.key : segment
    out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`
  }
  return out
}

const maxIssues = 50

/** Formats the issues of a Schema failure as `- path: message` lines (at most 50, then a count). */
export const formatIssues = (issue: SchemaIssue.Issue): Array<string> => {
  const issues = formatter(issue).issues
  const lines = issues.slice(0, maxIssues).map((i) => `- ${formatPath(i.path)}: ${clip(i.message)}`)
  if (issues.length > maxIssues) lines.push(`- … and ${issues.length - maxIssues} more`)
  return lines
}

// Keys of the runtime's ambient references and of the request's own services.
const ambientKey =
  /^(?:effect\/(?:References|Logger|Tracer|Scheduler|Scope|Layer|ErrorReporter|Clock|Random|Console|ConfigProvider|ManagedRuntime|Schedule|ExecutionPlan)\b|Logger$|effect-mcp-runtime\/(?:RequestContext|Session|Progress|ClientLog|Client|Executor)$)/
const isAmbient = (key: string): boolean => ambientKey.test(key)

const normalizeReply = (reply: Tool.Reply): CallToolResult => {
  if (typeof reply === "string") return { content: [{ type: "text", text: reply }] }
  if (Array.isArray(reply)) return { content: reply as ReadonlyArray<ContentBlock> }
  if ("content" in (reply as object)) return reply as CallToolResult
  return { content: [reply as ContentBlock] }
}

/**
 * A handler's typed failure as text for the client: its message (else its
 * tag, else the value itself), and its suggestion when it has one.
 */
export const describeFailure = (value: unknown): string => {
  const error = (typeof value === "object" && value !== null ? value : {}) as {
    message?: unknown
    suggestion?: unknown
    _tag?: unknown
  }
  const message =
    typeof error.message === "string" && error.message.length > 0
      ? error.message
      : typeof error._tag === "string"
        ? error._tag
        : typeof value === "object" && value !== null
          ? JSON.stringify(value)
          : String(value)
  return typeof error.suggestion === "string" ? `${message}\nSuggestion: ${error.suggestion}` : message
}

/** Renders a typed failure for the model: its message and, if any, a suggestion. */
export const failureResult = (error: unknown): CallToolResult => {
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    suggestion?: unknown
    _tag?: unknown
    code?: unknown
  }
  const code = typeof e.code === "string" ? e.code : typeof e._tag === "string" ? e._tag : "tool_error"
  return {
    content: [{ type: "text", text: describeFailure(error) }],
    isError: true,
    _meta: { [errorMetaKey]: typeof e.suggestion === "string" ? { code, suggestion: e.suggestion } : { code } }
  }
}

const internalErrorResult = (correlationId: string): CallToolResult => ({
  content: [
    {
      type: "text",
      text:
        `Internal error while running the tool (correlation id ${correlationId}). ` +
        `The server log has the details; retrying will not help until the server is fixed.`
    }
  ],
  isError: true,
  _meta: { [errorMetaKey]: { code: "internal_error", correlationId } }
})

/**
 * Under 2026-07-28, a handler that fails because the client lacks a
 * capability (`ClientCapabilityMissing` from `Elicitation`, `Sampling`,
 * `Roots`, a task…) and did not handle it fails the request with −32021,
 * naming the capability as a `ClientCapabilities` object (`sampling.tools`
 * becomes `{ sampling: { tools: {} } }`). Earlier revisions answer it as a
 * tool error result, as before.
 */
export const missingCapability = (error: unknown): MissingRequiredClientCapability | undefined => {
  if (typeof error !== "object" || error === null || (error as { _tag?: unknown })._tag !== "ClientCapabilityMissing") {
    return undefined
  }
  const { capability, message, suggestion } = error as {
    readonly capability: string
    readonly message: string
    readonly suggestion?: string
  }
  const required: Record<string, unknown> = {}
  let at = required
  const parts = capability.split(".")
  parts.forEach((part, i) => {
    const next: Record<string, unknown> = {}
    at[part] = next
    if (i < parts.length - 1) at = next
  })
  return new MissingRequiredClientCapability({
    message: suggestion === undefined ? message : `${message} ${suggestion}`,
    requiredCapabilities: required
  })
}

/**
 * The handler of a tool or prompt runs with the request's context overlaid
 * with the capability's own services: what the capability was built with
 * wins (two capabilities may be given two different stores), except the
 * runtime's ambient references (logging, tracing, clock, scheduler, scope)
 * and the request's own services, which always come from the request. The
 * overlay is computed on the first call, so no call copies a whole context.
 */
export const capabilityOverlay = (
  context: Context.Context<any>
): ((requestContext: Context.Context<any>) => Context.Context<any>) & {
  readonly overlay: () => Context.Context<never> | undefined
} => {
  let overlay: Context.Context<never> | undefined
  const apply = (requestContext: Context.Context<any>): Context.Context<any> => {
    if (overlay === undefined) {
      const own = new Map<string, unknown>()
      for (const [key, value] of context.mapUnsafe) {
        if (!isAmbient(key) && requestContext.mapUnsafe.get(key) !== value) own.set(key, value)
      }
      overlay = Context.makeUnsafe(own)
    }
    return overlay.mapUnsafe.size === 0 ? requestContext : Context.merge(requestContext, overlay)
  }
  return Object.assign(apply, { overlay: () => overlay })
}

/**
 * Compiles a handled tool under its public name. `context` is the capability's
 * context: the services the handler was typed against.
 */
export const compileTool = (
  handled: Tool.Handled<any>,
  publicName: string,
  capability: string,
  context: Context.Context<any>,
  capabilityLimits?: Policy.Limits | undefined
): CompiledTool | SchemaProblem => {
  const { handler, tool } = handled
  const compiledInput =
    tool.inputJsonSchema === undefined ? toJsonSchema(tool.input, "input") : explicitInput(tool.inputJsonSchema)
  if (compiledInput instanceof SchemaProblem) return compiledInput
  const plainInput = compiledInput.schema
  const confirms = Confirmation.needsConfirmation(tool)
  const properties = (plainInput.properties ?? {}) as Record<string, unknown>
  if (confirms && Confirmation.argument in properties) {
    return new SchemaProblem(
      `the input Schema has a field "${Confirmation.argument}", which the runtime adds to tools that need confirmation`
    )
  }
  // A tool that needs confirmation takes one more, optional, argument.
  const inputSchema = confirms
    ? ({
        ...plainInput,
        properties: { ...properties, [Confirmation.argument]: Confirmation.argumentSchema }
      } as typeof plainInput)
    : plainInput
  const compiledOutput =
    tool.outputJsonSchema !== undefined
      ? explicitInput(tool.outputJsonSchema, "output")
      : tool.output === undefined
        ? undefined
        : toJsonSchema(tool.output, "output")
  if (compiledOutput instanceof SchemaProblem) return compiledOutput
  const outputSchema = compiledOutput?.schema

  const decode = Schema.decodeUnknownExit(Schema.toCodecJson(tool.input), {
    errors: "all",
    onExcessProperty: "error",
    reportInput: true
  })
  // The `confirm` argument the runtime adds is not the tool's: decoded without it, as the call will be.
  const decodeOwn = (args: unknown) => {
    let given = args === undefined ? {} : args
    if (confirms && typeof given === "object" && given !== null && Confirmation.argument in given) {
      const { [Confirmation.argument]: _, ...rest } = given as Record<string, unknown>
      given = rest
    }
    return decode(given)
  }
  const encode =
    tool.output === undefined ? undefined : Schema.encodeUnknownExit(Schema.toCodecJson(tool.output), { errors: "all" })

  const legacy: ToolDefinition = { name: publicName, description: tool.description, inputSchema }
  const annotated: ToolDefinition =
    tool.annotations === undefined ? legacy : { ...legacy, annotations: tool.annotations }
  const full: ToolDefinition = {
    name: publicName,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations })
  }
  const listEntry = {
    "2024-11-05": JSON.stringify(legacy),
    "2025-03-26": JSON.stringify(annotated),
    "2025-06-18": JSON.stringify(full)
  }

  const onSuccess = (value: unknown): Effect.Effect<CallToolResult, never, RequestContext> => {
    if (encode === undefined) return Effect.succeed(normalizeReply(value as Tool.Reply))
    const encoded = encode(value)
    if (Exit.isSuccess(encoded)) {
      const structured = encoded.value as Record<string, unknown>
      return Effect.succeed({
        content: [{ type: "text", text: JSON.stringify(structured) }],
        structuredContent: structured
      })
    }
    return reportDefect(`tool ${publicName} returned a value that does not match its output Schema`, encoded.cause)
  }

  const reportDefect = (
    what: string,
    cause: Cause.Cause<unknown>
  ): Effect.Effect<CallToolResult, never, RequestContext> =>
    Effect.flatMap(Effect.service(RequestContext), (request) =>
      Effect.as(
        Effect.logError(what, {
          tool: publicName,
          correlation_id: request.correlationId,
          cause: Cause.pretty(cause)
        }),
        internalErrorResult(request.correlationId)
      )
    )

  const onFailure = (
    cause: Cause.Cause<unknown>
  ): Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext> => {
    // Only a self-inflicted interruption gets here: a request interrupted from
    // outside (cancelled, shut down) never runs this continuation.
    if (Cause.hasInterruptsOnly(cause)) {
      return unlessRoundEnded(cause, reportDefect(`tool ${publicName} was interrupted from within`, cause))
    }
    const failure = Cause.findErrorOption(cause)
    if (failure._tag === "Some" && !Cause.hasDies(cause)) {
      const missing = missingCapability(failure.value)
      if (missing === undefined) return Effect.succeed(failureResult(failure.value))
      return Effect.flatMap(Effect.service(RequestContext), (request) => {
        if (!ProtocolVersion.isModern(request.protocolVersion)) return Effect.succeed(failureResult(failure.value))
        request.record.outcome = "missing_client_capability"
        return Effect.fail(missing)
      })
    }
    return reportDefect(`tool ${publicName} failed with a defect`, cause)
  }

  const withCapabilityServices = capabilityOverlay(context)
  const overlay = withCapabilityServices.overlay

  const prepare = (
    args: unknown
  ): CallToolResult | Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext> => {
    const decoded = decode(args === undefined ? {} : args)
    if (Exit.isFailure(decoded)) {
      const error = Cause.findErrorOption(decoded.cause)
      const lines = error._tag === "Some" ? formatIssues(error.value.issue) : ["- (arguments): invalid"]
      return {
        content: [
          {
            type: "text",
            text:
              `Invalid arguments for tool ${publicName}:\n${lines.join("\n")}\n` +
              `Call tools/list to see the tool's inputSchema, then retry with corrected arguments.`
          }
        ],
        isError: true,
        _meta: {
          [errorMetaKey]: {
            code: "invalid_arguments",
            suggestion: "Call tools/list, then retry with arguments matching the tool's inputSchema."
          }
        }
      }
    }
    // `suspend`: a handler that throws instead of returning an Effect is a defect.
    const run = Effect.suspend(() => handler(decoded.value))
    // Once the overlay is known to be empty (the usual case), skip it.
    return Effect.matchCauseEffect(
      overlay() !== undefined && overlay()!.mapUnsafe.size === 0
        ? run
        : Effect.updateContext(run, withCapabilityServices),
      { onSuccess, onFailure }
    ) as Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>
  }

  const call = (args: unknown): Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext> => {
    const prepared = prepare(args)
    return Effect.isEffect(prepared) ? prepared : Effect.succeed(prepared)
  }

  const target: Target = {
    name: publicName,
    capability,
    own: tool.limits,
    capabilityOwn:
      capabilityLimits === undefined
        ? undefined
        : {
            timeout: capabilityLimits.timeout,
            maxConcurrent: capabilityLimits.maxConcurrent,
            maxResultBytes: capabilityLimits.maxResultBytes
          }
  }
  return {
    name: publicName,
    capability,
    target,
    annotations: tool.annotations,
    confirms,
    description: tool.description,
    listEntry,
    headerParams: compiledInput.headers,
    prepare,
    call,
    finish: (work) =>
      Effect.matchCauseEffect(work, {
        onSuccess,
        onFailure: (cause) =>
          Cause.hasDies(cause) || Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause as Cause.Cause<never>)
            : onFailure(cause)
      }) as Effect.Effect<CallToolResult, MissingRequiredClientCapability, RequestContext>,
    task: tool.task,
    durable: tool.durable,
    confirmsCall: (args) => {
      if (!confirms) return false
      if (tool.confirmWhen === undefined) return true
      const decoded = decodeOwn(args)
      return Exit.isFailure(decoded) || tool.confirmWhen(decoded.value) !== false
    },
    writeKeys: (args) => {
      if (tool.writeKey === undefined) return noKeys
      const decoded = decodeOwn(args)
      if (Exit.isFailure(decoded)) return noKeys
      const keys = tool.writeKey(decoded.value)
      return keys === undefined ? noKeys : typeof keys === "string" ? [keys] : keys
    },
    presentation: tool.presentation ?? "agent"
  }
}

const noKeys: ReadonlyArray<string> = []
