/**
 * The code-mode sandbox: runs a piece of JavaScript written by a model in an
 * isolate of its own, where the only way out is `mcp.<namespace>.<tool>(args)`
 * — a call the host answers with an Effect. The code is the body of an async
 * function: it may `await` those calls (in parallel with `Promise.all`),
 * compute, `console.log`, and `return` a JSON value.
 *
 * Every run is bounded ({@link Limits}): memory, stack depth, CPU time, number
 * of host calls, console output and result size. Every way a run can end
 * badly is a {@link SandboxError} whose `reason` says which, and whose
 * `message` tells the model what happened and what to do instead.
 *
 * The service is an interface; `layers/QuickJsSandbox.ts` implements it on
 * QuickJS compiled to WebAssembly (see `docs/adr/0006-code-sandbox.md`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const program = Effect.gen(function* () {
 *   const sandbox = yield* Sandbox
 *   const output = yield* sandbox.run({
 *     code: "const { files } = await mcp.workspace.list({ path: 'src' })\nreturn files.length",
 *     bindings: new Map([["workspace", ["list"]]]),
 *     call: ({ namespace, name, args }) => Effect.succeed({ files: ["a.ts", "b.ts"] })
 *   })
 *   return output.value // => 2
 * })
 * ```
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One `mcp.<namespace>.<name>(args)` call made by the code, as the host
 * receives it: `args` is the JSON value the code passed (parsed on the host
 * from the JSON text the sandbox produced; `undefined` when the code passed
 * nothing).
 *
 * **Example**
 *
 * ```ts
 * import type { HostCall } from "effect-mcp-runtime/Sandbox"
 *
 * const call: HostCall = { namespace: "workspace", name: "read", args: { path: "README.md" } }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface HostCall {
  readonly namespace: string
  readonly name: string
  readonly args: unknown
}

/**
 * A host call that failed in a way the code should see: the promise of the
 * `mcp.*` call rejects with an `Error` whose `message` is this message, and
 * which carries `code` and `suggestion` as properties when they are set. The
 * code may catch it and carry on.
 *
 * **Example**
 *
 * ```ts
 * import { CallFailed } from "effect-mcp-runtime/Sandbox"
 *
 * new CallFailed({ message: "No file named notes.md", code: "not_found", suggestion: "List the directory first." })
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class CallFailed extends Schema.TaggedError<CallFailed>()("CallFailed", {
  message: Schema.String,
  code: Schema.optional(Schema.String),
  suggestion: Schema.optional(Schema.String)
}) {}

/**
 * The bounds of one run. Each is enforced by the sandbox itself, never by
 * trusting the code:
 *
 * - `memoryBytes`: how much the run's memory may grow beyond the 16 MiB an
 *   isolate starts with (default 64 MiB). Past it allocation fails inside
 *   QuickJS and the run fails with reason `"memory"`, even if the code
 *   catches the error.
 * - `stackBytes`: the QuickJS stack limit (default 256 KiB). Deeper recursion
 *   throws a stack-overflow error inside the code; left uncaught, the run
 *   fails with reason `"stack"`. Recursion through built-ins (deep
 *   `JSON.stringify`, the parser) can exhaust the host's own stack first: the
 *   run then fails with `"stack"` too, and the isolate is thrown away.
 * - `cpuMs`: the total time the code may spend executing inside QuickJS over
 *   the run, measured with `performance.now()` by the interrupt handler of
 *   the runtime (default 5000 ms). Time spent waiting for host calls does not
 *   count. Past it the run fails with reason `"cpu"`.
 * - `maxCalls`: the most `mcp.*` calls in one run (default 1000). The call
 *   past it stops the run with reason `"calls"` (the code cannot catch it).
 * - `maxConsoleBytes`: console output kept, in UTF-8 bytes with one byte per
 *   line for its newline (default 64 KiB). Past it output is dropped and
 *   `consoleTruncated` is `true`.
 * - `maxResultBytes`: the most bytes of JSON the returned value may take
 *   (default 1 MiB). Past it the run fails with reason `"result"`.
 *
 * **Example**
 *
 * ```ts
 * import { defaultLimits, type Limits } from "effect-mcp-runtime/Sandbox"
 *
 * const strict: Limits = { ...defaultLimits, cpuMs: 1000, maxCalls: 50 }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface Limits {
  readonly memoryBytes: number
  readonly stackBytes: number
  readonly cpuMs: number
  readonly maxCalls: number
  readonly maxConsoleBytes: number
  readonly maxResultBytes: number
}

/**
 * The limits a run gets for what its request does not set: 64 MiB of memory,
 * 256 KiB of stack, 5 s of CPU time, 1000 host calls, 64 KiB of console
 * output and 1 MiB of result.
 *
 * **Example**
 *
 * ```ts
 * import { defaultLimits } from "effect-mcp-runtime/Sandbox"
 *
 * defaultLimits.cpuMs // => 5000
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const defaultLimits: Limits = {
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  cpuMs: 5000,
  maxCalls: 1000,
  maxConsoleBytes: 64 * 1024,
  maxResultBytes: 1024 * 1024
}

/**
 * One run: the code, what it may call, its input, the host side of its calls
 * and, optionally, tighter or looser limits.
 *
 * - `code` is plain JavaScript, the body of an async function: it may use
 *   `await` at the top level and `return` a value.
 * - `bindings` maps a namespace to its tool names: the sandbox exposes
 *   exactly these, as `mcp.<namespace>.<name>(args)` returning a promise, on
 *   frozen objects without a prototype (names with `-` or `.` are reached as
 *   `mcp.ns["get-x"]`).
 * - `input` is a JSON value exposed as the global constant `input`
 *   (`undefined` when absent).
 * - `call` answers one call. Its success value must be JSON-serializable; it
 *   resolves the promise in the sandbox. A {@link CallFailed} rejects it. The
 *   calls of a run are forked in a scope of the run: when the run ends (or is
 *   interrupted) the calls still in flight are interrupted.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { CallFailed, type RunRequest } from "effect-mcp-runtime/Sandbox"
 *
 * const request: RunRequest = {
 *   code: "const r = await mcp.math.add({ a: input.x, b: 2 })\nconsole.log('sum', r)\nreturn r",
 *   bindings: new Map([["math", ["add"]]]),
 *   input: { x: 40 },
 *   call: ({ name, args }) => {
 *     const { a, b } = args as { a: number; b: number }
 *     return name === "add" ? Effect.succeed(a + b) : Effect.fail(new CallFailed({ message: `No tool ${name}` }))
 *   },
 *   limits: { cpuMs: 1000 }
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface RunRequest {
  readonly code: string
  readonly bindings: ReadonlyMap<string, ReadonlyArray<string>>
  readonly input?: unknown
  readonly call: (call: HostCall) => Effect.Effect<unknown, CallFailed>
  readonly limits?: Partial<Limits> | undefined
}

/**
 * One line the code wrote with `console.log`, `info`, `warn`, `error` or
 * `debug`: its arguments formatted (strings as they are, other values as
 * JSON where possible) and joined by spaces.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { ConsoleLine } from "effect-mcp-runtime/Sandbox"
 *
 * Schema.decodeUnknownSync(ConsoleLine)({ level: "warn", text: 'skipped 2 files ["a","b"]' })
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export const ConsoleLine = Schema.Struct({
  level: Schema.Literals(["log", "info", "warn", "error", "debug"]),
  text: Schema.String
})

/**
 * One console line: its level and its text.
 *
 * **Example**
 *
 * ```ts
 * import type { ConsoleLine } from "effect-mcp-runtime/Sandbox"
 *
 * const render = (line: ConsoleLine) => `[${line.level}] ${line.text}`
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export type ConsoleLine = typeof ConsoleLine.Type

/**
 * What a successful run produced: the returned value (parsed from its JSON;
 * `undefined` when the code returned nothing), the console lines, whether
 * console output was dropped past the limit, and how many host calls the code
 * made.
 *
 * **Example**
 *
 * ```ts
 * import type { RunOutput } from "effect-mcp-runtime/Sandbox"
 *
 * const output: RunOutput = {
 *   value: { total: 3 },
 *   console: [{ level: "log", text: "done" }],
 *   consoleTruncated: false,
 *   calls: 2,
 *   cpuMs: 1.5
 * }
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export interface RunOutput {
  readonly value: unknown
  readonly console: ReadonlyArray<ConsoleLine>
  readonly consoleTruncated: boolean
  readonly calls: number
  /** The CPU time the code took, in ms (what `cpuMs` limits; time waiting for calls not counted). */
  readonly cpuMs: number
}

