/**
 * What an upstream server lists, as the kernel's tools, prompts and
 * resources: each entry keeps the upstream's name, description, schemas and
 * annotations, under a name the kernel accepts (characters outside
 * `[A-Za-z0-9_.-]` become `_`), with a handler that forwards to the upstream
 * through a {@link Forward}. Entries that cannot be published (a name too
 * long, a schema that is not an object, an `outputSchema` that does not
 * compile, a tool that needs tasks) are left out and named in `problems`,
 * with the entries the listing itself rejected (not valid MCP definitions).
 *
 * An upstream tool is confirmed here unless it is annotated read-only or
 * `destructiveHint: false`: the MCP default of `destructiveHint` is `true`
 * for a tool that is not read-only, so a tool without annotations is taken as
 * destructive.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type {
  Prompt as UpstreamPrompt,
  Resource as UpstreamResource,
  ResourceTemplate as UpstreamTemplate,
  Tool as UpstreamTool
} from "@modelcontextprotocol/sdk/types.js"
import { argument as confirmArgument } from "../../src/Confirmation.ts"
import type { Annotations, CallToolResult, JsonSchemaObject, ToolAnnotations } from "../../src/McpSchema.ts"
import type { Progress } from "../../src/Progress.ts"
import * as Prompt from "../../src/Prompt.ts"
import * as Resource from "../../src/Resource.ts"
import * as Tool from "../../src/Tool.ts"
import { parse, TemplateError } from "../../src/internal/uriTemplate.ts"
import type { UpstreamError } from "./errors.ts"

/**
 * What an upstream listed, as it listed it: the entries that are valid MCP
 * definitions, and why the others are not (one line each, per list).
 */
export interface Lists {
  readonly tools: ReadonlyArray<UpstreamTool>
  readonly prompts: ReadonlyArray<UpstreamPrompt>
  readonly resources: ReadonlyArray<UpstreamResource>
  readonly templates: ReadonlyArray<UpstreamTemplate>
  readonly toolProblems: ReadonlyArray<string>
  readonly promptProblems: ReadonlyArray<string>
  /** Of the resources and the templates (listed together). */
  readonly resourceProblems: ReadonlyArray<string>
}

/** Nothing listed (an upstream not connected yet). */
export const emptyLists: Lists = {
  tools: [],
  prompts: [],
  resources: [],
  templates: [],
  toolProblems: [],
  promptProblems: [],
  resourceProblems: []
}

/** Checks a structured result against a tool's `outputSchema`: undefined when it conforms, else why not. */
export type OutputCheck = (value: unknown) => string | undefined

/** Compiles a tool's `outputSchema`; throws when it cannot. */
export type CompileOutput = (schema: Record<string, unknown>) => OutputCheck

/** What the forwarding of a call needs to know of the tool. */
export interface ToolCall {
  /** The check of its `outputSchema`, compiled when it was listed (not by the SDK client). */
  readonly output: OutputCheck | undefined
  /** Annotated read-only or idempotent: a call cut off by a lost connection can be retried as it is. */
  readonly retrySafe: boolean
}

/** A reference for `completion/complete`: a prompt's name or a template's URI template. */
export type CompletionRef =
  | { readonly type: "ref/prompt"; readonly name: string }
  | {
      readonly type: "ref/resource"
      readonly uri: string
    }

/** How the handlers reach the upstream (whatever connection is current when they run). */
export interface Forward {
  /** Calls a tool by its upstream name; every outcome is a result (an error result when it did not run). */
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    tool: ToolCall
  ) => Effect.Effect<CallToolResult, never, Progress>
  readonly getPrompt: (
    name: string,
    args: Record<string, string>
  ) => Effect.Effect<
    { readonly description?: string | undefined; readonly messages: ReadonlyArray<Prompt.Message> },
    UpstreamError
  >
  readonly readResource: (uri: string) => Effect.Effect<ReadonlyArray<Resource.Item>, UpstreamError | Resource.NotFound>
  /** Completion candidates; undefined when the upstream does not offer completions. */
  readonly complete:
    | ((
        ref: CompletionRef,
        argument: { readonly name: string; readonly value: string },
        context: { readonly arguments: { readonly [name: string]: string } }
      ) => Effect.Effect<ReadonlyArray<string>>)
    | undefined
}

/** What the kernel is given for an upstream, and what was left out. */
export interface Contents {
  readonly tools: ReadonlyArray<Tool.Handled<Progress>>
  readonly prompts: ReadonlyArray<Prompt.Handled>
  readonly resources: ReadonlyArray<Resource.Handled>
  /** Why an entry was left out, one line each. */
  readonly problems: ReadonlyArray<string>
}

const maxNameLength = 64

/** An upstream name as a bare name the kernel accepts: other characters become `_`. */
export const sanitize = (name: string): string => name.replace(/[^A-Za-z0-9_.-]/g, "_")

// Any arguments: the upstream checks them against the schema it published.
const AnyArguments = Schema.Record(Schema.String, Schema.Unknown)

