/**
 * The Node implementation of `CommandRunner`, on Effect's own process module
 * (`effect/process` with `@effect/platform-node`'s `NodeChildProcessSpawner`).
 *
 * Why the Effect module and not `node:child_process` directly: its spawner
 * starts every command `detached` (a process group of its own, the child is
 * the leader) and, when the scope of a spawned handle closes — normal end,
 * interruption, timeout, shutdown — it signals the whole group with
 * `killSignal` (SIGTERM), waits `forceKillAfter` (our kill grace), sends
 * SIGKILL to the group if any member is still alive, and waits for the leader
 * to exit (Node reaps it) and for the group to be empty. That is exactly the
 * kill semantics the runner promises, so there is no reason to re-implement
 * it here. Processes the command started in the background are killed too
 * when the command exits.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 * import { CommandRunner } from "effect-mcp-runtime/CommandRunner"
 *
 * const program = Effect.flatMap(Effect.service(CommandRunner), (runner) => runner.run({ command: "ls" }))
 * program.pipe(Effect.provide(NodeCommandRunner.layer()))
 * ```
 *
 * @since 0.1.0
 */
import * as NodeChildProcessSpawner from "@effect/platform-node/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as NodeFs from "node:fs"
import * as NodePathModule from "node:path"
import { performance } from "node:perf_hooks"
import * as CommandRunner from "../src/CommandRunner.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"

/**
 * Settings of a runner.
 *
 * **Example**
 *
 * ```ts
 * import type { Options } from "effect-mcp-runtime/layers/NodeCommandRunner"
 *
 * const options: Options = { envAllowlist: ["PATH", "HOME"], storeMaxRuns: 20, killGrace: "5 seconds" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Variables copied from the server's environment (default `CommandRunner.defaultEnvAllowlist`). */
  readonly envAllowlist?: ReadonlyArray<string> | undefined
  /** Default time between SIGTERM and SIGKILL (default 2 s); a request's `killGrace` wins. */
  readonly killGrace?: Duration.Input | undefined
  /** How many runs the output store keeps (default 100); the oldest are evicted first. */
  readonly storeMaxRuns?: number | undefined
  /** How many bytes of output the store keeps over all runs (default 32 MiB); the oldest runs are evicted first. */
  readonly storeMaxBytes?: number | undefined
  /** How long to wait, after the command exits, for output still in the pipes (default 250 ms). */
  readonly drainAfterExit?: Duration.Input | undefined
}

/** Captures up to `maxBytes` of one stream and splits it into lines as it arrives. */
class Capture {
  private readonly chunks: Array<Uint8Array> = []
  private bytes = 0
  private readonly decoder = new TextDecoder()
  private pending = ""
  truncated = false

  private readonly maxBytes: number

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  /** Keeps what fits under the cap; returns the complete lines in `chunk`. */
  push(chunk: Uint8Array): ReadonlyArray<string> {
    const room = this.maxBytes - this.bytes
    if (chunk.length <= room) {
      this.chunks.push(chunk)
      this.bytes += chunk.length
    } else {
      if (room > 0) this.chunks.push(chunk.subarray(0, room))
      this.bytes = this.maxBytes
      this.truncated = true
    }
    this.pending += this.decoder.decode(chunk, { stream: true })
    const parts = this.pending.split("\n")
    this.pending = parts.pop() ?? ""
    // A line that never ends is cut at the cap, so the buffer stays bounded.
    if (this.pending.length > this.maxBytes) {
      parts.push(this.pending)
      this.pending = ""
    }
    return parts.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
  }

  /** The last line when the stream did not end with a newline. */
  rest(): string | undefined {
    this.pending += this.decoder.decode()
    const rest = this.pending
    this.pending = ""
    return rest === "" ? undefined : rest
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8")
  }
}

