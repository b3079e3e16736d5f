import { Schema } from "effect"

export const BranchRecord = Schema.Struct({
  name: Schema.String,
  base: Schema.String,
  created_at: Schema.String,
  last_run_id: Schema.NullOr(Schema.String),
  last_run_at: Schema.NullOr(Schema.String),
  models: Schema.Number
})
export type BranchRecord = typeof BranchRecord.Type

export const BranchOutput = Schema.Struct({
  command: Schema.Literal("branch_create", "branch_drop"),
  branch: BranchRecord
})
export type BranchOutput = typeof BranchOutput.Type

export const BranchListOutput = Schema.Struct({
  command: Schema.Literal("branch_list"),
  branches: Schema.Array(BranchRecord)
})
export type BranchListOutput = typeof BranchListOutput.Type

export const ColumnDifference = Schema.Struct({
  column: Schema.String,
  base: Schema.NullOr(Schema.String),
  branch: Schema.NullOr(Schema.String)
})

export const ModelDifference = Schema.Struct({
  model: Schema.String,
  /** changed: the branch built its own table; reused: it reads the base's; not-built: the branch has no view of it. */
  status: Schema.Literal("changed", "reused", "not-built"),
  base_table: Schema.NullOr(Schema.String),
  branch_table: Schema.NullOr(Schema.String),
  schema_differences: Schema.Array(ColumnDifference),
  base_rows: Schema.NullOr(Schema.Number),
  branch_rows: Schema.NullOr(Schema.Number)
})
export type ModelDifference = typeof ModelDifference.Type

export const BranchDiffOutput = Schema.Struct({
  command: Schema.Literal("branch_diff"),
  branch: Schema.String,
  base: Schema.String,
  models: Schema.Array(ModelDifference)
})
export type BranchDiffOutput = typeof BranchDiffOutput.Type

const ViewTarget = Schema.Struct({ physical: Schema.String, fingerprint: Schema.String, table_key: Schema.String })

export const SwappedView = Schema.Struct({
  model_name: Schema.String,
  catalog: Schema.String,
  schema: Schema.String,
  table: Schema.String,
  from: Schema.NullOr(ViewTarget),
  to: Schema.NullOr(ViewTarget)
})

export const PromotePlanOutput = Schema.Struct({
  command: Schema.Literal("plan_promote"),
  plan_id: Schema.String,
  kind: Schema.Literal("promote"),
  branch: Schema.String,
  state_hash: Schema.String,
  views: Schema.Array(SwappedView)
})
export type PromotePlanOutput = typeof PromotePlanOutput.Type

export const PromoteApplyOutput = Schema.Struct({
  command: Schema.Literal("promote_apply"),
  plan_id: Schema.String,
  kind: Schema.Literal("promote", "rollback"),
  principal: Schema.String,
  policy: Schema.Literal("evaluated", "not_configured"),
  views: Schema.Array(SwappedView),
  /** A promote creates no table and copies no row: it only points views. */
  tables_created: Schema.Literal(0)
})
export type PromoteApplyOutput = typeof PromoteApplyOutput.Type
