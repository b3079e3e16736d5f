import { Schema } from "effect"

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

/** `pcli compile --output json`. */
export const CompileOutput = Schema.Struct({
  command: Schema.Literal("compile"),
  models_dir: Schema.String,
  model_count: Schema.Number,
  execution_order: Schema.Array(Schema.String),
  execution_layers: Schema.Array(Schema.Array(Schema.String)),
  models: Schema.Array(CompiledModelOutput)
})
export type CompileOutput = typeof CompileOutput.Type

export const ModelRunError = Schema.Struct({
  code: Schema.String,
  class: Schema.Literal("transient", "permanent"),
  message: Schema.String
})

export const ModelRunOutput = Schema.Struct({
  model_name: Schema.String,
  status: Schema.Literal("success", "failed", "skipped"),
  strategy: Schema.String,
  duration_ms: Schema.optional(Schema.Number),
  rows_affected: Schema.optional(Schema.Number),
  attempts: Schema.Number,
  sql_hash: Schema.String,
  recipe_hash: Schema.String,
  output_hash: Schema.optional(Schema.String),
  skipped_because: Schema.optional(Schema.String),
  error: Schema.optional(ModelRunError),
  warnings: Schema.Array(Schema.String)
})

/** `pcli run --output json` (and backfill apply). Exit 0 success, 1 failure, 3 partial_failure. */
export const RunOutput = Schema.Struct({
  command: Schema.Literal("run"),
  run_id: Schema.String,
  status: Schema.Literal("success", "partial_failure", "failure"),
  started_at: Schema.String,
  finished_at: Schema.String,
  partition_from: Schema.optional(Schema.String),
  partition_to: Schema.optional(Schema.String),
  models_total: Schema.Number,
  models_succeeded: Schema.Number,
  models_failed: Schema.Number,
  models_skipped: Schema.Number,
  models: Schema.Array(ModelRunOutput)
})
export type RunOutput = typeof RunOutput.Type
