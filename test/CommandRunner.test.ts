/**
 * CommandRunner on Node with real processes: output, exit codes, stdin, the
 * environment allowlist, working-directory confinement, the output cap, line
 * streaming, the output store and its listing, and process-tree cleanup on interrupt, timeout
 * and scope close, checked against the real process table (`ps`).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import { buildEnv, CommandRunner, type OutputStream, type Request } from "../src/CommandRunner.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const root = realpathSync(mkdtempSync(join(tmpdir(), "command-runner-")))
mkdirSync(join(root, "sub"))
writeFileSync(join(root, "file.txt"), "not a directory\n")
symlinkSync(tmpdir(), join(root, "escape"))

// A secret in the server's environment: it must not reach a child by default.
process.env["COMMAND_RUNNER_TEST_SECRET"] = "s3cret"

const provide = <A, E>(effect: Effect.Effect<A, E, CommandRunner>, options: NodeCommandRunner.Options = {}) =>
  effect.pipe(
    Effect.provide(NodeCommandRunner.layer({ killGrace: "300 millis", ...options })),
    Effect.provideService(WorkspaceRoot, root)
  )

const run = (request: Request) => Effect.flatMap(Effect.service(CommandRunner), (runner) => runner.run(request))

interface ProcessRow {
  readonly pid: number
  readonly pgid: number
  readonly stat: string
  readonly comm: string
}

/** The members of a process group, from the real process table. */
const groupMembers = (pgid: number): ReadonlyArray<ProcessRow> =>
  execFileSync("ps", ["-eo", "pid=,pgid=,stat=,comm="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 4)
    .map(([pid, group, stat, comm]) => ({ pid: Number(pid), pgid: Number(group), stat: stat!, comm: comm! }))
    .filter((row) => row.pgid === pgid)

const live = (rows: ReadonlyArray<ProcessRow>) => rows.filter((row) => !row.stat.startsWith("Z"))

/** Waits until the group has at least `count` live members (the command and its children started). */
const awaitMembers = (pgid: number, count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      if (live(groupMembers(pgid)).length >= count) return
      yield* Effect.sleep("10 millis")
    }
    assert.fail(`process group ${pgid} never had ${count} members`)
  })

/**
 * Checks the group is gone: no live member right after the run ended (no
 * orphan), and no entry at all shortly after — a grandchild whose parent
 * died first is re-parented to PID 1, which reaps it (here within ~1 s), so
 * no zombie is left behind either.
 */
const assertGroupGone = (pgid: number) =>
  Effect.gen(function* () {
    assert.deepStrictEqual(live(groupMembers(pgid)), [], "no live process of the group remains")
    for (let i = 0; i < 100; i++) {
      if (groupMembers(pgid).length === 0) return
      yield* Effect.sleep("50 millis")
    }
    assert.deepStrictEqual(groupMembers(pgid), [], "no zombie of the group remains")
  })

/** A shell that prints its pid (its process group, since each run is a group leader), then starts grandchildren. */
const grandchildren: Request = {
  command: "sh",
  args: ["-c", "echo $$; sleep 30 & sh -c 'sleep 30 & sleep 30 & wait' & wait"]
}

/** Runs `request` in a fiber and returns it with the pid its first stdout line names. */
const startWithPid = (request: Request) =>
  Effect.gen(function* () {
    const pid = yield* Deferred.make<number>()
    const fiber = yield* Effect.forkChild(
      run({
        ...request,
        onLine: (stream, line) => (stream === "stdout" ? Deferred.succeed(pid, Number(line)) : Effect.void)
      })
    )
    return { fiber, pid: yield* Deferred.await(pid) }
  })

