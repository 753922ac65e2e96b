/**
 * Names in the settings that match nothing published: a warning per unknown
 * key when a server starts (in-process servers, logs captured), a failing
 * `doctor` check for a configuration file, and a type error where the tools
 * are known in code (`Policy.layerFor`).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Option from "effect/Option"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Capability from "../src/Capability.ts"
import { Confirmation } from "../src/Confirmation.ts"
import * as Gate from "../src/Gate.ts"
import * as Policy from "../src/Policy.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Tool from "../src/Tool.ts"
import { TestClient } from "../src/testing.ts"
import * as UnknownKeys from "../src/internal/unknownKeys.ts"
import { noServeFlags } from "../src/cli/compose.ts"
import * as ConfigFile from "../src/cli/ConfigFile.ts"
import { diagnose, nameCheck, type CapabilityReport } from "../src/cli/doctor.ts"
import * as Settings from "../src/cli/settings.ts"
import { start } from "./support/memory.ts"

const slow = Tool.make("slow", { description: "Takes its time." })
const fast = Tool.make("fast", { description: "Answers at once." })
const outline = Prompt.make("outline", { description: "Outlines a note." })

const Notes = Capability.make(
  { id: "notes", description: "Notes", version: "1.0.0" },
  Effect.succeed({
    tools: [slow.pipe(Tool.handle(() => Effect.succeed("done"))), fast.pipe(Tool.handle(() => Effect.succeed("done")))],
    prompts: [outline.pipe(Prompt.handle(() => Effect.succeed("Outline it.")))]
  })
)

/** The warnings logged while `effect` runs: their message and annotations. */
const warningsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const warnings: Array<{ readonly text: string; readonly fields: Record<string, unknown> }> = []
    const capture = Logger.make((options) => {
      if (options.logLevel !== "Warn") return
      const parts = Array.isArray(options.message) ? options.message : [options.message]
      warnings.push({
        text: String(parts[0]),
        fields: (parts[1] ?? {}) as Record<string, unknown>
      })
    })
    yield* effect.pipe(Effect.provide(Logger.layer([capture])))
    return warnings
  })

/** Starts a server over Notes (TestClient: initialized, so start-up is done) and stops it. */
const startNotes = Effect.scoped(Effect.asVoid(TestClient.make(Notes)))

describe("unknown keys at start-up", () => {
  it.effect("a Policy tools key with the bare name: a warning naming the key and the public name", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsOf(
        startNotes.pipe(Effect.provide(Policy.layer({ tools: { slow: { timeout: "1 second" } } })))
      )
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.text, 'Policy tools key "slow"')
      assert.include(warnings[0]!.text, 'did you mean "notes_slow"?')
      assert.deepStrictEqual(warnings[0]!.fields, { key: "slow", nearest: "notes_slow", setting: "PolicyTool" })
    })
  )

  it.effect("correct public names and ids, run-time names: no warning", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsOf(
        startNotes.pipe(
          Effect.provide(
            Policy.layer({
              tools: { notes_slow: { timeout: "1 second" }, notes_outline: {}, app_later: { maxConcurrent: 1 } },
              capabilities: { notes: { maxConcurrent: 2 }, app: { timeout: "1 minute" } }
            })
          ),
          Effect.provideService(Confirmation, { preApproved: ["notes_*", "app_x"] }),
          Effect.provide(
            Layer.succeed(
              Gate.Gate,
              Gate.fromRules({
                rules: [
                  { effect: "allow", names: ["notes_outline"], methods: ["prompts/get"] },
                  { effect: "deny", names: ["notes_f?st", "a*"] },
                  { effect: "allow", names: ["*"] }
                ]
              })
            )
          )
        )
      )
      assert.deepStrictEqual(warnings, [])
    })
  )

  it.effect("a misspelt capability id, and a tool name in another's place: the nearest each", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsOf(
        startNotes.pipe(
          Effect.provide(
            Policy.layer({
              tools: { notes_slwo: { timeout: "1 second" } },
              capabilities: { note: { maxConcurrent: 1 } }
            })
          )
        )
      )
      assert.deepStrictEqual(
        warnings.map((w) => [w.fields.key, w.fields.nearest, w.fields.setting]),
        [
          ["notes_slwo", "notes_slow", "PolicyTool"],
          ["note", "notes", "PolicyCapability"]
        ]
      )
    })
  )

  it.effect("a gate pattern that matches no published name: a warning; a prompt is no tool", () =>
    Effect.gen(function* () {
      const gate = Gate.fromRules({
        rules: [
          { effect: "deny", names: ["notes_slwo", "notes_*"] },
          { effect: "deny", names: ["nots_*"] },
          { effect: "allow", names: ["notes_outline"], methods: ["tools/call"] }
        ]
      })
      const warnings = yield* warningsOf(startNotes.pipe(Effect.provide(Layer.succeed(Gate.Gate, gate))))
      assert.deepStrictEqual(
        warnings.map((w) => [w.fields.key, w.fields.nearest]),
        [
          ["notes_slwo", "notes_slow"],
          ["nots_*", "notes_*"],
          ["notes_outline", "notes_slow"]
        ]
      )
      assert.include(warnings[0]!.text, 'gate rule 1\'s name "notes_slwo": it matches no published tool, prompt or')
    })
  )

  it.effect("a confirmation pre-approval that matches no tool: a warning", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsOf(
        startNotes.pipe(Effect.provideService(Confirmation, { preApproved: ["slow"] }))
      )
      assert.deepStrictEqual(
        warnings.map((w) => [w.fields.key, w.fields.nearest, w.fields.setting]),
        [["slow", "notes_slow", "PreApproval"]]
      )
    })
  )

  it.effect("the test support server (memory.ts) warns too", () =>
    Effect.gen(function* () {
      const warnings = yield* warningsOf(
        Effect.scoped(
          Effect.gen(function* () {
            const client = yield* start(Notes)
            yield* client.initialize()
          })
        ).pipe(Effect.provide(Policy.layer({ tools: { fast: { maxConcurrent: 1 } } })))
      )
      assert.deepStrictEqual(
        warnings.map((w) => w.fields.nearest),
        ["notes_fast"]
      )
    })
  )
})

