/**
 * Builds the `mcp-runtime` binary: one minified ESM file with a shebang,
 * `dist/mcp-runtime.js`. Per-module imports let esbuild keep only what the
 * binary uses, which is what makes its cold start fast.
 */
import { chmodSync } from "node:fs"
import { bundle } from "./bundle.ts"

const outfile = "dist/mcp-runtime.js"
const bytes = await bundle("src/cli/main.ts", outfile)
chmodSync(outfile, 0o755)
console.error(`built ${outfile} (${(bytes / 1024).toFixed(0)} KiB)`)
