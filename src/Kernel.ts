/**
 * The capability kernel: the registry every capability contributes to.
 *
 * The kernel owns the public namespace. A capability with id `fs` that
 * registers the tool `read` publishes `fs_read`; capabilities never pass
 * prefixed names. The kernel rejects, with typed errors, an invalid or
 * reserved capability id, a pre-prefixed name, and two registrations that
 * resolve to the same public name. Registrations made at run time live under
 * `app_` and can never shadow a static one.
 *
 * It also serves `tools/list`: each tool's entry is serialized once, pages are
 * assembled once per protocol era and cached until the registry changes. The
 * same holds for the other lists, except the pages of `resources/list` that
 * a template's lister (`Resource.list`) fills: those are made per request.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Base64 } from "effect/encoding"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import { type CompiledPrompt, compilePrompt } from "./internal/compilePrompt.ts"
import {
  type CompiledResource,
  compileResource,
  type CompiledTemplate,
  compileTemplate,
  type ListedPage,
  schemeOf
} from "./internal/compileResource.ts"
import { capabilityOverlay, compileTool, type CompiledTool, SchemaProblem } from "./internal/compileTool.ts"
import * as Extension from "./Extension.ts"
import type * as Method from "./Method.ts"
import { InvalidParams, type McpError } from "./McpError.ts"
import * as Policy from "./Policy.ts"
import { type Era, eraOf, type ProtocolVersion } from "./ProtocolVersion.ts"
import type { RequestContext } from "./RequestContext.ts"
import type * as Prompt from "./Prompt.ts"
import type * as Resource from "./Resource.ts"
import type * as Tool from "./Tool.ts"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * What a capability says about itself.
 *
 * **Example**
 *
 * ```ts
 * import type { CapabilityInfo } from "effect-mcp-runtime/Kernel"
 *
 * const info: CapabilityInfo = { id: "notes", description: "Markdown notes", version: "1.0.0" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface CapabilityInfo extends Policy.Limits {
  /** Matches `^[a-z][a-z0-9_]*$`; `app` is reserved. */
  readonly id: string
  readonly description: string
  readonly version: string
  /**
   * The names were chosen elsewhere (an upstream server's tools): a name that
   * already starts with `<id>_` is published as `<id>_<name>` like any other,
   * rather than refused as a `PrefixedName`. Since 0.3.0.
   */
  readonly foreignNames?: boolean | undefined
}

/**
 * A registered capability and the public names it contributed.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Kernel } from "effect-mcp-runtime/Kernel"
 *
 * // every public tool name, grouped by capability id
 * const toolsById = Effect.map(Effect.service(Kernel), (kernel) =>
 *   kernel.capabilities().map((summary) => [summary.id, summary.tools] as const)
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface CapabilitySummary extends CapabilityInfo {
  readonly tools: ReadonlyArray<string>
  /** The public names of its prompts. */
  readonly prompts: ReadonlyArray<string>
  /** The public names of its resources and resource templates. */
  readonly resources: ReadonlyArray<string>
}

/**
 * A change to the registry, published to every session.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as PubSub from "effect/PubSub"
 * import { Kernel } from "effect-mcp-runtime/Kernel"
 *
 * // waits for the next registry change
 * const nextChange = Effect.scoped(
 *   Effect.gen(function*() {
 *     const kernel = yield* Kernel
 *     return yield* PubSub.take(yield* PubSub.subscribe(kernel.changes)) // "tools"
 *   })
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Change = "tools" | "prompts" | "resources"

/**
 * The capability id reserved for run-time registrations.
 *
 * **Example**
 *
 * ```ts
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * Kernel.dynamicId // => "app"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const dynamicId = "app"

const idPattern = /^[a-z][a-z0-9_]*$/
const namePattern = /^[A-Za-z0-9_.-]{1,64}$/

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

/**
 * A capability id does not match `^[a-z][a-z0-9_]*$`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." }).pipe(Tool.handle(() => Effect.succeed("hi")))
 * const info = { id: "My-Tools", description: "Bad id", version: "1.0.0" }
 * const BadId = Capability.make(info, Effect.succeed({ tools: [hello] }))
 * const program = Effect.provide(Effect.void, BadId.pipe(Layer.provide(Kernel.layer())))
 * Effect.runSync(Effect.flip(program))._tag // => "InvalidCapabilityId"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidCapabilityId extends Schema.TaggedError<InvalidCapabilityId>()("InvalidCapabilityId", {
  id: Schema.String
}) {
  override get message(): string {
    return (
      `Invalid capability id ${JSON.stringify(this.id)}: an id must match ^[a-z][a-z0-9_]*$ ` +
      `(lowercase letter first, then lowercase letters, digits or underscores)`
    )
  }
}

/**
 * A capability tried to use the reserved id `app`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." }).pipe(Tool.handle(() => Effect.succeed("hi")))
 * const info = { id: "app", description: "Run-time tools", version: "1.0.0" }
 * const Reserved = Capability.make(info, Effect.succeed({ tools: [hello] }))
 * const program = Effect.provide(Effect.void, Reserved.pipe(Layer.provide(Kernel.layer())))
 * Effect.runSync(Effect.flip(program))._tag // => "ReservedCapabilityId"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ReservedCapabilityId extends Schema.TaggedError<ReservedCapabilityId>()("ReservedCapabilityId", {
  id: Schema.String
}) {
  override get message(): string {
    return `Capability id "${this.id}" is reserved for run-time (dynamic) registrations; choose another id`
  }
}

/**
 * A capability passed a name that already carries its prefix.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const search = Tool.make("notes_search", { description: "Searches." }).pipe(Tool.handle(() => Effect.succeed("")))
 * const info = { id: "notes", description: "Notes", version: "1.0.0" }
 * const Notes = Capability.make(info, Effect.succeed({ tools: [search] }))
 * const program = Effect.provide(Effect.void, Notes.pipe(Layer.provide(Kernel.layer())))
 * Effect.runSync(Effect.flip(program))._tag // => "PrefixedName"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class PrefixedName extends Schema.TaggedError<PrefixedName>()("PrefixedName", {
  capability: Schema.String,
  toolName: Schema.String
}) {
  override get message(): string {
    return (
      `Capability "${this.capability}" registered "${this.toolName}", which is already prefixed: ` +
      `pass the bare name "${this.toolName.slice(this.capability.length + 1)}" and the kernel publishes ` +
      `"${this.toolName}"`
    )
  }
}

/**
 * A tool name is empty, too long or has characters outside `[A-Za-z0-9_.-]`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const tool = Tool.make("read file", { description: "Reads a file." }).pipe(Tool.handle(() => Effect.succeed("")))
 * const register = Effect.flatMap(Kernel.make(), (kernel) => kernel.registerDynamic(tool))
 * Effect.runSync(Effect.flip(register))._tag // => "InvalidName"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidName extends Schema.TaggedError<InvalidName>()("InvalidName", {
  capability: Schema.String,
  toolName: Schema.String
}) {
  override get message(): string {
    return (
      `Capability "${this.capability}" registered the invalid name ${JSON.stringify(this.toolName)}: ` +
      `a name is 1 to 64 characters of A-Z, a-z, 0-9, "_", "." or "-"`
    )
  }
}

/**
 * Two registrations resolve to the same public name.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." }).pipe(Tool.handle(() => Effect.succeed("hi")))
 * const twice = Effect.flatMap(Kernel.make(), (kernel) =>
 *   Effect.andThen(kernel.registerDynamic(hello), kernel.registerDynamic(hello))
 * )
 * Effect.runSync(Effect.flip(twice)).message
 * // => 'Capability "app" registers the public name "app_hello" twice'
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class DuplicateName extends Schema.TaggedError<DuplicateName>()("DuplicateName", {
  toolName: Schema.String,
  first: Schema.String,
  second: Schema.String
}) {
  override get message(): string {
    return this.first === this.second
      ? `Capability "${this.first}" registers the public name "${this.toolName}" twice`
      : `Capabilities "${this.first}" and "${this.second}" both resolve to the public name "${this.toolName}"; ` +
          `rename one of the tools or change one capability id`
  }
}

/**
 * A run-time registration would shadow a static one.
 *
 * **Example**
 *
 * ```ts
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * const error = new Kernel.DynamicShadow({ toolName: "app_x_run", owner: "app_x" })
 * error.message.startsWith('Dynamic registration "app_x_run" would shadow') // => true
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class DynamicShadow extends Schema.TaggedError<DynamicShadow>()("DynamicShadow", {
  toolName: Schema.String,
  owner: Schema.String
}) {
  override get message(): string {
    return (
      `Dynamic registration "${this.toolName}" would shadow the static tool of capability "${this.owner}"; ` +
      `dynamic registrations can never replace static ones`
    )
  }
}

/**
 * A tool's limits (its own, or its capability's) are unusable: a timeout
 * that is not a duration or is negative, a concurrency or size limit that is
 * not a whole number of at least 1.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidLimits } from "effect-mcp-runtime/Kernel"
 *
 * new InvalidLimits({ toolName: "exec_run", reason: 'timeout: not a duration: "5 minuts"' })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidLimits extends Schema.TaggedError<InvalidLimits>()("InvalidLimits", {
  toolName: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Tool "${this.toolName}": unusable limits: ${this.reason}`
  }
}

/**
 * A tool's input or output Schema cannot be published as an MCP tool schema.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const input = Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.String })])
 * const either = Tool.make("either", { description: "Takes a or b.", input }).pipe(
 *   Tool.handle(() => Effect.succeed(""))
 * )
 * const register = Effect.flatMap(Kernel.make(), (kernel) => kernel.registerDynamic(either))
 * Effect.runSync(Effect.flip(register))._tag // => "InvalidToolSchema"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidToolSchema extends Schema.TaggedError<InvalidToolSchema>()("InvalidToolSchema", {
  toolName: Schema.String,
  reason: Schema.String,
  /** What has the bad Schema: a tool (the default) or a prompt. */
  kind: Schema.optionalKey(Schema.Literals(["tool", "prompt"]))
}) {
  override get message(): string {
    return `${this.kind === "prompt" ? "Prompt" : "Tool"} "${this.toolName}": ${this.reason}`
  }
}

