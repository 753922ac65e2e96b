/**
 * `serve --inspect` in a real headless Chromium (Debian's `chromium`, driven
 * by Playwright through `executablePath`): the built binary is started with
 * the page on, over stdio and over HTTP; calls go through the official SDK
 * client; the test reads what the page shows — request rows and their
 * outcomes, a nested span of a code run, a command's live output, a
 * cancelled call, progress, audit rows, the limits, a filter — and checks
 * that a wrong token or a foreign Host header gets a bare 403.
 *
 * `MCP_RUNTIME_UPDATE_SCREENSHOT=1` writes the page's screenshot to
 * `docs/inspect.png`.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as NodeHttp from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromium, type BrowserContext, type Page } from "playwright-core"
import { afterAll } from "vitest"
import { startHttp } from "./HttpProcess.ts"
import { assertBuilt, binaryPath, repoRoot } from "./ServerProcess.ts"

const chromiumPath = process.env.MCP_RUNTIME_CHROMIUM ?? "/usr/bin/chromium"

beforeAll(() => {
  assertBuilt()
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `${chromiumPath} is missing: the inspect page is tested in a real headless Chromium. Install Debian's ` +
        "`chromium` package (`node scripts/ensure-system.ts` does it when run as root; `npm test` runs it), or " +
        "set MCP_RUNTIME_CHROMIUM to a Chromium binary."
    )
  }
})

const work = mkdtempSync(join(tmpdir(), "inspect-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))
const config = join(work, "mcp-runtime.json")
writeFileSync(config, JSON.stringify({ confirmation: { preApproved: ["exec_run"] } }))

const requestOptions = { timeout: 20_000 }
const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

const withBrowser = async <A>(body: (page: Page, context: BrowserContext) => Promise<A>): Promise<A> => {
  const profile = mkdtempSync(join(work, "profile-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: flags,
    viewport: { width: 1400, height: 1000 }
  })
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    return await body(page, context)
  } finally {
    await context.close()
  }
}

const inspectUrlOf = async (stderr: () => string): Promise<URL> => {
  for (let i = 0; i < 200; i++) {
    const found = /^Inspect: (\S+)$/m.exec(stderr())
    if (found !== null) return new URL(found[1]!)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no "Inspect: URL" line on stderr within 10 s:\n${stderr()}`)
}

/** GET with a chosen Host header (fetch does not let a caller set it). */
const get = (port: number, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = NodeHttp.request({ host: "127.0.0.1", port, path, headers }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on("error", reject)
    request.end()
  })

const rowText = (page: Page, selector: string) => page.locator(selector).allInnerTexts()

