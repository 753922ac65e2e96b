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
 * **Example**
 *
 * ```ts
 * import { TestClient } from "effect-mcp-runtime/testing"
 * import { SystemCapability } from "effect-mcp-runtime/capabilities/system"
 *
 * const client = TestClient.make(SystemCapability) // scoped
 * ```
 *
 * @category testing
 * @since 0.1.0
 */
export * as TestClient from "./testing/TestClient.ts"

/**
 * A scripted `CommandRunner` that records its calls.
 *
 * **Example**
 *
 * ```ts
 * import { FakeCommandRunner } from "effect-mcp-runtime/testing"
 *
 * const fake = FakeCommandRunner.make([{ command: "npm", args: ["test"], lines: [["stdout", "ok"]] }])
 * ```
 *
 * @category testing
 * @since 0.1.0
 */
export * as FakeCommandRunner from "./testing/FakeCommandRunner.ts"

/**
 * An in-memory `Workspace`: the Node workspace on a file system in memory.
 *
 * **Example**
 *
 * ```ts
 * import { MemoryWorkspace } from "effect-mcp-runtime/testing"
 *
 * const memory = MemoryWorkspace.make({ "README.md": "# Hello\n" })
 * ```
 *
 * @category testing
 * @since 0.1.0
 */
export * as MemoryWorkspace from "./testing/MemoryWorkspace.ts"

/**
 * The kit's errors: a JSON-RPC error response (`RpcError`), and a call that
 * did not end with the error a test expected (`UnexpectedResult`).
 *
 * **Example**
 *
 * ```ts
 * import { RpcError } from "effect-mcp-runtime/testing"
 *
 * new RpcError({ code: -32601, message: "Method not found: nope", data: undefined }).code // => -32601
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export { RpcError, UnexpectedResult } from "./testing/TestClient.ts"
