/**
 * `doctor`'s pieces in process: the Capabilities section when capabilities
 * fail to start (each built alone to tell which), and the client
 * configuration snippets. The binary's report is tested in test/cli.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { DuplicateName } from "../src/Kernel.ts"
import { noServeFlags } from "../src/cli/compose.ts"
import { capabilityChecks, type CapabilityReport, clientSnippets } from "../src/cli/doctor.ts"
import * as Settings from "../src/cli/settings.ts"

const report = (id: string): CapabilityReport => ({
  id,
  version: "0.1.0",
  description: `the ${id} capability`,
  tools: [{ name: `${id}_tool`, readOnly: true, destructive: false, confirms: false }],
  resources: [],
  templates: [],
  prompts: []
})

const settings = Settings.resolve({ root: "/tmp", configFile: undefined, config: {}, flags: noServeFlags, env: {} })

const duplicate = new DuplicateName({ toolName: "exec_run", first: "exec", second: "exec" })
const duplicateText = `DuplicateName: ${duplicate.message}`

describe("doctor's Capabilities section", () => {
  it.effect("all start: a ✓ per capability with what it registers", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) => Effect.succeed(s.capabilities.map(report)))
      assert.deepStrictEqual(
        section.checks.map((c) => [c.ok, c.title]),
        [
          [true, "system 0.1.0 — the system capability"],
          [true, "workspace 0.1.0 — the workspace capability"],
          [true, "exec 0.1.0 — the exec capability"],
          [true, "fe 0.1.0 — the fe capability"],
          [true, "code 0.1.0 — the code capability"]
        ]
      )
      assert.include(section.checks[0]!.details[0], "system_tool (read-only)")
    })
  )

  it.effect("one fails: it gets a ✗ with its typed error, the others are still reported", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) =>
        s.capabilities.includes("exec") ? Effect.fail(duplicate) : Effect.succeed(s.capabilities.map(report))
      )
      assert.deepStrictEqual(
        section.checks.map((c) => [c.ok, c.title]),
        [
          [true, "system 0.1.0 — the system capability"],
          [true, "workspace 0.1.0 — the workspace capability"],
          [false, "exec: does not start"],
          [true, "fe 0.1.0 — the fe capability"],
          [true, "code 0.1.0 — the code capability"]
        ]
      )
      assert.deepStrictEqual(section.checks[2]!.details, [duplicateText])
      assert.deepStrictEqual(
        section.registered.map((c) => c.id),
        ["system", "workspace", "fe", "code"]
      )
    })
  )

  it.effect("each starts alone but not together: the combination is the ✗", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks(resolved, (s) =>
        s.capabilities.length > 1 ? Effect.fail(duplicate) : Effect.succeed(s.capabilities.map(report))
      )
      const failed = section.checks.filter((c) => !c.ok)
      assert.strictEqual(failed.length, 1)
      assert.strictEqual(failed[0]!.title, "system, workspace, exec, fe, code: each starts alone, but not together")
      assert.deepStrictEqual(failed[0]!.details, [duplicateText])
    })
  )

  it.effect("a defect while building is a ✗ too, not a crash", () =>
    Effect.gen(function* () {
      const resolved = yield* settings
      const section = yield* capabilityChecks({ ...resolved, capabilities: ["system"] }, () => Effect.die("boom"))
      assert.strictEqual(section.checks[0]!.ok, false)
      assert.match(section.checks[0]!.details[0]!, /^a defect: /)
    })
  )
})

describe("doctor's client configuration", () => {
  const snippets = clientSnippets({
    node: "/usr/local/bin/node",
    script: "/opt/mcp runtime/dist/mcp-runtime.js",
    root: "/srv/project",
    config: undefined
  })
  const byClient = Object.fromEntries(snippets.map((s) => [s.client, s.text]))

  it("Claude Desktop and Cursor: mcpServers with the command and its arguments", () => {
    for (const client of ["Claude Desktop", "Cursor"]) {
      assert.deepStrictEqual(JSON.parse(byClient[client]!), {
        mcpServers: {
          "mcp-runtime": {
            command: "/usr/local/bin/node",
            args: ["/opt/mcp runtime/dist/mcp-runtime.js", "serve", "--root", "/srv/project"]
          }
        }
      })
    }
  })

  it("VS Code: servers, with type stdio", () => {
    assert.deepStrictEqual(JSON.parse(byClient["VS Code"]!), {
      servers: {
        "mcp-runtime": {
          type: "stdio",
          command: "/usr/local/bin/node",
          args: ["/opt/mcp runtime/dist/mcp-runtime.js", "serve", "--root", "/srv/project"]
        }
      }
    })
  })

  it("Claude Code: one shell command, arguments quoted where needed", () => {
    assert.strictEqual(
      byClient["Claude Code"],
      "claude mcp add mcp-runtime -- /usr/local/bin/node '/opt/mcp runtime/dist/mcp-runtime.js' serve --root /srv/project"
    )
  })
})
