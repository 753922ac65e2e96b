/**
 * The inspect page's event hub: what the server did lately, kept in bounded
 * buffers (the last requests, their span trees, command runs with the tail
 * of their output, audit records, progress and cancellations, the load of
 * the slot pools), and the live feed of it to the page's clients.
 *
 * Everything here is synchronous and cheap: it runs on the request path.
 * With no client connected, an event only updates the buffers (nothing is
 * serialized); with clients, each event is serialized once and added to each
 * client's pending frames, which `flush` (every 100 ms) hands to the
 * client's bounded queue in one piece. A client whose queue is full, or
 * whose pending frames pass `bounds.pendingBytes`, is cut (its `onCut`
 * runs), never waited for. Spans are kept as the tracer made them and read
 * only when a page asks for a request's trace.
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Tracer from "effect/Tracer"
import type { Load } from "../../Executor.ts"
import { millis, type PolicyShape } from "../../Policy.ts"
import type { ObservedEnd, ObservedRequest, RequestObserver } from "../dispatch.ts"

/** One request as the page shows it. */
export interface RequestView {
  readonly seq: number
  readonly correlationId: string
  readonly method: string
  readonly rpcId: string | number
  readonly session: string
  tool: string | undefined
  capability: string | undefined
  queueMs: number
  /** Wall-clock start, in ms since the epoch. */
  readonly startedAt: number
  elapsedMs: number | undefined
  outcome: string | undefined
  readonly bytesIn: number | undefined
  bytesOut: number | undefined
  running: boolean
  readonly principal: string | undefined
}

/** One span of a request's trace. */
export interface SpanView {
  readonly traceId: string
  readonly spanId: string
  readonly parentId: string | undefined
  readonly name: string
  /** Wall-clock start and end, in ms since the epoch (fractional). */
  readonly start: number
  readonly end: number | undefined
  readonly status: "running" | "ok" | "error" | "interrupted"
  readonly attributes: Record<string, string | number | boolean>
}

/** One command run, with the tail of its output. */
export interface CommandView {
  readonly seq: number
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
  readonly correlationId: string | undefined
  readonly startedAt: number
  running: boolean
  exitCode: number | null | undefined
  signal: string | null | undefined
  outcome: string | undefined
  durationMs: number | undefined
  readonly lines: Array<{ readonly stream: string; readonly line: string }>
  droppedLines: number
}

/** One audit record, without its arguments' full text. */
export interface AuditView {
  readonly seq: number
  readonly time: string
  readonly tool: string
  readonly outcome: string
  readonly durationMs: number
  readonly correlationId: string
  readonly principal: string | undefined
  readonly arguments: string
}

/** A progress notification or a cancellation, as it happened. */
export interface ActivityView {
  readonly seq: number
  readonly at: number
  readonly kind: "progress" | "cancelled"
  readonly session: string
  readonly detail: Record<string, unknown>
}

/** The limits in force and how full the pools are. */
export interface LimitsView {
  readonly policy: Record<string, unknown>
  readonly load: Load | undefined
}

/** A connected client: told the events as SSE frames, in batches. */
export interface Client {
  /** Offers a batch of frames; `false` when the client's queue is full (the client is cut). */
  readonly offer: (frames: string) => boolean
  readonly onCut: () => void
}

interface Connected {
  readonly client: Client
  pending: Array<string>
  pendingBytes: number
}

/** How much the hub keeps. */
export const bounds = {
  requests: 500,
  traces: 300,
  spansPerTrace: 400,
  commands: 50,
  linesPerCommand: 400,
  audit: 500,
  activity: 300,
  clients: 8,
  /** Frames a client may have waiting between two flushes before it is cut, in bytes. */
  pendingBytes: 2 * 1024 * 1024
} as const

const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text)

const attributeValue = (value: unknown): string | number | boolean =>
  typeof value === "number" || typeof value === "boolean"
    ? value
    : truncate(typeof value === "string" ? value : String(JSON.stringify(value)), 200)

