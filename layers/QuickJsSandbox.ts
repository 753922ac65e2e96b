/**
 * The `Sandbox` on QuickJS compiled to WebAssembly (`quickjs-emscripten`,
 * release build, synchronous variant): an isolate with its own heap and no
 * Node API at all, inside the server's process. See
 * `docs/adr/0006-code-sandbox.md` for why this and not `node:vm`,
 * `isolated-vm` or worker threads.
 *
 * The layer compiles the WebAssembly module once, at the first run. Every run gets a fresh
 * instance of it (about 1 ms to create) with its own linear memory, a fresh
 * QuickJS runtime and context in it, and disposes them when it ends. A fresh
 * instance per run, rather than one shared instance, for three reasons:
 *
 * - Memory: `setMemoryLimit` of the prebuilt QuickJS does not bound large
 *   strings and typed arrays (quickjs-emscripten#271), so the cap is the
 *   instance's `WebAssembly.Memory` itself, created with a `maximum`: the
 *   engine refuses to grow it past the limit, allocation fails inside QuickJS
 *   and the run ends with reason `"memory"`.
 * - Traps: the host's own stack can overflow under deep recursion through
 *   QuickJS built-ins before the QuickJS stack limit catches it; the trap
 *   leaves the instance unusable. Only that run fails (reason `"stack"`) and
 *   its instance is dropped.
 * - The memory of a run goes back to the system once the run is over.
 *
 * QuickJS polls its interrupt handler every 10,000 function calls or backward
 * jumps, which lets a loop of expensive built-in calls (`"x".repeat(1e6)`)
 * run for tens of seconds between polls. The layer finds the JSContext's
 * interrupt counter once, at the first run (and checks it behaves as one), and
 * each run keeps it at 100 or fewer, down to 1 while ticks are slow, so the
 * CPU limit is checked at least every millisecond or so of execution.
 *
 * The async bridge: `mcp.<namespace>.<name>(args)` is a function defined
 * inside the sandbox that serializes `args` to JSON there and calls one host
 * function, which records the call and returns a QuickJS promise
 * (`context.newPromise()`). Between slices of QuickJS execution the run
 * forks each recorded call's Effect in a scope of its own and waits on a
 * queue of completions; each completion resolves (with JSON text, parsed
 * inside the sandbox) or rejects its promise, then the pending jobs run, until
 * the code's promise settles. Nothing but strings and numbers crosses the
 * boundary.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as QuickJsSandbox from "effect-mcp-runtime/layers/QuickJsSandbox"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const program = Effect.flatMap(Effect.service(Sandbox), (sandbox) =>
 *   sandbox.run({ code: "return 6 * 7", bindings: new Map(), call: () => Effect.succeed(null) })
 * )
 * program.pipe(Effect.provide(QuickJsSandbox.layer))
 * ```
 *
 * @since 0.3.0
 */
import releaseSyncVariant from "@jitl/quickjs-wasmfile-release-sync"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import { Buffer } from "node:buffer"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { performance } from "node:perf_hooks"
import {
  type CustomizeVariantOptions,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule
} from "quickjs-emscripten-core"
import {
  type CallFailed,
  type ConsoleLine,
  defaultLimits,
  type HostCall,
  type Limits,
  type RunOutput,
  type RunRequest,
  Sandbox,
  SandboxError,
  type SandboxErrorReason
} from "../src/Sandbox.ts"

/**
 * The code evaluated first in every context: it receives the two host
 * functions and the run's data as arguments (never as globals), defines
 * `mcp`, `input` and `console`, compiles the code as the body of an async
 * function and returns a promise that always fulfills with one tagged string:
 * `o<json>` (returned a value), `u` (returned undefined), `s<message>` (the
 * value is not JSON-serializable), `e<description>` (threw), or — returned
 * synchronously instead of a promise — `x<description>` (did not compile).
 * Every built-in it relies on is captured before the code runs, so the code
 * cannot change how its result is reported.
 */
