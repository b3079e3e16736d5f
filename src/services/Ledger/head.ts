import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { GENESIS_HASH } from "./chain"
import { LedgerUnavailable } from "./Ledger"

/** The ledger's last row as a witness records it (seq 0 and the genesis hash when it is empty). */
export interface LedgerHead {
  readonly seq: number
  readonly hash: string
}

/** The newest row's seq and hash, read in one statement. */
export const ledgerHead: Effect.Effect<LedgerHead, LedgerUnavailable> = Effect.gen(function* () {
  const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
  if (Option.isNone(sql)) return { seq: 0, hash: GENESIS_HASH }
  const rows = yield* sql.value<{ seq: number; row_hash: string | null }>`SELECT seq, row_hash FROM ledger ORDER BY seq DESC LIMIT 1`.pipe(
    Effect.mapError((e) => new LedgerUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) }))
  )
  const last = rows[0]
  return last === undefined ? { seq: 0, hash: GENESIS_HASH } : { seq: Number(last.seq), hash: last.row_hash ?? GENESIS_HASH }
})

/** The row at `seq`'s stored hash, or undefined when no row has that seq. */
export const hashAt = (seq: number): Effect.Effect<string | undefined, LedgerUnavailable> =>
  Effect.gen(function* () {
    if (seq === 0) return GENESIS_HASH
    const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
    if (Option.isNone(sql)) return undefined
    const rows = yield* sql.value<{ row_hash: string | null }>`SELECT row_hash FROM ledger WHERE seq = ${seq}`.pipe(
      Effect.mapError((e) => new LedgerUnavailable({ detail: String((e.cause as Error | undefined)?.message ?? e.message) }))
    )
    return rows[0]?.row_hash ?? undefined
  })
