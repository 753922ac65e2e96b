/**
 * The daemon's socket with real Unix sockets: the control line's size
 * limit, the listener's close (the connections still waiting are answered,
 * and a socket file that is no longer its own is left alone), and a
 * session's transport when the daemon drains (the draining control line,
 * the line in progress left unread).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as UnixSocketTransport from "../layers/UnixSocketTransport.ts"
import * as Protocol from "../src/internal/daemonProtocol.ts"
import { connect, listen } from "../src/internal/daemonSocket.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "mcpd-sock-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** A raw client: everything it receives, and a way to write. */
const rawClient = (path: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly socket: Net.Socket; readonly received: () => string }>((resume) => {
      const socket = Net.createConnection({ path, allowHalfOpen: true })
      let text = ""
      socket.on("data", (chunk) => {
        text += chunk.toString("utf8")
      })
      socket.on("error", () => {})
      socket.once("connect", () => resume(Effect.succeed({ socket, received: () => text })))
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

const waitFor = <A>(what: string, check: () => A | undefined) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const found = check()
      if (found !== undefined) return found
      yield* Effect.sleep(5)
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

describe("daemon socket: the control line", () => {
  it.live("is refused once over the limit, even when its newline comes in the same chunk", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "daemon.sock")
      const listener = yield* listen(path)
      const client = yield* rawClient(path)
      client.socket.write(`${"x".repeat(50)}\n`)
      const [connection] = yield* Stream.runCollect(Stream.take(listener.accepted, 1))
      const error = yield* Effect.flip(connection!.readLine({ maxBytes: 10, timeoutMs: 2000 }))
      assert.strictEqual(error.code, "TOO_LONG")
    }).pipe(Effect.scoped)
  )
})

describe("daemon socket: the listener", () => {
  it.live("puts a private socket in place, and removes it at close", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "daemon.sock")
      const listener = yield* listen(path)
      assert.isTrue(statSync(path).isSocket())
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      const connection = yield* connect(path, 1000)
      yield* connection.destroy
      yield* listener.close
      assert.throws(() => statSync(path), /ENOENT/)
    }).pipe(Effect.scoped)
  )

  it.live("answers the connections still waiting with its farewell when it closes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "daemon.sock")
      const listener = yield* listen(path, { farewell: '{"ok":false,"reason":"stopping","message":"bye"}\n' })
      const client = yield* rawClient(path)
      // Never taken from `accepted`.
      yield* Effect.sleep(50)
      yield* listener.close
      const line = yield* waitFor("the farewell", () =>
        client.received().includes("\n") ? client.received() : undefined
      )
      assert.deepStrictEqual(JSON.parse(line), { ok: false, reason: "stopping", message: "bye" })
    }).pipe(Effect.scoped)
  )

  it.live("leaves alone a socket another listener has put at its path by the time it closes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "daemon.sock")
      const listener = yield* listen(path)
      // Another daemon's socket takes the path (the first one's file removed meanwhile).
      rmSync(path)
      const other = Net.createServer()
      yield* Effect.callback<void>((resume) => {
        other.listen(path, () => resume(Effect.void))
      })
      const before = statSync(path).ino
      yield* listener.close
      assert.strictEqual(statSync(path).ino, before, "the other listener's socket is still there")
      const connection = yield* connect(path, 1000)
      yield* connection.destroy
      yield* Effect.callback<void>((resume) => {
        other.close(() => resume(Effect.void))
      })
    }).pipe(Effect.scoped)
  )
})

describe("daemon socket: a session's transport when the daemon drains", () => {
  it.live("says how many lines it read, does not read the line in progress, and drops what comes after", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = join(dir, "daemon.sock")
      const listener = yield* listen(path)
      const client = yield* rawClient(path)
      client.socket.write('{"mcpRuntimeDaemon":1,"type":"session"}\n{"a":1}\n\n{"b":2}\n{"c"')
      const [connection] = yield* Stream.runCollect(Stream.take(listener.accepted, 1))
      yield* connection!.readLine({ maxBytes: 1024, timeoutMs: 2000 })
      const stop = yield* Deferred.make<void>()
      const transport = yield* UnixSocketTransport.make(connection!, {
        maxMessageBytes: 1024,
        stop: Deferred.await(stop)
      })
      const frames: Array<unknown> = []
      const reading = yield* Effect.forkChild(
        Stream.runForEach(transport.frames, (frame) => Effect.sync(() => frames.push(frame)))
      )
      yield* waitFor("the two messages", () => (frames.length === 2 ? true : undefined))
      yield* Deferred.succeed(stop, undefined)
      yield* Fiber.join(reading)
      assert.deepStrictEqual(
        frames.map((frame: any) => frame.text),
        ['{"a":1}', '{"b":2}'],
        "the line in progress is not read (no frame for it)"
      )
      const line = yield* waitFor("the draining line", () =>
        client.received().includes("\n") ? client.received().trimEnd() : undefined
      )
      assert.strictEqual(line, Protocol.drainingLine(3), "three newlines read, the blank line's too")
      assert.strictEqual(Protocol.parseDraining(line), 3)
      // What the client still sends is read and dropped: its writes complete.
      const written = yield* Effect.callback<boolean>((resume) => {
        client.socket.write(Buffer.alloc(8 * 1024 * 1024, 0x61), (error) => resume(Effect.succeed(error == null)))
      })
      assert.isTrue(written)
    }).pipe(Effect.scoped)
  )
})
