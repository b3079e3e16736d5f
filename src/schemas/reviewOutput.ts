// `pcli review <id>` (dry run) and `--approve`: their output, apart from plans.ts so the other review forms never build it.
import { Schema } from "effect"
import { Approver, ChangeFinding, ModelChange, PlanKind } from "./plans"
import { GcEviction, GcTableDrop } from "./reclaim"

export const BreakingFinding = Schema.Struct({
  model: Schema.String,
  finding: ChangeFinding,
  /** Direct downstream models whose SQL reads the removed or retyped column, from column lineage. */
  read_by: Schema.optional(Schema.Array(Schema.String)),
  /** Direct downstream models whose SQL column lineage could not settle whether they read it. */
  read_by_unresolved: Schema.optional(Schema.Array(Schema.String))
})
export type BreakingFinding = typeof BreakingFinding.Type

/** `pcli review <id>` (dry run) and `pcli review <id> --approve`. */
export const ReviewOutput = Schema.Struct({
  command: Schema.Literal("review"),
  plan_id: Schema.String,
  kind: PlanKind,
  /** `applied`, the git ref the findings were computed against, or "" for gc/restore/backfill. */
  base_ref: Schema.String,
  approved: Schema.Boolean,
  marker_written: Schema.Boolean,
  marker_path: Schema.optional(Schema.String),
  reviewed_at: Schema.optional(Schema.String),
  approver: Schema.optional(Approver),
  decision_ref: Schema.optional(Schema.String),
  /** Working-tree files no longer match the plan: apply will refuse it (plan-stale). */
  stale: Schema.Boolean,
  models: Schema.Array(Schema.String),
  changes: Schema.Array(ModelChange),
  breaking_changes: Schema.Array(BreakingFinding),
  /** A gc plan's evictions: what approving lets apply evict. */
  evictions: Schema.optional(Schema.Array(GcEviction)),
  /** A gc plan's physical tables (issue 34 item 4): what approving lets apply DROP. */
  table_drops: Schema.optional(Schema.Array(GcTableDrop)),
  message: Schema.String
})
export type ReviewOutput = typeof ReviewOutput.Type
