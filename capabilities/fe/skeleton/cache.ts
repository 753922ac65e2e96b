/**
 * `fe_skeleton`'s per-server cache: each file's extracted skeleton, kept by
 * its path with the size and modification time the workspace's walk gave
 * it, so a second call on an unchanged tree lists it again and parses
 * nothing, and a changed file is read and parsed again alone.
 *
 * What decides an entry's validity: the path (the language and a
 * component's name come from it), the size and the modification time. The
 * parser and the extraction are this process's own and cannot change under
 * the cache (it lives in memory for the server's life).
 *
 * The racy case (as git's racy-clean check): a file rewritten in the same
 * modification-time tick with the same size would keep its stamp. So a
 * file's skeleton is kept only when its modification time is more than
 * {@link racyWindowMs} before the call that read it began; a file modified
 * later (or in the future, by the server's clock) is read and parsed again
 * on every call until its modification time is that old.
 *
 * Memory is bounded: a cached skeleton holds copies of its strings (not
 * slices of the file's source, which would keep every source in memory),
 * entries are weighed by an estimate of their heap bytes, and the least
 * recently used are dropped past {@link maxCacheBytes}.
 *
 * @since 0.5.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { FileSkeleton } from "./extract.ts"

/**
 * How old (in milliseconds, by the server's clock when a call begins) a
 * file's modification time must be for its cached skeleton to be trusted:
 * 2 s, the coarsest common modification-time granularity (FAT's), with room
 * for a file system whose clock is a little ahead.
 *
 * @category constants
 * @since 0.5.0
 */
export const racyWindowMs = 2000

/**
 * The default bound of the cache, in estimated heap bytes: 256 MiB. The
 * estimate measured 2.7 KiB a file on this repository's TypeScript (3.6 KiB
 * on the heap) and 7.8 KiB on effect's own sources, whose signatures are long
 * (7.9 KiB on the heap): the default 50,000 files of `maxFiles` fit at up to
 * 5.2 KiB a skeleton, about 34,000 files of effect's kind.
 *
 * @category constants
 * @since 0.5.0
 */
export const maxCacheBytes = 256 * 1024 * 1024

/**
 * What the cache knows of a file whose stamp matches: its skeleton, or
 * `null` when the file was read and is binary (nothing to map).
 *
 * @category models
 * @since 0.5.0
 */
export type Cached = FileSkeleton | null

/**
 * The cache's size now.
 *
 * @category models
 * @since 0.5.0
 */
export interface CacheStats {
  readonly entries: number
  /** Estimated bytes of the entries. */
  readonly bytes: number
  readonly maxBytes: number
}

/**
 * The cache's operations (synchronous; the tool calls them from `Effect.sync`).
 *
 * @category models
 * @since 0.5.0
 */
export interface SkeletonCache {
  /**
   * The cached skeleton of `path` when the entry has this size and
   * modification time (then it becomes the most recently used);
   * `undefined` when it must be read again.
   */
  readonly lookup: (path: string, size: number, modifiedMs: number) => Cached | undefined
  /**
   * Records what reading `path` (with the stamp the listing gave it) found.
   * `callStartedMs` is the server's clock when the call began: a file
   * modified within {@link racyWindowMs} of it (or later) is not kept.
   */
  readonly store: (path: string, size: number, modifiedMs: number, value: Cached, callStartedMs: number) => void
  /**
   * Drops the entries under `scope` (a directory, `""` for the root) whose
   * paths are not in `present` (files deleted, renamed or newly ignored);
   * returns how many were dropped.
   */
  readonly forgetMissing: (scope: string, present: ReadonlySet<string>) => number
  readonly stats: () => CacheStats
}

interface Entry {
  readonly size: number
  readonly modifiedMs: number
  readonly value: Cached
  /** Estimated heap bytes (see `weigh`). */
  readonly bytes: number
}

/**
 * A copy of a string that does not hold on to the string it was cut from: the extraction's names and signatures
 * can be slices of the file's source (V8 keeps the whole source alive for a slice of 13 characters or more), and a
 * cached skeleton must not keep every file's text in memory.
 */
const own = (text: string): string => (text.length < 13 ? text : ` ${text}`.slice(1))

/** The skeleton with strings of its own (see {@link own}). */
const detach = (skeleton: FileSkeleton): FileSkeleton => ({
  path: own(skeleton.path),
  exports: skeleton.exports.map((entry) => ({
    ...entry,
    name: own(entry.name),
    signature: own(entry.signature),
    ...(entry.from === undefined ? {} : { from: own(entry.from) })
  })),
  imports: skeleton.imports.map((entry) => ({ from: own(entry.from), names: entry.names.map(own) })),
  ...(skeleton.error === undefined ? {} : { error: own(skeleton.error) })
})

