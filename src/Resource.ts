/**
 * Resources: data a client can read by URI (`resources/list`,
 * `resources/read`, `resources/templates/list`), watch
 * (`resources/subscribe`), and complete (template parameters).
 *
 * A resource is either **static** — one URI, made with {@link make} — or a
 * **template** — an RFC 6570 URI template whose variables are decoded with a
 * `Schema.Struct`, made with {@link template}. A handler returns the
 * contents: a string (text), a `Uint8Array` (binary, sent as base64), or a
 * list of {@link Item}s. A template can also list its concrete resources in
 * `resources/list`, page by page, with {@link list}.
 *
 * Like tools, resources belong to a capability: their names are published as
 * `<capability>_<name>`. URIs are not rewritten — clients quote them verbatim
 * — but each URI scheme belongs to one capability (the first to register it),
 * so two capabilities can never serve the same URI. See
 * `docs/resources-and-prompts.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const readme = Resource.make("readme", {
 *   uri: "notes://readme",
 *   description: "What these notes are about.",
 *   mimeType: "text/markdown"
 * }).pipe(Resource.handle(() => Effect.succeed("# Notes\n")))
 *
 * const note = Resource.template("note", {
 *   uriTemplate: "notes://note/{id}",
 *   description: "One note, by its numeric id.",
 *   mimeType: "text/plain",
 *   params: Schema.Struct({ id: Schema.FiniteFromString })
 * }).pipe(
 *   Resource.handle(({ id }) =>
 *     id === 1 ? Effect.succeed("the first note") : Effect.fail(new Resource.NotFound({ message: `No note ${id}` }))
 *   ),
 *   Resource.completions({ id: (value) => Effect.succeed(["1", "2", "3"].filter((id) => id.startsWith(value))) })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import { Kernel } from "./Kernel.ts"
import type { Annotations } from "./McpSchema.ts"

/**
 * The type id of resources and resource templates.
 *
 * **Example**
 *
 * ```ts
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * Resource.TypeId // => "~effect-mcp-runtime/Resource"
 * ```
 *
 * @category symbols
 * @since 0.1.0
 */
export const TypeId = "~effect-mcp-runtime/Resource"

/**
 * The type of {@link TypeId}.
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const id: Resource.TypeId = "~effect-mcp-runtime/Resource"
 * ```
 *
 * @category symbols
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * The Schema of a template's parameters: a struct whose fields are the
 * template's variables, encoded as strings (or lists of strings, for an
 * exploded variable such as `{/path*}`).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const params: Resource.ParamsSchema = Schema.Struct({ id: Schema.FiniteFromString })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ParamsSchema = Schema.Codec<any, { readonly [key: string]: string | ReadonlyArray<string> }, never, never>

/**
 * What a resource and a template have in common: a bare name (published as
 * `<capability>_<name>`), a description for the model, an optional display
 * title, MIME type and annotations.
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const describe = (r: Resource.Common) => `${r.name}: ${r.description}`
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Common extends Pipeable {
  readonly [TypeId]: TypeId
  /** The bare name; the kernel publishes it as `<capability>_<name>`. */
  readonly name: string
  readonly title: string | undefined
  readonly description: string
  /** The MIME type of the contents, when all of them share one. */
  readonly mimeType: string | undefined
  readonly annotations: Annotations | undefined
}

/**
 * A static resource: one URI.
 *
 * **Example**
 *
 * ```ts
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const readme: Resource.Resource = Resource.make("readme", { uri: "notes://readme", description: "The readme" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Resource extends Common {
  readonly _tag: "Resource"
  readonly uri: string
  /** The size of the contents in bytes, when known in advance. */
  readonly size: number | undefined
}

/**
 * A resource template: an RFC 6570 URI template whose variables are decoded
 * with `params`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const note: Resource.Template = Resource.template("note", {
 *   uriTemplate: "notes://note/{id}",
 *   description: "A note",
 *   params: Schema.Struct({ id: Schema.String })
 * })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Template<Params extends ParamsSchema = ParamsSchema> extends Common {
  readonly _tag: "Template"
  readonly uriTemplate: string
  readonly params: Params
}

/**
 * One item of a resource's contents: text or binary data, for the resource's
 * own URI unless `uri` says otherwise.
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const items: ReadonlyArray<Resource.Item> = [
 *   { text: "hello", mimeType: "text/plain" },
 *   { uri: "notes://logo", blob: new Uint8Array([137, 80, 78, 71]), mimeType: "image/png" }
 * ]
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Item =
  | { readonly uri?: string | undefined; readonly mimeType?: string | undefined; readonly text: string }
  | {
      readonly uri?: string | undefined
      readonly mimeType?: string | undefined
      /** The bytes, or their base64 text. */
      readonly blob: Uint8Array | string
    }

