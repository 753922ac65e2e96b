/**
 * Execution policies seen from the official SDK client, over stdio, against
 * a real server process (`test/fixtures/policy-server.ts`, run by Node with
 * type stripping): cancellation stops the work in the server, a timeout
 * interrupts it, progress and client log messages arrive.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import {
  type JSONRPCMessage,
  LoggingMessageNotificationSchema,
  type Progress
} from "@modelcontextprotocol/sdk/types.js"
import * as path from "node:path"

const fixture = path.resolve(import.meta.dirname, "..", "fixtures", "policy-server.ts")

interface Event {
  readonly event: string
  readonly at: number
}

const withFixture = async (
  env: Record<string, string>,
  body: (client: Client, events: Array<Event>, wire: Array<any>) => Promise<void>
) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe"
  })
  const events: Array<Event> = []
  const stderr: Array<string> = []
  let pending = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr.push(chunk.toString("utf8"))
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop()!
    for (const line of lines) {
      const parsed = JSON.parse(line)
      if (typeof parsed.event === "string") events.push(parsed)
    }
  })
  const client = new Client({ name: "policy-test", version: "1.0.0" })
  try {
    await client.connect(transport, { timeout: 10_000 })
    // Every message from the server, as received, before the SDK handles it.
    const wire: Array<any> = []
    const deliver = transport.onmessage!
    transport.onmessage = (message: JSONRPCMessage) => {
      wire.push(message)
      deliver(message)
    }
    await body(client, events, wire)
  } catch (error) {
    if (error instanceof Error) error.message += `\nserver stderr:\n${stderr.join("")}`
    throw error
  } finally {
    await client.close()
  }
}

/** Resolves when `events` has one named `name`, polling; rejects after `ms`. */
const eventNamed = async (events: Array<Event>, name: string, ms = 10_000): Promise<Event> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const found = events.find((e) => e.event === name)
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  throw new Error(`no ${name} event within ${ms} ms; got ${JSON.stringify(events)}`)
}

describe("policies over stdio with the SDK client", () => {
  it("cancelling a long call stops the handler: its finalizer runs within milliseconds", () =>
    withFixture({}, async (client, events) => {
      const controller = new AbortController()
      const call = client.callTool({ name: "fixture_sleep", arguments: { ms: 60_000 } }, undefined, {
        signal: controller.signal,
        timeout: 120_000
      })
      await eventNamed(events, "started")
      const cancelledAt = performance.timeOrigin + performance.now()
      controller.abort("the user changed their mind")
      const outcome = await call.then(
        () => "answered",
        (error: unknown) => String(error)
      )
      assert.include(outcome, "the user changed their mind")
      const finalized = await eventNamed(events, "finalized")
      const latencyMs = finalized.at - cancelledAt
      // Typically 1–3 ms here; the bound leaves room for a loaded CI machine.
      if (process.env.SHOW_LATENCY) console.log(`cancel → finalizer: ${latencyMs.toFixed(2)} ms`)
      assert.isBelow(latencyMs, 250, `finalizer ran ${latencyMs.toFixed(2)} ms after the cancel`)
      // The server goes on serving.
      const again = await client.callTool({ name: "fixture_sleep", arguments: { ms: 1 } })
      assert.deepStrictEqual(again.content, [{ type: "text", text: "slept 1 ms" }])
    }))

  it("a call past its timeout is interrupted and answered with a timeout error result", () =>
    withFixture({ FIXTURE_TIMEOUT_MS: "300" }, async (client, events) => {
      const result = await client.callTool({ name: "fixture_sleep", arguments: { ms: 60_000 } })
      assert.strictEqual(result.isError, true)
      assert.deepInclude(result._meta?.["effect-mcp-runtime/error"] as object, { code: "timeout" })
      assert.include((result.content as Array<{ text: string }>)[0]!.text, "did not finish within 300 ms")
      // The handler was stopped: its finalizer ran (that it ran before the answer was
      // sent is checked in test/Policy.test.ts, where both are on one clock).
      await eventNamed(events, "finalized")
    }))

  it("progress arrives in order, coalesced, with the last value sent before the response", () =>
    withFixture({}, async (client, _events, wire) => {
      const seen: Array<Progress> = []
      const result = await client.callTool({ name: "fixture_steps", arguments: { count: 20, pauseMs: 5 } }, undefined, {
        onprogress: (progress) => seen.push(progress)
      })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "20 steps" }])
      // On the wire: paced (20 reports 5 ms apart in ~100 ms; one notification per 100 ms goes
      // through), increasing, and the last value right before the response.
      const responseAt = wire.findIndex((message) => "result" in message && Array.isArray(message.result.content))
      const sent = wire
        .slice(0, responseAt)
        .filter((message) => message.method === "notifications/progress")
        .map((message) => message.params)
      assert.isAtLeast(sent.length, 2)
      assert.isBelow(sent.length, 20, `coalesced: ${sent.map((p) => p.progress).join(",")}`)
      for (let i = 1; i < sent.length; i++) assert.isAbove(sent[i].progress, sent[i - 1].progress)
      assert.strictEqual(wire[responseAt - 1].method, "notifications/progress")
      assert.deepInclude(wire[responseAt - 1].params, { progress: 20, total: 20, message: "step 20 of 20" })
      assert.isUndefined(wire.slice(responseAt + 1).find((message) => message.method === "notifications/progress"))
      // The first value leaves at once, long before the response: the caller sees it.
      assert.isAtLeast(seen.length, 1)
      // The SDK hands the caller what it processed before the response; a notification that
      // arrives in the same read as the response is dropped by the SDK client itself
      // (modelcontextprotocol/typescript-sdk#2580), so the caller sees a prefix of the wire.
      assert.deepStrictEqual(
        seen,
        sent.slice(0, seen.length).map((params: any) => {
          const { progressToken, ...rest } = params
          assert.isDefined(progressToken)
          return rest
        })
      )
    }))

  it("client log messages respect logging/setLevel", () =>
    withFixture({}, async (client) => {
      const messages: Array<{ level: string; logger?: string | undefined; data: unknown }> = []
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        messages.push(notification.params)
      })
      await client.setLoggingLevel("warning")
      await client.callTool({ name: "fixture_talk", arguments: {} })
      // Notifications sent before the response are delivered before the call resolves.
      assert.deepStrictEqual(messages, [
        { level: "warning", logger: "fixture_talk", data: "warning message" },
        { level: "error", logger: "fixture_talk", data: "error message" }
      ])
    }))
})
