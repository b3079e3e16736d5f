import { Schema } from "effect"

/** One closure model's estimated cost from its most recent successful execution. */
export const BackfillModelCost = Schema.Struct({
  model_name: Schema.String,
  cost_usd: Schema.optional(Schema.Number),
  duration_ms: Schema.optional(Schema.Number),
  source_run_id: Schema.optional(Schema.String)
})

export const BackfillCostEstimate = Schema.Struct({
  is_estimate: Schema.Literal(true),
  basis: Schema.Literal("historical_observed", "unavailable"),
  total_cost_usd: Schema.optional(Schema.Number),
  total_duration_ms: Schema.optional(Schema.Number),
  per_model: Schema.Array(BackfillModelCost)
})
export type BackfillCostEstimate = typeof BackfillCostEstimate.Type

export const PartitionScope = Schema.Struct({
  from: Schema.String,
  to: Schema.String,
  /** Closure models whose strategy is time_interval; empty = the window is inert. */
  models: Schema.Array(Schema.String)
})

/** `pcli backfill`: the composed recovery plan, written review-gated. */
export const BackfillOutput = Schema.Struct({
  command: Schema.Literal("backfill"),
  trigger: Schema.Literal("manual", "last_run_failure"),
  plan_id: Schema.String,
  path: Schema.String,
  requires_review: Schema.Literal(true),
  seed_models: Schema.Array(Schema.String),
  models: Schema.Array(Schema.String),
  execution_layers: Schema.Array(Schema.Array(Schema.String)),
  partition_scope: Schema.optional(PartitionScope),
  cost_estimate: BackfillCostEstimate,
  warnings: Schema.Array(Schema.String),
  review_command: Schema.String,
  apply_command: Schema.String,
  message: Schema.String
})
export type BackfillOutput = typeof BackfillOutput.Type

export const GcCheck = Schema.Struct({
  check: Schema.Literal("recipe_recorded", "recipe_produces_output", "replayable", "unreferenced", "policy_allows", "age_threshold"),
  passed: Schema.Boolean,
  detail: Schema.String
})

export const GcCandidate = Schema.Struct({
  model_name: Schema.String,
  run_id: Schema.String,
  blake3_hash: Schema.String,
  file_path: Schema.String,
  size_bytes: Schema.Number,
  written_at: Schema.String,
  refcount: Schema.Number,
  recipe_id: Schema.optional(Schema.String),
  input_proof_class: Schema.optional(Schema.String),
  rebuild_cost: Schema.Struct({ estimated: Schema.Literal(true), source_duration_ms: Schema.NullOr(Schema.Number) }),
  derivable: Schema.Boolean,
  checks: Schema.Array(GcCheck)
})
export type GcCandidate = typeof GcCandidate.Type

/** A physical table of the environment layer (issue 34 item 4), judged by the same six checks. */
export const GcTableCandidate = Schema.Struct({
  kind: Schema.Literal("physical_table"),
  physical: Schema.String,
  /** Null when no run recorded building the table (it is then kept). */
  model_name: Schema.NullOr(Schema.String),
  fingerprint: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  recipe_hash: Schema.NullOr(Schema.String),
  built_at: Schema.NullOr(Schema.String),
  /** DuckDB's estimate of the table's rows (null on a remote warehouse). */
  estimated_rows: Schema.NullOr(Schema.Number),
  derivable: Schema.Boolean,
  checks: Schema.Array(GcCheck)
})
export type GcTableCandidate = typeof GcTableCandidate.Type

/** One planned table drop: the table and the build its checks judged (apply refuses if it was rebuilt since). */
export const GcTableDrop = Schema.Struct({
  kind: Schema.Literal("physical_table"),
  physical: Schema.String,
  model_name: Schema.String,
  fingerprint: Schema.String,
  run_id: Schema.String,
  recipe_hash: Schema.String,
  built_at: Schema.String,
  estimated_rows: Schema.NullOr(Schema.Number)
})
export type GcTableDrop = typeof GcTableDrop.Type

/** `pcli gc --derivable --dry-run`: the read-only inventory. */
export const GcInventoryOutput = Schema.Struct({
  command: Schema.Literal("gc --derivable --dry-run"),
  managed_bytes: Schema.Number,
  derivable_bytes: Schema.Number,
  derivable_pct: Schema.optional(Schema.Number),
  artifact_count: Schema.Number,
  derivable_count: Schema.Number,
  read_tracking_available: Schema.Literal(false),
  min_age_days: Schema.Number,
  rebuild_cost_ms: Schema.Number,
  notes: Schema.Array(Schema.String),
  candidates: Schema.Array(GcCandidate),
  /** Physical tables of environments, when the project has any; `keep_promotions` is the rollback window protected. */
  tables: Schema.optional(Schema.Array(GcTableCandidate)),
  keep_promotions: Schema.optional(Schema.Number)
})
export type GcInventoryOutput = typeof GcInventoryOutput.Type

