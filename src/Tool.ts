/**
 * Tools: Schema-typed functions a model can call.
 *
 * A tool is declared with {@link make} — a bare name, a description written for
 * a language model, an input Schema and optionally an output Schema — and given
 * a handler with {@link handle}. A capability lists its handled tools; the
 * kernel prefixes their names with the capability id, generates the JSON
 * Schemas once, and decodes every call's arguments with the input Schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * export const add = Tool.make("add", {
 *   description: "Adds two numbers and returns the sum.",
 *   input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
 *   output: Schema.Struct({ sum: Schema.Finite }),
 *   annotations: { readOnlyHint: true, idempotentHint: true }
 * }).pipe(Tool.handle(({ a, b }) => Effect.succeed({ sum: a + b })))
 * ```
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as Schema from "effect/Schema"
import type * as Policy from "./Policy.ts"
import type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  JsonSchemaObject,
  ResourceLink,
  TextContent,
  ToolAnnotations
} from "./McpSchema.ts"

/**
 * The type id carried by every {@link Tool}.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." })
 * hello[Tool.TypeId] // => "~effect-mcp-runtime/Tool"
 * ```
 *
 * @category type IDs
 * @since 0.1.0
 */
export const TypeId = "~effect-mcp-runtime/Tool"

/**
 * The type of {@link TypeId}.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const id: Tool.TypeId = Tool.TypeId // "~effect-mcp-runtime/Tool"
 * ```
 *
 * @category type IDs
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * An object Schema usable as a tool's input or output: it must encode to a JSON
 * object.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type * as Tool from "effect-mcp-runtime/Tool"
 *
 * const input: Tool.ObjectSchema = Schema.Struct({ path: Schema.String })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ObjectSchema = Schema.Codec<any, { readonly [key: string]: any }, never, never>

/**
 * A declared tool: its bare name, description, Schemas and annotations. It has
 * no behaviour until {@link handle} attaches a handler.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const search: Tool.Tool = Tool.make("search", {
 *   description: "Searches the notes for a phrase.",
 *   input: Schema.Struct({ query: Schema.String })
 * })
 * search.name // => "search"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool<
  Name extends string = string,
  Input extends ObjectSchema = ObjectSchema,
  Output extends ObjectSchema | undefined = ObjectSchema | undefined
> extends Pipeable {
  readonly [TypeId]: TypeId
  /** The bare name; the kernel publishes it as `<capability>_<name>`. */
  readonly name: Name
  readonly description: string
  readonly title: string | undefined
  readonly input: Input
  readonly output: Output
  readonly annotations: ToolAnnotations | undefined
  /** The tool's own limits; configuration may override them (see `Policy`). */
  readonly limits: Policy.Limits
  /**
   * Whether a call needs the user's confirmation even if the tool is not
   * annotated destructive (a destructive one always does; see `Confirmation`).
   */
  readonly confirm: boolean | undefined
  /**
   * For a tool that needs confirmation: which calls do, from the decoded
   * input (a preview or dry run need not be confirmed). Undefined: every
   * call. Since 0.4.0.
   */
  readonly confirmWhen: ((input: any) => boolean) | undefined
  /**
   * The JSON Schema published as the tool's `inputSchema` instead of the one
   * generated from `input` (see {@link make}).
   */
  readonly inputJsonSchema: JsonSchemaObject | undefined
  /**
   * The JSON Schema published as the tool's `outputSchema` instead of the one
   * generated from `output`, or for a tool without `output` whose handler
   * returns whole results with their `structuredContent` (see {@link make}).
   * Since 0.3.0.
   */
  readonly outputJsonSchema: JsonSchemaObject | undefined
  /**
   * Whether the tool's work may run as a task (the tasks extension,
   * 2026-07-28): `optional`, `required`, or undefined (never). See `Task`.
   */
  readonly task: TaskSupport | undefined
  /**
   * What happens to the tool's task when the instance running it stops
   * before it ended and a durable task store resumes it elsewhere (see
   * {@link Durability}). Since 0.5.0.
   */
  readonly durable: Durability | undefined
  /**
   * The keys a call writes (a file's path, say), from its decoded input: the
   * request front refuses two ops of one request that would write the same
   * key at the same time. Undefined: the tool writes nothing that can
   * conflict. Since 0.4.0.
   */
  readonly writeKey: ((input: any) => string | ReadonlyArray<string> | undefined) | undefined
  /**
   * How the request front presents the tool's output: `verbose` keeps it
   * canonical even when the request asks for the compact `agent`
   * presentation (output whose exact shape matters). Since 0.4.0.
   */
  readonly presentation: "verbose" | undefined
  /**
   * Not proven yet: published only by a kernel that enables experimental
   * tools (`Kernel.layer({ experimental: true })`, the default for a server
   * composed in code; the binary's `serve --experimental`). Elsewhere a call
   * to it is answered with how to enable it. Since 0.5.0.
   */
  readonly experimental: boolean | undefined
}

