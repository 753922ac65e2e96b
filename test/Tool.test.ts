import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Capability from "../src/Capability.ts"
import * as Tool from "../src/Tool.ts"
import { start } from "./support/memory.ts"

const Point = Schema.Struct({ x: Schema.Finite, y: Schema.Finite }).annotate({ identifier: "Point" })

const capability = Capability.make(
  { id: "geo", description: "geometry", version: "1.0.0" },
  Effect.succeed({
    tools: [
      Tool.make("distance", {
        title: "Distance",
        description: "Distance between two points",
        input: Schema.Struct({
          from: Point,
          to: Point,
          unit: Schema.optionalKey(Schema.Literals(["m", "km"]))
        }),
        output: Schema.Struct({ distance: Schema.Finite, unit: Schema.String }),
        annotations: { readOnlyHint: true }
      }).pipe(
        Tool.handle(({ from, to, unit = "m" }) =>
          Effect.succeed({ distance: Math.hypot(to.x - from.x, to.y - from.y), unit })
        )
      ),
      Tool.make("locate", {
        description: "Finds a place",
        input: Schema.Struct({ name: Schema.String })
      }).pipe(
        Tool.handle(({ name }) =>
          Effect.fail(new Tool.ToolError({ message: `No place named ${name}`, suggestion: "Call geo_search first." }))
        )
      )
    ]
  })
)

describe("Tool", () => {
  it.effect("publishes JSON Schema 2020-12 with $defs, title, output schema and annotations", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* client.initialize()
      const list = yield* client.request("tools/list")
      const distance = list.result.tools[0]
      assert.strictEqual(distance.name, "geo_distance")
      assert.strictEqual(distance.title, "Distance")
      assert.strictEqual(distance.inputSchema.type, "object")
      assert.deepStrictEqual(distance.inputSchema.properties.from, { $ref: "#/$defs/Point" })
      assert.deepStrictEqual(distance.inputSchema.required, ["from", "to"])
      assert.strictEqual(distance.inputSchema.$defs.Point.type, "object")
      assert.strictEqual(distance.outputSchema.type, "object")
      assert.deepStrictEqual(distance.annotations, { readOnlyHint: true })
      const locate = list.result.tools[1]
      assert.isUndefined(locate.outputSchema)
    })
  )

  it.effect("decodes arguments and names every bad field in one isError result", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* client.initialize()
      const ok = yield* client.request("tools/call", {
        name: "geo_distance",
        arguments: { from: { x: 0, y: 0 }, to: { x: 3, y: 4 }, unit: "km" }
      })
      assert.deepStrictEqual(ok.result.structuredContent, { distance: 5, unit: "km" })
      const bad = yield* client.request("tools/call", {
        name: "geo_distance",
        arguments: { from: { x: "0" }, unit: "miles" }
      })
      assert.isTrue(bad.result.isError)
      const text: string = bad.result.content[0].text
      assert.include(text, '- from.x: Expected number, got "0"')
      assert.include(text, "- from.y: Missing required key")
      assert.include(text, "from.y")
      assert.include(text, "- to:")
      assert.include(text, "unit")
      const missing = yield* client.request("tools/call", { name: "geo_distance" })
      assert.isTrue(missing.result.isError)
    })
  )

  it.effect("a typed failure becomes an isError result with its suggestion", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* client.initialize()
      const response = yield* client.request("tools/call", { name: "geo_locate", arguments: { name: "Atlantis" } })
      assert.deepStrictEqual(response.result, {
        content: [{ type: "text", text: "No place named Atlantis\nSuggestion: Call geo_search first." }],
        isError: true,
        _meta: { "effect-mcp-runtime/error": { code: "ToolError", suggestion: "Call geo_search first." } }
      })
    })
  )

  it.effect("rejects at startup a tool whose input is not an object Schema", () =>
    Effect.gen(function* () {
      const broken = Capability.make(
        { id: "bad", description: "", version: "1" },
        Effect.succeed({
          tools: [
            Tool.make("t", { description: "", input: Schema.Array(Schema.String) as any }).pipe(
              Tool.handle(() => Effect.succeed("x"))
            )
          ]
        })
      )
      const error = yield* Effect.flip(start(broken))
      assert.strictEqual(error._tag, "InvalidToolSchema")
      assert.include(error.message, "bad_t")
    })
  )
})

describe("Tool input strictness", () => {
  it.effect("rejects unknown arguments, naming them, and says so in the schema", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* client.initialize()
      const list = yield* client.request("tools/list")
      assert.strictEqual(list.result.tools[0].inputSchema.additionalProperties, false)
      const response = yield* client.request("tools/call", {
        name: "geo_locate",
        arguments: { name: "Paris", nmae: "typo" }
      })
      assert.isTrue(response.result.isError)
      assert.include(response.result.content[0].text, "- nmae: Unexpected key: it is not in the schema")
    })
  )

  it.effect("quotes a rejected value, but clips a huge one", () =>
    Effect.gen(function* () {
      const client = yield* start(capability)
      yield* client.initialize()
      const response = yield* client.request("tools/call", {
        name: "geo_locate",
        arguments: { name: ["x".repeat(10_000)] }
      })
      const text: string = response.result.content[0].text
      assert.include(text, "- name: Expected string, got")
      assert.isBelow(text.length, 600)
    })
  )
})