/**
 * A resource or resource template that cannot be served: no URI scheme, a
 * malformed URI template, parameters that do not match its variables, a URI
 * registered twice.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidResource } from "effect-mcp-runtime/Kernel"
 *
 * new InvalidResource({ name: "notes_note", reason: "variable \"id\" has no field in the params Schema" }).message
 * // => 'Resource "notes_note": variable "id" has no field in the params Schema'
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidResource extends Schema.TaggedError<InvalidResource>()("InvalidResource", {
  name: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Resource "${this.name}": ${this.reason}`
  }
}

/**
 * Two capabilities serve URIs of the same scheme. Each URI scheme belongs to
 * one capability (the first to register it), so a URI always has one owner.
 *
 * **Example**
 *
 * ```ts
 * import { SchemeTaken } from "effect-mcp-runtime/Kernel"
 *
 * new SchemeTaken({ scheme: "notes", owner: "notes", capability: "todo", name: "todo_list" }).message
 * // => 'Resource "todo_list" of capability "todo" uses the URI scheme "notes:", which belongs to capability "notes"; each scheme belongs to one capability: choose another, such as "todo:"'
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SchemeTaken extends Schema.TaggedError<SchemeTaken>()("SchemeTaken", {
  scheme: Schema.String,
  owner: Schema.String,
  capability: Schema.String,
  name: Schema.String
}) {
  override get message(): string {
    return (
      `Resource "${this.name}" of capability "${this.capability}" uses the URI scheme "${this.scheme}:", ` +
      `which belongs to capability "${this.owner}"; each scheme belongs to one capability: ` +
      `choose another, such as "${this.capability}:"`
    )
  }
}

/**
 * An extension a capability contributes cannot be served: its identifier is
 * not `<prefix>/<name>`, or it has a method of the core protocol.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidExtension } from "effect-mcp-runtime/Kernel"
 *
 * new InvalidExtension({ capability: "skills", extension: "skills", reason: "its id has no prefix" }).message
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidExtension extends Schema.TaggedError<InvalidExtension>()("InvalidExtension", {
  capability: Schema.String,
  extension: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Extension "${this.extension}" of capability "${this.capability}" cannot be served: ${this.reason}`
  }
}

/**
 * Two capabilities contribute the same extension, or two extensions serve
 * the same method.
 *
 * **Example**
 *
 * ```ts
 * import { DuplicateExtension } from "effect-mcp-runtime/Kernel"
 *
 * new DuplicateExtension({ what: "method skills/list", first: "skills", second: "docs" }).message
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class DuplicateExtension extends Schema.TaggedError<DuplicateExtension>()("DuplicateExtension", {
  what: Schema.String,
  first: Schema.String,
  second: Schema.String
}) {
  override get message(): string {
    return `The ${this.what} is contributed by capability "${this.first}" and again by "${this.second}"`
  }
}

/**
 * An alias the kernel was built with cannot be published: it is taken by a
 * public name or another alias, or (checked with `Kernel.unusedAliases`) its
 * target was never registered.
 *
 * **Example**
 *
 * ```ts
 * import { InvalidAlias } from "effect-mcp-runtime/Kernel"
 *
 * new InvalidAlias({ alias: "greet", target: "tasks_greet", reason: "greet is already a public name" }).message
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidAlias extends Schema.TaggedError<InvalidAlias>()("InvalidAlias", {
  alias: Schema.String,
  target: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The alias "${this.alias}" for "${this.target}" cannot be published: ${this.reason}`
  }
}

/**
 * Every registration failure.
 *
 * **Example**
 *
 * ```ts
 * import type * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * const describe = (error: Kernel.KernelError): string => `${error._tag}: ${error.message}`
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export type KernelError =
  | InvalidCapabilityId
  | ReservedCapabilityId
  | PrefixedName
  | InvalidName
  | DuplicateName
  | DynamicShadow
  | InvalidToolSchema
  | InvalidLimits
  | InvalidResource
  | SchemeTaken
  | InvalidExtension
  | DuplicateExtension
  | InvalidAlias

/**
 * `Kernel.replaceCapability` was asked to replace the contents of a
 * capability that no static registration used (or of the run-time
 * registrations, `app`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Context from "effect/Context"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * const replace = Effect.flatMap(Kernel.make(), (kernel) =>
 *   kernel.replaceCapability("notes", { tools: [] }, Context.empty() as Context.Context<any>)
 * )
 * Effect.runSync(Effect.flip(replace))._tag // => "UnknownCapability"
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class UnknownCapability extends Schema.TaggedError<UnknownCapability>()("UnknownCapability", {
  id: Schema.String
}) {
  override get message(): string {
    return (
      `No capability "${this.id}" was registered statically; replaceCapability replaces what a registered ` +
      `capability contributes`
    )
  }
}

/**
 * The new contents of a capability, for `Kernel.replaceCapability`: what is
 * not given is replaced by nothing.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping = Tool.make("ping", { description: "Answers pong." }).pipe(Tool.handle(() => Effect.succeed("pong")))
 * const contents: Kernel.Replacement = { tools: [ping], prompts: [], resources: [] }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface Replacement {
  readonly tools?: ReadonlyArray<Tool.Handled<any>> | undefined
  readonly prompts?: ReadonlyArray<Prompt.Handled<any>> | undefined
  readonly resources?: ReadonlyArray<Resource.Handled<any>> | undefined
}

// -----------------------------------------------------------------------------
// service
// -----------------------------------------------------------------------------

/**
 * The kernel service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Kernel } from "effect-mcp-runtime/Kernel"
 *
 * const toolCount = Effect.gen(function*() {
 *   const kernel = yield* Kernel
 *   return kernel.toolCount()
 * })
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Kernel extends Context.Service<
  Kernel,
  {
    /** Registers a static capability and its tools (called by `Capability.make`). */
    readonly registerCapability: (
      info: CapabilityInfo,
      tools: ReadonlyArray<Tool.Handled<any>>,
      context: Context.Context<any>,
      prompts?: ReadonlyArray<Prompt.Handled<any>>,
      resources?: ReadonlyArray<Resource.Handled<any>>,
      extensions?: ReadonlyArray<Extension.Extension<any>>
    ) => Effect.Effect<void, KernelError>
    /** The method an extension serves by that name (2026-07-28 requests only). */
    readonly extensionMethod: (method: string) => Method.Request | undefined
    /** The registered extensions and their settings, as `server/discover` advertises them. */
    readonly extensions: () => ReadonlyArray<{
      readonly id: string
      readonly settings: { readonly [key: string]: unknown }
    }>
    /** Whether a registered tool may run as a task (the server then offers the tasks extension). */
    readonly supportsTasks: () => boolean
    /** The aliases the kernel was built with whose target no capability registered. */
    readonly unusedAliases: () => ReadonlyArray<InvalidAlias>
    /** Registers a tool at run time under `app_<name>`. */
    readonly registerDynamic: (tool: Tool.Handled<never>) => Effect.Effect<string, KernelError>
    /** Registers a prompt at run time under `app_<name>`. */
    readonly registerDynamicPrompt: (prompt: Prompt.Handled<never>) => Effect.Effect<string, KernelError>
    /**
     * Registers a resource or template at run time under `app_<name>`. Its URI
     * scheme must not belong to a static capability.
     */
    readonly registerDynamicResource: (resource: Resource.Handled<never>) => Effect.Effect<string, KernelError>
    /** Removes a run-time tool, prompt or resource by its public name; `false` if there was none. */
    readonly unregisterDynamic: (publicName: string) => Effect.Effect<boolean>
    /**
     * The capability id of an experimental tool this kernel holds back
     * (`Options.experimental: false`), by public name; undefined for any
     * other name. Since 0.5.0.
     */
    readonly withheld: (publicName: string) => string | undefined
    /**
     * Replaces, at run time, the tools, prompts and resources of a capability
     * registered statically (an upstream server whose lists changed): its
     * current entries are removed, then each new one is checked as at
     * registration and added. An entry that cannot be served — its public
     * name or URI scheme belongs to another capability, a bad name or schema
     * — is skipped and returned as a problem; the others are published. The
     * list pages are rebuilt, and a `Change` is published for each list that
     * changed (`list_changed` notifications). Its extensions are kept. Fails
     * only for an id no static registration used.
     */
    readonly replaceCapability: (
      id: string,
      contents: Replacement,
      context: Context.Context<any>
    ) => Effect.Effect<ReadonlyArray<KernelError>, UnknownCapability>
    /** Looks a tool up by public name. */
    readonly tool: (publicName: string) => CompiledTool | undefined
    /** The number of registered tools. */
    readonly toolCount: () => number
    /** The public names of every tool, in list order (as `tools/list` gives them). */
    readonly toolNames: () => ReadonlyArray<string>
    /** One page of `tools/list`, serialized, for a protocol version and cursor. */
    readonly toolsPage: (version: ProtocolVersion, cursor: string | undefined) => Effect.Effect<string, InvalidParams>
    /** Looks a prompt up by public name. */
    readonly prompt: (publicName: string) => CompiledPrompt | undefined
    /** The number of registered prompts. */
    readonly promptCount: () => number
    /** Whether any prompt or template has completers (the `completions` capability). */
    readonly completes: () => boolean
    /** The number of resources and resource templates. */
    readonly resourceCount: () => number
    /**
     * The resource a URI names: a static resource with that URI, else the first
     * template (of the capability that owns the URI's scheme) that matches it,
     * with the decoded parameters.
     */
    readonly resolve: (
      uri: string
    ) => { readonly resource: CompiledResource | CompiledTemplate; readonly params: unknown } | undefined
    /** Looks a template up by its URI template (for completions). */
    readonly template: (uriTemplate: string) => CompiledTemplate | undefined
    /**
     * One page of `resources/list`, serialized: a page of the static
     * resources, then, page by page, the resources of each listing template
     * (`Resource.list`) in list order. `guardListing` runs one lister call
     * (under the execution policy, say); `undefined` from it skips the
     * template.
     */
    readonly resourcesPage: <R>(
      version: ProtocolVersion,
      cursor: string | undefined,
      guardListing: (
        template: CompiledTemplate,
        listing: Effect.Effect<ListedPage, McpError, RequestContext>
      ) => Effect.Effect<ListedPage | undefined, McpError, R>
    ) => Effect.Effect<string, McpError, R>
    /** One page of `resources/templates/list`, serialized. */
    readonly templatesPage: (
      version: ProtocolVersion,
      cursor: string | undefined
    ) => Effect.Effect<string, InvalidParams>
    /** Resource updates, by URI, for `notifications/resources/updated` (see `Resource.updated`). */
    readonly updates: PubSub.PubSub<string>
    /** One page of `prompts/list`, serialized, for a protocol version and cursor. */
    readonly promptsPage: (version: ProtocolVersion, cursor: string | undefined) => Effect.Effect<string, InvalidParams>
    /** The registered capabilities, in registration order. */
    readonly capabilities: () => ReadonlyArray<CapabilitySummary>
    /** Registry changes, for `list_changed` notifications. */
    readonly changes: PubSub.PubSub<Change>
  }
