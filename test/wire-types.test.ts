/**
 * The wire-type check: every type the runtime encodes must be assignable to
 * the official SDK's spec types. These are compile-time assertions, run by
 * `npm run typecheck`; the test below only keeps vitest aware of the file.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Spec from "@modelcontextprotocol/sdk/spec.types.js"
import type * as McpSchema from "../src/McpSchema.ts"

// `readonly` is a TypeScript-only modifier; it does not exist on the wire.
type Wire<T> =
  T extends ReadonlyArray<infer A> ? Array<Wire<A>> : T extends object ? { -readonly [K in keyof T]: Wire<T[K]> } : T
type Assignable<From, To> = [Wire<From>] extends [To] ? true : false
const check = <T extends true>(): T => true as T

// Content and results the runtime sends.
check<Assignable<McpSchema.TextContent, Spec.TextContent>>()
check<Assignable<McpSchema.ImageContent, Spec.ImageContent>>()
check<Assignable<McpSchema.AudioContent, Spec.AudioContent>>()
check<Assignable<McpSchema.ResourceLink, Spec.ResourceLink>>()
check<Assignable<McpSchema.EmbeddedResource, Spec.EmbeddedResource>>()
check<Assignable<McpSchema.ContentBlock, Spec.ContentBlock>>()
check<Assignable<McpSchema.ToolAnnotations, Spec.ToolAnnotations>>()
check<Assignable<McpSchema.ToolDefinition, Spec.Tool>>()
check<Assignable<McpSchema.InitializeResult, Spec.InitializeResult>>()
check<Assignable<McpSchema.CallToolResult, Spec.CallToolResult>>()
check<Assignable<McpSchema.ServerCapabilities, Spec.ServerCapabilities>>()
check<Assignable<McpSchema.InitializeResult["serverInfo"], Spec.Implementation>>()
check<Assignable<McpSchema.JsonRpcErrorObject, Spec.JSONRPCErrorResponse["error"]>>()
check<Assignable<McpSchema.RequestId, Spec.RequestId>>()

// What the runtime decodes must accept what the SDK sends.
check<Assignable<Spec.InitializeRequestParams["clientInfo"], McpSchema.Implementation>>()

describe("wire types", () => {
  it("(the real check is `npm run typecheck`: this file fails to compile when a wire type drifts)", () => {
    assert.isTrue(check<Assignable<McpSchema.TextContent, Spec.TextContent>>())
  })
})
