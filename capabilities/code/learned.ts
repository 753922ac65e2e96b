/**
 * The learned capabilities in force: loaded from the store when the
 * capability starts, each published as a dynamic tool
 * `app_<namespace>_<action>` (the kernel's dynamic rules: it never shadows a
 * static tool; `list_changed` goes out), and callable from code as
 * `mcp.<namespace>.<action>(…)`. A learned capability runs in a fresh isolate
 * of its own, its arguments as `input`, and may call tools but never another
 * learned capability.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as JsonSchema from "effect/JsonSchema"
import * as Schema from "effect/Schema"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import type { Kernel } from "../../src/Kernel.ts"
import type { JsonSchemaObject } from "../../src/McpSchema.ts"
import type { Sandbox } from "../../src/Sandbox.ts"
import * as Tool from "../../src/Tool.ts"
import * as Engine from "./engine.ts"
import type { CodeSettingsShape } from "./settings.ts"
import { type Learned, type LearnedStore, namePattern } from "./store.ts"

/** What the code tools share. */
export interface Code {
  readonly kernel: Kernel["Service"]
  readonly sandbox: Sandbox["Service"]
  readonly store: LearnedStore["Service"]
  readonly settings: CodeSettingsShape
  readonly registry: Engine.Registry
  /** Publishes a learned capability (replacing one of that name). */
  readonly publish: (learned: Learned) => Effect.Effect<string, Tool.ToolError>
  /** Withdraws a learned capability's tool; `false` when it had none. */
  readonly withdraw: (name: string) => Effect.Effect<boolean>
  /** Bumped at every change of the tools code can call (for the typed bindings' cache). */
  readonly version: () => number
}

/**
 * The Schema that decodes a learned capability's input, from its JSON Schema;
 * a JSON Schema Effect cannot enforce (an external `$ref`, `if`/`then`, a
 * pattern…) is refused with the reason.
 */
// A chain of definitions that are only references and leads back to itself: nothing to decode with, ever.
const endlessReference = (schema: { readonly [key: string]: unknown }): string | undefined => {
  const defs = (schema.$defs ?? schema.definitions) as Record<string, unknown> | undefined
  if (typeof defs !== "object" || defs === null) return undefined
  const targetOf = (node: unknown): string | undefined => {
    if (typeof node !== "object" || node === null) return undefined
    const keys = Object.keys(node).filter((key) => !["$ref", "description", "title", "$comment"].includes(key))
    const ref = (node as { readonly $ref?: unknown }).$ref
    if (keys.length > 0 || typeof ref !== "string") return undefined
    const match = /^#\/(?:\$defs|definitions)\/([^/]+)$/.exec(ref)
    return match === null ? undefined : decodeURIComponent(match[1]!.replace(/~1/g, "/").replace(/~0/g, "~"))
  }
  for (const start of Object.keys(defs)) {
    const seen = new Set<string>()
    let name: string | undefined = start
    while (name !== undefined && !seen.has(name)) {
      seen.add(name)
      name = targetOf(defs[name])
    }
    if (name !== undefined) return name
  }
  return undefined
}

export const inputCodec = (inputSchema: {
  readonly [key: string]: unknown
}):
  | { readonly _tag: "Ok"; readonly schema: Tool.ObjectSchema }
  | { readonly _tag: "Refused"; readonly reason: string } => {
  if (inputSchema.type !== "object") {
    return { _tag: "Refused", reason: `inputSchema must describe an object ("type": "object").` }
  }
  const endless = endlessReference(inputSchema)
  if (endless !== undefined) {
    return {
      _tag: "Refused",
      reason: `the definition ${endless} refers to itself without end (references that lead only back to it)`
    }
  }
  try {
    const document = JsonSchema.fromSchemaDraft2020_12(inputSchema as JsonSchema.JsonSchema)
    const schema = SchemaRepresentation.fromJsonSchemaDocument(document)
    // A reference that leads only to itself ($defs.x = { $ref: "#/$defs/x" }) imports, then overflows the stack on
    // every call: decoding one object now finds it.
    Schema.decodeUnknownExit(Schema.toType(schema) as Schema.Codec<unknown>)({})
    return { _tag: "Ok", schema: Schema.toType(schema) as unknown as Tool.ObjectSchema }
  } catch (error) {
    return {
      _tag: "Refused",
      reason:
        error instanceof RangeError
          ? "it refers to itself without end (a $ref that leads back to itself before any keyword)"
          : error instanceof Error
            ? error.message
            : String(error)
    }
  }
}

/** The tool a learned capability is published as (its bare name `<namespace>_<action>`). */
export const learnedToolOf = (code: Omit<Code, "publish" | "withdraw">, learned: Learned) => {
  const match = namePattern.exec(learned.name)!
  // Checked again only when the tools code can call changed (what it calls may be gone): not parsed at every call.
  let checkedAt: { readonly version: number; readonly checked: Engine.Checked } | undefined
  const check = (): Engine.Checked => {
    const version = code.version()
    if (checkedAt === undefined || checkedAt.version !== version) {
      checkedAt = {
        version,
        checked: Engine.check(learned.code, learned.language, code.registry, {
          allowLearned: false,
          maxCodeBytes: Number.POSITIVE_INFINITY
        })
      }
    }
    return checkedAt.checked
  }
  const codec = inputCodec(learned.inputSchema)
  const input = codec._tag === "Ok" ? codec.schema : Schema.Record(Schema.String, Schema.Unknown)
  // Its code calls a tool that needs the user's confirmation: so does it (the code may pass `confirm: true` to
  // that tool, which a client that cannot ask its user accepts; the user confirms the learned capability instead).
  const confirms = learned.references.some((name) => code.kernel.tool(name)?.confirms === true)
  return Tool.make(`${match[1]}_${match[2]}`, {
    confirm: confirms,
    ...(confirms ? { annotations: { destructiveHint: true, readOnlyHint: false } } : {}),
    description: `${learned.description}\n\n(Learned capability ${learned.name}: code saved with code_save; from code, call it as mcp.${match[1]}.${match[2]}(…).)`,
    input: input as Tool.ObjectSchema,
    inputJsonSchema: learned.inputSchema as JsonSchemaObject
  }).pipe(
    Tool.handle((args) =>
      Effect.gen(function* () {
        const checked = check()
        if (checked._tag === "Refused") {
          return yield* new Tool.ToolError({
            message: `The learned capability ${learned.name} can no longer run: ${checked.message}`,
            code: checked.code,
            suggestion: `Show it with code_show, then save a corrected version with code_save (replace: true).`
          })
        }
        const report = yield* Engine.run(code.sandbox, checked, args, code.settings).pipe(
          Effect.mapError(Engine.runFailure)
        )
        const json = report.value === undefined ? "null" : JSON.stringify(report.value)
        const structured =
          typeof report.value === "object" && report.value !== null && !Array.isArray(report.value)
            ? { structuredContent: report.value as Record<string, unknown> }
            : {}
        return { content: [Tool.text(json)], ...structured }
      })
    )
  ) as unknown as Tool.Handled<never>
}