describe("serve --inspect in a headless Chromium", () => {
  it(
    "shows requests, a code run's nested spans, a command's output, a cancellation, progress, audit rows, limits, filters (stdio)",
    { timeout: 90_000 },
    async () => {
      let stderr = ""
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          binaryPath,
          "serve",
          "--root",
          work,
          "--config",
          config,
          "--capabilities",
          "system,exec,code",
          "--audit-log",
          join(work, "audit.jsonl"),
          "--inspect"
        ],
        env: { ...(process.env as Record<string, string>), XDG_STATE_HOME: join(work, "state") },
        stderr: "pipe"
      })
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const client = new Client({ name: "inspect-test", version: "1.0.0" })
      try {
        await client.connect(transport, requestOptions)
        const url = await inspectUrlOf(() => stderr)
        const port = Number(url.port)
        const token = url.searchParams.get("token")!
        assert.strictEqual(url.hostname, "127.0.0.1")
        assert.isAtLeast(token.length, 32)
        // Also a JSON log line.
        assert.include(stderr, `"inspect":"${url.href}"`)

        await withBrowser(async (page) => {
          await page.goto(url.href)
          await page.locator("#status.live").waitFor()
          // The token left the address bar once the cookie was set.
          assert.notInclude(page.url(), token)

          // A plain call: its row, with tool and outcome.
          await client.callTool({ name: "system_echo", arguments: { text: "hello" } }, undefined, requestOptions)
          const echoRow = page.locator('#requests tr[data-outcome="ok"]', { hasText: "system_echo" })
          await echoRow.first().waitFor()

          // A code run calling tools: its waterfall has the nested tools/call spans under the request's span.
          const run = await client.callTool(
            {
              name: "code_run",
              arguments: {
                code: `return (await mcp.system.echo({ text: "a" })).text + (await mcp.system.echo({ text: "b" })).text`
              }
            },
            undefined,
            requestOptions
          )
          assert.strictEqual((run.structuredContent as any).value, "ab")
          await page.locator("#requests tr", { hasText: "code_run" }).first().click()
          const nested = page.locator('#waterfall .span[data-name="tools/call"]', { hasText: "system_echo" })
          await nested.first().waitFor()
          assert.strictEqual(await nested.count(), 2)
          const depths = await nested.evaluateAll((rows) => rows.map((row) => Number(row.getAttribute("data-depth"))))
          assert.isTrue(depths.every((depth) => depth >= 1))
          assert.strictEqual(
            await page.locator('#waterfall .span[data-depth="0"]').first().getAttribute("data-name"),
            "tools/call"
          )

          // A command run: its live output on the page, progress as it streams, then cancelled.
          const controller = new AbortController()
          const progress: Array<unknown> = []
          const cancelled = client
            .callTool(
              {
                name: "exec_run",
                arguments: {
                  command: "node",
                  args: ["-e", "console.log('inspect-line-1'); setTimeout(() => {}, 60000)"]
                }
              },
              undefined,
              { ...requestOptions, signal: controller.signal, onprogress: (update) => progress.push(update) }
            )
            .catch((error: unknown) => error)
          await page.locator('#commands .command[data-running="true"]', { hasText: "inspect-line-1" }).first().waitFor()
          await page.locator('#requests tr[data-outcome="running"]', { hasText: "exec_run" }).first().waitFor()
          await page.locator('#activity tr[data-kind="progress"]', { hasText: "inspect-line-1" }).first().waitFor()
          controller.abort("the test cancels it")
          assert.instanceOf(await cancelled, Error)
          await page.locator('#requests tr[data-outcome="cancelled"]', { hasText: "exec_run" }).first().waitFor()
          await page.locator('#activity tr[data-kind="cancelled"]', { hasText: "exec_run" }).first().waitFor()
          await page.locator('#commands .command[data-running="false"]', { hasText: "node -e" }).first().waitFor()

          // The audit trail and the limits.
          await page.locator('#audit tr[data-tool="system_echo"]').first().waitFor()
          await page.locator('#audit tr[data-tool="code_run"]').first().waitFor()
          const limits = (await page.locator("#limits").innerText()).replace(/\s+/g, " ")
          assert.include(limits, "slots in use")
          assert.match(limits, /\d+ \/ 32/)
          assert.match(limits, /queued 0 \/ 256/)

          // A filter by tool hides the other rows.
          await page.locator("#f-tool").selectOption("system_echo")
          await page.waitForTimeout(250)
          const tools = await rowText(page, '#requests tr td[data-col="tool"]')
          assert.isAbove(tools.length, 0)
          assert.isTrue(
            tools.every((tool) => tool === "system_echo"),
            tools.join(",")
          )
          await page.locator("#f-tool").selectOption("")
          await page.locator("#f-outcome").selectOption("cancelled")
          await page.waitForTimeout(250)
          const outcomes = await rowText(page, '#requests tr td[data-col="outcome"]')
          assert.deepStrictEqual([...new Set(outcomes)], ["cancelled"])
          await page.locator("#f-outcome").selectOption("")

          await page.locator("#requests tr", { hasText: "code_run" }).first().click()
          await nested.first().waitFor()
          const shot = await page.screenshot({ fullPage: true })
          assert.isAbove(shot.length, 1000)
          if (process.env.MCP_RUNTIME_UPDATE_SCREENSHOT === "1") {
            writeFileSync(join(repoRoot, "docs/inspect.png"), shot)
          }

          // A wrong token, in the browser and from Node: a bare 403, nothing leaked.
          const wrong = await page.goto(`http://127.0.0.1:${port}/?token=wrong`)
          assert.strictEqual(wrong?.status(), 403)
          assert.strictEqual(await wrong?.text(), "Forbidden\n")
        })

        for (const path of ["/", "/events", "/snapshot", `/snapshot?token=${token}x`, "/trace?id=x"]) {
          const response = await get(port, path, { host: `127.0.0.1:${port}` })
          assert.strictEqual(response.status, 403, path)
          assert.strictEqual(response.body, "Forbidden\n", path)
        }
        const response = await fetch(`http://127.0.0.1:${port}/snapshot?token=nope`)
        assert.strictEqual(response.status, 403)
        assert.strictEqual(await response.text(), "Forbidden\n")
        // The right token from another site's name (DNS rebinding): refused too.
        const rebound = await get(port, `/snapshot?token=${token}`, { host: `evil.example:${port}` })
        assert.strictEqual(rebound.status, 403)
        assert.notInclude(rebound.body, token)
        const ok = await get(port, `/snapshot?token=${token}`, { host: `localhost:${port}` })
        assert.strictEqual(ok.status, 200)
        assert.isAbove(JSON.parse(ok.body).requests.length, 3)
      } catch (error) {
        if (error instanceof Error) error.message += `\nserver stderr:\n${stderr.slice(-4000)}`
        throw error
      } finally {
        await client.close()
      }
    }
  )

  it("shows the requests of an HTTP server's sessions", { timeout: 60_000 }, async () => {
    const server = await startHttp(
      [
        binaryPath,
        "serve",
        "--root",
        work,
        "--capabilities",
        "system",
        "--transport",
        "http",
        "--port",
        "0",
        "--inspect"
      ],
      { XDG_STATE_HOME: join(work, "state") }
    )
    const client = new Client({ name: "inspect-http-test", version: "1.0.0" })
    try {
      const url = await inspectUrlOf(() => server.stderrLines().join("\n"))
      const transport = new StreamableHTTPClientTransport(new URL(server.url))
      await client.connect(transport, requestOptions)
      await client.callTool({ name: "system_echo", arguments: { text: "over http" } }, undefined, requestOptions)
      await withBrowser(async (page) => {
        await page.goto(url.href)
        await page.locator("#status.live").waitFor()
        const row = page.locator('#requests tr[data-outcome="ok"]', { hasText: "system_echo" })
        await row.first().waitFor()
        // The server's name for the session (the one its log lines carry).
        const session = await row.first().locator("td:nth-child(4)").innerText()
        assert.match(session, /^[0-9a-f]{8}$/)
        // Live: a call made while the page is open appears without a reload.
        await client.callTool({ name: "system_time", arguments: {} }, undefined, requestOptions)
        await page.locator('#requests tr[data-outcome="ok"]', { hasText: "system_time" }).first().waitFor()
        await page.locator("#f-session").selectOption(session)
        await page.waitForTimeout(250)
        const sessions = await page.locator("#requests tr td:nth-child(4)").allInnerTexts()
        assert.isTrue(sessions.length > 0 && sessions.every((text) => text === session), sessions.join(","))
      })
    } finally {
      await client.close().catch(() => undefined)
      await server.stop()
    }
  })
})

