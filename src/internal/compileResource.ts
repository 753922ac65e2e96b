/**
 * Turns a handled resource or template into what the kernel serves: its list
 * entry (serialized once per protocol era), a matcher for template URIs, a
 * `read` that runs the handler in its capability's context and shapes the
 * contents, and for a listing template a `list` that runs its lister the same
 * way and serializes the page it returns.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { Base64 } from "effect/encoding"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { InternalError, type McpError, RequestFailed, ResourceNotFound } from "../McpError.ts"
import type { Annotations, ResourceContents } from "../McpSchema.ts"
import * as ProtocolVersion from "../ProtocolVersion.ts"
import type { Era } from "../ProtocolVersion.ts"
import type * as Resource from "../Resource.ts"
import { RequestContext } from "../RequestContext.ts"
import {
  capabilityOverlay,
  dereference,
  describeFailure,
  isEmptyStruct,
  jsonSchemaRoot,
  missingCapability,
  SchemaProblem
} from "./compileTool.ts"
import { type Complete, makeComplete } from "./completion.ts"
import { parse, TemplateError, type Value } from "./uriTemplate.ts"
import { unlessRoundEnded } from "./mrtr.ts"

/** A `resources/read` result. */
export interface ReadResourceResult {
  readonly contents: ReadonlyArray<ResourceContents>
}

interface Common {
  /** The public name. */
  readonly name: string
  readonly capability: string
  /** The list entry per era, already serialized. */
  readonly listEntry: Readonly<Record<Era, string>>
  /** Reads the contents at `uri` (params already decoded: see `match`). */
  readonly read: (uri: string, params: unknown) => Effect.Effect<ReadResourceResult, McpError, RequestContext>
}

/** A static resource as the kernel serves it. */
export interface CompiledResource extends Common {
  readonly _tag: "Resource"
  readonly uri: string
  readonly scheme: string
}

/** One page of a template's listing, for one era. */
export interface ListedPage {
  /** The `resources/list` entries, each serialized. */
  readonly entries: ReadonlyArray<string>
  /** The lister's own cursor of its next page, when there is one. */
  readonly nextCursor: string | undefined
}

/** A resource template as the kernel serves it. */
export interface CompiledTemplate extends Common {
  readonly _tag: "Template"
  readonly uriTemplate: string
  readonly scheme: string
  /** The decoded parameters of `uri`, or undefined when it is not one of this template's URIs. */
  readonly match: (uri: string) => { readonly params: unknown } | undefined
  /** Whether any variable has a completer. */
  readonly completes: boolean
  readonly variables: ReadonlyArray<string>
  readonly complete: Complete
  /**
   * One page of the template's own resources for `resources/list` (its
   * lister's, see `Resource.list`), from the lister's cursor; undefined when
   * the template does not list.
   */
  readonly list:
    | ((cursor: string | undefined, era: Era) => Effect.Effect<ListedPage, McpError, RequestContext>)
    | undefined
}

const schemePattern = /^([A-Za-z][A-Za-z0-9+.-]*):/

/** The scheme of a URI (lowercase), or undefined when it has none. */
export const schemeOf = (uri: string): string | undefined => schemePattern.exec(uri)?.[1]?.toLowerCase()

// lastModified exists from 2025-06-18 on.
const legacyAnnotations = (annotations: Annotations): Annotations | undefined => {
  const { lastModified: _, ...rest } = annotations
  return Object.keys(rest).length === 0 ? undefined : rest
}

const entries = (
  fields: Record<string, unknown>,
  resource: Resource.Common,
  size?: number | undefined
): Readonly<Record<Era, string>> => {
  const base: Record<string, unknown> = { ...fields, description: resource.description }
  if (resource.mimeType !== undefined) base.mimeType = resource.mimeType
  if (size !== undefined) base.size = size
  const legacy = { ...base }
  const full = { ...base }
  if (resource.title !== undefined) full.title = resource.title
  if (resource.annotations !== undefined) {
    full.annotations = resource.annotations
    const old = legacyAnnotations(resource.annotations)
    if (old !== undefined) legacy.annotations = old
  }
  return {
    "2024-11-05": JSON.stringify(legacy),
    "2025-03-26": JSON.stringify(legacy),
    "2025-06-18": JSON.stringify(full)
  }
}

