/**
 * Builds the `mcp-runtime` binary: one minified ESM file with a shebang,
 * `dist/mcp-runtime.js`. Per-module imports let esbuild keep only what the
 * binary uses, which is what makes its cold start fast.
 */
import * as esbuild from "esbuild"

const result = await esbuild.build({
  entryPoints: ["src/cli/main.ts"],
  outfile: "dist/mcp-runtime.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  minify: true,
  treeShaking: true,
  sourcemap: "linked",
  legalComments: "none",
  metafile: true,
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';const require = __createRequire(import.meta.url);"
  },
  logLevel: "warning"
})
const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)?.bytes ?? 0
console.error(`built dist/mcp-runtime.js (${(bytes / 1024).toFixed(0)} KiB)`)
