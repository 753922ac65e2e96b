/**
 * Names in the settings that match nothing the server publishes: a `Policy`
 * key (`tools["<public name>"]`, `capabilities["<id>"]`), a gate rule's
 * `names` pattern, a confirmation pre-approval. Such a setting is silently
 * without effect — a per-tool timeout set under a bare name (`slow` rather
 * than `notes_slow`) never applies — so the server logs a warning per unknown
 * key at start-up, naming the nearest public name, and `doctor` fails a
 * check for them.
 *
 * The names checked against are those registered when the check runs (the
 * kernel's static capabilities, with their aliases). Run-time (`app_`) names
 * are registered later and cannot be known then: a key that starts with
 * `app_` (or, for a glob, one that could match such a name) is never
 * reported, nor is the capability id `app`. An upstream server's names are
 * what it listed at start-up; they may change while the server runs.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { Confirmation } from "../Confirmation.ts"
import { Gate, globToRegExp } from "../Gate.ts"
import { dynamicId, type Kernel } from "../Kernel.ts"
import type { PolicyShape } from "../Policy.ts"
import { editDistance } from "./editDistance.ts"

/** What the server publishes, by capability: public names of tools, prompts, resources (and templates). */
export interface Published {
  readonly capabilities: ReadonlyArray<{
    readonly id: string
    readonly tools: ReadonlyArray<string>
    readonly prompts: ReadonlyArray<string>
    readonly resources: ReadonlyArray<string>
    /** An upstream server's capability: its names may change while the server runs. */
    readonly foreignNames?: boolean | undefined
  }>
}

/** The named settings to check. */
export interface Keys {
  /** `Policy` `tools` keys: public names of tools (and of prompts and resources, which run under the policy too). */
  readonly policyTools?: ReadonlyArray<string> | undefined
  /** `Policy` `capabilities` keys: capability ids. */
  readonly policyCapabilities?: ReadonlyArray<string> | undefined
  /** Gate rules: their `names` globs and, when restricted, the methods they apply to. */
  readonly gateRules?:
    | ReadonlyArray<{
        readonly names: ReadonlyArray<string>
        readonly methods?: ReadonlyArray<"tools/call" | "resources/read" | "prompts/get"> | undefined
      }>
    | undefined
  /** Confirmation pre-approvals: public tool-name globs. */
  readonly preApproved?: ReadonlyArray<string> | undefined
}

/** Where an unknown key was found. */
export type Setting =
  | { readonly _tag: "PolicyTool" }
  | { readonly _tag: "PolicyCapability" }
  | { readonly _tag: "GateRule"; readonly rule: number }
  | { readonly _tag: "PreApproval" }

/** A key that matches no published name, and the nearest one (when anything is published). */
export interface UnknownKey {
  readonly setting: Setting
  readonly key: string
  readonly nearest: string | undefined
  /** The key falls under an upstream server's prefix: that server may publish it later. */
  readonly upstream: string | undefined
}

const dynamicPrefix = `${dynamicId}_`

const isGlob = (pattern: string): boolean => pattern.includes("*") || pattern.includes("?")

/**
 * Whether a glob can match some name that starts with `app_` (a run-time
 * name, unknown at start-up): the glob is run over the prefix, and any state
 * left can be completed by a suffix.
 */
export const mayMatchDynamic = (glob: string): boolean => {
  let states = new Set([0])
  const close = (set: Set<number>) => {
    // A `*` may match nothing: its state also stands at the next position.
    for (const state of [...set]) {
      let at = state
      while (glob[at] === "*") set.add(++at)
    }
    return set
  }
  states = close(states)
  for (const c of dynamicPrefix) {
    const next = new Set<number>()
    for (const state of states) {
      const g = glob[state]
      if (g === undefined) continue
      if (g === "*") next.add(state)
      else if (g === "?" || g === c) next.add(state + 1)
    }
    states = close(next)
    if (states.size === 0) return false
  }
  return true
}

/**
 * The candidate nearest to `key`: a name whose bare part (after its
 * capability's `<id>_`) is the key itself first — the usual mistake — else
 * the smallest edit distance, ties alphabetically.
 */
export const nearest = (key: string, candidates: ReadonlyArray<string>): string | undefined => {
  const bare = candidates.filter((name) => name.endsWith(`_${key}`)).sort()
  if (bare.length > 0) return bare[0]
  let best: string | undefined
  let bestScore = Infinity
  const wanted = key.toLowerCase()
  for (const name of candidates) {
    const score = editDistance(wanted, name.toLowerCase())
    if (score < bestScore || (score === bestScore && best !== undefined && name < best)) {
      best = name
      bestScore = score
    }
  }
  return best
}