// The handler's contents as the wire's list of contents.
const contentsOf = (value: Resource.Contents, uri: string, mimeType: string | undefined): Array<ResourceContents> => {
  const withMime = (item: { uri: string; text: string } | { uri: string; blob: string }, own: string | undefined) => {
    const type = own ?? mimeType
    if (type === undefined) return item
    // uri, mimeType, then the data: the order of the spec's examples.
    const { uri: itemUri, ...data } = item
    return { uri: itemUri, mimeType: type, ...data }
  }
  if (typeof value === "string") return [withMime({ uri, text: value }, undefined)]
  if (value instanceof Uint8Array) return [withMime({ uri, blob: Base64.encode(value) }, undefined)]
  return value.map((item) =>
    "text" in item
      ? withMime({ uri: item.uri ?? uri, text: item.text }, item.mimeType)
      : withMime(
          {
            uri: item.uri ?? uri,
            blob: typeof item.blob === "string" ? item.blob : Base64.encode(item.blob)
          },
          item.mimeType
        )
  )
}

const makeRead = (
  handled: Resource.Handled<any>,
  publicName: string,
  context: Context.Context<any>
): Common["read"] => {
  const overlay = capabilityOverlay(context)
  const { handler, resource } = handled
  return (uri, params) =>
    Effect.suspend(() => handler(params, uri)).pipe(
      Effect.updateContext(overlay),
      Effect.matchCauseEffect({
        onSuccess: (value) => {
          if (typeof value !== "string" && !(value instanceof Uint8Array) && !Array.isArray(value)) {
            return Effect.die(
              new TypeError(
                `resource ${publicName} returned ${typeof value}: return a string, a Uint8Array or an array of items`
              )
            )
          }
          return Effect.succeed({ contents: contentsOf(value, uri, resource.mimeType) })
        },
        onFailure: (cause) => Effect.failCause(cause)
      }),
      Effect.catchCause((cause): Effect.Effect<never, McpError, RequestContext> => {
        const failure = Cause.findErrorOption(cause)
        if (failure._tag === "Some" && !Cause.hasDies(cause) && !Cause.hasInterruptsOnly(cause)) {
          const value = failure.value as { _tag?: unknown; message?: unknown } | null
          const missing = missingCapability(value)
          if (missing !== undefined) {
            return Effect.flatMap(Effect.service(RequestContext), (request): Effect.Effect<never, McpError> =>
              ProtocolVersion.isModern(request.protocolVersion)
                ? Effect.fail(missing)
                : Effect.fail(
                    new RequestFailed({
                      message: `Reading ${uri} failed: ${describeFailure(value)}`,
                      data: { uri, resource: publicName }
                    })
                  )
            )
          }
          if (typeof value === "object" && value !== null && value._tag === "NotFound") {
            const own = typeof value.message === "string" && value.message !== "" ? ` ${value.message}` : ""
            return Effect.fail(new ResourceNotFound({ uri, message: `Resource not found: ${uri}.${own}` }))
          }
          const message = describeFailure(value)
          return Effect.fail(
            new RequestFailed({ message: `Reading ${uri} failed: ${message}`, data: { uri, resource: publicName } })
          )
        }
        return unlessRoundEnded(
          cause,
          defect(`resource ${publicName} failed with a defect`, { resource: publicName, uri }, cause)
        )
      })
    ) as Effect.Effect<ReadResourceResult, McpError, RequestContext>
}

// A defect: logged with the request's correlation id, which is all the client gets.
const defect = (
  message: string,
  annotations: Record<string, unknown>,
  cause: Cause.Cause<unknown>
): Effect.Effect<never, McpError, RequestContext> =>
  Effect.flatMap(Effect.service(RequestContext), (request) =>
    Effect.andThen(
      Effect.logError(message, { ...annotations, correlation_id: request.correlationId, cause: Cause.pretty(cause) }),
      Effect.fail(new InternalError({ correlationId: request.correlationId }))
    )
  )

// A listed resource's `resources/list` entry, in the order and with the keys of
// a static resource's (`title` from 2025-06-18 on).
const listedEntry = (listed: Resource.Listed, era: Era, mimeType: string | undefined): string => {
  const entry: Record<string, unknown> = { uri: listed.uri, name: listed.name }
  if (listed.description !== undefined) entry.description = listed.description
  const type = listed.mimeType ?? mimeType
  if (type !== undefined) entry.mimeType = type
  if (listed.size !== undefined) entry.size = listed.size
  if (listed.title !== undefined && era === "2025-06-18") entry.title = listed.title
  return JSON.stringify(entry)
}

