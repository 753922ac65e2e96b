/**
 * Installs the fe fixtures' dependencies from the npm registry (vitest's
 * global set-up, so once per run, before any test file): `npm install
 * --no-save` from each fixture's committed lockfile, skipped when its
 * node_modules already holds that lockfile's install (a stamp with the
 * lockfile's hash). The fixtures are real projects (Vite + React +
 * TypeScript with ESLint and Vitest; TypeScript with Biome and Jest) that
 * the fe capability's tests run their own tools on.
 */
import { createHash } from "node:crypto"
import { execFile, execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)

/** The fixture projects, by directory name under test/fixtures/fe/. */
export const fixtures = ["react-app", "broken-app", "biome-jest-app", "next-app"] as const

export type Fixture = (typeof fixtures)[number]

const here = dirname(fileURLToPath(import.meta.url))

/** The absolute directory of a fixture. */
export const fixtureDir = (name: Fixture): string => join(here, "..", "fixtures", "fe", name)

const stampFile = (dir: string) => join(dir, "node_modules", ".fixture-install-stamp")

// The install is current while package.json and the lockfile are those it was made from.
const lockHash = (dir: string): string =>
  createHash("sha256")
    .update(readFileSync(join(dir, "package.json")))
    .update(readFileSync(join(dir, "package-lock.json")))
    .digest("hex")

// One install per fixture at a time across processes (two vitest runs started together): an exclusive directory,
// taken back when its holder died long ago.
const withLock = async <A>(dir: string, body: () => Promise<A>): Promise<A> => {
  const lock = join(dir, ".fixture-install-lock")
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (waited > 15 * 60 * 1000) rmSync(lock, { recursive: true, force: true })
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  try {
    return await body()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * Copies a fixture to `to` (created) for a test that changes it: its files copied, its `node_modules` hard-linked
 * (`cp -al`: fast, and a real directory, which the workspace reads; a symlink out of the root it does not follow).
 */
export const copyFixture = (name: Fixture, to: string): string => {
  const from = fixtureDir(name)
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from)) {
    if (entry === "node_modules") execFileSync("cp", ["-al", join(from, entry), join(to, entry)])
    else cpSync(join(from, entry), join(to, entry), { recursive: true, verbatimSymlinks: true })
  }
  return to
}

/** Whether the fixture's node_modules is the install of its current lockfile. */
export const isInstalled = (name: Fixture): boolean => {
  const dir = fixtureDir(name)
  const stamp = stampFile(dir)
  return existsSync(stamp) && readFileSync(stamp, "utf8") === lockHash(dir)
}

/** Installs one fixture unless it is installed already; returns its directory. */
export const installFixture = async (name: Fixture): Promise<string> => {
  const dir = fixtureDir(name)
  if (isInstalled(name)) return dir
  return withLock(dir, async () => {
    if (isInstalled(name)) return dir
    await npmInstall(name, dir)
    writeFileSync(stampFile(dir), lockHash(dir))
    return dir
  })
}

const npmInstall = async (name: Fixture, dir: string): Promise<void> => {
  try {
    // From the lockfile, which --no-save keeps as it is. Not `npm ci`: it refuses a lockfile that lacks optional
    // platform packages the registry does not serve (Biome's Android builds, here), where `npm install` skips them.
    // No install scripts: none of these packages needs one (native parts come as optional platform packages).
    await run("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60 * 1000
    })
  } catch (cause) {
    const error = cause as { stderr?: string; message: string }
    const network = /E(AI_AGAIN|CONNREFUSED|CONNRESET|NOTFOUND|TIMEDOUT)|network|fetch failed/i.test(error.stderr ?? "")
    throw new Error(
      `Installing the fixture ${name} (npm install in ${dir}) failed` +
        (network
          ? ": the npm registry could not be reached, and the fe tests need it once to install their fixtures.\n"
          : ".\n") +
        (error.stderr ?? error.message),
      { cause }
    )
  }
}

/** vitest's global set-up: every fixture installed, in parallel. */
export default async function setup(): Promise<void> {
  await Promise.all(fixtures.map(installFixture))
}