/**
 * How a tool runs under the tasks extension (`io.modelcontextprotocol/tasks`,
 * protocol 2026-07-28): `optional` — the part of its handler under
 * `Task.background` becomes a task when the client supports tasks, and runs
 * inline otherwise; `required` — a client without the extension is refused
 * with −32021 before the tool runs.
 *
 * **Example**
 *
 * ```ts
 * import type * as Tool from "effect-mcp-runtime/Tool"
 *
 * const support: Tool.TaskSupport = "optional"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type TaskSupport = "optional" | "required"

/**
 * What a durable task store does with a task of the tool whose instance
 * stopped (killed, crashed, lost its store) before the task ended: `rerun`
 * runs the tool's work again from the start on the instance that takes the
 * task over; `fail` ends the task `failed`, saying the instance stopped
 * while it ran. A task is never left `working`. Tools whose work is not safe
 * to run twice (a deployment, a command with side effects) keep `fail`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Task from "effect-mcp-runtime/Task"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * // A read-only check: safe to run again after a takeover.
 * const check = Tool.make("check", { description: "Runs the checks.", task: "optional", durable: "rerun" }).pipe(
 *   Tool.handle(() => Task.background(Effect.succeed("all checks passed")))
 * )
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export type Durability = "rerun" | "fail"

/**
 * What a handler of a tool without an output Schema may return: a string (one
 * text block), content blocks, or a whole result.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const replies: ReadonlyArray<Tool.Reply> = ["plain text", Tool.text("one block"), Tool.errorResult("failed")]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Reply = string | ContentBlock | ReadonlyArray<ContentBlock> | CallToolResult

/**
 * The value a tool's handler returns: the output Schema's type when the tool
 * has one, a {@link Reply} otherwise.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const sum = Tool.make("sum", {
 *   description: "Adds numbers.",
 *   input: Schema.Struct({ values: Schema.Array(Schema.Finite) }),
 *   output: Schema.Struct({ total: Schema.Finite })
 * })
 * const result: Tool.Success<typeof sum> = { total: 3 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Success<T extends Tool<any, any, any>> = T["output"] extends ObjectSchema ? T["output"]["Type"] : Reply

/**
 * A tool's handler: decoded input in, an Effect of its {@link Success} out.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets someone.", input: Schema.Struct({ name: Schema.String }) })
 * const greeting: Tool.Handler<typeof greet, never, never> = ({ name }) => Effect.succeed(`Hello, ${name}!`)
 * const handled = Tool.handle(greet, greeting)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Handler<T extends Tool<any, any, any>, E, R> = (
  input: T["input"]["Type"]
) => Effect.Effect<Success<T>, E, R>

/**
 * A tool with its handler, ready to be listed by a capability. `R` is what the
 * handler needs: the capability layer must provide it (a missing service is a
 * compile error).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping: Tool.Handled = Tool.make("ping", { description: "Answers pong." }).pipe(
 *   Tool.handle(() => Effect.succeed("pong"))
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Handled<
  R = never,
  T extends Tool<any, any, any> = Tool<string, ObjectSchema, ObjectSchema | undefined>
> {
  /** The declaration, with its type: its name as a literal, its input and output Schemas (since 0.5.0). */
  readonly tool: T
  readonly handler: (input: any) => Effect.Effect<unknown, unknown, R>
}

