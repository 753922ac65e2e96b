/**
 * Trace export over OTLP/HTTP, configured by the standard OpenTelemetry
 * environment variables. Every MCP request runs in a span named after its
 * method (`initialize`, `tools/call`, …); with this layer those spans are
 * sent to an OpenTelemetry collector. Without an OTLP endpoint in the
 * environment the layer does nothing.
 *
 * Built on effect's own exporter (`effect/observability/OtlpTracer`), so it
 * adds no dependency. Spans are batched and posted every second, and the
 * exporter flushes what is left when the layer's scope closes.
 *
 * @since 0.1.0
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"
import { packageVersion } from "../src/ServerConfig.ts"

/**
 * The OTLP/HTTP encodings the exporter can send. `grpc` is not supported.
 *
 * **Example**
 *
 * ```ts
 * import type * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * const protocol: Tracing.OtlpProtocol = "http/json"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type OtlpProtocol = "http/json" | "http/protobuf"

/**
 * A trace exporter's settings, as resolved from the environment by
 * {@link resolveOtlpEnv}.
 *
 * **Example**
 *
 * ```ts
 * import type * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * const settings: Tracing.OtlpTraceExport = {
 *   url: "http://127.0.0.1:4318/v1/traces",
 *   protocol: "http/json",
 *   headers: {},
 *   compression: "none",
 *   serviceName: "effect-mcp-runtime",
 *   serviceVersion: "0.1.0",
 *   resourceAttributes: {},
 *   exportIntervalMs: 1000,
 *   shutdownTimeoutMs: 3000
 * }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface OtlpTraceExport {
  /** The full URL spans are POSTed to (for example `http://localhost:4318/v1/traces`). */
  readonly url: string
  readonly protocol: OtlpProtocol
  /** Extra HTTP headers sent with every export (authentication, tenant, …). */
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  /** The `service.name` resource attribute. */
  readonly serviceName: string
  /** The `service.version` resource attribute. */
  readonly serviceVersion: string
  /** Further resource attributes, without `service.name` and `service.version`. */
  readonly resourceAttributes: Readonly<Record<string, string>>
  /** How often buffered spans are posted. */
  readonly exportIntervalMs: number
  /** How long the final flush at shutdown may take before it is abandoned. */
  readonly shutdownTimeoutMs: number
}

/**
 * What the environment asks for: an exporter's settings, or `undefined` when
 * nothing is to be exported, plus the warnings to log about settings that
 * were ignored or that disabled the export.
 *
 * **Example**
 *
 * ```ts
 * import * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * const resolved: Tracing.OtlpEnvResolution = Tracing.resolveOtlpEnv({})
 * resolved.settings // => undefined
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface OtlpEnvResolution {
  readonly settings: OtlpTraceExport | undefined
  readonly warnings: ReadonlyArray<string>
}

/**
 * The `service.name` used when neither `OTEL_SERVICE_NAME` nor a
 * `service.name` entry of `OTEL_RESOURCE_ATTRIBUTES` is set.
 *
 * **Example**
 *
 * ```ts
 * import * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * Tracing.defaultServiceName // => "effect-mcp-runtime"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultServiceName = "effect-mcp-runtime"

const defaultExportIntervalMs = 1000
const defaultShutdownTimeoutMs = 3000

// An HTTP header name (RFC 9110 token).
const headerName = /^[!#$%&'*+.^`|~\w-]+$/

/**
 * Parses a `key=value,key=value` list (the format of `OTEL_RESOURCE_ATTRIBUTES`
 * and `OTEL_EXPORTER_OTLP_HEADERS`). Keys and values are trimmed and
 * percent-decoded; a malformed entry is skipped with a warning; a repeated
 * key keeps its last value.
 */
