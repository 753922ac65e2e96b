/**
 * The media the conformance fixtures return: a 1×1 PNG and a minimal WAV
 * file, base64-encoded, as in the suite's reference server.
 *
 * @since 0.1.0
 */

/**
 * A 1×1 red PNG, base64.
 *
 * **Example**
 *
 * ```ts
 * import { png } from "effect-mcp-runtime/capabilities/conformance/media"
 *
 * png.startsWith("iVBORw0KGgo") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

/**
 * A minimal WAV file (one silent sample), base64.
 *
 * **Example**
 *
 * ```ts
 * import { wav } from "effect-mcp-runtime/capabilities/conformance/media"
 *
 * wav.startsWith("UklGR") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const wav = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
