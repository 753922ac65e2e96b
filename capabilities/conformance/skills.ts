/**
 * The skill the Skills extension's scenarios (`sep-2640-*`) read: served by
 * the `skills` capability from an in-memory workspace, so that the fixtures
 * need no directory on disk.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Workspace } from "../../src/Workspace.ts"
import * as MemoryWorkspace from "../../src/testing/MemoryWorkspace.ts"
import { SkillsCapability, SkillSources } from "../skills/index.ts"

/**
 * The fixture skill's files: `pdf-processing` with a `SKILL.md` (YAML
 * frontmatter with its name and description), a reference in a
 * subdirectory (the directory scenario reads one) and a script.
 *
 * **Example**
 *
 * ```ts
 * import { skillFiles } from "effect-mcp-runtime/capabilities/conformance/skills"
 *
 * Object.keys(skillFiles)[0] // => "pdf-processing/SKILL.md"
 * ```
 *
 * @category fixtures
 * @since 0.2.0
 */
export const skillFiles: Readonly<Record<string, string>> = {
  "pdf-processing/SKILL.md": [
    "---",
    "name: pdf-processing",
    "description: Extract, fill, and assemble PDF documents",
    "license: Apache-2.0",
    "---",
    "",
    "# PDF processing",
    "",
    "Use `scripts/extract.py` to pull the text out of a PDF.",
    "For the fields of a form, read [the forms reference](references/FORMS.md).",
    ""
  ].join("\n"),
  "pdf-processing/references/FORMS.md": [
    "# Forms",
    "",
    "A fillable PDF has an AcroForm dictionary; each field has a name (`/T`) and a value (`/V`).",
    ""
  ].join("\n"),
  "pdf-processing/scripts/extract.py": [
    "import sys",
    "",
    "def main(path: str) -> None:",
    '    print(f"extracting {path}")',
    "",
    'if __name__ == "__main__":',
    "    main(sys.argv[1])",
    ""
  ].join("\n")
}

/**
 * The `skills` capability over the fixture skill (`skill://pdf-processing/SKILL.md`, …).
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Kernel from "effect-mcp-runtime/Kernel"
 * import { SkillsFixture } from "effect-mcp-runtime/capabilities/conformance/skills"
 *
 * const kernel = SkillsFixture.pipe(Layer.provideMerge(Kernel.layer()))
 * ```
 *
 * @category capabilities
 * @since 0.2.0
 */
export const SkillsFixture = SkillsCapability.pipe(
  Layer.provide(
    Layer.effect(
      SkillSources.SkillSources,
      Effect.map(Effect.service(Workspace), (workspace) => ({
        sources: [{ label: "conformance fixtures", workspace, base: "" }]
      }))
    )
  ),
  Layer.provide(MemoryWorkspace.make(skillFiles).layer)
)
