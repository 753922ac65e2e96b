/**
 * The `fe` capability's shared state: the detected project (computed once
 * per root, detected again when `package.json` or a lockfile changes) and
 * the problems of the last `fe_verify`, which `fe_doctor` diagnoses when it
 * is called without a problem.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Tool from "../../src/Tool.ts"
import { Workspace } from "../../src/Workspace.ts"
import { diagnosisId } from "./diagnosis/id.ts"
import { parseJsonc } from "./jsonc.ts"
import type { Problem } from "./problem.ts"
import { detect, probedPaths, type ProjectInfo, watchedFiles } from "./project.ts"

/**
 * The state service. `FeState.layer` (in `index.ts`) builds it over the
 * `Workspace`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FeState } from "./capabilities/fe/state.ts"
 *
 * const framework = Effect.map(Effect.flatMap(Effect.service(FeState), (state) => state.project), (p) => p.framework)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class FeState extends Context.Service<
  FeState,
  {
    /** The project at the root; detected again when package.json or a lockfile changed since. */
    readonly project: Effect.Effect<ProjectInfo, Tool.ToolError>
    /** The problems of the last fe_verify run, or undefined when none ran. */
    readonly lastVerify: Effect.Effect<ReadonlyArray<Problem> | undefined>
    /** Records the problems of a verify run (and remembers them for {@link problemById}). */
    readonly setLastVerify: (problems: ReadonlyArray<Problem>) => Effect.Effect<void>
    /**
     * Remembers problems without making them the last verify's (a check
     * `fe_batch` runs), so their diagnosis ids stay known. Since 0.4.0.
     */
    readonly remember: (problems: ReadonlyArray<Problem>) => Effect.Effect<void>
    /**
     * A problem of this session's verify runs by its diagnosis id (see
     * `diagnosis/id.ts`): the last run's first, then the most recent 10,000
     * seen. Since 0.4.0.
     */
    readonly problemById: (id: string) => Effect.Effect<Problem | undefined>
  }
>()("effect-mcp-runtime/capabilities/fe/FeState") {}

const maxRootEntries = 5000

/** How many problems of earlier verify runs are remembered by id. */
const maxRemembered = 10_000

/**
 * The live state over the `Workspace`: the detection reads the root's
 * listing, then stats the watched files that exist; when their sizes and
 * modification times are those of the last detection, the cached result is
 * returned, else `package.json` is read again and the project detected again.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as NodeWorkspace from "effect-mcp-runtime/layers/NodeWorkspace"
 * import { layer } from "./capabilities/fe/state.ts"
 *
 * const State = layer.pipe(Layer.provide(NodeWorkspace.layer({ root: "/srv/project" })))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<FeState, never, Workspace> = Layer.effect(
  FeState,
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const cache = yield* SynchronizedRef.make<{ readonly stamp: string; readonly info: ProjectInfo } | undefined>(
      undefined
    )
    const last = yield* Ref.make<ReadonlyArray<Problem> | undefined>(undefined)
    const watched = new Set(watchedFiles)
    const probed = new Set(probedPaths)

    const rootNames = Effect.gen(function* () {
      const names = new Map<string, string>()
      let cursor: string | undefined
      do {
        const page = yield* workspace.list("", { cursor, limit: 1000 })
        for (const entry of page.entries) {
          if (probed.has(entry.name)) names.set(entry.name, entry.type)
        }
        cursor = page.nextCursor
      } while (cursor !== undefined && names.size < maxRootEntries)
      return names
    })

    const stampOf = (names: ReadonlyMap<string, string>) =>
      Effect.forEach([...names.keys()].filter((name) => watched.has(name)).sort(), (name) =>
        workspace.stat(name).pipe(
          Effect.map((stat) => `${name}:${stat.size}:${stat.modifiedMs}`),
          Effect.orElseSucceed(() => `${name}:?`)
        )
      ).pipe(Effect.map((parts) => [...names.keys()].sort().join(",") + "|" + parts.join(",")))

    const readPackageJson = (names: ReadonlyMap<string, string>) =>
      names.get("package.json") !== "file"
        ? Effect.succeed(undefined)
        : workspace.read("package.json").pipe(
            Effect.mapError(
              (error) =>
                new Tool.ToolError({
                  message: `package.json could not be read: ${error.message}`,
                  code: "package_json_unreadable",
                  suggestion: "Check package.json with workspace_stat and workspace_read."
                })
            ),
            Effect.flatMap((read) => {
              const parsed = read.truncated ? undefined : parseJsonc(read.content)
              return parsed === undefined || typeof parsed !== "object" || parsed === null || Array.isArray(parsed)
                ? Effect.fail(
                    new Tool.ToolError({
                      message: read.truncated
                        ? `package.json is larger than the server reads (${read.size} bytes).`
                        : "package.json is not a valid JSON object, so the dependencies, scripts and tools of the project cannot be read from it.",
                      code: "package_json_invalid",
                      suggestion:
                        "Read package.json with workspace_read and fix it with workspace_edit, then call the fe tool again."
                    })
                  )
                : Effect.succeed(parsed)
            })
          )

    const project = SynchronizedRef.modifyEffect(cache, (cached) =>
      Effect.gen(function* () {
        const names = yield* rootNames.pipe(
          Effect.mapError(
            (error) =>
              new Tool.ToolError({
                message: `The workspace root could not be listed: ${error.message}`,
                code: "root_unreadable",
                suggestion: "Check the server's root with system_info."
              })
          )
        )
        const stamp = yield* stampOf(names)
        if (cached !== undefined && cached.stamp === stamp) return [cached.info, cached] as const
        const packageJson = yield* readPackageJson(names)
        const info = detect({ packageJson, exists: (path) => names.has(path) })
        return [info, { stamp, info }] as const
      })
    )

    // Every problem seen, by diagnosis id, oldest first (a Map keeps insertion order): ids of earlier runs stay
    // applicable after a narrower run (fe_batch's checks) replaced the last one.
    const seen = new Map<string, Problem>()
    const remember = (problems: ReadonlyArray<Problem>) =>
      Effect.sync(() => {
        for (const problem of problems) {
          const id = diagnosisId(problem)
          seen.delete(id)
          seen.set(id, problem)
        }
        for (const id of seen.keys()) {
          if (seen.size <= maxRemembered) break
          seen.delete(id)
        }
      })

    return FeState.of({
      project,
      lastVerify: Ref.get(last),
      setLastVerify: (problems) => Effect.andThen(Ref.set(last, problems), remember(problems)),
      remember,
      problemById: (id) =>
        Effect.map(Ref.get(last), (problems) => problems?.find((p) => diagnosisId(p) === id) ?? seen.get(id))
    })
  })
)
