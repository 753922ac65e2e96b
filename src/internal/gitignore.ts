/**
 * `.gitignore` matching with git's own semantics, ported from git's
 * `dir.c` (pattern parsing, basename and pathname matching, precedence) and
 * `wildmatch.c` (the glob engine), so that a pattern means here exactly what
 * it means to `git status`:
 *
 * - one pattern a line; blank lines and lines starting with `#` are
 *   skipped; trailing spaces are dropped unless escaped (`\ `); a final `\r`
 *   is dropped (CRLF files);
 * - `!` negates (`\!` and `\#` are literal); the last matching pattern
 *   decides, and a deeper `.gitignore` comes after a shallower one;
 * - a trailing `/` matches directories only; a pattern with no other `/`
 *   matches the name at any depth below its `.gitignore`, one with a `/`
 *   (leading or inner) matches the path relative to that `.gitignore`'s
 *   directory;
 * - `*` and `?` never match `/`; `[a-z]`, `[!…]`, `[^…]`, `[[:alpha:]]`
 *   classes; `\x` escapes; `**` between slashes (or at either end) crosses
 *   directories, elsewhere it is a plain `*`;
 * - a path under an ignored directory is ignored, whatever negations say
 *   (git never looks inside an ignored directory).
 *
 * Matching works on UTF-8 bytes, as git does (so `?` matches one byte), and is
 * case-sensitive (`core.ignorecase` false). The caller walks the tree and
 * passes, for each path, the patterns of the `.gitignore` files of its
 * ancestors, root first ({@link decide}). `test/gitignore.test.ts` compares
 * every case with `git check-ignore` and `git ls-files` on real repositories.
 *
 * @internal
 */

const encoder = new TextEncoder()

/** One parsed pattern of a `.gitignore` file. */
export interface Pattern {
  /** The source line, for messages. */
  readonly source: string
  /** The pattern without `!` and the trailing `/`, as UTF-8 bytes. */
  readonly pattern: Uint8Array
  readonly negative: boolean
  /** A trailing `/`: matches directories only. */
  readonly mustBeDirectory: boolean
  /** No `/` in the pattern: matched against the basename at any depth. */
  readonly noDirectory: boolean
  /** The length of the leading part without glob characters. */
  readonly literalPrefix: number
  /** The directory of the `.gitignore`, relative to the root, `/`-separated; `""` for the root. */
  readonly base: string
}

const STAR = 0x2a
const QUESTION = 0x3f
const BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const BACKSLASH = 0x5c
const SLASH = 0x2f
const BANG = 0x21
const CARET = 0x5e
const DASH = 0x2d
const COLON = 0x3a

const isGlobSpecial = (c: number) => c === STAR || c === QUESTION || c === BRACKET || c === BACKSLASH

const simpleLength = (p: Uint8Array): number => {
  let i = 0
  while (i < p.length && !isGlobSpecial(p[i]!)) i++
  return i
}

// Drops trailing spaces that are not escaped with a backslash (git's trim_trailing_spaces).
const trimTrailingSpaces = (line: string): string => {
  let lastSpace = -1
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === " ") {
      if (lastSpace === -1) lastSpace = i
    } else if (c === "\\") {
      i++
      if (i >= line.length) return line
      lastSpace = -1
    } else lastSpace = -1
  }
  return lastSpace === -1 ? line : line.slice(0, lastSpace)
}

/**
 * Parses the text of the `.gitignore` in directory `base` (relative to the
 * root, `""` for the root) into its patterns, in file order.
 */
export const parse = (text: string, base: string): ReadonlyArray<Pattern> => {
  const out: Array<Pattern> = []
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text
  for (const raw of body.split("\n")) {
    if (raw === "" || raw.startsWith("#")) continue
    const line = trimTrailingSpaces(raw.endsWith("\r") ? raw.slice(0, -1) : raw)
    let rest = line
    const negative = rest.startsWith("!")
    if (negative) rest = rest.slice(1)
    const mustBeDirectory = rest.endsWith("/")
    if (mustBeDirectory) rest = rest.slice(0, -1)
    const pattern = encoder.encode(rest)
    out.push({
      source: line,
      pattern,
      negative,
      mustBeDirectory,
      noDirectory: !rest.includes("/"),
      literalPrefix: simpleLength(pattern),
      base
    })
  }
  return out
}

// wildmatch results
const MATCH = 0
const NOMATCH = 1
const ABORT_ALL = -1
const ABORT_TO_STARSTAR = -2

const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isUpper = (c: number) => c >= 0x41 && c <= 0x5a
const isLower = (c: number) => c >= 0x61 && c <= 0x7a
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d)
const isPrint = (c: number) => c >= 0x20 && c <= 0x7e
const isGraph = (c: number) => c > 0x20 && c <= 0x7e
const isPunct = (c: number) => isGraph(c) && !isAlpha(c) && !isDigit(c)
const isXdigit = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)

