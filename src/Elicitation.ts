/**
 * Elicitation: a handler asks the user, through the client, for values it
 * needs (`elicitation/create`). In form mode the request describes a flat
 * form — generated from a `Schema.Struct` of strings, numbers, integers,
 * booleans, single choices and multi-selects of string literals (titled or
 * not), each with its title, description and default — and the answer is
 * decoded with that Schema.
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
import * as SchemaAST from "effect/SchemaAST"
import { Client, ClientCapabilityMissing, ClientRequestFailed, type ClientError } from "./Client.ts"
import { dereference, formatIssues } from "./internal/compileTool.ts"
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

// The annotation `enumNames` sets; it is the JSON Schema keyword it becomes.
const enumNamesKey = "enumNames"

/**
 * A single-choice field whose choices have labels, as the legacy
 * `{ "type": "string", "enum": [...], "enumNames": [...] }` form field: a
 * `Schema.Literals` of `values` annotated with the label of each, in order.
 *
 * **When to use**
 *
 * Only for clients that know `enumNames` and not titled choices: the MCP
 * specification (2025-11-25) deprecates `enumNames` in favour of titled
 * choices (`oneOf` of `const` and `title`), which a `Schema.Union` of
 * titled literals generates:
 * `Schema.Union([Schema.Literal("opt1").annotate({ title: "Option One" }), …])`.
 *
 * **Details**
 *
 * `names` has one label per value (the type requires as many). Inside a
 * `Schema.Array` (a multi-select field, where the spec has no `enumNames`)
 * the labels become titled choices (`items.anyOf`). The answer is decoded as
 * the `Schema.Literals` of `values`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const Form = Schema.Struct({
 *   size: Elicitation.enumNames(["s", "m", "l"], ["Small", "Medium", "Large"]).annotate({ title: "Size" })
 * })
 * // requestedSchema.properties.size:
 * // { "type": "string", "title": "Size", "enum": ["s", "m", "l"], "enumNames": ["Small", "Medium", "Large"] }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const enumNames = <const Values extends ReadonlyArray<string>>(
  values: Values,
  names: { readonly [K in keyof Values]: string }
): Schema.Literals<Values> => Schema.Literals(values).annotate({ [enumNamesKey]: names })

type JsonObject = Record<string, unknown>
type Definitions = Readonly<Record<string, unknown>>

const formats = new Set(["email", "uri", "date", "date-time"])
const nonFinite = new Set(["NaN", "Infinity", "-Infinity"])
// The keywords of annotations alone: a struct key's own annotations
// (`annotateKey`) come as an `allOf` of them.
const annotationKeywords = new Set(["title", "description", "default", "examples"])

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const show = (value: unknown): string =>
  typeof value === "number" || typeof value === "bigint" || value === undefined
    ? String(value)
    : (JSON.stringify(value) ?? String(value))

const defect = (key: string, problem: string): Error => new Error(`Elicitation.form: field "${key}" ${problem}`)

const notFlat = (key: string): Error =>
  defect(
    key,
    "is not a string, number, integer, boolean, choice of strings or multi-select of string choices; a form is flat"
  )

// A property with its `$ref` resolved, the key's own annotations merged in,
// and the branches of a union (`{ mode: "oneOf" }` too) as `anyOf`.
const resolveProperty = (raw: JsonObject, definitions: Definitions): JsonObject => {
  let property = dereference(raw, definitions)
  const fragments = property.allOf
  if (
    Array.isArray(fragments) &&
    fragments.every((f) => isObject(f) && Object.keys(f).every((k) => annotationKeywords.has(k)))
  ) {
    const { allOf: _, ...rest } = property
    property = Object.assign(rest, ...(fragments as Array<JsonObject>))
  }
  if (Array.isArray(property.oneOf) && property.type === undefined && property.anyOf === undefined) {
    const { oneOf, ...rest } = property
    property = { ...rest, anyOf: oneOf }
  }
  return property
}

interface Choice {
  readonly value: unknown
  readonly title: string | undefined
}

// The choices a (plain) JSON Schema offers, or undefined when it is not a choice.
const choicesOf = (schema: JsonObject): ReadonlyArray<Choice> | undefined => {
  if (Array.isArray(schema.oneOf)) {
    return (schema.oneOf as Array<JsonObject>).map((o) => ({ value: o.const, title: o.title as string }))
  }
  const title = typeof schema.title === "string" ? schema.title : undefined
  if (Array.isArray(schema.enum)) {
    // A lone literal's title names the choice; a group of literals shares no label.
    return schema.enum.length === 1
      ? [{ value: schema.enum[0], title }]
      : schema.enum.map((value) => ({ value, title: undefined }))
  }
  return "const" in schema ? [{ value: schema.const, title }] : undefined
}

// Effect describes `Schema.Number` as a number or the strings "NaN",
// "Infinity", "-Infinity", and an optional field as the field or null: a
// form field is the plain branch. A union of string literals is a choice:
// titled (`oneOf` of `const` and `title`) when one of them has a title.
const plainBranch = (raw: JsonObject, definitions: Definitions): JsonObject => {
  const property = resolveProperty(raw, definitions)
  if (!Array.isArray(property.anyOf)) return property
  const branches = (property.anyOf as Array<JsonObject>)
    .map((branch) => resolveProperty(branch, definitions))
    .filter(
      (branch) =>
        branch.type !== "null" &&
        !(branch.type === "string" && Array.isArray(branch.enum) && branch.enum.every((v) => nonFinite.has(v)))
    )
  // The union's own annotations (`Schema.optional(X).annotate(…)`) win over X's.
  const { anyOf: _, ...rest } = property
  if (branches.length === 1) return { ...plainBranch(branches[0]!, definitions), ...rest }
  const choices: Array<Choice> = []
  for (const branch of branches) {
    const offered = choicesOf(plainBranch(branch, definitions))
    if (offered === undefined) return property
    for (const choice of offered) if (!choices.some((c) => c.value === choice.value)) choices.push(choice)
  }
  if (choices.length === 0 || !choices.every((c) => typeof c.value === "string")) return property
  return choices.some((c) => c.title !== undefined)
    ? { ...rest, type: "string", oneOf: choices.map((c) => ({ const: c.value, title: c.title ?? c.value })) }
    : { ...rest, type: "string", enum: choices.map((c) => c.value) }
}

// The labels of an `enumNames` choice, one per value.
const enumNamesOf = (key: string, schema: JsonObject): ReadonlyArray<string> | undefined => {
  const names = schema[enumNamesKey]
  if (names === undefined) return undefined
  const values = schema.enum as ReadonlyArray<unknown>
  if (!Array.isArray(names) || names.length !== values.length || !names.every((n) => typeof n === "string")) {
    throw defect(key, `has enumNames ${show(names)}: it needs one string per choice (${values.length})`)
  }
  return names
}

const pick = (from: JsonObject, keys: ReadonlyArray<string>): JsonObject => {
  const out: JsonObject = {}
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key]
  return out
}

const bound = (value: unknown): number | undefined =>
  typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined

// What the Schema itself says of the field, for the annotations its JSON
// Schema loses (Effect drops them where the JSON codec adds a
// transformation: `Schema.Number`, `Schema.Date`).
const declared = (
  field: Schema.Top
): { readonly title: unknown; readonly description: unknown; readonly default: unknown } => {
  const ast = field.ast
  // `Schema.optional(X)`: X or undefined; X's annotations describe the field.
  const members = SchemaAST.isUnion(ast) ? ast.types.filter((member) => !SchemaAST.isUndefined(member)) : []
  const sources = [
    Schema.resolveAnnotationsKey(field),
    SchemaAST.resolve(ast),
    members.length === 1 ? SchemaAST.resolve(members[0]!) : undefined
  ]
  const first = (key: string): unknown => sources.find((source) => source?.[key] !== undefined)?.[key]
  return { title: first("title"), description: first("description"), default: first("default") }
}

// One field, in the restricted JSON Schema a client renders (only the
// keywords the spec lists for each type). A constraint the form cannot say
// is still checked when the answer is decoded with the Schema. A default
// that is not one of the field's values is a defect.
const fieldOf = (key: string, raw: JsonObject, definitions: Definitions, field: Schema.Top | undefined): JsonObject => {
  const property = plainBranch(raw, definitions)
  const fallback = field === undefined ? undefined : declared(field)
  const title = typeof property.title === "string" ? property.title : fallback?.title
  const description = typeof property.description === "string" ? property.description : fallback?.description
  const text: JsonObject = {
    ...(typeof title === "string" ? { title } : {}),
    ...(typeof description === "string" ? { description } : {})
  }
  // The JSON Schema's default is JSON already; the Schema's is a value of its type.
  let value: unknown = property.default
  if (value === undefined && field !== undefined && fallback?.default !== undefined) {
    const encoded = Schema.encodeUnknownExit(Schema.toCodecJson(field as Schema.Codec<unknown, unknown>))(
      fallback.default
    )
    if (Exit.isFailure(encoded)) throw defect(key, `has a default its Schema cannot encode: ${show(fallback.default)}`)
    value = encoded.value
  }
  const defaultIf = (valid: (value: unknown) => boolean, expected: string): JsonObject => {
    if (value === undefined) return {}
    if (!valid(value)) throw defect(key, `has the default ${show(value)}, which is not ${expected}`)
    return { default: value }
  }
  const listed = (values: ReadonlyArray<unknown>): string => values.map(show).join(", ")
  switch (property.type) {
    case "string": {
      if (Array.isArray(property.oneOf)) {
        const values = (property.oneOf as Array<JsonObject>).map((o) => o.const)
        return {
          type: "string",
          ...text,
          oneOf: property.oneOf,
          ...defaultIf((u) => values.includes(u), `one of its choices (${listed(values)})`)
        }
      }
      if (Array.isArray(property.enum)) {
        const values: ReadonlyArray<unknown> = property.enum
        const names = enumNamesOf(key, property)
        return {
          type: "string",
          ...text,
          enum: values,
          ...(names === undefined ? {} : { enumNames: names }),
          ...defaultIf((u) => values.includes(u), `one of its choices (${listed(values)})`)
        }
      }
      return {
        type: "string",
        ...text,
        ...pick(property, ["minLength", "maxLength"]),
        ...(typeof property.format === "string" && formats.has(property.format) ? { format: property.format } : {}),
        ...defaultIf((u) => typeof u === "string", "a string")
      }
    }
    case "number":
    case "integer": {
      const integer = property.type === "integer"
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
        ...defaultIf(
          (u) => typeof u === "number" && (integer ? Number.isInteger(u) : Number.isFinite(u)),
          integer ? "an integer" : "a finite number"
        )
      }
    }
    case "boolean":
      return { type: "boolean", ...text, ...defaultIf((u) => typeof u === "boolean", "a boolean") }
    case "array": {
      // A multi-select: an array of string choices (`Schema.NonEmptyArray`
      // repeats the items as its first element).
      const prefix = property.prefixItems
      const uniform =
        prefix === undefined ||
        (Array.isArray(prefix) && prefix.every((p) => JSON.stringify(p) === JSON.stringify(property.items)))
      const items = isObject(property.items) && uniform ? plainBranch(property.items, definitions) : undefined
      if (
        items === undefined ||
        items.type !== "string" ||
        !(Array.isArray(items.oneOf) || Array.isArray(items.enum))
      ) {
        throw notFlat(key)
      }
      const names = Array.isArray(items.enum) ? enumNamesOf(key, items) : undefined
      const choices: ReadonlyArray<JsonObject> | undefined = Array.isArray(items.oneOf)
        ? items.oneOf
        : names === undefined
          ? undefined
          : (items.enum as Array<unknown>).map((value, i) => ({ const: value, title: names[i] }))
      const values = choices === undefined ? (items.enum as Array<unknown>) : choices.map((c) => c.const)
      const count = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0
      return {
        type: "array",
        ...text,
        ...(count(property.minItems) ? { minItems: property.minItems } : {}),
        ...(count(property.maxItems) ? { maxItems: property.maxItems } : {}),
        items: choices === undefined ? { type: "string", enum: values } : { anyOf: choices },
        ...defaultIf(
          (u) => Array.isArray(u) && u.every((v) => values.includes(v)),
          `a list of its choices (${listed(values)})`
        )
      }
    }
    default:
      throw notFlat(key)
  }
}

// The elicitation form schema: a flat object of primitive fields. Anything
// else is a programming error in the handler, reported as a defect.
// Computed once per schema: a handler asks with the same schema on every call (and every round replays it).
const requestedSchemas = new WeakMap<FormSchema, JsonObject>()
const requestedSchemaOf = (schema: FormSchema): JsonObject => {
  let found = requestedSchemas.get(schema)
  if (found === undefined) {
    found = computeRequestedSchema(schema)
    requestedSchemas.set(schema, found)
  }
  return found
}

const computeRequestedSchema = (schema: FormSchema): JsonObject => {
  const document = Schema.toJsonSchemaDocument(schema, { includeAnnotationKey: (key) => key === enumNamesKey })
  const definitions = document.definitions
  const top = dereference(document.schema as JsonObject, definitions)
  if (top.type !== "object") throw new Error("Elicitation.form needs a Schema.Struct")
  const properties = (top.properties ?? {}) as Record<string, JsonObject>
  // A Struct's or Class's fields, for what their JSON Schema loses.
  const fields = (schema as { readonly fields?: Readonly<Record<string, Schema.Top>> }).fields
  const flat: JsonObject = {}
  for (const [key, property] of Object.entries(properties)) {
    const field = fields !== undefined && Object.hasOwn(fields, key) ? fields[key] : undefined
    flat[key] = fieldOf(key, property, definitions, field)
  }
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
 * Whether `elicitation/create` in form mode can be sent to this client: its
 * negotiated protocol has elicitation (2025-06-18 on) and it declared the
 * capability with form mode (`{}` or `{ form: {} }`, not only `{ url: {} }`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Client } from "effect-mcp-runtime/Client"
 * import * as Elicitation from "effect-mcp-runtime/Elicitation"
 *
 * const canAsk = Effect.map(Effect.service(Client), Elicitation.supportsForm)
 * ```
 *
 * @category capabilities
 * @since 0.1.0
 */
