import type { Migration } from "../Migration"

/**
 * Reclamation of environment tables (issue 34 item 4): `physical_tables` records, per physical
 * table, the run that last built it and its recipe (the SQL as run and the strategy), so gc can
 * judge a table no environment reads; `table_tombstones` keeps each table gc dropped, never
 * deleted. Plain portable SQL: the store may be SQLite or PostgreSQL.
 */
export const migration: Migration = {
  version: 15,
  name: "physical tables",
  statements: [
    `CREATE TABLE physical_tables (
      physical TEXT PRIMARY KEY,
      model_name TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      strategy TEXT NOT NULL,
      run_id TEXT NOT NULL,
      recipe_hash TEXT NOT NULL,
      recipe_json TEXT NOT NULL,
      built_at TEXT NOT NULL
    )`,
    `CREATE TABLE table_tombstones (
      physical TEXT NOT NULL,
      model_name TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      strategy TEXT NOT NULL,
      run_id TEXT NOT NULL,
      recipe_hash TEXT NOT NULL,
      recipe_json TEXT NOT NULL,
      built_at TEXT NOT NULL,
      dropped_at TEXT NOT NULL,
      plan_id TEXT NOT NULL,
      PRIMARY KEY (physical, dropped_at)
    )`
  ]
}