const parseList = (
  variable: string,
  text: string,
  warnings: Array<string>,
  validKey: (key: string) => boolean = () => true
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue
    const eq = entry.indexOf("=")
    if (eq === -1) {
      warnings.push(`${variable}: ignoring "${entry.trim()}", which is not key=value`)
      continue
    }
    let key: string
    let value: string
    try {
      key = decodeURIComponent(entry.slice(0, eq).trim())
      value = decodeURIComponent(entry.slice(eq + 1).trim())
    } catch {
      warnings.push(`${variable}: ignoring "${entry.trim()}", which has an invalid percent-encoding`)
      continue
    }
    if (key === "" || !validKey(key)) {
      warnings.push(`${variable}: ignoring "${entry.trim()}", whose key is not valid`)
      continue
    }
    out[key] = value
  }
  return out
}

/**
 * Resolves the OpenTelemetry environment variables into trace exporter
 * settings, without side effects. Export is on when
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (a full URL, used as is) or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, to which `/v1/traces` is
 * appended) is set, unless `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER`
 * does not name `otlp`, or the protocol is not an HTTP one (`grpc` is not
 * supported and disables the export with a warning). Empty values count as
 * unset; signal-specific variables (`…_TRACES_…`) win over the general ones.
 *
 * **Example**
 *
 * ```ts
 * import * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * const { settings } = Tracing.resolveOtlpEnv({
 *   OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318/",
 *   OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc"
 * })
 * settings?.url // => "http://localhost:4318/v1/traces"
 * settings?.headers // => { authorization: "Bearer abc" }
 * ```
 *
 * @category parsing
 * @since 0.1.0
 */
