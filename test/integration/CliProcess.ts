/**
 * The built `mcp-runtime` binary run once as a subprocess, for the commands
 * other than `serve`: its exit code, stdout and stderr. stdin is closed (not
 * a terminal), the working directory is the repository unless told.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { binaryPath, repoRoot } from "./ServerProcess.ts"

/** What one run of the binary gave. */
export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `mcp-runtime ARGS` to completion (at most 30 s). */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {}
): CliResult => {
  const result = spawnSync(process.execPath, [binaryPath, ...args], {
    encoding: "utf8",
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/**
 * Temporary directories for one test file: `make(files)` creates one with
 * the given files, `removeAll` (for `afterAll`) deletes them.
 */
export const makeTempDirs = () => {
  const dirs: Array<string> = []
  return {
    make: (files: Readonly<Record<string, string>> = {}): string => {
      const dir = mkdtempSync(join(tmpdir(), "mcp-cli-"))
      dirs.push(dir)
      for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
      return dir
    },
    removeAll: (): void => {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
    }
  }
}
