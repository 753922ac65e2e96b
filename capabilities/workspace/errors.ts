/**
 * Maps the workspace's typed errors to tool errors, keeping their message
 * and their suggestion (which names the tool to call next).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"
import type { WorkspaceError } from "../../src/Workspace.ts"

const codeOf = (error: WorkspaceError): string => {
  switch (error._tag) {
    case "PathRejected":
      return `path_rejected:${error.reason}`
    case "NotFound":
      return "not_found"
    case "WrongKind":
      return "wrong_kind"
    case "InvalidArgument":
      return "invalid_argument"
    case "EditMismatch":
      return "edit_mismatch"
    case "IoFailure":
      return "io_failure"
  }
}

/**
 * Turns one workspace error into a `Tool.ToolError` with the same message
 * and suggestion, and a code naming the error (`path_rejected:<reason>`,
 * `not_found`, `wrong_kind`, `invalid_argument`, `edit_mismatch`, `io_failure`).
 *
 * **Example**
 *
 * ```ts
 * import { NotFound } from "effect-mcp-runtime/Workspace"
 * import { toToolError } from "./capabilities/workspace/errors.ts"
 *
 * toToolError(new NotFound({ path: "a", message: "Nothing at a.", suggestion: "Call workspace_list." })).code // => "not_found"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export const toToolError = (error: WorkspaceError): Tool.ToolError =>
  new Tool.ToolError({ message: error.message, suggestion: error.suggestion, code: codeOf(error) })

/**
 * Maps the workspace errors of an effect to tool errors.
 *
 * @category errors
 * @since 0.1.0
 */
export const mapWorkspaceError = <A, R>(
  effect: Effect.Effect<A, WorkspaceError, R>
): Effect.Effect<A, Tool.ToolError, R> => Effect.mapError(effect, toToolError)
