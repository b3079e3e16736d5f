import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { MessagePort, Worker } from "node:worker_threads"
import { lazy } from "../../../platform/lazy"
import { FileKind } from "./fileWork"
import type { SaveMessage } from "./readAheadSave"
import {
  CLAIMED_BY_READER,
  CLAIMED_BY_WORKER,
  type FilesMessage,
  type LoopWork,
  META,
  NOT_WORKED,
  POSTED,
  readWhole,
  SAVE,
  SAVE_ASKED,
  SAVE_DONE,
  SAVE_IDLE,
  SAVE_POSTED,
  type SpawnData,
  STATE_SLOTS,
  UNCLAIMED,
  WANTED,
  WORK_AS_JSON
} from "./readAheadLoop"

/** What a compile keeps of a file's stat: the stamp fields (`compileCache.ts`). */
export interface FileStat {
  readonly size: number
  readonly mtimeMs: number
  readonly ctimeMs: number
  readonly ino: number
}

/** A file's text with the stat of the descriptor it was read from. */
export interface Stamped {
  readonly text: string
  readonly stat: FileStat
}

/**
 * Reads a file with the stat of the open descriptor, as `readFileSync` reads it (up to the size the
 * stat gave: a file written meanwhile carries a newer stamp, so the next compile reads it again);
 * undefined on any failure (the plain reader then reports it). The reference for
 * `readAheadLoop`, which reads the same way on a worker thread.
 */
export const readStamped = (path: string): Stamped | undefined => {
  try {
    const fd = NodeFs.openSync(path, "r")
    try {
      const stat = NodeFs.fstatSync(fd)
      const buffer = Buffer.allocUnsafe(stat.size)
      const length = readWhole(fd, buffer, 0, stat.size)
      return { text: buffer.toString("utf8", 0, length), stat }
    } finally {
      NodeFs.closeSync(fd)
    }
  } catch {
    return undefined
  }
}

/** A file read ahead by the worker: its bytes in a chunk and its work, or `ok` false where the worker's read failed. */
interface Received {
  readonly ok: boolean
  readonly bytes: Buffer
  readonly start: number
  readonly length: number
  readonly stat: FileStat
  readonly key: string | undefined
  readonly worked: number
  readonly work: unknown
  readonly summary: string | undefined
}

/**
 * A file as the worker read it, with its content key (`contentHash`, where the worker took it) and
 * its `fileWork` where the worker did it (`worked`), with the work's JSON text where it came as JSON.
 */
export interface ReadAheadFile extends Stamped {
  /** Its content key, where the worker took it (else the caller hashes the text). */
  readonly key: string | undefined
  readonly worked: boolean
  /** The work (undefined when it was not done, or came as JSON with a summary the caller takes instead). */
  readonly work: unknown
  readonly workJson: string | undefined
  /** The work's summary as JSON (`workSummary`: a sidecar's), where the worker made one. */
  readonly summaryJson: string | undefined
}

export interface ReadAhead {
  /**
   * The file at `index` of the list as the worker read it, or undefined when this thread should read
   * it itself: the worker had not claimed it yet (it now never will), its read failed, or the worker
   * stopped answering. With `summaryDoes`, work that came with a summary is left as JSON (not parsed).
   */
  readonly take: (index: number, summaryDoes?: boolean) => ReadAheadFile | undefined
  /** Files the worker has not claimed are no longer needed: it finishes those it has and waits for a save. */
  readonly stopReading: () => void
  /**
   * Hands the worker the messages of a save, posted as they are made (the worker writes each as it
   * comes, while this thread makes the next and then goes on); false when it cannot take them (it
   * stopped waiting, or stopped answering): then the caller writes them.
   */
  readonly saveShards: (messages: Iterable<SaveMessage>) => boolean
  /**
   * Waits for the handed shards: "written", or "failed" (the worker could not, or ended first) or
   * "timedOut" (it did not say within `savePatienceMs`), where the caller writes them itself.
   */
  readonly awaitSaved: () => "written" | "failed" | "timedOut"
  /** Stops the worker. */
  readonly close: () => void
}

export interface ReadAheadOptions {
  /** A worker started early (`spawnReadAhead`), adopted instead of starting one. */
  readonly spawned?: SpawnedReadAhead
  /** The worker's bundle; by default `pcli-read-ahead.cjs` beside this bundle (absent when run from source: no read-ahead). */
  readonly workerFile?: string
  readonly chunkFiles?: number
  readonly chunkBytes?: number
  /** How long to wait for a file the worker claimed before reading it here instead. */
  readonly patienceMs?: number
  /** How many files this thread claims at once when it reaches one the worker has not. */
  readonly claimRun?: number
  /** False: this thread never reads a file itself, it waits for the worker (tests see every file go through it). */
  readonly readerClaims?: boolean
  /** How long to wait for the worker to write the shards handed to it before writing them here. */
  readonly savePatienceMs?: number
}