describe("CommandRunner", () => {
  it.live("captures stdout, exit code 0 and a run id; the store returns the same output", () =>
    provide(
      Effect.gen(function* () {
        const result = yield* run({ command: "echo", args: ["hello", "world; rm -rf /"] })
        assert.strictEqual(result.stdout, "hello world; rm -rf /\n")
        assert.strictEqual(result.stderr, "")
        assert.strictEqual(result.exitCode, 0)
        assert.strictEqual(result.signal, null)
        assert.strictEqual(result.cwd, root)
        assert.isFalse(result.stdoutTruncated)
        assert.isTrue(result.durationMs >= 0)
        assert.match(result.runId, /^run-/)
        const stored = yield* Effect.flatMap(Effect.service(CommandRunner), (runner) => runner.output(result.runId))
        assert.strictEqual(stored?.stdout, result.stdout)
        assert.strictEqual(stored?.outcome, "exited")
      })
    )
  )

  it.live("reports a non-zero exit code and stderr", () =>
    provide(
      Effect.gen(function* () {
        const result = yield* run({ command: "sh", args: ["-c", "echo out; echo oops >&2; exit 3"] })
        assert.strictEqual(result.exitCode, 3)
        assert.strictEqual(result.stdout, "out\n")
        assert.strictEqual(result.stderr, "oops\n")
      })
    )
  )

  it.live("reports the signal that ended the command", () =>
    provide(
      Effect.gen(function* () {
        const result = yield* run({ command: "sh", args: ["-c", "kill -USR1 $$"] })
        assert.strictEqual(result.exitCode, null)
        assert.strictEqual(result.signal, "SIGUSR1")
      })
    )
  )

  it.live("writes stdin, and gives an empty stdin without it", () =>
    provide(
      Effect.gen(function* () {
        const withInput = yield* run({ command: "cat", stdin: "line 1\nline 2\n" })
        assert.strictEqual(withInput.stdout, "line 1\nline 2\n")
        const without = yield* run({ command: "cat" })
        assert.strictEqual(without.stdout, "")
        assert.strictEqual(without.exitCode, 0)
      })
    )
  )

  it.live("passes only allowlisted variables, plus those given explicitly", () =>
    provide(
      Effect.gen(function* () {
        const script = 'echo "[$COMMAND_RUNNER_TEST_SECRET][$HOME]"'
        const byDefault = yield* run({ command: "sh", args: ["-c", script] })
        assert.strictEqual(byDefault.stdout, `[][${process.env["HOME"] ?? ""}]\n`)
        const given = yield* run({ command: "sh", args: ["-c", script], env: { COMMAND_RUNNER_TEST_SECRET: "given" } })
        assert.isTrue(given.stdout.startsWith("[given]"))
        const inherited = yield* run({
          command: "sh",
          args: ["-c", script],
          inheritEnv: ["COMMAND_RUNNER_TEST_SECRET"]
        })
        assert.isTrue(inherited.stdout.startsWith("[s3cret]"))
        const all = yield* run({ command: "env" })
        assert.notInclude(all.stdout, "s3cret")
      })
    )
  )

  it("buildEnv: allowlist, then inherited names, then explicit values", () => {
    assert.deepStrictEqual(
      buildEnv({ PATH: "/bin", TOKEN: "t", EXTRA: "e" }, ["PATH", "HOME"], {
        inheritEnv: ["EXTRA"],
        env: { PATH: "/usr/bin", DEBUG: "1" }
      }),
      { PATH: "/usr/bin", EXTRA: "e", DEBUG: "1" }
    )
  })

  it.live("runs in a working directory under the root and rejects every escape", () =>
    provide(
      Effect.gen(function* () {
        const inSub = yield* run({ command: "pwd", cwd: "sub" })
        assert.strictEqual(inSub.stdout, `${join(root, "sub")}\n`)
        for (const cwd of ["..", "../..", "sub/../..", "/etc", tmpdir(), "escape"]) {
          const error = yield* Effect.flip(run({ command: "pwd", cwd }))
          assert.strictEqual(error._tag, "CwdOutsideRoot", cwd)
          assert.include(error.message, "relative to the root")
        }
        assert.strictEqual((yield* Effect.flip(run({ command: "pwd", cwd: "missing" })))._tag, "CwdNotFound")
        assert.strictEqual((yield* Effect.flip(run({ command: "pwd", cwd: "file.txt" })))._tag, "CwdNotFound")
      })
    )
  )

  it.live("fails with CommandNotFound for an unknown program, never through a shell", () =>
    provide(
      Effect.gen(function* () {
        const error = yield* Effect.flip(run({ command: "no-such-command-4f3a" }))
        assert.strictEqual(error._tag, "CommandNotFound")
        assert.include(error.message, "PATH")
        const shellString = yield* Effect.flip(run({ command: "echo hi" }))
        assert.strictEqual(shellString._tag, "CommandNotFound")
      })
    )
  )

  it.live("caps captured output per stream and flags the truncation", () =>
    provide(
      Effect.gen(function* () {
        const result = yield* run({
          command: "node",
          args: ["-e", "process.stdout.write('x'.repeat(5000)); process.stderr.write('e'.repeat(10))"],
          maxOutputBytes: 1000
        })
        assert.strictEqual(result.stdout, "x".repeat(1000))
        assert.isTrue(result.stdoutTruncated)
        assert.strictEqual(result.stderr, "e".repeat(10))
        assert.isFalse(result.stderrTruncated)
        assert.strictEqual(result.exitCode, 0)
      })
    )
  )

  it.live("streams output lines to onLine in order, the last one without a newline too", () =>
    provide(
      Effect.gen(function* () {
        const seen: Array<readonly [OutputStream, string]> = []
        yield* run({
          command: "sh",
          args: ["-c", "for i in 1 2 3 4 5; do echo line$i; done; echo problem >&2; printf tail"],
          onLine: (stream, line) => Effect.sync(() => void seen.push([stream, line]))
        })
        assert.deepStrictEqual(
          seen.filter(([stream]) => stream === "stdout").map(([, line]) => line),
          ["line1", "line2", "line3", "line4", "line5", "tail"]
        )
        assert.deepStrictEqual(
          seen.filter(([stream]) => stream === "stderr").map(([, line]) => line),
          ["problem"]
        )
      })
    )
  )

  it.live("a command that exits leaving background processes: the run ends and they are killed", () =>
    provide(
      Effect.gen(function* () {
        let started = false
        const result = yield* run({
          command: "sh",
          args: ["-c", "sleep 30 & echo $$; sleep 0.2; echo done"],
          onLine: (stream, line) =>
            stream === "stdout" && line !== "done"
              ? Effect.map(awaitMembers(Number(line), 2), () => void (started = true))
              : Effect.void
        })
        assert.strictEqual(result.exitCode, 0)
        assert.isTrue(started, "the background process was running")
        const [pid, done] = result.stdout.trim().split("\n")
        assert.strictEqual(done, "done")
        yield* assertGroupGone(Number(pid))
      })
    )
  )

  it.live("stdin the command does not read does not hide its exit code", () =>
    provide(
      Effect.gen(function* () {
        const result = yield* run({ command: "sh", args: ["-c", "exit 4"], stdin: "x".repeat(4 * 1024 * 1024) })
        assert.strictEqual(result.exitCode, 4)
      })
    )
  )

  it.live("keeps the last N runs in the store", () =>
    provide(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const first = yield* runner.run({ command: "echo", args: ["1"] })
        const second = yield* runner.run({ command: "echo", args: ["2"] })
        const third = yield* runner.run({ command: "echo", args: ["3"] })
        assert.isUndefined(yield* runner.output(first.runId))
        assert.strictEqual((yield* runner.output(second.runId))?.stdout, "2\n")
        assert.strictEqual((yield* runner.output(third.runId))?.stdout, "3\n")
      }),
      { storeMaxRuns: 2 }
    )
  )

  it.live("lists the stored runs newest first, without their output, evicted ones left out", () =>
    provide(
      Effect.gen(function* () {
        const runner = yield* CommandRunner
        const before = yield* Clock.currentTimeMillis
        const first = yield* runner.run({ command: "echo", args: ["1"] })
        const second = yield* runner.run({ command: "sh", args: ["-c", "echo é >&2; exit 5"] })
        const third = yield* runner.run({ command: "echo", args: ["333"] })
        const runs = yield* runner.runs
        assert.deepStrictEqual(
          runs.map((run) => run.runId),
          [third.runId, second.runId]
        )
        const [, failed] = runs
        assert.include(failed, {
          command: "sh",
          exitCode: 5,
          signal: null,
          outcome: "exited",
          stdoutBytes: 0,
          stderrBytes: 3,
          stderrTruncated: false
        })
        assert.notProperty(failed, "stdout")
        assert.notProperty(failed, "stderr")
        assert.isAtLeast(failed!.startedAt, before)
        assert.isUndefined(yield* runner.output(first.runId))
      }),
      { storeMaxRuns: 2 }
    )
  )

  it.live("interrupt kills the whole process tree: no orphan, no zombie", () =>
    provide(
      Effect.gen(function* () {
        const { fiber, pid } = yield* startWithPid(grandchildren)
        yield* awaitMembers(pid, 5)
        yield* Fiber.interrupt(fiber)
        yield* assertGroupGone(pid)
      })
    )
  )

  it.live("timeout kills the whole process tree and fails with TimedOut; the output stays readable", () =>
    provide(
      Effect.gen(function* () {
        const { fiber, pid } = yield* startWithPid({ ...grandchildren, timeout: "500 millis" })
        yield* awaitMembers(pid, 5)
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.strictEqual(error._tag, "TimedOut")
        if (error._tag !== "TimedOut") return
        assert.include(error.message, "raise the timeout")
        yield* assertGroupGone(pid)
        const stored = yield* Effect.flatMap(Effect.service(CommandRunner), (runner) => runner.output(error.runId))
        assert.strictEqual(stored?.outcome, "timedOut")
        assert.strictEqual(stored?.stdout, `${pid}\n`)
      })
    )
  )

  it.live("closing the scope the run was forked in kills the whole process tree", () =>
    provide(
      Effect.gen(function* () {
        const pid = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* Deferred.make<number>()
            yield* Effect.forkScoped(
              run({
                ...grandchildren,
                onLine: (stream, line) => (stream === "stdout" ? Deferred.succeed(started, Number(line)) : Effect.void)
              })
            )
            const pid = yield* Deferred.await(started)
            yield* awaitMembers(pid, 5)
            return pid
          })
        )
        yield* assertGroupGone(pid)
      })
    )
  )

  it.live("a tree that ignores SIGTERM gets SIGKILL after the grace period", () =>
    provide(
      Effect.gen(function* () {
        const { fiber, pid } = yield* startWithPid({
          command: "sh",
          args: ["-c", "trap '' TERM; echo $$; sleep 30 & sleep 30 & wait; wait; wait"],
          killGrace: "500 millis"
        })
        yield* awaitMembers(pid, 3)
        const before = performance.now()
        yield* Fiber.interrupt(fiber)
        const took = performance.now() - before
        assert.isTrue(took >= 450, `interrupt returned after ${took} ms, before the grace period`)
        assert.isTrue(took < 2500, `interrupt took ${took} ms`)
        yield* assertGroupGone(pid)
      })
    )
  )
})

