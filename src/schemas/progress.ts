import { Schema } from "effect"

/** Per-model progress of a run, for a live line on a TTY or one line per event off it; services never print. */
export const ProgressEvent = Schema.Union(
  Schema.Struct({
    kind: Schema.Literal("started"),
    model: Schema.String,
    strategy: Schema.String,
    /** Models started so far, this one included. */
    started: Schema.Number,
    done: Schema.Number,
    total: Schema.Number
  }),
  Schema.Struct({
    kind: Schema.Literal("finished"),
    model: Schema.String,
    status: Schema.Literal("success", "failed", "unchanged"),
    strategy: Schema.String,
    duration_ms: Schema.Number,
    /** Rows the build wrote (success only). */
    rows: Schema.optional(Schema.Number),
    /** Time-interval builds: intervals built. */
    intervals: Schema.optional(Schema.Number),
    /** `[code] message` of a failure. */
    error: Schema.optional(Schema.String),
    /** The model's number in the run, as its START line gave it (for an unchanged model, the next one). */
    started: Schema.optional(Schema.Number),
    done: Schema.Number,
    total: Schema.Number
  }),
  Schema.Struct({
    kind: Schema.Literal("skipped"),
    model: Schema.String,
    because: Schema.String,
    /** The model's number in the run (it never started, so the next one). */
    started: Schema.optional(Schema.Number),
    done: Schema.Number,
    total: Schema.Number
  })
)
export type ProgressEvent = typeof ProgressEvent.Type
