/**
 * Compile-time guarantees, checked by `npm run typecheck` (a `@ts-expect-error`
 * that stops erroring fails the typecheck). The runtime assertions only keep
 * vitest aware of the file.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import packageJson from "../package.json" with { type: "json" }
import * as Capability from "../src/Capability.ts"
import type { Kernel } from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import * as Method from "../src/Method.ts"
import { defaultMethods } from "../src/methods/index.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import * as Tool from "../src/Tool.ts"
import type { Transport } from "../src/Transport.ts"

class Database extends Context.Service<Database, { readonly query: Effect.Effect<string> }>()("test/Database") {}

const lookup = Tool.make("lookup", { description: "" }).pipe(
  Tool.handle(() => Effect.flatMap(Effect.service(Database), (db) => db.query))
)

describe("compile-time guarantees", () => {
  it("a service a tool needs is a requirement of its capability's layer", () => {
    const layer = Capability.make({ id: "db", description: "", version: "1" }, Effect.succeed({ tools: [lookup] }))
    const typed: Layer.Layer<never, unknown, Kernel | Database> = layer
    // @ts-expect-error Database is required: the capability cannot be used without it
    const missing: Layer.Layer<never, unknown, Kernel> = layer
    assert.isDefined(typed)
    assert.isDefined(missing)
  })

  it("a capability without tools needs nothing but the kernel", () => {
    const empty: Layer.Layer<never, unknown, Kernel> = Capability.make(
      { id: "empty", description: "", version: "1" },
      Effect.succeed({})
    )
    assert.isDefined(empty)
  })

  it("a custom method's services become requirements of serve", () => {
    const query = Method.request("db/query", {
      params: Schema.Struct({}),
      handler: () => Effect.flatMap(Effect.service(Database), (db) => db.query)
    })
    const server = McpServer.serve({ methods: [...defaultMethods, query] })
    const typed: Effect.Effect<void, never, Transport | Kernel | Database> = server
    // @ts-expect-error Database is required by the custom method
    const missing: Effect.Effect<void, never, Transport | Kernel> = server
    const plain: Effect.Effect<void, never, Transport | Kernel> = McpServer.serve()
    assert.isDefined(typed)
    assert.isDefined(missing)
    assert.isDefined(plain)
  })

  it("serverInfo.version defaults to the package version", () => {
    assert.strictEqual(ServerConfig.packageVersion, packageJson.version)
  })
})
