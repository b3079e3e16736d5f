import type { Migration } from "../Migration"

/** Freshness checks (issue 35): one row per check of a model's newest time against its allowed lag. Portable SQL only. */
export const migration: Migration = {
  version: 14,
  name: "freshness checks",
  statements: [
    `CREATE TABLE freshness_checks (
      checked_at TEXT NOT NULL,
      run_id TEXT,
      model TEXT NOT NULL,
      product TEXT,
      time_column TEXT NOT NULL,
      max_lag_seconds INTEGER NOT NULL,
      severity TEXT NOT NULL,
      status TEXT NOT NULL,
      newest TEXT,
      lag_seconds INTEGER,
      detail TEXT NOT NULL
    )`,
    `CREATE INDEX freshness_checks_at ON freshness_checks (checked_at)`
  ]
}
