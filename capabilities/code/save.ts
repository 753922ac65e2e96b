/**
 * `code_save`: saves a snippet as a learned capability `namespace:action`,
 * callable from code as `mcp.<namespace>.<action>(…)` and by any client as
 * the tool `app_<namespace>_<action>`.
 *
 * @since 0.3.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"
import * as Engine from "./engine.ts"
import { inputCodec, type Code } from "./learned.ts"
import { namePattern } from "./store.ts"

/**
 * `code_save`.
 *
 * **Example**
 *
 * ```ts
 * // arguments an agent sends
 * const args = {
 *   name: "notes:count",
 *   description: "Counts the Markdown files under a directory.",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 *   code: "const found = await mcp.workspace.search({ query: '#', path: input.path, include: '*.md' })\nreturn found.matches.length"
 * }
 * ```
 *
 * @category tools
 * @since 0.3.0
 */
export const saveTool = (code: Code) =>
  Tool.make("save", {
    title: "Save a learned capability",
    description:
      "Saves code as a learned capability named namespace:action, with a description and the JSON Schema of its " +
      "input (the code reads its arguments as `input`). It becomes callable from code_run as " +
      "`await mcp.<namespace>.<action>(args)` and as the tool app_<namespace>_<action>. It may call tools but not " +
      "other learned capabilities; the calls are checked now. Use it for a sequence of calls you will need again.",
    input: Schema.Struct({
      name: Schema.String.annotate({
        description: "namespace:action, e.g. notes:count (lower-case namespace; letters, digits, _)"
      }),
      description: Schema.String.check(Schema.isMinLength(1)).annotate({
        description: "What it does and returns, for whoever calls it."
      }),
      code: Schema.String.annotate({ description: "The body of an async function, as for code_run." }),
      language: Schema.optionalKey(Schema.Literals(["typescript", "javascript"])),
      inputSchema: Schema.optionalKey(
        Schema.Record(Schema.String, Schema.Unknown).annotate({
          description: 'JSON Schema of its arguments (an object schema); default: { "type": "object" }'
        })
      ),
      replace: Schema.optionalKey(
        Schema.Boolean.annotate({ description: "Replace the learned capability of that name if there is one." })
      )
    }),
    output: Schema.Struct({
      name: Schema.String,
      tool: Schema.String.annotate({ description: "The tool it is published as." }),
      call: Schema.String.annotate({ description: "How code calls it." }),
      references: Schema.Array(Schema.String).annotate({ description: "The tools its code calls." })
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }
  }).pipe(
    Tool.handle((args) =>
      Effect.gen(function* () {
        const match = namePattern.exec(args.name)
        if (match === null) {
          return yield* new Tool.ToolError({
            message: `${JSON.stringify(args.name)} is not a learned capability name.`,
            code: "invalid_name",
            suggestion:
              "Use namespace:action: a lower-case namespace and an action of letters, digits and _, e.g. notes:count."
          })
        }
        const [, namespace, action] = match as unknown as [string, string, string]
        const taken = code.kernel.capabilities().find((capability) => capability.id === namespace)
        if (taken !== undefined || namespace === Engine.codeId) {
          return yield* new Tool.ToolError({
            message: `The namespace ${namespace} belongs to the capability ${namespace}; learned capabilities cannot join it.`,
            code: "namespace_taken",
            suggestion: "Choose another namespace, e.g. one named after the task."
          })
        }
        const tool = Engine.learnedTool(args.name)
        // Names that make one tool, or one file on a file system that ignores case, are one name.
        const twin = [...code.registry.learned().values()].find(
          (other) =>
            other.name !== args.name &&
            (Engine.learnedTool(other.name) === tool || other.name.toLowerCase() === args.name.toLowerCase())
        )
        if (twin !== undefined || (code.kernel.tool(tool) !== undefined && !code.registry.learned().has(args.name))) {
          return yield* new Tool.ToolError({
            message: `${args.name} would be published as ${tool}, which ${twin === undefined ? "another tool" : `the learned capability ${twin.name}`} already is.`,
            code: "name_taken",
            suggestion: "Choose a name whose namespace and action do not run together into an existing tool name."
          })
        }
        const existing = code.registry.learned().get(args.name)
        if (existing !== undefined && args.replace !== true) {
          return yield* new Tool.ToolError({
            message: `A learned capability named ${args.name} exists.`,
            code: "exists",
            suggestion: "Call code_show to see it; save again with replace: true to replace it, or choose another name."
          })
        }
        if (existing === undefined && code.registry.learned().size >= code.settings.maxLearned) {
          return yield* new Tool.ToolError({
            message: `The store holds ${code.settings.maxLearned} learned capabilities, its limit.`,
            code: "store_full",
            suggestion: "Delete one you no longer need with code_delete, then save again."
          })
        }
        const inputSchema = args.inputSchema ?? { type: "object" }
        const codec = inputCodec(inputSchema)
        if (codec._tag === "Refused") {
          return yield* new Tool.ToolError({
            message: `The inputSchema cannot be used: ${codec.reason}`,
            code: "invalid_input_schema",
            suggestion: "Give a JSON Schema of an object with properties and required; no patterns or external $ref."
          })
        }
        const language = args.language ?? "typescript"
        const checked = Engine.check(args.code, language, code.registry, {
          allowLearned: false,
          maxCodeBytes: code.settings.maxCodeBytes
        })
        if (checked._tag === "Refused") {
          return yield* new Tool.ToolError({
            message: checked.message.replace("The code was not run", "The code was not saved"),
            code: checked.code,
            suggestion: checked.suggestion
          })
        }
        const now = yield* Clock.currentTimeMillis
        const references = [...new Set([...checked.targets.values()].map((target) => target.tool))]
        const learned = {
          name: args.name,
          description: args.description,
          inputSchema,
          code: args.code,
          language,
          references,
          savedAt: new Date(now).toISOString()
        } as const
        // Published first (what can refuse it: the kernel), then stored; a store that fails takes it back.
        const published = yield* code.publish(learned)
        yield* code.store.put(learned).pipe(
          Effect.mapError(
            (error) =>
              new Tool.ToolError({
                message: error.message,
                code: "store_failed",
                suggestion: "Ask the operator to check the code store's directory (code.storePath)."
              })
          ),
          Effect.tapError(() =>
            existing === undefined ? code.withdraw(args.name) : Effect.ignore(code.publish(existing))
          )
        )
        return { name: args.name, tool: published, call: `mcp.${namespace}.${action}(args)`, references }
      })
    )
  )
