/**
 * The benchmark's server on our side: `McpServer.serve()` over stdio (or
 * Streamable HTTP, `BENCH_TRANSPORT=http`) with one capability, `bench`, that provides `bench_echo` and `BENCH_TOOLS` dummy
 * tools `bench_dummy_<i>`. `bench/run.ts` bundles it like the binary
 * (`scripts/build.ts`) into `bench/.out/effect-server.js`.
 *
 * `bench/sdk-server.ts` is its twin on the official SDK: same public names,
 * same input and output schemas, same results.
 *
 * Environment:
 *
 * - `BENCH_TOOLS`: how many dummy tools (default 0).
 * - `BENCH_POLICY`: `on` (default) runs tool calls under `Policy.defaults`
 *   (5 min timeout, 32 calls at once, 256 queued, 1 MiB results), as a server
 *   does out of the box; `off` under `Policy.unlimited` (no timeout, no
 *   concurrency or queue limit, no result limit).
 * - `BENCH_LOG_LEVEL`: the minimum log level of the JSON logs on stderr
 *   (default `Info`, where every request writes one log line; `Warn` drops
 *   those lines).
 * - `BENCH_ECHO`: `sync` (default) answers at once, like the SDK server's
 *   echo: each call runs to its end before the server handles the next
 *   request, so calls never overlap (and never wait for a slot). `async`
 *   yields to the scheduler once before answering, as any tool that does I/O
 *   does: calls overlap, and with policies on all but 32 of them wait in the
 *   queue.
 * - `BENCH_TRANSPORT`: `stdio` (default) or `http`: Streamable HTTP
 *   (`layers/HttpTransport.ts`, its defaults) on 127.0.0.1 and a free port,
 *   as `mcp-runtime serve --transport http --port 0` does. The server then
 *   prints the endpoint's URL on stdout, one line, and nothing else there.
 *   The transport is imported on demand, as the binary's CLI does, so the
 *   stdio server loads none of it. Over HTTP it answers requests of any
 *   revision: in a session (initialize) or, for 2026-07-28, without one.
 * - `BENCH_ASK`: `1` adds `bench_ask`, which asks the client a yes/no
 *   question (elicitation) before echoing: under 2026-07-28 a call takes an
 *   input-required round, whose cost the bench measures against the echo.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Logging from "../layers/Logging.ts"
import * as StdioTransport from "../layers/StdioTransport.ts"
import * as Capability from "../src/Capability.ts"
import * as Elicitation from "../src/Elicitation.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import * as Policy from "../src/Policy.ts"
import * as Tool from "../src/Tool.ts"

const toolCount = Number(process.env.BENCH_TOOLS ?? "0")

const policyMode = process.env.BENCH_POLICY ?? "on"
if (policyMode !== "on" && policyMode !== "off") {
  throw new Error(`BENCH_POLICY must be "on" or "off", not ${JSON.stringify(policyMode)}`)
}
const policy = policyMode === "on" ? Policy.defaults : Policy.unlimited

const echoMode = process.env.BENCH_ECHO ?? "sync"
if (echoMode !== "sync" && echoMode !== "async") {
  throw new Error(`BENCH_ECHO must be "sync" or "async", not ${JSON.stringify(echoMode)}`)
}
const answer =
  echoMode === "sync"
    ? ({ text }: { readonly text: string }) => Effect.succeed({ text })
    : ({ text }: { readonly text: string }) => Effect.as(Effect.yieldNow, { text })

const transportMode = process.env.BENCH_TRANSPORT ?? "stdio"
if (transportMode !== "stdio" && transportMode !== "http") {
  throw new Error(`BENCH_TRANSPORT must be "stdio" or "http", not ${JSON.stringify(transportMode)}`)
}

const logLevel = (process.env.BENCH_LOG_LEVEL ?? "Info") as LogLevel.LogLevel
if (!LogLevel.values.includes(logLevel)) {
  throw new Error(`BENCH_LOG_LEVEL must be one of ${LogLevel.values.join(", ")}, not ${JSON.stringify(logLevel)}`)
}

const echo = Tool.make("echo", {
  title: "Echo",
  description: "Returns the given text unchanged.",
  input: Schema.Struct({ text: Schema.String.annotate({ description: "The text to send back." }) }),
  output: Schema.Struct({ text: Schema.String.annotate({ description: "The same text." }) }),
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
}).pipe(Tool.handle(answer))

const dummy = (i: number) =>
  Tool.make(`dummy_${i}`, {
    title: `Dummy ${i}`,
    description: `Dummy tool number ${i}: returns its text unchanged. It exists to make tools/list long.`,
    input: Schema.Struct({ text: Schema.String.annotate({ description: "Any text." }) }),
    output: Schema.Struct({ text: Schema.String.annotate({ description: "The same text." }) }),
    annotations: { readOnlyHint: true }
  }).pipe(Tool.handle(({ text }) => Effect.succeed({ text })))

// Asks before echoing: an input-required round under 2026-07-28.
const ask = Tool.make("ask", {
  title: "Ask, then echo",
  description: "Asks the user whether to echo the text, then returns it.",
  input: Schema.Struct({ text: Schema.String.annotate({ description: "The text to send back." }) }),
  output: Schema.Struct({ text: Schema.String.annotate({ description: "The same text." }) })
}).pipe(
  Tool.handle(({ text }) =>
    Elicitation.form(`Echo ${text}?`, Schema.Struct({ ok: Schema.Boolean })).pipe(
      Effect.map((answer) => ({ text: answer.action === "accept" && answer.content.ok ? text : "" })),
      Effect.mapError((error) => new Tool.ToolError({ message: error.message }))
    )
  )
)

const BenchCapability = Capability.make(
  { id: "bench", description: "Benchmark tools", version: "0.1.0" },
  Effect.sync(() => ({
    tools: [
      echo,
      ...(process.env.BENCH_ASK === "1" ? [ask] : []),
      ...Array.from({ length: toolCount }, (_, i) => dummy(i))
    ]
  }))
)

const stdio = McpServer.serve().pipe(
  Effect.provide(
    Layer.mergeAll(StdioTransport.layer.pipe(Layer.provide(NodeStdio.layer)), BenchCapability).pipe(
      Layer.provideMerge(Kernel.layer())
    )
  )
)

// As `src/cli/main.ts` serves `--transport http`: one `McpServer.serve()` per session.
const http = Effect.gen(function* () {
  const HttpTransport = yield* Effect.promise(() => import("../layers/HttpTransport.ts"))
  return yield* Effect.gen(function* () {
    const { url } = yield* HttpTransport.Listener
    yield* Effect.sync(() => process.stdout.write(`${url}\n`))
    return yield* HttpTransport.serve(McpServer.make())
  }).pipe(
    Effect.provide(
      Layer.mergeAll(HttpTransport.layerServer({ port: 0 }), BenchCapability).pipe(Layer.provideMerge(Kernel.layer()))
    )
  )
})

const program = (transportMode === "http" ? http : stdio).pipe(
  Effect.provide(Layer.mergeAll(Logging.layerJsonStderr(logLevel), Policy.layer(policy)))
)

NodeRuntime.runMain(program)
