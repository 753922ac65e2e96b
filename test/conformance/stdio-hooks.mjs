// Part of the stdio conformance harness (see run.ts): a module resolution hook,
// loaded with `node --import`, that gives the conformance package the stdio
// transport of ./stdio-transport.mjs where it imports the SDK's Streamable HTTP
// client transport. Only imports from inside the conformance packages are
// redirected (0.1.16, and the 2026 prerelease installed as conformance-2026).
import { registerHooks } from "node:module"

const shim = new URL("./stdio-transport.mjs", import.meta.url).href

registerHooks({
  resolve(specifier, context, next) {
    if (
      specifier === "@modelcontextprotocol/sdk/client/streamableHttp.js" &&
      (context.parentURL?.includes("/@modelcontextprotocol/conformance/") ||
        context.parentURL?.includes("/conformance-2026/"))
    ) {
      return { url: shim, shortCircuit: true }
    }
    return next(specifier, context)
  }
})
