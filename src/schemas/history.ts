import { Schema } from "effect"
import { ModelRunOutput, ModelRunStatus, RunStatus } from "./pipeline"

/** One run in `pcli history`: status, timings, outcome counts and retries. */
export const HistoryRun = Schema.Struct({
  run_id: Schema.String,
  status: RunStatus,
  trigger: Schema.String,
  started_at: Schema.String,
  finished_at: Schema.String,
  duration_ms: Schema.Number,
  models_total: Schema.Number,
  models_built: Schema.Number,
  models_unchanged: Schema.Number,
  models_failed: Schema.Number,
  models_skipped: Schema.Number,
  /** Attempts past the first, over all its models. */
  retries: Schema.Number,
  /** With `--model`: that model's outcome in this run. */
  model: Schema.optional(
    Schema.Struct({
      name: Schema.String,
      status: ModelRunStatus,
      duration_ms: Schema.optional(Schema.Number),
      rows_affected: Schema.optional(Schema.Number),
      attempts: Schema.Number
    })
  )
})
export type HistoryRun = typeof HistoryRun.Type

/** `pcli history [--last N] [--model M]`: most recent runs first. */
export const HistoryListOutput = Schema.Struct({
  command: Schema.Literal("history"),
  runs: Schema.Array(HistoryRun)
})
export type HistoryListOutput = typeof HistoryListOutput.Type

export const HistoryModel = Schema.Struct({
  ...ModelRunOutput.fields,
  started_at: Schema.optional(Schema.String),
  finished_at: Schema.optional(Schema.String)
})

/** `pcli history <run_id>`: one run with every model's outcome. */
export const HistoryRunOutput = Schema.Struct({
  command: Schema.Literal("history"),
  run: HistoryRun,
  partition_from: Schema.optional(Schema.String),
  partition_to: Schema.optional(Schema.String),
  models: Schema.Array(HistoryModel)
})
export type HistoryRunOutput = typeof HistoryRunOutput.Type
