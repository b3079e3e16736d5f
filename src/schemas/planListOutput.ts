// `pcli review --list`'s output, apart from plans.ts so the other review forms never build it.
import { Schema } from "effect"
import { Approver, PlanAuthor, PlanKind } from "./plans"

/** One plan in the store as `review --list` shows it: who, what, and the state of its review marker. */
export const PlanListItem = Schema.Struct({
  plan_id: Schema.String,
  kind: PlanKind,
  created_at: Schema.String,
  principal: PlanAuthor,
  models: Schema.Array(Schema.String),
  /** `approved` only with a marker whose approval row the ledger holds; `unrecorded` approves nothing. */
  review: Schema.Literal("approved", "pending", "invalid", "unrecorded"),
  approver: Schema.optional(Approver),
  reviewed_at: Schema.optional(Schema.String)
})
export type PlanListItem = typeof PlanListItem.Type

/** `pcli review --list`: every plan in the store, newest first. */
export const PlanListOutput = Schema.Struct({
  command: Schema.Literal("plan_list"),
  count: Schema.Int,
  plans: Schema.Array(PlanListItem),
  /** Plan files that could not be read, each `not listed (<code>): <message>`. */
  notes: Schema.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "PlanListOutput" })
export type PlanListOutput = typeof PlanListOutput.Type
