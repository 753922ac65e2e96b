/**
 * Server-Sent Events for the Streamable HTTP transport: event ids that name
 * their stream, the bounded replay buffer of one stream, and the wire format
 * of events, priming events and keep-alive comments.
 *
 * An event id is `<stream>-<seq>`: the number of the stream within its
 * session (0 is the session's GET stream, 1, 2, … the streams opened by
 * POSTs) and the event's place in that stream. A `Last-Event-ID` therefore
 * names the one stream to resume, and replay never crosses streams.
 *
 * @internal
 */

/** Where an event sits: its stream within the session and its place in it. */
export interface EventPosition {
  readonly stream: number
  readonly seq: number
}

/** The id of the `seq`-th event of `stream`. */
export const eventId = (stream: number, seq: number): string => `${stream}-${seq}`

const eventIdPattern = /^(0|[1-9]\d{0,14})-(0|[1-9]\d{0,14})$/

/** Reads an event id written by {@link eventId}; undefined for anything else. */
export const parseEventId = (text: string): EventPosition | undefined => {
  const match = eventIdPattern.exec(text.trim())
  return match === null ? undefined : { stream: Number(match[1]), seq: Number(match[2]) }
}

/** One stored event: its place in the stream and its data (empty for a priming event). */
export interface BufferedEvent {
  readonly seq: number
  readonly data: string
}

/**
 * The last `capacity` events of one stream, oldest first. Pushing past the
 * capacity evicts the oldest event; `evicted` counts them, so a replay can
 * tell that it has a gap.
 */
export class ReplayBuffer {
  private readonly events: Array<BufferedEvent | undefined>
  private start = 0
  private length = 0
  /** How many events were evicted so far. */
  evicted = 0
  readonly capacity: number

  constructor(capacity: number) {
    this.capacity = Math.max(1, Math.floor(capacity))
    this.events = Array.from({ length: this.capacity }, () => undefined)
  }

  /** The number of events held. */
  get size(): number {
    return this.length
  }

  /** Appends an event; returns the one it evicted, if any. */
  push(event: BufferedEvent): BufferedEvent | undefined {
    if (this.length < this.capacity) {
      this.events[(this.start + this.length) % this.capacity] = event
      this.length++
      return undefined
    }
    const evicted = this.events[this.start]
    this.events[this.start] = event
    this.start = (this.start + 1) % this.capacity
    this.evicted++
    return evicted
  }

  /** The held events with a `seq` above `seq`, oldest first. */
  after(seq: number): Array<BufferedEvent> {
    const out: Array<BufferedEvent> = []
    for (let i = 0; i < this.length; i++) {
      const event = this.events[(this.start + i) % this.capacity]!
      if (event.seq > seq) out.push(event)
    }
    return out
  }

  /** The `seq` of the oldest event held, or undefined when empty. */
  oldestSeq(): number | undefined {
    return this.length === 0 ? undefined : this.events[this.start]!.seq
  }
}

/**
 * One `message` event. JSON-RPC messages are single-line JSON, but a data
 * line may not contain a line break, so any text is split into one `data:`
 * line per line.
 */
export const formatEvent = (id: string, data: string): string => {
  if (!data.includes("\n") && !data.includes("\r")) return `id: ${id}\nevent: message\ndata: ${data}\n\n`
  return `id: ${id}\nevent: message\n${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`
}

/**
 * A priming event: an id and empty data, which tells the client where it is
 * so it can resume; with the reconnection delay (`retry`) when given.
 */
export const formatPriming = (id: string, retryMs: number | undefined): string =>
  retryMs === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${Math.max(0, Math.round(retryMs))}\ndata: \n\n`

/** A comment line that keeps an idle stream alive through proxies. */
export const keepAliveComment = ": keep-alive\n\n"
