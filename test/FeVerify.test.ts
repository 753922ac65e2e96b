/**
 * fe_verify's own behaviour, over the real NodeCommandRunner and Node
 * workspace in temporary roots whose node_modules hold small stand-in tools
 * (real Node programs with a `bin`, as npm installs them): the steps a call
 * chooses, a tool that is not installed, a tool that prints no report, the
 * files option checked against the root, progress per step, cancellation
 * and the step timeout killing the tool's whole process tree (checked
 * against the process table). What the real tsc, ESLint, Biome, Vitest and
 * Jest report, and how it is parsed, is in FeFixtures/FeLoop tests over the
 * installed fixtures.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll } from "vitest"
import { ExecCapability } from "../capabilities/exec/index.ts"
import { FeCapability } from "../capabilities/fe/index.ts"
import { defaultFeSettings, FeSettings } from "../capabilities/fe/settings.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Policy from "../src/Policy.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

/** A root with these files (a stand-in tool is a package in node_modules with a `bin`). */
const makeRoot = (files: Record<string, string>): string => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "fe-verify-")))
  roots.push(root)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const toolPackage = (name: string, bin: string, script: string): Record<string, string> => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: "0.0.0-stand-in", bin: { [bin]: "cli.js" } }),
  [`node_modules/${name}/cli.js`]: script
})

// Writes its pid (the process group the runner made) to a file, starts two children, and waits for ever.
const hangingTool = `
const { spawn } = require("node:child_process")
spawn("sleep", ["300"], { stdio: "ignore" })
spawn("sleep", ["300"], { stdio: "ignore" })
require("node:fs").writeFileSync("tool.pid", String(process.pid))
setInterval(() => {}, 1000)
`

const client = (root: string, options: { readonly progressInterval?: number; readonly tasks?: boolean } = {}) =>
  TestClient.make(
    FeCapability.pipe(
      Layer.provide(NodeCommandRunner.layer()),
      Layer.provide(NodeWorkspace.layer({ root })),
      Layer.provide(Layer.succeed(WorkspaceRoot, root)),
      Layer.provide(Layer.succeed(FeSettings, { ...defaultFeSettings, defaultStepTimeoutMs: 60_000 })),
      Layer.provideMerge(
        Layer.mergeAll(
          ServerConfig.layer({ shutdownGraceMs: 0 }),
          Policy.layer({ ...Policy.defaults, progressInterval: options.progressInterval ?? 0 })
        )
      )
    ),
    // A 2026-07-28 client that declared the tasks extension: fe_verify answers with a task.
    options.tasks === true ? { protocolVersion: "2026-07-28", extensions: { "io.modelcontextprotocol/tasks": {} } } : {}
  )

const wallSleep = (ms: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

const liveMembers = (pgid: number): ReadonlyArray<number> =>
  execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 3 && Number(cols[1]) === pgid && !cols[2]!.startsWith("Z"))
    .map((cols) => Number(cols[0]))

const awaitPid = (file: string, members: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      if (existsSync(file)) {
        // The file may be there before its content: an empty one would read as 0, the group of the kernel's threads.
        const text = readFileSync(file, "utf8").trim()
        const pid = /^\d+$/.test(text) ? Number(text) : 0
        if (pid > 0 && liveMembers(pid).length >= members) return pid
      }
      yield* wallSleep(10)
    }
    return assert.fail(`${file} never appeared with ${members} live processes`)
  })

const awaitGroupGone = (pgid: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 500; i++) {
      if (liveMembers(pgid).length === 0) return
      yield* wallSleep(10)
    }
    assert.deepStrictEqual(liveMembers(pgid), [], "no process of the tool's group is left")
  })

