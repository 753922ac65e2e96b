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
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type CapabilityInfo, Kernel, type KernelError } from "./Kernel.ts"
import type { RequestContext } from "./RequestContext.ts"
import type { Session } from "./Session.ts"
import type * as Tool from "./Tool.ts"

/**
 * What a capability contributes.
 *
 * @category models
 * @since 0.1.0
 */
export interface Contents<R> {
  readonly tools?: ReadonlyArray<Tool.Handled<R>> | undefined
}

/**
 * Services the server provides to every handler itself, per request; a
 * capability does not need to provide them.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestServices = RequestContext | Session

/**
 * Declares a capability. The result is a Layer that, when built, runs `build`
 * and registers what it returns with the kernel. It fails with a typed
 * {@link KernelError} for an invalid or reserved id, a pre-prefixed or invalid
 * name, or a public name already taken.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <R, E, RB>(
  info: CapabilityInfo,
  build: Effect.Effect<Contents<R>, E, RB>
): Layer.Layer<never, E | KernelError, Kernel | RB | Exclude<R, RequestServices>> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const kernel = yield* Kernel
      const contents = yield* build
      const context = yield* Effect.context<Exclude<R, RequestServices>>()
      yield* kernel.registerCapability(info, contents.tools ?? [], context)
    })
  )

export type { CapabilityInfo as Info } from "./Kernel.ts"
