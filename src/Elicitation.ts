/**
 * Elicitation: a handler asks the user, through the client, for values it
 * needs (`elicitation/create`). In form mode the request describes a flat
 * form — generated from a `Schema.Struct` of strings, numbers, integers,
 * booleans and literal choices — and the answer is decoded with that Schema.
 * In URL mode (protocol 2025-11-25) the client opens a URL for the user.
 *
 * The client's declared capabilities are checked first: a client without
 * elicitation (or a protocol that predates it) fails at once with
 * `ClientCapabilityMissing`, never a hang. Timeouts and cancellation apply
 * as to any wait.
 *
 * Never ask for passwords, tokens or other secrets this way.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const askName = Effect.gen(function*() {
 *   const answer = yield* Elicitation.form("Who should the report go to?", Schema.Struct({ name: Schema.String }))
 *   return answer.action === "accept" ? `Sending to ${answer.content.name}` : "Not sent"
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { Client, ClientCapabilityMissing, ClientRequestFailed, type ClientError } from "./Client.ts"
import { dereference, formatIssues, jsonSchemaRoot } from "./internal/compileTool.ts"
import * as ProtocolVersion from "./ProtocolVersion.ts"

/**
 * The user's answer to a form: accepted with the decoded content, declined,
 * or dismissed (`cancel`).
 *
 * **Example**
 *
 * ```ts
 * import type * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const answer: Elicitation.FormAnswer<{ readonly name: string }> = { action: "accept", content: { name: "Ada" } }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type FormAnswer<A> =
  | { readonly action: "accept"; readonly content: A }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * A form's Schema: a struct whose fields the client can render.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import type * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const Contact: Elicitation.FormSchema = Schema.Struct({ email: Schema.String, age: Schema.optionalKey(Schema.Int) })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type FormSchema = Schema.Codec<any, { readonly [key: string]: unknown }, never, never>

const formats = new Set(["email", "uri", "date", "date-time"])
const nonFinite = new Set(["NaN", "Infinity", "-Infinity"])

// Effect describes `Schema.Number` as a number or the strings "NaN",
// "Infinity", "-Infinity", and an optional field as the field or null: a
// form field is the plain branch.
const plainBranch = (property: Record<string, unknown>): Record<string, unknown> => {
  if (!Array.isArray(property.anyOf)) return property
  const branches = (property.anyOf as Array<Record<string, unknown>>).filter(
    (branch) =>
      branch.type !== "null" &&
      !(branch.type === "string" && Array.isArray(branch.enum) && branch.enum.every((v) => nonFinite.has(v)))
  )
  const { anyOf: _, ...rest } = property
  if (branches.length === 1) return { ...rest, ...plainBranch(branches[0]!) }
  // A choice of string literals.
  const values = branches.flatMap((branch) =>
    Array.isArray(branch.enum) ? branch.enum : "const" in branch ? [branch.const] : [undefined]
  )
  if (values.length > 0 && values.every((v) => typeof v === "string")) return { ...rest, type: "string", enum: values }
  return property
}

const pick = (from: Record<string, unknown>, keys: ReadonlyArray<string>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key]
  return out
}

// One field, in the restricted JSON Schema a client renders (only the
// keywords the spec lists for each type). A constraint the form cannot say
// is still checked when the answer is decoded with the Schema.
const fieldOf = (key: string, raw: Record<string, unknown>): Record<string, unknown> => {
  const property = plainBranch(raw)
  const text = pick(property, ["title", "description"])
  switch (property.type) {
    case "string": {
      if (Array.isArray(property.enum)) return { type: "string", ...text, enum: property.enum }
      return {
        type: "string",
        ...text,
        ...pick(property, ["minLength", "maxLength"]),
        ...(typeof property.format === "string" && formats.has(property.format) ? { format: property.format } : {}),
        ...(typeof property.default === "string" ? { default: property.default } : {})
      }
    }
    case "number":
    case "integer": {
      const integer = property.type === "integer"
      const bound = (value: unknown): number | undefined =>
        typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined
      const minimum =
        bound(property.minimum) ??
        (bound(property.exclusiveMinimum) === undefined
          ? undefined
          : (property.exclusiveMinimum as number) + (integer ? 1 : 0))
      const maximum =
        bound(property.maximum) ??
        (bound(property.exclusiveMaximum) === undefined
          ? undefined
          : (property.exclusiveMaximum as number) - (integer ? 1 : 0))
      return {
        type: property.type,
        ...text,
        ...(minimum === undefined ? {} : { minimum }),
        ...(maximum === undefined ? {} : { maximum }),
        ...(typeof property.default === "number" ? { default: property.default } : {})
      }
    }
    case "boolean":
      return {
        type: "boolean",
        ...text,
        ...(typeof property.default === "boolean" ? { default: property.default } : {})
      }
    default:
      throw new Error(
        `Elicitation.form: field "${key}" is not a string, number, integer, boolean or choice of strings; ` +
          `a form is flat`
      )
  }
}

// The elicitation form schema: a flat object of primitive fields. Anything
// else is a programming error in the handler, reported as a defect.
const requestedSchemaOf = (schema: FormSchema): Record<string, unknown> => {
  const { definitions, root: top } = jsonSchemaRoot(schema)
  if (top.type !== "object") throw new Error("Elicitation.form needs a Schema.Struct")
  const properties = (top.properties ?? {}) as Record<string, Record<string, unknown>>
  const flat: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(properties)) flat[key] = fieldOf(key, dereference(property, definitions))
  return {
    type: "object",
    properties: flat,
    ...(Array.isArray(top.required) && top.required.length > 0 ? { required: top.required } : {})
  }
}

const unsupported = (what: string) =>
  new ClientCapabilityMissing({
    capability: "elicitation",
    message: `The client cannot ask the user for input: ${what}.`,
    suggestion: "Ask the user through the conversation, or take the values as the tool's arguments."
  })

const invalidAnswer = (method: string, detail: string) =>
  new ClientRequestFailed({ method, message: `The client's answer is not a valid elicitation result: ${detail}` })

/**
 * Asks the user to fill in a form described by `schema`, and decodes what
 * they enter with it. Fails with `ClientCapabilityMissing` when the client
 * did not declare elicitation (form mode) or speaks a protocol older than
 * 2025-06-18.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const confirmDeletion = Elicitation.form(
 *   "Delete 3 files?",
 *   Schema.Struct({ confirm: Schema.Boolean.annotate({ title: "Yes, delete them" }) })
 * ).pipe(Effect.map((answer) => answer.action === "accept" && answer.content.confirm))
 * ```
 *
 * @category requests
 * @since 0.1.0
 */
