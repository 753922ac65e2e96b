/**
 * Prompts: named, parameterized message templates a client offers its user
 * (`prompts/list`, `prompts/get`). A prompt's arguments are a
 * `Schema.Struct` of strings — required fields are required arguments,
 * `Schema.optionalKey` fields optional ones — and its handler turns them into
 * messages: text, images, audio or embedded resources.
 *
 * Like tools, prompts belong to a capability and are published as
 * `<capability>_<name>`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const review = Prompt.make("review", {
 *   description: "Asks for a code review of a file.",
 *   arguments: Schema.Struct({
 *     file: Schema.String.annotate({ description: "The file to review" }),
 *     focus: Schema.optionalKey(Schema.String.annotate({ description: "What to look at first" }))
 *   })
 * }).pipe(
 *   Prompt.handle(({ file, focus }) =>
 *     Effect.succeed(`Review ${file}${focus === undefined ? "" : `, looking first at ${focus}`}.`)
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as Schema from "effect/Schema"
import type { ContentBlock } from "./McpSchema.ts"

/**
 * The type id of prompts.
 *
 * **Example**
 *
 * ```ts
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * Prompt.TypeId // => "~effect-mcp-runtime/Prompt"
 * ```
 *
 * @category symbols
 * @since 0.1.0
 */
export const TypeId = "~effect-mcp-runtime/Prompt"

/**
 * The type of {@link TypeId}.
 *
 * **Example**
 *
 * ```ts
 * import type * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const id: Prompt.TypeId = "~effect-mcp-runtime/Prompt"
 * ```
 *
 * @category symbols
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * The Schema of a prompt's arguments: a struct of string fields (prompt
 * arguments are strings on the wire).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const args: Prompt.ArgumentsSchema = Schema.Struct({ topic: Schema.String })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ArgumentsSchema = Schema.Codec<any, { readonly [key: string]: string }, never, never>

/**
 * A prompt, before its handler is attached.
 *
 * **Example**
 *
 * ```ts
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const greeting: Prompt.Prompt = Prompt.make("greeting", { description: "Greets the user." })
 * greeting.name // => "greeting"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Prompt<
  Name extends string = string,
  Arguments extends ArgumentsSchema = ArgumentsSchema
> extends Pipeable {
  readonly [TypeId]: TypeId
  /** The bare name; the kernel publishes it as `<capability>_<name>`. */
  readonly name: Name
  readonly title: string | undefined
  readonly description: string
  readonly arguments: Arguments
}

/**
 * One message of a prompt.
 *
 * **Example**
 *
 * ```ts
 * import type * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const message: Prompt.Message = { role: "user", content: { type: "text", text: "Explain closures." } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: ContentBlock
}

/**
 * What a prompt's handler returns: a string (one user message), messages,
 * or messages with a description.
 *
 * **Example**
 *
 * ```ts
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const replies: ReadonlyArray<Prompt.Reply> = [
 *   "Summarize the notes.",
 *   [Prompt.user("Summarize the notes."), Prompt.assistant("Which notes?")],
 *   { description: "A summary request", messages: [Prompt.user("Summarize the notes.")] }
 * ]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Reply =
  | string
  | ReadonlyArray<Message>
  | { readonly description?: string | undefined; readonly messages: ReadonlyArray<Message> }

/**
 * A prompt with its handler, ready to be listed by a capability. `R` is what
 * the handler needs.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const hello: Prompt.Handled = Prompt.make("hello", { description: "Says hello." }).pipe(
 *   Prompt.handle(() => Effect.succeed("Say hello to the user."))
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Handled<R = never> {
  readonly prompt: Prompt<string, ArgumentsSchema>
  readonly handler: (args: any) => Effect.Effect<Reply, unknown, R>
  /** Completers of argument values, by argument name (see {@link completions}). */
  readonly completions?: { readonly [argument: string]: Completer<R> } | undefined
}

