/**
 * `resources/directory/read`: the direct children of one directory of a
 * skill — `skill://<name>` is the skill's root, `skill://<name>/<path>` a
 * subdirectory — files with the metadata `resources/list` gives them,
 * subdirectories with the MIME type `inode/directory`. A skill's
 * directories are those that hold its served files.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { Base64Url } from "effect/encoding"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidParams } from "../../src/McpError.ts"
import * as Method from "../../src/Method.ts"
import { type Catalog, fileUri, findSkill, parseUri, problemData, type Skill } from "./catalog.ts"
import { listedOf } from "./fileResource.ts"

/**
 * The MIME type of a directory resource.
 *
 * **Example**
 *
 * ```ts
 * import { directoryMimeType } from "./capabilities/skills/directoryRead.ts"
 *
 * directoryMimeType // => "inode/directory"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const directoryMimeType = "inode/directory"

/**
 * The params of `resources/directory/read`: the directory's URI and an
 * optional cursor.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ReadDirectoryParams } from "./capabilities/skills/directoryRead.ts"
 *
 * Schema.decodeUnknownSync(ReadDirectoryParams)({ uri: "skill://pdf-processing" })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const ReadDirectoryParams = Schema.Struct({
  uri: Schema.String.annotate({ description: "The directory: skill://<name> or skill://<name>/<path>" }),
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "The nextCursor of the previous page" }))
})

/**
 * One child of a directory: a file's resource metadata, or a subdirectory.
 *
 * **Example**
 *
 * ```ts
 * import type { Child } from "./capabilities/skills/directoryRead.ts"
 *
 * const child: Child = { uri: "skill://pdf-processing/references", name: "pdf-processing/references", mimeType: "inode/directory" }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Child {
  readonly uri: string
  readonly name: string
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  readonly size?: number | undefined
}

/**
 * The direct children of the directory `path` of a skill (`""`: its root),
 * by name.
 *
 * **Example**
 *
 * ```ts
 * import { childrenOf } from "./capabilities/skills/directoryRead.ts"
 *
 * declare const skill: import("./capabilities/skills/catalog.ts").Skill
 * const names = childrenOf(skill, "").map((child) => child.uri)
 * ```
 *
 * @category listing
 * @since 0.2.0
 */
export const childrenOf = (skill: Skill, path: string): ReadonlyArray<Child> => {
  const prefix = path === "" ? "" : `${path}/`
  const children = new Map<string, Child>()
  for (const file of skill.files) {
    if (!file.path.startsWith(prefix)) continue
    const rest = file.path.slice(prefix.length)
    const slash = rest.indexOf("/")
    if (slash === -1) {
      children.set(rest, listedOf(skill, file))
      continue
    }
    const name = rest.slice(0, slash)
    if (!children.has(name)) {
      const directory = `${prefix}${name}`
      children.set(name, {
        uri: fileUri(skill.name, directory),
        name: `${skill.name}/${directory}`,
        mimeType: directoryMimeType
      })
    }
  }
  return [...children.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, child]) => child)
}

const encodeCursor = (index: number) => Base64Url.encode(`d1:${index}`)
const decodeCursor = (cursor: string): number | undefined => {
  const decoded = Base64Url.decodeString(cursor)
  if (Result.isFailure(decoded) || !/^d1:\d{1,9}$/.test(decoded.success)) return undefined
  return Number(decoded.success.slice(3))
}

/**
 * The `resources/directory/read` method over a catalog: `pageSize`
 * children a page. −32602 for a URI that is not a `skill://` directory of a
 * served skill: a file (`SKILL.md` included), a path the skill does not
 * have, an unknown or unservable skill, or a cursor it did not hand out.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeCatalog } from "./capabilities/skills/catalog.ts"
 * import { makeDirectoryRead } from "./capabilities/skills/directoryRead.ts"
 *
 * const method = Effect.map(makeCatalog, makeDirectoryRead)
 * ```
 *
 * @category methods
 * @since 0.2.0
 */
export const makeDirectoryRead = (catalog: Catalog): Method.Request<never> =>
  Method.request("resources/directory/read", {
    params: ReadDirectoryParams,
    revisions: "modern",
    handler: Effect.fnUntraced(function* ({ cursor, uri }) {
      const parsed = parseUri(uri)
      if (parsed === undefined) {
        return yield* new InvalidParams({
          message:
            `${JSON.stringify(uri)} is not a directory this server serves: directories are skill://<name> (a ` +
            `skill's root) and skill://<name>/<path>, as skills/list and resources/directory/read give them.`,
          data: { uri }
        })
      }
      const inspection = yield* findSkill(catalog, parsed.name)
      if (inspection === undefined) {
        return yield* new InvalidParams({
          message: `Unknown skill: ${uri}. No skill is named ${JSON.stringify(parsed.name)}; skills/list lists them.`,
          data: { uri }
        })
      }
      if (inspection._tag === "Invalid") {
        return yield* new InvalidParams({
          message: `The skill ${parsed.name} cannot be served: ${inspection.problem.message}`,
          data: problemData(uri, inspection.problem)
        })
      }
      const skill = inspection.skill
      if (!skill.directories.has(parsed.path)) {
        const isFile = skill.files.some((file) => file.path === parsed.path)
        return yield* new InvalidParams({
          message: isFile
            ? `${uri} is a file, not a directory: read it with resources/read.`
            : `The skill ${skill.name} has no directory ${parsed.path}; resources/directory/read ` +
              `${fileUri(skill.name, "")} lists its root.`,
          data: { uri }
        })
      }
      const start = cursor === undefined ? 0 : decodeCursor(cursor)
      if (start === undefined) {
        return yield* new InvalidParams({
          message:
            "The cursor was not handed out by resources/directory/read: omit it for the first page, or pass the " +
            "nextCursor of the previous page unchanged.",
          data: { uri, cursor }
        })
      }
      const children = childrenOf(skill, parsed.path)
      const end = start + catalog.settings.pageSize
      return {
        resources: children.slice(start, end),
        ...(end < children.length ? { nextCursor: encodeCursor(end) } : {})
      }
    })
  })