export const form = <S extends FormSchema>(
  message: string,
  schema: S
): Effect.Effect<FormAnswer<S["Type"]>, ClientError, Client> =>
  Effect.flatMap(Effect.service(Client), (client): Effect.Effect<FormAnswer<S["Type"]>, ClientError> => {
    const version = client.protocolVersion()
    if (!ProtocolVersion.hasStructuredContent(version)) {
      return Effect.fail(unsupported(`elicitation is not part of protocol ${version}`))
    }
    const capability = client.capabilities().elicitation as
      | { readonly form?: unknown; readonly url?: unknown }
      | undefined
    // `elicitation: {}` means form mode; with explicit modes, form must be listed.
    if (
      typeof capability !== "object" ||
      capability === null ||
      (capability.form === undefined && capability.url !== undefined)
    ) {
      return Effect.fail(unsupported("it did not declare the elicitation capability (form mode)"))
    }
    const requestedSchema = requestedSchemaOf(schema)
    const params: Record<string, unknown> =
      version >= "2025-11-25" ? { mode: "form", message, requestedSchema } : { message, requestedSchema }
    return Effect.flatMap(
      client.request("elicitation/create", params),
      (result): Effect.Effect<FormAnswer<S["Type"]>, ClientError> => {
        const action = result.action
        if (action === "decline" || action === "cancel") return Effect.succeed({ action } as FormAnswer<S["Type"]>)
        if (action !== "accept")
          return Effect.fail(invalidAnswer("elicitation/create", `action ${JSON.stringify(action)}`))
        // The JSON codec: a date field arrives as a string, as the form said.
        const decoded = Schema.decodeUnknownExit(Schema.toCodecJson(schema))(result.content ?? {}, { errors: "all" })
        if (Exit.isSuccess(decoded)) return Effect.succeed({ action: "accept", content: decoded.value })
        const issue = Cause.findErrorOption(decoded.cause)
        const lines = issue._tag === "Some" ? formatIssues(issue.value.issue) : []
        return Effect.fail(
          invalidAnswer("elicitation/create", `the content does not match the requested form:\n${lines.join("\n")}`)
        )
      }
    )
  })

