/**
 * The per-file half of `workspace_search`: reading a file and matching it
 * line by line. The same functions run on the main thread (a workspace on
 * another file system, like the test kit's memory workspace) and in the
 * search workers (the local disk, see `searchPool.ts`): the workers receive
 * their source text (`Function.prototype.toString`), so every function here
 * is self-contained — it names nothing outside its own body but globals
 * (`Buffer`, `Atomics`) and its parameters.
 *
 * @internal
 */
import type * as NodeFs from "node:fs"
import type * as NodeThreads from "node:worker_threads"

/**
 * The per-line limits of a scan (from `searchLimits`).
 *
 * @internal
 */
export interface ScanLimits {
  readonly maxLineChars: number
  readonly maxTextChars: number
  readonly binaryProbeBytes: number
}

/**
 * What a search asks of each file: the compiled pattern's source and flags,
 * the literal's bytes when the query is case-sensitive literal text (a file
 * without them is not decoded), and the most matching lines a file reports.
 *
 * @internal
 */
export interface ScanQuery {
  readonly source: string
  readonly flags: string
  readonly literal: string | undefined
  readonly cap: number
  readonly limits: ScanLimits
}

/**
 * One file's matches, flat: line (1-based), column (1-based, UTF-16 units),
 * text (cut around the match) — three entries per matching line.
 *
 * @internal
 */
export type ScanMatches = Array<number | string>

/**
 * The outcome for one file, as a tuple (cheap to pass between threads):
 * `[0]` gone (vanished, not a regular file, or led outside the root since
 * the walk), `[1]` too large, `[2, bytes]` binary, `[3, bytes, matches]`.
 *
 * @internal
 */
export type FileOutcome = readonly [0] | readonly [1] | readonly [2, number] | readonly [3, number, ScanMatches]

/**
 * Matches the lines of one file's bytes from line index `first` (0-based):
 * each line reported once at its first match, CR before LF dropped, the
 * pattern tried on the first `maxLineChars` characters only, the text cut
 * to `maxTextChars` around the match. At most `cap` lines. Returns
 * `undefined` for a binary file (a NUL in the first `binaryProbeBytes`).
 * Self-contained: it also runs in the search workers.
 *
 * @internal
 */
export const scanBytes = (
  bytes: Buffer,
  pattern: RegExp,
  literal: Buffer | undefined,
  first: number,
  cap: number,
  limits: ScanLimits
): ScanMatches | undefined => {
  const probe = bytes.length > limits.binaryProbeBytes ? bytes.subarray(0, limits.binaryProbeBytes) : bytes
  if (probe.indexOf(0) !== -1) return undefined
  const found: ScanMatches = []
  // Case-sensitive literal text absent from the raw bytes cannot match any decoded line.
  if (literal !== undefined && bytes.indexOf(literal) === -1) return found
  const text = bytes.toString("utf8")
  const max = limits.maxTextChars
  let index = 0
  let start = 0
  while (start < text.length) {
    let end = text.indexOf("\n", start)
    if (end === -1) end = text.length
    if (index >= first) {
      let line = text.slice(start, end)
      if (line.endsWith("\r")) line = line.slice(0, -1)
      const target = line.length > limits.maxLineChars ? line.slice(0, limits.maxLineChars) : line
      const match = pattern.exec(target)
      if (match !== null) {
        const at = match.index
        const length = match[0].length
        let cut = line
        if (line.length > max) {
          const from = Math.max(0, Math.min(at - Math.floor((max - Math.min(length, max)) / 2), line.length - max))
          const to = Math.min(line.length, from + max)
          cut = (from > 0 ? "…" : "") + line.slice(from, to) + (to < line.length ? "…" : "")
        }
        found.push(index + 1, at + 1, cut)
        if (found.length >= cap * 3) return found
      }
    }
    index++
    start = end + 1
  }
  return found
}

/**
 * The body of a search worker (run from its source text, see
 * `searchPool.ts`). It receives batches of files, and for each file opens
 * it with `O_NOFOLLOW | O_NONBLOCK` (on Linux through its directory, opened
 * once and checked to be under the root with `/proc/self/fd/N`), checks
 * with `fstat` that it is a regular file, skips it unread when it is larger
 * than the cap, reads it into one reused buffer and scans it. Before each file it writes the file's
 * index (1-based) into `progress`, so the main thread can name the file a
 * stuck regular expression is working on. Self-contained.
 *
 * @internal
 */
