import * as NodeFs from "node:fs"
import type { MessagePort } from "node:worker_threads"
import type { FileKind } from "./fileWork"

// The protocol between the read-ahead worker (this loop) and the thread that compiles (readAhead.ts).

/** Slots of the shared Int32Array: messages posted, 1 + the index of a file the reader waits for, the save's state and messages. */
export const POSTED = 0
export const WANTED = 1
export const SAVE = 2
/** Messages the reader has posted for the save so far (the worker takes them as they come). */
export const SAVE_POSTED = 3
export const STATE_SLOTS = 4
/**
 * The save's states: none asked yet; asked (its messages follow, counted in `SAVE_POSTED`); the
 * worker stopped waiting for one (it takes none then); written; not written (the reader writes).
 */
export const SAVE_IDLE = 0
export const SAVE_ASKED = 1
export const SAVE_GAVE_UP = 2
export const SAVE_DONE = 3
export const SAVE_FAILED = 4
/** A file's claim: nobody's yet, the worker's (it reads the file), or the reader's (it reads the file itself). */
export const UNCLAIMED = 0
export const CLAIMED_BY_WORKER = 1
export const CLAIMED_BY_READER = 2
/** Doubles per file in a chunk's meta: index, ok (1/0), byte offset, length, size, mtimeMs, ctimeMs, ino, how its work came. */
export const META = 9
/** How a file's work is in a message: not done, the value (structured clone), or its JSON text (parsed faster than a clone is read). */
export const NOT_WORKED = 0
export const WORK_CLONED = 1
export const WORK_AS_JSON = 2
/**
 * What a worker's `work` gives for a file whose work it leaves to the reader: the file goes out
 * read and keyed, not worked (the reader works it itself, as it would a file it read).
 */
export const LEFT_TO_READER: unique symbol = Symbol("left to the reader")

export interface LoopData {
  readonly paths: ReadonlyArray<string>
  /** Each path's `FileKind`. */
  readonly kinds: Uint8Array
  /** The indexes of `paths` in the order the worker visits them. */
  readonly order: Int32Array
  readonly state: SharedArrayBuffer
  readonly claims: SharedArrayBuffer
  readonly port: MessagePort
  readonly chunkFiles: number
  readonly chunkBytes: number
}

/** The worker's files and how to read them: `LoopData` but the port, posted to a worker started before they were known. */
export type LoopWork = Omit<LoopData, "port">

/** What a worker is started with: its end of the channel, and a flag (an Int32 slot) set once its `LoopWork` is posted on it. */
export interface SpawnData {
  readonly port: MessagePort
  readonly handed: SharedArrayBuffer
}

/**
 * Waits (up to `patienceMs`) for a worker's files, taken off its port by `receive`; undefined when
 * none come (the compile needed no worker, or stopped it first).
 */
export const awaitWork = (spawn: SpawnData, patienceMs: number, receive: () => unknown): LoopData | undefined => {
  Atomics.wait(new Int32Array(spawn.handed), 0, 0, patienceMs)
  const work = receive() as LoopWork | undefined
  return work === undefined ? undefined : { ...work, port: spawn.port }
}

/** Files read: their bytes, a meta row each, each one's content key, and its work (`fileWork`) where its meta says so. */
export interface FilesMessage {
  readonly meta: Float64Array
  readonly bytes: ArrayBuffer
  readonly keys: ReadonlyArray<string | undefined>
  readonly work: ReadonlyArray<unknown>
  /** Where the work went as JSON: its summary's JSON, if `summarize` made one. */
  readonly summaries: ReadonlyArray<string | undefined>
}

/**
 * True when structured cloning (or, with `json`, JSON.stringify then JSON.parse) gives back an equal
 * value: plain objects and arrays of primitives, no dates or classes; for JSON also no undefined,
 * bigint, -0 or non-finite number.
 */
const faithful = (value: unknown, json: boolean): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return !json || (Number.isFinite(value) && !Object.is(value, -0))
    case "undefined":
    case "bigint":
      return !json
    case "object": {
      if (value === null) return true
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false
        // A hole comes back as undefined.
        for (let i = 0; i < value.length; i++) if (!(i in value) || !faithful(value[i], json)) return false
        return true
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false
      for (const key in value) if (!faithful((value as Record<string, unknown>)[key], json)) return false
      return Object.getOwnPropertySymbols(value).length === 0
    }
    default:
      return false // functions and symbols
  }
}

export const cloneFaithful = (value: unknown): boolean => faithful(value, false)
export const jsonFaithful = (value: unknown): boolean => faithful(value, true)

/**
 * Reads up to `size` bytes of an open file into `buffer` at `at`, as `readFileSync` does (a file
 * that shrank gives what it has); the number read. `readStamped` and the worker's loop both read so.
 */
export const readWhole = (fd: number, buffer: Buffer, at: number, size: number): number => {
  let length = 0
  while (length < size) {
    const n = NodeFs.readSync(fd, buffer, at + length, size - length, length)
    if (n === 0) break
    length += n
  }
  return length
}

/**
 * Reads each path it can claim, in `order`, taking each text's content key (where `keyOf` gives one) and doing its `work`.
 * Files go out in chunks of bytes, posted when full or when the reader waits for a file in one.
 * Reads as `readStamped` does, file for file.
 */
