/**
 * The user's state directory, where the runtime keeps its files under
 * `<state>/mcp-runtime/` (the audit log, code mode's store, the task store,
 * the daemon's and the bridge's sockets). Shared by the binary
 * (`src/cli/settings.ts`) and the library's bridge.
 */
import * as Os from "node:os"
import * as NodePath from "node:path"

/**
 * `$XDG_STATE_HOME` when it is an absolute path, else `~/.local/state`
 * (`$HOME` of `env` when it is absolute, else the process's home directory).
 */
export const stateDirectory = (env: Readonly<Record<string, string | undefined>>): string =>
  env.XDG_STATE_HOME !== undefined && NodePath.isAbsolute(env.XDG_STATE_HOME)
    ? env.XDG_STATE_HOME
    : NodePath.join(
        env.HOME !== undefined && NodePath.isAbsolute(env.HOME) ? env.HOME : Os.homedir(),
        ".local",
        "state"
      )
