/**
 * Content blocks shaped for the protocol revision of the client.
 *
 * @internal
 */
import type { ContentBlock } from "../McpSchema.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"

/** A content block an older client cannot show, rendered as text. */
export const downgradeContent = (block: ContentBlock, version: ProtocolVersion.ProtocolVersion): ContentBlock => {
  if (block.type === "resource_link" && !ProtocolVersion.hasStructuredContent(version)) {
    return { type: "text", text: `Resource: ${block.name} <${block.uri}>` }
  }
  if (block.type === "audio" && !ProtocolVersion.hasToolAnnotations(version)) {
    return { type: "text", text: `[audio content (${block.mimeType}) not supported by protocol ${version}]` }
  }
  return block
}
