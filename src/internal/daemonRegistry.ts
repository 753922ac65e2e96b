/**
 * What the warm daemon keeps: one built server per key (a root and the
 * fingerprint of its resolved settings), shared by every session with that
 * key, closed once it has had no session for the idle time; and the
 * daemon's own idle timer, which fires once the daemon has had no session at
 * all for the idle time. Both run on Effect's `Clock`, so `TestClock` drives
 * them in tests.
 *
 * @since 0.4.0
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as RcMap from "effect/RcMap"
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
 * The registry of a daemon.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import type { Registry } from "./src/internal/daemonRegistry.ts"
 *
 * const openOne = (registry: Registry<string, never>) =>
 *   Effect.scoped(registry.session("k", { root: "/srv", capabilities: [], front: "tools" }, Effect.succeed("server")))
 * ```
 *
 * @category models
 * @since 0.4.0
 */
export interface Registry<S, E> {
  /**
   * Opens a session on the server of `key`, built with `build` (in a scope
   * of its own) when no warm one is kept. The session lasts as long as the
   * caller's scope. `reused` tells whether the server was warm (or being
   * built for another session) already. A failed build is not kept: the next
   * session with the key builds again.
   */
  readonly session: (
    key: string,
    info: WarmInfo,
    build: Effect.Effect<S, E, Scope.Scope>
  ) => Effect.Effect<{ readonly server: S; readonly reused: boolean }, E, Scope.Scope>
  readonly snapshot: Effect.Effect<Snapshot>
  /** Completes once the daemon has had no session for the idle time (from its start, or its last session's end). */
  readonly idle: Effect.Effect<void>
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
 * `idleMs` without a session. Closing the scope closes every warm server.
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
export const make = <S, E>(options: { readonly idleMs: number }): Effect.Effect<Registry<S, E>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const builders = new Map<string, { readonly info: WarmInfo; readonly build: Effect.Effect<S, E, Scope.Scope> }>()
    const metas = new Map<string, Meta>()
    let open = 0
    let total = 0
    let idleSince: number | null = yield* Clock.currentTimeMillis
    const idle = yield* Deferred.make<void>()
    const timer = yield* FiberHandle.make<void, never>()
    const startTimer = FiberHandle.run(
      timer,
      Effect.andThen(Effect.sleep(options.idleMs), Deferred.succeed(idle, undefined))
    )
    yield* startTimer

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
          const server = yield* build
          meta.state = "ready"
          return server
        }),
      idleTimeToLive: options.idleMs
    })

    const session = (key: string, info: WarmInfo, build: Effect.Effect<S, E, Scope.Scope>) =>
      Effect.gen(function* () {
        open++
        total++
        idleSince = null
        if (open === 1) yield* FiberHandle.clear(timer)
        yield* Effect.addFinalizer(() =>
          Effect.gen(function* () {
            open--
            if (open > 0) return
            idleSince = yield* Clock.currentTimeMillis
            yield* startTimer
          })
        )
        const reused = metas.has(key)
        builders.set(key, { info, build })
        // A failed build is dropped from the map at once: the next session builds again.
        const server = yield* RcMap.get(map, key).pipe(Effect.tapError(() => RcMap.invalidate(map, key)))
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

    return { session, snapshot, idle: Deferred.await(idle) } satisfies Registry<S, E>
  })
