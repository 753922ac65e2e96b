/**
 * The `code` capability: code mode. Agents send code that calls tools as
 * `await mcp.<namespace>.<tool>(…)`; it is checked before it runs (every call
 * found by static analysis, only those bound), then run in a fresh QuickJS
 * isolate where each call goes through the whole tool pipeline. Learned
 * capabilities are saved snippets, callable like tools. See
 * `docs/capabilities/code.md`.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Capability from "../../src/Capability.ts"
import { Kernel } from "../../src/Kernel.ts"
import { Sandbox } from "../../src/Sandbox.ts"
import * as Tool from "../../src/Tool.ts"
import { deleteTool } from "./delete.ts"
import * as Engine from "./engine.ts"
import { type Code, learnedToolOf } from "./learned.ts"
import { listTool } from "./list.ts"
import { runTool } from "./run.ts"
import { saveTool } from "./save.ts"
import { CodeSettings } from "./settings.ts"
import { showTool } from "./show.ts"
import { type Learned, LearnedStore } from "./store.ts"
import { cachedDeclarations, typesResource, typesTool, typesUri } from "./types.ts"

/**
 * The code capability: `code_run`, `code_types`, `code_save`, `code_list`,
 * `code_show`, `code_delete`, and the resource `code://types.d.ts`; the
 * learned capabilities in its store are published when it starts. It needs a
 * `Sandbox` (the binary's: `layers/QuickJsSandbox.ts`) and a `LearnedStore`.
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import { CodeCapability } from "./capabilities/code/index.ts"
 * import * as CodeStore from "./capabilities/code/store.ts"
 * import * as QuickJsSandbox from "./layers/QuickJsSandbox.ts"
 *
 * const Code = CodeCapability.pipe(Layer.provide([QuickJsSandbox.layer, CodeStore.memory]))
 * ```
 *
 * @category capabilities
 * @since 0.3.0
 */
export const CodeCapability = Capability.make(
  {
    id: Engine.codeId,
    description: "Code mode: run code that calls tools as mcp.<namespace>.<tool>(), and learned capabilities",
    version: "0.3.0"
  },
  Effect.gen(function* () {
    const kernel = yield* Kernel
    const sandbox = yield* Sandbox
    const store = yield* LearnedStore
    const settings = yield* CodeSettings
    const learned = new Map<string, Learned>()
    let version = 0
    const changed = () => {
      version += 1
      PubSub.publishUnsafe(kernel.updates, typesUri)
    }
    const registry: Engine.Registry = { kernel, learned: () => learned }
    const base = { kernel, sandbox, store, settings, registry, version: () => version }
    const register = (entry: Learned) => kernel.registerDynamic(learnedToolOf(base, entry))
    const publish = (entry: Learned): Effect.Effect<string, Tool.ToolError> =>
      Effect.gen(function* () {
        const tool = Engine.learnedTool(entry.name)
        const previous = learned.get(entry.name)
        if (previous !== undefined) yield* kernel.unregisterDynamic(tool)
        learned.set(entry.name, entry)
        const registered = yield* register(entry).pipe(
          Effect.catch((error) =>
            // The one it was to replace stays published.
            Effect.andThen(
              previous === undefined
                ? Effect.sync(() => learned.delete(entry.name))
                : Effect.andThen(
                    Effect.sync(() => learned.set(entry.name, previous)),
                    Effect.ignore(register(previous))
                  ),
              Effect.fail(
                new Tool.ToolError({
                  message: `${entry.name} cannot be published: ${error.message}`,
                  code: "not_published",
                  suggestion: "Save it under another name."
                })
              )
            )
          )
        )
        changed()
        return registered
      })
    const withdraw = (name: string): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        if (!learned.delete(name)) return Effect.succeed(false)
        changed()
        return kernel.unregisterDynamic(Engine.learnedTool(name))
      })
    const code: Code = { ...base, publish, withdraw }

    // The learned capabilities of the store, published now; one that cannot be is logged and skipped.
    const saved = yield* store.list.pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning("cannot read the learned capabilities", { error: error.message }), [])
      )
    )
    for (const entry of saved) {
      yield* publish(entry).pipe(
        Effect.catch((error) => Effect.logWarning("learned capability not published", { error: error.message }))
      )
    }
    // Any change of the tools (an upstream's list, a dynamic registration) changes the bindings.
    const subscription = yield* PubSub.subscribe(kernel.changes)
    yield* PubSub.take(subscription).pipe(
      Effect.flatMap((change) => Effect.sync(() => (change === "tools" ? changed() : undefined))),
      Effect.forever,
      Effect.forkScoped
    )

    const all = cachedDeclarations(code)
    return {
      tools: [runTool(code), typesTool(code, all), saveTool(code), listTool(code), showTool(code), deleteTool(code)],
      resources: [typesResource(all)]
    }
  })
)

export {
  /**
   * The code capability's settings: `CodeSettings`, `defaultCodeSettings`,
   * `CodeSettingsSchema`, `CodeSettingsShape`.
   *
   * @since 0.3.0
   */
  CodeSettings
} from "./settings.ts"
export { type CodeSettingsShape, CodeSettingsSchema, defaultCodeSettings } from "./settings.ts"
export {
  /**
   * The store of learned capabilities (`LearnedStore`), its layers
   * (`directory`, `memory`) and its models.
   *
   * @since 0.3.0
   */
  LearnedStore
} from "./store.ts"
export { directory, type Learned, memory, namePattern, StoreError } from "./store.ts"
