/**
 * Roots: the directories or URIs the client says the server may work in
 * (`roots/list`), and word of their changes
 * (`notifications/roots/list_changed`).
 *
 * The client's declared capabilities are checked first: a client without
 * `roots` fails at once with `ClientCapabilityMissing`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Roots from "effect-mcp-runtime/Roots"
 *
 * const firstRoot = Effect.map(Roots.list, (roots) => roots[0]?.uri ?? "none")
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Client, ClientCapabilityMissing, ClientRequestFailed, type ClientError } from "./Client.ts"

/**
 * A root: a URI (usually `file://`) and an optional display name.
 *
 * **Example**
 *
 * ```ts
 * import * as Schema from "effect/Schema"
 * import { Root } from "effect-mcp-runtime/Roots"
 *
 * Schema.decodeUnknownSync(Root)({ uri: "file:///home/ada/project", name: "project" })
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const Root = Schema.Struct({ uri: Schema.String, name: Schema.optionalKey(Schema.String) })

/**
 * A root, decoded.
 *
 * **Example**
 *
 * ```ts
 * import type * as Roots from "effect-mcp-runtime/Roots"
 *
 * const root: Roots.Root = { uri: "file:///srv/repo" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Root = typeof Root.Type

const decodeRoots = Schema.decodeUnknownExit(Schema.Struct({ roots: Schema.Array(Root) }))

/**
 * The client's roots. Fails with `ClientCapabilityMissing` when the client
 * did not declare `roots`.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Roots from "effect-mcp-runtime/Roots"
 *
 * const uris = Effect.map(Roots.list, (roots) => roots.map((root) => root.uri))
 * ```
 *
 * @category requests
 * @since 0.1.0
 */
export const list: Effect.Effect<ReadonlyArray<Root>, ClientError, Client> = Effect.flatMap(
  Effect.service(Client),
  (client): Effect.Effect<ReadonlyArray<Root>, ClientError> => {
    const roots = client.capabilities().roots
    if (typeof roots !== "object" || roots === null) {
      return Effect.fail(
        new ClientCapabilityMissing({
          capability: "roots",
          message: "The client did not declare the roots capability: it cannot tell which directories to work in.",
          suggestion: "Work in the server's own root, or take the directory as an argument."
        })
      )
    }
    return Effect.flatMap(client.request("roots/list", {}), (result) => {
      const decoded = decodeRoots(result)
      return Exit.isSuccess(decoded)
        ? Effect.succeed(decoded.value.roots)
        : Effect.fail(
            new ClientRequestFailed({
              method: "roots/list",
              message: "The client's answer is not a valid roots/list result (roots: [{ uri, name? }])."
            })
          )
    })
  }
)

/**
 * One element each time the client says its roots changed. Only clients
 * that declared `roots.listChanged` send it: for any other client the stream
 * ends at once instead of waiting for what will never come. The stream ends
 * when the connection closes.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
 * import * as Roots from "effect-mcp-runtime/Roots"
 *
 * const watch = Roots.changes.pipe(Stream.mapEffect(() => Roots.list), Stream.take(1), Stream.runCollect)
 * ```
 *
 * @category streams
 * @since 0.1.0
 */
export const changes: Stream.Stream<void, never, Client> = Stream.unwrap(
  Effect.map(Effect.service(Client), (client) => {
    const roots = client.capabilities().roots as { readonly listChanged?: unknown } | null | undefined
    return typeof roots === "object" && roots !== null && roots.listChanged === true
      ? client.rootsChanged
      : Stream.empty
  })
)
