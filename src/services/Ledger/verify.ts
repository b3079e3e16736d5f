import { SqlClient } from "@effect/sql"
import { Effect, Fiber, Option } from "effect"
import { readTarget, StateStore } from "../StateStore/StateStore"
import { createBlake3Hasher } from "../../platform/blake3"
import { FAST_WALK, GENESIS_HASH, hashedTextFast, rowHashFromValues, VERIFY_COLUMNS } from "./chain"
import { type ChainReport, LedgerUnavailable } from "./Ledger"
import { type ParallelOptions, verifyRanges } from "./verifyParallel"

const unavailable = (e: { readonly message: string; readonly cause?: unknown }) =>
  new LedgerUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) })

/** `audit --verify` (decisions.md 27): the reference walk, and the fast one that must agree with it. */
export const chainVerifier = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const VERIFY_PAGE = 20000
  const DECISION_REF = VERIFY_COLUMNS.indexOf("decision_ref")

  /** The report for the first row whose hash does not recompute: the same words whichever walk found it. */
  const broken = (values: ReadonlyArray<unknown>, expected: string, previous: string, previousSeq: number, count: number): ChainReport => {
    const seq = Number(values[VERIFY_COLUMNS.length])
    return {
      intact: false,
      rows: count,
      head_hash: previous,
      first_bad: {
        seq,
        decision_ref: String(values[DECISION_REF]),
        expected_hash: expected,
        stored_hash: values[VERIFY_COLUMNS.length + 1] as string | null,
        reason:
          seq !== previousSeq + 1
            ? `row(s) ${previousSeq + 1}..${seq - 1} before it are missing (deleted)`
            : "its hash does not recompute: the row was edited, or rows before it were reordered"
      }
    }
  }

  const store = yield* Effect.serviceOption(StateStore)
  const onPostgres = Option.isSome(store) && store.value.backend === "postgres" && store.value.persisted
  /**
   * The highest seq ever issued: SQLite's AUTOINCREMENT remembers it; on PostgreSQL the head row
   * does (every append moves it under its lock), so a lower last row means the tail was deleted.
   */
  const highestIssued = onPostgres
    ? sql<{ seq: number }>`SELECT seq FROM ledger_head WHERE id = 1`
    : sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'ledger'`

  /** Every row verified: a highest issued seq past the last row means the tail was deleted. */
  const tail = (count: number, previous: string, previousSeq: number) =>
    Effect.map(highestIssued, (issued): ChainReport => {
      const highest = Number(issued[0]?.seq ?? 0)
      return highest > previousSeq
        ? {
            intact: false,
            rows: count,
            head_hash: previous,
            first_bad: { seq: previousSeq + 1, decision_ref: null, expected_hash: null, stored_hash: null, reason: `row(s) ${previousSeq + 1}..${highest} at the end are missing (deleted)` }
          }
        : { intact: true, rows: count, head_hash: previous, first_bad: null }
    })

  const page = (after: number) =>
    sql`SELECT ${sql.literal(VERIFY_COLUMNS.join(", "))}, seq, row_hash FROM ledger WHERE seq > ${after} ORDER BY seq LIMIT ${VERIFY_PAGE}`.values

  /**
   * The chain in seq order, page by page, stopping at the first row whose hash does not recompute;
   * the next page is read while this one is hashed (on PostgreSQL the read is a round trip). A row
   * `hashRow` finds broken is judged again by the reference, whose answer stands.
   */
  const walkInOrder = (hashRow: (previous: string, values: ReadonlyArray<unknown>) => string): Effect.Effect<ChainReport, LedgerUnavailable> =>
    Effect.gen(function* () {
      let previous = GENESIS_HASH
      let previousSeq = 0
      let count = 0
      let rows = yield* page(0)
      for (;;) {
        const last = rows[rows.length - 1]
        const next = rows.length === VERIFY_PAGE && last !== undefined ? yield* Effect.fork(page(Number(last[VERIFY_COLUMNS.length]))) : undefined
        // Values, not objects: the columns in canonical order, then seq and row_hash.
        for (const values of rows) {
          const seq = Number(values[VERIFY_COLUMNS.length])
          const stored = values[VERIFY_COLUMNS.length + 1] as string | null
          if (hashRow(previous, values) !== stored) {
            const expected = rowHashFromValues(previous, values)
            if (expected !== stored) {
              if (next !== undefined) yield* Fiber.interrupt(next)
              return broken(values, expected, previous, previousSeq, count)
            }
          }
          previous = stored as string
          previousSeq = seq
          count++
        }
        if (next === undefined) break
        rows = yield* Fiber.join(next)
      }
      return yield* tail(count, previous, previousSeq)
    }).pipe(Effect.mapError(unavailable))

  /** The reference walk: @noble's BLAKE3, the hash every other walk must agree with. */
  const verifySequential: Effect.Effect<ChainReport, LedgerUnavailable> = walkInOrder(rowHashFromValues)

  /**
   * The same walk with hash-wasm's BLAKE3 (8–17× @noble) over `hashedTextFast`, its UTF-8 written
   * into one reused buffer (no allocation per row): PostgreSQL's `--verify`, which has no worker walk over a file.
   */
  const verifyInOrderWasm: Effect.Effect<ChainReport, LedgerUnavailable> = Effect.flatMap(
    Effect.promise(() => createBlake3Hasher()),
    (hasher) => {
      const encoder = new TextEncoder()
      let buffer = new Uint8Array(4096)
      return walkInOrder((previous, values) => {
        const text = hashedTextFast(previous, values)
        if (text.length * 3 > buffer.length) buffer = new Uint8Array(text.length * 3)
        const { written } = encoder.encodeInto(text, buffer)
        hasher.init()
        hasher.update(buffer.subarray(0, written))
        return hasher.digest("hex")
      })
    }
  )

  /**
   * The row a fast range stopped at, judged by the reference: the hash of the row before it is the
   * stored one (every row before verified). None when the reference finds it sound after all.
   */
  const breakAt = (seq: number, count: number) =>
    Effect.gen(function* () {
      const [values] = yield* sql`SELECT ${sql.literal(VERIFY_COLUMNS.join(", "))}, seq, row_hash FROM ledger WHERE seq = ${seq}`.values
      const [before] = yield* sql`SELECT seq, row_hash FROM ledger WHERE seq < ${seq} ORDER BY seq DESC LIMIT 1`.values
      if (values === undefined) return Option.none<ChainReport>()
      const previous = before === undefined ? GENESIS_HASH : String(before[1])
      const expected = rowHashFromValues(previous, values)
      if (expected === values[VERIFY_COLUMNS.length + 1]) return Option.none<ChainReport>()
      return Option.some(broken(values, expected, previous, before === undefined ? 0 : Number(before[0]), count))
    })

  /**
   * The fast walk (decisions.md 27): seq ranges hashed in worker threads (verifyParallel.ts), the
   * canonical bytes rendered by SQLite; the first failing range's row is re-judged by the reference,
   * which gives the report. Any doubt (no file store, a worker failure, a disagreement) walks the
   * plain way instead, so the answer is always the reference's.
   */
  const verifyFast = (target: string, options: ParallelOptions) =>
    Effect.gen(function* () {
      let previous = GENESIS_HASH
      let previousSeq = 0
      let count = 0
      // Rows appended while the ranges ran are walked by the next round, as the sequential walk would.
      for (;;) {
        // One min() or max() per SELECT: SQLite answers each from the rowid b-tree's edge; both in one scan every row.
        const [bounds] = yield* sql<{ first: number | null; last: number | null }>`SELECT (SELECT min(seq) FROM ledger WHERE seq > ${previousSeq}) AS first, (SELECT max(seq) FROM ledger WHERE seq > ${previousSeq}) AS last`
        if (bounds?.first == null || bounds.last == null) break
        const { first, last } = bounds
        const ranges = yield* Effect.tryPromise(() =>
          verifyRanges(target, previousSeq, last, last - first + 1, FAST_WALK, options)
        ).pipe(Effect.option)
        if (Option.isNone(ranges)) return yield* verifySequential
        for (const r of ranges.value) {
          if (r.mismatchSeq !== null) {
            const found = yield* breakAt(r.mismatchSeq, count + r.rows)
            return Option.isSome(found) ? found.value : yield* verifySequential
          }
          count += r.rows
          if (r.lastSeq !== null && r.lastHash !== null) {
            previousSeq = r.lastSeq
            previous = r.lastHash
          }
        }
        if (previousSeq < last) return yield* verifySequential
      }
      return yield* tail(count, previous, previousSeq)
    }).pipe(Effect.mapError(unavailable))

  /**
   * The chain from row `seq` to the head: `seq`'s hash recomputes from its predecessor's stored hash and
   * every later row chains on. What apply checks under an approval row (decisions.md 34), without
   * walking the history before it (`audit --verify` does that).
   */
  const chainsFrom = (seq: number): Effect.Effect<boolean, LedgerUnavailable> =>
    Effect.gen(function* () {
      const [before] = yield* sql`SELECT row_hash FROM ledger WHERE seq < ${seq} ORDER BY seq DESC LIMIT 1`.values
      let previous = before === undefined ? GENESIS_HASH : String(before[0])
      let after = seq - 1
      for (;;) {
        const rows = yield* sql`SELECT ${sql.literal(VERIFY_COLUMNS.join(", "))}, seq, row_hash FROM ledger WHERE seq > ${after} ORDER BY seq LIMIT ${VERIFY_PAGE}`.values
        for (const values of rows) {
          const expected = rowHashFromValues(previous, values)
          if (expected !== values[VERIFY_COLUMNS.length + 1]) return false
          previous = expected
          after = Number(values[VERIFY_COLUMNS.length])
        }
        if (rows.length < VERIFY_PAGE) return after >= seq
      }
    }).pipe(Effect.mapError(unavailable))

  const verify = (options: ParallelOptions): Effect.Effect<ChainReport, LedgerUnavailable> =>
    Effect.flatMap(Effect.serviceOption(StateStore), (store) =>
      Option.isSome(store) && store.value.persisted && store.value.backend === "sqlite"
        ? verifyFast(readTarget(store.value.path), options)
        : Option.isSome(store) && store.value.persisted
          ? verifyInOrderWasm
          : verifySequential
    )

  return { verify, verifySequential, chainsFrom }
})
