/**
 * The skills on disk, looked at afresh on every request (so an edited skill
 * is served as it now is): which skill directories there are
 * ({@link Catalog.candidates}), which one a name is ({@link Catalog.find}),
 * whether one can be served and with which files ({@link Catalog.inspect}),
 * its `skills/list` entry with the digest and size of every file
 * ({@link Catalog.entry}), and a file's bytes ({@link Catalog.readFile}).
 * Everything is read through the sources' workspaces. A skill that cannot be
 * served is logged once at warning with the reason (again only when the
 * reason changes), and its {@link SkillProblem} is what `skills/get` and
 * `resources/read` answer.
 *
 * Digests are computed from the bytes and remembered per file with the
 * size and modification time its `stat` gave, so an unchanged file is not
 * read again for the next listing.
 *
 * @since 0.2.0
 */
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { ListEntry, Workspace, WorkspaceError } from "../../src/Workspace.ts"
import { type Frontmatter, parseFrontmatter, type SkillProblem } from "./frontmatter.ts"
import { type SkillSource, SkillSources } from "./sources.ts"
import { SkillsSettings, type SkillsSettingsShape } from "./settings.ts"

/**
 * A skill directory found in a source: a subdirectory of its base (or a
 * symlink there, which the workspace follows only inside its root).
 *
 * **Example**
 *
 * ```ts
 * import type { Candidate } from "./capabilities/skills/catalog.ts"
 *
 * const label = (candidate: Candidate) => `${candidate.source.label}/${candidate.name}`
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Candidate {
  /** The directory's name: the skill's name in its URI. */
  readonly name: string
  readonly source: SkillSource
  /** The directory, relative to the source workspace's root. */
  readonly path: string
  /** Why the directory itself is refused (a symlink that leaves the root), when it is. */
  readonly refused?: SkillProblem | undefined
}

/**
 * One served file of a skill.
 *
 * **Example**
 *
 * ```ts
 * import type { SkillFile } from "./capabilities/skills/catalog.ts"
 *
 * const file: SkillFile = { path: "references/FORMS.md", size: 1804 }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillFile {
  /** Relative to the skill's directory, `/`-separated. */
  readonly path: string
  /** In bytes, as listed. */
  readonly size: number
}

/**
 * A skill that can be served: its frontmatter and its files.
 *
 * **Example**
 *
 * ```ts
 * import type { Skill } from "./capabilities/skills/catalog.ts"
 *
 * const describe = (skill: Skill) => `${skill.uri}: ${skill.frontmatter.description} (${skill.files.length} files)`
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Skill {
  readonly name: string
  /** `skill://<name>/SKILL.md`. */
  readonly uri: string
  readonly candidate: Candidate
  readonly frontmatter: Frontmatter
  /** `SKILL.md` first, then the others by path. */
  readonly files: ReadonlyArray<SkillFile>
  /** The skill's directories that hold served files, relative to the skill (`""`: its root). */
  readonly directories: ReadonlySet<string>
  /** The bytes of its `SKILL.md` as inspected (the frontmatter is theirs); {@link Catalog.readFile} gives them. */
  readonly skillMd: Uint8Array
}

/**
 * What {@link Catalog.inspect} found: a servable skill, or why the
 * directory is not one.
 *
 * **Example**
 *
 * ```ts
 * import type { Inspection } from "./capabilities/skills/catalog.ts"
 *
 * const reason = (inspection: Inspection) => (inspection._tag === "Valid" ? "ok" : inspection.problem.message)
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type Inspection =
  | { readonly _tag: "Valid"; readonly skill: Skill }
  | { readonly _tag: "Invalid"; readonly candidate: Candidate; readonly problem: SkillProblem }

/**
 * One file of a skill entry: its URI, the SHA-256 of its bytes and their
 * number.
 *
 * **Example**
 *
 * ```ts
 * import type { SkillResource } from "./capabilities/skills/catalog.ts"
 *
 * const resource: SkillResource = {
 *   uri: "skill://notes/SKILL.md",
 *   digest: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
 *   size: 4
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillResource {
  readonly uri: string
  /** `sha256:` and 64 lowercase hex digits. */
  readonly digest: string
  readonly size: number
}

/**
 * A skill as `skills/list` and `skills/get` give it.
 *
 * **Example**
 *
 * ```ts
 * import type { SkillEntry } from "./capabilities/skills/catalog.ts"
 *
 * const fileCount = (entry: SkillEntry) => entry.resources.length
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface SkillEntry {
  readonly uri: string
  readonly frontmatter: Frontmatter
  /** Every file of the skill once, `SKILL.md` first. */
  readonly resources: ReadonlyArray<SkillResource>
}

