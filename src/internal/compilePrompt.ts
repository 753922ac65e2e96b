/**
 * Turns a handled prompt into what the kernel serves: its `prompts/list`
 * entries (serialized once per protocol era) and a `get` function that
 * decodes the arguments, runs the handler in its capability's context and
 * shapes the messages for the client's protocol revision.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { InternalError, InvalidParams, type McpError } from "../McpError.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import type { Era } from "../ProtocolVersion.ts"
import type * as Prompt from "../Prompt.ts"
import { RequestContext } from "../RequestContext.ts"
import {
  capabilityOverlay,
  dereference,
  describeFailure,
  formatIssues,
  isEmptyStruct,
  jsonSchemaRoot,
  missingCapability,
  SchemaProblem
} from "./compileTool.ts"
import { type Complete, makeComplete } from "./completion.ts"
import { downgradeContent } from "./content.ts"
import { unlessRoundEnded } from "./mrtr.ts"

/** A `prompts/get` result. */
export interface GetPromptResult {
  readonly description?: string
  readonly messages: ReadonlyArray<Prompt.Message>
}

/** A prompt as the kernel serves it. */
export interface CompiledPrompt {
  readonly name: string
  readonly capability: string
  /** The `prompts/list` entry per era, already serialized. */
  readonly listEntry: Readonly<Record<Era, string>>
  readonly get: (
    args: unknown,
    version: ProtocolVersion.ProtocolVersion
  ) => Effect.Effect<GetPromptResult, McpError, RequestContext>
  /** Whether any argument has a completer. */
  readonly completes: boolean
  /** The argument names. */
  readonly arguments: ReadonlyArray<string>
  /** Candidates for an argument's value (at most 100, with the total when more). */
  readonly complete: Complete
}

interface Argument {
  readonly name: string
  readonly description?: string
  readonly required?: boolean
}

// The arguments as `prompts/list` describes them: the struct's fields, which
// must all be strings.
const argumentsOf = (schema: Prompt.ArgumentsSchema): Array<Argument> | SchemaProblem => {
  const { definitions, root: top } = jsonSchemaRoot(schema)
  // An empty Struct (any non-null value): no arguments.
  if (isEmptyStruct(top)) return []
  // A struct has named properties; a record or a union of structs does not.
  if (top.type !== "object" || typeof top.properties !== "object" || top.properties === null) {
    return new SchemaProblem("the arguments Schema must be a Schema.Struct of strings")
  }
  const required = new Set(Array.isArray(top.required) ? (top.required as Array<string>) : [])
  const result: Array<Argument> = []
  for (const [name, raw] of Object.entries((top.properties ?? {}) as Record<string, Record<string, unknown>>)) {
    // A field with an identifier is a reference to a definition.
    const property = dereference(raw, definitions)
    if (property.type !== "string") {
      return new SchemaProblem(`argument "${name}" must be a string (prompt arguments are strings on the wire)`)
    }
    result.push({
      name,
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      ...(required.has(name) ? { required: true } : {})
    })
  }
  return result
}

const normalize = (reply: Prompt.Reply): GetPromptResult => {
  if (typeof reply === "string") return { messages: [{ role: "user", content: { type: "text", text: reply } }] }
  if (Array.isArray(reply)) return { messages: reply as ReadonlyArray<Prompt.Message> }
  const { description, messages } = reply as Exclude<Prompt.Reply, string | ReadonlyArray<Prompt.Message>>
  return description === undefined ? { messages } : { description, messages }
}

/**
 * Compiles a handled prompt under its public name. `context` is the
 * capability's context; the handler runs with the request's context overlaid
 * with it, as tools do.
 */
export const compilePrompt = (
  handled: Prompt.Handled<any>,
  publicName: string,
  capability: string,
  context: Context.Context<any>
): CompiledPrompt | SchemaProblem => {
  const { handler, prompt } = handled
  const args = argumentsOf(prompt.arguments)
  if (args instanceof SchemaProblem) return args
  const legacy = {
    name: publicName,
    description: prompt.description,
    ...(args.length === 0 ? {} : { arguments: args })
  }
  const full = prompt.title === undefined ? legacy : { ...legacy, title: prompt.title }
  const listEntry = {
    "2024-11-05": JSON.stringify(legacy),
    "2025-03-26": JSON.stringify(legacy),
    "2025-06-18": JSON.stringify(full)
  }
  const decode = Schema.decodeUnknownExit(prompt.arguments, { errors: "all", onExcessProperty: "error" })
  const overlay = capabilityOverlay(context)
  const names = new Set(args.map((arg) => arg.name))

  const get = (
    input: unknown,
    version: ProtocolVersion.ProtocolVersion
  ): Effect.Effect<GetPromptResult, McpError, RequestContext> => {
    const given = input === undefined ? {} : input
    // Arguments the prompt does not have (an empty Struct accepts any object).
    const unexpected =
      typeof given === "object" && given !== null ? Object.keys(given).filter((key) => !names.has(key)) : []
    const decoded = decode(given)
    if (Exit.isFailure(decoded) || unexpected.length > 0) {
      const issue = Exit.isFailure(decoded) ? Cause.findErrorOption(decoded.cause) : undefined
      const lines = issue !== undefined && issue._tag === "Some" ? formatIssues(issue.value.issue) : []
      for (const key of unexpected) {
        const line = `- ${key}: Unexpected key: it is not in the schema`
        if (!lines.includes(line)) lines.push(line)
      }
      return Effect.fail(
        new InvalidParams({
          message:
            `Invalid arguments for prompt ${publicName}:\n${lines.join("\n")}\n` +
            `Call prompts/list to see the prompt's arguments.`,
          data: { prompt: publicName }
        })
      )
    }
    return Effect.suspend(() => handler(decoded.value)).pipe(
      Effect.updateContext(overlay),
      Effect.matchCauseEffect({
        onSuccess: (reply) => {
          const result = normalize(reply)
          return Effect.succeed({
            ...result,
            messages: result.messages.map((message) => ({
              role: message.role,
              content: downgradeContent(message.content, version)
            }))
          })
        },
        onFailure: (cause): Effect.Effect<never, McpError, RequestContext> => {
          const failure = Cause.findErrorOption(cause)
          // A typed failure is about the arguments: −32602 with its message (2026-07-28: a
          // capability the client lacks is −32021).
          if (failure._tag === "Some" && !Cause.hasDies(cause) && !Cause.hasInterruptsOnly(cause)) {
            const missing = missingCapability(failure.value)
            if (missing !== undefined && ProtocolVersion.isModern(version)) return Effect.fail(missing)
            return Effect.fail(
              new InvalidParams({ message: describeFailure(failure.value), data: { prompt: publicName } })
            )
          }
          return unlessRoundEnded(
            cause,
            Effect.flatMap(Effect.service(RequestContext), (request) =>
              Effect.andThen(
                Effect.logError(`prompt ${publicName} failed with a defect`, {
                  prompt: publicName,
                  correlation_id: request.correlationId,
                  cause: Cause.pretty(cause)
                }),
                Effect.fail(new InternalError({ correlationId: request.correlationId }))
              )
            )
          )
        }
      })
    ) as Effect.Effect<GetPromptResult, McpError, RequestContext>
  }

  const completers = handled.completions ?? {}
  const complete = makeComplete({
    what: `prompt ${publicName}`,
    kind: "argument",
    list: "prompts/list",
    names,
    completers,
    overlay,
    data: { prompt: publicName }
  })

  return {
    name: publicName,
    capability,
    listEntry,
    get,
    completes: Object.keys(completers).length > 0,
    arguments: args.map((arg) => arg.name),
    complete
  }
}
