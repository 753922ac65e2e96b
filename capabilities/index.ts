/**
 * The capabilities bundled with the `mcp-runtime` binary, by id. The binary's
 * entry point composes them with the host services it chooses (on Node: the
 * Node command runner and workspace, in `src/cli/compose.ts`); the server
 * core imports none of them, and none of them picks an implementation.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CommandRunner } from "../src/CommandRunner.ts"
import type * as Kernel from "../src/Kernel.ts"
import type { Sandbox } from "../src/Sandbox.ts"
import type { Workspace, WorkspaceError } from "../src/Workspace.ts"
import { SocketError } from "../src/internal/daemonSocket.ts"
import { BridgeListener } from "../src/internal/bridgeProtocol.ts"
import { BridgeCapability } from "./bridge/index.ts"
import { CodeCapability } from "./code/index.ts"
import { CodeSettings, type CodeSettingsShape } from "./code/settings.ts"
import type { LearnedStore } from "./code/store.ts"
import { aliases as conformanceAliases, ConformanceCapability } from "./conformance/index.ts"
import { ExecCapability } from "./exec/index.ts"
import { ExecSettings, type ExecSettingsShape } from "./exec/settings.ts"
import { FeCapability } from "./fe/index.ts"
import { FeSettings, type FeSettingsShape } from "./fe/settings.ts"
import { SkillsCapability, SkillSources } from "./skills/index.ts"
import { SkillsSettings, type SkillsSettingsShape } from "./skills/settings.ts"
import type { OpenDirectory } from "./skills/sources.ts"
import { SystemCapability } from "./system/index.ts"
import * as Upstream from "./upstream/index.ts"
import type { UpstreamIdTaken } from "./upstream/errors.ts"
import { WorkspaceCapability } from "./workspace/index.ts"

/**
 * The settings the bundled capabilities take from the binary's
 * configuration.
 *
 * **Example**
 *
 * ```ts
 * import type { BundleSettings } from "./capabilities/index.ts"
 *
 * const settings: BundleSettings = { exec: undefined }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface BundleSettings {
  /** The exec capability's settings; undefined keeps its defaults. */
  readonly exec: ExecSettingsShape | undefined
  /** The fe capability's settings; undefined (or absent) keeps its defaults. */
  readonly fe?: FeSettingsShape | undefined
  /** The skills capability's settings; undefined (or absent) keeps its defaults. */
  readonly skills?: SkillsSettingsShape | undefined
  /** The code capability's settings; undefined (or absent) keeps its defaults. Since 0.3.0. */
  readonly code?: CodeSettingsShape | undefined
}

/**
 * The host services the bundled capabilities share, as layers the binary
 * chooses: one command runner (every run's output in one store) and the
 * workspace of the root.
 *
 * **Example**
 *
 * ```ts
 * import type { BundleServices } from "./capabilities/index.ts"
 * import * as NodeCommandRunner from "./layers/NodeCommandRunner.ts"
 * import * as NodeWorkspace from "./layers/NodeWorkspace.ts"
 *
 * const services: BundleServices = {
 *   commandRunner: NodeCommandRunner.layer(),
 *   workspace: NodeWorkspace.layer({ root: "/srv/project" })
 * }
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export interface BundleServices {
  readonly commandRunner: Layer.Layer<CommandRunner>
  readonly workspace: Layer.Layer<Workspace, WorkspaceError>
  /** Opens a workspace rooted at a directory outside the root (the skills capability's configured directories). */
  readonly openWorkspace?: OpenDirectory | undefined
  /** The isolate code mode runs code in (on Node: `layers/QuickJsSandbox.ts`). Since 0.3.0. */
  readonly sandbox: Layer.Layer<Sandbox>
  /** Where code mode keeps learned capabilities (the binary's: a directory under the state directory). Since 0.3.0. */
  readonly learnedStore: Layer.Layer<LearnedStore>
  /**
   * The bridge's socket, for the `bridge` capability (`layers/BridgeServer.ts`; the binary's `serve --bridge`).
   * Since 0.5.0.
   */
  readonly bridge?: Layer.Layer<BridgeListener, SocketError> | undefined
}

type Bundle = (
  settings: BundleSettings,
  services: BundleServices
) => Layer.Layer<never, Kernel.KernelError | WorkspaceError | SocketError, Kernel.Kernel>