/**
 * What a handler returns: text, bytes, or a list of items.
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const text: Resource.Contents = "hello"
 * const bytes: Resource.Contents = new Uint8Array([1, 2, 3])
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Contents = string | Uint8Array | ReadonlyArray<Item>

/**
 * Suggests values for a template variable: given what the user typed and the
 * variables already chosen, the candidates.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const ids: Resource.Completer = (value) => Effect.succeed(["1", "2"].filter((id) => id.startsWith(value)))
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Completer<R = never> = (
  value: string,
  context: { readonly arguments: { readonly [name: string]: string } }
) => Effect.Effect<ReadonlyArray<string>, never, R>

/**
 * A resource or template with its handler, ready to be contributed by a
 * capability.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const handled: Resource.Handled = Resource.make("readme", { uri: "notes://readme", description: "x" }).pipe(
 *   Resource.handle(() => Effect.succeed("hello"))
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Handled<R = never> {
  readonly resource: Resource | Template
  readonly handler: (params: any, uri: string) => Effect.Effect<Contents, unknown, R>
  /** Completers of template variables, by name (see {@link completions}). */
  readonly completions?: { readonly [variable: string]: Completer<R> } | undefined
  /** Lists a template's concrete resources, page by page (see {@link list}). */
  readonly lister?: ((cursor: string | undefined) => Effect.Effect<Listing, unknown, R>) | undefined
}

/**
 * One concrete resource of a template, as its lister reports it for
 * `resources/list`. `uri` must be a URI the template matches (and whose
 * variables decode with its `params`); `name` is sent as given, without the
 * capability prefix (a file path, a run id). `mimeType` defaults to the
 * template's.
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const listed: Resource.Listed = { uri: "notes://note/1", name: "note 1", title: "Groceries", size: 42 }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Listed {
  readonly uri: string
  readonly name: string
  /** A display title, sent to clients of protocol 2025-06-18 and later. */
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  /** The size of the contents in bytes, when known. */
  readonly size?: number | undefined
}