/**
 * Why a run failed:
 *
 * - `"syntax"`: the code does not parse.
 * - `"thrown"`: the code threw (or rejected) and did not catch it.
 * - `"cpu"`: it ran longer than `cpuMs`.
 * - `"memory"`: it ran out of memory (`memoryBytes`).
 * - `"stack"`: it recursed too deep.
 * - `"calls"`: it made more than `maxCalls` host calls.
 * - `"result"`: the returned value is not JSON-serializable, or its JSON is
 *   larger than `maxResultBytes`.
 * - `"unsettled"`: it awaits a promise that can never settle (no host call in
 *   flight and nothing left to run).
 *
 * **Example**
 *
 * ```ts
 * import type { SandboxErrorReason } from "effect-mcp-runtime/Sandbox"
 *
 * const retryable = (reason: SandboxErrorReason) => reason === "cpu" || reason === "memory"
 * ```
 *
 * @category models
 * @since 0.3.0
 */
export type SandboxErrorReason = "syntax" | "thrown" | "cpu" | "memory" | "stack" | "calls" | "result" | "unsettled"

/**
 * A run that failed. `message` is written for a model: what happened and
 * what to do about it. `console` holds the lines the code wrote before the
 * failure, and `line` the line of the code where an uncaught error was thrown
 * or where the syntax error is, when QuickJS tells.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const program = Effect.flatMap(Effect.service(Sandbox), (sandbox) =>
 *   sandbox.run({ code: "while (true) {}", bindings: new Map(), call: () => Effect.succeed(null) })
 * ).pipe(Effect.catchTag("SandboxError", (error) => Effect.succeed(`${error.reason}: ${error.message}`)))
 * ```
 *
 * @category errors
 * @since 0.3.0
 */