/**
 * A typed tool failure with a message for the model and, ideally, a
 * suggestion naming the tool to call next. The kernel turns it into an
 * `isError: true` result.
 *
 * **Example**
 *
 * ```ts
 * import { ToolError } from "effect-mcp-runtime/Tool"
 *
 * new ToolError({ message: "No file named notes.md", suggestion: "Call workspace_list to see the files." })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  message: Schema.String,
  suggestion: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.String)
}) {}

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

const EmptyInput = Schema.Struct({})

/**
 * Declares a tool. The name is bare (no capability prefix) and must match
 * `^[A-Za-z0-9_.-]{1,64}$`; the kernel checks it at registration.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", {
 *   description: "Greets someone by name.",
 *   input: Schema.Struct({ name: Schema.String.annotate({ description: "Who to greet" }) })
 * })
 *
 * // a slow tool with limits of its own (configuration can still override them)
 * const rebuild = Tool.make("rebuild", {
 *   description: "Rebuilds the search index.",
 *   timeout: "10 minutes",
 *   maxConcurrent: 1
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <
  const Name extends string,
  Input extends ObjectSchema = typeof EmptyInput,
  Output extends ObjectSchema | undefined = undefined
>(
  name: Name,
  options: {
    readonly description: string
    readonly title?: string | undefined
    readonly input?: Input | undefined
    readonly output?: Output | undefined
    readonly annotations?: ToolAnnotations | undefined
    /** How long one call may run (default: the capability's, then the server's). */
    readonly timeout?: Duration.Input | undefined
    /** How many calls of this tool may run at once (default: no limit of its own). */
    readonly maxConcurrent?: number | undefined
    /** The largest serialized result in bytes (default: the server's). */
    readonly maxResultBytes?: number | undefined
    /**
     * Ask the user before each call (as for a tool annotated
     * `destructiveHint: true`): see `Confirmation`.
     */
    readonly confirm?: boolean | undefined
    /**
     * For a tool that needs confirmation (destructive, or `confirm: true`):
     * which calls need it, from the decoded input — say, only those that
     * write (`(input) => input.write === true`), so a preview runs without
     * asking the user. Default: every call. The published `confirm` argument
     * stays. Since 0.4.0.
     */
    readonly confirmWhen?: ((input: Input["Type"]) => boolean) | undefined
    /**
     * The JSON Schema to publish as `inputSchema` instead of the one generated
     * from `input`: for JSON Schema 2020-12 keywords Effect Schema does not
     * generate (`if`/`then`/`else`, `allOf`/`anyOf` across properties,
     * `$anchor`, `dependentRequired`…). It must describe an object; the
     * runtime names the 2020-12 dialect (`$schema`) when it has `$defs`.
     * `input` still decodes every call: give it checks for what the JSON
     * Schema requires beyond its fields, so that both accept the same calls.
     */
    readonly inputJsonSchema?: JsonSchemaObject | undefined
    /**
     * The JSON Schema to publish as `outputSchema`. With `output`, it replaces
     * the generated one (`output` still encodes every result). Without
     * `output`, the handler returns whole results (`CallToolResult`) and is
     * trusted to put a `structuredContent` that matches it in each successful
     * one: the runtime passes results on as they are (a proxy of another
     * server's tool, say). It must describe an object. Since 0.3.0.
     */
    readonly outputJsonSchema?: JsonSchemaObject | undefined
    /** Whether the tool's work may run as a task (see {@link TaskSupport} and `Task.background`). */
    readonly task?: TaskSupport | undefined
    /**
     * Under a durable task store (`--store`), what a task of this tool does
     * when the instance running it stops before it ended: `rerun` — it runs
     * again from the start on the instance that takes it over (the work is
     * safe to repeat: a check, a build); `fail` (the default) — it ends
     * `failed` with the reason. See {@link Durability}. Since 0.5.0.
     */
    readonly durable?: Durability | undefined
    /**
     * The keys a call writes, from its decoded input (a path, or several):
     * two ops of one `request` that write the same key concurrently get a
     * conflict error instead of running (see `RequestFront`). Since 0.4.0.
     */
    readonly writeKey?: ((input: Input["Type"]) => string | ReadonlyArray<string> | undefined) | undefined
    /**
     * `verbose`: the request front never compacts this tool's output, whatever
     * presentation the request asks for. Since 0.4.0.
     */
    readonly presentation?: "verbose" | undefined
    /**
     * Not proven yet: published only where experimental tools are enabled
     * (`Kernel.layer({ experimental })`, `serve --experimental`). Since 0.5.0.
     */
    readonly experimental?: boolean | undefined
  }
): Tool<Name, Input, Output> => {
  const self = Object.create(Proto)
  self.name = name
  self.description = options.description
  self.title = options.title
  self.input = options.input ?? EmptyInput
  self.output = options.output
  self.annotations = options.annotations
  self.confirm = options.confirm
  self.confirmWhen = options.confirmWhen
  self.inputJsonSchema = options.inputJsonSchema
  self.outputJsonSchema = options.outputJsonSchema
  self.task = options.task
  self.durable = options.durable
  self.writeKey = options.writeKey
  self.presentation = options.presentation
  self.experimental = options.experimental
  self.limits = {
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
    ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes })
  }
  return self
}

