/**
 * Newline-delimited framing with a hard size limit.
 *
 * Bytes go in as they arrive; complete lines come out as frames. A line that
 * grows past the limit is not buffered: the framer drops its bytes as they
 * arrive, counts them, and emits one `Oversize` frame when the line ends, so
 * memory stays bounded by the limit whatever the peer sends.
 *
 * @internal
 */

/** One framed message, or the report of a line that was too long. */
export type Frame =
  | { readonly _tag: "Message"; readonly text: string }
  | { readonly _tag: "Oversize"; readonly bytes: number; readonly limit: number }

const NEWLINE = 0x0a
const CR = 0x0d

/** A stateful framer; feed it chunks, then call `end` at EOF. */
export class LineFramer {
  private readonly decoder = new TextDecoder("utf-8")
  private parts: Array<Uint8Array> = []
  private buffered = 0
  private discarding = false
  private discarded = 0

  readonly maxBytes: number
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  /** Frames the complete lines in `chunk`; keeps the partial tail. */
  push(chunk: Uint8Array): Array<Frame> {
    const frames: Array<Frame> = []
    let start = 0
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start)
      const end = nl === -1 ? chunk.length : nl
      const length = end - start
      if (this.discarding) {
        this.discarded += length
      } else if (this.buffered + length > this.maxBytes) {
        this.discarding = true
        this.discarded = this.buffered + length
        this.parts = []
        this.buffered = 0
      } else if (length > 0) {
        this.parts.push(chunk.subarray(start, end))
        this.buffered += length
      }
      if (nl === -1) break
      this.emit(frames)
      start = nl + 1
    }
    // Keep the tail independent of the caller's buffer, which may be reused.
    if (this.parts.length > 0) {
      const last = this.parts[this.parts.length - 1]!
      if (last.buffer === chunk.buffer) this.parts[this.parts.length - 1] = last.slice()
    }
    return frames
  }

  /** Flushes a final line that had no trailing newline. */
  end(): Array<Frame> {
    const frames: Array<Frame> = []
    if (this.discarding || this.buffered > 0) this.emit(frames)
    return frames
  }

  private emit(frames: Array<Frame>): void {
    if (this.discarding) {
      frames.push({ _tag: "Oversize", bytes: this.discarded, limit: this.maxBytes })
      this.discarding = false
      this.discarded = 0
      return
    }
    let bytes: Uint8Array
    if (this.parts.length === 1) {
      bytes = this.parts[0]!
    } else {
      bytes = new Uint8Array(this.buffered)
      let offset = 0
      for (const part of this.parts) {
        bytes.set(part, offset)
        offset += part.length
      }
    }
    this.parts = []
    this.buffered = 0
    let length = bytes.length
    if (length > 0 && bytes[length - 1] === CR) length--
    if (length === 0) return // blank lines carry no message
    frames.push({
      _tag: "Message",
      text: this.decoder.decode(length === bytes.length ? bytes : bytes.subarray(0, length))
    })
  }
}
