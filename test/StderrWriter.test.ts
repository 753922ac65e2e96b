import { spawn } from "node:child_process"
import { resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Logging from "../layers/Logging.ts"

// The process's stderr writer (layers/Logging.ts): a worker thread writes the lines, so a client that does not read
// stderr never blocks the server; past `maxPendingLines` waiting lines, lines are dropped and counted.
describe("Logging.stderr(): the stderr worker", { concurrent: false }, () => {
  const flood = (count: number) =>
    new Promise<{ readonly loopMs: number; readonly dropped: number; readonly stderr: string }>((done, fail) => {
      const child = spawn(process.execPath, [resolve(import.meta.dirname, "fixtures/stderr-flood.ts"), String(count)], {
        stdio: ["pipe", "pipe", "pipe"]
      })
      child.on("error", fail)
      let stdout = ""
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8")
        const match = /done (\d+) (\d+)\n/.exec(stdout)
        if (match === null) return
        // Only now is stderr read: until then, the pipe was full and the worker blocked on it.
        let stderr = ""
        child.stderr.on("data", (data: Buffer) => (stderr += data.toString("utf8")))
        child.on("close", () => done({ loopMs: Number(match[1]), dropped: Number(match[2]), stderr }))
        child.stdin.end("exit\n")
      })
    })

  it("a reader that does not keep up drops lines, counted in a line of their own; nothing is cut", async () => {
    const count = 3 * Logging.maxPendingLines
    const { dropped, stderr } = await flood(count)
    assert.isAbove(dropped, 0)
    const lines = stderr.split("\n").filter((line) => line !== "")
    // Every line whole JSON: the worker writes whole batches, in order.
    const parsed = lines.map((line) => JSON.parse(line))
    const requests = parsed.filter((line) => line.message === "request")
    // Each drop is said in a warning when there is room again: together they count every dropped line.
    const warnings = parsed.filter((line) => / log lines? dropped: /.test(String(line.message)))
    assert.isAbove(warnings.length, 0)
    assert.strictEqual(
      warnings.reduce((sum, line) => sum + line.annotations.dropped, 0),
      dropped
    )
    assert.strictEqual(requests.length + dropped, count)
    // In order: the ids of the lines written only grow.
    for (let i = 1; i < requests.length; i++) assert.isAbove(requests[i].annotations.id, requests[i - 1].annotations.id)
    assert.strictEqual(parsed.at(-1).message, "last")
  }, 60_000)

  it("lines within the bound are all written, in order, the last one before the process exits", async () => {
    const count = 20_000
    const { dropped, stderr } = await flood(count)
    assert.strictEqual(dropped, 0)
    const parsed = stderr
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line))
    assert.strictEqual(parsed.length, count + 1)
    assert.deepStrictEqual(
      parsed.slice(0, count).map((line) => line.annotations.id),
      Array.from({ length: count }, (_, i) => i)
    )
    assert.strictEqual(parsed[0].annotations.correlation_id, "flood-0")
    assert.strictEqual(parsed[0].annotations.component, "system")
    assert.notProperty(parsed[0].annotations, "error")
  }, 60_000)
})