/** Drops the oldest entries of a Map kept in insertion order until it holds at most `max`. */
const trim = <K, V>(map: Map<K, V>, max: number): void => {
  if (map.size <= max) return
  let excess = map.size - max
  for (const key of map.keys()) {
    if (excess-- <= 0) break
    map.delete(key)
  }
}

const push = <A>(array: Array<A>, item: A, max: number): void => {
  array.push(item)
  if (array.length > max) array.splice(0, array.length - max)
}

const durationMillis = (input: Duration.Input): number | "infinite" => {
  const value = millis(input)
  return Number.isFinite(value) ? value : "infinite"
}

const traceKey = "~effect-mcp-runtime/inspect/trace"

type Traced = Tracer.Span & { [traceKey]: Array<Tracer.Span> }

const spanView = (span: Tracer.Span): SpanView => {
  const status = span.status
  const attributes: Record<string, string | number | boolean> = {}
  for (const [key, value] of span.attributes) attributes[key] = attributeValue(value)
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    parentId: span.parent._tag === "Some" ? span.parent.value.spanId : undefined,
    name: span.name,
    start: Number(status.startTime) / 1e6,
    end: status._tag === "Ended" ? Number(status.endTime) / 1e6 : undefined,
    status:
      status._tag === "Started"
        ? "running"
        : status.exit._tag === "Success"
          ? "ok"
          : status.exit.cause.reasons.length > 0 && status.exit.cause.reasons.every((r) => r._tag === "Interrupt")
            ? "interrupted"
            : "error",
    attributes
  }
}

/** The hub. `now` is the wall clock in ms. */
export class Hub {
  readonly requests = new Map<number, RequestView>()
  private readonly byCorrelation = new Map<string, RequestView>()
  /** The live records of the running requests, read on each tick (the tool and queue wait are filled as they run). */
  private readonly records = new Map<RequestView, ObservedRequest["record"]>()
  /**
   * The spans of the last traces (a request's span and those under it), as
   * the tracer made them: read only when a page asks (even the span ids,
   * which Effect's native spans make only when read).
   */
  readonly traces: Array<Array<Tracer.Span>> = []
  readonly commands = new Map<number, CommandView>()
  readonly audit: Array<AuditView> = []
  readonly activity: Array<ActivityView> = []
  private readonly servers: Array<{ readonly load: () => Load; readonly policy: PolicyShape }> = []
  readonly clients = new Set<Connected>()
  private seq = 0
  private newest: RequestView | undefined
  private readonly now: () => number

  constructor(now: () => number) {
    this.now = now
  }

  // ---- the live feed ---------------------------------------------------

  private emit(event: unknown): void {
    if (this.clients.size === 0) return
    const frame = `data: ${JSON.stringify(event)}\n\n`
    for (const connected of this.clients) {
      connected.pending.push(frame)
      connected.pendingBytes += frame.length
      if (connected.pendingBytes > bounds.pendingBytes) this.cut(connected)
    }
  }

  private cut(connected: Connected): void {
    this.clients.delete(connected)
    connected.pending = []
    connected.client.onCut()
  }

  /** Hands each client the frames gathered since the last flush, in one piece. */
  flush(): void {
    for (const connected of this.clients) {
      if (connected.pending.length === 0) continue
      const frames = connected.pending.join("")
      connected.pending = []
      connected.pendingBytes = 0
      if (!connected.client.offer(frames)) this.cut(connected)
    }
  }

  /**
   * Adds a client; returns the frame it starts with (the snapshot) and how to
   * remove it. `undefined` when too many clients are connected.
   */
  connect(client: Client): { readonly first: string; readonly disconnect: () => void } | undefined {
    if (this.clients.size >= bounds.clients) return undefined
    const connected: Connected = { client, pending: [], pendingBytes: 0 }
    this.clients.add(connected)
    return {
      first: `data: ${JSON.stringify({ type: "snapshot", ...this.snapshot() })}\n\n`,
      disconnect: () => {
        this.clients.delete(connected)
      }
    }
  }

