/**
 * Three agent loops, each run twice through the official SDK client over
 * the real binary (`dist/mcp-runtime.js serve`, default capabilities) on a
 * fresh copy of a fixture project: once with the fe tools of the later
 * waves (fe_impact, fe_surgeon, fe_batch, fe_scaffold) and once as an agent
 * did before them (workspace_search, workspace_read, workspace_edit,
 * workspace_write, with fe_skeleton, fe_verify and fe_doctor). Both runs
 * must end in the same verified state; the test counts the tool calls and
 * the characters of the responses the agent had to read.
 *
 * 1. Rename `formatPrice` to `formatMoney` across the Vite + React app.
 * 2. Fix the broken app's problems that fe_doctor computes a fix for.
 * 3. Add a `PriceTag` component in the project's own style.
 *
 * With FE_LOOPS_REPORT=<file>, the table is written to that file
 * (docs/capabilities/fe.md's figures come from such a run).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { copyFixture } from "../support/feFixtures.ts"
import { assertBuilt, binaryPath } from "./ServerProcess.ts"

const temps: Array<string> = []
const rows: Array<{ loop: string; mode: string; calls: number; chars: number; tools: string }> = []

beforeAll(() => assertBuilt())

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
  if (process.env.FE_LOOPS_REPORT) {
    const table = [
      "| loop | tools | tool calls | response characters | calls made |",
      "|---|---|---:|---:|---|",
      ...rows.map((r) => `| ${r.loop} | ${r.mode} | ${r.calls} | ${r.chars.toLocaleString("en-US")} | ${r.tools} |`)
    ]
    writeFileSync(process.env.FE_LOOPS_REPORT, table.join("\n") + "\n")
  }
})

/** An agent's session: the SDK client over the binary on a copy of a fixture, counting calls and characters. */
class Agent {
  calls = 0
  chars = 0
  readonly made = new Map<string, number>()
  readonly root: string
  readonly client: Client
  private constructor(root: string, client: Client) {
    this.root = root
    this.client = client
  }

  static async start(fixture: "react-app" | "broken-app"): Promise<Agent> {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "fe-agent-")))
    temps.push(dir)
    const root = copyFixture(fixture, join(dir, fixture))
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        binaryPath,
        "serve",
        "--root",
        root,
        "--audit-log",
        "off",
        "--shutdown-grace-ms",
        "300",
        "--daemon",
        "off",
        // The later fe tools the loops use are experimental.
        "--experimental"
      ],
      stderr: "ignore",
      env: { ...(process.env as Record<string, string>) }
    })
    const client = new Client({ name: "fe-agent", version: "1.0.0" })
    await client.connect(transport, { timeout: 10_000 })
    return new Agent(root, client)
  }

  /** Calls a tool as an agent would, counting the call and the characters of the response it reads. */
  async call(name: string, args: Record<string, unknown>): Promise<any> {
    const result = (await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: 180_000
    })) as CallToolResult
    this.calls++
    this.made.set(name, (this.made.get(name) ?? 0) + 1)
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("")
    this.chars += text.length
    assert.isNotTrue(result.isError, `${name}: ${text}`)
    return result.structuredContent ?? JSON.parse(text)
  }

  record(loop: string, mode: string) {
    rows.push({
      loop,
      mode,
      calls: this.calls,
      chars: this.chars,
      tools: [...this.made].map(([name, n]) => (n === 1 ? name : `${name} ×${n}`)).join(", ")
    })
  }

  read(path: string): string {
    return readFileSync(join(this.root, path), "utf8")
  }

  close() {
    return this.client.close()
  }
}

const verifyPasses = async (agent: Agent, steps: ReadonlyArray<string>) => {
  const result = await agent.call("fe_verify", { steps })
  assert.isTrue(result.ok, JSON.stringify(result.problems))
}

