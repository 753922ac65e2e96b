/**
 * Builds the `mcp-runtime` binary: the bundle, one minified ESM file
 * (`dist/mcp-runtime.main.js`; per-module imports let esbuild keep only what
 * the binary uses) with what is imported on demand in chunks beside it
 * (`dist/chunks/`: the HTTP transport, the durable task store, the OAuth
 * resource server, read only when a server needs them), and the launcher `dist/mcp-runtime.js` (the package's
 * `bin`, with a shebang), which turns on Node's compile cache in a directory
 * of the user's own before it loads the bundle: V8's compiled code of the
 * bundle is then kept between starts, so every start after the first skips
 * most of the compilation (about 45 ms of about 200 on this machine). The
 * launcher names the bundle's SHA-256, so it changes with every build (the
 * warm daemon tells builds apart by the running script's hash).
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createHash } from "node:crypto"
import { bundle } from "./bundle.ts"

const bundleFile = "dist/mcp-runtime.main.js"
const launcherFile = "dist/mcp-runtime.js"
// A clean output: nothing of an earlier build (a chunk, a map of a file no longer built) is left to be packed.
rmSync("dist", { recursive: true, force: true })
const bytes = await bundle("src/cli/main.ts", bundleFile, { splitting: true })
const digest = createHash("sha256").update(readFileSync(bundleFile)).digest("hex")

const launcher = `#!/usr/bin/env node
// mcp-runtime: turns on Node's compile cache (V8's compiled code of the bundle kept between starts) in a directory of
// the user's own, then runs the bundle. MCP_RUNTIME_COMPILE_CACHE=off (or NODE_DISABLE_COMPILE_CACHE=1) turns it off.
// Bundle: mcp-runtime.main.js, sha256 ${digest}.
import * as NodeFs from "node:fs"
import * as NodeModule from "node:module"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"

const cacheDirectory = () => {
  if (process.env.MCP_RUNTIME_COMPILE_CACHE === "off" || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
  // NODE_COMPILE_CACHE set: Node has turned it on already, in that directory.
  if (process.env.NODE_COMPILE_CACHE) return undefined
  if (typeof NodeModule.enableCompileCache !== "function" || typeof process.getuid !== "function") return undefined
  const xdg = process.env.XDG_CACHE_HOME
  const base = xdg && NodePath.isAbsolute(xdg) ? xdg : NodePath.join(NodeOs.homedir(), ".cache")
  const directory = NodePath.join(base, "mcp-runtime", "compile-cache")
  try {
    NodeFs.mkdirSync(directory, { recursive: true, mode: 0o700 })
    // Compiled code is run as it is read: only from a real directory of this user's that no one else can write.
    const stat = NodeFs.lstatSync(directory)
    if (!stat.isDirectory() || stat.uid !== process.getuid() || (stat.mode & 0o077) !== 0) return undefined
    return directory
  } catch {
    return undefined
  }
}

const directory = cacheDirectory()
if (directory !== undefined) {
  try {
    NodeModule.enableCompileCache(directory)
  } catch {
    // Without the cache, the bundle is compiled as usual.
  }
}
await import("./mcp-runtime.main.js")
`
writeFileSync(launcherFile, launcher)
chmodSync(launcherFile, 0o755)
console.error(`built ${launcherFile} (launcher) and ${bundleFile} (${(bytes / 1024).toFixed(0)} KiB)`)
