/**
 * `new Date(millis).toISOString()`, formatted once per millisecond: the log
 * lines and the audit records of a busy server share their times (the
 * formatting is a large part of a short line's cost).
 *
 * @internal
 */
let lastMillis = Number.NaN
let lastIso = ""

/** The ISO 8601 text of a time in milliseconds since the epoch. */
export const isoTime = (millis: number): string => {
  if (millis !== lastMillis) {
    lastMillis = millis
    lastIso = new Date(millis).toISOString()
  }
  return lastIso
}
