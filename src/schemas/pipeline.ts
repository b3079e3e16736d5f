import { Schema } from "effect"
import { FreshnessCheck } from "./freshness"
import { Finding } from "./validate"

export const CompiledModelOutput = Schema.Struct({
  name: Schema.String,
  target: Schema.String,
  strategy: Schema.String,
  /** Execution layer index (longest upstream path). */
  depth: Schema.Number,
  layer: Schema.optional(Schema.String),
  contracted: Schema.Boolean,
  depends_on: Schema.Array(Schema.String),
  sources: Schema.Array(Schema.String),
  downstreams: Schema.Number,
  reachable_downstreams: Schema.Number
})

/** A compile diagnostic (W004): `pcli validate`'s finding (subject `<model>.<column>`) with what would resolve it. */
export const CompileFinding = Schema.Struct({ ...Finding.fields, suggestion: Schema.String })
export type CompileFinding = typeof CompileFinding.Type

/** `pcli compile --output json`. */
export const CompileOutput = Schema.Struct({
  command: Schema.Literal("compile"),
  models_dir: Schema.String,
  model_count: Schema.Number,
  execution_order: Schema.Array(Schema.String),
  execution_layers: Schema.Array(Schema.Array(Schema.String)),
  models: Schema.Array(CompiledModelOutput),
  /** Warnings that leave the exit code alone (W004), sorted by model then column. */
  findings: Schema.Array(CompileFinding)
})
export type CompileOutput = typeof CompileOutput.Type

/** `interrupted`: Ctrl-C stopped the run after its in-flight models; the rest never started. */
export const RunStatus = Schema.Literal("success", "partial_failure", "failure", "interrupted")
export type RunStatus = typeof RunStatus.Type

/**
 * Per-model outcome of a run (decisions.md item 23: succeeded / failed / skipped); `unchanged`:
 * its fingerprint and every upstream's data version match its last successful build, nothing ran.
 */
export const ModelRunStatus = Schema.Literal("success", "failed", "skipped", "unchanged")
export type ModelRunStatus = typeof ModelRunStatus.Type

export const ErrorClass = Schema.Literal("transient", "permanent")
export type ErrorClass = typeof ErrorClass.Type

/** One model's execution inside a recorded run (state store `run_models` row). */
export const ModelExecution = Schema.Struct({
  model_name: Schema.String,
  position: Schema.Int,
  status: ModelRunStatus,
  strategy: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  finished_at: Schema.NullOr(Schema.String),
  duration_ms: Schema.NullOr(Schema.Number),
  rows_affected: Schema.NullOr(Schema.Number),
  attempts: Schema.Int,
  sql_hash: Schema.String,
  recipe_hash: Schema.String,
  output_hash: Schema.NullOr(Schema.String),
  error_code: Schema.NullOr(Schema.String),
  error_class: Schema.NullOr(ErrorClass),
  error_message: Schema.NullOr(Schema.String),
  /** For a skipped model: the failed model upstream of it that caused the skip (null when unknown). */
  failed_upstream: Schema.NullOr(Schema.String),
  /** Failed `warning` tests and contract warnings (W010), one line each. */
  warnings: Schema.Array(Schema.String),
  /** Time-interval models: how many intervals this run built (null for other strategies). */
  intervals_built: Schema.NullOr(Schema.Int)
})
export type ModelExecution = typeof ModelExecution.Type

/** A recorded pipeline run (state store `runs` row with its model executions). */
export const RunRecord = Schema.Struct({
  run_id: Schema.String,
  started_at: Schema.String,
  finished_at: Schema.String,
  status: RunStatus,
  trigger: Schema.String,
  partition_from: Schema.NullOr(Schema.String),
  partition_to: Schema.NullOr(Schema.String),
  models: Schema.Array(ModelExecution)
})
export type RunRecord = typeof RunRecord.Type

export const ModelRunError = Schema.Struct({
  code: Schema.String,
  class: ErrorClass,
  message: Schema.String
})

export const ModelRunOutput = Schema.Struct({
  model_name: Schema.String,
  status: ModelRunStatus,
  strategy: Schema.String,
  duration_ms: Schema.optional(Schema.Number),
  rows_affected: Schema.optional(Schema.Number),
  attempts: Schema.Number,
  sql_hash: Schema.String,
  recipe_hash: Schema.String,
  output_hash: Schema.optional(Schema.String),
  skipped_because: Schema.optional(Schema.String),
  /** A skipped model's failed upstream (the root failure, not an intermediate skipped model). */
  failed_upstream: Schema.optional(Schema.String),
  error: Schema.optional(ModelRunError),
  warnings: Schema.Array(Schema.String),
  intervals_built: Schema.optional(Schema.Number)
})

/**
 * `pcli run --output json` (and backfill apply). Exit 0 when every model succeeded, 1 when any
 * failed or was skipped, partial runs included (decisions.md item 23).
 */
export const RunOutput = Schema.Struct({
  command: Schema.Literal("run"),
  run_id: Schema.String,
  status: RunStatus,
  started_at: Schema.String,
  finished_at: Schema.String,
  partition_from: Schema.optional(Schema.String),
  partition_to: Schema.optional(Schema.String),
  models_total: Schema.Number,
  /** Models built by this run. */
  models_succeeded: Schema.Number,
  models_failed: Schema.Number,
  models_skipped: Schema.Number,
  /** Models left as they were: nothing they depend on changed since their last build. */
  models_unchanged: Schema.Number,
  models: Schema.Array(ModelRunOutput),
  /** Freshness checks of the models this run built that declare `[freshness]`; omitted when none. */
  freshness: Schema.optional(Schema.Array(FreshnessCheck))
})
export type RunOutput = typeof RunOutput.Type