const bootstrap = `(function (hostCall, hostLog, bindingsJson, inputJson, code, consoleRoom) {
  "use strict"
  const G = globalThis
  const parse = JSON.parse
  const stringify = JSON.stringify
  const apply = Reflect.apply
  const then = Promise.prototype.then
  const create = Object.create
  const defineProperty = Object.defineProperty
  const freeze = Object.freeze
  const toStr = String
  const ErrorCtor = Error
  const AsyncFunction = (async function () {}).constructor
  // How a promise's \`then\` makes the promise it returns (its species): fixed before the code runs, so the code
  // cannot swap in an object of its own for the outcome the host reads.
  defineProperty(Promise, Symbol.species, { value: Promise, writable: false, configurable: false })
  defineProperty(Promise.prototype, "constructor", { value: Promise, writable: false, configurable: false })

  const text = (v) => {
    if (typeof v === "string") return v
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return toStr(v)
    try {
      const json = stringify(v)
      return json === undefined ? toStr(v) : json
    } catch (_) {
      try { return toStr(v) } catch (_) { return "[value]" }
    }
  }
  const format = (v) => {
    try {
      return v instanceof ErrorCtor ? toStr(v.name) + ": " + toStr(v.message) : text(v)
    } catch (_) {
      return "[value]"
    }
  }
  const describe = (e) => {
    try {
      let d
      if (e instanceof ErrorCtor) {
        d = { name: toStr(e.name), message: toStr(e.message) }
        if (typeof e.stack === "string") d.stack = e.stack
        if (typeof e.lineNumber === "number") d.line = e.lineNumber
      } else {
        d = { message: text(e) }
      }
      return stringify(d)
    } catch (_) {
      return '{"message":"(an error that could not be described)"}'
    }
  }

  let room = consoleRoom
  const write = (level) => function () {
    if (room < 0) return
    let line = ""
    for (let i = 0; i < arguments.length; i++) line += (i > 0 ? " " : "") + format(arguments[i])
    if (line.length > room + 1) line = line.slice(0, room + 1)
    room = hostLog(level, line)
  }
  defineProperty(G, "console", {
    value: freeze({ log: write("log"), info: write("info"), warn: write("warn"), error: write("error"), debug: write("debug") }),
    writable: true,
    configurable: true
  })

  const failure = (json) => {
    const f = parse(json)
    const e = new ErrorCtor(f.message)
    if (f.code !== undefined) e.code = f.code
    if (f.suggestion !== undefined) e.suggestion = f.suggestion
    return e
  }
  const bind = (ns, name) => async function (args) {
    // Taken before the first await, while the caller's frames are still on the stack: a rejection points at the call.
    const site = new ErrorCtor()
    const json = args === undefined ? undefined : stringify(args)
    let result
    try {
      result = await hostCall(ns, name, json)
    } catch (e) {
      if (typeof e !== "string") throw e
      const error = failure(e)
      error.stack = site.stack
      throw error
    }
    return result === undefined ? undefined : parse(result)
  }
  const mcp = create(null)
  const spaces = parse(bindingsJson)
  for (let i = 0; i < spaces.length; i++) {
    const ns = spaces[i][0]
    const names = spaces[i][1]
    const space = create(null)
    for (let j = 0; j < names.length; j++) defineProperty(space, names[j], { value: bind(ns, names[j]), enumerable: true })
    defineProperty(mcp, ns, { value: freeze(space), enumerable: true })
  }
  defineProperty(G, "mcp", { value: freeze(mcp), enumerable: true })
  defineProperty(G, "input", { value: inputJson === undefined ? undefined : parse(inputJson), enumerable: true })

  let main
  try {
    main = new AsyncFunction(code)
  } catch (e) {
    return "x" + describe(e)
  }
  return apply(then, apply(main, undefined, []), [
    (value) => {
      let json
      try {
        json = stringify(value)
      } catch (e) {
        return "s" + format(e)
      }
      return json === undefined ? "u" : "o" + json
    },
    (error) => "e" + describe(error)
  ])
})`

/**
 * The release build of QuickJS, synchronous (no asyncify), with its `.wasm`
 * as a separate file. Its typings describe a CommonJS module, so a default
 * import is typed as the whole module; at run time (ESM) it is the variant.
 */
const variant = ((imported: { readonly type?: unknown; readonly default?: unknown }) =>
  (imported.type === "sync" ? imported : imported.default) as QuickJSSyncVariant)(releaseSyncVariant)

/** The parts of a `WebAssembly.Memory` used here. */
interface WasmMemory {
  readonly buffer: ArrayBuffer
}

/** A compiled `WebAssembly.Module`, opaque here. */
interface WasmModule {
  readonly _wasmModule: unique symbol
}

/** A module's imports: namespace → name → value. */
type WasmImports = Record<string, Record<string, unknown>>

/** `WebAssembly`, which the project's `lib` (ES2023, no DOM) does not declare as a value. */
const wasm = (
  globalThis as unknown as {
    readonly WebAssembly: {
      readonly compile: (bytes: Uint8Array) => Promise<WasmModule>
      readonly Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory
      readonly Instance: new (module: WasmModule, imports: WasmImports) => { readonly exports: unknown }
    }
  }
).WebAssembly

const pageBytes = 64 * 1024
/** The initial memory of the emscripten build (`INITIAL_MEMORY`): static data, its stack, the first heap. */
const initialPages = 256
/** The most a wasm32 memory of this build may grow to (2 GiB). */
const maximumPages = 32768
/** QuickJS's `JS_INTERRUPT_COUNTER_INIT`: what the counter is reset to before each call of the handler. */
const defaultInterruptCounter = 10000
/** The most ticks (calls, backward jumps) between two polls of the interrupt handler during a run. */
const maxInterruptCounter = 100
/** A poll interval longer than this (ms) means ticks are slow: poll at every tick until they are fast again. */
const slowPollMs = 1

