/**
 * The audit log: redaction, digests, and the JSONL file store — whole
 * records, rotation, and no lost or torn record after `kill -9` of a writer
 * in the middle of a run (a real process, a real file).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as FileAuditLog from "../layers/FileAuditLog.ts"
import { AuditLog, type Call, canonicalJson, digest, redact, redactedValue } from "../src/AuditLog.ts"
import * as Capability from "../src/Capability.ts"
import * as Policy from "../src/Policy.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"

const tempDir = () => mkdtempSync(join(tmpdir(), "audit-"))
const lines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line))

const entry = (i: number) => ({
  time: "2026-11-22T08:00:00.000Z",
  correlationId: `c-${i}`,
  tool: "system_echo",
  outcome: "ok",
  durationMs: i
})

describe("redaction and digests", () => {
  it("redacts credential-like fields at any depth, case-insensitively, without changing the input", () => {
    const input = { user: "alice", Password: "p", nested: [{ apiKey: "k", keep: 1 }], headers: { Authorization: "b" } }
    const out = redact(input) as any
    assert.deepStrictEqual(out, {
      user: "alice",
      Password: redactedValue,
      nested: [{ apiKey: redactedValue, keep: 1 }],
      headers: { Authorization: redactedValue }
    })
    assert.strictEqual(input.Password, "p")
    assert.deepStrictEqual(redact({ a: { b: 1 } }, ["b"]), { a: { b: redactedValue } })
  })

  it.effect("digests the canonical JSON with SHA-256, so key order does not matter", () =>
    Effect.gen(function* () {
      assert.strictEqual(
        canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } }),
        '{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}'
      )
      const expected = `sha256:${createHash("sha256").update('{"a":1,"b":"x"}').digest("hex")}`
      assert.strictEqual(yield* digest({ b: "x", a: 1 }), expected)
      assert.strictEqual(yield* digest({ a: 1, b: "x" }), expected)
    })
  )
})

describe("canonical JSON", () => {
  it("is the same whether or not the keys come sorted: nested objects, arrays, toJSON, integer-like keys", () => {
    // The sorting path, as it was before arguments already in order skipped it.
    const sorting = (value: unknown): string =>
      JSON.stringify(value, (_key, node: unknown) => {
        if (typeof node !== "object" || node === null || Array.isArray(node)) return node
        const sorted: Record<string, unknown> = {}
        for (const key of Object.keys(node).sort()) sorted[key] = (node as Record<string, unknown>)[key]
        return sorted
      }) ?? "null"
    const values: Array<unknown> = [
      { text: "hi" },
      { a: 1, b: { c: [1, { e: 2, d: 3 }], d: null } },
      { b: 1, a: 2 },
      { "10": 1, "9": 2, a: 3 },
      { "1": 1, "2": 2 },
      [{ y: 1, x: 2 }, undefined, "s"],
      { when: new Date(0), u: undefined },
      { nested: { toJSON: () => ({ z: 1, a: 2 }) } },
      "text",
      42,
      null,
      undefined
    ]
    for (const value of values) assert.strictEqual(canonicalJson(value), sorting(value), JSON.stringify(value))
    const cycle: Record<string, unknown> = { a: 1 }
    cycle.self = cycle
    assert.throws(() => canonicalJson(cycle))
  })
})

describe("the JSONL file store", () => {
  it.effect("appends one JSON record per call: a digest of the arguments by default; the file is private", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "nested", "audit.jsonl")
      yield* Effect.gen(function* () {
        const audit = yield* AuditLog
        for (let i = 0; i < 3; i++) yield* audit.record({ ...entry(i), arguments: { i, token: "t" } })
      }).pipe(Effect.provide(FileAuditLog.layer({ path })))
      const written = lines(path)
      assert.strictEqual(written.length, 3)
      assert.deepStrictEqual(written[1], { ...entry(1), argumentsDigest: yield* digest({ i: 1, token: "t" }) })
      assert.notInclude(readFileSync(path, "utf8"), '"t"}')
      const { statSync } = yield* Effect.promise(() => import("node:fs"))
      assert.strictEqual(statSync(path).mode & 0o777, 0o600)
      rmSync(dir, { recursive: true, force: true })
    })
  )

  it.effect("keeps the arguments with the configured fields redacted when asked to", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const path = join(dir, "audit.jsonl")
      yield* Effect.flatMap(AuditLog, (audit) =>
        audit.record({ ...entry(0), arguments: { command: "deploy", Token: "secret", env: { PASS: "x" } } })
      ).pipe(Effect.provide(FileAuditLog.layer({ path, arguments: "redacted", redact: ["token", "pass"] })))
      assert.deepStrictEqual(lines(path), [
        { ...entry(0), arguments: { command: "deploy", Token: redactedValue, env: { PASS: redactedValue } } }
      ])
      rmSync(dir, { recursive: true, force: true })
    })
  )

  it("rotates by size, keeps `keep` old files, and never splits a record across files", () => {
    const dir = tempDir()
    const path = join(dir, "audit.jsonl")
    const appender = FileAuditLog.makeAppender({ path, maxBytes: 1000, keep: 2 })
    const total = 60
    for (let i = 0; i < total; i++) appender.append(entry(i))
    appender.close()
    assert.deepStrictEqual(readdirSync(dir).sort(), ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"])
    const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)]
    // The newest records, in order, with no gap; each file within its size.
    const first = kept[0].durationMs
    assert.deepStrictEqual(
      kept.map((record: any) => record.durationMs),
      Array.from({ length: total - first }, (_, i) => first + i)
    )
    assert.isAbove(first, 0, "the oldest records were rotated out")
    for (const file of [path, `${path}.1`, `${path}.2`]) assert.isAtMost(readFileSync(file).length, 1000)
    // Reopening appends to the current file.
    const again = FileAuditLog.makeAppender({ path, maxBytes: 1000, keep: 2 })
    again.append(entry(total))
    again.close()
    assert.strictEqual(lines(path).at(-1).durationMs, total)
    rmSync(dir, { recursive: true, force: true })
  })

  it("after kill -9 in the middle of a run, no completed record is lost or torn", { timeout: 30_000 }, async () => {
    const dir = tempDir()
    const path = join(dir, "audit.jsonl")
    const writer = spawn(process.execPath, [resolve(import.meta.dirname, "fixtures/audit-writer.ts"), path], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    await new Promise<void>((done, fail) => {
      writer.stdout.once("data", () => done())
      writer.once("exit", (code) => fail(new Error(`the writer exited early (${code})`)))
    })
    // Let it write a few megabytes (whatever the machine's load), then kill it mid-write.
    const { statSync } = await import("node:fs")
    while (statSync(path).size < 4 * 1024 * 1024) await new Promise((done) => setTimeout(done, 20))
    const exited = new Promise((done) => writer.once("exit", (_code, signal) => done(signal)))
    writer.kill("SIGKILL")
    assert.strictEqual(await exited, "SIGKILL")
    // Every line the writer finished is whole; at most the record being written when it died is cut short.
    const finished = readFileSync(path, "utf8")
      .split("\n")
      .slice(0, -1)
      .map((line) => JSON.parse(line))
    // Opening the file again cuts off that unfinished record, and appending goes on after the last whole one.
    FileAuditLog.makeAppender({ path }).close()
    const text = readFileSync(path, "utf8")
    assert.isTrue(text.endsWith("\n"), "the file ends with a complete record")
    const records = text
      .split("\n")
      .slice(0, -1)
      .map((line) => JSON.parse(line))
    assert.deepStrictEqual(records, finished)
    assert.isAbove(records.length, 10)
    assert.deepStrictEqual(
      records.map((record: any) => record.durationMs),
      Array.from({ length: records.length }, (_, i) => i),
      "every record from the first to the last, none missing"
    )
    rmSync(dir, { recursive: true, force: true })
  })
})

describe("grouped writes", () => {
  it.effect(
    "a record is in the file when `record` completes; records of calls that finish together share a write",
    () =>
      Effect.gen(function* () {
        const dir = tempDir()
        const path = join(dir, "audit.jsonl")
        yield* Effect.gen(function* () {
          const audit = yield* AuditLog
          // 200 calls finishing together: each one, once its record call completes, finds its record in the file.
          yield* Effect.forEach(
            Array.from({ length: 200 }, (_, i) => i),
            (i) =>
              Effect.andThen(
                audit.record({ ...entry(i), arguments: { i } }),
                Effect.sync(() => {
                  const found = lines(path).some((record) => record.correlationId === `c-${i}`)
                  assert.isTrue(found, `the record of call ${i} is in the file before the call goes on`)
                })
              ),
            { concurrency: "unbounded", discard: true }
          )
          yield* audit.record({ ...entry(200), tool: "t\u00e9st \u2713 \ud83d\ude00", arguments: {} })
        }).pipe(Effect.provide(FileAuditLog.layer({ path })))
        const written = lines(path)
        assert.deepStrictEqual(
          written.map((record) => record.durationMs),
          Array.from({ length: 201 }, (_, i) => i)
        )
        assert.strictEqual(written[7].argumentsDigest, yield* digest({ i: 7 }))
        assert.strictEqual(written[200].tool, "t\u00e9st \u2713 \ud83d\ude00", "UTF-8 written whole")
        rmSync(dir, { recursive: true, force: true })
      })
  )

  it("a group that crosses the rotation point is split between files at a record's edge", () => {
    const dir = tempDir()
    const path = join(dir, "audit.jsonl")
    const appender = FileAuditLog.makeAppender({ path, maxBytes: 1000, keep: 5 })
    const line = (i: number) => JSON.stringify(entry(i))
    appender.appendLines(Array.from({ length: 8 }, (_, i) => line(i)))
    appender.appendLines(Array.from({ length: 8 }, (_, i) => line(8 + i)))
    appender.close()
    const files = [`${path}.2`, `${path}.1`, path].filter((file) =>
      readdirSync(dir).includes(file.slice(dir.length + 1))
    )
    const kept = files.flatMap((file) => lines(file))
    assert.deepStrictEqual(
      kept.map((record: any) => record.durationMs),
      Array.from({ length: 16 }, (_, i) => i)
    )
    for (const file of files) assert.isAtMost(readFileSync(file).length, 1000)
    rmSync(dir, { recursive: true, force: true })
  })

  it(
    "kill -9 of a server with many calls in flight: every answered call has its record",
    { timeout: 60_000 },
    async () => {
      const dir = tempDir()
      const path = join(dir, "audit.jsonl")
      const server = spawn(process.execPath, [resolve(import.meta.dirname, "fixtures/audit-server.ts"), path], {
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stderr = ""
      server.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      server.stdin.on("error", () => {}) // EPIPE once it is killed
      const exited = new Promise((done) => server.once("exit", (_code, signal) => done(signal)))
      const answered = new Set<string>()
      const wrong: Array<unknown> = []
      // Let a few thousand calls go through (whatever the machine's load), then kill it with calls in flight.
      const killAt = 3000
      let next = 0
      const line = (message: unknown) => `${JSON.stringify(message)}\n`
      const call = () => {
        const text = `call-${next++}`
        return line({
          jsonrpc: "2.0",
          id: text,
          method: "tools/call",
          params: { name: "audit_echo", arguments: { text } }
        })
      }
      let initialized = false
      let tail = ""
      server.stdout.setEncoding("utf8")
      server.stdout.on("data", (chunk: string) => {
        const parts = (tail + chunk).split("\n")
        tail = parts.pop()!
        let more = ""
        for (const part of parts) {
          const message = JSON.parse(part)
          if (message.id === 0) {
            initialized = true
            more += line({ jsonrpc: "2.0", method: "notifications/initialized" })
            for (let i = 0; i < 64; i++) more += call()
            continue
          }
          if (message.result?.content?.[0]?.text !== message.id) wrong.push(message)
          answered.add(message.id)
          // Keep 64 calls in flight, until the kill.
          if (answered.size < killAt) more += call()
        }
        if (more !== "") server.stdin.write(more)
        if (answered.size >= killAt && server.exitCode === null && server.signalCode === null) server.kill("SIGKILL")
      })
      server.stdin.write(
        line({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
        })
      )
      assert.strictEqual(await exited, "SIGKILL", stderr)
      assert.isTrue(initialized)
      assert.deepStrictEqual(wrong, [], "every call is answered with its own text")
      assert.isAtLeast(answered.size, killAt)
      // The file, reopened (a record cut short by the kill is cut off), holds a record for every answered call.
      FileAuditLog.makeAppender({ path }).close()
      const digests = new Set(lines(path).map((record) => record.argumentsDigest))
      const missing = [...answered].filter(
        (text) => !digests.has(`sha256:${createHash("sha256").update(canonicalJson({ text })).digest("hex")}`)
      )
      assert.deepStrictEqual(missing, [], "every answered call's record is in the file")
      // Calls in flight that were never answered may have records too (written, not yet answered at the kill).
      assert.isAtLeast(digests.size, answered.size)
      rmSync(dir, { recursive: true, force: true })
    }
  )
})

describe("audit records on stdio", () => {
  it(
    "each answer finds its record already in the file; a cancelled call's record is written too",
    { timeout: 30_000 },
    async () => {
      const dir = tempDir()
      const path = join(dir, "audit.jsonl")
      const server = spawn(process.execPath, [resolve(import.meta.dirname, "fixtures/audit-server.ts"), path], {
        stdio: ["pipe", "pipe", "pipe"]
      })
      let stderr = ""
      server.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      const digestOf = (text: string) => `sha256:${createHash("sha256").update(canonicalJson({ text })).digest("hex")}`
      const records = () => (existsSync(path) ? lines(path) : [])
      const send = (message: unknown) => server.stdin.write(`${JSON.stringify(message)}\n`)
      const call = (id: number, name: string, text: string) =>
        send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { text } } })
      // For every answer: the records in the file at the moment it is read (synchronously, before anything else).
      const seen = new Map<number, Array<any>>()
      let waiting: ((id: number) => void) | undefined
      let tail = ""
      server.stdout.setEncoding("utf8")
      server.stdout.on("data", (chunk: string) => {
        const parts = (tail + chunk).split("\n")
        tail = parts.pop()!
        for (const part of parts) {
          const message = JSON.parse(part)
          seen.set(message.id, records())
          waiting?.(message.id)
        }
      })
      const answer = (id: number) =>
        seen.has(id)
          ? Promise.resolve()
          : new Promise<void>((done) => {
              const previous = waiting
              waiting = (got) => {
                previous?.(got)
                if (got === id) done()
              }
            })
      send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }
      })
      await answer(0)
      send({ jsonrpc: "2.0", method: "notifications/initialized" })
      // Sixteen echo calls at once: each answer finds its own record in the file.
      for (let i = 1; i <= 16; i++) call(i, "audit_echo", `echo-${i}`)
      await Promise.all(Array.from({ length: 16 }, (_, i) => answer(i + 1)))
      for (let i = 1; i <= 16; i++) {
        const record = seen.get(i)!.find((entry) => entry.argumentsDigest === digestOf(`echo-${i}`))
        assert.isDefined(record, `call ${i}'s record is in the file when its answer arrives\n${stderr}`)
        assert.strictEqual(record.outcome, "ok")
        assert.strictEqual(record.tool, "audit_echo")
        assert.isAbove(record.bytesOut, 0)
      }
      // A call cancelled by the client: no answer, and a record with the outcome `cancelled`.
      call(100, "audit_wait", "held")
      send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 100 } })
      call(101, "audit_echo", "after")
      await answer(101)
      assert.isFalse(seen.has(100), "a cancelled call is not answered")
      const until = Date.now() + 10_000
      let cancelled: any
      while ((cancelled = records().find((entry) => entry.argumentsDigest === digestOf("held"))) === undefined) {
        assert.isBelow(Date.now(), until, `the cancelled call's record is written\n${stderr}`)
        await new Promise((done) => setTimeout(done, 20))
      }
      assert.strictEqual(cancelled.outcome, "cancelled")
      assert.isUndefined(cancelled.bytesOut)
      server.stdin.end()
      await new Promise((done) => server.once("exit", done))
      assert.strictEqual(records().length, 18, "one record per call")
      rmSync(dir, { recursive: true, force: true })
    }
  )
})

describe("tools/call is audited", () => {
  it.effect("one record per call: ok, a tool error, invalid arguments, a timeout and a cancelled call", () =>
    Effect.gen(function* () {
      const calls: Array<Call> = []
      const InMemory = Layer.succeed(
        AuditLog,
        AuditLog.of({ record: (call) => Effect.sync(() => void calls.push(call)) })
      )
      const echo = Tool.make("echo", { description: "echo", input: Schema.Struct({ text: Schema.String }) }).pipe(
        Tool.handle(({ text }) => Effect.succeed(text))
      )
      const fail = Tool.make("fail", { description: "fails" }).pipe(
        Tool.handle(() => Effect.fail(new Tool.ToolError({ message: "no" })))
      )
      const wait = Tool.make("wait", { description: "never answers" }).pipe(Tool.handle(() => Effect.never))
      const Audited = Capability.make(
        { id: "a", description: "audited", version: "1" },
        Effect.succeed({ tools: [echo, fail, wait] })
      )
      const client = yield* start(Audited).pipe(
        Effect.provide(
          Layer.mergeAll(InMemory, Policy.layer({ timeout: 1000 }), ServerConfig.layer({ shutdownGraceMs: 0 }))
        )
      )
      yield* client.initialize()
      yield* client.request("tools/call", { name: "a_echo", arguments: { text: "hi" } })
      yield* client.request("tools/call", { name: "a_fail" })
      yield* client.request("tools/call", { name: "a_echo", arguments: { text: 1 } })
      yield* client.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a_wait" } })
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      yield* client.read
      yield* client.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "a_wait" } })
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("200 millis")
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } })
      assert.deepStrictEqual((yield* client.request("ping")).result, {})
      assert.deepStrictEqual(
        calls.map((call) => [call.tool, call.outcome, call.durationMs]),
        [
          ["a_echo", "ok", 0],
          // A tool error's outcome is its code (a ToolError without one: its tag), as in the request log line.
          ["a_fail", "ToolError", 0],
          ["a_echo", "invalid_arguments", 0],
          ["a_wait", "timeout", 1000],
          ["a_wait", "cancelled", 200]
        ]
      )
      assert.deepStrictEqual(calls[0]!.arguments, { text: "hi" }, "the store decides what to keep")
      assert.isString(calls[0]!.correlationId)
      assert.isAbove(calls[0]!.bytesOut!, 0)
      assert.isUndefined(calls[4]!.bytesOut)
    })
  )
})
