import { Schema } from "effect"
import { Severity } from "./model"

/** `fresh`: newest row within the lag; `stale`: older; `empty`: no row has a time; `error`: the query failed. */
export const FreshnessStatus = Schema.Literal("fresh", "stale", "empty", "error")
export type FreshnessStatus = typeof FreshnessStatus.Type

/** One freshness check of a built table: `max(time_column)` against `max_lag_seconds`. */
export const FreshnessCheck = Schema.Struct({
  model: Schema.String,
  /** The data product the model's sidecar was lowered from (its `product` tag), when it is one. */
  product: Schema.NullOr(Schema.String),
  time_column: Schema.String,
  max_lag_seconds: Schema.Number,
  severity: Severity,
  status: FreshnessStatus,
  /** `max(time_column)` as the warehouse printed it; null when the table has no time. */
  newest: Schema.NullOr(Schema.String),
  lag_seconds: Schema.NullOr(Schema.Number),
  checked_at: Schema.String,
  /** The run that built the model, when the check ran after a build. */
  run_id: Schema.NullOr(Schema.String),
  detail: Schema.String
}).annotations({ identifier: "FreshnessCheck" })
export type FreshnessCheck = typeof FreshnessCheck.Type
