/**
 * `skills/get`: one skill's entry, by the URI of its `SKILL.md` — the same
 * entry `skills/list` gives, for any skill this server serves, listed or
 * not. A URI that names no skill, or a skill that cannot be served, is
 * −32602 with a message that says which and why.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InvalidParams } from "../../src/McpError.ts"
import * as Method from "../../src/Method.ts"
import { type Catalog, findSkill, parseUri, problemData } from "./catalog.ts"

/**
 * The params of `skills/get`: the URI of a skill's `SKILL.md`.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { GetSkillParams } from "./capabilities/skills/skillsGet.ts"
 *
 * Schema.decodeUnknownSync(GetSkillParams)({ uri: "skill://notes/SKILL.md" })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const GetSkillParams = Schema.Struct({
  uri: Schema.String.annotate({ description: "The URI of the skill's SKILL.md: skill://<name>/SKILL.md" })
})

/**
 * The `skills/get` method over a catalog: `{ skill, ttlMs, cacheScope }`,
 * no cursor. −32602 for a URI that is not `skill://<name>/SKILL.md`, for a
 * name no source has, and for a skill that cannot be served (`data.reason`
 * is the problem's code; `data.line` and `data.column` place broken YAML).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeCatalog } from "./capabilities/skills/catalog.ts"
 * import { makeSkillsGet } from "./capabilities/skills/skillsGet.ts"
 *
 * const method = Effect.map(makeCatalog, makeSkillsGet)
 * ```
 *
 * @category methods
 * @since 0.2.0
 */
export const makeSkillsGet = (catalog: Catalog): Method.Request<never> =>
  Method.request("skills/get", {
    params: GetSkillParams,
    revisions: "modern",
    handler: Effect.fnUntraced(function* ({ uri }) {
      const parsed = parseUri(uri)
      if (parsed === undefined || parsed.path !== "SKILL.md") {
        return yield* new InvalidParams({
          message:
            `${JSON.stringify(uri)} is not the URI of a skill: skills/get takes the URI of a skill's SKILL.md, ` +
            `skill://<name>/SKILL.md, as skills/list gives it.`,
          data: { uri }
        })
      }
      const inspection = yield* findSkill(catalog, parsed.name)
      if (inspection === undefined) {
        return yield* new InvalidParams({
          message:
            `Unknown skill: ${uri}. No skill directory is named ${JSON.stringify(parsed.name)} in ` +
            `${catalog.sourceLabels === "" ? "any skill directory" : catalog.sourceLabels}; skills/list lists ` +
            `the skills this server serves.`,
          data: { uri }
        })
      }
      if (inspection._tag === "Invalid") {
        return yield* new InvalidParams({
          message: `The skill ${uri} cannot be served: ${inspection.problem.message}`,
          data: problemData(uri, inspection.problem)
        })
      }
      const entry = yield* Effect.mapError(
        catalog.entry(inspection.skill),
        (problem) =>
          new InvalidParams({
            message: `The skill ${uri} cannot be served: ${problem.message}`,
            data: problemData(uri, problem)
          })
      )
      return { skill: entry, ttlMs: catalog.settings.ttlMs, cacheScope: "private" }
    })
  })