describe("CommandRunner: the PATH cannot be hijacked from the workspace", () => {
  it("safePath drops empty, relative and in-root entries", () => {
    assert.strictEqual(
      NodeCommandRunner.safePath(`:/usr/bin:.:node_modules/.bin:${root}/node_modules/.bin:${root}:/bin:`, root),
      "/usr/bin:/bin"
    )
    // A symlink pointing into the root counts as inside it.
    // (A link left by an earlier run with the same pid is replaced.)
    rmSync(join(tmpdir(), `into-root-${process.pid}`), { force: true })
    symlinkSync(join(root, "sub"), join(tmpdir(), `into-root-${process.pid}`))
    assert.strictEqual(NodeCommandRunner.safePath(`${join(tmpdir(), `into-root-${process.pid}`)}:/bin`, root), "/bin")
  })

  it.live("a bare name never runs a program the workspace planted, whatever the PATH says", () =>
    provide(
      Effect.gen(function* () {
        const planted = "#!/bin/sh\necho PLANTED\n"
        mkdirSync(join(root, "node_modules", ".bin"), { recursive: true })
        for (const file of [join(root, "node_modules", ".bin", "git"), join(root, "git"), join(root, "sub", "git")]) {
          writeFileSync(file, planted)
          chmodSync(file, 0o755)
        }
        for (const path of [
          `node_modules/.bin:${process.env.PATH}`,
          `:${process.env.PATH}`,
          `.:${process.env.PATH}`,
          `${join(root, "node_modules", ".bin")}:${process.env.PATH}`
        ]) {
          const result = yield* run({ command: "git", args: ["--version"], env: { PATH: path }, cwd: "sub" })
          assert.notInclude(result.stdout, "PLANTED", path)
          assert.match(result.stdout, /^git version/, path)
        }
        // Only in-root directories on the PATH: nothing to run.
        const error = yield* Effect.flip(
          run({ command: "git", args: ["--version"], env: { PATH: join(root, "node_modules", ".bin") } })
        )
        assert.strictEqual(error._tag, "CommandNotFound")
      })
    )
  )
})
