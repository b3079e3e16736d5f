// The fast chain walk `audit --verify` runs over seq ranges, in worker threads or in-process.
// `verifyRange` is shipped to workers as source text (`verifyRange.toString()`), so its body may use
// only its parameters: no imports, no module-level names.

/** What `verifyRange` needs of a better-sqlite3 database (structural, so this file imports nothing). */
export interface RawDatabase {
  readonly prepare: (sql: string) => RawStatement
}
interface RawStatement {
  readonly raw: (on: boolean) => RawStatement
  readonly pluck: (on: boolean) => RawStatement
  readonly get: (...params: ReadonlyArray<unknown>) => unknown
}

/** What `verifyRange` needs of a hash-wasm BLAKE3 hasher. */
export interface RawHasher {
  readonly init: () => RawHasher
  readonly update: (data: Uint8Array) => RawHasher
  readonly digest: (outputType: "binary") => Uint8Array
}

/**
 * One batch of rows as a single value: each row `canonical JSON \n stored hash`, concatenated; as a
 * blob, and as text for a batch that is not valid UTF-8. `canonicalSql` renders a row's canonical
 * JSON (JSON escapes every newline); `storedHashSql` gives its `row_hash` when bytes alone can judge
 * the row, else 64 bytes that never equal a hex digest (chain.ts), so each hash is exactly 64 bytes.
 * A rowid range scan feeds group_concat in seq order (a test pins the plan).
 */
export const batchQueries = (canonicalSql: string, storedHashSql: string) => {
  const rows = `group_concat(${canonicalSql} || char(10) || ${storedHashSql}, '')`
  const query = (value: string) => `SELECT count(*), max(seq), ${value} FROM ledger WHERE seq > ? AND seq <= ?`
  return { blob: query(`CAST(${rows} AS BLOB)`), text: query(rows) }
}

/** Rows `seq` in (`after`, `upTo`], read `batchSeqs` seqs at a time with `batchSql`, chained from `genesis` at the start. */
export interface SeqRange {
  readonly after: number
  readonly upTo: number
  readonly batchSql: ReturnType<typeof batchQueries>
  readonly genesis: string
  readonly batchSeqs: number
}

/**
 * How far a range verified: `rows` rows matched, the last one `lastSeq` with `lastHash`; `mismatchSeq`
 * is the first row whose hash did not recompute here (the caller re-checks it with the reference).
 */
export interface RangeResult {
  readonly rows: number
  readonly lastSeq: number | null
  readonly lastHash: string | null
  readonly mismatchSeq: number | null
}

/**
 * Row i is checked against the *stored* hash of row i-1: up to the first mismatch that is the
 * recomputed hash, so any split into ranges gives the sequential walk's answer. In a batch the
 * previous row's hash and a row's JSON sit side by side, so each row is hashed in place: no string or
 * buffer per row. A batch that is not valid UTF-8 is read again as text, so its bytes are the ones
 * the reference hashes.
 */
export const verifyRange = (db: RawDatabase, hasher: RawHasher, range: SeqRange, isUtf8: (bytes: Uint8Array) => boolean): RangeResult => {
  const HASH_BYTES = 64
  const NEWLINE = 10
  const asBlob = db.prepare(range.batchSql.blob).raw(true)
  const asText = db.prepare(range.batchSql.text).raw(true)
  const nextSeq = db.prepare("SELECT min(seq) FROM ledger WHERE seq > ? AND seq <= ?").pluck(true)
  const seqAt = db.prepare("SELECT seq FROM ledger WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 1 OFFSET ?").pluck(true)
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const HEX = "0123456789abcdef"
  const high = new Uint8Array(256)
  const low = new Uint8Array(256)
  for (let b = 0; b < 256; b++) {
    high[b] = HEX.charCodeAt(b >> 4)
    low[b] = HEX.charCodeAt(b & 15)
  }
  let scratch = new Uint8Array(1 << 16)

  /** The batch's bytes: SQLite's own when they are UTF-8, else its text as JS decodes it. */
  const batchBytes = (blob: Uint8Array, lo: number, hi: number): Uint8Array => {
    const bytes = new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength)
    if (isUtf8(bytes)) return bytes
    const text = (asText.get(lo, hi) as ReadonlyArray<unknown>)[2] as string
    if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3)
    return scratch.subarray(0, encoder.encodeInto(text, scratch).written)
  }

  /** How many of the `count` rows in `bytes` recompute, in order from `previous`; `hashAt` is then where the last good one's hash is. */
  let hashAt = -1
  const matching = (bytes: Uint8Array, count: number, previous: Uint8Array): number => {
    hashAt = -1
    for (let k = 0; k < count; k++) {
      const end = bytes.indexOf(NEWLINE, k === 0 ? 0 : hashAt + HASH_BYTES)
      if (end < 0 || end + 1 + HASH_BYTES > bytes.length) return k
      // The first row of a batch follows the previous batch's last hash; every other follows its neighbour in place.
      const digest =
        k === 0
          ? hasher.init().update(previous).update(bytes.subarray(0, end)).digest("binary")
          : hasher.init().update(bytes.subarray(hashAt, end)).digest("binary")
      for (let j = 0, at = end + 1; j < 32; j++, at += 2) {
        const d = digest[j] as number
        if (bytes[at] !== high[d] || bytes[at + 1] !== low[d]) return k
      }
      hashAt = end + 1
    }
    return count
  }

  const before = db.prepare("SELECT row_hash FROM ledger WHERE seq <= ? ORDER BY seq DESC LIMIT 1").raw(true).get(range.after) as ReadonlyArray<unknown> | undefined
  const first = before === undefined ? range.genesis : before[0]
  // A hash before the range that is not text cannot be extended: the first row is the break (the reference says why).
  let previous = typeof first === "string" ? encoder.encode(first) : null
  let count = 0
  let lastSeq: number | null = null
  const result = (mismatchSeq: number | null): RangeResult => ({
    rows: count,
    lastSeq,
    lastHash: lastSeq === null || previous === null ? null : decoder.decode(previous),
    mismatchSeq
  })
  let lo = range.after
  while (lo < range.upTo) {
    const hi = Math.min(range.upTo, lo + range.batchSeqs)
    const [rows, maxSeq, blob] = asBlob.get(lo, hi) as [number, number | null, Uint8Array | null]
    if (rows === 0) {
      // A gap in seq (deleted rows): skip to the next row there is.
      const next = nextSeq.get(hi, range.upTo) as number | null
      if (next === null) break
      lo = next - 1
      continue
    }
    if (blob === null) return result(seqAt.get(lo, hi, 0) as number)
    const bytes = batchBytes(blob, lo, hi)
    const good = previous === null ? 0 : matching(bytes, rows, previous)
    if (good > 0) {
      previous = bytes.slice(hashAt, hashAt + HASH_BYTES)
      count += good
      lastSeq = good === rows ? maxSeq : (seqAt.get(lo, hi, good - 1) as number)
    }
    if (good < rows) return result(seqAt.get(lo, hi, good) as number)
    lo = hi
  }
  return result(null)
}
