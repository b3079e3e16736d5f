// The fast chain walk `audit --verify` runs over seq ranges, in worker threads or in-process.
// `verifyRange` is shipped to workers as source text (`verifyRange.toString()`), so its body may use
// only its parameters: no imports, no module-level names.

/** What `verifyRange` needs of a better-sqlite3 database (structural, so this file imports nothing). */
export interface RawDatabase {
  readonly prepare: (sql: string) => RawStatement
}
interface RawStatement {
  readonly raw: (on: boolean) => RawStatement
  readonly get: (...params: ReadonlyArray<unknown>) => unknown
  readonly iterate: (...params: ReadonlyArray<unknown>) => IterableIterator<ReadonlyArray<unknown>>
}

/** What `verifyRange` needs of a hash-wasm BLAKE3 hasher. */
export interface RawHasher {
  readonly init: () => RawHasher
  readonly update: (data: Uint8Array) => RawHasher
  readonly digest: (outputType: "hex") => string
}

/** Rows `seq` in (`after`, `upTo`]; `canonicalSql` renders a row's canonical JSON in SQL (chainSql.ts). */
export interface SeqRange {
  readonly after: number
  readonly upTo: number
  readonly canonicalSql: string
  readonly genesis: string
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
 * recomputed hash, so any split into ranges gives the sequential walk's answer.
 */
export const verifyRange = (db: RawDatabase, hasher: RawHasher, range: SeqRange): RangeResult => {
  const before = db
    .prepare("SELECT row_hash FROM ledger WHERE seq <= ? ORDER BY seq DESC LIMIT 1")
    .raw(true)
    .get(range.after) as ReadonlyArray<unknown> | undefined
  let previous = before === undefined ? range.genesis : before[0]
  const rows = db
    .prepare(`SELECT seq, row_hash, ${range.canonicalSql} FROM ledger WHERE seq > ? AND seq <= ? ORDER BY seq`)
    .raw(true)
    .iterate(range.after, range.upTo)
  const encoder = new TextEncoder()
  let buffer = new Uint8Array(1 << 16)
  let count = 0
  let lastSeq: number | null = null
  let lastHash: string | null = null
  for (const row of rows) {
    const seq = row[0] as number
    const stored = row[1]
    const canonical = row[2] as string
    // A null hash before this row cannot be extended: this row is the break (the reference says why).
    if (typeof previous !== "string" || typeof stored !== "string") {
      if (typeof rows.return === "function") rows.return()
      return { rows: count, lastSeq, lastHash, mismatchSeq: seq }
    }
    if (buffer.length < 64 + canonical.length * 3) buffer = new Uint8Array(64 + canonical.length * 3)
    const head = encoder.encodeInto(previous, buffer).written
    const written = head + encoder.encodeInto(canonical, buffer.subarray(head)).written
    if (hasher.init().update(buffer.subarray(0, written)).digest("hex") !== stored) {
      if (typeof rows.return === "function") rows.return()
      return { rows: count, lastSeq, lastHash, mismatchSeq: seq }
    }
    previous = stored
    lastSeq = seq
    lastHash = stored
    count++
  }
  return { rows: count, lastSeq, lastHash, mismatchSeq: null }
}
