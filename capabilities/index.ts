/**
 * The capabilities bundled with the `mcp-runtime` binary, by id. The binary's
 * entry point composes them; the server core imports none of them.
 *
 * @since 0.1.0
 */
import { SystemCapability } from "./system/index.ts"

/**
 * Every bundled capability, by id.
 *
 * @category capabilities
 * @since 0.1.0
 */
export const bundled = {
  system: SystemCapability
} as const

/**
 * The id of a bundled capability.
 *
 * @category capabilities
 * @since 0.1.0
 */
export type BundledId = keyof typeof bundled
