/**
 * Makes sure PostgreSQL's server binaries are installed before the tests:
 * the scale-out tests start throwaway clusters of their own (`initdb` +
 * `postgres`, see test/support/postgres.ts). Found: nothing to do. Missing,
 * as root on Debian or Ubuntu: `apt-get update` then `apt-get install -y
 * postgresql` (about a minute). Otherwise: says what to install, and fails.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"

const installed = (): string | undefined => {
  const root = "/usr/lib/postgresql"
  if (existsSync(root)) {
    for (const version of readdirSync(root)) {
      if (existsSync(join(root, version, "bin", "initdb"))) return join(root, version, "bin")
    }
  }
  try {
    execFileSync("sh", ["-c", "command -v initdb"], { stdio: "ignore" })
    return "PATH"
  } catch {
    return undefined
  }
}

if (installed() === undefined) {
  const hasAptGet = (() => {
    try {
      execFileSync("sh", ["-c", "command -v apt-get"], { stdio: "ignore" })
      return true
    } catch {
      return false
    }
  })()
  if (process.getuid?.() !== 0 || !hasAptGet) {
    process.stderr.write(
      "The tests need PostgreSQL's server binaries (initdb, postgres): install them, e.g. " +
        "`sudo apt-get update && sudo apt-get install -y postgresql` on Debian or Ubuntu, then run the tests again.\n"
    )
    process.exit(1)
  }
  process.stderr.write(
    "Installing PostgreSQL for the scale-out tests (apt-get update && apt-get install -y postgresql)…\n"
  )
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  execFileSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"], env })
  execFileSync("apt-get", ["install", "-y", "--no-install-recommends", "postgresql"], {
    stdio: ["ignore", "ignore", "inherit"],
    env
  })
  if (installed() === undefined) {
    process.stderr.write("apt-get installed postgresql, but initdb was not found under /usr/lib/postgresql.\n")
    process.exit(1)
  }
}