export const readAheadLoop = (
  data: LoopData,
  /** A file's content key, or undefined to leave it to the reader. */
  keyOf: (kind: FileKind, text: string) => string | undefined,
  work: (kind: FileKind, text: string) => unknown,
  /** Kinds whose work, when done, is a JSON value by construction: sent as JSON without the walk that checks it. */
  workIsJson: (kind: FileKind) => boolean = () => false,
  /** A summary of work sent as JSON, sent beside it (a reader that needs only that parses less). */
  summarize: (kind: FileKind, work: unknown) => string | undefined = () => undefined
): void => {
  const state = new Int32Array(data.state)
  const claims = new Uint8Array(data.claims)
  const chunk = Buffer.allocUnsafeSlow(data.chunkBytes)
  let bytes = chunk
  let used = 0
  let meta: Array<number> = []
  let done: Array<unknown> = []
  let keys: Array<string | undefined> = []
  let summaries: Array<string | undefined> = []
  // The lowest and highest index in the chunk being filled (the order need not be ascending).
  let lowest = -1
  let highest = -1
  const flush = () => {
    if (meta.length === 0) return
    const out = new Float64Array(meta)
    // The bytes used, copied out (the chunk buffer is reused), move to the reader uncopied.
    const filled = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + used)
    const message: FilesMessage = { meta: out, bytes: filled, keys, work: done, summaries }
    data.port.postMessage(message, [out.buffer, filled])
    bytes = chunk
    used = 0
    meta = []
    done = []
    keys = []
    summaries = []
    lowest = highest = -1
    Atomics.add(state, POSTED, 1)
    Atomics.notify(state, POSTED)
  }
  for (let visit = 0; visit < data.order.length; visit++) {
    const index = data.order[visit]!
    if (Atomics.compareExchange(claims, index, UNCLAIMED, CLAIMED_BY_WORKER) !== UNCLAIMED) continue
    // This file's meta row (see META): stays "not read" unless the read succeeds.
    let ok = 0
    let start = 0
    let length = 0
    let stat: NodeFs.Stats | undefined
    let worked = NOT_WORKED
    let result: unknown
    let summary: string | undefined
    let key: string | undefined
    try {
      const fd = NodeFs.openSync(data.paths[index]!, "r")
      try {
        stat = NodeFs.fstatSync(fd)
        if (used + stat.size > bytes.length) {
          flush()
          if (stat.size > bytes.length) bytes = Buffer.allocUnsafeSlow(stat.size)
        }
        length = readWhole(fd, bytes, used, stat.size)
        const kind = data.kinds[index] as FileKind
        const text = bytes.toString("utf8", used, used + length)
        key = keyOf(kind, text)
        try {
          result = work(kind, text)
          if (result === LEFT_TO_READER) result = undefined
          else if ((result !== undefined && workIsJson(kind)) || jsonFaithful(result)) {
            summary = summarize(kind, result)
            result = JSON.stringify(result)
            worked = WORK_AS_JSON
          } else if (cloneFaithful(result)) worked = WORK_CLONED
        } catch {
          // The reader does the work itself and meets the same failure where it is handled.
        }
        if (worked === NOT_WORKED) result = undefined
        ok = 1
        start = used
        used += length
      } finally {
        NodeFs.closeSync(fd)
      }
    } catch {
      // Left to the reader's own read, which reports the failure as it always does.
    }
    lowest = lowest === -1 ? index : Math.min(lowest, index)
    highest = Math.max(highest, index)
    if (ok === 1 && stat !== undefined) meta.push(index, 1, start, length, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, worked)
    else meta.push(index, 0, 0, 0, 0, 0, 0, 0, NOT_WORKED)
    done.push(result)
    keys.push(key)
    summaries.push(worked === WORK_AS_JSON ? summary : undefined)
    const wanted = Atomics.load(state, WANTED) - 1
    if (meta.length >= data.chunkFiles * META || (wanted >= lowest && wanted <= highest)) flush()
  }
  flush()
}

/**
 * After the loop: waits up to `patienceMs` for the reader to ask for a save (the compile cache's
 * shards, written here while the reader goes on), then writes each message as it comes, up to
 * the last. Gives up, so a compile that saves nothing leaves no thread behind.
 */
export const serveSave = <M>(
  data: LoopData,
  patienceMs: number,
  receive: () => M | undefined,
  write: (message: M) => void,
  isLast: (message: M) => boolean
): void => {
  const state = new Int32Array(data.state)
  Atomics.wait(state, SAVE, SAVE_IDLE, patienceMs)
  if (Atomics.compareExchange(state, SAVE, SAVE_IDLE, SAVE_GAVE_UP) === SAVE_IDLE) return
  let outcome = SAVE_FAILED
  let taken = 0
  try {
    for (;;) {
      const message = receive()
      if (message === undefined) {
        // Not posted yet: wait for the next one (a reader that stopped posting leaves the rest to itself).
        if (Atomics.wait(state, SAVE_POSTED, taken, patienceMs) === "timed-out") break
        continue
      }
      taken++
      write(message)
      if (isLast(message)) {
        outcome = SAVE_DONE
        break
      }
    }
  } catch {
    // The reader writes what was asked, as it would without a worker.
  }
  Atomics.store(state, SAVE, outcome)
  Atomics.notify(state, SAVE)
}

/**
 * The worker is ending (its work done, or a failure): a save not asked for yet never will be, and
 * one asked for and not written is left to the reader, which would otherwise wait out its patience.
 */
export const abandonSave = (data: LoopData): void => {
  const state = new Int32Array(data.state)
  if (Atomics.compareExchange(state, SAVE, SAVE_IDLE, SAVE_GAVE_UP) === SAVE_ASKED) Atomics.store(state, SAVE, SAVE_FAILED)
  Atomics.notify(state, SAVE)
}
