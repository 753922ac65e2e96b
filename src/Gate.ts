/**
 * The authorization gate: consulted before every `tools/call`,
 * `resources/read` and `prompts/get`, it allows or denies the call by the
 * public name of what is called and, where the transport identifies the
 * caller, by principal.
 *
 * Without a `Gate` in context everything is allowed (the server is as open
 * as the capabilities it was given). {@link fromRules} builds a gate from an
 * ordered list of rules: the first rule that matches decides; when none
 * does, `defaultEffect` does (`"allow"` unless set).
 *
 * **Example**
 *
 * ```ts
 * import * as Layer from "effect/Layer"
 * import * as Gate from "effect-mcp-runtime/Gate"
 *
 * const ReadOnly = Layer.succeed(
 *   Gate.Gate,
 *   Gate.fromRules({
 *     rules: [
 *       { effect: "deny", names: ["workspace_write", "workspace_apply_patch", "exec_*"] },
 *       { effect: "allow", names: ["*"] }
 *     ]
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The methods the gate is consulted for.
 *
 * **Example**
 *
 * ```ts
 * import type { GatedMethod } from "effect-mcp-runtime/Gate"
 *
 * const method: GatedMethod = "resources/read"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type GatedMethod = "tools/call" | "resources/read" | "prompts/get"

/**
 * What the gate is asked about.
 *
 * **Example**
 *
 * ```ts
 * import type { Access } from "effect-mcp-runtime/Gate"
 *
 * const access: Access = { method: "tools/call", name: "exec_run", principal: "alice" }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Access {
  readonly method: GatedMethod
  /** The public name of the tool, prompt, or resource (template) the URI resolved to. */
  readonly name: string
  /** The caller, when the transport identifies one. */
  readonly principal?: string | undefined
}

/**
 * A denied call. `rule` says which rule denied it (its index), or that the
 * default did.
 *
 * **Example**
 *
 * ```ts
 * import { Denied } from "effect-mcp-runtime/Gate"
 *
 * new Denied({ name: "exec_run", method: "tools/call", rule: "rule 1" }).message
 * // => "tools/call of exec_run is not allowed on this server (rule 1 of its gate)"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class Denied extends Schema.TaggedError<Denied>()("Denied", {
  name: Schema.String,
  method: Schema.String,
  rule: Schema.String
}) {
  override get message(): string {
    return `${this.method} of ${this.name} is not allowed on this server (${this.rule} of its gate)`
  }
}

/**
 * The gate service.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
 * import { Gate } from "effect-mcp-runtime/Gate"
 *
 * const AllowAll = Layer.succeed(Gate, Gate.of({ check: () => Effect.void }))
 * ```
 *
 * @category services
 * @since 0.1.0
 */
export class Gate extends Context.Service<
  Gate,
  {
    /** Succeeds when the call may go ahead, fails with `Denied` when it may not. */
    readonly check: (access: Access) => Effect.Effect<void, Denied>
    /**
     * The rules the gate decides by, when it has any ({@link fromRules} sets
     * them): the server reads them at start-up and logs a warning for each
     * `names` pattern that matches no published name (such a rule never
     * applies). A gate of your own may leave it out. Since 0.5.0.
     */
    readonly rules?: ReadonlyArray<Rule> | undefined
  }
>()("effect-mcp-runtime/Gate") {}

/**
 * One rule. `names` and `principals` are globs (`*` any run of characters,
 * `?` one character); a rule without `principals` matches every caller
 * (including an unidentified one), a rule without `methods` every gated
 * method. A `names` pattern that matches no published name (of a tool,
 * prompt or resource, as its `methods` allow) when the server starts is
 * reported in a warning with the nearest name; patterns that could match a
 * run-time (`app_`) name, registered later, are not.
 *
 * **Example**
 *
 * ```ts
 * import type { Rule } from "effect-mcp-runtime/Gate"
 *
 * const onlyOps: Rule = { effect: "deny", names: ["exec_*"], principals: ["*"], methods: ["tools/call"] }
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export interface Rule {
  readonly effect: "allow" | "deny"
  readonly names: ReadonlyArray<string>
  readonly principals?: ReadonlyArray<string> | undefined
  readonly methods?: ReadonlyArray<GatedMethod> | undefined
}

/**
 * Compiles a glob (`*`, `?`; everything else literal) to an anchored
 * regular expression.
 *
 * **Example**
 *
 * ```ts
 * import { globToRegExp } from "effect-mcp-runtime/Gate"
 *
 * globToRegExp("exec_*").test("exec_run") // => true
 * globToRegExp("exec_*").test("system_exec_run") // => false
 * ```
 *
 * @category matching
 * @since 0.1.0
 */
export const globToRegExp = (glob: string): RegExp =>
  new RegExp(
    `^${glob
      .split("")
      .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("")}$`,
    "s"
  )

/**
 * A gate from ordered rules: the first matching rule decides, else
 * `defaultEffect` (default `"allow"`).
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import * as Gate from "effect-mcp-runtime/Gate"
 *
 * const gate = Gate.fromRules({ rules: [{ effect: "allow", names: ["system_*"] }], defaultEffect: "deny" })
 * const denied = Effect.flip(gate.check({ method: "tools/call", name: "exec_run" })) // Denied ("the default")
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromRules = (options: {
  readonly rules: ReadonlyArray<Rule>
  readonly defaultEffect?: "allow" | "deny" | undefined
}): Gate["Service"] => {
  const compiled = options.rules.map((rule) => ({
    effect: rule.effect,
    names: rule.names.map(globToRegExp),
    principals: rule.principals?.map(globToRegExp),
    methods: rule.methods === undefined ? undefined : new Set(rule.methods)
  }))
  const fallback = options.defaultEffect ?? "allow"
  return Gate.of({
    rules: options.rules,
    check: (access) =>
      Effect.suspend(() => {
        for (let i = 0; i < compiled.length; i++) {
          const rule = compiled[i]!
          if (rule.methods !== undefined && !rule.methods.has(access.method)) continue
          if (!rule.names.some((name) => name.test(access.name))) continue
          if (rule.principals !== undefined) {
            const principal = access.principal
            if (principal === undefined || !rule.principals.some((p) => p.test(principal))) continue
          }
          return rule.effect === "allow"
            ? Effect.void
            : Effect.fail(new Denied({ name: access.name, method: access.method, rule: `rule ${i + 1}` }))
        }
        return fallback === "allow"
          ? Effect.void
          : Effect.fail(new Denied({ name: access.name, method: access.method, rule: "the default" }))
      })
  })
}
