/**
 * An SQLite client for Effect's SQL layer (`effect/sql`), on Node's built-in `node:sqlite` (`DatabaseSync`).
 *
 * Why our own: no published `@effect/sql-sqlite-node` works with effect 4.1 (the newest imports
 * `effect/unstable/sql/*`). This one is built from effect 4.1's own pieces — `SqlClient.make`,
 * `SqlClient.makeSqliteAcquirers` (one connection shared through a semaphore), `Statement.makeCompilerSqlite` and
 * `SqlError.classifySqliteError` — so transactions (`BEGIN`/`COMMIT`/`ROLLBACK`, nested through `SAVEPOINT`),
 * `afterCommit`, reactivity and error classification behave like Effect's other SQLite drivers.
 *
 * - One connection, serialized: every statement, stream and transaction holds the semaphore, so another fiber
 *   cannot run a statement inside someone else's transaction.
 * - Files: WAL journal mode by default, a busy timeout (5 s by default) for other processes holding the lock, the
 *   database file created with mode 0600 and missing directories with mode 0700 (SQLite gives its `-wal` and `-shm`
 *   files the mode of the database file). The database is closed when the scope ends.
 * - Rows are objects keyed by column name; `executeValues` returns arrays.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as SqlClient from "effect/sql/SqlClient"
 * import * as NodeSqliteClient from "effect-mcp-runtime/layers/NodeSqliteClient"
 *
 * const program = Effect.gen(function* () {
 *   const sql = yield* SqlClient.SqlClient
 *   yield* sql`CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
 *   yield* sql`INSERT INTO notes ${sql.insert({ body: "hello" })}`
 *   return yield* sql<{ id: number; body: string }>`SELECT id, body FROM notes`
 * })
 * program.pipe(Effect.provide(NodeSqliteClient.layer({ filename: "/tmp/app/state.db" })))
 * ```
 *
 * @since 0.5.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import * as Stream from "effect/Stream"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite"
import { nodeSqlite, unavailableReason } from "../src/internal/sqlite.ts"

/**
 * Settings of a client.
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/layers/NodeSqliteClient"
 *
 * const options: Options = { filename: "/var/lib/app/state.db", busyTimeout: "10 seconds" }
 * ```
 *
 * @category models
 * @since 0.5.0
 */
export interface Options {
  /** Path of the database file, or `":memory:"` for a private in-memory database. */
  readonly filename: string
  /** Open the existing file read-only (default `false`): nothing is created and the journal mode is left alone. */
  readonly readonly?: boolean | undefined
  /** How long a statement waits for another connection's lock before failing with `LockTimeoutError` (default 5 s). */
  readonly busyTimeout?: Duration.Input | undefined
  /** Journal mode set on open for files (default `"WAL"`); in-memory and read-only databases keep theirs. */
  readonly journalMode?: "WAL" | "DELETE" | "TRUNCATE" | "PERSIST" | "MEMORY" | "OFF" | undefined
  /** Enforce foreign keys (default `true`, node:sqlite's default). */
  readonly foreignKeys?: boolean | undefined
  /** How many prepared statements are kept for reuse (default 200; 0 disables the cache). */
  readonly preparedCacheSize?: number | undefined
  /** Rename identifiers in queries, e.g. `String.camelToSnake`. */
  readonly transformQueryNames?: ((name: string) => string) | undefined
  /** Rename columns in results, e.g. `String.snakeToCamel`. */
  readonly transformResultNames?: ((name: string) => string) | undefined
  /** Extra attributes on the spans of every query. */
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
}

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const isMemory = (filename: string): boolean => filename === ":memory:" || filename === ""

/** Turns what node:sqlite throws into a `SqlError`; its errors carry the SQLite code as `errcode`, not `errno`. */
const toSqlError = (cause: unknown, operation: string, message: string): SqlError.SqlError => {
  if (typeof cause === "object" && cause !== null && "errcode" in cause && !("errno" in cause)) {
    Object.defineProperty(cause, "errno", { value: (cause as { errcode: unknown }).errcode, enumerable: false })
  }
  return new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation }) })
}

/** node:sqlite binds null, numbers, bigints, strings and bytes; the rest is mapped the way SQLite stores it. */
const bindable = (value: unknown): SQLInputValue => {
  if (value === undefined) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  return value as SQLInputValue
}

const bindAll = (params: ReadonlyArray<unknown>): Array<SQLInputValue> => params.map(bindable)

/** Creates the database file 0600 (and missing directories 0700) before SQLite opens it. */
const prepareFile = (filename: string): void => {
  NodeFs.mkdirSync(NodePath.dirname(filename), { recursive: true, mode: 0o700 })
  NodeFs.closeSync(NodeFs.openSync(filename, NodeFs.constants.O_CREAT | NodeFs.constants.O_RDWR, 0o600))
}

