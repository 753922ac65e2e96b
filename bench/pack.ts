/**
 * What a library user downloads: `npm pack --dry-run` of the build (run by
 * `npm run bench` after the build), the tarball's size, its unpacked size,
 * its files, the largest of them and its source maps, and whether the
 * optional parser is a dependency a plain install pulls in.
 *
 * Usage: node bench/pack.ts
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const [packed] = JSON.parse(
  execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })
) as ReadonlyArray<{
  readonly size: number
  readonly unpackedSize: number
  readonly files: ReadonlyArray<{ readonly path: string; readonly size: number }>
}>
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"))
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`
const maps = packed!.files.filter((file) => file.path.endsWith(".map"))
const largest = [...packed!.files].sort((a, b) => b.size - a.size)[0]!
const largestMap = [...maps].sort((a, b) => b.size - a.size)[0]

console.log("\n## The package (`npm pack --dry-run`)\n")
console.log("| metric | value | target |")
console.log("|---|---|---|")
console.log(`| tarball | ${mib(packed!.size)} | — |`)
console.log(`| unpacked | ${mib(packed!.unpackedSize)} in ${packed!.files.length} files | — |`)
console.log(`| largest file | ${largest.path}, ${mib(largest.size)} | — |`)
console.log(
  `| source maps | ${maps.length}, ${mib(maps.reduce((sum, file) => sum + file.size, 0))} in all, the largest ${
    largestMap === undefined ? "—" : `${mib(largestMap.size)}`
  } | none over 1 MiB ${largestMap === undefined || largestMap.size <= 1024 * 1024 ? "met" : "MISSED"} |`
)
const parserInstalled = pkg.dependencies?.["oxc-parser"] !== undefined
console.log(
  `| oxc-parser installed by a plain \`npm install effect-mcp-runtime\` | ${parserInstalled ? "yes" : "no (optional peer)"} | no ${parserInstalled ? "MISSED" : "met"} |`
)
