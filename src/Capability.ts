/**
 * Capabilities: the unit of extension. A capability is a Layer that
 * contributes Schema-typed tools to the kernel under its own id.
 *
 * `build` is an Effect, so a capability can ask for host services (a command
 * runner, a workspace, its configuration) while it builds; its tools' handlers
 * can ask for services too. Everything they need becomes a requirement of the
 * capability's Layer, so a missing service is a compile error where the server
 * is composed, not a run-time surprise.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const shout = Tool.make("shout", {
 *   description: "Returns the text in upper case.",
 *   input: Schema.Struct({ text: Schema.String })
 * }).pipe(Tool.handle(({ text }) => Effect.succeed(text.toUpperCase())))
 *
 * // publishes the tool "text_shout"
 * export const TextCapability = Capability.make(
 *   { id: "text", description: "Text utilities", version: "1.0.0" },
 *   Effect.succeed({ tools: [shout] })
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { Client } from "./Client.ts"
import type { ClientLog } from "./ClientLog.ts"
import { type CapabilityInfo, Kernel, type KernelError } from "./Kernel.ts"
import type { Progress } from "./Progress.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Session } from "./Session.ts"
import type * as Extension from "./Extension.ts"
import type * as Prompt from "./Prompt.ts"
import type * as Resource from "./Resource.ts"
import type * as Tool from "./Tool.ts"

/**
 * What a capability contributes.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Capability from "effect-mcp-runtime/Capability"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const hello = Tool.make("hello", { description: "Says hello." }).pipe(Tool.handle(() => Effect.succeed("hello")))
 *
 * const contents: Capability.Contents<never> = { tools: [hello] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Contents<R> {
  readonly tools?: ReadonlyArray<Tool.Handled<R>> | undefined
  readonly prompts?: ReadonlyArray<Prompt.Handled<R>> | undefined
  readonly resources?: ReadonlyArray<Resource.Handled<R>> | undefined
  /** Protocol extensions (2026-07-28): methods and the settings advertised for them. */
  readonly extensions?: ReadonlyArray<Extension.Extension<R>> | undefined
}

/**
 * What the handlers of a capability's contents need: the union of every
 * tool's requirements.
 *
 * **Example**
 *
 * ```ts
 * import type * as Capability from "effect-mcp-runtime/Capability"
 * import type * as Tool from "effect-mcp-runtime/Tool"
 *
 * interface Clock { readonly _: unique symbol }
 * interface Store { readonly _: unique symbol }
 * type Needs = Capability.Requirements<{ tools: [Tool.Handled<Clock>, Tool.Handled<Store>] }> // Clock | Store
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Requirements<C> =
  | (C extends { readonly tools?: ReadonlyArray<infer H> | undefined }
      ? H extends Tool.Handled<infer R>
        ? R
        : never
      : never)
  | (C extends { readonly prompts?: ReadonlyArray<infer P> | undefined }
      ? P extends Prompt.Handled<infer R>
        ? R
        : never
      : never)
  | (C extends { readonly resources?: ReadonlyArray<infer H> | undefined }
      ? H extends Resource.Handled<infer R>
        ? R
        : never
      : never)
  | (C extends { readonly extensions?: ReadonlyArray<infer X> | undefined }
      ? X extends Extension.Extension<infer R>
        ? R
        : never
      : never)

/**
 * Services the server provides to every handler itself, per request; a
 * capability does not need to provide them: the request context, the
 * session, progress reporting, the client log, and the client itself
 * (requests to it: elicitation, sampling, roots).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type * as Capability from "effect-mcp-runtime/Capability"
 * import { RequestContext } from "effect-mcp-runtime/RequestContext"
 *
 * // a tool handler may use this without the capability layer requiring RequestContext
 * const currentMethod: Effect.Effect<string, never, Capability.RequestServices> = Effect.map(
 *   Effect.service(RequestContext),
 *   (request) => request.method
 * )
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type RequestServices = RequestContext | Session | Progress | ClientLog | Client

/**
 * Declares a capability. The result is a Layer that, when built, runs `build`
 * and registers what it returns with the kernel. It fails with a typed
 * {@link KernelError} for an invalid or reserved id, a pre-prefixed or invalid
 * name, or a public name already taken.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Capability from "effect-mcp-runtime/Capability"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const ping = Tool.make("ping", { description: "Answers pong." }).pipe(Tool.handle(() => Effect.succeed("pong")))
 *
 * // a Layer that publishes the tool "net_ping" once built with a Kernel
 * export const NetCapability = Capability.make(
 *   { id: "net", description: "Network checks", version: "1.0.0" },
 *   Effect.succeed({ tools: [ping] })
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <C extends Contents<any>, E = never, RB = never>(
  info: CapabilityInfo,
  build: Effect.Effect<C, E, RB>
): Layer.Layer<never, E | KernelError, Kernel | Exclude<RB, Scope.Scope> | Exclude<Requirements<C>, RequestServices>> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const kernel = yield* Kernel
      const contents = yield* build
      const context = yield* Effect.context<Exclude<Requirements<C>, RequestServices>>()
      yield* kernel.registerCapability(
        info,
        contents.tools ?? [],
        context as Context.Context<any>,
        contents.prompts ?? [],
        contents.resources ?? [],
        contents.extensions ?? []
      )
    })
  )

/**
 * What a capability says about itself: its id, description and version (an
 * alias of `Kernel.CapabilityInfo`).
 *
 * **Example**
 *
 * ```ts
 * import type * as Capability from "effect-mcp-runtime/Capability"
 *
 * const info: Capability.Info = { id: "notes", description: "Markdown notes", version: "1.0.0" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type { CapabilityInfo as Info } from "./Kernel.ts"
