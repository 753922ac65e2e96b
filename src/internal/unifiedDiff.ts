/**
 * Unified diffs, as `git diff` and `diff -u` write them: parsing into file
 * patches and hunks, and applying hunks to a file's text in memory.
 *
 * Understood: several files per patch; `--- a/x` / `+++ b/x` headers (a
 * timestamp after a tab is dropped; git's C-quoted names are unquoted);
 * `/dev/null` for created and deleted files; git's extended headers (`diff
 * --git`, `new file mode`, `deleted file mode`, `rename from` / `rename to`,
 * `index`, `similarity index`, mode lines, which are ignored); hunks
 * `@@ -l,s +l,s @@` with the count defaulting to 1; `\ No newline at end of
 * file`; a blank line inside a hunk read as an empty context line (editors
 * strip the lone space); text before, between and after file sections (a
 * commit message, `Index:` lines) is skipped. Refused: binary patches and
 * copies.
 *
 * Applying is exact, line by line (a `\r` is part of a line): a hunk is
 * looked for at its stated line shifted by what the previous hunks moved, then
 * at the nearest lines above and below, anywhere after the previous hunk, as
 * `patch` does without fuzz.
 *
 * @internal
 */

/** One line of a hunk. */
export interface HunkLine {
  readonly kind: " " | "-" | "+"
  readonly text: string
}

/** One hunk: the lines it expects (context and `-`) and those it leaves (context and `+`). */
export interface Hunk {
  /** The `@@ … @@` line, for messages. */
  readonly header: string
  readonly oldStart: number
  readonly oldCount: number
  readonly newStart: number
  readonly newCount: number
  readonly lines: ReadonlyArray<HunkLine>
  /** The old side's last line has no line break (the file's end). */
  readonly oldNoNewline: boolean
  /** The new side's last line has no line break. */
  readonly newNoNewline: boolean
}

/** The patch of one file; a missing path is `/dev/null` (a creation or a deletion). */
export interface FilePatch {
  readonly oldPath: string | undefined
  readonly newPath: string | undefined
  readonly rename: boolean
  readonly hunks: ReadonlyArray<Hunk>
  /** 1-based line of the patch where this file's section starts. */
  readonly line: number
}

/** Why a patch could not be parsed: the 1-based line and what is wrong. */
export interface ParseError {
  readonly line: number
  readonly message: string
}

/** Why a hunk does not apply. */
export interface Mismatch {
  /** 1-based. */
  readonly hunk: number
  readonly header: string
  readonly message: string
}

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/

const octal = /^[0-7]{3}/

// git's C-style quoting: "a/\303\251 b.txt" → a/é b.txt
const unquote = (quoted: string): string | undefined => {
  const bytes: Array<number> = []
  const encoder = new TextEncoder()
  for (let i = 1; i < quoted.length; i++) {
    const c = quoted[i]!
    if (c === '"') {
      return i === quoted.length - 1 ? new TextDecoder().decode(new Uint8Array(bytes)) : undefined
    }
    if (c !== "\\") {
      bytes.push(...encoder.encode(c))
      continue
    }
    const next = quoted[++i]
    const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, "\\": 92, '"': 34 }
    if (next !== undefined && simple[next] !== undefined) bytes.push(simple[next]!)
    else if (octal.test(quoted.slice(i, i + 3))) {
      bytes.push(Number.parseInt(quoted.slice(i, i + 3), 8))
      i += 2
    } else return undefined
  }
  return undefined
}

// The name in a `---` / `+++` line: quoted, or up to a tab (diff -u puts a timestamp after it).
const headerName = (rest: string): string | undefined => {
  const text = rest.endsWith("\r") ? rest.slice(0, -1) : rest
  if (text.startsWith('"')) {
    const end = text.indexOf('"', 1)
    let close = -1
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "\\") i++
      else if (text[i] === '"') {
        close = i
        break
      }
    }
    return close === -1 || end === -1 ? undefined : unquote(text.slice(0, close + 1))
  }
  const tab = text.indexOf("\t")
  return (tab === -1 ? text : text.slice(0, tab)).replace(/\s+$/, "")
}

