/**
 * `mcp-runtime call TOOL [--args JSON]`: runs one tool in process, through
 * the real codec (the same server `serve` composes, behind a memory
 * transport), and prints the result. Progress shows as a bar on a terminal,
 * as lines otherwise; a destructive tool asks on the terminal, or needs
 * `--yes`.
 *
 * @since 0.1.0
 */
import * as NodeReadline from "node:readline"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { errorMetaKey } from "../McpSchema.ts"
import {
  AlreadyReported,
  auditLogFlag,
  commonFlags,
  connectInProcess,
  loadSettings,
  noServeFlags,
  quietLogs,
  RpcError
} from "./compose.ts"
import { UsageError } from "./settings.ts"

/** Draws progress on stderr: a bar redrawn in place on a terminal, one line per report otherwise. */
const makeProgress = (tty: boolean) => {
  const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
  let frame = 0
  let drawn = false
  const width = Math.max(20, Math.min(60, (process.stderr.columns ?? 80) - 40))
  return {
    report: (params: { progress: number; total?: number; message?: string }) => {
      const message = params.message ?? ""
      if (!tty) {
        const share = params.total === undefined ? "" : ` ${params.progress}/${params.total}`
        process.stderr.write(`progress${share}${message === "" ? "" : `: ${message}`}\n`)
        return
      }
      let bar: string
      if (params.total !== undefined && params.total > 0) {
        const ratio = Math.max(0, Math.min(1, params.progress / params.total))
        const filled = Math.round(ratio * width)
        bar = `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${Math.round(ratio * 100)}%`
      } else {
        bar = `${spinner[frame++ % spinner.length]} ${params.progress}`
      }
      const columns = process.stderr.columns ?? 80
      const line = `${bar} ${message}`.slice(0, columns - 1)
      process.stderr.write(`\r\x1b[2K${line}`)
      drawn = true
    },
    done: () => {
      if (drawn) process.stderr.write("\r\x1b[2K")
      drawn = false
    }
  }
}

/** Asks a yes/no question on the terminal. */
const askYesNo = (question: string) =>
  Effect.callback<boolean>((resume) => {
    const rl = NodeReadline.createInterface({ input: process.stdin, output: process.stderr })
    rl.question(`${question} [y/N] `, (answer) => {
      rl.close()
      resume(Effect.succeed(/^y(es)?$/i.test(answer.trim())))
    })
    return Effect.sync(() => rl.close())
  })

/**
 * The `call` command.
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime call system_echo --args '{"text":"hi"}'
 * mcp-runtime call exec_run --args '{"command":"npm","args":["test"]}' --yes
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const call = Command.make(
  "call",
  {
    ...commonFlags,
    auditLog: auditLogFlag,
    tool: Argument.String("tool").pipe(Argument.withDescription("The tool's public name, e.g. system_echo")),
    args: Flag.String("args").pipe(
      Flag.withDescription('The arguments as a JSON object, e.g. \'{"text":"hi"}\' (default {})'),
      Flag.optional
    ),
    yes: Flag.Boolean("yes").pipe(
      Flag.withDescription("Confirm a destructive tool without asking (required when stdin is not a terminal)"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function* (flags) {
    let args: Record<string, unknown> = {}
    if (Option.isSome(flags.args)) {
      let parsed: unknown
      try {
        parsed = JSON.parse(flags.args.value)
      } catch (error) {
        return yield* new UsageError({ message: `--args is not valid JSON: ${(error as Error).message}` })
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        return yield* new UsageError({ message: '--args must be a JSON object, e.g. \'{"text":"hi"}\'' })
      }
      args = parsed as Record<string, unknown>
    }
    const settings = yield* loadSettings({
      root: flags.root,
      config: flags.config,
      flags: { ...noServeFlags, capabilities: flags.capabilities, auditLog: flags.auditLog }
    })
    const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true
    const progress = makeProgress(process.stderr.isTTY === true)
    // The user at the terminal is the one to confirm: asked there (elicitation answered here), or by --yes.
    const canAsk = interactive && !flags.yes
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const client = yield* connectInProcess(settings, {
          clientCapabilities: canAsk ? { elicitation: { form: {} } } : {},
          onRequest: (method, params) => {
            if (method !== "elicitation/create") {
              return Effect.fail(
                new RpcError({
                  code: -32601,
                  message: `${method} is not supported by mcp-runtime call`,
                  data: undefined
                })
              )
            }
            return Effect.gen(function* () {
              progress.done()
              process.stderr.write(`${params.message}\n`)
              const yes = yield* askYesNo("Run it?")
              return yes ? { action: "accept", content: { confirm: true } } : { action: "decline" }
            })
          },
          onNotification: (method, params) =>
            Effect.sync(() => {
              if (method === "notifications/progress") progress.report(params)
            })
        })
        const tools = yield* client.listAll("tools/list", "tools")
        const tool = tools.find((t) => t.name === flags.tool)
        if (tool === undefined) {
          return yield* new UsageError({
            message: `unknown tool ${flags.tool}. The tools of this server: ${tools.map((t) => t.name).join(", ")}`
          })
        }
        // The registry says whether the tool needs confirmation; --yes gives it as the `confirm` argument.
        const confirms = client.kernel.tool(flags.tool)?.confirms === true
        const callArgs = confirms && flags.yes ? { ...args, confirm: true } : args
        const result = yield* client.request("tools/call", {
          name: flags.tool,
          arguments: callArgs,
          _meta: { progressToken: "cli" }
        })
        progress.done()
        const text = (result.content ?? [])
          .map((c: any) => (c.type === "text" ? c.text : `[${c.type} content]`))
          .join("\n")
        if (result.isError === true) {
          const details = result._meta?.[errorMetaKey] as { code?: string } | undefined
          process.stderr.write(`${text}\n`)
          if (details?.code === "confirmation_required") {
            process.stderr.write(
              `${flags.tool} needs confirmation: run it from a terminal to be asked, or pass --yes to confirm it.\n`
            )
          }
          // Arguments that do not fit the tool's input schema are a usage error: show the schema to fix --args with.
          const badArguments = details?.code === "invalid_arguments"
          if (badArguments) {
            process.stderr.write(`The input schema of ${flags.tool}:\n${JSON.stringify(tool.inputSchema, null, 2)}\n`)
          }
          return yield* new AlreadyReported({
            exitCode: badArguments ? 2 : 1,
            message: `${flags.tool} failed${details?.code === undefined ? "" : ` (${details.code})`}`
          })
        }
        process.stdout.write(
          result.structuredContent !== undefined
            ? `${JSON.stringify(result.structuredContent, null, 2)}\n`
            : `${text}\n`
        )
      })
    )
  }, quietLogs)
).pipe(
  Command.withDescription(
    "Run one tool in process through the real codec and print its result (exit 1 when the tool reports an error)"
  )
)