describe("fe_verify", () => {
  it.effect("runs only the chosen steps, and says what is missing when a tool is not installed", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5", eslint: "9", vitest: "4" } }),
        "tsconfig.json": "{}",
        "eslint.config.js": "export default []\n",
        "pnpm-lock.yaml": ""
      })
      const fe = yield* client(root)
      const result = (yield* fe.callToolStructured("fe_verify", { steps: ["lint", "typecheck"] })) as any
      assert.deepStrictEqual(
        result.steps.map((s: any) => [s.step, s.status, s.tool]),
        [
          ["typecheck", "error", "typescript"],
          ["lint", "error", "eslint"]
        ]
      )
      assert.include(result.steps[0].detail, "typescript is not installed")
      // The install command is the project's package manager's.
      assert.include(result.steps[0].detail, '"pnpm install"')
      assert.include(result.steps[0].detail, "pnpm add -D typescript")
      assert.isFalse(result.ok)
      assert.strictEqual(result.problemsTotal, 0)
      assert.include(result.next, "Fix what stopped the steps")
      assert.deepStrictEqual(result.project, {
        framework: "none",
        packageManager: "pnpm",
        tsconfig: "tsconfig.json",
        linter: "eslint",
        testRunner: "vitest"
      })
    })
  )

  it.effect("skips the steps the project has nothing for", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "package.json": "{}" })
      const result = (yield* (yield* client(root)).callToolStructured("fe_verify", {})) as any
      assert.deepStrictEqual(
        result.steps.map((s: any) => [s.step, s.status]),
        [
          ["typecheck", "skipped"],
          ["lint", "skipped"],
          ["test", "skipped"]
        ]
      )
      assert.isTrue(result.ok)
      assert.include(result.steps[0].detail, "No tsconfig.json")
    })
  )

  it.effect("a JavaScript project with a jsconfig.json and no typescript has no typecheck to run", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "package.json": "{}", "jsconfig.json": "{}" })
      const result = (yield* (yield* client(root)).callToolStructured("fe_verify", { steps: ["typecheck"] })) as any
      assert.strictEqual(result.steps[0].status, "skipped")
      assert.include(result.steps[0].detail, "JavaScript")
      assert.isTrue(result.ok)
    })
  )

  it.effect("a tool that exits without its report is an error step showing what it printed", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { eslint: "9" } }),
        "eslint.config.js": "export default []\n",
        ...toolPackage(
          "eslint",
          "eslint",
          "process.stderr.write(\"Oops! Something went wrong! :(\\nESLint: 9.0.0\\nCannot find package 'typescript-eslint'\\n\"); process.exit(2)"
        )
      })
      const result = (yield* (yield* client(root)).callToolStructured("fe_verify", { steps: ["lint"] })) as any
      const lint = result.steps[0]
      assert.strictEqual(lint.status, "error")
      assert.strictEqual(lint.tool, "eslint 0.0.0-stand-in")
      assert.strictEqual(lint.command, "node_modules/eslint/cli.js --format json .")
      assert.include(lint.detail, "exited with code 2 without a JSON report")
      assert.include(lint.detail, "Cannot find package 'typescript-eslint'")
      assert.lengthOf(lint.runIds, 1)
    })
  )

  it.effect("each step's whole output is the resource fe://build/<id>, without the exec capability", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5", eslint: "9" } }),
        "tsconfig.json": "{}",
        "eslint.config.js": "export default []\n",
        "src/a.ts": "export const a: string = 1\n",
        ...toolPackage(
          "typescript",
          "tsc",
          `console.log("src/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'.")
console.error("a line only the log keeps")
process.exit(2)`
        ),
        // More than the step's detail quotes (its last 1,500 characters): the log has all of it.
        ...toolPackage(
          "eslint",
          "eslint",
          `process.stderr.write("Oops! Something went wrong! :(\\n" + "x".repeat(3000) + "\\nthe end\\n"); process.exit(2)`
        )
      })
      const fe = yield* client(root)
      const result = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck", "lint"] })) as any
      const [typecheck, lint] = result.steps
      assert.strictEqual(typecheck.status, "failed")
      assert.match(typecheck.log, /^fe:\/\/build\/[0-9a-f]{8}-typecheck$/)
      assert.strictEqual(lint.log, typecheck.log.replace(/typecheck$/, "lint"))
      assert.strictEqual(lint.status, "error")
      assert.include(lint.detail, `read ${lint.log} (resources/read) for the whole output`)
      assert.notInclude(lint.detail, "Oops!")
      assert.include(result.next, "read its log")

      const [log] = yield* fe.readResource(typecheck.log)
      assert.strictEqual(log.uri, typecheck.log)
      assert.strictEqual(log.mimeType, "text/plain")
      const lines = log.text.split("\n")
      assert.match(lines[0], /^fe_verify typecheck \(run [0-9a-f]{8}, started \d{4}-\d\d-\d\dT/)
      assert.deepStrictEqual(lines.slice(1, 3), [
        "tool: tsc 0.0.0-stand-in",
        "status: failed — 1 error, 0 warnings (" + lines[2].split("(")[1]
      ])
      assert.include(
        log.text,
        "\n\n$ node_modules/typescript/cli.js --noEmit --pretty false -p tsconfig.json\nexited with code 2 after "
      )
      assert.include(
        log.text,
        "--- stdout ---\nsrc/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'.\n" +
          "--- stderr ---\na line only the log keeps\n"
      )
      const [lintLog] = yield* fe.readResource(lint.log)
      assert.include(lintLog.text, `--- stderr ---\nOops! Something went wrong! :(\n${"x".repeat(3000)}\nthe end\n`)

      // Listed for resources/list (newest run first), under the fe capability's template.
      assert.deepStrictEqual(
        (yield* fe.listResources).map((r: any) => [r.uri, r.name, r.title]),
        [
          [
            typecheck.log,
            typecheck.log.slice("fe://build/".length),
            "fe_verify typecheck: failed (tsc 0.0.0-stand-in)"
          ],
          [lint.log, lint.log.slice("fe://build/".length), "fe_verify lint: error (eslint 0.0.0-stand-in)"]
        ]
      )
      assert.deepStrictEqual(
        (yield* fe.listResourceTemplates).map((t: any) => [t.name, t.uriTemplate]),
        [["fe_build_log", "fe://build/{id}"]]
      )

      // A second run gets new logs; the first run's stay readable.
      const again = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck"] })) as any
      assert.notStrictEqual(again.steps[0].log, typecheck.log)
      assert.strictEqual((yield* fe.listResources)[0].uri, again.steps[0].log)
      assert.include((yield* fe.readResource(typecheck.log))[0].text, "a line only the log keeps")

      // An id the store does not hold is "resource not found".
      const missing = yield* Effect.flip(fe.readResource("fe://build/00000000-typecheck"))
      assert.strictEqual(missing.code, -32002)
      assert.include(missing.message, 'No fe_verify step log "00000000-typecheck"')
    })
  )

  it.effect("with the exec capability beside it, the step's log and the runner's run log are both readable", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5" } }),
        "tsconfig.json": "{}",
        ...toolPackage("typescript", "tsc", `console.log("all good")`)
      })
      const fe = yield* TestClient.make(
        Layer.mergeAll(FeCapability, ExecCapability).pipe(
          Layer.provide(NodeCommandRunner.layer()),
          Layer.provide(NodeWorkspace.layer({ root })),
          Layer.provide(Layer.succeed(WorkspaceRoot, root))
        )
      )
      const result = (yield* fe.callToolStructured("fe_verify", { steps: ["typecheck"] })) as any
      const [step] = result.steps
      assert.strictEqual(step.status, "passed")
      assert.include((yield* fe.readResource(step.log))[0].text, "--- stdout ---\nall good\n")
      const [run] = yield* fe.readResource(`logs://run/${step.runIds[0]}`)
      assert.include(run.text, "all good")
      assert.deepStrictEqual((yield* fe.listResourceTemplates).map((t: any) => t.uriTemplate).sort(), [
        "fe://build/{id}",
        "logs://run/{id}"
      ])
    })
  )

  it.effect("a step that ran nothing has no log", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "package.json": "{}", "tsconfig.json": "{}" })
      const result = (yield* (yield* client(root)).callToolStructured("fe_verify", { steps: ["typecheck"] })) as any
      assert.strictEqual(result.steps[0].status, "error")
      assert.isUndefined(result.steps[0].log)
    })
  )

  it.effect("files must be under the root and exist; they are passed to the linter as ./paths", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { eslint: "9" } }),
        "eslint.config.js": "export default []\n",
        "src/a.ts": "export {}\n",
        // The stand-in prints its arguments as an ESLint report with one message, so what it got is visible.
        ...toolPackage(
          "eslint",
          "eslint",
          `const args = process.argv.slice(2)
console.log(JSON.stringify([{ filePath: require("node:path").resolve(args[args.length - 1]), messages: [{ ruleId: "no-console", severity: 1, message: args.join(" "), line: 1, column: 1 }] }]))`
        )
      })
      const fe = yield* client(root)
      assert.strictEqual(
        TestClient.errorCode(yield* fe.callTool("fe_verify", { files: ["../etc/passwd"] })),
        "invalid_file"
      )
      assert.strictEqual(
        TestClient.errorCode(yield* fe.callTool("fe_verify", { files: ["src/none.ts"] })),
        "invalid_file"
      )
      const result = (yield* fe.callToolStructured("fe_verify", { steps: ["lint"], files: ["./src/a.ts"] })) as any
      assert.strictEqual(result.steps[0].status, "passed")
      assert.strictEqual(result.steps[0].warnings, 1)
      assert.deepStrictEqual(result.problems[0], {
        source: "eslint",
        kind: "lint",
        file: "src/a.ts",
        line: 1,
        column: 1,
        code: "no-console",
        message: "--format json ./src/a.ts",
        severity: "warning",
        suggestion:
          "Call fe_doctor with this problem for the cause of no-console at src/a.ts:1 and a concrete fix (or fe_doctor with no arguments for every problem of this run)."
      })
      assert.isTrue(result.ok, "warnings only")
      assert.include(result.summary, "with 1 warning")
    })
  )

  it.effect("reports progress at the start and end of each step", () =>
    Effect.gen(function* () {
      const root = makeRoot({ "package.json": "{}" })
      const fe = yield* client(root)
      const seen: Array<string> = []
      yield* fe.callTool(
        "fe_verify",
        { steps: ["lint", "test"] },
        { onProgress: (p) => Effect.sync(() => seen.push(`${p.progress}/${p.total} ${p.message}`)) }
      )
      assert.deepStrictEqual(seen, [
        "0/4 lint: running",
        "1/4 lint: skipped — No linter configured (no ESLint or Biome configuration or dependency).",
        "2/4 test: running",
        "3/4 test: skipped — No test runner configured (no Vitest or Jest dependency)."
      ])
    })
  )

  it.effect("cancelling the call kills the running tool and every process it started", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5" } }),
        "tsconfig.json": "{}",
        ...toolPackage("typescript", "tsc", hangingTool)
      })
      const fe = yield* client(root)
      const call = yield* fe.send("tools/call", { name: "fe_verify", arguments: {} })
      const pid = yield* awaitPid(join(root, "tool.pid"), 3)
      yield* fe.cancel(call.id, "the user moved on")
      yield* awaitGroupGone(pid)
      // The server goes on serving.
      assert.deepStrictEqual(yield* fe.request("ping"), {})
    })
  )

  it.effect("as a task (2026-07-28), tasks/cancel kills the running tool and every process it started", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5" } }),
        "tsconfig.json": "{}",
        ...toolPackage("typescript", "tsc", hangingTool)
      })
      const fe = yield* client(root, { tasks: true })
      const created = yield* fe.request("tools/call", { name: "fe_verify", arguments: {} })
      assert.strictEqual(created.resultType, "task")
      const pid = yield* awaitPid(join(root, "tool.pid"), 3)
      assert.strictEqual((yield* fe.request("tasks/get", { taskId: created.taskId })).status, "working")
      yield* fe.request("tasks/cancel", { taskId: created.taskId })
      yield* awaitGroupGone(pid)
      assert.strictEqual((yield* fe.request("tasks/get", { taskId: created.taskId })).status, "cancelled")
    })
  )

  it.effect("as a task, the steps' result is the task's result", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5" } }),
        "tsconfig.json": "{}"
      })
      const fe = yield* client(root, { tasks: true })
      const created = yield* fe.request("tools/call", {
        name: "fe_verify",
        arguments: { steps: ["typecheck"] },
        _meta: { progressToken: "verify-1" }
      })
      assert.strictEqual(created.resultType, "task")
      let task: any
      for (let i = 0; i < 500; i++) {
        task = yield* fe.request("tasks/get", { taskId: created.taskId })
        if (task.status !== "working") break
        yield* wallSleep(10)
      }
      assert.strictEqual(task.status, "completed")
      assert.strictEqual(task.result.structuredContent.steps[0].status, "error")
      assert.include(task.result.structuredContent.steps[0].detail, "typescript is not installed")
      // A task sends no progress, even when the call that created it asked for some.
      const progress = (yield* fe.notifications).filter((n) => n.method === "notifications/progress")
      assert.deepStrictEqual(progress, [])
    })
  )

  it.effect("a step past its timeout is killed with its tree and reported timed_out", () =>
    Effect.gen(function* () {
      const root = makeRoot({
        "package.json": JSON.stringify({ devDependencies: { typescript: "5" } }),
        "tsconfig.json": "{}",
        ...toolPackage("typescript", "tsc", hangingTool)
      })
      const fe = yield* client(root)
      const call = yield* fe.send("tools/call", { name: "fe_verify", arguments: { timeoutMs: 5000 } })
      const pid = yield* awaitPid(join(root, "tool.pid"), 3)
      yield* TestClock.adjust("4999 millis")
      assert.isAtLeast(liveMembers(pid).length, 3, "still running just before the timeout")
      yield* TestClock.adjust("1 millis")
      const result = (yield* call.response).structuredContent
      assert.strictEqual(result.steps[0].status, "timed_out")
      assert.include(result.steps[0].detail, "did not finish within 5.0 s")
      assert.isFalse(result.ok)
      yield* awaitGroupGone(pid)
      // Its log says how it ended.
      const [log] = yield* fe.readResource(result.steps[0].log)
      assert.include(log.text, "timed out after 5000 ms (killed with every process it started)")
    })
  )
})
