import type { StoredParts } from "./shardFile"

// What the compiling thread hands the read-ahead worker once the files are read: the shards to write, a message or more.

export interface SaveMessage {
  readonly modelsDir: string
  /** The compiling thread's build id, written into each shard's header (the worker's bundle may be another build's). */
  readonly build: string
  /** Shard number and its stored form (undefined: remove the shard's file), as `writeShardFiles` takes them. */
  readonly shards: ReadonlyArray<readonly [number, StoredParts | undefined]>
  /** The save's last message. */
  readonly last: boolean
}

/** How long the worker waits, its files read, for a save before it ends (a compile that failed saves nothing). */
export const savePatienceMs = 10_000

/** How long a worker started before its files were known waits for them (it is stopped, or unreferenced, well before). */
export const handPatienceMs = 60_000
