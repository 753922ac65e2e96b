/**
 * `system_time`: the current time, in UTC and in a chosen time zone.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"

const isTimeZone = (zone: string): boolean => Intl.supportedValuesOf("timeZone").includes(zone) || zone === "UTC"

/**
 * The `time` tool, published as `system_time`: the current instant in UTC and
 * the wall-clock time in an IANA time zone (default UTC).
 *
 * It is not re-exported by the package; it is reached through `SystemCapability`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { time } from "./capabilities/system/time.ts"
 *
 * Effect.runSync(Effect.flip(time.handler({ timeZone: "Mars/Olympus" }))) // ToolError with code "unknown_time_zone"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const time = Tool.make("time", {
  title: "Current time",
  description:
    "Returns the current date and time: ISO 8601 in UTC, milliseconds since the epoch, and the wall-clock " +
    'time in the requested IANA time zone (for example "Europe/Paris"; default UTC). Use it instead of guessing ' +
    "today's date.",
  input: Schema.Struct({
    timeZone: Schema.optionalKey(
      Schema.String.annotate({ description: "An IANA time zone name, e.g. America/New_York." })
    )
  }),
  output: Schema.Struct({
    iso: Schema.String.annotate({ description: "The instant in ISO 8601, UTC." }),
    epochMs: Schema.Int,
    timeZone: Schema.String,
    local: Schema.String.annotate({ description: "Wall-clock date and time in timeZone, YYYY-MM-DD HH:mm:ss." })
  }),
  annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false }
}).pipe(
  Tool.handle(
    Effect.fnUntraced(function* ({ timeZone = "UTC" }) {
      if (!isTimeZone(timeZone)) {
        return yield* new Tool.ToolError({
          message: `Unknown time zone ${JSON.stringify(timeZone)}`,
          suggestion:
            'Pass an IANA time zone name such as "UTC", "Europe/Berlin" or "America/Los_Angeles", ' +
            "then call system_time again.",
          code: "unknown_time_zone"
        })
      }
      const epochMs = yield* Clock.currentTimeMillis
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat("en-CA", {
          timeZone,
          hourCycle: "h23",
          year: "numeric",
          month: "2-digit",
          day: "2-digit",
          hour: "2-digit",
          minute: "2-digit",
          second: "2-digit"
        })
          .formatToParts(epochMs)
          .map((part) => [part.type, part.value])
      )
      const local = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`
      return { iso: new Date(epochMs).toISOString(), epochMs, timeZone, local }
    })
  )
)
