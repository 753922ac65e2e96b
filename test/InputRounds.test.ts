/**
 * Input-required rounds (MCP 2026-07-28): a handler that asks the client
 * through `Elicitation`, `Sampling` or `Roots` runs unchanged; under
 * 2026-07-28 its questions travel in input-required results with a sealed
 * `requestState`, and the retry runs it again with the answers. The same
 * tool is checked under 2025-11-25 (requests to the client) and 2026-07-28
 * (rounds), with the test kit's client answering both ways.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { TestCapability } from "../capabilities/conformance/index.ts"
import * as Capability from "../src/Capability.ts"
import * as Client from "../src/Client.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Prompt from "../src/Prompt.ts"
import * as RequestState from "../src/RequestState.ts"
import * as Resource from "../src/Resource.ts"
import * as Roots from "../src/Roots.ts"
import * as Sampling from "../src/Sampling.ts"
import * as TestClient from "../src/testing/TestClient.ts"
import * as Tool from "../src/Tool.ts"

const modern = "2026-07-28"

// Counts how many times `counted` ran: under 2026-07-28 it runs once per round. (Tests run concurrently:
// only the first test calls it.)
const runs = Ref.makeUnsafe(0)

const askName = Elicitation.form("What is your name?", Schema.Struct({ name: Schema.String })).pipe(
  Effect.map((answer) => (answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No (${answer.action})`)),
  Effect.mapError((error) => new Tool.ToolError({ message: error.message }))
)

const greet = Tool.make("greet", {
  description: "Asks the user's name, then greets them",
  annotations: { readOnlyHint: true }
}).pipe(Tool.handle(() => askName))

const counted = Tool.make("counted", { description: "Asks the user's name, counting its runs" }).pipe(
  Tool.handle(() =>
    Effect.andThen(
      Ref.update(runs, (n) => n + 1),
      askName
    )
  )
)

const twoSteps = Tool.make("two_steps", { description: "Asks two questions, one after the other" }).pipe(
  Tool.handle(() =>
    Effect.gen(function* () {
      const first = yield* Elicitation.form("Your name?", Schema.Struct({ name: Schema.String })).pipe(
        Client.inputKey("name")
      )
      if (first.action !== "accept") return "stopped"
      const second = yield* Elicitation.form(`Colour, ${first.content.name}?`, Schema.Struct({ colour: Schema.String }))
      return second.action === "accept" ? `${first.content.name}: ${second.content.colour}` : "stopped"
    }).pipe(Effect.mapError((error) => new Tool.ToolError({ message: error.message })))
  )
)

const threeAtOnce = Tool.make("three_at_once", { description: "Asks the user, the model and the roots at once" }).pipe(
  Tool.handle(() =>
    Effect.all(
      [
        Elicitation.form("Your name?", Schema.Struct({ name: Schema.String })),
        Sampling.createMessage({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 5 }),
        Roots.list
      ],
      { concurrency: "unbounded" }
    ).pipe(
      Effect.map(([name, reply, roots]) =>
        [
          name.action === "accept" ? name.content.name : name.action,
          reply.content.type === "text" ? reply.content.text : "?",
          roots.map((root) => root.uri).join(",")
        ].join(" | ")
      ),
      Effect.mapError((error) => new Tool.ToolError({ message: error.message }))
    )
  )
)

const needsModel = Tool.make("needs_model", { description: "Cannot work without the client's model" }).pipe(
  Tool.handle(() =>
    Effect.map(
      Sampling.createMessage({ messages: [{ role: "user", content: { type: "text", text: "Hi" } }], maxTokens: 5 }),
      (reply) => (reply.content.type === "text" ? reply.content.text : "?")
    )
  )
)

const echoArg = Tool.make("echo_arg", {
  description: "Asks for a confirmation about its argument",
  input: Schema.Struct({ value: Schema.String })
}).pipe(
  Tool.handle(({ value }) =>
    Elicitation.form(`Keep ${value}?`, Schema.Struct({ ok: Schema.Boolean })).pipe(
      Effect.map((answer) => (answer.action === "accept" && answer.content.ok ? `kept ${value}` : `dropped ${value}`)),
      Effect.mapError((error) => new Tool.ToolError({ message: error.message }))
    )
  )
)

const askingPrompt = Prompt.make("asking", { description: "Asks what to focus on" }).pipe(
  Prompt.handle(() =>
    Effect.map(Elicitation.form("Focus?", Schema.Struct({ focus: Schema.String })), (answer) =>
      answer.action === "accept" ? `Focus on ${answer.content.focus}` : "No focus"
    )
  )
)

const askingResource = Resource.make("asked", { uri: "rounds://asked", description: "Asks what to show" }).pipe(
  Resource.handle(() =>
    Effect.map(Elicitation.form("Focus?", Schema.Struct({ focus: Schema.String })), (answer) =>
      answer.action === "accept" ? `Showing ${answer.content.focus}` : "Nothing"
    )
  )
)

const Rounds = Capability.make(
  { id: "rounds", description: "Tools that ask the client", version: "1.0.0" },
  Effect.succeed({
    tools: [greet, counted, twoSteps, threeAtOnce, needsModel, echoArg],
    prompts: [askingPrompt],
    resources: [askingResource]
  })
)

const answers = {
  elicitation: (params: any) =>
    Effect.succeed({
      action: "accept",
      content: String(params.message).startsWith("Colour")
        ? { colour: "teal" }
        : String(params.message).startsWith("Focus")
          ? { focus: "tests" }
          : String(params.message).startsWith("Keep")
            ? { ok: true }
            : { name: "Ada" }
    }),
  sampling: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "hey" }, model: "m" }),
  roots: [{ uri: "file:///srv/project" }]
}

const text = (result: any): string => TestClient.text(result)

describe("input-required rounds", () => {
  it.effect("the same tool asks by request under 2025-11-25 and by rounds under 2026-07-28", () =>
    Effect.gen(function* () {
      yield* Ref.set(runs, 0)
      const legacy = yield* TestClient.make(Rounds, { protocolVersion: "2025-11-25", ...answers })
      assert.strictEqual(text(yield* legacy.callTool("rounds_counted")), "Hello, Ada!")
      assert.deepStrictEqual(yield* legacy.rounds, [])
      assert.strictEqual(yield* Ref.get(runs), 1)

      yield* Ref.set(runs, 0)
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      const result = yield* client.callTool("rounds_counted")
      assert.strictEqual(text(result), "Hello, Ada!")
      assert.strictEqual((result as any).resultType, "complete")
      const rounds = yield* client.rounds
      assert.strictEqual(rounds.length, 1)
      const [key] = Object.keys(rounds[0]!.inputRequests)
      assert.match(key!, /^elicitation-/)
      assert.strictEqual(rounds[0]!.inputRequests[key!]!.method, "elicitation/create")
      assert.strictEqual(rounds[0]!.inputRequests[key!]!.params.message, "What is your name?")
      // Replayed: the handler ran for the round and again for the retry.
      assert.strictEqual(yield* Ref.get(runs), 2)
    }).pipe(Effect.scoped)
  )

  it.effect("the first answer is an input-required result with a sealed state and no caching hints", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      const { response } = yield* client.send("tools/call", { name: "rounds_greet" })
      const first = yield* response
      assert.strictEqual(first.resultType, "input_required")
      assert.match(first.requestState, /^mrtr1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/)
      assert.notInclude(first.requestState, "greet")
      assert.isUndefined(first.ttlMs)
      assert.isUndefined(first.cacheScope)
    }).pipe(Effect.scoped)
  )

  it.effect("questions asked one after the other take a round each; each state holds the answers so far", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      assert.strictEqual(text(yield* client.callTool("rounds_two_steps")), "Ada: teal")
      const rounds = yield* client.rounds
      assert.deepStrictEqual(
        rounds.map((round) => Object.keys(round.inputRequests).length),
        [1, 1]
      )
      assert.deepStrictEqual(Object.keys(rounds[0]!.inputRequests), ["name"])
      assert.strictEqual(Object.values(rounds[1]!.inputRequests)[0]!.params.message, "Colour, Ada?")
    }).pipe(Effect.scoped)
  )

  it.effect("questions asked concurrently travel in one round", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      assert.strictEqual(text(yield* client.callTool("rounds_three_at_once")), "Ada | hey | file:///srv/project")
      const rounds = yield* client.rounds
      assert.strictEqual(rounds.length, 1)
      assert.deepStrictEqual(
        Object.values(rounds[0]!.inputRequests)
          .map((request) => request.method)
          .sort(),
        ["elicitation/create", "roots/list", "sampling/createMessage"]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("prompts/get and resources/read ask in rounds too; a round is no defect (nothing logged at Error)", () =>
    Effect.gen(function* () {
      const errors: Array<string> = []
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers }).pipe(
        Effect.provide(
          Logger.layer([
            Logger.make((options) => {
              if (options.logLevel === "Error") errors.push(String(options.message))
            })
          ])
        )
      )
      const result = yield* client.getPrompt("rounds_asking")
      assert.strictEqual(result.resultType, "complete")
      assert.strictEqual(result.messages[0].content.text, "Focus on tests")
      const read = yield* client.request("resources/read", { uri: "rounds://asked" })
      assert.strictEqual(read.contents[0].text, "Showing tests")
      assert.strictEqual((yield* client.rounds).length, 2)
      yield* client.callTool("rounds_greet")
      assert.deepStrictEqual(errors, [])
    }).pipe(Effect.scoped)
  )

  it.effect("answers without a state are used; missing ones are asked again; extra ones are ignored", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      const first = yield* Effect.flatMap(client.send("tools/call", { name: "rounds_greet" }), (s) => s.response)
      const key = Object.keys(first.inputRequests)[0]!
      const answered = yield* Effect.flatMap(
        client.send("tools/call", {
          name: "rounds_greet",
          inputResponses: { [key]: { action: "accept", content: { name: "Grace" } }, stray: { action: "cancel" } }
        }),
        (s) => s.response
      )
      assert.strictEqual(answered.resultType, "complete")
      assert.strictEqual(text(answered), "Hello, Grace!")
      const missing = yield* Effect.flatMap(
        client.send("tools/call", { name: "rounds_greet", inputResponses: { wrong: { action: "accept" } } }),
        (s) => s.response
      )
      assert.strictEqual(missing.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(missing.inputRequests), [key])
    }).pipe(Effect.scoped)
  )

  it.effect("malformed inputResponses are −32602; nothing runs on them", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
      const first = yield* Effect.flatMap(client.send("tools/call", { name: "rounds_greet" }), (s) => s.response)
      const key = Object.keys(first.inputRequests)[0]!
      for (const [inputResponses, reason] of [
        [{ [key]: 12345 }, "input_response_malformed"],
        [{ [key]: { action: "maybe" } }, "input_response_malformed"],
        [null, "input_responses_malformed"],
        [[1, 2], "input_responses_malformed"]
      ] as const) {
        const error = yield* Effect.flip(
          Effect.flatMap(client.send("tools/call", { name: "rounds_greet", inputResponses }), (s) => s.response)
        )
        assert.strictEqual(error.code, -32602)
        assert.strictEqual((error.data as any).reason, reason)
      }
      const state = yield* Effect.flip(
        Effect.flatMap(client.send("tools/call", { name: "rounds_greet", requestState: 42 }), (s) => s.response)
      )
      assert.strictEqual(state.code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a state that was changed, cut, made with another key, given to another request or too old is refused",
    () =>
      Effect.gen(function* () {
        const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
        const first = yield* Effect.flatMap(
          client.send("tools/call", { name: "rounds_echo_arg", arguments: { value: "a" } }),
          (s) => s.response
        )
        const key = Object.keys(first.inputRequests)[0]!
        const retry = (
          requestState: string,
          args: Record<string, unknown> = { value: "a" },
          name = "rounds_echo_arg"
        ) =>
          Effect.flip(
            Effect.flatMap(
              client.send("tools/call", {
                name,
                arguments: args,
                inputResponses: { [key]: { action: "accept", content: { ok: true } } },
                requestState
              }),
              (s) => s.response
            )
          )
        const state: string = first.requestState
        // One character of the ciphertext changed.
        const flipped = state.slice(0, -3) + (state.at(-3) === "A" ? "B" : "A") + state.slice(-2)
        const reasons = [
          (yield* retry(`${state}-TAMPERED`)).data,
          (yield* retry(flipped)).data,
          (yield* retry(state.slice(0, 20))).data,
          (yield* retry("not a state")).data,
          (yield* retry(state, { value: "b" })).data,
          (yield* retry(state, {}, "rounds_greet")).data
        ].map((data: any) => data.reason)
        assert.deepStrictEqual(reasons, [
          // Base64url characters appended: it decodes, and the authentication tag no longer matches.
          "request_state_tampered",
          "request_state_tampered",
          "request_state_malformed",
          "request_state_malformed",
          "request_state_mismatch",
          "request_state_mismatch"
        ])
        // The genuine state still works.
        const done = yield* Effect.flatMap(
          client.send("tools/call", {
            name: "rounds_echo_arg",
            arguments: { value: "a" },
            inputResponses: { [key]: { action: "accept", content: { ok: true } } },
            requestState: state
          }),
          (s) => s.response
        )
        assert.strictEqual(text(done), "kept a")
        yield* TestClock.adjust(RequestState.defaultMaxAgeMs + 1)
        assert.strictEqual(((yield* retry(state)).data as any).reason, "request_state_expired")
      }).pipe(Effect.scoped)
  )

  it.effect("a state sealed by another server's key is refused; a key kept for rotation opens it", () =>
    Effect.gen(function* () {
      const one = "one: a secret of at least thirty-two bytes"
      const two = "two: another secret of thirty-two bytes"
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
          return yield* Effect.flatMap(client.send("tools/call", { name: "rounds_greet" }), (s) => s.response)
        }).pipe(Effect.provide(RequestState.layer({ keys: [one] })))
      )
      const retryWith = (keys: ReadonlyArray<string>) =>
        Effect.scoped(
          Effect.gen(function* () {
            const client = yield* TestClient.make(Rounds, { protocolVersion: modern, ...answers })
            const key = Object.keys(first.inputRequests)[0]!
            return yield* Effect.result(
              Effect.flatMap(
                client.send("tools/call", {
                  name: "rounds_greet",
                  inputResponses: { [key]: { action: "accept", content: { name: "Lin" } } },
                  requestState: first.requestState
                }),
                (s) => s.response
              )
            )
          }).pipe(Effect.provide(RequestState.layer({ keys })))
        )
      const other = yield* retryWith([two])
      assert.strictEqual(other._tag, "Failure")
      assert.strictEqual(((other as any).failure.data as any).reason, "request_state_unknown_key")
      const rotated = yield* retryWith([two, one])
      assert.strictEqual(rotated._tag, "Success")
      assert.strictEqual(text((rotated as any).success), "Hello, Lin!")
    })
  )

  it.effect("a capability the client lacks is −32021 under 2026-07-28, a tool error before", () =>
    Effect.gen(function* () {
      const modernClient = yield* TestClient.make(Rounds, { protocolVersion: modern })
      const error = yield* Effect.flip(modernClient.callTool("rounds_needs_model"))
      assert.strictEqual(error.code, -32021)
      assert.deepStrictEqual((error.data as any).requiredCapabilities, { sampling: {} })
      const legacy = yield* TestClient.make(Rounds, { protocolVersion: "2025-11-25" })
      const result = yield* legacy.callTool("rounds_needs_model")
      assert.strictEqual(TestClient.errorCode(result), "ClientCapabilityMissing")
    }).pipe(Effect.scoped)
  )

  it.effect("the conformance fixtures' questions are −32021 too for a client that lacks the capability", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(TestCapability, { protocolVersion: modern })
      for (const [tool, capability] of [
        ["test_input_required_result_elicitation", { elicitation: {} }],
        ["test_input_required_result_sampling", { sampling: {} }],
        ["test_input_required_result_list_roots", { roots: {} }]
      ] as const) {
        const error = yield* Effect.flip(client.callTool(tool))
        assert.strictEqual(error.code, -32021, tool)
        assert.deepStrictEqual((error.data as any).requiredCapabilities, capability)
      }
    }).pipe(Effect.scoped)
  )

  it.effect("only declared capabilities are asked: elicitation without the capability is not sent", () =>
    Effect.gen(function* () {
      const client = yield* TestClient.make(Rounds, { protocolVersion: modern, sampling: answers.sampling })
      const result = yield* client.callTool("rounds_greet")
      assert.isTrue(result.isError)
      assert.include(text(result), "did not declare the elicitation capability")
      assert.deepStrictEqual(yield* client.rounds, [])
    }).pipe(Effect.scoped)
  )

  it.effect("a destructive tool's confirmation is a round before the tool runs", () =>
    Effect.gen(function* () {
      const effects = yield* Ref.make(0)
      const remove = Tool.make("remove", {
        description: "Removes a thing",
        input: Schema.Struct({ thing: Schema.String }),
        annotations: { destructiveHint: true }
      }).pipe(
        Tool.handle(({ thing }) =>
          Effect.as(
            Ref.update(effects, (n) => n + 1),
            `removed ${thing}`
          )
        )
      )
      const Destructive = Capability.make(
        { id: "danger", description: "A destructive tool", version: "1.0.0" },
        Effect.succeed({ tools: [remove] })
      )
      const client = yield* TestClient.make(Destructive, {
        protocolVersion: modern,
        elicitation: () => Effect.succeed({ action: "accept", content: { confirm: true } })
      })
      assert.strictEqual(text(yield* client.callTool("danger_remove", { thing: "x" })), "removed x")
      assert.strictEqual((yield* client.rounds).length, 1)
      assert.strictEqual(yield* Ref.get(effects), 1)
    }).pipe(Effect.scoped)
  )
})

// A capability built from a layer this file does not otherwise use keeps the import honest.
void Layer.empty
