/**
 * The output barrier: what must reach its file before the transport writes
 * the next byte to its peer.
 *
 * A store that keeps records about answers (the file audit log) registers a
 * flush here; a transport that calls {@link beforeOutput} synchronously right
 * before every write of its own (the stdio transport) says so with
 * {@link Covered} in its connection's context. A store that sees
 * `Covered` may then queue a call's record without holding the call back:
 * the record is written by the next barrier — before the answer that follows
 * it, and with the records of every call answered in the same write — or at
 * the end of the turn of the event loop, whichever comes first.
 */
import * as Context from "effect/Context"

const flushes = new Set<() => void>()

/**
 * Registers a flush run before every covered write; returns its removal.
 * A flush must be synchronous and must not throw.
 */
export const register = (flush: () => void): (() => void) => {
  flushes.add(flush)
  return () => void flushes.delete(flush)
}

/** Runs every registered flush: called by a transport right before it writes. */
export const beforeOutput = (): void => {
  if (flushes.size === 0) return
  for (const flush of flushes) flush()
}

/**
 * True in the context of a connection whose transport runs
 * {@link beforeOutput} before each of its writes.
 */
export const Covered = Context.Reference<boolean>("effect-mcp-runtime/internal/OutputBarrierCovered", {
  defaultValue: () => false
})
