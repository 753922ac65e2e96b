/**
 * Requests from handlers to the client — elicitation, sampling, roots —
 * through the real codec (in-memory transport), with the test playing the
 * client: capability checks, answers, errors, cancellation and timeouts
 * while waiting, and a connection that closes.
 */
import { assert, describe, it } from "@effect/vitest"
import { ElicitRequestParamsSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as Capability from "../src/Capability.ts"
import { Client } from "../src/Client.ts"
import { Sep1034Form } from "../capabilities/conformance/elicitationSep1034Defaults.ts"
import { Sep1330Form } from "../capabilities/conformance/elicitationSep1330Enums.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Policy from "../src/Policy.ts"
import * as Roots from "../src/Roots.ts"
import * as Sampling from "../src/Sampling.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import * as Method from "../src/Method.ts"
import { defaultMethods } from "../src/methods/index.ts"
import { start, type TestClient } from "./support/memory.ts"

const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

const Form = Schema.Struct({
  name: Schema.String.annotate({ title: "Name" }),
  age: Schema.optionalKey(Schema.Int),
  color: Schema.Literals(["red", "blue"]),
  subscribe: Schema.optionalKey(Schema.Boolean)
})

const Rich = Schema.Struct({
  id: Schema.String.check(Schema.isUUID()),
  email: Schema.String.annotate({ format: "email" }),
  score: Schema.Number,
  count: Schema.Int.check(Schema.isGreaterThan(0)),
  born: Schema.Date,
  note: Schema.optional(Schema.String)
})

// The forms of the official conformance suite's elicitation checks:
// defaults on every primitive (SEP-1034) and the five kinds of choice (SEP-1330).
// The conformance fixtures' forms (capabilities/conformance), with the shapes the official suite checks.
const Sep1034Defaults = Sep1034Form
const Sep1330Enums = Sep1330Form

const forms: Record<string, Elicitation.FormSchema> = {
  sep1034: Sep1034Defaults,
  sep1330: Sep1330Enums,
  more: Schema.Struct({
    // No literal has a title: an untitled choice, however the union is written.
    plain: Schema.Union([Schema.Literal("a"), Schema.Literal("b")]).annotate({ title: "Plain" }),
    // One literal has a title: titled, the others titled with their value.
    mixed: Schema.Union([Schema.Literal("a").annotate({ title: "Ay" }), Schema.Literal("b")]),
    maybe: Schema.optional(
      Schema.Union([Schema.Literal("x").annotate({ title: "Ex" }), Schema.Literal("y").annotate({ title: "Why" })])
    ).annotate({ title: "Maybe", default: "y" }),
    tags: Schema.optionalKey(Schema.Array(Schema.Literals(["red", "green"])).annotate({ default: ["green"] })),
    sizes: Schema.Array(Elicitation.enumNames(["s", "m"], ["Small", "Medium"])),
    since: Schema.optionalKey(Schema.Date.annotate({ title: "Since", default: new Date(0) })),
    ratio: Schema.optionalKey(Schema.Number).annotateKey({ description: "A ratio", default: 0.5 })
  }),
  badDefault: Schema.Struct({
    status: Schema.Literals(["active", "inactive"]).annotate({ default: "archived" as "active" })
  }),
  badMultiDefault: Schema.Struct({
    tags: Schema.Array(Schema.Literals(["red", "green"])).annotate({ default: ["blue" as "red"] })
  }),
  badNumberDefault: Schema.Struct({ count: Schema.Int.annotate({ default: 1.5 }) }),
  badEnumNames: Schema.Struct({ size: Schema.Literals(["s", "m"]).annotate({ enumNames: ["Small"] }) }),
  nested: Schema.Struct({ address: Schema.Struct({ city: Schema.String }) }),
  strings: Schema.Struct({ names: Schema.Array(Schema.String) })
}

const makeCapability = (ended: Queue.Queue<string>) =>
  Capability.make(
    { id: "t", description: "client requests", version: "1.0.0" },
    Effect.succeed({
      tools: [
        Tool.make("ask", { description: "asks the user for a form", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Elicitation.form("Tell me about you", Form).pipe(
              Effect.map((answer) => JSON.stringify(answer)),
              Effect.onInterrupt(() => Queue.offer(ended, "ask:interrupted"))
            )
          )
        ),
        Tool.make("ask_rich", { description: "a form with more kinds of fields", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.map(Elicitation.form("More about you", Rich), (answer) =>
              answer.action === "accept"
                ? `${answer.content.count} ${answer.content.born.toISOString()} ${answer.content.score}`
                : answer.action
            )
          )
        ),
        Tool.make("ask_nested", { description: "a form that cannot be flat", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.as(
              Elicitation.form("Nested", Schema.Struct({ address: Schema.Struct({ city: Schema.String }) })),
              "?"
            )
          )
        ),
        Tool.make("ask_form", {
          description: "asks for one of the forms",
          input: Schema.Struct({ form: Schema.String })
        }).pipe(
          Tool.handle(({ form }) =>
            Elicitation.form(`Form ${form}`, forms[form]!).pipe(
              Effect.map((answer) => JSON.stringify(answer)),
              Effect.catchDefect((defect) => Effect.succeed(`defect: ${(defect as Error).message}`))
            )
          )
        ),
        Tool.make("visit", { description: "sends the user to a URL", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.gen(function* () {
              const answer = yield* Elicitation.url("Sign in", "https://example.test/sign-in")
              if (answer.action === "accept") yield* Elicitation.complete(answer.elicitationId)
              return answer.action
            })
          )
        ),
        Tool.make("sample", { description: "asks the client's model", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Sampling.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
              maxTokens: 10
            }).pipe(Effect.map((reply) => `${reply.model}: ${reply.content.type === "text" ? reply.content.text : ""}`))
          )
        ),
        Tool.make("sample_context", { description: "asks with other servers' context", input: Schema.Struct({}) }).pipe(
          Tool.handle(() =>
            Effect.as(
              Sampling.createMessage({
                messages: [{ role: "user", content: { type: "text", text: "hi" } }],
                maxTokens: 10,
                includeContext: "allServers"
              }),
              "sampled"
            )
          )
        ),
        Tool.make("roots", { description: "lists the client's roots", input: Schema.Struct({}) }).pipe(
          Tool.handle(() => Effect.map(Roots.list, (roots) => roots.map((root) => root.uri).join(",")))
        ),
        Tool.make("next_roots_change", {
          description: "waits for the roots to change, then lists them",
          input: Schema.Struct({})
        }).pipe(
          Tool.handle(() =>
            Roots.changes.pipe(
              Stream.take(1),
              Stream.runDrain,
              Effect.andThen(Roots.list),
              Effect.map((roots) => String(roots.length))
            )
          )
        ),
        Tool.make("pending", { description: "requests awaiting the client", input: Schema.Struct({}) }).pipe(
          Tool.handle(() => Effect.map(Effect.service(Client), (client) => String(client.pending())))
        )
      ]
    })
  )