/** One WebAssembly instance of QuickJS, for one run. */
interface Instance {
  readonly quickjs: QuickJSWASMModule
  readonly memory: WasmMemory
  /** Set when the instance asked for more memory than its maximum and was refused. */
  readonly growth: { refused: boolean }
  /** What emscripten printed (an abort message), kept for the log. */
  readonly printed: Array<string>
}

/**
 * Instantiates the compiled module with a memory of at most `maxBytes`
 * (rounded up to pages) beyond its initial 16 MiB. The heap-resize import of
 * emscripten is wrapped to record a refused growth.
 */
const instantiate = (module: WasmModule, maxBytes: number): Promise<Instance> => {
  const maximum = Math.min(maximumPages, initialPages + Math.ceil(maxBytes / pageBytes))
  const memory = new wasm.Memory({ initial: initialPages, maximum })
  const growth = { refused: false }
  const printed: Array<string> = []
  const emscriptenModule = {
    wasmMemory: memory,
    print: (text: string) => void printed.push(text),
    printErr: (text: string) => void printed.push(text),
    instantiateWasm: (imports: WasmImports, onSuccess: (instance: { readonly exports: unknown }) => void) => {
      let wrapped = 0
      for (const namespace of Object.values(imports)) {
        for (const [name, value] of Object.entries(namespace)) {
          // emscripten_resize_heap: the only import that grows the memory.
          if (typeof value === "function" && value.toString().includes(".grow(")) {
            const resize = value as (bytes: number) => boolean
            namespace[name] = (bytes: number) => {
              const grown = resize(bytes)
              if (!grown) growth.refused = true
              return grown
            }
            wrapped++
          }
        }
      }
      if (wrapped !== 1)
        throw new Error(`Sandbox: expected one heap-resize import in the QuickJS build, found ${wrapped}`)
      const instance = new wasm.Instance(module, imports)
      onSuccess(instance)
      return instance.exports
    }
  } as unknown as NonNullable<CustomizeVariantOptions["emscriptenModule"]>
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { emscriptenModule })).then((quickjs) => ({
    quickjs,
    memory,
    growth,
    printed
  }))
}

/** The address of a context's `JSContext` in the instance's memory (a protected field of quickjs-emscripten). */
const contextPointer = (context: QuickJSContext): number =>
  (context as unknown as { readonly ctx: { readonly value: number } }).ctx.value

/**
 * Finds the offset of `interrupt_counter` in `JSContext` for this build: the
 * one 32-bit word of the struct holding `JS_INTERRUPT_COUNTER_INIT` right
 * after a reset (inside the handler), confirmed by setting it to 10 and
 * seeing the handler called about every 10 ticks. Fails (the layer cannot be
 * built) if the build does not behave as expected.
 */
const findInterruptCounter = (instance: Instance): number => {
  const runtime = instance.quickjs.newRuntime()
  const context = runtime.newContext()
  try {
    const base = contextPointer(context)
    let candidates: Array<number> | undefined
    runtime.setInterruptHandler(() => {
      if (candidates === undefined) {
        const words = new Int32Array(instance.memory.buffer, base, 256)
        candidates = []
        for (let i = 0; i < words.length; i++) if (words[i] === defaultInterruptCounter) candidates.push(i * 4)
      }
      return false
    })
    context.evalCode("(() => { let n = 0; for (let i = 0; i < 100000; i++) n++; return n })()").dispose()
    if (candidates?.length !== 1) {
      throw new Error(
        `Sandbox: cannot find the interrupt counter of the QuickJS build (${candidates?.length ?? 0} candidates)`
      )
    }
    const index = (base + candidates[0]!) / 4
    let polls = 0
    runtime.setInterruptHandler(() => {
      polls++
      new Int32Array(instance.memory.buffer)[index] = 10
      return false
    })
    new Int32Array(instance.memory.buffer)[index] = 10
    context.evalCode("(() => { let n = 0; for (let i = 0; i < 10000; i++) n++; return n })()").dispose()
    if (polls < 500)
      throw new Error(`Sandbox: the interrupt counter of the QuickJS build did not behave as one (${polls} polls)`)
    return candidates[0]!
  } finally {
    context.dispose()
    runtime.dispose()
  }
}

/**
 * Checks, on a small instance, that running out of memory is a refused
 * growth of the memory and an ordinary exception inside QuickJS (not a trap).
 * The instance is dropped afterwards, not disposed.
 */
const checkMemoryCap = (instance: Instance): void => {
  const context = instance.quickjs.newRuntime().newContext()
  context.evalCode("const keep = []; while (keep.length < 64) keep.push(new Uint8Array(1 << 20))").dispose()
  if (!instance.growth.refused) throw new Error("Sandbox: the memory cap of the QuickJS build does not hold")
}

