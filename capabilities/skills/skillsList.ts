/**
 * `skills/list`: the skills this server serves, a page at a time, each
 * entry whole (its `resources` never split across pages), in name order.
 * Skills that cannot be served are left out (and logged at warning with the
 * reason); `skills/get` on one of them says what is wrong.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { Base64Url } from "effect/encoding"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidParams } from "../../src/McpError.ts"
import * as Method from "../../src/Method.ts"
import type { Catalog, Skill, SkillEntry } from "./catalog.ts"

/**
 * The cursor of the page after the skill `name`: opaque to clients.
 *
 * **Example**
 *
 * ```ts
 * import { decodeCursor, encodeCursor } from "./capabilities/skills/skillsList.ts"
 *
 * decodeCursor(encodeCursor("pdf-processing")) // => "pdf-processing"
 * ```
 *
 * @category cursors
 * @since 0.2.0
 */
export const encodeCursor = (name: string): string => Base64Url.encode(`s1:${name}`)

/**
 * The skill name a cursor of {@link encodeCursor} continues after, or
 * undefined when it is not one.
 *
 * **Example**
 *
 * ```ts
 * import { decodeCursor } from "./capabilities/skills/skillsList.ts"
 *
 * decodeCursor("not a cursor") // => undefined
 * ```
 *
 * @category cursors
 * @since 0.2.0
 */
export const decodeCursor = (cursor: string): string | undefined => {
  const decoded = Base64Url.decodeString(cursor)
  if (Result.isFailure(decoded) || !decoded.success.startsWith("s1:")) return undefined
  const name = decoded.success.slice(3)
  return name === "" ? undefined : name
}

/**
 * The params of `skills/list`: an optional cursor.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ListSkillsParams } from "./capabilities/skills/skillsList.ts"
 *
 * Schema.decodeUnknownSync(ListSkillsParams)({}) // => {}
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const ListSkillsParams = Schema.Struct({
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "The nextCursor of the previous page" }))
})

/**
 * The `skills/list` method over a catalog: `pageSize` servable skills a
 * page, with the caching hints `ttlMs` (the settings') and `cacheScope`
 * `private`. A cursor this method did not hand out is −32602.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeCatalog } from "./capabilities/skills/catalog.ts"
 * import { makeSkillsList } from "./capabilities/skills/skillsList.ts"
 *
 * const method = Effect.map(makeCatalog, makeSkillsList)
 * ```
 *
 * @category methods
 * @since 0.2.0
 */
export const makeSkillsList = (catalog: Catalog): Method.Request<never> =>
  Method.request("skills/list", {
    params: ListSkillsParams,
    revisions: "modern",
    handler: Effect.fnUntraced(function* (params) {
      const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor)
      if (params.cursor !== undefined && after === undefined) {
        return yield* new InvalidParams({
          message:
            "The cursor was not handed out by skills/list: omit it for the first page, or pass the nextCursor of " +
            "the previous page unchanged.",
          data: { cursor: params.cursor }
        })
      }
      const all = yield* catalog.candidates
      const rest = after === undefined ? all : all.filter((candidate) => candidate.name > after)
      const { pageSize } = catalog.settings
      const entries: Array<SkillEntry> = []
      let examined = 0
      // A batch of directories at a time, until the page is full: invalid ones leave gaps.
      while (entries.length < pageSize && examined < rest.length) {
        const batch = rest.slice(examined, examined + pageSize - entries.length)
        // The listing is where the files a skill leaves out (symlinks, special files) are reported every time.
        const inspected = yield* Effect.forEach(
          batch,
          (candidate) => catalog.inspect(candidate, { reportLeftOut: true }),
          { concurrency: 8 }
        )
        const skills = inspected.flatMap((inspection): Array<Skill> =>
          inspection._tag === "Valid" ? [inspection.skill] : []
        )
        const served = yield* Effect.forEach(skills, (skill) => Effect.option(catalog.entry(skill)), {
          concurrency: 4
        })
        for (const entry of served) if (entry._tag === "Some") entries.push(entry.value)
        examined += batch.length
      }
      const last = rest[examined - 1]
      return {
        skills: entries,
        ...(examined < rest.length && last !== undefined ? { nextCursor: encodeCursor(last.name) } : {}),
        ttlMs: catalog.settings.ttlMs,
        cacheScope: "private"
      }
    })
  })
