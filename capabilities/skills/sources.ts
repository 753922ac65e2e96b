/**
 * Where skills come from: a list of directories, each holding one
 * subdirectory per skill and read through a `Workspace` (so its root, its
 * deny list, its symlink checks and `.gitignore` apply). The capability
 * only asks for {@link SkillSources}; whoever composes it decides how the
 * directories are read. {@link layer} builds the usual list: the root
 * workspace's conventional locations and the configured directories under
 * the root, then each configured directory outside the root through a
 * workspace of its own, opened by the composer's `open` (on Node,
 * `NodeWorkspace.make`) — so no file system implementation is chosen here.
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Workspace, type WorkspaceError } from "../../src/Workspace.ts"
import { SkillsSettings } from "./settings.ts"

/**
 * One directory of skills: every subdirectory of `base` is a skill.
 *
 * **Example**
 *
 * ```ts
 * import type { Workspace } from "effect-mcp-runtime/Workspace"
 * import type { SkillSource } from "./capabilities/skills/sources.ts"
 *
 * declare const root: Workspace["Service"]
 * const claude: SkillSource = { label: ".claude/skills", workspace: root, base: ".claude/skills" }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillSource {
  /** How logs and errors name the directory: as configured (`.claude/skills`, `/srv/team-skills`). */
  readonly label: string
  /** The workspace the directory is read through. */
  readonly workspace: Workspace["Service"]
  /** The directory, relative to the workspace's root (`""`: the root itself). */
  readonly base: string
}

/**
 * The skill directories, in order of precedence: a skill name found in an
 * earlier source shadows the same name in a later one.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { Workspace } from "effect-mcp-runtime/Workspace"
 * import { SkillSources } from "./capabilities/skills/sources.ts"
 *
 * // only the root's own skills/ directory
 * const Sources = Layer.effect(
 *   SkillSources,
 *   Effect.map(Effect.service(Workspace), (workspace) => ({ sources: [{ label: "skills", workspace, base: "skills" }] }))
 * )
 * ```
 *
 * @category services
 * @since 0.2.0
 */
export class SkillSources extends Context.Service<SkillSources, { readonly sources: ReadonlyArray<SkillSource> }>()(
  "effect-mcp-runtime/capabilities/skills/SkillSources"
) {}

/**
 * Opens a workspace rooted at an absolute directory outside the root (on
 * Node: `(root) => NodeWorkspace.make({ root })`).
 *
 * **Example**
 *
 * ```ts
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import type { OpenDirectory } from "./capabilities/skills/sources.ts"
 *
 * const open: OpenDirectory = (root) => NodeWorkspace.make({ root })
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type OpenDirectory = (root: string) => Effect.Effect<Workspace["Service"], WorkspaceError>

// A POSIX path's segments with `.` and `..` applied; `..` above the top is dropped (as `/..` is `/`).
const segmentsOf = (path: string, from: ReadonlyArray<string> = []): Array<string> => {
  const segments = [...from]
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") segments.pop()
    else segments.push(segment)
  }
  return segments
}

/**
 * Where a configured directory is: under the root (`{ relative }`, the path
 * from the root, `""` for the root itself) or outside it (`{ absolute }`). A
 * relative directory is taken from the root; `..` may lead out of it.
 *
 * **Example**
 *
 * ```ts
 * import { placeOf } from "./capabilities/skills/sources.ts"
 *
 * placeOf("docs/skills", "/srv/project") // => { relative: "docs/skills" }
 * placeOf("../shared", "/srv/project") // => { absolute: "/srv/shared" }
 * placeOf("/srv/project/tools", "/srv/project") // => { relative: "tools" }
 * ```
 *
 * @category utils
 * @since 0.2.0
 */
export const placeOf = (
  directory: string,
  root: string
): { readonly relative: string } | { readonly absolute: string } => {
  const rootSegments = segmentsOf(root)
  const segments = directory.startsWith("/") ? segmentsOf(directory) : segmentsOf(directory, rootSegments)
  const inside =
    segments.length >= rootSegments.length && rootSegments.every((segment, index) => segments[index] === segment)
  return inside ? { relative: segments.slice(rootSegments.length).join("/") } : { absolute: "/" + segments.join("/") }
}

/**
 * Builds the sources from the root `Workspace` and `SkillsSettings`: each of
 * `locations`, then each of `directories` — under the root through the root
 * workspace, outside it through `open`. A directory outside the root that
 * cannot be opened (missing, not a directory), or with no `open` given, is
 * left out with a warning; the capability serves the others.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { makeSources } from "./capabilities/skills/sources.ts"
 *
 * const sources = makeSources({ open: (root) => NodeWorkspace.make({ root }) }).pipe(
 *   Effect.provide(NodeWorkspace.layer({ root: "/srv/project" }))
 * )
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeSources = Effect.fnUntraced(function* (options: { readonly open?: OpenDirectory | undefined } = {}) {
  const workspace = yield* Workspace
  const settings = yield* SkillsSettings
  const sources: Array<SkillSource> = []
  for (const location of settings.locations) {
    const place = placeOf(location, workspace.root)
    if ("relative" in place) sources.push({ label: location, workspace, base: place.relative })
    else yield* Effect.logWarning(`skills: the location ${location} is not under the root; it is left out`)
  }
  for (const directory of settings.directories) {
    const place = placeOf(directory, workspace.root)
    if ("relative" in place) {
      sources.push({ label: directory, workspace, base: place.relative })
      continue
    }
    if (options.open === undefined) {
      yield* Effect.logWarning(
        `skills: the directory ${directory} is outside the root and nothing opens directories there; it is left out`
      )
      continue
    }
    const opened = yield* Effect.result(options.open(place.absolute))
    if (opened._tag === "Failure") {
      yield* Effect.logWarning(`skills: the directory ${directory} cannot be read; it is left out`, {
        reason: opened.failure.message
      })
      continue
    }
    sources.push({ label: directory, workspace: opened.success, base: "" })
  }
  return { sources } as const
})

/**
 * {@link makeSources} as the layer of {@link SkillSources}.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import * as SkillSources from "./capabilities/skills/sources.ts"
 *
 * const Sources = SkillSources.layer({ open: (root) => NodeWorkspace.make({ root }) }).pipe(
 *   Layer.provide(NodeWorkspace.layer({ root: "/srv/project" }))
 * )
 * ```
 *
 * @category layers
 * @since 0.2.0
 */
export const layer = (
  options: { readonly open?: OpenDirectory | undefined } = {}
): Layer.Layer<SkillSources, never, Workspace> => Layer.effect(SkillSources, makeSources(options))