/** The lines `new AsyncFunction(code)` puts before the code in its source (`(async function anonymous(\n) {\n`). */
const codeLineOffset = 2

/** What the sandbox side reports about a thrown value. */
interface ErrorDescription {
  readonly name?: string
  readonly message?: string
  readonly stack?: string
  readonly line?: number
}

/** One completed host call, as the run's queue receives it. */
interface Completion {
  readonly id: number
  readonly exit: Exit.Exit<unknown, CallFailed>
}

/** A host call recorded during a slice, forked after it. */
interface PendingCall {
  readonly id: number
  readonly call: HostCall
}

/** How a run ended, once it has. */
type Ending =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly error: SandboxError }
  | { readonly _tag: "Defect"; readonly defect: unknown }

const mib = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`

/** The code's own lines in a QuickJS stack trace: `<input>:4:2` → `line 2:2`, the bootstrap's frames dropped. */
const codeFrames = (stack: string | undefined): ReadonlyArray<string> =>
  (stack ?? "")
    .split("\n")
    .filter((frame) => frame.includes("<input>:"))
    .slice(0, 8)
    .map((frame) =>
      frame
        .trim()
        .replace(/<input>:(\d+)(?::(\d+))?/, (_, line: string, column: string | undefined) =>
          column === undefined
            ? `line ${Number(line) - codeLineOffset}`
            : `line ${Number(line) - codeLineOffset}:${column}`
        )
        .replace(/^at anonymous /, "at <code> ")
    )

/** The first line of the code in a stack trace. */
const firstCodeLine = (stack: string | undefined): number | undefined => {
  const match = /<input>:(\d+)/.exec(stack ?? "")
  return match === null ? undefined : Number(match[1]) - codeLineOffset
}

const messages = {
  cpu: (limits: Limits) =>
    `The code ran for more than ${limits.cpuMs} ms of CPU time and was stopped. Do less work per run: ` +
    "avoid unbounded loops, process less data, or split the task into several runs.",
  memory: (limits: Limits) =>
    `The code used more than the ${mib(limits.memoryBytes)} of memory it may use and was stopped. Keep less data ` +
    "in memory: process items one at a time, avoid building huge strings or arrays, and return only what is needed.",
  stack: () =>
    "The code recursed too deep (maximum call stack exceeded) and was stopped. Replace deep or unbounded " +
    "recursion with a loop.",
  calls: (limits: Limits) =>
    `The code made more than ${limits.maxCalls} mcp.* calls in one run and was stopped. Make fewer calls per ` +
    "run: fetch in bulk where a tool allows it, or split the work into several runs.",
  unsettled: () =>
    "The code awaited a promise that can never settle: no mcp.* call was in flight and nothing was left to run " +
    "(the sandbox has no timers). Await only mcp.* calls or promises the code itself resolves."
}

/**
 * One run's isolate: a QuickJS runtime and context in their own WebAssembly
 * instance, the host functions the bootstrap receives, and the bookkeeping of
 * the run (CPU time, calls, console, promises of calls in flight). All of its
 * QuickJS work happens on the run's fiber, in synchronous slices; the forked
 * host calls only ever offer to the queue.
 */
class Isolate {
  readonly console: Array<ConsoleLine> = []
  consoleTruncated = false
  calls = 0
  ending: Ending | undefined = undefined

  private consoleBytes = 0
  /** CPU time spent executing inside the isolate, in ms. */
  cpuUsed = 0
  private sliceStart = 0
  private fatal: "cpu" | "calls" | "stack" | "memory" | undefined = undefined
  /** A trap inside WebAssembly: the instance must not be touched again, not even to dispose it. */
  private poisoned = false
  private nextId = 0
  private readonly deferreds = new Map<number, QuickJSDeferredPromise>()
  private newCalls: Array<PendingCall> = []
  /** What the bootstrap returned: the promise of the tagged outcome, or the tagged string of a compile failure. */
  private outcome: QuickJSHandle | undefined = undefined
  private compileFailed = false
  private readonly allowed: ReadonlyMap<string, ReadonlySet<string>>

  private readonly instance: Instance
  private readonly runtime: QuickJSRuntime
  private readonly context: QuickJSContext
  private readonly limits: Limits
  /** The index, in 32-bit words of the memory, of the context's interrupt counter. */
  private readonly counterIndex: number
  private counterView: Int32Array
  private counter = 1
  private lastPoll = 0

  constructor(instance: Instance, counterOffset: number, limits: Limits, request: RunRequest) {
    this.instance = instance
    this.limits = limits
    this.allowed = new Map([...request.bindings].map(([namespace, names]) => [namespace, new Set(names)]))
    this.runtime = instance.quickjs.newRuntime()
    this.context = this.runtime.newContext()
    this.counterIndex = (contextPointer(this.context) + counterOffset) / 4
    this.counterView = new Int32Array(instance.memory.buffer)
    this.runtime.setMaxStackSize(limits.stackBytes)
    this.runtime.setInterruptHandler(() => {
      const now = performance.now()
      if (this.fatal !== undefined) return true
      if (this.instance.growth.refused) {
        this.fatal = "memory"
        return true
      }
      if (this.cpuUsed + (now - this.sliceStart) > limits.cpuMs) {
        this.fatal = "cpu"
        return true
      }
      // QuickJS has just reset the counter to 10,000: poll again sooner, at every tick while ticks are slow.
      this.counter = now - this.lastPoll > slowPollMs ? 1 : Math.min(maxInterruptCounter, this.counter * 4)
      this.lastPoll = now
      this.setCounter(this.counter)
      return false
    })
  }

  private setCounter(value: number): void {
    if (this.counterView.buffer !== this.instance.memory.buffer) {
      // The memory grew: its previous buffer is detached.
      this.counterView = new Int32Array(this.instance.memory.buffer)
    }
    this.counterView[this.counterIndex] = value
  }

  get inFlight(): number {
    return this.deferreds.size
  }

  /** Runs `f` as a slice of QuickJS execution: its time counts against `cpuMs`, and a trap poisons the isolate. */
  private slice(f: () => void): void {
    if (this.poisoned || this.ending !== undefined) return
    this.sliceStart = performance.now()
    // Whatever the previous slice left in the counter, poll at the first tick of this one.
    this.lastPoll = this.sliceStart
    this.counter = 1
    this.setCounter(1)
    try {
      f()
    } catch (error) {
      this.onHostException(error)
    } finally {
      this.cpuUsed += performance.now() - this.sliceStart
    }
  }

  /** An exception out of quickjs-emscripten rather than a QuickJS result: a trap, or a bug. */
  private onHostException(error: unknown): void {
    if (this.instance.growth.refused) {
      // Out of memory, then something failed on the way out: the instance is not to be trusted any more.
      this.poisoned = true
      this.fatal ??= "memory"
    } else if (error instanceof RangeError && /call stack/i.test(error.message)) {
      this.poisoned = true
      this.fatal ??= "stack"
    } else if (error instanceof Error && error.name === "RuntimeError") {
      // WebAssembly.RuntimeError: an abort (failed assertion, out of memory in the allocator) or a trap.
      this.poisoned = true
      if (/memory|OOM/i.test(error.message)) this.fatal ??= "memory"
      else this.ending ??= { _tag: "Defect", defect: error }
    } else {
      const message = error instanceof Error ? error.message : String(error)
      if (/out of memory/.test(message)) this.fatal ??= "memory"
      else if (/stack overflow/.test(message)) this.fatal ??= "stack"
      else if (this.fatal === undefined) this.ending ??= { _tag: "Defect", defect: error }
    }
  }

  private fail(reason: SandboxErrorReason, message: string, line?: number): void {
    this.ending ??= {
      _tag: "Failure",
      error: new SandboxError({
        reason,
        message,
        console: this.console.slice(),
        ...(line === undefined ? {} : { line }),
        cpuMs: this.cpuUsed
      })
    }
  }

  /** Ends the run if a limit stopped it (or a trap happened). */
  private checkFatal(): boolean {
    if (this.ending !== undefined) return true
    if (this.instance.growth.refused) {
      // The memory cap was hit: the run is over even if the code caught the error (its heap is exhausted,
      // and the host's own calls into the instance need memory too).
      this.poisoned = true
      this.fatal ??= "memory"
    }
    switch (this.fatal) {
      case undefined:
        return false
      case "cpu":
        this.fail("cpu", messages.cpu(this.limits))
        return true
      case "calls":
        this.fail("calls", messages.calls(this.limits))
        return true
      case "stack":
        this.fail("stack", messages.stack())
        return true
      case "memory":
        this.fail("memory", messages.memory(this.limits))
        return true
    }
  }

  private log(level: ConsoleLine["level"], text: string): number {
    if (this.consoleTruncated) return -1
    const room = this.limits.maxConsoleBytes - this.consoleBytes
    const bytes = Buffer.byteLength(text) + 1
    if (bytes <= room) {
      this.console.push({ level, text })
      this.consoleBytes += bytes
      return room - bytes
    }
    this.consoleTruncated = true
    this.consoleBytes = this.limits.maxConsoleBytes
    if (room > 1) {
      const encoded = Buffer.from(text)
      let end = room - 1
      while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--
      if (end > 0) this.console.push({ level, text: encoded.subarray(0, end).toString() })
    }
    return -1
  }

  private hostCall(namespaceHandle: QuickJSHandle, nameHandle: QuickJSHandle, argsHandle: QuickJSHandle) {
    const context = this.context
    if (this.calls >= this.limits.maxCalls) {
      this.fatal ??= "calls"
      throw new Error(messages.calls(this.limits))
    }
    const namespace = context.getString(namespaceHandle)
    const name = context.getString(nameHandle)
    if (this.allowed.get(namespace)?.has(name) !== true) throw new Error(`mcp.${namespace}.${name} does not exist`)
    const args: unknown =
      context.typeof(argsHandle) === "string" ? JSON.parse(context.getString(argsHandle)) : undefined
    this.calls++
    const deferred = context.newPromise()
    const id = this.nextId++
    this.deferreds.set(id, deferred)
    this.newCalls.push({ id, call: { namespace, name, args } })
    // quickjs-emscripten takes the returned handle over (and disposes it); the deferred keeps its resolvers.
    return deferred.handle
  }

  /** Defines the globals, compiles the code and starts it. */
  boot(request: RunRequest): void {
    const context = this.context
    const bindings = JSON.stringify([...this.allowed].map(([namespace, names]) => [namespace, [...names]]))
    let input: string | undefined
    try {
      input = request.input === undefined ? undefined : JSON.stringify(request.input)
    } catch (error) {
      this.ending = {
        _tag: "Defect",
        defect: new Error("Sandbox: the run's input is not JSON-serializable", { cause: error })
      }
      return
    }
    const largest = Math.max(request.code.length, input?.length ?? 0) * 2
    if (largest > this.limits.memoryBytes) {
      this.fail("memory", messages.memory(this.limits))
      return
    }
    this.slice(() => {
      const compiled = context.evalCode(bootstrap, "bootstrap.js", { type: "global", strict: true })
      if (compiled.error) {
        this.failFromHandle(compiled.error)
        compiled.error.dispose()
        return
      }
      const boot = compiled.value
      const hostCall = context.newFunction("hostCall", (namespace, name, args) => this.hostCall(namespace, name, args))
      const hostLog = context.newFunction("hostLog", (level, text) =>
        context.newNumber(this.log(context.getString(level) as ConsoleLine["level"], context.getString(text)))
      )
      const args = [
        hostCall,
        hostLog,
        context.newString(bindings),
        input === undefined ? context.undefined : context.newString(input),
        context.newString(request.code),
        context.newNumber(this.limits.maxConsoleBytes)
      ]
      const started = context.callFunction(boot, context.undefined, args)
      for (const handle of args) handle.dispose()
      boot.dispose()
      if (started.error) {
        this.failFromHandle(started.error)
        started.error.dispose()
        return
      }
      this.outcome = started.value
      this.compileFailed = context.typeof(started.value) === "string"
    })
    this.checkFatal()
  }

  /** Ends the run from an exception value QuickJS itself raised (the bootstrap's own code never throws otherwise). */
  private failFromHandle(handle: QuickJSHandle): void {
    if (this.checkFatal()) return
    // An error QuickJS raised (never a promise): `dump` gives its own properties, or null.
    const dumped: unknown = this.context.dump(handle)
    const message =
      typeof dumped === "object" && dumped !== null && "message" in dumped ? String(dumped.message) : String(dumped)
    if (/out of memory/.test(message)) this.fail("memory", messages.memory(this.limits))
    else if (/stack overflow/.test(message)) this.fail("stack", messages.stack())
    else if (/interrupted/.test(message)) this.fail("cpu", messages.cpu(this.limits))
    else this.fail("thrown", `The code failed: ${message}`)
  }

  /** Runs the pending jobs, then ends the run if the code's promise settled or a limit stopped it. */
  step(): void {
    this.slice(() => {
      const result = this.runtime.executePendingJobs(-1)
      if (result.error) {
        // An exception a job did not turn into a rejection: an interrupt or out of memory.
        this.failFromHandle(result.error)
        result.error.dispose()
      }
    })
    if (this.checkFatal()) return
    const outcome = this.outcome
    if (outcome === undefined) return
    this.slice(() => {
      if (this.compileFailed) {
        this.finish(this.context.getString(outcome))
        return
      }
      const state = this.context.getPromiseState(outcome)
      if (state.type === "fulfilled" && state.notAPromise === true) {
        // Not a promise after all (its value is the outcome's own handle, disposed with it).
        this.fail("thrown", "The code's outcome could not be read.")
      } else if (state.type === "fulfilled") {
        const tagged = this.context.getString(state.value)
        state.value.dispose()
        this.finish(tagged)
      } else if (state.type === "rejected") {
        this.failFromHandle(state.error)
        state.error.dispose()
      }
    })
    this.checkFatal()
  }

  /** Ends the run from the bootstrap's tagged outcome. */
  private finish(tagged: string): void {
    const body = tagged.slice(1)
    switch (tagged[0]) {
      case "u":
        this.ending = { _tag: "Success", value: undefined }
        return
      case "o": {
        const bytes = Buffer.byteLength(body)
        if (bytes > this.limits.maxResultBytes) {
          this.fail(
            "result",
            `The returned value is ${bytes} bytes of JSON, more than the ${this.limits.maxResultBytes} bytes a run ` +
              "may return. Return less: filter, aggregate or summarize in the code, or return a page of the data."
          )
          return
        }
        try {
          this.ending = { _tag: "Success", value: JSON.parse(body) }
        } catch {
          this.fail("thrown", "The code's outcome could not be read.")
        }
        return
      }
      case "s":
        this.fail(
          "result",
          `The returned value cannot be converted to JSON (${body}). Return plain data: objects, arrays, strings, ` +
            "finite numbers, booleans and null — no BigInt, no cycles."
        )
        return
      case "e":
      case "x": {
        let description: ErrorDescription
        try {
          description = JSON.parse(body) as ErrorDescription
        } catch {
          this.fail("thrown", "The code's outcome could not be read.")
          return
        }
        const message = description.message ?? ""
        const compile = tagged[0] === "x"
        if (description.name === "InternalError" && message === "out of memory") {
          this.fail("memory", messages.memory(this.limits))
        } else if (/stack overflow/.test(message) && description.name !== undefined) {
          this.fail("stack", messages.stack())
        } else if (compile) {
          const line = description.line === undefined ? undefined : description.line - codeLineOffset
          this.fail(
            "syntax",
            `The code does not parse: ${description.name ?? "SyntaxError"}: ${message}` +
              (line === undefined ? "" : ` (line ${line})`) +
              ". The code is the body of an async function in plain JavaScript: no TypeScript, no import or " +
              "export; use await and return.",
            line
          )
        } else {
          const line = firstCodeLine(description.stack)
          const frames = codeFrames(description.stack)
          const what = description.name === undefined ? `value: ${message}` : `${description.name}: ${message}`
          this.fail(
            "thrown",
            `The code threw an uncaught ${what}` +
              (frames.length === 0 ? "" : `\n    ${frames.join("\n    ")}`) +
              "\nCatch the errors you expect (a failed mcp.* call rejects with an Error carrying code and " +
              "suggestion) or fix the code.",
            line
          )
        }
        return
      }
      default:
        this.fail("thrown", "The code's outcome could not be read.")
    }
  }

  /** Calls recorded since the last time, to fork. */
  takeNewCalls(): ReadonlyArray<PendingCall> {
    const calls = this.newCalls
    this.newCalls = []
    return calls
  }

  /** Settles the promise of one completed call (a defect in the call's Effect ends the run with it). */
  settle(completion: Completion): void {
    const deferred = this.deferreds.get(completion.id)
    // Once the run has ended the promise is left as it is (and freed with the rest, unless the instance is poisoned).
    if (deferred === undefined || this.ending !== undefined || this.poisoned) return
    this.deferreds.delete(completion.id)
    const exit = completion.exit
    let resolved: string | undefined
    let rejected: string | undefined
    if (Exit.isSuccess(exit)) {
      try {
        resolved = JSON.stringify(exit.value)
      } catch (error) {
        rejected = JSON.stringify({
          message: `The host's result is not JSON-serializable: ${error instanceof Error ? error.message : String(error)}`
        })
      }
      if (resolved !== undefined && resolved.length * 2 > this.limits.memoryBytes) {
        rejected = JSON.stringify({
          message: `The result of the call (${resolved.length} characters of JSON) is too large for the sandbox's memory.`,
          suggestion: "Ask the tool for less data: a narrower query, or one page at a time."
        })
        resolved = undefined
      }
    } else {
      const failure = Cause.findErrorOption(exit.cause)
      if (failure._tag === "Some") {
        const { message, code, suggestion } = failure.value
        rejected = JSON.stringify({ message, code, suggestion })
      } else if (Cause.hasInterruptsOnly(exit.cause)) {
        rejected = JSON.stringify({ message: "The call was interrupted." })
      } else {
        this.ending ??= { _tag: "Defect", defect: Cause.squash(exit.cause) }
        this.deferreds.set(completion.id, deferred)
        return
      }
    }
    this.slice(() => {
      if (rejected !== undefined) {
        const handle = this.context.newString(rejected)
        deferred.reject(handle)
        handle.dispose()
      } else if (resolved === undefined) {
        deferred.resolve()
      } else {
        const handle = this.context.newString(resolved)
        deferred.resolve(handle)
        handle.dispose()
      }
      // Settling freed the resolvers; this frees them when settling failed half-way.
      deferred.dispose()
    })
  }

  /**
   * Frees every handle the host holds, then the context and the runtime.
   * Never throws: a failure here (a handle leak, which the release build
   * asserts on) is returned for the caller to log.
   */
  dispose(): unknown {
    if (this.poisoned) return undefined
    try {
      for (const deferred of this.deferreds.values()) deferred.dispose()
      this.deferreds.clear()
      this.outcome?.dispose()
      this.outcome = undefined
      this.context.dispose()
      this.runtime.dispose()
      return undefined
    } catch (error) {
      return error
    }
  }
}

