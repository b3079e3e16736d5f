import type { CacheBody } from "./compileCache"
import { FileKind, type SidecarSummary } from "./fileWork"
import type { ModelListing } from "../models"
import type { FileStat } from "./readAhead"

// What a cached load (cachedLoad.ts) reads and how it counts: the files it will read, what a read
// gives, and how the compile used its cache.

/** How a compile used its cache: read by `pcli compile`'s trace and by tests. */
export interface CacheUse {
  readonly cache: "hit" | "absent" | "corrupt" | "foreign" | "off"
  /** Models whose SQL was read for its references this time (by the fast reader or DuckDB). */
  readonly sqlParsed: number
  /** Models whose SQL only DuckDB's parser could read this time. */
  readonly sqlParsedByDuckDb: number
  /** Models whose sidecar/contract were decoded from TOML this time. */
  readonly sidecarsDecoded: number
  /** Files read this time (the others were known by their unchanged stat). */
  readonly filesRead: number
}

export { racyMarginMs } from "./modelStats"

/**
 * From how many files a worker reads ahead: a cold compile of a large project, not a warm one or a
 * small one. Measured: no gain at 4,400 files (2,000 models), 9 % at 8,800, 15-20 % at 22,000; and
 * a thread's memory stays with the process (+13 MB peak for a `pcli run` of 2,000 models).
 */
export const readAheadMinFiles = 6000

/**
 * The files a load will read, in the order it reads them (every SQL file, then each model's sidecar
 * and contract), mapped to their place in that order: those the stat index does not know. A known
 * file is stat-ed first and mostly not read, so it is left out.
 */
export const filesToRead = (
  listing: ModelListing,
  shards: ReadonlyArray<number>,
  olds: ReadonlyArray<CacheBody>
): { readonly order: Map<string, number>; readonly kinds: Uint8Array } => {
  const out = new Map<string, number>()
  const kinds: Array<FileKind> = []
  const add = (shard: number, file: string, path: string, kind: FileKind) => {
    if (!olds[shard]!.files.rows.has(file)) {
      out.set(path, out.size)
      kinds.push(kind)
    }
  }
  for (let i = 0; i < listing.names.length; i++) add(shards[i]!, `${listing.names[i]!}.sql`, listing.sqlPaths[i]!, FileKind.sql)
  for (let i = 0; i < listing.names.length; i++) {
    add(shards[i]!, `${listing.names[i]!}.toml`, listing.sidecarPaths[i]!, FileKind.sidecar)
    const contract = listing.contractPaths[i]
    if (contract !== undefined) add(shards[i]!, `${listing.names[i]!}.contract.toml`, contract, FileKind.contract)
  }
  return { order: out, kinds: Uint8Array.from(kinds) }
}

/** A file's text, its stat (where read with one), and its content key and `fileWork` where the read-ahead worker read it. */
export interface Read {
  readonly text: string
  readonly stat: FileStat | undefined
  readonly key: string | undefined
  readonly worked: boolean
  readonly work: unknown
  /** Where the worker sent the work as JSON: that JSON, and its summary's (`workSummary`) if it made one. */
  readonly workJson?: string | undefined
  readonly summaryJson?: string | undefined
}

/** A sidecar or contract: its value (undefined: only the plain decoder reads it), content key, text where read, and whether decoded now. */
export interface Decoded<T> {
  readonly value: T | undefined
  readonly key: string | undefined
  readonly text: string | undefined
  readonly decoded: boolean
  /** A sidecar the worker decoded, left unparsed: its summary and its JSON (then `value` is undefined). */
  readonly summary?: SidecarSummary
  readonly json?: string
}
