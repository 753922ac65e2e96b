/**
 * The search workers of the local-disk workspace: a small pool of worker
 * threads (at most `min(4, availableParallelism())`, started when the first
 * search needs them, not keeping the process alive while idle) that read and
 * match batches of files with synchronous file-system calls. A batch can be
 * cancelled: a queued one is dropped, a running one's worker is terminated
 * (a regular expression stuck in backtracking cannot be stopped any other
 * way) and replaced on demand.
 *
 * The workers run the source text of `searchScan.ts`'s self-contained
 * functions (`new Worker(source, { eval: true })`), so the same code runs
 * from the TypeScript sources, the library build and the bundled binary,
 * with no worker file to find.
 *
 * @internal
 */
import * as nodeOs from "node:os"
import { Worker } from "node:worker_threads"
import { type FileOutcome, type ScanMatches, type ScanQuery, scanBytes, workerMain } from "./searchScan.ts"

const source = `"use strict";(${workerMain.toString()})(require, ${scanBytes.toString()})`

/**
 * One batch: the files (absolute path, first line index to match) in walk
 * order, with what every file is checked against.
 *
 * @internal
 */
export interface Batch {
  readonly root: string
  readonly maxFileBytes: number
  readonly query: ScanQuery
  readonly files: ReadonlyArray<readonly [string, number]>
}

/**
 * A submitted batch: `cancel` drops or stops it (its callbacks are never
 * called afterwards); `current` is the index of the file its worker is on.
 *
 * @internal
 */
export interface Running {
  readonly cancel: () => void
  readonly current: () => number | undefined
}

interface Slot {
  readonly worker: Worker
  readonly progress: Int32Array
  task: Task | undefined
}

interface Task {
  readonly id: number
  readonly batch: Batch
  readonly onDone: (results: ReadonlyArray<FileOutcome>) => void
  readonly onFail: (error: unknown) => void
  slot: Slot | undefined
  settled: boolean
}

/**
 * How many workers the pool runs at most.
 *
 * @internal
 */
export const size = Math.max(1, Math.min(4, nodeOs.availableParallelism()))

/**
 * How long a worker busy with a cancelled batch may stay on one file before
 * it is terminated.
 *
 * @internal
 */
export const stuckMillis = 200

const slots: Array<Slot> = []
const queue: Array<Task> = []
let nextId = 0

const remove = (slot: Slot) => {
  const at = slots.indexOf(slot)
  if (at !== -1) slots.splice(at, 1)
}

const fail = (slot: Slot, error: unknown) => {
  remove(slot)
  const task = slot.task
  slot.task = undefined
  if (task !== undefined && !task.settled) {
    task.settled = true
    task.onFail(error)
  }
  pump()
}

// A worker's answer: kind and bytes per file, and [index, matches] pairs for the files with matches.
interface Packed {
  readonly id: number
  readonly codes: Float64Array
  readonly found: ReadonlyArray<number | ScanMatches>
}

const unpack = (message: Packed): ReadonlyArray<FileOutcome> => {
  const matches = new Map<number, ScanMatches>()
  for (let i = 0; i < message.found.length; i += 2) {
    matches.set(message.found[i] as number, message.found[i + 1] as ScanMatches)
  }
  const outcomes: Array<FileOutcome> = []
  for (let i = 0; i < message.codes.length / 2; i++) {
    const kind = message.codes[i * 2]!
    const bytes = message.codes[i * 2 + 1]!
    outcomes.push(kind === 0 ? [0] : kind === 1 ? [1] : kind === 2 ? [2, bytes] : [3, bytes, matches.get(i) ?? []])
  }
  return outcomes
}

const spawn = (): Slot => {
  const progress = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(source, { eval: true, workerData: { progress } })
  worker.unref()
  const slot: Slot = { worker, progress, task: undefined }
  worker.on("message", (message: Packed) => {
    const task = slot.task
    slot.task = undefined
    worker.unref()
    if (task !== undefined && task.id === message.id && !task.settled) {
      task.settled = true
      task.onDone(unpack(message))
    }
    pump()
  })
  worker.on("error", (error) => fail(slot, error))
  worker.on("exit", (code) => fail(slot, new Error(`a search worker exited (code ${code})`)))
  slots.push(slot)
  return slot
}

const pump = () => {
  while (queue.length > 0) {
    const slot = slots.find((candidate) => candidate.task === undefined) ?? (slots.length < size ? spawn() : undefined)
    if (slot === undefined) return
    const task = queue.shift()!
    slot.task = task
    task.slot = slot
    slot.worker.ref()
    // The paths go as one string (a structured clone of one string is far cheaper than of many small arrays).
    const { files, ...rest } = task.batch
    const firsts = files.some(([, first]) => first !== 0) ? files.map(([, first]) => first) : undefined
    slot.worker.postMessage({ id: task.id, ...rest, paths: files.map(([absolute]) => absolute).join("\0"), firsts })
  }
}

/**
 * Submits a batch; `onDone` receives one outcome per file, in order.
 *
 * @internal
 */
export const run = (
  batch: Batch,
  onDone: (results: ReadonlyArray<FileOutcome>) => void,
  onFail: (error: unknown) => void
): Running => {
  const task: Task = { id: nextId++, batch, onDone, onFail, slot: undefined, settled: false }
  queue.push(task)
  pump()
  return {
    cancel: () => {
      if (task.settled) return
      task.settled = true
      const queued = queue.indexOf(task)
      if (queued !== -1) queue.splice(queued, 1)
      const slot = task.slot
      if (slot === undefined || slot.task !== task) return
      // A worker busy with a cancelled batch usually finishes it in a few milliseconds and takes the next one; one
      // that has not moved on after `stuckMillis` is stuck (a regular expression backtracking for ages): it is
      // terminated, and the pool starts another when one is needed.
      const seen = Atomics.load(slot.progress, 0)
      const timer = setTimeout(() => {
        if (slot.task !== task) return
        if (Atomics.load(slot.progress, 0) !== seen && Atomics.load(slot.progress, 0) !== 0) {
          timer.refresh()
          return
        }
        slot.task = undefined
        remove(slot)
        slot.worker.removeAllListeners("exit")
        slot.worker.removeAllListeners("error")
        slot.worker.terminate().catch(() => undefined)
        pump()
      }, stuckMillis)
      timer.unref()
    },
    current: () => {
      const slot = task.slot
      if (slot === undefined || slot.task !== task) return undefined
      const at = Atomics.load(slot.progress, 0)
      return at === 0 ? undefined : at - 1
    }
  }
}

/**
 * How many workers exist and how many are working (for the tests).
 *
 * @internal
 */
export const stats = (): { readonly workers: number; readonly busy: number; readonly queued: number } => ({
  workers: slots.length,
  busy: slots.filter((slot) => slot.task !== undefined).length,
  queued: queue.length
})
