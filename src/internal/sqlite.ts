/**
 * Node's built-in SQLite (`node:sqlite`, Node 22.5 and later), read without
 * a static import: a module that imports it cannot even be loaded by an older
 * Node, and the binary must still start there (with tasks in memory).
 *
 * @internal
 */
import type * as Sqlite from "node:sqlite"

/** `node:sqlite`, or undefined when this Node does not have it. */
export const nodeSqlite = (): typeof Sqlite | undefined => {
  try {
    return typeof process.getBuiltinModule === "function"
      ? (process.getBuiltinModule("node:sqlite") as typeof Sqlite | undefined)
      : undefined
  } catch {
    return undefined
  }
}

/** Why SQLite cannot be used here, for messages. */
export const unavailableReason = (): string =>
  `this Node (${process.version}) has no built-in SQLite (node:sqlite): Node 22.5 or later is needed`
