/**
 * The wire-type check: every type the runtime encodes must be assignable to
 * the official SDK's spec types. These are compile-time assertions, run by
 * `npm run typecheck`; the test below only keeps vitest aware of the file.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Spec from "@modelcontextprotocol/sdk/spec.types.js"
import type { GetPromptResult } from "../src/internal/compilePrompt.ts"
import type { ReadResourceResult } from "../src/internal/compileResource.ts"
import type { Completion } from "../src/internal/completion.ts"
import type * as McpSchema from "../src/McpSchema.ts"
import type * as Prompt from "../src/Prompt.ts"
import type * as Roots from "../src/Roots.ts"
import type * as Sampling from "../src/Sampling.ts"

// `readonly` is a TypeScript-only modifier, and an `undefined` property is
// dropped by JSON: neither exists on the wire.
type Wire<T> =
  T extends ReadonlyArray<infer A>
    ? Array<Wire<A>>
    : T extends object
      ? { -readonly [K in keyof T]: Wire<Exclude<T[K], undefined>> }
      : T
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

// Prompts.
check<Assignable<GetPromptResult, Spec.GetPromptResult>>()
check<Assignable<Prompt.Message, Spec.PromptMessage>>()

// Resources and completions.
check<Assignable<ReadResourceResult, Spec.ReadResourceResult>>()
check<Assignable<{ completion: Completion }, Spec.CompleteResult>>()

// Notifications the runtime sends.
check<Assignable<McpSchema.ProgressParams, Spec.ProgressNotificationParams>>()
check<Assignable<McpSchema.LoggingMessageParams, Spec.LoggingMessageNotificationParams>>()

// Requests the runtime sends to the client.
check<Assignable<Sampling.Request, Spec.CreateMessageRequestParams>>()

// What the runtime decodes must accept what the SDK sends.
check<Assignable<Spec.SetLevelRequestParams["level"], McpSchema.LoggingLevel>>()
check<Assignable<Spec.Root, Roots.Root>>()
check<
  Assignable<
    Pick<Spec.CreateMessageResult, "role" | "model"> & { content: Spec.TextContent; stopReason?: string },
    Sampling.Reply
  >
>()
check<Assignable<Spec.InitializeRequestParams["clientInfo"], McpSchema.Implementation>>()

describe("wire types", () => {
  it("(the real check is `npm run typecheck`: this file fails to compile when a wire type drifts)", () => {
    assert.isTrue(check<Assignable<McpSchema.TextContent, Spec.TextContent>>())
  })
})
