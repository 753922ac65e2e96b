/**
 * The MCP protocol revisions the runtime speaks, how a version is chosen, and
 * which wire features each revision has.
 *
 * Two eras share the runtime. The **legacy** revisions (2024-11-05 through
 * 2025-11-25) negotiate a version once, in `initialize`, and keep it for the
 * session. The **modern** revision, 2026-07-28, has no handshake: every
 * request names its version (and the client's capabilities) in
 * `params._meta`, and the server answers each request on its own.
 *
 * @since 0.1.0
 */

/**
 * Every revision the runtime implements, newest first.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.supported[0] // => "2026-07-28"
 * ProtocolVersion.supported.at(-1) // => "2024-11-05"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const supported = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * A protocol revision the runtime implements.
 *
 * **Example**
 *
 * ```ts
 * import type { ProtocolVersion } from "effect-mcp-runtime/ProtocolVersion"
 *
 * const version: ProtocolVersion = "2025-06-18"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type ProtocolVersion = (typeof supported)[number]

/**
 * The revisions negotiated in `initialize` and kept for a session, newest
 * first.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.legacy.includes("2026-07-28" as never) // => false
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const legacy = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

/**
 * A revision negotiated in `initialize`.
 *
 * **Example**
 *
 * ```ts
 * import type * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * const version: ProtocolVersion.LegacyVersion = "2025-11-25"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type LegacyVersion = (typeof legacy)[number]

/**
 * The revisions whose requests carry their own version and client
 * capabilities in `params._meta` (no `initialize`, no session).
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.modern // => ["2026-07-28"]
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export const modern = ["2026-07-28"] as const

/**
 * A revision whose requests carry their own context.
 *
 * **Example**
 *
 * ```ts
 * import type * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * const version: ProtocolVersion.ModernVersion = "2026-07-28"
 * ```
 *
 * @category models
 * @since 0.2.0
 */
export type ModernVersion = (typeof modern)[number]

/**
 * The newest revision the runtime implements.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.latest // => "2026-07-28"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const latest: ProtocolVersion = "2026-07-28"

/**
 * The newest revision `initialize` can negotiate: what a client asking
 * `initialize` for a version the runtime does not know (or for 2026-07-28,
 * which has no `initialize`) is offered.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.latestLegacy // => "2025-11-25"
 * ```
 *
 * @category constants
 * @since 0.2.0
 */
export const latestLegacy: LegacyVersion = "2025-11-25"

/**
 * Tells whether a version string names a supported revision.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.isSupported("2025-06-18") // => true
 * ProtocolVersion.isSupported("2025-01-01") // => false
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const isSupported = (version: string): version is ProtocolVersion =>
  (supported as ReadonlyArray<string>).includes(version)

/**
 * Tells whether a version string names a revision negotiated in `initialize`.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.isLegacy("2025-11-25") // => true
 * ProtocolVersion.isLegacy("2026-07-28") // => false
 * ```
 *
 * @category guards
 * @since 0.2.0
 */
export const isLegacy = (version: string): version is LegacyVersion =>
  (legacy as ReadonlyArray<string>).includes(version)

/**
 * Tells whether a version string names a revision whose requests carry their
 * own context (2026-07-28).
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.isModern("2026-07-28") // => true
 * ProtocolVersion.isModern("2025-11-25") // => false
 * ```
 *
 * @category guards
 * @since 0.2.0
 */
export const isModern = (version: string): version is ModernVersion =>
  (modern as ReadonlyArray<string>).includes(version)

/**
 * Picks the version to answer `initialize` with: the requested one when it is
 * a revision negotiated in `initialize`, otherwise the newest such revision
 * (the client then decides whether to go on). A client asking `initialize`
 * for 2026-07-28 is offered 2025-11-25: 2026-07-28 has no handshake.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.negotiate("2025-03-26") // => "2025-03-26"
 * ProtocolVersion.negotiate("1999-01-01") // => "2025-11-25"
 * ProtocolVersion.negotiate("2026-07-28") // => "2025-11-25"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const negotiate = (requested: string): LegacyVersion => (isLegacy(requested) ? requested : latestLegacy)

/**
 * Tells whether a revision accepts JSON-RPC batches. Batches are part of exactly
 * one revision, 2025-03-26: it requires servers to accept them; 2025-06-18
 * removed them again.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.acceptsBatches("2025-03-26") // => true
 * ProtocolVersion.acceptsBatches("2025-06-18") // => false
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const acceptsBatches = (version: ProtocolVersion): boolean => version === "2025-03-26"

/**
 * Tells whether a revision has tool annotations and audio content, which
 * arrived in 2025-03-26.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.hasToolAnnotations("2024-11-05") // => false
 * ProtocolVersion.hasToolAnnotations("2025-03-26") // => true
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const hasToolAnnotations = (version: ProtocolVersion): boolean => version >= "2025-03-26"

/**
 * Tells whether a revision has `title`, `outputSchema`, `structuredContent` and
 * `resource_link` content, which arrived in 2025-06-18.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.hasStructuredContent("2025-03-26") // => false
 * ProtocolVersion.hasStructuredContent("2025-11-25") // => true
 * ```
 *
 * @category guards
 * @since 0.1.0
 */
export const hasStructuredContent = (version: ProtocolVersion): boolean => version >= "2025-06-18"

/**
 * The wire shape a revision uses for tools, content and server info. Later
 * revisions only add fields, so three shapes cover the five revisions:
 * 2024-11-05, 2025-03-26 (annotations, audio) and 2025-06-18 onwards (`title`,
 * `outputSchema`, `structuredContent`, `resource_link`; 2026-07-28 adds
 * fields around a result, `resultType` and the caching hints, not inside
 * its entries).
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.eraOf("2025-11-25") // => "2025-06-18"
 * ProtocolVersion.eraOf("2026-07-28") // => "2025-06-18"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export type Era = "2024-11-05" | "2025-03-26" | "2025-06-18"

/**
 * The {@link Era} of a revision.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.eraOf("2024-11-05") // => "2024-11-05"
 * ```
 *
 * @category getters
 * @since 0.1.0
 */
export const eraOf = (version: ProtocolVersion): Era =>
  hasStructuredContent(version) ? "2025-06-18" : hasToolAnnotations(version) ? "2025-03-26" : "2024-11-05"
