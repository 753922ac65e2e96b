/**
 * The test kit: `effect-mcp-runtime/testing`. An in-memory client connected
 * to a server through the real codec ({@link TestClient}), a scripted
 * `CommandRunner` ({@link FakeCommandRunner}) and an in-memory `Workspace`
 * ({@link MemoryWorkspace}). See `docs/testing.md`.
 *
 * @since 0.1.0
 */

/**
 * An in-memory MCP client with typed helpers.
 *
 * @since 0.1.0
 */
export * as TestClient from "./testing/TestClient.ts"

/**
 * A scripted `CommandRunner` that records its calls.
 *
 * @since 0.1.0
 */
export * as FakeCommandRunner from "./testing/FakeCommandRunner.ts"

/**
 * An in-memory `Workspace`: the Node workspace on a file system in memory.
 *
 * @since 0.1.0
 */
export * as MemoryWorkspace from "./testing/MemoryWorkspace.ts"

/**
 * A JSON-RPC error response.
 *
 * @since 0.1.0
 */
export { RpcError, UnexpectedResult } from "./testing/TestClient.ts"