const classes: Record<string, (c: number) => boolean> = {
  alnum: (c) => isAlpha(c) || isDigit(c),
  alpha: isAlpha,
  blank: (c) => c === 0x20 || c === 0x09,
  cntrl: (c) => c < 0x20 || c === 0x7f,
  digit: isDigit,
  graph: isGraph,
  lower: isLower,
  print: isPrint,
  punct: isPunct,
  space: isSpace,
  upper: isUpper,
  xdigit: isXdigit
}

const decoder = new TextDecoder()

/**
 * git's `dowild` with `WM_PATHNAME` when `pathname` is true: `p` and `t` are
 * byte arrays read from `pi` and `ti`; a position past the end reads as NUL.
 */
const dowild = (p: Uint8Array, pi: number, t: Uint8Array, ti: number, pathname: boolean): number => {
  const start = pi
  const at = (bytes: Uint8Array, i: number) => (i < bytes.length ? bytes[i]! : 0)
  for (; pi < p.length; ti++, pi++) {
    let pCh = p[pi]!
    let tCh = at(t, ti)
    if (tCh === 0 && pCh !== STAR) return ABORT_ALL
    switch (pCh) {
      case BACKSLASH: {
        pCh = at(p, ++pi)
        if (tCh !== pCh) return NOMATCH
        continue
      }
      case QUESTION: {
        if (pathname && tCh === SLASH) return NOMATCH
        continue
      }
      case STAR: {
        let matchSlash: boolean
        if (at(p, ++pi) === STAR) {
          const prev = pi - 2
          while (at(p, ++pi) === STAR) {
            /* skip */
          }
          const next = at(p, pi)
          if (
            (prev < start || p[prev] === SLASH) &&
            (next === 0 || next === SLASH || (next === BACKSLASH && at(p, pi + 1) === SLASH))
          ) {
            if (next === SLASH && dowild(p, pi + 1, t, ti, pathname) === MATCH) return MATCH
            matchSlash = true
          } else matchSlash = !pathname
        } else matchSlash = !pathname
        if (pi >= p.length) {
          // A trailing "**" matches everything, a trailing "*" only what has no more slashes.
          if (!matchSlash && t.indexOf(SLASH, ti) !== -1) return NOMATCH
          return MATCH
        } else if (!matchSlash && p[pi] === SLASH) {
          // One star followed by a slash matches up to the next directory.
          const slash = t.indexOf(SLASH, ti)
          if (slash === -1) return NOMATCH
          ti = slash
          // the slash is consumed by the loop (both sides advance)
          break
        }
        while (true) {
          if (tCh === 0) break
          // Advance fast when the star is followed by a literal.
          const next = p[pi]!
          if (!isGlobSpecial(next)) {
            for (tCh = at(t, ti); tCh !== 0 && tCh !== next; tCh = at(t, ++ti)) {
              if (!matchSlash && tCh === SLASH) break
            }
            if (tCh !== next) return matchSlash ? ABORT_ALL : ABORT_TO_STARSTAR
          }
          const matched = dowild(p, pi, t, ti, pathname)
          if (matched !== NOMATCH) {
            if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched
          } else if (!matchSlash && tCh === SLASH) return ABORT_TO_STARSTAR
          tCh = at(t, ++ti)
        }
        return ABORT_ALL
      }
      case BRACKET: {
        pCh = at(p, ++pi)
        if (pCh === CARET) pCh = BANG
        const negated = pCh === BANG
        if (negated) pCh = at(p, ++pi)
        let prevCh = 0
        let matched = false
        do {
          if (pCh === 0) return ABORT_ALL
          if (pCh === BACKSLASH) {
            pCh = at(p, ++pi)
            if (pCh === 0) return ABORT_ALL
            if (tCh === pCh) matched = true
          } else if (pCh === DASH && prevCh !== 0 && at(p, pi + 1) !== 0 && at(p, pi + 1) !== CLOSE_BRACKET) {
            pCh = at(p, ++pi)
            if (pCh === BACKSLASH) {
              pCh = at(p, ++pi)
              if (pCh === 0) return ABORT_ALL
            }
            if (tCh <= pCh && tCh >= prevCh) matched = true
            pCh = 0 // so that prevCh becomes 0
          } else if (pCh === BRACKET && at(p, pi + 1) === COLON) {
            pi += 2
            const s = pi
            while ((pCh = at(p, pi)) !== 0 && pCh !== CLOSE_BRACKET) pi++
            if (pCh === 0) return ABORT_ALL
            const length = pi - s - 1
            if (length < 0 || p[pi - 1] !== COLON) {
              // Not "[:class:]": a plain "[" in the set.
              pi = s - 2
              pCh = BRACKET
              if (tCh === pCh) matched = true
              continue
            }
            const test = classes[decoder.decode(p.subarray(s, s + length))]
            if (test === undefined) return ABORT_ALL
            if (test(tCh)) matched = true
            pCh = 0
          } else if (tCh === pCh) matched = true
        } while (((prevCh = pCh), (pCh = at(p, ++pi)) !== CLOSE_BRACKET))
        if (matched === negated || (pathname && tCh === SLASH)) return NOMATCH
        continue
      }
      default: {
        if (tCh !== pCh) return NOMATCH
        continue
      }
    }
  }
  return ti < t.length ? NOMATCH : MATCH
}