>()("effect-mcp-runtime/Kernel") {}

/**
 * Options of the kernel.
 *
 * **Example**
 *
 * ```ts
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * const options: Kernel.Options = { pageSize: 100 }
 * const KernelLive = Kernel.layer(options)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Entries per `tools/list` and `prompts/list` page (default 1000). */
  readonly pageSize?: number | undefined
  /**
   * Tools published under another name, alias → public name: the tool
   * `tasks_greet` listed and called as `greet`. The operator's choice at the
   * composition root (the conformance fixtures use it for the names the
   * suite expects); capabilities cannot alias. An alias is checked like any
   * public name: it may not be taken by a tool or another alias, and dynamic
   * registrations cannot take it. See `docs/adr/0004-conformance-fixture-names.md`.
   */
  readonly aliases?: Readonly<Record<string, string>> | undefined
  /**
   * Whether tools marked experimental (`Tool.make(…, { experimental: true })`)
   * are published (default `true`: a server composed in code publishes what
   * it is given). With `false` they are held back: not listed, and a call
   * names them as experimental and says how to enable them (`withheld`). The
   * binary passes `serve --experimental` here (off by default). Since 0.5.0.
   */
  readonly experimental?: boolean | undefined
}

// A cursor names its list ("o" for tools, "p" for prompts, "r" for resources,
// "t" for templates), so one list's cursor is never taken by another.
type ListKind = "o" | "p" | "r" | "t"
const encodeCursor = (kind: ListKind, offset: number): string => btoa(`${kind}:${offset}`)
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const decodeCursor = (kind: ListKind, cursor: string): number | undefined => {
  if (cursor.length > 32 || !base64.test(cursor)) return undefined
  const match = /^([a-z]):(\d{1,9})$/.exec(atob(cursor))
  return match === null || match[1] !== kind ? undefined : Number(match[2])
}

