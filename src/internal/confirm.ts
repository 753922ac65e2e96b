/**
 * The confirmation argument and predicate, shared by `Confirmation` (the
 * gate) and `compileTool` (which adds the argument to the input schema);
 * here so neither imports the other.
 *
 * @internal
 */

/**
 * The argument added to a confirmed tool's input schema.
 *
 * **Example**
 *
 * ```ts
 * import { argument } from "effect-mcp-runtime/Confirmation"
 *
 * argument // => "confirm"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const argument = "confirm"

/**
 * The JSON Schema of the added argument.
 *
 * **Example**
 *
 * ```ts
 * import { argumentSchema } from "effect-mcp-runtime/Confirmation"
 *
 * argumentSchema.type // => "boolean"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const argumentSchema = {
  type: "boolean",
  description:
    "This tool changes or deletes things. Set to true only after the user agreed to this exact call; " +
    "not needed when the server can ask the user itself."
} as const

/**
 * Whether a tool needs confirmation: annotated destructive, or made with
 * `confirm: true`.
 *
 * **Example**
 *
 * ```ts
 * import { needsConfirmation } from "effect-mcp-runtime/Confirmation"
 *
 * needsConfirmation({ annotations: { destructiveHint: true }, confirm: undefined }) // => true
 * needsConfirmation({ annotations: { readOnlyHint: true }, confirm: undefined }) // => false
 * ```
 *
 * @category predicates
 * @since 0.1.0
 */
export const needsConfirmation = (tool: {
  readonly annotations: { readonly destructiveHint?: boolean | undefined } | undefined
  readonly confirm: boolean | undefined
}): boolean => tool.confirm === true || tool.annotations?.destructiveHint === true
