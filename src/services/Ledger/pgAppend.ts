import type { SqlClient, SqlError } from "@effect/sql"
import { Clock, Effect } from "effect"
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

/**
 * Appends on PostgreSQL (decision 36): the head row is locked FOR UPDATE at READ COMMITTED, so
 * concurrent writers chain one after another; the rows are stamped after the lock, max(now, head
 * time), so seq order is time order; seq is the head's plus one (no sequence: a rollback leaves no
 * gap). Runs inside the caller's transaction; `atomically` opens one when there is none.
 */
export const appendPg = (sql: SqlClient.SqlClient, rows: ReadonlyArray<NewLedgerRow>): Effect.Effect<ReadonlyArray<SealedRow>, SqlError.SqlError> =>
  rows.length === 0 ? Effect.succeed([]) : sql.withTransaction(
    Effect.gen(function* () {
      const [head] = yield* sql<{ seq: number; row_hash: string; timestamp: string }>`SELECT seq, row_hash, timestamp FROM ledger_head WHERE id = 1 FOR UPDATE`
      if (head === undefined) return yield* Effect.dieMessage("the ledger head row is missing")
      const now = new Date(yield* Clock.currentTimeMillis).toISOString()
      const timestamp = now > head.timestamp ? now : head.timestamp
      let seq = head.seq
      let previous = head.row_hash
      const sealed: Array<SealedRow> = []
      const inserted: Array<Record<string, unknown>> = []
      // Twins: a stamp newer than the head's can only collide inside this batch (counted here); at the head's stamp, ask the table too.
      const inBatch = new Map<string, number>()
      for (const row of rows) {
        const base = `${timestamp}|${row.plan_id ?? ""}|${row.model ?? ""}`
        const earlier = timestamp > head.timestamp ? 0 : yield* twinCount(sql, base)
        const n = earlier + (inBatch.get(base) ?? 0)
        inBatch.set(base, (inBatch.get(base) ?? 0) + 1)
        const stored = storedRow(row, n === 0 ? base : `${base}|#${n + 1}`, timestamp)
        previous = rowHash(previous, stored)
        seq++
        inserted.push({ seq, ...stored, principal_id_verified: stored.principal_id_verified ? 1 : 0, row_hash: previous })
        sealed.push({ row: stored, seq, row_hash: previous })
      }
      // One statement: the rows and the head's move (a round trip less while the lock is held).
      yield* sql`WITH appended AS (INSERT INTO ledger ${sql.insert(inserted)} RETURNING seq)
        UPDATE ledger_head SET seq = ${seq}, row_hash = ${previous}, timestamp = ${timestamp} WHERE id = 1`
      return sealed as ReadonlyArray<SealedRow>
    })
  )
