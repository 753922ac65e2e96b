/**
 * The typed errors of the upstream servers: an id the server cannot use, and
 * a request the upstream did not answer with a result (the prompt and
 * resource handlers' failure; tools answer error results instead).
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * An upstream's id is that of a capability the server already has (a bundled
 * one, such as `system`): two capabilities would share one namespace. A
 * startup error, as the kernel's registration errors are.
 *
 * **Example**
 *
 * ```ts
 * import { UpstreamIdTaken } from "./capabilities/upstream/errors.ts"
 *
 * new UpstreamIdTaken({ id: "system" }).message
 * // => 'The upstream id "system" is the id of a capability of the server; choose another id for the upstream'
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class UpstreamIdTaken extends Schema.TaggedError<UpstreamIdTaken>()("UpstreamIdTaken", {
  id: Schema.String
}) {
  override get message(): string {
    return `The upstream id "${this.id}" is the id of a capability of the server; choose another id for the upstream`
  }
}

/**
 * An upstream request that did not produce a result: the upstream is not
 * connected, or it answered with a JSON-RPC error (its `code`). A prompt
 * turns it into −32602 with the message, a resource into −32603 (−32002 for
 * an upstream's "resource not found").
 *
 * **Example**
 *
 * ```ts
 * import { UpstreamError } from "./capabilities/upstream/errors.ts"
 *
 * new UpstreamError({ upstream: "docs", message: "The upstream server docs answered -32602: Unknown prompt" })
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class UpstreamError extends Schema.TaggedError<UpstreamError>()("UpstreamError", {
  upstream: Schema.String,
  message: Schema.String,
  /** The upstream's JSON-RPC error code, when it answered one. */
  code: Schema.optionalKey(Schema.Number)
}) {}
