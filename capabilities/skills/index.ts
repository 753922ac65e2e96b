/**
 * The `skills` capability: Agent Skills folders (a directory per skill, with
 * a `SKILL.md` whose YAML frontmatter has its `name` and `description`)
 * served through the MCP Skills extension (`io.modelcontextprotocol/skills`,
 * protocol 2026-07-28): `skills/list`, `skills/get` and
 * `resources/directory/read` (advertised as `{ directoryRead: true }`), and
 * every file of a skill as a `skill://<name>/<path>` resource (the template
 * `skill://{skill}/{+path}`, listed in `resources/list`). It requires the
 * `SkillSources` service (`SkillSources.layer` builds it from the root
 * `Workspace` and the settings) and reads `SkillsSettings` when it is
 * built. See `docs/capabilities/skills.md`.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Capability from "../../src/Capability.ts"
import * as Extension from "../../src/Extension.ts"
import { makeCatalog } from "./catalog.ts"
import { makeDirectoryRead } from "./directoryRead.ts"
import { makeFileResource } from "./fileResource.ts"
import { makeSkillsGet } from "./skillsGet.ts"
import { makeSkillsList } from "./skillsList.ts"
import * as SkillSources from "./sources.ts"
import { SkillsSettings } from "./settings.ts"

/**
 * The identifier of the Skills extension.
 *
 * **Example**
 *
 * ```ts
 * import { extensionId } from "./capabilities/skills/index.ts"
 *
 * extensionId // => "io.modelcontextprotocol/skills"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const extensionId = "io.modelcontextprotocol/skills"

/**
 * The capability layer: `Layer<never, KernelError, Kernel | SkillSources>`.
 * Provide `SkillsSettings` to it (and to `SkillSources.layer`) to change the
 * locations, the directories or the limits.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { SkillsCapability, SkillSources } from "./capabilities/skills/index.ts"
 *
 * const Skills = SkillsCapability.pipe(
 *   Layer.provide(SkillSources.layer({ open: (root) => NodeWorkspace.make({ root }) })),
 *   Layer.provide(NodeWorkspace.layer({ root: "/srv/project" }))
 * )
 * ```
 *
 * @category layers
 * @since 0.2.0
 */
export const SkillsCapability = Capability.make(
  {
    id: "skills",
    description: "Agent Skills from the root and configured directories, through the MCP Skills extension",
    version: "0.2.0"
  },
  Effect.map(makeCatalog, (catalog) => ({
    resources: [makeFileResource(catalog)],
    extensions: [
      Extension.make(extensionId, {
        settings: { directoryRead: true },
        methods: [makeSkillsList(catalog), makeSkillsGet(catalog), makeDirectoryRead(catalog)]
      })
    ]
  }))
)

export {
  /**
   * The skill directories the capability reads: the service, its layer and
   * its model.
   *
   * @since 0.2.0
   */
  SkillSources,
  /**
   * The capability's settings reference.
   *
   * @since 0.2.0
   */
  SkillsSettings
}
export {
  /**
   * The default settings, the settings' type and the Schema of the configuration file's `skills` section (see
   * `settings.ts`).
   *
   * @since 0.5.0
   */
  defaultSkillsSettings,
  type SkillsSettingsShape,
  SkillsSettingsSchema
} from "./settings.ts"
