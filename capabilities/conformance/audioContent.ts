/**
 * `test_audio_content`: one audio block.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Tool from "../../src/Tool.ts"
import { wav } from "./media.ts"

/**
 * Answers a minimal WAV audio block (`audio/wav`).
 *
 * **Example**
 *
 * ```ts
 * import { audioContent } from "effect-mcp-runtime/capabilities/conformance/audioContent"
 *
 * audioContent.tool.name // => "audio_content"
 * ```
 *
 * @category tools
 * @since 0.1.0
 */
export const audioContent = Tool.make("audio_content", {
  description: "Tests audio content response",
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(Tool.handle(() => Effect.succeed(Tool.audio(wav, "audio/wav"))))
