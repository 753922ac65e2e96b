/**
 * The capabilities bundled with the `mcp-runtime` binary, by id. The binary's
 * entry point composes them; the server core imports none of them.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import { ConformanceCapability } from "./conformance/index.ts"
import { SystemCapability } from "./system/index.ts"
import { WorkspaceCapability } from "./workspace/index.ts"

/**
 * Every bundled capability, by id.
 *
 * This module is not in the package `exports`; the binary imports it by path.
 *
 * **Example**
 *
 * ```ts
 * import { bundled } from "./capabilities/index.ts"
 *
 * Object.keys(bundled) // => ["system", "workspace", "conformance"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const bundled = {
  system: SystemCapability,
  // The files of the server's root (`--root`), through the Node Workspace.
  workspace: WorkspaceCapability.pipe(Layer.provide(NodeWorkspace.layer())),
  conformance: ConformanceCapability
} as const

/**
 * The id of a bundled capability.
 *
 * **Example**
 *
 * ```ts
 * import { bundled, type BundledId } from "./capabilities/index.ts"
 *
 * const isBundled = (id: string): id is BundledId => Object.hasOwn(bundled, id)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type BundledId = keyof typeof bundled

/**
 * The capabilities `mcp-runtime serve` enables when `--capabilities` is not
 * given. The conformance fixtures (`conformance`: capabilities `test` and
 * `json`) are only for running the official suite, so they are left out.
 *
 * **Example**
 *
 * ```ts
 * import { defaults } from "./capabilities/index.ts"
 *
 * defaults // => ["system", "workspace"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: ReadonlyArray<BundledId> = ["system", "workspace"]
