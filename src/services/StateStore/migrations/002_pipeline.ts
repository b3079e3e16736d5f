import type { Migration } from "../Migration"

/** Pipeline runs, per-model executions, the artifact ledger and provenance of content-addressed outputs. */
export const migration: Migration = {
  version: 2,
  name: "pipeline",
  statements: [
    `CREATE TABLE runs (
      run_id TEXT PRIMARY KEY,
      started_at TEXT NOT NULL,
      finished_at TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('success', 'partial_failure', 'failure')),
      trigger TEXT NOT NULL,
      partition_from TEXT,
      partition_to TEXT,
      models_total INTEGER NOT NULL,
      models_failed INTEGER NOT NULL,
      models_skipped INTEGER NOT NULL
    )`,
    `CREATE INDEX runs_started_at ON runs (started_at)`,
    `CREATE TABLE run_models (
      run_id TEXT NOT NULL REFERENCES runs (run_id),
      model_name TEXT NOT NULL,
      position INTEGER NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('success', 'failed', 'skipped')),
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
      PRIMARY KEY (run_id, model_name)
    )`,
    `CREATE INDEX run_models_model ON run_models (model_name)`,
    `CREATE TABLE artifacts (
      run_id TEXT NOT NULL,
      model_name TEXT NOT NULL,
      file_path TEXT NOT NULL,
      blake3_hash TEXT NOT NULL,
      size_bytes INTEGER NOT NULL,
      commit_version INTEGER NOT NULL,
      rows INTEGER NOT NULL,
      written_at TEXT NOT NULL,
      PRIMARY KEY (run_id, model_name, file_path)
    )`,
    `CREATE INDEX artifacts_hash ON artifacts (blake3_hash)`,
    `CREATE INDEX artifacts_model ON artifacts (model_name)`,
    `CREATE TABLE provenance (
      run_id TEXT NOT NULL,
      model_name TEXT NOT NULL,
      recipe_hash TEXT NOT NULL,
      input_hash TEXT NOT NULL,
      model_canonical_json TEXT NOT NULL,
      upstreams_json TEXT NOT NULL,
      output_blake3_json TEXT NOT NULL,
      output_path_json TEXT NOT NULL,
      proof_class TEXT NOT NULL CHECK (proof_class IN ('strong', 'heuristic')),
      recorded_at TEXT NOT NULL,
      PRIMARY KEY (run_id, model_name)
    )`
  ]
}
