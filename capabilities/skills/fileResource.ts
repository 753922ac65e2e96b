/**
 * The resource template `skill://{skill}/{+path}`: every file of every
 * servable skill as a resource, read with `resources/read` and listed in
 * `resources/list`. A skill's `SKILL.md` is listed with the skill's name and
 * description and the MIME type `text/markdown`, and read as text; any
 * other file is read as text or as a blob by the rules of `workspace://`
 * files (`contentsOf` in `capabilities/workspace/fileResource.ts`).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Resource from "../../src/Resource.ts"
import { contentsOf, mimeTypeOf } from "../workspace/fileResource.ts"
import { type Catalog, fileUri, findSkill, type Skill, type SkillFile } from "./catalog.ts"

/**
 * The resources listed per page of `resources/list`.
 *
 * **Example**
 *
 * ```ts
 * import { resourcesPerPage } from "./capabilities/skills/fileResource.ts"
 *
 * resourcesPerPage // => 100
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const resourcesPerPage = 100

/**
 * The resource metadata of one file of a skill, as `resources/list` and
 * `resources/directory/read` give it: `SKILL.md` with the skill's name and
 * description and `text/markdown`; any other file named
 * `<skill>/<path>`, with a MIME type from its extension when known.
 *
 * **Example**
 *
 * ```ts
 * import { listedOf } from "./capabilities/skills/fileResource.ts"
 *
 * declare const skill: import("./capabilities/skills/catalog.ts").Skill
 * listedOf(skill, { path: "SKILL.md", size: 120 }).mimeType // => "text/markdown"
 * ```
 *
 * @category resources
 * @since 0.2.0
 */
export const listedOf = (skill: Skill, file: SkillFile): Resource.Listed => {
  if (file.path === "SKILL.md") {
    return {
      uri: skill.uri,
      name: skill.frontmatter.name,
      description: skill.frontmatter.description,
      mimeType: "text/markdown",
      size: file.size
    }
  }
  const mimeType = mimeTypeOf(file.path)
  return {
    uri: fileUri(skill.name, file.path),
    name: `${skill.name}/${file.path}`,
    ...(mimeType === undefined ? {} : { mimeType }),
    size: file.size
  }
}

// The lister's own cursor: the skill to go on with and the index of its next file.
const cursorOf = (name: string, index: number) => `${name}/${index}`
const parseCursor = (cursor: string) => {
  const at = cursor.lastIndexOf("/")
  const index = Number(cursor.slice(at + 1))
  return at <= 0 || !Number.isSafeInteger(index) || index < 0
    ? undefined
    : { name: cursor.slice(0, at), index: Math.trunc(index) }
}

/**
 * The template over a catalog (published as `skills_file`). A URI whose
 * skill is unknown or cannot be served, or that names no file of it (a
 * directory, a file left out), answers "resource not found" (−32602 under
 * 2026-07-28) with the reason.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeCatalog } from "./capabilities/skills/catalog.ts"
 * import { makeFileResource } from "./capabilities/skills/fileResource.ts"
 *
 * const template = Effect.map(makeCatalog, makeFileResource)
 * ```
 *
 * @category resources
 * @since 0.2.0
 */
export const makeFileResource = (catalog: Catalog): Resource.Handled<never> =>
  Resource.template("file", {
    uriTemplate: "skill://{skill}/{+path}",
    title: "Skill file",
    description:
      "A file of an Agent Skill: skill://<skill>/SKILL.md is the skill's instructions (YAML frontmatter with its " +
      "name and description, then Markdown); skill://<skill>/<path> is any other file of the skill's directory. " +
      "skills/list gives every skill with the digest and size of each of its files.",
    params: Schema.Struct({
      skill: Schema.String.annotate({ description: "The skill's name." }),
      path: Schema.String.annotate({ description: "The file's path within the skill's directory." })
    })
  }).pipe(
    Resource.handle(({ skill: name, path }, uri) =>
      Effect.gen(function* () {
        const inspection = yield* findSkill(catalog, name)
        if (inspection === undefined) {
          return yield* new Resource.NotFound({ message: `No skill is named ${name}; skills/list lists the skills.` })
        }
        if (inspection._tag === "Invalid") {
          return yield* new Resource.NotFound({
            message: `The skill ${name} cannot be served: ${inspection.problem.message}`
          })
        }
        const skill = inspection.skill
        const file = skill.files.find((each) => each.path === path)
        if (file === undefined) {
          return yield* new Resource.NotFound({
            message: skill.directories.has(path)
              ? `${uri} is a directory of the skill ${name}: list it with resources/directory/read.`
              : `The skill ${name} has no file ${path}; skills/get ${skill.uri} lists its files.`
          })
        }
        const bytes = yield* Effect.mapError(
          catalog.readFile(skill, path),
          (problem) => new Resource.NotFound({ message: problem.message })
        )
        return contentsOf(file.path, bytes, file.path === "SKILL.md" ? "text/markdown" : undefined)
      })
    ),
    Resource.list((cursor) =>
      Effect.gen(function* () {
        const from = cursor === undefined ? undefined : parseCursor(cursor)
        if (cursor !== undefined && from === undefined) {
          return yield* Effect.fail({ _tag: "InvalidCursor", message: `the cursor ${cursor} is not one of its own` })
        }
        const all = yield* catalog.candidates
        const rest = from === undefined ? all : all.filter((candidate) => candidate.name >= from.name)
        const resources: Array<Resource.Listed> = []
        for (const candidate of rest) {
          const inspection = yield* catalog.inspect(candidate)
          if (inspection._tag === "Invalid") continue
          const { skill } = inspection
          let index = from !== undefined && candidate.name === from.name ? from.index : 0
          for (; index < skill.files.length && resources.length < resourcesPerPage; index++) {
            resources.push(listedOf(skill, skill.files[index]!))
          }
          if (resources.length === resourcesPerPage) {
            const next = index < skill.files.length ? cursorOf(skill.name, index) : nextAfter(all, skill.name)
            return { resources, ...(next === undefined ? {} : { nextCursor: next }) }
          }
        }
        return { resources }
      })
    )
  )

const nextAfter = (all: ReadonlyArray<{ readonly name: string }>, name: string) => {
  const next = all.find((candidate) => candidate.name > name)
  return next === undefined ? undefined : cursorOf(next.name, 0)
}
