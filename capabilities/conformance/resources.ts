/**
 * The conformance resources: `test://static-text`, `test://static-binary`,
 * the template `test://template/{id}/data`, and `test://watched-resource`,
 * which changes every few seconds and notifies its subscribers.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Resource from "../../src/Resource.ts"
import { png } from "./media.ts"

/**
 * A static text resource.
 *
 * **Example**
 *
 * ```ts
 * import { staticText } from "effect-mcp-runtime/capabilities/conformance/resources"
 *
 * staticText.resource.name // => "static-text"
 * ```
 *
 * @category resources
 * @since 0.1.0
 */
export const staticText = Resource.make("static-text", {
  uri: "test://static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain"
}).pipe(Resource.handle(() => Effect.succeed("This is the content of the static text resource.")))

/**
 * A static binary resource (a PNG image).
 *
 * **Example**
 *
 * ```ts
 * import { staticBinary } from "effect-mcp-runtime/capabilities/conformance/resources"
 *
 * staticBinary.resource.name // => "static-binary"
 * ```
 *
 * @category resources
 * @since 0.1.0
 */
export const staticBinary = Resource.make("static-binary", {
  uri: "test://static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (image) for testing",
  mimeType: "image/png"
}).pipe(Resource.handle(() => Effect.succeed([{ blob: png }])))

/**
 * A template: `test://template/{id}/data` answers JSON naming the id.
 *
 * **Example**
 *
 * ```ts
 * import { template } from "effect-mcp-runtime/capabilities/conformance/resources"
 *
 * template.resource.name // => "template"
 * ```
 *
 * @category resources
 * @since 0.1.0
 */
export const template = Resource.template("template", {
  uriTemplate: "test://template/{id}/data",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  params: Schema.Struct({ id: Schema.String.annotate({ description: "Any id" }) })
}).pipe(
  Resource.handle(({ id }) => Effect.succeed(JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }))),
  Resource.completions({ id: (value) => Effect.succeed(["123", "456"].filter((id) => id.startsWith(value))) })
)

/**
 * How often the watched resource changes.
 *
 * **Example**
 *
 * ```ts
 * import { watchedIntervalMs } from "effect-mcp-runtime/capabilities/conformance/resources"
 *
 * watchedIntervalMs // => 3000
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const watchedIntervalMs = 3000

/**
 * The watched resource and the fiber that changes it: every
 * {@link watchedIntervalMs} its version goes up and its subscribers get
 * `notifications/resources/updated`. The fiber lives in the capability's
 * scope.
 *
 * **Example**
 *
 * ```ts
 * import { watchedResource } from "effect-mcp-runtime/capabilities/conformance/resources"
 *
 * const build = watchedResource // Effect<Resource.Handled, never, Kernel | Scope>
 * ```
 *
 * @category resources
 * @since 0.1.0
 */
export const watchedResource = Effect.gen(function* () {
  let version = 0
  const uri = "test://watched-resource"
  yield* Effect.forkScoped(
    Effect.forever(
      Effect.andThen(
        Effect.sleep(watchedIntervalMs),
        Effect.suspend(() => {
          version++
          return Resource.updated(uri)
        })
      )
    )
  )
  return Resource.make("watched-resource", {
    uri,
    title: "Watched Resource",
    description: `A resource that changes every ${watchedIntervalMs / 1000} seconds; subscribe to hear about it`,
    mimeType: "text/plain"
  }).pipe(
    Resource.handle(() =>
      Effect.sync(() => (version === 0 ? "Watched resource content" : `Watched resource content (version ${version})`))
    )
  )
})