/** The bounded store of recent runs' output: last `maxRuns`, at most `maxBytes` in all. */
const makeStore = (maxRuns: number, maxBytes: number) => {
  const runs = new Map<string, { readonly output: CommandRunner.StoredOutput; readonly bytes: number }>()
  let total = 0
  return {
    put: (output: CommandRunner.StoredOutput) =>
      Effect.sync(() => {
        const bytes = Buffer.byteLength(output.stdout) + Buffer.byteLength(output.stderr)
        const previous = runs.get(output.runId)
        if (previous !== undefined) {
          total -= previous.bytes
          runs.delete(output.runId)
        }
        runs.set(output.runId, { output, bytes })
        total += bytes
        for (const [id, entry] of runs) {
          if (runs.size <= 1 || (runs.size <= maxRuns && total <= maxBytes)) break
          runs.delete(id)
          total -= entry.bytes
        }
      }),
    get: (runId: string) => Effect.sync(() => runs.get(runId)?.output),
    // A Map iterates in insertion order and `put` re-inserts: the newest run is last.
    list: Effect.sync((): ReadonlyArray<CommandRunner.RunSummary> => {
      const summaries: Array<CommandRunner.RunSummary> = []
      for (const { output } of runs.values()) {
        const { stderr, stdout, ...rest } = output
        summaries.push({ ...rest, stdoutBytes: Buffer.byteLength(stdout), stderrBytes: Buffer.byteLength(stderr) })
      }
      return summaries.reverse()
    })
  }
}

const isInside = (root: string, target: string): boolean => {
  const relative = NodePathModule.relative(root, target)
  return relative === "" || (!relative.startsWith("..") && !NodePathModule.isAbsolute(relative))
}

/** Resolves `cwd` under the root: lexically first, then with symlinks resolved. */
const resolveCwd = (root: string, cwd: string | undefined) =>
  Effect.gen(function* () {
    const requested = cwd ?? "."
    const absoluteRoot = NodePathModule.resolve(root)
    const outside = new CommandRunner.CwdOutsideRoot({
      cwd: requested,
      root: absoluteRoot,
      message: `The working directory "${requested}" is outside the workspace root ${absoluteRoot}; pass a path relative to the root that stays under it (e.g. "." or "packages/app")`
    })
    if (requested.includes("\0")) return yield* outside
    const resolved = NodePathModule.resolve(absoluteRoot, requested)
    if (!isInside(absoluteRoot, resolved)) return yield* outside
    const real = yield* Effect.try({
      try: () => ({ root: NodeFs.realpathSync(absoluteRoot), cwd: NodeFs.realpathSync(resolved) }),
      catch: () =>
        new CommandRunner.CwdNotFound({
          cwd: requested,
          message: `The working directory "${requested}" does not exist under the workspace root; create it first or pick an existing directory`
        })
    })
    if (!isInside(real.root, real.cwd)) return yield* outside
    const isDirectory = yield* Effect.sync(() => NodeFs.statSync(real.cwd).isDirectory())
    if (!isDirectory) {
      return yield* new CommandRunner.CwdNotFound({
        cwd: requested,
        message: `The working directory "${requested}" is not a directory; pass its parent directory instead`
      })
    }
    return real.cwd
  })

const spawnError = (command: string, error: PlatformError.PlatformError) =>
  error.reason._tag === "NotFound"
    ? new CommandRunner.CommandNotFound({
        command,
        message: `The command "${command}" was not found on the PATH; check its spelling, install it, or pass its path relative to the working directory (e.g. "./scripts/build.sh")`
      })
    : new CommandRunner.SpawnFailed({
        command,
        reason: error.reason._tag,
        message: `The command "${command}" could not be started (${error.reason._tag}: ${error.message}); check that it is executable and its arguments contain no NUL bytes`
      })

const isInsideOrSame = (root: string, target: string): boolean => {
  const relative = NodePathModule.relative(root, target)
  return relative === "" || (!relative.startsWith("..") && !NodePathModule.isAbsolute(relative))
}

const realpathOr = (path: string): string => {
  try {
    return NodeFs.realpathSync(path)
  } catch {
    return NodePathModule.resolve(path)
  }
}

/**
 * The child's `PATH` with every entry the workspace could control removed:
 * empty and relative entries (which resolve against the working directory,
 * inside the root) and directories inside the root (`<root>/node_modules/.bin`,
 * which `npx` and `npm exec` put first). Without this, a file the agent wrote
 * (`./node_modules/.bin/git`) would run when an allowed name (`git`) is asked for.
 *
 * **Example**
 *
 * ```ts
 * import { safePath } from "effect-mcp-runtime/layers/NodeCommandRunner"
 *
 * safePath(":/usr/bin:.:node_modules/.bin:/srv/p/node_modules/.bin:/bin", "/srv/p") // => "/usr/bin:/bin"
 * ```
 *
 * @category environment
 * @since 0.1.0
 */