/** One planned eviction: the exact ledger row and its recipe identity. */
export const GcEviction = Schema.Struct({
  model_name: Schema.String,
  run_id: Schema.String,
  blake3_hash: Schema.String,
  file_path: Schema.String,
  size_bytes: Schema.Number,
  commit_version: Schema.Number,
  written_at: Schema.String,
  recipe_hash: Schema.optional(Schema.String),
  input_hash: Schema.optional(Schema.String),
  input_proof_class: Schema.optional(Schema.String)
})
export type GcEviction = typeof GcEviction.Type

/** A gc plan's payload as gc writes it: what apply re-checks and evicts, and what review lists. */
export const GcPayload = Schema.Struct({
  min_age_days: Schema.Number,
  evictions: Schema.Array(GcEviction),
  table_drops: Schema.optional(Schema.Array(GcTableDrop))
})

/** `pcli gc --derivable`: a review-gated plan of the derivable entries, or none. */
export const GcPlanOutput = Schema.Struct({
  command: Schema.Literal("gc --derivable"),
  plan_id: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  eviction_count: Schema.Number,
  total_bytes: Schema.Number,
  review_required: Schema.Boolean,
  evictions: Schema.Array(GcEviction),
  table_drops: Schema.optional(Schema.Array(GcTableDrop)),
  message: Schema.String
})
export type GcPlanOutput = typeof GcPlanOutput.Type

export const GcEvicted = Schema.Struct({
  model_name: Schema.String,
  run_id: Schema.String,
  blake3_hash: Schema.String,
  size_bytes: Schema.Number,
  tombstone_recorded: Schema.Literal(true),
  physical_reclaimed: Schema.Literal(false)
})

export const GcRefused = Schema.Struct({
  model_name: Schema.String,
  run_id: Schema.String,
  blake3_hash: Schema.String,
  size_bytes: Schema.Number,
  reason: Schema.String,
  failed_checks: Schema.Array(GcCheck)
})

/** A physical table gc dropped (DROP TABLE: its bytes are gone; a run of its fingerprint rebuilds it). */
export const GcTableDropped = Schema.Struct({
  physical: Schema.String,
  model_name: Schema.String,
  tombstone_recorded: Schema.Literal(true),
  physical_reclaimed: Schema.Literal(true)
})

export const GcTableRefused = Schema.Struct({
  physical: Schema.String,
  model_name: Schema.String,
  reason: Schema.String,
  failed_checks: Schema.Array(GcCheck)
})

/** `pcli apply <gc-plan>`: per-entry outcomes; refusals keep exit 0. */
export const GcApplyOutput = Schema.Struct({
  command: Schema.Literal("apply"),
  kind: Schema.Literal("gc"),
  plan_id: Schema.String,
  evicted: Schema.Array(GcEvicted),
  refused: Schema.Array(GcRefused),
  already_evicted: Schema.Array(Schema.String),
  bytes_evicted: Schema.Number,
  bytes_refused: Schema.Number,
  evicted_count: Schema.Number,
  refused_count: Schema.Number,
  tables_dropped: Schema.optional(Schema.Array(GcTableDropped)),
  tables_refused: Schema.optional(Schema.Array(GcTableRefused))
})
export type GcApplyOutput = typeof GcApplyOutput.Type

export const Restoration = Schema.Struct({
  model_name: Schema.String,
  run_id: Schema.String,
  blake3_hash: Schema.String,
  file_path: Schema.String,
  size_bytes: Schema.Number,
  commit_version: Schema.Number,
  evicted_at: Schema.String,
  gc_plan_id: Schema.String,
  recipe_hash: Schema.optional(Schema.String)
})
export type Restoration = typeof Restoration.Type

/** `pcli restore <target>`: a review-gated plan; never bytes. */
export const RestorePlanOutput = Schema.Struct({
  command: Schema.Literal("restore"),
  plan_id: Schema.String,
  path: Schema.String,
  target: Schema.String,
  restoration_count: Schema.Number,
  total_bytes: Schema.Number,
  review_required: Schema.Literal(true),
  restorations: Schema.Array(Restoration),
  message: Schema.String
})
export type RestorePlanOutput = typeof RestorePlanOutput.Type

/** `pcli apply <restore-plan>`: per-entry outcomes; refusals keep exit 0. */
export const RestoreApplyOutput = Schema.Struct({
  command: Schema.Literal("apply"),
  kind: Schema.Literal("restore"),
  plan_id: Schema.String,
  restored: Schema.Array(
    Schema.Struct({ model_name: Schema.String, run_id: Schema.String, blake3_hash: Schema.String, file_path: Schema.String, size_bytes: Schema.Number, hash_verified: Schema.Literal(true), bytes_written: Schema.Boolean })
  ),
  refused: Schema.Array(Schema.Struct({ model_name: Schema.String, run_id: Schema.String, blake3_hash: Schema.String, size_bytes: Schema.Number, condition: Schema.String, reason: Schema.String })),
  already_restored: Schema.Array(Schema.String),
  restored_count: Schema.Number,
  refused_count: Schema.Number
})
export type RestoreApplyOutput = typeof RestoreApplyOutput.Type
