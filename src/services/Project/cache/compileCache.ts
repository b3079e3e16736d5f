import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Context } from "effect"
import type { ModelContract, ModelSidecar } from "../../../schemas/model"
import { contentHash } from "./contentKey"
import {
  cacheBuild,
  cacheFileFor,
  digestOf,
  partsJson,
  SHARD_FORMAT,
  type StoredParts
} from "./shardFile"
import type { TableRef } from "../sql"

/**
 * The compile cache: what is expensive to recompute per file (the tables a model's SQL reads,
 * the TOML + Schema decode of a sidecar or contract), keyed by each text's content hash, in
 * `shardCount` files under `.pcli/compile-cache/` (a model's entries live in the shard of its name,
 * so a compile that changed one model rewrites one small file, not the whole cache). A stat index (size, mtime, ctime, inode per file name, as
 * git's index does) lets a warm compile skip reading files whose stat is unchanged. Each file's
 * header names its format, the pcli build that wrote it, the models directory and the shard, and
 * carries a digest of its body: a shard that is torn, edited, or written by another build or for
 * another directory is ignored and rewritten.
 */

/** Number of shard files (a model's shard: FNV-1a of its name). */
export const shardCount = 64

/** What a file's stat said when it was read, and its text's content key: `[size, mtimeMs, ctimeMs, ino, key]`. */
export type FileStamp = readonly [number, number, number, number, string]

/**
 * File name → stamp, as flat columns (no array or boxed number per file; 22,000 files at 10,000
 * models): row `i` is `numbers[4i … 4i+3]` and `keys[i]`.
 */
export interface StampTable {
  readonly rows: Map<string, number>
  readonly numbers: Array<number>
  readonly keys: Array<string>
}

export const emptyStamps = (): StampTable => ({ rows: new Map(), numbers: [], keys: [] })

/** A file's stamp, if the table has one. */
export const stampOf = (table: StampTable, file: string): FileStamp | undefined => {
  const row = table.rows.get(file)
  if (row === undefined) return undefined
  const n = table.numbers
  return [n[4 * row]!, n[4 * row + 1]!, n[4 * row + 2]!, n[4 * row + 3]!, table.keys[row]!]
}

/** The content key recorded for `file` when its stamp equals the given stat, else undefined. */
export const keyIfStamped = (
  table: StampTable,
  file: string,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number
): string | undefined => {
  const row = table.rows.get(file)
  if (row === undefined) return undefined
  const n = table.numbers
  const at = 4 * row
  return n[at] === size && n[at + 1] === mtimeMs && n[at + 2] === ctimeMs && n[at + 3] === ino ? table.keys[row] : undefined
}

/** Records (or replaces) a file's stamp. */
export const putStamp = (table: StampTable, file: string, stamp: FileStamp): void => {
  let row = table.rows.get(file)
  if (row === undefined) {
    row = table.keys.length
    table.rows.set(file, row)
  }
  table.numbers[4 * row] = stamp[0]
  table.numbers[4 * row + 1] = stamp[1]
  table.numbers[4 * row + 2] = stamp[2]
  table.numbers[4 * row + 3] = stamp[3]
  table.keys[row] = stamp[4]
}

/** Copies a file's stamp from one table to another (it must be in `from`). */
export const copyStamp = (from: StampTable, to: StampTable, file: string): void => putStamp(to, file, stampOf(from, file)!)

/** A model's SQL text and the tables it reads. */
export interface CachedSql {
  readonly text: string
  readonly refs: ReadonlyArray<TableRef>
}

/** The cache in memory. */
export interface CacheBody {
  /** File name in the models directory → its stamp (only files safely older than the compile that read them). */
  readonly files: StampTable
  /** SQL-text hash → the text and the tables it reads. */
  readonly sql: Map<string, CachedSql>
  /** Sidecar-text hash (after `${VAR}` substitution) → the decoded sidecar. */
  readonly sidecars: Map<string, ModelSidecar>
  /** Sidecar-text hash → the decoded sidecar as its JSON only (a compile that needed its summary alone, `pcli compile`'s): written as the others. */
  readonly sidecarJson: Map<string, string>
  /** Contract-text hash → the decoded contract. */
  readonly contracts: Map<string, ModelContract>
}

/**
 * The cache on disk: arrays, not keyed objects (JSON objects with thousands of keys parse into
 * slow dictionaries); stamps as one flat number array (no object per file).
 */
