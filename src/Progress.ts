/**
 * Progress reporting for handlers. `Progress.report` sends
 * `notifications/progress` to the client — but only when the request carried
 * a `progressToken`, only when the value went up, and at most once per
 * `Policy.progressInterval` per request: reports in between are coalesced,
 * and the last one is always delivered before the response. A chatty tool
 * cannot flood its client.
 *
 * The server provides a `Progress` to every request; a capability never
 * provides it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Schema from "effect/Schema"
 * import * as Progress from "effect-mcp-runtime/Progress"
 * import * as Tool from "effect-mcp-runtime/Tool"
 *
 * const index = Tool.make("index", {
 *   description: "Indexes the files.",
 *   input: Schema.Struct({ files: Schema.Array(Schema.String) })
 * }).pipe(
 *   Tool.handle(({ files }) =>
 *     Effect.gen(function*() {
 *       for (const [i, file] of files.entries()) {
 *         yield* Progress.report({ progress: i + 1, total: files.length, message: `indexed ${file}` })
 *       }
 *       return `indexed ${files.length} files`
 *     })
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * One progress report. `progress` must grow from one report to the next
 * (reports that do not are dropped); `total` is optional, `message` is shown
 * to the user by clients of protocol 2025-03-26 and later.
 *
 * **Example**
 *
 * ```ts
 * import type * as Progress from "effect-mcp-runtime/Progress"
 *
 * const update: Progress.Update = { progress: 40, total: 100, message: "40%" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Update {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * The progress service of the current request.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { Progress } from "effect-mcp-runtime/Progress"
 *
 * const wanted = Effect.map(Effect.service(Progress), (progress) => progress.enabled)
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Progress extends Context.Service<
  Progress,
  {
    /** Whether the client asked for progress (the request carried a `progressToken`). */
    readonly enabled: boolean
    readonly report: (update: Update) => Effect.Effect<void>
  }
>()("effect-mcp-runtime/Progress") {}

/**
 * Reports progress of the current request (a no-op when the client did not
 * ask for progress).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Progress from "effect-mcp-runtime/Progress"
 *
 * const halfway = Progress.report({ progress: 1, total: 2, message: "halfway" })
 * ```
 *
 * @category accessors
 * @since 0.1.0
 */
export const report = (update: Update): Effect.Effect<void, never, Progress> =>
  Effect.flatMap(Effect.service(Progress), (progress) => progress.report(update))

/**
 * A `Progress` that reports nothing, for handlers run outside a server.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Progress from "effect-mcp-runtime/Progress"
 *
 * const silent = Effect.provideService(Progress.report({ progress: 1 }), Progress.Progress, Progress.disabled)
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const disabled: Progress["Service"] = Progress.of({ enabled: false, report: () => Effect.void })