/**
 * Whether `text` matches the glob `pattern` the way git's `wildmatch` does;
 * with `pathname`, `*`, `?` and brackets never match `/` and `**` between
 * slashes crosses directories.
 */
export const wildmatch = (pattern: Uint8Array | string, text: Uint8Array | string, pathname: boolean): boolean =>
  dowild(
    typeof pattern === "string" ? encoder.encode(pattern) : pattern,
    0,
    typeof text === "string" ? encoder.encode(text) : text,
    0,
    pathname
  ) === MATCH

const bytesEqual = (a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number) => {
  for (let i = 0; i < length; i++) if (a[aStart + i] !== b[bStart + i]) return false
  return true
}

// git's match_pathname: the pattern is relative to `base`, and only its part after the literal prefix is a glob.
const matchPathname = (path: Uint8Array, pattern: Pattern, baseBytes: Uint8Array): boolean => {
  let p = pattern.pattern
  let prefix = pattern.literalPrefix
  if (p[0] === SLASH) {
    p = p.subarray(1)
    prefix--
  }
  const baseLength = baseBytes.length
  if (path.length < baseLength + 1 || (baseLength > 0 && path[baseLength] !== SLASH)) return false
  if (!bytesEqual(path, 0, baseBytes, 0, baseLength)) return false
  let name = baseLength > 0 ? path.subarray(baseLength + 1) : path
  if (prefix > 0) {
    if (prefix > name.length) return false
    if (!bytesEqual(p, 0, name, 0, prefix)) return false
    p = p.subarray(prefix)
    name = name.subarray(prefix)
    if (p.length === 0 && name.length === 0) return true
  }
  return dowild(p, 0, name, 0, true) === MATCH
}

const baseCache = new Map<string, Uint8Array>()
const baseBytesOf = (base: string) => {
  let bytes = baseCache.get(base)
  if (bytes === undefined) {
    bytes = encoder.encode(base)
    if (baseCache.size > 10_000) baseCache.clear()
    baseCache.set(base, bytes)
  }
  return bytes
}

/**
 * The pattern that decides about `path` (relative to the root,
 * `/`-separated): the last one of `patterns` that matches, or `undefined`.
 * `patterns` are those of the `.gitignore` files of the path's ancestors,
 * root first, each file's in order.
 */
export const lastMatch = (
  patterns: ReadonlyArray<Pattern>,
  path: string,
  isDirectory: boolean
): Pattern | undefined => {
  if (patterns.length === 0) return undefined
  const bytes = encoder.encode(path)
  const slash = path.lastIndexOf("/")
  const basename = slash === -1 ? bytes : encoder.encode(path.slice(slash + 1))
  for (let i = patterns.length - 1; i >= 0; i--) {
    const pattern = patterns[i]!
    if (pattern.mustBeDirectory && !isDirectory) continue
    if (pattern.noDirectory) {
      if (dowild(pattern.pattern, 0, basename, 0, false) === MATCH) return pattern
      continue
    }
    if (matchPathname(bytes, pattern, baseBytesOf(pattern.base))) return pattern
  }
  return undefined
}

/**
 * Whether `path` is ignored by `patterns` alone (see {@link lastMatch}); the
 * caller is responsible for not descending into ignored directories.
 */
export const decide = (patterns: ReadonlyArray<Pattern>, path: string, isDirectory: boolean): boolean => {
  const match = lastMatch(patterns, path, isDirectory)
  return match !== undefined && !match.negative
}

/**
 * Whether `path` is ignored, its ancestors included: a path under an
 * ignored directory is ignored. `patternsFor(directory)` gives the patterns
 * in effect for the entries of a directory (those of its `.gitignore` and
 * its ancestors', root first).
 */
export const isIgnored = (
  patternsFor: (directory: string) => ReadonlyArray<Pattern>,
  path: string,
  isDirectory: boolean
): boolean => {
  const segments = path.split("/").filter((segment) => segment !== "")
  for (let i = 1; i <= segments.length; i++) {
    const parent = segments.slice(0, i - 1).join("/")
    const current = segments.slice(0, i).join("/")
    if (decide(patternsFor(parent), current, i < segments.length || isDirectory)) return true
  }
  return false
}
