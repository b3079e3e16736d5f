import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { StateInfoOutput } from "../schemas/state"
import { LedgerUnavailable } from "../services/Ledger/Ledger"
import { readDatabaseRole } from "../services/Principal/databaseRole"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { StateStore } from "../services/StateStore/StateStore"

/** `pcli state info`: where the store is (never a URL), its backend, schema and role, its version and ledger size. Read-only. */
export const stateInfo = Effect.gen(function* () {
  const store = yield* StateStore
  const project = yield* ProjectContext
  const sql = yield* SqlClient.SqlClient
  const [count] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger`.pipe(
    Effect.mapError((e) => new LedgerUnavailable({ detail: e.message }))
  )
  const onPg = store.backend === "postgres" && store.persisted
  const role = onPg ? yield* readDatabaseRole : undefined
  const out: StateInfoOutput = {
    command: "state_info",
    path: store.path,
    exists: store.persisted,
    schema_version: store.schemaVersion,
    ledger_rows: Number(count?.n ?? 0),
    backend: store.backend,
    schema: project.state.pg?.schema ?? null,
    role: role?.name ?? null,
    role_principal: role === undefined ? null : role.human && role.agent ? "both" : role.human ? "human" : role.agent ? "agent" : "none"
  }
  return out
})
