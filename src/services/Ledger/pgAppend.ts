import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Option } from "effect"
import type { LedgerRow } from "../../schemas/ledger"
import { rowHash } from "./chain"
import type { NewLedgerRow, SealedRow } from "./Ledger"

/** The public row as it is stored and hashed (decision ref chosen; `principal_id_verified` only for an id a PostgreSQL role verified, decisions.md 36). */
export const storedRow = (row: NewLedgerRow, decision_ref: string, timestamp: string): LedgerRow => ({
  decision_ref,
  kind: row.kind,
  timestamp,
  principal: row.principal,
  principal_id: row.principal_id,
  principal_id_source: row.principal_id_source,
  principal_id_verified: row.principal_id_source === "role",
  target_principal: row.target_principal ?? null,
  capability: row.capability,
  model: row.model,
  effect: row.effect,
  rule_id: row.rule_id,
  plan_id: row.plan_id,
  reason: row.reason
})

/** The reference key "<ts>|<plan>|<model>"; a twin already there (or earlier in the batch) gets a `|#n` suffix. */
export const twinCount = (sql: SqlClient.SqlClient, base: string) =>
  Effect.map(
    // A range on the unique index, not LIKE: a scope may hold % or _ and must not become a pattern.
    sql<{ n: number }>`SELECT count(*) AS n FROM ledger WHERE decision_ref = ${base} OR (decision_ref > ${`${base}|#`} AND decision_ref < ${`${base}|$`})`,
    (rows) => Number(rows[0]?.n ?? 0)
  )

/** A value as a PostgreSQL literal. Strings are quoted as node-pg's `escapeLiteral` quotes them (an E'' literal when one holds a backslash), so they read back the same whatever `standard_conforming_strings` is. */
export const pgLiteral = (value: string | number | null | undefined): string => {
  if (value === null || value === undefined) return "NULL"
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : pgLiteral(String(value))
  let quoted = "'"
  let backslash = false
  for (const c of value) {
    if (c === "'") quoted += "''"
    else if (c === "\\") {
      quoted += "\\\\"
      backslash = true
    } else quoted += c
  }
  quoted += "'"
  return backslash ? ` E${quoted}` : quoted
}

const LEDGER_COLUMNS = [
  "seq",
  "decision_ref",
  "kind",
  "timestamp",
  "principal",
  "principal_id",
  "principal_id_source",
  "principal_id_verified",
  "target_principal",
  "capability",
  "model",
  "effect",
  "rule_id",
  "plan_id",
  "reason",
  "row_hash"
] as const

/** The twin key of a row: its reference without the stamp. */
const twinKey = (row: NewLedgerRow) => `${row.plan_id ?? ""}|${row.model ?? ""}`

/**
 * The locked head, then how many rows already carry each key's reference at the head's stamp. The
 * count is its own statement, after the lock: at READ COMMITTED it sees what the writer before
 * committed (one statement with the lock would count from a snapshot taken before the wait).
 */
const headSql = (keys: ReadonlyArray<string>) =>
  `SELECT seq, row_hash, timestamp FROM ledger_head WHERE id = 1 FOR UPDATE;
SELECT k.i, (SELECT count(*) FROM ledger WHERE decision_ref = k.base OR (decision_ref > k.base || '|#' AND decision_ref < k.base || '|$')) AS n
FROM (SELECT v.i, h.timestamp || '|' || v.key AS base FROM ledger_head h CROSS JOIN (VALUES ${keys.map((key, i) => `(${i}, ${pgLiteral(key)})`).join(", ")}) AS v (i, key) WHERE h.id = 1) AS k`

/** The rows and the head's move. */
const writeSql = (inserted: ReadonlyArray<ReadonlyArray<string | number | null>>, seq: number, hash: string, timestamp: string) =>
  `INSERT INTO ledger (${LEDGER_COLUMNS.join(", ")}) VALUES ${inserted.map((values) => `(${values.map(pgLiteral).join(", ")})`).join(", ")};
UPDATE ledger_head SET seq = ${seq}, row_hash = ${pgLiteral(hash)}, timestamp = ${pgLiteral(timestamp)} WHERE id = 1`

type Exec = (text: string) => Effect.Effect<ReadonlyArray<ReadonlyArray<Record<string, unknown>>>, SqlError.SqlError>

