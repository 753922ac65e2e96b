// Part of the stdio conformance harness (see run.ts): a module resolution hook,
// loaded with `node --import`, that gives the conformance package the stdio
// transport of ./stdio-transport.mjs where it imports the SDK's Streamable HTTP
// client transport. Only imports from inside the conformance package are
// redirected.
import { registerHooks } from "node:module"

const shim = new URL("./stdio-transport.mjs", import.meta.url).href

registerHooks({
  resolve(specifier, context, next) {
    if (
      specifier === "@modelcontextprotocol/sdk/client/streamableHttp.js" &&
      context.parentURL?.includes("/@modelcontextprotocol/conformance/")
    ) {
      return { url: shim, shortCircuit: true }
    }
    return next(specifier, context)
  }
})