  /** What a client is told every second: the running requests so far and the load. */
  tick(): void {
    if (this.clients.size === 0) return
    const running: Array<RequestView> = []
    for (const [view, record] of this.records) {
      view.tool = record.tool
      view.capability = record.capability
      view.queueMs = record.queueMs
      running.push(view)
    }
    this.emit({ type: "tick", at: this.now(), running, limits: this.limits() })
  }

  snapshot() {
    return {
      at: this.now(),
      requests: [...this.requests.values()],
      commands: [...this.commands.values()],
      audit: this.audit,
      activity: this.activity,
      limits: this.limits()
    }
  }

  /** The spans of the request of `correlationId` (its trace: nested calls included), oldest first. */
  trace(correlationId: string): ReadonlyArray<SpanView> {
    if (correlationId === "") return []
    for (let i = this.traces.length - 1; i >= 0; i--) {
      const spans = this.traces[i]!
      const root = spans[0]
      if (root !== undefined && root.attributes.get("mcp.correlation_id") === correlationId) {
        return spans.map(spanView)
      }
    }
    return []
  }

  limits(): ReadonlyArray<LimitsView> {
    return this.servers.map(({ load, policy }) => ({
      policy: {
        maxConcurrent: policy.maxConcurrent,
        maxQueued: policy.maxQueued,
        onOverload: policy.onOverload,
        timeoutMs: durationMillis(policy.timeout),
        queueTimeoutMs: durationMillis(policy.queueTimeout),
        maxResultBytes: policy.maxResultBytes,
        tools: policy.tools,
        capabilities: policy.capabilities
      },
      load: load()
    }))
  }

  // ---- what is observed ------------------------------------------------

  attachServer(server: { readonly load: () => Load; readonly policy: PolicyShape }): void {
    this.servers.push(server)
    if (this.servers.length > 8) this.servers.shift()
  }

  readonly observer: RequestObserver = {
    started: (request: ObservedRequest) => {
      const seq = ++this.seq
      const view: RequestView = {
        seq,
        correlationId: request.correlationId,
        method: request.method,
        rpcId: request.id,
        session: request.scope,
        tool: request.record.tool,
        capability: request.record.capability,
        queueMs: request.record.queueMs,
        startedAt: this.now(),
        elapsedMs: undefined,
        outcome: undefined,
        bytesIn: request.bytesIn,
        bytesOut: undefined,
        running: true,
        principal: request.principal?.subject
      }
      this.requests.set(seq, view)
      this.newest = view
      trim(this.requests, bounds.requests)
      if (request.correlationId !== "") {
        this.byCorrelation.set(request.correlationId, view)
        this.records.set(view, request.record)
      }
      this.emit({ type: "request", request: view })
    },
    ended: (request: ObservedRequest, end: ObservedEnd) => {
      const view =
        request.correlationId === "" ? this.lastRejected(request) : this.byCorrelation.get(request.correlationId)
      if (view === undefined) return
      this.byCorrelation.delete(request.correlationId)
      this.records.delete(view)
      view.tool = request.record.tool
      view.capability = request.record.capability
      view.queueMs = request.record.queueMs
      view.elapsedMs = end.elapsedMs
      view.outcome = end.outcome
      view.bytesOut = end.bytesOut
      view.running = false
      this.emit({ type: "request", request: view })
      if (end.outcome === "cancelled") {
        this.activityOf("cancelled", view.session, {
          method: view.method,
          id: view.rpcId,
          tool: view.tool,
          correlationId: view.correlationId,
          elapsedMs: end.elapsedMs
        })
      }
    }
  }

  // A rejected request is started and ended at once: it is the newest.
  private lastRejected(request: ObservedRequest): RequestView | undefined {
    const last = this.newest
    return last !== undefined && last.correlationId === "" && last.method === request.method && last.running
      ? last
      : undefined
  }

  private activityOf(kind: ActivityView["kind"], session: string, detail: Record<string, unknown>): void {
    const item: ActivityView = { seq: ++this.seq, at: this.now(), kind, session, detail }
    push(this.activity, item, bounds.activity)
    this.emit({ type: "activity", activity: item })
  }