/**
 * The skills on disk (see the module's description).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Catalog } from "./capabilities/skills/catalog.ts"
 *
 * const names = (catalog: Catalog) => Effect.map(catalog.candidates, (all) => all.map((c) => c.name))
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface Catalog {
  readonly settings: SkillsSettingsShape
  /** The skill directories of every source, by name; a name taken by an earlier source shadows later ones. */
  readonly candidates: Effect.Effect<ReadonlyArray<Candidate>>
  /**
   * The candidate named `name`, the one {@link Catalog.candidates} has, found by looking for `<base>/<name>` in
   * each source in order rather than by listing them all; undefined when no source has it.
   */
  readonly find: (name: string) => Effect.Effect<Candidate | undefined>
  /** How the sources are named, for messages (`.agents/skills, .claude/skills, skills`). */
  readonly sourceLabels: string
  /**
   * Lists a skill directory's files and checks them and its `SKILL.md`; an invalid one is logged. The symlinks
   * and special files next to its files, which are never served, are looked for and logged when
   * `reportLeftOut` is true (`skills/list` asks for it) or when the skill's files are not those of the last
   * look.
   */
  readonly inspect: (
    candidate: Candidate,
    options?: { readonly reportLeftOut?: boolean | undefined }
  ) => Effect.Effect<Inspection>
  /** The skill's entry: every file read (or remembered) and digested; a file that fails makes the skill invalid. */
  readonly entry: (skill: Skill) => Effect.Effect<SkillEntry, SkillProblem>
  /** The bytes of one of the skill's files (`path` relative to the skill); `SKILL.md`'s are the inspected ones. */
  readonly readFile: (skill: Skill, path: string) => Effect.Effect<Uint8Array, SkillProblem>
}

/**
 * The URI of a skill's `SKILL.md`.
 *
 * **Example**
 *
 * ```ts
 * import { skillUri } from "./capabilities/skills/catalog.ts"
 *
 * skillUri("pdf-processing") // => "skill://pdf-processing/SKILL.md"
 * ```
 *
 * @category uris
 * @since 0.2.0
 */
export const skillUri = (name: string): string => `skill://${name}/SKILL.md`

/**
 * The URI of a file or directory of a skill (`path` relative to the skill,
 * each segment percent-encoded; `""` is the skill's root directory).
 *
 * **Example**
 *
 * ```ts
 * import { fileUri } from "./capabilities/skills/catalog.ts"
 *
 * fileUri("pdf-processing", "references/FORMS.md") // => "skill://pdf-processing/references/FORMS.md"
 * fileUri("pdf-processing", "") // => "skill://pdf-processing"
 * ```
 *
 * @category uris
 * @since 0.2.0
 */
export const fileUri = (name: string, path: string): string =>
  path === "" ? `skill://${name}` : `skill://${name}/${path.split("/").map(encodeURIComponent).join("/")}`

/**
 * The skill name and the path within the skill that a `skill://` URI
 * names (percent-decoded; a trailing `/` ignored), or undefined for any
 * other URI.
 *
 * **Example**
 *
 * ```ts
 * import { parseUri } from "./capabilities/skills/catalog.ts"
 *
 * parseUri("skill://pdf-processing/references/FORMS.md") // => { name: "pdf-processing", path: "references/FORMS.md" }
 * parseUri("skill://pdf-processing") // => { name: "pdf-processing", path: "" }
 * parseUri("file:///tmp/SKILL.md") // => undefined
 * ```
 *
 * @category uris
 * @since 0.2.0
 */