const setup = (
  capabilities: Record<string, unknown>,
  options: { readonly protocolVersion?: string; readonly policy?: Parameters<typeof Policy.layer>[0] } = {}
) =>
  Effect.gen(function* () {
    const ended = yield* Queue.unbounded<string>()
    const client = yield* start(makeCapability(ended)).pipe(
      Effect.provide(Layer.merge(Policy.layer(options.policy ?? {}), ServerConfig.layer({ shutdownGraceMs: 0 })))
    )
    yield* client.request("initialize", {
      protocolVersion: options.protocolVersion ?? "2025-11-25",
      capabilities,
      clientInfo: { name: "test", version: "1" }
    })
    yield* client.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return { client, ended }
  })

const call = (client: TestClient, id: string | number, name: string) =>
  client.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } })

const askForm = (client: TestClient, id: number, form: string) =>
  client.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t_ask_form", arguments: { form } } })

// The SDK's own schema of the request's params: it must accept them and keep
// every keyword (it drops the keywords it does not know for a field's kind).
const assertSdkAccepts = (params: unknown) => {
  const parsed = ElicitRequestParamsSchema.safeParse(params)
  assert.isTrue(parsed.success, parsed.success ? "" : parsed.error.message)
  assert.deepStrictEqual(parsed.data, params)
}