export const safePath = (path: string | undefined, root: string): string => {
  if (path === undefined) return ""
  const realRoot = realpathOr(root)
  return path
    .split(NodePathModule.delimiter)
    .filter(
      (entry) =>
        entry !== "" &&
        NodePathModule.isAbsolute(entry) &&
        !isInsideOrSame(NodePathModule.resolve(root), entry) &&
        !isInsideOrSame(realRoot, realpathOr(entry))
    )
    .join(NodePathModule.delimiter)
}

/**
 * The absolute path of the program a bare name (no `/`) stands for on `path`,
 * or `undefined`. Spawning that absolute path means nothing else (a file
 * appearing in the working directory later) can stand in for it.
 */
const lookUp = (name: string, path: string): string | undefined => {
  for (const dir of path.split(NodePathModule.delimiter)) {
    if (dir === "") continue
    const candidate = NodePathModule.join(dir, name)
    try {
      if (NodeFs.statSync(candidate).isFile()) {
        NodeFs.accessSync(candidate, NodeFs.constants.X_OK)
        return candidate
      }
    } catch {
      // not here
    }
  }
  return undefined
}

// The process groups of the runs in progress, killed outright if the process exits without running its
// finalizers (a second SIGTERM, process.exit from elsewhere): a run is detached, so nothing else would stop it.
const liveGroups = new Set<number>()
let exitHookInstalled = false
const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const pgid of liveGroups) {
      try {
        process.kill(-pgid, "SIGKILL")
      } catch {
        // already gone
      }
    }
  })
}

/**
 * The spawner reports a process ended by a signal as a failure of `exitCode`
 * whose cause's message names the signal (Node's `exit` event gives code
 * `null` and the signal); this recovers the signal's name.
 */
const signalOf = (error: PlatformError.PlatformError): string | null => {
  const cause = error.reason.cause
  const text = cause instanceof Error ? cause.message : error.message
  return /signal: '?(SIG[A-Z0-9]+)/.exec(text)?.[1] ?? null
}

