/**
 * `mcp-runtime surface`: the public surface of a server — every tool,
 * resource, resource template and prompt exactly as a client lists them —
 * as a stable JSON document, and the locked-surface check: `--check FILE`
 * fails with a readable diff when the surface changed.
 *
 * @since 0.1.0
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { commonFlags, connectInProcess, loadSettings, noServeFlags, quietLogs } from "./compose.ts"
import type * as Settings from "./settings.ts"
import { UsageError } from "./settings.ts"

/**
 * The surface changed: `--check` found differences.
 *
 * **Example**
 *
 * ```ts
 * import { SurfaceChanged } from "./src/cli/surface.ts"
 *
 * new SurfaceChanged({ file: "surface.json", message: "…" })._tag // => "SurfaceChanged"
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class SurfaceChanged extends Schema.TaggedError<SurfaceChanged>()("SurfaceChanged", {
  file: Schema.String,
  message: Schema.String
}) {}

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

const byName = (a: { readonly name?: string }, b: { readonly name?: string }) =>
  (a.name ?? "") < (b.name ?? "") ? -1 : (a.name ?? "") > (b.name ?? "") ? 1 : 0

/**
 * The surface of the server the settings describe, as a stable document
 * (keys sorted, entries by name, two-space JSON with a final newline): the
 * server's capabilities and instructions, and every tool, static resource,
 * resource template and prompt as the client lists them (protocol
 * 2025-11-25). It is listed on an empty root with the audit log off, so the
 * files of the root (listed by `workspace://`) are not part of it.
 *
 * **Example**
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { surfaceOf } from "./src/cli/surface.ts"
 *
 * declare const settings: import("./src/cli/settings.ts").Settings
 * const text = Effect.scoped(surfaceOf(settings))
 * ```
 *
 * @category surface
 * @since 0.1.0
 */
export const surfaceOf = Effect.fnUntraced(function* (settings: Settings.Settings) {
  const emptyRoot = yield* Effect.acquireRelease(
    Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "mcp-runtime-surface-"))),
    (dir) => Effect.sync(() => NodeFs.rmSync(dir, { recursive: true, force: true }))
  )
  const isolated: Settings.Settings = {
    ...settings,
    root: emptyRoot,
    workspace: { ...settings.workspace, root: emptyRoot },
    audit: undefined,
    // Every tool the binary can publish, the experimental ones (`--experimental`) included: their schemas are part
    // of the surface too.
    experimental: true
  }
  const client = yield* connectInProcess(isolated)
  const init = client.initialized
  const has = (key: string) => init.capabilities?.[key] !== undefined
  const tools = has("tools") ? yield* client.listAll("tools/list", "tools") : []
  // Static resources only: the names the kernel registered (listed entries of templates are content, not surface).
  const registered = new Set(client.kernel.capabilities().flatMap((c) => c.resources))
  const resources = has("resources")
    ? (yield* client.listAll("resources/list", "resources")).filter((r) => registered.has(r.name))
    : []
  const templates = has("resources") ? yield* client.listAll("resources/templates/list", "resourceTemplates") : []
  const prompts = has("prompts") ? yield* client.listAll("prompts/list", "prompts") : []
  const document = {
    server: { capabilities: init.capabilities, instructions: init.instructions ?? null },
    capabilities: client.kernel
      .capabilities()
      .map((c) => ({ id: c.id, version: c.version, description: c.description }))
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
    tools: [...tools].sort(byName),
    resources: [...resources].sort(byName),
    resourceTemplates: [...templates].sort(byName),
    prompts: [...prompts].sort(byName)
  }
  return `${JSON.stringify(sortKeys(document), null, 2)}\n`
})

/**
 * A line diff of two texts in the unified style: `-` removed, `+` added,
 * `context` unchanged lines around each change, `@@ -a,b +c,d @@` headers.
 * Empty when the texts are equal.
 *
 * **Example**
 *
 * ```ts
 * import { lineDiff } from "./src/cli/surface.ts"
 *
 * lineDiff("a\nb\nc\n", "a\nB\nc\n", 1)
 * // => "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
 * ```
 *
 * @category surface
 * @since 0.1.0
 */