/** The append's two round trips on `exec`: lock and read (after `begin`), then write (then `commit`). */
const appendOn = (exec: Exec, rows: ReadonlyArray<NewLedgerRow>, begin: string, commit: string) =>
  Effect.gen(function* () {
    const keys = [...new Set(rows.map(twinKey))]
    const results = yield* exec(`${begin}${headSql(keys)}`)
    const [headRows, twinRows] = results.slice(-2) as [ReadonlyArray<{ seq: number; row_hash: string; timestamp: string }>, ReadonlyArray<{ i: number; n: number }>]
    const head = headRows?.[0]
    if (head === undefined) return yield* Effect.dieMessage("the ledger head row is missing")
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const timestamp = now > head.timestamp ? now : head.timestamp
    // Twins: a stamp newer than the head's can only collide inside this batch; at the head's stamp the table's count adds.
    const stored = new Map<string, number>()
    if (timestamp === head.timestamp) for (const t of twinRows ?? []) stored.set(keys[Number(t.i)]!, Number(t.n))
    const inBatch = new Map<string, number>()
    let seq = Number(head.seq)
    let previous = head.row_hash
    const sealed: Array<SealedRow> = []
    const inserted: Array<ReadonlyArray<string | number | null>> = []
    for (const row of rows) {
      const key = twinKey(row)
      const base = `${timestamp}|${key}`
      const n = (stored.get(key) ?? 0) + (inBatch.get(key) ?? 0)
      inBatch.set(key, (inBatch.get(key) ?? 0) + 1)
      const r = storedRow(row, n === 0 ? base : `${base}|#${n + 1}`, timestamp)
      previous = rowHash(previous, r)
      seq++
      inserted.push([seq, r.decision_ref, r.kind, r.timestamp, r.principal, r.principal_id, r.principal_id_source, r.principal_id_verified ? 1 : 0, r.target_principal, r.capability, r.model, r.effect, r.rule_id, r.plan_id, r.reason, previous])
      sealed.push({ row: r, seq, row_hash: previous })
    }
    yield* exec(`${writeSql(inserted, seq, previous, timestamp)}${commit}`)
    return sealed as ReadonlyArray<SealedRow>
  })

/**
 * Appends on PostgreSQL (decision 36): the head row is locked FOR UPDATE at READ COMMITTED, so
 * concurrent writers chain one after another; the rows are stamped after the lock, max(now, head
 * time), so seq order is time order; seq is the head's plus one (no sequence: a rollback leaves no
 * gap). Two round trips, the lock held across one: `BEGIN`, the lock, the head and the twin counts
 * go as one message, the rows, the head's move and `COMMIT` as the next (docs/performance.md). So
 * the statements are text (values as literals): one message of several statements has no parameters.
 * That COMMIT does not wait for the WAL flush (the row lock is held until commit returns, and an
 * fdatasync, ~2.4 ms here, would cap the chain at ~400 appends/s); a third round trip, after the
 * lock, waits for it, so an append is durable when it answers (decisions.md, team state).
 * Inside a caller's transaction the two messages run without BEGIN and COMMIT; the caller commits.
 */
export const appendPg = (sql: SqlClient.SqlClient, rows: ReadonlyArray<NewLedgerRow>): Effect.Effect<ReadonlyArray<SealedRow>, SqlError.SqlError> =>
  rows.length === 0
    ? Effect.succeed([])
    : Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
        Option.isSome(outer)
          ? appendOn((text) => sql.unsafe(text) as never, rows, "", "")
          : Effect.scoped(
              Effect.gen(function* () {
                const conn = yield* sql.reserve
                // Until COMMIT has answered, leaving (a failure, an interruption) rolls back before the connection goes back to the pool.
                let open = true
                yield* Effect.addFinalizer(() => (open ? Effect.ignore(conn.executeRaw("ROLLBACK", [])) : Effect.void))
                const exec: Exec = (text) => conn.executeUnprepared(text, [], undefined) as never
                const sealed = yield* appendOn(exec, rows, "BEGIN; ", "; SET LOCAL synchronous_commit = off; COMMIT")
                open = false
                // Durable before it is answered: a transaction with an xid commits at the session's setting, flushing the WAL
                // through this append's commit record (WAL is flushed in order), the flush shared with concurrent writers'.
                yield* exec("SELECT txid_current()")
                return sealed
              })
            )
      )