// A `resources/list` cursor inside a template's listing: the template's public
// name (which has no "/") and, past its first page, the lister's own cursor,
// behind a checksum, so that a cursor the server did not make is refused here
// rather than passed on to the lister.
const checksum = (body: string): string => (Hash.string(body) >>> 0).toString(36)
const encodeListingCursor = (template: string, inner: string | undefined): string => {
  const body = inner === undefined ? template : `${template}/${inner}`
  return Base64.encode(`r/${checksum(body)}/${body}`)
}
const listingCursorPattern = /^r\/([0-9a-z]{1,7})\/(([^/]+)(?:\/([\s\S]*))?)$/
const decodeListingCursor = (
  cursor: string
): { readonly template: string; readonly inner: string | undefined } | undefined => {
  if (!base64.test(cursor)) return undefined
  const text = Base64.decodeString(cursor)
  if (text._tag === "Failure") return undefined
  const match = listingCursorPattern.exec(text.success)
  if (match === null || match[1] !== checksum(match[2]!)) return undefined
  return { template: match[3]!, inner: match[4] }
}

// Runs one lister call for `resources/list` (see `Kernel.resourcesPage`).
type GuardListing<R> = (
  template: CompiledTemplate,
  listing: Effect.Effect<ListedPage, McpError, RequestContext>
) => Effect.Effect<ListedPage | undefined, McpError, R>