export const supportsForm = (client: Pick<Client["Service"], "capabilities" | "protocolVersion">): boolean => {
  if (!ProtocolVersion.hasStructuredContent(client.protocolVersion())) return false
  const capability = client.capabilities().elicitation as
    | { readonly form?: unknown; readonly url?: unknown }
    | undefined
  // `elicitation: {}` means form mode; with explicit modes, form must be listed.
  return (
    typeof capability === "object" &&
    capability !== null &&
    !(capability.form === undefined && capability.url !== undefined)
  )
}

/**
 * Asks the user to fill in a form described by `schema`, and decodes what
 * they enter with it. Fails with `ClientCapabilityMissing` when the client
 * did not declare elicitation (form mode) or speaks a protocol older than
 * 2025-06-18.
 *
 * **Details**
 *
 * Each field becomes one of the spec's form fields: `Schema.String`,
 * `Schema.Number`/`Schema.Finite`, `Schema.Int`, `Schema.Boolean`; a
 * `Schema.Literals` (an `enum`), a `Schema.Union` of literals annotated with
 * titles (a titled choice, `oneOf` of `const` and `title`), {@link enumNames}
 * (the legacy titled choice); a `Schema.Array` of either kind of choice (a
 * multi-select, with `minItems`/`maxItems` from `Schema.isMinLength` /
 * `Schema.isMaxLength`). `title`, `description` and `default` annotations are
 * kept. Any other field, or a default that is not one of the field's values,
 * is a defect: a form is flat.
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
    if (!supportsForm(client)) {
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
