/**
 * The benchmark's server on our side: `McpServer.serve()` over stdio with one
 * capability, `bench`, that provides `bench_echo` and `BENCH_TOOLS` dummy
 * tools `bench_dummy_<i>`. `bench/run.ts` bundles it like the binary
 * (`scripts/build.ts`) into `bench/.out/effect-server.js`.
 *
 * `bench/sdk-server.ts` is its twin on the official SDK: same public names,
 * same input and output schemas, same results.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Logging from "../layers/Logging.ts"
import * as StdioTransport from "../layers/StdioTransport.ts"
import * as Capability from "../src/Capability.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import * as Tool from "../src/Tool.ts"

const toolCount = Number(process.env.BENCH_TOOLS ?? "0")

const echo = Tool.make("echo", {
  title: "Echo",
  description: "Returns the given text unchanged.",
  input: Schema.Struct({ text: Schema.String.annotate({ description: "The text to send back." }) }),
  output: Schema.Struct({ text: Schema.String.annotate({ description: "The same text." }) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(Tool.handle(({ text }) => Effect.succeed({ text })))

const dummy = (i: number) =>
  Tool.make(`dummy_${i}`, {
    title: `Dummy ${i}`,
    description: `Dummy tool number ${i}: returns its text unchanged. It exists to make tools/list long.`,
    input: Schema.Struct({ text: Schema.String.annotate({ description: "Any text." }) }),
    output: Schema.Struct({ text: Schema.String.annotate({ description: "The same text." }) }),
    annotations: { readOnlyHint: true }
  }).pipe(Tool.handle(({ text }) => Effect.succeed({ text })))

const BenchCapability = Capability.make(
  { id: "bench", description: "Benchmark tools", version: "0.1.0" },
  Effect.sync(() => ({ tools: [echo, ...Array.from({ length: toolCount }, (_, i) => dummy(i))] }))
)

const program = McpServer.serve().pipe(
  Effect.provide(
    Layer.mergeAll(StdioTransport.layer.pipe(Layer.provide(NodeStdio.layer)), BenchCapability).pipe(
      Layer.provideMerge(Kernel.layer())
    )
  ),
  Effect.provide(Logging.layerJsonStderr())
)

NodeRuntime.runMain(program)
