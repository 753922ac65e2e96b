/**
 * The per-request log line, shared by the request pipeline
 * (`src/internal/dispatch.ts`, which hands its values over) and the JSON
 * logger (`layers/Logging.ts`, whose stderr worker writes it): the keys by
 * which they find each other, and the one formatter of the line's JSON.
 *
 * @internal
 */

/**
 * The key under which a request's log fields carry their own JSON (the
 * object's JSON, in its key order): the JSON logger writes it as it is
 * instead of serializing the object again.
 */
export const fieldsJsonKey: unique symbol = Symbol.for("effect-mcp-runtime/log-fields-json") as any

/**
 * The key under which a logger may carry a writer of the request line
 * itself (the JSON logger does): when it is the only logger and the fiber
 * has no log annotations or spans, the pipeline hands it the line's values,
 * with no fields object, message or `Date` built. The line it writes must be
 * the one the logger would write for `Effect.logInfo("request", fields)`.
 */
export const requestLineKey: unique symbol = Symbol.for("effect-mcp-runtime/request-line") as any

/**
 * The values of a request line, in order (the fields' order, after the
 * fiber's id and the time). `component` is what served the request (a
 * capability id, or `server`); `error` the message of an outcome other than
 * ok, when there is one. An undefined value leaves its field out.
 */
export type RequestLineValues = [
  fiberId: number,
  millis: number,
  method: string | undefined,
  id: string | number | null,
  correlationId: string,
  component: string,
  tool: string | undefined,
  queueMs: number,
  elapsedMs: number,
  outcome: string,
  error: string | undefined,
  bytesIn: number | undefined,
  bytesOut: number | undefined
]

/** A request line's writer (see {@link requestLineKey}). */
export type RequestLineWriter = (...values: RequestLineValues) => void

/** The request line's formatter: the whole line, and the JSON of its fields alone. */
export interface RequestLineFormat {
  readonly line: (...values: RequestLineValues) => string
  readonly fields: (
    method: string | undefined,
    id: string | number | null,
    correlationId: string,
    component: string,
    tool: string | undefined,
    queueMs: number,
    elapsedMs: number,
    outcome: string,
    error: string | undefined,
    bytesIn: number | undefined,
    bytesOut: number | undefined
  ) => string
}

/**
 * Makes the request line's formatter: the JSON `JSON.stringify` would give
 * for the fields, built by concatenation (names that repeat kept, one ISO
 * time per millisecond). Self-contained (it refers to nothing outside
 * itself): the stderr worker runs its source text, so the line is built by
 * the same code there and here.
 */
export function makeRequestLineFormat(): RequestLineFormat {
  let lastMillis = Number.NaN
  let lastIso = ""
  const iso = (millis: number): string => {
    if (millis !== lastMillis) {
      lastMillis = millis
      lastIso = new Date(millis).toISOString()
    }
    return lastIso
  }
  const numberJson = (value: number): string => (Number.isFinite(value) ? `${value}` : "null")
  // Method, component, tool and outcome names repeat: their JSON is kept (at most 512 of them).
  const names = new Map<string, string>()
  const name = (value: string): string => {
    let json = names.get(value)
    if (json === undefined) {
      json = JSON.stringify(value)
      if (names.size >= 512) names.clear()
      names.set(value, json)
    }
    return json
  }
  // A string with nothing JSON escapes needs only its quotes (correlation ids are `<hex>-<n>`).
  const unescaped = /^[\w.:/-]*$/
  const plain = (value: string): string => (unescaped.test(value) ? `"${value}"` : JSON.stringify(value))
  const fields: RequestLineFormat["fields"] = (
    method,
    id,
    correlationId,
    component,
    tool,
    queueMs,
    elapsedMs,
    outcome,
    error,
    bytesIn,
    bytesOut
  ) =>
    "{" +
    (method === undefined ? "" : `"method":${name(method)},`) +
    `"id":${typeof id === "number" ? numberJson(id) : JSON.stringify(id)},"correlation_id":${plain(correlationId)}` +
    `,"component":${name(component)}` +
    (tool === undefined ? "" : `,"tool":${name(tool)}`) +
    `,"queue_ms":${numberJson(queueMs)},"elapsed_ms":${numberJson(elapsedMs)},"outcome":${name(outcome)}` +
    // Error messages vary: not kept.
    (error === undefined ? "" : `,"error":${JSON.stringify(error)}`) +
    (bytesIn === undefined ? "" : `,"bytes_in":${numberJson(bytesIn)}`) +
    (bytesOut === undefined ? "" : `,"bytes_out":${numberJson(bytesOut)}`) +
    "}"
  return {
    fields,
    line: (
      fiberId,
      millis,
      method,
      id,
      correlationId,
      component,
      tool,
      queueMs,
      elapsedMs,
      outcome,
      error,
      bytesIn,
      bytesOut
    ) =>
      `{"message":"request","level":"INFO","timestamp":"${iso(millis)}","annotations":` +
      fields(method, id, correlationId, component, tool, queueMs, elapsedMs, outcome, error, bytesIn, bytesOut) +
      `,"spans":{},"fiberId":"#${fiberId}"}`
  }
}
