/**
 * `code_types` and the `code://types.d.ts` resource: TypeScript declarations
 * of every function code can call (`mcp.<namespace>.<tool>`), generated from
 * each tool's input and output JSON Schema, and regenerated when the tools
 * change (`list_changed`, a learned capability saved or deleted).
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Resource from "../../src/Resource.ts"
import * as Tool from "../../src/Tool.ts"
import { type BindingTool, declarations } from "./bindings.ts"
import * as Engine from "./engine.ts"
import type { Code } from "./learned.ts"

/**
 * The URI of the declarations as a resource.
 *
 * **Example**
 *
 * ```ts
 * import { typesUri } from "./capabilities/code/types.ts"
 *
 * typesUri // => "code://types.d.ts"
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const typesUri = "code://types.d.ts"

/** Every callable function as the bindings generator takes it. */
export const bindingTools = (code: Code): ReadonlyArray<BindingTool> => {
  const learned = code.registry.learned()
  return Engine.callable(code.registry).flatMap((target): ReadonlyArray<BindingTool> => {
    if (target.learned) {
      const entry = learned.get(`${target.namespace}:${target.name}`)
      return entry === undefined
        ? []
        : [
            {
              namespace: target.namespace,
              name: target.name,
              description: entry.description,
              inputSchema: entry.inputSchema,
              // Whatever its code returns, as is.
              outputSchema: {}
            }
          ]
    }
    const tool = code.kernel.tool(target.tool)
    if (tool === undefined) return []
    const listed = JSON.parse(tool.listEntry["2025-06-18"]) as {
      readonly description?: string
      readonly inputSchema: { readonly [key: string]: unknown }
      readonly outputSchema?: { readonly [key: string]: unknown }
    }
    return [
      {
        namespace: target.namespace,
        name: target.name,
        description: listed.description ?? "",
        inputSchema: listed.inputSchema,
        ...(listed.outputSchema === undefined ? {} : { outputSchema: listed.outputSchema }),
        destructive: tool.confirms
      }
    ]
  })
}

/** The declarations, generated again only when the callable tools changed. */
export const cachedDeclarations = (code: Code): (() => string) => {
  let cached: { readonly version: number; readonly text: string } | undefined
  return () => {
    const version = code.version()
    if (cached === undefined || cached.version !== version) cached = { version, text: declarations(bindingTools(code)) }
    return cached.text
  }
}

/**
 * `code_types`.
 *
 * **Example**
 *
 * ```ts
 * // arguments an agent sends: only the fe and workspace tools
 * const args = { namespaces: ["fe", "workspace"] }
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const typesTool = (code: Code, all: () => string) =>
  Tool.make("types", {
    title: "Code bindings",
    description:
      "Returns the TypeScript declarations of every function code_run's code can call (`mcp.<namespace>.<tool>`), " +
      "generated from the tools' input and output schemas, with their descriptions. Give `namespaces` to get " +
      "only some. Also readable as the resource code://types.d.ts.",
    input: Schema.Struct({
      namespaces: Schema.optionalKey(
        Schema.Array(Schema.String).annotate({ description: "Only these namespaces (capability ids)." })
      )
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    // Declarations are read exactly: the request front never compacts them.
    presentation: "verbose"
  }).pipe(
    Tool.handle(({ namespaces }) => {
      if (namespaces === undefined) return Effect.succeed(all())
      const wanted = new Set(namespaces)
      const tools = bindingTools(code)
      const known = new Set(tools.map((tool) => tool.namespace))
      const unknown = namespaces.filter((namespace) => !known.has(namespace))
      if (unknown.length > 0) {
        return Effect.fail(
          new Tool.ToolError({
            message: `No callable tools in ${unknown.join(", ")}. Namespaces: ${[...known].sort().join(", ")}.`,
            code: "unknown_namespace",
            suggestion: "Call code_types without namespaces for every binding."
          })
        )
      }
      return Effect.succeed(declarations(tools.filter((tool) => wanted.has(tool.namespace))))
    })
  )

/**
 * The `code://types.d.ts` resource.
 *
 * **Example**
 *
 * ```ts
 * // resources/read { "uri": "code://types.d.ts" } → the declarations, text/plain
 * ```
 *
 * @category resources
 * @since 0.3.0
 */
export const typesResource = (all: () => string) =>
  Resource.make("types", {
    uri: typesUri,
    description: "TypeScript declarations of every function code_run's code can call (mcp.<namespace>.<tool>).",
    mimeType: "text/plain"
  }).pipe(Resource.handle(() => Effect.sync(all)))
