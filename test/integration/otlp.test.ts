/**
 * OTLP trace export (layers/Tracing.ts): the environment parsing on its own,
 * the layer in-process against a local receiver, and the built binary
 * exporting its request spans to a local receiver when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Tracer from "effect/Tracer"
import { spawn } from "node:child_process"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import * as Tracing from "../../layers/Tracing.ts"
import { packageVersion } from "../../src/ServerConfig.ts"
import { assertBuilt, serveArgs } from "./ServerProcess.ts"

// ---------------------------------------------------------------------------
// Helpers

interface Received {
  readonly method: string | undefined
  readonly path: string | undefined
  readonly headers: IncomingHttpHeaders
  readonly body: any
}

interface Receiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string
  readonly requests: Array<Received>
  readonly close: () => Promise<void>
}

/** A local OTLP/HTTP JSON receiver: records every request and answers 200 `{}`. */
const startReceiver = async (): Promise<Receiver> => {
  const requests: Array<Received> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = { unparsed: text }
      }
      requests.push({ method: req.method, path: req.url, headers: req.headers, body })
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: any }>
  readonly status: { readonly code: number }
  /** The resource attributes of the batch the span came in. */
  readonly resource: Record<string, unknown>
}

/** The primitive inside an OTLP `AnyValue` (`intValue` may be a number or a string). */
const valueOf = (value: any): unknown =>
  value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? JSON.stringify(value)

/** Every span in every request, with its batch's resource attributes. */
const spansOf = (requests: ReadonlyArray<Received>): Array<Span> =>
  requests.flatMap((request) =>
    (request.body.resourceSpans ?? []).flatMap((rs: any) => {
      const resource = Object.fromEntries(rs.resource.attributes.map((a: any) => [a.key, valueOf(a.value)]))
      return rs.scopeSpans.flatMap((ss: any) => ss.spans.map((span: any) => ({ ...span, resource })))
    })
  )

const attribute = (span: Span, key: string): unknown => {
  const found = span.attributes.find((a) => a.key === key)
  return found === undefined ? undefined : valueOf(found.value)
}

/** Checks ids and timing of every span, and that a parent, when received, is in the same trace. */
const assertWellFormed = (spans: ReadonlyArray<Span>): void => {
  const byId = new Map(spans.map((span) => [span.spanId, span]))
  assert.strictEqual(byId.size, spans.length, "span ids are unique")
  for (const span of spans) {
    assert.match(span.traceId, /^[0-9a-f]{32}$/, `traceId of ${span.name}`)
    assert.notMatch(span.traceId, /^0+$/, `traceId of ${span.name} is not all zeros`)
    assert.match(span.spanId, /^[0-9a-f]{16}$/, `spanId of ${span.name}`)
    assert.isTrue(BigInt(span.startTimeUnixNano) <= BigInt(span.endTimeUnixNano), `${span.name} ends after it starts`)
    if (span.parentSpanId !== undefined) {
      assert.match(span.parentSpanId, /^[0-9a-f]{16}$/, `parentSpanId of ${span.name}`)
      assert.notStrictEqual(span.parentSpanId, span.spanId, `${span.name} is not its own parent`)
      const parent = byId.get(span.parentSpanId)
      if (parent !== undefined)
        assert.strictEqual(parent.traceId, span.traceId, `${span.name} is in its parent's trace`)
    }
  }
}

/** Polls `check` until it returns a value, failing after `timeoutMs`. */
const waitFor = async <A>(timeoutMs: number, what: () => string, check: () => A | undefined): Promise<A> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The inherited environment without any OTEL_* variable, so the tests are hermetic. */
const cleanEnv = (): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("OTEL_")))

interface RunResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly responses: ReadonlyArray<any>
  readonly stderr: ReadonlyArray<string>
}

/**
 * Runs `mcp-runtime serve --capabilities system` with the given environment:
 * initialize, notifications/initialized, a tools/call of system_echo, then
 * EOF once both responses are in. Resolves when the process has exited.
 */