export const parseUri = (uri: string): { readonly name: string; readonly path: string } | undefined => {
  if (!uri.startsWith("skill://")) return undefined
  const rest = uri.slice("skill://".length).replace(/\/$/, "")
  const segments = Result.try(() => rest.split("/").map(decodeURIComponent))
  if (Result.isFailure(segments)) return undefined
  const [name, ...path] = segments.success
  if (
    name === undefined ||
    name === "" ||
    path.some((segment) => segment === "" || segment === "." || segment === "..")
  )
    return undefined
  return { name, path: path.join("/") }
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

// Every entry of a directory, page by page.
const listAll = Effect.fnUntraced(function* (workspace: Workspace["Service"], path: string) {
  const entries: Array<ListEntry> = []
  let cursor: string | undefined
  do {
    const page = yield* workspace.list(path, { limit: 1000, ...(cursor === undefined ? {} : { cursor }) })
    entries.push(...page.entries)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return entries
})

class TooLarge {
  readonly _tag = "TooLarge"
  readonly bytes: number
  constructor(bytes: number) {
    this.bytes = bytes
  }
}

// A whole file, read in the workspace's slices; more than `limit` bytes fails with TooLarge.
const readAll = Effect.fnUntraced(function* (
  workspace: Workspace["Service"],
  path: string,
  limit: number
): Effect.fn.Return<Uint8Array, WorkspaceError | TooLarge> {
  const chunks: Array<Uint8Array> = []
  let total = 0
  let offset = 0
  while (true) {
    const read = yield* workspace.readBytes(path, { offset })
    chunks.push(read.bytes)
    total += read.bytes.length
    if (total > limit) return yield* Effect.fail(new TooLarge(Math.max(total, read.size)))
    if (!read.truncated || read.bytes.length === 0) break
    offset = read.nextOffset ?? offset + read.bytes.length
  }
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return bytes
})

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Builds the catalog over the {@link SkillSources}, with the limits of
 * `SkillsSettings`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { makeCatalog } from "./capabilities/skills/catalog.ts"
 *
 * const count = Effect.flatMap(makeCatalog, (catalog) => Effect.map(catalog.candidates, (all) => all.length))
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeCatalog: Effect.Effect<Catalog, never, SkillSources> = Effect.gen(function* () {
  const { sources } = yield* SkillSources
  const settings = yield* SkillsSettings
  // Loaded here, when the capability is built: a server without skills never loads the YAML parser.
  const parseYaml = yield* Effect.promise(() => import("yaml").then((yaml) => yaml.parseDocument))
  const digests = yield* Effect.provide(Effect.service(Digest.Digest), Digest.layerWebCrypto)
  const sourceLabels = sources.map((source) => source.label).join(", ")

  // What was last reported, by subject: a warning is logged when it is new or changed.
  const reported = new Map<string, string>()
  const warn = (subject: string, message: string, annotations: Record<string, unknown>) =>
    Effect.suspend(() => {
      if (reported.get(subject) === message) return Effect.void
      reported.set(subject, message)
      return Effect.logWarning(message, annotations)
    })

  // Digests by file: valid while stat gives the same size and modification time.
  const remembered = new Map<string, { readonly size: number; readonly modifiedMs: number; readonly digest: string }>()

  const labelOf = (candidate: Candidate) => `${candidate.source.label}/${candidate.name}`
  const workspacePath = (candidate: Candidate, path: string) => `${candidate.path}/${path}`

  // Two candidates are the same directory when the workspace resolves them to the same real path.
  const sameDirectory = (a: Candidate, b: Candidate) =>
    a.refused !== undefined || b.refused !== undefined
      ? Effect.succeed(false)
      : Effect.zip(a.source.workspace.resolve(a.path), b.source.workspace.resolve(b.path)).pipe(
          Effect.map(([x, y]) => x.absolute === y.absolute),
          Effect.orElseSucceed(() => false)
        )

  const candidateOf = Effect.fnUntraced(function* (source: SkillSource, entry: ListEntry) {
    if (entry.name.startsWith(".")) return undefined
    if (entry.type === "directory") return { name: entry.name, source, path: entry.path } satisfies Candidate
    if (entry.type !== "symlink") return undefined
    const target = yield* Effect.result(source.workspace.stat(entry.path))
    if (target._tag === "Success") {
      return target.success.type === "directory"
        ? ({ name: entry.name, source, path: entry.path } satisfies Candidate)
        : undefined
    }
    return {
      name: entry.name,
      source,
      path: entry.path,
      refused: {
        code: "refused",
        message: `The skill directory ${source.label}/${entry.name} is refused by the workspace: ${target.failure.message}`
      }
    } satisfies Candidate
  })

  // A source's entries, or undefined when it cannot be listed (reported, unless it does not exist).
  const listSource = Effect.fnUntraced(function* (source: SkillSource) {
    const listed = yield* Effect.result(listAll(source.workspace, source.base))
    if (listed._tag === "Failure") {
      const error = listed.failure
      // A location that does not exist is the usual case: most roots have one or two of them.
      if (error._tag !== "NotFound") {
        yield* warn(`source:${source.label}`, `skills: the skill directory ${source.label} cannot be listed`, {
          source: source.label,
          reason: error.message
        })
      }
      return undefined
    }
    reported.delete(`source:${source.label}`)
    return listed.success
  })

  const candidates: Effect.Effect<ReadonlyArray<Candidate>> = Effect.gen(function* () {
    const byName = new Map<string, Candidate>()
    for (const source of sources) {
      const listed = yield* listSource(source)
      if (listed === undefined) continue
      for (const entry of [...listed].sort((a, b) => byCodeUnits(a.name, b.name))) {
        const candidate = yield* candidateOf(source, entry)
        if (candidate === undefined) continue
        const taken = byName.get(candidate.name)
        if (taken === undefined) {
          byName.set(candidate.name, candidate)
          continue
        }
        if (yield* sameDirectory(taken, candidate)) continue
        yield* warn(
          `shadowed:${labelOf(candidate)}`,
          `skills: ${labelOf(candidate)} is not served: ${labelOf(taken)} has the same name and comes first`,
          { skill: candidate.name, source: source.label, shadowedBy: taken.source.label }
        )
      }
    }
    return [...byName.values()].sort((a, b) => byCodeUnits(a.name, b.name))
  })

  // `candidates` has a name from the first source where `candidateOf` accepts its entry. A stat of `<base>/<name>`
  // that resolves to that very path settles it: a directory is the candidate, a file is none, nothing there is none.
  // Anything else (a symlink, a path the workspace refuses or resolves under another name, as a case-insensitive
  // file system does) is settled from the source's listing, as `candidates` settles it.
  const find = (name: string): Effect.Effect<Candidate | undefined> =>
    Effect.gen(function* () {
      if (name === "" || name.startsWith(".") || name.includes("/")) return undefined
      for (const source of sources) {
        const path = source.base === "" ? name : `${source.base}/${name}`
        const probed = yield* Effect.result(source.workspace.stat(path))
        if (probed._tag === "Success" && probed.success.path === path) {
          if (probed.success.type === "directory") return { name, source, path } satisfies Candidate
          continue
        }
        if (probed._tag === "Failure" && probed.failure._tag === "NotFound") continue
        const listed = yield* listSource(source)
        const entry = listed?.find((each) => each.name === name)
        const candidate = entry === undefined ? undefined : yield* candidateOf(source, entry)
        if (candidate !== undefined) return candidate
      }
      return undefined
    })

  const invalid = (candidate: Candidate, problem: SkillProblem): Effect.Effect<Inspection> =>
    Effect.as(
      warn(`skill:${labelOf(candidate)}`, `skills: ${labelOf(candidate)} is not served: ${problem.message}`, {
        skill: candidate.name,
        source: candidate.source.label,
        code: problem.code,
        ...(problem.path === undefined ? {} : { path: problem.path }),
        ...(problem.line === undefined ? {} : { line: problem.line, column: problem.column })
      }),
      { _tag: "Invalid", candidate, problem } as const
    )

  // The symlinks and special files in the skill's directories, which are never served: each is reported once.
  const reportLeftOut = Effect.fnUntraced(function* (candidate: Candidate, directories: ReadonlySet<string>) {
    const { workspace } = candidate.source
    for (const directory of directories) {
      const listed = yield* Effect.result(
        listAll(workspace, directory === "" ? candidate.path : workspacePath(candidate, directory))
      )
      if (listed._tag === "Failure") continue
      for (const entry of listed.success) {
        if (entry.type !== "symlink" && entry.type !== "other") continue
        const path = directory === "" ? entry.name : `${directory}/${entry.name}`
        const target = yield* Effect.result(workspace.stat(entry.path))
        const reason =
          entry.type === "other"
            ? "it is not a regular file or a directory"
            : target._tag === "Failure"
              ? `the workspace refuses it: ${target.failure.message}`
              : "it is a symlink (skills serve the regular files in their directory; copy the file in)"
        yield* warn(
          `left-out:${labelOf(candidate)}/${path}`,
          `skills: ${labelOf(candidate)}/${path} is left out: ${reason}`,
          {
            skill: candidate.name,
            source: candidate.source.label,
            path
          }
        )
      }
    }
  })

  // The files of each skill when its left-out entries were last looked for, by label.
  const leftOutLookedFor = new Map<string, string>()

  const inspect = (
    candidate: Candidate,
    options: { readonly reportLeftOut?: boolean | undefined } = {}
  ): Effect.Effect<Inspection> =>
    Effect.gen(function* () {
      if (candidate.refused !== undefined) return yield* invalid(candidate, candidate.refused)
      const { workspace } = candidate.source
      const label = labelOf(candidate)
      const listed = yield* Effect.result(
        workspace.listFiles(candidate.path, {
          limit: settings.maxFilesPerSkill + 1,
          skipDirectories: settings.skipDirectories
        })
      )
      if (listed._tag === "Failure") {
        return yield* invalid(candidate, {
          code: listed.failure._tag === "PathRejected" ? "refused" : "unreadable",
          message: `The skill directory ${label} cannot be listed: ${listed.failure.message}`
        })
      }
      const prefix = listed.success.path === "" ? "" : `${listed.success.path}/`
      const files = listed.success.files
        .map((file): SkillFile => ({ path: file.path.slice(prefix.length), size: file.size }))
        .sort((a, b) => (a.path === "SKILL.md" ? -1 : b.path === "SKILL.md" ? 1 : byCodeUnits(a.path, b.path)))
      const directories = new Set<string>([""])
      for (const file of files) {
        const segments = file.path.split("/")
        for (let depth = 1; depth < segments.length; depth++) directories.add(segments.slice(0, depth).join("/"))
      }
      const fileSet = files.map((file) => file.path).join("\0")
      if (options.reportLeftOut === true || leftOutLookedFor.get(label) !== fileSet) {
        if (leftOutLookedFor.size >= 10_000) leftOutLookedFor.clear()
        leftOutLookedFor.set(label, fileSet)
        yield* reportLeftOut(candidate, directories)
      }
      // Before SKILL.md is looked for: the listing stops after maxFilesPerSkill + 1 files in walk order, which may
      // come before SKILL.md (a Data/ directory does).
      if (files.length > settings.maxFilesPerSkill || listed.success.nextCursor !== undefined) {
        return yield* invalid(candidate, {
          code: "too_many_files",
          message:
            `${label} has more than ${settings.maxFilesPerSkill} files, the most a skill may have (SKILL.md ` +
            `included): move what it does not need out of its directory, or list it in a .gitignore.`
        })
      }
      if (files[0]?.path !== "SKILL.md") {
        const present = yield* Effect.result(workspace.stat(workspacePath(candidate, "SKILL.md")))
        return yield* invalid(candidate, {
          code: "no_skill_md",
          path: "SKILL.md",
          message:
            present._tag === "Success"
              ? `The SKILL.md of ${label} is not served: a .gitignore rule or the deny list leaves it out, or it is ` +
                `a symlink; make it a regular, tracked file.`
              : present.failure._tag === "PathRejected"
                ? `The SKILL.md of ${label} is refused by the workspace: ${present.failure.message}`
                : `${label} has no SKILL.md: a skill is a directory with a SKILL.md at its root (YAML frontmatter ` +
                  `with name and description, then the instructions).`
        })
      }
      const total = files.reduce((sum, file) => sum + file.size, 0)
      if (total > settings.maxBytesPerSkill) {
        return yield* invalid(candidate, {
          code: "too_large",
          message:
            `${label} is ${total} bytes (${mib(total)}), over the limit of ${settings.maxBytesPerSkill} bytes ` +
            `(${mib(settings.maxBytesPerSkill)}) per skill: move large files out of its directory.`
        })
      }
      const read = yield* Effect.result(
        readAll(workspace, workspacePath(candidate, "SKILL.md"), settings.maxBytesPerSkill)
      )
      if (read._tag === "Failure") {
        return yield* invalid(candidate, {
          code: "unreadable",
          path: "SKILL.md",
          message:
            read.failure._tag === "TooLarge"
              ? `The SKILL.md of ${label} grew over the limit of ${settings.maxBytesPerSkill} bytes while it was read.`
              : `The SKILL.md of ${label} cannot be read: ${read.failure.message}`
        })
      }
      const text = Result.try(() => utf8.decode(read.success))
      if (Result.isFailure(text)) {
        return yield* invalid(candidate, {
          code: "unreadable",
          path: "SKILL.md",
          message: `The SKILL.md of ${label} is not UTF-8 text: save it as UTF-8.`
        })
      }
      const frontmatter = parseFrontmatter(text.success, candidate.name, parseYaml)
      if (Result.isFailure(frontmatter)) return yield* invalid(candidate, frontmatter.failure)
      reported.delete(`skill:${label}`)
      const skill: Skill = {
        name: candidate.name,
        uri: skillUri(candidate.name),
        candidate,
        frontmatter: frontmatter.success,
        files,
        directories,
        skillMd: read.success
      }
      return { _tag: "Valid", skill } as const
    })

  const digestOf = Effect.fnUntraced(function* (skill: Skill, file: SkillFile) {
    const { workspace } = skill.candidate.source
    const path = workspacePath(skill.candidate, file.path)
    const key = `${workspace.root}\0${path}`
    const stat = yield* workspace.stat(path)
    const known = remembered.get(key)
    if (known !== undefined && known.size === stat.size && known.modifiedMs === stat.modifiedMs) return known
    const bytes = yield* readAll(workspace, path, settings.maxBytesPerSkill)
    const digest = `sha256:${yield* digests.digestHex(Digest.sha256, bytes)}`
    const fresh = { size: bytes.length, modifiedMs: stat.modifiedMs, digest }
    if (remembered.size >= 100_000) remembered.clear()
    remembered.set(key, fresh)
    return fresh
  })

  const entry = (skill: Skill): Effect.Effect<SkillEntry, SkillProblem> =>
    Effect.gen(function* () {
      const label = labelOf(skill.candidate)
      const resources = yield* Effect.forEach(
        skill.files,
        (file) =>
          digestOf(skill, file).pipe(
            Effect.map(({ digest, size }): SkillResource => ({ uri: fileUri(skill.name, file.path), digest, size })),
            Effect.mapError((error): SkillProblem => ({
              code: "unreadable",
              path: file.path,
              message:
                error._tag === "TooLarge"
                  ? `${label}/${file.path} grew over the limit of ${settings.maxBytesPerSkill} bytes per skill.`
                  : `${label}/${file.path} cannot be read: ${error.message}`
            }))
          ),
        { concurrency: 8 }
      )
      const total = resources.reduce((sum, resource) => sum + resource.size, 0)
      if (total > settings.maxBytesPerSkill) {
        return yield* Effect.fail<SkillProblem>({
          code: "too_large",
          message:
            `${label} is ${total} bytes (${mib(total)}), over the limit of ${settings.maxBytesPerSkill} bytes ` +
            `(${mib(settings.maxBytesPerSkill)}) per skill: move large files out of its directory.`
        })
      }
      return { uri: skill.uri, frontmatter: skill.frontmatter, resources }
    }).pipe(Effect.tapError((problem) => invalid(skill.candidate, problem)))

  const readFile = (skill: Skill, path: string): Effect.Effect<Uint8Array, SkillProblem> =>
    path === "SKILL.md"
      ? Effect.succeed(skill.skillMd)
      : readAll(skill.candidate.source.workspace, workspacePath(skill.candidate, path), settings.maxBytesPerSkill).pipe(
          Effect.mapError((error): SkillProblem => ({
            code: "unreadable",
            path,
            message:
              error._tag === "TooLarge"
                ? `${labelOf(skill.candidate)}/${path} is over the limit of ${settings.maxBytesPerSkill} bytes per skill.`
                : `${labelOf(skill.candidate)}/${path} cannot be read: ${error.message}`
          }))
        )

  return { settings, candidates, find, sourceLabels, inspect, entry, readFile } satisfies Catalog
})

/**
 * Inspects the skill directory named `name`, or gives undefined when no
 * source has one.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { findSkill, makeCatalog } from "./capabilities/skills/catalog.ts"
 *
 * const notes = Effect.flatMap(makeCatalog, (catalog) => findSkill(catalog, "notes"))
 * ```
 *
 * @category lookups
 * @since 0.2.0
 */
export const findSkill = (catalog: Catalog, name: string): Effect.Effect<Inspection | undefined> =>
  Effect.flatMap(catalog.find(name), (candidate) =>
    candidate === undefined ? Effect.succeed(undefined) : catalog.inspect(candidate)
  )

/**
 * The `data` of an error about a skill that cannot be served: the URI
 * asked for, the problem's code as `reason`, and where (`path`, `line`,
 * `column`) when known.
 *
 * **Example**
 *
 * ```ts
 * import { problemData } from "./capabilities/skills/catalog.ts"
 *
 * problemData("skill://notes/SKILL.md", { code: "no_skill_md", message: "…", path: "SKILL.md" })
 * // => { uri: "skill://notes/SKILL.md", reason: "no_skill_md", path: "SKILL.md" }
 * ```
 *
 * @category errors
 * @since 0.2.0
 */
export const problemData = (uri: string, problem: SkillProblem): Record<string, unknown> => ({
  uri,
  reason: problem.code,
  ...(problem.path === undefined ? {} : { path: problem.path }),
  ...(problem.line === undefined ? {} : { line: problem.line }),
  ...(problem.column === undefined ? {} : { column: problem.column })
})
