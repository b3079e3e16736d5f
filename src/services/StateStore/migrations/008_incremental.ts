import type { Migration } from "../Migration"

/**
 * Incremental runs: a run may be `interrupted`, a model `unchanged` (with the intervals it
 * built, if any); `model_builds` keeps each model's last successful build (fingerprint, data
 * version, the upstream versions it read) and `model_intervals` each built time interval.
 * SQLite cannot alter a CHECK, so `runs` and `run_models` are rebuilt with their rows.
 */
export const migration: Migration = {
  version: 8,
  name: "incremental",
  statements: [
    `CREATE TABLE runs_v8 (
      run_id TEXT PRIMARY KEY,
      started_at TEXT NOT NULL,
      finished_at TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('success', 'partial_failure', 'failure', 'interrupted')),
      trigger TEXT NOT NULL,
      partition_from TEXT,
      partition_to TEXT,
      models_total INTEGER NOT NULL,
      models_failed INTEGER NOT NULL,
      models_skipped INTEGER NOT NULL,
      plan_id TEXT,
      models_unchanged INTEGER NOT NULL DEFAULT 0
    )`,
    `INSERT INTO runs_v8 (run_id, started_at, finished_at, status, trigger, partition_from, partition_to, models_total, models_failed, models_skipped, plan_id)
      SELECT run_id, started_at, finished_at, status, trigger, partition_from, partition_to, models_total, models_failed, models_skipped, plan_id FROM runs`,
    `CREATE TABLE run_models_v8 (
      run_id TEXT NOT NULL REFERENCES runs_v8 (run_id),
      model_name TEXT NOT NULL,
      position INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('success', 'failed', 'skipped', 'unchanged')),
      strategy TEXT NOT NULL,
      started_at TEXT,
      finished_at TEXT,
      duration_ms INTEGER,
      rows_affected INTEGER,
      attempts INTEGER NOT NULL,
      sql_hash TEXT NOT NULL,
      recipe_hash TEXT NOT NULL,
      output_hash TEXT,
      error_code TEXT,
      error_class TEXT CHECK (error_class IN ('transient', 'permanent')),
      error_message TEXT,
      warnings_json TEXT NOT NULL DEFAULT '[]',
      intervals_built INTEGER,
      PRIMARY KEY (run_id, model_name)
    )`,
    `INSERT INTO run_models_v8 (run_id, model_name, position, status, strategy, started_at, finished_at, duration_ms, rows_affected,
        attempts, sql_hash, recipe_hash, output_hash, error_code, error_class, error_message, warnings_json)
      SELECT run_id, model_name, position, status, strategy, started_at, finished_at, duration_ms, rows_affected,
        attempts, sql_hash, recipe_hash, output_hash, error_code, error_class, error_message, warnings_json FROM run_models`,
    `DROP TABLE run_models`,
    `DROP TABLE runs`,
    `ALTER TABLE runs_v8 RENAME TO runs`,
    `ALTER TABLE run_models_v8 RENAME TO run_models`,
    `CREATE INDEX runs_started_at ON runs (started_at)`,
    `CREATE INDEX runs_plan ON runs (plan_id)`,
    `CREATE INDEX run_models_model ON run_models (model_name)`,
    `CREATE TABLE model_builds (
      model_name TEXT PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      data_version TEXT NOT NULL,
      inputs_json TEXT NOT NULL,
      run_id TEXT NOT NULL,
      output_hash TEXT,
      output_path TEXT,
      sql_hash TEXT NOT NULL,
      recipe_hash TEXT NOT NULL,
      built_at TEXT NOT NULL
    )`,
    `CREATE TABLE model_intervals (
      model_name TEXT NOT NULL,
      interval_key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      row_count INTEGER NOT NULL,
      checksum TEXT NOT NULL,
      run_id TEXT NOT NULL,
      PRIMARY KEY (model_name, interval_key)
    )`
  ]
}
