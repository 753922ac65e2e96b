import { assert, describe, it } from "@effect/vitest"
import { flushEvery, makeLineWriter } from "../layers/StdioTransport.ts"

const nextMicrotask = () => new Promise<void>((resolve) => queueMicrotask(resolve))
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("StdioTransport line writer", () => {
  it("writes the first line of a turn at once and coalesces the rest of the turn", async () => {
    const writes: Array<string> = []
    const writer = makeLineWriter((text) => writes.push(text))
    writer.writeLine("a")
    assert.deepStrictEqual(writes, ["a\n"])
    writer.writeLine("b")
    writer.writeLine("c")
    assert.deepStrictEqual(writes, ["a\n"])
    await nextMicrotask()
    writer.writeLine("b2") // microtasks later, the same turn: still coalesced
    assert.deepStrictEqual(writes, ["a\n"])
    await nextTurn()
    assert.deepStrictEqual(writes, ["a\n", "b\nc\nb2\n"])
    writer.writeLine("d") // a new turn: written at once again
    assert.deepStrictEqual(writes, ["a\n", "b\nc\nb2\n", "d\n"])
  })

  it("flushes a long run every flushEvery lines so the reader is never starved", () => {
    const writes: Array<string> = []
    const writer = makeLineWriter((text) => writes.push(text))
    for (let i = 0; i <= 2 * flushEvery; i++) writer.writeLine(String(i))
    assert.strictEqual(writes.length, 3)
    assert.strictEqual(writes[1]!.split("\n").length - 1, flushEvery)
    writer.flush()
    assert.strictEqual(writes.join(""), Array.from({ length: 2 * flushEvery + 1 }, (_, i) => `${i}\n`).join(""))
  })
})
