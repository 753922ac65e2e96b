/**
 * `tools/call`: runs one tool.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Kernel } from "../Kernel.ts"
import { InvalidParams } from "../McpError.ts"
import { type CallToolResult, CallToolParams, type ContentBlock } from "../McpSchema.ts"
import * as Method from "../Method.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"

// Content kinds an older client cannot show are rendered as text.
const downgrade = (block: ContentBlock, version: ProtocolVersion.ProtocolVersion): ContentBlock => {
  if (block.type === "resource_link" && !ProtocolVersion.hasStructuredContent(version)) {
    return { type: "text", text: `Resource: ${block.name} <${block.uri}>` }
  }
  if (block.type === "audio" && !ProtocolVersion.hasToolAnnotations(version)) {
    return { type: "text", text: `[audio content (${block.mimeType}) not supported by protocol ${version}]` }
  }
  return block
}

const shapeFor = (result: CallToolResult, version: ProtocolVersion.ProtocolVersion): CallToolResult => {
  if (ProtocolVersion.hasStructuredContent(version)) return result
  const content = result.content.map((block) => downgrade(block, version))
  return {
    content,
    ...(result.isError === true ? { isError: true } : {}),
    ...(result._meta === undefined ? {} : { _meta: result._meta })
  }
}

/**
 * Decodes the arguments with the tool's input Schema and runs it. An unknown
 * tool is a −32602 protocol error; everything that goes wrong inside the tool
 * is an `isError: true` result.
 *
 * **Example**
 *
 * ```ts
 * import { toolsCall } from "effect-mcp-runtime/methods/toolsCall"
 *
 * toolsCall.decode({ name: "system_echo", arguments: { text: "hi" } })._tag // => "Success"
 * toolsCall.decode({ name: 42 })._tag // => "Failure"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const toolsCall = Method.request("tools/call", {
  params: CallToolParams,
  accepts: (params) =>
    typeof params.name === "string" &&
    (params.arguments === undefined ||
      (typeof params.arguments === "object" && params.arguments !== null && !Array.isArray(params.arguments))),
  // The hot path of the server: written without a generator.
  handler: (params) =>
    Effect.flatMap(Effect.context<Kernel | RequestContext>(), (context) => {
      const tool = Context.get(context, Kernel).tool(params.name)
      if (tool === undefined) {
        return Effect.fail(
          new InvalidParams({
            message: `Unknown tool: ${params.name}. Call tools/list to see the available tools.`,
            data: { tool: params.name }
          })
        )
      }
      const version = Context.get(context, RequestContext).protocolVersion
      return Effect.map(tool.call(params.arguments), (result) => shapeFor(result, version))
    })
})
