/**
 * Newline-delimited framing with a hard size limit.
 *
 * Bytes go in as they arrive; complete lines come out as frames. A line that
 * grows past the limit is not buffered: the framer drops its bytes as they
 * arrive, counts them, keeps only its first and last few hundred bytes (so
 * the server can still find the request id and answer it), and emits one
 * `Oversize` frame when the line ends. Memory stays bounded by the limit
 * whatever the peer sends. A line that is not valid UTF-8 becomes an
 * `InvalidText` frame.
 *
 * @internal
 */
import type { Principal } from "../Authorization.ts"

/** One framed message, or the report of a line that could not be one. */
export type Frame =
  | {
      readonly _tag: "Message"
      readonly text: string
      /** The line's size in bytes, without its line ending. */ readonly bytes: number
      /**
       * The message already parsed, when the transport had to parse it itself
       * (HTTP reads the body to route it); the server then does not parse it again.
       */
      readonly parsed?: unknown
      /** Who sent the message, when the transport authenticated it (HTTP with authorization). */
      readonly principal?: Principal | undefined
    }
  | {
      readonly _tag: "Oversize"
      readonly bytes: number
      readonly limit: number
      /** The first bytes of the line, decoded leniently. */
      readonly head: string
      /** The last bytes of the line, decoded leniently. */
      readonly tail: string
    }
  | { readonly _tag: "InvalidText"; readonly bytes: number }

const NEWLINE = 0x0a
const CR = 0x0d
/** How much of an oversize line is kept at each end. */
const EDGE = 512

const concat = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const bytes = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    bytes.set(part, offset)
    offset += part.length
  }
  return bytes
}

/** A stateful framer; feed it chunks, then call `end` at EOF. */
export class LineFramer {
  private readonly decoder = new TextDecoder("utf-8", { fatal: true })
  private readonly lenient = new TextDecoder("utf-8")
  private parts: Array<Uint8Array> = []
  private buffered = 0
  private discarding = false
  private discarded = 0
  private head: Uint8Array = new Uint8Array(0)
  private tail: Uint8Array = new Uint8Array(0)
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
        this.keepTail(chunk.subarray(start, end))
      } else if (this.buffered + length > this.maxBytes) {
        const kept = concat([...this.parts, chunk.subarray(start, end)], this.buffered + length)
        this.discarding = true
        this.discarded = kept.length
        this.head = kept.slice(0, EDGE)
        this.tail = kept.slice(Math.max(0, kept.length - EDGE))
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

  private keepTail(segment: Uint8Array): void {
    if (segment.length >= EDGE) {
      this.tail = segment.slice(segment.length - EDGE)
      return
    }
    const next = new Uint8Array(Math.min(EDGE, this.tail.length + segment.length))
    const fromTail = next.length - segment.length
    next.set(this.tail.subarray(this.tail.length - fromTail), 0)
    next.set(segment, fromTail)
    this.tail = next
  }

  private emit(frames: Array<Frame>): void {
    if (this.discarding) {
      frames.push({
        _tag: "Oversize",
        bytes: this.discarded,
        limit: this.maxBytes,
        head: this.lenient.decode(this.head),
        tail: this.lenient.decode(this.tail)
      })
      this.discarding = false
      this.discarded = 0
      this.head = this.tail = new Uint8Array(0)
      return
    }
    const bytes = concat(this.parts, this.buffered)
    this.parts = []
    this.buffered = 0
    let length = bytes.length
    if (length > 0 && bytes[length - 1] === CR) length--
    if (length === 0) return // blank lines carry no message
    const text = this.decode(length === bytes.length ? bytes : bytes.subarray(0, length))
    frames.push(text === undefined ? { _tag: "InvalidText", bytes: length } : { _tag: "Message", text, bytes: length })
  }

  // A fatal decoder reports bad UTF-8 only by throwing; this is the one place
  // that catches it.
  private decode(bytes: Uint8Array): string | undefined {
    try {
      return this.decoder.decode(bytes)
    } catch {
      return undefined
    }
  }
}
