/**
 * What the warm daemon keeps: one built server per key (a root and the
 * fingerprint of its resolved settings), shared by every session with that
 * key, closed once it has had no session for the idle time; the daemon's
 * connections and sessions; and the daemon's own idle timer, which fires
 * once the daemon has had no session for the idle time and no connection is
 * open. All of it runs on Effect's `Clock`, so `TestClock` drives it in
 * tests.
 *
 * @since 0.4.0
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as RcMap from "effect/RcMap"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { WarmStatus } from "./daemonProtocol.ts"

/**
 * What a warm server serves, for the daemon's status.
 *
 * **Example**
 *
 * ```ts
 * import type { WarmInfo } from "./src/internal/daemonRegistry.ts"
 *
 * const info: WarmInfo = { root: "/srv/project", capabilities: ["system"], front: "tools" }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface WarmInfo {
  readonly root: string
  readonly capabilities: ReadonlyArray<string>
  readonly front: string
}

/**
 * The sessions and warm servers of a daemon, as its status reports them.
 *
 * **Example**
 *
 * ```ts
 * import type { Snapshot } from "./src/internal/daemonRegistry.ts"
 *
 * const idle: Snapshot = { sessions: 0, totalSessions: 0, idleSince: 0, warm: [] }
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Snapshot {
  readonly sessions: number
  readonly totalSessions: number
  /** Since when no session has been open (epoch ms), or null while one is. */
  readonly idleSince: number | null
  readonly warm: ReadonlyArray<WarmStatus>
}

/**
 * A warm server's build did not finish within the registry's
 * `buildTimeoutMs` (an upstream that never connects, say): it is
 * interrupted and not kept, and the sessions waiting for it fail.
 *
 * **Example**
 *
 * ```ts
 * import { BuildTimeout } from "./src/internal/daemonRegistry.ts"
 *
 * new BuildTimeout({ message: "the server for these settings did not start within 60000 ms" })
 * ```
 *
 * @category errors
 * @since 0.4.0
 */
export class BuildTimeout extends Schema.TaggedError<BuildTimeout>()("BuildTimeout", {
  message: Schema.String
}) {}

/**
 * How long a warm server's build may take, by default: 60 s.
 *
 * **Example**
 *
 * ```ts
 * import { defaultBuildTimeoutMs } from "./src/internal/daemonRegistry.ts"
 *
 * defaultBuildTimeoutMs // => 60000
 * ```
 *
 * @category constants
 * @since 0.4.0
 */
export const defaultBuildTimeoutMs = 60_000

/**
 * The registry of a daemon.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Registry } from "./src/internal/daemonRegistry.ts"
 *
 * const openOne = (registry: Registry<string, never>) =>
 *   Effect.scoped(
 *     Effect.gen(function* () {
 *       yield* registry.connection
 *       if ((yield* registry.reserve(256)) !== "ok") return
 *       return yield* registry.session("k", { root: "/srv", capabilities: [], front: "tools" }, Effect.succeed("server"))
 *     })
 *   )
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Registry<S, E> {
  /**
   * Counts a connection, from the moment it is accepted until the caller's
   * scope closes: the daemon does not go idle while one is open (in its
   * handshake, or carrying a session).
   */
  readonly connection: Effect.Effect<void, never, Scope.Scope>
  /**
   * Takes one of `max` session slots until the caller's scope closes, in one
   * step (no other fiber runs between the check and the count): `"ok"`,
   * `"busy"` when all `max` are taken, or `"stopping"` once the daemon is
   * stopping. A session counts as open from here.
   */
  readonly reserve: (max: number) => Effect.Effect<"ok" | "busy" | "stopping", never, Scope.Scope>
  /**
   * Opens a session on the server of `key`, built with `build` (in a scope
   * of its own) when no warm one is kept. The session lasts as long as the
   * caller's scope. `reused` tells whether the server was warm (or being
   * built for another session) already. A build that fails or does not
   * finish within `buildTimeoutMs` (`BuildTimeout`) is not kept: the next
   * session with the key builds again.
   */
  readonly session: (
    key: string,
    info: WarmInfo,
    build: Effect.Effect<S, E, Scope.Scope>
  ) => Effect.Effect<{ readonly server: S; readonly reused: boolean }, E | BuildTimeout, Scope.Scope>
  readonly snapshot: Effect.Effect<Snapshot>
  /**
   * Completes once the daemon has had no session for the idle time (from its
   * start, or its last session's end) and no connection is open; the
   * registry is stopping from that moment.
   */
  readonly idle: Effect.Effect<void>
  /** Marks the registry as stopping, at once: no slot is given from then on, and the idle timer is off. */
  readonly stop: Effect.Effect<void>
  /** Whether the registry is stopping (idle, or `stop`). */
  readonly isStopping: () => boolean
}

interface Meta {
  readonly info: WarmInfo
  readonly key: string
  state: "building" | "ready"
  sessions: number
  totalSessions: number
  readonly createdAt: number
  lastUsedAt: number
}

