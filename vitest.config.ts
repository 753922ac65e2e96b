import { tmpdir } from "node:os"
import { join } from "node:path"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The fe fixtures are projects of their own, with their own tests (run by fe_verify, not by us).
    exclude: ["test/fixtures/**", "**/node_modules/**"],
    // Installs the fe fixtures' dependencies from the registry (once; skipped when already installed).
    globalSetup: ["test/support/feFixtures.ts"],
    sequence: { concurrent: true },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The binaries the tests start keep their default audit log under the state directory: not the user's.
    env: { XDG_STATE_HOME: join(tmpdir(), "mcp-runtime-test-state") }
  }
})
