import { migration as environments } from "./migrations/013_environments"
import { migration as freshnessChecks } from "./migrations/014_freshness_checks"
import { migration as physicalTables } from "./migrations/015_physical_tables"
import { CURRENT_SCHEMA_VERSION } from "./schemaVersion"

/**
 * A new PostgreSQL store starts from this one baseline at the current version (decision 36), not
 * from the SQLite migration history: the tables every migration up to 12 leaves, in pg's types, then
 * the later migrations' own statements (written portable from 13 on).
 * Integers are BIGINT (the client parses int8 as a number); `seq` is assigned under the head row's
 * lock, not by a sequence, so a rolled-back append leaves no gap a verify would read as a deletion.
 */
export const PG_BASELINE_VERSION = CURRENT_SCHEMA_VERSION

const statements: ReadonlyArray<string> = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE ledger (
     seq BIGINT PRIMARY KEY,
     decision_ref TEXT NOT NULL UNIQUE,
     kind TEXT NOT NULL,
     timestamp TEXT NOT NULL,
     principal TEXT NOT NULL,
     principal_id TEXT,
     principal_id_source TEXT,
     capability TEXT,
     model TEXT,
     effect TEXT,
     rule_id BIGINT,
     plan_id TEXT,
     reason TEXT,
     target_principal TEXT CHECK (target_principal IN ('human', 'agent')),
     principal_id_verified INTEGER NOT NULL DEFAULT 0 CHECK (principal_id_verified IN (0, 1)),
     row_hash TEXT NOT NULL
   )`,
  // The chain's head: one row, locked FOR UPDATE by every append (seq order is commit order is time order).
  `CREATE TABLE ledger_head (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     seq BIGINT NOT NULL,
     row_hash TEXT NOT NULL,
     timestamp TEXT NOT NULL
   )`,
  `INSERT INTO ledger_head (id, seq, row_hash, timestamp) VALUES (1, 0, '${"0".repeat(64)}', '')`,
  `CREATE INDEX ledger_timestamp ON ledger (timestamp, seq)`,
  `CREATE INDEX ledger_principal_id ON ledger (principal_id, seq)`,
  `CREATE INDEX ledger_model ON ledger (model, seq)`,
  `CREATE INDEX ledger_plan ON ledger (plan_id)`,
  `CREATE INDEX ledger_kind ON ledger (kind, seq)`,
  `CREATE INDEX ledger_principal_time ON ledger (principal_id, timestamp)`,
  `CREATE INDEX ledger_reports ON ledger (kind, principal, principal_id, capability, model, rule_id, effect, timestamp, decision_ref)`,
  `CREATE TABLE runs (
     run_id TEXT PRIMARY KEY,
     started_at TEXT NOT NULL,
     finished_at TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('success', 'partial_failure', 'failure', 'interrupted')),
     trigger TEXT NOT NULL,
     partition_from TEXT,
     partition_to TEXT,
     models_total BIGINT NOT NULL,
     models_failed BIGINT NOT NULL,
     models_skipped BIGINT NOT NULL,
     plan_id TEXT,
     models_unchanged BIGINT NOT NULL DEFAULT 0
   )`,
  `CREATE INDEX runs_started_at ON runs (started_at)`,
  `CREATE INDEX runs_plan ON runs (plan_id)`,
  `CREATE TABLE run_models (
     run_id TEXT NOT NULL REFERENCES runs (run_id),
     model_name TEXT NOT NULL,
     position BIGINT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('success', 'failed', 'skipped', 'unchanged')),
     strategy TEXT NOT NULL,
     started_at TEXT,
     finished_at TEXT,
     duration_ms BIGINT,
     rows_affected BIGINT,
     attempts BIGINT NOT NULL,
     sql_hash TEXT NOT NULL,
     recipe_hash TEXT NOT NULL,
     output_hash TEXT,
     error_code TEXT,
     error_class TEXT CHECK (error_class IN ('transient', 'permanent')),
     error_message TEXT,
     warnings_json TEXT NOT NULL DEFAULT '[]',
     intervals_built BIGINT,
     PRIMARY KEY (run_id, model_name)
   )`,
  `CREATE INDEX run_models_model ON run_models (model_name)`,
  `CREATE TABLE artifacts (
     run_id TEXT NOT NULL,
     model_name TEXT NOT NULL,
     file_path TEXT NOT NULL,
     blake3_hash TEXT NOT NULL,
     size_bytes BIGINT NOT NULL,
     commit_version BIGINT NOT NULL,
     rows BIGINT NOT NULL,
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
   )`,
  `CREATE TABLE product_approvals (
     product TEXT PRIMARY KEY,
     product_id TEXT NOT NULL,
     spec_digest TEXT NOT NULL,
     approver TEXT NOT NULL,
     approved_at TEXT NOT NULL,
     snapshot_path TEXT NOT NULL,
     approved_by TEXT
   )`,
  `CREATE TABLE product_fulfillment (
     product TEXT PRIMARY KEY,
     state TEXT NOT NULL,
     journal_seq BIGINT NOT NULL,
     updated_at TEXT NOT NULL,
     record_json TEXT NOT NULL
   )`,
  `CREATE TABLE product_journal (
     product TEXT NOT NULL,
     seq BIGINT NOT NULL,
     at TEXT NOT NULL,
     event TEXT NOT NULL,
     from_state TEXT,
     to_state TEXT NOT NULL,
     spec_digest TEXT,
     plan_id TEXT,
     idempotency_key TEXT,
     PRIMARY KEY (product, seq)
   )`,
  `CREATE TABLE tombstones (
     run_id TEXT NOT NULL,
     model_name TEXT NOT NULL,
     file_path TEXT NOT NULL,
     blake3_hash TEXT NOT NULL,
     size_bytes BIGINT NOT NULL,
     commit_version BIGINT NOT NULL,
     rows BIGINT NOT NULL,
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
  `CREATE INDEX tombstones_hash ON tombstones (blake3_hash)`,
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
     built_at TEXT NOT NULL,
     attributes_json TEXT
   )`,
  `CREATE TABLE model_intervals (
     model_name TEXT NOT NULL,
     interval_key TEXT NOT NULL,
     fingerprint TEXT NOT NULL,
     row_count BIGINT NOT NULL,
     checksum TEXT NOT NULL,
     run_id TEXT NOT NULL,
     PRIMARY KEY (model_name, interval_key)
   )`,
  `CREATE TABLE plan_applies (
     plan_id TEXT PRIMARY KEY,
     status TEXT NOT NULL CHECK (status IN ('applying', 'applied', 'failed')),
     approval_seq BIGINT,
     principal TEXT NOT NULL,
     principal_id TEXT,
     claimed_at TEXT NOT NULL,
     finished_at TEXT
   )`,
  // Plans and their review markers live in the shared store on pg (files are a local export).
  `CREATE TABLE plans (
     plan_id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     created_at TEXT NOT NULL,
     body TEXT NOT NULL
   )`,
  `CREATE TABLE plan_markers (
     plan_id TEXT PRIMARY KEY,
     approval_seq BIGINT,
     written_at TEXT NOT NULL,
     body TEXT NOT NULL
   )`,
  `INSERT INTO meta (key, value) VALUES ('store_id', replace(gen_random_uuid()::text, '-', ''))`
]

/**
 * The baseline's statements, every TEXT column in the "C" collation: ordering and the ledger's
 * decision-ref ranges then compare bytes, as SQLite does, whatever the database's locale.
 */
export const pgBaseline: ReadonlyArray<string> = [...statements, ...environments.statements, ...freshnessChecks.statements, ...physicalTables.statements].map((s) => s.replace(/ TEXT\b/g, ' TEXT COLLATE "C"'))