// What is wrong with one listed resource, if anything.
const listedProblem = (
  listed: unknown,
  match: (uri: string) => { readonly params: unknown } | undefined,
  uriTemplate: string
): string | undefined => {
  if (typeof listed !== "object" || listed === null) return `listed ${typeof listed}: list objects { uri, name, … }`
  const item = listed as Record<string, unknown>
  if (typeof item.uri !== "string") return `listed a resource whose uri is ${typeof item.uri}, not a string`
  if (typeof item.name !== "string") return `listed ${item.uri} with a name that is ${typeof item.name}, not a string`
  for (const key of ["title", "description", "mimeType"] as const) {
    if (item[key] !== undefined && typeof item[key] !== "string") {
      return `listed ${item.uri} with a ${key} that is ${typeof item[key]}, not a string`
    }
  }
  if (item.size !== undefined && (typeof item.size !== "number" || !Number.isFinite(item.size) || item.size < 0)) {
    return `listed ${item.uri} with a size that is not a number of bytes`
  }
  if (match(item.uri) === undefined) {
    return (
      `listed ${JSON.stringify(item.uri)}, which its URI template ${uriTemplate} does not match ` +
      `(or whose variables do not decode with its params): list only URIs that resources/read resolves to it`
    )
  }
  return undefined
}

// Runs a template's lister in its capability's context, checks and serializes
// the page. A typed failure is −32603 with its message; a page that breaks the
// contract (a URI the template does not match, a missing name) is −32603 with
// what is wrong, and is logged; a defect is −32603 with a correlation id.
const makeList = (
  lister: NonNullable<Resource.Handled<any>["lister"]>,
  publicName: string,
  resource: Resource.Template,
  match: (uri: string) => { readonly params: unknown } | undefined,
  context: Context.Context<any>
): NonNullable<CompiledTemplate["list"]> => {
  const overlay = capabilityOverlay(context)
  const data = { template: resource.uriTemplate, resource: publicName }
  const invalid = (problem: string): Effect.Effect<never, McpError> => {
    const message = `Listing the resources of ${publicName} failed: the template ${problem}`
    return Effect.andThen(Effect.logError(message, data), Effect.fail(new RequestFailed({ message, data })))
  }
  return (cursor, era) =>
    Effect.suspend(() => lister(cursor)).pipe(
      Effect.updateContext(overlay),
      Effect.catchCause((cause): Effect.Effect<never, McpError, RequestContext> => {
        const failure = Cause.findErrorOption(cause)
        if (failure._tag === "Some" && !Cause.hasDies(cause) && !Cause.hasInterruptsOnly(cause)) {
          return Effect.fail(
            new RequestFailed({
              message: `Listing the resources of ${publicName} failed: ${describeFailure(failure.value)}`,
              data
            })
          )
        }
        return defect(`resource template ${publicName} failed with a defect while listing`, data, cause)
      }),
      Effect.flatMap((listing): Effect.Effect<ListedPage, McpError> => {
        const page = listing as { readonly resources?: unknown; readonly nextCursor?: unknown } | null
        if (typeof page !== "object" || page === null || !Array.isArray(page.resources)) {
          return invalid(`lister returned ${page === null ? "null" : typeof page}: return { resources, nextCursor? }`)
        }
        if (page.nextCursor !== undefined && typeof page.nextCursor !== "string") {
          return invalid(`lister returned a nextCursor that is ${typeof page.nextCursor}, not a string`)
        }
        const entries: Array<string> = []
        for (const listed of page.resources as ReadonlyArray<Resource.Listed>) {
          const problem = listedProblem(listed, match, resource.uriTemplate)
          if (problem !== undefined) return invalid(problem)
          entries.push(listedEntry(listed, era, resource.mimeType))
        }
        return Effect.succeed({ entries, nextCursor: page.nextCursor })
      })
    ) as Effect.Effect<ListedPage, McpError, RequestContext>
}

