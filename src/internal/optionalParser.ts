/**
 * `oxc-parser`, the native JavaScript/TypeScript parser that code mode and
 * the `fe` tools use, is an optional peer dependency of the package: a
 * library user who needs neither installs nothing native. This module names
 * the version the project is tested with and says what to do when the
 * parser is missing.
 */

/** The version of `oxc-parser` the project is built and tested with (package.json's devDependency). */
export const oxcParserVersion = "0.159.0"

/** Thrown (or answered) when `oxc-parser` cannot be loaded. */
export class ParserUnavailable extends Error {
  readonly code = "parser_unavailable"
  constructor(cause: unknown) {
    super(parserUnavailableMessage(cause))
    this.name = "ParserUnavailable"
  }
}

/** What to tell the user when `oxc-parser` cannot be loaded. */
export const parserUnavailableMessage = (cause: unknown): string => {
  const reason = cause instanceof Error ? cause.message.split("\n")[0] : String(cause)
  return (
    `The parser oxc-parser could not be loaded (${reason}). Code mode and the fe tools parse code with it; it is an ` +
    `optional peer dependency of effect-mcp-runtime (a native binding per platform), installed with ` +
    `\`npm install oxc-parser@${oxcParserVersion}\` next to effect-mcp-runtime.`
  )
}

/** What a tool answers when the parser is missing. */
export const parserUnavailableSuggestion = `Install the parser (\`npm install oxc-parser@${oxcParserVersion}\`) where the server runs, then call again.`