/**
 * The worker's order: sidecars and contracts first, in order, then SQL files from the last. This
 * thread reads the SQL itself from the first (pass 1 needs it first) while the worker decodes the
 * sidecars it will need next; a worker done early meets it in the SQL from the other end, reading
 * and keying it (the SQL's tables are read here: readAheadWorker.ts).
 */
export const visitOrder = (kinds: Uint8Array): Int32Array => {
  const order = new Int32Array(kinds.length)
  let at = 0
  for (let i = 0; i < kinds.length; i++) if (kinds[i] !== FileKind.sql) order[at++] = i
  for (let i = kinds.length - 1; i >= 0; i--) if (kinds[i] === FileKind.sql) order[at++] = i
  return order
}

/** node:worker_threads, loaded when a read-ahead starts: the light commands' start-up never needs it. */
const workerThreads = lazy(() => require("node:worker_threads") as typeof import("node:worker_threads"))

declare const __dirname: string | undefined
const defaultWorkerFile = () => (typeof __dirname === "string" ? NodePath.join(__dirname, "pcli-read-ahead.cjs") : undefined)

/** A read-ahead worker started before its files are known (its start-up then overlaps the listing); `startReadAhead` hands them to it. */
export interface SpawnedReadAhead {
  /** The worker, its end of the channel, and how to hand it its files: the first time only (undefined once adopted or released). */
  readonly adopt: () => { readonly worker: Worker; readonly port: MessagePort; readonly hand: (work: LoopWork) => void } | undefined
  /** Stops the worker unless a read-ahead adopted it (then the read-ahead stops it). */
  readonly release: () => void
}

/** Starts a read-ahead worker that waits for its files (`workerFile`: as `ReadAheadOptions`); undefined where none can start. */
export const spawnReadAhead = (workerFile: string | undefined = defaultWorkerFile()): SpawnedReadAhead | undefined => {
  if (workerFile === undefined || !NodeFs.existsSync(workerFile)) return undefined
  const { MessageChannel, Worker } = workerThreads()
  const channel = new MessageChannel()
  const spawn: SpawnData = { port: channel.port2, handed: new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT) }
  let worker: Worker
  try {
    worker = new Worker(workerFile, { workerData: spawn, transferList: [channel.port2] })
  } catch {
    return undefined
  }
  worker.unref()
  // An error in the worker ends its work; what it did not answer is done here once patience runs out.
  worker.on("error", () => undefined)
  let state: "waiting" | "adopted" | "released" = "waiting"
  const hand = (work: LoopWork) => {
    channel.port1.postMessage(work)
    const handed = new Int32Array(spawn.handed)
    Atomics.store(handed, 0, 1)
    Atomics.notify(handed, 0)
  }
  return {
    adopt: () => {
      if (state !== "waiting") return undefined
      state = "adopted"
      return { worker, port: channel.port1, hand }
    },
    release: () => {
      if (state !== "waiting") return
      state = "released"
      channel.port1.close()
      void worker.terminate()
    }
  }
}

/**
 * Starts a worker thread (or adopts `options.spawned`) that reads `paths` in `visitOrder`, keying
 * each and decoding sidecars and contracts (`fileWork`; SQL's is left here), while this thread takes them
 * in list order: on a cold compile of 10,000 models the work splits about evenly between the two
 * cores. Each file is claimed once, by the worker or by this thread, so a file the worker has not
 * reached is read here at once instead of waited for. Undefined where no worker can start.
 */
