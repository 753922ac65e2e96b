/**
 * Makes sure the system programs the tests drive are installed before they
 * run: PostgreSQL's server binaries (the scale-out tests start throwaway
 * clusters of their own: `initdb` + `postgres`, see test/support/postgres.ts),
 * ripgrep (`rg`: `workspace_search`'s results are compared with its results,
 * and `npm run bench` times both) and Chromium (the `serve --inspect` page is
 * tested in a real headless browser, driven by Playwright). All found:
 * nothing to do. Some missing, as root on Debian or Ubuntu: `apt-get update`
 * then one `apt-get install -y` of the missing packages (a minute or two).
 * Otherwise: says what to install, and fails.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"

const onPath = (command: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const postgresInstalled = (): boolean => {
  const root = "/usr/lib/postgresql"
  if (existsSync(root)) {
    for (const version of readdirSync(root)) {
      if (existsSync(join(root, version, "bin", "initdb"))) return true
    }
  }
  return onPath("initdb")
}

const needs: ReadonlyArray<{ readonly pkg: string; readonly why: string; readonly present: () => boolean }> = [
  { pkg: "postgresql", why: "PostgreSQL's server binaries (initdb, postgres)", present: postgresInstalled },
  { pkg: "ripgrep", why: "ripgrep (rg)", present: () => onPath("rg") },
  { pkg: "chromium", why: "Chromium (/usr/bin/chromium)", present: () => existsSync("/usr/bin/chromium") }
]

const missing = needs.filter((need) => !need.present())
if (missing.length > 0) {
  const packages = missing.map((need) => need.pkg)
  if (process.getuid?.() !== 0 || !onPath("apt-get")) {
    process.stderr.write(
      `The tests need ${missing.map((need) => need.why).join(", ")}: install them, e.g. ` +
        `\`sudo apt-get update && sudo apt-get install -y ${packages.join(" ")}\` on Debian or Ubuntu, then run ` +
        "the tests again.\n"
    )
    process.exit(1)
  }
  process.stderr.write(`Installing what the tests need (apt-get update && apt-get install -y ${packages.join(" ")})…\n`)
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"], env })
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", ...packages], {
    stdio: ["ignore", "ignore", "inherit"],
    env
  })
  const still = missing.filter((need) => !need.present())
  if (still.length > 0) {
    process.stderr.write(`apt-get ran, but ${still.map((need) => need.why).join(", ")} still not found.\n`)
    process.exit(1)
  }
}
