/**
 * The write keys of the workspace's writing tools: the files a call writes,
 * as the request front compares them (`Tool.make`'s `writeKey`).
 *
 * @since 0.4.0
 */
import * as Path from "node:path"
import * as UnifiedDiff from "../../src/internal/unifiedDiff.ts"

/**
 * The key of a file written by a call: `file:` and the path relative to the
 * workspace root, normalized (`./a/../b.txt` and `b.txt` are one key). A
 * path that leaves the root keeps its `..` (the call fails anyway).
 *
 * **Example**
 *
 * ```ts
 * import { fileKey } from "./capabilities/workspace/writeKey.ts"
 *
 * fileKey("./src/../README.md") // => "file:README.md"
 * ```
 *
 * @category keys
 * @since 0.4.0
 */
export const fileKey = (path: string): string => {
  const normalized = Path.posix
    .normalize(path.replaceAll("\\", "/"))
    .replace(/^\.\/+/, "")
    .replace(/\/+$/, "")
  return `file:${normalized === "" ? "." : normalized}`
}

/**
 * The keys of the files a unified diff changes, creates, deletes or renames
 * (both sides of a rename); none when the patch does not parse (the call
 * fails anyway).
 *
 * **Example**
 *
 * ```ts
 * import { patchKeys } from "./capabilities/workspace/writeKey.ts"
 *
 * patchKeys("--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n", undefined) // => ["file:x.txt"]
 * ```
 *
 * @category keys
 * @since 0.4.0
 */
export const patchKeys = (patch: string, strip: number | undefined): ReadonlyArray<string> => {
  const parsed = UnifiedDiff.parse(patch, strip)
  if (parsed._tag === "Error") return []
  const keys = new Set<string>()
  for (const file of parsed.files) {
    if (file.oldPath !== undefined) keys.add(fileKey(file.oldPath))
    if (file.newPath !== undefined) keys.add(fileKey(file.newPath))
  }
  return [...keys]
}
