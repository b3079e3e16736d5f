// `pcli review --queue`'s output, apart from plans.ts so the other review forms never build it.
import { Schema } from "effect"
import { PlanAuthor, PlanKind } from "./plans"

export const QueueItem = Schema.Struct({
  plan_id: Schema.String,
  kind: PlanKind,
  /** `created_at` and `principal`: as the ledger recorded the plan's issuing; the file's only when it recorded none. */
  created_at: Schema.String,
  principal: PlanAuthor,
  models: Schema.Array(Schema.String),
  /** The strictest change class of the plan's models, or the kind for gc/restore/backfill. */
  change_class: Schema.String,
  class_weight: Schema.Int,
  /** Downstream models outside the plan that its models feed; omitted when the project does not compile. */
  blast_radius: Schema.optional(Schema.Int),
  staleness_seconds: Schema.Int,
  score: Schema.Number,
  /** `unrecorded`: a marker whose approval row is not in the ledger (it approves nothing). */
  marker: Schema.Literal("missing", "invalid", "unrecorded"),
  stale: Schema.Boolean,
  approve_command: Schema.String
})
export type QueueItem = typeof QueueItem.Type

/** `pcli review --queue`. */
export const ReviewQueueOutput = Schema.Struct({
  command: Schema.Literal("review_queue"),
  ranking: Schema.Literal("(blast_radius + 1) × class_weight × (1 + staleness_hours)"),
  total: Schema.Int,
  pending: Schema.Array(QueueItem),
  /** Why a blast radius is unknown (the models do not compile), a plan file is not listed, or its author or age are the ledger's. */
  notes: Schema.optional(Schema.Array(Schema.String))
})
export type ReviewQueueOutput = typeof ReviewQueueOutput.Type