export const workerMain = (load: (id: string) => unknown, scan: typeof scanBytes): void => {
  // A worker run from source text is a CommonJS script whose `require` is passed in as `load` (the name `require`
  // must not appear here: a bundler would replace it with its own shim, which the worker does not have).
  const threads = load("node:worker_threads") as typeof NodeThreads
  const fs = load("node:fs") as typeof NodeFs
  const port = threads.parentPort!
  const progress = (threads.workerData as { readonly progress: Int32Array }).progress
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK
  const dirFlags = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW
  const proc = fs.existsSync("/proc/self/fd")
  let buffer = Buffer.allocUnsafe(0)
  let compiled: { key: string; pattern: RegExp; literal: Buffer | undefined } | undefined
  port.on(
    "message",
    (task: {
      readonly id: number
      readonly root: string
      readonly maxFileBytes: number
      readonly query: ScanQuery
      readonly paths: string
      readonly firsts: ReadonlyArray<number> | undefined
    }) => {
      const query = task.query
      const key = `${query.flags}/${query.source}`
      if (compiled === undefined || compiled.key !== key) {
        compiled = {
          key,
          pattern: new RegExp(query.source, query.flags),
          literal: query.literal === undefined ? undefined : Buffer.from(query.literal, "utf8")
        }
      }
      if (buffer.length < task.maxFileBytes + 1) buffer = Buffer.allocUnsafe(task.maxFileBytes + 1)
      const prefix = task.root.endsWith("/") ? task.root : task.root + "/"
      const results: Array<FileOutcome> = []
      const paths = task.paths.split("\0")
      // Files are opened relative to their directory, opened once: the directory with O_NOFOLLOW, its real path
      // (/proc/self/fd/N) checked to be under the root, then each file as /proc/self/fd/N/name with O_NOFOLLOW —
      // the kernel resolves that from the opened directory itself, so no component of the path can be swapped for
      // a symlink in between. Without /proc (not Linux), the path is opened as it is.
      let dirPath: string | undefined
      let dirFd: number | undefined
      let dirBase: string | undefined
      let dirInside = true
      const closeDir = () => {
        if (dirFd !== undefined) {
          try {
            fs.closeSync(dirFd)
          } catch {
            // already closed
          }
        }
        dirFd = undefined
      }
      for (let i = 0; i < paths.length; i++) {
        Atomics.store(progress, 0, i + 1)
        const absolute = paths[i]!
        const first = task.firsts === undefined ? 0 : task.firsts[i]!
        const slash = absolute.lastIndexOf("/")
        const directory = absolute.slice(0, slash)
        if (directory !== dirPath) {
          closeDir()
          dirPath = directory
          dirBase = undefined
          dirInside = true
          if (proc) {
            try {
              dirFd = fs.openSync(directory === "" ? "/" : directory, dirFlags)
              const real = fs.readlinkSync(`/proc/self/fd/${dirFd}`)
              dirInside = real === task.root || real.startsWith(prefix)
              dirBase = `/proc/self/fd/${dirFd}/`
            } catch {
              // Vanished, or swapped for a symlink or a file since the walk: its files are passed over.
              closeDir()
              dirInside = false
            }
          }
        }
        if (!dirInside) {
          results.push([0])
          continue
        }
        let fd: number
        try {
          fd = fs.openSync(dirBase === undefined ? absolute : dirBase + absolute.slice(slash + 1), flags)
        } catch {
          results.push([0])
          continue
        }
        let outcome: FileOutcome = [0]
        try {
          const stat = fs.fstatSync(fd)
          if (!stat.isFile()) {
            outcome = [0]
          } else if (stat.size > task.maxFileBytes) {
            outcome = [1]
          } else {
            // Ask for one byte more than fstat said: a short read is the end (one read for most files); a file
            // that grew since is read on up to the cap.
            let filled = 0
            let wanted = stat.size + 1
            while (filled < buffer.length) {
              const read = fs.readSync(fd, buffer, filled, Math.min(wanted, buffer.length) - filled, null)
              filled += read
              if (read === 0 || filled < Math.min(wanted, buffer.length)) break
              wanted = buffer.length
            }
            if (filled > task.maxFileBytes) outcome = [1]
            else {
              const matches = scan(
                buffer.subarray(0, filled),
                compiled.pattern,
                compiled.literal,
                first,
                query.cap,
                query.limits
              )
              outcome = matches === undefined ? [2, filled] : [3, filled, matches]
            }
          }
        } catch {
          outcome = [0]
        } finally {
          try {
            fs.closeSync(fd)
          } catch {
            // already closed
          }
        }
        results.push(outcome)
      }
      closeDir()
      Atomics.store(progress, 0, 0)
      // Packed (a structured clone of many small arrays costs more than the matching): kind and bytes per file in
      // one transferred Float64Array, the matches of the files that have some as [index, matches] pairs.
      const codes = new Float64Array(results.length * 2)
      const found: Array<number | ScanMatches> = []
      for (let i = 0; i < results.length; i++) {
        const outcome = results[i]!
        codes[i * 2] = outcome[0]
        codes[i * 2 + 1] = outcome.length > 1 ? (outcome[1] as number) : 0
        if (outcome[0] === 3 && outcome[2].length > 0) found.push(i, outcome[2])
      }
      port.postMessage({ id: task.id, codes, found }, [codes.buffer])
    }
  )
}