/**
 * Opens the database and builds a `SqlClient` over it; the database is closed when the scope ends.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NodeSqliteClient from "effect-mcp-runtime/layers/NodeSqliteClient"
 *
 * const rows = Effect.scoped(
 *   Effect.gen(function* () {
 *     const sql = yield* NodeSqliteClient.make({ filename: ":memory:" })
 *     return yield* sql`SELECT 1 AS one`
 *   })
 * )
 * ```
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (options: Options): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope> =>
  Effect.gen(function* () {
    const memory = isMemory(options.filename)
    const readOnly = options.readonly === true
    const busyTimeout = Duration.toMillis(options.busyTimeout ?? "5 seconds")
    const cacheSize = Math.max(0, options.preparedCacheSize ?? 200)

    // A small LRU of prepared statements (a Map keeps insertion order; a hit is moved to the end).
    const cache = new Map<string, StatementSync>()
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          // Read when a client is made, not imported: an older Node can load this module (and fail here, clearly).
          const sqlite = nodeSqlite()
          if (sqlite === undefined) throw new Error(unavailableReason())
          if (!memory && !readOnly) prepareFile(options.filename)
          const database: DatabaseSync = new sqlite.DatabaseSync(options.filename, {
            readOnly,
            timeout: Number.isFinite(busyTimeout) ? Math.max(0, Math.round(busyTimeout)) : 2_147_483_647,
            enableForeignKeyConstraints: options.foreignKeys ?? true
          })
          try {
            if (!memory && !readOnly) database.exec(`PRAGMA journal_mode = ${options.journalMode ?? "WAL"}`)
          } catch (cause) {
            database.close()
            throw cause
          }
          return database
        },
        catch: (cause) =>
          new SqlError.SqlError({
            reason: new SqlError.ConnectionError({
              cause,
              message: `Failed to open SQLite database ${options.filename}`,
              operation: "connect"
            })
          })
      }),
      (database) =>
        Effect.sync(() => {
          cache.clear()
          if (database.isOpen) database.close()
        })
    )

    const prepare = (sql: string): StatementSync => {
      const cached = cache.get(sql)
      if (cached !== undefined) {
        cache.delete(sql)
        cache.set(sql, cached)
        return cached
      }
      const statement = db.prepare(sql)
      if (cacheSize > 0) {
        cache.set(sql, statement)
        if (cache.size > cacheSize) {
          const oldest = cache.keys().next()
          if (oldest.done !== true) cache.delete(oldest.value)
        }
      }
      return statement
    }

    const run = <A>(operation: string, f: () => A): Effect.Effect<A, SqlError.SqlError> =>
      Effect.try({ try: f, catch: (cause) => toSqlError(cause, operation, "Failed to execute statement") })

    const rowsOf = (statement: StatementSync, params: ReadonlyArray<unknown>, transformRows: TransformRows) => {
      statement.setReturnArrays(false)
      const rows = statement.all(...bindAll(params))
      return transformRows === undefined ? rows : transformRows(rows)
    }
    const valuesOf = (statement: StatementSync, params: ReadonlyArray<unknown>) => {
      statement.setReturnArrays(true)
      try {
        return statement.all(...bindAll(params)) as unknown as ReadonlyArray<ReadonlyArray<unknown>>
      } finally {
        statement.setReturnArrays(false)
      }
    }

    const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
      run("execute", () => rowsOf(prepare(sql), params, transformRows))

    const connection: SqlConnection.Connection = {
      execute,
      executeRaw: (sql, params) =>
        run("executeRaw", () => {
          const statement = prepare(sql)
          statement.setReturnArrays(false)
          return statement.columns().length > 0 ? statement.all(...bindAll(params)) : statement.run(...bindAll(params))
        }),
      executeStream: (sql, params, transformRows) => Stream.fromIterableEffect(execute(sql, params, transformRows)),
      executeValues: (sql, params) => run("executeValues", () => valuesOf(prepare(sql), params)),
      executeValuesUnprepared: (sql, params) => run("executeValues", () => valuesOf(db.prepare(sql), params)),
      executeUnprepared: (sql, params, transformRows) =>
        run("execute", () => rowsOf(db.prepare(sql), params, transformRows))
    }

    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: () => db.isTransaction
    })

    const spanAttributes: Array<readonly [string, unknown]> = [
      ...Object.entries(options.spanAttributes ?? {}),
      ["db.system.name", "sqlite"]
    ]
    const transformRows =
      options.transformResultNames === undefined
        ? undefined
        : Statement.defaultTransforms(options.transformResultNames).array

    return yield* SqlClient.make({
      acquirer: acquirers.acquirer,
      borrower: acquirers.borrower,
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      isTransaction: acquirers.isTransaction,
      compiler: Statement.makeCompilerSqlite(options.transformQueryNames),
      driver: "sqlite-node",
      spanAttributes,
      prepareTransactionControls: true,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      transformRows
    }).pipe(Effect.provideServiceEffect(Reactivity.Reactivity, Reactivity.make))
  })

/**
 * A layer providing `SqlClient.SqlClient` over one SQLite database, closed when the layer is released.
 *
 * effect 4.1 has no SQLite-specific client tag, so only `SqlClient.SqlClient` is provided.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
 * import * as NodeSqliteClient from "effect-mcp-runtime/layers/NodeSqliteClient"
 *
 * const storage = SqlMessageStorage.layer.pipe(Layer.provide(NodeSqliteClient.layer({ filename: "/tmp/cluster.db" })))
 * ```
 *
 * @category layers
 * @since 0.5.0
 */
export const layer = (options: Options): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options))