// `diff --git a/x b/y`: both names, when they can be told apart.
const gitHeaderNames = (rest: string): readonly [string, string] | undefined => {
  const text = rest.endsWith("\r") ? rest.slice(0, -1) : rest
  if (text.startsWith('"')) {
    let close = -1
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "\\") i++
      else if (text[i] === '"') {
        close = i
        break
      }
    }
    if (close === -1) return undefined
    const first = unquote(text.slice(0, close + 1))
    const tail = text.slice(close + 2)
    const second = tail.startsWith('"') ? unquote(tail) : tail
    return first === undefined || second === undefined ? undefined : [first, second]
  }
  // Unquoted: "a/P b/P" with the same P on both sides when nothing is renamed.
  const half = (text.length - 1) / 2
  if (Number.isInteger(half) && text[half] === " ") {
    const a = text.slice(0, half)
    const b = text.slice(half + 1)
    if (a.slice(a.indexOf("/") + 1) === b.slice(b.indexOf("/") + 1)) return [a, b]
  }
  const space = text.indexOf(" b/")
  return space === -1 ? undefined : [text.slice(0, space), text.slice(space + 1)]
}

const stripComponents = (path: string, count: number): string | undefined => {
  if (count === 0) return path
  const parts = path.split("/")
  let removed = 0
  let i = 0
  while (removed < count && i < parts.length - 1) {
    if (parts[i] !== "") removed++
    i++
  }
  return removed < count ? undefined : parts.slice(i).join("/")
}

interface Section {
  line: number
  git: boolean
  gitNames: readonly [string, string] | undefined
  oldPath: string | undefined
  newPath: string | undefined
  sawHeaders: boolean
  created: boolean
  deleted: boolean
  renameFrom: string | undefined
  renameTo: string | undefined
  hunks: Array<Hunk>
}

const devNull = "/dev/null"

/**
 * Parses a unified diff. `strip` removes that many leading components from
 * the `---` / `+++` names; by default 1 for a `diff --git` section or when
 * the names start with `a/` and `b/`, else 0.
 */