export const lineDiff = (before: string, after: string, context = 3): string => {
  const a = before.split("\n")
  const b = after.split("\n")
  if (a[a.length - 1] === "") a.pop()
  if (b[b.length - 1] === "") b.pop()
  // Common prefix and suffix first: surfaces change in a few places.
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  // Longest common subsequence of the middle (its size is that of the change).
  const n = midA.length
  const m = midB.length
  const lcs: Array<Uint32Array> = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = midA[i] === midB[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!)
    }
  }
  type Op = { readonly kind: " " | "-" | "+"; readonly text: string; readonly ai: number; readonly bi: number }
  const ops: Array<Op> = []
  for (let i = 0; i < start; i++) ops.push({ kind: " ", text: a[i]!, ai: i, bi: i })
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      ops.push({ kind: " ", text: midA[i]!, ai: start + i, bi: start + j })
      i++
      j++
    } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      ops.push({ kind: "-", text: midA[i]!, ai: start + i, bi: start + j })
      i++
    } else {
      ops.push({ kind: "+", text: midB[j]!, ai: start + i, bi: start + j })
      j++
    }
  }
  for (let k = 0; k < a.length - endA; k++) {
    ops.push({ kind: " ", text: a[endA + k]!, ai: endA + k, bi: endB + k })
  }
  // Hunks: changes with `context` lines around them, merged when they touch.
  const changed = ops.flatMap((op, index) => (op.kind === " " ? [] : [index]))
  if (changed.length === 0) return ""
  let out = ""
  let h = 0
  while (h < changed.length) {
    const first = Math.max(0, changed[h]! - context)
    let last = Math.min(ops.length - 1, changed[h]! + context)
    while (h + 1 < changed.length && changed[h + 1]! - context <= last + 1) {
      h++
      last = Math.min(ops.length - 1, changed[h]! + context)
    }
    const hunk = ops.slice(first, last + 1)
    const aCount = hunk.filter((op) => op.kind !== "+").length
    const bCount = hunk.filter((op) => op.kind !== "-").length
    out += `@@ -${hunk[0]!.ai + 1},${aCount} +${hunk[0]!.bi + 1},${bCount} @@\n`
    for (const op of hunk) out += `${op.kind}${op.text}\n`
    h++
  }
  return out
}

/**
 * The `surface` command: prints the surface, writes it (`--write FILE`), or
 * checks it against a file (`--check FILE`: exit 1 with a diff when it
 * changed).
 *
 * **Example**
 *
 * ```sh
 * mcp-runtime surface --check surface.json
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const surface = Command.make(
  "surface",
  {
    ...commonFlags,
    check: Flag.String("check").pipe(
      Flag.withDescription("Compare with this file; exit 1 with a diff when the surface changed"),
      Flag.optional
    ),
    write: Flag.String("write").pipe(Flag.withDescription("Write the surface to this file"), Flag.optional)
  },
  Effect.fnUntraced(function* (flags) {
    if (Option.isSome(flags.check) && Option.isSome(flags.write)) {
      return yield* new UsageError({ message: "--check and --write go one at a time" })
    }
    const settings = yield* loadSettings({
      root: flags.root,
      config: flags.config,
      flags: { ...noServeFlags, capabilities: flags.capabilities }
    })
    const text = yield* Effect.scoped(surfaceOf(settings))
    if (Option.isSome(flags.write)) {
      const file = NodePath.resolve(flags.write.value)
      yield* Effect.try({
        try: () => NodeFs.writeFileSync(file, text),
        catch: (error) => new UsageError({ message: `--write ${file}: ${(error as Error).message}` })
      })
      process.stdout.write(`wrote ${file}\n`)
      return
    }
    if (Option.isSome(flags.check)) {
      const file = NodePath.resolve(flags.check.value)
      const locked = yield* Effect.try({
        try: () => NodeFs.readFileSync(file, "utf8"),
        catch: (error) => new UsageError({ message: `--check ${file}: ${(error as Error).message}` })
      })
      const diff = lineDiff(locked, text)
      if (diff === "") {
        process.stdout.write(`surface unchanged: ${file}\n`)
        return
      }
      process.stdout.write(`--- ${file} (locked)\n+++ the server's surface now\n${diff}`)
      return yield* new SurfaceChanged({
        file,
        message:
          `the public surface differs from ${file} (diff above). If the change is intended, update the file with ` +
          `mcp-runtime surface --write ${flags.check.value}${Option.isSome(flags.capabilities) ? ` --capabilities ${flags.capabilities.value}` : ""}`
      })
    }
    process.stdout.write(text)
  }, quietLogs)
).pipe(
  Command.withDescription(
    "Print the public tool/resource/prompt surface as JSON, write it (--write FILE), or check it against a file (--check FILE)"
  )
)
