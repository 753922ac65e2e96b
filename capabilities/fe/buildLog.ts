/**
 * The resource template `fe://build/{id}`: the whole output of one
 * `fe_verify` step (the `log` of the step in its result), from the fe
 * capability's own bounded store (`verify/logs.ts`) — readable whether or
 * not the `exec` capability is enabled.
 *
 * @since 0.5.0
 */
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Resource from "../../src/Resource.ts"
import { buildLogUri, FeBuildLogs, maxRuns } from "./verify/logs.ts"

const pageSize = 50

/**
 * The `build_log` resource template, published as `fe_build_log`:
 * `fe://build/{id}` reads the output of one step of a recent `fe_verify`
 * run (or of the checks `fe_batch` runs) as `text/plain`. Only the last
 * runs are kept; an unknown or dropped id is "resource not found" (−32002).
 * `resources/list` lists the kept logs, newest run first, 50 a page, and
 * ids complete from them.
 *
 * **Example**
 *
 * ```ts
 * import { buildLog } from "./capabilities/fe/buildLog.ts"
 *
 * buildLog.resource.name // => "build_log"
 * ```
 *
 * @category constants
 * @since 0.5.0
 */
export const buildLog = Resource.template("build_log", {
  uriTemplate: "fe://build/{id}",
  title: "fe_verify step log",
  description:
    "The whole output of one fe_verify step (the log field of a step in its result): the step, the tool and the " +
    "outcome, then each command the step ran with its stdout and stderr (and the test runner's JSON report). Only " +
    `the last ${maxRuns} runs are kept.`,
  mimeType: "text/plain",
  params: Schema.Struct({
    id: Schema.String.annotate({ description: "The log's id: <run>-<step>, as in the step's log URI" })
  })
}).pipe(
  Resource.handle(({ id }) =>
    Effect.flatMap(Effect.service(FeBuildLogs), (logs) => {
      const log = logs.get(id)
      return log === undefined
        ? Effect.fail(
            new Resource.NotFound({
              message:
                `No fe_verify step log "${id}": the id is wrong, or the log was dropped to make room for newer runs ` +
                `(the last ${maxRuns} are kept), or the server restarted. Call fe_verify again for a fresh log; ` +
                "resources/list lists the logs kept."
            })
          )
        : Effect.succeed(log.text)
    })
  ),
  Resource.list((cursor) =>
    Effect.map(Effect.service(FeBuildLogs), (logs): Resource.Listing => {
      const all = logs.list()
      const start = cursor === undefined ? 0 : all.findIndex((log) => log.id === cursor) + 1
      // The cursor's log was dropped meanwhile, with every older one: nothing is left to list.
      if (cursor !== undefined && start === 0) return { resources: [] }
      const page = all.slice(start, start + pageSize)
      const resources = page.map((log): Resource.Listed => ({
        uri: buildLogUri(log.id),
        name: log.id,
        title: log.title,
        description: `${log.description} Started ${DateTime.formatIso(DateTime.makeUnsafe(log.startedAt))}.`,
        mimeType: "text/plain"
      }))
      return start + pageSize < all.length ? { resources, nextCursor: page[page.length - 1]!.id } : { resources }
    })
  ),
  Resource.completions({
    id: (value) =>
      Effect.map(Effect.service(FeBuildLogs), (logs) =>
        logs
          .list()
          .map((log) => log.id)
          .filter((id) => id.startsWith(value))
      )
  })
)