/**
 * Suggests values for one argument while the user types it
 * (`completion/complete`): it gets what was typed so far and the arguments
 * already filled in, and returns candidates (the runtime sends at most 100).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const languages: Prompt.Completer = (value) =>
 *   Effect.succeed(["english", "french", "german"].filter((language) => language.startsWith(value)))
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Completer<R = never> = (
  value: string,
  context: { readonly arguments: { readonly [name: string]: string } }
) => Effect.Effect<ReadonlyArray<string>, never, R>

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

const NoArguments = Schema.Struct({})

/**
 * Declares a prompt. The name is bare (no capability prefix) and must match
 * `^[A-Za-z0-9_.-]{1,64}$`; the kernel checks it at registration.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const explain = Prompt.make("explain", {
 *   title: "Explain a concept",
 *   description: "Asks the model to explain a concept simply.",
 *   arguments: Schema.Struct({ concept: Schema.String })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <const Name extends string, Arguments extends ArgumentsSchema = typeof NoArguments>(
  name: Name,
  options: {
    readonly description: string
    readonly title?: string | undefined
    readonly arguments?: Arguments | undefined
  }
): Prompt<Name, Arguments> => {
  const self = Object.create(Proto)
  self.name = name
  self.title = options.title
  self.description = options.description
  self.arguments = options.arguments ?? NoArguments
  return self
}

/**
 * Attaches a handler to a prompt. Dual: `prompt.pipe(Prompt.handle(f))` or
 * `Prompt.handle(prompt, f)`. A typed failure is answered as a −32602 error
 * carrying its message (a prompt's failures are about its arguments); a
 * defect as −32603 with a correlation id.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const translate = Prompt.make("translate", {
 *   description: "Asks for a translation.",
 *   arguments: Schema.Struct({ text: Schema.String, language: Schema.String })
 * }).pipe(Prompt.handle(({ language, text }) => Effect.succeed(`Translate into ${language}:\n\n${text}`)))
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const handle: {
  <P extends Prompt<any, any>, E, R>(
    handler: (args: P["arguments"]["Type"]) => Effect.Effect<Reply, E, R>
  ): (self: P) => Handled<R>
  <P extends Prompt<any, any>, E, R>(
    self: P,
    handler: (args: P["arguments"]["Type"]) => Effect.Effect<Reply, E, R>
  ): Handled<R>
} = dual(
  2,
  <P extends Prompt<any, any>, E, R>(
    self: P,
    handler: (args: P["arguments"]["Type"]) => Effect.Effect<Reply, E, R>
  ): Handled<R> => ({ prompt: self, handler })
)

/**
 * A user message: text, or any content block.
 *
 * **Example**
 *
 * ```ts
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * Prompt.user("What changed?") // => { role: "user", content: { type: "text", text: "What changed?" } }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const user = (content: string | ContentBlock): Message => ({
  role: "user",
  content: typeof content === "string" ? { type: "text", text: content } : content
})

/**
 * An assistant message: text, or any content block.
 *
 * **Example**
 *
 * ```ts
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * Prompt.assistant("Here is the plan:") // => { role: "assistant", content: { type: "text", text: "Here is the plan:" } }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const assistant = (content: string | ContentBlock): Message => ({
  role: "assistant",
  content: typeof content === "string" ? { type: "text", text: content } : content
})

/**
 * Attaches completers to a handled prompt's arguments, by name; the server
 * then advertises the `completions` capability and answers
 * `completion/complete` for them. Dual.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Prompt from "effect-mcp-runtime/Prompt"
 *
 * const translate = Prompt.make("translate", {
 *   description: "Asks for a translation.",
 *   arguments: Schema.Struct({ text: Schema.String, language: Schema.String })
 * }).pipe(
 *   Prompt.handle(({ language, text }) => Effect.succeed(`Translate into ${language}:\n\n${text}`)),
 *   Prompt.completions({
 *     language: (value) => Effect.succeed(["english", "french"].filter((l) => l.startsWith(value)))
 *   })
 * )
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const completions: {
  <R2>(completers: { readonly [argument: string]: Completer<R2> }): <R>(self: Handled<R>) => Handled<R | R2>
  <R, R2>(self: Handled<R>, completers: { readonly [argument: string]: Completer<R2> }): Handled<R | R2>
} = dual(2, <R, R2>(self: Handled<R>, completers: { readonly [argument: string]: Completer<R2> }): Handled<R | R2> => ({
  ...self,
  completions: { ...self.completions, ...completers } as { readonly [argument: string]: Completer<R | R2> }
}))
