/**
 * The node:sqlite client for `effect/sql`, on real database files in a temp directory: statements with parameters,
 * transactions (commit, rollback, savepoints), error classification, durability across reopen, two connections on
 * one WAL file, and Effect's own migrators (`effect/sql/Migrator`, `effect/cluster`'s SQL storages) running on it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as ShardId from "effect/cluster/ShardId"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"
import * as Stream from "effect/Stream"
import { existsSync, mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeSqliteClient from "../layers/NodeSqliteClient.ts"

const tempDir = () => mkdtempSync(join(tmpdir(), "sqlite-client-"))

const tableNames = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`,
    (rows) => rows.map((row) => row.name)
  )

const withClient = <A, E>(filename: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(NodeSqliteClient.make({ filename }), f))

const setUp = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, age INTEGER)`

describe("NodeSqliteClient", () => {
  it.effect("creates the file 0600 in WAL mode, inserts with parameters and selects rows as objects", () =>
    Effect.gen(function* () {
      const dir = join(tempDir(), "nested", "state")
      const filename = join(dir, "app.db")
      const rows = yield* withClient(filename, (sql) =>
        Effect.gen(function* () {
          yield* setUp(sql)
          const name = "Robert'); DROP TABLE people;--"
          yield* sql`INSERT INTO people (name, age) VALUES (${name}, ${42})`
          yield* sql`INSERT INTO people ${sql.insert({ name: "Ada", age: 36 })}`
          // Booleans and dates are bound the way SQLite stores them (node:sqlite alone rejects them).
          const bound = yield* sql`SELECT ${true} AS yes, ${false} AS no, ${new Date(0)} AS at`
          assert.deepStrictEqual({ ...bound[0] }, { yes: 1, no: 0, at: "1970-01-01T00:00:00.000Z" })
          const mode = yield* sql<{ readonly journal_mode: string }>`PRAGMA journal_mode`
          assert.strictEqual(mode[0]?.journal_mode, "wal")
          const values = yield* sql`SELECT name FROM people ORDER BY id`.values
          assert.deepStrictEqual(values, [[name], ["Ada"]])
          const streamed = yield* Stream.runCollect(sql`SELECT age FROM people ORDER BY id`.stream)
          assert.deepStrictEqual(
            Array.from(streamed, (row) => row["age"]),
            [42, 36]
          )
          return yield* sql<{
            readonly name: string
            readonly age: number
          }>`SELECT name, age FROM people WHERE age > ${30} ORDER BY id`
        })
      )
      assert.deepStrictEqual(
        rows.map((row) => ({ ...row })),
        [
          { name: "Robert'); DROP TABLE people;--", age: 42 },
          { name: "Ada", age: 36 }
        ]
      )
      assert.strictEqual(statSync(filename).mode & 0o777, 0o600)
      assert.strictEqual(statSync(dir).mode & 0o777, 0o700)
    })
  )

  it.effect("withTransaction commits, and rolls back on failure (nested through savepoints)", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "tx.db")
      const names = yield* withClient(filename, (sql) =>
        Effect.gen(function* () {
          yield* setUp(sql)
          yield* sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO people (name) VALUES (${"committed"})`
              // An inner transaction that fails: its savepoint is rolled back, the outer one goes on.
              const inner = yield* Effect.exit(
                sql.withTransaction(
                  Effect.andThen(sql`INSERT INTO people (name) VALUES (${"inner"})`, Effect.fail("inner boom"))
                )
              )
              assert.isTrue(Exit.isFailure(inner))
            })
          )
          const failed = yield* Effect.exit(
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`INSERT INTO people (name) VALUES (${"rolled back 1"})`
                yield* sql`INSERT INTO people (name) VALUES (${"rolled back 2"})`
                return yield* Effect.fail("boom")
              })
            )
          )
          assert.deepStrictEqual(failed, Exit.fail("boom"))
          const rows = yield* sql<{ readonly name: string }>`SELECT name FROM people ORDER BY id`
          return rows.map((row) => row.name)
        })
      )
      assert.deepStrictEqual(names, ["committed"])
    })
  )

  it.effect("concurrent transactions do not see or break each other (one connection, serialized)", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "serial.db")
      const count = yield* withClient(filename, (sql) =>
        Effect.gen(function* () {
          yield* sql`CREATE TABLE counter (n INTEGER NOT NULL)`
          yield* sql`INSERT INTO counter (n) VALUES (0)`
          yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) =>
              sql
                .withTransaction(
                  Effect.gen(function* () {
                    const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counter`
                    yield* Effect.yieldNow
                    yield* sql`UPDATE counter SET n = ${(row?.n ?? 0) + 1}`
                    if (i % 5 === 0) return yield* Effect.fail("skip")
                  })
                )
                .pipe(Effect.ignore),
            { concurrency: "unbounded", discard: true }
          )
          const [row] = yield* sql<{ readonly n: number }>`SELECT n FROM counter`
          return row?.n
        })
      )
      assert.strictEqual(count, 16)
    })
  )

  it.effect("a constraint violation fails with a classified SqlError", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "errors.db")
      const [unique, notNull, syntax] = yield* withClient(filename, (sql) =>
        Effect.gen(function* () {
          yield* setUp(sql)
          yield* sql`INSERT INTO people (name) VALUES (${"Ada"})`
          return [
            yield* Effect.flip(sql`INSERT INTO people (name) VALUES (${"Ada"})`),
            yield* Effect.flip(sql`INSERT INTO people (name) VALUES (${null})`),
            yield* Effect.flip(sql`SELEC nonsense`)
          ] as const
        })
      )
      assert.isTrue(SqlError.isSqlError(unique))
      assert.strictEqual(unique.reason._tag, "UniqueViolation")
      assert.include(unique.message, "Failed to execute statement")
      assert.isTrue(SqlError.isSqlError(notNull))
      assert.strictEqual(notNull.reason._tag, "ConstraintError")
      assert.isTrue(SqlError.isSqlError(syntax))
    })
  )

  it.effect("reopening the file keeps the data; a read-only client reads it and cannot write", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "durable.db")
      yield* withClient(filename, (sql) =>
        Effect.andThen(setUp(sql), sql`INSERT INTO people (name, age) VALUES (${"Grace"}, ${85})`)
      )
      const rows = yield* withClient(filename, (sql) => sql<{ readonly name: string }>`SELECT name FROM people`)
      assert.deepStrictEqual(
        rows.map((row) => row.name),
        ["Grace"]
      )
      const readOnly = yield* Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* NodeSqliteClient.make({ filename, readonly: true })
          const names = yield* sql<{ readonly name: string }>`SELECT name FROM people`
          const write = yield* Effect.flip(sql`INSERT INTO people (name) VALUES (${"Nope"})`)
          return { names: names.map((row) => row.name), write }
        })
      )
      assert.deepStrictEqual(readOnly.names, ["Grace"])
      assert.isTrue(SqlError.isSqlError(readOnly.write))
      const missing = yield* Effect.flip(
        Effect.scoped(NodeSqliteClient.make({ filename: join(tempDir(), "absent.db"), readonly: true }))
      )
      assert.strictEqual(missing.reason._tag, "ConnectionError")
    })
  )

  it.effect("two clients on one WAL file read each other's committed rows, not uncommitted ones", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "shared.db")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const a = yield* NodeSqliteClient.make({ filename })
          const b = yield* NodeSqliteClient.make({ filename, busyTimeout: "2 seconds" })
          yield* setUp(a)
          yield* a`INSERT INTO people (name) VALUES (${"from a"})`
          yield* b`INSERT INTO people (name) VALUES (${"from b"})`
          const seenByA = yield* a<{ readonly name: string }>`SELECT name FROM people ORDER BY id`
          const seenByB = yield* b<{ readonly name: string }>`SELECT name FROM people ORDER BY id`
          assert.deepStrictEqual(
            seenByA.map((row) => row.name),
            ["from a", "from b"]
          )
          assert.deepStrictEqual(
            seenByB.map((row) => row.name),
            ["from a", "from b"]
          )
          // While a's transaction is open, b reads the last committed state (WAL readers don't block).
          yield* a.withTransaction(
            Effect.gen(function* () {
              yield* a`INSERT INTO people (name) VALUES (${"pending"})`
              const during = yield* b<{ readonly n: number }>`SELECT count(*) AS n FROM people`
              assert.strictEqual(during[0]?.n, 2)
            })
          )
          const after = yield* b<{ readonly n: number }>`SELECT count(*) AS n FROM people`
          assert.strictEqual(after[0]?.n, 3)
          assert.isTrue(existsSync(`${filename}-wal`))
          assert.strictEqual(statSync(`${filename}-wal`).mode & 0o777, 0o600)
        })
      )
    })
  )

  it.effect("effect/sql's Migrator runs its migrations once", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "migrate.db")
      const migrate = Migrator.make({})({
        loader: Migrator.fromRecord({
          "1_people": Effect.flatMap(SqlClient.SqlClient, setUp),
          "2_age_index": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE INDEX people_age ON people (age)`)
        })
      })
      const layer = NodeSqliteClient.layer({ filename })
      const first = yield* migrate.pipe(Effect.provide(layer))
      const second = yield* migrate.pipe(Effect.provide(layer))
      assert.deepStrictEqual(first, [
        [1, "people"],
        [2, "age_index"]
      ])
      assert.deepStrictEqual(second, [])
    })
  )

  it.effect("effect/cluster's SQL message and runner storages migrate and query on it", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "cluster.db")
      const client = NodeSqliteClient.layer({ filename })
      const storages = Layer.mergeAll(SqlMessageStorage.layer, SqlRunnerStorage.layer).pipe(
        Layer.provide(Layer.mergeAll(ShardingConfig.layerDefaults, Digest.layerWebCrypto)),
        Layer.provideMerge(client)
      )
      const tables = yield* Effect.gen(function* () {
        const storage = yield* MessageStorage.MessageStorage
        const unprocessed = yield* storage.unprocessedMessages([ShardId.make("default", 1)])
        assert.deepStrictEqual(unprocessed, [])
        return yield* Effect.flatMap(SqlClient.SqlClient, tableNames)
      }).pipe(Effect.provide(storages))
      for (const table of ["cluster_messages", "cluster_replies", "cluster_runners", "cluster_locks"]) {
        assert.include(tables, table)
      }
      // Migrations are recorded: building the storages again on the same file does not fail or redo them.
      const again = yield* Effect.flatMap(SqlClient.SqlClient, tableNames).pipe(Effect.provide(storages))
      assert.deepStrictEqual(again, tables)
    })
  )

  it.effect("closes the database when the scope ends", () =>
    Effect.gen(function* () {
      const filename = join(tempDir(), "closed.db")
      const sql = yield* withClient(filename, (sql) => Effect.as(setUp(sql), sql))
      const exit = yield* Effect.exit(sql`SELECT 1`)
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) assert.isTrue(Cause.hasFails(exit.cause) || Cause.hasDies(exit.cause))
    })
  )
})
