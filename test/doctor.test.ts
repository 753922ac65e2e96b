/**
 * `doctor`'s pieces in process: the Capabilities section when capabilities
 * fail to start (each built alone to tell which), the client configuration
 * snippets, and the Task store check on real stores (SQLite files made by
 * the store itself, a throwaway PostgreSQL cluster). The binary's report is
 * tested in test/cli.test.ts.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/testing/TestClock"
import * as PgClient from "@effect/sql-pg/PgClient"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { DatabaseSync } from "node:sqlite"
import * as ClusterTasks from "../layers/ClusterTasks.ts"
import { DuplicateName } from "../src/Kernel.ts"
import { noServeFlags } from "../src/cli/compose.ts"
import { capabilityChecks, type CapabilityReport, clientSnippets, storeCheck } from "../src/cli/doctor.ts"
import * as Settings from "../src/cli/settings.ts"
import * as Postgres from "./support/postgres.ts"

const report = (id: string): CapabilityReport => ({
  id,
  version: "0.1.0",
  description: `the ${id} capability`,
  tools: [{ name: `${id}_tool`, readOnly: true, destructive: false, confirms: false }],
  resources: [],
  templates: [],
  prompts: []
})

const settings = Settings.resolve({ root: "/tmp", configFile: undefined, config: {}, flags: noServeFlags, env: {} })

const duplicate = new DuplicateName({ toolName: "exec_run", first: "exec", second: "exec" })
const duplicateText = `DuplicateName: ${duplicate.message}`

describe("doctor's Capabilities section", () => {
  it.effect("all start: a ✓ per capability with what it registers", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) => Effect.succeed(s.capabilities.map(report)))
      assert.deepStrictEqual(
        section.checks.map((c) => [c.ok, c.title]),
        [
          [true, "system 0.1.0 — the system capability"],
          [true, "workspace 0.1.0 — the workspace capability"],
          [true, "exec 0.1.0 — the exec capability"],
          [true, "fe 0.1.0 — the fe capability"],
          [true, "code 0.1.0 — the code capability"]
        ]
      )
      assert.include(section.checks[0]!.details[0], "system_tool (read-only)")
    })
  )

  it.effect("one fails: it gets a ✗ with its typed error, the others are still reported", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) =>
        s.capabilities.includes("exec") ? Effect.fail(duplicate) : Effect.succeed(s.capabilities.map(report))
      )
      assert.deepStrictEqual(
        section.checks.map((c) => [c.ok, c.title]),
        [
          [true, "system 0.1.0 — the system capability"],
          [true, "workspace 0.1.0 — the workspace capability"],
          [false, "exec: does not start"],
          [true, "fe 0.1.0 — the fe capability"],
          [true, "code 0.1.0 — the code capability"]
        ]
      )
      assert.deepStrictEqual(section.checks[2]!.details, [duplicateText])
      assert.deepStrictEqual(
        section.registered.map((c) => c.id),
        ["system", "workspace", "fe", "code"]
      )
    })
  )

  it.effect("each starts alone but not together: the combination is the ✗", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) =>
        s.capabilities.length > 1 ? Effect.fail(duplicate) : Effect.succeed(s.capabilities.map(report))
      )
      const failed = section.checks.filter((c) => !c.ok)
      assert.strictEqual(failed.length, 1)
      assert.strictEqual(failed[0]!.title, "system, workspace, exec, fe, code: each starts alone, but not together")
      assert.deepStrictEqual(failed[0]!.details, [duplicateText])
    })
  )

  it.effect("a defect while building is a ✗ too, not a crash", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks({ ...resolved, capabilities: ["system"] }, () => Effect.die("boom"))
      assert.strictEqual(section.checks[0]!.ok, false)
      assert.match(section.checks[0]!.details[0]!, /^a defect: /)
    })
  )
})

describe("doctor's client configuration", () => {
  const snippets = clientSnippets({
    node: "/usr/local/bin/node",
    script: "/opt/mcp runtime/dist/mcp-runtime.js",
    root: "/srv/project",
    config: undefined
  })
  const byClient = Object.fromEntries(snippets.map((s) => [s.client, s.text]))

  it("Claude Desktop and Cursor: mcpServers with the command and its arguments", () => {
    for (const client of ["Claude Desktop", "Cursor"]) {
      assert.deepStrictEqual(JSON.parse(byClient[client]!), {
        mcpServers: {
          "mcp-runtime": {
            command: "/usr/local/bin/node",
            args: ["/opt/mcp runtime/dist/mcp-runtime.js", "serve", "--root", "/srv/project"]
          }
        }
      })
    }
  })

  it("VS Code: servers, with type stdio", () => {
    assert.deepStrictEqual(JSON.parse(byClient["VS Code"]!), {
      servers: {
        "mcp-runtime": {
          type: "stdio",
          command: "/usr/local/bin/node",
          args: ["/opt/mcp runtime/dist/mcp-runtime.js", "serve", "--root", "/srv/project"]
        }
      }
    })
  })

  it("Claude Code: one shell command, arguments quoted where needed", () => {
    assert.strictEqual(
      byClient["Claude Code"],
      "claude mcp add mcp-runtime -- /usr/local/bin/node '/opt/mcp runtime/dist/mcp-runtime.js' serve --root /srv/project"
    )
  })
})

describe("doctor's Task store check", () => {
  const dirs: Array<string> = []
  afterAll(() => {
    for (const dir of dirs) NodeFs.rmSync(dir, { recursive: true, force: true })
  })
  const tempFile = (name: string) => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "doctor-store-"))
    dirs.push(dir)
    return NodePath.join(dir, name)
  }
  const sqlite = (filename: string): Settings.StoreSettings => ({ kind: "sqlite", filename, explicit: true })
  // A store file as the server leaves it: made by the store layer, then tasks written into its table.
  const storeWithTasks = (statuses: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const filename = tempFile("tasks.db")
      yield* Effect.scoped(Layer.build(ClusterTasks.layerSqlite({ filename })))
      const db = new DatabaseSync(filename)
      const insert = db.prepare("INSERT INTO mcp_tasks (task_id, status, task, attempts) VALUES (?, ?, ?, 0)")
      statuses.forEach((status, i) => insert.run(`task-${i}`, status, JSON.stringify({ taskId: `task-${i}`, status })))
      db.close()
      return filename
    })

  it.effect("memory: ✓, tasks end with the process", () =>
    Effect.gen(function* () {
      const check = yield* storeCheck({ kind: "memory" })
      assert.deepStrictEqual(check, {
        ok: true,
        title: "Task store: memory",
        details: ["tasks are kept in memory: they end with the process"]
      })
    })
  )

  it.effect("sqlite, no file yet: ✓, created when the first task runs", () =>
    Effect.gen(function* () {
      const filename = tempFile("absent.db")
      const check = yield* storeCheck(sqlite(filename))
      assert.isTrue(check.ok)
      assert.strictEqual(check.title, `Task store: SQLite ${filename}`)
      assert.deepStrictEqual(check.details, ["absent: created when the first task runs"])
      // The root's default store says so.
      const byDefault = yield* storeCheck({ kind: "sqlite", filename, explicit: false })
      assert.include(byDefault.details[0], "the root's default")
    })
  )

  it.effect("sqlite made by the store, with tasks: counts by status, no lock, the size; read-only", () =>
    Effect.gen(function* () {
      const filename = yield* storeWithTasks(["working", "completed", "completed", "failed", "input_required"])
      const before = NodeFs.readFileSync(filename)
      const check = yield* storeCheck(sqlite(filename))
      assert.isTrue(check.ok, check.details.join("; "))
      assert.include(check.details, "lock: none (no server uses it now)")
      assert.include(check.details, "tasks: 5 (1 working, 1 input_required, 2 completed, 1 failed)")
      assert.match(check.details.at(-1)!, /^size: \d+ KiB$/)
      assert.isTrue(NodeFs.readFileSync(filename).equals(before), "doctor changed the file")
    })
  )

  it.effect("sqlite whose table is missing: ✓, no tasks yet", () =>
    Effect.gen(function* () {
      const filename = tempFile("empty.db")
      new DatabaseSync(filename).close()
      const check = yield* storeCheck(sqlite(filename))
      assert.isTrue(check.ok)
      assert.include(check.details.join("\n"), "tasks: none (no mcp_tasks table yet")
    })
  )

  it.effect("sqlite locked by a live process: ✓ in use by its pid; a stale lock is noted", () =>
    Effect.gen(function* () {
      const filename = yield* storeWithTasks(["completed"])
      NodeFs.writeFileSync(`${filename}.lock`, String(process.pid))
      const held = yield* storeCheck(sqlite(filename))
      assert.isTrue(held.ok)
      assert.include(held.details, `in use by pid ${process.pid}`)
      assert.include(held.details, "tasks: 1 (1 completed)")
      // The pid of a process that has exited.
      const gone = spawnSync(process.execPath, ["-e", ""]).pid!
      NodeFs.writeFileSync(`${filename}.lock`, String(gone))
      const stale = yield* storeCheck(sqlite(filename))
      assert.isTrue(stale.ok)
      assert.include(
        stale.details,
        `stale lock ${filename}.lock (pid ${gone} is gone): the next server to start takes it over`
      )
    })
  )

  it.effect("sqlite file that is not a database: ✗ with the reason", () =>
    Effect.gen(function* () {
      const filename = tempFile("corrupt.db")
      NodeFs.writeFileSync(filename, "this is not an SQLite database, not even close: ".repeat(40))
      const check = yield* storeCheck(sqlite(filename))
      assert.isFalse(check.ok)
      assert.match(check.details.at(-1)!, /^unreadable: .*not a database/)
    })
  )

  it.effect("postgres unreachable: ✗ unreachable with the reason, the password never shown", () =>
    Effect.gen(function* () {
      const check = yield* storeCheck({
        kind: "postgres",
        url: "postgres://u:secret@127.0.0.1:1/db",
        runnerHost: undefined,
        runnerPort: undefined
      })
      assert.isFalse(check.ok)
      assert.strictEqual(check.title, "Task store: PostgreSQL postgres://u:***@127.0.0.1:1/db")
      assert.match(check.details[0]!, /^unreachable: /)
      assert.notInclude(JSON.stringify(check), "secret")
    })
  )

  it.effect("postgres that never answers: ✗ once the time is up (TestClock), not a hang", () =>
    Effect.gen(function* () {
      // A real peer that accepts the connection and says nothing.
      const sockets: Array<NodeNet.Socket> = []
      const server = NodeNet.createServer((socket) => void sockets.push(socket))
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () =>
          Effect.sync(() => {
            for (const socket of sockets) socket.destroy()
            server.close()
          })
      )
      const port = (server.address() as NodeNet.AddressInfo).port
      const fiber = yield* Effect.forkChild(
        storeCheck({
          kind: "postgres",
          url: `postgres://u:secret@127.0.0.1:${port}/db`,
          runnerHost: undefined,
          runnerPort: undefined
        })
      )
      yield* Effect.yieldNow
      yield* TestClock.adjust("6 seconds")
      const check = yield* Fiber.join(fiber)
      assert.isFalse(check.ok)
      assert.match(check.details[0]!, /^unreachable: (Connection timed out|no answer within 6 s)$/)
      assert.notInclude(JSON.stringify(check), "secret")
    }).pipe(Effect.scoped)
  )

  // In order: the second test creates the tables the first expects to be missing.
  describe.skipIf(!Postgres.available())("postgres reachable (a throwaway cluster)", { concurrent: false }, () => {
    let pg: Postgres.Postgres
    beforeAll(async () => {
      pg = await Postgres.start()
    }, 30_000)
    afterAll(async () => {
      await pg?.stop()
    })
    const store = (): Settings.StoreSettings => ({
      kind: "postgres",
      url: pg.url,
      runnerHost: undefined,
      runnerPort: undefined
    })

    it.effect(
      "a fresh database: ✓ reachable, the server version, no tasks and no runners yet",
      () =>
        Effect.gen(function* () {
          const check = yield* storeCheck(store())
          assert.isTrue(check.ok, check.details.join("; "))
          assert.strictEqual(check.details[0], "reachable")
          assert.match(check.details[1]!, /^server version: PostgreSQL \d+/)
          assert.include(check.details[2], "tasks: none (no mcp_tasks table yet")
          assert.include(check.details[3], "runners: none")
        }),
      20_000
    )

    it.effect(
      "with a server's store open: the tasks by status and its runner, healthy",
      () =>
        Effect.gen(function* () {
          yield* Effect.scoped(
            Effect.gen(function* () {
              yield* Layer.build(ClusterTasks.layerPostgres({ url: pg.url }))
              yield* Effect.gen(function* () {
                const sql = yield* PgClient.PgClient
                for (const [i, status] of ["working", "completed", "completed"].entries()) {
                  yield* sql`INSERT INTO mcp_tasks (task_id, status, task, attempts)
                    VALUES (${`task-${i}`}, ${status}, ${JSON.stringify({ taskId: `task-${i}`, status })}, 0)`
                }
              }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(pg.url) }), { local: true }))
              const check = yield* storeCheck(store())
              assert.isTrue(check.ok, check.details.join("; "))
              assert.strictEqual(check.details[2], "tasks: 3 (1 working, 2 completed)")
              assert.match(check.details[3]!, /^runners: 127\.0\.0\.1:\d+ \(healthy, last heartbeat \d+ s ago\)$/)
            })
          )
        }),
      30_000
    )
  })
})
