// `pcli review <id> --status`'s output, apart from plans.ts so the other review forms never build it.
import { Schema } from "effect"
import { Approver, PlanKind } from "./plans"

/** `pcli review <id> --status`: read-only. */
export const ReviewStatusOutput = Schema.Struct({
  command: Schema.Literal("review_status"),
  plan_id: Schema.String,
  kind: PlanKind,
  reviewed: Schema.Boolean,
  marker_path: Schema.String,
  reviewed_at: Schema.optional(Schema.String),
  approver: Schema.optional(Approver),
  breaking_change_count: Schema.Int,
  /** The data product this plan fulfils; null until product fulfilment binds plans. */
  product_binding: Schema.Null
})
export type ReviewStatusOutput = typeof ReviewStatusOutput.Type
