import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { LedgerRow } from "../../schemas/ledger"
import type { StateBackend } from "../StateStore/backend"
import type { LedgerFilter } from "./Ledger"

/**
 * Answers of `list` kept while nothing could have changed them: the store's `PRAGMA data_version`
 * (moves when another connection commits) and this process's own ledger writes are both unchanged.
 * A long-lived server (`pcli mcp`, `pcli serve`) then reads the freeze rows once, not on every
 * gate evaluation. Time-bounded filters are never kept (their bound moves with the clock), and
 * nothing is read from or kept in the cache inside a transaction (its rows may yet roll back).
 */
export const makeListCache = (sql: SqlClient.SqlClient, backend: StateBackend = "sqlite") => {
  let writes = 0
  let stamp: string | undefined
  const entries = new Map<string, ReadonlyArray<LedgerRow>>()
  // On PostgreSQL the head row's seq moves with every committed append of any process (decision 36).
  const dataVersion = Effect.map(
    (backend === "postgres" ? sql.unsafe("SELECT seq FROM ledger_head WHERE id = 1") : sql.unsafe("PRAGMA data_version")).values,
    (rows) => String(rows[0]?.[0])
  )

  const cached = <E>(filter: LedgerFilter, read: Effect.Effect<ReadonlyArray<LedgerRow>, E>) =>
    Effect.gen(function* () {
      if (filter.since !== undefined || filter.until !== undefined) return yield* read
      if (Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))) return yield* read
      const writesBefore = writes
      const current = `${yield* Effect.orElseSucceed(dataVersion, () => undefined)}:${writesBefore}`
      if (current !== stamp) {
        entries.clear()
        stamp = current
      }
      const key = JSON.stringify(filter)
      const hit = entries.get(key)
      if (hit !== undefined) return hit
      const rows = yield* read
      // A write of this process that raced the read moved `writes`: the answer is not kept.
      if (writes === writesBefore && stamp === current) entries.set(key, rows)
      return rows
    })

  /** Called around every ledger write of this process (before it starts and after it ends, committed or not). */
  const noteWrite = Effect.sync(() => {
    writes++
  })

  return { cached, noteWrite }
}
