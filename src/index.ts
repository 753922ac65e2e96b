/**
 * effect-mcp-runtime: an Effect-based runtime for Model Context Protocol
 * servers. Each module is also importable on its own, e.g.
 * `effect-mcp-runtime/Tool`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AuditLog from "./AuditLog.ts"
/** @since 0.5.0 */
export * as Authorization from "./Authorization.ts"
/** @since 0.1.0 */
export * as Capability from "./Capability.ts"
/** @since 0.1.0 */
export * as Client from "./Client.ts"
/** @since 0.1.0 */
export * as ClientLog from "./ClientLog.ts"
/** @since 0.1.0 */
export * as CommandRunner from "./CommandRunner.ts"
/** @since 0.1.0 */
export * as Confirmation from "./Confirmation.ts"
/** @since 0.1.0 */
export * as Elicitation from "./Elicitation.ts"
/** @since 0.1.0 */
export * as Executor from "./Executor.ts"
/** @since 0.2.0 */
export * as Extension from "./Extension.ts"
/** @since 0.1.0 */
export * as Gate from "./Gate.ts"
/** @since 0.1.0 */
export * as Kernel from "./Kernel.ts"
/** @since 0.1.0 */
export * as McpError from "./McpError.ts"
/** @since 0.1.0 */
export * as McpSchema from "./McpSchema.ts"
/** @since 0.1.0 */
export * as McpServer from "./McpServer.ts"
/** @since 0.1.0 */
export * as Method from "./Method.ts"
/** @since 0.3.0 */
export * as NestedCall from "./NestedCall.ts"
/** @since 0.1.0 */
export * as Policy from "./Policy.ts"
/** @since 0.4.0 */
export * as Presentation from "./Presentation.ts"
/** @since 0.1.0 */
export * as Progress from "./Progress.ts"
/** @since 0.1.0 */
export * as Prompt from "./Prompt.ts"
/** @since 0.1.0 */
export * as ProtocolVersion from "./ProtocolVersion.ts"
/** @since 0.1.0 */
export * as Resource from "./Resource.ts"
/** @since 0.1.0 */
export * as RequestContext from "./RequestContext.ts"
/** @since 0.4.0 */
export * as RequestDsl from "./RequestDsl.ts"
/** @since 0.4.0 */
export * as RequestFront from "./RequestFront.ts"
/** @since 0.2.0 */
export * as RequestState from "./RequestState.ts"
/** @since 0.1.0 */
export * as Roots from "./Roots.ts"
/** @since 0.1.0 */
export * as Sampling from "./Sampling.ts"
/** @since 0.3.0 */
export * as Sandbox from "./Sandbox.ts"
/** @since 0.1.0 */
export * as ServerConfig from "./ServerConfig.ts"
/** @since 0.1.0 */
export * as Session from "./Session.ts"
/** @since 0.2.0 */
export * as Task from "./Task.ts"
/** @since 0.2.0 */
export * as TaskStore from "./TaskStore.ts"
/** @since 0.1.0 */
export * as Tool from "./Tool.ts"
/** @since 0.1.0 */
export * as Transport from "./Transport.ts"
/** @since 0.1.0 */
export * as Workspace from "./Workspace.ts"
/** @since 0.1.0 */
export * as WorkspaceRoot from "./WorkspaceRoot.ts"
