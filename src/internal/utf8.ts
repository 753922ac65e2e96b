/**
 * UTF-8 byte counts of strings, without encoding them.
 *
 * @internal
 */

// Node's native count when there is one (much faster on long strings).
const nativeByteLength = (globalThis as { Buffer?: { byteLength?: (text: string, encoding: "utf8") => number } }).Buffer
  ?.byteLength

/** The number of bytes `text` takes in UTF-8. */
export const utf8Length = (text: string): number =>
  nativeByteLength !== undefined ? nativeByteLength(text, "utf8") : countUtf8(text)

const countUtf8 = (text: string): number => {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) bytes += 1
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // a surrogate pair: 4 bytes for 2 UTF-16 units
      bytes += 2
      i++
    } else bytes += 2
  }
  return bytes
}

/** Whether `text` takes more than `limit` bytes in UTF-8, without counting when the answer is obvious. */
export const exceedsUtf8 = (text: string, limit: number): boolean =>
  text.length > limit ? true : text.length * 3 <= limit ? false : utf8Length(text) > limit