const reply = (client: TestClient, id: unknown, result: unknown) => client.send({ jsonrpc: "2.0", id, result })

const errorMeta = (response: any) => response.result?._meta?.["effect-mcp-runtime/error"]

const text = (response: any): string => response.result.content[0].text

describe("elicitation", () => {
  it.effect("form mode: the request describes a flat form; an accepted answer is decoded with the Schema", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* call(client, 1, "t_ask")
      const request = yield* client.read
      assert.strictEqual(request.method, "elicitation/create")
      assert.isString(request.id)
      assert.strictEqual(request.params.mode, "form")
      assert.strictEqual(request.params.message, "Tell me about you")
      assert.deepStrictEqual(request.params.requestedSchema.required, ["name", "color"])
      assert.deepInclude(request.params.requestedSchema.properties.name, { type: "string", title: "Name" })
      assert.deepInclude(request.params.requestedSchema.properties.age, { type: "integer" })
      assert.deepStrictEqual(request.params.requestedSchema.properties.color.enum, ["red", "blue"])
      assert.deepInclude(request.params.requestedSchema.properties.subscribe, { type: "boolean" })
      yield* reply(client, request.id, { action: "accept", content: { name: "Ada", color: "red" } })
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.deepStrictEqual(JSON.parse(text(response)), { action: "accept", content: { name: "Ada", color: "red" } })
    })
  )

  it.effect("declined and cancelled answers; content that does not match the form is an error", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: { form: {} } }, { protocolVersion: "2025-06-18" })
      yield* call(client, 1, "t_ask")
      const first = yield* client.read
      assert.isUndefined(first.params.mode, "no mode before 2025-11-25")
      yield* reply(client, first.id, { action: "decline" })
      assert.deepStrictEqual(JSON.parse(text(yield* client.read)), { action: "decline" })

      yield* call(client, 2, "t_ask")
      yield* reply(client, (yield* client.read).id, { action: "cancel" })
      assert.deepStrictEqual(JSON.parse(text(yield* client.read)), { action: "cancel" })

      yield* call(client, 3, "t_ask")
      yield* reply(client, (yield* client.read).id, { action: "accept", content: { name: 42, color: "green" } })
      const invalid = yield* client.read
      assert.strictEqual(invalid.result.isError, true)
      assert.strictEqual(errorMeta(invalid).code, "ClientRequestFailed")
      assert.include(text(invalid), "the content does not match the requested form")
      assert.include(text(invalid), "- name:")
      assert.include(text(invalid), "- color:")
    })
  )

  it.effect("a client without elicitation, or an older protocol, fails at once and nothing is sent", () =>
    Effect.gen(function* () {
      const none = yield* setup({})
      yield* call(none.client, 1, "t_ask")
      const response = yield* none.client.read
      assert.strictEqual(response.id, 1, "the answer comes at once: no request was sent to the client")
      assert.strictEqual(errorMeta(response).code, "ClientCapabilityMissing")
      assert.include(text(response), "did not declare the elicitation capability")
      assert.include(text(response), "Suggestion:")

      const old = yield* setup({ elicitation: {} }, { protocolVersion: "2025-03-26" })
      yield* call(old.client, 1, "t_ask")
      assert.include(text(yield* old.client.read), "elicitation is not part of protocol 2025-03-26")

      // URL mode needs its own declaration.
      const formOnly = yield* setup({ elicitation: {} })
      yield* call(formOnly.client, 1, "t_visit")
      assert.include(text(yield* formOnly.client.read), "URL mode")
    })
  )

  it.effect("fields are described with the spec's keywords only; the answer is decoded from JSON", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* call(client, 1, "t_ask_rich")
      const request = yield* client.read
      const { properties, required } = request.params.requestedSchema
      assert.deepStrictEqual(properties.id, { type: "string" }, "no uuid format or pattern: the client cannot say them")
      assert.deepStrictEqual(properties.email, { type: "string", format: "email" })
      assert.deepStrictEqual(properties.score, { type: "number" })
      assert.deepStrictEqual(properties.count, { type: "integer", minimum: 1 })
      assert.strictEqual(properties.born.type, "string")
      assert.strictEqual(properties.note.type, "string")
      assert.sameMembers(required, ["id", "email", "score", "count", "born"])
      yield* reply(client, request.id, {
        action: "accept",
        content: {
          id: "5f0c8f2e-3b7a-4a53-9a57-1f0c1b2d3e4f",
          email: "ada@example.test",
          score: 2.5,
          count: 3,
          born: "1815-12-10T00:00:00.000Z"
        }
      })
      assert.strictEqual(text(yield* client.read), "3 1815-12-10T00:00:00.000Z 2.5")

      // A field the form cannot hold is a defect of the tool, found before anything is sent.
      yield* call(client, 2, "t_ask_nested")
      const nested = yield* client.read
      assert.strictEqual(nested.id, 2)
      assert.strictEqual(errorMeta(nested).code, "internal_error")
    })
  )

  it.effect("defaults on every kind of field (SEP-1034): the conformance suite's form, exactly", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* askForm(client, 1, "sep1034")
      const request = yield* client.read
      assert.deepStrictEqual(request.params.requestedSchema, {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: {
            type: "string",
            description: "User status",
            enum: ["active", "inactive", "pending"],
            default: "active"
          },
          verified: { type: "boolean", description: "Verification status", default: true }
        }
      })
      assertSdkAccepts(request.params)
      const content = { name: "Jane Smith", age: 25, score: 88.0, status: "inactive", verified: false }
      yield* reply(client, request.id, { action: "accept", content })
      assert.deepStrictEqual(JSON.parse(text(yield* client.read)), { action: "accept", content })
    })
  )

  it.effect("choices (SEP-1330): untitled, titled, legacy enumNames, and multi-select, exactly", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* askForm(client, 1, "sep1330")
      const request = yield* client.read
      assert.deepStrictEqual(request.params.requestedSchema, {
        type: "object",
        properties: {
          untitledSingle: {
            type: "string",
            description: "Select one option",
            enum: ["option1", "option2", "option3"]
          },
          titledSingle: {
            type: "string",
            description: "Select one option with titles",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" }
            ]
          },
          legacyEnum: {
            type: "string",
            description: "Select one option (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"]
          },
          untitledMulti: {
            type: "array",
            description: "Select multiple options",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] }
          },
          titledMulti: {
            type: "array",
            description: "Select multiple options with titles",
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" }
              ]
            }
          }
        },
        required: ["untitledSingle", "titledSingle", "legacyEnum", "untitledMulti", "titledMulti"]
      })
      assertSdkAccepts(request.params)
      const content = {
        untitledSingle: "option1",
        titledSingle: "value1",
        legacyEnum: "opt1",
        untitledMulti: ["option1", "option2"],
        titledMulti: ["value1", "value2"]
      }
      yield* reply(client, request.id, { action: "accept", content })
      assert.deepStrictEqual(JSON.parse(text(yield* client.read)), { action: "accept", content })

      // A choice that is not offered, or too many of them, fails to decode.
      yield* askForm(client, 2, "sep1330")
      yield* reply(client, (yield* client.read).id, {
        action: "accept",
        content: { ...content, titledSingle: "value9", untitledMulti: [] }
      })
      const invalid = text(yield* client.read)
      assert.include(invalid, "- titledSingle:")
      assert.include(invalid, "- untitledMulti:")
    })
  )

  it.effect("titles only where a literal has one; defaults of optional, multi-select, Date and key fields", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* askForm(client, 1, "more")
      const request = yield* client.read
      assert.deepStrictEqual(request.params.requestedSchema, {
        type: "object",
        properties: {
          plain: { type: "string", title: "Plain", enum: ["a", "b"] },
          mixed: {
            type: "string",
            oneOf: [
              { const: "a", title: "Ay" },
              { const: "b", title: "b" }
            ]
          },
          maybe: {
            type: "string",
            title: "Maybe",
            oneOf: [
              { const: "x", title: "Ex" },
              { const: "y", title: "Why" }
            ],
            default: "y"
          },
          tags: { type: "array", items: { type: "string", enum: ["red", "green"] }, default: ["green"] },
          sizes: {
            type: "array",
            items: {
              anyOf: [
                { const: "s", title: "Small" },
                { const: "m", title: "Medium" }
              ]
            }
          },
          since: { type: "string", title: "Since", default: "1970-01-01T00:00:00.000Z" },
          ratio: { type: "number", description: "A ratio", default: 0.5 }
        },
        required: ["plain", "mixed", "sizes"]
      })
      assertSdkAccepts(request.params)
      yield* reply(client, request.id, {
        action: "accept",
        content: {
          plain: "b",
          mixed: "a",
          maybe: "x",
          tags: ["red", "green"],
          sizes: ["m"],
          since: "2025-01-02T00:00:00.000Z"
        }
      })
      assert.deepStrictEqual(JSON.parse(text(yield* client.read)), {
        action: "accept",
        content: {
          plain: "b",
          mixed: "a",
          maybe: "x",
          tags: ["red", "green"],
          sizes: ["m"],
          since: "2025-01-02T00:00:00.000Z"
        }
      })
    })
  )

  it.effect("a default that is not one of the field's values, or a field a form cannot hold, is a defect", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      const defects = {
        badDefault: 'field "status" has the default "archived", which is not one of its choices ("active", "inactive")',
        badMultiDefault: 'field "tags" has the default ["blue"], which is not a list of its choices ("red", "green")',
        badNumberDefault: 'field "count" has the default 1.5, which is not an integer',
        badEnumNames: 'field "size" has enumNames ["Small"]: it needs one string per choice (2)',
        nested: 'field "address" is not a string, number, integer, boolean, choice of strings',
        strings: 'field "names" is not a string, number, integer, boolean, choice of strings'
      }
      let id = 1
      for (const [form, message] of Object.entries(defects)) {
        yield* askForm(client, id, form)
        const response = yield* client.read
        assert.strictEqual(response.id, id++, `${form}: nothing is sent to the client`)
        assert.include(text(response), `defect: Elicitation.form: ${message}`)
      }
    })
  )

  it.effect("URL mode: the client is sent the URL and an id; completion is notified", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: { url: {} } })
      yield* call(client, 1, "t_visit")
      const request = yield* client.read
      assert.deepInclude(request.params, { mode: "url", message: "Sign in", url: "https://example.test/sign-in" })
      assert.isString(request.params.elicitationId)
      yield* reply(client, request.id, { action: "accept" })
      const complete = yield* client.read
      assert.deepStrictEqual(complete, {
        jsonrpc: "2.0",
        method: "notifications/elicitation/complete",
        params: { elicitationId: request.params.elicitationId }
      })
      assert.strictEqual(text(yield* client.read), "accept")
    })
  )
})