/**
 * Attaches a handler to a tool. Dual: `tool.pipe(Tool.handle(f))` or
 * `Tool.handle(tool, f)`.
 *
 * A handler's typed failure becomes an `isError: true` result carrying the
 * error's `message` (and `suggestion`, when it has one); a defect becomes an
 * `isError` "internal error" result and a log line with the correlation id.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const greet = Tool.make("greet", { description: "Greets someone.", input: Schema.Struct({ name: Schema.String }) })
 *
 * const piped = greet.pipe(Tool.handle(({ name }) => Effect.succeed(`Hello, ${name}!`)))
 * const direct = Tool.handle(greet, ({ name }) => Effect.fail(new Tool.ToolError({ message: `Who is ${name}?` })))
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const handle: {
  <T extends Tool<any, any, any>, E, R>(handler: Handler<T, E, R>): (self: T) => Handled<R, T>
  <T extends Tool<any, any, any>, E, R>(self: T, handler: Handler<T, E, R>): Handled<R, T>
} = dual(2, <T extends Tool<any, any, any>, E, R>(self: T, handler: Handler<T, E, R>): Handled<R, T> => ({
  tool: self,
  handler
}))

// -----------------------------------------------------------------------------
// content helpers
// -----------------------------------------------------------------------------

/**
 * A text content block.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.text("Saved.") // => { type: "text", text: "Saved." }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const text = (value: string): TextContent => ({ type: "text", text: value })

/**
 * An image content block from base64 data.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.image("iVBORw0KGgo=", "image/png") // => { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const image = (data: string, mimeType: string): ImageContent => ({ type: "image", data, mimeType })

/**
 * An audio content block from base64 data.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.audio("UklGRg==", "audio/wav") // => { type: "audio", data: "UklGRg==", mimeType: "audio/wav" }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const audio = (data: string, mimeType: string): AudioContent => ({ type: "audio", data, mimeType })

/**
 * An embedded resource, as text or as base64 `blob`.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.resource({ uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const resource = (contents: EmbeddedResource["resource"]): EmbeddedResource => ({
  type: "resource",
  resource: contents
})

/**
 * A link to a resource the client can read.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.resourceLink({ uri: "file:///notes.md", name: "notes.md" })
 * // => { type: "resource_link", uri: "file:///notes.md", name: "notes.md" }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const resourceLink = (link: Omit<ResourceLink, "type">): ResourceLink => ({ type: "resource_link", ...link })

/**
 * An error result, for handlers that return results rather than fail.
 *
 * **Example**
 *
 * ```ts
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * Tool.errorResult("Nothing matched") // => { content: [{ type: "text", text: "Nothing matched" }], isError: true }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const errorResult = (message: string): CallToolResult => ({ content: [text(message)], isError: true })