/**
 * One page of a template's listing: its resources, and the cursor of the
 * next page when there is one (the lister's own cursor, any string; the
 * runtime wraps it in the cursor the client sees).
 *
 * **Example**
 *
 * ```ts
 * import type * as Resource from "effect-mcp-runtime/Resource"
 *
 * const page: Resource.Listing = {
 *   resources: [{ uri: "logs://run/41", name: "run 41" }],
 *   nextCursor: "41"
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Listing {
  readonly resources: ReadonlyArray<Listed>
  readonly nextCursor?: string | undefined
}

/**
 * The typed failure that makes `resources/read` answer "resource not found"
 * (−32002), for a URI that matches a template but names nothing, or a static
 * resource that is gone. Any other typed failure of a handler is answered
 * with −32603 and its message.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const missing = Effect.fail(new Resource.NotFound({ message: "No note 7; list the notes with resources/list" }))
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

const Proto = {
  [TypeId]: TypeId,
  pipe() {
    return pipeArguments(this, arguments)
  }
}

interface CommonOptions {
  readonly description: string
  readonly title?: string | undefined
  readonly mimeType?: string | undefined
  readonly annotations?: Annotations | undefined
}

/**
 * Declares a static resource.
 *
 * **Example**
 *
 * ```ts
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const logo = Resource.make("logo", {
 *   uri: "brand://logo.png",
 *   description: "The product logo",
 *   mimeType: "image/png",
 *   annotations: { audience: ["user"] }
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  name: string,
  options: CommonOptions & {
    readonly uri: string
    readonly size?: number | undefined
  }
): Resource => {
  const self = Object.create(Proto)
  self._tag = "Resource"
  self.name = name
  self.uri = options.uri
  self.title = options.title
  self.description = options.description
  self.mimeType = options.mimeType
  self.annotations = options.annotations
  self.size = options.size
  return self
}

/**
 * Declares a resource template. Every variable of `uriTemplate` must be a
 * field of `params`, and every required field a variable.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const file = Resource.template("file", {
 *   uriTemplate: "files://{+path}",
 *   description: "A file of the project, by its path",
 *   params: Schema.Struct({ path: Schema.String })
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const template = <Params extends ParamsSchema>(
  name: string,
  options: CommonOptions & {
    readonly uriTemplate: string
    readonly params: Params
  }
): Template<Params> => {
  const self = Object.create(Proto)
  self._tag = "Template"
  self.name = name
  self.uriTemplate = options.uriTemplate
  self.params = options.params
  self.title = options.title
  self.description = options.description
  self.mimeType = options.mimeType
  self.annotations = options.annotations
  return self
}

type ParamsOf<T> = T extends Template<infer P> ? P["Type"] : {}

/**
 * Gives a resource or template its handler. The handler gets the decoded
 * template parameters (an empty object for a static resource) and the URI
 * that was read.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const echo = Resource.template("echo", {
 *   uriTemplate: "echo://{text}",
 *   description: "Reads back its own text",
 *   params: Schema.Struct({ text: Schema.String })
 * }).pipe(Resource.handle(({ text }) => Effect.succeed(text)))
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const handle: {
  <T extends Resource | Template<any>, E, R>(
    handler: (params: ParamsOf<T>, uri: string) => Effect.Effect<Contents, E, R>
  ): (self: T) => Handled<R>
  <T extends Resource | Template<any>, E, R>(
    self: T,
    handler: (params: ParamsOf<T>, uri: string) => Effect.Effect<Contents, E, R>
  ): Handled<R>
} = dual(
  2,
  <T extends Resource | Template<any>, E, R>(
    self: T,
    handler: (params: ParamsOf<T>, uri: string) => Effect.Effect<Contents, E, R>
  ): Handled<R> => ({ resource: self, handler })
)

/**
 * Adds completers for a template's variables (`completion/complete` with a
 * `ref/resource` reference). A variable the template lacks is refused at
 * startup.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const branch = Resource.template("branch", {
 *   uriTemplate: "git://branch/{name}",
 *   description: "A branch's head commit",
 *   params: Schema.Struct({ name: Schema.String })
 * }).pipe(
 *   Resource.handle(({ name }) => Effect.succeed(`head of ${name}`)),
 *   Resource.completions({ name: (value) => Effect.succeed(["main", "dev"].filter((b) => b.startsWith(value))) })
 * )
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const completions: {
  <R2>(completers: { readonly [variable: string]: Completer<R2> }): <R>(self: Handled<R>) => Handled<R | R2>
  <R, R2>(self: Handled<R>, completers: { readonly [variable: string]: Completer<R2> }): Handled<R | R2>
} = dual(2, <R, R2>(self: Handled<R>, completers: { readonly [variable: string]: Completer<R2> }): Handled<R | R2> => ({
  ...self,
  completions: { ...self.completions, ...completers } as { readonly [variable: string]: Completer<R | R2> }
}))

/**
 * Makes a template list its concrete resources in `resources/list`, after
 * the static resources. The lister gets its own cursor (`undefined` for the
 * first page) and returns one page, with the `nextCursor` of the next page
 * when there is one; the runtime pages through it when the client follows
 * `nextCursor`. It runs with the capability's services, under the execution
 * policy of `resources/read` (the template's slot, the timeout); a failure
 * answers that `resources/list` request with −32603. Every listed URI must
 * be one the template matches. Applied to a static resource, the
 * capability fails at startup with `InvalidResource`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const runs = ["1", "2", "3", "4", "5"]
 * const run = Resource.template("run", {
 *   uriTemplate: "logs://run/{id}",
 *   description: "The log of one run",
 *   params: Schema.Struct({ id: Schema.String })
 * }).pipe(
 *   Resource.handle(({ id }) => Effect.succeed(`log of run ${id}`)),
 *   // two runs per page; the cursor is the index of the next run
 *   Resource.list((cursor) => {
 *     const start = cursor === undefined ? 0 : Number(cursor)
 *     const next = start + 2
 *     return Effect.succeed({
 *       resources: runs.slice(start, next).map((id) => ({ uri: `logs://run/${id}`, name: `run ${id}` })),
 *       nextCursor: next < runs.length ? String(next) : undefined
 *     })
 *   })
 * )
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const list: {
  <E2, R2>(
    lister: (cursor: string | undefined) => Effect.Effect<Listing, E2, R2>
  ): <R>(self: Handled<R>) => Handled<R | R2>
  <R, E2, R2>(self: Handled<R>, lister: (cursor: string | undefined) => Effect.Effect<Listing, E2, R2>): Handled<R | R2>
} = dual(
  2,
  <R, E2, R2>(
    self: Handled<R>,
    lister: (cursor: string | undefined) => Effect.Effect<Listing, E2, R2>
  ): Handled<R | R2> => ({ ...self, lister })
)

/**
 * Tells subscribed clients that a resource changed: every session that
 * subscribed to `uri` gets `notifications/resources/updated`. Call it from
 * wherever the change is noticed (a handler, a watcher fiber).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Resource from "effect-mcp-runtime/Resource"
 *
 * const saved = Effect.andThen(Effect.log("note 1 saved"), Resource.updated("notes://note/1"))
 * ```
 *
 * @category notifications
 * @since 0.1.0
 */
export const updated = (uri: string): Effect.Effect<void, never, Kernel> =>
  Effect.flatMap(Effect.service(Kernel), (kernel) => Effect.asVoid(PubSub.publish(kernel.updates, uri)))