export const parse = (
  text: string,
  strip?: number | undefined
): { readonly _tag: "Ok"; readonly files: ReadonlyArray<FilePatch> } | ({ readonly _tag: "Error" } & ParseError) => {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  const files: Array<FilePatch> = []
  let section: Section | undefined
  const fail = (line: number, message: string) => ({ _tag: "Error" as const, line, message })

  const finish = (): ParseError | undefined => {
    if (section === undefined) return undefined
    const s = section
    section = undefined
    const auto = (old: string | undefined, neu: string | undefined) =>
      s.git ||
      ((old === undefined || old.startsWith("a/")) &&
        (neu === undefined || neu.startsWith("b/")) &&
        (old ?? neu) !== undefined)
    let oldPath: string | undefined
    let newPath: string | undefined
    if (s.sawHeaders) {
      oldPath = s.oldPath === devNull ? undefined : s.oldPath
      newPath = s.newPath === devNull ? undefined : s.newPath
    } else if (s.gitNames !== undefined) {
      // A git section without ---/+++: an empty new or deleted file, a pure rename, a mode change.
      oldPath = s.created ? undefined : s.gitNames[0]
      newPath = s.deleted ? undefined : s.gitNames[1]
    } else return { line: s.line, message: "a file section without --- and +++ lines" }
    const count = strip ?? (auto(oldPath, newPath) ? 1 : 0)
    const strippedOld = oldPath === undefined ? undefined : stripComponents(oldPath, count)
    const strippedNew = newPath === undefined ? undefined : stripComponents(newPath, count)
    if ((oldPath !== undefined && strippedOld === undefined) || (newPath !== undefined && strippedNew === undefined)) {
      return { line: s.line, message: `a file name has fewer than ${count} leading directories to strip` }
    }
    const rename = s.renameFrom !== undefined && s.renameTo !== undefined
    const finalOld = rename ? s.renameFrom : strippedOld
    const finalNew = rename ? s.renameTo : strippedNew
    if (finalOld === undefined && finalNew === undefined) {
      return { line: s.line, message: "both sides of the file section are /dev/null" }
    }
    if (!rename && s.hunks.length === 0 && !s.created && !s.deleted) return undefined // a mode change: nothing to do
    files.push({ oldPath: finalOld, newPath: finalNew, rename, hunks: s.hunks, line: s.line })
    return undefined
  }

  const start = (line: number, git: boolean, gitNames?: readonly [string, string]) => {
    const error = finish()
    section = {
      line,
      git,
      gitNames,
      oldPath: undefined,
      newPath: undefined,
      sawHeaders: false,
      created: false,
      deleted: false,
      renameFrom: undefined,
      renameTo: undefined,
      hunks: []
    }
    return error
  }

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    const number = i + 1
    if (line.startsWith("diff --git ")) {
      const names = gitHeaderNames(line.slice("diff --git ".length))
      if (names === undefined) return fail(number, "cannot read the file names of this diff --git line")
      const error = start(number, true, names)
      if (error !== undefined) return fail(error.line, error.message)
      continue
    }
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      if (section === undefined || section.sawHeaders || section.hunks.length > 0) {
        const error = start(number, false)
        if (error !== undefined) return fail(error.line, error.message)
      }
      const s = section!
      const oldName = headerName(line.slice(4))
      const newName = headerName(lines[i + 1]!.slice(4))
      if (oldName === undefined || newName === undefined || oldName === "" || newName === "") {
        return fail(number, "cannot read the file name of this ---/+++ pair")
      }
      s.oldPath = oldName
      s.newPath = newName
      s.sawHeaders = true
      i++
      continue
    }
    if (line.startsWith("@@ ")) {
      const match = hunkHeader.exec(line)
      if (match === null) return fail(number, "a malformed hunk header; expected @@ -start,count +start,count @@")
      if (section === undefined || (!section.sawHeaders && section.gitNames === undefined)) {
        return fail(number, "a hunk before any --- / +++ file header")
      }
      if (!section.sawHeaders) return fail(number, "a hunk in a git section without --- / +++ lines")
      const oldStart = Number(match[1])
      const oldCount = match[2] === undefined ? 1 : Number(match[2])
      const newStart = Number(match[3])
      const newCount = match[4] === undefined ? 1 : Number(match[4])
      let oldLeft = oldCount
      let newLeft = newCount
      const body: Array<HunkLine> = []
      let oldNoNewline = false
      let newNoNewline = false
      while (oldLeft > 0 || newLeft > 0) {
        i++
        if (i >= lines.length) {
          return fail(number, `the hunk ends early: ${oldLeft} old and ${newLeft} new lines are missing`)
        }
        const bodyLine = lines[i]!
        const kind = bodyLine === "" || bodyLine === "\r" ? " " : bodyLine[0]
        const text = bodyLine === "" || bodyLine === "\r" ? "" : bodyLine.slice(1)
        if (kind === "\\") {
          const last = body.at(-1)
          if (last === undefined) return fail(i + 1, "a \\ No newline marker before any line")
          if (last.kind !== "+") oldNoNewline = true
          if (last.kind !== "-") newNoNewline = true
          continue
        }
        if (kind !== " " && kind !== "-" && kind !== "+") {
          return fail(
            i + 1,
            `the hunk ends early: ${oldLeft} old and ${newLeft} new lines are missing (a hunk line starts with a space, - or +)`
          )
        }
        if (kind !== "+") oldLeft--
        if (kind !== "-") newLeft--
        if (oldLeft < 0 || newLeft < 0) return fail(i + 1, "the hunk has more lines than its header counts")
        body.push({ kind, text })
      }
      if (lines[i + 1]?.startsWith("\\")) {
        i++
        const last = body.at(-1)
        if (last !== undefined && last.kind !== "+") oldNoNewline = true
        if (last !== undefined && last.kind !== "-") newNoNewline = true
      }
      section.hunks.push({
        header: line.slice(0, match[0].length),
        oldStart,
        oldCount,
        newStart,
        newCount,
        lines: body,
        oldNoNewline,
        newNoNewline
      })
      continue
    }
    if (section !== undefined && section.git && !section.sawHeaders) {
      if (line.startsWith("new file mode")) section.created = true
      else if (line.startsWith("deleted file mode")) section.deleted = true
      else if (line.startsWith("rename from ")) section.renameFrom = headerName(line.slice(12))
      else if (line.startsWith("rename to ")) section.renameTo = headerName(line.slice(10))
      else if (line.startsWith("copy from ") || line.startsWith("copy to ")) {
        return fail(number, "copies are not supported; send the new file as a creation (--- /dev/null)")
      } else if (
        line.startsWith("GIT binary patch") ||
        (line.startsWith("Binary files ") && line.endsWith(" differ"))
      ) {
        return fail(number, "binary patches are not supported")
      }
      continue
    }
    if (line.startsWith("Binary files ") && line.endsWith(" differ"))
      return fail(number, "binary patches are not supported")
    // Anything else outside a hunk (a commit message, "Index:", "===") is skipped.
  }
  const error = finish()
  if (error !== undefined) return fail(error.line, error.message)
  if (files.length === 0) return fail(1, "no file changes found; expected --- / +++ headers followed by @@ hunks")
  return { _tag: "Ok", files }
}