/**
 * Builds a kernel.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." }).pipe(Tool.handle(() => Effect.succeed("hi")))
 * const register = Effect.flatMap(Kernel.make({ pageSize: 50 }), (kernel) => kernel.registerDynamic(hello))
 * Effect.runSync(register) // => "app_hello"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (options: Options = {}) {
  const pageSize = Math.max(1, options.pageSize ?? 1000)
  // alias → public name, and public name → alias.
  const aliasTargets = new Map(Object.entries(options.aliases ?? {}))
  const aliases = new Map([...aliasTargets].map(([alias, target]) => [target, alias] as const))
  const extensionsById = new Map<
    string,
    { readonly capability: string; readonly settings: { readonly [key: string]: unknown } }
  >()
  const extensionMethods = new Map<string, { readonly capability: string; readonly method: Method.Request }>()
  const tools = new Map<string, CompiledTool>()
  const order: Array<string> = []
  const summaries: Array<CapabilitySummary> = []
  // Experimental tools held back (public name → capability id) when `experimental` is off.
  const experimental = options.experimental ?? true
  const withheld = new Map<string, string>()
  const changes = yield* PubSub.unbounded<Change>()
  let pages: Partial<Record<Era, Array<string>>> = {}
  const prompts = new Map<string, CompiledPrompt>()
  const promptOrder: Array<string> = []
  let promptPages: Partial<Record<Era, Array<string>>> = {}
  // Static resources by URI, templates in list order, scheme owners.
  const resources = new Map<string, CompiledResource>()
  const resourceOrder: Array<string> = []
  const templates: Array<CompiledTemplate> = []
  const templatesByScheme = new Map<string, Array<CompiledTemplate>>()
  const schemes = new Map<string, string>()
  const resourceNames = new Map<string, string>()
  const updates = yield* PubSub.unbounded<string>()
  let resourcePages: Partial<Record<Era, Array<string>>> = {}
  let templatePages: Partial<Record<Era, Array<string>>> = {}

  const invalidate = () => {
    pages = {}
    promptPages = {}
    resourcePages = {}
    templatePages = {}
  }

  const kinds = { tools: "o", prompts: "p", resources: "r", resourceTemplates: "t" } as const
  const paginate = (
    key: keyof typeof kinds,
    names: ReadonlyArray<string>,
    entryOf: (name: string) => string
  ): Array<string> => {
    const result: Array<string> = []
    for (let offset = 0; offset < names.length || offset === 0; offset += pageSize) {
      const entries = names
        .slice(offset, offset + pageSize)
        .map(entryOf)
        .join(",")
      const next =
        offset + pageSize < names.length
          ? `,"nextCursor":${JSON.stringify(encodeCursor(kinds[key], offset + pageSize))}`
          : ""
      result.push(`{"${key}":[${entries}]${next}}`)
    }
    return result
  }
  const buildPages = (era: Era): Array<string> => paginate("tools", order, (name) => tools.get(name)!.listEntry[era])
  const buildPromptPages = (era: Era): Array<string> =>
    paginate("prompts", promptOrder, (name) => prompts.get(name)!.listEntry[era])
  // The static resources' pages; the last one points to the first listing
  // template, when there is one.
  const buildResourcePages = (era: Era): Array<string> => {
    const result = paginate("resources", resourceOrder, (uri) => resources.get(uri)!.listEntry[era])
    const first = listingAfter(-1)
    if (first !== undefined) {
      const last = result.length - 1
      result[last] =
        `${result[last]!.slice(0, -1)},"nextCursor":${JSON.stringify(encodeListingCursor(first.name, undefined))}}`
    }
    return result
  }
  // The first listing template after index `at` of `templates`.
  const listingAfter = (at: number): CompiledTemplate | undefined => {
    for (let i = at + 1; i < templates.length; i++) if (templates[i]!.list !== undefined) return templates[i]
    return undefined
  }
  const buildTemplatePages = (era: Era): Array<string> =>
    paginate(
      "resourceTemplates",
      templates.map((_, i) => String(i)),
      (i) => templates[Number(i)]!.listEntry[era]
    )

  // The bare name of a tool, prompt or resource of `capability`: what is wrong
  // with it, if anything. A capability whose names come from elsewhere (an
  // upstream server's: `CapabilityInfo.foreignNames`) may use its own prefix.
  const nameProblem = (capability: string, name: string, foreign: boolean): KernelError | undefined => {
    if (capability !== dynamicId && !foreign && name.startsWith(`${capability}_`)) {
      return new PrefixedName({ capability, toolName: name })
    }
    if (!namePattern.test(name)) return new InvalidName({ capability, toolName: name })
    return undefined
  }

  // Checks and compiles one resource or template of a capability (nothing is
  // committed here); `seen` and `keys` hold the public names and URIs of the
  // ones checked before it in the same registration.
  const checkResource = (
    capability: string,
    handled: Resource.Handled<any>,
    context: Context.Context<any>,
    seen: Set<string>,
    keys: Set<string>,
    foreign: boolean
  ): CompiledResource | CompiledTemplate | KernelError => {
    const name = handled.resource.name
    const problem = nameProblem(capability, name, foreign)
    if (problem !== undefined) return problem
    const publicName = `${capability}_${name}`
    const owner = seen.has(publicName) ? capability : resourceNames.get(publicName)
    if (owner !== undefined) {
      return capability === dynamicId && owner !== dynamicId
        ? new DynamicShadow({ toolName: publicName, owner })
        : new DuplicateName({ toolName: publicName, first: owner, second: capability })
    }
    seen.add(publicName)
    const result =
      handled.resource._tag === "Resource"
        ? compileResource(handled, handled.resource, publicName, capability, context)
        : compileTemplate(handled, handled.resource, publicName, capability, context)
    if (result instanceof SchemaProblem) return new InvalidResource({ name: publicName, reason: result.reason })
    const schemeOwner = schemes.get(result.scheme)
    if (schemeOwner !== undefined && schemeOwner !== capability) {
      return new SchemeTaken({ scheme: result.scheme, owner: schemeOwner, capability, name: publicName })
    }
    const key = result._tag === "Resource" ? `uri ${result.uri}` : `template ${result.uriTemplate}`
    const taken =
      result._tag === "Resource"
        ? resources.has(result.uri)
        : templates.some((other) => other.uriTemplate === result.uriTemplate)
    if (keys.has(key) || taken) {
      return new InvalidResource({
        name: publicName,
        reason: `${result._tag === "Resource" ? "URI" : "URI template"} ${key.slice(key.indexOf(" ") + 1)} is registered twice`
      })
    }
    keys.add(key)
    return result
  }

  // Checks and compiles a capability's resources and templates (nothing is committed here).
  const checkResources = (
    capability: string,
    list: ReadonlyArray<Resource.Handled<any>>,
    context: Context.Context<any>,
    foreign = false
  ): Array<CompiledResource | CompiledTemplate> | KernelError => {
    const seen = new Set<string>()
    const keys = new Set<string>()
    const compiled: Array<CompiledResource | CompiledTemplate> = []
    for (const handled of list) {
      const result = checkResource(capability, handled, context, seen, keys, foreign)
      if (!("read" in result)) return result
      compiled.push(result)
    }
    return compiled
  }

  const commitPrompts = (capability: string, compiled: ReadonlyArray<CompiledPrompt>) => {
    const at = promptOrder.findIndex((other) => prompts.get(other)!.capability > capability)
    promptOrder.splice(at === -1 ? promptOrder.length : at, 0, ...compiled.map((p) => p.name))
    for (const prompt of compiled) prompts.set(prompt.name, prompt)
  }

  const commitResources = (capability: string, compiled: ReadonlyArray<CompiledResource | CompiledTemplate>) => {
    const statics = compiled.filter((r): r is CompiledResource => r._tag === "Resource")
    const at = resourceOrder.findIndex((uri) => resources.get(uri)!.capability > capability)
    resourceOrder.splice(at === -1 ? resourceOrder.length : at, 0, ...statics.map((r) => r.uri))
    const templateAt = templates.findIndex((t) => t.capability > capability)
    templates.splice(
      templateAt === -1 ? templates.length : templateAt,
      0,
      ...compiled.filter((r): r is CompiledTemplate => r._tag === "Template")
    )
    for (const resource of compiled) {
      resourceNames.set(resource.name, capability)
      schemes.set(resource.scheme, capability)
      if (resource._tag === "Resource") resources.set(resource.uri, resource)
      else {
        const list = templatesByScheme.get(resource.scheme)
        if (list === undefined) templatesByScheme.set(resource.scheme, [resource])
        else list.push(resource)
      }
    }
  }

  const commitTools = (capability: string, compiled: ReadonlyArray<CompiledTool>) => {
    // Lists are ordered by capability id, then by each capability's own order,
    // whatever order the capability layers happened to finish building in.
    const at = order.findIndex((other) => tools.get(other)!.capability > capability)
    order.splice(at === -1 ? order.length : at, 0, ...compiled.map((tool) => tool.name))
    for (const tool of compiled) tools.set(tool.name, tool)
  }

  // Removers of one tool, prompt, or resource or template, by public name
  // (whoever registered it). The URI scheme of a removed resource is free
  // again once no resource uses it.
  const removeTool = (name: string) => {
    if (tools.delete(name)) order.splice(order.indexOf(name), 1)
  }
  const removePrompt = (name: string) => {
    if (prompts.delete(name)) promptOrder.splice(promptOrder.indexOf(name), 1)
  }
  const removeResource = (publicName: string) => {
    if (!resourceNames.delete(publicName)) return
    let scheme: string | undefined
    for (const [uri, resource] of resources) {
      if (resource.name !== publicName) continue
      resources.delete(uri)
      resourceOrder.splice(resourceOrder.indexOf(uri), 1)
      scheme = resource.scheme
    }
    const at = templates.findIndex((template) => template.name === publicName)
    if (at !== -1) {
      const template = templates[at]!
      templates.splice(at, 1)
      const list = templatesByScheme.get(template.scheme)!
      list.splice(list.indexOf(template), 1)
      if (list.length === 0) templatesByScheme.delete(template.scheme)
      scheme = template.scheme
    }
    if (scheme !== undefined && ![...resources.values(), ...templates].some((resource) => resource.scheme === scheme)) {
      schemes.delete(scheme)
    }
  }

  const resolve = (uri: string) => {
    const exact = resources.get(uri)
    if (exact !== undefined) return { resource: exact, params: {} }
    const scheme = schemeOf(uri)
    const candidates = scheme === undefined ? undefined : templatesByScheme.get(scheme)
    if (candidates === undefined) return undefined
    for (const template of candidates) {
      const matched = template.match(uri)
      if (matched !== undefined) return { resource: template, params: matched.params }
    }
    return undefined
  }

  // Checks and compiles one prompt of a capability (nothing is committed
  // here); `seen` holds the public names checked before it.
  const checkPrompt = (
    capability: string,
    handled: Prompt.Handled<any>,
    context: Context.Context<any>,
    seen: Set<string>,
    foreign: boolean
  ): CompiledPrompt | KernelError => {
    const name = handled.prompt.name
    const problem = nameProblem(capability, name, foreign)
    if (problem !== undefined) return problem
    const publicName = `${capability}_${name}`
    if (seen.has(publicName)) return new DuplicateName({ toolName: publicName, first: capability, second: capability })
    seen.add(publicName)
    const existing = prompts.get(publicName)
    if (existing !== undefined) {
      return capability === dynamicId && existing.capability !== dynamicId
        ? new DynamicShadow({ toolName: publicName, owner: existing.capability })
        : new DuplicateName({ toolName: publicName, first: existing.capability, second: capability })
    }
    const result = compilePrompt(handled, publicName, capability, context)
    if (result instanceof SchemaProblem) {
      return new InvalidToolSchema({ toolName: publicName, reason: result.reason, kind: "prompt" })
    }
    const stray = Object.keys(handled.completions ?? {}).filter((key) => !result.arguments.includes(key))
    if (stray.length > 0) {
      return new InvalidToolSchema({
        toolName: publicName,
        reason: `completer for ${stray.map((key) => `"${key}"`).join(", ")}, which is not an argument of the prompt`,
        kind: "prompt"
      })
    }
    return result
  }

  // Checks and compiles a capability's prompts (nothing is committed here).
  const checkPrompts = (
    capability: string,
    list: ReadonlyArray<Prompt.Handled<any>>,
    context: Context.Context<any>,
    foreign = false
  ): Array<CompiledPrompt> | KernelError => {
    const seen = new Set<string>()
    const compiled: Array<CompiledPrompt> = []
    for (const handled of list) {
      const result = checkPrompt(capability, handled, context, seen, foreign)
      if (!("get" in result)) return result
      compiled.push(result)
    }
    return compiled
  }

  // Checks and compiles one tool of a capability (nothing is committed here);
  // `seen` holds the public names checked before it.
  const checkTool = (
    capability: string,
    handled: Tool.Handled<any>,
    context: Context.Context<any>,
    capabilityLimits: Policy.Limits | undefined,
    seen: Set<string>,
    foreign: boolean
  ): CompiledTool | KernelError => {
    const name = handled.tool.name
    const problem = nameProblem(capability, name, foreign)
    if (problem !== undefined) return problem
    const publicName = `${capability}_${name}`
    if (seen.has(publicName)) {
      return new DuplicateName({ toolName: publicName, first: capability, second: capability })
    }
    seen.add(publicName)
    // A name another tool is published under (its alias) is taken too.
    const aliased = aliasTargets.get(publicName)
    if (aliased !== undefined) {
      return new InvalidAlias({
        alias: publicName,
        target: aliased,
        reason: `${publicName} is a public name of ${capability}`
      })
    }
    const existing = tools.get(publicName) ?? tools.get(aliases.get(publicName) ?? publicName)
    if (existing !== undefined) {
      return capability === dynamicId && existing.capability !== dynamicId
        ? new DynamicShadow({ toolName: publicName, owner: existing.capability })
        : new DuplicateName({ toolName: publicName, first: existing.capability, second: capability })
    }
    const limitProblems = [
      ...Policy.limitsProblems(handled.tool.limits, "").map((problem) => `Tool.make option ${problem}`),
      ...(capabilityLimits === undefined
        ? []
        : Policy.limitsProblems(
            {
              timeout: capabilityLimits.timeout,
              maxConcurrent: capabilityLimits.maxConcurrent,
              maxResultBytes: capabilityLimits.maxResultBytes
            },
            ""
          ).map((problem) => `Capability.make option ${problem}`))
    ]
    if (limitProblems.length > 0) return new InvalidLimits({ toolName: publicName, reason: limitProblems.join("; ") })
    const result = compileTool(handled, aliases.get(publicName) ?? publicName, capability, context, capabilityLimits)
    if (result instanceof SchemaProblem) {
      return new InvalidToolSchema({ toolName: publicName, reason: result.reason })
    }
    return result
  }

  // Checks and compiles a whole registration, then commits it, in one
  // synchronous step: no other registration can slip in between the collision
  // check and the commit (capability layers are built concurrently).
  const register = (
    capability: string,
    list: ReadonlyArray<Tool.Handled<any>>,
    context: Context.Context<any>,
    capabilityLimits: Policy.Limits | undefined,
    foreign = false
  ): Array<CompiledTool> | KernelError => {
    const seen = new Set<string>()
    const compiled: Array<CompiledTool> = []
    for (const handled of list) {
      const result = checkTool(capability, handled, context, capabilityLimits, seen, foreign)
      if (!("call" in result)) return result
      compiled.push(result)
    }
    commitTools(capability, compiled)
    invalidate()
    return compiled
  }

  // Checks a capability's extensions and wraps their methods to run with the
  // capability's services (nothing is committed here).
  const checkExtensions = (
    capability: string,
    list: ReadonlyArray<Extension.Extension<any>>,
    context: Context.Context<any>
  ): Array<{ readonly extension: Extension.Extension<any>; readonly methods: Array<Method.Request> }> | KernelError => {
    const checked: Array<{ readonly extension: Extension.Extension<any>; readonly methods: Array<Method.Request> }> = []
    const ids = new Set<string>()
    const names = new Set<string>()
    const overlay = capabilityOverlay(context)
    for (const extension of list) {
      if (!Extension.idPattern.test(extension.id)) {
        return new InvalidExtension({
          capability,
          extension: extension.id,
          reason: "its identifier is not <prefix>/<name> with a prefix of dot-separated labels (io.example/name)"
        })
      }
      const owner = ids.has(extension.id) ? capability : extensionsById.get(extension.id)?.capability
      if (owner !== undefined) {
        return new DuplicateExtension({ what: `extension ${extension.id}`, first: owner, second: capability })
      }
      ids.add(extension.id)
      const methods: Array<Method.Request> = []
      for (const method of extension.methods) {
        if (Extension.coreMethods.has(method.name)) {
          return new InvalidExtension({
            capability,
            extension: extension.id,
            reason: `${method.name} is a method of the core protocol`
          })
        }
        const taken = names.has(method.name) ? capability : extensionMethods.get(method.name)?.capability
        if (taken !== undefined) {
          return new DuplicateExtension({ what: `method ${method.name}`, first: taken, second: capability })
        }
        names.add(method.name)
        const handler = method.handler
        methods.push({ ...method, handler: (params) => Effect.updateContext(handler(params), overlay) })
      }
      checked.push({ extension, methods })
    }
    return checked
  }

  const registerCapability = (
    info: CapabilityInfo,
    list: ReadonlyArray<Tool.Handled<any>>,
    context: Context.Context<any>,
    promptList: ReadonlyArray<Prompt.Handled<any>> = [],
    resourceList: ReadonlyArray<Resource.Handled<any>> = [],
    extensionList: ReadonlyArray<Extension.Extension<any>> = []
  ): Effect.Effect<void, KernelError> =>
    Effect.suspend((): Effect.Effect<void, KernelError> => {
      if (info.id === dynamicId) return Effect.fail(new ReservedCapabilityId({ id: info.id }))
      if (!idPattern.test(info.id)) return Effect.fail(new InvalidCapabilityId({ id: info.id }))
      // Prompts, resources and extensions are checked first: `register` commits
      // the tools, and a capability registers everything or nothing.
      const foreign = info.foreignNames === true
      const compiledPrompts = checkPrompts(info.id, promptList, context, foreign)
      if (!Array.isArray(compiledPrompts)) return Effect.fail(compiledPrompts)
      const compiledResources = checkResources(info.id, resourceList, context, foreign)
      if (!Array.isArray(compiledResources)) return Effect.fail(compiledResources)
      const checkedExtensions = checkExtensions(info.id, extensionList, context)
      if (!Array.isArray(checkedExtensions)) return Effect.fail(checkedExtensions)
      // Experimental tools are published only when the kernel enables them; otherwise their names are kept, so
      // that a call to one says how to enable it.
      let published = list
      if (!experimental && list.some((handled) => handled.tool.experimental === true)) {
        published = list.filter((handled) => handled.tool.experimental !== true)
        for (const handled of list) {
          if (handled.tool.experimental === true) {
            withheld.set(foreign ? handled.tool.name : `${info.id}_${handled.tool.name}`, info.id)
          }
        }
      }
      const result = register(info.id, published, context, info, foreign)
      if (!Array.isArray(result)) return Effect.fail(result)
      commitPrompts(info.id, compiledPrompts)
      commitResources(info.id, compiledResources)
      for (const { extension, methods } of checkedExtensions) {
        extensionsById.set(extension.id, { capability: info.id, settings: extension.settings })
        for (const method of methods) extensionMethods.set(method.name, { capability: info.id, method })
      }
      invalidate()
      summaries.push({
        ...info,
        tools: result.map((t) => t.name),
        prompts: compiledPrompts.map((p) => p.name),
        resources: compiledResources.map((r) => r.name)
      })
      const changed: Array<Change> = []
      if (result.length > 0) changed.push("tools")
      if (compiledPrompts.length > 0) changed.push("prompts")
      if (compiledResources.length > 0) changed.push("resources")
      return changed.length === 0 ? Effect.void : Effect.asVoid(PubSub.publishAll(changes, changed))
    })

  const registerDynamic = (handled: Tool.Handled<never>): Effect.Effect<string, KernelError> =>
    Effect.suspend((): Effect.Effect<string, KernelError> => {
      const result = register(dynamicId, [handled], Context.empty() as Context.Context<any>, undefined)
      if (!Array.isArray(result)) return Effect.fail(result)
      return Effect.as(PubSub.publish(changes, "tools"), result[0]!.name)
    })

  const registerDynamicPrompt = (handled: Prompt.Handled<never>): Effect.Effect<string, KernelError> =>
    Effect.suspend((): Effect.Effect<string, KernelError> => {
      const result = checkPrompts(dynamicId, [handled], Context.empty() as Context.Context<any>)
      if (!Array.isArray(result)) return Effect.fail(result)
      commitPrompts(dynamicId, result)
      invalidate()
      return Effect.as(PubSub.publish(changes, "prompts"), result[0]!.name)
    })

  const registerDynamicResource = (handled: Resource.Handled<never>): Effect.Effect<string, KernelError> =>
    Effect.suspend((): Effect.Effect<string, KernelError> => {
      const result = checkResources(dynamicId, [handled], Context.empty() as Context.Context<any>)
      if (!Array.isArray(result)) return Effect.fail(result)
      commitResources(dynamicId, result)
      invalidate()
      return Effect.as(PubSub.publish(changes, "resources"), result[0]!.name)
    })

  const unregisterDynamic = (publicName: string): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      const tool = tools.get(publicName)
      if (tool !== undefined && tool.capability === dynamicId) {
        removeTool(publicName)
        invalidate()
        return Effect.as(PubSub.publish(changes, "tools"), true)
      }
      const prompt = prompts.get(publicName)
      if (prompt !== undefined && prompt.capability === dynamicId) {
        removePrompt(publicName)
        invalidate()
        return Effect.as(PubSub.publish(changes, "prompts"), true)
      }
      if (resourceNames.get(publicName) === dynamicId) {
        removeResource(publicName)
        invalidate()
        return Effect.as(PubSub.publish(changes, "resources"), true)
      }
      return Effect.succeed(false)
    })

  // What a capability's lists look like to clients (every era's entries), to
  // tell whether a replacement changed them.
  const listedBy = (summary: CapabilitySummary): Record<Change, string> => {
    const entries = (list: ReadonlyArray<{ readonly listEntry: Readonly<Record<Era, string>> } | undefined>) =>
      list.map((item) => (item === undefined ? "" : Object.values(item.listEntry).join("\n"))).join("\n\n")
    const named = new Set(summary.resources)
    return {
      tools: entries(summary.tools.map((name) => tools.get(name))),
      prompts: entries(summary.prompts.map((name) => prompts.get(name))),
      resources: entries([...resources.values(), ...templates].filter((resource) => named.has(resource.name)))
    }
  }

  const replaceCapability = (
    id: string,
    contents: Replacement,
    context: Context.Context<any>
  ): Effect.Effect<ReadonlyArray<KernelError>, UnknownCapability> =>
    Effect.suspend((): Effect.Effect<ReadonlyArray<KernelError>, UnknownCapability> => {
      const at = id === dynamicId ? -1 : summaries.findIndex((summary) => summary.id === id)
      if (at === -1) return Effect.fail(new UnknownCapability({ id }))
      const summary = summaries[at]!
      const foreign = summary.foreignNames === true
      const before = listedBy(summary)
      // Its current entries go first: the new ones are checked against the other capabilities only.
      for (const name of summary.tools) removeTool(name)
      for (const name of summary.prompts) removePrompt(name)
      for (const name of summary.resources) removeResource(name)
      const problems: Array<KernelError> = []
      const promptsSeen = new Set<string>()
      const compiledPrompts: Array<CompiledPrompt> = []
      for (const handled of contents.prompts ?? []) {
        const result = checkPrompt(id, handled, context, promptsSeen, foreign)
        if ("get" in result) compiledPrompts.push(result)
        else problems.push(result)
      }
      const resourcesSeen = new Set<string>()
      const keys = new Set<string>()
      const compiledResources: Array<CompiledResource | CompiledTemplate> = []
      for (const handled of contents.resources ?? []) {
        const result = checkResource(id, handled, context, resourcesSeen, keys, foreign)
        if ("read" in result) compiledResources.push(result)
        else problems.push(result)
      }
      const toolsSeen = new Set<string>()
      const compiledTools: Array<CompiledTool> = []
      for (const handled of contents.tools ?? []) {
        const result = checkTool(id, handled, context, summary, toolsSeen, foreign)
        if ("call" in result) compiledTools.push(result)
        else problems.push(result)
      }
      commitPrompts(id, compiledPrompts)
      commitResources(id, compiledResources)
      commitTools(id, compiledTools)
      invalidate()
      const replaced: CapabilitySummary = {
        ...summary,
        tools: compiledTools.map((t) => t.name),
        prompts: compiledPrompts.map((p) => p.name),
        resources: compiledResources.map((r) => r.name)
      }
      summaries[at] = replaced
      const after = listedBy(replaced)
      const changed = (["tools", "prompts", "resources"] as const).filter((kind) => before[kind] !== after[kind])
      const published = changed.length === 0 ? Effect.void : Effect.asVoid(PubSub.publishAll(changes, changed))
      return Effect.as(published, problems)
    })

  const cursorKinds: Record<string, ListKind> = {
    "tools/list": "o",
    "prompts/list": "p",
    "resources/list": "r",
    "resources/templates/list": "t"
  }
  const invalidCursor = (method: string, cursor: string) =>
    new InvalidParams({
      message:
        `Invalid cursor ${JSON.stringify(cursor)}: pass a nextCursor from a previous ${method} ` +
        `result, or omit it to start from the first page`
    })

  const pageOf = (
    method: string,
    eraPages: ReadonlyArray<string>,
    cursor: string | undefined
  ): Effect.Effect<string, InvalidParams> => {
    if (cursor === undefined) return Effect.succeed(eraPages[0]!)
    const offset = decodeCursor(cursorKinds[method]!, cursor)
    const page = offset !== undefined && offset % pageSize === 0 ? eraPages[offset / pageSize] : undefined
    return page === undefined ? Effect.fail(invalidCursor(method, cursor)) : Effect.succeed(page)
  }

  const toolsPage = (version: ProtocolVersion, cursor: string | undefined): Effect.Effect<string, InvalidParams> => {
    const era = eraOf(version)
    return pageOf("tools/list", pages[era] ?? (pages[era] = buildPages(era)), cursor)
  }

  const promptsPage = (version: ProtocolVersion, cursor: string | undefined): Effect.Effect<string, InvalidParams> => {
    const era = eraOf(version)
    return pageOf("prompts/list", promptPages[era] ?? (promptPages[era] = buildPromptPages(era)), cursor)
  }

  // One page of a listing template, then, when that was its last page, the
  // first page of the next one. A template whose page is empty and last, or
  // that `guardListing` skips, gives way to the next in the same request.
  const listingPage = <R>(
    era: Era,
    template: CompiledTemplate,
    inner: string | undefined,
    guardListing: GuardListing<R>
  ): Effect.Effect<string, McpError, R> =>
    Effect.flatMap(guardListing(template, template.list!(inner, era)), (page): Effect.Effect<string, McpError, R> => {
      // The registry may have changed meanwhile: a template gone ends the listing.
      const at = templates.indexOf(template)
      const following = at === -1 ? undefined : listingAfter(at)
      const entries = page === undefined ? "" : page.entries.join(",")
      if (page !== undefined && page.nextCursor !== undefined) {
        const next = encodeListingCursor(template.name, page.nextCursor)
        return Effect.succeed(`{"resources":[${entries}],"nextCursor":${JSON.stringify(next)}}`)
      }
      if (entries === "" && following !== undefined) return listingPage(era, following, undefined, guardListing)
      const next =
        following === undefined ? "" : `,"nextCursor":${JSON.stringify(encodeListingCursor(following.name, undefined))}`
      return Effect.succeed(`{"resources":[${entries}]${next}}`)
    })

  const resourcesPage = <R>(
    version: ProtocolVersion,
    cursor: string | undefined,
    guardListing: GuardListing<R>
  ): Effect.Effect<string, McpError, R> => {
    const era = eraOf(version)
    const staticPages = resourcePages[era] ?? (resourcePages[era] = buildResourcePages(era))
    if (cursor === undefined) {
      // Without static resources, the listing templates come first.
      const first = resourceOrder.length === 0 ? listingAfter(-1) : undefined
      return first === undefined ? Effect.succeed(staticPages[0]!) : listingPage(era, first, undefined, guardListing)
    }
    const listing = decodeCursor("r", cursor) === undefined ? decodeListingCursor(cursor) : undefined
    if (listing === undefined) return pageOf("resources/list", staticPages, cursor)
    const template = templates.find((t) => t.name === listing.template && t.list !== undefined)
    if (template === undefined) return Effect.fail(invalidCursor("resources/list", cursor))
    return listingPage(era, template, listing.inner, guardListing)
  }

  const templatesPage = (version: ProtocolVersion, cursor: string | undefined) => {
    const era = eraOf(version)
    return pageOf(
      "resources/templates/list",
      templatePages[era] ?? (templatePages[era] = buildTemplatePages(era)),
      cursor
    )
  }

  return Kernel.of({
    registerCapability,
    withheld: (publicName) => withheld.get(publicName),
    extensionMethod: (method) => extensionMethods.get(method)?.method,
    supportsTasks: () => {
      for (const tool of tools.values()) if (tool.task !== undefined) return true
      return false
    },
    extensions: () => [...extensionsById].map(([id, { settings }]) => ({ id, settings })),
    unusedAliases: () =>
      [...aliasTargets]
        .filter(([alias]) => !tools.has(alias))
        .map(([alias, target]) => new InvalidAlias({ alias, target, reason: `no capability registered ${target}` })),
    registerDynamic,
    registerDynamicPrompt,
    registerDynamicResource,
    unregisterDynamic,
    replaceCapability,
    tool: (name) => tools.get(name),
    toolCount: () => order.length,
    toolNames: () => order.slice(),
    toolsPage,
    prompt: (name) => prompts.get(name),
    promptCount: () => promptOrder.length,
    completes: () => {
      for (const prompt of prompts.values()) if (prompt.completes) return true
      for (const template of templates) if (template.completes) return true
      return false
    },
    resourceCount: () => resources.size + templates.length,
    resolve,
    template: (uriTemplate) => templates.find((t) => t.uriTemplate === uriTemplate),
    resourcesPage,
    templatesPage,
    updates,
    promptsPage,
    capabilities: () => summaries,
    changes
  })
})

/**
 * The kernel as a layer.
 *
 * **Example**
 *
 * ```ts
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 *
 * const KernelLive = Kernel.layer({ pageSize: 200 })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Kernel> => Layer.effect(Kernel, make(options))