export class SandboxError extends Schema.TaggedError<SandboxError>()("SandboxError", {
  reason: Schema.Literals(["syntax", "thrown", "cpu", "memory", "stack", "calls", "result", "unsettled"]),
  message: Schema.String,
  console: Schema.Array(ConsoleLine),
  line: Schema.optional(Schema.Number),
  /** The CPU time the code took before it failed, in ms. */
  cpuMs: Schema.optional(Schema.Number)
}) {}

/**
 * The sandbox service: `run` executes one piece of code in a fresh isolate,
 * disposed when the run ends — successfully, with a failure, or interrupted
 * (a timeout around `run`, a cancelled request), in which case the host calls
 * still in flight are interrupted too.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const total = Effect.gen(function* () {
 *   const sandbox = yield* Sandbox
 *   const { value } = yield* sandbox.run({
 *     code: "const rs = await Promise.all(input.map((n) => mcp.math.square({ n })))\nreturn rs.reduce((a, b) => a + b, 0)",
 *     bindings: new Map([["math", ["square"]]]),
 *     input: [1, 2, 3],
 *     call: ({ args }) => Effect.succeed((args as { n: number }).n ** 2)
 *   })
 *   return value // => 14
 * }).pipe(Effect.timeout("30 seconds"))
 * ```
 *
 * @category services
 * @since 0.3.0
 */
export class Sandbox extends Context.Service<
  Sandbox,
  {
    /** Runs the code of `request` in a fresh isolate and returns what it produced. */
    readonly run: (request: RunRequest) => Effect.Effect<RunOutput, SandboxError>
  }
>()("effect-mcp-runtime/Sandbox") {}