const toolAnnotations = (given: UpstreamTool["annotations"]): ToolAnnotations | undefined => {
  if (given === undefined) return undefined
  const picked: { -readonly [K in keyof ToolAnnotations]: ToolAnnotations[K] } = {}
  if (typeof given.title === "string") picked.title = given.title
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof given[key] === "boolean") picked[key] = given[key]
  }
  return Object.keys(picked).length === 0 ? undefined : picked
}

const resourceAnnotations = (given: UpstreamResource["annotations"]): Annotations | undefined => {
  if (given === undefined) return undefined
  const picked: { -readonly [K in keyof Annotations]: Annotations[K] } = {}
  if (Array.isArray(given.audience)) picked.audience = given.audience
  if (typeof given.priority === "number") picked.priority = given.priority
  if (typeof given.lastModified === "string") picked.lastModified = given.lastModified
  return Object.keys(picked).length === 0 ? undefined : picked
}

// A destructive upstream tool is confirmed here: the runtime adds its own `confirm` argument (and strips it
// before the handler runs), so a `confirm` of the upstream's own schema (another mcp-runtime's) is taken out.
const inputSchemaOf = (tool: UpstreamTool, destructive: boolean): JsonSchemaObject => {
  const schema = JSON.parse(JSON.stringify(tool.inputSchema)) as Record<string, unknown>
  if (destructive && typeof schema.properties === "object" && schema.properties !== null) {
    const { [confirmArgument]: _, ...properties } = schema.properties as Record<string, unknown>
    schema.properties = properties
    if (Array.isArray(schema.required)) {
      schema.required = (schema.required as Array<unknown>).filter((key) => key !== confirmArgument)
    }
  }
  return schema as JsonSchemaObject
}

const isObjectSchema = (schema: unknown): boolean =>
  typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "object"