export const startReadAhead = (
  paths: ReadonlyArray<string>,
  kinds: Uint8Array,
  options: ReadAheadOptions = {}
): ReadAhead | undefined => {
  const started = options.spawned?.adopt() ?? spawnReadAhead(options.workerFile)?.adopt()
  if (started === undefined) return undefined
  const { worker, port } = started
  const stateBuffer = new SharedArrayBuffer(STATE_SLOTS * Int32Array.BYTES_PER_ELEMENT)
  const claimsBuffer = new SharedArrayBuffer(Math.max(1, paths.length))
  const state = new Int32Array(stateBuffer)
  const claims = new Uint8Array(claimsBuffer)
  const { receiveMessageOnPort } = workerThreads()
  started.hand({
    paths,
    kinds,
    order: visitOrder(kinds),
    state: stateBuffer,
    claims: claimsBuffer,
    chunkFiles: options.chunkFiles ?? 64,
    chunkBytes: options.chunkBytes ?? 256 * 1024
  })
  const patienceMs = options.patienceMs ?? 2000
  const claimRun = options.claimRun ?? 16
  const readerClaims = options.readerClaims ?? true
  const files: Array<Received | undefined> = new Array(paths.length)
  let messagesSeen = 0
  let stalled = false

  const drain = () => {
    for (;;) {
      const received = receiveMessageOnPort(port)
      if (received === undefined) return
      messagesSeen++
      const message = received.message as FilesMessage
      const { meta, keys, work } = message
      const buffer = Buffer.from(message.bytes)
      for (let at = 0, row = 0; at < meta.length; at += META, row++) {
        files[meta[at]!] = {
          ok: meta[at + 1] === 1,
          bytes: buffer,
          start: meta[at + 2]!,
          length: meta[at + 3]!,
          stat: { size: meta[at + 4]!, mtimeMs: meta[at + 5]!, ctimeMs: meta[at + 6]!, ino: meta[at + 7]! },
          key: keys[row],
          worked: meta[at + 8]!,
          work: work[row],
          summary: message.summaries[row]
        }
      }
    }
  }
  /** Waits (with patience) for file `index`; false when the worker stopped answering. */
  const waitFor = (index: number): boolean => {
    Atomics.store(state, WANTED, index + 1)
    const deadline = Date.now() + patienceMs
    for (;;) {
      drain()
      if (files[index] !== undefined) return true
      const left = deadline - Date.now()
      if (left <= 0) {
        stalled = true
        return false
      }
      const posted = Atomics.load(state, POSTED)
      if (posted === messagesSeen) Atomics.wait(state, POSTED, posted, left)
    }
  }
  const take = (index: number, summaryDoes = false): ReadAheadFile | undefined => {
    if (stalled || index < 0 || index >= paths.length) return undefined
    const claim = readerClaims
      ? Atomics.compareExchange(claims, index, UNCLAIMED, CLAIMED_BY_READER)
      : Atomics.load(claims, index) === CLAIMED_BY_READER
        ? CLAIMED_BY_READER // taken already
        : CLAIMED_BY_WORKER
    if (claim === UNCLAIMED) {
      // Caught up with the worker: the next files are claimed here too, so the two do not take turns file by file.
      for (let next = index + 1; next < index + claimRun && next < paths.length; next++) {
        if (Atomics.compareExchange(claims, next, UNCLAIMED, CLAIMED_BY_READER) !== UNCLAIMED) break
      }
    }
    if (claim !== CLAIMED_BY_WORKER) return undefined
    if (files[index] === undefined && !waitFor(index)) return undefined
    const got = files[index]!
    files[index] = undefined
    // Taken once: a second take of the same file reads it here.
    Atomics.store(claims, index, CLAIMED_BY_READER)
    if (!got.ok) return undefined
    const text = got.bytes.toString("utf8", got.start, got.start + got.length)
    const workJson = got.worked === WORK_AS_JSON ? (got.work as string) : undefined
    const summaryJson = workJson !== undefined ? got.summary : undefined
    const work = workJson === undefined ? got.work : summaryDoes && summaryJson !== undefined ? undefined : JSON.parse(workJson)
    return { text, stat: got.stat, key: got.key, worked: got.worked !== NOT_WORKED, work, workJson, summaryJson }
  }
  let stopped = false
  const stopReading = () => {
    if (stopped) return
    stopped = true
    // Every file still unclaimed is claimed here, so a worker still reading stops at its next file.
    for (let index = 0; index < paths.length; index++) Atomics.compareExchange(claims, index, UNCLAIMED, CLAIMED_BY_READER)
  }
  const saveShards = (messages: Iterable<SaveMessage>): boolean => {
    stopReading()
    if (stalled || Atomics.compareExchange(state, SAVE, SAVE_IDLE, SAVE_ASKED) !== SAVE_IDLE) return false
    Atomics.notify(state, SAVE)
    for (const message of messages) {
      port.postMessage(message)
      Atomics.add(state, SAVE_POSTED, 1)
      Atomics.notify(state, SAVE_POSTED)
    }
    return true
  }
  const awaitSaved = (): "written" | "failed" | "timedOut" => {
    const deadline = Date.now() + (options.savePatienceMs ?? 30_000)
    for (;;) {
      const now = Atomics.load(state, SAVE)
      if (now !== SAVE_ASKED) return now === SAVE_DONE ? "written" : "failed"
      const left = deadline - Date.now()
      if (left <= 0) return "timedOut"
      Atomics.wait(state, SAVE, SAVE_ASKED, left)
    }
  }
  const close = () => {
    stalled = true
    stopReading()
    port.close()
    void worker.terminate()
  }
  return { take, stopReading, saveShards, awaitSaved, close }
}
