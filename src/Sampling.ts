/**
 * Sampling: a handler asks the client's language model for a completion
 * (`sampling/createMessage`). The client decides which model answers, and
 * may show the request to the user first.
 *
 * The client's declared capabilities are checked first: a client without
 * `sampling` fails at once with `ClientCapabilityMissing`. Timeouts and
 * cancellation apply as to any wait.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Sampling from "effect-mcp-runtime/Sampling"
 *
 * const summarize = (text: string) =>
 *   Sampling.createMessage({
 *     messages: [{ role: "user", content: { type: "text", text: `Summarize in one line:\n${text}` } }],
 *     maxTokens: 100
 *   }).pipe(Effect.map((reply) => (reply.content.type === "text" ? reply.content.text : "")))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { Client, ClientCapabilityMissing, ClientRequestFailed, type ClientError } from "./Client.ts"
import { jsonSafe } from "./internal/jsonSafe.ts"

/**
 * One message of a sampling conversation.
 *
 * **Example**
 *
 * ```ts
 * import type * as Sampling from "effect-mcp-runtime/Sampling"
 *
 * const question: Sampling.Message = { role: "user", content: { type: "text", text: "Which file is largest?" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content:
    | { readonly type: "text"; readonly text: string }
    | { readonly type: "image"; readonly data: string; readonly mimeType: string }
    | { readonly type: "audio"; readonly data: string; readonly mimeType: string }
}

/**
 * What to ask the model.
 *
 * **Example**
 *
 * ```ts
 * import type * as Sampling from "effect-mcp-runtime/Sampling"
 *
 * const request: Sampling.Request = {
 *   messages: [{ role: "user", content: { type: "text", text: "Hello" } }],
 *   maxTokens: 50,
 *   modelPreferences: { hints: [{ name: "claude" }], speedPriority: 0.8 }
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly messages: ReadonlyArray<Message>
  readonly maxTokens: number
  readonly systemPrompt?: string | undefined
  readonly temperature?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly modelPreferences?:
    | {
        readonly hints?: ReadonlyArray<{ readonly name?: string }> | undefined
        readonly costPriority?: number | undefined
        readonly speedPriority?: number | undefined
        readonly intelligencePriority?: number | undefined
      }
    | undefined
  readonly includeContext?: "none" | "thisServer" | "allServers" | undefined
  readonly metadata?: Record<string, unknown> | undefined
}

/**
 * The model's reply, decoded (of a reply with several content blocks, the
 * first text, image or audio block).
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Reply } from "effect-mcp-runtime/Sampling"
 *
 * Schema.decodeUnknownSync(Reply)({ role: "assistant", content: { type: "text", text: "Hi" }, model: "m-1" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
const Block = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("image"), data: Schema.String, mimeType: Schema.String }),
  Schema.Struct({ type: Schema.Literal("audio"), data: Schema.String, mimeType: Schema.String })
])

export const Reply = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Block,
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})

// Protocol 2025-11-25 lets the content be a list of blocks: the reply keeps
// the first text, image or audio block.
const WireReply = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([Block, Schema.Array(Schema.Unknown)]),
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})

const isBlock = Schema.is(Block)

/**
 * The model's reply.
 *
 * **Example**
 *
 * ```ts
 * import type * as Sampling from "effect-mcp-runtime/Sampling"
 *
 * const reply: Sampling.Reply = { role: "assistant", content: { type: "text", text: "Hi" }, model: "m-1" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Reply = typeof Reply.Type

const decodeReply = (result: unknown): Exit.Exit<Reply, unknown> => {
  const decoded = Schema.decodeUnknownExit(WireReply)(result)
  if (Exit.isFailure(decoded)) return Exit.fail(decoded.cause)
  const { content, ...rest } = decoded.value
  if (!Array.isArray(content)) return Exit.succeed({ ...rest, content: content as Reply["content"] })
  const first = content.find(isBlock)
  return first === undefined ? Exit.fail("no text, image or audio block") : Exit.succeed({ ...rest, content: first })
}

/**
 * Asks the client's model for a message. Fails with
 * `ClientCapabilityMissing` when the client did not declare `sampling`.
 *
 * **Example**
 *
 * ```ts
 * import * as Sampling from "effect-mcp-runtime/Sampling"
 *
 * const haiku = Sampling.createMessage({
 *   messages: [{ role: "user", content: { type: "text", text: "A haiku about pipes" } }],
 *   maxTokens: 60
 * })
 * ```
 *
 * @category requests
 * @since 0.1.0
 */
export const createMessage = (request: Request): Effect.Effect<Reply, ClientError, Client> =>
  Effect.flatMap(Effect.service(Client), (client): Effect.Effect<Reply, ClientError> => {
    const sampling = client.capabilities().sampling as { readonly context?: unknown } | null | undefined
    if (typeof sampling !== "object" || sampling === null) {
      return Effect.fail(
        new ClientCapabilityMissing({
          capability: "sampling",
          message: "The client cannot run a model for this server: it did not declare the sampling capability.",
          suggestion: "Return the material to the model in the tool's result instead of sampling."
        })
      )
    }
    // Context from other servers only where the client said it can include it.
    if (
      request.includeContext !== undefined &&
      request.includeContext !== "none" &&
      client.protocolVersion() >= "2025-11-25" &&
      sampling.context === undefined
    ) {
      return Effect.fail(
        new ClientCapabilityMissing({
          capability: "sampling.context",
          message: `The client did not declare sampling.context: it cannot include context (${request.includeContext}).`,
          suggestion: 'Send the context in the messages, with includeContext "none".'
        })
      )
    }
    // Audio content arrived with protocol 2025-03-26.
    if (
      client.protocolVersion() < "2025-03-26" &&
      request.messages.some((message) => message.content.type === "audio")
    ) {
      return Effect.fail(
        new ClientCapabilityMissing({
          capability: "sampling",
          message: `Audio content is not part of protocol ${client.protocolVersion()}.`,
          suggestion: "Send text or images."
        })
      )
    }
    // As JSON: undefined fields dropped, a bigint in `metadata` written as text.
    const params = JSON.parse(JSON.stringify(jsonSafe(request))) as Record<string, unknown>
    return Effect.flatMap(client.request("sampling/createMessage", params), (result) => {
      const decoded = decodeReply(result)
      return Exit.isSuccess(decoded)
        ? Effect.succeed(decoded.value)
        : Effect.fail(
            new ClientRequestFailed({
              method: "sampling/createMessage",
              message: "The client's answer is not a valid sampling result (role, content, model)."
            })
          )
    })
  })