describe("waiting on the client", () => {
  it.effect("cancelling the call stops the wait, tells the client, and ignores a late answer", () =>
    Effect.gen(function* () {
      const { client, ended } = yield* setup({ elicitation: {} })
      yield* call(client, "c1", "t_ask")
      const request = yield* client.read
      yield* client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c1" } })
      const cancelled = yield* client.read
      assert.strictEqual(cancelled.method, "notifications/cancelled")
      assert.strictEqual(cancelled.params.requestId, request.id)
      assert.strictEqual(yield* Queue.take(ended), "ask:interrupted")
      // The answer comes too late: ignored, and nothing is left waiting.
      yield* reply(client, request.id, { action: "decline" })
      const pending = yield* client.request("tools/call", { name: "t_pending", arguments: {} })
      assert.strictEqual(text(pending), "0")
    })
  )

  it.effect("a client that never answers: the tool's timeout ends the wait and leaks nothing", () =>
    Effect.gen(function* () {
      const { client, ended } = yield* setup({ elicitation: {} }, { policy: { timeout: "1 minute" } })
      yield* call(client, 1, "t_ask")
      const request = yield* client.read
      yield* settle
      yield* TestClock.adjust("1 minute")
      const cancelled = yield* client.read
      assert.deepInclude(cancelled, { method: "notifications/cancelled" })
      assert.strictEqual(cancelled.params.requestId, request.id)
      const response = yield* client.read
      assert.strictEqual(errorMeta(response).code, "timeout")
      assert.strictEqual(yield* Queue.take(ended), "ask:interrupted")
      assert.strictEqual(text(yield* client.request("tools/call", { name: "t_pending", arguments: {} })), "0")
    })
  )

  it.effect("no request goes to a client that has not sent notifications/initialized", () =>
    Effect.gen(function* () {
      const ended = yield* Queue.unbounded<string>()
      const client = yield* start(makeCapability(ended))
      yield* client.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: { elicitation: {} },
        clientInfo: { name: "test", version: "1" }
      })
      yield* call(client, 1, "t_ask")
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.include(text(response), "has not sent notifications/initialized")
    })
  )

  it.effect("a malformed answer to our request ends the wait at once", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* call(client, 1, "t_ask")
      const request = yield* client.read
      yield* client.send({ jsonrpc: "2.0", id: request.id, result: null })
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.strictEqual(errorMeta(response).code, "ClientRequestFailed")
      assert.include(text(response), "not a valid JSON-RPC response")
    })
  )

  it.effect("an error answer reaches the handler with its code", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* call(client, 1, "t_ask")
      const request = yield* client.read
      yield* client.send({ jsonrpc: "2.0", id: request.id, error: { code: -32603, message: "dialog crashed" } })
      const response = yield* client.read
      assert.strictEqual(errorMeta(response).code, "ClientRequestFailed")
      assert.include(text(response), "dialog crashed")
    })
  )

  it.effect("when the connection closes, a pending request fails with ClientGone", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ elicitation: {} })
      yield* call(client, 1, "t_ask")
      yield* client.read
      yield* client.close
      const response = yield* client.read
      assert.strictEqual(errorMeta(response).code, "ClientGone")
      assert.include(text(response), "closed before the client answered")
      yield* Fiber.await(client.server)
    })
  )
})

