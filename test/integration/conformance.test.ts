/**
 * The official MCP conformance suite against the built binary serving the
 * conformance fixtures (`--capabilities conformance`):
 *
 * - 0.1.16 (`@modelcontextprotocol/conformance`, suite `all`): over
 *   Streamable HTTP for spec versions 2025-06-18 (26 scenarios) and
 *   2025-11-25 (all 32); over stdio, the 29 that are not HTTP-specific,
 *   through the harness in `test/conformance/`.
 * - The 0.2.0 prerelease that checks 2026-07-28 (`conformance-2026`): what
 *   the revision requires (`--requirements 2026-07-28`, 50 scenarios) and
 *   everything (`--suite all`, 65), over Streamable HTTP and, leaving out
 *   what only HTTP can check, over stdio.
 *
 * Every check must succeed: a failure or a warning fails the test, with the
 * suite's own message. A scenario that tested nothing (every check skipped,
 * as when the server does not declare the feature) fails it too. See
 * docs/conformance.md.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { headerChecks, httpOnly, problems, runSuite, serveArgs, startHttp, tally, vacuous } from "../conformance/run.ts"
import { assertBuilt } from "./ServerProcess.ts"

beforeAll(assertBuilt)

// The suite skips this one in every run ("pending subscriptions/listen rewrite"): it has nothing to check.
const alwaysSkipped = ["tasks-status-notifications"]

describe("official conformance suite 0.1.16", () => {
  for (const [specVersion, scenarios] of [
    ["2025-06-18", 26],
    ["2025-11-25", 32]
  ] as const) {
    it(`Streamable HTTP, spec ${specVersion}: all ${scenarios} scenarios pass`, { timeout: 120_000 }, async () => {
      const server = await startHttp()
      try {
        const outcome = await runSuite({ url: server.url, specVersion })
        assert.deepStrictEqual(problems(outcome), [], outcome.output)
        const counts = tally(outcome)
        assert.strictEqual(counts.scenarios, scenarios, outcome.output)
        assert.isAbove(counts.SUCCESS, scenarios - 1)
        assert.strictEqual(outcome.exitCode, 0, outcome.output)
      } finally {
        await server.stop()
      }
    })
  }

  it("stdio: the 29 scenarios that are not HTTP-specific pass", { timeout: 180_000 }, async () => {
    const outcome = await runSuite({ stdio: [process.execPath, ...serveArgs()] })
    assert.deepStrictEqual(problems(outcome, httpOnly), [], outcome.output)
    const counts = tally(outcome, httpOnly)
    assert.strictEqual(counts.scenarios, 29, outcome.output)
    assert.isAbove(counts.SUCCESS, 28)
  })
})

describe("official conformance suite 0.2.0-alpha.12 (protocol 2026-07-28)", () => {
  // Over stdio: all but the HTTP-only ones (4 of them are required by 2026-07-28; 5 are in all).
  for (const [what, options, scenarios, stdioScenarios] of [
    ["what 2026-07-28 requires (--requirements)", { requirements: "2026-07-28" }, 50, 46],
    ["everything (--suite all)", {}, 65, 60]
  ] as const) {
    it(`Streamable HTTP, ${what}: all ${scenarios} scenarios pass`, { timeout: 180_000 }, async () => {
      const server = await startHttp()
      try {
        const outcome = await runSuite({ ...options, release: "2026", url: server.url, timeoutMs: 170_000 })
        assert.deepStrictEqual(problems(outcome), [], outcome.output)
        assert.deepStrictEqual(vacuous(outcome, alwaysSkipped), [], outcome.output)
        assert.strictEqual(tally(outcome).scenarios, scenarios, outcome.output)
        assert.strictEqual(outcome.exitCode, 0, outcome.output)
      } finally {
        await server.stop()
      }
    })

    // Over stdio, legacy scenarios get a server process each; the 2026-07-28 ones share one.
    it(
      `stdio, ${what}: the ${stdioScenarios} scenarios that are not HTTP-specific pass`,
      { timeout: 180_000 },
      async () => {
        const outcome = await runSuite({
          ...options,
          release: "2026",
          stdio: [process.execPath, ...serveArgs()],
          timeoutMs: 170_000
        })
        const skip = [...httpOnly, ...headerChecks]
        assert.deepStrictEqual(problems(outcome, skip), [], outcome.output)
        // Sessions are an HTTP thing: over stdio the suite only reports that it skipped them.
        assert.deepStrictEqual(
          vacuous(outcome, [...skip, ...alwaysSkipped, "server-session-lifecycle"]),
          [],
          outcome.output
        )
        assert.strictEqual(tally(outcome, httpOnly).scenarios, stdioScenarios, outcome.output)
      }
    )
  }
})