/** Compiles a static resource under its public name. */
export const compileResource = (
  handled: Resource.Handled<any>,
  resource: Resource.Resource,
  publicName: string,
  capability: string,
  context: Context.Context<any>
): CompiledResource | SchemaProblem => {
  const scheme = schemeOf(resource.uri)
  if (scheme === undefined) {
    return new SchemaProblem(
      `URI ${JSON.stringify(resource.uri)} has no scheme: use an absolute URI such as "${capability}://…"`
    )
  }
  if (Object.keys(handled.completions ?? {}).length > 0) {
    return new SchemaProblem("completers belong to resource templates; a static resource has no variables")
  }
  if (handled.lister !== undefined) {
    return new SchemaProblem(
      "a lister belongs to resource templates (Resource.list); resources/list already lists a static resource"
    )
  }
  const listEntry = entries({ uri: resource.uri, name: publicName }, resource, resource.size)
  return {
    _tag: "Resource",
    name: publicName,
    capability,
    uri: resource.uri,
    scheme,
    listEntry,
    read: makeRead(handled, publicName, context)
  }
}

/** Compiles a resource template under its public name. */
export const compileTemplate = (
  handled: Resource.Handled<any>,
  resource: Resource.Template,
  publicName: string,
  capability: string,
  context: Context.Context<any>
): CompiledTemplate | SchemaProblem => {
  const template = parse(resource.uriTemplate)
  if (template instanceof TemplateError) {
    return new SchemaProblem(`URI template ${JSON.stringify(resource.uriTemplate)}: ${template.reason}`)
  }
  // The scheme must be literal, so the template's URIs have a known owner.
  const scheme = schemeOf(resource.uriTemplate)
  const brace = resource.uriTemplate.indexOf("{")
  if (scheme === undefined || (brace !== -1 && brace < resource.uriTemplate.indexOf(":"))) {
    return new SchemaProblem(
      `URI template ${JSON.stringify(resource.uriTemplate)} must start with a literal scheme, such as "${capability}://"`
    )
  }
  // The parameters Schema must be a struct with one field per variable.
  const { definitions, root } = jsonSchemaRoot(resource.params)
  const properties = isEmptyStruct(root)
    ? {}
    : root.type === "object" && typeof root.properties === "object" && root.properties !== null
      ? (root.properties as Record<string, Record<string, unknown>>)
      : undefined
  if (properties === undefined) return new SchemaProblem("the params Schema must be a Schema.Struct")
  const variables = new Set(template.variables)
  for (const name of Object.keys(properties)) {
    if (!variables.has(name)) {
      return new SchemaProblem(`params field "${name}" is not a variable of the URI template ${resource.uriTemplate}`)
    }
    const property = dereference(properties[name]!, definitions)
    if (template.lists.has(name) && property.type !== "array") {
      return new SchemaProblem(`variable "${name}" is exploded (a list): its params field must be an array of strings`)
    }
  }
  for (const name of template.variables) {
    if (!(name in properties)) {
      return new SchemaProblem(`variable "${name}" of the URI template has no field in the params Schema`)
    }
  }
  const stray = Object.keys(handled.completions ?? {}).filter((name) => !variables.has(name))
  if (stray.length > 0) {
    return new SchemaProblem(
      `completer for ${stray.map((key) => `"${key}"`).join(", ")}, which is not a variable of the URI template`
    )
  }
  const decode = Schema.decodeUnknownExit(resource.params, { onExcessProperty: "ignore" })
  const match = (uri: string): { readonly params: unknown } | undefined => {
    const values: Record<string, Value> | undefined = template.match(uri)
    if (values === undefined) return undefined
    const decoded = decode(values)
    return Exit.isSuccess(decoded) ? { params: decoded.value } : undefined
  }
  const completers = handled.completions ?? {}
  return {
    _tag: "Template",
    name: publicName,
    capability,
    uriTemplate: resource.uriTemplate,
    scheme,
    listEntry: entries({ uriTemplate: resource.uriTemplate, name: publicName }, resource),
    read: makeRead(handled, publicName, context),
    match,
    completes: Object.keys(completers).length > 0,
    variables: template.variables,
    list: handled.lister === undefined ? undefined : makeList(handled.lister, publicName, resource, match, context),
    complete: makeComplete({
      what: `resource template ${resource.uriTemplate}`,
      kind: "variable",
      list: "resources/templates/list",
      names: variables,
      completers,
      overlay: capabilityOverlay(context),
      data: { uri: resource.uriTemplate }
    })
  }
}
