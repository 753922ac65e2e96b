/**
 * The one esbuild configuration of the project: a single minified ESM file
 * for Node 22+, with a shebang and a `createRequire` banner (some bundled
 * dependencies still call `require`). Used by `scripts/build.ts` for the
 * binary and by the benchmark for its server, so both are built alike.
 */
import * as esbuild from "esbuild"

export const bundle = async (entryPoint: string, outfile: string): Promise<number> => {
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    minify: true,
    treeShaking: true,
    sourcemap: "linked",
    legalComments: "none",
    // A native parser (napi binding per platform), loaded when fe_skeleton or code mode first parses, the YAML
    // parser, loaded only when the skills capability is built, the MCP SDK (the upstream client, loaded only when
    // an upstream is configured) and QuickJS (its WebAssembly file is found next to its module): resolved from
    // node_modules, not in the bundle.
    external: [
      "oxc-parser",
      "yaml",
      "@modelcontextprotocol/sdk",
      "quickjs-emscripten-core",
      "@jitl/quickjs-wasmfile-release-sync"
    ],
    metafile: true,
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module';const require = __createRequire(import.meta.url);"
    },
    logLevel: "warning"
  })
  return Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)?.bytes ?? 0
}
