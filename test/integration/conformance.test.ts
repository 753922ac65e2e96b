/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`,
 * suite `all`) against the built binary serving the conformance fixtures
 * (`--capabilities conformance`):
 *
 * - over Streamable HTTP, for spec versions 2025-06-18 (26 scenarios) and
 *   2025-11-25 (all 32);
 * - over stdio, the 29 scenarios that are not HTTP-specific, through the
 *   harness in `test/conformance/`.
 *
 * Every check must succeed: a failure or a warning fails the test, with the
 * suite's own message. See docs/conformance.md.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { httpOnly, problems, runSuite, serveArgs, startHttp, tally } from "../conformance/run.ts"
import { assertBuilt } from "./ServerProcess.ts"

beforeAll(assertBuilt)

describe("official conformance suite", () => {
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