/** Every key of `keys` that matches nothing `published` holds, in the order given. */
export const find = (published: Published, keys: Keys): Array<UnknownKey> => {
  const caps = published.capabilities
  const tools = caps.flatMap((c) => c.tools)
  const prompts = caps.flatMap((c) => c.prompts)
  const resources = caps.flatMap((c) => c.resources)
  const ids = caps.map((c) => c.id)
  const foreign = caps.filter((c) => c.foreignNames === true).map((c) => c.id)
  const upstreamOf = (key: string) => foreign.find((id) => key.startsWith(`${id}_`))
  const found: Array<UnknownKey> = []
  const report = (setting: Setting, key: string, candidates: ReadonlyArray<string>) =>
    found.push({ setting, key, nearest: nearest(key, candidates), upstream: upstreamOf(key) })
  // A glob is compared with names and with each capability's `<id>_*`.
  const globCandidates = (names: ReadonlyArray<string>) => [...names, ...ids.map((id) => `${id}_*`)]

  // A prompt or resource runs under the policy too, by its public name.
  const limited = [...tools, ...prompts, ...resources]
  const limitedSet = new Set(limited)
  for (const key of keys.policyTools ?? []) {
    if (!limitedSet.has(key) && !key.startsWith(dynamicPrefix)) report({ _tag: "PolicyTool" }, key, limited)
  }
  const idSet = new Set(ids)
  for (const key of keys.policyCapabilities ?? []) {
    if (!idSet.has(key) && key !== dynamicId) report({ _tag: "PolicyCapability" }, key, ids)
  }
  const matchesNothing = (pattern: string, names: ReadonlyArray<string>): boolean => {
    if (pattern.startsWith(dynamicPrefix) || mayMatchDynamic(pattern)) return false
    if (!isGlob(pattern)) return !names.includes(pattern)
    const regExp = globToRegExp(pattern)
    return !names.some((name) => regExp.test(name))
  }
  for (const [index, rule] of (keys.gateRules ?? []).entries()) {
    const methods = rule.methods ?? ["tools/call", "resources/read", "prompts/get"]
    const names = [
      ...(methods.includes("tools/call") ? tools : []),
      ...(methods.includes("prompts/get") ? prompts : []),
      ...(methods.includes("resources/read") ? resources : [])
    ]
    for (const pattern of rule.names) {
      if (matchesNothing(pattern, names)) {
        report({ _tag: "GateRule", rule: index }, pattern, isGlob(pattern) ? globCandidates(names) : names)
      }
    }
  }
  for (const pattern of keys.preApproved ?? []) {
    if (matchesNothing(pattern, tools)) {
      report({ _tag: "PreApproval" }, pattern, isGlob(pattern) ? globCandidates(tools) : tools)
    }
  }
  return found
}

/** What the key is, in words: `Policy tools key "slow"`. */
const subject = (unknown: UnknownKey): string => {
  const key = JSON.stringify(unknown.key)
  switch (unknown.setting._tag) {
    case "PolicyTool":
      return `Policy tools key ${key} (limits.tools in the configuration file)`
    case "PolicyCapability":
      return `Policy capabilities key ${key} (limits.capabilities in the configuration file)`
    case "GateRule":
      return `gate rule ${unknown.setting.rule + 1}'s name ${key}`
    case "PreApproval":
      return `confirmation pre-approval ${key}`
  }
}

/** What the key should have named, in words. */
const what = (setting: Setting): string => {
  switch (setting._tag) {
    case "PolicyTool":
      return "no published tool, prompt or resource has this public name (<capability>_<name>)"
    case "PolicyCapability":
      return "no capability has this id"
    case "GateRule":
      return "it matches no published tool, prompt or resource"
    case "PreApproval":
      return "it matches no published tool"
  }
}

/** The rest of the sentence: why it matters and the nearest name. */
const advice = (unknown: UnknownKey): string =>
  `${what(unknown.setting)}, so it has no effect` +
  (unknown.nearest === undefined ? "" : `; did you mean ${JSON.stringify(unknown.nearest)}?`) +
  (unknown.upstream === undefined
    ? ""
    : ` (${unknown.upstream} is an upstream server: it may publish the name once it lists it)`)

/**
 * One line for an unknown key, as the start-up warning says it.
 *
 * **Example**
 *
 * ```ts
 * message({ setting: { _tag: "PolicyTool" }, key: "slow", nearest: "notes_slow", upstream: undefined })
 * // => 'Policy tools key "slow" (limits.tools in the configuration file): no published tool, prompt or resource …'
 * ```
 */
export const message = (unknown: UnknownKey): string => `${subject(unknown)}: ${advice(unknown)}`

/**
 * Where the key is in the configuration file, as `doctor` names it:
 * `$.limits.tools["slow"]`, `$.gate.rules[0].names`.
 */
export const configPath = (unknown: UnknownKey): string => {
  const key = JSON.stringify(unknown.key)
  switch (unknown.setting._tag) {
    case "PolicyTool":
      return `$.limits.tools[${key}]`
    case "PolicyCapability":
      return `$.limits.capabilities[${key}]`
    case "GateRule":
      return `$.gate.rules[${unknown.setting.rule}].names: ${key}`
    case "PreApproval":
      return `$.confirmation.preApproved: ${key}`
  }
}

/**
 * One line for an unknown key, as `doctor` lists it: where it is in the
 * configuration file, then the advice.
 */
export const configMessage = (unknown: UnknownKey): string => `${configPath(unknown)}: ${advice(unknown)}`

/**
 * Logs a warning per unknown key: the message, with the key, the nearest
 * name and the setting as annotations of the log line.
 */
export const warn = (published: Published, keys: Keys): Effect.Effect<void> =>
  Effect.suspend(() =>
    Effect.forEach(
      find(published, keys),
      (unknown) =>
        Effect.logWarning(message(unknown), {
          key: unknown.key,
          nearest: unknown.nearest ?? null,
          setting: unknown.setting._tag
        }),
      { discard: true }
    )
  )

/**
 * The start-up check of a server: the policy's keys, the gate's rules (when
 * the `Gate` in context has them) and the `Confirmation` pre-approvals,
 * against what the kernel holds now. A warning per unknown key.
 */
export const warnAtStart = (kernel: Kernel["Service"], policy: PolicyShape): Effect.Effect<void> =>
  Effect.gen(function* () {
    const gate = yield* Effect.serviceOption(Gate)
    const confirmation = yield* Confirmation
    yield* warn(
      { capabilities: kernel.capabilities() },
      {
        policyTools: Object.keys(policy.tools),
        policyCapabilities: Object.keys(policy.capabilities),
        gateRules: gate._tag === "Some" ? gate.value.rules : undefined,
        preApproved: confirmation.preApproved
      }
    )
  })
