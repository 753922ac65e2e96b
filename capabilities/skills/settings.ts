/**
 * The settings of the `skills` capability: where skills are looked for (the
 * root's conventional locations and configured directories), the limits a
 * served skill must keep to, and the page size of the listings.
 * {@link SkillsSettings} is a `Context.Reference` whose default is
 * {@link defaultSkillsSettings}; {@link SkillsSettingsSchema} decodes the
 * `skills` section of the configuration file into the same shape, every key
 * optional (a missing key keeps its default).
 *
 * See `docs/capabilities/skills.md`.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The settings of the `skills` capability.
 *
 * **Example**
 *
 * ```ts
 * import { defaultSkillsSettings, type SkillsSettingsShape } from "./capabilities/skills/settings.ts"
 *
 * const withTeamSkills: SkillsSettingsShape = { ...defaultSkillsSettings, directories: ["/srv/team-skills"] }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillsSettingsShape {
  /**
   * The directories under the root that hold one subdirectory per skill, in
   * order of precedence (a skill name found in an earlier one shadows the
   * same name in a later one).
   */
  readonly locations: ReadonlyArray<string>
  /**
   * More directories holding one subdirectory per skill, after `locations`:
   * relative to the root, or absolute (outside the root they are read through
   * a workspace of their own).
   */
  readonly directories: ReadonlyArray<string>
  /** The most files a served skill may have, `SKILL.md` included (the extension's limit: 512). */
  readonly maxFilesPerSkill: number
  /** The most bytes a served skill's files may add up to (the extension's limit: 16 MiB). */
  readonly maxBytesPerSkill: number
  /** Directory names never entered inside a skill (dependencies and caches that are not part of it). */
  readonly skipDirectories: ReadonlyArray<string>
  /** Skills per page of `skills/list`, and children per page of `resources/directory/read`. */
  readonly pageSize: number
  /** The `ttlMs` caching hint of `skills/list` and `skills/get` results (0: ask again every time). */
  readonly ttlMs: number
}

/**
 * The root's conventional skill locations, in order of precedence:
 * `.agents/skills` (the cross-client location of the Agent Skills
 * conventions), `.claude/skills` (Claude Code's, the most common in
 * repositories today) and `skills` (the layout of skill collections and
 * plugins: `skills/<name>/SKILL.md`).
 *
 * **Example**
 *
 * ```ts
 * import { conventionalLocations } from "./capabilities/skills/settings.ts"
 *
 * conventionalLocations[0] // => ".agents/skills"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const conventionalLocations: ReadonlyArray<string> = [".agents/skills", ".claude/skills", "skills"]

/**
 * The limits of the Skills extension: at most 512 resource entries per skill
 * (`SKILL.md` included), and at most 16 MiB (16,777,216 bytes) summed over
 * them.
 *
 * **Example**
 *
 * ```ts
 * import { extensionLimits } from "./capabilities/skills/settings.ts"
 *
 * extensionLimits.maxBytesPerSkill // => 16777216
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const extensionLimits = { maxFilesPerSkill: 512, maxBytesPerSkill: 16 * 1024 * 1024 } as const

/**
 * The default settings: the {@link conventionalLocations}, no further
 * directories, the {@link extensionLimits}, `node_modules` and
 * `__pycache__` skipped, 50 entries a page, `ttlMs` 0.
 *
 * **Example**
 *
 * ```ts
 * import { defaultSkillsSettings } from "./capabilities/skills/settings.ts"
 *
 * defaultSkillsSettings.maxFilesPerSkill // => 512
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const defaultSkillsSettings: SkillsSettingsShape = {
  locations: conventionalLocations,
  directories: [],
  maxFilesPerSkill: extensionLimits.maxFilesPerSkill,
  maxBytesPerSkill: extensionLimits.maxBytesPerSkill,
  skipDirectories: ["node_modules", "__pycache__"],
  pageSize: 50,
  ttlMs: 0
}

/**
 * The settings of the `skills` capability, a reference with
 * {@link defaultSkillsSettings} as its default. The capability and
 * `SkillSources.layer` read it once, when they are built.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { defaultSkillsSettings, SkillsSettings } from "./capabilities/skills/settings.ts"
 *
 * const ClaudeOnly = Layer.succeed(SkillsSettings, { ...defaultSkillsSettings, locations: [".claude/skills"] })
 * ```
 *
 * @category services
 * @since 0.2.0
 */
export const SkillsSettings = Context.Reference<SkillsSettingsShape>(
  "effect-mcp-runtime/capabilities/skills/SkillsSettings",
  { defaultValue: () => defaultSkillsSettings }
)

const Directory = Schema.String.check(Schema.isMinLength(1), Schema.isPattern(/^[^\0]*$/))
const Int = (minimum: number, maximum: number) =>
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(minimum), Schema.isLessThanOrEqualTo(maximum))
const withDefault = <S extends Schema.Top>(schema: S, value: S["Encoded"]) =>
  schema.pipe(Schema.withDecodingDefaultKey(Effect.succeed(value)))

/**
 * The Schema of the `skills` section of the configuration file. Every key is
 * optional and decodes to its default, so `{}` decodes to
 * {@link defaultSkillsSettings}. The limits may be lowered, not raised above
 * the extension's.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { SkillsSettingsSchema } from "./capabilities/skills/settings.ts"
 *
 * const settings = Schema.decodeUnknownSync(SkillsSettingsSchema)({ directories: ["../shared-skills"] })
 * settings.locations // => [".agents/skills", ".claude/skills", "skills"] (the default)
 * ```
 *
 * @category schemas
 * @since 0.2.0
 */
export const SkillsSettingsSchema = Schema.Struct({
  locations: withDefault(
    Schema.Array(Directory).annotate({
      description:
        "Directories under the root holding one subdirectory per skill, by precedence; replaces the default " +
        "(.agents/skills, .claude/skills, skills)"
    }),
    defaultSkillsSettings.locations
  ),
  directories: withDefault(
    Schema.Array(Directory).annotate({
      description: "More skill directories after locations: relative to the root, or absolute"
    }),
    defaultSkillsSettings.directories
  ),
  maxFilesPerSkill: withDefault(
    Int(1, extensionLimits.maxFilesPerSkill).annotate({
      description: "Most files a served skill may have, SKILL.md included (default and ceiling 512)"
    }),
    defaultSkillsSettings.maxFilesPerSkill
  ),
  maxBytesPerSkill: withDefault(
    Int(1, extensionLimits.maxBytesPerSkill).annotate({
      description: "Most bytes a served skill's files may add up to (default and ceiling 16777216)"
    }),
    defaultSkillsSettings.maxBytesPerSkill
  ),
  skipDirectories: withDefault(
    Schema.Array(Directory).annotate({
      description: "Directory names never entered inside a skill (default node_modules, __pycache__)"
    }),
    defaultSkillsSettings.skipDirectories
  ),
  pageSize: withDefault(
    Int(1, 1000).annotate({ description: "Skills per skills/list page, children per directory page (default 50)" }),
    defaultSkillsSettings.pageSize
  ),
  ttlMs: withDefault(
    Int(0, Number.MAX_SAFE_INTEGER).annotate({
      description: "The ttlMs caching hint of skills/list and skills/get (default 0)"
    }),
    defaultSkillsSettings.ttlMs
  )
})