describe("serve --inspect, the request front", () => {
  it("shows a chain's steps as spans under the request's span", { timeout: 30_000 }, async () => {
    let stderr = ""
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binaryPath, "serve", "--root", work, "--capabilities", "system", "--front", "request", "--inspect"],
      env: { ...(process.env as Record<string, string>), XDG_STATE_HOME: join(work, "state") },
      stderr: "pipe"
    })
    transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const client = new Client({ name: "inspect-front-test", version: "1.0.0" })
    try {
      await client.connect(transport, requestOptions)
      const url = await inspectUrlOf(() => stderr)
      const token = url.searchParams.get("token")!
      const ops = [
        { verb: "system_echo", args: { text: "a" } },
        { verb: "system_echo", args: { text: "$prev.text" } }
      ]
      const read = async (path: string): Promise<any> =>
        (await fetch(`${url.origin}${path}`, { headers: { "x-inspect-token": token } })).json()
      // With no page open, requests run without spans (nothing to show, nothing paid).
      await client.callTool({ name: "request", arguments: { ops, mode: "chain" } }, undefined, requestOptions)
      const unseen = (await read("/snapshot")).requests.find((view: any) => view.tool === "request")
      assert.strictEqual(unseen.outcome, "ok")
      const none = await fetch(`${url.origin}/trace?request=${unseen.correlationId}`, {
        headers: { "x-inspect-token": token }
      })
      const noSpans = (none.ok ? await none.json() : []) as Array<unknown>
      assert.strictEqual(noSpans.length, 0)
      // A page open (its event stream): the next request's spans are recorded.
      const page = new AbortController()
      const events = await fetch(`${url.origin}/events`, {
        headers: { "x-inspect-token": token },
        signal: page.signal
      })
      assert.strictEqual(events.status, 200)
      await client.callTool({ name: "request", arguments: { ops, mode: "chain" } }, undefined, requestOptions)
      const request = (await read("/snapshot")).requests.find(
        (view: any) => view.tool === "request" && view.correlationId !== unseen.correlationId
      )
      page.abort()
      assert.strictEqual(request.outcome, "ok")
      const spans = await read(`/trace?request=${request.correlationId}`)
      assert.strictEqual(spans.length, 3)
      const [root, ...steps] = spans
      assert.strictEqual(root.attributes["mcp.tool.name"], "request")
      for (const step of steps) {
        assert.strictEqual(step.parentId, root.spanId)
        assert.strictEqual(step.attributes["mcp.tool.name"], "system_echo")
        assert.strictEqual(step.status, "ok")
      }
    } finally {
      await client.close()
    }
  })
})

