import { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Effect } from "effect"
import { migrations } from "../../src/services/StateStore/migrations"

const withSqlite = <A, E>(path: string, body: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(SqlClient.SqlClient, body).pipe(Effect.provide(SqliteClient.layer({ filename: path })), Effect.orDie)

/** A store as an older pcli would have left it: migrations up to `version` only. */
export const writeStoreAtVersion = (path: string, version: number) =>
  withSqlite(path, (sql) =>
    Effect.gen(function* () {
      yield* sql`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`
      for (const m of migrations) if (m.version <= version) for (const s of m.statements) yield* sql.unsafe(s)
      yield* sql`INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ${String(version)})`
    })
  )

/** Stamps a version on an existing store, as a newer pcli would. */
export const setSchemaVersion = (path: string, version: number) =>
  withSqlite(path, (sql) => sql`UPDATE meta SET value = ${String(version)} WHERE key = 'schema_version'`)

export const readSchemaVersion = (path: string) =>
  withSqlite(path, (sql) =>
    Effect.map(sql<{ value: string }>`SELECT value FROM meta WHERE key = 'schema_version'`, (rows) => Number(rows[0]?.value))
  )

/** Every ledger row of a store, in append order (tests read what commands recorded). */
export const readLedgerRows = (path: string) =>
  withSqlite(path, (sql) => sql<Record<string, unknown>>`SELECT * FROM ledger ORDER BY seq`)
