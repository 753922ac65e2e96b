/**
 * The store of fe_verify's step logs and the `fe://build/{id}` template
 * over it: the bounds (the last runs, the characters in all, a run kept
 * whole), a long log cut in its middle, and through the test kit a dropped
 * id answered "resource not found" (−32002), the listing paged newest
 * first, and ids completed. fe_verify writing the logs, over real
 * processes, is in FeVerify.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { buildLog } from "../capabilities/fe/buildLog.ts"
import {
  type BuildLog,
  buildLogUri,
  FeBuildLogs,
  make,
  maxLogChars,
  renderStepLog
} from "../capabilities/fe/verify/logs.ts"
import * as Capability from "../src/Capability.ts"
import { TestClient } from "../src/testing.ts"

const log = (run: string, step: string, text = `output of ${run} ${step}`): BuildLog => ({
  id: `${run}-${step}`,
  run,
  step,
  startedAt: Date.UTC(2026, 0, 1),
  title: `fe_verify ${step}: passed (tool)`,
  description: "0 errors, 0 warnings (1 ms).",
  text
})

describe("fe_verify's step logs", () => {
  it("keeps the last runs, whole, newest first", () => {
    const store = make({ maxRuns: 2 })
    store.add([log("a", "typecheck"), log("a", "lint")])
    store.add([log("b", "typecheck")])
    assert.deepStrictEqual(
      store.list().map((l) => l.id),
      ["b-typecheck", "a-typecheck", "a-lint"]
    )
    store.add([log("c", "test")])
    assert.isUndefined(store.get("a-typecheck"))
    assert.isUndefined(store.get("a-lint"))
    assert.strictEqual(store.get("b-typecheck")?.text, "output of b typecheck")
    assert.deepStrictEqual(
      store.list().map((l) => l.id),
      ["c-test", "b-typecheck"]
    )
  })

  it("drops the oldest runs past the characters it keeps, but never the run just added", () => {
    const store = make({ maxChars: 100 })
    store.add([log("a", "lint", "x".repeat(60))])
    store.add([log("b", "lint", "y".repeat(30))])
    assert.strictEqual(store.list().length, 2)
    store.add([log("c", "lint", "z".repeat(20))])
    assert.deepStrictEqual(
      store.list().map((l) => l.run),
      ["c", "b"]
    )
    store.add([log("d", "lint", "w".repeat(500))])
    assert.deepStrictEqual(
      store.list().map((l) => l.run),
      ["d"]
    )
  })

  it("a log longer than the bound keeps its beginning and its end", () => {
    const command = {
      command: "node_modules/vitest/vitest.mjs run",
      outcome: "exited with code 1",
      durationMs: 12.4,
      stdout: `first line\n${"m".repeat(3 * maxLogChars)}\nlast line\n`,
      stderr: "",
      stdoutTruncated: false,
      stderrTruncated: true
    }
    const text = renderStepLog({
      run: "r1",
      step: "test",
      startedAt: 0,
      tool: "vitest 5.1.1",
      status: "failed",
      detail: "3 tests: 2 passed, 1 failed, 0 skipped (12 ms).",
      commands: [command]
    })
    assert.isAtMost(text.length, maxLogChars)
    assert.isTrue(
      text.startsWith(
        "fe_verify test (run r1, started 1970-01-01T00:00:00.000Z)\ntool: vitest 5.1.1\n" +
          "status: failed — 3 tests: 2 passed, 1 failed, 0 skipped (12 ms).\n\n" +
          "$ node_modules/vitest/vitest.mjs run\nexited with code 1 after 12 ms\n--- stdout ---\nfirst line\n"
      )
    )
    assert.match(text, /\n\[… \d+ characters left out: the log keeps 1048576 …\]\n/)
    assert.isTrue(text.endsWith("last line\n--- stderr (cut at fe.maxOutputBytes; the end is missing) ---\n"))
  })
})

const serve = (store: ReturnType<typeof make>) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ resources: [buildLog] })).pipe(
      Layer.provide(Layer.succeed(FeBuildLogs, store))
    )
  )

describe("fe://build/{id}", () => {
  it.effect("reads a kept log; a dropped or unknown one is resource not found", () =>
    Effect.gen(function* () {
      const store = make({ maxRuns: 1 })
      const client = yield* serve(store)
      store.add([log("aaaa1111", "typecheck")])
      assert.deepStrictEqual(yield* client.readResource(buildLogUri("aaaa1111-typecheck")), [
        { uri: "fe://build/aaaa1111-typecheck", mimeType: "text/plain", text: "output of aaaa1111 typecheck" }
      ])
      store.add([log("bbbb2222", "typecheck")])
      const dropped = yield* Effect.flip(client.readResource("fe://build/aaaa1111-typecheck"))
      assert.strictEqual(dropped.code, -32002)
      assert.include(dropped.message, 'No fe_verify step log "aaaa1111-typecheck"')
      assert.include(dropped.message, "Call fe_verify again")
    })
  )

  it.effect("lists the kept logs newest first, 50 a page, and completes their ids", () =>
    Effect.gen(function* () {
      const store = make()
      const client = yield* serve(store)
      for (let run = 0; run < 20; run++) {
        const id = `run${String(run).padStart(2, "0")}`
        store.add([log(id, "typecheck"), log(id, "lint"), log(id, "test")])
      }
      const first = yield* client.request("resources/list", {})
      assert.lengthOf(first.resources, 50)
      assert.deepStrictEqual(first.resources[0], {
        uri: "fe://build/run19-typecheck",
        name: "run19-typecheck",
        title: "fe_verify typecheck: passed (tool)",
        description: "0 errors, 0 warnings (1 ms). Started 2026-01-01T00:00:00.000Z.",
        mimeType: "text/plain"
      })
      const second = yield* client.request("resources/list", { cursor: first.nextCursor })
      assert.deepStrictEqual(
        second.resources.map((r: { name: string }) => r.name),
        [
          "run03-test",
          "run02-typecheck",
          "run02-lint",
          "run02-test",
          "run01-typecheck",
          "run01-lint",
          "run01-test"
        ].concat(["run00-typecheck", "run00-lint", "run00-test"])
      )
      assert.isUndefined(second.nextCursor)
      const completed = yield* client.request("completion/complete", {
        ref: { type: "ref/resource", uri: "fe://build/{id}" },
        argument: { name: "id", value: "run19-" }
      })
      assert.deepStrictEqual(completed.completion.values, ["run19-typecheck", "run19-lint", "run19-test"])
    })
  )
})