describe("serve --inspect, bad input", () => {
  const serveExit = (extra: ReadonlyArray<string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [binaryPath, "serve", "--root", work, "--capabilities", "system", ...extra],
        {
          stdio: ["pipe", "ignore", "pipe"],
          env: { ...process.env, XDG_STATE_HOME: join(work, "state") }
        }
      )
      let stderr = ""
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => (stderr += chunk))
      child.on("exit", (code) => resolve({ code, stderr }))
      child.stdin.end()
    })

  it("a port that is taken stops the start with exit 2, saying why", async () => {
    const taken = NodeHttp.createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    try {
      const { code, stderr } = await serveExit([`--inspect=${port}`])
      assert.strictEqual(code, 2)
      assert.include(stderr, `--inspect=${port}: cannot listen on 127.0.0.1:${port} (`)
      assert.include(stderr, "EADDRINUSE")
    } finally {
      taken.close()
    }
  })

  it("a port out of range is a usage error", async () => {
    const { code, stderr } = await serveExit(["--inspect=70000"])
    assert.strictEqual(code, 2)
    assert.include(stderr, "--inspect=70000: expected a port from 1 to 65535")
  })
})

// The page is one self-contained document: nothing it loads comes from elsewhere.
describe("the inspect page's document", () => {
  it("has no external asset", () => {
    const files = readFileSync(join(repoRoot, "src/internal/inspect/page.ts"), "utf8")
    assert.notMatch(files, /<(script|link|img)[^>]+(src|href)=["']https?:/)
  })
})