/**
 * The user's answer to a URL request.
 *
 * **Example**
 *
 * ```ts
 * import type * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const answer: Elicitation.UrlAnswer = { action: "accept", elicitationId: "3f6c…" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface UrlAnswer {
  readonly action: "accept" | "decline" | "cancel"
  /** The id the request was sent with; pass it to {@link complete} when the interaction is done. */
  readonly elicitationId: string
}

/**
 * Asks the client to open `url` for the user (URL mode, protocol
 * 2025-11-25): for interactions that must not pass through the client, such
 * as a sign-in. `accept` means the user agreed to open it, not that they
 * finished; call {@link complete} when the interaction is done.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const signIn = Elicitation.url("Sign in to the issue tracker", "https://tracker.example/authorize?session=42")
 * ```
 *
 * @category requests
 * @since 0.1.0
 */
export const url = (message: string, target: string): Effect.Effect<UrlAnswer, ClientError, Client> =>
  Effect.flatMap(Effect.service(Client), (client): Effect.Effect<UrlAnswer, ClientError> => {
    const version = client.protocolVersion()
    if (version < "2025-11-25") return Effect.fail(unsupported(`URL mode is not part of protocol ${version}`))
    const capability = client.capabilities().elicitation as { readonly url?: unknown } | undefined
    if (typeof capability !== "object" || capability === null || capability.url === undefined) {
      return Effect.fail(unsupported("it did not declare the elicitation capability for URL mode"))
    }
    const elicitationId = crypto.randomUUID()
    return Effect.flatMap(
      client.request("elicitation/create", { mode: "url", message, url: target, elicitationId }),
      (result): Effect.Effect<UrlAnswer, ClientError> =>
        result.action === "accept" || result.action === "decline" || result.action === "cancel"
          ? Effect.succeed({ action: result.action, elicitationId })
          : Effect.fail(invalidAnswer("elicitation/create", `action ${JSON.stringify(result.action)}`))
    )
  })

/**
 * Tells the client that the interaction of a URL elicitation is finished
 * (`notifications/elicitation/complete`). Nothing is sent to a client that
 * did not declare URL elicitation (protocol 2025-11-25).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const done = (id: string) => Elicitation.complete(id)
 * ```
 *
 * @category requests
 * @since 0.1.0
 */
export const complete = (elicitationId: string): Effect.Effect<void, never, Client> =>
  Effect.flatMap(Effect.service(Client), (client) => {
    // Only a client that can receive URL elicitations knows this notification.
    const capability = client.capabilities().elicitation as { readonly url?: unknown } | undefined
    const urlMode =
      client.protocolVersion() >= "2025-11-25" &&
      typeof capability === "object" &&
      capability !== null &&
      capability.url !== undefined
    return urlMode ? client.notify("notifications/elicitation/complete", { elicitationId }) : Effect.void
  })