export const resolveOtlpEnv = (env: Readonly<Record<string, string | undefined>>): OtlpEnvResolution => {
  const warnings: Array<string> = []
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === "" ? undefined : value
  }
  // The first of the given variables that is set, with its name.
  const first = (...names: Array<string>): readonly [name: string, value: string] | undefined => {
    for (const name of names) {
      const value = get(name)
      if (value !== undefined) return [name, value]
    }
    return undefined
  }
  const off = (warning?: string): OtlpEnvResolution => ({
    settings: undefined,
    warnings: warning === undefined ? warnings : [...warnings, warning]
  })

  if (get("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return off()

  const exporters = get("OTEL_TRACES_EXPORTER")
  if (exporters !== undefined) {
    const names = exporters.split(",").map((name) => name.trim().toLowerCase())
    if (!names.includes("otlp")) {
      return off(
        names.every((name) => name === "none")
          ? undefined
          : `OTEL_TRACES_EXPORTER=${exporters}: only the otlp exporter is supported; no traces are exported`
      )
    }
  }

  let url: string
  const traces = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  const base = get("OTEL_EXPORTER_OTLP_ENDPOINT")
  if (traces !== undefined) {
    if (!URL.canParse(traces)) {
      return off(`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${traces} is not a URL; no traces are exported`)
    }
    url = traces
  } else if (base !== undefined) {
    if (!URL.canParse(base)) return off(`OTEL_EXPORTER_OTLP_ENDPOINT=${base} is not a URL; no traces are exported`)
    const parsed = new URL(base)
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/v1/traces`
    url = parsed.toString()
  } else {
    return off()
  }
  if (!/^https?:$/.test(new URL(url).protocol)) {
    return off(`the OTLP traces endpoint ${url} is not an http(s) URL; no traces are exported`)
  }

  let protocol: OtlpProtocol = "http/json"
  const protocolVar = first("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
  if (protocolVar !== undefined) {
    const [name, value] = protocolVar
    const wanted = value.toLowerCase()
    if (wanted === "http/json" || wanted === "http/protobuf") {
      protocol = wanted
    } else {
      return off(
        `${name}=${value} is not supported (use http/json or http/protobuf, on port 4318); no traces are exported`
      )
    }
  }

  const headersVar = first("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")
  const headers =
    headersVar === undefined ? {} : parseList(headersVar[0], headersVar[1], warnings, (key) => headerName.test(key))

  let compression: "gzip" | "none" = "none"
  const compressionVar = first("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_EXPORTER_OTLP_COMPRESSION")
  if (compressionVar !== undefined) {
    const [name, value] = compressionVar
    if (value.toLowerCase() === "gzip") {
      compression = "gzip"
    } else if (value.toLowerCase() !== "none") {
      warnings.push(`${name}=${value} is not supported (gzip or none); using none`)
    }
  }

  const millis = (fallback: number, ...names: Array<string>): number => {
    const found = first(...names)
    if (found === undefined) return fallback
    const n = Number(found[1])
    if (Number.isFinite(n) && n >= 0) return n
    warnings.push(`${found[0]}=${found[1]} is not a number of milliseconds; using ${fallback}`)
    return fallback
  }
  const exportIntervalMs = millis(defaultExportIntervalMs, "OTEL_BSP_SCHEDULE_DELAY")
  const shutdownTimeoutMs = millis(
    defaultShutdownTimeoutMs,
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TIMEOUT"
  )

  const attributesText = get("OTEL_RESOURCE_ATTRIBUTES")
  const resourceAttributes =
    attributesText === undefined ? {} : parseList("OTEL_RESOURCE_ATTRIBUTES", attributesText, warnings)
  const { "service.name": attributeName, "service.version": attributeVersion, ...otherAttributes } = resourceAttributes
  const serviceName = get("OTEL_SERVICE_NAME") ?? (attributeName || undefined) ?? defaultServiceName
  const serviceVersion = attributeVersion || packageVersion

  return {
    settings: {
      url,
      protocol,
      headers,
      compression,
      serviceName,
      serviceVersion,
      resourceAttributes: otherAttributes,
      exportIntervalMs,
      shutdownTimeoutMs
    },
    warnings
  }
}

/**
 * Exports spans with the given settings: effect's OTLP tracer over the global
 * `fetch`. Resource attributes come from the settings only: the tracer's own
 * reading of `OTEL_*` variables is given an empty configuration, so that the
 * `env` passed to {@link layerOtlpFromEnv} is the only source.
 */
const layerExport = (settings: OtlpTraceExport): Layer.Layer<never> =>
  OtlpTracer.layer({
    url: settings.url,
    headers: settings.headers,
    compression: settings.compression,
    exportInterval: Duration.millis(settings.exportIntervalMs),
    shutdownTimeout: Duration.millis(settings.shutdownTimeoutMs),
    resource: {
      serviceName: settings.serviceName,
      serviceVersion: settings.serviceVersion,
      attributes: settings.resourceAttributes
    }
  }).pipe(
    Layer.provide([
      settings.protocol === "http/protobuf" ? OtlpSerialization.layerProtobuf : OtlpSerialization.layerJson,
      FetchHttpClient.layer,
      ConfigProvider.layer(ConfigProvider.fromUnknown({}))
    ])
  )

/**
 * Installs an OTLP/HTTP trace exporter when the standard OpenTelemetry
 * environment variables ask for one (see {@link resolveOtlpEnv}), and is
 * `Layer.empty` otherwise. Spans created while the layer is provided
 * (every MCP request's span, for one) are batched and posted every second;
 * when the layer's scope closes, the spans still buffered are flushed, for
 * at most `OTEL_EXPORTER_OTLP_TIMEOUT` ms (default 3000). Settings that are
 * ignored, or that disable the export (such as `grpc`), are logged as
 * warnings when the layer is built; the layer itself never fails.
 *
 * The variables are read when the layer is built, from `env` (default
 * `process.env`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Tracing from "effect-mcp-runtime/layers/Tracing"
 *
 * // OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_SERVICE_NAME=my-server
 * const program = Effect.void.pipe(Effect.withSpan("work"))
 * const traced = program.pipe(Effect.provide(Tracing.layerOtlpFromEnv()))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerOtlpFromEnv = (env: Readonly<Record<string, string | undefined>> = process.env): Layer.Layer<never> =>
  Layer.unwrap(
    Effect.sync(() => {
      const { settings, warnings } = resolveOtlpEnv(env)
      const logged =
        warnings.length === 0
          ? Layer.empty
          : Layer.effectDiscard(Effect.forEach(warnings, (warning) => Effect.logWarning(warning), { discard: true }))
      if (settings === undefined) return logged
      return Layer.mergeAll(
        logged,
        Layer.effectDiscard(
          Effect.logDebug("exporting traces over OTLP", {
            url: settings.url,
            protocol: settings.protocol,
            serviceName: settings.serviceName
          })
        ),
        layerExport(settings)
      )
    })
  )
