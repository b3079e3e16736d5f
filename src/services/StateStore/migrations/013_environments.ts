import type { Migration } from "../Migration"

/**
 * Environments (decision 37): production and each branch name, per model, the physical table its
 * view points at and the fingerprint that table holds; `environments` keeps each branch's base and
 * last run; `promotions` keeps each applied promote's views (target before and after), for rollback;
 * `physical_builds` keeps the build state (a `model_builds` row and its intervals) of a physical table
 * no production view points at, so a promote or rollback hands production the state of what it now reads.
 * Plain portable SQL: the store may be SQLite or PostgreSQL.
 */
export const migration: Migration = {
  version: 13,
  name: "environments",
  statements: [
    `CREATE TABLE environments (
      name TEXT PRIMARY KEY,
      base TEXT NOT NULL,
      created_at TEXT NOT NULL,
      last_run_id TEXT,
      last_run_at TEXT
    )`,
    `CREATE TABLE environment_models (
      environment TEXT NOT NULL,
      model_name TEXT NOT NULL,
      physical TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      table_key TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (environment, model_name)
    )`,
    `CREATE TABLE promotions (
      plan_id TEXT PRIMARY KEY,
      environment TEXT NOT NULL,
      kind TEXT NOT NULL,
      applied_at TEXT NOT NULL,
      views_json TEXT NOT NULL
    )`,
    `CREATE TABLE physical_builds (
      physical TEXT PRIMARY KEY,
      build_json TEXT NOT NULL,
      intervals_json TEXT NOT NULL
    )`
  ]
}
