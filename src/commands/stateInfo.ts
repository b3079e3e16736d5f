import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { StateInfoOutput } from "../schemas/state"
import { LedgerUnavailable } from "../services/Ledger/Ledger"
import { StateStore } from "../services/StateStore/StateStore"

/** `pcli state info`: where the store is, its schema version, its ledger size. Read-only. */
export const stateInfo = Effect.gen(function* () {
  const store = yield* StateStore
  const sql = yield* SqlClient.SqlClient
  const [count] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger`.pipe(
    Effect.mapError((e) => new LedgerUnavailable({ detail: e.message }))
  )
  const out: StateInfoOutput = {
    command: "state_info",
    path: store.path,
    exists: store.persisted,
    schema_version: store.schemaVersion,
    ledger_rows: count?.n ?? 0
  }
  return out
})