describe("unknown keys: the check itself", () => {
  const published: UnknownKeys.Published = {
    capabilities: [
      { id: "notes", tools: ["notes_slow", "notes_fast"], prompts: ["notes_outline"], resources: ["notes_file"] },
      { id: "gh", tools: ["gh_issue"], prompts: [], resources: [], foreignNames: true }
    ]
  }

  it("globs that may match a run-time name are never reported", () => {
    assert.isTrue(UnknownKeys.mayMatchDynamic("*"))
    assert.isTrue(UnknownKeys.mayMatchDynamic("a*"))
    assert.isTrue(UnknownKeys.mayMatchDynamic("ap?_x"))
    assert.isTrue(UnknownKeys.mayMatchDynamic("*_delete"))
    assert.isFalse(UnknownKeys.mayMatchDynamic("b*"))
    assert.isFalse(UnknownKeys.mayMatchDynamic("apx_*"))
    assert.isFalse(UnknownKeys.mayMatchDynamic("ap"))
    assert.deepStrictEqual(UnknownKeys.find(published, { gateRules: [{ names: ["*_delete", "app_y"] }] }), [])
  })

  it("resources are names for the gate; an upstream's prefix says it may come later", () => {
    const found = UnknownKeys.find(published, {
      gateRules: [{ names: ["notes_file"], methods: ["resources/read"] }],
      policyTools: ["gh_pull"]
    })
    assert.deepStrictEqual(found, [
      { setting: { _tag: "PolicyTool" }, key: "gh_pull", nearest: "gh_issue", upstream: "gh" }
    ])
    assert.include(UnknownKeys.message(found[0]!), "gh is an upstream server")
  })

  it("nothing published: unknown, with no nearest name", () => {
    const found = UnknownKeys.find({ capabilities: [] }, { policyTools: ["x_y"] })
    assert.strictEqual(found[0]!.nearest, undefined)
    assert.notInclude(UnknownKeys.message(found[0]!), "did you mean")
  })
})

