/**
 * The fe capability as an agent uses it: the official SDK client drives the
 * real binary (`dist/mcp-runtime.js serve`, default capabilities) over stdio
 * on a copy of the broken fixture app (its own tsc 6, ESLint 10, Vitest 5),
 * and runs the loop understand → verify → diagnose → fix → verify:
 * fe_skeleton maps it, fe_verify finds its 15 known problems (with progress),
 * fe_doctor diagnoses them, the fixes it computes are applied with
 * workspace_edit (confirmed through elicitation), and fe_verify then finds
 * exactly the problems left. Cancelling fe_verify from the client kills the
 * project's tools (checked in the process table).
 *
 * With FE_TRANSCRIPT=<file>, the calls and results are written to that file
 * (docs/capabilities/fe.md's transcript comes from such a run).
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { type CallToolResult, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { fixtureDir } from "../support/feFixtures.ts"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

let root = ""
let client: Client
let stderr: Array<string> = []
const asked: Array<string> = []
const transcript: Array<string> = []

beforeAll(async () => {
  assertBuilt()
  root = join(realpathSync(mkdtempSync(join(tmpdir(), "fe-loop-"))), "broken-app")
  cpSync(fixtureDir("broken-app"), root, { recursive: true, verbatimSymlinks: true })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binaryPath, "serve", "--root", root, "--audit-log", "off", "--shutdown-grace-ms", "300"],
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>) }
  })
  stderr = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  client = new Client({ name: "fe-loop", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } })
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message)
    return { action: "accept", content: { confirm: true } }
  })
  await client.connect(transport, { timeout: 10_000 })
}, 60_000)

afterAll(async () => {
  await client?.close()
  if (process.env.FE_TRANSCRIPT) writeFileSync(process.env.FE_TRANSCRIPT, transcript.join("\n"))
  rmSync(join(root, ".."), { recursive: true, force: true })
})

const call = async (
  name: string,
  args: Record<string, unknown>,
  onProgress?: (message: string) => void
): Promise<CallToolResult> => {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 120_000,
    ...(onProgress ? { onprogress: (p: { readonly message?: string | undefined }) => onProgress(p.message ?? "") } : {})
  })) as CallToolResult
  transcript.push(
    `→ ${name} ${JSON.stringify(args)}`,
    `← ${JSON.stringify(result.structuredContent ?? result.content)}`,
    ""
  )
  return result
}

const structured = (result: CallToolResult): any => {
  assert.isNotTrue(result.isError, JSON.stringify(result.content) + "\n" + stderr.join(""))
  return result.structuredContent
}

const line = (p: any) => `${p.file}:${p.line} ${p.code}`

// One server and one root for the file: its tests run one after the other (the cancellation test reads the process
// table for the root's tools, which the loop's own fe_verify runs would otherwise show).
describe("the fe loop over stdio with the SDK client", { concurrent: false }, () => {
  it("publishes fe_skeleton and fe_doctor read-only, fe_verify not destructive", async () => {
    const { tools } = await client.listTools()
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    assert.deepStrictEqual(byName.fe_skeleton?.annotations?.readOnlyHint, true)
    assert.deepStrictEqual(byName.fe_doctor?.annotations?.readOnlyHint, true)
    assert.deepStrictEqual(byName.fe_verify?.annotations?.destructiveHint, false)
    assert.isDefined(byName.fe_verify?.outputSchema)
  })

  it("understand → verify → diagnose → fix → verify", async () => {
    // Understand.
    const map = structured(await call("fe_skeleton", {})).map as string
    assert.include(
      map,
      "src/components/Counter.tsx\n  imports: react {useEffect}\n  L8-20 component Counter({ label, step }: CounterProps)"
    )
    assert.include(map, "  L5-9 function range(start: number, end: number): number[]")

    // Verify: the fixture's 15 known problems, with progress per step.
    const progress: Array<string> = []
    const first = structured(await call("fe_verify", {}, (message) => progress.push(message)))
    assert.strictEqual(first.problemsTotal, 15)
    assert.deepStrictEqual(
      first.steps.map((s: any) => s.status),
      ["failed", "failed", "failed"]
    )
    assert.include(progress, "typecheck: running")

    // Diagnose everything the last verify found.
    const doctor = structured(await call("fe_doctor", { limit: 15 }))
    assert.strictEqual(doctor.total, 15)
    assert.isTrue(doctor.diagnoses.every((d: any) => d.known))
    const byCode = (code: string) => doctor.diagnoses.find((d: any) => d.problem.code === code)

    // Fix: apply the exact edits the doctor computed for three problems, through workspace_edit (confirmed).
    for (const code of ["TS2304", "TS2551", "react-hooks/exhaustive-deps", "prefer-const"]) {
      const step = byCode(code).fix[0]
      assert.isDefined(step.before, code)
      const edited = await call("workspace_edit", { path: step.file, oldText: step.before, newText: step.after })
      assert.isNotTrue(edited.isError, JSON.stringify(edited.content))
    }
    assert.strictEqual(asked.length, 4, "each edit was confirmed by the user")

    // Verify again: exactly what was not fixed is left.
    const second = structured(await call("fe_verify", {}))
    const before = first.problems.map(line)
    const after = second.problems.map(line)
    assert.deepStrictEqual(before.filter((p: string) => !after.includes(p)).sort(), [
      "src/api.ts:9 prefer-const",
      "src/components/Counter.tsx:13 react-hooks/exhaustive-deps",
      "src/components/Counter.tsx:17 TS2551",
      "src/components/Counter.tsx:9 TS2304"
    ])
    assert.strictEqual(second.problemsTotal, 11)
    assert.isTrue(
      after.every((p: string) => before.includes(p)),
      "no new problem"
    )
  }, 180_000)

  it("fe_doctor reads pasted tsc output", async () => {
    const result = structured(
      await call("fe_doctor", {
        text: "src/utils/format.ts(2,9): error TS2322: Type 'number' is not assignable to type 'string'."
      })
    )
    assert.strictEqual(result.diagnoses[0].fix[0].after, "  const dollars: string = String(cents / 100)")
  })

  it("cancelling fe_verify from the client kills the project's tools", async () => {
    const controller = new AbortController()
    const started = new Promise<void>((resolve) => {
      void client
        .callTool({ name: "fe_verify", arguments: { steps: ["test"] } }, undefined, {
          signal: controller.signal,
          timeout: 60_000,
          onprogress: (p) => {
            if (p.message === "test: running") resolve()
          }
        })
        .catch(() => undefined)
    })
    await started
    // Wait until Vitest is running in the root, then cancel.
    const running = () =>
      execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes(join(root, "node_modules")))
    for (let i = 0; i < 200 && running().length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    assert.isAbove(running().length, 0, "vitest was running")
    controller.abort()
    for (let i = 0; i < 300 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 20))
    assert.deepStrictEqual(running(), [], "no process of the project's tools is left")
    // The server goes on serving.
    assert.deepStrictEqual(await client.ping(), {})
  }, 60_000)
})