/**
 * Estimated bytes of an entry on the heap: a byte a character (source text is mostly ASCII, which V8 stores a byte
 * a character; a copied string of 13 characters or more costs about twice its length), 24 a string and 48 an
 * object or array.
 */
const weigh = (path: string, value: Cached): number => {
  let bytes = 2 * path.length + 24 + 3 * 48
  const text = (s: string) => (s.length < 13 ? s.length : 2 * s.length) + 24
  if (value !== null) {
    bytes += 2 * 48 + (value.error === undefined ? 0 : text(value.error))
    for (const entry of value.exports) {
      // 48 for the object, 16 for its two line numbers.
      bytes += 64 + text(entry.name) + text(entry.signature) + (entry.from === undefined ? 0 : text(entry.from))
    }
    for (const entry of value.imports) {
      bytes += 2 * 48 + text(entry.from)
      for (const name of entry.names) bytes += text(name)
    }
  }
  return bytes
}

/**
 * A new, empty cache bounded to `maxBytes` estimated bytes.
 *
 * **Example**
 *
 * ```ts
 * import { make } from "./capabilities/fe/skeleton/cache.ts"
 *
 * const cache = make({ maxBytes: 1024 * 1024 })
 * const skeleton = { path: "src/a.ts", exports: [], imports: [] }
 * cache.store("src/a.ts", 12, 1_700_000_000_000, skeleton, 1_700_000_060_000)
 * cache.lookup("src/a.ts", 12, 1_700_000_000_000) // => a copy of skeleton
 * cache.lookup("src/a.ts", 13, 1_700_000_000_000) // => undefined (the size changed)
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (options?: { readonly maxBytes?: number | undefined }): SkeletonCache => {
  const maxBytes = options?.maxBytes ?? maxCacheBytes
  // A Map keeps insertion order: the first entry is the least recently used.
  const entries = new Map<string, Entry>()
  let bytes = 0

  const remove = (path: string) => {
    const entry = entries.get(path)
    if (entry === undefined) return
    entries.delete(path)
    bytes -= entry.bytes
  }

  return {
    lookup: (path, size, modifiedMs) => {
      const entry = entries.get(path)
      if (entry === undefined || entry.size !== size || entry.modifiedMs !== modifiedMs) {
        return undefined
      }
      entries.delete(path)
      entries.set(path, entry)
      return entry.value
    },
    store: (path, size, modifiedMs, value, callStartedMs) => {
      remove(path)
      // Not kept: a file modified within the racy window (the next call reads it again), or larger than the bound.
      if (modifiedMs >= callStartedMs - racyWindowMs) return
      const entry: Entry = {
        size,
        modifiedMs,
        value: value === null ? null : detach(value),
        bytes: weigh(path, value)
      }
      if (entry.bytes > maxBytes) return
      entries.set(path, entry)
      bytes += entry.bytes
      for (const oldest of entries.keys()) {
        if (bytes <= maxBytes) break
        remove(oldest)
      }
    },
    forgetMissing: (scope, present) => {
      const prefix = scope === "" ? "" : `${scope}/`
      let dropped = 0
      for (const path of [...entries.keys()]) {
        if ((prefix === "" || path.startsWith(prefix)) && !present.has(path)) {
          remove(path)
          dropped++
        }
      }
      return dropped
    },
    stats: () => ({ entries: entries.size, bytes, maxBytes })
  }
}

/**
 * The cache of one server: `FeSkeletons.layer` gives each server (each
 * build of the fe capability) its own.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { FeSkeletons } from "./capabilities/fe/skeleton/cache.ts"
 *
 * const cached = Effect.map(Effect.service(FeSkeletons), (cache) => cache.stats().entries)
 * ```
 *
 * @category services
 * @since 0.5.0
 */
export class FeSkeletons extends Context.Service<FeSkeletons, SkeletonCache>()(
  "effect-mcp-runtime/capabilities/fe/FeSkeletons"
) {
  /**
   * An empty cache bounded to {@link maxCacheBytes}.
   *
   * @since 0.5.0
   */
  static readonly layer: Layer.Layer<FeSkeletons> = Layer.effect(
    FeSkeletons,
    Effect.sync(() => make())
  )
}