/**
 * Builds a runner from the `ChildProcessSpawner` in context.
 *
 * **Example**
 *
 * ```ts
 * import * as NodeServices from "@effect/platform-node/NodeServices"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { CommandRunner } from "effect-mcp-runtime/CommandRunner"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 *
 * const RunnerLayer = Layer.effect(CommandRunner, NodeCommandRunner.make({ storeMaxRuns: 10 })).pipe(
 *   Layer.provide(NodeServices.layer)
 * )
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function* (options: Options = {}) {
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const allowlist = options.envAllowlist ?? CommandRunner.defaultEnvAllowlist
  const store = makeStore(options.storeMaxRuns ?? 100, options.storeMaxBytes ?? 32 * 1024 * 1024)
  const drainAfterExit = options.drainAfterExit ?? "250 millis"
  installExitHook()

  const run = Effect.fnUntraced(function* (request: CommandRunner.Request) {
    const root = yield* WorkspaceRoot
    const cwd = yield* resolveCwd(root, request.cwd)
    const runId = `run-${randomUUID()}`
    const args = request.args ?? []
    const maxBytes = request.maxOutputBytes ?? CommandRunner.defaultMaxOutputBytes
    const killGrace = request.killGrace ?? options.killGrace ?? CommandRunner.defaultKillGraceMs
    const stdout = new Capture(maxBytes)
    const stderr = new Capture(maxBytes)
    const started = performance.now()
    const startedAt = yield* Clock.currentTimeMillis
    const snapshot = (
      exitCode: number | null,
      signal: string | null,
      outcome: CommandRunner.StoredOutput["outcome"]
    ): CommandRunner.StoredOutput => ({
      runId,
      command: request.command,
      args,
      cwd,
      exitCode,
      signal,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      outcome,
      startedAt
    })

    const env = CommandRunner.buildEnv(process.env, allowlist, request)
    if (env.PATH !== undefined) env.PATH = safePath(env.PATH, root)
    // A bare name is resolved here, on the cleaned PATH; a path (listed literally by whoever allowed it) is kept.
    let program = request.command
    if (!program.includes("/") && !program.includes("\0")) {
      const found = lookUp(program, env.PATH ?? "")
      if (found === undefined) {
        return yield* new CommandRunner.CommandNotFound({
          command: request.command,
          message: `The command "${request.command}" was not found on the PATH (directories inside the workspace and relative entries are left out of it); check its spelling or install it`
        })
      }
      program = found
    }
    const command = ChildProcess.make(program, args, {
      cwd,
      env,
      extendEnv: false,
      detached: true,
      killSignal: "SIGTERM",
      forceKillAfter: killGrace,
      stdin: request.stdin === undefined ? "ignore" : Stream.make(new TextEncoder().encode(request.stdin)),
      stdout: "pipe",
      stderr: "pipe"
    })

    const drain = (
      name: CommandRunner.OutputStream,
      output: Stream.Stream<Uint8Array, PlatformError.PlatformError>,
      capture: Capture
    ) => {
      const onLine = request.onLine
      const emit = (lines: ReadonlyArray<string>) =>
        onLine === undefined || lines.length === 0
          ? Effect.void
          : Effect.forEach(lines, (line) => onLine(name, line), { discard: true })
      return output.pipe(
        Stream.runForEach((chunk) => emit(capture.push(chunk))),
        Effect.ignore,
        Effect.andThen(Effect.suspend(() => emit(Option.toArray(Option.fromUndefinedOr(capture.rest())))))
      )
    }

    let group: number | undefined
    const execute = Effect.scoped(
      Effect.gen(function* () {
        const handle = yield* spawner
          .spawn(command)
          .pipe(Effect.mapError((error) => spawnError(request.command, error)))
        // Forgotten only once the scope has closed, i.e. after the group was killed (see `execute` below).
        group = Number(handle.pid)
        liveGroups.add(group)
        const drains = yield* Effect.forkChild(
          Effect.all([drain("stdout", handle.stdout, stdout), drain("stderr", handle.stderr, stderr)], {
            concurrency: 2,
            discard: true
          })
        )
        const exit = yield* handle.exitCode.pipe(
          Effect.map((code): readonly [number | null, string | null] => [code, null]),
          Effect.catch((error) => Effect.succeed([null, signalOf(error)] as const))
        )
        // Output still in the pipes after the exit; a background process that
        // keeps them open is killed with the group when the scope closes.
        yield* Effect.timeoutOption(Fiber.join(drains), drainAfterExit)
        return exit
      })
    ).pipe(Effect.ensuring(Effect.sync(() => group !== undefined && liveGroups.delete(group))))

    const timeout = request.timeout
    const ended = yield* (
      timeout === undefined ? Effect.map(execute, Option.some) : Effect.timeoutOption(execute, timeout)
    ).pipe(Effect.onInterrupt(() => store.put(snapshot(null, null, "interrupted"))))

    if (Option.isNone(ended)) {
      const timeoutMs = timeout === undefined ? 0 : Duration.toMillis(timeout)
      yield* store.put(snapshot(null, null, "timedOut"))
      return yield* new CommandRunner.TimedOut({
        command: request.command,
        runId,
        timeoutMs,
        message: `The command "${request.command}" did not finish within ${timeoutMs} ms and was killed with its process tree; raise the timeout, or read what it printed from the run output ${runId}`
      })
    }
    const [exitCode, signal] = ended.value
    const result = snapshot(exitCode, signal, "exited")
    yield* store.put(result)
    const { outcome: _outcome, startedAt: _startedAt, ...plain } = result
    return plain satisfies CommandRunner.Result
  })

  return CommandRunner.CommandRunner.of({ run, output: store.get, runs: store.list })
})

/**
 * The runner on Node, with its own `ChildProcessSpawner` (and the file system
 * and path services it needs).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { CommandRunner } from "effect-mcp-runtime/CommandRunner"
 * import * as NodeCommandRunner from "effect-mcp-runtime/layers/NodeCommandRunner"
 *
 * const version = Effect.flatMap(Effect.service(CommandRunner), (runner) =>
 *   runner.run({ command: "node", args: ["--version"] })
 * ).pipe(Effect.provide(NodeCommandRunner.layer({ killGrace: "5 seconds" })))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<CommandRunner.CommandRunner> =>
  Layer.effect(CommandRunner.CommandRunner, make(options)).pipe(
    Layer.provide(NodeChildProcessSpawner.layer),
    Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
  )