const runSession = async (
  otelEnv: Record<string, string>,
  ids: { readonly initialize: string | number; readonly call: string | number }
): Promise<RunResult> => {
  const child = spawn(process.execPath, serveArgs(), {
    env: { ...cleanEnv(), ...otelEnv },
    stdio: ["pipe", "pipe", "pipe"]
  })
  const responses: Array<any> = []
  const stderr: Array<string> = []
  let stdoutTail = ""
  let stderrTail = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    const parts = (stdoutTail + chunk).split("\n")
    stdoutTail = parts.pop()!
    for (const line of parts) responses.push(JSON.parse(line))
  })
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    const parts = (stderrTail + chunk).split("\n")
    stderrTail = parts.pop()!
    stderr.push(...parts)
  })
  child.stdin.on("error", () => {})
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  const context = () => `\nstdout: ${JSON.stringify(responses)}\nstderr:\n${stderr.join("\n")}`
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`)
  try {
    send({
      jsonrpc: "2.0",
      id: ids.initialize,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "otlp-test", version: "1.0.0" } }
    })
    await waitFor(
      10_000,
      () => `the initialize response${context()}`,
      () => responses.find((r) => r.id === ids.initialize)
    )
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({
      jsonrpc: "2.0",
      id: ids.call,
      method: "tools/call",
      params: { name: "system_echo", arguments: { text: "hi" } }
    })
    const call = await waitFor(
      10_000,
      () => `the tools/call response${context()}`,
      () => responses.find((r) => r.id === ids.call)
    )
    assert.deepStrictEqual(
      call.result?.structuredContent,
      { text: "hi" },
      `tools/call response ${JSON.stringify(call)}${context()}`
    )
    child.stdin.end()
    const exit = await Promise.race([
      exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`the server did not exit within 15 s${context()}`)), 15_000).unref()
      )
    ])
    return { ...exit, responses, stderr }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
}

/** Runs `program` with a logger that records every message, and returns them with the result. */
const withLogs = <A, E>(
  program: Effect.Effect<A, E>
): Effect.Effect<{ readonly result: A; readonly logs: ReadonlyArray<string> }, E> => {
  const logs: Array<string> = []
  const logger = Logger.make((options) => {
    const message = Array.isArray(options.message) ? options.message.join(" ") : String(options.message)
    logs.push(`${options.logLevel}: ${message}`)
  })
  return program.pipe(
    Effect.map((result) => ({ result, logs })),
    Effect.provide(Logger.layer([logger]))
  )
}

// ---------------------------------------------------------------------------
// Environment parsing (no network)

describe("resolveOtlpEnv", () => {
  it("exports nothing, silently, when no endpoint is set", () => {
    assert.deepStrictEqual(Tracing.resolveOtlpEnv({}), { settings: undefined, warnings: [] })
    assert.deepStrictEqual(Tracing.resolveOtlpEnv({ OTEL_SERVICE_NAME: "x", OTEL_EXPORTER_OTLP_ENDPOINT: "  " }), {
      settings: undefined,
      warnings: []
    })
  })

  it("appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT, with or without a trailing slash or a path", () => {
    const url = (endpoint: string) => Tracing.resolveOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }).settings?.url
    assert.strictEqual(url("http://localhost:4318"), "http://localhost:4318/v1/traces")
    assert.strictEqual(url("http://localhost:4318/"), "http://localhost:4318/v1/traces")
    assert.strictEqual(url("https://collector.example.com/otlp"), "https://collector.example.com/otlp/v1/traces")
    assert.strictEqual(url("https://collector.example.com/otlp//"), "https://collector.example.com/otlp/v1/traces")
  })

  it("uses OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, in preference to the base endpoint", () => {
    const { settings } = Tracing.resolveOtlpEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:9999/custom/path?tenant=a"
    })
    assert.strictEqual(settings?.url, "http://traces:9999/custom/path?tenant=a")
  })

  it("rejects an endpoint that is not an http(s) URL, with a warning", () => {
    for (const env of [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318 nope" },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" },
      { OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://collector/" }
    ]) {
      const resolved = Tracing.resolveOtlpEnv(env)
      assert.isUndefined(resolved.settings, JSON.stringify(env))
      assert.strictEqual(resolved.warnings.length, 1, JSON.stringify(env))
    }
  })

  it("defaults: JSON, no headers, service effect-mcp-runtime at the package version, 1 s interval", () => {
    const { settings, warnings } = Tracing.resolveOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" })
    assert.deepStrictEqual(warnings, [])
    assert.deepStrictEqual(settings, {
      url: "http://localhost:4318/v1/traces",
      protocol: "http/json",
      headers: {},
      compression: "none",
      serviceName: "effect-mcp-runtime",
      serviceVersion: packageVersion,
      resourceAttributes: {},
      exportIntervalMs: 1000,
      shutdownTimeoutMs: 3000
    })
  })

  it("parses headers: trimmed, percent-decoded, malformed entries skipped with a warning", () => {
    const { settings, warnings } = Tracing.resolveOtlpEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
      OTEL_EXPORTER_OTLP_HEADERS:
        " authorization = Bearer%20abc%3D%3D , x-tenant=a=b,,novalue,bad name=1,x-bad=%E0%A4%A"
    })
    assert.deepStrictEqual(settings?.headers, { authorization: "Bearer abc==", "x-tenant": "a=b" })
    assert.strictEqual(warnings.length, 3, warnings.join("\n"))
    assert.isTrue(warnings.every((w) => w.startsWith("OTEL_EXPORTER_OTLP_HEADERS: ")))
  })

  it("prefers OTEL_EXPORTER_OTLP_TRACES_HEADERS over OTEL_EXPORTER_OTLP_HEADERS", () => {
    const { settings } = Tracing.resolveOtlpEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "a=1",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "b=2"
    })
    assert.deepStrictEqual(settings?.headers, { b: "2" })
  })

  it("takes the service name and resource attributes from the environment", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }
    const named = Tracing.resolveOtlpEnv({
      ...base,
      OTEL_SERVICE_NAME: "my-mcp",
      OTEL_RESOURCE_ATTRIBUTES: "service.name=ignored,deployment.environment=staging,team=a%2Cb%20c"
    }).settings
    assert.strictEqual(named?.serviceName, "my-mcp")
    assert.strictEqual(named?.serviceVersion, packageVersion)
    assert.deepStrictEqual(named?.resourceAttributes, { "deployment.environment": "staging", team: "a,b c" })
    const fromAttributes = Tracing.resolveOtlpEnv({
      ...base,
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-attrs,service.version=9.9.9"
    }).settings
    assert.strictEqual(fromAttributes?.serviceName, "from-attrs")
    assert.strictEqual(fromAttributes?.serviceVersion, "9.9.9")
    assert.deepStrictEqual(fromAttributes?.resourceAttributes, {})
  })

  it("OTEL_SDK_DISABLED=true disables the export; other values do not", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }
    assert.deepStrictEqual(Tracing.resolveOtlpEnv({ ...base, OTEL_SDK_DISABLED: "true" }), {
      settings: undefined,
      warnings: []
    })
    assert.isUndefined(Tracing.resolveOtlpEnv({ ...base, OTEL_SDK_DISABLED: "TRUE" }).settings)
    assert.isDefined(Tracing.resolveOtlpEnv({ ...base, OTEL_SDK_DISABLED: "false" }).settings)
  })

  it("OTEL_TRACES_EXPORTER: none disables silently, another exporter disables with a warning", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318" }
    assert.deepStrictEqual(Tracing.resolveOtlpEnv({ ...base, OTEL_TRACES_EXPORTER: "none" }), {
      settings: undefined,
      warnings: []
    })
    const zipkin = Tracing.resolveOtlpEnv({ ...base, OTEL_TRACES_EXPORTER: "zipkin" })
    assert.isUndefined(zipkin.settings)
    assert.strictEqual(zipkin.warnings.length, 1)
    assert.isDefined(Tracing.resolveOtlpEnv({ ...base, OTEL_TRACES_EXPORTER: "console,otlp" }).settings)
  })

  it("grpc disables the export with a warning; http/protobuf is supported", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4317" }
    const grpc = Tracing.resolveOtlpEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })
    assert.isUndefined(grpc.settings)
    assert.strictEqual(grpc.warnings.length, 1)
    assert.include(grpc.warnings[0], "OTEL_EXPORTER_OTLP_PROTOCOL=grpc")
    const tracesGrpc = Tracing.resolveOtlpEnv({
      ...base,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc"
    })
    assert.isUndefined(tracesGrpc.settings)
    assert.include(tracesGrpc.warnings[0], "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc")
    assert.strictEqual(
      Tracing.resolveOtlpEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }).settings?.protocol,
      "http/protobuf"
    )
    assert.strictEqual(
      Tracing.resolveOtlpEnv({
        ...base,
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "HTTP/JSON"
      }).settings?.protocol,
      "http/json"
    )
    assert.isUndefined(Tracing.resolveOtlpEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }).settings)
  })

  it("reads compression, the export interval and the shutdown timeout, warning about bad values", () => {
    const { settings, warnings } = Tracing.resolveOtlpEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_BSP_SCHEDULE_DELAY: "250",
      OTEL_EXPORTER_OTLP_TIMEOUT: "soon",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "500"
    })
    assert.deepStrictEqual(warnings, [])
    assert.strictEqual(settings?.compression, "gzip")
    assert.strictEqual(settings?.exportIntervalMs, 250)
    assert.strictEqual(settings?.shutdownTimeoutMs, 500)
    const bad = Tracing.resolveOtlpEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318",
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: "brotli",
      OTEL_BSP_SCHEDULE_DELAY: "-1"
    })
    assert.strictEqual(bad.settings?.compression, "none")
    assert.strictEqual(bad.settings?.exportIntervalMs, 1000)
    assert.strictEqual(bad.warnings.length, 2, bad.warnings.join("\n"))
  })
})

describe("layerOtlpFromEnv (no network)", () => {
  const currentTracer = Effect.gen(function* () {
    return yield* Tracer.Tracer
  })

  it.effect("is empty without an endpoint: the tracer is unchanged and nothing is logged", () =>
    Effect.gen(function* () {
      const { result, logs } = yield* withLogs(currentTracer.pipe(Effect.provide(Tracing.layerOtlpFromEnv({}))))
      assert.strictEqual(result, Tracer.nativeTracer)
      assert.deepStrictEqual(logs, [])
    })
  )

  it.effect("grpc: logs a warning, exports nothing and does not fail", () =>
    Effect.gen(function* () {
      const layer = Tracing.layerOtlpFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
      })
      const { result, logs } = yield* withLogs(currentTracer.pipe(Effect.provide(layer)))
      assert.strictEqual(result, Tracer.nativeTracer)
      assert.strictEqual(logs.length, 1, logs.join("\n"))
      assert.match(logs[0]!, /^Warn: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/)
    })
  )

  it.effect("OTEL_SDK_DISABLED=true: the tracer is unchanged", () =>
    Effect.gen(function* () {
      const layer = Tracing.layerOtlpFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318",
        OTEL_SDK_DISABLED: "true"
      })
      assert.strictEqual(yield* currentTracer.pipe(Effect.provide(layer)), Tracer.nativeTracer)
    })
  )

  it.effect("with an endpoint: installs an OTLP tracer, even under a broken ambient OTEL configuration", () =>
    Effect.gen(function* () {
      const layer = Tracing.layerOtlpFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })
      const { result, logs } = yield* withLogs(
        currentTracer.pipe(
          Effect.provide(layer),
          // effect's own OtlpResource.fromConfig dies on this; the layer must not read it.
          Effect.provideService(
            ConfigProvider.ConfigProvider,
            ConfigProvider.fromUnknown({ OTEL_RESOURCE_ATTRIBUTES: "a=%E0%A4%A", OTEL_SERVICE_NAME: "ambient" })
          )
        )
      )
      assert.notStrictEqual(result, Tracer.nativeTracer)
      assert.deepStrictEqual(
        logs.filter((line) => line.startsWith("Warn")),
        []
      )
    })
  )
})

// ---------------------------------------------------------------------------
// Export to a local receiver

describe("layerOtlpFromEnv (local receiver)", () => {
  it.live("flushes the buffered spans when its scope closes", () =>
    Effect.gen(function* () {
      const receiver = yield* Effect.acquireRelease(Effect.promise(startReceiver), (r) => Effect.promise(r.close))
      const layer = Tracing.layerOtlpFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // A one-minute interval: only the final flush can send the spans in time.
        OTEL_BSP_SCHEDULE_DELAY: "60000",
        OTEL_SERVICE_NAME: "unit-test",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
      })
      yield* Effect.withSpan(Effect.withSpan(Effect.void, "unit.child", { attributes: { n: 1 } }), "unit.parent").pipe(
        Effect.provide(layer),
        // Ambient configuration must not leak into the resource.
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ OTEL_SERVICE_NAME: "ambient", OTEL_RESOURCE_ATTRIBUTES: "leak=yes" })
        )
      )
      // `provide` returns after the layer's finalizer, which awaits the export.
      assert.strictEqual(receiver.requests.length, 1)
      const [request] = receiver.requests
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, "/v1/traces")
      assert.strictEqual(request!.headers["content-type"], "application/json")
      const spans = spansOf(receiver.requests)
      assertWellFormed(spans)
      const parent = spans.find((s) => s.name === "unit.parent")
      const child = spans.find((s) => s.name === "unit.child")
      assert.isDefined(parent)
      assert.isDefined(child)
      assert.strictEqual(child!.parentSpanId, parent!.spanId)
      assert.strictEqual(child!.traceId, parent!.traceId)
      assert.strictEqual(attribute(child!, "n"), 1)
      assert.strictEqual(child!.resource["service.name"], "unit-test")
      assert.strictEqual(child!.resource["service.version"], packageVersion)
      assert.strictEqual(child!.resource["deployment.environment"], "test")
      assert.notProperty(child!.resource, "leak")
    })
  )
})

describe("mcp-runtime serve exports its request spans", () => {
  beforeAll(assertBuilt)

  it("sends initialize and tools/call spans to OTEL_EXPORTER_OTLP_ENDPOINT before exiting", async () => {
    const receiver = await startReceiver()
    try {
      const ids = { initialize: "init-1", call: 42 }
      const run = await runSession(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`,
          OTEL_SERVICE_NAME: "otlp-integration-test",
          OTEL_EXPORTER_OTLP_HEADERS: "x-test-token=abc%20def",
          // A one-minute interval: the spans can only arrive through the flush at exit.
          OTEL_BSP_SCHEDULE_DELAY: "60000"
        },
        ids
      )
      const context = `\nstderr:\n${run.stderr.join("\n")}`
      assert.deepStrictEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, context)

      const spans = await waitFor(
        10_000,
        () => `initialize and tools/call spans; received ${JSON.stringify(receiver.requests)}${context}`,
        () => {
          const spans = spansOf(receiver.requests)
          return spans.some((s) => s.name === "initialize") && spans.some((s) => s.name === "tools/call")
            ? spans
            : undefined
        }
      )
      for (const request of receiver.requests) {
        assert.strictEqual(request.method, "POST")
        assert.strictEqual(request.path, "/v1/traces")
        assert.strictEqual(request.headers["content-type"], "application/json")
        assert.strictEqual(request.headers["x-test-token"], "abc def")
      }
      assertWellFormed(spans)

      const initialize = spans.filter((s) => s.name === "initialize")
      const call = spans.filter((s) => s.name === "tools/call")
      assert.strictEqual(initialize.length, 1, JSON.stringify(spans))
      assert.strictEqual(call.length, 1, JSON.stringify(spans))
      assert.strictEqual(attribute(initialize[0]!, "mcp.request.id"), ids.initialize)
      // Numeric ids are OTLP intValues, which JSON may carry as numbers or strings.
      assert.strictEqual(String(attribute(call[0]!, "mcp.request.id")), String(ids.call))
      assert.isString(attribute(call[0]!, "mcp.correlation_id"))
      assert.strictEqual(attribute(call[0]!, "mcp.tool.name"), "system_echo")
      assert.strictEqual(attribute(call[0]!, "mcp.capability"), "system")
      assert.strictEqual(attribute(call[0]!, "mcp.outcome"), "ok")
      assert.strictEqual(attribute(initialize[0]!, "mcp.outcome"), "ok")
      assert.notStrictEqual(initialize[0]!.spanId, call[0]!.spanId)
      for (const span of [...initialize, ...call]) {
        assert.strictEqual(span.status.code, 1, `${span.name} ended with status Ok`)
        assert.strictEqual(span.resource["service.name"], "otlp-integration-test")
        assert.strictEqual(span.resource["service.version"], packageVersion)
      }
    } finally {
      await receiver.close()
    }
  })

  it("with OTEL_EXPORTER_OTLP_PROTOCOL=grpc: serves normally, warns on stderr, exports nothing", async () => {
    const receiver = await startReceiver()
    try {
      const run = await runSession(
        { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        { initialize: 1, call: 2 }
      )
      const context = `\nstderr:\n${run.stderr.join("\n")}`
      assert.deepStrictEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, context)
      const warnings = run.stderr.map((line) => JSON.parse(line)).filter((log) => log.level === "WARN")
      assert.strictEqual(warnings.length, 1, context)
      assert.include(String(warnings[0].message), "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", context)
      // Had the export been on, the flush before exit would have delivered the spans by now.
      assert.deepStrictEqual(receiver.requests, [])
    } finally {
      await receiver.close()
    }
  })

  it("without OTEL_* variables: serves normally and logs nothing about tracing", async () => {
    const run = await runSession({}, { initialize: 1, call: 2 })
    const context = `\nstderr:\n${run.stderr.join("\n")}`
    assert.deepStrictEqual({ code: run.code, signal: run.signal }, { code: 0, signal: null }, context)
    assert.deepStrictEqual(
      run.stderr.map((line) => JSON.parse(line)).filter((log) => log.level !== "INFO"),
      [],
      context
    )
  })
})