interface StoredBody {
  readonly files: { readonly names: Array<string>; readonly stamps: Array<number>; readonly keys: Array<string> }
  readonly sql: Array<readonly [string, string, ReadonlyArray<TableRef>]>
  readonly sidecars: Array<readonly [string, ModelSidecar]>
  readonly contracts: Array<readonly [string, ModelContract]>
}

const toStored = (body: CacheBody): StoredBody => {
  const names: Array<string> = []
  const stamps: Array<number> = []
  const keys: Array<string> = []
  const { numbers } = body.files
  for (const [name, row] of body.files.rows) {
    names.push(name)
    stamps.push(numbers[4 * row]!, numbers[4 * row + 1]!, numbers[4 * row + 2]!, numbers[4 * row + 3]!)
    keys.push(body.files.keys[row]!)
  }
  return {
    files: { names, stamps, keys },
    sql: [...body.sql].map(([key, entry]) => [key, entry.text, entry.refs] as const),
    sidecars: [...body.sidecars, ...[...body.sidecarJson].map(([key, json]) => [key, JSON.parse(json) as ModelSidecar] as const)],
    contracts: [...body.contracts]
  }
}

/** The plain stored form's JSON: the reference for `storedBodyJson`. */
export const storedBodyJsonPlain = (body: CacheBody): string => JSON.stringify(toStored(body))

/** JSON texts already made for decoded sidecars and contracts (by the read-ahead worker). */
const knownJson = new WeakMap<object, string>()

/** Records that `JSON.stringify(value)` is `json`, so writing `value` into a shard reuses the text. */
export const rememberJson = (value: object, json: string): void => {
  knownJson.set(value, json)
}

/** A body in its stored form, with the sidecars' and contracts' known JSON texts spliced in instead of made again. */
export const storedParts = (body: CacheBody): StoredParts => {
  const stored = toStored({ ...body, sidecarJson: new Map() })
  const pairs = (entries: ReadonlyArray<readonly [string, object]>) =>
    entries.map(([key, value]) => `[${JSON.stringify(key)},${knownJson.get(value) ?? JSON.stringify(value)}]`)
  // The JSON-only sidecars after the others, as `toStored` lists them.
  const sidecars = [...pairs(stored.sidecars), ...[...body.sidecarJson].map(([key, json]) => `[${JSON.stringify(key)},${json}]`)].join(",")
  return { files: stored.files, sql: stored.sql as StoredParts["sql"], sidecars, contracts: pairs(stored.contracts).join(",") }
}

/** `storedBodyJsonPlain(body)`, made from `storedParts`. */
export const storedBodyJson = (body: CacheBody): string => partsJson(storedParts(body))

const isPairs = (value: unknown, width: number): value is Array<Array<unknown>> =>
  Array.isArray(value) && value.every((entry) => Array.isArray(entry) && entry.length === width && typeof entry[0] === "string")

/** The in-memory body of a stored one, or undefined when its shape is not this format's. */
const fromStored = (stored: unknown): CacheBody | undefined => {
  if (!isRecord(stored)) return undefined
  const files = stored["files"]
  if (!isRecord(files)) return undefined
  const { names, stamps, keys } = files as Record<string, unknown>
  if (!Array.isArray(names) || !Array.isArray(stamps) || !Array.isArray(keys)) return undefined
  if (stamps.length !== names.length * 4 || keys.length !== names.length) return undefined
  if (!isPairs(stored["sql"], 3) || !isPairs(stored["sidecars"], 2) || !isPairs(stored["contracts"], 2)) return undefined
  const rows = new Map<string, number>()
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    if (typeof name !== "string" || typeof keys[i] !== "string" || rows.has(name)) return undefined
    rows.set(name, i)
  }
  const body: CacheBody = { ...emptyBody(), files: { rows, numbers: stamps as Array<number>, keys: keys as Array<string> } }
  for (const [key, text, refs] of stored["sql"]) {
    if (typeof text !== "string" || !Array.isArray(refs)) return undefined
    body.sql.set(key as string, { text, refs: refs as ReadonlyArray<TableRef> })
  }
  for (const [key, sidecar] of stored["sidecars"]) body.sidecars.set(key as string, sidecar as ModelSidecar)
  for (const [key, contract] of stored["contracts"]) body.contracts.set(key as string, contract as ModelContract)
  return body
}


export { contentHash }




/** FNV-1a of a model name, modulo `shardCount`: which shard holds the model's entries. */
export const shardOf = (model: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < model.length; i++) h = Math.imul(h ^ model.charCodeAt(i), 0x01000193)
  return (h >>> 0) % shardCount
}


export const emptyBody = (): CacheBody => ({ files: emptyStamps(), sql: new Map(), sidecars: new Map(), sidecarJson: new Map(), contracts: new Map() })

