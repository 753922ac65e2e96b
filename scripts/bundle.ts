/**
 * The one esbuild configuration of the project: a single minified ESM file
 * for Node 22+, with a shebang and a `createRequire` banner (some bundled
 * dependencies still call `require`). Used by `scripts/build.ts` for the
 * binary and by the benchmark for its server, so both are built alike.
 */
import * as esbuild from "esbuild"
import * as path from "node:path"

export const bundle = async (
  entryPoint: string,
  outfile: string,
  options: { readonly splitting?: boolean } = {}
): Promise<number> => {
  const split = options.splitting === true
  const result = await esbuild.build({
    entryPoints: [entryPoint],
    // Split: what is only imported on demand (`import()`: the durable task store with its cluster, workflow and
    // SQL code, the OAuth resource server, the HTTP transport) goes to chunks beside the entry, read only when a
    // server first needs it; the entry file keeps what every start runs.
    ...(split
      ? {
          outdir: path.dirname(outfile),
          entryNames: path.basename(outfile, ".js"),
          chunkNames: "chunks/[name]-[hash]",
          splitting: true
        }
      : { outfile }),
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