const show = (text: string) => JSON.stringify(text.length > 120 ? text.slice(0, 120) + "…" : text)

const sameLines = (lines: ReadonlyArray<string>, at: number, expected: ReadonlyArray<string>) => {
  for (let i = 0; i < expected.length; i++) if (lines[at + i] !== expected[i]) return false
  return true
}

/**
 * Applies hunks, in order, to a file's text (`""` for a file to create).
 * Returns the new text, or the first hunk that does not match with a
 * message saying what differs.
 */
export const apply = (
  content: string,
  hunks: ReadonlyArray<Hunk>
): { readonly _tag: "Ok"; readonly content: string } | ({ readonly _tag: "Mismatch" } & Mismatch) => {
  const endsWithNewline = content.endsWith("\n")
  const lines = content === "" ? [] : (endsWithNewline ? content.slice(0, -1) : content).split("\n")
  let finalNewline = endsWithNewline || lines.length === 0
  const out: Array<string> = []
  let consumed = 0
  let shift = 0
  for (let k = 0; k < hunks.length; k++) {
    const hunk = hunks[k]!
    const mismatch = (message: string) => ({ _tag: "Mismatch" as const, hunk: k + 1, header: hunk.header, message })
    const expected = hunk.lines.filter((line) => line.kind !== "+").map((line) => line.text)
    const replacement = hunk.lines.filter((line) => line.kind !== "-").map((line) => line.text)
    const stated = (hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1) + shift
    const last = lines.length - expected.length
    let at = -1
    if (expected.length === 0) {
      at = Math.min(Math.max(stated, consumed), lines.length)
    } else {
      for (let distance = 0; distance <= lines.length; distance++) {
        const below = stated + distance
        const above = stated - distance
        if (below >= consumed && below <= last && sameLines(lines, below, expected)) {
          at = below
          break
        }
        if (distance > 0 && above >= consumed && above <= last && sameLines(lines, above, expected)) {
          at = above
          break
        }
        if (below > last && above < consumed) break
      }
    }
    if (at === -1) {
      const probe = Math.max(consumed, Math.min(stated, Math.max(consumed, last)))
      for (let i = 0; i < expected.length; i++) {
        const actual = lines[probe + i]
        if (actual === expected[i]) continue
        if (actual === undefined) {
          return mismatch(
            `its ${expected.length} context and removed lines are not in the file; at line ${probe + 1} the file ends ` +
              `after ${lines.length} lines where the hunk expects ${show(expected[i]!)}`
          )
        }
        const note = actual.trim() === expected[i]!.trim() ? " (they differ only in whitespace)" : ""
        return mismatch(
          `its ${expected.length} context and removed lines are not in the file; line ${probe + i + 1} is ` +
            `${show(actual)} where the hunk expects ${show(expected[i]!)}${note}`
        )
      }
      return mismatch("its context and removed lines are not in the file after the previous hunk")
    }
    const reachesEnd = at + expected.length === lines.length
    if (hunk.oldNoNewline && !reachesEnd) {
      return mismatch("it says the file ends without a line break, but its lines are not at the end of the file")
    }
    if (hunk.newNoNewline && !reachesEnd) {
      return mismatch("it leaves a line without a line break in the middle of the file")
    }
    for (let i = consumed; i < at; i++) out.push(lines[i]!)
    out.push(...replacement)
    consumed = at + expected.length
    shift = at - (hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1)
    if (reachesEnd) finalNewline = replacement.length > 0 ? !hunk.newNoNewline : true
  }
  for (let i = consumed; i < lines.length; i++) out.push(lines[i]!)
  return { _tag: "Ok", content: out.length === 0 ? "" : out.join("\n") + (finalNewline ? "\n" : "") }
}