// Gives each entry a distinct name: the sanitized one, else the first `<name>_<n>` not taken.
const uniqueName = (wanted: string, taken: Set<string>): string => {
  const base = (sanitize(wanted) || "resource").slice(0, maxNameLength)
  let name = base
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, maxNameLength - String(n).length - 1)}_${n}`
  taken.add(name)
  return name
}

const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*:/

// The MCP defaults: `destructiveHint` is true unless the tool says otherwise or is read-only.
const isDestructive = (annotations: ToolAnnotations | undefined): boolean =>
  annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false

/**
 * The kernel's tools, prompts and resources for what an upstream listed,
 * forwarding to it through `forward`; `id` names the upstream in problems;
 * `compileOutput` compiles the tools' `outputSchema`s (a tool whose schema
 * does not compile is a problem).
 */
export const toContents = (id: string, lists: Lists, forward: Forward, compileOutput: CompileOutput): Contents => {
  const problems: Array<string> = [...lists.toolProblems, ...lists.promptProblems, ...lists.resourceProblems]

  const tools: Array<Tool.Handled<Progress>> = []
  const toolNames = new Set<string>()
  for (const upstream of lists.tools) {
    const name = sanitize(upstream.name)
    if (name.length === 0 || name.length > maxNameLength) {
      problems.push(`tool ${JSON.stringify(upstream.name)}: a name must be 1 to ${maxNameLength} characters`)
      continue
    }
    if (toolNames.has(name)) {
      problems.push(`tool ${JSON.stringify(upstream.name)}: another tool of ${id} is published as ${id}_${name}`)
      continue
    }
    if (!isObjectSchema(upstream.inputSchema)) {
      problems.push(`tool ${JSON.stringify(upstream.name)}: its inputSchema does not describe an object`)
      continue
    }
    if (upstream.execution?.taskSupport === "required") {
      problems.push(
        `tool ${JSON.stringify(upstream.name)}: it runs only as a task, and tasks are not forwarded to upstreams`
      )
      continue
    }
    let output: OutputCheck | undefined
    if (upstream.outputSchema !== undefined) {
      if (!isObjectSchema(upstream.outputSchema)) {
        problems.push(`tool ${JSON.stringify(upstream.name)}: its outputSchema does not describe an object`)
        continue
      }
      try {
        output = compileOutput(upstream.outputSchema as Record<string, unknown>)
      } catch (error) {
        problems.push(
          `tool ${JSON.stringify(upstream.name)}: its outputSchema cannot be compiled (${
            error instanceof Error ? error.message : String(error)
          })`
        )
        continue
      }
    }
    toolNames.add(name)
    const annotations = toolAnnotations(upstream.annotations)
    const destructive = isDestructive(annotations)
    const upstreamName = upstream.name
    const call: ToolCall = {
      output,
      retrySafe: annotations?.readOnlyHint === true || annotations?.idempotentHint === true
    }
    tools.push(
      Tool.make(name, {
        description: upstream.description ?? "",
        title: upstream.title,
        input: AnyArguments,
        inputJsonSchema: inputSchemaOf(upstream, destructive),
        outputJsonSchema: upstream.outputSchema as unknown as JsonSchemaObject | undefined,
        annotations,
        // Confirmed here as the MCP defaults say (annotated destructive, or not annotated at all).
        confirm: destructive ? true : undefined
      }).pipe(Tool.handle((args) => forward.callTool(upstreamName, args as Record<string, unknown>, call)))
    )
  }

  const prompts: Array<Prompt.Handled> = []
  const promptNames = new Set<string>()
  for (const upstream of lists.prompts) {
    const name = sanitize(upstream.name)
    if (name.length === 0 || name.length > maxNameLength || promptNames.has(name)) {
      problems.push(
        `prompt ${JSON.stringify(upstream.name)}: ${
          promptNames.has(name)
            ? `another prompt of ${id} is published as ${id}_${name}`
            : `a name must be 1 to ${maxNameLength} characters`
        }`
      )
      continue
    }
    promptNames.add(name)
    const fields: Record<string, Schema.Top> = {}
    for (const arg of upstream.arguments ?? []) {
      const value =
        arg.description === undefined ? Schema.String : Schema.String.annotate({ description: arg.description })
      fields[arg.name] = arg.required === true ? value : Schema.optionalKey(value)
    }
    const upstreamName = upstream.name
    const declared = Prompt.make(name, {
      description: upstream.description ?? "",
      title: upstream.title,
      arguments: Schema.Struct(fields) as unknown as Prompt.ArgumentsSchema
    })
    const handled = declared.pipe(
      Prompt.handle((args) => forward.getPrompt(upstreamName, args as Record<string, string>))
    )
    const complete = forward.complete
    prompts.push(
      complete === undefined || (upstream.arguments ?? []).length === 0
        ? handled
        : Prompt.completions(
            handled,
            Object.fromEntries(
              (upstream.arguments ?? []).map((arg) => [
                arg.name,
                (value: string, context: { readonly arguments: { readonly [name: string]: string } }) =>
                  complete({ type: "ref/prompt", name: upstreamName }, { name: arg.name, value }, context)
              ])
            )
          )
    )
  }

  const resources: Array<Resource.Handled> = []
  const resourceNames = new Set<string>()
  const uris = new Set<string>()
  for (const upstream of lists.resources) {
    if (!schemePattern.test(upstream.uri)) {
      problems.push(`resource ${upstream.uri}: its URI has no scheme`)
      continue
    }
    if (uris.has(upstream.uri)) {
      problems.push(`resource ${upstream.uri}: listed twice`)
      continue
    }
    uris.add(upstream.uri)
    const name = uniqueName(upstream.name, resourceNames)
    resources.push(
      Resource.make(name, {
        uri: upstream.uri,
        description: upstream.description ?? "",
        title: upstream.title ?? (name === upstream.name ? undefined : upstream.name),
        mimeType: upstream.mimeType,
        annotations: resourceAnnotations(upstream.annotations),
        size: upstream.size
      }).pipe(Resource.handle((_params, uri) => forward.readResource(uri)))
    )
  }
  const uriTemplates = new Set<string>()
  for (const upstream of lists.templates) {
    const template = parse(upstream.uriTemplate)
    const brace = upstream.uriTemplate.indexOf("{")
    if (template instanceof TemplateError) {
      problems.push(`resource template ${upstream.uriTemplate}: ${template.reason}`)
      continue
    }
    if (!schemePattern.test(upstream.uriTemplate) || (brace !== -1 && brace < upstream.uriTemplate.indexOf(":"))) {
      problems.push(`resource template ${upstream.uriTemplate}: it does not start with a literal URI scheme`)
      continue
    }
    if (uriTemplates.has(upstream.uriTemplate)) {
      problems.push(`resource template ${upstream.uriTemplate}: listed twice`)
      continue
    }
    uriTemplates.add(upstream.uriTemplate)
    const name = uniqueName(upstream.name, resourceNames)
    const params = Schema.Struct(
      Object.fromEntries(
        template.variables.map((variable) => [
          variable,
          template.lists.has(variable) ? Schema.Array(Schema.String) : Schema.String
        ])
      )
    ) as unknown as Resource.ParamsSchema
    const handled = Resource.template(name, {
      uriTemplate: upstream.uriTemplate,
      params,
      description: upstream.description ?? "",
      title: upstream.title ?? (name === upstream.name ? undefined : upstream.name),
      mimeType: upstream.mimeType,
      annotations: resourceAnnotations(upstream.annotations)
    }).pipe(Resource.handle((_params, uri) => forward.readResource(uri)))
    const complete = forward.complete
    const uriTemplate = upstream.uriTemplate
    resources.push(
      complete === undefined || template.variables.length === 0
        ? handled
        : Resource.completions(
            handled,
            Object.fromEntries(
              template.variables.map((variable) => [
                variable,
                (value: string, context: { readonly arguments: { readonly [name: string]: string } }) =>
                  complete({ type: "ref/resource", uri: uriTemplate }, { name: variable, value }, context)
              ])
            )
          )
    )
  }

  return { tools, prompts, resources, problems }
}