// Calls and console output may be switched off (0); memory, stack, CPU and the result need room to run at all.
const mayBeZero = new Set<string>(["maxCalls", "maxConsoleBytes"])

const checkLimits = (limits: Limits): Limits => {
  for (const [key, value] of Object.entries(limits)) {
    const floor = mayBeZero.has(key) ? 0 : Number.MIN_VALUE
    if (typeof value !== "number" || !Number.isFinite(value) || value < floor) {
      throw new Error(
        `Sandbox: the limit ${key} must be a ${floor === 0 ? "non-negative" : "positive"} number, got ${String(value)}`
      )
    }
  }
  return limits
}

/**
 * Builds the service: a `run` that instantiates the QuickJS WebAssembly
 * module afresh for every run. The module is compiled, and the layer's two
 * checks made, at the first run (tens of ms, once).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import * as QuickJsSandbox from "effect-mcp-runtime/layers/QuickJsSandbox"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const SandboxLive = Layer.effect(Sandbox, QuickJsSandbox.make)
 * ```
 *
 * @category constructors
 * @since 0.3.0
 */
export const make: Effect.Effect<Sandbox["Service"]> = Effect.gen(function* () {
  // Compiled and checked at the first run, once (tens of ms): a server that never runs code never pays for it, and
  // its start is not delayed. A check that fails fails every run, with the reason, rather than run without a limit.
  const prepared = yield* Effect.cached(
    Effect.promise(async () => {
      const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm")
      const wasmModule = await wasm.compile(await readFile(path))
      // Checked on throwaway instances: the interrupt counter's place, and that the memory cap holds.
      const counterOffset = findInterruptCounter(await instantiate(wasmModule, 64 * 1024 * 1024))
      checkMemoryCap(await instantiate(wasmModule, 8 * 1024 * 1024))
      return { wasmModule, counterOffset }
    })
  )

  const run = Effect.fn("Sandbox.run")(function* (request: RunRequest) {
    const { counterOffset, wasmModule } = yield* prepared
    const limits = checkLimits({ ...defaultLimits, ...request.limits })
    const instance = yield* Effect.promise(() => instantiate(wasmModule, limits.memoryBytes))
    const queue = yield* Queue.unbounded<Completion>()
    return yield* Effect.acquireUseRelease(
      Effect.gen(function* () {
        const scope = yield* Scope.make()
        return { scope, isolate: new Isolate(instance, counterOffset, limits, request) }
      }),
      ({ scope, isolate }) =>
        Effect.gen(function* () {
          isolate.boot(request)
          while (true) {
            isolate.step()
            // Every call the code made is dispatched, even when the run has just ended: those still in flight
            // when it ends are interrupted with the run's scope.
            for (const { id, call } of isolate.takeNewCalls()) {
              yield* Effect.suspend(() => request.call(call)).pipe(
                Effect.exit,
                Effect.flatMap((exit) => Queue.offer(queue, { id, exit })),
                Effect.forkIn(scope, { startImmediately: true })
              )
            }
            const ending = isolate.ending
            if (ending !== undefined) {
              switch (ending._tag) {
                case "Success":
                  return {
                    value: ending.value,
                    console: isolate.console,
                    consoleTruncated: isolate.consoleTruncated,
                    calls: isolate.calls,
                    cpuMs: isolate.cpuUsed
                  } satisfies RunOutput
                case "Failure":
                  return yield* ending.error
                case "Defect":
                  return yield* Effect.die(ending.defect)
              }
            }
            if (isolate.inFlight === 0) {
              return yield* new SandboxError({
                reason: "unsettled",
                message: messages.unsettled(),
                console: isolate.console.slice(),
                cpuMs: isolate.cpuUsed
              })
            }
            for (const completion of yield* Queue.takeAll(queue)) isolate.settle(completion)
          }
        }),
      ({ scope, isolate }, exit) =>
        Effect.gen(function* () {
          yield* Scope.close(scope, exit)
          const failure = isolate.dispose()
          if (failure !== undefined) {
            yield* Effect.logWarning(
              "Sandbox: disposing the QuickJS runtime failed (a handle leak)",
              failure,
              instance.printed
            )
          }
        })
    )
  })

  return Sandbox.of({ run })
})

/**
 * The `Sandbox` layer: compiles the WebAssembly module once, at the first
 * run (so a server that never runs code never pays for it).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as QuickJsSandbox from "effect-mcp-runtime/layers/QuickJsSandbox"
 * import { Sandbox } from "effect-mcp-runtime/Sandbox"
 *
 * const answer = Effect.flatMap(Effect.service(Sandbox), (sandbox) =>
 *   sandbox.run({ code: "return input.a + input.b", bindings: new Map(), input: { a: 1, b: 2 }, call: () => Effect.succeed(null) })
 * ).pipe(Effect.provide(QuickJsSandbox.layer))
 * ```
 *
 * @category layers
 * @since 0.3.0
 */
export const layer: Layer.Layer<Sandbox> = Layer.effect(Sandbox, make)