/** A copy of a body that can be added to without changing the original. */
export const copyBody = (body: CacheBody): CacheBody => ({
  files: { rows: new Map(body.files.rows), numbers: body.files.numbers.slice(), keys: body.files.keys.slice() },
  sql: new Map(body.sql),
  sidecars: new Map(body.sidecars),
  sidecarJson: new Map(body.sidecarJson),
  contracts: new Map(body.contracts)
})

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export type ShardStatus = "hit" | "absent" | "corrupt" | "foreign"

/** Outcome of reading one shard, so tests and traces can tell a hit from a rebuild. */
export interface ShardLoad {
  readonly status: ShardStatus
  readonly body: CacheBody
}

/** The shards of a cache as read, and the status of the whole (any shard not a hit decides it). */
export interface CacheLoad {
  readonly status: ShardStatus
  readonly shards: ReadonlyArray<ShardLoad>
}

/**
 * Reads one shard. Anything but an intact file from this build for this directory and shard yields
 * an empty body (and the reason): the cache is never trusted past its digest.
 */
const readShard = (modelsDir: string, shard: number): ShardLoad => {
  let bytes: Buffer
  try {
    bytes = NodeFs.readFileSync(cacheFileFor(modelsDir, shard))
  } catch {
    return { status: "absent", body: emptyBody() }
  }
  const newline = bytes.indexOf(10)
  if (newline === -1) return { status: "corrupt", body: emptyBody() }
  let header: unknown
  try {
    header = JSON.parse(bytes.toString("latin1", 0, newline))
  } catch {
    return { status: "corrupt", body: emptyBody() }
  }
  if (!isRecord(header) || header["format"] !== SHARD_FORMAT) return { status: "foreign", body: emptyBody() }
  if (header["build"] !== cacheBuild || header["modelsDir"] !== NodePath.resolve(modelsDir) || header["shard"] !== shard) {
    return { status: "foreign", body: emptyBody() }
  }
  const bodyBytes = bytes.subarray(newline + 1)
  if (header["digest"] !== digestOf(bodyBytes)) return { status: "corrupt", body: emptyBody() }
  try {
    // Written as ASCII (see `asciiJson`): read as one-byte text, which skips UTF-8 decoding.
    const body = fromStored(JSON.parse(bodyBytes.toString("latin1")))
    if (body === undefined) return { status: "corrupt", body: emptyBody() }
    return { status: "hit", body }
  } catch {
    return { status: "corrupt", body: emptyBody() }
  }
}

/** Reads every shard of the cache for `modelsDir` (or only `only`: the others read as absent). */
export const readCache = (modelsDir: string, only?: ReadonlySet<number>): CacheLoad => {
  const shards = Array.from({ length: shardCount }, (_, shard) =>
    only === undefined || only.has(shard) ? readShard(modelsDir, shard) : { status: "absent" as const, body: emptyBody() }
  )
  const present = shards.filter((s) => s.status !== "absent")
  const status: ShardStatus =
    present.length === 0
      ? "absent"
      : (present.find((s) => s.status === "foreign")?.status ?? present.find((s) => s.status === "corrupt")?.status ?? "hit")
  return { status, shards }
}

/** The cache with nothing in it (a compile without a cache, or before the first). */
export const emptyCache = (status: ShardStatus | "off"): { status: ShardStatus | "off"; shards: ReadonlyArray<ShardLoad> } => ({
  status,
  shards: Array.from({ length: shardCount }, () => ({ status: "absent" as const, body: emptyBody() }))
})


/** Entries of a body, of every kind. */
export const entryCount = (body: CacheBody) => body.files.rows.size + body.sql.size + body.sidecars.size + body.sidecarJson.size + body.contracts.size

const isEmpty = (body: CacheBody) => entryCount(body) === 0

/** A shard's stored form, or undefined for an empty one (its file is removed). */
export const storedPartsOrNone = (body: CacheBody): StoredParts | undefined => (isEmpty(body) ? undefined : storedParts(body))

/** The given shards in their stored form, as `writeShardFiles` takes them. */
export const shardsToWrite = (shards: ReadonlyMap<number, CacheBody>): Array<readonly [number, StoredParts | undefined]> =>
  [...shards].map(([shard, body]) => [shard, storedPartsOrNone(body)] as const)

/** Whether a compile may write the cache back; read-only surfaces (`pcli serve`) set it false. */
export class CompileCacheWrites extends Context.Reference<CompileCacheWrites>()("pcli/CompileCacheWrites", {
  defaultValue: () => true
}) {}