  /** A progress notification sent to a client, by the request of `correlationId` when known. */
  progress(correlationId: string | undefined, params: Record<string, unknown>): void {
    const view = correlationId === undefined ? undefined : this.byCorrelation.get(correlationId)
    this.activityOf(
      "progress",
      view?.session ?? "",
      view === undefined ? params : { ...params, method: view.method, id: view.rpcId, tool: view.tool, correlationId }
    )
  }

  /**
   * Wraps a tracer: every span is also kept in its trace (the span object
   * itself: nothing is copied until a page asks for the trace).
   */
  tracer(inner: Tracer.Tracer): Tracer.Tracer {
    const traces = this.traces
    const wrapped: Tracer.Tracer = {
      span(options) {
        const span = inner.span(options) as Traced
        const parent = options.parent
        let spans = parent._tag === "Some" ? (parent.value as Partial<Traced>)[traceKey] : undefined
        if (spans === undefined) {
          spans = []
          traces.push(spans)
          if (traces.length > bounds.traces) traces.shift()
        }
        // The span's trace, on the span itself: a child finds it on its parent (cheaper than a WeakMap).
        span[traceKey] = spans
        if (spans.length < bounds.spansPerTrace) spans.push(span)
        return span
      },
      ...(inner.context === undefined ? {} : { context: inner.context })
    }
    if (inner === Tracer.nativeTracer) this.overNative.add(wrapped)
    return wrapped
  }
  /** The tracers made by {@link tracer} around Effect's native tracer. */
  private readonly overNative = new WeakSet<Tracer.Tracer>()

  /**
   * When `tracer` is this inspector's own around Effect's native tracer
   * (no other backend wants the spans): whether a page is open now, asked
   * for each request, so that requests run in spans only while someone
   * looks at them. Otherwise undefined (spans are wanted anyway).
   */
  spansWanted(tracer: Tracer.Tracer): (() => boolean) | undefined {
    return this.overNative.has(tracer) ? () => this.clients.size > 0 : undefined
  }

  /** A command run started; returns its handlers. */
  commandStarted(request: {
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly cwd: string | undefined
    readonly correlationId: string | undefined
  }): {
    readonly line: (stream: string, line: string) => void
    readonly ended: (end: {
      readonly exitCode: number | null | undefined
      readonly signal: string | null | undefined
      readonly outcome: string
      readonly durationMs: number | undefined
    }) => void
  } {
    const seq = ++this.seq
    const view: CommandView = {
      seq,
      command: request.command,
      args: request.args,
      cwd: request.cwd,
      correlationId: request.correlationId,
      startedAt: this.now(),
      running: true,
      exitCode: undefined,
      signal: undefined,
      outcome: undefined,
      durationMs: undefined,
      lines: [],
      droppedLines: 0
    }
    this.commands.set(seq, view)
    trim(this.commands, bounds.commands)
    this.emit({ type: "command", command: { ...view, lines: [] } })
    return {
      line: (stream, line) => {
        const entry = { stream, line: truncate(line, 2000) }
        view.lines.push(entry)
        if (view.lines.length > bounds.linesPerCommand) {
          view.lines.shift()
          view.droppedLines++
        }
        this.emit({ type: "line", seq, ...entry })
      },
      ended: (end) => {
        view.running = false
        view.exitCode = end.exitCode
        view.signal = end.signal
        view.outcome = end.outcome
        view.durationMs = end.durationMs
        this.emit({ type: "command", command: { ...view, lines: [] } })
      }
    }
  }

  /** An audit record was written. */
  audited(call: {
    readonly time: string
    readonly tool: string
    readonly outcome: string
    readonly durationMs: number
    readonly correlationId: string
    readonly principal?: string | undefined
    readonly arguments: unknown
  }): void {
    const item: AuditView = {
      seq: ++this.seq,
      time: call.time,
      tool: call.tool,
      outcome: call.outcome,
      durationMs: call.durationMs,
      correlationId: call.correlationId,
      principal: call.principal,
      arguments: truncate(JSON.stringify(call.arguments) ?? "", 300)
    }
    push(this.audit, item, bounds.audit)
    this.emit({ type: "audit", audit: item })
  }
}