/**
 * Builds a registry whose warm servers, and the daemon itself, go idle after
 * `idleMs` without a session; a build may take `buildTimeoutMs` (default
 * {@link defaultBuildTimeoutMs}). Closing the scope closes every warm
 * server.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Registry from "./src/internal/daemonRegistry.ts"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function*() {
 *     const registry = yield* Registry.make<string, never>({ idleMs: 60_000 })
 *     yield* registry.idle // a minute after the start, with no session
 *   })
 * )
 * ```
 *
 * @category constructors
 * @since 0.4.0
 */
export const make = <S, E>(options: {
  readonly idleMs: number
  readonly buildTimeoutMs?: number | undefined
}): Effect.Effect<Registry<S, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const buildTimeoutMs = options.buildTimeoutMs ?? defaultBuildTimeoutMs
    const builders = new Map<string, { readonly info: WarmInfo; readonly build: Effect.Effect<S, E, Scope.Scope> }>()
    const metas = new Map<string, Meta>()
    let connections = 0
    let open = 0
    let total = 0
    let stopping = false
    let idleSince: number | null = yield* Clock.currentTimeMillis
    const idle = yield* Deferred.make<void>()
    const timer = yield* FiberHandle.make<void, never>()

    // Fires at idleSince + idleMs, unless a connection or a session is open by then (checked when it fires, in the
    // same step as marking the registry stopping).
    const arm = Effect.suspend(() => {
      if (stopping || connections > 0 || open > 0 || idleSince === null) return Effect.void
      const since = idleSince
      return FiberHandle.run(
        timer,
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.andThen(
            Effect.sleep(Math.max(0, since + options.idleMs - now)),
            Effect.sync(() => {
              if (stopping || connections > 0 || open > 0) return
              stopping = true
              Deferred.doneUnsafe(idle, Effect.void)
            })
          )
        )
      )
    })
    yield* arm

    const connection = Effect.uninterruptible(
      Effect.gen(function* () {
        connections++
        yield* FiberHandle.clear(timer)
        yield* Effect.addFinalizer(() =>
          Effect.suspend(() => {
            connections--
            return arm
          })
        )
      })
    )

    const reserve = (max: number) =>
      Effect.uninterruptible(
        Effect.suspend(() => {
          if (stopping) return Effect.succeed("stopping" as const)
          if (open >= max) return Effect.succeed("busy" as const)
          open++
          idleSince = null
          return Effect.as(
            Effect.addFinalizer(() =>
              Effect.flatMap(Clock.currentTimeMillis, (now) =>
                Effect.suspend(() => {
                  open--
                  if (open > 0) return Effect.void
                  idleSince = now
                  return arm
                })
              )
            ),
            "ok" as const
          )
        })
      )

    const map = yield* RcMap.make({
      lookup: (key: string) =>
        Effect.gen(function* () {
          const { build, info } = builders.get(key)!
          const now = yield* Clock.currentTimeMillis
          const meta: Meta = {
            info,
            key,
            state: "building",
            sessions: 0,
            totalSessions: 0,
            createdAt: now,
            lastUsedAt: now
          }
          metas.set(key, meta)
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              if (metas.get(key) !== meta) return
              metas.delete(key)
              builders.delete(key)
            })
          )
          const server = yield* build.pipe(
            Effect.timeoutOrElse({
              duration: buildTimeoutMs,
              orElse: () =>
                Effect.fail(
                  new BuildTimeout({
                    message: `the server for these settings did not start within ${buildTimeoutMs} ms`
                  })
                )
            })
          )
          meta.state = "ready"
          return server
        }),
      idleTimeToLive: options.idleMs
    })

    const session = (key: string, info: WarmInfo, build: Effect.Effect<S, E, Scope.Scope>) =>
      Effect.gen(function* () {
        const reused = metas.has(key)
        builders.set(key, { info, build })
        // A failed build is dropped from the map at once: the next session builds again.
        const server = yield* RcMap.get(map, key).pipe(Effect.tapError(() => RcMap.invalidate(map, key)))
        total++
        const meta = metas.get(key)
        if (meta !== undefined) {
          meta.sessions++
          meta.totalSessions++
          meta.lastUsedAt = yield* Clock.currentTimeMillis
          yield* Effect.addFinalizer(() =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.sync(() => {
                meta.sessions--
                meta.lastUsedAt = now
              })
            )
          )
        }
        return { server, reused }
      })

    const snapshot = Effect.sync((): Snapshot => ({
      sessions: open,
      totalSessions: total,
      idleSince,
      warm: [...metas.values()].map((meta) => ({
        root: meta.info.root,
        key: meta.key,
        capabilities: meta.info.capabilities,
        front: meta.info.front,
        state: meta.state,
        sessions: meta.sessions,
        totalSessions: meta.totalSessions,
        createdAt: meta.createdAt,
        lastUsedAt: meta.lastUsedAt
      }))
    }))

    const stop = Effect.andThen(
      Effect.sync(() => {
        stopping = true
      }),
      FiberHandle.clear(timer)
    )

    return {
      connection,
      reserve,
      session,
      snapshot,
      idle: Deferred.await(idle),
      stop,
      isStopping: () => stopping
    } satisfies Registry<S, E>
  })