describe("agent loops with and without the later fe tools", { concurrent: false, timeout: 300_000 }, () => {
  it("1. a rename across files", async () => {
    // With: who uses it, one rename, one verify.
    const withTools = await Agent.start("react-app")
    const impact = await withTools.call("fe_impact", { symbols: ["src/utils/format.ts#formatPrice"] })
    assert.includeMembers(
      impact.targets[0].importers.map((i: any) => i.path),
      ["src/App.tsx", "src/components/ItemList.tsx", "src/utils/format.test.ts"]
    )
    const renamed = await withTools.call("fe_surgeon", {
      operations: [{ op: "rename", file: "src/utils/format.ts", symbol: "formatPrice", to: "formatMoney" }],
      confirm: true
    })
    assert.isTrue(renamed.applied)
    await verifyPasses(withTools, ["typecheck", "lint", "test"])
    withTools.record("rename formatPrice → formatMoney", "with fe_impact + fe_surgeon")

    // Without: search, then one edit per line that names it.
    const without = await Agent.start("react-app")
    const found = await without.call("workspace_search", { query: "formatPrice", path: "src" })
    for (const match of found.matches) {
      const line: string = match.text
      await without.call("workspace_edit", {
        path: match.path,
        oldText: line,
        newText: line.replaceAll("formatPrice", "formatMoney"),
        confirm: true
      })
    }
    await verifyPasses(without, ["typecheck", "lint", "test"])
    without.record("rename formatPrice → formatMoney", "workspace_search + workspace_edit")

    for (const path of ["src/utils/format.ts", "src/App.tsx", "src/components/ItemList.tsx"]) {
      assert.strictEqual(withTools.read(path), without.read(path), `${path}: both loops end with the same text`)
      assert.notInclude(withTools.read(path), "formatPrice")
    }
    // The rename changes code, not text: the test's title still names formatPrice (the text edits changed it too).
    assert.include(withTools.read("src/utils/format.test.ts"), "describe('formatPrice'")
    assert.include(withTools.read("src/utils/format.test.ts"), "expect(formatMoney(129))")
    assert.isBelow(withTools.calls, without.calls)
    await withTools.close()
    await without.close()
  })

  it("2. fixing the broken app", async () => {
    // With: verify, doctor, one batch of every computed fix (verified before and after, rolled back if worse).
    const withTools = await Agent.start("broken-app")
    await withTools.call("fe_verify", { steps: ["typecheck", "lint"] })
    const doctor = await withTools.call("fe_doctor", { limit: 20 })
    const applicable = doctor.diagnoses.filter((d: any) => d.surgeon !== undefined)
    // Every computed fix at once: replacing `any` with `unknown` breaks the code that uses the value, so verify finds
    // new errors and the batch is rolled back, saying where.
    const all = await withTools.call("fe_batch", { operations: applicable.map((d: any) => d.surgeon), confirm: true })
    assert.isTrue(all.rolledBack, all.summary)
    const broken = new Set(all.verify.newProblems.map((p: any) => p.file))
    // The agent leaves out the fixes that widen a type to unknown in the files with new errors, and applies the rest.
    const chosen = applicable.filter(
      (d: any) => !(broken.has(d.problem.file) && d.fix.some((step: any) => /\bunknown\b/.test(step.after ?? "")))
    )
    assert.isBelow(chosen.length, applicable.length)
    const batch = await withTools.call("fe_batch", { operations: chosen.map((d: any) => d.surgeon), confirm: true })
    assert.isTrue(batch.applied, batch.summary)
    assert.deepStrictEqual(batch.verify.newProblems, [])
    withTools.record("fix the broken app's computed diagnoses", "with fe_batch (apply_diagnosis)")

    // Without: verify, doctor, one workspace_edit per computed fix step, verify again.
    const without = await Agent.start("broken-app")
    await without.call("fe_verify", { steps: ["typecheck", "lint"] })
    const diagnosed = await without.call("fe_doctor", { limit: 20 })
    // The same fixes (an agent without fe_batch would also find the `unknown` regressions only by verifying).
    const ids = new Set(chosen.map((d: any) => d.id))
    const edited = new Set<string>()
    for (const d of diagnosed.diagnoses) {
      if (!ids.has(d.id)) continue
      for (const step of d.fix) {
        if (/^Or\b/.test(step.description)) break
        // Two diagnoses of one line (tsc's and ESLint's "unused") need one edit.
        if (step.before === undefined || edited.has(`${step.file}:${step.line}`)) continue
        edited.add(`${step.file}:${step.line}`)
        // A deletion removes the line with its line break.
        await without.call("workspace_edit", {
          path: step.file,
          oldText: step.after === undefined ? `${step.before}\n` : step.before,
          newText: step.after ?? "",
          confirm: true
        })
      }
    }
    const after = await without.call("fe_verify", { steps: ["typecheck", "lint"] })
    without.record("fix the broken app's computed diagnoses", "workspace_edit per fix + fe_verify")

    assert.isBelow(after.problemsTotal, 13, "fewer problems than the 13 the app had")
    for (const path of ["src/api.ts", "src/components/Counter.tsx", "src/utils/format.ts"]) {
      assert.strictEqual(withTools.read(path), without.read(path), `${path}: both loops end with the same text`)
    }
    assert.isBelow(withTools.calls, without.calls)
    await withTools.close()
    await without.close()
  })

  it("3. a new component in the project's style", async () => {
    // With: scaffold writes it modelled on the project's own components; verify.
    const withTools = await Agent.start("react-app")
    const scaffold = await withTools.call("fe_scaffold", {
      kind: "component",
      name: "PriceTag",
      write: true,
      confirm: true
    })
    const created: ReadonlyArray<string> = scaffold.files.map((f: any) => f.path)
    assert.include(created, "src/components/PriceTag.tsx")
    await verifyPasses(withTools, ["typecheck", "lint"])
    withTools.record("add a PriceTag component", "with fe_scaffold")

    // Without: map the project, read an example component, write the new one by hand, verify.
    const without = await Agent.start("react-app")
    await without.call("fe_skeleton", {})
    const example = await without.call("workspace_read", { path: "src/components/ItemList.tsx" })
    assert.include(example.content, "export function ItemList")
    await without.call("workspace_write", {
      path: "src/components/PriceTag.tsx",
      content:
        "export interface PriceTagProps {\n  label: string\n}\n\n" +
        "export function PriceTag({ label }: PriceTagProps) {\n  return <span>{label}</span>\n}\n",
      confirm: true
    })
    await verifyPasses(without, ["typecheck", "lint"])
    without.record("add a PriceTag component", "fe_skeleton + workspace_read + workspace_write")

    assert.isTrue(existsSync(join(without.root, "src/components/PriceTag.tsx")))
    assert.isAtMost(withTools.calls, without.calls)
    await withTools.close()
    await without.close()
  })
})
