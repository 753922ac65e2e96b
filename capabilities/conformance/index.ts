/**
 * The fixtures of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, 0.1.16 and the 2026-07-28
 * prerelease), as four capabilities that follow the kernel's naming rules:
 * `test` publishes `test_simple_text` … `test_elicitation_sep1330_enums`,
 * the 2026-07-28 fixtures (`test_input_required_*`, `test_custom_headers`…),
 * the `test_*` prompts and the `test://` resources; `json` publishes
 * `json_schema_2020_12_tool`; `tasks` publishes the tasks extension's
 * fixtures, under the names the suite calls (`greet`, `slow_compute`…)
 * through kernel aliases; `skills` serves one skill from memory. Not
 * enabled by default: start the server with `--capabilities conformance`.
 * See `docs/conformance.md`.
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
import { confirmDelete } from "./confirmDelete.ts"
import { customHeaders } from "./customHeaders.ts"
import { failingJob } from "./failingJob.ts"
import { greet } from "./greet.ts"
import { multiInput } from "./multiInput.ts"
import { protocolErrorJob } from "./protocolErrorJob.ts"
import { SkillsFixture } from "./skills.ts"
import { slowCompute } from "./slowCompute.ts"
import { toolWithTask } from "./toolWithTask.ts"
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
        customHeaders,
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
        inputRequiredCapabilities,
        toolWithTask
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
 * The `tasks` capability: the tools of the tasks scenarios — `greet`,
 * `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
 * `multi_input` — published as `tasks_<name>`, and under the suite's own
 * names when the kernel is built with {@link aliases}.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import { aliases, TasksCapability } from "effect-mcp-runtime/capabilities/conformance"
 *
 * const kernel = TasksCapability.pipe(Layer.provideMerge(Kernel.layer({ aliases })))
 * ```
 *
 * @category capabilities
 * @since 0.2.0
 */
export const TasksCapability = Capability.make(
  { id: "tasks", description: "The tools of the tasks extension's conformance scenarios", version: "0.2.0" },
  Effect.succeed({ tools: [greet, slowCompute, failingJob, protocolErrorJob, confirmDelete, multiInput] })
)

/**
 * The names the tasks scenarios call without a capability prefix, each an
 * alias of a `tasks_` tool. The binary builds its kernel with them when the
 * conformance fixtures are enabled, and only then (see
 * `docs/adr/0004-conformance-fixture-names.md`).
 *
 * **Example**
 *
 * ```ts
 * import { aliases } from "effect-mcp-runtime/capabilities/conformance"
 *
 * aliases.greet // => "tasks_greet"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const aliases: Readonly<Record<string, string>> = {
  greet: "tasks_greet",
  slow_compute: "tasks_slow_compute",
  failing_job: "tasks_failing_job",
  protocol_error_job: "tasks_protocol_error_job",
  confirm_delete: "tasks_confirm_delete",
  multi_input: "tasks_multi_input"
}

/**
 * Every fixture capability.
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
export const ConformanceCapability = Layer.mergeAll(TestCapability, JsonCapability, TasksCapability, SkillsFixture)
