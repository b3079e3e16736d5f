import type { Migration } from "../Migration"

/** Restore tombstones: written when gc evicts an artifact's ledger row; stamped by restore, never deleted. */
export const migration: Migration = {
  version: 6,
  name: "tombstones",
  statements: [
    `CREATE TABLE tombstones (
      run_id TEXT NOT NULL,
      model_name TEXT NOT NULL,
      file_path TEXT NOT NULL,
      blake3_hash TEXT NOT NULL,
      size_bytes INTEGER NOT NULL,
      commit_version INTEGER NOT NULL,
      rows INTEGER NOT NULL,
      written_at TEXT NOT NULL,
      recipe_hash TEXT,
      input_hash TEXT,
      input_proof_class TEXT,
      evicted_at TEXT NOT NULL,
      plan_id TEXT NOT NULL,
      physical_reclaimed INTEGER NOT NULL DEFAULT 0 CHECK (physical_reclaimed = 0),
      restored_at TEXT,
      restore_plan_id TEXT,
      PRIMARY KEY (run_id, model_name, file_path, evicted_at)
    )`,
    `CREATE INDEX tombstones_hash ON tombstones (blake3_hash)`
  ]
}
