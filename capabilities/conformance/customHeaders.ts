/**
 * `test_custom_headers` (2026-07-28): a tool whose arguments Streamable HTTP
 * mirrors into `Mcp-Param-*` headers.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Tool from "../../src/Tool.ts"

/**
 * Takes a region, a priority and a verbose flag, each annotated
 * `x-mcp-header` (`Region`, `Priority`, `Verbose`), and a query that is not
 * mirrored. Over Streamable HTTP under 2026-07-28 a call must carry
 * `Mcp-Param-Region`, `Mcp-Param-Priority` and (when given)
 * `Mcp-Param-Verbose` headers that agree with the arguments, or it is
 * refused with −32020 before the tool runs. Answers with what it got.
 *
 * **Example**
 *
 * ```ts
 * import { customHeaders } from "effect-mcp-runtime/capabilities/conformance/customHeaders"
 *
 * customHeaders.tool.name // => "custom_headers"
 * ```
 *
 * @category tools
 * @since 0.2.0
 */
export const customHeaders = Tool.make("custom_headers", {
  description: "Echoes its arguments; region, priority and verbose travel as Mcp-Param-* headers too",
  input: Schema.Struct({
    region: Schema.String.annotate({ description: "Where to run", "x-mcp-header": "Region" }),
    priority: Schema.Int.annotate({ description: "How urgent", "x-mcp-header": "Priority" }),
    verbose: Schema.optionalKey(Schema.Boolean.annotate({ description: "Say more", "x-mcp-header": "Verbose" })),
    query: Schema.String.annotate({ description: "What to do (not mirrored)" })
  }),
  annotations: { readOnlyHint: true, openWorldHint: false }
}).pipe(
  Tool.handle((args) =>
    Effect.succeed(
      `region=${args.region} priority=${args.priority} verbose=${args.verbose ?? "(not given)"} query=${args.query}`
    )
  )
)
