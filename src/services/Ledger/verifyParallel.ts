import { isUtf8 } from "node:buffer"
import { blake3WasmModulePath, createBlake3Hasher } from "../../platform/blake3"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { type RangeResult, type RawDatabase, type SeqRange, verifyRange } from "./verifyRange"

/** A better-sqlite3 connection opened read-only on the store's file (or its `immutable` URI). */
interface OpenDatabase extends RawDatabase {
  readonly pragma: (source: string) => unknown
  readonly close: () => void
}
type DatabaseConstructor = new (filename: string, options: { readonly readonly: boolean }) => OpenDatabase

// better-sqlite3 and hash-wasm's BLAKE3 are loaded by path in the worker: an `eval` worker resolves
// bare names from the working directory, not from pcli's install.
const modulePaths = () => ({ sqlite: require.resolve("better-sqlite3"), blake3: blake3WasmModulePath() })

// One pass over the rows: a small page cache, because fresh memory is what a big one costs.
const CACHE_PRAGMA = "cache_size = -2000"

const WORKER_SOURCE = (fn: string) => `"use strict"
const { parentPort, workerData } = require("node:worker_threads")
const Database = require(workerData.paths.sqlite)
const { createBLAKE3 } = require(workerData.paths.blake3)
const { isUtf8 } = require("node:buffer")
const verifyRange = (${fn})
createBLAKE3().then((hasher) => {
  const db = new Database(workerData.target, { readonly: true })
  try {
    db.pragma(${JSON.stringify(CACHE_PRAGMA)})
    parentPort.postMessage(verifyRange(db, hasher, workerData.range, isUtf8))
  } finally {
    db.close()
  }
})`

const inWorker = (source: string, target: string, range: SeqRange, paths: ReturnType<typeof modulePaths>) =>
  new Promise<RangeResult>((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { target, range, paths } })
    worker.once("message", (result: RangeResult) => resolve(result))
    worker.once("error", reject)
    worker.once("exit", (code) => reject(new Error(`chain verification worker exited with code ${code}`)))
  })

const inProcess = async (target: string, range: SeqRange): Promise<RangeResult> => {
  const Database = require("better-sqlite3") as DatabaseConstructor
  const hasher = await createBlake3Hasher()
  const db = new Database(target, { readonly: true })
  try {
    db.pragma(CACHE_PRAGMA)
    return verifyRange(db, hasher, range, isUtf8)
  } finally {
    db.close()
  }
}

/** (`after`, `upTo`] cut into `parts` seq ranges of about equal width, in order. */
export const splitRanges = (after: number, upTo: number, parts: number): ReadonlyArray<readonly [number, number]> => {
  const width = Math.ceil((upTo - after) / parts)
  const out: Array<readonly [number, number]> = []
  for (let lo = after; lo < upTo; lo += width) out.push([lo, Math.min(upTo, lo + width)])
  return out
}

export interface ParallelOptions {
  /** Below this many rows per range the walk stays in this thread (a worker costs tens of ms). */
  readonly minRowsPerWorker: number
  readonly maxWorkers: number
  /** Seqs per SQLite step: about 400 KB of rows at a time. */
  readonly batchSeqs: number
}

export const DEFAULT_PARALLEL: ParallelOptions = { minRowsPerWorker: 50_000, maxWorkers: 4, batchSeqs: 1024 }

/**
 * Verifies rows `seq` in (`after`, `upTo`] of the store at `target`: split over this thread and
 * worker threads when there are enough rows, else in this thread alone. Results come back in seq
 * order, one per range.
 */
export const verifyRanges = async (
  target: string,
  after: number,
  upTo: number,
  rows: number,
  walk: Omit<SeqRange, "after" | "upTo" | "batchSeqs">,
  options: ParallelOptions = DEFAULT_PARALLEL
): Promise<ReadonlyArray<RangeResult>> => {
  const base = { ...walk, batchSeqs: options.batchSeqs }
  const parts = Math.min(options.maxWorkers, availableParallelism(), Math.floor(rows / options.minRowsPerWorker))
  if (parts < 2) return [await inProcess(target, { ...base, after, upTo })]
  const source = WORKER_SOURCE(verifyRange.toString())
  const paths = modulePaths()
  const [[lo, hi], ...rest] = splitRanges(after, upTo, parts) as [readonly [number, number], ...Array<readonly [number, number]>]
  // The workers start first; this thread, otherwise idle while it waits, walks the first range meanwhile.
  const inWorkers = Promise.all(rest.map(([from, to]) => inWorker(source, target, { ...base, after: from, upTo: to }, paths)))
  // Awaited below: a worker failing while this thread walks is not an unhandled rejection.
  inWorkers.catch(() => undefined)
  const here = await inProcess(target, { ...base, after: lo, upTo: hi })
  return [here, ...(await inWorkers)]
}
