/**
 * `mcp-runtime capabilities list`: the bundled capabilities, whether they are
 * enabled by default, and what each contributes.
 *
 * @since 0.1.0
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Bundled from "../../capabilities/index.ts"
import { commonFlags, connectInProcess, loadSettings, noServeFlags, quietLogs } from "./compose.ts"
import type { Settings } from "./settings.ts"

/**
 * One bundled capability, as `capabilities list` reports it. A bundle may
 * register several kernel capabilities (`conformance` registers `test` and
 * `json`).
 *
 * **Example**
 *
 * ```ts
 * import type { BundleReport } from "./src/cli/capabilities.ts"
 *
 * const system: BundleReport = {
 *   id: "system",
 *   enabledByDefault: true,
 *   capabilities: [
 *     { id: "system", version: "0.1.0", description: "…", tools: ["system_echo"], resources: [], templates: [], prompts: [] }
 *   ]
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface BundleReport {
  readonly id: string
  readonly enabledByDefault: boolean
  readonly capabilities: ReadonlyArray<{
    readonly id: string
    readonly version: string
    readonly description: string
    readonly tools: ReadonlyArray<string>
    /** Static resources. */
    readonly resources: ReadonlyArray<string>
    /** Resource templates (RFC 6570 URI templates). */
    readonly templates: ReadonlyArray<string>
    readonly prompts: ReadonlyArray<string>
  }>
}

/**
 * Builds each bundled capability in process (on an empty root, audit log
 * off) and reads what it registered.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { bundleReports } from "./src/cli/capabilities.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const reports = bundleReports(settings)
 * ```
 *
 * @category reports
 * @since 0.1.0
 */
export const bundleReports = (settings: Settings) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emptyRoot = yield* Effect.acquireRelease(
        Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "mcp-runtime-capabilities-"))),
        (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
      )
      const reports: Array<BundleReport> = []
      for (const id of Object.keys(Bundled.bundled) as Array<Bundled.BundledId>) {
        const { summaries, templates } = yield* Effect.scoped(
          Effect.gen(function* () {
            const client = yield* connectInProcess({
              ...settings,
              capabilities: [id],
              root: emptyRoot,
              workspace: { ...settings.workspace, root: emptyRoot },
              audit: undefined,
              gate: undefined
            })
            // The kernel lists static resources and templates together; the templates list tells them apart.
            const templates =
              client.initialized.capabilities?.resources === undefined
                ? []
                : yield* client.listAll("resources/templates/list", "resourceTemplates")
            return {
              summaries: client.kernel.capabilities(),
              templates: new Set<string>(templates.map((t: { readonly name: string }) => t.name))
            }
          })
        )
        reports.push({
          id,
          enabledByDefault: Bundled.defaults.includes(id),
          capabilities: summaries.map((c) => ({
            id: c.id,
            version: c.version,
            description: c.description,
            tools: c.tools,
            resources: c.resources.filter((name) => !templates.has(name)),
            templates: c.resources.filter((name) => templates.has(name)),
            prompts: c.prompts
          }))
        })
      }
      return reports
    })
  )

const list = Command.make(
  "list",
  {
    root: commonFlags.root,
    config: Flag.String("config").pipe(
      Flag.withDescription(
        "Configuration file (default: $MCP_RUNTIME_CONFIG, else mcp-runtime.json in the root when there is one); its exec and workspace settings shape what is listed"
      ),
      Flag.optional
    ),
    json: Flag.Boolean("json").pipe(Flag.withDescription("Print JSON instead of a table"), Flag.withDefault(false))
  },
  Effect.fnUntraced(function* (flags) {
    const settings = yield* loadSettings({ root: flags.root, config: flags.config, flags: noServeFlags })
    const reports = yield* bundleReports(settings)
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`)
      return
    }
    let out = ""
    for (const report of reports) {
      out += `${report.id}${report.enabledByDefault ? " (enabled by default)" : " (not enabled by default)"}\n`
      for (const c of report.capabilities) {
        out += `  ${c.id} ${c.version} — ${c.description}\n`
        out += `    tools (${c.tools.length}): ${c.tools.join(", ") || "none"}\n`
        out += `    resources (${c.resources.length}): ${c.resources.join(", ") || "none"}\n`
        out += `    resource templates (${c.templates.length}): ${c.templates.join(", ") || "none"}\n`
        out += `    prompts (${c.prompts.length}): ${c.prompts.join(", ") || "none"}\n`
      }
    }
    out +=
      `\nBy default serve enables ${Bundled.defaults.join(",")}; --capabilities (or "capabilities" in the ` +
      `configuration file) chooses, e.g. mcp-runtime serve --capabilities ${Object.keys(Bundled.bundled)
        .filter((id) => id !== "conformance" && id !== "bridge")
        .join(
          ","
        )} (bridge: the socket applications register tools through, with --bridge; conformance: the official ` +
      `suite's fixtures, for its runs)\n`
    process.stdout.write(out)
  }, quietLogs)
).pipe(Command.withDescription("List the bundled capabilities and what each contributes"))

/**
 * The `capabilities` command group (`capabilities list`).
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime capabilities list --json
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const capabilities = Command.make("capabilities").pipe(
  Command.withDescription("The bundled capabilities"),
  Command.withSubcommands([list])
)