describe("sampling and roots", () => {
  it.effect("sampling/createMessage: the reply is decoded; without the capability it fails at once", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ sampling: {} })
      yield* call(client, 1, "t_sample")
      const request = yield* client.read
      assert.strictEqual(request.method, "sampling/createMessage")
      assert.deepStrictEqual(request.params, {
        messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
        maxTokens: 10
      })
      yield* reply(client, request.id, {
        role: "assistant",
        content: { type: "text", text: "hi" },
        model: "test-model",
        stopReason: "endTurn"
      })
      assert.strictEqual(text(yield* client.read), "test-model: hi")

      // 2025-11-25: the content may be a list of blocks.
      yield* call(client, 3, "t_sample")
      yield* reply(client, (yield* client.read).id, {
        role: "assistant",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second" }
        ],
        model: "m2"
      })
      assert.strictEqual(text(yield* client.read), "m2: first")

      yield* call(client, 2, "t_sample")
      yield* reply(client, (yield* client.read).id, { role: "robot" })
      assert.include(text(yield* client.read), "not a valid sampling result")

      // includeContext needs sampling.context (2025-11-25).
      yield* call(client, 4, "t_sample_context")
      const context = yield* client.read
      assert.strictEqual(context.id, 4, "nothing was sent to the client")
      assert.include(text(context), "did not declare sampling.context")

      const none = yield* setup({ elicitation: {} })
      yield* call(none.client, 1, "t_sample")
      const missing = yield* none.client.read
      assert.strictEqual(errorMeta(missing).code, "ClientCapabilityMissing")
      assert.include(text(missing), "sampling capability")
    })
  )

  it.effect("roots/list, and notifications/roots/list_changed reaching a handler", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ roots: { listChanged: true } })
      yield* call(client, 1, "t_roots")
      const request = yield* client.read
      assert.deepStrictEqual([request.method, request.params], ["roots/list", {}])
      yield* reply(client, request.id, { roots: [{ uri: "file:///a", name: "a" }, { uri: "file:///b" }] })
      assert.strictEqual(text(yield* client.read), "file:///a,file:///b")

      yield* call(client, 2, "t_next_roots_change")
      yield* settle
      yield* client.send({ jsonrpc: "2.0", method: "notifications/roots/list_changed" })
      const list = yield* client.read
      assert.strictEqual(list.method, "roots/list")
      yield* reply(client, list.id, { roots: [{ uri: "file:///c" }] })
      assert.strictEqual(text(yield* client.read), "1")

      const none = yield* setup({})
      yield* call(none.client, 1, "t_roots")
      assert.include(text(yield* none.client.read), "did not declare the roots capability")

      // A client that never sends list_changed: watching its roots ends at once.
      const static_ = yield* setup({ roots: {} })
      yield* call(static_.client, 1, "t_next_roots_change")
      const immediate = yield* static_.client.read
      assert.strictEqual(immediate.method, "roots/list")
      yield* reply(static_.client, immediate.id, { roots: [] })
      assert.strictEqual(text(yield* static_.client.read), "0")
    })
  )
})

