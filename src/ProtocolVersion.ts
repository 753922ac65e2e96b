/**
 * The MCP protocol revisions the runtime speaks, how a version is negotiated
 * in `initialize`, and which wire features each revision has.
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
 * ProtocolVersion.supported.at(-1) // => "2024-11-05"
 * ```
 *
 * @category models
 * @since 0.1.0
 */
export const supported = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const

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
 * The newest revision, offered when a client asks for one the runtime does not
 * know.
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.latest // => "2025-11-25"
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const latest: ProtocolVersion = "2025-11-25"

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
 * Picks the version to answer `initialize` with: the requested one when it is
 * supported, otherwise the latest (the client then decides whether to go on).
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.negotiate("2025-03-26") // => "2025-03-26"
 * ProtocolVersion.negotiate("1999-01-01") // => "2025-11-25"
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const negotiate = (requested: string): ProtocolVersion => (isSupported(requested) ? requested : latest)

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
 * revisions only add fields, so three shapes cover the four revisions:
 * 2024-11-05, 2025-03-26 (annotations, audio) and 2025-06-18 onwards (`title`,
 * `outputSchema`, `structuredContent`, `resource_link`).
 *
 * **Example**
 *
 * ```ts
 * import * as ProtocolVersion from "effect-mcp-runtime/ProtocolVersion"
 *
 * ProtocolVersion.eraOf("2025-11-25") // => "2025-06-18"
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