/**
 * Every bundled capability, by id: how to build it from the settings and the
 * host services the binary shares between capabilities (one CommandRunner,
 * so every run's output is in one store).
 *
 * This module is not in the package `exports`; the binary imports it by path.
 *
 * **Example**
 *
 * ```ts
 * import { bundled } from "./capabilities/index.ts"
 *
 * Object.keys(bundled) // => ["system", "workspace", "exec", "fe", "skills", "code", "conformance", "bridge"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const bundled = {
  system: () => SystemCapability,
  // The files of the server's root (`--root`), through the workspace the binary chose.
  workspace: (_settings, services) => WorkspaceCapability.pipe(Layer.provide(services.workspace)),
  // Commands from the allowlist, run in the root by the shared CommandRunner.
  exec: (settings, services) =>
    ExecCapability.pipe(
      Layer.provide(services.commandRunner),
      Layer.provide(settings.exec === undefined ? Layer.empty : Layer.succeed(ExecSettings, settings.exec))
    ),
  // The TypeScript/JavaScript project at the root: skeleton, verify (with the project's own tools), doctor.
  fe: (settings, services) =>
    FeCapability.pipe(
      Layer.provide(services.commandRunner),
      Layer.provide(services.workspace),
      Layer.provide(settings.fe === undefined ? Layer.empty : Layer.succeed(FeSettings, settings.fe))
    ),
  // Agent Skills from the root's conventional locations and configured directories (SEP-2640).
  skills: (settings, services) =>
    SkillsCapability.pipe(
      Layer.provide(SkillSources.layer({ open: services.openWorkspace })),
      Layer.provide(services.workspace),
      Layer.provide(settings.skills === undefined ? Layer.empty : Layer.succeed(SkillsSettings, settings.skills))
    ),
  // Code mode: code that calls tools as mcp.<namespace>.<tool>() in a fresh isolate; learned capabilities.
  code: (settings, services) =>
    CodeCapability.pipe(
      Layer.provide([services.sandbox, services.learnedStore]),
      Layer.provide(settings.code === undefined ? Layer.empty : Layer.succeed(CodeSettings, settings.code))
    ),
  conformance: () => ConformanceCapability,
  // Tools and resources of running applications, registered at run time through a local socket (`serve --bridge`).
  bridge: (_settings, services) =>
    // Built for its effects (the capability registered, the socket served); the service the tools read stays inside.
    Layer.provide(
      Layer.empty,
      BridgeCapability.pipe(
        Layer.provide(
          services.bridge ??
            Layer.effect(
              BridgeListener,
              Effect.fail(
                new SocketError({
                  code: "ENOBRIDGE",
                  message: "The bridge capability needs the bridge's socket: start the server with --bridge"
                })
              )
            )
        )
      )
    )
} as const satisfies Record<string, Bundle>

/**
 * The id of a bundled capability.
 *
 * **Example**
 *
 * ```ts
 * import { bundled, type BundledId } from "./capabilities/index.ts"
 *
 * const isBundled = (id: string): id is BundledId => Object.hasOwn(bundled, id)
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type BundledId = keyof typeof bundled

/**
 * The capabilities `mcp-runtime serve` enables when neither `--capabilities`
 * nor the configuration file says. The conformance fixtures (`conformance`:
 * capabilities `test`, `json`, `tasks` and `skills`) are only for running
 * the official suite, and `skills` (the root's Agent Skills) is opt-in, so
 * they are left out.
 *
 * **Example**
 *
 * ```ts
 * import { defaults } from "./capabilities/index.ts"
 *
 * defaults // => ["system", "workspace", "exec", "fe", "code"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: ReadonlyArray<BundledId> = ["system", "workspace", "exec", "fe", "code"]

/**
 * The public names the kernel publishes some tools under, for the given
 * bundled capabilities: the conformance fixtures' unprefixed names (see
 * `docs/adr/0004-conformance-fixture-names.md`); none for the others.
 *
 * **Example**
 *
 * ```ts
 * import { aliasesFor } from "./capabilities/index.ts"
 *
 * aliasesFor(["system"]) // => {}
 * aliasesFor(["conformance"]).greet // => "tasks_greet"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const aliasesFor = (ids: ReadonlyArray<BundledId>): Readonly<Record<string, string>> =>
  ids.includes("conformance") ? conformanceAliases : {}

/**
 * The layer of the given bundled capabilities, built with the settings and
 * the host services (one command runner, one workspace, shared).
 *
 * **Example**
 *
 * ```ts
 * import { layer } from "./capabilities/index.ts"
 * import * as NodeCommandRunner from "./layers/NodeCommandRunner.ts"
 * import * as NodeWorkspace from "./layers/NodeWorkspace.ts"
 *
 * const Capabilities = layer(["system", "workspace"], { exec: undefined }, {
 *   commandRunner: NodeCommandRunner.layer(),
 *   workspace: NodeWorkspace.layer({ root: "/srv/project" })
 * })
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (
  ids: ReadonlyArray<BundledId>,
  settings: BundleSettings,
  services: BundleServices
): Layer.Layer<never, Kernel.KernelError | WorkspaceError | SocketError, Kernel.Kernel> => {
  return ids.reduce((acc: Layer.Layer<never, Kernel.KernelError | WorkspaceError | SocketError, Kernel.Kernel>, id) => {
    const one: Layer.Layer<never, Kernel.KernelError | WorkspaceError | SocketError, Kernel.Kernel> = bundled[id](
      settings,
      services
    )
    return Layer.merge(acc, one)
  }, Layer.empty)
}

/**
 * The capability ids an upstream server may not take: every bundled
 * capability's id, and the ids of the capabilities the conformance fixtures
 * register (`test`, `json`, `tasks`), whether enabled or not, so that
 * enabling one later never clashes with a configured upstream.
 *
 * **Example**
 *
 * ```ts
 * import { reservedIds } from "./capabilities/index.ts"
 *
 * reservedIds().includes("system") // => true
 * ```
 *
 * @category constants
 * @since 0.3.0
 */
export const reservedIds = (): ReadonlyArray<string> => [...Object.keys(bundled), "test", "json", "tasks"]

/**
 * The layer of the configured upstream MCP servers (`upstreams` in the
 * configuration file): one capability per upstream, under its id, and the
 * `Upstreams` status service. An id of a bundled capability
 * ({@link reservedIds}) stops the start with `UpstreamIdTaken`. `env` is
 * added to the environment of every stdio upstream (the binary passes the
 * nesting depth, `MCP_RUNTIME_UPSTREAM_DEPTH`).
 *
 * **Example**
 *
 * ```ts
 * import { upstreams } from "./capabilities/index.ts"
 *
 * const Everything = upstreams({ everything: { command: "mcp-server-everything" } })
 * ```
 *
 * @category layers
 * @since 0.3.0
 */
export const upstreams = (
  specs: Readonly<Record<string, Upstream.UpstreamSpec>>,
  env: Readonly<Record<string, string>> = {}
): Layer.Layer<Upstream.Upstreams, Kernel.KernelError | UpstreamIdTaken, Kernel.Kernel> =>
  Upstream.layer(specs, { reservedIds: reservedIds(), env })