describe("the read loop stays free", () => {
  it.effect("a notification handler that asks the client waits in a fiber of its own", () =>
    Effect.gen(function* () {
      const results = yield* Queue.unbounded<string>()
      // A custom notification whose handler asks the client for its roots.
      const refresh = Method.notification("notifications/test/refresh", {
        params: Schema.Struct({}),
        handler: () =>
          Roots.list.pipe(
            Effect.flatMap((roots) => Queue.offer(results, roots.map((root) => root.uri).join(","))),
            Effect.catch((error) => Queue.offer(results, `failed: ${error._tag}`)),
            Effect.asVoid
          )
      })
      const ended = yield* Queue.unbounded<string>()
      const client = yield* start(makeCapability(ended), { methods: [...defaultMethods, refresh] })
      yield* client.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: { roots: {} },
        clientInfo: { name: "test", version: "1" }
      })
      yield* client.send({ jsonrpc: "2.0", method: "notifications/initialized" })
      yield* client.send({ jsonrpc: "2.0", method: "notifications/test/refresh" })
      const request = yield* client.read
      assert.strictEqual(request.method, "roots/list")
      // The reader is not stuck behind the handler: it answers a ping, then reads our answer.
      const ping = yield* client.request("ping")
      assert.deepStrictEqual(ping.result, {})
      yield* reply(client, request.id, { roots: [{ uri: "file:///x" }] })
      assert.strictEqual(yield* Queue.take(results), "file:///x")
    })
  )

  it.effect("in a batch, an answer the batch's own request waits on is handled at once", () =>
    Effect.gen(function* () {
      const { client } = yield* setup({ roots: { listChanged: true } }, { protocolVersion: "2025-03-26" })
      // The first call waits on roots/list; the second batch carries a slow call and the answer.
      yield* call(client, 1, "t_roots")
      const request = yield* client.read
      yield* client.write(
        JSON.stringify([
          { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t_next_roots_change", arguments: {} } },
          { jsonrpc: "2.0", id: request.id, result: { roots: [{ uri: "file:///y" }] } }
        ]) + "\n"
      )
      // The answer was not held behind the batch's unfinished request.
      const response = yield* client.read
      assert.strictEqual(response.id, 1)
      assert.strictEqual(text(response), "file:///y")
    })
  )
})
