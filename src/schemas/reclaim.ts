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
