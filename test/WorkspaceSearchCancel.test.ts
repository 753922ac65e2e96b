/**
 * `search`'s time budget and cancellation on the local disk, with real
 * search workers and real time (the budgets are what is tested: these tests
 * wait for them, they never sleep): a regular expression that backtracks
 * catastrophically (`(x|x)*y` passes the static nested-quantifier check) is
 * stopped when the time budget ends, the answer names the file it was stuck
 * on, its worker is terminated and the next search is answered; an
 * interrupted search (a per-call timeout, a client's cancellation) drops its
 * queued batches and its stuck workers are terminated (after
 * `SearchPool.stuckMillis`), so the next search is answered; pages cut by
 * the time budget hold every match once.
 *
 * One test at a time: the tests count the workers of the process's pool.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { WorkspaceCapability } from "../capabilities/workspace/index.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as SearchPool from "../src/internal/searchPool.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"

const base = mkdtempSync(join(tmpdir(), "workspace-search-cancel-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

// 2^40 ways to match 40 x's with (x|x)*, none followed by y.
const stuckLine = "x".repeat(40) + "\n"
const stuckQuery = { query: "(x|x)*y", regex: true } as const

const slow = join(base, "slow")
mkdirSync(slow, { recursive: true })
for (let i = 0; i < 20; i++) writeFileSync(join(slow, `a${String(i).padStart(2, "0")}.txt`), "needle in a\n")
writeFileSync(join(slow, "b.txt"), stuckLine)
writeFileSync(join(slow, "c.txt"), "needle in c\n")
const slowMatches = [...Array.from({ length: 20 }, (_, i) => `a${String(i).padStart(2, "0")}.txt`), "c.txt"]

// Many stuck files: every worker of the pool gets one.
const crowded = join(base, "crowded")
for (let i = 0; i < 200; i++) {
  mkdirSync(join(crowded, `d${i % 10}`), { recursive: true })
  writeFileSync(join(crowded, `d${i % 10}`, `f${String(i).padStart(3, "0")}.txt`), stuckLine)
}

const idle = () => SearchPool.stats().busy === 0 && SearchPool.stats().queued === 0
// Stuck workers are terminated SearchPool.stuckMillis after their batch was cancelled: checked every 20 ms, up to 3 s.
const waitIdle = Effect.suspend(() => (idle() ? Effect.void : Effect.fail("busy"))).pipe(
  Effect.retry({ schedule: Schedule.spaced("20 millis"), times: 150 }),
  Effect.orElseSucceed(() => undefined),
  Effect.map(() => idle())
)

describe("search time budget and cancellation", { concurrent: false }, () => {
  it.live("a catastrophic regex stops at the time budget, names the file, and the next search is answered", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: slow, maxSearchMillis: 2000 })
      const result = yield* ws.search(stuckQuery)
      assert.strictEqual(result.truncated, true)
      assert.strictEqual(result.stoppedBy, "time_budget")
      assert.strictEqual(result.pendingPath, "b.txt")
      // The files before it that were taken back (the first batch at least); the cursor continues after them.
      assert.isDefined(result.lastPath)
      assert.isTrue(result.lastPath! >= "a15.txt" && result.lastPath! < "b.txt", result.lastPath)
      assert.isAtLeast(result.filesScanned, 16)
      assert.isDefined(result.nextCursor)
      const next = yield* ws.search({ query: "needle" })
      assert.deepStrictEqual(
        next.matches.map((match) => match.path),
        slowMatches
      )
      assert.isTrue(yield* waitIdle, `the stuck worker was terminated: ${JSON.stringify(SearchPool.stats())}`)
    })
  )

  it.live("an interrupted search drops its queued work and its stuck workers are terminated", () =>
    Effect.gen(function* () {
      const ws = yield* NodeWorkspace.make({ root: crowded, maxSearchMillis: 600_000 })
      const outcome = yield* Effect.result(Effect.timeout(ws.search(stuckQuery), "500 millis"))
      assert.strictEqual(outcome._tag, "Failure", "the search was stuck until the timeout interrupted it")
      assert.strictEqual(SearchPool.stats().queued, 0, "its queued batches were dropped")
      // Every worker of the pool was stuck: if they still were, this search would never be answered (the stuck ones
      // are terminated SearchPool.stuckMillis after the interruption).
      const next = yield* NodeWorkspace.make({ root: slow }).pipe(
        Effect.flatMap((other) => other.search({ query: "needle" }))
      )
      assert.strictEqual(next.matches.length, slowMatches.length)
      assert.isTrue(yield* waitIdle, `no worker left busy: ${JSON.stringify(SearchPool.stats())}`)
    })
  )

  it.live("workspace_search says where it was stuck and what to do; the server serves on", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(
        WorkspaceCapability.pipe(Layer.provide(NodeWorkspace.layer({ root: slow, maxSearchMillis: 2000 })))
      ).pipe(Effect.provide(ServerConfig.layer({ shutdownGraceMs: 0 })))
      const stuck = (yield* client.callTool("workspace_search", stuckQuery)).structuredContent as any
      assert.strictEqual(stuck.truncated, true)
      assert.strictEqual(stuck.stoppedBy, "time_budget")
      assert.strictEqual(stuck.pendingPath, "b.txt")
      assert.include(stuck.note, "b.txt")
      assert.include(stuck.note, "Simplify the regular expression")
      const fine = (yield* client.callTool("workspace_search", { query: "needle" })).structuredContent as any
      assert.strictEqual(fine.truncated, false)
      assert.strictEqual(fine.matches.length, slowMatches.length)
    }).pipe(Effect.scoped)
  )

  it.live("pages cut by the time budget hold every match exactly once", () =>
    Effect.gen(function* () {
      const tree = join(base, "paged")
      for (let i = 0; i < 2000; i++) {
        mkdirSync(join(tree, `d${i % 40}`), { recursive: true })
        writeFileSync(join(tree, `d${i % 40}`, `f${String(i).padStart(4, "0")}.txt`), `line\nhit ${i}\n`)
      }
      const ws = yield* NodeWorkspace.make({ root: tree, maxSearchMillis: 40 })
      const seen: Array<string> = []
      let cursor: string | undefined
      let timeCuts = 0
      let calls = 0
      do {
        const page = yield* ws.search({ query: "hit", limit: 1000, ...(cursor === undefined ? {} : { cursor }) })
        calls++
        if (page.stoppedBy === "time_budget") timeCuts++
        seen.push(...page.matches.map((match) => `${match.path}:${match.line}`))
        // Cut before it reached anything: the same call again (with the same cursor, if any).
        cursor = page.truncated && page.nextCursor === undefined ? cursor : page.nextCursor
        if (!page.truncated) break
      } while (calls < 2000)
      assert.isAbove(timeCuts, 0, "the budget cut some pages")
      assert.strictEqual(seen.length, 2000)
      assert.strictEqual(new Set(seen).size, 2000)
    })
  )
})
