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
import type { Era } from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import * as Confirmation from "./confirm.ts"
import type * as Tool from "../Tool.ts"

/** A tool as the kernel serves it. */
export interface CompiledTool {
  readonly name: string
  readonly capability: string
  /** What the executor needs to apply the policy (one object per tool, shared by its calls). */
  readonly target: Target
  readonly annotations: Tool.Tool["annotations"]
  /** Whether a call needs the user's confirmation (see `Confirmation`); its input schema then has `confirm`. */
  readonly confirms: boolean
  readonly description: string
  /** The `tools/list` entry per era, already serialized. */
  readonly listEntry: Readonly<Record<Era, string>>
  /**
   * Decodes the arguments: a result to answer at once when they are invalid,
   * otherwise the call to run.
   */
  readonly prepare: (args: unknown) => CallToolResult | Effect.Effect<CallToolResult, never, RequestContext>
  /** `prepare`, then run: every outcome as a result. */
  readonly call: (args: unknown) => Effect.Effect<CallToolResult, never, RequestContext>
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
  options?: { readonly onExcessProperty?: "error" | "ignore" }
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

const toJsonSchema = (schema: Schema.Top, which: "input" | "output"): JsonSchemaObject | SchemaProblem => {
  const document = jsonSchemaRoot(schema, { onExcessProperty: which === "input" ? "error" : "ignore" })
  const top = document.root
  // An empty Struct accepts any non-null value; as a tool schema it means "no arguments".
  if (isEmptyStruct(top)) {
    return { type: "object", properties: {}, additionalProperties: false }
  }
  if (top.type !== "object") {
    return new SchemaProblem(
      `the ${which} Schema must describe a JSON object (a Schema.Struct), but its JSON Schema has type ${JSON.stringify(
        top.type ?? top.anyOf ?? "unknown"
      )}`
    )
  }
  const definitions = Object.keys(document.definitions).length === 0 ? undefined : document.definitions
  // A schema with definitions names its dialect: `$defs` is 2020-12 (the
  // default dialect only from 2025-11-25 on; older clients may assume draft-07).
  return (
    definitions === undefined ? top : { $schema: jsonSchemaDialect, ...top, $defs: definitions }
  ) as JsonSchemaObject
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
  const plainInput = toJsonSchema(tool.input, "input")
  if (plainInput instanceof SchemaProblem) return plainInput
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
  const outputSchema = tool.output === undefined ? undefined : toJsonSchema(tool.output, "output")
  if (outputSchema instanceof SchemaProblem) return outputSchema

  const decode = Schema.decodeUnknownExit(Schema.toCodecJson(tool.input), {
    errors: "all",
    onExcessProperty: "error",
    reportInput: true
  })
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

  const onFailure = (cause: Cause.Cause<unknown>): Effect.Effect<CallToolResult, never, RequestContext> => {
    // Only a self-inflicted interruption gets here: a request interrupted from
    // outside (cancelled, shut down) never runs this continuation.
    if (Cause.hasInterruptsOnly(cause)) return reportDefect(`tool ${publicName} was interrupted from within`, cause)
    const failure = Cause.findErrorOption(cause)
    if (failure._tag === "Some" && !Cause.hasDies(cause)) return Effect.succeed(failureResult(failure.value))
    return reportDefect(`tool ${publicName} failed with a defect`, cause)
  }

  const withCapabilityServices = capabilityOverlay(context)
  const overlay = withCapabilityServices.overlay

  const prepare = (args: unknown): CallToolResult | Effect.Effect<CallToolResult, never, RequestContext> => {
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
    ) as Effect.Effect<CallToolResult, never, RequestContext>
  }

  const call = (args: unknown): Effect.Effect<CallToolResult, never, RequestContext> => {
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
    prepare,
    call
  }
}
