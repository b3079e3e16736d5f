import { Effect } from "effect"
import { fromStored, GENESIS_HASH, rowHash } from "../../Ledger/chain"
import type { Migration } from "../Migration"

const PAGE = 5000

/** Ledger rows form a hash chain (decisions.md 27); rows written before it are chained in seq order. */
export const migration: Migration = {
  version: 5,
  name: "ledger hash chain",
  statements: [`ALTER TABLE ledger ADD COLUMN row_hash TEXT`],
  run: (sql) =>
    Effect.gen(function* () {
      let previous = GENESIS_HASH
      let after = 0
      for (;;) {
        const rows = yield* sql<Record<string, unknown> & { seq: number }>`SELECT * FROM ledger WHERE seq > ${after} ORDER BY seq LIMIT ${PAGE}`
        for (const raw of rows) {
          previous = rowHash(previous, fromStored(raw))
          yield* sql`UPDATE ledger SET row_hash = ${previous} WHERE seq = ${raw.seq}`
        }
        if (rows.length < PAGE) return
        after = rows[rows.length - 1]!.seq
      }
    })
}