describe("unknown keys in doctor", () => {
  const report = (id: string, tools: ReadonlyArray<string>): CapabilityReport => ({
    id,
    version: "0.1.0",
    description: id,
    tools: tools.map((name) => ({ name, readOnly: true, destructive: false, confirms: false })),
    resources: [],
    templates: [],
    prompts: []
  })
  const settingsOf = (text: string) =>
    Effect.gen(function* () {
      const config = yield* ConfigFile.parse("mcp-runtime.json", text)
      return yield* Settings.resolve({
        root: "/tmp",
        configFile: "mcp-runtime.json",
        config,
        flags: noServeFlags,
        env: {}
      })
    })

  it.effect("an unknown limits key, gate name and pre-approval: ✗ naming each with the nearest name", () =>
    Effect.gen(function* () {
      const settings = yield* settingsOf(
        JSON.stringify({
          capabilities: ["system"],
          limits: { tools: { echo: { timeoutMs: 1000 }, system_time: { timeoutMs: 1000 } }, capabilities: { sys: {} } },
          gate: { rules: [{ effect: "deny", names: ["system_ecoh", "app_*"] }] },
          confirmation: { preApproved: ["system_*"] }
        })
      )
      const check = nameCheck(settings, [report("system", ["system_info", "system_time", "system_echo"])])!
      assert.isFalse(check.ok)
      assert.strictEqual(check.title, "Names in the configuration: 3 names nothing published")
      assert.deepStrictEqual(check.details, [
        '$.limits.tools["echo"]: no published tool, prompt or resource has this public name (<capability>_<name>), ' +
          "so it has no " +
          'effect; did you mean "system_echo"?',
        '$.limits.capabilities["sys"]: no capability has this id, so it has no effect; did you mean "system"?',
        '$.gate.rules[0].names: "system_ecoh": it matches no published tool, prompt or resource, so it has no ' +
          'effect; did you mean "system_echo"?'
      ])
    })
  )

  it.effect("known names: ✓; no names: no check; a capability that did not start: not checked", () =>
    Effect.gen(function* () {
      const good = yield* settingsOf(
        JSON.stringify({ capabilities: ["system"], limits: { tools: { system_echo: { timeoutMs: 1000 } } } })
      )
      const registered = [report("system", ["system_echo"])]
      assert.deepStrictEqual(nameCheck(good, registered), {
        ok: true,
        title: "Names in the configuration: each of 1 names something published",
        details: []
      })
      const none = yield* settingsOf(JSON.stringify({ capabilities: ["system"] }))
      assert.isUndefined(nameCheck(none, registered))
      assert.include(nameCheck(good, [])!.title, "not checked (system did not start)")
    })
  )

  it.effect(
    "doctor on a root whose configuration file has an unknown limits key: the ✗ check, exit status failed",
    () =>
      Effect.gen(function* () {
        const root = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "unknown-keys-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true })))
        NodeFs.writeFileSync(
          NodePath.join(root, "mcp-runtime.json"),
          JSON.stringify({
            capabilities: ["system"],
            store: "memory",
            limits: { tools: { echo: { timeoutMs: 1000 } } }
          })
        )
        const report = yield* diagnose({
          root: Option.some(root),
          config: Option.none(),
          capabilities: Option.none(),
          auditLog: Option.none()
        }).pipe(Effect.provide(NodeServices.layer))
        assert.isFalse(report.ok)
        const check = report.sections
          .flatMap((section) => section.checks)
          .find((c) => c.title.startsWith("Names in the configuration"))
        assert.isDefined(check)
        assert.isFalse(check!.ok)
        assert.include(check!.details[0], '$.limits.tools["echo"]')
        assert.include(check!.details[0], 'did you mean "system_echo"?')
      }).pipe(Effect.scoped),
    30_000
  )
})

describe("Policy.layerFor: names checked by the compiler", () => {
  it("public names and ids compile; bare names and unknown ids do not", () => {
    const typed = Policy.layerFor({ notes: [slow, fast] })
    typed({ tools: { notes_slow: { timeout: "1 minute" }, app_later: {} }, capabilities: { notes: {}, app: {} } })
    // @ts-expect-error the bare name: the public name is notes_slow
    typed({ tools: { slow: { timeout: "1 minute" } } })
    // @ts-expect-error no tool notes_slwo
    typed({ tools: { notes_slwo: {} } })
    // @ts-expect-error no capability note
    typed({ capabilities: { note: {} } })
    // Prompts are limited by their public names too.
    Policy.layerFor({ notes: [slow, outline] })({ tools: { notes_outline: { timeout: "1 minute" } } })
    // A handled tool keeps its declaration's literal name.
    const handled = Policy.layerFor({ notes: [slow.pipe(Tool.handle(() => Effect.succeed("done")))] })
    handled({ tools: { notes_slow: {} } })
    // @ts-expect-error no tool notes_anything
    handled({ tools: { notes_anything: {} } })
    // @ts-expect-error the bare name has no notes_ prefix
    handled({ tools: { slow: {} } })
    assert.isTrue(true)
  })
})
