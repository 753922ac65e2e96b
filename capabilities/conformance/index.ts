/**
 * The fixtures of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`), as two capabilities that follow the
 * kernel's naming rules: `test` publishes `test_simple_text` …
 * `test_elicitation_sep1330_enums`, the `test_*` prompts and the `test://`
 * resources; `json` publishes `json_schema_2020_12_tool`. Not enabled by
 * default: start the server with `--capabilities conformance`. See
 * `docs/conformance.md`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Capability from "../../src/Capability.ts"
import { audioContent } from "./audioContent.ts"
import { elicitation } from "./elicitation.ts"
import { elicitationSep1034Defaults } from "./elicitationSep1034Defaults.ts"
import { elicitationSep1330Enums } from "./elicitationSep1330Enums.ts"
import { embeddedResource } from "./embeddedResource.ts"
import { errorHandling } from "./errorHandling.ts"
import { imageContent } from "./imageContent.ts"
import { jsonSchema202012Tool } from "./jsonSchema202012Tool.ts"
import { multipleContentTypes } from "./multipleContentTypes.ts"
import { inputRequiredCapabilities } from "./inputRequiredCapabilities.ts"
import { inputRequiredElicitation } from "./inputRequiredElicitation.ts"
import { inputRequiredListRoots } from "./inputRequiredListRoots.ts"
import { inputRequiredMultipleInputs } from "./inputRequiredMultipleInputs.ts"
import { inputRequiredMultiRound } from "./inputRequiredMultiRound.ts"
import { inputRequiredRequestState } from "./inputRequiredRequestState.ts"
import { inputRequiredSampling } from "./inputRequiredSampling.ts"
import { inputRequiredTamperedState } from "./inputRequiredTamperedState.ts"
import { loggingTool } from "./loggingTool.ts"
import { missingCapability } from "./missingCapability.ts"
import {
  inputRequiredPrompt,
  promptWithArguments,
  promptWithEmbeddedResource,
  promptWithImage,
  simplePrompt
} from "./prompts.ts"
import { streamingElicitation } from "./streamingElicitation.ts"
import { triggerPromptChange } from "./triggerPromptChange.ts"
import { triggerToolChange } from "./triggerToolChange.ts"
import { reconnection } from "./reconnection.ts"
import { staticBinary, staticText, template, watchedResource } from "./resources.ts"
import { sampling } from "./sampling.ts"
import { simpleText } from "./simpleText.ts"
import { toolWithLogging } from "./toolWithLogging.ts"
import { toolWithProgress } from "./toolWithProgress.ts"

/**
 * The `test` capability: the suite's tools, prompts and resources.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import { TestCapability } from "effect-mcp-runtime/capabilities/conformance"
 *
 * const kernel = TestCapability.pipe(Layer.provideMerge(Kernel.layer()))
 * ```
 *
 * @category capabilities
 * @since 0.1.0
 */
export const TestCapability = Capability.make(
  {
    id: "test",
    description: "The fixtures of the official MCP conformance suite (tools, prompts, resources)",
    version: "0.1.0"
  },
  Effect.gen(function* () {
    const watched = yield* watchedResource
    return {
      tools: [
        simpleText,
        imageContent,
        audioContent,
        embeddedResource,
        multipleContentTypes,
        toolWithLogging,
        toolWithProgress,
        errorHandling,
        reconnection,
        sampling,
        elicitation,
        elicitationSep1034Defaults,
        elicitationSep1330Enums,
        missingCapability,
        triggerToolChange,
        triggerPromptChange,
        streamingElicitation,
        loggingTool,
        inputRequiredElicitation,
        inputRequiredSampling,
        inputRequiredListRoots,
        inputRequiredRequestState,
        inputRequiredMultipleInputs,
        inputRequiredMultiRound,
        inputRequiredTamperedState,
        inputRequiredCapabilities
      ],
      prompts: [simplePrompt, promptWithArguments, promptWithEmbeddedResource, promptWithImage, inputRequiredPrompt],
      resources: [staticText, staticBinary, template, watched]
    }
  })
)

/**
 * The `json` capability: `json_schema_2020_12_tool`.
 *
 * **Example**
 *
 * ```ts
 * import { JsonCapability } from "effect-mcp-runtime/capabilities/conformance"
 *
 * const layer = JsonCapability
 * ```
 *
 * @category capabilities
 * @since 0.1.0
 */
export const JsonCapability = Capability.make(
  { id: "json", description: "A tool whose input schema uses JSON Schema 2020-12 features", version: "0.1.0" },
  Effect.succeed({ tools: [jsonSchema202012Tool] })
)

/**
 * Both fixture capabilities.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import { ConformanceCapability } from "effect-mcp-runtime/capabilities/conformance"
 *
 * const kernel = ConformanceCapability.pipe(Layer.provideMerge(Kernel.layer()))
 * ```
 *
 * @category capabilities
 * @since 0.1.0
 */
export const ConformanceCapability = Layer.merge(TestCapability, JsonCapability)
